// airflow.js — the solved air on the network map and a what-if panel (POST /api/network/solve and
// /api/network/what-if). Kept apart from map.js: it waits for the map's SVG, then overlays each drawn
// line's air direction as an arrow, and lets the user pick a door, regulator or fan, change it, and see the
// change on the map and in a table, with the service's notes. Each figure in a label says where it comes
// from: a monitored tunnel shows what was measured (实测 wind speed, and the air volume 60·v·S from the
// overview; a fan drift the 实测 air volume of its main fans) until a change is modelled, then 模拟 air
// volumes beside the measured speed; an unmonitored airway shows the solve's air volume, 模拟, always.

import { api, el } from './api.js';
import { reading } from './format.js';
import { STANDBY, refit } from './map.js';

const SVG = 'http://www.w3.org/2000/svg';
/** The devices a what-if can change, by their branch's kind, in words. */
export const CONTROLS = { door: '风门', regulator: '调节风窗', fan: '主要通风机' };
const SHORT_KINDS = new Set(['short_air', 'wind_low']);
let baseline = null;
let measured = {}; // tun_id → measured air volume (m³/min), from the overview (vent:overview)
let shown = [null, null, null]; // the overlay's arguments: what the map shows now
const DOOR_STATE = { open_door: '打开', close_door: '关闭' };
const STATE_SUFFIX = /（(关闭|打开|开启|常闭|常开)）$/;

/** The current state's solved branch `id` ({id, q m³/s, h Pa, kind, added_resistance N·s²/m⁸, …}), or
 * null before the solve has come or for a branch it lacks. */
export const solvedBranch = (id) => baseline?.branches.find((b) => b.id === id) || null;

/** A branch's name after `change` ({action, branch}): a door's state in its name is the modelled one. */
export function nameAfter(name, id, change) {
  const state = change && change.branch === id ? DOOR_STATE[change.action] : null;
  return state ? `${(name || '').replace(STATE_SUFFIX, '')}（${state}）` : name || '';
}

const svgEl = (tag, attrs = {}) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  return node;
};

const m3min = (q) => reading(Math.abs(q) * 60, 'air_volume'); // the solve's q is in m³/s
/** The change between two air volumes as they are shown (m³/min, whole): the difference of the two
 * figures written, so that before + change = after on the screen. `q`, `before`: m³/s. */
const shownChange = (q, before) => Math.round(Math.abs(q) * 60) - Math.round(Math.abs(before) * 60);
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');

const MIN_ARROW_Q = 0.5; // m³/min: air slower than this (a stopped fan's mine) gets no arrow
const ARROW_REACH = 34; // user units: the arrow's half-length (its path below)
const SPOTS = [0.5, 0.45, 0.55, 0.4, 0.6, 0.35, 0.65, 0.3, 0.7, 0.25, 0.75, 0.2, 0.8, 0.15, 0.85];

/** The device symbols' boxes as map.js placed them ({x, y, r}: centre and half-size, user units). */
const symbolsOf = (svg) => [...svg.querySelectorAll('g.device')].map((g) => ({
  x: +(g.dataset.x ?? g.dataset.x0), y: +(g.dataset.y ?? g.dataset.y0), r: +(g.dataset.r ?? g.dataset.r0),
}));

/** Where an arrow goes on a drawn line (its data-path): on its longest segment, at the spot nearest the
 * middle whose arrow clears the arrows already placed (`arrows`: a local fan's duct runs beside its
 * heading) and the device symbols, else the one that covers the fewest (an arrow first, then a symbol);
 * with that segment's direction. `arrows` and `symbols` are boxes {x, y, r} (centre, half-size). */
