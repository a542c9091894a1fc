// edge.test.mjs: "fit at the edge" on the page (issue 9): the largest values that fit, the
// charts of peak reserved memory, the setups that fit (recommend) with Apply; all from the core
// (vpw_fit / vpw_sweep / vpw_recommend) in a second worker, off the main thread.
//
//   node --test tests/web/edge.test.mjs     (after web/build.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  useBrowser, nodeCoreInstance, estimates, settled, choose, shot, assertClean, reservedBytes,
} from './browser.mjs';

const B = useBrowser();

/** Waits for the planner's answers to the setup drawn now. */
async function edgeDone(page) {
  await page.waitForFunction(() => document.documentElement.dataset.edge
    && !document.getElementById('edge').classList.contains('busy')
    && !document.getElementById('recommend').classList.contains('busy'), null, { timeout: 30000 });
}

/** Reads the setup's plan, then the core's answer in Node for it (the same WASM build). */
async function reference(page, fn, ...args) {
  const core = await nodeCoreInstance();
  const plan = JSON.stringify(await page.evaluate(() => window.__vramplan.plan()));
  return JSON.parse(core[fn](plan, ...args));
}

const fitShown = (page, field) => page.$eval(`#edge [data-field="${field}"] [data-key="fit-value"]`, (el) => Number(el.dataset.value));

test('the largest micro-batch and sequence that fit stand beside the verdict (training and inference)', async () => {
  const { context, page, log } = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  await edgeDone(page);
  for (const field of ['batch', 'seq']) {
    const fit = await reference(page, 'fit', field);
    assert.ok(fit.value >= 1);
    assert.equal(await fitShown(page, field), fit.value, field);
    const box = await page.locator(`#edge [data-field="${field}"] [data-key="fit-value"]`).boundingBox();
    assert.ok(box.y + box.height <= 900, `${field}: on the first screen, beside the verdict`);
  }
  assert.match(await page.textContent('#edge'), /Largest micro-batch that fits/);
  assert.match(await page.textContent('#edge'), /Longest sequence that fits/);
  await shot(page, '30-edge-train');
  // inference: batch, prompt and generated tokens (a setup where the generated-token search is
  // quick: this build replays every decode step, about 1 ms per token of the answer)
  let n = await estimates(page);
  await choose(page, 'mode', 'infer');
  await settled(page, n);
  await page.fill('#preset-search', 'llama 3.1 8b');
  await page.selectOption('#preset', 'llama-3.1-8b');
  await page.selectOption('#gpu', 'a10g');
  await page.fill('#prompt', '512');
  n = await estimates(page);
  await page.fill('#batch', '24');
  await settled(page, n);
  await edgeDone(page);
  for (const field of ['batch', 'seq', 'new_tokens']) {
    assert.equal(await fitShown(page, field), (await reference(page, 'fit', field)).value, field);
  }
  assert.match(await page.textContent('#edge'), /Most generated tokens that fit/);
  assert.equal(await page.locator('#recommend li').count(), 0, 'recommend is for training');
  // "Use N" sets the value and the core estimates it
  const most = await fitShown(page, 'batch');
  n = await estimates(page);
  await page.click('#edge button[data-use="batch"]');
  await settled(page, n);
  assert.equal(await page.inputValue('#batch'), String(most));
  await page.waitForSelector('#verdict[data-fits="true"]');
  // nothing fits: said plainly
  n = await estimates(page);
  await page.fill('#preset-search', 'llama 3.1 70b');
  await page.selectOption('#preset', 'llama-3.1-70b');
  await page.selectOption('#gpu', 't4');
  await settled(page, n);
  await edgeDone(page);
  assert.equal(await fitShown(page, 'batch'), 0);
  assert.match(await page.textContent('#edge [data-field="batch"]'), /not even 1 fits/);
  assertClean(log);
  await context.close();
});

