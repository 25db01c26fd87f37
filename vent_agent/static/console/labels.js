// labels.js — deterministic label placement for the network map. Each label is tried at candidate spots
// along its line (beside the middle on either side, then further along, beyond its ends and around its
// points; close to the line, then clear of the device symbols beside it), in order of priority; a spot
// that overlaps a label already placed, or stands nearer another line than its own (the label would read
// as naming that line: namesItsLine), is never taken, and among the others the first that crosses the
// fewest other lines, then covers the fewest device symbols, wins. A monitored tunnel's label with no such
// spot beside its line stands further off, tied to it by a leader. A label that finds no spot is hidden
// (its tunnel's tooltip still names it). Every spot is clamped inside the visible area. All in the SVG's
// user units; the caller gives sizes measured at the current font size.

const FRACTIONS = [0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9, 0.05, 0.95];
const ESSENTIAL_REACH = [1.6, 2.5, 4]; // an essential label's further rings, in gaps from its line
const AROUND = [[1, 0], [-1, 0], [0, -1], [0, 1], [1, -1], [-1, -1], [1, 1], [-1, 1]]; // a point's eight sides

/** Does segment [ax, ay, bx, by] cross or lie in box {left, top, right, bottom}? (Liang–Barsky clip) */
export function segmentHitsBox([ax, ay, bx, by], box) {
  let t0 = 0;
  let t1 = 1;
  const dx = bx - ax;
  const dy = by - ay;
  for (const [p, q] of [[-dx, ax - box.left], [dx, box.right - ax], [-dy, ay - box.top], [dy, box.bottom - ay]]) {
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return false;
    }
  }
  return true;
}

/** The distance from point (px, py) to segment [ax, ay, bx, by]. */
function pointToSegment(px, py, [ax, ay, bx, by]) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy || 1)));
  return Math.hypot(ax + t * dx - px, ay + t * dy - py);
}

/** The distance from segment [ax, ay, bx, by] to box {left, top, right, bottom}: 0 where it crosses the
 * box, else the nearest of its ends to the box and of the box's corners to it. */
function segmentToBox(seg, box) {
  if (segmentHitsBox(seg, box)) return 0;
  const toBox = (x, y) => Math.hypot(Math.max(box.left - x, 0, x - box.right), Math.max(box.top - y, 0, y - box.bottom));
  const corners = [[box.left, box.top], [box.right, box.top], [box.left, box.bottom], [box.right, box.bottom]];
  return Math.min(toBox(seg[0], seg[1]), toBox(seg[2], seg[3]), ...corners.map(([x, y]) => pointToSegment(x, y, seg)));
}

/** Does a label in `box` name its own line (`segments` of `branch`) rather than one of the other `lines`
 * ({seg, branch})? It does when its own line is the nearest to its centre (a label beside a line along it)
 * or to its edge (a label beside a line across its end, a wide label beside an upright line); a tie (at
 * a point where lines meet) names neither. */
function namesItsLine(box, branch, segments, lines) {
  const others = lines.filter((l) => l.branch !== branch);
  const nearest = (dist) => Math.min(...segments.map(dist)) < Math.min(...others.map((l) => dist(l.seg)));
  const cx = (box.left + box.right) / 2;
  const cy = (box.top + box.bottom) / 2;
  return nearest((seg) => pointToSegment(cx, cy, seg)) || nearest((seg) => segmentToBox(seg, box));
}

export const boxesOverlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

const symbolHitsBox = ({ x, y, r }, box) => boxesOverlap({ left: x - r, top: y - r, right: x + r, bottom: y + r }, box);

/** The candidate centres of a w × h label beside a path of segments: close to the line (`gaps.near`), then
 * clear of the device symbols beside it (`gaps.far`), then (for an essential label) further out. */
function candidates(segments, w, h, gaps, essential) {
  const reaches = [gaps.near, gaps.far, ...(essential ? ESSENTIAL_REACH.map((n) => n * gaps.far) : [])];
  return reaches.flatMap((gap) => ring(segments, w, h, gap));
}