function arrowSpot(node, symbols, arrows) {
  const pts = node.dataset.path.split(' ').map((p) => p.split(',').map(Number));
  let seg = null;
  for (let i = 1; i < pts.length; i += 1) {
    const [[ax, ay], [bx, by]] = [pts[i - 1], pts[i]];
    const len = Math.hypot(bx - ax, by - ay);
    if (!seg || len > seg.len) seg = { len, ax, ay, bx, by };
  }
  const at = (f) => ({ mx: seg.ax + f * (seg.bx - seg.ax), my: seg.ay + f * (seg.by - seg.ay) });
  const hits = (boxes, { mx, my }) => boxes.filter((s) => Math.abs(s.x - mx) < s.r + ARROW_REACH && Math.abs(s.y - my) < s.r + ARROW_REACH).length;
  const cost = (spot) => 10 * hits(arrows, spot) + hits(symbols, spot);
  const spot = SPOTS.map(at).reduce((best, next) => (cost(next) < cost(best) ? next : best));
  return { ...spot, angle: (Math.atan2(seg.by - seg.ay, seg.bx - seg.ax) * 180) / Math.PI };
}

/** A label's air volume as measured when nothing is modelled: beside the measured wind speed, or called
 * 实测 on its own (a fan drift's: its main fans' measured air volume, the overview's); null when the
 * overview has none for the branch. */
export function measuredText(q, measuredSpeed) {
  if (q == null) return null;
  return measuredSpeed ? `  ${reading(q, 'air_volume')}` : `实测 ${reading(q, 'air_volume')}`;
}

/** A label's air-volume text: measured for a monitored tunnel when nothing is modelled (measuredText),
 * else the solve's, called 模拟, with its change and a shortfall. `measuredSpeed`: the label shows a
 * measured wind speed (only while nothing is modelled: a modelled label gives the modelled air alone). */
function flowText(row, measuredSpeed, modelled, delta, isShort) {
  if (!modelled && (measuredSpeed || measured[row.id] != null)) return measuredText(measured[row.id], measuredSpeed) ?? '';
  const change = delta ? `（${delta > 0 ? '+' : '−'}${Math.abs(delta)}）` : '';
  return `模拟 ${m3min(row.q)}${change}${isShort ? ' 不足' : ''}`;
}

/** Arrows over the map's lines and each line's air volume in its label (placed again by map.js);
 * `before` (a solve) marks what a change reversed and gives each volume its change; `change` (the one
 * modelled) renames a door by its modelled state. */
function overlay(result, before = null, change = null) {
  const svg = document.querySelector('#net-map svg.net');
  if (!svg) return;
  shown = [result, before, change];
  svg.querySelector('g.airflow')?.remove();
  const layer = svgEl('g', { class: 'airflow' });
  const short = new Set(result.findings.filter((f) => SHORT_KINDS.has(f.kind)).map((f) => f.branch));
  const old = before ? Object.fromEntries(before.branches.map((b) => [b.id, b])) : {};
  const symbols = symbolsOf(svg);
  const arrows = [];
  const rankOf = (id) => +(svg.querySelector(`text.label[data-branch="${CSS.escape(id)}"]`)?.dataset.rank ?? Infinity);
  const kept = before ? keptBranches(result, old, short, change, rankOf) : new Map();
  for (const row of result.branches) {
    const line = svg.querySelector(`[data-path][data-branch="${CSS.escape(row.id)}"]`);
    if (!line || row.map_direction === null) continue;
    const { mx, my, angle } = arrowSpot(line, symbols, arrows);
    const flipped = old[row.id] && old[row.id].map_direction * row.map_direction < 0;
    const cls = ['flow', short.has(row.id) ? 'short' : '', flipped ? 'reversed' : ''].join(' ').trim();
    const arrowCls = row.kind === 'local_fan' ? `${cls} duct` : cls; // a duct's air in the duct's colour
    const g = svgEl('g', { class: arrowCls, 'data-branch': row.id });
    if (row.map_direction !== 0 && Math.abs(row.q) * 60 >= MIN_ARROW_Q) {
      const turn = angle + (row.map_direction < 0 ? 180 : 0);
      g.append(svgEl('path', { d: 'M -34 -22 L 30 0 L -34 22 Z', transform: `translate(${mx} ${my}) rotate(${turn})` }));
      arrows.push({ x: mx, y: my, r: ARROW_REACH });
    }
    layer.append(g);
    const label = svg.querySelector(`text.label[data-branch="${CSS.escape(row.id)}"]`);
    const flow = label?.querySelector('tspan.flow');
    if (flow) {
      const delta = old[row.id] ? shownChange(row.q, old[row.id].q) : 0;
      const speed = flow.previousSibling;
      if (speed && before) speed.setAttribute('display', 'none');
      else speed?.removeAttribute('display');
      flow.textContent = flowText(row, Boolean(speed), Boolean(before), delta, short.has(row.id));
      flow.setAttribute('class', (speed || measured[row.id] != null) && !before ? 'flow measured' : cls);
    }
    if (label && before) Object.assign(label.dataset, { whatif: kept.has(row.id) ? 'key' : 'quiet', whatifRank: kept.get(row.id) ?? '' });
    else if (label) delete label.dataset.whatif;
    const name = label?.querySelector('tspan.name');
    if (name) {
      name.dataset.name ??= name.textContent;
      name.textContent = nameAfter(name.dataset.name, row.id, change);
    }
  }
  svg.querySelector('g.devices').before(layer); // the device symbols and the labels stay on top
  document.getElementById('map-legend')?.classList.toggle('modelled', Boolean(before));
  showModelled(svg, before ? result.changes : null, change);
  refit(Boolean(before));
}

