// airflow.js — the solved air on the network map and a what-if panel (POST /api/network/solve and
// /api/network/what-if). Kept apart from map.js: it waits for the map's SVG, then overlays each drawn
// tunnel's solved air volume and a direction arrow, marks reversed tunnels and tunnels that fall short,
// and lets the user pick a door, regulator or fan, change it, and see the change on the map and in a table.

import { api, el } from './api.js';
import { refit } from './map.js';

const SVG = 'http://www.w3.org/2000/svg';
const CONTROLS = { door: '风门', regulator: '调节风窗', fan: '主要通风机' };
const SHORT_KINDS = new Set(['short_air', 'wind_low']);
let baseline = null;

const svgEl = (tag, attrs = {}) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  return node;
};

const m3min = (q) => `${Math.round(Math.abs(q) * 60)} m³/min`;

/** The middle of the longest segment of a drawn line (its data-path) and that segment's direction. */
function middleOf(node) {
  const pts = node.dataset.path.split(' ').map((p) => p.split(',').map(Number));
  let best = null;
  for (let i = 1; i < pts.length; i += 1) {
    const [[ax, ay], [bx, by]] = [pts[i - 1], pts[i]];
    const len = Math.hypot(bx - ax, by - ay);
    if (!best || len > best.len) best = { len, mx: (ax + bx) / 2, my: (ay + by) / 2, angle: (Math.atan2(by - ay, bx - ax) * 180) / Math.PI };
  }
  return best;
}

/** Arrows over the map's lines and each line's air volume in its label (placed again by map.js);
 * `before` (a solve) marks what a change reversed and gives each volume its change. */
function overlay(result, before = null) {
  const svg = document.querySelector('#net-map svg.net');
  if (!svg) return;
  svg.querySelector('g.airflow')?.remove();
  const layer = svgEl('g', { class: 'airflow' });
  const short = new Set(result.findings.filter((f) => SHORT_KINDS.has(f.kind)).map((f) => f.branch));
  const old = before ? Object.fromEntries(before.branches.map((b) => [b.id, b])) : {};
  for (const row of result.branches) {
    const line = svg.querySelector(`[data-path][data-branch="${CSS.escape(row.id)}"]`);
    if (!line || row.map_direction === null) continue;
    const { mx, my, angle } = middleOf(line);
    const flipped = old[row.id] && old[row.id].map_direction * row.map_direction < 0;
    const cls = ['flow', short.has(row.id) ? 'short' : '', flipped ? 'reversed' : ''].join(' ').trim();
    const g = svgEl('g', { class: cls, 'data-branch': row.id });
    if (row.map_direction !== 0) {
      const turn = angle + (row.map_direction < 0 ? 180 : 0);
      g.append(svgEl('path', { d: 'M -34 -22 L 30 0 L -34 22 Z', transform: `translate(${mx} ${my}) rotate(${turn})` }));
    }
    layer.append(g);
    const flow = svg.querySelector(`text.label[data-branch="${CSS.escape(row.id)}"] tspan.flow`);
    if (flow) {
      const delta = old[row.id] ? Math.round((row.q - old[row.id].q) * 60) : 0;
      flow.textContent = `${flow.previousSibling ? '  ' : ''}${m3min(row.q)}${delta ? `（${delta > 0 ? '+' : ''}${delta}）` : ''}${short.has(row.id) ? ' 不足' : ''}`;
      flow.setAttribute('class', cls.replace('flow', 'flow').trim());
    }
  }
  svg.querySelector('g.labels').before(layer); // the labels stay on top
  refit();
}

function panel() {
  let box = document.getElementById('what-if');
  if (box) return box;
  box = el('section', { id: 'what-if', class: 'what-if' });
  document.querySelector('#view-map .map-wrap')?.append(box);
  return box;
}

function changeFor(row, action, value) {
  if (action === 'set_regulator') return { action, branch: row.id, added_resistance: Number(value) };
  return { action, branch: row.id };
}

function actionsOf(row) {
  if (row.kind === 'door') return [['close_door', '关闭'], ['open_door', '打开']];
  if (row.kind === 'regulator') return [['set_regulator', '设附加风阻（N·s²/m⁸）']];
  return [['stop_fan', '停止'], ['start_fan', '开启']];
}

