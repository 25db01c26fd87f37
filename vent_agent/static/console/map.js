// map.js — the ventilation network (GET /api/mine/network) as SVG: each tunnel coloured by its status in
// the overview (GET /api/mine/overview, the 'vent:overview' event: the worst of all its monitored values
// against the regulation's thresholds and the devices' alarm limits, the overview's 状态 column), the
// devices in alarm ringed; a click streams the interpretation into the side panel.

import { api, bannerFor, el, openStream } from './api.js';
import { reading } from './format.js';
import { STATUS_CLASS } from './overview.js';
import { placeLabels } from './labels.js';
import { MapWidth, scrollToItem } from './mapwidth.js';
import { CONTROLS, solvedBranch } from './airflow.js';
import { TurnView, play } from './turn.js';

const say = bannerFor('map'); // this tab's banner

const SVG = 'http://www.w3.org/2000/svg';
const WIND = { ok: '风速合规', low: '风速低于下限', high: '风速超过上限', no_data: '无风速数据', no_limit: '表6 无该类巷道' };
const STATUS_WORDS = Object.keys(STATUS_CLASS); // 正常 / 偏低 / 预警 / 超限 / 无数据, the overview's
const STATUS_NOTE = '巷道颜色为该巷道全部监测值（风速、CH₄、CO、温度、局部通风机等）对照《煤矿安全规程》阈值与设备报警限值的最差状态，'
  + '与运行总览“状态”列相同，随总览每分钟刷新';
let overview = null; // the last overview (vent:overview): each tunnel's status, the alarms
let drawn = { tunnels: new Map(), devices: 0 }; // what the map draws: its tunnels by id, its devices' count
let modelled = false; // a change is modelled on the map (airflow.js): its labels are laid out for it
let selected = null; // the selector of the map item shown in the side panel (highlighted on the map)
const width = new MapWidth(); // the map's drawn width: its box's, or wider and scrolled (mapwidth.js)
export const STANDBY = new Set(['备用', '停止', '停机']); // a fan's state when it moves no air: drawn hollow
const DEVICE_SYMBOL = {
  fan: ['F', '#1f5fbf', 34], aux_fan: ['J', '#5b3fb0', 22], wind_sensor: ['V', '#0f8a8a', 15],
  ch4_sensor: ['M', '#b5651d', 15], co_sensor: ['C', '#a02c5b', 15], temp_sensor: ['T', '#6b7a2a', 15],
  door: ['D', '#7a4b12', 15], regulator: ['R', '#3d6b1f', 15],
};

const svgEl = (tag, attrs = {}, ...children) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
};

function clickMode() {
  return document.querySelector('input[name="click-mode"]:checked').value;
}

/** Highlight the item shown in the side panel (`selected`) and, with `scroll`, bring it into the map's view. */
function showSelected(scroll = false) {
  const box = document.getElementById('net-map');
  box.querySelectorAll('.selected').forEach((node) => node.classList.remove('selected'));
  const node = selected && box.querySelector(selected);
  node?.classList.add('selected');
  if (node && scroll) scrollToItem(box, node);
}

/** A tunnel's subtitle in the side panel: its class, status and wind speed; a tunnel without a wind speed
 * whose air volume the overview has (a fan drift: its main fans' measured figure) shows that, 实测. */
function tunnelMeta(item) {
  const row = overview?.tunnels.find((t) => t.tun_id === item.tun_id);
  const air = item.wind_speed == null && row?.q != null
    ? `风量 实测 ${reading(row.q, 'air_volume')}（${row.q_source}）`
    : `风速 ${reading(item.wind_speed, 'wind_speed')}（${WIND[item.compliance]}）`;
  return [item.roadway_class, `状态 ${statusOf(item.tun_id) || '读取中'}`, air];
}

/** A device's subtitle in the side panel: its kind and where it stands (none when the data give no
 * place); a main fan its state and measured air volume as the overview's strip shows them. */
