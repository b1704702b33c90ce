// web/tests/views.test.mjs - the cuckoo and window views (issue 19) in
// headless Chromium, driven through their buttons as a user would. After
// each action the view's state (web/views.hpp over the library, compiled to
// wasm) must equal build/web/expected_views: the same operation log
// replayed natively with bloomkit's cuckoo_filter / age_partitioned_bloom
// alone. On top of that equality, the properties the views teach are
// checked directly: no false negatives, the kick-out chain is the change
// between the tables before and after, a full filter refuses and changes
// nothing, the window keeps its last l g + 1 keys, slices slide by one per
// generation, a lookup's run is k consecutive set bits, and bad parameters
// give the library's own message.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import path from 'node:path';
import { artefactDir, expectedView, load, openBrowser, settle } from './browser.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

const cuckooState = (page) => page.evaluate(() => window.bloomkitCuckooState());
const windowState = (page) => page.evaluate(() => window.bloomkitWindowState());
async function fill(page, selector, value) {
  await page.locator(selector).fill(String(value));
}
async function click(page, selector) {
  await page.click(selector);
  await settle(page);
}

/** The cuckoo view's state equals the library's, replayed natively from the view's own log. */
async function cuckooMatchesNative(page, settings) {
  const ops = await page.evaluate(() => window.bloomkitCuckooOps());
  const state = await cuckooState(page);
  assert.deepEqual(state, expectedView({ view: 'cuckoo', ...settings, ops }), `cuckoo state after ${ops.split(',').length} ops`);
  return state;
}
async function windowMatchesNative(page, settings) {
  const ops = await page.evaluate(() => window.bloomkitWindowOps());
  const state = await windowState(page);
  assert.deepEqual(state, expectedView({ view: 'window', ...settings, ops }), `window state after ${ops.split(',').length} ops`);
  return state;
}

/** Applies a chain of moves [bucket, slot, fingerprint, evicted] to a table (4 slots a bucket). */
function replayMoves(table, moves) {
  const out = table.slice();
  for (const [bucket, slot, fp, evicted] of moves) {
    if (slot === 4) continue;  // the victim slot is outside the table
    assert.equal(out[4 * bucket + slot], evicted, `move into bucket ${bucket} slot ${slot} displaces what was there`);
    out[4 * bucket + slot] = fp;
  }
  return out;
}

