// e2e.test.mjs: the built page (dist/site) in Debian's headless Chromium via playwright-core.
//
//   node --test tests/web/e2e.test.mjs     (after web/build.sh)
// VP_CHROMIUM overrides /usr/bin/chromium; VP_CLI the native CLI. Screenshots go to
// tests/out/web/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  useBrowser, FIX, PROBE_FIX, EXAMPLES, XSS, peakBytes, reservedBytes, smiBytes, estimates, settled, choose, shot, assertClean,
} from './browser.mjs';
import { gpuDisplayName } from '../../web/view.js';
import { decodeShare } from '../../web/share.js';

const B = useBrowser();
const openPage = B.openPage;
const referenceEstimate = B.referenceEstimate;

/**
 * The address bar's link once it decodes to `want`: encoding runs asynchronously, and a link written before the
 * last change can still be in place for a moment under load (web/controller.js linkSeq); up to ~10 s.
 */
async function linkOf(page, want) {
  let hash = '';
  for (let i = 0; i < 200; i++) {
    await page.waitForFunction(() => location.hash.startsWith('#v2.'));
    hash = new URL(page.url()).hash;
    if (isDeepStrictEqual((await decodeShare(hash)).state, want)) break;
    await page.waitForTimeout(50);
  }
  return hash;
}

test('the page loads, estimates and asks no other origin', async () => {
  const { context, page, log } = await openPage();
  assert.match(await page.textContent('#verdict .verdict-head'), /Fits|Does not fit/);
  assert.ok(await peakBytes(page) > 0);
  assert.ok(await page.locator('#devices .bar .seg').count() > 0, 'stacked bar drawn');
  assert.ok(await page.locator('#devices .phase.peak').count() >= 1, 'peak phase marked');
  assert.ok((await page.$$eval('#preset option', (o) => o.length)) > 10, 'presets listed');
  await shot(page, '01-loaded');
  assertClean(log);
  await context.close();
});

test('picking a preset and changing the batch matches the CLI for the same plan', async (t) => {
  const { context, page, log } = await openPage();
  await page.fill('#preset-search', 'llama 3.2 1b');
  await page.selectOption('#preset', 'llama-3.2-1b');
  let n = await estimates(page);
  await page.fill('#batch', '2');
  await settled(page, n);
  const before2 = await peakBytes(page);
  n = await estimates(page);
  await page.fill('#batch', '8');
  await settled(page, n);
  const after8 = await peakBytes(page);
  assert.ok(after8 > before2, `batch 8 (${after8}) needs more than batch 2 (${before2})`);

  const plan = await page.evaluate(() => window.__vramplan.plan());
  assert.equal(plan.workload.batch, 8);
  assert.deepEqual(plan.instances[0].model, { preset: 'llama-3.2-1b' });
  const { by, est } = await referenceEstimate(plan);
  t.diagnostic(`reference: ${by}`);
  assert.equal(after8, est.devices[0].peak_alloc_bytes, 'page total = reference total');
  assert.equal(await smiBytes(page), est.devices[0].nvidia_smi_bytes);
  // the breakdown table lists the same components with the same bytes
  const rows = await page.$$eval('#devices article:first-of-type tbody tr', (trs) => trs.map((tr) => ({
    id: tr.dataset.c, bytes: Number(tr.querySelector('[data-bytes]').dataset.bytes),
  })));
  const want = est.devices[0].components.map((c) => ({ id: c.id, bytes: c.bytes }));
  assert.deepEqual(rows, want, 'the breakdown lists the estimate\'s components in its order');
  await shot(page, '02-batch-8');
  assertClean(log);
  await context.close();
});

test('a job that does not fit: summary first, then what to change', async () => {
  const { context, page, log } = await openPage();
  await page.selectOption('#preset', 'llama-3.1-8b');
  await page.selectOption('#gpu', 'a10g');
  await page.fill('#seq', '4096');
  const n = await estimates(page);
  await page.fill('#batch', '8');
  await settled(page, n);
  await page.waitForSelector('#verdict[data-fits="false"]');
  assert.match(await page.textContent('#verdict .verdict-head'), /Does not fit/);
  const order = await page.$$eval('#verdict > *', (els) => els.map((e) => e.className));
  assert.ok(order.indexOf('summary') === 1, `the summary comes right after the verdict (${order})`);
  assert.match(await page.textContent('#verdict .headroom'), /Short by/);
  const plan = await page.evaluate(() => window.__vramplan.plan());
  const { est } = await referenceEstimate(plan);
  assert.equal(est.fits, false);
  // the core's sentence, with the GPU named in GiB terms as everywhere on the page
  assert.equal(await page.textContent('#verdict .summary'), est.summary.split(est.devices[0].name).join(gpuDisplayName(est.devices[0].name)));
  assert.equal(gpuDisplayName('NVIDIA A10G 24GB (AWS G5)'), 'NVIDIA A10G (AWS G5)');
  const shown = await page.$$eval('#suggestions li', (lis) => lis.map((li) => [li.dataset.id, li.querySelector('.change').textContent]));
  assert.deepEqual(shown, (est.suggestions || []).map((x) => [x.id, x.change]));
  await shot(page, '13-does-not-fit');
  assertClean(log);
  await context.close();
});