function deviceMeta(item) {
  const fan = overview?.fans.find((f) => f.device_id === item.device_id);
  const duty = fan && (fan.running
    ? `运行 · 风量 实测 ${reading(fan.air_volume, 'air_volume')}`
    : fan.state || '停止');
  return [item.type_label, item.position, duty].filter(Boolean);
}

async function interpret(kind, item) {
  const body = openPanel(kind, kind === 'tun' ? item.tun_id : item.device_id, item.name);
  const mode = clickMode();
  const meta = kind === 'tun' ? tunnelMeta(item) : deviceMeta(item);
  body.append(el('p', { class: 'muted', id: 'panel-meta' }, [...meta, mode === 'plan' ? '计划模式' : '快速模式'].join(' · ')));
  const view = new TurnView(body);
  view.setStatus('正在请求解读...');
  const json = kind === 'tun'
    ? { tun_id: item.tun_id, tun_name: item.name, mode }
    : { device_id: item.device_id, device_name: item.name, device_type: item.device_type, mode };
  try {
    // a later click replaces the panel's content; this stream then writes into detached nodes
    const { events } = await openStream(`/api/interpret/click/${kind}`, { json });
    await play(events, view);
  } catch (err) {
    view.setStatus(`请求失败：${err.message}`, 'error');
  }
}

/** Open the side panel on the map item `id` of `kind` ('tun' a tunnel, 'device', 'link' an unmonitored
 * branch) titled `title`, highlight the item and bring it into view; returns the panel's emptied body. */
function openPanel(kind, id, title) {
  document.getElementById('map-panel').hidden = false;
  const group = { tun: 'g.tunnel[data-tun-id', device: 'g.device[data-device-id', link: 'g.link[data-tun-id' }[kind];
  selected = `${group}="${CSS.escape(id)}"]`;
  layoutMap(); // the map's box narrowed by the panel: laid out again (or scrolled) before the item is shown
  showSelected(true);
  document.getElementById('panel-title').textContent = title;
  const body = document.getElementById('panel-body');
  body.replaceChildren();
  return body;
}

/** An unmonitored branch of the network (an airway, a shaft, a door's or regulator's airway, a local fan's
 * duct) in the side panel: no readings to judge, its air from the network solve. */
function showLink(l) {
  const body = openPanel('link', l.id, l.name);
  const row = solvedBranch(l.id);
  const kind = LINK_KINDS[l.kind] || '无监测巷道';
  const solved = row
    ? `现状解算风量 ${reading(Math.abs(row.q) * 60, 'air_volume')}（模拟），通风阻力 ${Math.round(Math.abs(row.h))} Pa`
      + `${row.added_resistance ? `，附加风阻 ${row.added_resistance.toFixed(1)} N·s²/m⁸` : ''}。`
    : '通风网络解算尚未完成，稍后再点。';
  body.append(
    el('p', { class: 'muted' }, `${kind} · 通风网络解算分支 · 没有监测数据（无测点）`),
    el('p', {}, solved),
    el('p', { class: 'muted' }, '该分支没有传感器，无法对照规程判定；风量来自通风网络解算（各分支风阻与主要通风机特性），供参考。'
      + (l.kind in CONTROLS ? `点击图上的${CONTROLS[l.kind]}符号，可看调整它对全矿风流的影响。` : '')),
  );
}

/** The labels' size on screen (px) for a map drawn `width` px wide, whatever its scale: 13 px up to a map
 * about 1480 px wide (a 1280 screen's, or a 1920 screen's beside the side panel), larger on a wall
 * screen's full width (17 px on a 1920 screen's 1886 px map). */
const labelPx = (width) => Math.max(13, Math.round(width / 110));
const ICON_PX = 15; // a device symbol's least size on screen: its letter readable
const ICON_GAP_PX = 2;
const RING = [[1, 0], [-1, 0], [0, -1], [0, 1], [1, -1], [-1, -1], [1, 1], [-1, 1]];

/** Size the device symbols for the screen (at least ICON_PX pixels across at scale k) and move a symbol
 * that would overlap one already placed, or one of the `avoid` boxes (placed labels), to the nearest free
 * spot around its point (rings of one symbol's width), so symbols at one point sit side by side. Writes
 * each symbol's placed centre and half-size into its data-x, data-y and data-r (for the labels and the
 * arrows). */
