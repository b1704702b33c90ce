// web/charts.js - the main view's two charts: the FPR as keys are inserted,
// and the FPR against k for the current m and n (web/playground.hpp
// computes every point; these functions only draw them).
import { sizeCanvas } from './canvas.js';
import { grouped, percent } from './text.js';

/** The smallest of 1 %, 2 %, 5 %, ... 100 % at or above x (the FPR chart's top). */
function niceCeiling(x) {
  for (const step of [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1]) if (x <= step) return step;
  return 1;
}

/** FPR against keys inserted: measured, predicted and the model, with the last query's rate. */
export function drawChart(pg, ui, palette) {
  const width = ui.chartWrap.clientWidth;
  const height = width < 420 ? 210 : 260;
  const context = sizeCanvas(ui.chart, width, height);
  const points = pg.chart();  // inserted, measured, predicted, model; repeated
  const queries = pg.queries();
  const queryRate = queries > 0 ? pg.falsePositives() / queries : 0;
  let top = queryRate;
  for (let i = 0; i < points.length; i += 4) top = Math.max(top, points[i + 1], points[i + 2], points[i + 3]);
  const yMax = niceCeiling(top);
  const xMax = Math.max(1, pg.n(), pg.inserts());
  const left = 46, right = 10, topPad = 8, bottom = 34;
  const plotW = width - left - right, plotH = height - topPad - bottom;
  const X = (v) => left + (v / xMax) * plotW;
  const Y = (v) => topPad + plotH - (Math.min(v, yMax) / yMax) * plotH;

  context.font = '11px system-ui, sans-serif';
  context.fillStyle = palette.muted;
  context.strokeStyle = palette.border;
  context.lineWidth = 1;
  context.textAlign = 'right';
  context.textBaseline = 'middle';
  for (let t = 0; t <= 4; t++) {
    const v = (yMax * t) / 4;
    context.beginPath();
    context.moveTo(left, Math.round(Y(v)) + 0.5);
    context.lineTo(left + plotW, Math.round(Y(v)) + 0.5);
    context.stroke();
    context.fillText(`${Number((v * 100).toPrecision(3))} %`, left - 4, Y(v));
  }
  context.textAlign = 'center';
  context.textBaseline = 'top';
  for (const v of [0, xMax / 2, xMax]) context.fillText(grouped(v), Math.min(Math.max(X(v), left + 10), left + plotW - 14), topPad + plotH + 4);
  context.fillText('keys inserted', left + plotW / 2, topPad + plotH + 18);
  if (pg.inserts() > pg.n()) {
    // Past capacity: where n was.
    const x = Math.round(X(pg.n())) + 0.5;
    context.strokeStyle = palette.query;
    context.setLineDash([2, 3]);
    context.beginPath();
    context.moveTo(x, topPad);
    context.lineTo(x, topPad + plotH);
    context.stroke();
    context.setLineDash([]);
    context.fillStyle = palette.query;
    context.textAlign = 'left';
    context.fillText(`n = ${grouped(pg.n())}`, x + 3, topPad + 2);
  }

  const series = (offset, colour, dash, lineWidth) => {
    context.beginPath();
    for (let i = 0; i < points.length; i += 4) {
      const x = X(points[i]), y = Y(points[i + offset]);
      if (i === 0) context.moveTo(x, y); else context.lineTo(x, y);
    }
    context.setLineDash(dash);
    context.strokeStyle = colour;
    context.lineWidth = lineWidth;
    context.stroke();
    context.setLineDash([]);
  };
  series(3, palette.model, [5, 4], 1.5);
  series(2, palette.insert, [], 2);
  series(1, palette.set, [], 1.5);
  if (queries > 0) {
    const x = X(pg.insertCalls()), y = Y(queryRate);
    context.fillStyle = palette.query;
    context.beginPath();
    context.arc(Math.min(x, left + plotW - 5), y, 5, 0, 2 * Math.PI);
    context.fill();
  }
}

/** The k chart's points: [{ k, measured, model }], and split-block's own point (k = 8) or null. */
export function kChartPoints(pg, limits) {
  const flat = pg.kChart();
  const points = [];
  for (let i = 0; i + 2 < flat.length; i += 3) points.push({ k: flat[i], measured: flat[i + 1], model: flat[i + 2] });
  const split = points.length > limits.maxK ? points.pop() : null;
  return { points, split };
}

/**
 * FPR against k for the current m and n, on a log scale (the rates span
 * many decades): the formula as a line, each measured rate as a dot (an
 * empty ring at the floor when none of the 10,000 absent keys passed), the
 * user's k as a band. So "turn k up to 10 and watch the rate get worse" is
 * there to see.
 */
