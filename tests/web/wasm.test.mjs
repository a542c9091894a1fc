// wasm.test.mjs: the WebAssembly build in Node, against the native CLI.
//
// Loads dist/site/vramplan-core.js (the page's own heap module) with the .wasm bytes as
// wasmBinary, then checks that every calibration plan gives byte-identical estimate JSON
// from WASM and from `build/cli/vramplan estimate --plan FILE --json`.
//
//   node --test tests/web/wasm.test.mjs      (after web/build.sh and the native build)
// VP_CLI overrides the CLI path; VP_CALIBRATION the calibration file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SITE = path.join(ROOT, 'dist/site');
const CLI = process.env.VP_CLI || path.join(ROOT, 'build/cli/vramplan');
const CALIBRATION = process.env.VP_CALIBRATION || path.resolve(ROOT, '../shared/groundtruth/calibration.jsonl');
const FIXTURES = path.join(ROOT, 'tests/web/fixtures');

const { loadCore } = await import(pathToFileURL(path.join(SITE, 'vramplan-core.js')).href);
const core = await loadCore({ wasmBinary: readFileSync(path.join(SITE, 'vramplan.wasm')) });

const haveCli = existsSync(CLI);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'vramplan-wasm-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

function cliEstimate(planText, name) {
  const file = path.join(tmp, `${name}.json`);
  writeFileSync(file, planText);
  try {
    return { ok: true, out: execFileSync(CLI, ['estimate', '--plan', file, '--json'], { encoding: 'utf8' }) };
  } catch (e) {
    return { ok: false, out: String(e.stdout || ''), err: String(e.stderr || e.message) };
  }
}

/** null when WASM prints exactly what the CLI printed (in the CLI's layout), else why not. */
function differenceFromCli(planText, name) {
  const cli = cliEstimate(planText, name);
  const wasmCompact = core.estimate(planText, false);
  if (!cli.ok) {
    // the CLI refused the plan: WASM must refuse it too
    return JSON.parse(wasmCompact).error ? null : `${name}: CLI failed (${cli.err.trim()}) but WASM gave an estimate`;
  }
  const expected = cli.out.replace(/\n$/, '');
  const pretty = expected.includes('\n');
  const got = pretty ? core.estimate(planText, true) : wasmCompact;
  if (got === expected) return null;
  let i = 0;
  while (i < expected.length && got[i] === expected[i]) i++;
  return `${name}: differs at character ${i}:\n    cli:  ${JSON.stringify(expected.slice(Math.max(0, i - 60), i + 60))}\n    wasm: ${JSON.stringify(got.slice(Math.max(0, i - 60), i + 60))}`;
}

function assertAllSame(named) {
  const diffs = named.map(([name, text]) => differenceFromCli(text, name)).filter(Boolean);
  assert.equal(diffs.length, 0, `${diffs.length} of ${named.length} plans differ between WASM and the CLI:\n  ${diffs.join('\n  ')}`);
}

test('version matches the header', () => {
  const header = readFileSync(path.join(ROOT, 'core/include/vramplan.h'), 'utf8');
  const m = /#define VP_VERSION "([^"]+)"/.exec(header);
  assert.equal(core.version(), m[1]);
});

