// web/app.js - the playground page: controls, drawing, the state link.
//
// All filter work happens in WebAssembly (web/bindings.cpp over
// web/playground.hpp): this file asks the Playground object to configure,
// step, seek or saturate, then draws the words and figures it returns. Keys
// are generated in C++ from the seed; nothing here hashes, sets or tests bits.
import createPlayground from './dist/playground.mjs';

const $ = (id) => document.getElementById(id);
const defaults = Object.freeze({ kind: 'standard', m: 1024, k: 3, n: 200, seed: '1', tick: 0 });
let kinds = ['standard', 'split-block'];  // replaced by what the module supports

const ui = {
  form: $('settings'), kind: $('kind'), m: $('m'), k: $('k'), n: $('n'), seed: $('seed'), speed: $('speed'),
  play: $('play'), step: $('step'), reset: $('reset'), newSeed: $('new-seed'), saturate: $('saturate'),
  error: $('error'), note: $('settings-note'), tick: $('tick'), totalTicks: $('total-ticks'), progress: $('progress'),
  phase: $('phase'), bits: $('bits'), bitsWrap: $('bits-wrap'), layoutNote: $('layout-note'), lastLine: $('last-line'),
  inserted: $('inserted'), bitsSet: $('bits-set'), queries: $('queries'), falsePositives: $('false-positives'),
  measuredFpr: $('measured-fpr'), predictedFpr: $('predicted-fpr'), probeFpr: $('probe-fpr'), modelFpr: $('model-fpr'),
  modelKeys: $('model-keys'), estimatedKeys: $('estimated-keys'), saturated: $('saturated'),
  bitsSetLabel: $('bits-set-label'), chart: $('chart'), chartWrap: $('chart-wrap'), link: $('state-link'), copy: $('copy-link'), copyStatus: $('copy-status'),
};

let pg = null;             // the WebAssembly Playground
let playing = false;
let ticksPerSecond = 60;
let fastTicksPerSecond = 0; // set by Saturate: finish the run in a few seconds
let pendingTicks = 0;
let lastFrame = null;
let dirty = true;
let chosenK = defaults.k;   // the user's k, kept while split-block forces 8

// ---- numbers as text ---------------------------------------------------------
const grouped = (x) => Math.round(x).toLocaleString('en-US');
/** A rate in [0, 1] as a percentage with three significant digits. */
function percent(rate) {
  if (!Number.isFinite(rate)) return '–';
  if (rate === 0) return '0 %';
  const p = rate * 100;
  if (p >= 0.001) return `${Number(p.toPrecision(3))} %`;
  return `${p.toExponential(1)} %`;
}

// ---- settings, the link ------------------------------------------------------
/** Settings from a query string; unknown or missing fields take defaults. */
function readState(search) {
  const params = new URLSearchParams(search);
  const number = (name) => (params.has(name) ? Number(params.get(name)) : defaults[name]);
  const kind = params.get('kind') ?? defaults.kind;
  return {
    kind,
    m: number('m'),
    k: number('k'),
    n: number('n'),
    seed: params.get('seed') ?? defaults.seed,
    tick: number('tick'),
  };
}

