// web/tests/fileview.test.mjs - the file view (issue 37, item 18) in headless
// Chromium: files of every kind the CLI writes (made here with
// build/release/bloomkit), opened through the file picker and by drag and
// drop, must show what `bloomkit info --json` says of them (kind, key type,
// inserted count, capacity, FPR now and design FPR), and every probe must
// answer as `bloomkit query` does: "maybe" for every inserted key, the same
// answer for absent ones, the library's mismatch message for a key the
// file's key type refuses. Truncated, altered and foreign files show the
// library's own error and nothing of the file, with no page error.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { load, openBrowser, rootDir } from './browser.mjs';

const cli = path.join(rootDir, 'build', 'release', 'bloomkit');
let browser;
let dir;

before(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build the CLI first (cmake --build build/release --target bloomkit_cli)`);
  dir = mkdtempSync(path.join(os.tmpdir(), 'bloomkit-fileview-'));
  browser = await openBrowser();
});
after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI; returns stdout (throws on a non-zero exit). */
const run = (...args) => execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const info = (file) => JSON.parse(run('info', '--json', file));
/** `bloomkit query` answers ("KEY<TAB>maybe" or "KEY<TAB>absent" lines): { key: maybe }. */
function cliAnswers(file, keys) {
  const lines = run('query', file, '--', ...keys).split('\n').slice(0, keys.length);
  return Object.fromEntries(lines.map((line, i) => {
    assert.ok(line === `${keys[i]}\tmaybe` || line === `${keys[i]}\tabsent`, `query's line "${line}" for ${keys[i]}`);
    return [keys[i], line.endsWith('maybe')];
  }));
}

function writeKeys(name, keys) {
  const file = path.join(dir, name);
  writeFileSync(file, `${keys.join('\n')}\n`);
  return file;
}

/** Opens `file` in the page, by the file picker or by a drop on the panel, and waits until the page has read it. */
async function openFile(page, file, how = 'pick') {
  const before = await page.evaluate(() => Number(document.body.dataset.fileOpened ?? 0));
  if (how === 'pick') {
    await page.setInputFiles('#file-input', file);
  } else {
    const bytes = [...readFileSync(file)];
    await page.evaluate(({ bytes, name }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(bytes)], name));
      const zone = document.getElementById('file-drop');
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, { bytes, name: path.basename(file) });
  }
  await page.waitForFunction((n) => Number(document.body.dataset.fileOpened ?? 0) > n, before);
}

async function probe(page, key) {
  await page.fill('#file-key', key);
  await page.click('#file-probe-button');
  return { answer: await page.getAttribute('#file-answer', 'data-answer'), text: await page.textContent('#file-answer') };
}

const textKeys = Array.from({ length: 300 }, (_, i) => `key-${i}`);
const absentKeys = Array.from({ length: 40 }, (_, i) => `absent-${i}`);
// Every kind `bloomkit build --kind` writes, with what it needs.
const kinds = [
  { kind: 'standard', name: 'standard_bloom', args: [] },
  { kind: 'blocked', name: 'blocked_bloom', args: [] },
  { kind: 'split-block', name: 'split_block_bloom', args: [] },
  { kind: 'counting', name: 'counting_bloom', args: [] },
  { kind: 'scalable', name: 'scalable_bloom', args: ['--capacity', '100'] },  // past its first stage: several rows
  { kind: 'binary-fuse', name: 'binary_fuse', args: [] },
  { kind: 'ribbon', name: 'ribbon', args: [] },
  { kind: 'cuckoo', name: 'cuckoo_filter', args: [] },
  { kind: 'window', name: 'age_partitioned_bloom', args: ['--window', '200'] },
];

