// form.test.mjs: the page's setup ↔ plan mapping against the WebAssembly core, in Node.
//
//   * every examples/*.json plan, read into the form (setup.js planToState) and built back
//     (plan.js buildPlan), estimates byte-identically to the file itself: the form holds it all
//   * every suggestion the core makes for those plans (and a few more), applied to the form
//     (setup.js applySuggestion), estimates to exactly the peak the core quoted for it
//
//   node --test tests/web/form.test.mjs      (after web/build.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { planToState, applySuggestion, canApply, suggestionIds } from '../../web/setup.js';
import { buildPlan } from '../../web/plan.js';
import { withComponents } from '../../web/store.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SITE = path.join(ROOT, 'dist/site');
const { loadCore } = await import(pathToFileURL(path.join(SITE, 'vramplan-core.js')).href);
const core = await loadCore({ wasmBinary: readFileSync(path.join(SITE, 'vramplan.wasm')) });
const bundle = JSON.parse(core.presets());
// the page's picker lists each pipeline's components as presets of their own (store.js withComponents), with their family
const families = new Map(withComponents(bundle.models).map((m) => [m.id, m.family ?? m.config?.model_type ?? '']));
const presetType = (id) => families.get(id) || '';
const pipelines = new Set(bundle.models.filter((m) => m.pipeline?.components).map((m) => m.id));
const info = { presetType, isPipelinePreset: (id) => pipelines.has(id) };

const examples = readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.json')).sort()
  .map((f) => [f, readFileSync(path.join(ROOT, 'examples', f), 'utf8')]);

// plans that make the core suggest what the examples do not: several GPUs, inference,
// a reference sharing the policy's weights, non-decoders, a layout that shards nothing
const plan = (workload, instances, hardware) => JSON.stringify({ schema: 'vramplan/plan@1', workload, instances, hardware });
const more = [
  ['dpo-two-gpus', plan({ batch: 4, seq: 1024 }, [{ name: 'policy', model: { preset: 'llama-3.1-8b' } },
    { name: 'reference', role: 'reference', model: { preset: 'llama-3.1-8b' }, precision: 'bf16' }], { gpu: 'a100-sxm-40gb', count: 2 })],
  ['lora-shared-reference', plan({ batch: 16, seq: 4096 }, [
    { name: 'policy', model: { preset: 'llama-3.1-8b' }, finetune: { method: 'lora' }, precision: 'bf16' },
    { name: 'ref', role: 'reference', shares_weights_with: 'policy', precision: 'bf16' },
    { name: 'teacher', role: 'teacher', model: { preset: 'qwen2.5-7b' }, placement: { device: 0 } }], { gpu: 'rtx-4090', count: 2 })],
  ['inference-70b', plan({ mode: 'infer', batch: 64, seq: 8192, new_tokens: 512 }, [{ model: { preset: 'llama-3.1-70b' } }], { gpu: 'a100-sxm-80gb', count: 2 })],
  ['fp32-8-gpus', plan({ batch: 8, seq: 4096 }, [{ model: { preset: 'llama-3.1-8b' }, precision: 'fp32' }], { gpu: 'a100-sxm-40gb', count: 8 })],
  ['vit', plan({ batch: 4096, seq: 1 }, [{ model: { preset: 'vit-large-patch16-224' } }], { gpu: 't4' })],
  ['t5-amp-fp16', plan({ batch: 64, seq: 512 }, [{ model: { preset: 't5-large' }, precision: 'amp_fp16' }], { gpu: 'v100-16gb' })],
  // a video pipeline, every component on a 24 GB card: diffusers' own options (model offload, VAE tiling) as remedies
  ['cogvideox-5b-4090', plan({ mode: 'infer', batch: 1, frames: 49, height: 480, width: 720 },
    ['', '/text_encoder', '/vae'].map((c) => ({ name: c ? c.slice(1) : 'transformer', role: 'reference',
      model: { preset: `cogvideox-5b${c}` }, precision: 'bf16', activations: 'no_grad' })), { gpu: 'rtx-4090' })],
  // a video LoRA encoding every step on a 40 GB card: precomputing the embeddings and latents first is a remedy
  ['hunyuanvideo-lora-a100-40', plan({ mode: 'train', batch: 1, frames: 49, height: 512, width: 768, diffusion: { vae_tiling: true, vae_slicing: true } },
    [{ name: 'transformer', model: { preset: 'hunyuanvideo' }, precision: 'bf16', autocast: true, grad_ckpt: true, optimizer: { name: 'adamw' },
      finetune: { method: 'lora', lora: { r: 128, alpha: 128, dropout: 0, dtype: 'bf16', targets: ['to_q', 'to_k', 'to_v', 'to_out.0'] } } },
    ...['/text_encoder', '/text_encoder_2', '/vae'].map((c) => ({ name: c.slice(1), role: 'reference',
      model: { preset: `hunyuanvideo${c}` }, precision: 'bf16', activations: 'no_grad' }))], { gpu: 'a100-sxm-40gb' })],
];

