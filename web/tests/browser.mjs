// web/tests/browser.mjs - shared set-up for the browser tests: the page served
// by web/server.mjs on a free port, Debian's Chromium driven by
// playwright-core (no browser download; flags from TOOLCHAIN.md keep it off
// the network), and the native reference program built by web/build.sh.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../server.mjs';

export const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const rootDir = path.resolve(webDir, '..');
/** Screenshots and other artefacts: build/web/ (ignored by git). */
export const artefactDir = path.join(rootDir, 'build', 'web');
const expectedProgram = path.join(artefactDir, 'expected');
const chromiumPath = process.env.BLOOMKIT_CHROMIUM ?? '/usr/bin/chromium';

/** What the C++ library computes natively for a playground state. */
export function expected({ kind = 'standard', m = 1024, k = 3, n = 200, seed = '1', tick = 0, fill = false,
  inserts = 0, removeAt = [], kChart = false }) {
  if (!existsSync(expectedProgram)) throw new Error(`${expectedProgram} is missing: run web/build.sh first`);
  const args = ['--kind', kind, '--m', String(m), '--k', String(k), '--n', String(n), '--seed', String(seed), '--tick', String(tick)];
  if (fill) args.push('--fill');
  if (inserts) args.push('--inserts', String(inserts));
  if (removeAt.length) args.push('--remove-at', removeAt.join(','));
  if (kChart) args.push('--k-chart');
  return JSON.parse(execFileSync(expectedProgram, args, { encoding: 'utf8' }));
}

const expectedViewsProgram = path.join(artefactDir, 'expected_views');
/**
 * What the C++ library computes natively for the cuckoo or window view after
 * the operation log `ops` (web/expected_views.cpp): the view's state fields,
 * or { error } with the library's message for bad parameters.
 */
export function expectedView({ view, capacity = 0, window = 0, maxKeys = 0, fpr = '0.05', seed = '1', ops = '' }) {
  if (!existsSync(expectedViewsProgram)) throw new Error(`${expectedViewsProgram} is missing: run web/build.sh first`);
  const args = ['--view', view, '--fpr', String(fpr), '--seed', String(seed), '--ops', ops];
  if (view === 'cuckoo') args.push('--capacity', String(capacity));
  else args.push('--window', String(window), '--max-keys', String(maxKeys));
  return JSON.parse(execFileSync(expectedViewsProgram, args, { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

/**
 * Serves web/ and opens Chromium. Returns { url, newPage(viewport), consoleErrors, close }.
 * consoleErrors collects console errors and uncaught page errors of every page.
 */
export async function openBrowser() {
  if (!existsSync(path.join(webDir, 'dist', 'playground.mjs'))) throw new Error('web/dist/ is empty: run web/build.sh first');
  mkdirSync(artefactDir, { recursive: true });
  const { server, url } = await startServer({ root: webDir, port: 0 });
  const profile = mkdtempSync(path.join(os.tmpdir(), 'bloomkit-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (error) {
    server.close();
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const consoleErrors = [];
  context.on('page', (page) => watch(page));
  function watch(page) {
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
  }
  for (const page of context.pages()) watch(page);
  return {
    url,
    consoleErrors,
    async newPage(viewport = { width: 1280, height: 900 }) {
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      return page;
    },
    async close() {
      await context.close();
      await new Promise((resolve) => server.close(resolve));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens `url` and waits until the WebAssembly module has loaded. */
export async function load(page, url) {
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
}

/** The integer before the first "/" of an element's text ("461 / 1,024 (45 %)" -> 461). */
export async function leadingNumber(page, selector) {
  const text = await page.textContent(selector);
  return Number(text.split('/')[0].replace(/[^0-9.]/g, ''));
}

/** Reads the page's figures as numbers. */
export async function figures(page) {
  const text = async (id) => (await page.textContent(`#${id}`)).trim();
  const int = (s) => Number(s.replace(/[^0-9]/g, ''));
  const rate = (s) => (s === '–' ? null : Number(s.replace(/[^0-9.e-]/g, '')) / 100);
  return {
    tick: int(await text('tick')),
    totalTicks: int(await text('total-ticks')),
    inserted: int((await text('inserted')).split('/')[0]),
    n: int((await text('inserted')).split('/')[1]),
    setBits: int((await text('bits-set')).split('/')[0]),
    bits: int((await text('bits-set')).split('/')[1].split('(')[0]),
    queries: int(await text('queries')),
    falsePositives: int(await text('false-positives')),
    measuredFpr: rate(await text('measured-fpr')),
    predictedFpr: rate(await text('predicted-fpr')),
    probeFpr: rate(await text('probe-fpr')),
    link: await page.getAttribute('#state-link', 'href'),
  };
}

/** Waits until the page has drawn what the last action changed. */
export const settle = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
export const tickOf = (page) => page.evaluate(() => Number(document.getElementById('tick').textContent.replace(/[^0-9]/g, '')));

/** Asserts that the page's figures match the native library's for `state`. */
export async function assertMatchesNative(page, state) {
  const shown = await figures(page);
  const native = expected({ ...state, tick: shown.tick });
  assert.equal(shown.bits, native.bits, 'm');
  assert.equal(shown.inserted, native.inserted, 'keys inserted');
  assert.equal(shown.setBits, native.set_bits, `bits set at tick ${shown.tick}`);
  assert.equal(shown.queries, native.queries, 'queries');
  assert.equal(shown.falsePositives, native.false_positives, 'false positives');
  // Not only as many bits: the same bits, from the same keys.
  assert.equal(await page.evaluate(() => window.bloomkitWordsHex()), native.words_hex, `bit array at tick ${shown.tick}`);
  if (native.counters_hex !== undefined) {
    assert.equal(await page.evaluate(() => window.bloomkitCountersHex()), native.counters_hex, `counters at tick ${shown.tick}`);
  }
  const last = await page.textContent('#last-line');
  if (native.inserted > 0) assert.ok(last.includes(`0x${native.last_key}`), `last key 0x${native.last_key} in "${last}"`);
  if (native.queries > 0) assert.ok(last.includes(`0x${native.last_query_key}`), `last query 0x${native.last_query_key} in "${last}"`);
  // The page prints three significant digits.
  if (native.predicted_fpr > 0) {
    assert.ok(Math.abs(shown.predictedFpr / native.predicted_fpr - 1) < 0.006,
      `predicted FPR ${shown.predictedFpr} vs ${native.predicted_fpr}`);
  }
  return { shown, native };
}

export async function setField(page, selector, value) {
  await page.locator(selector).fill(String(value));
  await page.locator(selector).press('Tab');  // blur: the change event starts a new run
  await settle(page);
}