test('a share link restores exactly the same setup in a fresh page', async () => {
  const { context, page, log } = await openPage();
  await page.selectOption('#preset', 'qwen2.5-1.5b');
  await choose(page, 'finetune', 'lora');
  await page.fill('#lora-r', '32');
  await page.check('#grad-ckpt');
  await page.selectOption('#optimizer', 'adamw/fused');
  const n = await estimates(page);
  await page.fill('#seq', '2048');
  await settled(page, n);
  await page.click('#copy-link');
  const want = await page.evaluate(() => window.__vramplan.state);
  const hash = await linkOf(page, want);
  assert.match(hash, /^#v2\.[dj]\.[A-Za-z0-9_-]+$/);
  assert.ok(hash.length < 600, `link is compact (${hash.length} chars)`);
  const wantPeak = await peakBytes(page);
  await context.close();

  const fresh = await openPage(hash);
  assert.deepEqual(await fresh.page.evaluate(() => window.__vramplan.state), want);
  assert.equal(await peakBytes(fresh.page), wantPeak);
  assert.equal(await fresh.page.inputValue('#lora-r'), '32');
  assert.equal(await fresh.page.inputValue('#seq'), '2048');
  assert.ok(await fresh.page.isChecked('#grad-ckpt'));
  assert.equal(await fresh.page.isVisible('#banner'), false);
  await shot(fresh.page, '03-from-link');
  assertClean(log);
  assertClean(fresh.log);
  await fresh.context.close();
});

const X2 = path.join(PROBE_FIX, 'h100-sxm-x2-fake.json');

test('a probe file plans against that node and names it', async () => {
  const { context, page, log } = await openPage();
  await choose(page, 'hw-source', 'probe');
  // our fixture has a host name (probes written without --redact --hostname do)
  let n = await estimates(page);
  await page.setInputFiles('#probe-file', path.join(FIX, 'probe-h100.json'));
  await settled(page, n);
  assert.match(await page.textContent('#probe-info'), /gpu-node-07/);
  assert.match(await page.textContent('#verdict'), /gpu-node-07/);
  assert.match(await page.textContent('#devices h3'), /NVIDIA H100 HBM3/);
  const plan0 = await page.evaluate(() => window.__vramplan.plan());
  assert.equal(plan0.hardware.probe.host, undefined, 'the plan keeps what the estimate reads; the page names the node');
  const { est } = await referenceEstimate(plan0);
  assert.equal(await peakBytes(page), est.devices[0].peak_alloc_bytes);

  // the probe's own two-GPU fixture (redacted: no host name), dropped on the drop zone
  const x2 = existsSync(X2) ? X2 : path.join(FIX, 'probe-h100.json');
  n = await estimates(page);
  const text = readFileSync(x2, 'utf8');
  const dt = await page.evaluateHandle((t) => {
    const d = new DataTransfer();
    d.items.add(new File([t], 'probe.json', { type: 'application/json' }));
    return d;
  }, text);
  await page.dispatchEvent('#probe-drop', 'drop', { dataTransfer: dt });
  await settled(page, n);
  assert.equal(await page.inputValue('#probe-text'), text);
  const probe = JSON.parse(text);
  assert.equal(await page.$$eval('#probe-device option', (o) => o.length), probe.devices.length);
  if (!probe.host?.hostname && probe.time) assert.match(await page.textContent('#probe-info'), new RegExp(probe.time));
  await shot(page, '04-probe');
  const before = await peakBytes(page);
  const head0 = await page.textContent('#verdict .headroom');
  n = await estimates(page);
  await page.selectOption('#probe-device', '1');
  await settled(page, n);
  const plan1 = await page.evaluate(() => window.__vramplan.plan());
  assert.equal(plan1.hardware.device, 1);
  const ref1 = (await referenceEstimate(plan1)).est;
  assert.equal(await peakBytes(page), ref1.devices[0].peak_alloc_bytes);
  assert.match(await page.textContent('#verdict .source'), new RegExp(probe.devices[1].pci_bus_id ?? 'GPU 1'));
  if (probe.devices[1].memory.free_bytes !== probe.devices[0].memory.free_bytes) {
    assert.notEqual(await page.textContent('#verdict .headroom'), head0, 'less free memory, less headroom');
  }
  assert.ok(before > 0);

  // a file from something else: a message beside the drop zone, the good probe stays, the page still works
  await page.setInputFiles('#probe-file', path.join(FIX, 'not-a-probe.json'));
  await page.waitForSelector('#probe-text-msg:not([hidden])');
  assert.match(await page.textContent('#probe-text-msg'), /probe/i);
  assert.deepEqual((await page.evaluate(() => window.__vramplan.plan())).hardware, plan1.hardware);
  await shot(page, '05-not-a-probe');
  const truncated = path.join(PROBE_FIX, 'bad/truncated.json');
  if (existsSync(truncated)) {
    await page.setInputFiles('#probe-file', truncated);
    await page.waitForFunction(() => /not valid JSON/.test(document.querySelector('#probe-text-msg').textContent));
  }
  // pasted text that is not JSON marks the paste box
  await page.click('#probe-paste > summary');
  await page.fill('#probe-text', '{ "schema": "vramplan/gpu-probe@1", ');
  await page.waitForFunction(() => /not valid JSON/.test(document.querySelector('#probe-text-msg').textContent));
  assert.equal(await page.getAttribute('#probe-text', 'aria-invalid'), 'true');
  assertClean(log);
  await context.close();
});

test('a pasted Hugging Face config is estimated', async () => {
  const { context, page, log } = await openPage();
  await choose(page, 'model-source', 'hf');
  const n = await estimates(page);
  await page.fill('#hf-config', readFileSync(path.join(FIX, 'hf-llama-3.2-1b.json'), 'utf8'));
  await settled(page, n);
  assert.match(await page.textContent('#hf-config-info'), /meta-llama\/Llama-3\.2-1B/);
  assert.match(await page.textContent('#devices'), /llama/);
  const plan = await page.evaluate(() => window.__vramplan.plan());
  assert.equal(plan.instances[0].model.hf_config.hidden_size, 2048);
  const { est } = await referenceEstimate(plan);
  assert.equal(await peakBytes(page), est.devices[0].peak_alloc_bytes);
  await shot(page, '06-hf-config');

  // malformed JSON and a bad field: messages next to the config
  await page.fill('#hf-config', '{"model_type": "llama", "hidden_size": ');
  await page.waitForSelector('#hf-config-msg:not([hidden])');
  assert.match(await page.textContent('#hf-config-msg'), /not valid JSON/);
  const cfg = JSON.parse(readFileSync(path.join(FIX, 'hf-llama-3.2-1b.json'), 'utf8'));
  cfg.hidden_size = -5;
  await page.fill('#hf-config', JSON.stringify(cfg));
  await page.waitForFunction(() => /hidden_size/.test(document.querySelector('#hf-config-msg').textContent));
  assert.match(await page.textContent('#verdict'), /instances\[0\]\.model\.hf_config\.hidden_size/);
  await shot(page, '07-hf-bad-field');
  assertClean(log);
  await context.close();
});

test('a config named <img src=x onerror=alert(1)> shows as text and runs nothing', async () => {
  const { context, page, log } = await openPage();
  await choose(page, 'model-source', 'hf');
  const n = await estimates(page);
  await page.fill('#hf-config', readFileSync(path.join(FIX, 'hf-xss.json'), 'utf8'));
  await settled(page, n);
  await page.waitForTimeout(200);
  assert.equal(await page.locator('img').count(), 0, 'no <img> element was created');
  assert.ok((await page.textContent('#hf-config-info')).includes(XSS));
  assert.ok((await page.textContent('#devices')).includes(XSS), 'the name appears as text in the results');
  // and through a share link into a fresh page
  await page.click('#copy-link');
  await page.waitForFunction(() => location.hash.startsWith('#v2.'));
  const hash = new URL(page.url()).hash;
  await shot(page, '08-xss-as-text');
  assertClean(log);
  await context.close();
  const fresh = await openPage(hash);
  await fresh.page.waitForTimeout(200);
  assert.equal(await fresh.page.locator('img').count(), 0);
  assert.ok((await fresh.page.textContent('#devices')).includes(XSS));
  assertClean(fresh.log);
  await fresh.context.close();
});

test('corrupted and unknown-version links give a message and keep the page usable', async () => {
  for (const bad of ['#v1.d.AAAA_not*base64', '#v1.d.q1ZKzs8rSc0rUbJSKkrNS8nMS1eqBQA', '#v9.d.abc', '#hello']) {
    const { context, page, log } = await openPage(bad);
    await page.waitForSelector('#banner:not([hidden])');
    const msg = await page.textContent('#banner-text');
    assert.match(msg, /link|version/i, `message for ${bad}: ${msg}`);
    assert.match(msg, /unchanged/);
    assert.match(await page.textContent('#verdict .verdict-head'), /Fits|Does not fit/);
    const n = await estimates(page);
    const p0 = await peakBytes(page);
    await page.fill('#batch', '16');
    await settled(page, n);
    assert.notEqual(await peakBytes(page), p0, 'the page still estimates');
    if (bad === '#v9.d.abc') {
      assert.match(msg, /v9/);
      await shot(page, '09-bad-link');
    }
    assertClean(log);
    await context.close();
  }
  // a bad link opened over a setup leaves that setup as it was
  const { context, page, log } = await openPage();
  const n = await estimates(page);
  await page.fill('#batch', '3');
  await settled(page, n);
  const want = await page.evaluate(() => window.__vramplan.state);
  await page.evaluate(() => { location.hash = '#v1.d.broken!!'; });
  await page.waitForSelector('#banner:not([hidden])');
  assert.deepEqual(await page.evaluate(() => window.__vramplan.state), want);
  assert.equal(await page.inputValue('#batch'), '3');
  assertClean(log);
  await context.close();
});

test('absurd numbers get a message next to the field', async () => {
  const { context, page, log } = await openPage();
  await page.fill('#batch', '1000000000000');
  await page.waitForSelector('#batch-msg:not([hidden])');
  assert.match(await page.textContent('#batch-msg'), /batch/);
  assert.equal(await page.getAttribute('#batch', 'aria-invalid'), 'true');
  await shot(page, '10-absurd-batch');
  const n = await estimates(page);
  await page.fill('#batch', '4');
  await settled(page, n);
  assert.equal(await page.isVisible('#batch-msg'), false);
  assertClean(log);
  await context.close();
});

test('compare: pin, change, see both with differences', async () => {
  const { context, page, log } = await openPage();
  await page.click('#pin');
  await page.waitForSelector('#compare:not([hidden])');
  const n = await estimates(page);
  await page.check('#grad-ckpt');
  await settled(page, n);
  const text = await page.textContent('#compare');
  assert.match(text, /Gradient checkpointing/);
  assert.match(text, /off → on/);
  const row = page.locator('#compare tr[data-key="peak_alloc_bytes"]');
  const cells = await row.locator('[data-bytes]').evaluateAll((els) => els.map((e) => Number(e.dataset.bytes)));
  assert.equal(cells.length, 2);
  assert.ok(cells[1] < cells[0], 'checkpointing lowers the peak');
  await shot(page, '11-compare');
  await page.click('#unpin');
  await page.waitForSelector('#compare', { state: 'hidden' });
  assertClean(log);
  await context.close();
});

test('inference mode, phone width, dark theme and keyboard use', async () => {
  const { context, page, log } = await openPage('', { viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true });
  const n = await estimates(page);
  await choose(page, 'mode', 'infer');
  await settled(page, n);
  const phases = await page.$$eval('#devices article:first-of-type .phase', (els) => els.map((e) => e.dataset.phase));
  assert.ok(phases.includes('prefill') || phases.includes('decode'), `inference phases: ${phases}`);
  assert.equal(await page.isVisible('#new-tokens'), true);
  assert.equal(await page.isVisible('#optimizer'), false);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal scroll at phone width (${overflow}px)`);
  await shot(page, '12-phone-dark-infer');
  // every form control has an accessible name
  const unnamed = await page.$$eval('input:not([type=hidden]), select, textarea', (els) => els
    .filter((e) => !e.closest('[hidden]'))
    .filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby'))
    .map((e) => e.id || e.name));
  assert.deepEqual(unnamed, []);
  // keyboard: type into the search, arrow into the list, pick with the keyboard
  await page.focus('#preset-search');
  await page.keyboard.type('gpt2');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'preset');
  assertClean(log);
  await context.close();
});

test('a diffusion pipeline: its components become models, the video size replaces the tokens, the peak step is named', async (t) => {
  const { context, page, log } = await openPage();
  let n = await estimates(page);
  await choose(page, 'mode', 'infer');
  await settled(page, n);
  n = await estimates(page);
  await page.fill('#batch', '1');
  await settled(page, n);
  await page.fill('#preset-search', 'cogvideox 5b');
  await page.selectOption('#preset', 'cogvideox-5b');
  // the core's expansion (core/src/pipeline_expand.c) adds the text encoder and the VAE, with Undo
  await page.waitForFunction(() => window.__vramplan.state.instances.length === 3);
  assert.match(await page.textContent('#applied-text'), /“text_encoder”, “vae”/);
  // Undo takes them back out; switching to inference again adds them again
  await page.click('#undo');
  await page.waitForFunction(() => window.__vramplan.state.instances.length === 1);
  await choose(page, 'mode', 'train');
  await choose(page, 'mode', 'infer');
  await page.waitForFunction(() => window.__vramplan.state.instances.length === 3);
  assert.deepEqual(await page.$$eval('#instance-bar .iname', (els) => els.map((e) => e.textContent)), ['cogvideox-5b', 'text_encoder', 'vae']);
  assert.equal(await page.isVisible('#frames'), true);
  assert.equal(await page.isVisible('#prompt'), false, 'no prompt tokens for a DiT');
  assert.equal(await page.isVisible('#diff-offload'), true);
  // all on the GPU at the pipeline's native 49×480×720: the untiled VAE decode sets the peak
  await page.waitForFunction(() => document.querySelector('#devices .phase.peak')?.dataset.phase === 'vae_decode');
  assert.match(await page.textContent('#devices .phase.peak'), /VAE decode/);
  // model offload + tiling: the same numbers as the CLI for the plan the page built
  n = await estimates(page);
  await page.selectOption('#diff-offload', 'model');
  await settled(page, n);
  n = await estimates(page);
  await page.check('#diff-vae-tiling');
  await settled(page, n);
  const plan = await page.evaluate(() => window.__vramplan.plan());
  assert.deepEqual(plan.workload, { mode: 'infer', batch: 1, diffusion: { offload: 'model', vae_tiling: true } });
  const { by, est } = await referenceEstimate(plan);
  t.diagnostic(`reference: ${by}`);
  assert.equal(await peakBytes(page), est.devices[0].peak_alloc_bytes);
  assert.equal(est.devices[0].peak_phase, 'transformer', 'with tiling the transformer steps set the peak');
  await shot(page, '13-diffusion-pipeline');
  // back to training: the transformer the expansion froze for inference trains again, and the mode card says so
  n = await estimates(page);
  await choose(page, 'mode', 'train');
  await settled(page, n);
  assert.equal(await page.evaluate(() => window.__vramplan.state.instances[0].role), 'trained');
  assert.match(await page.textContent('#mode-note'), /trains “[^”]+”, which inference held frozen/);
  const trained = await page.evaluate(() => window.__vramplan.plan());
  assert.equal(trained.instances[0].role, undefined, 'the core default: trained');
  assertClean(log);
  await context.close();
});

// ---- whole training setups: instances, placement, parallel layout, examples, suggestions ------


/** Loads an example from the "Load example" menu and waits for its estimate. */
async function loadExample(page, file) {
  const n = await estimates(page);
  await page.click('#examples-menu > summary');
  await page.click(`#examples-list button[data-example="${file}"]`);
  await settled(page, n);
  await page.waitForFunction(() => document.getElementById('plan-info').textContent.startsWith('Loaded'));
}

/** The component rows of one device card: [{id, instance, bytes}]. */
const deviceRows = (page, index) => page.$$eval(`#devices article.device[data-index="${index}"] tbody tr`, (trs) => trs.map((tr) => ({
  id: tr.dataset.c, instance: tr.dataset.instance || '', bytes: Number(tr.querySelector('[data-bytes]').dataset.bytes),
})));

test('the diffusers release: 0.32 gives HunyuanVideo its N × N attention mask, as the CLI does', async (t) => {
  const { context, page, log } = await openPage();
  let n = await estimates(page);
  await page.fill('#preset-search', 'hunyuan');
  await page.selectOption('#preset', 'hunyuanvideo');
  await settled(page, n);
  for (const [id, v] of [['#batch', '1'], ['#frames', '49'], ['#height', '512'], ['#width', '768']]) {
    n = await estimates(page);
    await page.fill(id, v);
    await settled(page, n);
  }
  assert.equal(await page.isVisible('#diff-diffusers'), true);
  assert.equal(await page.inputValue('#diff-diffusers'), 'current');
  assert.equal((await deviceRows(page, 0)).some((r) => r.id === 'attention_mask'), false);
  n = await estimates(page);
  await page.selectOption('#diff-diffusers', '0.32');
  await settled(page, n);
  const plan = await page.evaluate(() => window.__vramplan.plan());
  assert.deepEqual(plan.workload.diffusion, { diffusers: '0.32' });
  const { by, est } = await referenceEstimate(plan);
  t.diagnostic(`reference: ${by}`);
  const rows = await deviceRows(page, 0);
  assert.deepEqual(rows, est.devices[0].components.map((c) => ({ id: c.id, instance: c.instance, bytes: c.bytes })));
  // batch 1 at 49×512×768: 20,224 joint tokens, a 20,224² B bool mask (docs/diffusion.md)
  assert.equal(rows.find((r) => r.id === 'attention_mask')?.bytes, 20224 * 20224);
  assertClean(log);
  await context.close();
});

test('the DPO example does not fit, shows the reference in GPU 0, and fits after applying 8-bit AdamW', async (t) => {
  const { context, page, log } = await openPage();
  assert.equal(await page.locator('#examples-list button').count(), readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')).length);
  await loadExample(page, 'phi3-dpo-reference.json');
  await page.waitForSelector('#verdict[data-fits="false"]');
  assert.match(await page.textContent('#verdict .verdict-head'), /Does not fit/);
  assert.match(await page.textContent('#plan-info'), /Preference training \(DPO\)/);
  // the form holds both models
  assert.equal(await page.locator('#instance-bar input[name="instance"]').count(), 2);
  assert.match(await page.textContent('#instance-bar'), /policy.*reference/s);
  // the page estimates exactly what the CLI does for the file
  const file = path.join(EXAMPLES, 'phi3-dpo-reference.json');
  const { by, est } = await referenceEstimate(JSON.parse(readFileSync(file, 'utf8')));
  t.diagnostic(`reference: ${by}`);
  assert.equal(await peakBytes(page), est.devices[0].peak_alloc_bytes);
  const rows = await deviceRows(page, 0);
  assert.deepEqual(rows, est.devices[0].components.map((c) => ({ id: c.id, instance: c.instance, bytes: c.bytes })));
  const refWeights = rows.find((r) => r.id === 'weights' && r.instance === 'reference');
  assert.ok(refWeights && refWeights.bytes > 7e9, 'the reference model\'s bf16 weights are in GPU 0\'s breakdown');
  assert.match(await page.textContent('#devices article[data-index="0"] tr[data-c="weights"][data-instance="reference"] th'), /Weights \(reference\)/);
  // each suggestion has an Apply button
  const ids = await page.$$eval('#suggestions li', (lis) => lis.map((li) => li.dataset.id));
  assert.deepEqual(ids, est.suggestions.map((s) => s.id));
  assert.equal(await page.locator('#suggestions button.apply').count(), ids.length);
  await shot(page, '14-example-dpo-does-not-fit');

  // Apply: 8-bit AdamW → the form changes, the core re-estimates, it fits with the quoted peak
  const sugg = est.suggestions.find((s) => s.id === 'adamw_8bit');
  let n = await estimates(page);
  await page.click('#suggestions li[data-id="adamw_8bit"] button.apply');
  await settled(page, n);
  await page.waitForSelector('#verdict[data-fits="true"]');
  assert.equal(await reservedBytes(page), sugg.peak_reserved_bytes, 'the estimate the core quoted for the suggestion');
  assert.equal(await page.isVisible('#applied'), true);
  assert.match(await page.textContent('#applied'), /8-bit AdamW/);
  await page.click('#instance-bar label:has(input[value="0"])');
  assert.equal(await page.inputValue('#optimizer'), 'adamw_8bit', 'the optimizer field changed');
  const plan = await page.evaluate(() => window.__vramplan.plan());
  assert.deepEqual(plan.instances[0].optimizer, { name: 'adamw_8bit' });
  await shot(page, '15-suggestion-applied');

  // Undo, then drop the reference instead
  n = await estimates(page);
  await page.click('#undo');
  await settled(page, n);
  await page.waitForSelector('#verdict[data-fits="false"]');
  assert.equal(await page.inputValue('#optimizer'), 'adamw/foreach');

  // the reference streamed from pinned CPU RAM: a CPU RAM card beside GPU 0
  const cpu = est.suggestions.find((s) => s.id === 'frozen_to_cpu');
  n = await estimates(page);
  await page.click('#suggestions li[data-id="frozen_to_cpu"] button.apply');
  await settled(page, n);
  await page.waitForSelector('#verdict[data-fits="true"]');
  assert.equal(await reservedBytes(page), cpu.peak_reserved_bytes);
  assert.deepEqual((await page.evaluate(() => window.__vramplan.plan())).instances[1].placement, { device: 'cpu', pinned: true, stream_to: 0 });
  n = await estimates(page);
  await page.fill('#cpu-ram', '64');
  await settled(page, n);
  const cpuCard = page.locator('#devices article.device[data-kind="cpu"]');
  assert.equal(await cpuCard.count(), 1);
  assert.match(await cpuCard.locator('h3').textContent(), /CPU RAM/);
  assert.match(await cpuCard.textContent(), /Weights \(pinned\) \(reference\)/);
  assert.match(await cpuCard.textContent(), /64\.00 GiB per node/);
  await shot(page, '19-reference-in-cpu-ram');
  n = await estimates(page);
  assert.equal(await page.isVisible('#undo'), false, 'a change of its own ends the undo');
  await page.fill('#cpu-ram', '');
  await page.click('#instance-bar label:has(input[value="1"])');
  await page.click('#instance-more > summary');
  await page.selectOption('#placement', 'sharded');
  await settled(page, n);
  await page.waitForSelector('#verdict[data-fits="false"]');
  assert.equal(await page.locator('#devices article.device').count(), 1);

  const pre = est.suggestions.find((s) => s.id === 'precompute_reference');
  n = await estimates(page);
  await page.click('#suggestions li[data-id="precompute_reference"] button.apply');
  await settled(page, n);
  await page.waitForSelector('#verdict[data-fits="true"]');
  assert.equal(await reservedBytes(page), pre.peak_reserved_bytes);
  assert.equal((await page.evaluate(() => window.__vramplan.state)).instances.length, 1, 'the reference instance is gone');
  assert.equal(await page.isVisible('#instance-bar'), false, 'one model: the simple form again');
  assertClean(log);
  await context.close();
});

test('a reference placed on GPU 1 of two: two device bars, side by side, on one scale', async (t) => {
  const { context, page, log } = await openPage();
  await page.fill('#preset-search', 'llama 3.1 8b');
  await page.selectOption('#preset', 'llama-3.1-8b');
  await page.selectOption('#gpu', 'a100-sxm-80gb');
  // "add a reference model"
  await page.selectOption('#add-role', 'reference');
  let n = await estimates(page);
  await page.click('#add-instance');
  await settled(page, n);
  assert.equal(await page.evaluate(() => window.__vramplan.active), 1, 'the new model is the one shown');
  assert.equal(await page.inputValue('#role'), 'reference');
  assert.equal(await page.isChecked('input[name="finetune"][value="frozen"]'), true, 'a reference is frozen');
  assert.equal(await page.isVisible('#optimizer'), false, 'a frozen model has no optimizer');
  // two GPUs per node, the reference whole on GPU 1
  n = await estimates(page);
  await page.fill('#gpu-count', '2');
  await settled(page, n);
  await page.click('#instance-more > summary');
  n = await estimates(page);
  await page.selectOption('#placement', 'gpu');
  await settled(page, n);
  n = await estimates(page);
  await page.selectOption('#placement-device', '1');
  await settled(page, n);
  // the estimate of the last change is the one drawn (an earlier one may land first under load)
  await page.waitForFunction(() => document.querySelectorAll('#devices article.device').length === 2);
  assert.equal(await page.locator('#devices article.device').count(), 2);
  assert.equal(await page.locator('#devices article.device .bar').count(), 2, 'one bar per device');
  const plan = await page.evaluate(() => window.__vramplan.plan());
  assert.deepEqual(plan.instances[1].placement, { device: 1 });
  assert.equal(plan.hardware.count, 2);
  const { est } = await referenceEstimate(plan);
  assert.equal(est.devices.length, 2);
  const gpu0 = await deviceRows(page, 0);
  const gpu1 = await deviceRows(page, 1);
  assert.deepEqual(gpu1, est.devices[1].components.map((c) => ({ id: c.id, instance: c.instance, bytes: c.bytes })));
  assert.ok(gpu1.some((r) => r.id === 'weights' && r.instance === 'reference'), 'the reference is on GPU 1');
  assert.ok(!gpu0.some((r) => r.instance === 'reference'), 'and not on GPU 0');
  // each card: its verdict and peak phase; the bars share one scale (same total width per byte)
  for (const d of est.devices) {
    const card = page.locator(`#devices article[data-index="${d.index}"]`);
    assert.match(await card.locator('.device-verdict').textContent(), d.fits ? /Fits/ : /Does not fit/);
    assert.equal(await card.locator('[data-key="peak_phase"]').textContent(), { backward: 'Backward', forward: 'Forward', optimizer_step: 'Optimizer step', load: 'Load' }[d.peak_phase]);
  }
  const pxPerByte = await page.$$eval('#devices article.device', (cards) => cards.map((c) => {
    const bar = c.querySelector('.bar').getBoundingClientRect().width;
    const segs = [...c.querySelectorAll('.seg')].reduce((a, s) => a + s.getBoundingClientRect().width, 0);
    const bytes = Number(c.querySelector('tfoot [data-bytes]').dataset.bytes);
    return { bar, perByte: segs / bytes };
  }));
  assert.ok(Math.abs(pxPerByte[0].bar - pxPerByte[1].bar) < 2, 'bars side by side, equal width');
  assert.ok(Math.abs(pxPerByte[0].perByte / pxPerByte[1].perByte - 1) < 0.05, `one scale: ${JSON.stringify(pxPerByte)}`);
  // both boxes in one frame: the planner's answers above may reflow the page between two reads
  const [box0, box1] = await page.$$eval('#devices article[data-index="0"], #devices article[data-index="1"]',
    (els) => els.map((e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y }; }));
  assert.ok(Math.abs(box0.y - box1.y) < 2 && box1.x > box0.x, `GPU 1 beside GPU 0: ${JSON.stringify([box0, box1])}`);
  t.diagnostic(`GPU 0 ${fmtGiB(est.devices[0].peak_alloc_bytes)}, GPU 1 ${fmtGiB(est.devices[1].peak_alloc_bytes)}`);

  // an instance's error is named above the tabs while another instance is shown
  await page.click('#instance-bar label:has(input[value="0"])');
  const bad = structuredClone(plan);
  bad.instances[1].placement = { device: 5 };
  await page.click('#open-plan > summary');
  await page.fill('#plan-text', JSON.stringify(bad));
  await page.click('#plan-open');
  await page.waitForSelector('#verdict.error');
  await page.click('#instance-bar label:has(input[value="0"])');
  await page.waitForSelector('#instances-msg:not([hidden])');
  assert.match(await page.textContent('#instances-msg'), /reference.*placement\.device/);
  await page.click('#instance-bar label:has(input[value="1"])');
  await page.waitForSelector('#placement-device-msg:not([hidden])');
  assert.match(await page.textContent('#placement-device-msg'), /hardware has 2 GPU/);
  await page.selectOption('#placement-device', '1');
  await page.waitForSelector('#verdict[data-fits]');
  await shot(page, '16-multi-device');
  assertClean(log);
  await context.close();
});

const fmtGiB = (n) => `${(n / 2 ** 30).toFixed(2)} GiB`;

test('a share link with two instances and a parallel layout opens the same in a fresh page', async () => {
  const { context, page, log } = await openPage();
  await page.selectOption('#preset', 'llama-3.1-8b');
  await page.selectOption('#add-role', 'teacher');
  await page.click('#add-instance');
  await page.fill('#preset-search', 'qwen2.5 14b');
  await page.selectOption('#preset', 'qwen2.5-14b');
  await page.fill('#instance-name', XSS);
  await page.fill('#gpu-count', '8');
  await page.selectOption('#par-framework', 'deepspeed');
  await page.selectOption('#par-zero', '3');
  await page.fill('#par-dp', '4');
  await page.fill('#par-tp', '2');
  await page.check('#par-offload-optimizer');
  const n = await estimates(page);
  await page.fill('#seq', '2048');
  await settled(page, n);
  await page.waitForSelector('#verdict[data-fits]');
  assert.equal(await page.locator('img').count(), 0, 'a typed name is text');
  assert.ok((await page.textContent('#instance-bar')).includes(XSS));
  assert.ok((await page.textContent('#devices')).includes(XSS));
  const plan = await page.evaluate(() => window.__vramplan.plan());
  assert.deepEqual(plan.parallel, { dp: 4, tp: 2, framework: 'deepspeed', zero: 3, offload_optimizer: true });
  assert.equal(plan.instances[1].role, 'teacher');
  assert.equal(plan.instances[1].name, XSS);
  const { est } = await referenceEstimate(plan);
  const gpus = est.devices.filter((d) => d.index >= 0);
  const tight = gpus.reduce((a, d) => (d.headroom_bytes < a.headroom_bytes ? d : a), gpus[0]);
  assert.equal(await peakBytes(page), tight.peak_alloc_bytes, 'the verdict talks about the tightest GPU');
  await page.click('#copy-link');
  const want = await page.evaluate(() => window.__vramplan.state);
  const hash = await linkOf(page, want);
  assert.ok(hash.length < 1000, `link is compact (${hash.length} chars)`);
  const wantPeak = await peakBytes(page);
  const wantDevices = await page.locator('#devices article.device').count();
  await context.close();

  const fresh = await openPage(hash);
  assert.deepEqual(await fresh.page.evaluate(() => window.__vramplan.state), want);
  assert.equal(await peakBytes(fresh.page), wantPeak);
  assert.equal(await fresh.page.locator('#devices article.device').count(), wantDevices);
  assert.equal(await fresh.page.locator('#instance-bar input[name="instance"]').count(), 2);
  assert.equal(await fresh.page.inputValue('#par-tp'), '2');
  assert.equal(await fresh.page.inputValue('#par-zero'), '3');
  assert.ok(await fresh.page.isChecked('#par-offload-optimizer'));
  assert.equal(await fresh.page.inputValue('#gpu-count'), '8');
  assert.deepEqual(await fresh.page.evaluate(() => window.__vramplan.plan()), plan);
  assert.equal(await fresh.page.locator('img').count(), 0);
  assert.equal(await fresh.page.isVisible('#banner'), false);
  assertClean(log);
  assertClean(fresh.log);
  await fresh.context.close();

  // a link written by the one-model page (#v1.) still opens as it did
  const v1 = JSON.parse(readFileSync(path.join(FIX, 'v1-links.json'), 'utf8')).find((c) => c.name === 'lora-fused-ckpt');
  const old = await openPage(`#${v1.link}`);
  assert.equal(await old.page.isVisible('#banner'), false);
  assert.deepEqual(await old.page.evaluate(() => window.__vramplan.plan()), v1.plan);
  assert.equal(await old.page.inputValue('#lora-r'), '32');
  assert.equal(await old.page.inputValue('#seq'), '2048');
  assert.equal(await old.page.inputValue('#optimizer'), 'adamw/fused');
  assert.ok(await old.page.isChecked('#grad-ckpt'));
  await old.page.waitForSelector('#compare:not([hidden])');
  assertClean(old.log);
  await old.context.close();
});

test('tp that does not divide the heads: the core\'s message next to the TP field; bad plan files are refused clearly', async () => {
  const { context, page, log } = await openPage();
  const plan = {
    schema: 'vramplan/plan@1', workload: { batch: 1, seq: 512 },
    instances: [{ name: 'policy', model: { preset: 'llama-3.2-1b' } }],
    hardware: { gpu: 'h100-sxm-80gb', count: 4 }, parallel: { tp: 3 },
  };
  const { est } = await referenceEstimate(plan);
  assert.equal(est.error.path, 'parallel.tp');
  await page.click('#open-plan > summary');
  await page.fill('#plan-text', JSON.stringify(plan));
  await page.click('#plan-open');
  await page.waitForSelector('#par-tp-msg:not([hidden])');
  assert.equal(await page.textContent('#par-tp-msg'), est.error.message);
  assert.equal(await page.getAttribute('#par-tp', 'aria-invalid'), 'true');
  assert.match(await page.textContent('#verdict'), /parallel\.tp/);
  // the message sits right under the TP field
  const field = await page.locator('#par-tp').boundingBox();
  const msg = await page.locator('#par-tp-msg').boundingBox();
  assert.ok(msg.y >= field.y + field.height - 1 && msg.y - (field.y + field.height) < 30, 'next to the field');
  await page.locator('#parallel-fieldset').scrollIntoViewIfNeeded();
  await shot(page, '17-tp-does-not-divide');
  // fixing it clears the message
  const n = await estimates(page);
  await page.fill('#par-tp', '2');
  await settled(page, n);
  assert.equal(await page.isVisible('#par-tp-msg'), false);

  // bad files: a sentence next to the plan box, the form unchanged
  const before = await page.evaluate(() => window.__vramplan.state);
  const cases = [
    ['{"schema": "vramplan/plan@1", ', /not valid JSON/],
    [readFileSync(path.join(FIX, 'probe-h100.json'), 'utf8'), /gpu-probe@1.*not a vramplan plan/],
    [JSON.stringify({ ...plan, parallel: { tp: 1, turbo: true } }), /The plan has an error: .*parallel\.turbo/],
    [JSON.stringify({ ...plan, instances: [] }), /no "instances"/],
  ];
  for (const [text, re] of cases) {
    await page.evaluate(() => { document.getElementById('open-plan').open = true; });
    await page.fill('#plan-text', text);
    await page.click('#plan-open');
    await page.waitForFunction((src) => {
      const m = document.getElementById('plan-text-msg');
      return !m.hidden && new RegExp(src).test(m.textContent);
    }, re.source);
    assert.match(await page.textContent('#plan-text-msg'), re);
    assert.deepEqual(await page.evaluate(() => window.__vramplan.state), before);
  }
  // and an upload opens like a paste
  const n2 = await estimates(page);
  await page.setInputFiles('#plan-file', path.join(EXAMPLES, 'rlhf-ppo.json'));
  await settled(page, n2);
  assert.equal(await page.locator('#instance-bar input[name="instance"]').count(), 4);
  assert.equal(await page.inputValue('#par-zero'), '3');
  assert.match(await page.textContent('#devices article.device h3'), /same on GPU 1–7/);
  assertClean(log);
  await context.close();
});

test('multi-model results at phone width and in the dark theme; instance tabs by keyboard', async () => {
  const { context, page, log } = await openPage('', { viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true });
  await loadExample(page, 'qwen2vl-mend-two-gpus.json');
  assert.equal(await page.locator('#devices article.device').count(), 2);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal scroll at phone width (${overflow}px)`);
  const unnamed = await page.$$eval('input:not([type=hidden]), select, textarea, button', (els) => els
    .filter((e) => !e.closest('[hidden]'))
    .filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby') && !(e.tagName === 'BUTTON' && e.textContent.trim()))
    .map((e) => e.id || e.name || e.outerHTML.slice(0, 60)));
  assert.deepEqual(unnamed, [], 'every control has an accessible name');
  await shot(page, '18-phone-dark-two-gpus');
  // arrow keys move between the instance tabs (a radio group)
  await page.focus('#instance-bar input[value="0"]');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.__vramplan.active === 1);
  assert.equal(await page.inputValue('#role'), 'editor');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.__vramplan.active === 2);
  assert.equal(await page.inputValue('#instance-name'), 'edited');
  assertClean(log);
  await context.close();
});
