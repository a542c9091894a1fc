// unit.test.mjs: the page's pure modules in Node (share links, plan building, sanitizing,
// instances, plan files → setup).
//   node --test tests/web/unit.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_STATE, DEFAULT_STATE_V1, DEFAULT_INSTANCE } from '../../web/options.js';
import { encodeShare, decodeShare, sanitize, diff, pack, ShareError } from '../../web/share.js';
import { buildPlan, InputError, shortName, hfConfigName } from '../../web/plan.js';
import * as S from '../../web/setup.js';
import { slimProbe } from '../../web/probe.js';

const FIX = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (f) => readFileSync(path.join(FIX, f), 'utf8');
const setup = (edit = () => {}) => {
  const s = structuredClone(DEFAULT_STATE);
  s.instances[0].model.preset = 'llama-3.2-1b';
  s.hardware.gpu = 'h100-sxm-80gb';
  edit(s, s.instances[0]);
  return s;
};
const FAMILIES = { 'phi-3-mini-4k': 'phi3', 'vit-base-patch16-224': 'vit', 'cogvideox-5b': 'cogvideox', 'gpt2': 'gpt2' };
const presetType = (id) => FAMILIES[id] || (id ? 'llama' : '');

test('v1 and v2 defaults are frozen: share links store differences from them', () => {
  assert.deepEqual(JSON.parse(JSON.stringify(DEFAULT_STATE_V1)), JSON.parse(fixture('default-state-v1.json')),
    'DEFAULT_STATE_V1 changed: old #v1 links would change meaning');
  assert.deepEqual(JSON.parse(JSON.stringify(DEFAULT_STATE)), JSON.parse(fixture('default-state-v2.json')),
    'DEFAULT_STATE changed: #v2 links would change meaning; bump SHARE_VERSION in web/share.js and read v2 links with the old defaults');
  assert.ok(Object.isFrozen(DEFAULT_STATE.instances[0].lora));
  assert.ok(Object.isFrozen(DEFAULT_STATE_V1.workload.lora));
});

test('v1 links (written by the one-model page) open as the same plan', async () => {
  // tests/web/fixtures/v1-links.json: links the v1 page wrote, with the plans it built from them
  const cases = JSON.parse(fixture('v1-links.json'));
  assert.ok(cases.length >= 8);
  for (const c of cases) {
    assert.match(c.link, /^v1\.[dj]\./);
    const back = await decodeShare(`#${c.link}`);
    assert.equal(back.version, 'v1');
    assert.equal(back.state.instances.length, 1, c.name);
    const info = { presetType: (id) => (id.startsWith('vit') ? 'vit' : '') };
    // a probe file is kept as far as the estimate reads it (probe.js slimProbe): the same estimate
    const slim = (plan) => (plan.hardware.probe ? { ...plan, hardware: { ...plan.hardware, probe: slimProbe(plan.hardware.probe) } } : plan);
    assert.deepEqual(buildPlan(back.state, info), slim(c.plan), c.name);
    if (c.pinned_plan) assert.deepEqual(buildPlan(back.pinned, info), slim(c.pinned_plan), `${c.name} (pinned)`);
    else assert.equal(back.pinned, null);
    // and written again as v2, it reads back the same
    const again = await decodeShare(await encodeShare(back.state, back.pinned));
    assert.equal(again.version, 'v2');
    assert.deepEqual(again.state, back.state, c.name);
  }
});

test('share links round-trip instances, placement and the parallel layout', async () => {
  const s = setup((x, i0) => {
    x.workload.batch = 8;
    i0.finetune = 'qlora';
    i0.lora.targets = ['q_proj', 'v_proj'];
    i0.model.hf = fixture('hf-xss.json');
    S.addInstance(x, 'reference');
    x.instances[1].placement = 'gpu';
    x.instances[1].device = 1;
    S.addInstance(x, 'ema');
    x.instances[2].name = 'ema copy';
    x.hardware.count = 4;
    x.hardware.cpu_ram_gib = 512;
    Object.assign(x.parallel, { framework: 'deepspeed', dp: 2, tp: 2, zero: 3, offload_params: true, vpp: 2 });
    x.name = 'a plan';
  });
  const p = setup((x) => { x.workload.mode = 'infer'; });
  const frag = await encodeShare(s, p);
  assert.match(frag, /^v2\.[dj]\.[A-Za-z0-9_-]+$/);
  const back = await decodeShare(`#${frag}`);
  assert.equal(back.version, 'v2');
  assert.deepEqual(back.state, s);
  assert.deepEqual(back.pinned, p);
  assert.equal(back.state.instances[1].shares, 0, 'a reference beside a QLoRA policy runs through its weights');
  const plain = await encodeShare(setup());
  assert.ok(plain.length < 160, `default setup link is short (${plain.length})`);
  assert.equal((await decodeShare(plain)).pinned, null);
  assert.deepEqual(pack(setup()), { instances: [{ model: { preset: 'llama-3.2-1b' } }], hardware: { gpu: 'h100-sxm-80gb' } });
});

test('bad links raise ShareError with a sentence', async () => {
  const good = await encodeShare(setup());
  const cases = {
    'v2.d.AAAA': /damaged/,
    [`${good.slice(0, -6)}`]: /damaged/,
    'v2.d.ab*cd': /damaged/,
    'v1.d.AAAA': /damaged/,
    'v2.j.e30': /not a setup/,
    'v2.j.WzFd': /not a setup/,
    'v2.q.abc': /encoding/,
    'v3.d.abc': /different version.*v3.*v1 and v2/,
    'v10.j.e30': /different version/,
    'hello': /not a vramplan share link.*#v2\./,
    '': /not a vramplan share link/,
    [`v2.j.${'A'.repeat(300000)}`]: /too long/,
  };
  for (const [frag, re] of Object.entries(cases)) {
    await assert.rejects(decodeShare(frag), (e) => e instanceof ShareError && re.test(e.message), frag.slice(0, 30));
  }
});

