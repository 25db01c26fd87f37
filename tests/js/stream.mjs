// Test driver: POST a request to a vent-agent stream route and print the events read, as JSON.
//   node stream.mjs <vent-client.js path> <client|naive> <request.json>
// request.json: {"url", "headers"?, "json"?, "form"?: {"fields": {...}, "file"?: {"path", "name", "type"}}}
// "client": the shipped client's streamEvents (parts joined); "naive": the spec's example parser
// (ventilation-api v2.0, 前端接入示例), ported as written: no buffer, split each read on a blank line.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

const [modulePath, mode, requestPath] = process.argv.slice(2);
const req = JSON.parse(await readFile(requestPath, 'utf-8'));
const { streamEvents } = await import(pathToFileURL(modulePath).href);

const init = { method: 'POST', headers: { ...(req.headers || {}) } };
if (req.json) {
  init.headers['content-type'] = 'application/json';
  init.body = JSON.stringify(req.json);
} else if (req.form) {
  const form = new FormData();
  for (const [k, v] of Object.entries(req.form.fields || {})) form.append(k, v);
  if (req.form.file) {
    const bytes = await readFile(req.form.file.path);
    form.append('file', new Blob([bytes], { type: req.form.file.type }), req.form.file.name);
  }
  init.body = form;
}
const response = await fetch(req.url, init);
const events = [];
if (mode === 'client') {
  for await (const ev of streamEvents(response)) events.push(ev);
} else {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    const chunk = decoder.decode(value);
    const lines = chunk.split('\n\n');
    for (const line of lines) {
      if (line.startsWith('data: ')) {
        events.push(JSON.parse(line.slice(6)));
      }
    }
  }
}
process.stdout.write(JSON.stringify({ run_id: response.headers.get('x-run-id'), events }));
