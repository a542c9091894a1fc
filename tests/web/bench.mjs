// bench.mjs: prints the page's size and speed figures (reported, not asserted).
//
//   node tests/web/bench.mjs        (after web/build.sh)
// Targets: dist/site ≤ 250 KiB gzip (web/build.sh fails above 256,000 B); first estimate drawn ≤ 1 s after navigation;
// one re-estimate in the worker ≤ 2 ms (median of 1000); longest main-thread task while
// typing ≤ 50 ms.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SITE = path.join(ROOT, 'dist/site');
const CHROMIUM = process.env.VP_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

const median = (xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s[s.length >> 1];
};
const line = (name, value, target, ok) => console.log(`bench: ${name.padEnd(52)} ${value.padStart(12)}   target ${target}${ok === undefined ? '' : ok ? '   ok' : '   OVER'}`);

// 1. size
let gz = 0;
let raw = 0;
const walk = (dir) => readdirSync(dir).flatMap((f) => {
  const p = path.join(dir, f);
  return statSync(p).isDirectory() ? walk(p) : [p];
});
for (const p of walk(SITE)) {
  const b = readFileSync(p);
  raw += b.length;
  gz += gzipSync(b, { level: 9 }).length;
}
line('dist/site gzip total', `${(gz / 1024).toFixed(1)} KiB`, '≤ 250 KiB', gz <= 250 * 1024); // web/build.sh's budget, 256,000 B
line('dist/site raw total', `${(raw / 1024).toFixed(1)} KiB`, '-');

// 2. WASM in Node (no worker, no page): median of 1000 estimates
const { loadCore } = await import(pathToFileURL(path.join(SITE, 'vramplan-core.js')).href);
const core = await loadCore({ wasmBinary: readFileSync(path.join(SITE, 'vramplan.wasm')) });
const plan = JSON.stringify({
  schema: 'vramplan/plan@1', workload: { mode: 'train', batch: 4, seq: 1024 },
  instances: [{ model: { preset: 'llama-3.2-1b' }, precision: 'amp_bf16', optimizer: { name: 'adamw', impl: 'foreach' } }],
  hardware: { gpu: 'h100-sxm-80gb', count: 1 },
});
// a plan that does not fit: the core then re-estimates each suggestion too
const tight = JSON.stringify({
  schema: 'vramplan/plan@1', workload: { mode: 'train', batch: 8, seq: 4096 },
  instances: [{ model: { preset: 'llama-3.1-8b' } }], hardware: { gpu: 'a10g', count: 1 },
});
for (let i = 0; i < 100; i++) core.estimate(plan);
const nodeMs = [];
for (let i = 0; i < 1000; i++) {
  const t0 = performance.now();
  core.estimate(plan);
  nodeMs.push(performance.now() - t0);
}
line('estimate in Node WASM, median of 1000', `${median(nodeMs).toFixed(3)} ms`, '≤ 2 ms', median(nodeMs) <= 2);

// 2b. the planning layer in Node WASM: one fit, and one recommend over ~13,000 setups (wasm/vp_wasm.c)
{
  const { default: createVramplan } = await import(pathToFileURL(path.join(SITE, 'vramplan.mjs')).href);
  const raw = await createVramplan({ wasmBinary: readFileSync(path.join(SITE, 'vramplan.wasm')), print: () => {}, printErr: () => {} });
  const vpw = (name, ...args) => {
    const ptrs = [];
    const cargs = args.map((a) => {
      if (typeof a !== 'string') return a;
      const n = raw.lengthBytesUTF8(a) + 1;
      const p = raw._malloc(n);
      raw.stringToUTF8(a, p, n);
      ptrs.push(p);
      return p;
    });
    const out = raw[`_${name}`](...cargs);
    const text = raw.UTF8ToString(out);
    for (const p of ptrs) raw._free(p);
    raw._vpw_free(out);
    return text;
  };
  const l1b = JSON.stringify({ schema: 'vramplan/plan@1', workload: { batch: 1, seq: 1024 }, instances: [{ model: { preset: 'llama-3.2-1b' } }] });
  vpw('vpw_fit', l1b, 'batch', 0);
  const fitMs = [];
  let fit;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    fit = JSON.parse(vpw('vpw_fit', l1b, 'batch', 0));
    fitMs.push(performance.now() - t0);
  }
  line(`fit --max batch in Node WASM (${fit.estimates} estimates), median of 5`, `${median(fitMs).toFixed(1)} ms`, '≤ 2 ms (native)', median(fitMs) <= 2);
  // fp32 Llama-3.2-1B, global batch 110,880 (144 divisors) × 6 checkpointing × 5 AdamW × 3 precisions
  const sweep = JSON.stringify({ schema: 'vramplan/plan@1', workload: { batch: 1, seq: 1024 }, instances: [{ model: { preset: 'llama-3.2-1b' }, precision: 'fp32' }] });
  const t0 = performance.now();
  const rec = JSON.parse(vpw('vpw_recommend', sweep, 110880, 0));
  const recMs = performance.now() - t0;
  line(`recommend in Node WASM (${rec.setups} setups, ${rec.estimates} estimates)`, `${recMs.toFixed(0)} ms`, '≤ 100 ms', recMs <= 100);
  const t1 = performance.now();
  for (let i = 0; i < 20; i++) core.estimate(l1b);
  line('  one estimate of that plan in Node WASM (for scale)', `${((performance.now() - t1) / 20).toFixed(3)} ms`, '-');
}