/** Each plan reads into the form with nothing dropped or refused, and the form's plan estimates byte for byte as it does. */
function surviveForm(plans) {
  for (const [i, p] of plans.entries()) {
    const { state, dropped, invalid } = planToState(p, presetType);
    assert.deepEqual([invalid, dropped], [[], []], `plan ${i}`);
    const text = JSON.stringify(p);
    const est = JSON.parse(core.estimate(text));
    assert.ok(!est.error, `plan ${i}: ${JSON.stringify(est.error)}`);
    assert.equal(core.estimate(JSON.stringify(buildPlan(state, info))), core.estimate(text), `plan ${i}`);
  }
}

test('diffusion pipelines: the core adds the components the page shows, and every option survives the form', () => {
  // the page's model picker calls the core's expansion (core/src/pipeline_expand.c), as `--model` does
  const base = { schema: 'vramplan/plan@1', workload: { mode: 'infer', batch: 1, seq: 1024 },
    instances: [{ model: { preset: 'cogvideox-5b' } }], hardware: { gpu: 'rtx-4090' } };
  const r = JSON.parse(core.expandPipeline(JSON.stringify(base), 0));
  assert.equal(r.added, 2);
  assert.deepEqual(r.plan.instances.map((x) => [x.name, x.model.preset]),
    [['transformer', 'cogvideox-5b'], ['text_encoder', 'cogvideox-5b/text_encoder'], ['vae', 'cogvideox-5b/vae']]);
  assert.equal(r.plan.workload.seq, undefined, 'the tokens come from the video size');
  assert.equal(JSON.parse(core.expandPipeline(JSON.stringify(r.plan), 0)).added, 0, 'twice adds nothing');
  assert.match(JSON.parse(core.expandPipeline('{"workload":{},"instances":[]}', 0)).error.path, /^instances/);
  // every pipeline option and the video size, through the form and back
  const plans = [
    { ...r.plan, workload: { mode: 'infer', batch: 1, frames: 49, height: 480, width: 720,
      diffusion: { cfg: false, offload: 'model', vae_tiling: true, vae_slicing: true, offload_empty_cache: false, diffusers: '0.30', text_tokens: 77 } } },
    { ...r.plan, workload: { mode: 'infer', batch: 2, diffusion: { offload: 'sequential' } } },
    // fp32 weights under autocast with its cache off (diffusers mochi.md), a component moved off after its phase
    // (Wan's generate.py --offload_model), fp8 storage (layerwise casting) of a LoRA base
    { ...r.plan, workload: { mode: 'infer', batch: 1, frames: 33, height: 480, width: 832 },
      instances: r.plan.instances.map((x, i) => (i === 0 ? { ...x, precision: 'amp_bf16', autocast_cache: false }
        : i === 1 ? { ...x, after_use: 'cpu_empty_cache' } : x)) },
    // diffusers group offloading per component (instances[].group_offload), as the diffusers docs' Wan example runs it
    { ...r.plan, workload: { mode: 'infer', batch: 1, frames: 49, height: 480, width: 720 },
      instances: r.plan.instances.map((x, i) => (i === 0 ? { ...x, group_offload: { type: 'leaf_level', use_stream: true } }
        : i === 1 ? { ...x, group_offload: { type: 'block_level', num_blocks_per_group: 4 } } : x)) },
    // HunyuanVideo's own inference code (workload.diffusion.code), as the README's figures ran it
    { ...base, workload: { mode: 'infer', batch: 1, frames: 129, height: 544, width: 960, diffusion: { code: 'official', offload: 'sequential' } },
      instances: JSON.parse(core.expandPipeline(JSON.stringify({ ...base, instances: [{ model: { preset: 'hunyuanvideo' } }] }), 0)).plan.instances },
    { ...base, workload: { mode: 'train', batch: 1, frames: 49, height: 512, width: 768 },
      instances: [{ model: { preset: 'ltx-video' }, precision: 'bf16', quant: 'fp8', finetune: { method: 'lora', lora: { r: 64, targets: ['to_q', 'to_k', 'to_v', 'to_out.0'] } } }] },
    // a bf16 DiT trained under accelerate's autocast (instances[].autocast), as the cogvideox-factory scripts ran it
    { ...base, workload: { mode: 'train', batch: 4, frames: 49, height: 480, width: 720 },
      instances: [{ model: { preset: 'cogvideox-2b' }, precision: 'bf16', autocast: true, finetune: { method: 'lora', lora: { r: 64, targets: ['to_q', 'to_k', 'to_v', 'to_out.0'] } }, grad_ckpt: { every: 1 } }] },
    { ...base, workload: { mode: 'train', batch: 1, frames: 49, height: 480, width: 720, diffusion: { precompute: true, text_tokens: 128 } },
      instances: [{ model: { preset: 'ltx-video' }, finetune: { method: 'lora', lora: { r: 128, targets: ['to_q', 'to_k', 'to_v', 'to_out.0'] } }, grad_ckpt: { every: 1 } }] },
    // finetrainers' bf16 adapters (finetune.lora.dtype) and a training job's VAE tiling and slicing, encoding every step
    { ...base, workload: { mode: 'train', batch: 1, frames: 49, height: 512, width: 768, diffusion: { vae_tiling: true, vae_slicing: true } },
      instances: [{ model: { preset: 'ltx-video' }, precision: 'bf16', finetune: { method: 'lora', lora: { r: 128, alpha: 128, dropout: 0, dtype: 'bf16', targets: ['to_q', 'to_k', 'to_v', 'to_out.0'] } }, grad_ckpt: { every: 1 } },
        { name: 'text_encoder', role: 'reference', model: { preset: 'ltx-video/text_encoder' }, precision: 'bf16', activations: 'no_grad' },
        { name: 'vae', role: 'reference', model: { preset: 'ltx-video/vae' }, precision: 'bf16', activations: 'no_grad' }] },
  ];
  surviveForm(plans);
  // a bad option is named, not taken
  const bad = planToState({ ...base, workload: { mode: 'infer', batch: 1, diffusion: { offload: 'gpu', turbo: true, text_tokens: '77; x' } } }, presetType);
  assert.deepEqual(bad.invalid.sort(), ['workload.diffusion.offload', 'workload.diffusion.text_tokens', 'workload.diffusion.turbo']);
  const badGroup = planToState({ ...base, instances: [{ model: { preset: 'cogvideox-5b' }, group_offload: { type: 'module_level', stream: true } }] }, presetType);
  assert.deepEqual(badGroup.invalid.sort(), ['instances[0].group_offload.stream', 'instances[0].group_offload.type']);
});

