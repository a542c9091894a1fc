// hub.test.mjs: the model id box's logic (web/hub.js) against a local stand-in for the Hub
// (127.0.0.1; no test reaches the internet): id parsing, the URL asked, the gated/missing
// answers, the cache in the page's storage, and the CSP that allows only the Hub's origin.
//   node --test tests/web/hub.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseModelId, hubBase, configUrl, loadConfig, HubError, HUB_DEFAULT } from '../../web/hub.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const QWEN = readFileSync(path.join(ROOT, 'tests/fixtures/configs/hf/qwen3-30b-a3b.json'), 'utf8');

const seen = [];
const server = http.createServer((req, res) => {
  seen.push({ url: req.url, cookie: req.headers.cookie, auth: req.headers.authorization });
  if (req.url === '/Qwen/Qwen3-30B-A3B/resolve/main/config.json') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' }).end(QWEN);
  } else if (req.url === '/meta-llama/Llama-3.3-70B-Instruct/resolve/main/config.json') {
    res.writeHead(401, { 'Access-Control-Allow-Origin': '*' }).end('Access to model is restricted.');
  } else if (req.url === '/x/not-json/resolve/main/config.json') {
    res.writeHead(200).end('<html>');
  } else {
    res.writeHead(404).end('Entry not found');
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const BASE = `http://127.0.0.1:${server.address().port}`;
after(() => server.close());

function memStorage() {
  const m = new Map();
  return { getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)), size: () => m.size };
}

test('ids: org/name or a Hub URL; anything else is refused with a message', () => {
  assert.equal(parseModelId(' Qwen/Qwen3-8B '), 'Qwen/Qwen3-8B');
  assert.equal(parseModelId('https://huggingface.co/google/gemma-3-1b-it/tree/main'), 'google/gemma-3-1b-it');
  for (const bad of ['', 'llama', 'a/b/c', '../etc/passwd', 'a/..', 'org/na me', '<script>/x', 'https://evil.example/a/b'])
    assert.throws(() => parseModelId(bad), (e) => e instanceof HubError && e.kind === 'id', bad);
});

test('the base URL is configurable; an unusable setting falls back to the Hub', () => {
  assert.equal(hubBase(undefined), HUB_DEFAULT);
  assert.equal(hubBase('javascript:alert(1)'), HUB_DEFAULT);
  assert.equal(hubBase(`${BASE}/`), BASE);
  assert.equal(configUrl(HUB_DEFAULT, 'Qwen/Qwen3-8B'), 'https://huggingface.co/Qwen/Qwen3-8B/resolve/main/config.json');
});

test('a public model: fetched once without credentials, then served from the page cache', async () => {
  const storage = memStorage();
  seen.length = 0;
  const a = await loadConfig('Qwen/Qwen3-30B-A3B', { base: BASE, storage });
  assert.equal(a.cached, false);
  assert.equal(JSON.parse(a.text).model_type, 'qwen3_moe');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].cookie, undefined);
  assert.equal(seen[0].auth, undefined);
  const b = await loadConfig('Qwen/Qwen3-30B-A3B', { base: BASE, storage });
  assert.equal(b.cached, true);
  assert.equal(b.text, a.text);
  assert.equal(seen.length, 1, 'the second read did not reach the server');
});

test('gated, missing, not JSON and unreachable each say what to do', async () => {
  const storage = memStorage();
  await assert.rejects(loadConfig('meta-llama/Llama-3.3-70B-Instruct', { base: BASE, storage }),
    (e) => e.kind === 'gated' && /paste it below/.test(e.message));
  await assert.rejects(loadConfig('nobody/nothing', { base: BASE, storage }), (e) => e.kind === 'missing');
  await assert.rejects(loadConfig('x/not-json', { base: BASE, storage }), (e) => e.kind === 'bad');
  await assert.rejects(loadConfig('a/b', { base: 'http://127.0.0.1:1', storage }), (e) => e.kind === 'network');
  assert.equal(storage.size(), 0, 'nothing refused is cached');
});

test("the page's CSP lets scripts connect to its own origin and the Hub only", () => {
  const html = readFileSync(path.join(ROOT, 'web/index.html'), 'utf8');
  const csp = html.match(/Content-Security-Policy" content="([^"]+)"/)[1];
  const connect = csp.split(';').map((d) => d.trim()).find((d) => d.startsWith('connect-src'));
  assert.equal(connect, "connect-src 'self' https://huggingface.co");
  assert.match(html, /id="hub-id"/);
  assert.match(html, /no cookies or token are sent/);
});
