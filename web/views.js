// web/views.js - the page's cuckoo and window views.
//
// All filter work happens in WebAssembly: web/bindings.cpp's CuckooView and
// WindowView wrap web/views.hpp, which drives bloomkit's own cuckoo_filter
// and age_partitioned_bloom. This file sends the buttons' actions and draws
// the JSON state the views return; it hashes nothing and decides no answer.

import { $, grouped, percent } from './text.js';

const hexFp = (fp, bits) => fp.toString(16).padStart(Math.ceil(bits / 4), '0');
/** A whole number typed in a field, or NaN (the library's checks then speak). */
const whole = (input) => (input.value.trim() === '' ? NaN : Number(input.value));

function showError(element, message) {
  element.textContent = message;
  element.hidden = message === '';
}

// ---- the cuckoo view -------------------------------------------------------------
function startCuckoo(module) {
  const view = new module.CuckooView();
  const ui = {
    form: $('cuckoo-settings'), capacity: $('cuckoo-capacity'), fpr: $('cuckoo-fpr'), seed: $('cuckoo-seed'),
    plan: $('cuckoo-plan'), error: $('cuckoo-error'), key: $('cuckoo-key'), last: $('cuckoo-last'), chain: $('cuckoo-chain'),
    table: $('cuckoo-table'), stored: $('cuckoo-stored'), load: $('cuckoo-load'), fprNow: $('cuckoo-fpr-now'),
    bound: $('cuckoo-bound'), victim: $('cuckoo-victim'), full: $('cuckoo-full'),
  };
  let state = JSON.parse(view.state());

  function render(message = null) {
    state = JSON.parse(view.state());
    const s = state, f = s.fingerprint_bits;
    ui.plan.textContent = `The library planned m = ${grouped(s.buckets)} buckets × 4 slots of f = ${f}-bit fingerprints for ` +
      `${grouped(s.capacity)} keys at ${percent(s.target_fpr)}: ${(s.buckets * 4 * f / s.capacity).toFixed(2)} bits per key ` +
      `at capacity, FPR ${percent(s.design_fpr)} at that load.`;
    ui.stored.textContent = `${grouped(s.stored)} / ${grouped(s.slots)} slots`;
    ui.load.textContent = percent(s.load_factor);
    ui.fprNow.textContent = percent(s.estimated_fpr);
    ui.bound.textContent = percent(s.full_load_fpr);
    ui.victim.textContent = s.victim[1] === 0 ? 'empty' : `fingerprint ${hexFp(s.victim[1], f)} of bucket ${s.victim[0]}`;
    ui.full.textContent = s.full ? 'yes: inserts are refused until a key is deleted' : 'no';

    // The buckets: candidates outlined, written slots numbered in chain order.
    const last = s.last;
    const written = new Map();  // "bucket:slot" -> chain step (1-based)
    last.moves.forEach(([bucket, slot], i) => written.set(`${bucket}:${slot}`, i + 1));
    let matched = null;
    if (last.op === 'lookup' && last.result === 'maybe') {
      for (const b of [last.first, last.second]) {
        for (let j = 0; j < 4 && matched === null; j++) if (s.table[4 * b + j] === last.fingerprint) matched = `${b}:${j}`;
      }
    }
    const cells = [];
    for (let b = 0; b < s.buckets; b++) {
      const cand = last.op !== '' && (b === last.first || b === last.second);
      const slots = [];
      for (let j = 0; j < 4; j++) {
        const fp = s.table[4 * b + j];
        const step = written.get(`${b}:${j}`);
        const cls = ['slot', fp ? 'used' : '', step ? 'moved' : '', matched === `${b}:${j}` ? 'matched' : ''].filter(Boolean).join(' ');
        slots.push(`<span class="${cls}" data-slot="${j}"${step ? ` title="chain step ${step}"` : ''}>${fp ? hexFp(fp, f) : '·'}</span>`);
      }
      cells.push(`<div class="bucket${cand ? ' cand' : ''}" data-bucket="${b}"><span class="bucket-label">#${b}</span>` +
        `<span class="slots">${slots.join('')}</span></div>`);
    }
    ui.table.innerHTML = cells.join('');

    // The kick-out chain (first 24 steps and the last 3 of a long walk).
    const items = last.moves.map(([bucket, slot, fp, evicted], i) => {
      const where = slot === 4 ? `the victim slot (of bucket ${bucket})` : `bucket ${bucket} slot ${slot}`;
      const what = evicted ? `, kicking out ${hexFp(evicted, f)}` : slot === 4 ? '' : ' (it was empty)';
      return `<li data-step="${i + 1}">${hexFp(fp, f)} → ${where}${what}</li>`;
    });
    ui.chain.innerHTML = items.length > 28 ? [...items.slice(0, 24), `<li class="gap">… ${grouped(items.length - 27)} more kicks …</li>`, ...items.slice(-3)].join('') : items.join('');
    if (message !== null) ui.last.textContent = message;
  }

  function describe(result) {
    const s = state, last = s.last, f = s.fingerprint_bits;
    const key = `key #${last.index}${last.absent ? ' (absent)' : ''} 0x${last.key}`;
    const fp = hexFp(last.fingerprint, f);
    if (last.op === 'insert') {
      if (result === 'full') {
        return `insert ${key}: the library answers "full": the victim slot is taken, so nothing changed. Delete a key to make room.`;
      }
      const kicks = last.moves.filter(([, slot, , evicted]) => evicted !== 0 || slot === 4).length;
      const tail = last.moves.length && last.moves[last.moves.length - 1][1] === 4
        ? ` The walk found no free slot after ${kicks - 1} kicks: the last fingerprint waits in the victim slot, and the filter is full.`
        : kicks ? ` Both buckets were full: ${kicks} kick${kicks > 1 ? 's' : ''}.` : '';
      return `insert ${key}: fingerprint ${fp}, buckets ${last.first} and ${last.second}: ${result}.${tail}`;
    }
    if (last.op === 'lookup') {
      return `look up ${key}: fingerprint ${fp} in buckets ${last.first} or ${last.second} (or the victim slot)? ${result}` +
        (result === 'maybe' && last.absent ? ' (a false positive: this key was never inserted)' : '');
    }
    return `delete ${key}: fingerprint ${fp} from bucket ${last.first} or ${last.second}: ${result}.`;
  }

  function act(run) {
    const result = run();
    if (result !== 'inserted' && result !== 'full' && result !== 'maybe' && result !== 'no' && result !== 'removed') {
      showError(ui.error, result);  // the view refused: nothing changed
      return result;
    }
    state = JSON.parse(view.state());
    const text = describe(result);
    // A refused insert is the library's answer, shown as an alert too.
    showError(ui.error, result === 'full' ? text : '');
    render(text);
    return result;
  }

  function configure() {
    const message = view.configure(whole(ui.capacity), Number(ui.fpr.value.trim() === '' ? NaN : ui.fpr.value), ui.seed.value.trim());
    showError(ui.error, message);
    if (message === '') render('A new, empty filter.');
    return message;
  }

  ui.form.addEventListener('submit', (event) => { event.preventDefault(); configure(); });
  $('cuckoo-insert').addEventListener('click', () => act(() => view.insertNext()));
  $('cuckoo-insert10').addEventListener('click', () => act(() => {
    let result = 'inserted';
    for (let i = 0; i < 10 && result === 'inserted'; i++) result = view.insertNext();
    return result;
  }));
  $('cuckoo-fill').addEventListener('click', () => act(() => {
    let result = 'inserted';
    for (let i = 0; i < 4 * state.buckets + 2 && result === 'inserted'; i++) {
      result = view.insertNext();
      if (JSON.parse(view.state()).full) break;
    }
    return result;
  }));
  $('cuckoo-lookup').addEventListener('click', () => act(() => view.lookup(whole(ui.key), false)));
  $('cuckoo-lookup-absent').addEventListener('click', () => act(() => view.lookup(whole(ui.key), true)));
  $('cuckoo-delete').addEventListener('click', () => act(() => view.remove(whole(ui.key))));
  render();
  return view;
}