test('presets bundle lists every file of models/', () => {
  const bundle = JSON.parse(core.presets());
  const ids = (dir) => readdirSync(path.join(ROOT, 'models', dir)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  assert.deepEqual(bundle.models.map((m) => m.id).sort(), ids('models'));
  assert.deepEqual(bundle.gpus.map((g) => g.id).sort(), ids('gpus'));
});

test('a minimal plan gives a vramplan/estimate@1 document', () => {
  const est = JSON.parse(core.estimate(JSON.stringify({
    schema: 'vramplan/plan@1',
    workload: { mode: 'train', batch: 1, seq: 128 },
    instances: [{ model: { preset: 'gpt2' } }],
  })));
  assert.equal(est.schema, 'vramplan/estimate@1');
  assert.equal(typeof est.fits, 'boolean');
  assert.ok(est.devices.length >= 1);
  const d = est.devices[0];
  const sum = d.components.reduce((a, c) => a + c.bytes, 0);
  assert.equal(sum, d.peak_alloc_bytes, 'components sum to peak_alloc_bytes');
});

test('errors come back as {"error":{code,path,message}}', () => {
  const cases = [
    ['not json at all {', ''],
    [JSON.stringify({ schema: 'vramplan/plan@9', workload: { batch: 1 }, instances: [] }), 'schema'],
    [JSON.stringify({ schema: 'vramplan/plan@1', workload: { batch: 0, seq: 8 }, instances: [{ model: { preset: 'gpt2' } }] }), 'workload.batch'],
    [JSON.stringify({ schema: 'vramplan/plan@1', workload: { batch: 1e15, seq: 8 }, instances: [{ model: { preset: 'gpt2' } }] }), 'workload.batch'],
    [JSON.stringify({ schema: 'vramplan/plan@1', workload: { batch: 1, seq: 8 }, instances: [{ model: { preset: 'no-such-model' } }] }), 'instances[0].model.preset'],
    [JSON.stringify({
      schema: 'vramplan/plan@1', workload: { batch: 1, seq: 8 }, instances: [{ model: { preset: 'gpt2' } }],
      hardware: { probe: JSON.parse(readFileSync(path.join(FIXTURES, 'not-a-probe.json'), 'utf8')) },
    }), 'hardware.probe.schema'],
  ];
  for (const [plan, wantPath] of cases) {
    const out = JSON.parse(core.estimate(plan));
    assert.ok(out.error, `expected an error for ${plan.slice(0, 80)}`);
    assert.equal(typeof out.error.code, 'string');
    assert.equal(typeof out.error.message, 'string');
    assert.ok(out.error.message.length > 0);
    if (wantPath) assert.ok(out.error.path.startsWith(wantPath), `path ${out.error.path} should start with ${wantPath}`);
  }
});

test('strings from the plan come back escaped, never raw', () => {
  const name = '<img src=x onerror=alert(1)> "q" \\ \u0001';
  const out = core.estimate(JSON.stringify({
    schema: 'vramplan/plan@1', workload: { batch: 1, seq: 8 },
    instances: [{ name: name.slice(0, 40), model: { preset: 'gpt2' } }],
  }));
  const est = JSON.parse(out); // valid JSON whatever the name holds
  assert.equal(est.instances[0].name, name.slice(0, 40));
});

test('hostile plans never trap the module', () => {
  const base = { schema: 'vramplan/plan@1', workload: { batch: 1, seq: 8 }, instances: [{ model: { preset: 'gpt2' } }] };
  const hostile = [
    '',
    '\u0000',
    '['.repeat(100000),
    `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    JSON.stringify({ ...base, name: 'x'.repeat(5 << 20) }),
    JSON.stringify({ ...base, workload: { batch: 1, seq: 8, new_tokens: -0 } }),
    JSON.stringify(base).replace('"batch":1', '"batch":1e309'),
    JSON.stringify(base).replace('"batch":1', '"batch":-1e308'),
    JSON.stringify(base).replace('"batch":1', '"batch":1.5'),
    JSON.stringify(base).replace('"batch":1', '"batch":"4"'),
    JSON.stringify({ ...base, instances: [{ model: { hf_config: { model_type: 'llama', hidden_size: 1e300, num_hidden_layers: 1e300, num_attention_heads: 1, vocab_size: 1 } } }] }),
    JSON.stringify({ ...base, instances: [{ model: { hf_config: { model_type: '\ud800<script>', hidden_size: 8 } } }] }),
    JSON.stringify({ ...base, instances: Array.from({ length: 100 }, () => ({ model: { preset: 'gpt2' } })) }),
    JSON.stringify({ ...base, hardware: { probe: { schema: 'vramplan/gpu-probe@1', devices: [] } } }),
    JSON.stringify({ ...base, hardware: { probe: { schema: 'vramplan/gpu-probe@1', devices: [{ name: 'x', memory: { total_bytes: 1, free_bytes: 2 } }] } } }),
    JSON.stringify({ ...base, hardware: { gpu: 'h100-sxm-80gb', count: 1e9 } }),
  ];
  for (const plan of hostile) {
    const out = core.estimate(plan);
    const doc = JSON.parse(out);
    assert.ok(doc.error || doc.schema === 'vramplan/estimate@1', `answer for ${plan.slice(0, 60)}`);
  }
  // and the module still works afterwards
  assert.equal(JSON.parse(core.estimate(JSON.stringify(base))).schema, 'vramplan/estimate@1');
});

test('no memory growth over many estimates', () => {
  const plan = JSON.stringify({ schema: 'vramplan/plan@1', workload: { batch: 2, seq: 256 }, instances: [{ model: { preset: 'llama-3.2-1b' } }] });
  for (let i = 0; i < 200; i++) core.estimate(plan);
  const before = core.heapBytes();
  for (let i = 0; i < 3000; i++) {
    core.estimate(plan);
    core.estimate('{"broken":');
  }
  assert.equal(core.heapBytes(), before);
});

test('probe fixture plans on the probed GPU', () => {
  const probe = JSON.parse(readFileSync(path.join(FIXTURES, 'probe-h100.json'), 'utf8'));
  for (const device of [0, 1]) {
    const est = JSON.parse(core.estimate(JSON.stringify({
      schema: 'vramplan/plan@1', workload: { batch: 1, seq: 128 },
      instances: [{ model: { preset: 'gpt2' } }], hardware: { probe, device },
    })));
    assert.ok(!est.error, JSON.stringify(est.error));
    assert.equal(est.devices[0].name, probe.devices[device].name);
  }
});

test('calibration plans: WASM output is byte-identical to the CLI', (t) => {
  if (!haveCli) return t.skip(`native CLI not built at ${path.relative(ROOT, CLI)} (cmake -S . -B build && cmake --build build)`);
  if (!existsSync(CALIBRATION)) return t.skip(`no ${path.relative(ROOT, CALIBRATION)} (shared/ is not beside the repository)`);
  const plans = execFileSync(CLI, ['calibrate', CALIBRATION, '--plans'], { encoding: 'utf8', maxBuffer: 64 << 20 })
    .split('\n').filter((l) => l.trim());
  assert.ok(plans.length > 0, 'the CLI printed no plans');
  assertAllSame(plans.map((plan, i) => [`calibration-${i}`, plan]));
  t.diagnostic(`${plans.length} calibration plans identical`);
});

test('example and fixture plans: WASM output is byte-identical to the CLI', (t) => {
  if (!haveCli) return t.skip(`native CLI not built at ${path.relative(ROOT, CLI)}`);
  const files = [];
  const ex = path.join(ROOT, 'examples');
  if (existsSync(ex)) for (const f of readdirSync(ex)) if (f.endsWith('.json')) files.push(path.join(ex, f));
  const probe = readFileSync(path.join(FIXTURES, 'probe-h100.json'), 'utf8');
  const extra = [
    { schema: 'vramplan/plan@1', workload: { mode: 'infer', batch: 4, seq: 2048, new_tokens: 256 }, instances: [{ model: { preset: 'llama-3.1-8b' } }] },
    { schema: 'vramplan/plan@1', workload: { batch: 4, seq: 1024 }, instances: [{ model: { preset: 'llama-3.2-1b' } }], hardware: { probe: JSON.parse(probe), device: 1 } },
    { schema: 'vramplan/plan@1', workload: { batch: 1, seq: 4096 }, instances: [{ model: { preset: 'mistral-7b-v0.1' }, quant: 'nf4', finetune: { method: 'qlora', lora: { r: 16 } } }] },
  ];
  const named = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    try {
      if (JSON.parse(text).schema !== 'vramplan/plan@1') continue;
    } catch {
      continue;
    }
    named.push([`example-${path.basename(f, '.json')}`, text]);
  }
  const n = named.length;
  extra.forEach((p, i) => named.push([`extra-${i}`, JSON.stringify(p)]));
  assertAllSame(named);
  t.diagnostic(`${n} example plans and ${extra.length} extra plans identical`);
});

test('every examples/*.json plan: WASM and `vramplan estimate --plan FILE --json` print the same bytes', (t) => {
  if (!haveCli) return t.skip(`native CLI not built at ${path.relative(ROOT, CLI)}`);
  const dir = path.join(ROOT, 'examples');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  assert.ok(files.length >= 9, `examples/ holds the example plans (${files.length})`);
  const diffs = [];
  for (const f of files) {
    const file = path.join(dir, f);
    const text = readFileSync(file, 'utf8');
    // the CLI reads the file itself (not a copy)
    const cli = execFileSync(CLI, ['estimate', '--plan', file, '--json'], { encoding: 'utf8' }).replace(/\n$/, '');
    const wasm = core.estimate(text, cli.includes('\n'));
    if (wasm !== cli) diffs.push(f);
    assert.ok(!JSON.parse(wasm).error, `${f} is a valid plan`);
    // and the site serves the same plan for "Load example" (web/build.sh writes it without the indentation)
    const served = path.join(SITE, 'examples', f);
    if (existsSync(served)) assert.deepEqual(JSON.parse(readFileSync(served, 'utf8')), JSON.parse(text), `dist/site/examples/${f} is examples/${f}`);
  }
  assert.deepEqual(diffs, [], `WASM differs from the CLI for: ${diffs.join(', ')}`);
  const index = JSON.parse(readFileSync(path.join(SITE, 'examples', 'index.json'), 'utf8'));
  assert.deepEqual(index.map((x) => x.file), files, 'the site\'s example index lists every example');
  t.diagnostic(`${files.length} examples byte-identical`);
});

// ---- fit, sweep and recommend (wasm/vp_wasm.c vpw_fit / vpw_sweep / vpw_recommend) ----------------
// The page's module wrapper (web/vramplan-core.js) is the page's; these tests call the exported C
// functions of the same build directly.
const { default: createVramplan } = await import(pathToFileURL(path.join(SITE, 'vramplan.mjs')).href);
const raw = await createVramplan({ wasmBinary: readFileSync(path.join(SITE, 'vramplan.wasm')), print: () => {}, printErr: () => {} });

/** Call an exported vpw_* function: strings are copied in, the result copied out, both freed. */
function vpw(name, ...args) {
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
  try {
    assert.ok(out, `${name} returned NULL`);
    return raw.UTF8ToString(out);
  } finally {
    for (const p of ptrs) raw._free(p);
    if (out) raw._vpw_free(out);
  }
}

function cliJson(args, planText, name) {
  const file = path.join(tmp, `${name}.json`);
  writeFileSync(file, planText);
  try {
    return { rc: 0, out: execFileSync(CLI, [...args, '--plan', file, '--json'], { encoding: 'utf8' }) };
  } catch (e) {
    return { rc: e.status, out: String(e.stdout || ''), err: String(e.stderr || '') };
  }
}

const L1B = (batch, seq) => JSON.stringify({ schema: 'vramplan/plan@1', workload: { batch, seq }, instances: [{ model: { preset: 'llama-3.2-1b' } }] });

test('fit: WASM prints the bytes of `vramplan fit --json` (examples and extra plans, every field)', (t) => {
  if (!haveCli) return t.skip(`native CLI not built at ${path.relative(ROOT, CLI)}`);
  const cases = [];
  const ex = path.join(ROOT, 'examples');
  for (const f of readdirSync(ex).filter((x) => x.endsWith('.json')).sort()) cases.push([`example-${f}`, readFileSync(path.join(ex, f), 'utf8'), 'batch']);
  cases.push(['l1b-batch', L1B(1, 1024), 'batch'], ['l1b-seq', L1B(4, 2048), 'seq']);
  cases.push(['gpt2-seq-positions', JSON.stringify({ schema: 'vramplan/plan@1', workload: { batch: 1, seq: 512 }, instances: [{ model: { preset: 'gpt2' } }] }), 'seq']);
  cases.push(['l8b-new-tokens', JSON.stringify({
    schema: 'vramplan/plan@1', workload: { mode: 'infer', batch: 8, seq: 1024, new_tokens: 256 },
    instances: [{ model: { preset: 'llama-3.1-8b' } }], hardware: { gpu: 'h100-sxm-80gb', capacity_bytes: 20000000000 },
  }), 'new_tokens']);
  // frames of a video pipeline, searched in 1 + 4k counts (plan_edit.c)
  cases.push(['wan-frames', JSON.stringify({
    schema: 'vramplan/plan@1', workload: { mode: 'infer', batch: 1, height: 480, width: 832 },
    instances: [{ model: { preset: 'wan2.1-t2v-1.3b' }, precision: 'bf16', role: 'reference', activations: 'no_grad' }],
    hardware: { gpu: 'h100-sxm-80gb', capacity_bytes: 8000000000 },
  }), 'frames']);
  const diffs = [];
  for (const [name, plan, field] of cases) {
    const cli = cliJson(['fit', '--max', field], plan, name);
    assert.ok(cli.rc === 0 || cli.rc === 4, `${name}: CLI exit ${cli.rc}: ${cli.err}`);
    const wasm = vpw('vpw_fit', plan, field, 0);
    if (wasm !== cli.out.replace(/\n$/, '')) diffs.push(name);
    const fit = JSON.parse(wasm);
    assert.equal(fit.schema, 'vramplan/fit@1');
    assert.equal(cli.rc, fit.value >= 1 ? 0 : 4, `${name}: exit 0 when some value fits, 4 when none`);
  }
  assert.deepEqual(diffs, [], `fit differs between WASM and the CLI for: ${diffs.join(', ')}`);
  t.diagnostic(`${cases.length} fits byte-identical`);
});

test('fit: errors come back as {"error"} naming the field', () => {
  const e1 = JSON.parse(vpw('vpw_fit', L1B(1, 1024), 'new_tokens', 0));
  assert.equal(e1.error.path, 'workload.new_tokens');
  const e2 = JSON.parse(vpw('vpw_fit', L1B(1, 1024), 'microbatch', 0));
  assert.equal(e2.error.path, 'field');
  const e3 = JSON.parse(vpw('vpw_fit', '{"schema":', 'batch', 0));
  assert.equal(e3.error.code, 'json');
});

test('sweep: points agree with fit and with single estimates, usable line from the estimate', () => {
  const plan = L1B(1, 1024);
  const fit = JSON.parse(vpw('vpw_fit', plan, 'batch', 0));
  const sw = JSON.parse(vpw('vpw_sweep', plan, 'batch', 24));
  assert.equal(sw.schema, 'vramplan/sweep@1');
  assert.equal(sw.largest, fit.value);
  const values = sw.points.map((p) => p.value);
  assert.ok(values.includes(fit.value) && values.includes(fit.value + 1), 'the largest that fits and the next one are points');
  assert.ok(Math.max(...values) >= 2 * fit.value - 4, 'up to about twice the largest');
  for (let i = 1; i < values.length; i++) assert.ok(values[i] > values[i - 1]);
  for (const p of sw.points) {
    const est = JSON.parse(core.estimate(L1B(p.value, 1024)));
    assert.equal(p.fits, est.fits, `batch ${p.value}`);
    assert.equal(p.peak_reserved_bytes, est.devices[0].peak_reserved_bytes, `batch ${p.value}`);
  }
  assert.equal(sw.usable_bytes, JSON.parse(core.estimate(plan)).devices[0].usable_bytes);
});

test('recommend: WASM prints the bytes of `vramplan recommend --json`; each entry\'s plan estimates to what it quotes', (t) => {
  if (!haveCli) return t.skip(`native CLI not built at ${path.relative(ROOT, CLI)}`);
  const plan = JSON.stringify({
    schema: 'vramplan/plan@1', workload: { batch: 2, seq: 1024, grad_accum: 4 },
    instances: [{ model: { preset: 'gpt2' } }], hardware: { gpu: 'rtx-4090' },
  });
  const cli = cliJson(['recommend'], plan, 'recommend-gpt2');
  assert.equal(cli.rc, 0, cli.err);
  const wasm = vpw('vpw_recommend', plan, 0, 0);
  assert.equal(wasm, cli.out.replace(/\n$/, ''));
  const rec = JSON.parse(wasm);
  assert.equal(rec.global_batch, 8);
  assert.ok(rec.entries.length > 0);
  for (const e of rec.entries) {
    assert.equal(e.micro_batch * e.grad_accum, 8);
    const est = JSON.parse(core.estimate(JSON.stringify(e.plan)));
    assert.equal(est.fits, true);
    assert.equal(est.devices[0].peak_reserved_bytes, e.estimate.peak_reserved_bytes, `rank ${e.rank}`);
  }
  assert.match(rec.winner.training_arguments, /^(#.*\n)*TrainingArguments\(\n {4}per_device_train_batch_size=\d+,/);
  const inf = JSON.parse(vpw('vpw_recommend', JSON.stringify({ schema: 'vramplan/plan@1', workload: { mode: 'infer', batch: 1, seq: 64 }, instances: [{ model: { preset: 'gpt2' } }] }), 0, 0));
  assert.equal(inf.error.path, 'workload.mode');
});

test('fit, sweep and recommend leave the heap as they found it', () => {
  const plan = L1B(1, 1024);
  for (let i = 0; i < 3; i++) {
    vpw('vpw_fit', plan, 'batch', 0);
    vpw('vpw_sweep', plan, 'seq', 8);
  }
  const before = raw.HEAP8.length;
  for (let i = 0; i < 20; i++) {
    vpw('vpw_fit', plan, 'batch', 1);
    vpw('vpw_sweep', plan, 'batch', 16);
    vpw('vpw_fit', '{', 'batch', 0);
  }
  assert.equal(raw.HEAP8.length, before);
});