function fitDevices(svg, k, avoid = []) {
  const placed = [];
  const clash = (x, y, r) => placed.some((p) => Math.abs(p.x - x) < p.r + r && Math.abs(p.y - y) < p.r + r)
    || avoid.some((b) => x + r > b.left && x - r < b.right && y + r > b.top && y - r < b.bottom);
  for (const g of svg.querySelectorAll('g.device')) {
    const x0 = +g.dataset.x0;
    const y0 = +g.dataset.y0;
    const r0 = +g.dataset.r0;
    const scale = Math.max(1, ICON_PX / (2 * r0 * k));
    const r = r0 * scale;
    const step = 2 * r + ICON_GAP_PX / k;
    let [x, y] = [x0, y0];
    for (let ring = 1; clash(x, y, r + ICON_GAP_PX / (2 * k)) && ring <= 4; ring++) {
      const free = RING.map(([dx, dy]) => [x0 + dx * ring * step, y0 + dy * ring * step])
        .find(([cx, cy]) => !clash(cx, cy, r + ICON_GAP_PX / (2 * k)));
      if (free) [x, y] = free;
    }
    g.setAttribute('transform', `translate(${x} ${y}) scale(${scale}) translate(${-x0} ${-y0})`);
    Object.assign(g.dataset, { x, y, r });
    placed.push({ x, y, r });
  }
}
const DEVICE_REACH = 45; // m: the device symbols' band beside a line (28 m offset + 15 m radius)
const LINE_HALF = 13; // user units: half a tunnel's line as drawn when hovered (console.css, stroke-width 26)
const LABEL_GAP_PX = 3; // px: a label close beside its line clears it by this much

/** Size the device symbols (fitDevices), then the labels for the screen (labelPx() pixels at the map's
 * current scale: the SVG is fitted into its drawn size, so one user unit is k = min(width/W, height/H)
 * pixels) and place them (labels.js): the monitored tunnels first, problems first, then the unmonitored
 * airways; a label with no free spot is hidden, one that stands off its line gets a leader. Returns the
 * count of monitored tunnels' labels left across a line or hidden (0: clean), null when the map is not
 * shown. */
function fitLabels(svg, W, H) {
  if (!svg.clientWidth) return null; // the map's tab is hidden: fitted when it is shown
  const k = Math.min(svg.clientWidth / W, svg.clientHeight / H);
  fitDevices(svg, k);
  const g = svg.querySelector('g.labels');
  g.setAttribute('font-size', (labelPx(svg.clientWidth) / k).toFixed(1));
  g.setAttribute('stroke-width', (3 / k).toFixed(1));
  const margin = 4 / k;
  const view = {
    left: (W - svg.clientWidth / k) / 2 + margin,
    top: (H - svg.clientHeight / k) / 2 + margin,
    right: (W + svg.clientWidth / k) / 2 - margin,
    bottom: (H + svg.clientHeight / k) / 2 - margin,
  };
  const lines = [...svg.querySelectorAll('[data-path]')].flatMap((node) => segmentsOf(node).map((seg) => ({ seg, branch: node.dataset.branch })));
  const symbols = [...svg.querySelectorAll('g.device')].map((d) => ({ x: +d.dataset.x, y: +d.dataset.y, r: +d.dataset.r + 1 / k }));
  const texts = [...g.querySelectorAll('text.label')];
  const items = texts.map((text) => {
    text.removeAttribute('display');
    moveLabel(text, 0, 0);
    const bb = text.getBBox();
    const line = svg.querySelector(`[data-path][data-branch="${CSS.escape(text.dataset.branch)}"]`);
    // a change modelled: the labels of the branches it moves most (airflow.js) are placed first and kept,
    // the others shown only where they find a clean spot
    const kept = modelled && text.dataset.whatif === 'key';
    const rank = kept ? +text.dataset.whatifRank - WHATIF_FIRST : +text.dataset.rank;
    const essential = modelled ? kept : rank < LINK_RANK;
    return { key: text, branch: text.dataset.branch, w: bb.width + 4 / k, h: bb.height, pad: 2 / k, bb, segments: segmentsOf(line), rank, essential };
  }).sort((a, b) => a.rank - b.rank);
  const { spots: placed, stuck } = placeLabels(items, lines, symbols, view, { near: LINE_HALF + LABEL_GAP_PX / k, far: Math.max(DEVICE_REACH, 6 / k) });
  // a label that found no spot clear of the symbols: the symbols it covers step aside
  const boxes = [...placed.values()].map((spot) => spot.box);
  if (symbols.some((sym) => boxes.some((b) => sym.x + sym.r > b.left && sym.x - sym.r < b.right && sym.y + sym.r > b.top && sym.y - sym.r < b.bottom))) {
    fitDevices(svg, k, boxes);
  }
  const leaders = svg.querySelector('g.leaders');
  leaders.replaceChildren();
  for (const item of items) {
    const spot = placed.get(item.key);
    if (!spot) {
      item.key.setAttribute('display', 'none');
      continue;
    }
    moveLabel(item.key, spot.cx - (item.bb.x + item.bb.width / 2), spot.cy - (item.bb.y + item.bb.height / 2));
    if (spot.leader) {
      const [x1, y1, x2, y2] = spot.leader;
      leaders.append(svgEl('line', { class: 'leader', x1, y1, x2, y2, 'data-branch': item.branch }));
    }
  }
  return stuck;
}

