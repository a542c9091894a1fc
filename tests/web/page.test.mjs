// page.test.mjs: the page's layout, messages, files and state (issue 10), in headless Chromium.
//
//   node --test tests/web/page.test.mjs     (after web/build.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  useBrowser, wasmEstimate, FIX, PROBE_FIX, estimates, settled, choose, shot, assertClean, linkFor, dropText, peakBytes, reservedBytes,
} from './browser.mjs';

const B = useBrowser();

test('form-level messages are sentences: no "null", no stray capital', async () => {
  const cases = [
    [{ s: { hardware: { gpu: '' }, instances: [{ model: { preset: 'llama-3.2-1b' } }] } }, /^Pick a GPU\.$/],
    [{ s: { hardware: { gpu: 'h100-sxm-80gb' }, instances: [{ model: { preset: '' } }] } }, /^Pick a model\.$/],
    [{ s: { hardware: { gpu: 'h100-sxm-80gb' }, instances: [{ model: { preset: 'llama-3.2-1b', source: 'hf', hf: '{"model_type": ' } }] } }, /^The config\.json is not valid JSON/],
  ];
  for (const [payload, want] of cases) {
    const { context, page, log } = await B.openPage(linkFor(payload), { wait: false });
    await page.waitForSelector('#verdict.error');
    const texts = await page.$$eval('#verdict, .field-msg:not([hidden])', (els) => els.map((e) => e.textContent));
    for (const t of texts) {
      assert.doesNotMatch(t, /null/, `no literal null: ${JSON.stringify(t)}`);
      assert.doesNotMatch(t, /\S [A-Z][a-z]+ (probe|config)/, `no capital mid-sentence: ${JSON.stringify(t)}`);
    }
    assert.match(await page.textContent('#verdict .summary'), want);
    assertClean(log);
    await context.close();
  }
});

test('compare on desktop: the table is on top, not under the results column (1440 and 1920 px)', async () => {
  for (const [width, height] of [[1440, 900], [1920, 1080]]) {
    const { context, page, log } = await B.openPage('', { viewport: { width, height } });
    await page.click('#pin');
    await page.waitForSelector('#compare:not([hidden])');
    const n = await estimates(page);
    await page.check('#grad-ckpt');
    await settled(page, n);
    await page.waitForSelector('#compare tr[data-key="peak_alloc_bytes"]');
    const cells = page.locator('#compare tbody tr td, #compare tbody tr th, #compare .diffs li');
    const count = await cells.count();
    assert.ok(count > 6);
    for (let i = 0; i < count; i++) {
      const cell = cells.nth(i);
      // the check is of the settled layout: a re-render or a scroll still in flight can leave the cell's
      // centre outside the viewport for a frame (elementFromPoint then finds "nothing"), so look again
      let hit = { inside: false, at: 'nothing' };
      for (let tries = 0; tries < 10 && !hit.inside; tries++) {
        if (tries) await page.waitForTimeout(100);
        await cell.scrollIntoViewIfNeeded();
        hit = await cell.evaluate((el) => {
          const r = el.getBoundingClientRect();
          const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return { inside: !!at && (el === at || el.contains(at)), at: at ? `${at.tagName}#${at.id}.${at.className}` : 'nothing' };
        });
        if (hit.at !== 'nothing') break; /* covered by a real element: a layout fault, not a frame in flight */
      }
      assert.ok(hit.inside, `${width}px: compare cell ${i} is covered by ${hit.at}`);
    }
    await shot(page, `20-compare-${width}`);
    assertClean(log);
    await context.close();
  }
});

test('above the fold at 1440×900: model, GPU, batch and sequence beside the verdict', async () => {
  const { context, page, log } = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  const boxes = {};
  for (const sel of ['#preset-search', '#preset', '#gpu', '#batch', '#seq', '#verdict .verdict-head', '#verdict [data-key="peak_reserved_bytes"]']) {
    boxes[sel] = await page.locator(sel).boundingBox();
    const b = boxes[sel];
    assert.ok(b && b.y >= 0 && b.y + b.height <= 900 && b.x >= 0 && b.x + b.width <= 1440,
      `${sel} is on the first screen: ${JSON.stringify(b)}`);
  }
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  await page.screenshot({ path: path.join(path.dirname(new URL(import.meta.url).pathname), '../out/web/21-first-screen-1440.png') });
  assertClean(log);
  await context.close();
});