describe('the cuckoo view', () => {
  test('inserts with their kick-out chains, lookups, deletes and the full filter match the library', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    const settings = { capacity: 20, fpr: '0.05', seed: '7' };
    await fill(page, '#cuckoo-capacity', settings.capacity);
    await fill(page, '#cuckoo-fpr', settings.fpr);
    await fill(page, '#cuckoo-seed', settings.seed);
    await click(page, '#cuckoo-start');
    let state = await cuckooMatchesNative(page, settings);
    assert.equal(state.stored, 0);
    assert.match(await page.textContent('#cuckoo-plan'), new RegExp(`m = ${state.buckets} buckets × 4 slots of f = ${state.fingerprint_bits}-bit`));
    assert.equal(await page.locator('#cuckoo-table .bucket').count(), state.buckets);

    // One key at a time until the walk fails: every chain is the difference
    // between the tables before and after, and its fingerprints follow on.
    let walks = 0;
    for (let i = 0; i < 4 * state.buckets + 4 && !state.full; i++) {
      const beforeTable = state.table;
      await click(page, '#cuckoo-insert');
      state = await cuckooState(page);
      const { last } = state;
      assert.equal(last.result, 'inserted');
      assert.ok(last.moves.length >= 1);
      assert.equal(last.moves[0][2], last.fingerprint, 'the chain starts with the key\'s fingerprint');
      assert.ok([last.first, last.second].includes(last.moves[0][0]), 'in one of its two buckets');
      for (let m = 0; m + 1 < last.moves.length; m++) {
        assert.notEqual(last.moves[m][3], 0, 'only the last move finds an empty slot');
        assert.equal(last.moves[m + 1][2], last.moves[m][3], 'each evicted fingerprint moves next');
      }
      assert.deepEqual(replayMoves(beforeTable, last.moves), state.table, 'the chain explains the new table');
      const end = last.moves[last.moves.length - 1];
      if (end[1] === 4) assert.deepEqual(state.victim, [end[0], end[2]], 'a failed walk ends in the victim slot');
      if (last.moves.length > 1) {
        walks++;
        if (last.moves.length <= 28) assert.equal(await page.locator('#cuckoo-chain li').count(), last.moves.length);
        assert.match(await page.textContent('#cuckoo-last'), /Both buckets were full|victim slot/);
      }
      assert.ok(!state.members.includes('0'), 'no false negatives');
      assert.ok((await page.textContent('#cuckoo-last')).includes(`0x${last.key}`));
    }
    assert.ok(walks >= 1, 'a small table makes eviction walks');
    assert.equal(state.full, true);
    state = await cuckooMatchesNative(page, settings);
    assert.equal(await page.textContent('#cuckoo-full'), 'yes: inserts are refused until a key is deleted');

    // Full: the library answers "full", shown, and nothing changes.
    await click(page, '#cuckoo-insert');
    const refused = await cuckooMatchesNative(page, settings);
    assert.equal(refused.last.result, 'full');
    assert.deepEqual([refused.table, refused.stored, refused.victim, refused.next_key], [state.table, state.stored, state.victim, state.next_key]);
    assert.equal(await page.isVisible('#cuckoo-error'), true);
    assert.match(await page.textContent('#cuckoo-error'), /the library answers "full".*nothing changed/);

    // Lookups: a member answers maybe; an absent key as the library says.
    await fill(page, '#cuckoo-key', 3);
    await click(page, '#cuckoo-lookup');
    state = await cuckooMatchesNative(page, settings);
    assert.equal(state.last.result, 'maybe');
    assert.match(await page.textContent('#cuckoo-last'), /look up key #3 .*\? maybe/);
    assert.equal(await page.isVisible('#cuckoo-error'), false);
    for (let j = 0; j < 5; j++) {
      await fill(page, '#cuckoo-key', j);
      await click(page, '#cuckoo-lookup-absent');
      state = await cuckooMatchesNative(page, settings);
    }

    // Delete frees a slot, and the victim moves in; deleting again is refused.
    const full = state;
    await fill(page, '#cuckoo-key', 3);
    await click(page, '#cuckoo-delete');
    state = await cuckooMatchesNative(page, settings);
    assert.equal(state.last.result, 'removed');
    assert.equal(state.stored, full.stored - 1);
    assert.equal(state.full, false, 'the victim took the freed slot');
    assert.equal(state.members[3], '-');
    assert.ok(!state.members.includes('0'), 'no false negatives after a delete');
    await click(page, '#cuckoo-delete');
    assert.match(await page.textContent('#cuckoo-error'), /key #3 is not in the filter: delete only keys you inserted/);
    assert.deepEqual(await cuckooMatchesNative(page, settings), state, 'a refused delete changes nothing');
    await click(page, '#cuckoo-insert');
    state = await cuckooMatchesNative(page, settings);
    assert.equal(state.last.result, 'inserted', 'room again after the delete');
    await page.locator('#cuckoo-panel').screenshot({ path: path.join(artefactDir, 'screenshot-cuckoo.png') });
    await page.close();
  });

  test('bad parameters give the library\'s message and keep the filter', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    const kept = await cuckooState(page);
    for (const [capacity, fpr] of [[0, '0.05'], [20, '2'], [20, '0.000001'], [20, 'abc']]) {
      await fill(page, '#cuckoo-capacity', capacity);
      await fill(page, '#cuckoo-fpr', fpr);
      await click(page, '#cuckoo-start');
      const native = expectedView({ view: 'cuckoo', capacity, fpr: fpr === 'abc' ? 'nan' : fpr });
      assert.ok(native.error, `the library refuses capacity ${capacity} at ${fpr}`);
      assert.equal(await page.textContent('#cuckoo-error'), native.error);
      assert.deepEqual(await cuckooState(page), kept, 'the filter before stays');
    }
    await fill(page, '#cuckoo-capacity', 5000);
    await fill(page, '#cuckoo-fpr', '0.05');
    await click(page, '#cuckoo-start');
    assert.equal(await page.textContent('#cuckoo-error'), 'the page draws a cuckoo filter of at most 1000 keys, got 5000');
    await fill(page, '#cuckoo-capacity', 1000);
    await click(page, '#cuckoo-start');
    assert.equal(await page.isVisible('#cuckoo-error'), false);
    assert.equal((await cuckooState(page)).capacity, 1000);
    await page.close();
  });
});