/** The segments [ax, ay, bx, by] of a drawn line (its data-path: "x,y x,y …" in user units). */
function segmentsOf(node) {
  const pts = node.dataset.path.split(' ').map((p) => p.split(',').map(Number));
  return pts.slice(1).map((b, i) => [...pts[i], ...b]);
}

function moveLabel(text, x, y) {
  text.setAttribute('x', x);
  text.setAttribute('y', y);
  text.querySelectorAll('tspan.line2').forEach((t) => t.setAttribute('x', x));
}

/** The points of a band `half` wide on each side of a segment: the tunnel's click target. */
function hitArea(ax, ay, bx, by, half) {
  const len = Math.hypot(bx - ax, by - ay) || 1;
  const nx = (-(by - ay) / len) * half;
  const ny = ((bx - ax) / len) * half;
  return [[ax + nx, ay + ny], [bx + nx, by + ny], [bx - nx, by - ny], [ax - nx, ay - ny]].map((p) => p.join(',')).join(' ');
}

const SHAFT_RANK = 500; // after the tunnels with a problem (0 + i), before those that meet their limits (1000 + i)
const LINK_RANK = 2000; // the unmonitored airways' labels (but the shafts') come after every tunnel's, and may be hidden
const WHATIF_FIRST = 10000; // a change modelled: the labels of the branches it moves most come before all others
const LINK_KINDS = { local_fan: '局部通风机及风筒', regulator: '调节风窗', door: '风门', shaft: '井筒', fan: '主要通风机' };

/** A label: its name on the first line, its values on the second (the measured wind speed, 实测, here; the
 * air volume, measured or 模拟, from airflow.js); `rank` orders the placement (lower first). */
function makeLabel(branch, name, rank, wind) {
  const label = svgEl('text', { class: 'label', 'text-anchor': 'middle', 'data-branch': branch, 'data-rank': rank },
    svgEl('tspan', { class: 'name' }, name));
  const line2 = svgEl('tspan', { class: 'line2', dy: '1.2em' });
  if (wind) line2.append(svgEl('tspan', { class: `value ${wind.compliance}` }, `实测 ${reading(wind.speed, 'wind_speed')}`));
  line2.append(svgEl('tspan', { class: 'flow' }));
  label.append(line2);
  return label;
}