test('one unit system: GiB (binary) everywhere, and the page says so', async () => {
  const { context, page, log } = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  const DECIMAL_GB = /\d\s?GB\b/;
  const labels = await page.$$eval('#gpu option', (os) => os.map((o) => o.textContent));
  assert.ok(labels.length > 10);
  for (const l of labels) {
    assert.doesNotMatch(l, DECIMAL_GB, `GPU label in GiB only: ${l}`);
    assert.match(l, /\d GiB$/, `GPU label names its size in GiB: ${l}`);
  }
  // an A10G's 24 GiB of memory (the datasheet's "24GB" is 24 GiB)
  assert.ok(labels.some((l) => /A10G.* · 24 GiB$/.test(l)), labels.join('\n'));
  for (const gpu of ['h100-sxm-80gb', 'a10g']) {
    const n = await estimates(page);
    await page.selectOption('#gpu', gpu);
    await settled(page, n);
    const text = await page.textContent('#results');
    assert.doesNotMatch(text, DECIMAL_GB, 'results in GiB only');
    assert.match(text, /GiB/);
  }
  assert.match(await page.textContent('#results'), /1 GiB = 2\^30 bytes/);
  // a probe's GPU names too
  await choose(page, 'hw-source', 'probe');
  const n = await estimates(page);
  await page.setInputFiles('#probe-file', path.join(FIX, 'probe-h100.json'));
  await settled(page, n);
  for (const l of await page.$$eval('#probe-device option', (os) => os.map((o) => o.textContent))) assert.doesNotMatch(l, DECIMAL_GB, l);
  assert.doesNotMatch(await page.textContent('#results'), DECIMAL_GB);
  assertClean(log);
  await context.close();
});

test('a pasted config is named after _name_or_path, and can be renamed', async () => {
  const cfg = JSON.parse(readFileSync(path.join(FIX, 'hf-llama-3.2-1b.json'), 'utf8'));
  const { context, page, log } = await B.openPage();
  await choose(page, 'model-source', 'hf');
  // the hub cache path a locally saved config carries: the model's id, not the path or the class
  let n = await estimates(page);
  await page.fill('#hf-config', JSON.stringify({ ...cfg, _name_or_path: '/root/.cache/huggingface/hub/models--meta-llama--Llama-3.2-1B/snapshots/4e20de362430cd3b72f300e6b0f18e50e7166e08' }));
  await settled(page, n);
  await page.waitForFunction(() => /^meta-llama\/Llama-3\.2-1B ·/.test(document.querySelector('#devices .instance')?.textContent));
  // a config from the hub has no _name_or_path: its class names it until the person renames it
  const { _name_or_path: _, ...plain } = cfg;
  n = await estimates(page);
  await page.fill('#hf-config', JSON.stringify(plain));
  await settled(page, n);
  await page.waitForFunction(() => /^LlamaForCausalLM ·/.test(document.querySelector('#devices .instance')?.textContent));
  assert.ok(await page.isVisible('#instance-name'), 'one model from a config: its name can be typed');
  assert.equal(await page.getAttribute('#instance-name', 'placeholder'), 'LlamaForCausalLM');
  n = await estimates(page);
  await page.fill('#instance-name', 'my-llama-sft');
  await settled(page, n);
  await page.waitForFunction(() => /^my-llama-sft ·/.test(document.querySelector('#devices .instance')?.textContent));
  assert.equal((await page.evaluate(() => window.__vramplan.plan())).instances[0].name, 'my-llama-sft');
  await page.click('#copy-link');
  await page.waitForFunction(() => location.hash.startsWith('#v2.'));
  const hash = new URL(page.url()).hash;
  assertClean(log);
  await context.close();
  const fresh = await B.openPage(hash);
  assert.match(await fresh.page.textContent('#devices .instance'), /^my-llama-sft ·/);
  assert.equal(await fresh.page.inputValue('#instance-name'), 'my-llama-sft');
  assertClean(fresh.log);
  await fresh.context.close();
});