function stateLink() {
  const base = location.href.split(/[?#]/)[0];
  const params = new URLSearchParams({
    kind: pg.kind(), m: String(pg.bits()), k: String(pg.k()), n: String(pg.n()), seed: pg.seed(), tick: String(pg.tick()),
  });
  return `${base}?${params}`;
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

/** Starts a run with these settings at `tick`. Returns false (and says why) if refused. */
function configure(settings, tick = 0) {
  const kind = String(settings.kind);
  const k = kind === 'split-block' ? 8 : settings.k;
  const problem = pg.configure(kind, Number(settings.m), Number(k), Number(settings.n), String(settings.seed).trim());
  if (problem) {
    showError(problem, fieldFor(problem));
    return false;
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
  ui.k.value = String(pg.k());
  ui.k.disabled = split;
  ui.note.textContent = split
    ? `Split-block (Parquet): ${grouped(pg.bits() / 256)} blocks of 256 bits, drawn one block per row; ` +
      'each key sets one bit in each of its block\u2019s eight 32-bit words, so k is 8 and m is a multiple of 256.'
    : pg.kind() === 'counting'
      ? 'Counting (Fan et al. 2000): every bit becomes a 4-bit counter (0–15, shown in each cell when it fits); ' +
        'an insert adds 1 to its k counters, which is what lets a counting filter delete keys. A query passes when ' +
        'none of its counters is 0.'
      : '';
  ui.bitsSetLabel.textContent = pg.kind() === 'counting' ? 'Counters ≠ 0' : 'Bits set';
}

function controlsSettings() {
  return { kind: ui.kind.value, m: ui.m.value, k: ui.k.disabled ? chosenK : ui.k.value, n: ui.n.value, seed: ui.seed.value };
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
  pg.seek(0);
  dirty = true;
}

function newSeed() {
  setPlaying(false);
  const word = new Uint32Array(1);
  crypto.getRandomValues(word);
  configure({ ...controlsSettings(), seed: String(word[0]) });
}

function saturate() {
  pg.saturate();
  syncControls();
  setPlaying(true);
  // Finish the inserts and the queries in about four seconds.
  fastTicksPerSecond = Math.max(ticksPerSecond, (pg.totalTicks() - pg.tick()) / 4);
  dirty = true;
}

function frame(now) {
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
  if (dirty) render();
  requestAnimationFrame(frame);
}

// ---- drawing -----------------------------------------------------------------
const colours = () => {
  const style = getComputedStyle(document.documentElement);
  const get = (name) => style.getPropertyValue(name).trim();
  return { unset: get('--unset'), set: get('--set'), insert: get('--insert'), query: get('--query'), model: get('--model'),
    fg: get('--fg'), muted: get('--muted'), border: get('--border') };
};
let palette = null;

/** Cell geometry for the bit array: where bit i is drawn. */
function bitLayout(width, bits, kind) {
  if (kind === 'split-block') {
    // One 256-bit block per row; on a narrow screen a block wraps onto 2, 4
    // or 8 lines of whole 32-bit words, so every bit keeps >= 3 px.
    let perLine = 256;
    while (perLine > 32 && width / perLine < 3.5) perLine /= 2;
    const blocks = bits / 256;
    const wordGap = 2;
    const cellW = Math.min(14, (width - wordGap * (perLine / 32 - 1)) / perLine);
    const cellH = Math.max(4, Math.min(cellW * 1.6, 14));
    const blockGap = blocks > 64 ? 2 : 5;
    const lines = 256 / perLine;
    const blockH = lines * cellH + blockGap;
    return {
      width: perLine * cellW + wordGap * (perLine / 32 - 1),
      height: blocks * blockH - blockGap,
      cellW, cellH,
      at(i) {
        const block = Math.floor(i / 256), r = i % 256, col = r % perLine;
        return [col * cellW + Math.floor(col / 32) * wordGap, block * blockH + Math.floor(r / perLine) * cellH];
      },
      note: `${grouped(blocks)} blocks \u00d7 256 bits${perLine < 256 ? ` (each block on ${lines} lines)` : ''}`,
    };
  }
  // Standard: a grid about twice as wide as tall (square on a phone), a power
  // of two wide so rows are whole 64-bit words, narrowed until every cell
  // keeps >= 3 px.
  let cols = 2 ** Math.ceil(Math.log2(Math.sqrt((width < 560 ? 1 : 2) * bits)));
  while (cols > 8 && width / cols < 3) cols /= 2;
  const cell = Math.min(22, width / cols);
  const rows = Math.ceil(bits / cols);
  return {
    width: cols * cell, height: rows * cell, cellW: cell, cellH: cell,
    at: (i) => [(i % cols) * cell, Math.floor(i / cols) * cell],
    note: `${grouped(rows)} rows \u00d7 ${cols} bits`,
  };
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

function drawBits() {
  const bits = pg.bits();
  const layout = bitLayout(ui.bitsWrap.clientWidth, bits, pg.kind());
  ui.layoutNote.textContent = `\u00b7 ${layout.note}`;
  const context = sizeCanvas(ui.bits, Math.floor(layout.width), Math.ceil(layout.height));
  // A one-pixel gap between cells wide enough to spare it, so neighbouring
  // set bits stay countable instead of merging into bars.
  const w = layout.cellW - (layout.cellW >= 3 ? 1 : 0), h = layout.cellH - (layout.cellH >= 4 ? 1 : 0);
  const words = pg.words();  // bit i = bit i % 32 of word i / 32
  const on = new Path2D(), off = new Path2D();
  for (let i = 0; i < bits; i++) {
    const [x, y] = layout.at(i);
    ((words[i >>> 5] >>> (i & 31)) & 1 ? on : off).rect(x, y, w, h);
  }
  context.fillStyle = palette.unset;
  context.fill(off);
  context.fillStyle = palette.set;
  context.fill(on);
  const isSet = (i) => ((words[i >>> 5] >>> (i & 31)) & 1) === 1;
  const label = pg.kind() === 'counting' ? drawCounters(context, layout, w, h) : () => {};
  // Highlights grow a little past small cells so they stay visible.
  const small = Math.min(layout.cellW, layout.cellH) < 6;
  const grow = small ? 1.5 : 0;
  const mark = (i, fill, stroke) => {
    const [x, y] = layout.at(i);
    if (small) {
      // A ring around the cell, so one highlighted bit among thousands is found.
      context.strokeStyle = stroke ?? fill;
      context.lineWidth = 1.5;
      context.beginPath();
      context.arc(x + w / 2, y + h / 2, 7, 0, 2 * Math.PI);
      context.stroke();
    }
    context.fillStyle = fill;
    context.fillRect(x - grow, y - grow, w + 2 * grow, h + 2 * grow);
    if (stroke) {
      context.strokeStyle = stroke;
      context.lineWidth = 2;
      context.strokeRect(x - grow + 1, y - grow + 1, w + 2 * grow - 2, h + 2 * grow - 2);
    }
    label(i, stroke ? palette.query : '#ffffff');
  };
  if (pg.inserted() > 0) for (const i of pg.lastInsertBits()) mark(i, palette.insert);
  if (pg.queries() > 0) {
    for (const i of pg.lastQueryBits()) {
      if (isSet(i)) mark(i, palette.query);
      else mark(i, '#ffffff', palette.query);
    }
  }
}

/**
 * Shades each non-zero counter by its value (darker = higher) and writes the
 * value (hex, 1..F) when the cell is big enough. Returns label(i, colour),
 * which rewrites counter i's value over a highlight.
 */
function drawCounters(context, layout, w, h) {
  const counters = pg.counters();
  const lightness = (c) => Math.max(18, 70 - 9 * (c - 1));
  const digits = Math.min(w, h) >= 11;
  context.font = `${Math.floor(Math.min(w, h) * 0.75)}px ui-monospace, monospace`;
  context.textAlign = 'center';
  context.textBaseline = 'middle';
  const label = (i, colour) => {
    if (!digits || counters[i] === 0) return;
    const [x, y] = layout.at(i);
    context.fillStyle = colour;
    context.fillText(counters[i].toString(16).toUpperCase(), x + w / 2, y + h / 2 + 0.5);
  };
  for (let i = 0; i < counters.length; i++) {
    const c = counters[i];
    if (c === 0) continue;
    const [x, y] = layout.at(i);
    context.fillStyle = `hsl(226 58% ${lightness(c)}%)`;
    context.fillRect(x, y, w, h);
    label(i, lightness(c) < 50 ? '#ffffff' : '#10183a');
  }
  return label;
}

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
  const xMax = Math.max(1, pg.n());
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
    const x = X(pg.inserted()), y = Y(queryRate);
    context.fillStyle = palette.query;
    context.beginPath();
    context.arc(Math.min(x, left + plotW - 5), y, 5, 0, 2 * Math.PI);
    context.fill();
  }
}

function renderFigures() {
  const tick = pg.tick(), total = pg.totalTicks(), n = pg.n(), inserted = pg.inserted();
  const bits = pg.bits(), set = pg.setBits(), queries = pg.queries(), falsePositives = pg.falsePositives();
  ui.tick.textContent = grouped(tick);
  ui.totalTicks.textContent = grouped(total);
  ui.progress.max = total;
  ui.progress.value = tick;
  const querying = tick > n;
  ui.phase.textContent = tick >= total ? 'done' : querying ? 'querying absent keys' : 'inserting keys';
  ui.phase.classList.toggle('querying', querying);
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

  const parts = [];
  if (inserted > 0) {
    parts.push(`last key #${grouped(inserted - 1)} 0x${pg.lastInsertKey()} \u2192 bits ${Array.from(pg.lastInsertBits()).join(', ')}`);
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
  ui.bits.setAttribute('aria-label', `Bit array: ${grouped(set)} of ${grouped(bits)} bits set`);
}

function render() {
  dirty = false;
  palette ??= colours();
  renderFigures();
  drawBits();
  drawChart();
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
      configure(controlsSettings());
    });
  }
  ui.speed.addEventListener('change', () => { ticksPerSecond = Number(ui.speed.value); });
  ui.play.addEventListener('click', togglePlay);
  ui.step.addEventListener('click', stepOnce);
  ui.reset.addEventListener('click', reset);
  ui.newSeed.addEventListener('click', newSeed);
  ui.saturate.addEventListener('click', saturate);
  ui.copy.addEventListener('click', copyLink);
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = event.target?.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    // Space and Enter on a focused button already press that button.
    if (tag === 'BUTTON' && (event.key === ' ' || event.key === 'Enter')) return;
    const actions = { ' ': togglePlay, ArrowRight: stepOnce, r: reset, R: reset, n: newSeed, N: newSeed, s: saturate, S: saturate };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });
  new ResizeObserver(() => { dirty = true; }).observe(ui.bitsWrap);
  new ResizeObserver(() => { dirty = true; }).observe(ui.chartWrap);
}

async function main() {
  try {
    const module = await createPlayground();
    pg = new module.Playground();
    kinds = module.kinds.split(',');
    for (const kind of kinds) {
      if (![...ui.kind.options].some((option) => option.value === kind)) ui.kind.add(new Option(kind, kind));
    }
  } catch (error) {
    showError(`Could not load bloomkit's WebAssembly module (${error?.message ?? error}). Serve this folder over HTTP, for example with ./bloomkit.sh serve.`);
    return;
  }
  const state = readState(location.search);
  if (!kinds.includes(state.kind) || !configure(state, state.tick)) {
    const why = kinds.includes(state.kind) ? ui.error.textContent : `kind must be one of ${kinds.join(', ')}, got "${state.kind}"`;
    configure(defaults);
    showError(`The link's settings were refused (${why}); showing the defaults.`);
  }
  bindEvents();
  // For the browser tests: the bit array as drawn, 32-bit words in hex.
  window.bloomkitWordsHex = () => Array.from(pg.words(), (w) => w.toString(16).padStart(8, '0')).join('');
  window.bloomkitCountersHex = () => Array.from(pg.counters(), (c) => c.toString(16)).join('');
  requestAnimationFrame(frame);
  document.body.dataset.ready = 'true';
}

main();