function draw(net) {
  const box = document.getElementById('net-map');
  const [x0, y0, x1, y1] = net.bounds || [0, 0, 1000, 1000];
  const pad = 120; // the labels are placed inside the visible area, whatever its shape
  const W = x1 - x0 + 2 * pad;
  const H = y1 - y0 + 2 * pad;
  const X = (x) => x - x0 + pad;
  const Y = (y) => y1 - y + pad; // north up
  const path = (points) => points.map(([x, y]) => `${X(x)},${Y(y)}`).join(' ');
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'net', role: 'img' });
  const joins = svgEl('g', { class: 'joins' });
  for (const j of net.joins || []) {
    joins.append(svgEl('polyline', { points: path(j.points), class: 'join', 'data-path': path(j.points), 'data-branch': `join:${j.node}` },
      svgEl('title', {}, '与井底车场为同一节点（网络解算中合并，阻力不计）')));
  }
  const links = svgEl('g', { class: 'links' });
  const labels = svgEl('g', { class: 'labels' });
  for (const l of net.links || []) {
    const duct = l.kind === 'local_fan';
    const link = svgEl('g', { class: `link ${l.kind}`, 'data-tun-id': l.id, 'data-name': l.name, tabindex: 0, role: 'button' },
      svgEl('title', {}, `${l.name}（${LINK_KINDS[l.kind] || '无监测巷道'}，通风网络解算分支，无监测数据）`),
      svgEl('polyline', { points: path(l.points), class: 'hit' }),
      svgEl('polyline', { points: path(l.points), class: 'stroke', 'data-path': path(l.points), 'data-branch': l.id }));
    link.addEventListener('click', () => showLink(l));
    link.addEventListener('keydown', (e) => e.key === 'Enter' && showLink(l));
    links.append(link);
    // a shaft is one of the mine's few ways in or out: named like a monitored tunnel, never hidden, and
    // placed before the tunnels that meet their limits (its few spots beside a long bare line go first)
    const rank = (l.kind === 'shaft' ? SHAFT_RANK : LINK_RANK) + links.children.length;
    if (!duct) labels.append(makeLabel(l.id, l.name, rank, null));
  }
  const lines = svgEl('g', { class: 'tunnels' });
  net.tunnels.forEach((t, i) => {
    if (!t.points) return;
    const [[ax, ay], [bx, by]] = t.points;
    const g = svgEl('g', { class: `tunnel ${t.compliance}`, 'data-tun-id': t.tun_id, 'data-name': t.name, tabindex: 0, role: 'button' },
      svgEl('title', {}, ''),
      svgEl('polygon', { points: hitArea(X(ax), Y(ay), X(bx), Y(by), 30), class: 'hit' }),
      svgEl('line', { x1: X(ax), y1: Y(ay), x2: X(bx), y2: Y(by), class: 'stroke',
        'data-path': path(t.points), 'data-branch': t.tun_id,
        'stroke-dasharray': t.compliance === 'no_limit' ? '30 18' : null }));
    g.addEventListener('click', () => interpret('tun', t));
    g.addEventListener('keydown', (e) => e.key === 'Enter' && interpret('tun', t));
    lines.append(g);
    // problems first, then the tunnels in the data's order
    const rank = (t.compliance === 'ok' || t.compliance === 'no_limit' ? 1000 : 0) + i;
    const wind = t.wind_speed != null ? { speed: t.wind_speed, compliance: t.compliance } : null;
    labels.append(makeLabel(t.tun_id, t.name, rank, wind));
  });
  const devices = svgEl('g', { class: 'devices' });
  for (const d of net.devices) {
    const [letter, colour, r] = DEVICE_SYMBOL[d.device_type] || ['?', '#555', 14];
    const shape = d.device_type.endsWith('fan')
      ? svgEl('rect', { x: X(d.x) - r, y: Y(d.y) - r, width: 2 * r, height: 2 * r, rx: 6, fill: colour })
      : svgEl('circle', { cx: X(d.x), cy: Y(d.y), r, fill: colour });
    const text = svgEl('text', { x: X(d.x), y: Y(d.y) + r * 0.45, class: 'glyph', 'font-size': r * 1.2 });
    text.textContent = letter;
    const g = svgEl('g', { class: `device${STANDBY.has(d.state) ? ' standby' : ''}`, 'data-device-id': d.device_id, 'data-name': d.name, tabindex: 0, role: 'button',
      'data-x0': X(d.x), 'data-y0': Y(d.y), 'data-r0': r, 'data-tun-id': d.tun_id, 'data-state': d.state },
      svgEl('title', {}, `${d.name}${d.state ? `（${d.state}）` : ''}\n${d.type_label}${d.position ? `：${d.position}` : ''}`), shape, text);
    if (STANDBY.has(d.state)) {
      shape.setAttribute('stroke', colour);
      text.style.fill = colour;
    }
    g.addEventListener('click', (e) => {
      e.stopPropagation();
      interpret('device', d);
    });
    g.addEventListener('keydown', (e) => e.key === 'Enter' && interpret('device', d)); // as a tunnel's
    devices.append(g);
  }
  // the names above the symbols, never under them; a name that stands off its line tied to it by a leader,
  // which passes under the symbols
  svg.append(joins, links, lines, svgEl('g', { class: 'leaders' }), devices, labels);
  box.replaceChildren(svg);
  width.reset();
  layoutMap(true);
  showSelected();
  showOverview();
  const legend = document.getElementById('map-legend');
  const dashed = net.tunnels.some((t) => t.points && t.compliance === 'no_limit');
  legend.replaceChildren(
    el('span', { class: 'legend-head', title: STATUS_NOTE }, '巷道状态（全部监测值的最差者，同运行总览）：'),
    ...STATUS_WORDS.map((word) => el('span', {}, el('i', { class: `swatch status-${STATUS_CLASS[word]}` }), word)),
    ...(dashed ? [el('span', {}, el('i', { class: 'swatch dashed' }), '虚线：表6 未列该类巷道（无风速限值）')] : []),
    el('span', {}, el('i', { class: 'ring breach' }), '设备报警（超限/偏低）'),
    el('span', {}, el('i', { class: 'ring warn' }), '设备预警'),
    el('span', {}, el('i', { class: 'swatch link' }), '无监测巷道（网络解算）'),
    el('span', {}, el('i', { class: 'swatch duct' }), '局部通风机风筒'),
    ...(net.joins?.length ? [el('span', {}, el('i', { class: 'swatch join' }), '井底车场连接（同一节点，不计阻力）')] : []),
    el('span', {}, el('i', { class: 'arrow' }), '风流方向（网络解算）'),
    ...(net.links?.some((l) => l.kind === 'local_fan') ? [el('span', {}, el('i', { class: 'arrow duct' }), '风筒内风流（压入工作面）')] : []),
    el('span', { class: 'modelled-only' }, el('i', { class: 'arrow short' }), '模拟：低于计划风量（不足）'),
    el('span', { class: 'modelled-only' }, el('i', { class: 'arrow reversed' }), '模拟：风流反向'),
    ...Object.entries(DEVICE_SYMBOL).map(([type, [letter, c]]) => el('span', {},
      el('i', { class: 'sym', style: `background:${c}` }, letter), net.devices.find((d) => d.device_type === type)?.type_label || type)),
    ...[...new Set(net.devices.filter((d) => STANDBY.has(d.state) && DEVICE_SYMBOL[d.device_type]).map((d) => d.device_type))]
      .map((type) => el('span', {}, el('i', { class: 'sym standby', style: `color:${DEVICE_SYMBOL[type][1]};border-color:${DEVICE_SYMBOL[type][1]}` }, DEVICE_SYMBOL[type][0]),
        `${net.devices.find((d) => d.device_type === type).type_label}（备用 / 停止）`)));
}