export function drawKChart(pg, ui, palette, limits) {
  const width = ui.kChartWrap.clientWidth;
  const height = width < 420 ? 210 : 240;
  const context = sizeCanvas(ui.kChart, width, height);
  const { points, split } = kChartPoints(pg, limits);
  const floorRate = 1 / limits.kChartProbeKeys;
  let low = 1;
  for (const p of points) {
    if (p.model > 0) low = Math.min(low, p.model);
    if (p.measured > 0) low = Math.min(low, p.measured);
  }
  const decades = Math.min(8, Math.max(1, Math.ceil(-Math.log10(Math.max(low, floorRate / 10)))));
  const yMin = 10 ** -decades;
  const left = 46, right = 10, topPad = 10, bottom = 34;
  const plotW = width - left - right, plotH = height - topPad - bottom;
  const X = (k) => left + ((k - 1) / (limits.maxK - 1)) * plotW;
  const Y = (v) => topPad + plotH * (Math.log10(Math.max(Math.min(v, 1), yMin)) / -decades);

  context.font = '11px system-ui, sans-serif';
  context.lineWidth = 1;
  const k = pg.k();
  // The user's k.
  context.fillStyle = 'rgba(240, 140, 0, 0.16)';
  context.fillRect(X(k) - plotW / (limits.maxK - 1) / 2, topPad, plotW / (limits.maxK - 1), plotH);
  context.fillStyle = palette.muted;
  context.strokeStyle = palette.border;
  context.textAlign = 'right';
  context.textBaseline = 'middle';
  for (let d = 0; d <= decades; d++) {
    const v = 10 ** -d;
    const y = Math.round(Y(v)) + 0.5;
    context.beginPath();
    context.moveTo(left, y);
    context.lineTo(left + plotW, y);
    context.stroke();
    context.fillText(v >= 0.01 ? `${Number((v * 100).toPrecision(2))} %` : `1e-${d}`, left - 4, y);
  }
  context.textAlign = 'center';
  context.textBaseline = 'top';
  for (let kk = 1; kk <= limits.maxK; kk++) {
    if (width < 420 && kk % 3 !== 1 && kk !== k) continue;
    context.fillStyle = kk === k ? palette.fg : palette.muted;
    context.fillText(String(kk), X(kk), topPad + plotH + 4);
  }
  context.fillStyle = palette.muted;
  context.fillText('k, hash functions', left + plotW / 2, topPad + plotH + 18);

  context.beginPath();
  points.forEach((p, i) => (i === 0 ? context.moveTo(X(p.k), Y(p.model)) : context.lineTo(X(p.k), Y(p.model))));
  context.setLineDash([5, 4]);
  context.strokeStyle = palette.model;
  context.lineWidth = 1.5;
  context.stroke();
  context.setLineDash([]);
  for (const p of points) {
    context.beginPath();
    context.arc(X(p.k), Y(p.measured), 4, 0, 2 * Math.PI);
    if (p.measured > 0) {
      context.fillStyle = palette.set;
      context.fill();
    } else {
      context.strokeStyle = palette.set;
      context.lineWidth = 1.5;
      context.stroke();
    }
  }
  if (split) {
    context.fillStyle = palette.query;
    context.beginPath();
    context.rect(X(8) - 5, Y(split.measured) - 5, 10, 10);
    context.fill();
  }

  const at = points.find((p) => p.k === k);
  const best = (pg.bits() / pg.n()) * Math.LN2;
  const measured = (p) => (p.measured > 0 ? percent(p.measured) : `0 of ${grouped(limits.kChartProbeKeys)}`);
  let note = at ? `k = ${k}: measured ${measured(at)}, formula ${percent(at.model)}. ` : '';
  note += `The formula is lowest at k = m/n \u00b7 ln 2 \u2248 ${Number(best.toPrecision(3))}` +
    (best > limits.maxK ? ` (past ${limits.maxK}, the most this page allows)` : '') + '.';
  if (split) note += ` Split-block (\u25a0, k = 8 in blocks of 256 bits): measured ${measured(split)}, its model ${percent(split.model)}.`;
  if (pg.kind() === 'counting') note += ' A counting filter answers as a standard filter with the same m and k.';
  ui.kChartNote.textContent = note;
  ui.kChartFor.textContent = `\u00b7 m = ${grouped(pg.bits())}, n = ${grouped(pg.n())}${split ? ' (a standard filter; \u25a0 split-block)' : ''}`;
}
