// web/app.js - the playground page: controls, drawing, the state link.
//
// All filter work happens in WebAssembly (web/bindings.cpp over
// web/playground.hpp; the cuckoo and window views are web/views.js, the file
// view web/fileview.js): this file asks the Playground object to configure,
// step, seek, saturate or remove, then draws the words and figures it
// returns. Keys are generated in C++ from the seed; nothing here hashes,
// sets or tests bits.
import createPlayground from './dist/playground.mjs';
import { startFileView } from './fileview.js';
import { startViews } from './views.js';
import { $, grouped, percent } from './text.js';

const defaults = Object.freeze({ kind: 'standard', m: 1024, k: 3, n: 200, seed: '1', saturate: false, removals: '', tick: 0 });
let kinds = ['standard', 'split-block'];  // replaced by what the module supports

const ui = {
  form: $('settings'), kind: $('kind'), m: $('m'), k: $('k'), n: $('n'), seed: $('seed'), speed: $('speed'),
  mSlider: $('m-slider'), kSlider: $('k-slider'), nSlider: $('n-slider'),
  mValue: $('m-value'), kValue: $('k-value'), nValue: $('n-value'),
  play: $('play'), step: $('step'), reset: $('reset'), newSeed: $('new-seed'), saturate: $('saturate'), remove: $('remove'),
  removeKeyHint: $('remove-key-hint'),
  error: $('error'), note: $('settings-note'), tick: $('tick'), totalTicks: $('total-ticks'), progress: $('progress'),
  phase: $('phase'), bits: $('bits'), bitsWrap: $('bits-wrap'), layoutNote: $('layout-note'), lastLine: $('last-line'),
  loupe: $('loupe'), loupeCanvas: $('loupe-canvas'), loupeLabel: $('loupe-label'),
  legendBits: $('legend-bits'), legendCounters: $('legend-counters'), counterScale: $('counter-scale'),
  inserted: $('inserted'), bitsSet: $('bits-set'), queries: $('queries'), falsePositives: $('false-positives'),
  measuredFpr: $('measured-fpr'), predictedFpr: $('predicted-fpr'), probeFpr: $('probe-fpr'), modelFpr: $('model-fpr'),
  modelKeys: $('model-keys'), estimatedKeys: $('estimated-keys'), saturated: $('saturated'),
  removedFigure: $('removed-figure'), removed: $('removed'),
  bitsSetLabel: $('bits-set-label'), chart: $('chart'), chartWrap: $('chart-wrap'),
  kChart: $('k-chart'), kChartWrap: $('k-chart-wrap'), kChartFor: $('k-chart-for'), kChartNote: $('k-chart-note'),
  link: $('state-link'), copy: $('copy-link'), copyStatus: $('copy-status'),
};

let pg = null;             // the WebAssembly Playground
let limits = { minBits: 16, maxBits: 65536, maxK: 16, maxN: 2000000, kChartProbeKeys: 10000 };
let playing = false;
let ticksPerSecond = 60;
let fastTicksPerSecond = 0; // set by Saturate: finish the run in a few seconds
let pendingTicks = 0;
let lastFrame = null;
let dirty = true;
let chosenK = defaults.k;   // the user's k, kept while split-block forces 8
let pendingSlider = null;   // settings from a slider drag, applied once per frame
let addressShown = '';      // what the address bar shows now
let addressAt = 0;          // when it was last rewritten (performance.now())
let hover = null;           // { x, y } of the pointer over the bit array, in CSS px
let layout = null;          // the bit array's layout as last drawn

// ---- sliders: m and n on a log scale, k linear ------------------------------------
const sliders = {
  m: { toValue: (v) => Math.round(2 ** v), toPosition: (m) => Math.log2(Math.max(1, m)) },
  k: { toValue: (v) => Math.round(v), toPosition: (k) => k },
  n: { toValue: (v) => Math.min(limits.maxN, Math.max(1, Math.round(2 ** v))), toPosition: (n) => Math.log2(Math.max(1, n)) },
};

// ---- settings, the link ------------------------------------------------------
/** Settings from a query string; unknown or missing fields take defaults. */
function readState(search) {
  const params = new URLSearchParams(search);
  const number = (name) => (params.has(name) ? Number(params.get(name)) : defaults[name]);
  return {
    kind: params.get('kind') ?? defaults.kind,
    m: number('m'),
    k: number('k'),
    n: number('n'),
    seed: params.get('seed') ?? defaults.seed,
    saturate: params.get('saturate') === '1',
    removals: params.get('removals') ?? '',
    tick: number('tick'),
  };
}