const MODELLED_STATE = { ...DOOR_STATE, stop_fan: '已停止', start_fan: '已开启', set_regulator: '已调节' };

/** Say at the map's top that a change is modelled (`changes`: its words, the user's first, then what
 * follows from it, e.g. the local fans a stopped main fan stops; null: nothing modelled) with a
 * 恢复现状 button, and mark the device it changes in its modelled state (a stopped fan hollow as a standby
 * one, the changed door or regulator ringed): the lines keep their live colours, the figures are 模拟. */
function showModelled(svg, changes, change) {
  const tools = document.querySelector('#view-map .map-tools');
  let notice = document.getElementById('map-modelled');
  if (!notice && tools) {
    const back = el('button', { type: 'button' }, '恢复现状');
    back.addEventListener('click', () => { overlay(baseline); document.getElementById('what-if-result')?.replaceChildren(); });
    notice = el('span', { id: 'map-modelled', class: 'modelled-notice', role: 'status' }, el('span', { class: 'text' }), back);
    tools.append(notice);
  }
  if (notice) {
    notice.hidden = !changes;
    const more = changes && changes.length > 1 ? `（另有 ${changes.length - 1} 项随之变化）` : '';
    notice.querySelector('.text').textContent = changes ? `正在显示模拟：${changes[0]}${more}。图上风量为模拟值，非实时数据` : '';
    notice.title = changes ? `${changes.join('；')}。巷道颜色仍为实时监测状态。` : '';
  }
  document.getElementById('map-status')?.toggleAttribute('hidden', Boolean(changes));
  for (const g of svg.querySelectorAll('g.device.modelled')) {
    g.classList.remove('modelled', 'modelled-off');
    if (!g.classList.contains('standby')) g.querySelector('.glyph').style.fill = '';
    g.querySelector('title').textContent = g.querySelector('title').textContent.replace(/（模拟：[^）]*）$/, '');
  }
  if (!changes || !change) return;
  for (const g of svg.querySelectorAll(`g.device[data-tun-id="${CSS.escape(change.branch)}"]`)) {
    const running = !STANDBY.has(g.dataset.state || '');
    if ((change.action === 'stop_fan' && !running) || (change.action === 'start_fan' && running)) continue;
    g.classList.add('modelled');
    g.classList.toggle('modelled-off', change.action === 'stop_fan');
    if (change.action === 'stop_fan') g.querySelector('.glyph').style.fill = g.querySelector('rect, circle').getAttribute('fill');
    g.querySelector('title').textContent += `（模拟：${MODELLED_STATE[change.action] || '已调整'}）`;
  }
}

