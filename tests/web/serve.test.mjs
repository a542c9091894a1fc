// serve.test.mjs: the Serve mode page (web/serve.html, issue 15) in headless Chromium: the core's
// serving figures and launch command are shown as the native CLI computes them, the form state
// survives the share link, llama.cpp's knobs reach the plan, and a hostile config.json stays text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, ROOT, XSS, assertClean } from './browser.mjs';

const B = useBrowser();
const CLI = process.env.VP_CLI || path.join(ROOT, 'build/cli/vramplan');

async function open(fragment = '') {
  const r = await B.openPage(`serve.html${fragment}`, { wait: false });
  await r.page.waitForFunction(() => window.__vramplanServe?.ready === true, null, { timeout: 20000 });
  return r;
}

test('serve page: vLLM figures and launch command from the core', async () => {
  const { context, page, log } = await open();
  const launch = await page.textContent('#serve-launch');
  assert.match(launch, /^vllm serve meta-llama\/Llama-3\.1-8B/);
  const lines = await page.$$eval('#serve-lines li', (li) => li.map((x) => x.textContent));
  assert.ok(lines.some((l) => l.startsWith('KV cache:')), lines.join('\n'));
  const plan = await page.evaluate(() => window.__vramplanServe.plan());
  if (existsSync(CLI)) {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'vramplan-serve-')), 'plan.json');
    writeFileSync(file, plan);
    const est = JSON.parse(execFileSync(CLI, ['estimate', '--plan', file, '--json']).toString());
    const summary = await page.textContent('#serve-summary');
    assert.equal(summary, est.summary);
    assert.equal(launch, est.serving.launch);
  }
  assertClean(log);
  await context.close();
});

test('serve page: llama.cpp knobs and the share link', async () => {
  const { context, page, log } = await open();
  await page.selectOption('#serve-engine', 'llamacpp');
  await page.fill('#serve-quant', 'Q4_K_M');
  await page.fill('#serve-ctx', '8192');
  await page.fill('#serve-ngl', '20');
  await page.waitForFunction(() => /-ngl 20 -c 8192/.test(document.getElementById('serve-launch').textContent));
  const url = page.url();
  assert.match(url, /#./);
  const again = await open(url.slice(url.indexOf('#')));
  assert.equal(await again.page.inputValue('#serve-engine'), 'llamacpp');
  assert.match(await again.page.textContent('#serve-launch'), /^llama-server -m Llama-3\.1-8B-Q4_K_M\.gguf -ngl 20 -c 8192/);
  assertClean(log);
  assertClean(again.log);
  await again.context.close();
  await context.close();
});

test('serve page: a hostile config.json is shown as text, never run', async () => {
  const { context, page, log } = await open();
  const cfg = JSON.stringify({ _name_or_path: XSS, model_type: 'llama', hidden_size: 64, num_hidden_layers: 2,
    num_attention_heads: 4, vocab_size: 100, intermediate_size: 128 });
  await page.fill('#serve-config', cfg);
  await page.waitForFunction(() => /vllm serve _img_src_x_onerror_alert_1__/.test(document.getElementById('serve-launch').textContent));
  assert.equal(await page.$$eval('#serve-results img', (x) => x.length), 0);
  await page.fill('#serve-config', '{not json');
  await page.waitForFunction(() => !document.getElementById('serve-error').hidden);
  assert.equal(log.dialogs.length, 0);
  await context.close();
});
