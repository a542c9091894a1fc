// page.test.mjs: the page's layout, messages, files and state (issue 10), in headless Chromium.
//
//   node --test tests/web/page.test.mjs     (after web/build.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  useBrowser, FIX, PROBE_FIX, estimates, settled, choose, shot, assertClean, linkFor, dropText, peakBytes, reservedBytes,
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