function renderPanel(solved) {
  const box = panel();
  const controls = solved.branches.filter((b) => b.kind in CONTROLS);
  const pick = el('select', { id: 'what-if-branch' },
    ...controls.map((b) => el('option', { value: b.id }, `${CONTROLS[b.kind]} ${b.id} ${b.name || ''}`)));
  const action = el('select', { id: 'what-if-action' });
  const value = el('input', { id: 'what-if-value', type: 'number', min: '0', step: 'any', placeholder: '附加风阻', hidden: true });
  const fill = () => {
    const row = controls.find((b) => b.id === pick.value);
    action.replaceChildren(...actionsOf(row).map(([k, label]) => el('option', { value: k }, label)));
    value.hidden = action.value !== 'set_regulator';
  };
  pick.addEventListener('change', fill);
  action.addEventListener('change', () => { value.hidden = action.value !== 'set_regulator'; });
  fill();
  const run = el('button', { type: 'button', class: 'primary' }, '模拟');
  const reset = el('button', { type: 'button' }, '恢复现状');
  const out = el('div', { id: 'what-if-result' });
  run.addEventListener('click', async () => {
    const row = controls.find((b) => b.id === pick.value);
    out.replaceChildren(el('p', { class: 'muted' }, '正在解算...'));
    try {
      const result = await api('/api/network/what-if', { method: 'POST', json: { changes: [changeFor(row, action.value, value.value)] } });
      overlay(result, baseline);
      out.replaceChildren(...describe(result));
    } catch (err) {
      out.replaceChildren(el('p', { class: 'error' }, `模拟失败：${err.message}`));
    }
  });
  reset.addEventListener('click', () => { overlay(baseline); out.replaceChildren(); });
  box.replaceChildren(
    el('h3', {}, '如果……会怎样（通风网络模拟）'),
    el('p', { class: 'muted' },
      `现状解算：${solved.iterations} 次迭代收敛，风量残差 ${solved.residual_q.toExponential(1)} m³/s；箭头为风流方向，数字为风量。`),
    el('div', { class: 'what-if-form' }, pick, action, value, run, reset),
    out,
  );
}

function describe(result) {
  const moved = result.branches.filter((b) => b.dq !== null && Math.abs(b.dq) * 60 >= 1)
    .sort((a, b) => Math.abs(b.dq) - Math.abs(a.dq)).slice(0, 15);
  const table = el('table', {},
    el('thead', {}, el('tr', {}, ...['分支', '名称', '原风量', '新风量', '变化'].map((h) => el('th', {}, h)))),
    el('tbody', {}, ...moved.map((b) => el('tr', {},
      el('td', {}, b.id), el('td', {}, b.name || ''), el('td', {}, m3min(b.q_before)), el('td', {}, m3min(b.q)),
      el('td', {}, `${b.dq > 0 ? '+' : ''}${Math.round(b.dq * 60)}`)))));
  const findings = result.findings.length
    ? el('ul', { class: 'findings' }, ...result.findings.map((f) => el('li', {}, `${f.message}（${f.clause}）`)))
    : el('p', {}, '无低于计划风量或风速超限的分支。');
  return [el('p', {}, `调整：${result.changes.join('；')}`), table, el('h4', {}, '判定'), findings,
    el('p', { class: 'muted' }, result.advice)];
}

async function load() {
  try {
    baseline = await api('/api/network/solve', { method: 'POST', json: {} });
  } catch (err) {
    panel().replaceChildren(el('p', { class: 'error' }, `通风网络解算失败：${err.message}`));
    return;
  }
  overlay(baseline);
  renderPanel(baseline);
}

/** Overlay the solved air whenever the map (re)draws its SVG, and build the what-if panel once. */
export function initAirflow() {
  const map = document.getElementById('net-map');
  if (!map) return;
  new MutationObserver(() => { if (baseline) overlay(baseline); else load(); }).observe(map, { childList: true });
  if (map.querySelector('svg')) load();
}
