// mapwidth.js — the network map's drawn width. The map is laid out as wide as its box when every monitored
// tunnel's label finds a clean spot there (labels.js: none across another line, none hidden); in a box too
// narrow for that (the side panel open beside it on a small screen) it keeps the narrowest width found
// clean and the box scrolls sideways, rather than squeezing the labels against other tunnels' lines.
// While a change is modelled (airflow.js: longer labels, 模拟 with the change) the map keeps the width the
// plain map chose for its box, and the labels that find no clean spot there are hidden (map.js), rather
// than the map growing until it no longer fits the screen.

const GROW = 1.1; // each wider try: ×1.1 the last
const MAX_GROW = 3; // the tries stop at 3 × the box's width (the last one is kept)

export class MapWidth {
  constructor() {
    this.reset();
  }

  /** Forget the widths tried: a new drawing. */
  reset() {
    this.clean = []; // px: widths at which the labels were clean, ascending
    this.unclean = new Set(); // px: widths at which they were not
    this.size = null; // [width, height] px: the box at the last layout
    this.chosen = new Map(); // box width px → the width the plain map was laid out at for it
    this.grows = true; // false while a change is modelled: the plain map's width is kept
  }

  /**
   * Lay the map out in `box` (its scrolling container): `fit(svg)` places the labels for the SVG's current
   * width and returns the count of labels left across a line or hidden (0: clean; null: the map is not
   * shown). Tries the box's width, then the widths found clean before that are wider, then wider ones,
   * and keeps the first that is clean. `force`: lay out again though the box kept its size (the labels'
   * text changed); else a box of unchanged size is left as it is. `grow` false (a change modelled): lay
   * out once at the width the plain map chose for this box (else the narrowest found clean that is at
   * least as wide, else the box's), whatever is left unclean, and remember nothing of it.
   */
  layout(box, svg, fit, force = false, grow = true) {
    const size = [box.clientWidth, box.clientHeight];
    const same = this.size && this.size[0] === size[0] && this.size[1] === size[1];
    if (!size[0] || (!force && same && grow === this.grows)) return;
    this.size = size;
    this.grows = grow;
    if (!grow) {
      const width = this.chosen.get(size[0]) ?? this.clean.find((w) => w >= size[0]) ?? size[0];
      svg.style.width = width > size[0] ? `${width}px` : '';
      fit(svg);
      return;
    }
    const tries = [size[0], ...this.clean.filter((w) => w > size[0])];
    for (let i = 0; i < tries.length; i++) {
      const width = tries[i];
      if (this.unclean.has(width) && i < tries.length - 1) continue;
      svg.style.width = width > size[0] ? `${width}px` : '';
      const stuck = fit(svg);
      if (stuck === null) return;
      this.chosen.set(size[0], width);
      this.record(width, stuck === 0);
      if (stuck === 0) return;
      const wider = Math.round(width * GROW);
      if (i === tries.length - 1 && wider <= MAX_GROW * size[0]) tries.push(wider);
    }
  }

  record(width, clean) {
    if (clean) {
      this.unclean.delete(width);
      if (!this.clean.includes(width)) this.clean = [...this.clean, width].sort((a, b) => a - b);
    } else {
      this.unclean.add(width);
      this.clean = this.clean.filter((w) => w !== width);
    }
  }
}

/** Scroll the map's box sideways so that `node` (a tunnel's or a device's group) is in view, centred when
 * it was not. */
export function scrollToItem(box, node) {
  const view = box.getBoundingClientRect();
  const item = node.getBoundingClientRect();
  if (item.left >= view.left && item.right <= view.right) return;
  box.scrollLeft += (item.left + item.right) / 2 - (view.left + view.right) / 2;
}