// 3. in the browser
const server = await serve({ root: SITE });
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
try {
  const first = [];
  for (let i = 0; i < 5; i++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(server.url);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 15000 });
    first.push(await page.evaluate(() => window.__vramplan.perf.firstEstimateMs));
    await ctx.close();
  }
  line('first estimate drawn after navigation (median of 5)', `${median(first).toFixed(0)} ms`, '≤ 1000 ms', median(first) <= 1000);

  const ctx = await browser.newContext();
  await ctx.addInitScript(() => {
    window.__longtasks = [];
    window.__events = [];
    try {
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longtasks.push(e.duration); })
        .observe({ type: 'longtask', buffered: true });
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__events.push(e.duration); })
        .observe({ type: 'event', buffered: true, durationThreshold: 16 });
    } catch { /* observer types not supported */ }
  });
  const page = await ctx.newPage();
  await page.goto(server.url);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 15000 });
  const w = await page.evaluate(async (p) => window.__vramplan.core.bench(p, 1000), plan);
  line('re-estimate in the worker, median of 1000', `${w.median_ms.toFixed(3)} ms`, '≤ 2 ms', w.median_ms <= 2);
  line('re-estimate in the worker, mean of 1000', `${w.mean_ms.toFixed(3)} ms`, '-');
  const wt = await page.evaluate(async (p) => window.__vramplan.core.bench(p, 1000), tight);
  line('same, a plan that does not fit (+ suggestions)', `${wt.median_ms.toFixed(3)} ms`, '≤ 2 ms', wt.median_ms <= 2);
  for (const [file, what] of [['phi3-dpo-reference.json', '2 models, does not fit'], ['rlhf-ppo.json', '4 models, ZeRO-3 × 8'],
    ['qwen2vl-mend-two-gpus.json', '3 models on 2 GPUs']]) {
    const text = readFileSync(path.join(ROOT, 'examples', file), 'utf8');
    const r = await page.evaluate(async (p) => window.__vramplan.core.bench(p, 1000), text);
    line(`same, ${file.replace('.json', '')} (${what})`, `${r.median_ms.toFixed(3)} ms`, '≤ 2 ms', r.median_ms <= 2);
  }

  // typing: clear the long-task record, type into two fields, let the estimates land
  await page.evaluate(() => { window.__longtasks.length = 0; window.__events.length = 0; });
  const before = await page.evaluate(() => window.__vramplan.perf.estimates);
  await page.click('#seq', { clickCount: 3 });
  await page.keyboard.type('40961024', { delay: 40 });
  await page.click('#batch', { clickCount: 3 });
  await page.keyboard.type('1632', { delay: 40 });
  await page.waitForTimeout(500);
  const { longtasks, events, after } = await page.evaluate(() => ({
    longtasks: window.__longtasks, events: window.__events, after: window.__vramplan.perf.estimates,
  }));
  const longest = longtasks.length ? Math.max(...longtasks) : 0;
  line('longest main-thread task while typing', longtasks.length ? `${longest.toFixed(0)} ms` : '< 50 ms', '≤ 50 ms', longest <= 50);
  line('slowest input event while typing (≥16 ms)', events.length ? `${Math.max(...events).toFixed(0)} ms` : '< 16 ms', '-');
  line('estimates drawn while typing 12 keys', String(after - before), '-');

  // whole setups: load an example, apply a suggestion, add and remove a model
  await page.evaluate(() => { window.__longtasks.length = 0; });
  const t0 = await page.evaluate(() => performance.now());
  let n = await page.evaluate(() => window.__vramplan.perf.estimates);
  await page.click('#examples-menu > summary');
  await page.click('#examples-list button[data-example="phi3-dpo-reference.json"]');
  await page.waitForFunction((k) => window.__vramplan.perf.estimates > k && document.querySelector('#suggestions button.apply'), n);
  const t1 = await page.evaluate(() => performance.now());
  n = await page.evaluate(() => window.__vramplan.perf.estimates);
  await page.click('#suggestions li[data-id="adamw_8bit"] button.apply');
  await page.waitForFunction((k) => window.__vramplan.perf.estimates > k, n);
  const t2 = await page.evaluate(() => performance.now());
  for (const role of ['teacher', 'ema', 'reward']) {
    await page.selectOption('#add-role', role);
    await page.click('#add-instance');
  }
  for (let i = 0; i < 3; i++) await page.click('#remove-instance');
  await page.waitForTimeout(300);
  const lt = await page.evaluate(() => window.__longtasks);
  const longest2 = lt.length ? Math.max(...lt) : 0;
  line('load an example: click to estimate drawn', `${(t1 - t0).toFixed(0)} ms`, '-');
  line('apply a suggestion: click to estimate drawn', `${(t2 - t1).toFixed(0)} ms`, '-');
  line('longest main-thread task (example, apply, add/remove)', lt.length ? `${longest2.toFixed(0)} ms` : '< 50 ms', '≤ 50 ms', longest2 <= 50);
  await ctx.close();
} finally {
  await browser.close();
  await server.close();
}