describe('the window view', () => {
  test('the plan, slices sliding, lookups and forgetting over 10 windows match the library', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    const settings = { window: 40, fpr: '0.05', seed: '3' };
    await fill(page, '#window-n', settings.window);
    await fill(page, '#window-fpr', settings.fpr);
    const planned = expectedView({ view: 'window', ...settings }).plan;
    const planText = await page.textContent('#window-plan');
    for (const part of [`k = ${planned.k}, l = ${planned.l}, m = ${planned.m} bits per slice, g = ${planned.g} keys`,
      `the last ${planned.guaranteed_window} keys are always reported`, `forgotten after ${planned.forgotten_after}`, '1 − 10⁻⁹']) {
      assert.ok(planText.includes(part), `"${part}" in the plan: ${planText}`);
    }
    assert.ok(planned.design_fpr <= 0.05 && planned.guaranteed_window >= 40, 'the library meets the window and FPR asked');
    await fill(page, '#window-seed', settings.seed);
    await click(page, '#window-start');
    let state = await windowMatchesNative(page, settings);
    assert.deepEqual(state.plan, planned);
    const { k, l, g } = planned;

    // One key: its bits are in the k newest slices.
    await click(page, '#window-insert');
    state = await windowMatchesNative(page, settings);
    assert.equal(state.last.hits.slice(0, k), '1'.repeat(k));
    assert.match(await page.textContent('#window-last'), new RegExp(`its bits went into slices 0 to ${k - 1}`));

    // Fill the first generation, so every later batch (g keys, or l g) starts
    // at a full one; then ten windows, one generation or one window at a time.
    for (let i = 1; i < g; i++) await click(page, '#window-insert');
    state = await windowMatchesNative(page, settings);
    assert.equal(state.generation_count, g);
    for (let round = 0; round < 20; round++) {
      const before = state;
      await click(page, round % 2 ? '#window-insert-window' : '#window-insert-gen');
      state = await windowMatchesNative(page, settings);
      assert.equal(before.generation_count, g);
      if (round % 2 === 0) {
        // One generation from a full one: exactly one shift, and the slices
        // the new keys do not touch are the old ones, one position older.
        assert.equal(state.newest, (before.newest + k + l - 1) % (k + l));
        for (let j = k; j < k + l; j++) assert.equal(state.slices[j].words, before.slices[j - 1].words, `slice ${j} aged by one`);
        assert.equal(state.slices[0].set <= g, true);
      }
      const total = state.members.length;
      const recent = state.members.slice(Math.max(0, total - planned.guaranteed_window));
      assert.ok(!recent.includes('0'), `round ${round}: a key among the last ${planned.guaranteed_window} was forgotten`);
    }
    assert.ok(state.inserted >= 10 * settings.window, `a stream of 10 windows (${state.inserted} keys)`);
    // Forgotten: keys (k + l) g or more inserts old answer like strangers; most say no.
    const old = state.members.slice(0, state.members.length - planned.forgotten_after);
    assert.ok(old.length > 100 && old.split('').filter((c) => c === '0').length > old.length / 2, 'old keys are forgotten');
    assert.match(await page.textContent('#window-forget'), new RegExp(`The last ${planned.guaranteed_window} keys: ${planned.guaranteed_window} answer "maybe"`));

    // A recent key's lookup: the run that answered is k consecutive set bits.
    await fill(page, '#window-key', state.inserted - 2 * g);
    await click(page, '#window-lookup');
    state = await windowMatchesNative(page, settings);
    assert.equal(state.last.result, 'maybe');
    assert.ok(state.last.run >= 0);
    assert.equal(state.last.hits.slice(state.last.run, state.last.run + k), '1'.repeat(k));
    assert.match(await page.textContent('#window-last'), new RegExp(`maybe: slices ${state.last.run} to ${state.last.run + k - 1} all hold its bit`));
    // The oldest key, long forgotten, and an absent key: as the library answers.
    await fill(page, '#window-key', 0);
    await click(page, '#window-lookup');
    state = await windowMatchesNative(page, settings);
    assert.equal(state.last.result === 'no', state.last.run === -1);
    await click(page, '#window-lookup-absent');
    await windowMatchesNative(page, settings);
    await fill(page, '#window-key', state.inserted - 2 * g);
    await click(page, '#window-lookup');
    await page.locator('#window-panel').screenshot({ path: path.join(artefactDir, 'screenshot-window.png') });
    await fill(page, '#window-key', state.inserted + 5);
    await click(page, '#window-lookup');
    assert.match(await page.textContent('#window-error'), /has not been inserted yet/);
    await page.close();
  });

  test('a time window slides with the clock and forgets by (k + l) tau', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    const settings = { window: 60, maxKeys: 30, fpr: '0.05', seed: '5' };
    await page.selectOption('#window-mode', 'time');
    await fill(page, '#window-n', settings.window);
    await fill(page, '#window-max-keys', settings.maxKeys);
    await fill(page, '#window-fpr', settings.fpr);
    await fill(page, '#window-seed', settings.seed);
    await click(page, '#window-start');
    assert.equal(await page.isVisible('#window-advance'), true);
    let state = await windowMatchesNative(page, settings);
    const { tau, k, l } = state.plan;
    assert.ok(tau > 0 && state.plan.guaranteed_time >= settings.window);
    // A few keys per tick of the clock, below the rate planned for.
    await fill(page, '#window-dt', 9);
    for (let t = 0; t < 3 * settings.window; t += 9) {
      await click(page, '#window-insert');
      await click(page, '#window-advance');
    }
    state = await windowMatchesNative(page, settings);
    assert.equal(state.overflowed, 0);
    state.member_times.forEach((at, i) => {
      if (state.now - at < state.plan.guaranteed_time) assert.equal(state.members[i], '1', `key inserted at ${at}, now ${state.now}`);
    });
    // Idle time: once (k + l) tau has passed, every slice is clear.
    await fill(page, '#window-dt', (k + l) * tau);
    await click(page, '#window-advance');
    state = await windowMatchesNative(page, settings);
    assert.ok(!state.members.includes('1'), 'all forgotten');
    assert.ok(state.slices.every((slice) => slice.set === 0));
    await page.close();
  });

  test('bad parameters give the library\'s message and keep the filter', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    const kept = await windowState(page);
    for (const [window, fpr] of [[0, '0.05'], [40, '1.5'], [40, '0']]) {
      await fill(page, '#window-n', window);
      await fill(page, '#window-fpr', fpr);
      const native = expectedView({ view: 'window', window, fpr });
      assert.ok(native.error, `the library refuses window ${window} at ${fpr}`);
      assert.equal(await page.textContent('#window-error'), native.error, 'shown while typing, from the plan');
      await click(page, '#window-start');
      assert.equal(await page.textContent('#window-error'), native.error);
      assert.deepEqual(await windowState(page), kept, 'the filter before stays');
    }
    await fill(page, '#window-n', 5000);
    await fill(page, '#window-fpr', '0.0001');
    await click(page, '#window-start');
    assert.match(await page.textContent('#window-error'), /the plan needs \(k \+ l\) m = [0-9]+ bits; the page draws at most 65536/);
    assert.deepEqual(await windowState(page), kept);
    await page.close();
  });

  test('no console errors on any page', () => {
    assert.deepEqual(browser.consoleErrors, []);
  });
});
