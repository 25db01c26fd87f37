// api.js — the console's calls: the token header, JSON requests with the service's {"error"} shape,
// and streams read through the service's client /static/vent-client.js (reconnecting via X-Run-Id).

import { followRun, streamWithRecovery } from '/static/vent-client.js';

const TOKEN_KEY = 'vent-console.token';

export const getToken = () => localStorage.getItem(TOKEN_KEY) || '';
/** Keep the token (an empty one too: a token cleared stays cleared across a reload). */
export const setToken = (t) => localStorage.setItem(TOKEN_KEY, t);
/** Whether this browser has ever kept a token, or a cleared one (else the demo token is offered). */
export const tokenChosen = () => localStorage.getItem(TOKEN_KEY) !== null;

/** Request headers with the x-access-token (when one is set). */
export function authHeaders(extra = {}) {
  const h = { ...extra };
  const t = getToken();
  if (t) h['x-access-token'] = t;
  return h;
}

/** A refused request: HTTP status and the service's Chinese message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function refusal(resp) {
  let message = `HTTP ${resp.status}`;
  try {
    message = (await resp.json()).error || message;
  } catch (err) {
    /* not JSON */
  }
  return new ApiError(resp.status, message);
}

/** fetch → parsed JSON; throws ApiError on a refusal. */
export async function api(url, { method = 'GET', json, body, headers = {} } = {}) {
  const init = { method, headers: authHeaders(headers) };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers['content-type'] = 'application/json';
  } else if (body !== undefined) init.body = body;
  const resp = await fetch(url, init);
  if (!resp.ok) throw await refusal(resp);
  return resp.status === 204 ? null : resp.json();
}

/**
 * Start a stream (POST url); returns {response, events}: `events` is the async generator of the run's
 * events (vent-client's streamWithRecovery: a dropped connection resumes from the last seq).
 * Throws ApiError when the service refuses the request (400/401/404/409…).
 */
export async function openStream(url, { json, body } = {}) {
  const init = { method: 'POST', headers: authHeaders({ accept: 'text/event-stream' }) };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers['content-type'] = 'application/json';
  } else init.body = body;
  const response = await fetch(url, init);
  if (!response.ok) throw await refusal(response);
  return { response, events: streamWithRecovery(response, { headers: authHeaders() }) };
}

/** Follow a run already started (after a reload): its events from `lastEventId`. */
export function follow(runId, lastEventId = 0) {
  return followRun(location.origin, runId, { lastEventId, headers: authHeaders() });
}

const banners = {}; // view → {message, kind}: each tab keeps its own message

/** The view shown (map, chat, review…): the part of the URL hash before any '/'. */
export const currentView = () => location.hash.slice(1).split('/')[0] || 'overview';

/** Show the banner of the view shown (called when the view changes). */
export function showBanner() {
  const node = document.getElementById('banner');
  const b = banners[currentView()];
  node.textContent = b ? b.message : '';
  node.className = `banner ${b ? b.kind : ''}`;
  node.hidden = !b;
}

/** Set the banner message of `view` (kind: 'error' | 'info'; empty clears it): it shows only on that
 * view's tab, not on the others. */
export function banner(message, kind = 'error', view = currentView()) {
  banners[view] = message ? { message, kind } : null;
  showBanner();
}

/** A banner function bound to one view: bannerFor('review')(message, kind). */
export const bannerFor = (view) => (message, kind = 'error') => banner(message, kind, view);

/** Create an element: el('div', {class: 'x', onclick}, child, 'text'…). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'html') node.innerHTML = v; // only ever given renderMarkdown() or formulaHtml() output (escaped)
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}
