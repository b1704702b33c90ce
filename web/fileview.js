// web/fileview.js - the page's file view: a bloomkit file (.bkf) the user
// drops or picks, shown and probed.
//
// The bytes never leave the page: they go to web/bindings.cpp's FileView,
// which loads them with bloomkit's own loader (web/file_view.hpp) and
// returns JSON. This file reads the file, draws that JSON and sends typed
// keys; it parses no part of the format, converts no key and decides no
// answer. Its state lives inside startFileView, not in app.js.

import { $, grouped, percent } from './text.js';


/** What to type for each key type: the CLI's reading of a key line (query without --format). */
const keyHints = {
  unspecified: 'text (its UTF-8 bytes)',
  bytes: 'text (its UTF-8 bytes)',
  int64: 'a decimal integer',
  int32: 'a decimal integer that fits 32 bits',
  float64: 'a number',
  float32: 'a number exact in 32 bits',
  timestamp_us: 'no typed key: query timestamp keys from Python or C++',
  date32: 'no typed key: query date keys from Python or C++',
};

function insertedWords(s) {
  if (s.inserted_accuracy === 'at_most') return `at most ${grouped(s.inserted)}`;
  if (s.inserted_accuracy === 'estimated') return `about ${grouped(s.inserted)}`;
  return grouped(s.inserted);
}

/** Fill in [0, 1] to a colour: pale for empty, dark blue for full. */
function fillColour(fill) {
  const lightness = 96 - 70 * Math.min(1, Math.max(0, fill));
  return `hsl(226 58% ${lightness}%)`;
}

/**
 * Starts the file view over the WebAssembly module's FileView. Exposes, for
 * the browser tests, window.bloomkitFileSummary() (the library's summary of
 * the open file, or null).
 */