/** The candidate centres of a w × h label `gap` from its line (`segments`). */
function ring(segments, w, h, gap) {
  const out = [];
  const bySize = [...segments].sort((s, t) => Math.hypot(t[2] - t[0], t[3] - t[1]) - Math.hypot(s[2] - s[0], s[3] - s[1]));
  for (const [ax, ay, bx, by] of bySize) {
    const len = Math.hypot(bx - ax, by - ay) || 1;
    const ux = (bx - ax) / len;
    const uy = (by - ay) / len;
    // half the label's extent along the segment's normal: a box beside a line clears it by `gap`
    const nx = -uy;
    const ny = ux;
    const reach = Math.abs(nx) * (w / 2) + Math.abs(ny) * (h / 2) + gap;
    for (const f of FRACTIONS) {
      const px = ax + f * (bx - ax);
      const py = ay + f * (by - ay);
      for (const side of [1, -1]) out.push([px + side * nx * reach, py + side * ny * reach]);
    }
    // beyond each end, along the line
    const along = Math.abs(ux) * (w / 2) + Math.abs(uy) * (h / 2) + gap;
    out.push([bx + ux * along, by + uy * along], [ax - ux * along, ay - uy * along]);
  }
  // around each point of the path (its ends, its bends): beside it, above, below, or at a corner
  const points = [segments[0].slice(0, 2), ...segments.map((seg) => seg.slice(2))];
  for (const [px, py] of points) for (const [dx, dy] of AROUND) out.push([px + dx * (w / 2 + gap), py + dy * (h / 2 + gap)]);
  return out;
}

/** Do segments a and b cross (or touch)? */
function segmentsCross([ax, ay, bx, by], [cx, cy, dx, dy]) {
  const side = (px, py, qx, qy, rx, ry) => Math.sign((qx - px) * (ry - py) - (qy - py) * (rx - px));
  const d1 = side(cx, cy, dx, dy, ax, ay);
  const d2 = side(cx, cy, dx, dy, bx, by);
  const d3 = side(ax, ay, bx, by, cx, cy);
  const d4 = side(ax, ay, bx, by, dx, dy);
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  const within = (px, py, qx, qy, rx, ry) => Math.min(px, qx) <= rx && rx <= Math.max(px, qx) && Math.min(py, qy) <= ry && ry <= Math.max(py, qy);
  return (d1 === 0 && within(cx, cy, dx, dy, ax, ay)) || (d2 === 0 && within(cx, cy, dx, dy, bx, by))
    || (d3 === 0 && within(ax, ay, bx, by, cx, cy)) || (d4 === 0 && within(ax, ay, bx, by, dx, dy));
}

const LEADER_AT = [0.2, 0.35, 0.5, 0.65, 0.8]; // where along a segment a leader may meet it: clear of its ends (the joins)

/** A leader [x1, y1, x2, y2] from a line (`segments`) to a label's box, the shortest that `blocked` lets
 * through: from a point of the line, clear of its segments' ends where other lines join it, to where the
 * way to the box's centre enters the box; null when there is none. */
function leaderTo(box, segments, blocked = () => false) {
  const cx = (box.left + box.right) / 2;
  const cy = (box.top + box.bottom) / 2;
  const half = [(box.right - box.left) / 2, (box.bottom - box.top) / 2];
  const leaders = segments.flatMap(([ax, ay, bx, by]) => LEADER_AT.map((f) => [ax + f * (bx - ax), ay + f * (by - ay)]))
    .flatMap(([px, py]) => {
      const [dx, dy] = [cx - px, cy - py];
      const t = Math.min(dx ? half[0] / Math.abs(dx) : Infinity, dy ? half[1] / Math.abs(dy) : Infinity);
      return t < 1 ? [[px, py, cx - dx * t, cy - dy * t]] : []; // a point of the line inside the box: none
    })
    .sort((a, b) => Math.hypot(a[2] - a[0], a[3] - a[1]) - Math.hypot(b[2] - b[0], b[3] - b[1]));
  return leaders.find((seg) => !blocked(seg)) || null;
}

// a spot's cost: a crossed line is worst, then a leader, then a covered symbol (the caller moves it aside)
const CROSSING = 20;
const LEADER_COST = 15;
const COVERING = 10;
const PASSES = 4; // placements, each with the labels left across a line or hidden moved first

