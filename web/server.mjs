// web/server.mjs - a small static file server for the playground.
//
//   node web/server.mjs [--port N] [--host H] [--root DIR]
//
// Serves DIR (default: this folder) on 127.0.0.1 (default port 8080) with the
// MIME types the page needs: application/wasm (required by
// WebAssembly.instantiateStreaming) and text/javascript for .mjs (module
// scripts are refused under any non-JavaScript type). GET and HEAD only; paths
// that leave DIR are refused. web/serve.sh runs it; the browser tests import
// startServer() to serve the page on a free port.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Content types by file extension (anything else: application/octet-stream). */
export const mimeTypes = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Starts serving `root` on host:port (port 0 picks a free one). Resolves to
 * { server, url } once listening; rejects with the listen error (for example
 * EADDRINUSE).
 */
export function startServer({ root = here, host = '127.0.0.1', port = 8080 } = {}) {
  const base = path.resolve(root);
  const server = createServer(async (request, response) => {
    const fail = (status, text) => {
      response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end(request.method === 'HEAD' ? undefined : `${text}\n`);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return fail(405, 'method not allowed');
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    } catch {
      return fail(400, 'bad request');
    }
    if (pathname.includes('\0')) return fail(400, 'bad request');
    let file = path.resolve(base, `.${pathname}`);
    if (file !== base && !file.startsWith(base + path.sep)) return fail(403, 'forbidden');
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = path.join(file, 'index.html');
        info = await stat(file);
      }
      if (!info.isFile()) return fail(404, 'not found');
      const type = mimeTypes[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
      response.writeHead(200, { 'Content-Type': type, 'Content-Length': info.size, 'Cache-Control': 'no-cache' });
      if (request.method === 'HEAD') return response.end();
      createReadStream(file)
        .on('error', () => response.destroy())
        .pipe(response);
    } catch {
      fail(404, 'not found');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const { port: actual } = server.address();
      resolve({ server, url: `http://${host}:${actual}/` });
    });
  });
}

function parseArguments(argv) {
  const options = { port: 8080, host: '127.0.0.1', root: here };
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    const value = argv[i + 1];
    if (argument === '-h' || argument === '--help') {
      console.log('usage: serve.sh [--port N] [--host H] [--root DIR]   (default 127.0.0.1:8080, this folder)');
      process.exit(0);
    } else if (argument === '--port' || argument === '--host' || argument === '--root') {
      if (value === undefined) throw new Error(`${argument} needs a value`);
      options[argument.slice(2)] = value;
      i++;
    } else {
      throw new Error(`unknown argument ${argument} (try --help)`);
    }
  }
  if (!/^\d+$/.test(String(options.port)) || Number(options.port) < 1 || Number(options.port) > 65535) {
    throw new Error(`--port must be a whole number in [1, 65535], got ${options.port}`);
  }
  options.port = Number(options.port);
  return options;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const options = parseArguments(process.argv.slice(2));
    const { url } = await startServer(options);
    console.log(`bloomkit playground: ${url}  (Ctrl-C to stop)`);
  } catch (error) {
    const reason = error.code === 'EADDRINUSE' ? 'that port is already in use; pick another with --port N' : error.message;
    console.error(`serve: ${reason}`);
    process.exit(1);
  }
}