export function startFileView(module) {
  const file = new module.FileView();
  const ui = {
    panel: $('file-panel'), drop: $('file-drop'), input: $('file-input'), error: $('file-error'),
    details: $('file-details'), name: $('file-name'), kind: $('file-kind'), keyType: $('file-key-type'),
    hash: $('file-hash'), params: $('file-params'), inserted: $('file-inserted'), capacity: $('file-capacity'),
    fill: $('file-fill'), fprNow: $('file-fpr-now'), fprDesign: $('file-fpr-design'), saturated: $('file-saturated'),
    fillHeading: $('file-fill-heading'), fillWrap: $('file-fill-wrap'), fillMap: $('file-fill-map'), fillNote: $('file-fill-note'),
    probe: $('file-probe'), key: $('file-key'), answer: $('file-answer'),
  };
  let summary = null;
  let opening = 0;  // the latest read; an older one that finishes later is ignored

  function showError(message) {
    ui.error.textContent = message;
    ui.error.hidden = message === '';
  }

  function drawFill() {
    const canvas = ui.fillMap;
    const rows = summary?.rows ?? [];
    if (rows.length === 0) {
      canvas.width = 0;
      canvas.height = 0;
      canvas.style.height = '0px';
      return;
    }
    const width = Math.max(200, ui.fillWrap.clientWidth);
    const labelled = rows.length > 1;
    const labelWidth = labelled ? 120 : 0;
    const longest = Math.max(...rows.map((r) => r.fills.length));
    const cols = Math.min(longest, labelled ? 64 : 128);
    const cell = Math.max(2, Math.min(labelled ? 14 : 32, Math.floor((width - labelWidth) / cols)));
    const linesOf = (r) => Math.ceil(r.fills.length / cols);
    const gap = labelled ? 4 : 0;
    const height = rows.reduce((h, r) => h + linesOf(r) * cell + gap, 0);
    const ratio = window.devicePixelRatio || 1;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const g = canvas.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'top';
    let y = 0;
    for (const r of rows) {
      if (labelled) {
        g.fillStyle = '#555';
        g.fillText(r.label, 0, y);
      }
      r.fills.forEach((f, i) => {
        g.fillStyle = fillColour(f);
        g.fillRect(labelWidth + (i % cols) * cell, y + Math.floor(i / cols) * cell, cell - (cell > 4 ? 1 : 0), cell - (cell > 4 ? 1 : 0));
      });
      y += linesOf(r) * cell + gap;
    }
  }

  function render(name) {
    const s = summary;
    ui.details.hidden = s === null;
    if (s === null) return;
    ui.name.textContent = `${name}: ${grouped(s.file_bytes)} bytes, format version ${s.format_version}, read in this page.`;
    ui.kind.textContent = s.kind;
    ui.keyType.textContent = s.key_type;
    ui.hash.textContent = `${s.hash}, seed ${s.seed}`;
    ui.params.textContent = Object.entries(s.params).map(([name, value]) => `${name} ${value}`).join(' · ');
    ui.inserted.textContent = insertedWords(s);
    ui.capacity.textContent = `${grouped(s.capacity)} ${s.capacity_unit}`;
    ui.fill.textContent = s.fill_ratio !== null ? percent(s.fill_ratio)
      : s.load_factor !== null ? `${percent(s.load_factor)} of slots` : '– (static: no fill)';
    ui.fprNow.textContent = percent(s.estimated_fpr);
    ui.fprDesign.textContent = percent(s.design_fpr);
    ui.saturated.textContent = s.saturated ? 'yes: more keys than it was sized for' : 'no';
    const rows = s.rows;
    if (rows.length === 0) {
      ui.fillNote.textContent = `A ${s.kind} filter is built once from its keys by solving equations; it sets no bits ` +
        'as keys arrive, so it has no fill to draw. Its FPR is fixed by the width of what it stores per key.';
    } else {
      const r = rows[0];
      const unit = r.cell_units === 1 ? `one ${r.unit}` : `${grouped(r.cell_units)} ${r.unit}s`;
      const what = r.unit === 'bucket' ? 'slots occupied' : r.unit === 'counter' ? 'counters non-zero' : 'bits set';
      const rowsWord = rows.length > 1 ? ` Rows: ${rows[0].label.replace(/ \d+.*$/, '')}s, ${rows[0].label} first.` : '';
      ui.fillNote.textContent = `Each cell is ${unit}; the darker, the more of its ${what} (pale: none, dark blue: all).${rowsWord}`;
    }
    ui.fillHeading.textContent = rows.length ? 'Fill, region by region' : 'Fill';
    ui.key.placeholder = keyHints[s.key_type] ?? '';
    ui.answer.textContent = '\u00a0';
    delete ui.answer.dataset.answer;
    drawFill();
  }

  async function open(blob) {
    const ticket = ++opening;
    let bytes;
    try {
      bytes = new Uint8Array(await blob.arrayBuffer());
    } catch (error) {
      if (ticket !== opening) return;
      summary = null;
      render(blob.name);
      showError(`${blob.name}: could not be read (${error?.message ?? error})`);
      return;
    }
    if (ticket !== opening) return;
    const why = file.open(bytes);
    summary = why === '' ? JSON.parse(file.summary()) : null;
    showError(why === '' ? '' : `${blob.name}: ${why}`);
    render(blob.name);
    document.body.dataset.fileOpened = String(ticket);
  }

  function probe() {
    if (summary === null) return;
    const result = JSON.parse(file.probe(ui.key.value));
    if (result.error !== undefined) {
      ui.answer.textContent = `"${ui.key.value}": ${result.error}`;
      ui.answer.dataset.answer = 'error';
    } else if (result.answer === 'maybe') {
      ui.answer.textContent = `"${ui.key.value}": maybe (it may be in the filter; a false positive is possible)`;
      ui.answer.dataset.answer = 'maybe';
    } else {
      ui.answer.textContent = `"${ui.key.value}": no (definitely not in the filter)`;
      ui.answer.dataset.answer = 'no';
    }
  }

  ui.input.addEventListener('change', () => {
    if (ui.input.files.length > 0) open(ui.input.files[0]);
    ui.input.value = '';  // so picking the same file again (rewritten since) reads it again
  });
  // The whole panel takes drops; the zone shows where.
  ui.panel.addEventListener('dragover', (event) => {
    if (![...(event.dataTransfer?.types ?? [])].includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    ui.drop.classList.add('over');
  });
  ui.panel.addEventListener('dragleave', (event) => {
    if (!ui.panel.contains(event.relatedTarget)) ui.drop.classList.remove('over');
  });
  ui.panel.addEventListener('drop', (event) => {
    event.preventDefault();
    ui.drop.classList.remove('over');
    const dropped = event.dataTransfer?.files;
    if (dropped && dropped.length > 0) open(dropped[0]);
  });
  ui.probe.addEventListener('submit', (event) => {
    event.preventDefault();
    probe();
  });
  let drawnWidth = 0;  // redraw on width changes only: drawing sets the height
  new ResizeObserver(() => {
    if (ui.fillWrap.clientWidth !== drawnWidth) {
      drawnWidth = ui.fillWrap.clientWidth;
      drawFill();
    }
  }).observe(ui.fillWrap);

  window.bloomkitFileSummary = () => summary;
}