/** The GPU with the least headroom (the one suggestions are measured on). */
function tightest(est) {
  let worst = null;
  for (const d of est.devices) if (d.index >= 0 && (!worst || d.headroom_bytes < worst.headroom_bytes)) worst = d;
  return worst;
}

test('every example plan survives the form byte for byte', (t) => {
  assert.ok(examples.length >= 9, 'examples/ holds the example plans');
  for (const [file, text] of examples) {
    const { state, dropped, invalid } = planToState(JSON.parse(text), presetType);
    assert.deepEqual(invalid, [], `${file}: the form holds every value`);
    assert.deepEqual(dropped, [], `${file}: the form has a control for every field`);
    const rebuilt = JSON.stringify(buildPlan(state, info));
    assert.equal(core.estimate(rebuilt), core.estimate(text), `${file}: the form's plan estimates as the file does`);
  }
  t.diagnostic(`${examples.length} examples`);
});

test('precision fields (FSDP policy, ZeRO-3, autocast cache, framework bf16) survive the form byte for byte', () => {
  const base = { schema: 'vramplan/plan@1', workload: { mode: 'train', batch: 1, seq: 2048 }, hardware: { gpu: 'h100-sxm-80gb', count: 8 } };
  const llama = { preset: 'llama-3.2-1b' };
  const plans = [
    { ...base, instances: [{ name: 'policy', model: llama, precision: 'amp_bf16', autocast_cache: false },
      { name: 'edit', role: 'functional_copy', model: llama, edited_layers: 2 }],
    parallel: { dp: 8, fsdp: 'full_shard', fsdp_version: 1,
      fsdp_mixed_precision: { param_dtype: 'bf16', reduce_dtype: 'fp32', output_dtype: null, buffer_dtype: 'bf16' } } },
    { ...base, instances: [{ name: 'policy', model: llama, precision: 'amp_bf16' }],
      parallel: { dp: 8, fsdp: 'full_shard', fsdp_mixed_precision: { param_dtype: 'fp32' } } },
    // no precision under DeepSpeed / Megatron: the framework's bf16 mode, and its warning line
    { ...base, instances: [{ name: 'a', model: llama }, { name: 'b', model: llama, precision: null }],
      parallel: { dp: 8, zero: 3, sub_group_size: 100000000, grad_accum_dtype: 'fp32' } },
    { ...base, instances: [{ name: 'a', model: llama }, { name: 'b', model: llama, precision: 'amp_bf16' }], parallel: { dp: 8, zero: 3 } },
    { ...base, instances: [{ model: llama }], parallel: { tp: 8, framework: 'megatron' } },
  ];
  surviveForm(plans);
});

