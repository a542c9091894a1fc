// plan.js: the page's setup (options.js DEFAULT_STATE shape) → a vramplan/plan@1 object.
//
// A pure mapping of fields; it computes no memory. Text the user pasted (a config.json,
// a probe file) is parsed here so a JSON syntax error can be shown next to its field;
// everything else (ranges, unknown model types, a probe from something else, a layout that
// does not divide the model) is the core's job, and its error "path" says which field to blame.
//
// Fields equal to what the core assumes anyway are left out (the role "trained", the
// role's activations, a sharded placement, an empty "parallel"), so a simple setup stays a
// short plan; docs/schema/plan.md lists those defaults.

import {
  PLAN_SCHEMA, InputError, hfConfigName, shortName, isObject, instanceNames, sharesTarget,
  modelTypeOfModel, ownModelIndex, trains, coreActivations, precisionFromFramework, optimizerFromFramework,
  isDiffusionSetup,
} from './setup.js';
import { DEFAULT_STATE } from './options.js';

export { PLAN_SCHEMA, InputError, hfConfigName, shortName };
export { PROBE_SCHEMA } from './probe.js';

const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** JSON.parse that names the field and says where the syntax broke ("what": "the probe file"). */
export function parseJsonField(text, field, what, instance = null, invite = null) {
  if (!text || !text.trim()) throw new InputError(field, `Paste or upload ${what}.`, instance, invite);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(field, `${sentence(what)} is not valid JSON: ${e.message}`, instance);
  }
}

