// web/tests/explainer.test.mjs - the playground's controls as its explainer
// describes them (issue 17, items 18-21), in headless Chromium:
// sliders with live values and hints, Saturate past the design n, the
// FPR-against-k chart, a bit array that fits the screen with a loupe, the
// address bar following the state, and the counting kind's remove action
// and counter legend. Figures are compared with build/web/expected (the
// same headers compiled natively).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { artefactDir, assertMatchesNative, expected, figures, load, openBrowser, setField, settle } from './browser.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

const desktop = { width: 1280, height: 900 };
const phone = { width: 390, height: 844 };
const grouped = (x) => x.toLocaleString('en-US');
/** As the page prints a rate: three significant digits. */
const percent = (rate) => (rate === 0 ? '0 %' : rate * 100 >= 0.001 ? `${Number((rate * 100).toPrecision(3))} %` : `${(rate * 100).toExponential(1)} %`);

/** Moves a range input to `position` as a drag does: input events, then change. */
async function slide(page, selector, position) {
  await page.locator(selector).fill(String(position));
  await settle(page);
}

/** Waits (up to 5 s) until the address bar matches `pattern`; fails naming what it shows. */
async function atAddress(page, pattern) {
  try {
    await page.waitForFunction((source) => new RegExp(source).test(location.href), pattern.source, { timeout: 5000 });
  } catch {
    assert.fail(`the address bar shows ${page.url()}, not ${pattern}`);
  }
}

/** Bit i of the page's array, from its words (bit i = bit i % 32 of word i / 32). */
async function bitOf(page, i) {
  const hex = await page.evaluate(() => window.bloomkitWordsHex());
  const word = parseInt(hex.slice(8 * Math.floor(i / 32), 8 * Math.floor(i / 32) + 8), 16);
  return (word >>> (i % 32)) & 1;
}

