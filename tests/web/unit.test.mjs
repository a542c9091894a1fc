// unit.test.mjs: the page's pure modules in Node (share links, plan building, sanitizing).
//   node --test tests/web/unit.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_STATE } from '../../web/options.js';
import { encodeShare, decodeShare, sanitize, diff, ShareError } from '../../web/share.js';
import { buildPlan, InputError, shortName, hfConfigName } from '../../web/plan.js';

const FIX = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (f) => readFileSync(path.join(FIX, f), 'utf8');
const setup = (edit = () => {}) => {
  const s = structuredClone(DEFAULT_STATE);
  s.model.preset = 'llama-3.2-1b';
  s.hardware.gpu = 'h100-sxm-80gb';
  edit(s);
  return s;
};

test('v1 defaults are frozen: share links store differences from them', () => {
  assert.deepEqual(JSON.parse(JSON.stringify(DEFAULT_STATE)), JSON.parse(fixture('default-state-v1.json')),
    'DEFAULT_STATE changed: old #v1 links would change meaning; bump SHARE_VERSION in web/share.js and read v1 links with the old defaults');
  assert.ok(Object.isFrozen(DEFAULT_STATE.workload.lora));
});

test('share links round-trip a setup and a pinned setup', async () => {
  const s = setup((x) => {
    x.workload.batch = 8;
    x.workload.finetune = 'qlora';
    x.workload.lora.targets = ['q_proj', 'v_proj'];
    x.model.hf = fixture('hf-xss.json');
  });
  const p = setup((x) => { x.workload.mode = 'infer'; });
  const frag = await encodeShare(s, p);
  assert.match(frag, /^v1\.[dj]\.[A-Za-z0-9_-]+$/);
  const back = await decodeShare(`#${frag}`);
  assert.deepEqual(back.state, s);
  assert.deepEqual(back.pinned, p);
  const plain = await encodeShare(setup());
  assert.ok(plain.length < 160, `default setup link is short (${plain.length})`);
  assert.equal((await decodeShare(plain)).pinned, null);
});

test('bad links raise ShareError with a sentence', async () => {
  const good = await encodeShare(setup());
  const cases = {
    'v1.d.AAAA': /damaged/,
    [`${good.slice(0, -6)}`]: /damaged/,
    'v1.d.ab*cd': /damaged/,
    'v1.j.e30': /not a setup/,
    'v1.j.WzFd': /not a setup/,
    'v1.q.abc': /encoding/,
    'v2.d.abc': /different version.*v2/,
    'v10.j.e30': /different version/,
    'hello': /not a vramplan share link/,
    '': /not a vramplan share link/,
    [`v1.j.${'A'.repeat(300000)}`]: /too long/,
  };
  for (const [frag, re] of Object.entries(cases)) {
    await assert.rejects(decodeShare(frag), (e) => e instanceof ShareError && re.test(e.message), frag.slice(0, 30));
  }
});

test('sanitize keeps the default shape whatever a link holds', () => {
  const s = sanitize(DEFAULT_STATE, {
    model: { source: 42, preset: ['x'], custom: 'nope', extra: 1 },
    hardware: { source: 'gpu-cloud', gpu: 'anything-goes-to-the-core' },
    workload: { batch: { a: 1 }, seq: '2048', lora: { targets: ['q_proj', 3, null], r: Infinity }, grad_ckpt: 'yes' },
    __proto__: { polluted: true },
  });
  assert.equal(s.model.source, 'preset');
  assert.equal(s.model.preset, '');
  assert.deepEqual(s.model.custom, DEFAULT_STATE.model.custom);
  assert.equal(s.model.extra, undefined);
  assert.equal(s.workload.batch, DEFAULT_STATE.workload.batch);
  assert.equal(s.workload.seq, '2048');
  assert.deepEqual(s.workload.lora.targets, ['q_proj']);
  assert.equal(s.workload.lora.r, DEFAULT_STATE.workload.lora.r);
  assert.equal(s.workload.grad_ckpt, false);
  assert.equal(s.hardware.source, 'preset', 'an unknown choice falls back to the default');
  assert.equal(s.hardware.gpu, 'anything-goes-to-the-core', 'preset ids are the core\'s to check');
  assert.deepEqual(sanitize(DEFAULT_STATE, { hardware: null }).hardware, DEFAULT_STATE.hardware);
  assert.equal({}.polluted, undefined);
});

test('diff holds only what changed', () => {
  assert.equal(diff(DEFAULT_STATE, structuredClone(DEFAULT_STATE)), undefined);
  assert.deepEqual(diff(DEFAULT_STATE, setup((x) => { x.workload.batch = 2; })),
    { model: { preset: 'llama-3.2-1b' }, workload: { batch: 2 }, hardware: { gpu: 'h100-sxm-80gb' } });
});

