// map.js — the ventilation network (GET /api/mine/network) as SVG: tunnels coloured by wind-speed
// compliance, devices as symbols; a click streams the interpretation into the side panel.

import { api, bannerFor, el, openStream } from './api.js';
import { TurnView, play } from './turn.js';

const say = bannerFor('map'); // this tab's banner

const SVG = 'http://www.w3.org/2000/svg';
const COMPLIANCE = {
  ok: ['风速合规', '#2e9d57'],
  low: ['风速低于下限', '#e08a00'],
  high: ['风速超过上限', '#d43a3a'],
  no_data: ['无风速数据', '#8a94a6'],
  no_limit: ['表6 无该类巷道', '#b9c0cc'],
};
const DEVICE_SYMBOL = {
  fan: ['F', '#1f5fbf', 34], aux_fan: ['J', '#5b3fb0', 22], wind_sensor: ['V', '#0f8a8a', 15],
  ch4_sensor: ['M', '#b5651d', 15], co_sensor: ['C', '#a02c5b', 15], temp_sensor: ['T', '#6b7a2a', 15],
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

async function interpret(kind, item) {
  const panel = document.getElementById('map-panel');
  const body = document.getElementById('panel-body');
  panel.hidden = false;
  document.getElementById('panel-title').textContent = item.name;
  body.replaceChildren();
  const mode = clickMode();
  const meta = kind === 'tun'
    ? `${item.roadway_class} · 风速 ${item.wind_speed ?? '—'} m/s（${COMPLIANCE[item.compliance][0]}）`
    : `${item.type_label} · ${item.position || ''}`;
  body.append(el('p', { class: 'muted' }, `${meta} · ${mode === 'plan' ? '计划模式' : '快速模式'}`));
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

const LABEL_GAP = 48; // m: a label's distance from its line, beyond the device symbols (28 m + 15 m radius)
// the labels' size on screen, whatever the map's scale: 13 px, larger on a wall screen
const labelPx = () => Math.max(13, Math.round(window.innerWidth / 115));

let placed = []; // the line labels of the map drawn last, with their candidate spots

/** Candidate spots of a line's label: beside its middle on either side, then shifted along the line. */
function labelSpots(ax, ay, bx, by, vertical) {
  const out = [];
  for (const f of [0.5, 0.3, 0.7, 0.15, 0.85]) {
    for (const side of [1, -1]) {
      const x = ax + f * (bx - ax) - (vertical ? side * LABEL_GAP : 0);
      const y = ay + f * (by - ay) - (vertical ? 0 : side * LABEL_GAP);
      out.push({ x, y, rotate: vertical ? (side > 0 ? -90 : 90) : 0 });
    }
  }
  return out;
}

const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** Size the labels for the screen (labelPx() pixels at the map's current scale: the SVG is fitted into its
 * box, so one user unit is min(width/W, height/H) pixels), then give each line label the first of its
 * spots that covers nothing (no label placed before it, no other straight line, no device symbol), else
 * the one that covers least (the slanted chamber names stay where they are). */
function fitLabels(svg, W, H) {
  if (!svg.clientWidth) return; // the map's tab is hidden: fitted when it is shown
  const k = Math.min(svg.clientWidth / W, svg.clientHeight / H);
  const g = svg.querySelector('g.labels');
  g.setAttribute('font-size', (labelPx() / k).toFixed(1));
  g.setAttribute('stroke-width', (3 / k).toFixed(1));
  const taken = [...g.querySelectorAll('text.small')].map((t) => t.getBoundingClientRect());
  // the straight lines and the device symbols a label should not cover (a slanted line's box is no guide)
  const straight = (r) => Math.min(r.width, r.height) < 30;
  const lines = [...svg.querySelectorAll('line.stroke')].map((l) => [l, l.getBoundingClientRect()]).filter(([, r]) => straight(r));
  const symbols = [...svg.querySelectorAll('g.device')].map((d) => d.getBoundingClientRect());
  for (const { label, line, spots } of placed) {
    const cost = (box) => 4 * taken.filter((r) => overlaps(r, box)).length
      + 2 * lines.filter(([l, r]) => l !== line && overlaps(r, box)).length
      + symbols.filter((r) => overlaps(r, box)).length;
    let best = null;
    for (const spot of spots) {
      setSpot(label, spot);
      const box = label.getBoundingClientRect();
      const c = cost(box);
      if (!best || c < best.c) best = { spot, box, c };
      if (c === 0) break;
    }
    setSpot(label, best.spot);
    taken.push(best.box);
  }
}

function setSpot(label, spot) {
  label.setAttribute('x', spot.x);
  label.setAttribute('y', spot.y);
  label.setAttribute('transform', spot.rotate ? `rotate(${spot.rotate} ${spot.x} ${spot.y})` : '');
}

/** The points of a band `half` wide on each side of a segment: the tunnel's click target. */
function hitArea(ax, ay, bx, by, half) {
  const len = Math.hypot(bx - ax, by - ay) || 1;
  const nx = (-(by - ay) / len) * half;
  const ny = ((bx - ax) / len) * half;
  return [[ax + nx, ay + ny], [bx + nx, by + ny], [bx - nx, by - ny], [ax - nx, ay - ny]].map((p) => p.join(',')).join(' ');
}

function draw(net) {
  const box = document.getElementById('map');
  const [x0, y0, x1, y1] = net.bounds || [0, 0, 1000, 1000];
  const pad = 150;
  const W = x1 - x0 + 2 * pad + 150; // room on the right for the labels of the eastern headings
  const H = y1 - y0 + 2 * pad + 150; // and below for the slanted chamber names
  const X = (x) => x - x0 + pad;
  const Y = (y) => y1 - y + pad; // north up
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'net', role: 'img' });
  const lines = svgEl('g', { class: 'tunnels' });
  const labels = svgEl('g', { class: 'labels' });
  const spots = []; // {label, spots: [{x, y, rotate}]} of the labels along lines
  for (const t of net.tunnels) {
    if (!t.points) continue;
    const [[ax, ay], [bx, by]] = t.points;
    const colour = COMPLIANCE[t.compliance]?.[1] || '#888';
    const tip = `${t.name}（${t.roadway_class}）\n风速：${t.wind_speed ?? '无数据'} m/s；允许 ${t.wind_min ?? '—'}–${t.wind_max ?? '—'} m/s`;
    const g = svgEl('g', { class: `tunnel ${t.compliance}`, 'data-tun-id': t.tun_id, tabindex: 0 },
      svgEl('title', {}, tip),
      svgEl('polygon', { points: hitArea(X(ax), Y(ay), X(bx), Y(by), 30), class: 'hit' }),
      svgEl('line', { x1: X(ax), y1: Y(ay), x2: X(bx), y2: Y(by), stroke: colour, class: 'stroke',
        'stroke-dasharray': t.compliance === 'no_limit' ? '30 18' : null }));
    g.addEventListener('click', () => interpret('tun', t));
    g.addEventListener('keydown', (e) => e.key === 'Enter' && interpret('tun', t));
    lines.append(g);
    const vertical = Math.abs(bx - ax) < Math.abs(by - ay);
    let label;
    if (t.kind === 'chamber') {
      // short stubs side by side: the name slanted below the stub's lower end
      const lx = X(ax);
      const ly = Math.max(Y(ay), Y(by)) + 50;
      label = svgEl('text', { x: lx, y: ly, class: 'label small', transform: `rotate(40 ${lx} ${ly})` });
    } else {
      // along the line, clear of the device symbols: above a horizontal one, turned to read upwards
      // beside a vertical one; other spots are tried when it would overlap another label (declutter)
      label = svgEl('text', { class: 'label', 'text-anchor': 'middle' });
      spots.push({ label, line: g.querySelector('line.stroke'), spots: labelSpots(X(ax), Y(ay), X(bx), Y(by), vertical) });
    }
    label.append(svgEl('tspan', { class: 'name' }, t.name));
    if (t.wind_speed != null) {
      label.append(svgEl('tspan', { class: `value ${t.compliance}`, dx: 6 }, `${t.wind_speed} m/s`));
    }
    labels.append(label);
  }
  const devices = svgEl('g', { class: 'devices' });
  for (const d of net.devices) {
    const [letter, colour, r] = DEVICE_SYMBOL[d.device_type] || ['?', '#555', 14];
    const shape = d.device_type.endsWith('fan')
      ? svgEl('rect', { x: X(d.x) - r, y: Y(d.y) - r, width: 2 * r, height: 2 * r, rx: 6, fill: colour })
      : svgEl('circle', { cx: X(d.x), cy: Y(d.y), r, fill: colour });
    const text = svgEl('text', { x: X(d.x), y: Y(d.y) + r * 0.45, class: 'glyph', 'font-size': r * 1.2 });
    text.textContent = letter;
    const g = svgEl('g', { class: 'device', 'data-device-id': d.device_id, tabindex: 0 },
      svgEl('title', {}, `${d.name}\n${d.type_label}${d.position ? `：${d.position}` : ''}`), shape, text);
    g.addEventListener('click', (e) => {
      e.stopPropagation();
      interpret('device', d);
    });
    devices.append(g);
  }
  svg.append(lines, devices, labels); // the names above the symbols, never under them
  box.replaceChildren(svg);
  placed = spots;
  fitLabels(svg, W, H);
  const legend = document.getElementById('map-legend');
  legend.replaceChildren(
    ...Object.values(COMPLIANCE).map(([name, c]) => el('span', {}, el('i', { class: 'swatch', style: `background:${c}` }), name)),
    ...Object.entries(DEVICE_SYMBOL).map(([type, [letter, c]]) => el('span', {},
      el('i', { class: 'sym', style: `background:${c}` }, letter), net.devices.find((d) => d.device_type === type)?.type_label || type)));
}

