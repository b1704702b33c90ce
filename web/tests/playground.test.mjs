// web/tests/playground.test.mjs - the playground in headless Chromium.
//
// Run from web/ after web/build.sh:  node --test tests/
// Every check of a figure compares the page (bloomkit compiled to wasm) with
// build/web/expected (the same headers compiled natively by g++), for the
// same settings, seed and tick.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  artefactDir, assertMatchesNative, expected, figures, load, openBrowser, setField, settle, tickOf,
} from './browser.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

describe('the playground page', () => {
  test('loads with the defaults and steps one key at a time', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    let shown = await figures(page);
    assert.deepEqual([shown.tick, shown.totalTicks, shown.inserted, shown.n, shown.setBits, shown.bits], [0, 1200, 0, 200, 0, 1024]);
    await page.click('#step');
    await settle(page);
    shown = (await assertMatchesNative(page, {})).shown;
    assert.equal(shown.tick, 1);
    assert.ok(shown.setBits >= 1 && shown.setBits <= 3, 'one key sets at most k bits');
    assert.match(await page.textContent('#last-line'), /last key #0 0x[0-9a-f]{16} → bits \d+, \d+, \d+/);
    // Keyboard: the arrow key steps (focus on a button, not in a field).
    await page.locator('#step').focus();
    for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowRight');
    await settle(page);
    assert.equal((await assertMatchesNative(page, {})).shown.tick, 10);
    await page.close();
  });

  test('Play runs ticks and the bits set match the native library', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    await page.selectOption('#speed', '240');
    await page.click('#play');
    assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'true');
    await page.waitForFunction(() => Number(document.getElementById('tick').textContent.replace(/[^0-9]/g, '')) >= 260);
    await page.click('#play');  // pause
    await settle(page);
    const before = await tickOf(page);
    await page.waitForTimeout(150);
    assert.equal(await tickOf(page), before, 'paused');
    const { shown } = await assertMatchesNative(page, {});
    assert.ok(shown.tick >= 260 && shown.queries >= 60, 'played into the query phase');
    await page.close();
  });

  test('changing m and k starts a new run that matches the native library', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    await setField(page, '#m', 2048);
    await setField(page, '#k', 5);
    await page.locator('#step').focus();
    for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowRight');
    await settle(page);
    const { shown } = await assertMatchesNative(page, { m: 2048, k: 5 });
    assert.equal(shown.tick, 40);
    assert.match(shown.link, /[?&]m=2048&k=5&/);
    // Deep into the query phase by link, with another n and seed.
    const state = { m: 4096, k: 7, n: 300, seed: '18446744073709551615' };
    await load(page, `${browser.url}?kind=standard&m=4096&k=7&n=300&seed=${state.seed}&tick=1100`);
    const deep = await assertMatchesNative(page, state);
    assert.equal(deep.shown.tick, 1100);
    assert.equal(deep.shown.queries, 800);
    await page.close();
  });

  test('split-block rounds m to whole 256-bit blocks, fixes k = 8 and matches the native library', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    await page.selectOption('#kind', 'split-block');
    await setField(page, '#m', 1000);
    assert.equal(await page.inputValue('#m'), '1024');
    assert.equal(await page.inputValue('#k'), '8');
    assert.equal(await page.isDisabled('#k'), true);
    await load(page, `${browser.url}?kind=split-block&m=1024&n=150&seed=9&tick=700`);
    await assertMatchesNative(page, { kind: 'split-block', m: 1024, n: 150, seed: '9' });
    // Back to standard: the user's k comes back.
    await page.selectOption('#kind', 'standard');
    await settle(page);
    assert.equal(await page.inputValue('#k'), '3');
    assert.equal(await page.isDisabled('#k'), false);
    await page.close();
  });

  test('counting shows counters that match the native library', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    const kinds = await page.$$eval('#kind option', (options) => options.map((option) => option.value));
    // include/bloomkit/counting_bloom.hpp exists, so a page without the kind is a broken build, not a skip.
    assert.ok(kinds.includes('counting'), `the kind list lacks counting: ${kinds.join(', ')}`);
    const state = { kind: 'counting', m: 512, k: 4, n: 120, seed: '31' };
    await load(page, `${browser.url}?kind=counting&m=512&k=4&n=120&seed=31&tick=620`);
    const { native } = await assertMatchesNative(page, state);
    assert.equal(await page.evaluate(() => window.bloomkitCountersHex()), native.counters_hex, 'counters');
    assert.equal(await page.textContent('#bits-set-label'), 'Counters ≠ 0');
    // A counting filter's non-zero counters are the standard filter's bits.
    const standard = expected({ ...state, kind: 'standard', tick: 620 });
    assert.equal(native.words_hex, standard.words_hex);
    await page.close();
  });

  test('Saturate keeps the design n, fills every bit and drives the measured FPR to 100 %', async () => {
    const page = await browser.newPage();
    await load(page, `${browser.url}?tick=150`);
    await page.click('#saturate');
    await settle(page);
    const native = expected({ tick: 0, fill: true });
    assert.ok(native.keys_to_fill > 200, `keys_to_fill ${native.keys_to_fill}`);
    // n is the filter's capacity and stays; the run inserts past it.
    assert.equal(await page.inputValue('#n'), '200', 'n stays the design n');
    assert.equal(await page.textContent('#n-value'), '200');
    assert.equal(await page.textContent('#total-ticks'), (native.keys_to_fill + 1000).toLocaleString('en-US'));
    await page.waitForFunction(() => document.getElementById('phase').textContent === 'done', null, { timeout: 20000 });
    await settle(page);
    const shown = await figures(page);
    assert.equal(await page.textContent('#inserted'), `${native.keys_to_fill.toLocaleString('en-US')} / 200`);
    assert.equal(shown.setBits, shown.bits, 'every bit set');
    assert.equal(shown.queries, 1000);
    assert.equal(shown.measuredFpr, 1, 'every query of an absent key is a false positive');
    assert.equal(shown.probeFpr, 1);
    assert.equal(shown.predictedFpr, 1);
    const { native: after } = await assertMatchesNative(page, { inserts: native.keys_to_fill });
    assert.equal(after.saturated, true, 'the library says past capacity');
    assert.equal(await page.textContent('#saturated'), 'yes');
    assert.match(shown.link, /&n=200&seed=1&saturate=1&tick=\d+$/);
    await page.close();
  });

  test('the state link restores the same state', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    await page.selectOption('#kind', 'split-block');
    await settle(page);
    await setField(page, '#seed', '424242');
    await setField(page, '#n', 90);
    await page.locator('#step').focus();
    for (let i = 0; i < 130; i++) await page.keyboard.press('ArrowRight');
    await settle(page);
    const link = await page.getAttribute('#state-link', 'href');
    assert.match(link, /kind=split-block&m=1024&k=8&n=90&seed=424242&tick=130$/);
    const snapshot = async (p) => ({
      figures: await p.$$eval('.figures dd', (nodes) => nodes.map((node) => node.textContent)),
      last: await p.textContent('#last-line'),
      bits: await p.evaluate(() => document.getElementById('bits').toDataURL()),
    });
    const original = await snapshot(page);
    await page.click('#copy-link');
    await page.waitForFunction(() => document.getElementById('copy-status').textContent !== '');
    const restored = await browser.newPage();
    await load(restored, link);
    await settle(restored);
    assert.deepEqual(await snapshot(restored), original);
    await page.close();
    await restored.close();
  });

  test('bad settings are refused with a message, never a broken run', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    await page.click('#step');
    await setField(page, '#m', 10);
    assert.equal(await page.isVisible('#error'), true);
    assert.match(await page.textContent('#error'), /m \(bits\) must be between 16 and 65536, got 10/);
    assert.equal(await page.getAttribute('#m', 'aria-invalid'), 'true');
    assert.equal((await figures(page)).bits, 1024, 'the previous run stays');
    await setField(page, '#seed', '12x');
    assert.match(await page.textContent('#error'), /seed must be a decimal integer/);
    await setField(page, '#seed', '5');
    await setField(page, '#m', 512);
    assert.equal(await page.isVisible('#error'), false);
    await load(page, `${browser.url}?m=abc&k=3`);
    assert.match(await page.textContent('#error'), /link's settings were refused/);
    assert.equal((await figures(page)).bits, 1024, 'defaults');
    await page.close();
  });

  test('fits a phone screen and a desktop; screenshots saved', async () => {
    for (const [name, viewport] of [['screenshot', { width: 1280, height: 900 }], ['screenshot-phone', { width: 390, height: 844 }]]) {
      const page = await browser.newPage(viewport);
      await load(page, `${browser.url}?tick=640`);
      await settle(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${name}: ${overflow}px wider than the screen`);
      const canvas = await page.evaluate(() => document.getElementById('bits').getBoundingClientRect().width);
      assert.ok(canvas > 0 && canvas <= viewport.width, `${name}: bit array ${canvas}px wide`);
      await page.screenshot({ path: path.join(artefactDir, `${name}.png`), fullPage: true });
      await page.close();
    }
  });

  test('no console errors on any page', () => {
    assert.deepEqual(browser.consoleErrors, []);
  });
});