test('train → inference keeps QLoRA\'s 4-bit base weights and says so', async () => {
  const { context, page, log } = await B.openPage();
  await page.fill('#preset-search', 'llama 3.1 70b');
  await page.selectOption('#preset', 'llama-3.1-70b');
  await choose(page, 'finetune', 'qlora');
  let n = await estimates(page);
  await page.fill('#batch', '1');
  await settled(page, n);
  const train = await reservedBytes(page);
  n = await estimates(page);
  await choose(page, 'mode', 'infer');
  await settled(page, n);
  const plan = await page.evaluate(() => window.__vramplan.plan());
  assert.equal(plan.instances[0].quant, 'nf4', 'the 4-bit weights carry over');
  assert.equal(plan.instances[0].double_quant, true);
  assert.equal(await page.inputValue('#base-quant'), 'nf4');
  assert.match(await page.textContent('#mode-note'), /NF4/);
  const infer = await reservedBytes(page);
  assert.ok(infer < 60 * 2 ** 30, `a 4-bit 70B generates in well under 60 GiB (${infer}); training took ${train}`);
  // and back: training is QLoRA NF4 again, the note goes
  n = await estimates(page);
  await choose(page, 'mode', 'train');
  await settled(page, n);
  assert.equal((await page.evaluate(() => window.__vramplan.plan())).instances[0].quant, 'nf4');
  assert.ok(await page.isChecked('input[name="finetune"][value="qlora"]'));
  assertClean(log);
  await context.close();
});

test('CPU offload: CPU RAM has its own bar scale, the GPU bar keeps its size', async () => {
  const { context, page, log } = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  await page.fill('#preset-search', 'llama 3.1 8b');
  await page.selectOption('#preset', 'llama-3.1-8b');
  await page.selectOption('#par-framework', 'deepspeed');
  await page.selectOption('#par-zero', '2');
  const n = await estimates(page);
  await page.check('#par-offload-optimizer');
  await settled(page, n);
  await page.waitForSelector('#devices article.device[data-kind="cpu"]');
  const bars = await page.$$eval('#devices article.device', (cards) => cards.map((c) => {
    const bar = c.querySelector('.bar').clientWidth;
    const segs = [...c.querySelectorAll('.seg')].reduce((a, s) => a + s.getBoundingClientRect().width, 0);
    return { kind: c.dataset.kind, fill: segs / bar };
  }));
  // the numbers the page drew: the same WebAssembly build, in Node
  const { est } = await wasmEstimate(JSON.stringify(await page.evaluate(() => window.__vramplan.plan())));
  const g = est.devices.find((d) => d.kind !== 'cpu');
  const c = est.devices.find((d) => d.kind === 'cpu');
  assert.ok(c.peak_alloc_bytes > g.capacity_bytes, `the CPU holds more than a GPU offers (${c.peak_alloc_bytes})`);
  const gpuBar = bars.find((b) => b.kind !== 'cpu');
  const want = g.peak_alloc_bytes / Math.max(g.capacity_bytes, g.nvidia_smi_bytes, g.peak_alloc_bytes);
  assert.ok(Math.abs(gpuBar.fill - want) < 0.02, `GPU bar drawn on the GPU scale: ${gpuBar.fill.toFixed(3)} of its width, want ${want.toFixed(3)}`);
  const cpuBar = bars.find((b) => b.kind === 'cpu');
  assert.ok(cpuBar.fill > 0.9, `CPU RAM bar on its own scale (${cpuBar.fill.toFixed(3)})`);
  assert.match(await page.textContent('#devices article.device[data-kind="cpu"]'), /own scale/);
  await shot(page, '22-cpu-offload-scales');
  assertClean(log);
  await context.close();
});