test('the default setup is what HF Trainer does', () => {
  const plan = buildPlan(setup());
  assert.deepEqual(plan, {
    schema: 'vramplan/plan@1',
    workload: { mode: 'train', batch: 4, seq: 1024, grad_accum: 1 },
    instances: [{
      name: 'llama-3.2-1b', model: { preset: 'llama-3.2-1b' }, precision: 'amp_bf16',
      optimizer: { name: 'adamw', impl: 'foreach' }, finetune: { method: 'full' }, grad_ckpt: { every: 0 }, attn: 'sdpa',
    }],
    hardware: { gpu: 'h100-sxm-80gb', count: 1 },
  });
});

test('LoRA, QLoRA, inference, custom, probe and HF config plans', () => {
  const lora = buildPlan(setup((s) => { s.workload.finetune = 'lora'; s.workload.grad_ckpt = true; s.workload.optimizer = 'adamw_8bit'; }));
  assert.deepEqual(lora.instances[0].finetune, {
    method: 'lora', lora: { r: 16, alpha: 32, dropout: 0.05, targets: DEFAULT_STATE.workload.lora.targets.slice() },
  });
  assert.deepEqual(lora.instances[0].optimizer, { name: 'adamw_8bit' });
  assert.deepEqual(lora.instances[0].grad_ckpt, { every: 1 });
  assert.equal(lora.instances[0].quant, undefined);

  const q = buildPlan(setup((s) => { s.workload.finetune = 'qlora'; }));
  assert.equal(q.instances[0].quant, 'nf4');
  assert.equal(q.instances[0].double_quant, true);

  const inf = buildPlan(setup((s) => { s.workload.mode = 'infer'; s.workload.prompt = '512'; s.workload.kv_dtype = 'fp8'; }));
  assert.deepEqual(inf.workload, { mode: 'infer', batch: 4, seq: 512, new_tokens: 256, kv_dtype: 'fp8' });
  assert.equal(inf.instances[0].precision, 'bf16');
  assert.equal(inf.instances[0].optimizer, undefined);

  const c = buildPlan(setup((s) => { s.model.source = 'custom'; s.model.custom.hidden_size = ''; }));
  assert.equal(c.instances[0].model.custom.hidden_size, null, 'an empty field goes to the core as null, which names it');

  const probeText = fixture('probe-h100.json');
  const pr = buildPlan(setup((s) => { s.hardware.source = 'probe'; s.hardware.probe = probeText; s.hardware.device = 1; }));
  assert.deepEqual(pr.hardware, { probe: JSON.parse(probeText), device: 1 });

  const hf = buildPlan(setup((s) => { s.model.source = 'hf'; s.model.hf = fixture('hf-xss.json'); }));
  assert.equal(hf.instances[0].name, '<img src=x onerror=alert(1)>');
  assert.equal(hf.instances[0].model.hf_config.hidden_size, 2048);

  const vit = buildPlan(setup(), { modelType: 'vit' });
  assert.equal(vit.workload.image_size, 224);
});

test('text that is not JSON is an InputError naming its field', () => {
  const cases = [
    [(s) => { s.model.source = 'hf'; s.model.hf = '{"model_type":'; }, 'hf-config', /not valid JSON/],
    [(s) => { s.model.source = 'hf'; s.model.hf = '[1,2]'; }, 'hf-config', /object/],
    [(s) => { s.model.source = 'hf'; s.model.hf = '  '; }, 'hf-config', /Paste/],
    [(s) => { s.hardware.source = 'probe'; s.hardware.probe = 'nvidia-smi output'; }, 'probe-text', /not valid JSON/],
    [(s) => { s.model.preset = ''; }, 'preset-search', /Pick a model/],
  ];
  for (const [edit, field, re] of cases) {
    assert.throws(() => buildPlan(setup(edit)), (e) => e instanceof InputError && e.field === field && re.test(e.message));
  }
});

test('names are cut on whole characters within the core limit', () => {
  assert.equal(shortName('a'.repeat(100)).length, 40);
  const cut = shortName('é'.repeat(30));
  assert.ok(new TextEncoder().encode(cut).length <= 40);
  assert.equal(cut, 'é'.repeat(20));
  assert.equal(hfConfigName({ _name_or_path: ' x/y ' }), 'x/y');
  assert.equal(hfConfigName({ architectures: ['LlamaForCausalLM'] }), 'LlamaForCausalLM');
  assert.equal(hfConfigName(null), '');
});