describe('the explainer controls', () => {
  test('sliders for m, k and n show live values and hints, and drive the run', async () => {
    const page = await browser.newPage();
    await load(page, `${browser.url}?tick=150`);
    assert.equal(await page.textContent('#m-hint'), 'Shrink this and watch the array fill up');
    assert.equal(await page.textContent('#k-hint'), 'More hashes means fewer collisions per key, but fills the array faster');
    assert.ok((await page.textContent('#n-hint')).length > 20, 'n has a hint too');
    assert.equal(await page.textContent('#prompt'),
      'Shrink the bit array until the measured false-positive rate parts company with the formula. Then hit Saturate.');
    for (const name of ['m', 'k', 'n']) {
      assert.equal(await page.getAttribute(`#${name}-slider`, 'type'), 'range');
      assert.equal(await page.getAttribute(`#${name}-slider`, 'aria-describedby'), `${name}-hint`);
      assert.equal(await page.getAttribute(`#${name}`, 'type'), 'number', 'number entry stays beside the slider');
    }
    assert.deepEqual([await page.textContent('#m-value'), await page.textContent('#k-value'), await page.textContent('#n-value')],
      ['1,024', '3', '200']);

    // m on a log scale: position 9 is 512 bits. The value beside it follows
    // the drag, and the run keeps its tick with the new m.
    await slide(page, '#m-slider', 9);
    assert.equal(await page.textContent('#m-value'), '512');
    assert.equal(await page.inputValue('#m'), '512');
    let { shown } = await assertMatchesNative(page, { m: 512 });
    assert.equal(shown.tick, 150, 'the run stays at its tick');
    assert.equal(shown.bits, 512);
    // The value beside it updates during the drag, before the run does.
    const during = await page.evaluate(() => {
      const slider = document.getElementById('m-slider');
      slider.value = '11';
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      return document.getElementById('m-value').textContent;
    });
    assert.equal(during, '2,048');
    await settle(page);
    assert.equal((await figures(page)).bits, 2048);

    await slide(page, '#k-slider', 10);
    assert.equal(await page.textContent('#k-value'), '10');
    ({ shown } = await assertMatchesNative(page, { m: 2048, k: 10 }));
    assert.match(shown.link, /m=2048&k=10&n=200/);

    await slide(page, '#n-slider', 8);
    assert.equal(await page.textContent('#n-value'), '256');
    assert.equal(await page.inputValue('#n'), '256');
    await assertMatchesNative(page, { m: 2048, k: 10, n: 256 });

    // Typing an exact number moves the slider to it.
    await setField(page, '#m', 1000);
    assert.equal(await page.textContent('#m-value'), '1,000');
    assert.ok(Math.abs(Number(await page.inputValue('#m-slider')) - Math.log2(1000)) < 0.07, 'slider follows the number');
    await assertMatchesNative(page, { m: 1000, k: 10, n: 256 });

    // Split-block fixes k: its slider is disabled with the number.
    await page.selectOption('#kind', 'split-block');
    await settle(page);
    assert.equal(await page.isDisabled('#k-slider'), true);
    assert.equal(await page.textContent('#k-value'), '8');
    await page.close();
  });

  test('Saturate shows "Inserted 2,326 / 200" and past capacity, and the link keeps it', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    const native = expected({ fill: true });
    await page.click('#saturate');
    await page.waitForFunction(() => document.getElementById('phase').textContent === 'done', null, { timeout: 20000 });
    await settle(page);
    assert.equal(await page.textContent('#inserted'), `${grouped(native.keys_to_fill)} / 200`);
    assert.equal(await page.textContent('#saturated'), 'yes');
    assert.equal(await page.inputValue('#n'), '200');
    const link = await page.getAttribute('#state-link', 'href');
    assert.match(link, /saturate=1/);
    const restored = await browser.newPage();
    await load(restored, link);
    assert.equal(await restored.textContent('#inserted'), `${grouped(native.keys_to_fill)} / 200`);
    await assertMatchesNative(restored, { inserts: native.keys_to_fill });
    // A new setting starts a plain run again (n keys, then queries).
    await setField(restored, '#k', 4);
    assert.equal(await restored.textContent('#total-ticks'), '1,200');
    assert.doesNotMatch(await restored.getAttribute('#state-link', 'href'), /saturate/);
    await page.close();
    await restored.close();
  });

  test('the FPR-against-k chart has the measured points and the formula for the current m and n', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    let chart = await page.evaluate(() => window.bloomkitKChart());
    let native = expected({ kChart: true }).k_chart;
    assert.equal(chart.points.length, 16);
    assert.equal(chart.split, null);
    for (const [i, p] of chart.points.entries()) {
      assert.equal(p.k, i + 1);
      assert.equal(p.measured, native[i].measured, `measured FPR at k = ${p.k}`);
      assert.ok(Math.abs(p.model - native[i].model) <= 1e-12 * native[i].model, `formula at k = ${p.k}`);
    }
    // "Turn k up to 10 and watch the rate get worse": at m/n = 5.1 the best
    // k is about 3.5; k = 10 is measurably worse than k = 3.
    assert.ok(native[9].measured > 2 * native[2].measured, `k=10 ${native[9].measured} vs k=3 ${native[2].measured}`);
    await slide(page, '#k-slider', 10);
    assert.match(await page.textContent('#k-chart-note'),
      new RegExp(`^k = 10: measured ${percent(native[9].measured).replace('.', '\\.')}, formula ${percent(native[9].model).replace('.', '\\.')}\\.`));
    assert.match(await page.textContent('#k-chart-note'), /lowest at k = m\/n · ln 2 ≈ 3\.55/);
    // The chart follows m and n.
    await slide(page, '#m-slider', 12);
    chart = await page.evaluate(() => window.bloomkitKChart());
    native = expected({ m: 4096, kChart: true }).k_chart;
    assert.deepEqual(chart.points.map((p) => p.measured), native.map((p) => p.measured));
    assert.equal(await page.textContent('#k-chart-for'), '· m = 4,096, n = 200');
    // Split-block adds its own point at k = 8.
    await load(page, `${browser.url}?kind=split-block&m=2048&n=300&seed=4`);
    chart = await page.evaluate(() => window.bloomkitKChart());
    const split = expected({ kind: 'split-block', m: 2048, n: 300, seed: '4', kChart: true });
    assert.equal(chart.split.k, 8);
    assert.equal(chart.split.measured, split.split_point.measured);
    assert.deepEqual(chart.points.map((p) => p.measured), split.k_chart.map((p) => p.measured));
    // Something is drawn: the canvas is not blank.
    const inked = await page.evaluate(() => {
      const canvas = document.getElementById('k-chart');
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let coloured = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0) coloured++;
      return coloured;
    });
    assert.ok(inked > 500, `${inked} pixels drawn`);
    await page.close();
  });

  test('65,536 bits fit the screen (cells below a pixel on a phone) and the loupe zooms in on hover', async () => {
    for (const [name, viewport] of [['desktop', desktop], ['phone', phone], ['small-phone', { width: 320, height: 568 }]]) {
      const page = await browser.newPage(viewport);
      await load(page, `${browser.url}?m=65536&k=3&n=6000&tick=4000`);
      await settle(page);
      await page.locator('#bits').scrollIntoViewIfNeeded();
      const box = await page.locator('#bits').boundingBox();
      assert.ok(box.height <= 0.42 * viewport.height + 1, `${name}: the array is ${box.height}px tall`);
      assert.ok(box.width <= viewport.width, `${name}: ${box.width}px wide`);
      const figuresTop = (await page.locator('.figures-panel').boundingBox()).y;
      const bitsTop = (await page.locator('.bits-panel').boundingBox()).y;
      assert.ok(figuresTop - bitsTop < viewport.height, `${name}: the figures start within a screen of the array`);
      const layout = await page.evaluate(() => window.bloomkitLayout());
      assert.equal(layout.cols * layout.lines >= 65536, true, 'every bit has a cell');
      assert.equal(layout.gaps, false, 'small cells are drawn as an image, one pixel per bit, scaled');
      if (name === 'small-phone') assert.ok(layout.cellH < 1, `a cell is ${layout.cellH}px: smaller than a pixel`);
      // The shade tracks the fill: the mean of the red channel lies between
      // the unset colour's (0xe4) and the set colour's (0x36) in proportion
      // to the fraction of bits set (about 17 % here), give or take the
      // highlight rings.
      const { setBits, bits } = await figures(page);
      const want = 0xe4 - (0xe4 - 0x36) * (setBits / bits);
      const shade = await page.evaluate(() => {
        const canvas = document.getElementById('bits');
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let sum = 0, count = 0;
        for (let i = 0; i < data.length; i += 4) { sum += data[i]; count++; }
        return sum / count;
      });
      assert.ok(Math.abs(shade - want) < 12, `${name}: mean red ${shade}, the fill says ${want}`);
      // Hover: the loupe opens beside the pointer and names the bit under it.
      assert.equal(await page.isVisible('#loupe'), false);
      await page.mouse.move(box.x + box.width * 0.37, box.y + box.height * 0.61);
      await settle(page);
      assert.equal(await page.isVisible('#loupe'), true, `${name}: loupe on hover`);
      const index = Number(await page.getAttribute('#loupe', 'data-index'));
      const value = Number(await page.getAttribute('#loupe', 'data-value'));
      assert.equal(value, await bitOf(page, index), `bit ${index} as the loupe shows it`);
      assert.match(await page.textContent('#loupe-label'), new RegExp(`^bit ${grouped(index)} = ${value} \\(word `));
      // The bit under the pointer: its row and column from the layout.
      const col = Math.floor((box.width * 0.37) / layout.cellW), line = Math.floor((box.height * 0.61) / layout.cellH);
      assert.equal(index, line * layout.cols + col, `${name}: the loupe shows the bit under the pointer`);
      const loupe = await page.locator('#loupe-canvas').boundingBox();
      assert.ok(loupe.width / 15 > 8 * layout.cellW, 'zoomed in');
      await page.screenshot({ path: path.join(artefactDir, `screenshot-65536-${name}.png`), fullPage: false });
      await page.mouse.move(2, 2);
      await settle(page);
      assert.equal(await page.isVisible('#loupe'), false, 'the loupe closes when the pointer leaves');
      await page.close();
    }
  });

  test('the address bar follows the state, and loading it restores the state', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    await page.locator('#step').focus();
    for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowRight');
    await atAddress(page, /\?kind=standard&m=1024&k=3&n=200&seed=1&tick=7$/);
    await slide(page, '#m-slider', 9.5);
    await setField(page, '#seed', '77');
    await atAddress(page, /m=724&k=3&n=200&seed=77&tick=7$/);
    // While playing the address keeps up (throttled), and stops on pause.
    await page.click('#play');
    await page.waitForFunction(() => /tick=(\d{2,})/.test(location.search) && Number(location.search.match(/tick=(\d+)/)[1]) > 30);
    await page.click('#play');
    await settle(page);
    await page.waitForTimeout(350);
    await settle(page);
    const tick = Number((await page.textContent('#tick')).replace(/[^0-9]/g, ''));
    await atAddress(page, new RegExp(`tick=${tick}$`));
    const before = await page.$$eval('.figures dd', (nodes) => nodes.map((node) => node.textContent));
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await settle(page);
    assert.deepEqual(await page.$$eval('.figures dd', (nodes) => nodes.map((node) => node.textContent)), before);
    await assertMatchesNative(page, { m: 724, seed: '77' });
    await page.close();
  });

  test('the counting kind removes keys, shows counter values in its own legend, and its link replays the removals', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    // Not for the kinds that cannot delete.
    assert.equal(await page.isVisible('#remove'), false);
    assert.equal(await page.isVisible('#legend-counters'), false);
    assert.equal(await page.isVisible('#legend-bits'), true);
    await load(page, `${browser.url}?kind=counting&m=256&k=4&n=120&seed=31&tick=50`);
    assert.equal(await page.isVisible('#remove'), true);
    assert.equal(await page.isVisible('#legend-counters'), true, 'the counting legend');
    assert.equal(await page.isVisible('#legend-bits'), false, 'not the 0/1 legend');
    assert.deepEqual(await page.$$eval('#counter-scale li', (items) => items.map((item) => item.textContent)),
      Array.from({ length: 16 }, (_, c) => String(c)));
    const shades = await page.$$eval('#counter-scale li', (items) => items.map((item) => getComputedStyle(item).backgroundColor));
    assert.equal(new Set(shades).size, 16, 'each counter value has its own shade');

    const state = { kind: 'counting', m: 256, k: 4, n: 120, seed: '31' };
    await page.click('#remove');
    await page.keyboard.press('d');
    await page.click('#remove');
    await settle(page);
    assert.equal(await page.textContent('#removed'), '3');
    assert.equal(await page.textContent('#inserted'), '47 / 120', 'keys in the filter: 50 inserted, 3 removed');
    let { native } = await assertMatchesNative(page, { ...state, removeAt: [50, 50, 50] });
    assert.equal(native.removed, 3);
    assert.match(await page.textContent('#last-line'), new RegExp(`removed key #2 0x${native.last_removed_key} → counters [0-9, ]+ down by 1`));
    // Each of the 47 keys still in adds 1 to each of its k = 4 counters (none
    // reaches 15 at this load), so the counters add up to 4 x 47: the three
    // removals took exactly their own increments out.
    const total = [...native.counters_hex].reduce((sum, digit) => sum + parseInt(digit, 16), 0);
    assert.equal(total, 4 * 47);

    // Steps go on; a later removal is recorded at its tick, and the link replays all of them.
    await page.locator('#step').focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
    await page.click('#remove');
    await settle(page);
    ({ native } = await assertMatchesNative(page, { ...state, removeAt: [50, 50, 50, 60] }));
    const link = await page.getAttribute('#state-link', 'href');
    assert.match(link, /removals=50\.50\.50\.60&tick=60$/);
    await atAddress(page, /removals=50\.50\.50\.60&tick=60$/);
    const restored = await browser.newPage();
    await load(restored, link);
    assert.equal(await restored.evaluate(() => window.bloomkitCountersHex()), native.counters_hex);
    assert.equal(await restored.textContent('#removed'), '4');
    // Reset forgets the removals; with no key in, Remove is disabled.
    await restored.click('#reset');
    await settle(restored);
    assert.equal(await restored.isDisabled('#remove'), true);
    assert.doesNotMatch(await restored.getAttribute('#state-link', 'href'), /removals/);
    // A link whose removal has no key to take out is refused, not half-applied.
    await load(restored, `${browser.url}?kind=counting&m=256&k=4&n=120&seed=31&removals=2.2.2&tick=9`);
    assert.match(await restored.textContent('#error'), /link's settings were refused \(removal 3 at tick 2 has no inserted key left to remove\)/);
    await load(restored, `${browser.url}?kind=standard&removals=5&tick=9`);
    assert.match(await restored.textContent('#error'), /removals apply to the counting kind only/);
    await page.close();
    await restored.close();
  });

  test('screenshots at a desktop and a phone viewport (counting, saturated standard)', async () => {
    for (const [name, viewport] of [['desktop', desktop], ['phone', phone]]) {
      const page = await browser.newPage(viewport);
      await load(page, `${browser.url}?kind=counting&m=512&k=3&n=100&seed=5&removals=80.80&tick=300`);
      await settle(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${name}: ${overflow}px wider than the screen`);
      await page.screenshot({ path: path.join(artefactDir, `screenshot-counting-${name}.png`), fullPage: true });
      await load(page, `${browser.url}?m=1024&k=3&n=200&saturate=1&tick=3000`);
      await settle(page);
      await page.screenshot({ path: path.join(artefactDir, `screenshot-saturated-${name}.png`), fullPage: true });
      await page.close();
    }
  });

  test('no console errors on any page', () => {
    assert.deepEqual(browser.consoleErrors, []);
  });
});
