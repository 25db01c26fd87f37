// labels.js — deterministic label placement for the network map. Each label is tried at candidate spots
// along its line (beside the middle on either side, then further along, then beyond its ends), in order of
// priority; a spot that overlaps a label already placed is never taken, and among the others the first that
// crosses the fewest other lines, then covers the fewest device symbols, wins. A label that finds no free spot is hidden (its
// tunnel's tooltip still names it). Every spot is clamped inside the visible area. All in the SVG's user
// units; the caller gives sizes measured at the current font size.

const FRACTIONS = [0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9, 0.05, 0.95];
const ESSENTIAL_REACH = [1.6, 2.5, 4]; // an essential label's further rings, in gaps from its line

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

export const boxesOverlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

const symbolHitsBox = ({ x, y, r }, box) => boxesOverlap({ left: x - r, top: y - r, right: x + r, bottom: y + r }, box);

/** The candidate centres of a w × h label beside a path of segments, `gap` from the line, then (for an
 * essential label) further out. */
function candidates(segments, w, h, gap, essential) {
  return [...ring(segments, w, h, gap), ...(essential ? ESSENTIAL_REACH.flatMap((n) => ring(segments, w, h, n * gap)) : [])];
}

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
  return out;
}

/**
 * Place labels. `items`: [{key, w, h, segments: [[ax, ay, bx, by], …], essential}], already in priority
 * order; `lines`: [{seg}] the drawn segments; `symbols`: [{x, y, r}] the device symbols (boxes of half-side
 * r); `view`: {left, top, right, bottom} the visible area; `gap`: the distance from a label to its line.
 * A label never overlaps another; an `essential` one (a monitored tunnel's) may cover a symbol (which
 * map.js then moves aside) or, when it has no other spot, a line, and is tried further out; any other is placed beside its line on a clear spot
 * or hidden. Returns a Map key → {cx, cy, box} for the placed labels; a key that is missing is to be hidden.
 */
export function placeLabels(items, lines, symbols, view, gap) {
  const placed = new Map();
  const taken = [];
  for (const item of items) {
    const { w, h } = item;
    let best = null;
    for (const [x, y] of candidates(item.segments, w, h, gap, item.essential)) {
      // clamped inside the visible area (a label wider than it keeps its left end in view)
      const cx = Math.min(Math.max(x, view.left + w / 2), Math.max(view.left + w / 2, view.right - w / 2));
      const cy = Math.min(Math.max(y, view.top + h / 2), Math.max(view.top + h / 2, view.bottom - h / 2));
      const box = { left: cx - w / 2, top: cy - h / 2, right: cx + w / 2, bottom: cy + h / 2 };
      if (taken.some((t) => boxesOverlap(t, box))) continue;
      const covered = symbols.filter((s) => symbolHitsBox(s, box)).length;
      const crossed = lines.filter((l) => segmentHitsBox(l.seg, box)).length;
      if ((covered || crossed) && !item.essential) continue; // an airway's name only where it is clear
      // a crossed line is worst (the caller moves a covered symbol aside), then a covered symbol, then a
      // clamped spot's drift from its line
      const cost = 20 * crossed
        + 10 * covered
        + Math.hypot(cx - x, cy - y) / (w + h);
      if (!best || cost < best.cost) best = { cx, cy, box, cost };
      if (cost === 0) break;
    }
    if (best) {
      placed.set(item.key, best);
      taken.push(best.box);
    }
  }
  return placed;
}