test('charts: peak reserved against micro-batch and sequence, the usable line, a click uses the value', async () => {
  const { context, page, log } = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  await edgeDone(page);
  for (const field of ['batch', 'seq']) {
    const sweep = await reference(page, 'sweep', field, 0);
    const svg = page.locator(`#edge figure[data-field="${field}"] svg`);
    const points = await svg.locator('.point').evaluateAll((els) => els.map((e) => ({
      value: Number(e.dataset.value), bytes: Number(e.dataset.bytes), fits: e.dataset.fits === 'true',
    })));
    assert.deepEqual(points, sweep.points.map((p) => ({ value: p.value, bytes: p.peak_reserved_bytes, fits: p.fits })), field);
    assert.equal(Number(await svg.locator('.usable').getAttribute('data-bytes')), sweep.usable_bytes);
    // points that fit lie below the usable line, the others above it (same scale)
    const geometry = await svg.evaluate((el) => ({
      usable: Number(el.querySelector('.usable').getAttribute('y1')),
      pts: [...el.querySelectorAll('.point')].map((c) => ({ y: Number(c.getAttribute('cy')), fits: c.dataset.fits === 'true' })),
    }));
    for (const p of geometry.pts) assert.ok(p.fits ? p.y >= geometry.usable : p.y <= geometry.usable, `${field}: ${JSON.stringify(p)}`);
    assert.equal(await svg.locator('.point.edge').getAttribute('data-value'), String(sweep.largest));
  }
  assert.equal(await page.locator('#edge svg image, #edge svg foreignObject').count(), 0);
  // a click on the point at micro-batch 8 sets it
  let n = await estimates(page);
  await page.click('#edge figure[data-field="batch"] .point[data-value="8"]');
  await settled(page, n);
  assert.equal(await page.inputValue('#batch'), '8');
  assert.equal((await page.evaluate(() => window.__vramplan.plan())).workload.batch, 8);
  await edgeDone(page);
  // and by keyboard: Enter on a point of the sequence chart
  const seqPoint = page.locator('#edge figure[data-field="seq"] .point').nth(2);
  const value = await seqPoint.getAttribute('data-value');
  await seqPoint.focus();
  n = await estimates(page);
  await page.keyboard.press('Enter');
  await settled(page, n);
  assert.equal(await page.inputValue('#seq'), value);
  await shot(page, '31-edge-charts');
  assertClean(log);
  await context.close();
});

test('recommend: setups that fit, fastest first, each with Apply; Undo brings the setup back', async () => {
  const { context, page, log } = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  let n = await estimates(page);
  await page.fill('#batch', '8');
  await settled(page, n);
  n = await estimates(page);
  await page.fill('#grad-accum', '8');
  await settled(page, n);
  await edgeDone(page);
  const rec = await reference(page, 'recommend', 0);
  assert.equal(rec.global_batch, 64);
  assert.match(await page.textContent('#recommend h3'), /global batch of 64/);
  const ranks = await page.$$eval('#recommend li', (lis) => lis.map((li) => Number(li.dataset.rank)));
  assert.deepEqual(ranks, rec.entries.map((e) => e.rank));
  assert.ok(rec.entries.length >= 2);
  const before = await page.evaluate(() => window.__vramplan.state);
  const pick = rec.entries[1];
  await page.click('#recommend details.more-setups > summary').catch(() => {});
  n = await estimates(page);
  await page.click('#recommend button[data-recommend="1"]');
  await settled(page, n);
  assert.equal(await reservedBytes(page), pick.estimate.peak_reserved_bytes, 'the page estimates what the core quoted for the setup');
  const plan = await page.evaluate(() => window.__vramplan.plan());
  assert.equal(plan.workload.batch, pick.micro_batch);
  assert.equal(plan.workload.grad_accum, pick.grad_accum);
  assert.equal(plan.instances[0].precision, pick.precision);
  assert.equal(plan.instances[0].optimizer.name, pick.optimizer);
  assert.equal(plan.instances[0].name, before.instances[0].model.preset, 'the automatic name stays automatic');
  assert.equal((await page.evaluate(() => window.__vramplan.state)).instances[0].name, '');
  assert.match(await page.textContent('#applied'), /Applied setup 2/);
  n = await estimates(page);
  await page.click('#undo');
  await settled(page, n);
  assert.deepEqual(await page.evaluate(() => window.__vramplan.state), before, 'Undo: the previous setup');
  // another global batch: the list again
  await edgeDone(page);
  await page.fill('#recommend-batch', '32');
  await page.dispatchEvent('#recommend-batch', 'change');
  await page.waitForFunction(() => /global batch of 32\b/.test(document.querySelector('#recommend h3')?.textContent || ''));
  const rec32 = await reference(page, 'recommend', 32);
  assert.deepEqual(await page.$$eval('#recommend li', (lis) => lis.map((li) => li.querySelector('.what').textContent.split(' · ')[0])),
    rec32.entries.map((e) => `micro-batch ${e.micro_batch} × ${e.grad_accum} accumulation`));
  await shot(page, '32-recommend');
  assertClean(log);
  await context.close();
});

test('the searches run in their own worker: no long main-thread task, the first estimate first', async () => {
  const { context, page, log } = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' });
  });
  await edgeDone(page);
  const t = await page.evaluate(() => ({ first: window.__vramplan.perf.firstEstimateMs, planner: window.__vramplan.edge.startedMs, two: window.__vramplan.planner !== window.__vramplan.core }));
  assert.ok(t.two, 'a second worker');
  assert.ok(t.planner >= t.first, `the planner starts after the first estimate is drawn (${t.planner} ≥ ${t.first})`);
  // type while the planner searches: estimates keep coming
  for (const v of ['2', '6', '10', '3', '12', '5']) {
    const n = await estimates(page);
    await page.fill('#batch', v);
    await settled(page, n);
  }
  await edgeDone(page);
  assert.equal(await page.inputValue('#batch'), '5');
  assert.equal(await page.$eval('#edge [data-field="batch"] .muted', (el) => el.textContent), ' · now 5', 'the answers are for the last setup');
  const long = await page.evaluate(() => window.__long);
  assert.deepEqual(long.filter((d) => d > 50), [], `no main-thread task over 50 ms: ${long.map((d) => d.toFixed(0)).join(', ')}`);
  assertClean(log);
  await context.close();
});

