// vent-client.js — the vent-agent stream client for browsers (ES module, no dependencies).
// Served by the service at GET /static/vent-client.js.
//
//   import { streamEvents, followRun, streamWithRecovery } from '/static/vent-client.js';
//   const resp = await fetch('/api/chat', { method: 'POST', headers, body: form });
//   for await (const ev of streamWithRecovery(resp, { headers })) handle(ev);
//
// streamEvents(response): keeps a buffer across reads (a frame split over two network reads is joined),
// decodes UTF-8 in stream mode (a Chinese character split over two reads stays whole), skips comment
// frames (": ping"), yields each event's parsed JSON; events the service sent in parts (`part`/`parts`:
// long references, plans, todo lists) are joined back into one event.
// followRun(baseUrl, runId, opts): GET /api/runs/{id}/events with Last-Event-ID, reconnecting.
// streamWithRecovery(response, opts): streamEvents, then followRun from the last seq when the
// connection breaks before `done` (or `interrupt`).

/** Fields concatenated across the parts of a split event, by type (vent_agent/events.py SPLIT_*). */
export const PART_LISTS = {
  references: ['references', 'warnings'],
  interrupt: ['interrupts'],
  updated_todo_list: ['todos'],
  agent_todos: ['todos'],
};
export const PART_TEXT = {
  references: ['content'],
  interrupt: ['plan'],
};

const FRAME_END = /\r\n\r\n|\n\n|\r\r/;

/** Parse one SSE frame: its data lines joined, its id; null for a comment-only frame. */
function parseFrame(frame) {
  const data = [];
  let id = null;
  for (const line of frame.split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  return data.length ? { data: data.join('\n'), id } : null;
}

/** Joins split events as they arrive (same rule as vent_agent.event_parts.PartJoiner). */
export class PartJoiner {
  constructor() {
    this.pending = null;
  }

  /** The events complete after `ev` (usually [ev]; [] while parts are outstanding). */
  feed(ev) {
    const out = [];
    if (ev.parts === undefined || ev.parts === null) {
      out.push(...this.drain(), ev);
      return out;
    }
    const p = this.pending;
    if (p === null || p.type !== ev.type || ev.part === 1) {
      out.push(...this.drain());
      this.pending = { ...ev };
    } else {
      const joined = { ...p, ...ev };
      for (const key of PART_LISTS[ev.type] || []) joined[key] = [...(p[key] || []), ...(ev[key] || [])];
      for (const key of PART_TEXT[ev.type] || []) {
        if (key in p || key in ev) joined[key] = (p[key] || '') + (ev[key] || '');
      }
      this.pending = joined;
    }
    if (ev.part === ev.parts) {
      const done = this.pending;
      this.pending = null;
      delete done.part;
      delete done.parts;
      out.push(done);
    }
    return out;
  }

  /** An unfinished split event as received so far (or nothing). */
  drain() {
    const p = this.pending;
    this.pending = null;
    return p === null ? [] : [p];
  }
}

/**
 * Yield the events of an SSE `Response` (fetch). Options: `joinParts` (default true) joins split
 * events; `onFrame(frame)` sees each raw frame ({data, id}), e.g. to remember the last id.
 */
export async function* streamEvents(response, { joinParts = true, onFrame = null } = {}) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder('utf-8');
  const joiner = new PartJoiner();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let match;
      while ((match = FRAME_END.exec(buffer)) !== null) {
        const frame = parseFrame(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
        if (frame === null) continue;
        if (onFrame) onFrame(frame);
        const ev = JSON.parse(frame.data);
        if (joinParts) yield* joiner.feed(ev);
        else yield ev;
      }
      if (done) break;
    }
    if (joinParts) yield* joiner.drain();
  } finally {
    reader.releaseLock();
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Follow a run's events from `lastEventId` (the last `seq` seen; 0 = from the start) through
 * GET {baseUrl}/api/runs/{runId}/events, reconnecting up to `retries` times with back-off. Ends after
 * `done` or `interrupt`, or when the run has nothing more (204). Throws on 404 (run unknown) or another
 * refusal. `headers` are sent with each request (e.g. x-access-token).
 */
export async function* followRun(
  baseUrl,
  runId,
  { lastEventId = 0, headers = {}, retries = 5, fetchImpl = globalThis.fetch } = {},
) {
  let last = Number(lastEventId) || 0;
  const url = `${baseUrl.replace(/\/$/, '')}/api/runs/${encodeURIComponent(runId)}/events`;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt) await sleep(Math.min(200 * 2 ** (attempt - 1), 3000));
    let resp;
    try {
      resp = await fetchImpl(url, { headers: { ...headers, 'Last-Event-ID': String(last) } });
    } catch (err) {
      continue;
    }
    if (resp.status === 204) return;
    if (!resp.ok) {
      let message = `HTTP ${resp.status}`;
      try {
        message = (await resp.json()).error || message;
      } catch (err) {
        /* not JSON */
      }
      throw new Error(message);
    }
    try {
      for await (const ev of streamEvents(resp)) {
        if (typeof ev.seq === 'number') last = ev.seq; // a joined event carries its last part's seq
        yield ev;
        if (ev.type === 'done' || ev.type === 'interrupt') return;
      }
      return;
    } catch (err) {
      if (err instanceof SyntaxError) throw err;
    }
  }
  throw new Error(`run ${runId}: the connection could not be restored`);
}

/**
 * The events of a spec route's response (POST /api/chat, click, review), then — if the connection
 * breaks before `done`/`interrupt` — the rest through followRun from the last `seq` (X-Run-Id header).
 * Options: `baseUrl` (default: the response's origin), `headers`, `retries`.
 */
export async function* streamWithRecovery(response, { baseUrl = null, headers = {}, retries = 5, fetchImpl } = {}) {
  const runId = response.headers.get('x-run-id');
  let last = 0;
  try {
    for await (const ev of streamEvents(response)) {
      if (typeof ev.seq === 'number') last = ev.seq;
      yield ev;
      if (ev.type === 'done' || ev.type === 'interrupt') return;
    }
  } catch (err) {
    if (err instanceof SyntaxError || !runId) throw err;
  }
  if (!runId) return;
  const base = baseUrl || new URL(response.url).origin;
  yield* followRun(base, runId, { lastEventId: last, headers, retries, fetchImpl });
}