// ---- the window view -------------------------------------------------------------
function startWindow(module) {
  const view = new module.WindowView();
  const ui = {
    form: $('window-settings'), mode: $('window-mode'), n: $('window-n'), nLabel: $('window-n-label'),
    maxKeys: $('window-max-keys'), maxKeysField: $('window-max-keys-field'), fpr: $('window-fpr'), seed: $('window-seed'),
    plan: $('window-plan'), error: $('window-error'), key: $('window-key'), dt: $('window-dt'), dtField: $('window-dt-field'),
    advance: $('window-advance'), last: $('window-last'), inserted: $('window-inserted'), generation: $('window-generation'),
    nowFigure: $('window-now-figure'), now: $('window-now'), fprNow: $('window-fpr-now'),
    slices: $('window-slices'), slicesWrap: $('window-slices-wrap'), members: $('window-members'), forget: $('window-forget'),
  };
  let state = JSON.parse(view.state());
  let timeMode = false;
  const colour = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

  function settings() {
    const time = ui.mode.value === 'time';
    return [whole(ui.n), time ? whole(ui.maxKeys) : 0, Number(ui.fpr.value.trim() === '' ? NaN : ui.fpr.value)];
  }

  function planText(p, time) {
    const life = time
      ? `a key is always reported for ${grouped(p.guaranteed_time)} time units (if no generation overfills), ` +
        `and forgotten by ${grouped(p.forgotten_time)}; a generation ends after τ = ${grouped(p.tau)} time units or g = ${grouped(p.g)} keys`
      : `the last ${grouped(p.guaranteed_window)} keys are always reported; a key is no longer certain after ` +
        `${grouped(p.expired_after)} more keys and forgotten after ${grouped(p.forgotten_after)}`;
    return `The library plans k = ${p.k}, l = ${p.l}, m = ${grouped(p.m)} bits per slice, g = ${grouped(p.g)} keys per generation: ` +
      `(k + l) m = ${grouped(p.total_bits)} bits. FPR bound ${percent(p.design_fpr)} ` +
      '(at every moment of a generation, with probability at least 1 − 10⁻⁹ over the hash; ' +
      `the mean at the worst moment is ${percent(p.expected_design_fpr)}); ${life}.` +
      (p.drawable ? '' : ' Too many bits to draw: choose a smaller window or a larger FPR.');
  }

  /** Shows the plan for what the fields say now (nothing starts until New filter). */
  function showPlan() {
    const plan = JSON.parse(view.plan(...settings()));
    if (plan.error) {
      showError(ui.error, plan.error);
      ui.plan.textContent = '';
    } else {
      showError(ui.error, '');
      ui.plan.textContent = planText(plan, ui.mode.value === 'time');
    }
    return plan;
  }

  function drawSlices() {
    const s = state, p = s.plan, n = p.k + p.l, m = p.m;
    const width = Math.max(200, Math.floor(ui.slicesWrap.clientWidth || 600));
    const labelW = 34;
    const cols = Math.min(m, Math.max(8, Math.floor((width - labelW) / 4)));
    const lines = Math.ceil(m / cols);
    const cell = Math.min(12, (width - labelW) / cols);
    const rowH = lines * cell + 4;
    const height = Math.ceil(n * rowH + 4);
    const ratio = window.devicePixelRatio || 1;
    ui.slices.width = Math.round(width * ratio);
    ui.slices.height = Math.round(height * ratio);
    ui.slices.style.height = `${height}px`;
    const g = ui.slices.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    const pal = { unset: colour('--unset'), set: colour('--set'), insert: colour('--insert'), query: colour('--query'), muted: colour('--muted') };
    const last = s.last, positions = last.positions ?? null;
    for (let j = 0; j < n; j++) {
      const y0 = j * rowH + 2;
      const words = s.slices[j].words;
      g.fillStyle = pal.muted;
      g.font = '10px ui-monospace, monospace';
      g.fillText(`${j}${j < p.k ? '*' : ''}`, 2, y0 + Math.min(rowH - 4, 10));
      for (let b = 0; b < m; b++) {
        // Word w of the slice is hex digits [16 w, 16 w + 16), most significant first.
        const w = Math.floor(b / 64), bit = b % 64;
        const digit = parseInt(words[16 * w + 15 - Math.floor(bit / 4)], 16);
        const on = (digit >> (bit % 4)) & 1;
        g.fillStyle = on ? pal.set : pal.unset;
        const x = labelW + (b % cols) * cell, y = y0 + Math.floor(b / cols) * cell;
        g.fillRect(x, y, Math.max(1, cell - (cell > 3 ? 1 : 0)), Math.max(1, cell - (cell > 3 ? 1 : 0)));
      }
      if (positions) {
        const b = positions[j];
        const x = labelW + (b % cols) * cell, y = y0 + Math.floor(b / cols) * cell;
        const size = Math.max(3, cell - 1);
        if (last.op === 'insert' && j < p.k) {
          g.fillStyle = pal.insert;
          g.fillRect(x, y, size, size);
        } else if (last.op === 'lookup') {
          g.strokeStyle = pal.query;
          g.fillStyle = pal.query;
          if (last.hits[j] === '1') g.fillRect(x, y, size, size);
          else { g.lineWidth = 2; g.strokeRect(x + 1, y + 1, size - 2, size - 2); }
        }
      }
    }
    if (last.op === 'lookup' && last.run >= 0) {
      g.fillStyle = 'rgba(240, 140, 0, 0.22)';
      g.fillRect(0, last.run * rowH, width, p.k * rowH + 2);
    }
  }

  function drawMembers() {
    const s = state, p = s.plan;
    const width = Math.max(200, Math.floor(ui.members.parentElement.clientWidth || 600));
    const shown = Math.min(s.members.length, Math.max(p.forgotten_after + 2 * p.g, p.guaranteed_window + 1));
    const cell = Math.max(1, Math.min(10, width / Math.max(1, shown)));
    const height = 22;
    const ratio = window.devicePixelRatio || 1;
    ui.members.width = Math.round(width * ratio);
    ui.members.height = Math.round(height * ratio);
    ui.members.style.height = `${height}px`;
    const g = ui.members.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    // Newest on the left: age a = keys inserted after it.
    for (let a = 0; a < shown; a++) {
      const answer = s.members[s.members.length - 1 - a];
      g.fillStyle = answer === '1' ? colour('--set') : colour('--unset');
      g.fillRect(a * cell, 4, Math.max(1, cell - (cell > 3 ? 1 : 0)), 12);
    }
    if (!timeMode) {
      g.fillStyle = colour('--query');
      for (const age of [p.guaranteed_window, p.forgotten_after]) g.fillRect(age * cell - 1, 0, 2, height);
    }
  }

  function render(message = null) {
    state = JSON.parse(view.state());
    const s = state, p = s.plan;
    ui.plan.textContent = planText(p, timeMode);
    ui.inserted.textContent = grouped(s.inserted);
    ui.generation.textContent = `${grouped(s.generation_count)} / ${grouped(p.g)} keys`;
    ui.nowFigure.hidden = !timeMode;
    $('window-newest-label').textContent = `${p.k - 1}*`;
    ui.now.textContent = grouped(s.now);
    ui.fprNow.textContent = `${percent(s.estimated_fpr)} (bound ${percent(p.design_fpr)})`;
    // Forgetting, counted over the keys listed (age = keys inserted after it).
    const total = s.members.length;
    let inWindow = 0, inWindowMaybe = 0, old = 0, oldMaybe = 0;
    for (let i = 0; i < total; i++) {
      const age = total - 1 - i;
      if (age < p.guaranteed_window) { inWindow++; inWindowMaybe += s.members[i] === '1'; }
      if (age >= p.forgotten_after) { old++; oldMaybe += s.members[i] === '1'; }
    }
    ui.forget.textContent = timeMode
      ? `${grouped(s.members.split('').filter((c) => c === '1').length)} of the ${grouped(total)} keys listed answer "maybe" at clock ${grouped(s.now)}.`
      : `The last ${grouped(inWindow)} keys: ${grouped(inWindowMaybe)} answer "maybe" (all must). ` +
        `Keys ${grouped(p.forgotten_after)} or more inserts old: ${grouped(oldMaybe)} of ${grouped(old)} answer "maybe" ` +
        `(forgotten: only by chance, at the FPR). Red marks: ${grouped(p.guaranteed_window)} and ${grouped(p.forgotten_after)} keys back.`;
    if (message !== null) ui.last.textContent = message;
    drawSlices();
    drawMembers();
  }

  function describe() {
    const s = state, last = s.last, p = s.plan;
    if (last.op === 'advance') return `the clock moved on ${grouped(last.index)} to ${grouped(s.now)}.`;
    const key = `key #${last.index}${last.absent ? ' (absent)' : ''} 0x${last.key}`;
    if (last.op === 'insert') return `inserted ${key}: its bits went into slices 0 to ${p.k - 1} (the k newest), at bits ${last.positions.slice(0, p.k).join(', ')}.`;
    const hits = last.hits.split('').map((c, j) => (c === '1' ? j : null)).filter((j) => j !== null);
    const answered = last.run >= 0 ? `slices ${last.run} to ${last.run + p.k - 1} all hold its bit` : `no ${p.k} consecutive slices hold its bit`;
    return `look up ${key}: ${last.result}: ${answered} (its bit is set in slices ${hits.length ? hits.join(', ') : 'none'}).` +
      (last.result === 'maybe' && last.absent ? ' A false positive: this key was never inserted.' : '');
  }

  function act(run) {
    const result = run();
    const ok = result === '' || result === 'maybe' || result === 'no';
    showError(ui.error, ok ? '' : result);
    if (ok) {
      state = JSON.parse(view.state());
      render(describe());
    }
    return result;
  }

  function configure() {
    const message = view.configure(...settings(), ui.seed.value.trim());
    if (message !== '') {
      showError(ui.error, message);
      return message;
    }
    showError(ui.error, '');
    timeMode = ui.mode.value === 'time';
    ui.dtField.hidden = !timeMode;
    ui.advance.hidden = !timeMode;
    render('A new, empty filter.');
    return '';
  }

  ui.form.addEventListener('submit', (event) => { event.preventDefault(); configure(); });
  for (const input of [ui.n, ui.maxKeys, ui.fpr]) input.addEventListener('input', showPlan);
  ui.mode.addEventListener('change', () => {
    const time = ui.mode.value === 'time';
    ui.maxKeysField.hidden = !time;
    ui.nLabel.textContent = time ? 'T (time units)' : 'N (keys)';
    showPlan();
  });
  $('window-insert').addEventListener('click', () => act(() => view.insert(1)));
  // The view takes at most 1,000 keys a call; a window may be more.
  const insertMany = (count) => {
    for (let done = 0; done < count; done += 1000) view.insert(Math.min(1000, count - done));
    return '';
  };
  $('window-insert-gen').addEventListener('click', () => act(() => insertMany(state.plan.g)));
  $('window-insert-window').addEventListener('click', () => act(() => insertMany(state.plan.guaranteed_window - 1 || 1)));
  ui.advance.addEventListener('click', () => act(() => view.advance(whole(ui.dt))));
  $('window-lookup').addEventListener('click', () => act(() => view.lookup(whole(ui.key), false)));
  $('window-lookup-absent').addEventListener('click', () => act(() => view.lookup(whole(ui.key), true)));
  new ResizeObserver(() => { drawSlices(); drawMembers(); }).observe(ui.slicesWrap);
  render();
  return view;
}

/** Starts both views on the loaded module; exposes their state for the browser tests. */
export function startViews(module) {
  const cuckoo = startCuckoo(module);
  const windowView = startWindow(module);
  window.bloomkitCuckooState = () => JSON.parse(cuckoo.state());
  window.bloomkitCuckooOps = () => cuckoo.ops();
  window.bloomkitWindowState = () => JSON.parse(windowView.state());
  window.bloomkitWindowOps = () => windowView.ops();
}