const KEPT_MOVED = 8; // a change modelled: the labels kept on the map, beside the changed, short and reversed ones

/** The branches whose labels a modelled change keeps on the map (the others only where they fit), in the
 * order they are placed: the one changed, those short of air, those whose air reversed, then the
 * KEPT_MOVED whose air moved most (by at least 1 m³/min); a branch carrying the same air with the same
 * change as one kept before it (in series with it) is left to fit where it can. `rankOf(id)`: a label's
 * place in the plain map's order. Returns branch id → its order. */
function keptBranches(result, old, short, change, rankOf) {
  const delta = (b) => (old[b.id] ? shownChange(b.q, old[b.id].q) : 0);
  // most moved first; of those moved alike, the one whose label the plain map places first (a monitored
  // tunnel before an airway)
  const moved = result.branches.filter((b) => Math.abs(delta(b)) >= 1)
    .sort((a, b) => Math.abs(delta(b)) - Math.abs(delta(a)) || rankOf(a.id) - rankOf(b.id));
  const reversed = result.branches.filter((b) => old[b.id] && b.map_direction * old[b.id].map_direction < 0);
  const order = [
    ...(change ? result.branches.filter((b) => b.id === change.branch) : []),
    ...moved.filter((b) => short.has(b.id)), ...result.branches.filter((b) => short.has(b.id)),
    ...reversed, ...moved.slice(0, KEPT_MOVED),
  ];
  const kept = new Map();
  const carried = new Set();
  for (const b of order) {
    const air = `${Math.round(Math.abs(b.q) * 60)} ${delta(b)}`;
    if (kept.has(b.id) || (carried.has(air) && b.id !== change?.branch)) continue;
    carried.add(air);
    kept.set(b.id, kept.size);
  }
  return kept;
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

/** The actions offered for a branch, the first the default: for a door, the one that changes its state
 * (a closed door, one with an added resistance, is opened). */
function actionsOf(row) {
  if (row.kind === 'door') {
    const actions = [['close_door', '关闭'], ['open_door', '打开']];
    return row.added_resistance > 0 ? actions.reverse() : actions;
  }
  if (row.kind === 'regulator') return [['set_regulator', '设附加风阻（N·s²/m⁸）']];
  return [['stop_fan', '停止'], ['start_fan', '开启']];
}

const CODE_SUFFIX = /（[A-Za-z0-9][A-Za-z0-9_.-]*）$/; // a name's trailing （FM-01）: an id, not a word

/** A what-if choice: what it changes as the service names it (a main fan by its name, not its drift's),
 * its kind said once (中央变电所回风道（调节风窗） is 调节风窗 中央变电所回风道) and no id, but for a
 * branch nothing else names. */
export function optionText(row) {
  const kind = CONTROLS[row.kind];
  const given = row.device || row.name || '';
  const named = (given.replace(CODE_SUFFIX, '') || given)
    .replace(`（${kind}）`, '').replace(`，${kind}）`, '）').replace(`（${kind}，`, '（').trim();
  if (!named) return `${kind} ${row.id}`;
  return named.includes(kind) ? named : `${kind} ${named}`;
}

function renderPanel(solved) {
  const box = panel();
  const controls = solved.branches.filter((b) => b.kind in CONTROLS);
  const pick = el('select', { id: 'what-if-branch' },
    ...controls.map((b) => el('option', { value: b.id }, optionText(b))));
  const action = el('select', { id: 'what-if-action' });
  const value = el('input', { id: 'what-if-value', type: 'number', min: '0', step: 'any', placeholder: '附加风阻 N·s²/m⁸', title: '调节风窗的附加风阻，N·s²/m⁸，0 为全开', hidden: true });
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
    if (action.value === 'set_regulator' && !(value.value.trim() !== '' && Number(value.value) >= 0)) {
      out.replaceChildren(el('p', { class: 'error' }, '请填写调节风窗的附加风阻（N·s²/m⁸，不小于 0；0 为全开）。'));
      value.focus();
      return;
    }
    out.replaceChildren(el('p', { class: 'muted' }, '正在解算...'));
    try {
      const change = changeFor(row, action.value, value.value);
      const result = await api('/api/network/what-if', { method: 'POST', json: { changes: [change] } });
      overlay(result, baseline, change);
      out.replaceChildren(...describe(result, change));
    } catch (err) {
      out.replaceChildren(el('p', { class: 'error' }, `模拟失败：${err.message}`));
    }
  });
  reset.addEventListener('click', () => { overlay(baseline); out.replaceChildren(); });
  box.replaceChildren(
    el('h3', {}, '如果……会怎样（通风网络模拟）'),
    el('p', { class: 'muted' },
      `现状解算：${solved.iterations} 次迭代收敛（${balance(solved.residual_q)}）；箭头为风流方向。`
      + '图上“实测”为监测数据（风量 = 60 × 风速 × 断面；主要通风机风硐为主要通风机的监测风量），“模拟”为通风网络解算的风量。'),
    el('div', { class: 'what-if-form' }, pick, action, value, run, reset),
    out,
  );
}