test('"Apply" on each suggestion gives the estimate the core quoted for it', (t) => {
  let n = 0;
  const seen = new Set();
  for (const [name, text] of [...examples, ...more]) {
    const est = JSON.parse(core.estimate(text));
    assert.ok(!est.error, `${name}: ${JSON.stringify(est.error)}`);
    const { state } = planToState(JSON.parse(text), presetType);
    for (const s of est.suggestions || []) {
      assert.ok(canApply(s), `${name}: the page can apply ${s.id}`);
      const gpuCount = state.hardware.count;
      const r = applySuggestion(state, s, { presetType, gpuCount });
      assert.deepEqual(r.skipped, [], `${name}: ${s.id} changes the form`);
      assert.deepEqual(r.applied, suggestionIds(s));
      const after = JSON.parse(core.estimate(JSON.stringify(buildPlan(r.state, info))));
      assert.ok(!after.error, `${name}: ${s.id}: ${JSON.stringify(after.error)}`);
      assert.equal(tightest(after).peak_reserved_bytes, s.peak_reserved_bytes, `${name}: ${s.id} (${s.change})`);
      assert.equal(after.fits, s.fits, `${name}: ${s.id} fits as quoted`);
      n++;
      for (const id of suggestionIds(s)) seen.add(id);
      if (s.id === 'combined') seen.add('combined');
    }
  }
  t.diagnostic(`${n} suggestions applied; ids seen: ${[...seen].sort().join(' ')}`);
  for (const id of ['combined', 'grad_ckpt', 'lora', 'adamw_8bit', 'precompute_reference', 'frozen_to_cpu', 'frozen_to_gpu1',
    'offload_optimizer', 'shard_fsdp', 'halve_batch', 'micro_batch_1', 'halve_seq', 'pure_bf16', 'adamw_fused', 'qlora',
    'vae_tiling', 'model_offload', 'precompute_embeddings', 'sequential_offload', 'fp8_storage', 'group_offload']) {
    assert.ok(seen.has(id), `the plans above exercise ${id}`);
  }
});

test('probe files: what links keep (probe.js slimProbe) estimates exactly as the whole file', async (t) => {
  const { slimProbe } = await import('../../web/probe.js');
  const dirs = [path.join(ROOT, 'tests/probe/fixtures'), path.join(ROOT, 'tests/probe/fixtures/bad'), path.join(ROOT, 'tests/web/fixtures')];
  let n = 0;
  for (const dir of dirs) {
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
      let probe;
      try {
        probe = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
      } catch {
        continue; // truncated.json: the page refuses it before the core sees it
      }
      if (probe?.schema !== 'vramplan/gpu-probe@1') continue;
      const count = Array.isArray(probe.devices) ? probe.devices.length : 1;
      for (let device = 0; device < count; device++) {
        for (const batch of [4, 64]) {
          const make = (p) => plan({ batch, seq: 2048 }, [{ model: { preset: 'llama-3.1-8b' } }], { probe: p, device });
          const full = JSON.parse(core.estimate(make(probe)));
          const slim = JSON.parse(core.estimate(make(slimProbe(probe))));
          // the host name is only a label in the core's sentence
          if (probe.host?.hostname) {
            const host = ` on ${probe.host.hostname}`;
            full.summary = String(full.summary).split(host).join('');
          }
          assert.deepEqual(slim, full, `${f} device ${device} batch ${batch}`);
          n++;
        }
      }
      const text = JSON.stringify(slimProbe(probe));
      for (const secret of ['hostname', 'pci_bus_id', 'uuid', 'serial', 'driver_version', 'nvml_index']) assert.ok(!text.includes(`"${secret}"`), `${f}: ${secret}`);
    }
  }
  t.diagnostic(`${n} probe plans`);
  assert.ok(n >= 8);
});