export async function loadMap() {
  const status = document.getElementById('map-status');
  status.textContent = '正在读取通风网络...';
  try {
    const net = await api('/api/mine/network');
    drawn = { tunnels: new Map(net.tunnels.map((t) => [t.tun_id, t])), devices: net.devices.length };
    draw(net);
  } catch (err) {
    status.textContent = '';
    say(`通风网络读取失败：${err.message}`);
  }
}

/** A tunnel's status word in the overview (无数据 for a tunnel it lacks); null until an overview has come. */
function statusOf(tunId) {
  return overview ? overview.tunnels.find((t) => t.tun_id === tunId)?.status || '无数据' : null;
}

/** A tunnel's tooltip: its status with the readings behind it (the overview's alarms of the tunnel),
 * its wind speed against 表6. */
function tunnelTip(t) {
  const alarms = (overview?.alarms || []).filter((a) => a.tun_id === t.tun_id)
    .map((a) => `${a.status}：${a.label} ${a.value_text}（限值 ${a.limit_text}，${a.point || ''}）`);
  const wind = `风速：${t.wind_speed == null ? '无数据' : reading(t.wind_speed, 'wind_speed')}；允许 ${t.wind_min ?? '—'}–${t.wind_max ?? '—'} m/s`;
  return [`${t.name}（${t.roadway_class}）`, `状态：${statusOf(t.tun_id) || '读取中'}`, ...alarms, wind].join('\n');
}

