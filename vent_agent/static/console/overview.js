// overview.js — the operator's overview (GET /api/mine/overview every minute): the status strip at the top
// of every tab (main fans and their duty point, total intake and return air, the worst CH₄ and CO now,
// the data's age, open alarms), the alarm list acknowledged per user (the overview's alarms carry the
// caller's acknowledgement; POST /api/alarms/{key}/ack) and each tunnel's values coloured by threshold with 24-hour sparklines.
// Statuses are words on colour (正常 / 偏低 / 预警 / 超限 / 无数据), never a glyph. The map listens to the
// 'vent:overview' window event to mark the devices in alarm.

import { api, bannerFor, el, getToken } from './api.js';
import { reading } from './format.js';

const say = bannerFor('overview');
const REFRESH_MS = 60_000;
/** Each status word's class (st-*, status-*: its colour, console.css), mildest first; the map uses them too. */
export const STATUS_CLASS = { 正常: 'ok', 偏低: 'low', 预警: 'warn', 超限: 'breach', 无数据: 'none' };
const SVG = 'http://www.w3.org/2000/svg';
let shown = null; // the overview on screen, so an acknowledgement recounts the strip's open alarms

/** A status word on its colour. */
export const statusTag = (word) => el('span', { class: `st st-${STATUS_CLASS[word] || 'none'}` }, word || '无数据');

// a limit beyond the plotted values by at most half their range, or 15 % of itself, is drawn: a farther one
// would squeeze the curve into a flat line (总回风巷's 5.9 m/s under its 8 m/s maximum)
const NEAR_SPAN = 0.5;
const NEAR_SELF = 0.15;
const svgEl = (tag, attrs = {}) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
};
const isUpper = (limit) => limit.op.startsWith('>'); // breached above: a maximum

/** The limits worth a line in a sparkline of values from `min` to `max`: those within the range or near
 * it (NEAR_SPAN, NEAR_SELF); a far one would flatten the curve, and is named in the tooltip only. */
export function limitsNear(limits, min, max) {
  return limits.filter((l) => Math.max(min - l.value, l.value - max, 0)
    <= Math.max(NEAR_SPAN * (max - min), NEAR_SELF * Math.abs(l.value)));
}

/** A 24-hour sparkline (SVG polyline, oldest left) of `quantity` at `point`, its last value marked, gaps
 * (null) skipped; each limit within or near the values (limitsNear) a thin dashed line, every limit
 * ({value, op, text, source}: the overview's spark_limits) named in its tooltip. */
export function sparkline(values, quantity, limits = [], point = '') {
  const W = 120;
  const H = 26;
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: `spark ${quantity}` });
  const known = values.filter((v) => v != null);
  if (!known.length) return svg;
  const min = Math.min(...known);
  const max = Math.max(...known);
  const drawn = limitsNear(limits, min, max);
  const lo = Math.min(min, ...drawn.map((l) => l.value));
  const hi = Math.max(max, ...drawn.map((l) => l.value));
  const span = hi - lo || 1;
  const y = (v) => H - 3 - ((v - lo) / span) * (H - 6);
  for (const l of drawn) {
    const mark = svgEl('line', { x1: 0, x2: W, y1: y(l.value).toFixed(1), y2: y(l.value).toFixed(1), class: `limit ${isUpper(l) ? 'upper' : 'lower'}` });
    mark.append(Object.assign(svgEl('title'), { textContent: `限值 ${l.text}（${l.source}）` }));
    svg.append(mark);
  }
  const pts = values.map((v, i) => (v == null ? null : [(i / Math.max(values.length - 1, 1)) * (W - 4) + 2, y(v)]));
  const line = svgEl('polyline', { points: pts.filter(Boolean).map((p) => p.map((x) => x.toFixed(1)).join(',')).join(' ') });
  const [cx, cy] = pts.filter(Boolean).at(-1);
  const dot = svgEl('circle', { cx, cy, r: 2.5 });
  const title = svgEl('title');
  const named = limits.map((l) => `${l.text}（${l.source}）`).join('；') || '无';
  title.textContent = [point, `近24小时：最低 ${reading(min, quantity)}，最高 ${reading(max, quantity)}`, `限值：${named}`].filter(Boolean).join('\n');
  svg.prepend(title);
  svg.append(line, dot);
  return svg;
}