describe('the file view', () => {
  test('files of every kind show what bloomkit info says and answer as bloomkit query does', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    const keysFile = writeKeys('keys.txt', textKeys);
    for (const [i, { kind, name, args }] of kinds.entries()) {
      const file = path.join(dir, `${kind}.bkf`);
      run('build', '-q', '--kind', kind, ...args, '-o', file, keysFile);
      const native = info(file);
      await openFile(page, file, i % 2 === 0 ? 'pick' : 'drop');
      assert.equal(await page.isHidden('#file-error'), true, `${kind}: no error`);
      assert.equal(await page.textContent('#file-kind'), name, `${kind}: kind shown`);
      assert.equal(await page.textContent('#file-key-type'), 'bytes', `${kind}: key type shown`);
      const inserted = Number((await page.textContent('#file-inserted')).replace(/[^0-9]/g, ''));
      assert.equal(inserted, native.inserted, `${kind}: inserted shown`);
      assert.equal(inserted, 300, `${kind}: the CLI inserted every line`);

      const s = await page.evaluate(() => window.bloomkitFileSummary());
      assert.equal(s.kind, native.kind);
      assert.equal(s.key_type, native.key_type);
      assert.equal(s.capacity, native.capacity, `${kind}: capacity`);
      assert.equal(s.bits, native.bits, `${kind}: bits`);
      assert.equal(s.k, native.k, `${kind}: k`);
      assert.equal(s.blocks, native.blocks, `${kind}: blocks`);
      assert.equal(s.seed, String(native.seed), `${kind}: seed`);
      assert.equal(s.hash, native.hash, `${kind}: hash`);
      // The wasm build and the native CLI run the same estimate; only libm's last bits may differ.
      const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-12 + 1e-9 * Math.abs(b), `${kind}: ${what} ${a} vs ${b}`);
      close(s.estimated_fpr, native.estimated_fpr, 'estimated FPR');
      close(s.design_fpr, native.design_fpr, 'design FPR');
      if (native.fill_ratio !== null) close(s.fill_ratio, native.fill_ratio, 'fill ratio');
      // The file's own parameters, as `bloomkit info` prints them ("name   value" rows).
      const infoText = run('info', file);
      for (const [param, value] of Object.entries(s.params)) {
        assert.ok(new RegExp(`^${param} +${value.replace(/[.+]/g, '\\$&')}( |$)`, 'm').test(infoText), `${kind}: ${param} ${value} in\n${infoText}`);
      }
      assert.ok((await page.textContent('#file-params')).includes(Object.entries(s.params).map(([p, v]) => `${p} ${v}`).join(' · ')));
      assert.ok((await page.textContent('#file-fpr-now')).includes('%'), `${kind}: FPR now shown`);
      assert.ok((await page.textContent('#file-fpr-design')).includes('%'), `${kind}: design FPR shown`);

      // The picture: one cell per block for the block kinds, whose mean is the fill; none for the static kinds.
      if (kind === 'binary-fuse' || kind === 'ribbon') {
        assert.equal(s.rows.length, 0, `${kind}: a static filter has no fill`);
      } else {
        assert.ok(s.rows.length > 0 && s.rows.every((r) => r.fills.length > 0), `${kind}: a fill picture`);
        assert.ok(await page.evaluate(() => document.getElementById('file-fill-map').height > 0), `${kind}: the picture is drawn`);
      }
      if (kind === 'blocked' || kind === 'split-block') {
        assert.equal(s.rows[0].cell_units, 1);
        assert.equal(s.rows[0].fills.length, native.blocks, `${kind}: a cell per block`);
        const mean = s.rows[0].fills.reduce((a, b) => a + b, 0) / native.blocks;
        assert.ok(Math.abs(mean - native.fill_ratio) < 1e-3, `${kind}: the cells' mean ${mean} is the fill ${native.fill_ratio}`);
      }
      if (kind === 'scalable') assert.ok(s.rows.length > 1, 'scalable: a row per stage');
      if (kind === 'window') assert.equal(s.rows[0].label, 'slice 0 (newest)');

      // Probes: the page's answer for each key is the CLI's, and every key a window still keeps says "maybe".
      const keys = [...textKeys.filter((_, j) => j % 15 === 0), 'key-299', ...absentKeys];
      const expected = cliAnswers(file, keys);
      for (const key of keys) {
        const { answer, text } = await probe(page, key);
        assert.equal(answer, expected[key] ? 'maybe' : 'no', `${kind}: "${key}" (${text})`);
      }
      if (kind !== 'window') {
        for (const key of textKeys.filter((_, j) => j % 15 === 0)) assert.equal(expected[key], true, `${kind}: ${key} inserted`);
      }
      assert.equal((await probe(page, 'key-299')).answer, 'maybe', `${kind}: the last key inserted`);
      assert.ok((await probe(page, 'key-299')).text.includes('maybe'));
    }
    assert.deepEqual(browser.consoleErrors, []);
    await page.close();
  });

  test('int64 and float64 files take typed numbers and refuse text with the library\'s mismatch message', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    const keys = Array.from({ length: 301 }, (_, i) => String(i - 50));
    const file = path.join(dir, 'int.bkf');
    run('build', '-q', '--kind', 'blocked', '--format', 'int', '-o', file, writeKeys('ints.txt', keys));
    await openFile(page, file);
    assert.equal(await page.textContent('#file-key-type'), 'int64');
    assert.equal(Number((await page.textContent('#file-inserted')).replace(/[^0-9]/g, '')), 301);
    for (const key of ['-50', '-1', '0', '7', '250']) assert.equal((await probe(page, key)).answer, 'maybe', key);
    const absent = ['251', '100000', '-51', '18446744073709551615', '-9223372036854775808'];
    const expected = cliAnswers(file, absent);
    for (const key of absent) assert.equal((await probe(page, key)).answer, expected[key] ? 'maybe' : 'no', key);
    // Text is not a key of an int64 filter: the library says so, never a silent "no".
    for (const key of ['abc', '12x', '', '1.5']) {
      const { answer, text } = await probe(page, key);
      assert.equal(answer, 'error', `"${key}": ${text}`);
      assert.ok(text.includes('the filter holds int64 keys'), text);
    }
    // A float64 file takes numbers, as `bloomkit query` reads them for it.
    const floats = Array.from({ length: 100 }, (_, i) => String(i / 4 - 3));
    const floatFile = path.join(dir, 'float.bkf');
    run('build', '-q', '--kind', 'standard', '--format', 'f64', '-o', floatFile, writeKeys('floats.txt', floats));
    await openFile(page, floatFile, 'drop');
    assert.equal(await page.textContent('#file-key-type'), 'float64');
    for (const key of ['-3', '0.25', '21.75', '2.175e1']) assert.equal((await probe(page, key)).answer, 'maybe', key);
    const floatAnswers = cliAnswers(floatFile, ['0.3', '1e300', 'inf']);
    for (const key of ['0.3', '1e300', 'inf']) assert.equal((await probe(page, key)).answer, floatAnswers[key] ? 'maybe' : 'no', key);
    const refused = await probe(page, 'seven');
    assert.equal(refused.answer, 'error');
    assert.ok(refused.text.includes('the filter holds float64 keys'), refused.text);
    assert.deepEqual(browser.consoleErrors, []);
    await page.close();
  });

  test('truncated, altered and foreign files show the library\'s error and nothing of the file', async () => {
    const page = await browser.newPage();
    await load(page, browser.url);
    const good = path.join(dir, 'good.bkf');
    run('build', '-q', '--kind', 'blocked', '-o', good, writeKeys('few.txt', textKeys.slice(0, 50)));
    const bytes = readFileSync(good);
    const truncated = path.join(dir, 'truncated.bkf');
    writeFileSync(truncated, bytes.subarray(0, bytes.length - 100));
    const altered = path.join(dir, 'altered.bkf');
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 10] ^= 0x40;  // one bit of the payload
    writeFileSync(altered, flipped);
    const header = path.join(dir, 'header.bkf');
    const badHeader = Buffer.from(bytes);
    badHeader[20] ^= 0x01;  // a header field
    writeFileSync(header, badHeader);
    const foreign = writeKeys('notes.txt', ['not a filter']);
    const empty = path.join(dir, 'empty.bkf');
    writeFileSync(empty, '');

    for (const [file, how] of [[truncated, 'pick'], [altered, 'drop'], [header, 'pick'], [foreign, 'drop'], [empty, 'pick']]) {
      // The CLI prints the library's sentence after "bloomkit: FILE: ": `info` for the bloomkit format
      // (its own words for a checksum, which it reports rather than refuses), `query` for a file it loads.
      const sentences = ['info', 'query'].map((command) => {
        const cliRun = spawnSync(cli, [command, file, ...(command === 'query' ? ['key-1'] : [])], { encoding: 'utf8' });
        assert.notEqual(cliRun.status, 0, `${file}: bloomkit ${command} refuses it too`);
        return cliRun.stderr.trim().split('\n').pop().replace(`bloomkit: ${file}: `, '');
      });
      await openFile(page, good);  // a good file first: its figures must go
      assert.equal(await page.isHidden('#file-details'), false);
      await openFile(page, file, how);
      const shown = await page.textContent('#file-error');
      assert.equal(await page.isHidden('#file-error'), false, `${path.basename(file)}: an error is shown`);
      assert.ok(shown.startsWith(`${path.basename(file)}: `), shown);
      assert.ok(sentences.some((sentence) => shown.includes(sentence)), `${path.basename(file)}: the page says "${shown}", the CLI ${JSON.stringify(sentences)}`);
      assert.equal(await page.isHidden('#file-details'), true, `${path.basename(file)}: nothing of the file is shown`);
      assert.equal(await page.evaluate(() => window.bloomkitFileSummary()), null);
    }
    // The page still works after all that.
    await openFile(page, good, 'drop');
    assert.equal(await page.isHidden('#file-error'), true);
    assert.equal((await probe(page, 'key-3')).answer, 'maybe');
    assert.deepEqual(browser.consoleErrors, []);
    await page.close();
  });
});
