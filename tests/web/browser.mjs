// browser.mjs: what the browser tests share: the built site served on 127.0.0.1, Debian's
// headless Chromium (playwright-core), a page per test that records dialogs, errors and
// requests to other origins, and the reference estimate of a plan (native CLI, else WASM).
//
//   const B = useBrowser();            // registers before/after hooks of node:test
//   const { context, page, log } = await B.openPage('#v2...', { viewport: {...} });
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SITE = path.join(ROOT, 'dist/site');
export const OUT = path.join(ROOT, 'tests/out/web');
export const FIX = path.join(ROOT, 'tests/web/fixtures');
export const PROBE_FIX = path.join(ROOT, 'tests/probe/fixtures');
export const EXAMPLES = path.join(ROOT, 'examples');
const CLI = process.env.VP_CLI || path.join(ROOT, 'build/cli/vramplan');
const CHROMIUM = process.env.VP_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
export const XSS = '<img src=x onerror=alert(1)>';

/** Starts the server and the browser before the file's tests; returns the page helpers. */
export function useBrowser() {
  const B = { server: null, browser: null };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'vramplan-e2e-'));
  before(async () => {
    mkdirSync(OUT, { recursive: true });
    B.server = await serve({ root: SITE });
    B.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await B.browser?.close();
    await B.server?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** A fresh context (empty storage unless opts.storage) and page that records dialogs, errors and requests. */
  B.openPage = async (fragment = '', opts = {}) => {
    const { storage, wait = true, ...ctxOpts } = opts;
    const context = await B.browser.newContext({ viewport: { width: 1280, height: 900 }, ...ctxOpts });
    if (storage) {
      await context.addInitScript((items) => {
        if (sessionStorage.getItem('__seeded')) return;
        sessionStorage.setItem('__seeded', '1');
        for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v);
      }, storage);
    }
    const page = await context.newPage();
    const log = { dialogs: [], errors: [], console: [], foreign: [] };
    page.on('dialog', (d) => {
      log.dialogs.push(d.message());
      d.dismiss().catch(() => {});
    });
    page.on('pageerror', (e) => log.errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') log.console.push(m.text()); });
    page.on('request', (r) => { if (!r.url().startsWith(B.server.url) && !r.url().startsWith('data:')) log.foreign.push(r.url()); });
    await page.goto(B.server.url + fragment);
    if (wait) await page.waitForSelector('html[data-ready="true"]', { timeout: 15000 });
    return { context, page, log };
  };

  /** The reference estimate for a plan: the native CLI, or the WASM build in Node without it. */
  B.referenceEstimate = async (plan) => {
    const text = JSON.stringify(plan);
    if (existsSync(CLI)) {
      const file = path.join(tmp, `plan-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, text);
      try {
        return { by: 'cli', est: JSON.parse(execFileSync(CLI, ['estimate', '--plan', file, '--json'], { encoding: 'utf8', stdio: 'pipe' })) };
      } catch (e) {
        // a refused plan: the CLI says why on stderr only; the WASM build gives the error JSON
        // (wasm.test.mjs holds the two byte-identical where the CLI prints JSON)
        const { est } = await wasmEstimate(text);
        assert.ok(est.error && String(e.stderr).includes(est.error.message), `the CLI refused it for the same reason: ${e.stderr}`);
        return { by: 'cli (refused) + wasm-in-node', est };
      }
    }
    return wasmEstimate(text);
  };
  return B;
}

let nodeCore = null;
/** The WASM core in Node (the same build the page runs). */
export async function nodeCoreInstance() {
  if (!nodeCore) {
    const { loadCore } = await import(pathToFileURL(path.join(SITE, 'vramplan-core.js')).href);
    nodeCore = await loadCore({ wasmBinary: readFileSync(path.join(SITE, 'vramplan.wasm')) });
  }
  return nodeCore;
}

export async function wasmEstimate(text) {
  const core = await nodeCoreInstance();
  return { by: 'wasm-in-node (no CLI built)', est: JSON.parse(core.estimate(text)) };
}

export const peakBytes = (page) => page.$eval('#verdict [data-key="peak_alloc_bytes"]', (el) => Number(el.dataset.bytes));
export const reservedBytes = (page) => page.$eval('#verdict [data-key="peak_reserved_bytes"]', (el) => Number(el.dataset.bytes));
export const smiBytes = (page) => page.$eval('#verdict [data-key="nvidia_smi_bytes"]', (el) => Number(el.dataset.bytes));
export const estimates = (page) => page.evaluate(() => window.__vramplan.perf.estimates);

/** Waits until an estimate newer than `since` has been drawn (or an error shown). */
export async function settled(page, since) {
  await page.waitForFunction((n) => window.__vramplan.perf.estimates > n
    || document.querySelector('#verdict.error'), since, { timeout: 10000 });
  await page.waitForTimeout(50);
}

/** Picks a tab-style radio the way a person does: by clicking its label. */
export async function choose(page, name, value) {
  await page.click(`label:has(> input[name="${name}"][value="${value}"])`);
  assert.ok(await page.isChecked(`input[name="${name}"][value="${value}"]`));
}

/** A full-page screenshot; the viewport grows first so the sticky results panel is whole. */
export async function shot(page, name) {
  const vp = page.viewportSize();
  const need = await page.evaluate(() => Math.max(document.documentElement.scrollHeight,
    document.getElementById('results').scrollHeight + 40));
  if (need > vp.height) await page.setViewportSize({ width: vp.width, height: Math.min(need, 4000) });
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
  if (need > vp.height) await page.setViewportSize(vp);
}

/** Drops a file with this text on a selector, as a person dragging it there does. */
export async function dropText(page, selector, text, name = 'file.json') {
  const dt = await page.evaluateHandle(([t, n]) => {
    const d = new DataTransfer();
    d.items.add(new File([t], n, { type: 'application/json' }));
    return d;
  }, [text, name]);
  await page.dispatchEvent(selector, 'drop', { dataTransfer: dt });
}

/** A v2 share link (uncompressed form) for a packed setup {s, p}. */
export function linkFor(payload) {
  return `#v2.j.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
}

export function assertClean(log) {
  assert.deepEqual(log.dialogs, [], 'no dialog may open');
  assert.deepEqual(log.errors, [], 'no uncaught page error');
  assert.deepEqual(log.foreign, [], 'no request to another origin');
  assert.deepEqual(log.console, [], 'no console error (CSP violations show here)');
}
