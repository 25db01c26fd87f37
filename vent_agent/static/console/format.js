// format.js — the console's one formatter of figures: the overview, the map, its labels and the side
// panel write a reading at its quantity's precision (wind speed 0.24 m/s, air volume 646 m³/min, CH₄
// 1.12 %, CO 7 ppm), the precision the service's own texts use. The table comes from the service
// (GET /api/console/config → figures: {quantity: {unit, digits}}, vent_agent.upstream.models.QUANTITY_DIGITS).

let FIGURES = {};
const FALLBACK_DIGITS = 2; // a quantity the service does not list (or no config): two decimals

/** Take the service's table of units and decimals per quantity. */
export function setFigures(table) {
  FIGURES = table || {};
}

/** A reading's figure at its quantity's decimals ('0.24'); '—' for no value. */
export function figure(value, quantity) {
  if (value == null || !Number.isFinite(Number(value))) return '—';
  const digits = FIGURES[quantity]?.digits ?? FALLBACK_DIGITS;
  const text = Number(value).toFixed(digits);
  return Number(text) === 0 ? (0).toFixed(digits) : text; // never '-0'
}

/** A reading with its unit ('0.24 m/s'); `unit` defaults to the quantity's; '—' for no value. */
export function reading(value, quantity, unit = FIGURES[quantity]?.unit ?? '') {
  if (value == null) return '—';
  return `${figure(value, quantity)} ${unit}`.trim();
}