/** Numbers from inputs: '' stays null so the core reports the field as missing. */
function num(v) {
  if (v === '' || v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

const blank = (v) => v === '' || v === null || v === undefined;

function modelOf(m, i) {
  if (m.source === 'hf') {
    const cfg = parseJsonField(m.hf, 'hf-config', 'the config.json', i, 'Waiting for a config.json');
    if (!isObject(cfg)) throw new InputError('hf-config', 'The config.json must be a JSON object ({...}).', i);
    return { hf_config: cfg };
  }
  if (m.source === 'custom') {
    const c = m.custom;
    const custom = {};
    if (typeof c.name === 'string' && c.name.trim()) custom.name = c.name.trim();
    custom.hidden_size = num(c.hidden_size);
    custom.num_layers = num(c.num_layers);
    custom.num_heads = num(c.num_heads);
    // optional: empty means "the core's default" (num_heads; hidden_size / num_heads)
    if (!blank(c.num_kv_heads)) custom.num_kv_heads = num(c.num_kv_heads);
    if (!blank(c.head_dim)) custom.head_dim = num(c.head_dim);
    custom.intermediate_size = num(c.intermediate_size);
    custom.vocab_size = num(c.vocab_size);
    custom.mlp = c.mlp;
    custom.norm = c.norm;
    custom.tie_embeddings = !!c.tie_embeddings;
    if (c.attn_bias) custom.attn_bias = true;
    if (c.mlp_bias) custom.mlp_bias = true;
    return { custom };
  }
  if (!m.preset) throw new InputError('preset-search', 'Pick a model.', i);
  return { preset: m.preset };
}

function optimizerOf(value) {
  const [name, impl] = String(value).split('/');
  return impl ? { name, impl } : { name };
}

function finetuneOf(inst) {
  const ft = inst.finetune;
  if (ft === 'lora' || ft === 'qlora') {
    return {
      method: ft,
      lora: {
        r: num(inst.lora.r), alpha: num(inst.lora.alpha), dropout: num(inst.lora.dropout),
        ...(inst.lora.dtype && inst.lora.dtype !== 'fp32' ? { dtype: inst.lora.dtype } : {}), // fp32: the core's default
        targets: inst.lora.targets.slice(),
      },
    };
  }
  if (ft === 'adapter') return { method: 'adapter', adapter: { dim: num(inst.adapter_dim) } };
  return { method: ft };
}

function placementOf(inst) {
  switch (inst.placement) {
    case 'gpu': return { device: num(inst.device) };
    case 'cpu': return inst.pinned ? { device: 'cpu', pinned: true } : { device: 'cpu' };
    case 'stream': return inst.pinned ? { device: 'cpu', pinned: true, stream_to: num(inst.device) } : { device: 'cpu', stream_to: num(inst.device) };
    default: return null; // sharded: the core's default
  }
}

function instanceOf(state, i, names) {
  const inst = state.instances[i];
  const train = state.workload.mode === 'train';
  const out = { name: names[i] };
  if (inst.role !== 'trained') out.role = inst.role;
  if (inst.shares !== -1) {
    const t = sharesTarget(state, i);
    if (t < 0 || sharesTarget(state, t) >= 0) {
      throw new InputError('shares', 'Pick a model that has its own weights, or “its own model”.', i);
    }
    out.shares_weights_with = names[t];
  } else {
    out.model = modelOf(inst.model, i);
  }
  const quantOf = () => {
    if (inst.quant && inst.quant !== 'none') {
      out.quant = inst.quant;
      if (inst.quant === 'nf4' || inst.quant === 'fp4') out.double_quant = !!inst.lora.double_quant;
    }
  };
  if (train) {
    if (!precisionFromFramework(state, inst)) out.precision = inst.precision;
    const ft = inst.finetune;
    const learns = trains(inst.role) && ft !== 'frozen';
    if (learns) {
      out.optimizer = optimizerOf(inst.optimizer);
      if (optimizerFromFramework(state, inst)) delete out.optimizer.impl; /* as the file gave it */
    }
    if (trains(inst.role) || ft !== 'frozen') out.finetune = finetuneOf(inst);
    if (ft === 'qlora') {
      out.quant = inst.lora.quant;
      out.double_quant = !!inst.lora.double_quant;
    } else if (ft !== 'full') {
      quantOf();
    }
    if (inst.activations === 'train' || inst.grad_ckpt) {
      out.grad_ckpt = { every: inst.grad_ckpt ? (num(inst.gc_every) ?? 1) : 0 };
    }
  } else {
    out.precision = inst.infer_precision;
    quantOf();
  }
  out.attn = inst.attn;
  if (train) {
    if (inst.activations !== coreActivations(inst.role, 'train')) out.activations = inst.activations;
    if (inst.activations === 'keep_graph') out.passes = num(inst.passes);
    if (inst.logprobs_fp32) out.logprobs_fp32 = true;
    if (inst.autocast_cache === false) out.autocast_cache = false;
    if (inst.autocast16) out.autocast = true;
  } else if (inst.autocast_cache === false && /^amp_/.test(inst.infer_precision)) out.autocast_cache = false;
  if (!train && inst.after_use && inst.after_use !== 'stay') out.after_use = inst.after_use;
  if (!train && inst.group_offload && inst.group_offload !== 'none') {
    const g = { type: inst.group_offload };
    if (inst.group_offload === 'block_level' && !blank(inst.group_blocks) && num(inst.group_blocks) !== 1) g.num_blocks_per_group = num(inst.group_blocks);
    if (inst.group_stream) g.use_stream = true;
    out.group_offload = g;
  }
  if (inst.role === 'functional_copy' && !blank(inst.edited_layers)) out.edited_layers = num(inst.edited_layers);
  const pl = placementOf(inst);
  if (pl) out.placement = pl;
  return out;
}

function cpuRamBytes(h) {
  if (blank(h.cpu_ram_gib)) return null;
  const gib = Number(h.cpu_ram_gib);
  if (!Number.isFinite(gib) || gib <= 0) throw new InputError('cpu-ram', 'CPU RAM is a size in GiB (or leave it empty).');
  return Math.round(gib * 2 ** 30); // a unit conversion of the input, not an estimate
}

function hardwareOf(state) {
  const h = state.hardware;
  let out;
  if (h.source === 'probe') {
    if (!h.probe || !String(h.probe).trim()) {
      throw new InputError('probe-text', 'Drop the JSON file that vramplan-probe wrote on your GPU node anywhere on this page, or choose it under Hardware.', null, 'Waiting for a probe file');
    }
    const probe = parseJsonField(h.probe, 'probe-text', 'the probe file');
    if (!isObject(probe)) throw new InputError('probe-text', 'The probe file must be a JSON object ({...}).');
    out = { probe, device: num(h.device) ?? 0 };
  } else {
    if (!h.gpu) throw new InputError('gpu', 'Pick a GPU.');
    out = { gpu: h.gpu, count: num(h.count) };
  }
  if (String(h.nodes) !== '1') out.nodes = num(h.nodes);
  const ram = cpuRamBytes(h);
  if (ram !== null) out.cpu_ram_bytes = ram;
  return out;
}

function parallelOf(state) {
  const p = state.parallel;
  const out = {};
  for (const k of ['dp', 'tp', 'pp', 'ep']) if (String(p[k]) !== '1') out[k] = num(p[k]);
  for (const k of ['vpp', 'microbatches']) if (!blank(p[k])) out[k] = num(p[k]);
  if (p.sp) out.sp = true;
  const fw = p.framework;
  const zero = num(p.zero) ?? 0;
  const zeroApplies = fw === 'torch' || fw === 'deepspeed';
  // "zero" alone would mean DeepSpeed to the core: name the framework whenever it is set
  if (fw !== 'torch' || (zeroApplies && zero)) out.framework = fw;
  if (zeroApplies && zero) out.zero = zero;
  if (fw === 'fsdp') {
    out.fsdp = p.fsdp;
    if (!blank(p.fsdp_version) && String(p.fsdp_version) !== '2') out.fsdp_version = num(p.fsdp_version);
    const mp = {};
    for (const k of ['param_dtype', 'reduce_dtype', 'output_dtype', 'buffer_dtype']) {
      if (p[`fsdp_${k}`]) mp[k] = p[`fsdp_${k}`];
    }
    if (Object.keys(mp).length) out.fsdp_mixed_precision = mp;
  }
  if (zeroApplies) {
    if (!blank(p.sub_group_size)) out.sub_group_size = num(p.sub_group_size);
    if (p.grad_accum_dtype) out.grad_accum_dtype = p.grad_accum_dtype;
    if (p.torch_autocast && fw === 'deepspeed') out.torch_autocast = true;
  }
  for (const k of ['offload_optimizer', 'offload_params', 'activation_offload', 'distributed_optimizer',
    'selective_recompute', 'gradient_as_bucket_view']) {
    if (p[k]) out[k] = true;
  }
  for (const k of ['reduce_bucket_size', 'allgather_bucket_size']) if (!blank(p[k])) out[k] = num(p[k]);
  return Object.keys(out).length ? out : null;
}

/** workload.diffusion: the fields that differ from the core's defaults (core/src/diffusion_plan.c). */
function diffusionOf(d, train) {
  if (!d || typeof d !== 'object') return null;
  const def = DEFAULT_STATE.workload.diffusion;
  const out = {};
  // the pipeline's offload, guidance and code are inference settings; precompute is a training setup; the VAE's tiling
  // and slicing apply to both (a training job encodes its videos with them: finetrainers' --enable_tiling)
  const keys = train ? ['precompute', 'vae_tiling', 'vae_slicing']
    : ['cfg', 'offload', 'vae_tiling', 'vae_slicing', 'offload_empty_cache', 'code'];
  for (const k of [...keys, 'diffusers']) if (d[k] !== undefined && d[k] !== def[k]) out[k] = d[k];
  if (!blank(d.text_tokens)) out.text_tokens = num(d.text_tokens); // the prompt's tokens (diffusion_plan.c)
  return Object.keys(out).length ? out : null;
}

/**
 * The plan for a setup.
 * @param {object} state  the DEFAULT_STATE shape
 * @param {{presetType?: (id: string) => string, isPipelinePreset?: (id: string) => boolean}} [info]
 *   a preset's model family (for "vit"), and whether a preset is a diffusion pipeline
 * @returns {object} a vramplan/plan@1 document
 * @throws {InputError} when pasted text is not JSON, or two models have the same name
 */
export function buildPlan(state, info = {}) {
  const presetType = info.presetType || (() => '');
  const w = state.workload;
  const train = w.mode === 'train';
  if (!state.instances.length) throw new InputError('model-fieldset', 'Add a model.');
  const names = instanceNames(state);
  const seen = new Map();
  names.forEach((n, i) => {
    if (seen.has(n)) throw new InputError('instance-name', `Two models are named “${n}”; give each its own name.`, i);
    seen.set(n, i);
  });
  const instances = state.instances.map((_, i) => instanceOf(state, i, names));

  // batch is required (empty: the core names it); the others may be left empty (the core's default)
  const workload = { mode: w.mode, batch: num(w.batch) };
  const opt = (k, v) => { if (!blank(v)) workload[k] = num(v); };
  // a diffusion pipeline's tokens come from frames × height × width (or its default size), not "seq"
  const diffusion = isDiffusionSetup(state, info.isPipelinePreset);
  if (train) {
    if (!diffusion) opt('seq', w.seq);
    opt('grad_accum', w.grad_accum);
  } else if (!diffusion) {
    opt('seq', w.prompt);
    opt('new_tokens', w.new_tokens);
    workload.kv_dtype = w.kv_dtype;
  }
  const vit = state.instances.some((_, i) => modelTypeOfModel(state.instances[ownModelIndex(state, i)].model, presetType) === 'vit');
  if (vit && !blank(w.image_size)) workload.image_size = num(w.image_size);
  if (diffusion) { // the video size and the pipeline's options (docs/diffusion.md); defaults left out
    opt('frames', w.frames);
    opt('height', w.height);
    opt('width', w.width);
    const d = diffusionOf(w.diffusion, train);
    if (d) workload.diffusion = d;
  }

  const plan = { schema: PLAN_SCHEMA };
  if (typeof state.name === 'string' && state.name) plan.name = state.name;
  if (typeof state.note === 'string' && state.note) plan.note = state.note;
  plan.workload = workload;
  plan.instances = instances;
  plan.hardware = hardwareOf(state);
  const parallel = parallelOf(state);
  if (parallel) plan.parallel = parallel;
  const conf = String(state.runtime?.pytorch_cuda_alloc_conf ?? '').trim();
  if (conf) plan.runtime = { pytorch_cuda_alloc_conf: conf };
  return plan;
}
