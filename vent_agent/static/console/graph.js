// graph.js — a finding's chain in the provenance graph (GET /api/graph/support?report_id=…&finding=n),
// drawn as an SVG beside its trace: one column per kind of node, from the sources the finding rests on
// (left) to the finding and the report stating it (right); edges labelled by kind; a node's full label
// in its tooltip.

import { api, el } from './api.js';

const SVG = 'http://www.w3.org/2000/svg';
const COLUMNS = ['Source', 'Artifact', 'Evidence', 'ToolCall', 'Task', 'Claim'];
const KIND = { Source: '来源', Artifact: '文件', Evidence: '证据', ToolCall: '工具调用', Task: '任务', Claim: '结论', Request: '请求' };
const EDGE = { supports: '支撑', cites: '引用', extracts: '取自', stated_in: '载于', produces: '产出', next: '下一步' };
const COL_W = 150;
const ROW_H = 46;
const BOX_W = 136;
const BOX_H = 34;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

function short(text, n = 10) {
  const s = String(text || '');
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** The column of a node: its kind's (a report the claim is stated in right of the claim). */
function column(node) {
  const col = COLUMNS.indexOf(node.kind);
  return col < 0 || (node.kind === 'Artifact' && node.artifact === 'docx') ? COLUMNS.length : col;
}

/** Where each node goes: the columns of the kinds present, left to right, nodes stacked in id order. */
function layout(nodes) {
  const used = [...new Set(nodes.map(column))].sort((a, b) => a - b);
  const place = new Map();
  const rows = new Map();
  for (const node of [...nodes].sort((a, b) => a.id.localeCompare(b.id))) {
    const col = used.indexOf(column(node));
    const row = rows.get(col) || 0;
    rows.set(col, row + 1);
    place.set(node.id, { x: 10 + col * COL_W, y: 10 + row * ROW_H });
  }
  const height = 20 + Math.max(1, ...rows.values()) * ROW_H;
  return { place, width: 20 + used.length * COL_W, height };
}

/** The SVG of a support chain `{nodes, edges}`. */
export function chainSvg(graph) {
  const { place, width, height } = layout(graph.nodes);
  const root = svg('svg', { class: 'chain-graph', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img' });
  root.append(svg('title', {}, '溯源图：该发现的依据链'));
  for (const e of graph.edges) {
    const a = place.get(e.from);
    const b = place.get(e.to);
    if (!a || !b) continue;
    const [x1, x2] = a.x <= b.x ? [a.x + BOX_W, b.x] : [a.x, b.x + BOX_W];
    const line = svg('line', { x1, y1: a.y + BOX_H / 2, x2, y2: b.y + BOX_H / 2, class: `edge ${e.kind}` });
    line.append(svg('title', {}, EDGE[e.kind] || e.kind));
    root.append(line);
  }
  for (const n of graph.nodes) {
    const p = place.get(n.id);
    const g = svg('g', { class: `node ${n.kind}`, transform: `translate(${p.x},${p.y})`, 'data-id': n.id });
    g.append(svg('title', {}, `${KIND[n.kind] || n.kind}：${n.label}`));
    g.append(svg('rect', { width: BOX_W, height: BOX_H, rx: 5 }));
    const kind = svg('text', { x: 6, y: 13, class: 'kind' });
    kind.textContent = KIND[n.kind] || n.kind;
    const label = svg('text', { x: 6, y: 28 });
    label.textContent = short(n.label);
    g.append(kind, label);
    root.append(g);
  }
  return root;
}

const TRIES = 4;
const WAIT_MS = 800;

/** The chain of finding `index` of report `reportId`, drawn. A review's graph is written just after its
 * run ends, so a chain not there yet is asked for again a few times before the error is shown. */
export async function chainView(reportId, index) {
  const params = new URLSearchParams({ report_id: reportId, finding: String(index) });
  let graph;
  for (let attempt = 1; ; attempt += 1) {
    try {
      graph = await api(`/api/graph/support?${params}`);
      break;
    } catch (err) {
      if (attempt >= TRIES) throw err;
      await new Promise((done) => setTimeout(done, WAIT_MS));
    }
  }
  return el('div', { class: 'chain' }, el('p', {}, `溯源图：${graph.nodes.length} 个节点，${graph.edges.length} 条边`), chainSvg(graph));
}