export async function loadMap() {
  const status = document.getElementById('map-status');
  status.textContent = '正在读取通风网络...';
  try {
    const net = await api('/api/mine/network');
    draw(net);
    const counts = net.tunnels.reduce((m, t) => ({ ...m, [t.compliance]: (m[t.compliance] || 0) + 1 }), {});
    status.textContent = `巷道 ${net.tunnels.length} 条（合规 ${counts.ok || 0}，偏低 ${counts.low || 0}，偏高 ${counts.high || 0}，无数据 ${counts.no_data || 0}），设备 ${net.devices.length} 台`;
  } catch (err) {
    status.textContent = '';
    say(`通风网络读取失败：${err.message}`);
  }
}

/** Mark the devices in alarm (the overview's alarms) with their status colour. */
function markAlarms(view) {
  const worst = {};
  for (const a of view.alarms) if (a.device_id && !worst[a.device_id]) worst[a.device_id] = a.status;
  document.querySelectorAll('#map g.device').forEach((g) => {
    const word = worst[g.dataset.deviceId];
    g.classList.toggle('alarm', Boolean(word));
    g.classList.toggle('alarm-breach', word === '超限' || word === '偏低');
  });
  const age = document.getElementById('map-age');
  age.textContent = view.time ? `数据时间 ${view.time.slice(11, 16)}${view.stale ? '（已过时）' : ''}` : '无监测数据';
  age.className = view.stale ? 'st st-breach' : 'muted';
}

function refit() {
  const svg = document.querySelector('#map svg.net');
  if (svg) fitLabels(svg, ...svg.getAttribute('viewBox').split(' ').slice(2).map(Number));
}

export function initMap() {
  window.addEventListener('vent:overview', (e) => markAlarms(e.detail));
  // the map's box changes with the window, the tab being shown and the side panel: labels refitted each time
  new ResizeObserver(() => refit()).observe(document.getElementById('map'));
  document.getElementById('map-refresh').addEventListener('click', loadMap);
  document.getElementById('panel-close').addEventListener('click', () => {
    document.getElementById('map-panel').hidden = true;
  });
  loadMap();
}