function ageText(view) {
  if (!view.time) return el('span', { class: 'st st-none' }, '无数据');
  const when = view.time.slice(11, 16);
  const age = view.age_minutes < 1 ? '' : `（${Math.round(view.age_minutes)} 分钟前）`;
  return el('span', { class: view.stale ? 'item age stale' : 'item age', title: `数据距今 ${view.age_minutes} 分钟` }, `数据 ${when}${age} `,
    view.stale ? el('span', { class: 'st st-breach' }, '数据已过时') : null);
}

/** A total air volume with where it comes from: in a word beside it (含解算 when a part of it is the network
 * solve's, basis 解算, not measured; below 1500 px that alone), in full in its tooltip. `from`: the overview's air_totals entry. */
export const total = (name, q, from) => {
  const modelled = from?.parts?.some((p) => p.basis === '解算');
  return el('span', { class: `item total${modelled ? ' modelled' : ''}`, title: from?.source || '' }, `${name} `,
    el('b', {}, reading(q, 'air_volume')),
    from ? el('small', { class: 'muted' }, '（', el('span', { class: 'from' }, from.label),
      ...(modelled ? [el('span', { class: 'sep' }, '，'), '含解算'] : []), '）') : null);
};

function stripView(view, alarms) {
  const fans = view.fans.map((f) => el('span', { class: 'item' }, el('b', {}, f.name), ' ',
    el('span', { class: `st st-${f.running ? 'ok' : 'none'}` }, f.running ? '运行' : (f.state || '停止')),
    f.running ? ` ${reading(f.air_volume, 'air_volume')} ${reading(f.negative_pressure, 'negative_pressure')}` : ''));
  const gas = (label, quantity, w) => el('span', { class: 'item', title: w ? `${w.tunnel}：${w.point || ''}` : '' },
    `最高 ${label} `, el('b', {}, w ? reading(w.value, quantity, w.unit) : '—'), ' ', statusTag(w?.status));
  const open = alarms.filter((a) => !a.acked_at).length;
  return [
    ...fans,
    total('总进风', view.intake_q, view.air_totals?.intake),
    total('总回风', view.return_q, view.air_totals?.return),
    gas('CH₄', 'ch4', view.worst.ch4),
    gas('CO', 'co', view.worst.co),
    el('a', { class: 'item', href: '#overview' }, '报警 ', el('b', { class: alarms.length ? 'alarm-count' : '' }, String(alarms.length)),
      alarms.length ? `（未确认 ${open}）` : ''),
    ageText(view),
  ];
}

async function acknowledge(alarm, button) {
  button.disabled = true;
  try {
    const res = await api(`/api/alarms/${alarm.key}/ack`, { method: 'POST' });
    Object.assign(alarm, { acked_at: res.acked_at, acked_by: res.user_name });
    button.replaceWith(ackedView(alarm));
    if (shown) document.getElementById('strip').replaceChildren(...stripView(shown, shown.alarms));
  } catch (err) {
    button.disabled = false;
    say(`确认失败：${err.message}`);
  }
}

/** An acknowledged alarm's cell: who acknowledged it and when (the mine's time, HH:MM). */
const ackedView = (a) => el('span', { class: 'muted' }, `${a.acked_by || ''} 已确认 ${a.acked_at.slice(11, 16)}`.trim());

/** The alarms' table; `user`: the caller the service knows by the token (null: none, or one it refused),
 * who may acknowledge. */
function alarmsView(alarms, user) {
  if (!alarms.length) return el('p', { class: 'quiet' }, statusTag('正常'), ' 当前没有超过规程阈值或设备报警限值的读数。');
  return el('table', { class: 'alarms' },
    el('thead', {}, el('tr', {}, ...['状态', '地点', '测点', '参数', '当前值', '限值', '依据', '确认'].map((h) => el('th', {}, h)))),
    el('tbody', {}, ...alarms.map((a) => {
      const ack = a.acked_at
        ? ackedView(a)
        : user ? el('button', { type: 'button', class: 'ack', title: `以 ${user} 的身份确认。${a.action || ''}` }, '确认')
          : el('span', { class: 'muted', title: '确认按用户保存：请在右上角填写有效的访问令牌' }, getToken() ? '令牌无效' : '需令牌');
      if (ack.tagName === 'BUTTON') ack.addEventListener('click', () => acknowledge(a, ack));
      return el('tr', { class: `alarm ${STATUS_CLASS[a.status]}${a.acked_at ? ' acked' : ''}`, 'data-key': a.key },
        el('td', {}, statusTag(a.status)), el('td', {}, a.tunnel),
        el('td', { class: 'muted' }, (a.point || '').replace(a.tunnel, '').trim() || '—'),
        el('td', {}, a.label), el('td', { class: 'value' }, a.value_text), el('td', {}, a.limit_text),
        el('td', { class: 'muted' }, a.source || ''), el('td', { class: 'nowrap' }, ack));
    })));
}