/** The solve's closure in words: its largest node imbalance `residualQ` (m³/s) in m³/min. */
function balance(residualQ) {
  const perMinute = Math.abs(residualQ) * 60;
  return perMinute < 0.01 ? '各节点风量平衡，误差小于 0.01 m³/min' : `各节点风量平衡误差 ${perMinute.toFixed(2)} m³/min`;
}

/** The what-if's outcome: the change, the service's notes (e.g. a door already in that state), the
 * branches whose air moved (a door named by its state after `change`), the findings and the advice. */
function describe(result, change) {
  const moved = result.branches.filter((b) => b.dq !== null && Math.abs(b.dq) * 60 >= 1)
    .sort((a, b) => Math.abs(b.dq) - Math.abs(a.dq)).slice(0, 15);
  const table = el('table', {}, el('caption', {}, '风量 m³/min，均为通风网络模拟值'),
    el('thead', {}, el('tr', {}, ...['名称', '现状（模拟）', '调整后（模拟）', '变化'].map((h) => el('th', {}, h)))),
    el('tbody', {}, ...moved.map((b) => el('tr', {},
      el('td', { 'data-branch': b.id }, nameAfter(b.name, b.id, change) || b.id), el('td', {}, m3min(b.q_before)), el('td', {}, m3min(b.q)),
      el('td', {}, signed(shownChange(b.q, b.q_before)))))));
  const findings = result.findings.length
    ? el('ul', { class: 'findings' }, ...result.findings.map((f) => el('li', {}, `${f.message}（${f.clause}）`)))
    : el('p', {}, '无低于计划风量或风速超限的分支。');
  const notes = result.notes?.length
    ? [el('ul', { class: 'notes', id: 'what-if-notes' }, ...result.notes.map((n) => el('li', {}, n)))]
    : [];
  return [el('p', {}, `调整：${result.changes.join('；')}`), ...notes,
    moved.length ? table : el('p', { class: 'muted' }, '各分支风量无变化。'), el('h4', {}, '判定'), findings,
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
  window.addEventListener('vent:overview', (e) => {
    measured = Object.fromEntries(e.detail.tunnels.filter((t) => t.q != null).map((t) => [t.tun_id, t.q]));
    if (shown[0]) overlay(...shown);
  });
  new MutationObserver(() => { if (baseline) overlay(baseline); else load(); }).observe(map, { childList: true });
  if (map.querySelector('svg')) load();
}
