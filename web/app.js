// web/app.js - the playground page's main view: its controls, playback and
// figures, and the start of the page.
//
// All filter work happens in WebAssembly (web/bindings.cpp over
// web/playground.hpp; the page's other views are web/views.js and
// web/fileview.js): this file asks the Playground object to configure,
// step, seek, saturate or remove, and the pictures (web/bitarray.js,
// web/charts.js) draw the words and figures it returns; web/link.js keeps
// the state in the link. Keys are generated in C++ from the seed; nothing
// here hashes, sets or tests bits.
import createPlayground from './dist/playground.mjs';
import { buildCounterScale, createBitArray } from './bitarray.js';
import { readPalette } from './canvas.js';
import { drawChart, drawKChart, kChartPoints } from './charts.js';
import { startFileView } from './fileview.js';
import { createAddressFollower, defaults, readState, stateLink } from './link.js';
import { startViews } from './views.js';
import { $, grouped, percent } from './text.js';

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
let palette = null;        // the page's colours (canvas.js)
let dirty = true;          // something changed since the last render
let chosenK = defaults.k;   // the user's k, kept while split-block forces 8
let pendingSlider = null;   // settings from a slider drag, applied once per frame

/** Playback: whether the run plays, at what rate, and the fraction of a tick owed. */
const playback = {
  playing: false,
  ticksPerSecond: 60,
  fastTicksPerSecond: 0,  // set by Saturate: finish the run in a few seconds
  pendingTicks: 0,
  lastFrame: null,
};
const bitArray = createBitArray(ui);
const address = createAddressFollower();

// ---- sliders: m and n on a log scale, k linear ------------------------------------
const sliders = {
  m: { toValue: (v) => Math.round(2 ** v), toPosition: (m) => Math.log2(Math.max(1, m)) },
  k: { toValue: (v) => Math.round(v), toPosition: (k) => k },
  n: { toValue: (v) => Math.min(limits.maxN, Math.max(1, Math.round(2 ** v))), toPosition: (n) => Math.log2(Math.max(1, n)) },
};

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
  playback.playing = on;
  if (!on) playback.fastTicksPerSecond = 0;
  playback.pendingTicks = 0;
  playback.lastFrame = null;
  ui.play.textContent = on ? 'Pause' : 'Play';
  ui.play.setAttribute('aria-pressed', on ? 'true' : 'false');
  dirty = true;
}

function togglePlay() {
  if (playback.playing) return setPlaying(false);
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
  playback.fastTicksPerSecond = Math.max(playback.ticksPerSecond, (pg.totalTicks() - pg.tick()) / 4);
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
  if (playback.playing) {
    if (playback.lastFrame !== null) {
      const rate = playback.fastTicksPerSecond || playback.ticksPerSecond;
      playback.pendingTicks += (Math.min(now - playback.lastFrame, 250) / 1000) * rate;
      const whole = Math.floor(playback.pendingTicks);
      if (whole > 0) {
        pg.step(whole);
        playback.pendingTicks -= whole;
        dirty = true;
      }
    }
    playback.lastFrame = now;
    if (pg.tick() >= pg.totalTicks()) setPlaying(false);
  }
  if (dirty) render(now);
  requestAnimationFrame(frame);
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
  const link = stateLink(pg);
  if (ui.link.href !== link) {
    ui.link.href = link;
    ui.link.textContent = link;
  }
  address.follow(link, now, playback.playing);
  ui.bits.setAttribute('aria-label', `Bit array: ${grouped(set)} of ${grouped(bits)} ${pg.kind() === 'counting' ? 'counters non-zero' : 'bits set'}`);
}

function render(now = performance.now()) {
  dirty = false;
  palette ??= readPalette();
  renderFigures(now);
  bitArray.draw(pg, palette);
  drawChart(pg, ui, palette);
  drawKChart(pg, ui, palette, limits);
  // A throttled address bar catches up on the next frame.
  if (!address.shows(stateLink(pg))) dirty = true;
}

// ---- events ------------------------------------------------------------------
async function copyLink() {
  const link = stateLink(pg);
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
  ui.speed.addEventListener('change', () => { playback.ticksPerSecond = Number(ui.speed.value); });
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
    bitArray.hover = x >= 0 && y >= 0 && x < box.width && y < box.height ? { x, y } : null;
    dirty = true;
  };
  ui.bits.addEventListener('pointermove', point);
  ui.bits.addEventListener('pointerdown', point);
  ui.bits.addEventListener('pointerleave', (event) => {
    if (event.pointerType === 'mouse') {
      bitArray.hover = null;
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
  palette = readPalette();
  buildCounterScale(ui.counterScale, palette);
  const state = readState(location.search);
  if (!kinds.includes(state.kind) || !configure(state, state.tick)) {
    const why = kinds.includes(state.kind) ? ui.error.textContent : `kind must be one of ${kinds.join(', ')}, got "${state.kind}"`;
    configure(defaults);
    showError(`The link's settings were refused (${why}); showing the defaults.`);
  }
  bindEvents();
  startViews(module);  // the views of other kinds (web/views.js)
  startFileView(module);  // a .bkf file opened in the page (web/fileview.js)
  // For the browser tests: the bit array as drawn, 32-bit words in hex; the
  // counters; the k chart's numbers; the layout's cell size.
  window.bloomkitWordsHex = () => Array.from(pg.words(), (w) => w.toString(16).padStart(8, '0')).join('');
  window.bloomkitCountersHex = () => Array.from(pg.counters(), (c) => c.toString(16)).join('');
  window.bloomkitKChart = () => kChartPoints(pg, limits);
  window.bloomkitLayout = () => {
    const layout = bitArray.layout;
    return layout ? { cols: layout.cols, lines: layout.lines, cellW: layout.cellW, cellH: layout.cellH, gaps: layout.gaps } : null;
  };
  requestAnimationFrame(frame);
  document.body.dataset.ready = 'true';
}

main();