/**
 * Place labels. `items`: [{key, branch, w, h, pad, segments: [[ax, ay, bx, by], …] (its line's),
 * essential}], already in priority order (`pad`: the spacing on each side of the text within w);
 * `lines`: [{seg, branch}] the drawn segments; `symbols`: [{x, y, r}] the device symbols (boxes of
 * half-side r); `view`: {left, top, right, bottom} the visible area; `gaps`: {near, far} the distances from
 * a label to its line tried first (close beside it) and next (clear of the symbols beside it).
 * A label never overlaps another, and never stands where it would name another line (namesItsLine).
 * An airway's label (not `essential`) is placed beside its line on a clear spot or hidden. An essential one
 * (a monitored tunnel's) may cover a symbol (which map.js then moves aside) or, when it has no other spot,
 * a line; it is tried further out too, and where it stands clear of the other lines but nearer one of them
 * than its own it is tied to its line by a leader that crosses no other line and no label (it may pass
 * under a symbol).
 * Returns {spots, stuck}: spots a Map key → {cx, cy, box, leader} for the placed labels (leader:
 * [x1, y1, x2, y2] or null), a key that is missing to be hidden; stuck the count of essential labels left
 * across a line or hidden (0: the map is clean).
 */
export function placeLabels(items, lines, symbols, view, gaps) {
  let order = items;
  let best = null;
  for (let pass = 0; pass < PASSES; pass++) {
    const placed = placeInOrder(order, lines, symbols, view, gaps);
    // the essential labels left across a line or hidden go first next time: a crowded line's label takes
    // its few spots before its neighbours' labels, which have others
    const stuck = order.filter((item) => item.essential && !(placed.get(item.key)?.crossed === 0));
    if (!best || stuck.length < best.stuck) best = { spots: placed, stuck: stuck.length };
    if (!stuck.length) break;
    order = [...stuck, ...order.filter((item) => !stuck.includes(item))];
  }
  return best;
}

function placeInOrder(items, lines, symbols, view, gaps) {
  const placed = new Map();
  const taken = [];
  const leaders = [];
  for (const item of items) {
    const { w, h } = item;
    const pad = item.pad || 0;
    const others = lines.filter((l) => l.branch !== item.branch);
    let best = null;
    for (const [x, y] of candidates(item.segments, w, h, gaps, item.essential)) {
      // clamped inside the visible area (a label wider than it keeps its left end in view)
      const cx = Math.min(Math.max(x, view.left + w / 2), Math.max(view.left + w / 2, view.right - w / 2));
      const cy = Math.min(Math.max(y, view.top + h / 2), Math.max(view.top + h / 2, view.bottom - h / 2));
      const box = { left: cx - w / 2, top: cy - h / 2, right: cx + w / 2, bottom: cy + h / 2 };
      if (taken.some((t) => boxesOverlap(t, box)) || leaders.some((seg) => segmentHitsBox(seg, box))) continue;
      const covered = symbols.filter((s) => symbolHitsBox(s, box)).length;
      const crossed = lines.filter((l) => segmentHitsBox(l.seg, box)).length;
      if ((covered || crossed) && !item.essential) continue; // an airway's name only where it is clear
      let leader = null;
      const text = { ...box, left: box.left + pad, right: box.right - pad }; // the text's own box
      if (!namesItsLine(text, item.branch, item.segments, lines)) {
        if (!item.essential || covered || others.some((l) => segmentToBox(l.seg, box) < gaps.near)) continue;
        leader = leaderTo(text, item.segments, (seg) => others.some((l) => segmentsCross(l.seg, seg))
          || leaders.some((l) => segmentsCross(l, seg)) || taken.some((t) => segmentHitsBox(seg, t)));
        if (!leader) continue;
      }
      // then a leader's length and a clamped spot's drift from its line
      const cost = CROSSING * crossed
        + COVERING * covered
        + (leader ? LEADER_COST + Math.hypot(leader[2] - leader[0], leader[3] - leader[1]) / (w + h) : 0)
        + Math.hypot(cx - x, cy - y) / (w + h);
      if (!best || cost < best.cost) best = { cx, cy, box, leader, cost, crossed };
      if (cost === 0) break;
    }
    if (best) {
      placed.set(item.key, best);
      taken.push(best.box);
      if (best.leader) leaders.push(best.leader);
    }
  }
  return placed;
}