test('state: "New setup" resets with an Undo; a restored last setup says so; keyboard Apply keeps focus in the list', async () => {
  const { context, page, log } = await B.openPage();
  const fresh = await page.evaluate(() => window.__vramplan.state);
  let n = await estimates(page);
  await page.fill('#batch', '7');
  await settled(page, n);
  await page.selectOption('#add-role', 'reference');
  n = await estimates(page);
  await page.click('#add-instance');
  await settled(page, n);
  const edited = await page.evaluate(() => window.__vramplan.state);
  n = await estimates(page);
  await page.click('#new-setup');
  await settled(page, n);
  assert.deepEqual(await page.evaluate(() => window.__vramplan.state), fresh, 'the defaults again');
  assert.equal(await page.inputValue('#batch'), '4');
  assert.match(await page.textContent('#applied'), /New setup/);
  n = await estimates(page);
  await page.click('#undo');
  await settled(page, n);
  assert.deepEqual(await page.evaluate(() => window.__vramplan.state), edited, 'Undo brings the setup back');
  // the last setup is kept in this browser: a bare URL restores it, and says so
  await page.waitForFunction(() => localStorage.getItem('vramplan.setup.v2'));
  await page.waitForTimeout(400);
  const saved = await page.evaluate(() => localStorage.getItem('vramplan.setup.v2'));
  assertClean(log);
  await context.close();
  const again = await B.openPage('', { storage: { 'vramplan.setup.v2': saved } });
  assert.deepEqual(await again.page.evaluate(() => window.__vramplan.state), edited);
  await again.page.waitForSelector('#applied:not([hidden])');
  assert.match(await again.page.textContent('#applied'), /Restored your last setup/);
  n = await estimates(again.page);
  await again.page.click('#undo');
  await settled(again.page, n);
  assert.deepEqual(await again.page.evaluate(() => window.__vramplan.state), fresh, 'Undo: the defaults');
  assertClean(again.log);
  await again.context.close();

  // keyboard: Enter on an Apply button; focus stays in the suggestions
  const kb = await B.openPage();
  await kb.page.selectOption('#preset', 'llama-3.1-8b');
  await kb.page.selectOption('#gpu', 'a10g');
  n = await estimates(kb.page);
  await kb.page.fill('#batch', '8');
  await settled(kb.page, n);
  await kb.page.waitForSelector('#suggestions button.apply');
  await kb.page.focus('#suggestions li:nth-child(2) button.apply');
  n = await estimates(kb.page);
  await kb.page.keyboard.press('Enter');
  await settled(kb.page, n);
  const focus = await kb.page.evaluate(() => {
    const a = document.activeElement;
    return { inList: !!a && (document.getElementById('suggestions').contains(a) || a.id === 'undo'), tag: a?.tagName, id: a?.id };
  });
  assert.ok(focus.inList, `focus after a keyboard Apply: ${JSON.stringify(focus)}`);
  assertClean(kb.log);
  await kb.context.close();
});

test('estimate warnings stand right under the verdict', async () => {
  const { context, page, log } = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  const n = await estimates(page);
  await page.check('#par-sp'); // sequence parallelism with tp = 1: legal, changes nothing
  await settled(page, n);
  const { est } = await wasmEstimate(JSON.stringify(await page.evaluate(() => window.__vramplan.plan())));
  assert.ok(est.warnings.length >= 1);
  await page.waitForSelector('#warnings li');
  assert.deepEqual(await page.$$eval('#warnings li', (li) => li.map((x) => x.textContent)), est.warnings);
  const order = await page.$$eval('#results > *', (els) => els.filter((e) => !e.hidden && e.offsetParent !== null).map((e) => e.id));
  assert.equal(order[order.indexOf('verdict') + 1], 'warnings', `the warnings follow the verdict: ${order}`);
  const box = await page.locator('#warnings').boundingBox();
  assert.ok(box.y + box.height <= 900, 'on the first screen');
  assert.match(await page.textContent('#warnings'), /Check/);
  assert.match(await page.textContent('#mini-verdict'), /warning/);
  // 8 GPUs with dp × tp × pp = 1 or 3: the core says the plan leaves GPUs idle, and the page shows it
  await page.uncheck('#par-sp');
  await page.fill('#gpu-count', '8');
  for (const dp of ['1', '3']) {
    const m = await estimates(page);
    await page.fill('#par-dp', dp);
    await settled(page, m);
    const eight = (await wasmEstimate(JSON.stringify(await page.evaluate(() => window.__vramplan.plan())))).est;
    assert.ok(eight.warnings.some((w) => /idle/.test(w)), `dp ${dp}: ${eight.warnings}`);
    assert.deepEqual(await page.$$eval('#warnings li', (li) => li.map((x) => x.textContent)), eight.warnings);
    const box = await page.locator('#warnings').boundingBox();
    assert.ok(box.y + box.height <= 900, `dp ${dp}: the warning is on the first screen`);
  }
  assertClean(log);
  await context.close();
});