/** Colour each tunnel by its status in the overview, write its tooltip, and count the statuses. */
function colourTunnels() {
  const counts = {};
  document.querySelectorAll('#net-map g.tunnel').forEach((g) => {
    const word = statusOf(g.dataset.tunId);
    if (word) counts[word] = (counts[word] || 0) + 1;
    g.dataset.status = word || '';
    for (const cls of Object.values(STATUS_CLASS)) g.classList.toggle(`status-${cls}`, STATUS_CLASS[word] === cls);
    g.querySelector('title').textContent = tunnelTip(drawn.tunnels.get(g.dataset.tunId));
  });
  const parts = STATUS_WORDS.filter((w) => counts[w]).map((w) => `${w} ${counts[w]}`).join('，') || '状态读取中';
  document.getElementById('map-status').textContent = `巷道 ${drawn.tunnels.size} 条（${parts}），设备 ${drawn.devices} 台`;
}

/** Mark the devices in alarm (the overview's alarms) with their status colour. */
function markAlarms(view) {
  const worst = {};
  for (const a of view.alarms) if (a.device_id && !worst[a.device_id]) worst[a.device_id] = a.status;
  document.querySelectorAll('#net-map g.device').forEach((g) => {
    const word = worst[g.dataset.deviceId];
    g.classList.toggle('alarm', Boolean(word));
    g.classList.toggle('alarm-breach', word === '超限' || word === '偏低');
  });
  const age = document.getElementById('map-age');
  age.textContent = view.time ? `数据时间 ${view.time.slice(11, 16)}${view.stale ? '（已过时）' : ''}` : '无监测数据';
  age.className = view.stale ? 'st st-breach' : 'muted';
}

/** The overview on the map: the tunnels' colours and the devices in alarm (kept across a redraw). */
function showOverview() {
  colourTunnels();
  if (overview) markAlarms(overview);
}

/** Lay the map out for its box (mapwidth.js: its width, the labels placed): when the box changed size, or
 * with `force` whatever its size. */
function layoutMap(force = false) {
  const box = document.getElementById('net-map');
  const svg = box.querySelector('svg.net');
  if (svg) width.layout(box, svg, () => fitLabels(svg, ...svg.getAttribute('viewBox').split(' ').slice(2).map(Number)), force, !modelled);
}

/** Place the labels again: airflow.js wrote the air volumes into them; `isModelled`: a change is modelled
 * (the labels marked data-whatif="key" are the ones kept, the map keeps the plain map's width). */
export function refit(isModelled = false) {
  modelled = isModelled;
  layoutMap(true);
}

export function initMap() {
  window.addEventListener('vent:overview', (e) => {
    overview = e.detail;
    showOverview();
  });
  // the map's box changes with the window, the tab being shown and the side panel: laid out each time
  new ResizeObserver(() => layoutMap()).observe(document.getElementById('net-map'));
  document.getElementById('map-refresh').addEventListener('click', loadMap);
  document.getElementById('panel-close').addEventListener('click', () => {
    document.getElementById('map-panel').hidden = true;
    selected = null;
    showSelected();
  });
  loadMap();
}
