// web/text.js - how the page's views write numbers and find elements: one
// definition for the main view (app.js and the pictures it draws), the
// views of other kinds (views.js) and the file view (fileview.js), so that
// a rate reads the same everywhere on the page.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** A count rounded to a whole number, with thousands separators. */
export const grouped = (x) => Math.round(x).toLocaleString('en-US');

/** A rate in [0, 1] as a percentage with three significant digits ('–' when unknown). */
export function percent(rate) {
  if (rate === null || !Number.isFinite(rate)) return '–';
  if (rate === 0) return '0 %';
  const p = rate * 100;
  return p >= 0.001 ? `${Number(p.toPrecision(3))} %` : `${p.toExponential(1)} %`;
}