/** The link to this exact state: the settings, saturation, removals, then the tick. */
function stateLink() {
  const base = location.href.split(/[?#]/)[0];
  const params = new URLSearchParams({ kind: pg.kind(), m: String(pg.bits()), k: String(pg.k()), n: String(pg.n()), seed: pg.seed() });
  if (pg.saturating()) params.set('saturate', '1');
  const removals = pg.removals();
  if (removals) params.set('removals', removals);
  params.set('tick', String(pg.tick()));
  return `${base}?${params}`;
}

/**
 * Keeps the address bar on the state, so reloading or sharing it restores
 * this run. replaceState (no history entry per tick), at most about three
 * times a second while playing and every 60 ms otherwise: browsers ignore a
 * page that rewrites its address hundreds of times in a few seconds. A
 * rewrite held back is made on a later frame (render keeps drawing until
 * the address has caught up).
 */
function followAddress(link, now) {
  if (link === addressShown) return;
  if (now - addressAt < (playing ? 300 : 60)) return;
  history.replaceState(null, '', link);
  addressShown = link;
  addressAt = now;
}

function showError(message, field) {
  for (const input of [ui.m, ui.k, ui.n, ui.seed]) input.removeAttribute('aria-invalid');
  if (!message) {
    ui.error.hidden = true;
    ui.error.textContent = '';
    return;
  }
  ui.error.hidden = false;
  ui.error.textContent = message;
  if (field) field.setAttribute('aria-invalid', 'true');
}

/** The input a bindings error message names (they start with the setting). */
function fieldFor(message) {
  if (message.startsWith('m ')) return ui.m;
  if (message.startsWith('k ')) return ui.k;
  if (message.startsWith('n ')) return ui.n;
  if (message.startsWith('seed')) return ui.seed;
  return null;
}

/**
 * Starts a run with these settings (saturated and with removals if they say
 * so) and replays it to `tick`. Returns false (and says why) if refused; a
 * refused setting keeps the previous run.
 */
function configure(settings, tick = 0) {
  const kind = String(settings.kind);
  const k = kind === 'split-block' ? 8 : settings.k;
  const problem = pg.configure(kind, Number(settings.m), Number(k), Number(settings.n), String(settings.seed).trim());
  if (problem) {
    showError(problem, fieldFor(problem));
    return false;
  }
  if (settings.saturate) pg.saturate();
  if (settings.removals) {
    const refused = pg.setRemovals(String(settings.removals));
    if (refused) {
      showError(refused);
      return false;
    }
  }
  showError('');
  if (kind !== 'split-block') chosenK = Number(settings.k);
  pg.seek(Number.isFinite(tick) && tick > 0 ? tick : 0);
  syncControls();
  dirty = true;
  return true;
}

function syncControls() {
  ui.kind.value = pg.kind();
  ui.m.value = String(pg.bits());
  ui.n.value = String(pg.n());
  ui.seed.value = pg.seed();
  const split = pg.kind() === 'split-block';
  const counting = pg.kind() === 'counting';
  ui.k.value = String(pg.k());
  ui.k.disabled = split;
  ui.kSlider.disabled = split;
  for (const name of ['m', 'k', 'n']) {
    const value = name === 'm' ? pg.bits() : name === 'k' ? pg.k() : pg.n();
    ui[`${name}Slider`].value = String(sliders[name].toPosition(value));
    ui[`${name}Value`].textContent = grouped(value);
  }
  ui.note.textContent = split
    ? `Split-block (Parquet): ${grouped(pg.bits() / 256)} blocks of 256 bits, drawn one block per row; ` +
      'each key sets one bit in each of its block\u2019s eight 32-bit words, so k is 8 and m is a multiple of 256.'
    : counting
      ? 'Counting (Fan et al. 2000): every bit becomes a 4-bit counter (0–15, shown in each cell when it fits); ' +
        'an insert adds 1 to its k counters and Remove takes 1 away, which is what lets a counting filter delete ' +
        'keys. A query passes when none of its counters is 0.'
      : '';
  ui.bitsSetLabel.textContent = counting ? 'Counters ≠ 0' : 'Bits set';
  ui.remove.hidden = !counting;
  ui.removeKeyHint.hidden = !counting;
  ui.removedFigure.hidden = !counting;
  ui.legendBits.hidden = counting;
  ui.legendCounters.hidden = !counting;
}

function controlsSettings() {
  return { kind: ui.kind.value, m: ui.m.value, k: ui.k.disabled ? chosenK : ui.k.value, n: ui.n.value, seed: ui.seed.value };
}

/** A new run from the controls, at the tick the old one had reached (a plain run: not saturated, no removals). */
function applyControls(settings = controlsSettings()) {
  configure(settings, pg.tick());
}

// ---- playback ----------------------------------------------------------------
function setPlaying(on) {
  playing = on;
  if (!on) fastTicksPerSecond = 0;
  pendingTicks = 0;
  lastFrame = null;
  ui.play.textContent = on ? 'Pause' : 'Play';
  ui.play.setAttribute('aria-pressed', on ? 'true' : 'false');
  dirty = true;
}

function togglePlay() {
  if (playing) return setPlaying(false);
  if (pg.tick() >= pg.totalTicks()) pg.seek(0);
  setPlaying(true);
}

function stepOnce() {
  setPlaying(false);
  pg.step(1);
  dirty = true;
}

function reset() {
  setPlaying(false);
  pg.reset();
  dirty = true;
}

function newSeed() {
  setPlaying(false);
  const word = new Uint32Array(1);
  crypto.getRandomValues(word);
  configure({ ...controlsSettings(), seed: String(word[0]) }, pg.tick());
}

function saturate() {
  pg.saturate();
  syncControls();
  setPlaying(true);
  // Finish the inserts and the queries in about four seconds.
  fastTicksPerSecond = Math.max(ticksPerSecond, (pg.totalTicks() - pg.tick()) / 4);
  dirty = true;
}

function removeKey() {
  if (pg.kind() !== 'counting') return;
  setPlaying(false);
  pg.removeOldest();
  dirty = true;
}

function frame(now) {
  if (pendingSlider) {
    const settings = pendingSlider;
    pendingSlider = null;
    applyControls(settings);
  }
  if (playing) {
    if (lastFrame !== null) {
      const rate = fastTicksPerSecond || ticksPerSecond;
      pendingTicks += (Math.min(now - lastFrame, 250) / 1000) * rate;
      const whole = Math.floor(pendingTicks);
      if (whole > 0) {
        pg.step(whole);
        pendingTicks -= whole;
        dirty = true;
      }
    }
    lastFrame = now;
    if (pg.tick() >= pg.totalTicks()) setPlaying(false);
  }
  if (dirty) render(now);
  requestAnimationFrame(frame);
}

// ---- colours -----------------------------------------------------------------
const colours = () => {
  const style = getComputedStyle(document.documentElement);
  const get = (name) => style.getPropertyValue(name).trim();
  return { unset: get('--unset'), set: get('--set'), insert: get('--insert'), query: get('--query'), model: get('--model'),
    removed: get('--removed'), fg: get('--fg'), muted: get('--muted'), border: get('--border') };
};
let palette = null;

/** '#rrggbb' as [r, g, b]. */
function rgbOf(hex) {
  const v = parseInt(hex.replace('#', ''), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}
/** A counter's shade: lighter for 1, darker for each step up to 15. */
const counterLightness = (c) => 82 - 4.3 * (c - 1);
const counterColour = (c) => (c === 0 ? palette.unset : `hsl(226 58% ${counterLightness(c)}%)`);
function hslToRgb(h, s, l) {
  s /= 100; l /= 100;
  const f = (n) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

// ---- the bit array's layout --------------------------------------------------
/**
 * Where bit i is drawn, fitted into width x maxHeight CSS px. A cell may be
 * smaller than a pixel (65,536 bits on a phone): then the array is drawn as
 * an image of one pixel per bit, scaled down, and the loupe shows the bits.
 * Returns { width, height, cellW, cellH, cols, lines, at(i) -> [col, line],
 * indexAt(col, line) -> i or -1, x(col), y(line), gaps, note }.
 */
function bitLayout(width, maxHeight, bits, kind) {
  if (kind === 'split-block') {
    // One 256-bit block per line; when the blocks are few and the screen
    // narrow, a block wraps onto 2, 4 or 8 lines of whole 32-bit words.
    const blocks = bits / 256;
    let best = null;
    for (const perLine of [256, 128, 64, 32]) {
      const lines = blocks * (256 / perLine);
      const cellW = Math.min(14, width / perLine);
      const cellH = Math.min(cellW * 1.6, 14, maxHeight / lines);
      const score = Math.min(cellW, cellH);
      if (!best || score > best.score + 1e-9) best = { perLine, lines, cellW, cellH, score };
    }
    const { perLine, lines } = best;
    const linesPerBlock = 256 / perLine;
    const gaps = best.cellW >= 3 && best.cellH >= 3;
    const wordGap = gaps ? 2 : 0;
    const blockGap = gaps ? (blocks > 64 ? 2 : 5) : 0;
    const cellW = gaps ? Math.min(14, (width - wordGap * (perLine / 32 - 1)) / perLine) : best.cellW;
    const cellH = best.cellH;
    const x = (col) => col * cellW + Math.floor(col / 32) * wordGap;
    const y = (line) => line * cellH + Math.floor(line / linesPerBlock) * blockGap;
    return {
      width: x(perLine - 1) + cellW, height: y(lines - 1) + cellH, cellW, cellH, cols: perLine, lines, gaps,
      at(i) {
        const block = Math.floor(i / 256), r = i % 256;
        return [r % perLine, block * linesPerBlock + Math.floor(r / perLine)];
      },
      indexAt: (col, line) => (col < 0 || col >= perLine || line < 0 || line >= lines ? -1
        : Math.floor(line / linesPerBlock) * 256 + (line % linesPerBlock) * perLine + col),
      x, y,
      colAt(px) {
        const word = Math.floor(px / (32 * cellW + wordGap));
        return word * 32 + Math.min(31, Math.floor((px - word * (32 * cellW + wordGap)) / cellW));
      },
      lineAt(py) {
        const block = Math.floor(py / (linesPerBlock * cellH + blockGap));
        return block * linesPerBlock + Math.min(linesPerBlock - 1, Math.floor((py - block * (linesPerBlock * cellH + blockGap)) / cellH));
      },
      note: `${grouped(blocks)} blocks \u00d7 256 bits${perLine < 256 ? ` (each block on ${linesPerBlock} lines)` : ''}`,
    };
  }
  // Standard and counting: a grid a power of two wide (rows are whole 64-bit
  // words), the width that gives the largest cells in the space there is.
  let best = null;
  for (let cols = 8; cols <= Math.max(8, bits); cols *= 2) {
    const lines = Math.ceil(bits / cols);
    const cell = Math.min(22, width / cols, maxHeight / lines);
    // On a tie the wider grid: it fills a narrow screen's width.
    if (!best || cell >= best.cell - 1e-9) best = { cols, lines, cell };
  }
  const { cols, lines, cell } = best;
  return {
    width: cols * cell, height: lines * cell, cellW: cell, cellH: cell, cols, lines, gaps: cell >= 3,
    at: (i) => [i % cols, Math.floor(i / cols)],
    indexAt: (col, line) => (col < 0 || col >= cols || line < 0 || line >= lines || line * cols + col >= bits ? -1 : line * cols + col),
    x: (col) => col * cell, y: (line) => line * cell,
    colAt: (px) => Math.floor(px / cell), lineAt: (py) => Math.floor(py / cell),
    note: `${grouped(lines)} rows \u00d7 ${cols} bits${cell < 1 ? ` \u00b7 ${Number(cell.toPrecision(2))} px per bit` : ''}`,
  };
}

/** The most height the array may take: it must leave the figures on screen. */
function arrayHeightBudget() {
  return Math.max(120, Math.min(560, Math.round(window.innerHeight * 0.42)));
}

function sizeCanvas(canvas, cssWidth, cssHeight) {
  const ratio = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(cssWidth * ratio)), h = Math.max(1, Math.round(cssHeight * ratio));
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  const context = canvas.getContext('2d');
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, cssWidth, cssHeight);
  return context;
}

/** The state of cell i for drawing: 0/1, or the counter value for counting. */
function cellValues() {
  if (pg.kind() === 'counting') return Uint8Array.from(pg.counters());
  const words = pg.words();  // bit i = bit i % 32 of word i / 32
  const bits = pg.bits();
  const out = new Uint8Array(bits);
  for (let i = 0; i < bits; i++) out[i] = (words[i >>> 5] >>> (i & 31)) & 1;
  return out;
}

/** The colour of a cell with this value. */
function cellColour(value, counting) {
  if (counting) return counterColour(value);
  return value ? palette.set : palette.unset;
}

function drawBits() {
  const bits = pg.bits();
  const counting = pg.kind() === 'counting';
  layout = bitLayout(ui.bitsWrap.clientWidth, arrayHeightBudget(), bits, pg.kind());
  ui.layoutNote.textContent = `\u00b7 ${layout.note}`;
  const context = sizeCanvas(ui.bits, Math.max(1, Math.floor(layout.width)), Math.max(1, Math.ceil(layout.height)));
  const values = cellValues();
  if (layout.gaps) {
    // Cells of 3 px and more: one rectangle each, with a one-pixel gap so
    // neighbouring set bits stay countable instead of merging into bars.
    const w = layout.cellW - 1, h = layout.cellH - 1;
    const paths = new Map();
    for (let i = 0; i < bits; i++) {
      const [col, line] = layout.at(i);
      const colour = cellColour(values[i], counting);
      if (!paths.has(colour)) paths.set(colour, new Path2D());
      paths.get(colour).rect(layout.x(col), layout.y(line), w, h);
    }
    for (const [colour, path] of paths) {
      context.fillStyle = colour;
      context.fill(path);
    }
    if (counting && Math.min(w, h) >= 11) {
      context.font = `${Math.floor(Math.min(w, h) * 0.75)}px ui-monospace, monospace`;
      context.textAlign = 'center';
      context.textBaseline = 'middle';
      for (let i = 0; i < bits; i++) {
        if (values[i] === 0) continue;
        const [col, line] = layout.at(i);
        context.fillStyle = counterLightness(values[i]) < 50 ? '#ffffff' : '#10183a';
        context.fillText(values[i].toString(16).toUpperCase(), layout.x(col) + w / 2, layout.y(line) + h / 2 + 0.5);
      }
    }
  } else {
    // Small cells, down to a fraction of a pixel: an image with one pixel
    // per cell, scaled into place. Scaled down, the browser averages the
    // cells each screen pixel covers, so density still reads as shade.
    const image = new ImageData(layout.cols, layout.lines);
    const rgb = new Map();
    const colourOf = (value) => {
      if (!rgb.has(value)) {
        rgb.set(value, counting && value > 0 ? hslToRgb(226, 58, counterLightness(value)) : rgbOf(cellColour(value, counting)));
      }
      return rgb.get(value);
    };
    for (let i = 0; i < bits; i++) {
      const [col, line] = layout.at(i);
      const [r, g, b] = colourOf(values[i]);
      const at = 4 * (line * layout.cols + col);
      image.data[at] = r; image.data[at + 1] = g; image.data[at + 2] = b; image.data[at + 3] = 255;
    }
    const off = new OffscreenCanvas(layout.cols, layout.lines);
    off.getContext('2d').putImageData(image, 0, 0);
    const shrinking = layout.cellW < 1 || layout.cellH < 1;
    context.imageSmoothingEnabled = shrinking;
    context.imageSmoothingQuality = 'high';
    context.drawImage(off, 0, 0, layout.cols * layout.cellW, layout.lines * layout.cellH);
  }
  // Highlights: the last key's bits, the last removed key's, the last query's.
  const ring = !layout.gaps;
  const mark = (i, fill, stroke) => {
    const [col, line] = layout.at(i);
    const x = layout.x(col), y = layout.y(line);
    const w = Math.max(layout.cellW - (layout.gaps ? 1 : 0), 1), h = Math.max(layout.cellH - (layout.gaps ? 1 : 0), 1);
    if (ring) {
      // A ring around the cell, so one highlighted bit among thousands is found.
      context.strokeStyle = stroke ?? fill;
      context.lineWidth = 1.5;
      context.beginPath();
      context.arc(x + w / 2, y + h / 2, 7, 0, 2 * Math.PI);
      context.stroke();
      context.fillStyle = fill;
      context.fillRect(x + w / 2 - 1.5, y + h / 2 - 1.5, 3, 3);
      return;
    }
    context.fillStyle = fill;
    context.fillRect(x, y, w, h);
    if (stroke) {
      context.strokeStyle = stroke;
      context.lineWidth = 2;
      context.strokeRect(x + 1, y + 1, w - 2, h - 2);
    }
    if (counting && Math.min(w, h) >= 11 && values[i] > 0) {
      context.fillStyle = stroke ? palette.query : '#ffffff';
      context.fillText(values[i].toString(16).toUpperCase(), x + w / 2, y + h / 2 + 0.5);
    }
  };
  if (pg.insertCalls() > 0) for (const i of pg.lastInsertBits()) mark(i, palette.insert);
  if (pg.removed() > 0) for (const i of pg.lastRemovedBits()) mark(i, palette.removed);
  if (pg.queries() > 0) {
    for (const i of pg.lastQueryBits()) {
      if (values[i]) mark(i, palette.query);
      else mark(i, '#ffffff', palette.query);
    }
  }
  drawLoupe(values);
}

// ---- the loupe: zoom on hover ------------------------------------------------------
const loupeCols = 15, loupeLines = 7, loupeCell = 18;

/** The cell under CSS position (x, y) of the bit array, or null. */
function cellAt(x, y) {
  if (!layout) return null;
  const col = Math.min(layout.cols - 1, Math.max(0, layout.colAt(x)));
  const line = Math.min(layout.lines - 1, Math.max(0, layout.lineAt(y)));
  const index = layout.indexAt(col, line);
  return index < 0 ? null : { col, line, index };
}

/** Draws the loupe around the hovered cell: its neighbours at 18 px each, the cell itself outlined. */
function drawLoupe(values) {
  const cell = hover && cellAt(hover.x, hover.y);
  if (!cell) {
    ui.loupe.hidden = true;
    return;
  }
  const counting = pg.kind() === 'counting';
  const width = loupeCols * loupeCell, height = loupeLines * loupeCell;
  const context = sizeCanvas(ui.loupeCanvas, width, height);
  context.font = `${Math.floor(loupeCell * 0.62)}px ui-monospace, monospace`;
  context.textAlign = 'center';
  context.textBaseline = 'middle';
  const half = { c: Math.floor(loupeCols / 2), l: Math.floor(loupeLines / 2) };
  for (let dl = -half.l; dl <= half.l; dl++) {
    for (let dc = -half.c; dc <= half.c; dc++) {
      const index = layout.indexAt(cell.col + dc, cell.line + dl);
      const x = (dc + half.c) * loupeCell, y = (dl + half.l) * loupeCell;
      if (index < 0) continue;
      context.fillStyle = cellColour(values[index], counting);
      context.fillRect(x + 1, y + 1, loupeCell - 2, loupeCell - 2);
      if (counting && values[index] > 0) {
        context.fillStyle = counterLightness(values[index]) < 50 ? '#ffffff' : '#10183a';
        context.fillText(values[index].toString(16).toUpperCase(), x + loupeCell / 2, y + loupeCell / 2 + 0.5);
      }
    }
  }
  context.strokeStyle = palette.insert;
  context.lineWidth = 2;
  context.strokeRect(half.c * loupeCell, half.l * loupeCell, loupeCell, loupeCell);
  const value = values[cell.index];
  const where = pg.kind() === 'split-block'
    ? `block ${grouped(Math.floor(cell.index / 256))}, word ${Math.floor((cell.index % 256) / 32)}, bit ${cell.index % 32}`
    : `word ${grouped(Math.floor(cell.index / 64))}, bit ${cell.index % 64}`;
  ui.loupeLabel.textContent = counting
    ? `counter ${grouped(cell.index)} = ${value}`
    : `bit ${grouped(cell.index)} = ${value} (${where})`;
  ui.loupe.dataset.index = String(cell.index);
  ui.loupe.dataset.value = String(value);
  // Beside the pointer, inside the panel.
  const wrap = ui.bitsWrap.clientWidth;
  const left = Math.min(Math.max(0, hover.x + 16), Math.max(0, wrap - width - 8));
  const top = hover.y + 16 + height + 30 > ui.bits.clientHeight ? Math.max(0, hover.y - height - 46) : hover.y + 16;
  ui.loupe.style.left = `${left + ui.bits.offsetLeft}px`;
  ui.loupe.style.top = `${top}px`;
  ui.loupe.hidden = false;
}

// ---- charts --------------------------------------------------------------------
function niceCeiling(x) {
  for (const step of [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1]) if (x <= step) return step;
  return 1;
}

function drawChart() {
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
function kChartPoints() {
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
function drawKChart() {
  const width = ui.kChartWrap.clientWidth;
  const height = width < 420 ? 210 : 240;
  const context = sizeCanvas(ui.kChart, width, height);
  const { points, split } = kChartPoints();
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

// ---- figures -------------------------------------------------------------------
function renderFigures(now) {
  const tick = pg.tick(), total = pg.totalTicks(), n = pg.n(), inserted = pg.inserted(), inserts = pg.inserts();
  const bits = pg.bits(), set = pg.setBits(), queries = pg.queries(), falsePositives = pg.falsePositives();
  ui.tick.textContent = grouped(tick);
  ui.totalTicks.textContent = grouped(total);
  ui.progress.max = total;
  ui.progress.value = tick;
  const querying = tick > inserts;
  ui.phase.textContent = tick >= total ? 'done' : querying ? 'querying absent keys' : inserts > n && tick > n ? 'inserting past capacity' : 'inserting keys';
  ui.phase.classList.toggle('querying', querying);
  // The design n stays the denominator: after Saturate, "2,326 / 200".
  ui.inserted.textContent = `${grouped(inserted)} / ${grouped(n)}`;
  ui.bitsSet.textContent = `${grouped(set)} / ${grouped(bits)} (${(100 * set / bits).toFixed(1)} %)`;
  ui.queries.textContent = grouped(queries);
  ui.falsePositives.textContent = grouped(falsePositives);
  ui.measuredFpr.textContent = queries > 0 ? percent(falsePositives / queries) : '–';
  ui.predictedFpr.textContent = percent(pg.predictedFpr());
  ui.probeFpr.textContent = percent(pg.probeFpr());
  ui.modelKeys.textContent = grouped(inserted);
  ui.modelFpr.textContent = percent(pg.modelFpr());
  const estimate = pg.estimatedKeys();
  ui.estimatedKeys.textContent = Number.isFinite(estimate) ? grouped(estimate) : '∞ (every bit set)';
  ui.saturated.textContent = pg.saturated() ? 'yes' : 'no';
  ui.saturated.title = pg.saturated() ? `${grouped(inserted)} keys in a filter sized for n = ${grouped(n)}` : '';
  ui.removed.textContent = grouped(pg.removed());
  ui.remove.disabled = !pg.canRemove();

  const parts = [];
  const calls = pg.insertCalls();
  if (calls > 0) {
    parts.push(`last key #${grouped(calls - 1)} 0x${pg.lastInsertKey()} \u2192 ${pg.kind() === 'counting' ? 'counters' : 'bits'} ${Array.from(pg.lastInsertBits()).join(', ')}`);
  }
  if (pg.removed() > 0) {
    parts.push(`removed key #${grouped(pg.removed() - 1)} 0x${pg.lastRemovedKey()} \u2192 counters ${Array.from(pg.lastRemovedBits()).join(', ')} down by 1`);
  }
  if (queries > 0) {
    const verdict = pg.lastAnswer() === 1 ? 'maybe: a false positive' : 'no';
    parts.push(`last query 0x${pg.lastQueryKey()} \u2192 ${verdict}`);
  }
  ui.lastLine.textContent = parts.length ? parts.join(' \u00b7 ') : 'Press Play or Step to insert the first key.';
  const link = stateLink();
  if (ui.link.href !== link) {
    ui.link.href = link;
    ui.link.textContent = link;
  }
  followAddress(link, now);
  ui.bits.setAttribute('aria-label', `Bit array: ${grouped(set)} of ${grouped(bits)} ${pg.kind() === 'counting' ? 'counters non-zero' : 'bits set'}`);
}

function render(now = performance.now()) {
  dirty = false;
  palette ??= colours();
  renderFigures(now);
  drawBits();
  drawChart();
  drawKChart();
  // A throttled address bar catches up on the next frame.
  if (stateLink() !== addressShown) dirty = true;
}

function buildCounterScale() {
  ui.counterScale.replaceChildren();
  for (let c = 0; c <= 15; c++) {
    const item = document.createElement('li');
    item.style.background = counterColour(c);
    item.style.color = c > 0 && counterLightness(c) < 50 ? '#ffffff' : '#10183a';
    item.textContent = String(c);
    item.title = c === 15 ? '15: stuck, never decremented' : `counter value ${c}`;
    ui.counterScale.append(item);
  }
}

// ---- events ------------------------------------------------------------------
async function copyLink() {
  const link = stateLink();
  try {
    await navigator.clipboard.writeText(link);
    ui.copyStatus.textContent = 'Copied.';
  } catch {
    // No clipboard permission (an insecure origin, a headless browser): select
    // the link so the user can copy it by hand.
    const range = document.createRange();
    range.selectNodeContents(ui.link);
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    ui.copyStatus.textContent = 'Selected: press Ctrl+C (or \u2318C) to copy.';
  }
  setTimeout(() => { ui.copyStatus.textContent = ''; }, 4000);
}

function bindEvents() {
  ui.form.addEventListener('submit', (event) => event.preventDefault());
  for (const input of [ui.kind, ui.m, ui.k, ui.n, ui.seed]) {
    input.addEventListener('change', () => {
      setPlaying(false);
      applyControls();
    });
  }
  // Sliders: the value beside each follows the drag at once, and the run
  // follows it once per frame (same tick, new settings).
  for (const name of ['m', 'k', 'n']) {
    const slider = ui[`${name}Slider`];
    slider.addEventListener('input', () => {
      const value = sliders[name].toValue(Number(slider.value));
      ui[`${name}Value`].textContent = grouped(value);
      ui[name].value = String(value);
      pendingSlider = controlsSettings();
    });
  }
  ui.speed.addEventListener('change', () => { ticksPerSecond = Number(ui.speed.value); });
  ui.play.addEventListener('click', togglePlay);
  ui.step.addEventListener('click', stepOnce);
  ui.reset.addEventListener('click', reset);
  ui.newSeed.addEventListener('click', newSeed);
  ui.saturate.addEventListener('click', saturate);
  ui.remove.addEventListener('click', removeKey);
  ui.copy.addEventListener('click', copyLink);
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = event.target?.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    // Space and Enter on a focused button already press that button.
    if (tag === 'BUTTON' && (event.key === ' ' || event.key === 'Enter')) return;
    const actions = { ' ': togglePlay, ArrowRight: stepOnce, r: reset, R: reset, n: newSeed, N: newSeed, s: saturate, S: saturate,
      d: removeKey, D: removeKey };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });
  const point = (event) => {
    const box = ui.bits.getBoundingClientRect();
    const x = event.clientX - box.left, y = event.clientY - box.top;
    hover = x >= 0 && y >= 0 && x < box.width && y < box.height ? { x, y } : null;
    dirty = true;
  };
  ui.bits.addEventListener('pointermove', point);
  ui.bits.addEventListener('pointerdown', point);
  ui.bits.addEventListener('pointerleave', (event) => {
    if (event.pointerType === 'mouse') {
      hover = null;
      dirty = true;
    }
  });
  new ResizeObserver(() => { dirty = true; }).observe(ui.bitsWrap);
  new ResizeObserver(() => { dirty = true; }).observe(ui.chartWrap);
  new ResizeObserver(() => { dirty = true; }).observe(ui.kChartWrap);
  window.addEventListener('resize', () => { dirty = true; });
}

async function main() {
  let module;
  try {
    module = await createPlayground();
    pg = new module.Playground();
    kinds = module.kinds.split(',');
    limits = { minBits: module.minBits, maxBits: module.maxBits, maxK: module.maxK, maxN: module.maxN, kChartProbeKeys: module.kChartProbeKeys };
    for (const kind of kinds) {
      if (![...ui.kind.options].some((option) => option.value === kind)) ui.kind.add(new Option(kind, kind));
    }
  } catch (error) {
    showError(`Could not load bloomkit's WebAssembly module (${error?.message ?? error}). Serve this folder over HTTP, for example with ./bloomkit.sh serve.`);
    return;
  }
  palette = colours();
  buildCounterScale();
  const state = readState(location.search);
  if (!kinds.includes(state.kind) || !configure(state, state.tick)) {
    const why = kinds.includes(state.kind) ? ui.error.textContent : `kind must be one of ${kinds.join(', ')}, got "${state.kind}"`;
    configure(defaults);
    showError(`The link's settings were refused (${why}); showing the defaults.`);
  }
  bindEvents();
  startViews(module);  // the cuckoo and window views (web/views.js)
  startFileView(module);  // a .bkf file opened in the page (web/fileview.js)
  // For the browser tests: the bit array as drawn, 32-bit words in hex; the
  // counters; the k chart's numbers; the layout's cell size.
  window.bloomkitWordsHex = () => Array.from(pg.words(), (w) => w.toString(16).padStart(8, '0')).join('');
  window.bloomkitCountersHex = () => Array.from(pg.counters(), (c) => c.toString(16)).join('');
  window.bloomkitKChart = () => kChartPoints();
  window.bloomkitLayout = () => (layout ? { cols: layout.cols, lines: layout.lines, cellW: layout.cellW, cellH: layout.cellH, gaps: layout.gaps } : null);
  requestAnimationFrame(frame);
  document.body.dataset.ready = 'true';
}

main();