test('DeepSpeed and Megatron default to their own bf16 master-weight mode, and say why', async () => {
  const { context, page, log } = await B.openPage();
  await page.selectOption('#add-role', 'reference');
  await page.click('#add-instance');
  for (const fw of ['deepspeed', 'torch', 'megatron']) {
    const n = await estimates(page);
    await page.selectOption('#par-framework', fw);
    await settled(page, n);
    const plan = await page.evaluate(() => window.__vramplan.plan());
    const master = fw !== 'torch';
    assert.equal(plan.instances[0].precision, master ? 'bf16_master' : 'amp_bf16', `${fw}: the trained model`);
    assert.equal(plan.instances[1].precision, 'bf16', `${fw}: the frozen reference keeps its own`);
    assert.match(await page.textContent('#framework-note'), master ? /fp32 master.*not under torch\.autocast/ : /autocast/);
  }
  // a precision the person picked is theirs
  await page.click('#instance-bar label:has(input[value="0"])');
  await page.selectOption('#precision', 'fp32');
  let n = await estimates(page);
  await page.selectOption('#par-framework', 'torch');
  await settled(page, n);
  assert.equal((await page.evaluate(() => window.__vramplan.plan())).instances[0].precision, 'fp32');
  await page.selectOption('#precision', 'amp_bf16');
  n = await estimates(page);
  await page.selectOption('#par-framework', 'deepspeed');
  await settled(page, n);
  n = await estimates(page);
  await page.selectOption('#par-framework', 'fsdp');
  await settled(page, n);
  assert.equal((await page.evaluate(() => window.__vramplan.plan())).instances[0].precision, 'amp_bf16', 'back to autocast');
  assert.match(await page.textContent('#framework-note'), /autocast/);
  assertClean(log);
  await context.close();
});

// ---- probe files -------------------------------------------------------------------------------
const X2 = path.join(PROBE_FIX, 'h100-sxm-x2-fake.json');
const REAL = path.join(PROBE_FIX, 'h100-sxm-probe-2026-11-23.json');

test('probe: choosing "Probe file" invites, it does not scold', async () => {
  const { context, page, log } = await B.openPage();
  await choose(page, 'hw-source', 'probe');
  await page.waitForSelector('#verdict.invite');
  assert.match(await page.textContent('#verdict'), /probe file/i);
  assert.equal(await page.locator('#verdict.error').count(), 0, 'not an error');
  assert.equal(await page.locator('.field-msg:not([hidden])').count(), 0, 'no field is marked wrong');
  assert.equal(await page.locator('[aria-invalid="true"]').count(), 0);
  assert.match(await page.textContent('#mini-verdict'), /probe/i);
  // an empty config.json is an invitation too
  await choose(page, 'hw-source', 'preset');
  await choose(page, 'model-source', 'hf');
  await page.waitForSelector('#verdict.invite');
  assert.match(await page.textContent('#verdict'), /config\.json/);
  assert.equal(await page.locator('.field-msg:not([hidden])').count(), 0);
  assertClean(log);
  await context.close();
});

