// graph.js — a finding's chain in the provenance graph (GET /api/graph/support?report_id=…&finding=n),
// drawn as an SVG beside its trace: one column per kind of node, from the sources the finding rests on
// (left) to the finding and the report stating it (right); edges labelled by kind; a node's label wrapped
// over up to three lines in its box, in full in its tooltip. The drawing keeps its size (its 12 px labels
// stay readable): a box narrower than it scrolls sideways.

import { api, el } from './api.js';

const SVG = 'http://www.w3.org/2000/svg';
const COLUMNS = ['Source', 'Artifact', 'Evidence', 'ToolCall', 'Task', 'Claim'];
const KIND = { Source: '来源', Artifact: '文件', Evidence: '证据', ToolCall: '工具调用', Task: '任务', Claim: '结论', Request: '请求' };
const EDGE = { supports: '支撑', cites: '引用', extracts: '取自', stated_in: '载于', produces: '产出', next: '下一步' };
const COL_W = 166;
const BOX_W = 150;
const FONT_PX = 12; // the labels' size (console.css .chain-graph text)
const LINE_H = 15;
const LABEL_LINES = 3;
const TEXT_W = BOX_W - 18; // a line's width, with room for a closing sign hung past it
const BOX_H = 20 + LABEL_LINES * LINE_H;
const ROW_H = BOX_H + 12;
const MIN_SCALE = 1; // drawn smaller, its 12 px labels would be too small to read: the box scrolls instead

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

const widths = new Map();
let measurer;

/** A character's width at the labels' size: measured in the page's font (a canvas), else estimated (a CJK
 * character or full-width sign a whole em, others about half of one). */
function charWidth(ch) {
  if (!widths.has(ch)) {
    if (measurer === undefined && typeof document !== 'undefined') {
      measurer = document.createElement('canvas').getContext('2d');
      if (measurer) measurer.font = `${FONT_PX}px ${getComputedStyle(document.body).fontFamily}`;
    }
    widths.set(ch, measurer ? measurer.measureText(ch).width : ch.codePointAt(0) >= 0x2e80 ? FONT_PX : FONT_PX * 0.56);
  }
  return widths.get(ch);
}

const CLOSING = new Set('，。、；：！？）》」』】,.;:!?)'); // never starts a line: it stays after what it closes
const OPENING = new Set('（《「『【('); // never ends a line: it goes on with what it opens

/** A label broken into lines of at most `width` px, at most `max` of them, the last ending in … when the
 * label goes on (its full text is in the node's tooltip). A line breaks between CJK characters or before a
 * run of other characters (a figure, a word: 630.0 stays whole), inside a run only when it is longer
 * than a line, never before a closing sign (，：）…), which may stand a little past the width, nor after an
 * opening one (（《…). */
export function wrapLabel(text, width = TEXT_W, max = LABEL_LINES) {
  const runs = String(text ?? '').replace(/\s+/g, ' ').trim().match(/[\u2e80-\uffff]|[^\u2e80-\uffff ]+| /gu) || [];
  const lines = [[]];
  let used = 0;
  let cut = false;
  const newLine = () => {
    if (lines.length === max) return false;
    const line = lines.at(-1);
    const carried = [];
    while (line.length > 1 && OPENING.has(line.at(-1))) carried.unshift(line.pop());
    lines.push(carried);
    used = carried.reduce((sum, ch) => sum + charWidth(ch), 0);
    return true;
  };
  placing: for (const run of runs) {
    const chars = [...run];
    const w = chars.reduce((sum, ch) => sum + charWidth(ch), 0);
    if (chars.length > 1 && lines.at(-1).length && used + w > width && w <= width && !newLine()) {
      cut = true;
      break;
    }
    for (const ch of chars) {
      if (lines.at(-1).length && used + charWidth(ch) > width && !CLOSING.has(ch)) {
        if (!newLine()) {
          cut = true;
          break placing;
        }
        if (ch === ' ') continue;
      }
      lines.at(-1).push(ch);
      used += charWidth(ch);
    }
  }
  const last = lines.at(-1);
  if (cut) {
    while (last.length && used + FONT_PX > width) used -= charWidth(last.pop());
    last.push('…');
  }
  return lines.map((l) => l.join('').trim()).filter(Boolean);
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
  const root = svg('svg', {
    class: 'chain-graph', viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'xMinYMin meet', role: 'img',
    style: `width: 100%; max-width: ${width}px; min-width: ${Math.round(width * MIN_SCALE)}px; height: auto`,
  });
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
    const kind = svg('text', { x: 6, y: 14, class: 'kind' });
    kind.textContent = KIND[n.kind] || n.kind;
    const label = svg('text', { x: 6, y: 16 + LINE_H, class: 'label' });
    wrapLabel(n.label).forEach((line, i) => {
      const span = svg('tspan', { x: 6, dy: i ? LINE_H : 0 });
      span.textContent = line;
      label.append(span);
    });
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
