// map.js — the ventilation network (GET /api/mine/network) as SVG: tunnels coloured by wind-speed
// compliance, devices as symbols; a click streams the interpretation into the side panel.

import { api, banner, el, openStream } from './api.js';
import { TurnView, play } from './turn.js';

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
  const pad = 160;
  const W = x1 - x0 + 2 * pad + 420; // room on the right for the labels of the eastern headings
  const H = y1 - y0 + 2 * pad + 200; // and below for the slanted chamber names
  const X = (x) => x - x0 + pad;
  const Y = (y) => y1 - y + pad; // north up
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'net', role: 'img' });
  const lines = svgEl('g', { class: 'tunnels' });
  const labels = svgEl('g', { class: 'labels' });
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
      const ly = Math.max(Y(ay), Y(by)) + 30;
      label = svgEl('text', { x: lx, y: ly, class: 'label small', transform: `rotate(40 ${lx} ${ly})` });
    } else {
      // along the line: above a horizontal one, turned to read upwards beside a vertical one
      const mx = (X(ax) + X(bx)) / 2 + (vertical ? -58 : 0);
      const my = (Y(ay) + Y(by)) / 2 - (vertical ? 0 : 42);
      label = svgEl('text', { x: mx, y: my, class: 'label', 'text-anchor': 'middle',
        transform: vertical ? `rotate(-90 ${mx} ${my})` : null });
    }
    label.textContent = `${t.name}${t.wind_speed != null ? ` ${t.wind_speed} m/s` : ''}`;
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
  svg.append(lines, labels, devices);
  box.replaceChildren(svg);
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
    banner(`通风网络读取失败：${err.message}`);
  }
}

export function initMap() {
  document.getElementById('map-refresh').addEventListener('click', loadMap);
  document.getElementById('panel-close').addEventListener('click', () => {
    document.getElementById('map-panel').hidden = true;
  });
  loadMap();
}
