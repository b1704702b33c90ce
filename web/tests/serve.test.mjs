// web/tests/serve.test.mjs - web/serve.sh: 127.0.0.1, the URL printed, the
// MIME types a browser insists on, nothing served from outside web/, and a
// clear message for a bad port.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { webDir } from './browser.mjs';

const serveScript = path.join(webDir, 'serve.sh');

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

test('serve.sh prints its URL and serves the page with the right MIME types', async () => {
  const port = await freePort();
  const child = spawn(serveScript, ['--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 10000);
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
        if (match) {
          clearTimeout(timer);
          resolve(match[0]);
        }
      });
      child.once('exit', (code) => reject(new Error(`serve.sh exited with ${code}: ${out}`)));
    });
    assert.equal(url, `http://127.0.0.1:${port}/`);
    const types = {
      '': 'text/html',
      'index.html': 'text/html',
      'app.js': 'text/javascript',
      'style.css': 'text/css',
      'dist/playground.mjs': 'text/javascript',
      'dist/playground.wasm': 'application/wasm',
    };
    for (const [file, type] of Object.entries(types)) {
      const response = await fetch(url + file);
      assert.equal(response.status, 200, file);
      assert.equal(response.headers.get('content-type').split(';')[0], type, file);
      await response.arrayBuffer();
    }
    assert.equal((await fetch(`${url}missing.html`)).status, 404);
    // An encoded "../" must not reach files outside web/.
    const escape = await fetch(`${url}%2e%2e/bloomkit.sh`);
    assert.ok(escape.status === 403 || escape.status === 404, `status ${escape.status}`);
    assert.equal((await fetch(url, { method: 'POST' })).status, 405);
  } finally {
    child.kill('SIGTERM');
  }
});

test('serve.sh refuses a bad port with a message and a non-zero exit', () => {
  for (const port of ['0', '70000', 'http']) {
    const result = spawnSync(serveScript, ['--port', port], { encoding: 'utf8', timeout: 10000 });
    assert.notEqual(result.status, 0, `--port ${port}`);
    assert.match(result.stderr, /--port must be a whole number in \[1, 65535\]/);
  }
});