test('sanitize keeps the default shape whatever a link holds', () => {
  const s = sanitize(DEFAULT_STATE, {
    instances: [
      { model: { source: 42, preset: ['x'], custom: 'nope', extra: 1 }, role: 'wizard', shares: 'abc', placement: 'moon' },
      ...Array.from({ length: 20 }, () => ({ role: 'reference' })),
    ],
    hardware: { source: 'gpu-cloud', gpu: 'anything-goes-to-the-core', cpu_ram_gib: 64 },
    workload: { batch: { a: 1 }, seq: '2048' },
    parallel: { framework: 'jax', dp: 4, sp: 'yes', vpp: 2, zero: [3] },
    name: 7,
    __proto__: { polluted: true },
  });
  const i0 = s.instances[0];
  assert.equal(s.instances.length, 8, 'at most 8 instances');
  assert.equal(i0.model.source, 'preset');
  assert.equal(i0.model.preset, '');
  assert.deepEqual(i0.model.custom, DEFAULT_INSTANCE.model.custom);
  assert.equal(i0.model.extra, undefined);
  assert.equal(i0.role, 'trained', 'an unknown role falls back to the default');
  assert.equal(i0.placement, 'sharded');
  assert.equal(s.instances[1].role, 'reference');
  assert.equal(s.workload.batch, DEFAULT_STATE.workload.batch);
  assert.equal(s.workload.seq, '2048');
  assert.equal(s.hardware.source, 'preset');
  assert.equal(s.hardware.gpu, 'anything-goes-to-the-core', 'preset ids are the core\'s to check');
  assert.equal(s.hardware.cpu_ram_gib, 64);
  assert.equal(s.parallel.framework, 'torch');
  assert.equal(s.parallel.dp, 4);
  assert.equal(s.parallel.sp, false);
  assert.equal(s.parallel.vpp, 2);
  assert.equal(s.parallel.zero, 0);
  assert.equal(s.name, '');
  assert.deepEqual(sanitize(DEFAULT_STATE, { hardware: null }).hardware, DEFAULT_STATE.hardware);
  assert.deepEqual(sanitize(DEFAULT_STATE, { instances: [] }).instances, [DEFAULT_INSTANCE], 'never zero instances');
  assert.equal({}.polluted, undefined);
  // a "shares" the form cannot show becomes "its own model"
  assert.equal(S.normalizeState(s).instances[0].shares, -1);
});