test('probe: a bad file keeps the last good probe, with the error beside the drop zone', async () => {
  const { context, page, log } = await B.openPage();
  await choose(page, 'hw-source', 'probe');
  let n = await estimates(page);
  await page.setInputFiles('#probe-file', X2);
  await settled(page, n);
  const good = await page.evaluate(() => window.__vramplan.plan().hardware);
  const peak = await peakBytes(page);
  for (const bad of [path.join(FIX, 'not-a-probe.json'), path.join(PROBE_FIX, 'bad/truncated.json'), path.join(PROBE_FIX, 'bad/hand-edited.json')]) {
    await page.setInputFiles('#probe-file', bad);
    await page.waitForSelector('#probe-text-msg:not([hidden])');
    const msg = await page.textContent('#probe-text-msg');
    assert.match(msg, /probe|JSON|total_bytes/, msg);
    assert.match(msg, /still planned with/i, `says the last good file stays: ${msg}`);
    // beside the drop zone
    const zone = await page.locator('#probe-drop').boundingBox();
    const box = await page.locator('#probe-text-msg').boundingBox();
    assert.ok(box.y >= zone.y + zone.height - 1 && box.y - (zone.y + zone.height) < 20, 'right under the drop zone');
    assert.deepEqual(await page.evaluate(() => window.__vramplan.plan().hardware), good, `${path.basename(bad)}: the good probe stays`);
    assert.equal(await page.locator('#verdict.error').count(), 0, 'the estimate stands');
    assert.equal(await peakBytes(page), peak);
  }
  await shot(page, '23-bad-probe-kept-good');
  // a good file again clears the message
  n = await estimates(page);
  await page.setInputFiles('#probe-file', REAL);
  await settled(page, n);
  assert.equal(await page.isVisible('#probe-text-msg'), false);
  assert.equal(await page.$$eval('#probe-device option', (o) => o.length), 1);
  assertClean(log);
  await context.close();
});

test('probe: recognised by its schema wherever it is dropped', async () => {
  const text = readFileSync(X2, 'utf8');
  for (const where of ['#hf-drop', '#results', '#setup', '#plan-drop']) {
    const { context, page, log } = await B.openPage();
    if (where === '#hf-drop') {
      await choose(page, 'model-source', 'hf');
      const m = await estimates(page);
      await page.fill('#hf-config', readFileSync(path.join(FIX, 'hf-llama-3.2-1b.json'), 'utf8'));
      await settled(page, m);
    }
    if (where === '#plan-drop') await page.click('#open-plan > summary');
    const n = await estimates(page);
    await dropText(page, where, text, 'h100-x2.json');
    await settled(page, n);
    await page.waitForFunction(() => window.__vramplan.state.hardware.source === 'probe');
    assert.equal(await page.$$eval('#probe-device option', (o) => o.length), 2, where);
    assert.equal((await page.evaluate(() => window.__vramplan.plan())).hardware.probe.devices.length, 2);
    assert.doesNotMatch(await page.textContent('#verdict'), /model_type/, `${where}: not read as a config`);
    assert.equal(await page.locator('#verdict.error').count(), 0, where);
    assertClean(log);
    await context.close();
  }
});

test('probe: GPU 1 of the probe is named GPU 1 in the headline and the device card', async () => {
  const { context, page, log } = await B.openPage();
  await choose(page, 'hw-source', 'probe');
  let n = await estimates(page);
  await page.setInputFiles('#probe-file', X2);
  await settled(page, n);
  n = await estimates(page);
  await page.selectOption('#probe-device', '1');
  await settled(page, n);
  const probe = JSON.parse(readFileSync(X2, 'utf8'));
  const head = await page.textContent('#verdict .headroom');
  assert.match(head, /GPU 1\b/);
  assert.doesNotMatch(head, /GPU 0\b/);
  assert.doesNotMatch(await page.textContent('#verdict .summary'), /GPU 0\b/);
  const title = await page.textContent('#devices article.device h3');
  assert.match(title, /GPU 1\b/);
  assert.doesNotMatch(title, /GPU 0\b/);
  assert.match(await page.textContent('#devices article.device'), new RegExp(probe.devices[1].pci_bus_id.replace(/\./g, '\\.')));
  assertClean(log);
  await context.close();
});