/** The data-consistency notes (a heading's air above its local fans', a return's above the main fans'):
 * figures to check, listed apart from the alarms, never counted as one; null when there are none. */
function notesView(notes) {
  if (!notes?.length) return null;
  return el('div', { class: 'data-notes', id: 'data-notes' },
    el('h3', {}, `数据核查（非安全报警，${notes.length} 项）`),
    el('ul', {}, ...notes.map((n) => el('li', { title: n.basis || '' },
      el('b', {}, n.tunnel), ` ${n.label}：${n.value_text}（应 ${n.limit_text}）。${n.action}`))));
}

const SPARKS = [['wind_speed', '风速'], ['ch4', 'CH₄'], ['co', 'CO']]; // the overview's sparklines, in its order

/** A tag beside a tunnel's status when its readings crossed a limit in the last 24 hours. */
function recentTag(t) {
  const crossed = crossedToday(t);
  return crossed.length
    ? [' ', el('span', { class: 'recent', title: `近 24 小时越限（逐时值）：${crossed.join('；')}` }, '24 h 内越限')]
    : [];
}

const BREACHED = { '>': (v, l) => v > l, '>=': (v, l) => v >= l, '<': (v, l) => v < l, '<=': (v, l) => v <= l };

/** The limits a tunnel's readings crossed in the last 24 hours (its sparklines against their limits), as
 * words: "CO 峰值 32 ppm（≤ 24 ppm）"; empty when none. A crossing that has recovered leaves the status
 * 正常 and the alarm list empty: the shift coming on still has to see it. */
export function crossedToday(t) {
  return SPARKS.flatMap(([q, name]) => (t.spark_limits?.[q] || []).flatMap((limit) => {
    const crossed = (t.sparks[q] || []).filter((v) => v != null && BREACHED[limit.op]?.(v, limit.value));
    if (!crossed.length) return [];
    const worst = isUpper(limit) ? Math.max(...crossed) : Math.min(...crossed);
    return [`${name} ${isUpper(limit) ? '峰值' : '最低'} ${reading(worst, q)}（限值 ${limit.text}）`];
  }));
}

function tunnelsView(rows) {
  const cell = (v, quantity) => (v ? el('span', { class: `val ${STATUS_CLASS[v.status]}` }, reading(v.value, quantity, v.unit)) : el('span', { class: 'muted' }, '—'));
  const heads = ['巷道', '状态', '风速', '风量', 'CH₄', 'CO', ...SPARKS.map(([, name]) => `${name} 24 h`)];
  return el('table', { class: 'tunnels-table' },
    el('thead', {}, el('tr', {}, ...heads.map((h) => el('th', {}, h)))),
    el('tbody', {}, ...rows.map((t) => el('tr', { 'data-tun-id': t.tun_id },
      el('td', {}, t.name), el('td', {}, statusTag(t.status), ...recentTag(t)),
      el('td', {}, cell(t.values.wind_speed, 'wind_speed')), el('td', { title: t.q_source || '' }, reading(t.q, 'air_volume')),
      el('td', {}, cell(t.values.ch4, 'ch4')), el('td', {}, cell(t.values.co, 'co')),
      ...SPARKS.map(([q]) => el('td', { class: 'spark-cell' },
        t.sparks[q] ? sparkline(t.sparks[q], q, t.spark_limits?.[q] || [], t.values[q]?.point) : '—'))))));
}

export async function loadOverview() {
  let view;
  try {
    view = await api('/api/mine/overview');
  } catch (err) {
    say(`运行总览读取失败：${err.message}`);
    return;
  }
  shown = view;
  document.getElementById('strip').replaceChildren(...stripView(view, view.alarms));
  document.getElementById('alarm-list').replaceChildren(...[alarmsView(view.alarms, view.user_name), notesView(view.notes)].filter(Boolean));
  document.getElementById('tunnel-list').replaceChildren(tunnelsView(view.tunnels));
  window.dispatchEvent(new CustomEvent('vent:overview', { detail: view }));
}

export function initOverview() {
  document.getElementById('overview-refresh').addEventListener('click', loadOverview);
  window.addEventListener('vent:token', loadOverview); // another user: their acknowledgements
  loadOverview();
  setInterval(loadOverview, REFRESH_MS);
}