test('diff holds only what changed', () => {
  assert.equal(diff(DEFAULT_STATE, structuredClone(DEFAULT_STATE)), undefined);
  assert.deepEqual(pack(setup((x) => { x.workload.batch = 2; x.parallel.tp = 2; })),
    { workload: { batch: 2 }, instances: [{ model: { preset: 'llama-3.2-1b' } }], hardware: { gpu: 'h100-sxm-80gb' }, parallel: { tp: 2 } });
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

test('LoRA, QLoRA, adapters, inference, custom, probe and HF config plans', () => {
  const lora = buildPlan(setup((s, i) => { i.finetune = 'lora'; i.grad_ckpt = true; i.optimizer = 'adamw_8bit'; }));
  assert.deepEqual(lora.instances[0].finetune, {
    method: 'lora', lora: { r: 16, alpha: 32, dropout: 0.05, targets: DEFAULT_INSTANCE.lora.targets.slice() },
  });
  assert.deepEqual(lora.instances[0].optimizer, { name: 'adamw_8bit' });
  assert.deepEqual(lora.instances[0].grad_ckpt, { every: 1 });
  assert.equal(lora.instances[0].quant, undefined);

  const q = buildPlan(setup((s, i) => { i.finetune = 'qlora'; }));
  assert.equal(q.instances[0].quant, 'nf4');
  assert.equal(q.instances[0].double_quant, true);

  const ad = buildPlan(setup((s, i) => { i.finetune = 'adapter'; i.adapter_dim = 32; i.quant = 'int8'; }));
  assert.deepEqual(ad.instances[0].finetune, { method: 'adapter', adapter: { dim: 32 } });
  assert.equal(ad.instances[0].quant, 'int8');
  assert.equal(ad.instances[0].double_quant, undefined);

  const inf = buildPlan(setup((s) => { s.workload.mode = 'infer'; s.workload.prompt = '512'; s.workload.kv_dtype = 'fp8'; }));
  assert.deepEqual(inf.workload, { mode: 'infer', batch: 4, seq: 512, new_tokens: 256, kv_dtype: 'fp8' });
  assert.equal(inf.instances[0].precision, 'bf16');
  assert.equal(inf.instances[0].optimizer, undefined);
  assert.equal(inf.instances[0].activations, undefined);

  const c = buildPlan(setup((s, i) => { i.model.source = 'custom'; i.model.custom.hidden_size = ''; i.model.custom.head_dim = ''; }));
  assert.equal(c.instances[0].model.custom.hidden_size, null, 'an empty required field goes to the core as null, which names it');
  assert.equal('head_dim' in c.instances[0].model.custom, false, 'an empty optional field is left to the core');
  assert.equal(c.instances[0].name, 'custom');

  const probeText = fixture('probe-h100.json');
  const pr = buildPlan(setup((s) => { s.hardware.source = 'probe'; s.hardware.probe = probeText; s.hardware.device = 1; }));
  assert.deepEqual(pr.hardware, { probe: JSON.parse(probeText), device: 1 });

  const hf = buildPlan(setup((s, i) => { i.model.source = 'hf'; i.model.hf = fixture('hf-xss.json'); }));
  assert.equal(hf.instances[0].name, '<img src=x onerror=alert(1)>');
  assert.equal(hf.instances[0].model.hf_config.hidden_size, 2048);

  const vit = buildPlan(setup((s, i) => { i.model.preset = 'vit-base-patch16-224'; }), { presetType });
  assert.equal(vit.workload.image_size, 224);
  assert.equal(buildPlan(setup(), { presetType }).workload.image_size, undefined);
});

test('instances: roles, placement, shared weights and the parallel layout in the plan', () => {
  const s = setup((x) => {
    x.hardware.count = 2;
    x.hardware.nodes = 2;
    x.hardware.cpu_ram_gib = 1.5;
    const r = S.addInstance(x, 'reference');
    x.instances[r].placement = 'gpu';
    x.instances[r].device = 1;
    const t = S.addInstance(x, 'teacher');
    x.instances[t].placement = 'stream';
    x.instances[t].device = 0;
    const e = S.addInstance(x, 'ema');
    x.instances[e].placement = 'cpu';
    x.instances[e].pinned = false;
    const f = S.addInstance(x, 'functional_copy');
    x.instances[f].passes = 5;
    Object.assign(x.parallel, { framework: 'fsdp', dp: 2, fsdp: 'shard_grad_op', zero: 3, activation_offload: true });
  });
  const plan = buildPlan(s);
  assert.deepEqual(plan.instances.map((i) => i.name), ['llama-3.2-1b', 'reference', 'teacher', 'ema', 'functional_copy']);
  const [, ref, teacher, ema, fc] = plan.instances;
  assert.deepEqual(ref, {
    name: 'reference', role: 'reference', model: { preset: 'llama-3.2-1b' }, precision: 'bf16',
    attn: 'sdpa', logprobs_fp32: true, placement: { device: 1 },
  });
  assert.deepEqual(teacher.placement, { device: 'cpu', pinned: true, stream_to: 0 });
  assert.equal(ema.precision, 'fp32');
  assert.equal(ema.activations, undefined, 'ema: the core\'s default (none) is left out');
  assert.deepEqual(ema.placement, { device: 'cpu' });
  assert.equal(fc.activations, 'keep_graph');
  assert.equal(fc.passes, 5);
  assert.deepEqual(plan.hardware, { gpu: 'h100-sxm-80gb', count: 2, nodes: 2, cpu_ram_bytes: 1.5 * 2 ** 30 });
  assert.deepEqual(plan.parallel, { dp: 2, framework: 'fsdp', fsdp: 'shard_grad_op', activation_offload: true },
    'zero is a DeepSpeed setting: not sent with FSDP');

  // shares_weights_with by name; removing the target gives the sharer its own copy
  const lora = setup((x, i0) => { i0.finetune = 'lora'; i0.name = 'policy'; S.addInstance(x, 'reference'); });
  assert.equal(buildPlan(lora).instances[1].shares_weights_with, 'policy');
  assert.equal(buildPlan(lora).instances[1].model, undefined);
  S.removeInstance(lora, 0);
  assert.equal(lora.instances[0].shares, -1);
  assert.deepEqual(buildPlan(lora).instances[0].model, { preset: 'llama-3.2-1b' });

  // two models with the same typed name: an InputError on the second one's name
  const dup = setup((x, i0) => { i0.name = 'a'; S.addInstance(x, 'reference'); x.instances[1].name = 'a'; });
  assert.throws(() => buildPlan(dup), (e) => e instanceof InputError && e.field === 'instance-name' && e.instance === 1);
  // automatic names never collide with typed ones
  const auto = setup((x, i0) => { i0.name = 'reference'; S.addInstance(x, 'reference'); });
  assert.deepEqual(S.instanceNames(auto), ['reference', 'reference-2']);
});

test('add, duplicate and remove instances; role defaults', () => {
  const s = setup();
  assert.equal(S.addInstance(s, 'teacher'), 1);
  const t = s.instances[1];
  assert.equal(t.finetune, 'frozen');
  assert.equal(t.activations, 'no_grad');
  assert.equal(t.precision, 'bf16');
  assert.equal(t.logprobs_fp32, true);
  assert.equal(S.addInstance(s, 'ema'), 2);
  assert.equal(s.instances[2].activations, 'none');
  assert.equal(S.addInstance(s, 'critic'), 3);
  assert.equal(s.instances[3].finetune, 'full');
  assert.equal(s.instances[3].activations, 'train');
  s.instances[1].name = 'big teacher';
  assert.equal(S.duplicateInstance(s, 1), 4);
  assert.equal(s.instances[4].name, 'big teacher-2');
  for (let k = 5; k < 8; k++) assert.equal(S.addInstance(s, 'reward'), k);
  assert.equal(S.addInstance(s, 'reward'), -1, 'at most 8');
  assert.equal(S.duplicateInstance(s, 0), -1);
  while (s.instances.length > 1) assert.ok(S.removeInstance(s, s.instances.length - 1));
  assert.equal(S.removeInstance(s, 0), false, 'the last instance stays');
  S.setRole(s.instances[0], 'reward');
  assert.equal(s.instances[0].finetune, 'frozen');
});

test('plan files → setup: what the form cannot hold is named', () => {
  const ok = S.planToState({
    schema: 'vramplan/plan@1', name: 'x',
    workload: { batch: 2, seq: 256, dec_seq: 64, steps: 1 },
    instances: [
      { model: { preset: 'phi-3-mini-4k' }, finetune: { method: 'lora', lora: { r: 8 }, freeze: ['embeddings'] } },
      { name: 'ref', role: 'reference', shares_weights_with: 'trained', placement: { device: 'cpu', stream_to: 1 } },
    ],
    hardware: { gpu: 'a100-sxm-80gb', count: 2, capacity_bytes: 1e10 },
    parallel: { zero: 2 },
  }, presetType);
  assert.deepEqual(ok.invalid, []);
  assert.deepEqual(ok.dropped, ['workload.dec_seq', 'workload.steps', 'instances[0].finetune.freeze', 'hardware.capacity_bytes']);
  const [a, b] = ok.state.instances;
  assert.equal(a.name, 'trained', 'the core names an unnamed instance after its role');
  assert.equal(a.lora.alpha, 16, 'alpha defaults to 2r, as in the core');
  assert.deepEqual(a.lora.targets, ['qkv_proj', 'o_proj', 'gate_up_proj', 'down_proj']);
  assert.equal(b.shares, 0);
  assert.equal(b.placement, 'stream');
  assert.equal(b.device, 1);
  assert.equal(ok.state.parallel.framework, 'deepspeed', '"zero" alone means DeepSpeed');

  const bad = S.planToState({
    schema: 'vramplan/plan@1', workload: { batch: 1, seq: 8, turbo: true },
    instances: [{ model: { preset: 'gpt2' }, precision: 'fp9', shares_weights_with: 'nobody' }],
  });
  assert.deepEqual(bad.invalid.sort(), ['instances[0].precision', 'instances[0].shares_weights_with', 'workload.turbo']);

  for (const [plan, re] of [
    [[1, 2], /JSON object/],
    [{ schema: 'vramplan/gpu-probe@1' }, /gpu-probe@1.*not a vramplan plan/],
    [{ workload: {} }, /no "schema"/],
    [{ schema: 'vramplan/plan@1', instances: [] }, /no "instances"/],
    [{ schema: 'vramplan/plan@1', instances: Array(9).fill({}) }, /at most 8/],
  ]) {
    assert.throws(() => S.planToState(plan), (e) => e instanceof S.PlanFileError && re.test(e.message));
  }
});

test('suggestions become form changes ("combined" applies each of its ids)', () => {
  const s = setup((x) => { S.addInstance(x, 'reference'); x.hardware.count = 2; });
  const r = S.applySuggestion(s, { id: 'combined', ids: ['adamw_8bit', 'grad_ckpt', 'frozen_to_gpu1', 'halve_batch'] }, { gpuCount: 2 });
  assert.deepEqual(r.applied, ['adamw_8bit', 'grad_ckpt', 'frozen_to_gpu1', 'halve_batch']);
  assert.equal(r.state.instances[0].optimizer, 'adamw_8bit');
  assert.equal(r.state.instances[0].grad_ckpt, true);
  assert.equal(r.state.instances[1].grad_ckpt, false, 'only trained instances checkpoint');
  assert.equal(r.state.instances[1].placement, 'gpu');
  assert.equal(r.state.instances[1].device, 1);
  assert.equal(r.state.workload.batch, 2);
  assert.equal(r.state.workload.grad_accum, 2);
  assert.equal(s.instances[0].optimizer, 'adamw/foreach', 'the setup given is not changed');
  const pre = S.applySuggestion(s, { id: 'precompute_reference' });
  assert.equal(pre.state.instances.length, 1);
  const off = S.applySuggestion(s, { id: 'offload_optimizer' });
  assert.deepEqual([off.state.parallel.offload_optimizer, off.state.parallel.framework, off.state.parallel.zero], [true, 'deepspeed', 2]);
  const fsdp = S.applySuggestion(s, { id: 'shard_fsdp' }, { gpuCount: 2 });
  assert.deepEqual([fsdp.state.parallel.dp, fsdp.state.parallel.framework, fsdp.state.parallel.fsdp], [2, 'fsdp', 'full_shard']);
  assert.deepEqual(S.applySuggestion(s, { id: 'no_such_remedy' }).skipped, ['no_such_remedy']);
  assert.equal(S.canApply({ id: 'no_such_remedy' }), false);
  assert.equal(S.canApply({ id: 'combined', ids: ['lora', 'qlora'] }), true);
  assert.equal(S.canApply({ id: 'combined' }), false);
  for (const id of ['grad_ckpt', 'halve_batch', 'micro_batch_1', 'precompute_reference', 'frozen_to_cpu', 'frozen_to_gpu1',
    'adamw_8bit', 'adamw_fused', 'lora', 'qlora', 'pure_bf16', 'shard_fsdp', 'offload_optimizer', 'halve_seq',
    'vae_tiling', 'model_offload', 'sequential_offload', 'fp8_storage', 'group_offload']) {
    assert.ok(S.SUGGESTION_IDS.includes(id), id);
  }
  // a diffusion pipeline's remedies set its options, once
  const pipe = setup((x) => { x.workload.mode = 'infer'; });
  const tiled = S.applySuggestion(pipe, { id: 'combined', ids: ['vae_tiling', 'model_offload'] });
  assert.deepEqual(tiled.applied, ['vae_tiling', 'model_offload']);
  assert.equal(tiled.state.workload.diffusion.vae_tiling, true);
  assert.equal(tiled.state.workload.diffusion.offload, 'model');
  assert.deepEqual(S.applySuggestion(tiled.state, { id: 'vae_tiling' }).skipped, ['vae_tiling']);
  assert.equal(pipe.workload.diffusion.vae_tiling, false, 'the setup given is not changed');
  const seq = S.applySuggestion(tiled.state, { id: 'sequential_offload' });
  assert.equal(seq.state.workload.diffusion.offload, 'sequential', 'sequential offload replaces model offload');
  assert.deepEqual(S.applySuggestion(seq.state, { id: 'sequential_offload' }).skipped, ['sequential_offload']);
  // float8 storage: a 16-bit DiT (a preset of a DiT family, or a pasted diffusers transformer config), not its VAE
  const dit = setup((x) => {
    x.workload.mode = 'infer';
    x.instances[0].model = { ...x.instances[0].model, source: 'preset', preset: 'cogvideox-5b' };
    x.instances[0].infer_precision = 'bf16';
    S.addInstance(x, 'reference');
    x.instances[1].model = { ...x.instances[1].model, source: 'preset', preset: 'cogvideox-5b/vae' };
    x.instances[1].infer_precision = 'bf16';
  });
  const types = (id) => ({ 'cogvideox-5b': 'cogvideox', 'cogvideox-5b/vae': 'vae_cogvideox' })[id] || '';
  const f8 = S.applySuggestion(dit, { id: 'fp8_storage' }, { presetType: types });
  assert.deepEqual([f8.applied, f8.state.instances[0].quant, f8.state.instances[1].quant], [['fp8_storage'], 'fp8', 'none']);
  assert.deepEqual(S.applySuggestion(f8.state, { id: 'fp8_storage' }, { presetType: types }).skipped, ['fp8_storage']);
  const pasted = structuredClone(dit);
  pasted.instances[0].model = { ...pasted.instances[0].model, source: 'hf', hf: '{"_class_name": "WanTransformer3DModel"}' };
  assert.equal(S.applySuggestion(pasted, { id: 'fp8_storage' }, { presetType: types }).state.instances[0].quant, 'fp8');
  const fp32 = structuredClone(dit);
  fp32.instances[0].infer_precision = 'fp32';
  assert.deepEqual(S.applySuggestion(fp32, { id: 'fp8_storage' }, { presetType: types }).skipped, ['fp8_storage'], 'a 16-bit DiT only');
  // group offloading: the transformer and the text encoders (a preset or a pasted config of an encoder class), not the VAE
  const te = structuredClone(dit);
  S.addInstance(te, 'reference');
  te.instances[2].model = { ...te.instances[2].model, source: 'hf', hf: '{"architectures": ["T5EncoderModel"], "d_model": 4096}' };
  const go = S.applySuggestion(te, { id: 'group_offload' }, { presetType: types });
  assert.deepEqual(go.state.instances.map((x) => [x.group_offload, x.group_stream]), [['leaf_level', true], ['none', false], ['leaf_level', true]]);
  assert.deepEqual(S.applySuggestion(go.state, { id: 'group_offload' }, { presetType: types }).skipped, ['group_offload']);
  assert.deepEqual(S.applySuggestion(seq.state, { id: 'group_offload' }, { presetType: types }).skipped, ['group_offload'],
    'diffusers refuses group offloading beside model or sequential offload');
});

test('text that is not JSON is an InputError naming its field', () => {
  const cases = [
    [(s, i) => { i.model.source = 'hf'; i.model.hf = '{"model_type":'; }, 'hf-config', /not valid JSON/],
    [(s, i) => { i.model.source = 'hf'; i.model.hf = '[1,2]'; }, 'hf-config', /object/],
    [(s, i) => { i.model.source = 'hf'; i.model.hf = '  '; }, 'hf-config', /^Paste or upload the config\.json\.$/],
    [(s) => { s.hardware.source = 'probe'; s.hardware.probe = 'nvidia-smi output'; }, 'probe-text', /^The probe file is not valid JSON/],
    [(s, i) => { i.model.preset = ''; }, 'preset-search', /Pick a model/],
    [(s) => { s.hardware.cpu_ram_gib = 'lots'; }, 'cpu-ram', /GiB/],
  ];
  for (const [edit, field, re] of cases) {
    assert.throws(() => buildPlan(setup(edit)), (e) => e instanceof InputError && e.field === field && re.test(e.message));
  }
  const second = setup((s) => { S.addInstance(s, 'teacher'); s.instances[1].model.source = 'hf'; s.instances[1].model.hf = '{'; });
  assert.throws(() => buildPlan(second), (e) => e instanceof InputError && e.field === 'hf-config' && e.instance === 1);
});

test('names are cut on whole characters within the core limit', () => {
  assert.equal(shortName('a'.repeat(100)).length, 40);
  const cut = shortName('é'.repeat(30));
  assert.ok(new TextEncoder().encode(cut).length <= 40);
  assert.equal(cut, 'é'.repeat(20));
  assert.equal(hfConfigName({ _name_or_path: ' x/y ' }), 'x/y');
  assert.equal(hfConfigName({ architectures: ['LlamaForCausalLM'] }), 'LlamaForCausalLM');
  // a config saved from a local checkout or the hub cache names a path: the model's name in it
  assert.equal(hfConfigName({ _name_or_path: '/root/.cache/huggingface/hub/models--Qwen--Qwen2.5-7B/snapshots/a09a35458c702b33eeacc393d103063234e8bc28', architectures: ['Qwen2ForCausalLM'] }), 'Qwen/Qwen2.5-7B');
  assert.equal(hfConfigName({ _name_or_path: '/data/runs/sft-llama/checkpoint-500' }), 'sft-llama/checkpoint-500');
  assert.equal(hfConfigName({ _name_or_path: './my-model/' }), 'my-model');
  assert.equal(hfConfigName({ _name_or_path: 'C:\\models\\mistral-7b' }), 'models/mistral-7b');
  assert.equal(hfConfigName({ _name_or_path: '', architectures: ['Qwen2ForCausalLM'] }), 'Qwen2ForCausalLM');
  assert.equal(hfConfigName(null), '');
});

test('switching train ↔ inference carries 4-bit base weights over', () => {
  const s = setup((x, i0) => { i0.finetune = 'qlora'; i0.lora.quant = 'fp4'; i0.lora.double_quant = false; });
  const notes = S.switchMode(s, 'infer');
  assert.equal(s.workload.mode, 'infer');
  assert.equal(s.instances[0].quant, 'fp4');
  assert.equal(buildPlan(s).instances[0].quant, 'fp4');
  assert.equal(buildPlan(s).instances[0].double_quant, false);
  assert.equal(notes.length, 1);
  assert.match(notes[0], /FP4/);
  // a person's own choice in inference is kept when going back
  s.instances[0].quant = 'nf4';
  assert.deepEqual(S.switchMode(s, 'train'), []);
  assert.equal(s.instances[0].lora.quant, 'nf4');
  assert.equal(buildPlan(s).instances[0].quant, 'nf4');
  // full fine-tunes and LoRA over bf16 weights: nothing to carry
  const full = setup();
  assert.deepEqual(S.switchMode(full, 'infer'), []);
  assert.equal(full.instances[0].quant, 'none');
  assert.deepEqual(S.switchMode(full, 'infer'), [], 'the same mode again changes nothing');
});

test('a pipeline expanded for inference trains its transformer again in training', () => {
  const isPipe = (id) => id === 'cogvideox-5b';
  const frozen = (x, preset, name) => {
    const inst = structuredClone(DEFAULT_INSTANCE);
    inst.model.preset = preset;
    inst.name = name;
    S.setRole(inst, 'reference');
    x.instances.push(inst);
  };
  // what core/src/pipeline_expand.c makes of a CogVideoX pick in inference: every component a frozen reference
  const s = setup((x, i0) => {
    x.workload.mode = 'infer';
    i0.model.preset = 'cogvideox-5b';
    i0.name = 'transformer';
    S.setRole(i0, 'reference');
    frozen(x, 'cogvideox-5b/text_encoder', 'text_encoder');
    frozen(x, 'cogvideox-5b/vae', 'vae');
  });
  const notes = S.switchMode(s, 'train', isPipe);
  assert.equal(s.instances[0].role, 'trained');
  assert.equal(s.instances[0].activations, 'train');
  assert.equal(s.instances[1].role, 'reference');
  assert.equal(s.instances[2].role, 'reference');
  const plan = buildPlan(s, { presetType, isPipelinePreset: isPipe });
  assert.equal(plan.instances[0].role, undefined, 'trained: the core default');
  assert.equal(plan.instances[0].finetune.method, 'full');
  assert.equal(notes.length, 1);
  assert.match(notes[0], /“transformer”.*frozen/);
  assert.match(notes[0], /text encoders and the VAE stay frozen/);
  // the seeds' two copies: one already trains, so the frozen original stays frozen
  const two = setup((x, i0) => {
    x.workload.mode = 'infer';
    i0.model.preset = 'cogvideox-5b';
    S.setRole(i0, 'reference');
    const t = structuredClone(DEFAULT_INSTANCE);
    t.model.preset = 'cogvideox-5b';
    x.instances.push(t);
  });
  assert.deepEqual(S.switchMode(two, 'train', isPipe), []);
  assert.equal(two.instances[0].role, 'reference');
  // not a pipeline: a frozen LLM stays as it was
  const llm = setup((x, i0) => { x.workload.mode = 'infer'; S.setRole(i0, 'reference'); });
  assert.deepEqual(S.switchMode(llm, 'train', isPipe), []);
  assert.equal(llm.instances[0].role, 'reference');
});

test('a framework brings its own bf16 mode: DeepSpeed / Megatron bf16_master, DDP / FSDP autocast', () => {
  const s = setup((x) => { S.addInstance(x, 'reference'); S.addInstance(x, 'critic'); x.instances[2].precision = 'fp32'; });
  const note = S.switchFramework(s, 'deepspeed');
  assert.deepEqual(s.instances.map((x) => x.precision), ['bf16_master', 'bf16', 'fp32']);
  assert.match(note, /DeepSpeed .*fp32 master.*“llama-3\.2-1b”/);
  assert.equal(S.switchFramework(s, 'megatron'), '', 'same kind of framework: nothing to change');
  assert.equal(buildPlan(s).instances[0].precision, 'bf16_master');
  const fsdpNote = S.switchFramework(s, 'fsdp');
  assert.match(fsdpNote, /autocast/);
  assert.deepEqual(s.instances.map((x) => x.precision), ['amp_bf16', 'bf16', 'fp32']);
  assert.equal(s.parallel.framework, 'fsdp');
  // and the core's FSDP default optimizer: fused AdamW for the trained instance (the reference trains nothing)
  assert.match(fsdpNote, /fused/);
  assert.deepEqual(s.instances.map((x) => x.optimizer), ['adamw/fused', 'adamw/foreach', 'adamw/fused']);
});

test('a plan file under DeepSpeed with amp_bf16, or under FSDP without optimizer.impl, reads as the core runs it', () => {
  const base = { schema: 'vramplan/plan@1', workload: { mode: 'train', batch: 1, seq: 2048 },
    hardware: { gpu: 'h100-sxm-80gb', count: 8 } };
  const ds = S.planToState({ ...base, instances: [{ model: { preset: 'llama-3.2-1b' }, precision: 'amp_bf16' }],
    parallel: { dp: 8, zero: 3 } }, presetType).state;
  assert.equal(ds.instances[0].precision, 'bf16_master'); /* accelerate runs no autocast under DeepSpeed */
  assert.equal(buildPlan(ds).instances[0].precision, 'bf16_master');
  const fsdp = S.planToState({ ...base, instances: [{ model: { preset: 'llama-3.2-1b' } },
    { name: 'b', model: { preset: 'llama-3.2-1b' }, optimizer: { name: 'adamw', impl: 'foreach' } }],
  parallel: { dp: 8, fsdp: 'full_shard' } }, presetType).state;
  assert.deepEqual(fsdp.instances.map((x) => x.optimizer), ['adamw/fused', 'adamw/foreach']);
  // amp_fp16 there is DeepSpeed's fp16 mode (core: plan_parallel_precision.c), and back to autocast under FSDP
  const ds16 = S.planToState({ ...base, instances: [{ model: { preset: 'llama-3.2-1b' }, precision: 'amp_fp16' }],
    parallel: { dp: 8, zero: 3 } }, presetType).state;
  assert.equal(ds16.instances[0].precision, 'fp16_master');
  assert.match(S.switchFramework(ds16, 'fsdp'), /fp16 mixed/);
  assert.equal(ds16.instances[0].precision, 'amp_fp16');
  assert.match(S.switchFramework(ds16, 'deepspeed'), /fp16 \+ fp32 master/);
  assert.equal(ds16.instances[0].precision, 'fp16_master');
});

test('the allocator setting (runtime.pytorch_cuda_alloc_conf) goes plan → form → plan', () => {
  const plan = buildPlan(setup((s) => { s.runtime.pytorch_cuda_alloc_conf = 'expandable_segments:True'; }));
  assert.deepEqual(plan.runtime, { pytorch_cuda_alloc_conf: 'expandable_segments:True' });
  assert.equal(buildPlan(setup()).runtime, undefined, 'left out when not set');
  const { state, invalid } = S.planToState(plan, presetType);
  assert.deepEqual(invalid, []);
  assert.equal(state.runtime.pytorch_cuda_alloc_conf, 'expandable_segments:True');
  assert.deepEqual(S.planToState({ ...plan, runtime: { turbo: 1 } }, presetType).invalid, ['runtime.turbo']);
});

test('no "precision" under DeepSpeed / Megatron: the form holds bf16_master and leaves it out again', () => {
  const plan = {
    schema: 'vramplan/plan@1', workload: { mode: 'train', batch: 1, seq: 2048 },
    instances: [{ name: 'policy', model: { preset: 'llama-3.2-1b' } },
      { name: 'own', model: { preset: 'llama-3.2-1b' }, precision: 'bf16_master' },
      { name: 'one-gpu', model: { preset: 'llama-3.2-1b' }, placement: { device: 0 } }],
    hardware: { gpu: 'h100-sxm-80gb', count: 8 }, parallel: { dp: 8, zero: 3 },
  };
  const { state, invalid, dropped } = S.planToState(plan, presetType);
  assert.deepEqual([invalid, dropped], [[], []]);
  // the core (plan_parallel_precision.c): only a sharded, trained instance without "precision"
  assert.deepEqual(state.instances.map((x) => [x.precision, x.precision_framework]),
    [['bf16_master', true], ['bf16_master', false], ['amp_bf16', false]]);
  let out = buildPlan(state).instances;
  assert.deepEqual(out.map((x) => x.precision), [undefined, 'bf16_master', 'amp_bf16'], 'as the file gave it');
  // moved to FSDP and back: written out while it is not the framework's default
  S.switchFramework(state, 'fsdp');
  assert.equal(buildPlan(state).instances[0].precision, 'amp_bf16');
  S.switchFramework(state, 'deepspeed');
  assert.equal(buildPlan(state).instances[0].precision, undefined);
  // suggestions keep it (the core edits the plan it resolved: still bf16_master)
  const r = S.applySuggestion(state, { id: 'offload_optimizer' }, { presetType, gpuCount: 8 });
  out = buildPlan(r.state);
  assert.equal(out.instances[0].precision, undefined);
  assert.equal(out.parallel.offload_optimizer, true);
  // under PyTorch DDP no framework default applies: amp_bf16, written
  const ddp = S.planToState({ ...plan, parallel: { dp: 8 } }, presetType).state;
  assert.deepEqual(ddp.instances.map((x) => x.precision_framework), [false, false, false]);
  assert.equal(buildPlan(ddp).instances[0].precision, 'amp_bf16');
  // a role change picks the role's precision: the person's from then on
  S.setRole(state.instances[0], 'critic');
  assert.equal(state.instances[0].precision_framework, false);
});

test('FSDP version and mixed precision, ZeRO-3 sub-groups, autocast cache, edited blocks: plan → form → plan', () => {
  const base = { schema: 'vramplan/plan@1', workload: { mode: 'train', batch: 1, seq: 2048 }, hardware: { gpu: 'h100-sxm-80gb', count: 8 } };
  const fsdp = {
    ...base,
    instances: [{ name: 'policy', model: { preset: 'llama-3.2-1b' }, precision: 'amp_bf16', autocast_cache: false },
      { name: 'edit', role: 'functional_copy', model: { preset: 'llama-3.2-1b' }, edited_layers: 2 }],
    parallel: { dp: 8, fsdp: 'full_shard', fsdp_version: 1,
      fsdp_mixed_precision: { param_dtype: 'bf16', reduce_dtype: 'fp32', output_dtype: null, buffer_dtype: 'bf16' } },
  };
  const a = S.planToState(fsdp, presetType);
  assert.deepEqual([a.invalid, a.dropped], [[], []]);
  const p = a.state.parallel;
  assert.deepEqual([p.framework, p.fsdp_version, p.fsdp_param_dtype, p.fsdp_reduce_dtype, p.fsdp_output_dtype, p.fsdp_buffer_dtype],
    ['fsdp', 1, 'bf16', 'fp32', '', 'bf16']);
  const back = buildPlan(a.state);
  assert.deepEqual(back.parallel, { dp: 8, framework: 'fsdp', fsdp: 'full_shard', fsdp_version: 1,
    fsdp_mixed_precision: { param_dtype: 'bf16', reduce_dtype: 'fp32', buffer_dtype: 'bf16' } });
  assert.equal(back.instances[0].autocast_cache, false);
  assert.equal(back.instances[1].edited_layers, 2);
  assert.equal(back.instances[0].edited_layers, undefined);
  // the defaults (FSDP2, no policy given) are left out
  const dflt = S.planToState({ ...fsdp, parallel: { dp: 8, fsdp: 'full_shard', fsdp_version: 2 } }, presetType).state;
  assert.deepEqual(buildPlan(dflt).parallel, { dp: 8, framework: 'fsdp', fsdp: 'full_shard' });
  // ZeRO-3
  const z = S.planToState({ ...base, instances: [{ model: { preset: 'llama-3.2-1b' } }],
    parallel: { dp: 8, zero: 3, sub_group_size: 100000000, grad_accum_dtype: 'fp32' } }, presetType);
  assert.deepEqual([z.invalid, z.dropped], [[], []]);
  assert.deepEqual(buildPlan(z.state).parallel, { dp: 8, framework: 'deepspeed', zero: 3, sub_group_size: 100000000, grad_accum_dtype: 'fp32' });
  // DeepSpeed's torch_autocast section round-trips, and keeps the instance under torch.autocast
  // (no precision given: the core keeps amp_bf16, plan_parallel_precision.c)
  const ta = S.planToState({ ...base, instances: [{ model: { preset: 'llama-3.2-1b' } }],
    parallel: { dp: 8, zero: 3, torch_autocast: true } }, presetType);
  assert.deepEqual([ta.invalid, ta.dropped], [[], []]);
  assert.equal(ta.state.instances[0].precision, 'amp_bf16');
  assert.deepEqual(buildPlan(ta.state).parallel, { dp: 8, framework: 'deepspeed', zero: 3, torch_autocast: true });
  const taBad = S.planToState({ ...base, instances: [{ model: { preset: 'llama-3.2-1b' } }],
    parallel: { dp: 8, fsdp: 'full_shard', torch_autocast: true } }, presetType);
  assert.deepEqual(taBad.invalid, ['parallel.torch_autocast']);
  // what the form cannot hold is named
  const bad = S.planToState({ ...base, instances: [{ model: { preset: 'llama-3.2-1b' }, edited_layers: 2, autocast_cache: 'no' }],
    parallel: { fsdp: 'full_shard', fsdp_version: 3, fsdp_mixed_precision: { param_dtype: 'int4', turbo: true }, grad_accum_dtype: 'fp8' } }, presetType);
  assert.deepEqual(bad.invalid.sort(), ['instances[0].autocast_cache', 'instances[0].edited_layers', 'parallel.fsdp_mixed_precision.param_dtype',
    'parallel.fsdp_mixed_precision.turbo', 'parallel.fsdp_version', 'parallel.grad_accum_dtype']);
  assert.deepEqual(bad.dropped, ['parallel.grad_accum_dtype'], 'a ZeRO field under FSDP');
});

test('a diffusion setup: the video size and pipeline options go to the plan, no sequence fields, and survive a link', async () => {
  const info = { presetType, isPipelinePreset: (id) => id === 'cogvideox-5b' };
  const s = setup((x, i) => {
    i.model.preset = 'cogvideox-5b';
    x.workload.mode = 'infer';
    x.workload.batch = 1;
    x.workload.frames = 17;
    x.workload.height = 256;
    x.workload.width = 256;
    x.workload.diffusion.offload = 'sequential';
    x.workload.diffusion.cfg = false;
    x.workload.diffusion.precompute = true; // a training setting: not in an inference plan
  });
  assert.deepEqual(buildPlan(s, info).workload,
    { mode: 'infer', batch: 1, frames: 17, height: 256, width: 256, diffusion: { cfg: false, offload: 'sequential' } });
  // a component preset ("ID/vae") or a pasted diffusers config makes it a diffusion setup too
  assert.ok(S.isDiffusionModel({ source: 'preset', preset: 'cogvideox-5b/vae' }, info.isPipelinePreset));
  assert.ok(S.isDiffusionModel({ source: 'hf', hf: '{"_class_name":"WanTransformer3DModel"}' }));
  assert.ok(!S.isDiffusionModel({ source: 'hf', hf: '{"model_type":"llama"}' }));
  assert.ok(!S.isDiffusionModel({ source: 'hf', hf: 'not json' }));
  // the same setup without the pipeline: the LLM fields as before, the video fields left out
  const llm = structuredClone(s);
  llm.instances[0].model.preset = 'llama-3.2-1b';
  assert.deepEqual(buildPlan(llm, info).workload, { mode: 'infer', batch: 1, seq: 1024, new_tokens: 256, kv_dtype: 'bf16' });
  // training: precompute, and no seq (the tokens come from the video size)
  s.workload.mode = 'train';
  assert.deepEqual(buildPlan(s, info).workload,
    { mode: 'train', batch: 1, grad_accum: 1, frames: 17, height: 256, width: 256, diffusion: { precompute: true } });
  // a share link keeps all of it; a link with a bad offload value reads the default
  const back = await decodeShare(`#${await encodeShare(s)}`);
  assert.deepEqual(back.state.workload, s.workload);
  const bad = sanitize(DEFAULT_STATE, { workload: { diffusion: { offload: 'gpu', cfg: 'yes' }, frames: {} } });
  assert.deepEqual([bad.workload.diffusion.offload, bad.workload.diffusion.cfg, bad.workload.frames], ['none', true, '']);
});

test('the model list: each pipeline’s components follow it as presets of their own, named as the core names them', async () => {
  const { withComponents, store, isPipelinePreset, presetType } = await import('../../web/store.js');
  const bundle = [{ id: 'gpt2', family: 'gpt2' },
    { id: 'cogvideox-5b', name: 'CogVideoX-5b', family: 'cogvideox', pipeline: { components: {
      text_encoder: { family: 't5_encoder', config: { architectures: ['T5EncoderModel'] } },
      vae: { family: 'vae_cogvideox', config: { _class_name: 'AutoencoderKLCogVideoX' } },
      bad: 'not an object' } } }];
  const list = withComponents(bundle);
  assert.deepEqual(list.map((m) => m.id), ['gpt2', 'cogvideox-5b', 'cogvideox-5b/text_encoder', 'cogvideox-5b/vae']);
  assert.equal(list[3].name, 'cogvideox-5b/vae (AutoencoderKLCogVideoX)');
  assert.equal(list[2].name, 'cogvideox-5b/text_encoder (t5_encoder)', 'no _class_name: the family');
  store.presets = { models: list, gpus: [] };
  assert.equal(isPipelinePreset('cogvideox-5b'), true);
  assert.equal(isPipelinePreset('cogvideox-5b/vae'), false, 'a component is not a pipeline');
  assert.equal(isPipelinePreset('gpt2'), false);
  assert.equal(presetType('cogvideox-5b/vae'), 'vae_cogvideox');
  assert.ok(S.isDiffusionSetup({ instances: [{ model: { source: 'preset', preset: 'cogvideox-5b/vae' } }] }, isPipelinePreset));
  assert.deepEqual(withComponents([null, { id: 'x', pipeline: { components: null } }]).map((m) => m && m.id), [null, 'x']);
});