test('probe: links carry only what the estimate needs, and the page says so', async () => {
  const { context, page, log } = await B.openPage();
  await choose(page, 'hw-source', 'probe');
  const n = await estimates(page);
  await page.setInputFiles('#probe-file', path.join(FIX, 'probe-h100.json'));
  await settled(page, n);
  assert.match(await page.textContent('#verdict'), /gpu-node-07/, 'this tab still names the node');
  assert.match(await page.textContent('#probe-privacy'), /only/);
  await page.click('#copy-link');
  const { decodeShare } = await import('../../web/share.js');
  // the link of the setup with the probe: an earlier link (before the file was read) may still be in
  // place for a moment, so wait until the saved one is this setup's (encoding runs asynchronously)
  let hash = '';
  let saved = '';
  for (let i = 0; i < 400; i++) { /* up to ~20 s: on a loaded 2-core machine the probe's encoding can lag */
    await page.waitForFunction(() => location.hash.startsWith('#v2.') && localStorage.getItem('vramplan.setup.v2') === location.hash.slice(1));
    hash = new URL(page.url()).hash;
    saved = await page.evaluate(() => localStorage.getItem('vramplan.setup.v2'));
    if ((await decodeShare(hash)).state.hardware.probe) break;
    await page.waitForTimeout(50);
  }
  assert.ok((await decodeShare(hash)).state.hardware.probe, 'within ~20 s the link carries the probe');
  for (const frag of [hash, saved]) {
    const probe = JSON.parse((await decodeShare(frag)).state.hardware.probe);
    const text = JSON.stringify(probe);
    for (const secret of ['gpu-node-07', 'hostname', 'pci_bus_id', 'uuid', 'serial', 'driver_version']) {
      assert.ok(!text.includes(secret), `the link leaves out ${secret}: ${text}`);
    }
    assert.equal(probe.devices.length, 2);
    assert.deepEqual(Object.keys(probe.devices[0].memory).sort(), ['context_bytes', 'free_bytes', 'total_bytes']);
  }
  assertClean(log);
  await context.close();
  // the same estimate from the link (the host name was only ever a label)
  const fresh = await B.openPage(hash);
  assert.equal(await fresh.page.$$eval('#probe-device option', (o) => o.length), 2);
  assert.match(await fresh.page.textContent('#probe-info'), /link/i);
  assertClean(fresh.log);
  await fresh.context.close();
});

test('probe: a 5 MB file is refused at once, naming the limit; the old error goes first', async () => {
  const { context, page, log } = await B.openPage();
  await choose(page, 'hw-source', 'probe');
  await page.setInputFiles('#probe-file', path.join(FIX, 'not-a-probe.json'));
  await page.waitForSelector('#probe-text-msg:not([hidden])');
  const probe = JSON.parse(readFileSync(REAL, 'utf8'));
  probe.warnings = Array.from({ length: 100000 }, (_, i) => `padding warning number ${i} to make a large file`);
  const big = JSON.stringify(probe);
  assert.ok(big.length > 4e6);
  // timed in the page: from the file's arrival to the message (not the test's upload of 5 MB)
  await page.evaluate(() => document.getElementById('probe-file').addEventListener('change', () => { window.__t0 = performance.now(); }, { capture: true, once: true }));
  await page.setInputFiles('#probe-file', { name: 'huge-probe.json', mimeType: 'application/json', buffer: Buffer.from(big) });
  await page.waitForFunction(() => /1 MiB/.test(document.getElementById('probe-text-msg').textContent) && (window.__t1 = performance.now()));
  const ms = await page.evaluate(() => window.__t1 - window.__t0);
  assert.ok(ms < 250, `refused in ${ms.toFixed(0)} ms`);
  assert.match(await page.textContent('#probe-text-msg'), /huge-probe\.json is 4\.\d MiB/);
  // a drop shows progress at once, with the previous error gone
  const seen = await page.evaluate(async (text) => {
    const d = new DataTransfer();
    d.items.add(new File([text], 'again.json', { type: 'application/json' }));
    document.getElementById('probe-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: d, bubbles: true, cancelable: true }));
    return { msg: document.getElementById('probe-text-msg').hidden, status: document.getElementById('probe-status').textContent };
  }, big);
  assert.equal(seen.msg, true, 'the old error is cleared in the same task as the drop');
  assert.match(seen.status, /Reading again\.json/);
  assertClean(log);
  await context.close();
});
