// serve.mjs: a tiny static server for dist/site on 127.0.0.1 (tests and `make serve`).
//
//   node tests/web/serve.mjs [--port N] [--root DIR]   (port 0 = any free port)
// Prints "vramplan site: http://127.0.0.1:PORT/" once listening. Also importable:
//   const { url, close } = await serve({ root, port });
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_ROOT = path.resolve(HERE, '../../dist/site');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

export async function serve({ root = DEFAULT_ROOT, port = 0, host = '127.0.0.1' } = {}) {
  const base = path.resolve(root);
  const server = http.createServer(async (req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      let rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (rel.endsWith('/')) rel += 'index.html';
      const file = path.resolve(base, `.${rel}`);
      if (file !== base && !file.startsWith(base + path.sep)) {
        res.writeHead(403).end();
        return;
      }
      const body = await fs.readFile(file);
      res.writeHead(200, {
        'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
        'Content-Length': body.length,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const { port: actual } = server.address();
  return {
    url: `http://${host}:${actual}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, def) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? args[i + 1] : def;
  };
  const root = path.resolve(opt('--root', DEFAULT_ROOT));
  try {
    await fs.access(path.join(root, 'index.html'));
  } catch {
    console.error(`serve.mjs: ${root}/index.html not found (build the site first: bash web/build.sh)`);
    process.exit(1);
  }
  const { url } = await serve({ root, port: Number(opt('--port', '8000')) });
  console.log(`vramplan site: ${url}`);
}