test('a video pipeline: the most frames that fit (1 + 4k), their chart, Use; in training, the script flags; an image pipeline has no frames line', async () => {
  const { context, page, log } = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  await edgeDone(page);
  let n = await estimates(page);
  await choose(page, 'mode', 'infer');
  await settled(page, n);
  n = await estimates(page);
  await page.fill('#batch', '1');
  await settled(page, n);
  await page.fill('#preset-search', 'cogvideox 2b');
  await page.selectOption('#preset', 'cogvideox-2b');
  await page.waitForFunction(() => window.__vramplan.state.instances.length === 3);
  n = await estimates(page);
  await page.selectOption('#diff-offload', 'model');
  await settled(page, n);
  n = await estimates(page);
  await page.selectOption('#gpu', 'rtx-4090');
  await settled(page, n);
  await edgeDone(page);
  const fit = await reference(page, 'fit', 'frames');
  assert.equal(fit.step, 4, 'the CogVideoX VAE compresses time 4x');
  assert.ok(fit.value >= 49 && fit.value % 4 === 1, `frames ${fit.value}`);
  assert.equal(await fitShown(page, 'frames'), fit.value);
  assert.match(await page.textContent('#edge'), /Most video frames that fit/);
  assert.doesNotMatch(await page.textContent('#edge'), /Longest sequence/, 'a DiT takes no sequence length');
  assert.match(await page.textContent('#edge [data-field="frames"]'), new RegExp(`${(fit.value + 4).toLocaleString('en-US')} would need`));
  const sweep = await reference(page, 'sweep', 'frames', 0);
  const points = await page.locator('#edge figure[data-field="frames"] svg .point').evaluateAll((els) => els.map((e) => Number(e.dataset.value)));
  assert.deepEqual(points, sweep.points.map((p) => p.value));
  assert.ok(points.every((v) => v % 4 === 1), `chart values ${points}`);
  // Use N: the frames field gets it, the size stays the pipeline's default
  n = await estimates(page);
  await page.click('#edge button[data-use="frames"]');
  await settled(page, n);
  assert.equal(await page.inputValue('#frames'), String(fit.value));
  assert.equal((await page.evaluate(() => window.__vramplan.plan())).workload.frames, fit.value);
  await page.waitForSelector('#verdict[data-fits="true"]');
  await shot(page, '33-edge-frames');
  assertClean(log);
  await context.close();
  // training a video DiT (a fresh page, train mode): frames again, and the recommended setup as the diffusers scripts' flags
  const pt = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  await edgeDone(pt.page);
  n = await estimates(pt.page);
  await pt.page.fill('#batch', '1');
  await settled(pt.page, n);
  await pt.page.fill('#preset-search', 'cogvideox 2b');
  await pt.page.selectOption('#preset', 'cogvideox-2b');
  n = await estimates(pt.page);
  await pt.page.fill('#frames', '17');
  await settled(pt.page, n);
  await edgeDone(pt.page);
  assert.match(await pt.page.textContent('#edge'), /Most video frames that fit/);
  const rec = await reference(pt.page, 'recommend', 0);
  assert.ok(rec.winner, `recommend: ${JSON.stringify(rec).slice(0, 300)}`);
  assert.match(rec.winner.script_flags, /--train_batch_size \d+ --gradient_accumulation_steps \d+/);
  assert.match(await pt.page.textContent('#recommend details.winner summary'), /diffusers \/ finetrainers script flags/);
  assert.equal(await pt.page.$eval('#recommend details.winner pre', (el) => el.textContent), rec.winner.script_flags);
  assertClean(pt.log);
  await pt.context.close();
  // an image pipeline (FLUX.1-dev: a 2-D VAE): batch only
  const p2 = await B.openPage('', { viewport: { width: 1440, height: 900 } });
  await edgeDone(p2.page);
  n = await estimates(p2.page);
  await choose(p2.page, 'mode', 'infer');
  await settled(p2.page, n);
  await p2.page.fill('#preset-search', 'flux');
  await p2.page.selectOption('#preset', 'flux.1-dev');
  await p2.page.waitForFunction(() => window.__vramplan.state.instances.length > 1);
  await edgeDone(p2.page);
  assert.equal((await reference(p2.page, 'fit', 'frames')).error.path, 'workload.frames');
  assert.equal(await p2.page.locator('#edge [data-field="frames"]').count(), 0);
  assert.equal(await p2.page.locator('#edge .edge-value[data-field="batch"]').count(), 1);
  assertClean(p2.log);
  await p2.context.close();
});
