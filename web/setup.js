// setup.js: the page's setup (options.js DEFAULT_STATE, v2) as data, without the DOM.
//
//   * model instances: add / duplicate / remove, role defaults, names
//   * a v1 setup (one model) → a v2 setup
//   * a vramplan/plan@1 document → a setup (examples, "Open plan JSON"), saying what the form
//     cannot hold
//   * the core's suggestions (estimate "suggestions[].id") → changes of the form's inputs
//
// No memory arithmetic: every change here is to an input the person could have typed; the
// core estimates the result again. The suggestion changes mirror core/src/plan_suggest.c (which
// inputs each remedy changes, and when it applies), so "Apply" gives the estimate the core
// quoted for it.

import * as O from './options.js';
import { slimProbeText } from './probe.js';

export const PLAN_SCHEMA = 'vramplan/plan@1';

/**
 * Thrown for input the page itself cannot turn into a plan (bad JSON text, a bad name), or that
 * is not there yet: then `invite` is a title ("Waiting for a probe file") and the page invites
 * the person to give it instead of marking a field wrong.
 */
export class InputError extends Error {
  constructor(field, message, instance = null, invite = null) {
    super(message);
    this.field = field;       // element id in index.html
    this.instance = instance; // which instance the field belongs to (null: not an instance field)
    this.invite = invite;
  }
}

/** A plan file the page cannot read at all (not an object, another schema, no instances). */
export class PlanFileError extends Error {}

export function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The model's name in a config's "_name_or_path": a hub id as it is ("Qwen/Qwen2.5-7B"); a path
 * from the hub cache ("…/models--Qwen--Qwen2.5-7B/snapshots/<hash>") as that id; any other
 * path as its last two parts ("/data/runs/sft/checkpoint-500" → "sft/checkpoint-500").
 */
function nameFromPath(text) {
  const t = text.trim();
  const parts = t.split(/[\\/]+/).filter((p) => p && p !== '.' && p !== '..');
  const cached = parts.find((p) => /^models--.+--.+/.test(p));
  if (cached) return cached.slice('models--'.length).split('--').join('/');
  const isPath = /^([.~/\\]|[A-Za-z]:[\\/])/.test(t) || parts.length > 2;
  return isPath ? parts.slice(-2).join('/') : t;
}

/** A display name for a pasted config (never trusted: the view renders it as text). */
export function hfConfigName(cfg) {
  if (!isObject(cfg)) return '';
  for (const k of ['_name_or_path', 'name_or_path', 'name', 'model_name']) {
    if (typeof cfg[k] === 'string' && cfg[k].trim()) return nameFromPath(cfg[k]);
  }
  if (Array.isArray(cfg.architectures) && typeof cfg.architectures[0] === 'string') {
    return cfg.architectures[0];
  }
  return typeof cfg.model_type === 'string' ? cfg.model_type : '';
}

/** Instance names are short in the core (48 bytes); keep whole characters under that. */
export function shortName(name, maxBytes = 40) {
  const enc = new TextEncoder();
  let out = '';
  for (const ch of String(name)) {
    if (enc.encode(out + ch).length > maxBytes) return out;
    out += ch;
  }
  return out;
}

/** The model family of a model description (preset family, config model_type, "custom"). */
export function modelTypeOfModel(m, presetType = () => '') {
  if (!m) return '';
  if (m.source === 'preset') return presetType(m.preset) || '';
  if (m.source === 'hf') {
    try {
      const cfg = JSON.parse(m.hf);
      return cfg && typeof cfg.model_type === 'string' ? cfg.model_type : '';
    } catch {
      return '';
    }
  }
  return m.source === 'custom' ? 'custom' : '';
}

/**
 * Whether model m belongs to a diffusion pipeline: a pipeline preset (one whose file lists
 * pipeline.components), one of its components ("cogvideox-5b/vae"), or a pasted diffusers config
 * (it names its class in "_class_name"; core/src/diffusers_config.c dispatches on it).
 */
export function isDiffusionModel(m, isPipelinePreset = () => false) {
  if (!m) return false;
  if (m.source === 'preset') return isPipelinePreset(String(m.preset || '').split('/')[0]);
  if (m.source !== 'hf') return false;
  try {
    const cfg = JSON.parse(m.hf);
    return isObject(cfg) && typeof cfg._class_name === 'string';
  } catch {
    return false;
  }
}

/**
 * Which part of a diffusion pipeline model m is: 'dit' (a pipeline preset or a diffusers transformer config),
 * 'text' (a text or image encoder: a component preset of such a family, or a config of a class
 * core/src/diffusers_config.c reads as one), else ''. The page's remedies use it to pick the instances the
 * core's changed (plan_suggest.c).
 */
export function diffusionPart(m, presetType = () => '') {
  if (!m) return '';
  let type = '';
  let cls = '';
  if (m.source === 'preset') type = presetType(m.preset);
  else if (m.source === 'hf') {
    try {
      const cfg = JSON.parse(m.hf);
      if (isObject(cfg)) cls = String(cfg._class_name ?? (Array.isArray(cfg.architectures) ? cfg.architectures[0] : ''));
    } catch {
      return '';
    }
  }
  if (O.DIT_TYPES.includes(type) || /Transformer[23]DModel$/.test(cls)) return 'dit';
  if (O.DIFFUSION_TEXT_TYPES.includes(type) || O.DIFFUSION_TEXT_CLASSES.includes(cls)) return 'text';
  return '';
}

/** A setup with a diffusion model: the video size replaces the sequence fields. */
export function isDiffusionSetup(state, isPipelinePreset = () => false) {
  return state.instances.some((x) => isDiffusionModel(x.model, isPipelinePreset));
}

/** LoRA target names for a family (what PEFT's target_modules takes). */
export function loraTargetsFor(type) {
  return (O.LORA_TARGETS[type] || O.LORA_TARGETS.default).slice();
}

export const trains = (role) => O.TRAINING_ROLES.includes(role);

/** What the core does with an instance's activations when the plan does not say (plan.md). */
export function coreActivations(role, mode) {
  if (mode === 'train' && trains(role)) return 'train';
  return role === 'ema' ? 'none' : 'no_grad';
}

/** The activations the plan will carry for an instance (inference: always the core's default). */
export function effectiveActivations(inst, mode) {
  return mode === 'train' ? inst.activations : coreActivations(inst.role, mode);
}

/** Is "shares" a usable reference to another instance with its own weights? */
export function sharesTarget(state, i) {
  const t = state.instances[i]?.shares;
  if (typeof t !== 'number' || !Number.isInteger(t) || t < 0) return -1;
  if (t === i || t >= state.instances.length) return -1;
  return t;
}

/** The index of the instance whose model instance i runs (itself, or the one it shares). */
export function ownModelIndex(state, i) {
  const t = sharesTarget(state, i);
  return t >= 0 ? t : i;
}

function modelAutoName(m) {
  if (m.source === 'hf') {
    try {
      return hfConfigName(JSON.parse(m.hf));
    } catch {
      return '';
    }
  }
  if (m.source === 'custom') return (typeof m.custom?.name === 'string' && m.custom.name.trim()) || 'custom';
  return m.preset || '';
}

/**
 * The names the plan gives the instances: the typed name, else the model's id for the first
 * and the role for the others; automatic names never repeat another name.
 */
export function instanceNames(state) {
  const list = state.instances;
  const explicit = list.map((x) => shortName(String(x.name ?? '').trim()));
  const used = new Set(explicit.filter(Boolean));
  return list.map((inst, i) => {
    if (explicit[i]) return explicit[i];
    const auto = i === 0 && sharesTarget(state, 0) < 0 ? modelAutoName(inst.model) : inst.role;
    const base = shortName(auto || 'model') || 'model';
    let name = base;
    for (let k = 2; used.has(name); k++) name = `${shortName(base, 40 - String(k).length - 1)}-${k}`;
    used.add(name);
    return name;
  });
}

/** Sets a role and the fields the page fills in for it (options.js ROLE_DEFAULTS). */
export function setRole(inst, role) {
  const d = O.ROLE_DEFAULTS[role] || O.ROLE_DEFAULTS.trained;
  inst.role = role;
  inst.finetune = d.finetune;
  inst.activations = d.activations;
  inst.precision = d.precision;
  inst.precision_framework = false;
  inst.logprobs_fp32 = d.logprobs_fp32;
  if (d.finetune === 'frozen' || d.finetune === 'full') inst.quant = 'none';
  return inst;
}

/**
 * Adds a model instance of a role: the first instance's model, the role's defaults. A reference
 * beside a LoRA/QLoRA policy runs through the policy's weights (adapters disabled, as TRL does).
 * @returns {number} its index, or -1 when the plan already has the most the core takes
 */
export function addInstance(state, role) {
  if (state.instances.length >= O.MAX_INSTANCES) return -1;
  const inst = structuredClone(O.DEFAULT_INSTANCE);
  const first = state.instances[0];
  const src = state.instances[ownModelIndex(state, 0)];
  inst.model = structuredClone(src.model);
  inst.lora.targets = src.lora.targets.slice();
  inst.attn = first.attn;
  setRole(inst, role);
  if (role === 'reference' && (first.finetune === 'lora' || first.finetune === 'qlora') && sharesTarget(state, 0) < 0) {
    inst.shares = 0;
  }
  state.instances.push(inst);
  return state.instances.length - 1;
}

/** A copy of instance i, added at the end (a typed name gets a suffix). */
export function duplicateInstance(state, i) {
  if (state.instances.length >= O.MAX_INSTANCES) return -1;
  const copy = structuredClone(state.instances[i]);
  if (String(copy.name).trim()) {
    const names = new Set(instanceNames(state));
    const base = shortName(String(copy.name).trim(), 36);
    let k = 2;
    while (names.has(`${base}-${k}`)) k++;
    copy.name = `${base}-${k}`;
  }
  state.instances.push(copy);
  return state.instances.length - 1;
}

/** Removes instance i; instances that ran through its weights get their own copy of its model. */
export function removeInstance(state, i) {
  if (state.instances.length <= 1) return false;
  const gone = state.instances[i];
  const goneModel = state.instances[ownModelIndex(state, i)].model;
  state.instances.forEach((inst, j) => {
    if (j === i) return;
    const t = sharesTarget(state, j);
    if (t === i) {
      inst.shares = -1;
      inst.model = structuredClone(goneModel);
      inst.lora.targets = gone.lora.targets.slice();
    } else if (t > i) {
      inst.shares = t - 1;
    }
  });
  state.instances.splice(i, 1);
  return true;
}

/**
 * Repairs what a link or a file could leave inconsistent (a "shares" the form cannot show), and
 * keeps of a probe file only what the estimate reads (probe.js slimProbe).
 */
export function normalizeState(state) {
  state.instances.forEach((inst, i) => {
    const t = sharesTarget(state, i);
    inst.shares = t >= 0 && sharesTarget(state, t) < 0 ? t : -1;
  });
  state.hardware.probe = slimProbeText(state.hardware.probe);
  return state;
}

const QUANT_LABEL = { nf4: 'NF4', fp4: 'FP4', int8: 'int8' };

/**
 * Switches the workload between training and inference. QLoRA's 4-bit base weights are the
 * training setting (lora.quant); inference reads the base-weight quantization (quant), so a
 * QLoRA model keeps its 4-bit weights in inference, and back. A diffusion pipeline expanded for
 * inference holds its transformer as a frozen reference (core/src/pipeline_expand.c); training
 * trains it again when no copy of it trains. Returns a sentence per change.
 * @param {(id: string) => boolean} [isPipelinePreset]
 */
export function switchMode(state, mode, isPipelinePreset = () => false) {
  const notes = [];
  if (state.workload.mode === mode) return notes;
  const names = instanceNames(state);
  const many = state.instances.length > 1;
  if (mode === 'train') {
    const pipes = state.instances.flatMap((x, i) =>
      x.model.source === 'preset' && isPipelinePreset(String(x.model.preset)) && sharesTarget(state, i) < 0 ? [i] : []);
    if (pipes.length && !pipes.some((i) => trains(state.instances[i].role))) {
      setRole(state.instances[pipes[0]], 'trained');
      const others = state.instances.length > pipes.length;
      notes.push(`Training trains “${names[pipes[0]]}”, which inference held frozen.${others
        ? ' The text encoders and the VAE stay frozen on the GPU and encode each batch; remove them, or precompute, for embeddings and latents made beforehand.'
        : ''}`);
    }
  }
  state.instances.forEach((inst, i) => {
    if (inst.finetune !== 'qlora' || sharesTarget(state, i) >= 0) return;
    if (mode === 'infer' && inst.quant === 'none') {
      inst.quant = inst.lora.quant;
      notes.push(`Inference keeps the QLoRA base weights in 4-bit ${QUANT_LABEL[inst.quant]}${many ? ` for “${names[i]}”` : ''} (Base weights).`);
    } else if (mode === 'train' && (inst.quant === 'nf4' || inst.quant === 'fp4')) {
      inst.lora.quant = inst.quant;
    }
  });
  state.workload.mode = mode;
  return notes;
}

// DeepSpeed's and Megatron's bf16 keeps fp32 master weights and Adam states inside the optimizer
// (plan precision bf16_master); PyTorch DDP and FSDP train under torch.autocast (amp_bf16).
const MASTER_FRAMEWORKS = ['deepspeed', 'megatron'];
const FRAMEWORK_NAMES = { torch: 'PyTorch DDP', deepspeed: 'DeepSpeed', fsdp: 'FSDP', megatron: 'Megatron-LM' };

/**
 * Whether an instance's precision is the one its framework picks when the plan gives none, and
 * came that way (a plan without "precision" under DeepSpeed / Megatron): the plan then leaves
 * "precision" out, as the file did, so the core says which mode it took. Same conditions as
 * core/src/plan_parallel_precision.c vp_plan_framework_precision.
 */
export function optimizerFromFramework(state, inst) {
  return !!inst.optimizer_framework && state.workload.mode === 'train' && state.parallel.framework === 'fsdp'
    && /^(adamw|adam)\/fused$/.test(inst.optimizer) && inst.placement === 'sharded' && inst.activations === 'train';
}

export function precisionFromFramework(state, inst) {
  return !!inst.precision_framework && state.workload.mode === 'train' && inst.precision === 'bf16_master'
    && MASTER_FRAMEWORKS.includes(state.parallel.framework) && inst.placement === 'sharded' && inst.activations === 'train';
}

/**
 * Switches the parallel framework. The models it trains that use the other side's bf16 default
 * get this framework's own: amp_bf16 → bf16_master for DeepSpeed / Megatron, and back for
 * PyTorch DDP / FSDP. A precision the person picked otherwise is left alone. Returns the
 * sentence that says so, or ''.
 */
export function switchFramework(state, fw) {
  const before = state.parallel.framework;
  state.parallel.framework = fw;
  const names = instanceNames(state);
  const whoOf = (changed) => (state.instances.length > 1 ? ` for ${changed.map((n) => `“${n}”`).join(', ')}` : '');
  const notes = [];
  const toMaster = MASTER_FRAMEWORKS.includes(fw);
  if (toMaster !== MASTER_FRAMEWORKS.includes(before)) {
    const map = toMaster ? { amp_bf16: 'bf16_master', amp_fp16: 'fp16_master' } : { bf16_master: 'amp_bf16', fp16_master: 'amp_fp16' };
    const changed = [];
    let half = 'bf16';
    state.instances.forEach((inst, i) => {
      if (trains(inst.role) && inst.finetune !== 'frozen' && map[inst.precision]) {
        inst.precision = map[inst.precision];
        if (/fp16/.test(inst.precision)) half = 'fp16';
        changed.push(names[i]);
      }
    });
    if (changed.length) {
      notes.push(toMaster
        ? `${FRAMEWORK_NAMES[fw]} trains ${half} weights with an fp32 master copy and fp32 Adam states inside its optimizer, not under torch.autocast: precision set to “${half} + fp32 master”${whoOf(changed)}.`
        : `${FRAMEWORK_NAMES[fw]} trains under torch.autocast (fp32 weights, ${half} matmuls): precision set to “${half} mixed”${whoOf(changed)}.`);
    }
  }
  // the core's FSDP default (plan_parallel_precision.c): fused AdamW, as HF Trainer and torchtitan run it
  if (fw === 'fsdp' && before !== 'fsdp') {
    const changed = [];
    state.instances.forEach((inst, i) => {
      if (trains(inst.role) && inst.finetune !== 'frozen' && /^(adamw|adam)\/foreach$/.test(inst.optimizer)) {
        inst.optimizer = inst.optimizer.replace('/foreach', '/fused');
        inst.optimizer_framework = true;
        changed.push(names[i]);
      }
    });
    if (changed.length) {
      notes.push(`FSDP jobs run through HF Trainer or torchtitan use fused AdamW: optimizer set to fused${whoOf(changed)} (foreach adds one fp32 shard at the step).`);
    }
  }
  return notes.join(' ');
}

// ---- v1 → v2 --------------------------------------------------------------------------------

/** A v1 setup (options.js DEFAULT_STATE_V1 shape, sanitized) as a v2 setup with one instance. */
export function migrateV1(v1) {
  const s = structuredClone(O.DEFAULT_STATE);
  const w = v1.workload;
  s.workload = {
    ...s.workload, mode: w.mode, batch: w.batch, seq: w.seq, grad_accum: w.grad_accum, prompt: w.prompt,
    new_tokens: w.new_tokens, kv_dtype: w.kv_dtype, image_size: w.image_size,
  };
  const inst = s.instances[0];
  inst.model.source = v1.model.source;
  inst.model.preset = v1.model.preset;
  inst.model.hf = v1.model.hf;
  Object.assign(inst.model.custom, structuredClone(v1.model.custom));
  inst.precision = w.precision;
  inst.infer_precision = w.infer_precision;
  inst.optimizer = w.optimizer;
  inst.finetune = w.finetune;
  inst.lora = { ...structuredClone(w.lora), dtype: 'fp32' }; // v1 had no adapter dtype: PEFT's fp32
  inst.grad_ckpt = w.grad_ckpt;
  inst.attn = w.attn;
  const h = v1.hardware;
  Object.assign(s.hardware, { source: h.source, gpu: h.gpu, count: h.count, probe: h.probe, device: h.device });
  return s;
}

// ---- plan file → setup -------------------------------------------------------------------------

const INSTANCE_KEYS = ['name', 'role', 'model', 'precision', 'quant', 'double_quant', 'finetune', 'optimizer',
  'grad_ckpt', 'attn', 'activations', 'passes', 'placement', 'shares_weights_with', 'logprobs_fp32',
  'autocast_cache', 'edited_layers', 'after_use', 'group_offload', 'autocast'];
const PARALLEL_KEYS = ['dp', 'tp', 'pp', 'vpp', 'ep', 'sp', 'microbatches', 'zero', 'framework', 'fsdp',
  'offload_optimizer', 'offload_params', 'activation_offload', 'distributed_optimizer', 'selective_recompute',
  'gradient_as_bucket_view', 'reduce_bucket_size', 'allgather_bucket_size', 'sub_group_size', 'grad_accum_dtype',
  'fsdp_version', 'fsdp_mixed_precision', 'torch_autocast'];
const MP_KEYS = ['param_dtype', 'reduce_dtype', 'output_dtype', 'buffer_dtype'];
const BOOL_PARALLEL = ['sp', 'offload_optimizer', 'offload_params', 'activation_offload', 'distributed_optimizer',
  'selective_recompute', 'gradient_as_bucket_view'];
const OPT_NAMES = ['adamw', 'adam', 'sgd', 'sgd_momentum', 'adafactor', 'lion', 'adamw_8bit', 'paged_adamw', 'paged_adamw_8bit'];
const values = (list) => list.map((o) => o.value);

/** workload.diffusion of a plan → the form's (options.js DEFAULT_STATE.workload.diffusion); bad fields listed. */
function diffusionFromPlan(d, invalid) {
  const out = structuredClone(O.DEFAULT_STATE.workload.diffusion);
  if (d === undefined || d === null) return out;
  if (!isObject(d)) {
    invalid.push('workload.diffusion');
    return out;
  }
  for (const [k, v] of Object.entries(d)) {
    const p = `workload.diffusion.${k}`;
    if (!Object.hasOwn(out, k)) invalid.push(p);
    else if (k === 'text_tokens') {
      if (Number.isInteger(v) && v > 0) out[k] = v; // the core checks the range
      else invalid.push(p);
    } else if (typeof out[k] === 'boolean') {
      if (typeof v === 'boolean') out[k] = v;
      else invalid.push(p);
    } else if (typeof v === 'string' && O.CHOICES[p].includes(v)) out[k] = v;
    else invalid.push(p);
  }
  return out;
}

/**
 * A vramplan/plan@1 document as the page's setup.
 * @param {object} plan  the parsed JSON
 * @param {(id: string) => string} [presetType]  a preset's model family (for LoRA target names)
 * @returns {{state: object, dropped: string[], invalid: string[]}}
 *   dropped: fields the form has no control for (left out; named so the person knows);
 *   invalid: fields whose value the form cannot hold (the core refuses most of them).
 * @throws {PlanFileError} when it is not a plan at all
 */
export function planToState(plan, presetType = () => '') {
  if (!isObject(plan)) throw new PlanFileError('A plan is a JSON object ({...}); this file holds something else.');
  if (plan.schema !== PLAN_SCHEMA) {
    throw new PlanFileError(typeof plan.schema === 'string'
      ? `This is a "${plan.schema.slice(0, 60)}" document, not a vramplan plan ("schema": "${PLAN_SCHEMA}").`
      : `This is not a vramplan plan: it has no "schema": "${PLAN_SCHEMA}".`);
  }
  if (!Array.isArray(plan.instances) || !plan.instances.length) {
    throw new PlanFileError('The plan has no "instances" (a list of 1 to 8 models).');
  }
  if (plan.instances.length > O.MAX_INSTANCES) {
    throw new PlanFileError(`The plan has ${plan.instances.length} instances; at most ${O.MAX_INSTANCES} are allowed.`);
  }
  const dropped = [];
  const invalid = [];
  const s = structuredClone(O.DEFAULT_STATE);
  const only = (obj, path, keys) => {
    for (const k of Object.keys(obj)) if (!keys.includes(k)) invalid.push(path ? `${path}.${k}` : k);
  };
  const obj = (v, path) => {
    if (v === undefined) return {};
    if (isObject(v)) return v;
    invalid.push(path);
    return {};
  };
  const str = (v, path, choices, fallback) => {
    if (v === undefined) return fallback;
    if (typeof v === 'string' && (!choices || choices.includes(v))) return v;
    invalid.push(path);
    return fallback;
  };
  const numb = (v, path, fallback) => {
    if (v === undefined) return fallback;
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    invalid.push(path);
    return fallback;
  };
  const bool = (v, path, fallback) => {
    if (v === undefined) return fallback;
    if (typeof v === 'boolean') return v;
    invalid.push(path);
    return fallback;
  };

  only(plan, '', ['schema', 'name', 'note', 'workload', 'instances', 'hardware', 'parallel', 'runtime']);
  s.name = str(plan.name, 'name', null, '');
  s.note = str(plan.note, 'note', null, '');

  // workload
  if (plan.workload === undefined) invalid.push('workload');
  const w = obj(plan.workload, 'workload');
  only(w, 'workload', ['mode', 'batch', 'seq', 'grad_accum', 'new_tokens', 'dec_seq', 'image_size', 'kv_dtype',
    'frames', 'height', 'width', 'diffusion', 'steps']);
  const mode = str(w.mode, 'workload.mode', ['train', 'infer'], 'train');
  const train = mode === 'train';
  s.workload.mode = mode;
  s.workload.batch = numb(w.batch, 'workload.batch', '');
  if (train) {
    s.workload.seq = numb(w.seq, 'workload.seq', '');
    s.workload.grad_accum = numb(w.grad_accum, 'workload.grad_accum', 1);
    if (w.new_tokens !== undefined && w.new_tokens !== 0) dropped.push('workload.new_tokens');
    if (w.kv_dtype !== undefined && w.kv_dtype !== 'bf16') dropped.push('workload.kv_dtype');
  } else {
    s.workload.prompt = numb(w.seq, 'workload.seq', '');
    s.workload.new_tokens = numb(w.new_tokens, 'workload.new_tokens', 0);
    s.workload.kv_dtype = str(w.kv_dtype, 'workload.kv_dtype', O.CHOICES['workload.kv_dtype'], 'bf16');
    if (w.grad_accum !== undefined && w.grad_accum !== 1) dropped.push('workload.grad_accum');
  }
  s.workload.image_size = numb(w.image_size, 'workload.image_size', '');
  // diffusion pipelines (docs/diffusion.md): the video size and the pipeline's options, carried as given
  s.workload.frames = numb(w.frames, 'workload.frames', '');
  s.workload.height = numb(w.height, 'workload.height', '');
  s.workload.width = numb(w.width, 'workload.width', '');
  s.workload.diffusion = diffusionFromPlan(w.diffusion, invalid);
  if (w.dec_seq !== undefined && w.dec_seq !== 128) dropped.push('workload.dec_seq');
  if (w.steps !== undefined && w.steps !== 3) dropped.push('workload.steps'); // the form shows the steady state

  // instances
  const coreNames = [];
  const shareNames = [];
  s.instances = plan.instances.map((x, i) => {
    const p = `instances[${i}]`;
    const inst = structuredClone(O.DEFAULT_INSTANCE);
    if (!isObject(x)) {
      invalid.push(p);
      coreNames.push('');
      shareNames.push(undefined);
      return inst;
    }
    only(x, p, INSTANCE_KEYS);
    inst.role = str(x.role, `${p}.role`, O.CHOICES['instance.role'], 'trained');
    const roleTrains = trains(inst.role);
    // the core names an unnamed instance after its role
    inst.name = str(x.name, `${p}.name`, null, '') || inst.role;
    coreNames.push(inst.name);
    shareNames.push(x.shares_weights_with);
    if (x.model !== undefined) inst.model = modelFromPlan(x.model, `${p}.model`, invalid);
    else if (x.shares_weights_with === undefined) invalid.push(`${p}.model`);
    const type = modelTypeOfModel(inst.model, presetType);

    const rd = O.ROLE_DEFAULTS[inst.role];
    if (train) {
      // null is "not given" to the core (a framework may then pick its own: see "parallel" below)
      inst.precision = str(x.precision ?? undefined, `${p}.precision`, O.CHOICES['instance.precision'], 'amp_bf16');
    } else {
      inst.precision = rd.precision;
      const prec = str(x.precision, `${p}.precision`, values(O.PRECISIONS), 'bf16');
      if (O.CHOICES['instance.infer_precision'].includes(prec)) inst.infer_precision = prec;
      else dropped.push(`${p}.precision`);
    }

    const f = obj(x.finetune, `${p}.finetune`);
    only(f, `${p}.finetune`, ['method', 'lora', 'adapter', 'freeze']);
    inst.finetune = str(f.method, `${p}.finetune.method`, O.CHOICES['instance.finetune'],
      roleTrains && train ? 'full' : 'frozen');
    if (!train && x.finetune !== undefined && inst.finetune !== 'frozen') dropped.push(`${p}.finetune`);
    const l = obj(f.lora, `${p}.finetune.lora`);
    only(l, `${p}.finetune.lora`, ['r', 'alpha', 'dropout', 'dtype', 'targets']);
    inst.lora.r = numb(l.r, `${p}.finetune.lora.r`, 16);
    // the core: alpha defaults to 2r
    inst.lora.alpha = numb(l.alpha, `${p}.finetune.lora.alpha`, typeof inst.lora.r === 'number' ? 2 * inst.lora.r : 32);
    inst.lora.dropout = numb(l.dropout, `${p}.finetune.lora.dropout`, 0.05);
    inst.lora.dtype = str(l.dtype, `${p}.finetune.lora.dtype`, O.CHOICES['instance.lora.dtype'], 'fp32');
    if (l.targets === undefined) inst.lora.targets = loraTargetsFor(type);
    else if (Array.isArray(l.targets) && l.targets.every((t) => typeof t === 'string')) inst.lora.targets = l.targets.slice(0, 64);
    else invalid.push(`${p}.finetune.lora.targets`);
    const ad = obj(f.adapter, `${p}.finetune.adapter`);
    only(ad, `${p}.finetune.adapter`, ['dim']);
    inst.adapter_dim = numb(ad.dim, `${p}.finetune.adapter.dim`, 64);
    if (f.freeze !== undefined && !(Array.isArray(f.freeze) && !f.freeze.length)) dropped.push(`${p}.finetune.freeze`);

    const quant = str(x.quant, `${p}.quant`, values(O.BASE_QUANT), 'none');
    const dq = bool(x.double_quant, `${p}.double_quant`, false);
    inst.lora.double_quant = dq;
    if (inst.finetune === 'qlora') {
      if (quant === 'nf4' || quant === 'fp4') inst.lora.quant = quant;
      else if (quant !== 'none') dropped.push(`${p}.quant`);
    } else if (inst.finetune === 'full' && train) {
      if (quant !== 'none') invalid.push(`${p}.quant`); // the core: quantized weights are frozen
    } else {
      inst.quant = quant;
    }

    const o = obj(x.optimizer, `${p}.optimizer`);
    only(o, `${p}.optimizer`, ['name', 'impl']);
    const oname = str(o.name, `${p}.optimizer.name`, OPT_NAMES, 'adamw');
    const impl = str(o.impl, `${p}.optimizer.impl`, ['foreach', 'fused', 'forloop'], 'foreach');
    if (oname === 'adamw' || oname === 'adam') inst.optimizer = `${oname}/${impl}`;
    else {
      inst.optimizer = oname;
      if (o.impl !== undefined && impl !== 'foreach') dropped.push(`${p}.optimizer.impl`);
    }

    if (typeof x.grad_ckpt === 'boolean') inst.grad_ckpt = x.grad_ckpt;
    else if (x.grad_ckpt !== undefined) {
      const g = obj(x.grad_ckpt, `${p}.grad_ckpt`);
      only(g, `${p}.grad_ckpt`, ['every']);
      const every = numb(g.every, `${p}.grad_ckpt.every`, 0);
      inst.grad_ckpt = every !== 0;
      inst.gc_every = every !== 0 ? every : 1;
    }
    inst.attn = str(x.attn, `${p}.attn`, O.CHOICES['instance.attn'], 'sdpa');
    const act = str(x.activations, `${p}.activations`, O.CHOICES['instance.activations'], coreActivations(inst.role, mode));
    if (train) inst.activations = act;
    else {
      inst.activations = rd.activations;
      if (act !== coreActivations(inst.role, mode)) dropped.push(`${p}.activations`);
    }
    inst.passes = numb(x.passes, `${p}.passes`, 1);
    inst.logprobs_fp32 = bool(x.logprobs_fp32, `${p}.logprobs_fp32`, false);
    if (!train && inst.logprobs_fp32) dropped.push(`${p}.logprobs_fp32`);
    inst.autocast_cache = bool(x.autocast_cache ?? undefined, `${p}.autocast_cache`, true);
    // inference keeps it where autocast runs (amp_* weights; diffusion pipelines in fp32 under autocast)
    if (!train && !inst.autocast_cache && !/^amp_/.test(inst.infer_precision)) dropped.push(`${p}.autocast_cache`);
    inst.after_use = str(x.after_use, `${p}.after_use`, O.CHOICES['instance.after_use'], 'stay');
    // diffusers group offloading (the core: diffusion inference only)
    const go = obj(x.group_offload, `${p}.group_offload`);
    only(go, `${p}.group_offload`, ['type', 'num_blocks_per_group', 'use_stream']);
    if (x.group_offload !== undefined && isObject(x.group_offload) && go.type === undefined) invalid.push(`${p}.group_offload.type`);
    inst.group_offload = str(go.type, `${p}.group_offload.type`, O.CHOICES['instance.group_offload'], 'none');
    inst.group_blocks = numb(go.num_blocks_per_group, `${p}.group_offload.num_blocks_per_group`, 1);
    inst.group_stream = bool(go.use_stream, `${p}.group_offload.use_stream`, false);
    if (train && inst.group_offload !== 'none') dropped.push(`${p}.group_offload`);
    inst.autocast16 = bool(x.autocast, `${p}.autocast`, false);
    if (!train && inst.autocast16) dropped.push(`${p}.autocast`);
    // the core: edited_layers belongs to functional_copy (0 elsewhere is accepted and means nothing)
    const edited = numb(x.edited_layers ?? undefined, `${p}.edited_layers`, '');
    if (inst.role === 'functional_copy') inst.edited_layers = edited;
    else if (edited !== '' && edited !== 0) invalid.push(`${p}.edited_layers`);

    const pl = obj(x.placement, `${p}.placement`);
    only(pl, `${p}.placement`, ['device', 'pinned', 'sharded', 'stream_to']);
    inst.pinned = bool(pl.pinned, `${p}.placement.pinned`, false);
    const sharded = bool(pl.sharded, `${p}.placement.sharded`, undefined);
    if (pl.device === 'cpu') {
      if (pl.stream_to !== undefined) {
        inst.placement = 'stream';
        inst.device = numb(pl.stream_to, `${p}.placement.stream_to`, 0);
      } else {
        inst.placement = 'cpu';
      }
      if (sharded) invalid.push(`${p}.placement.sharded`);
    } else if (pl.device !== undefined) {
      inst.placement = 'gpu';
      inst.device = numb(pl.device, `${p}.placement.device`, 0);
      if (pl.stream_to !== undefined) invalid.push(`${p}.placement.stream_to`);
      if (sharded) invalid.push(`${p}.placement.sharded`);
    } else {
      if (pl.stream_to !== undefined) invalid.push(`${p}.placement.stream_to`);
      inst.placement = sharded === false ? 'gpu' : 'sharded';
    }
    return inst;
  });

  // shares_weights_with: by name, as the core resolves it (the last other instance of that name)
  s.instances.forEach((inst, i) => {
    const want = shareNames[i];
    if (want === undefined) return;
    let found = -1;
    if (typeof want === 'string') coreNames.forEach((n, j) => { if (j !== i && n === want) found = j; });
    if (found < 0 || shareNames[found] !== undefined) {
      invalid.push(`instances[${i}].shares_weights_with`);
      return;
    }
    inst.shares = found;
    if (plan.instances[i].model === undefined) {
      inst.model = structuredClone(s.instances[found].model);
      if (plan.instances[i].finetune?.lora?.targets === undefined) inst.lora.targets = s.instances[found].lora.targets.slice();
    }
  });

  // hardware
  const h = obj(plan.hardware, 'hardware');
  only(h, 'hardware', ['gpu', 'probe', 'device', 'count', 'nodes', 'capacity_bytes', 'cpu_ram_bytes']);
  if (h.probe !== undefined) {
    s.hardware.source = 'probe';
    if (isObject(h.probe)) s.hardware.probe = JSON.stringify(h.probe, null, 2);
    else invalid.push('hardware.probe');
    s.hardware.device = numb(h.device, 'hardware.device', 0);
    if (h.count !== undefined) dropped.push('hardware.count');
    if (h.gpu !== undefined) dropped.push('hardware.gpu');
  } else {
    s.hardware.source = 'preset';
    s.hardware.gpu = str(h.gpu, 'hardware.gpu', null, 'h100-sxm-80gb');
    s.hardware.count = numb(h.count, 'hardware.count', 1);
    if (h.device !== undefined && h.device !== 0) dropped.push('hardware.device');
  }
  s.hardware.nodes = numb(h.nodes, 'hardware.nodes', 1);
  if (h.cpu_ram_bytes !== undefined && h.cpu_ram_bytes !== null) {
    const b = numb(h.cpu_ram_bytes, 'hardware.cpu_ram_bytes', '');
    s.hardware.cpu_ram_gib = b === '' ? '' : b / 2 ** 30; // exact: a power of two
  }
  if (h.capacity_bytes !== undefined && h.capacity_bytes !== null) dropped.push('hardware.capacity_bytes');

  // parallel
  const par = obj(plan.parallel, 'parallel');
  only(par, 'parallel', PARALLEL_KEYS);
  const sp = s.parallel;
  for (const k of ['dp', 'tp', 'pp', 'ep']) sp[k] = numb(par[k], `parallel.${k}`, 1);
  for (const k of ['vpp', 'microbatches', 'reduce_bucket_size', 'allgather_bucket_size']) {
    sp[k] = par[k] === null ? '' : numb(par[k], `parallel.${k}`, '');
  }
  for (const k of BOOL_PARALLEL) sp[k] = bool(par[k], `parallel.${k}`, false);
  sp.zero = numb(par.zero, 'parallel.zero', 0);
  // the core: "zero" without a framework means DeepSpeed, "fsdp" without one means FSDP
  const implied = sp.zero ? 'deepspeed' : par.fsdp !== undefined ? 'fsdp' : 'torch';
  sp.framework = str(par.framework, 'parallel.framework', O.CHOICES['parallel.framework'], implied);
  sp.fsdp = str(par.fsdp, 'parallel.fsdp', O.CHOICES['parallel.fsdp'], 'full_shard');
  if (sp.zero && sp.framework !== 'torch' && sp.framework !== 'deepspeed') invalid.push('parallel.zero');
  if (sp.framework !== 'fsdp' && sp.fsdp !== 'full_shard') dropped.push('parallel.fsdp');
  // precision fields of "parallel" (core/src/plan_parallel_precision.c); null is "not given"
  const fsdpOnly = (k) => { if (par[k] !== undefined && par[k] !== null && sp.framework !== 'fsdp') dropped.push(`parallel.${k}`); };
  sp.fsdp_version = numb(par.fsdp_version ?? undefined, 'parallel.fsdp_version', 2);
  if (sp.fsdp_version !== 1 && sp.fsdp_version !== 2) {
    invalid.push('parallel.fsdp_version');
    sp.fsdp_version = 2;
  }
  fsdpOnly('fsdp_version');
  const mp = obj(par.fsdp_mixed_precision ?? undefined, 'parallel.fsdp_mixed_precision');
  only(mp, 'parallel.fsdp_mixed_precision', MP_KEYS);
  for (const k of MP_KEYS) {
    sp[`fsdp_${k}`] = str(mp[k] ?? undefined, `parallel.fsdp_mixed_precision.${k}`,
      O.CHOICES[`parallel.fsdp_${k}`], '');
  }
  fsdpOnly('fsdp_mixed_precision');
  const zeroOnly = (k) => {
    if (par[k] !== undefined && par[k] !== null && sp.framework !== 'torch' && sp.framework !== 'deepspeed') dropped.push(`parallel.${k}`);
  };
  sp.sub_group_size = numb(par.sub_group_size ?? undefined, 'parallel.sub_group_size', '');
  zeroOnly('sub_group_size');
  sp.grad_accum_dtype = str(par.grad_accum_dtype ?? undefined, 'parallel.grad_accum_dtype', O.CHOICES['parallel.grad_accum_dtype'], '');
  zeroOnly('grad_accum_dtype');
  sp.torch_autocast = bool(par.torch_autocast ?? undefined, 'parallel.torch_autocast', false);
  if (sp.torch_autocast && sp.framework !== 'deepspeed') invalid.push('parallel.torch_autocast');

  // the core (plan_parallel_precision.c vp_plan_framework_precision): under DeepSpeed or Megatron a
  // sharded, trained instance that gives no "precision", or amp_bf16 (what accelerate runs there),
  // trains in the framework's own bf16 mode
  if (train && MASTER_FRAMEWORKS.includes(sp.framework) && !sp.torch_autocast) {
    s.instances.forEach((inst, i) => {
      const x = plan.instances[i];
      const given = isObject(x) && x.precision !== undefined && x.precision !== null;
      if (!isObject(x) || (given && x.precision !== 'amp_bf16' && x.precision !== 'amp_fp16')) return;
      if (inst.placement !== 'sharded' || inst.activations !== 'train') return;
      inst.precision = given && x.precision === 'amp_fp16' ? 'fp16_master' : 'bf16_master';
      inst.precision_framework = !given;
    });
  }
  // ... and under FSDP, AdamW without an "impl" is fused (HF Trainer, torchtitan)
  if (train && sp.framework === 'fsdp') {
    s.instances.forEach((inst, i) => {
      const x = plan.instances[i];
      if (!isObject(x) || (isObject(x.optimizer) && x.optimizer.impl !== undefined && x.optimizer.impl !== null)) return;
      if (inst.placement !== 'sharded' || inst.activations !== 'train') return;
      if (/^(adamw|adam)\/foreach$/.test(inst.optimizer)) {
        inst.optimizer = inst.optimizer.replace('/foreach', '/fused');
        inst.optimizer_framework = true;
      }
    });
  }

  // runtime
  const rt = obj(plan.runtime, 'runtime');
  only(rt, 'runtime', ['pytorch_cuda_alloc_conf']);
  s.runtime.pytorch_cuda_alloc_conf = str(rt.pytorch_cuda_alloc_conf, 'runtime.pytorch_cuda_alloc_conf', null, '');

  return { state: normalizeState(s), dropped, invalid };
}

function modelFromPlan(m, p, invalid) {
  const out = structuredClone(O.DEFAULT_INSTANCE.model);
  if (!isObject(m)) {
    invalid.push(p);
    return out;
  }
  const keys = Object.keys(m);
  if (keys.length !== 1 || !['preset', 'hf_config', 'custom'].includes(keys[0])) {
    invalid.push(p);
    return out;
  }
  if (keys[0] === 'preset') {
    if (typeof m.preset === 'string') out.preset = m.preset;
    else invalid.push(`${p}.preset`);
    out.source = 'preset';
  } else if (keys[0] === 'hf_config') {
    if (isObject(m.hf_config)) out.hf = JSON.stringify(m.hf_config, null, 2);
    else invalid.push(`${p}.hf_config`);
    out.source = 'hf';
  } else {
    out.source = 'custom';
    const c = isObject(m.custom) ? m.custom : (invalid.push(`${p}.custom`), {});
    const cp = `${p}.custom`;
    for (const k of Object.keys(c)) if (!Object.hasOwn(out.custom, k)) invalid.push(`${cp}.${k}`);
    for (const f of O.CUSTOM_FIELDS) {
      const v = c[f.key];
      if (v === undefined) out.custom[f.key] = '';
      else if (typeof v === 'number') out.custom[f.key] = v;
      else invalid.push(`${cp}.${f.key}`);
    }
    if (c.name !== undefined) {
      if (typeof c.name === 'string') out.custom.name = c.name;
      else invalid.push(`${cp}.name`);
    }
    for (const [k, list] of [['mlp', O.CHOICES['instance.model.custom.mlp']], ['norm', O.CHOICES['instance.model.custom.norm']]]) {
      if (c[k] === undefined) out.custom[k] = list[0];
      else if (list.includes(c[k])) out.custom[k] = c[k];
      else invalid.push(`${cp}.${k}`);
    }
    for (const k of ['tie_embeddings', 'attn_bias', 'mlp_bias']) {
      if (c[k] === undefined) out.custom[k] = false;
      else if (typeof c[k] === 'boolean') out.custom[k] = c[k];
      else invalid.push(`${cp}.${k}`);
    }
  }
  return out;
}

// ---- suggestions → form changes --------------------------------------------------------------

const int = (v, fallback) => {
  if (v === '' || v === null || v === undefined) return fallback;
  const n = Number(v);
  return Number.isFinite(n) ? n : fallback;
};
// Same conditions as core/src/planning.h vp_inst_trained() and vp_inst_keeps_graph().
const isTrained = (s, inst) => s.workload.mode === 'train'
  && (inst.activations === 'train' || (inst.activations === 'keep_graph' && inst.finetune !== 'frozen'));
const keepsGraph = (s, inst) => s.workload.mode === 'train'
  && (inst.activations === 'train' || inst.activations === 'keep_graph');
const isAdam = (opt) => /^(adamw|adam)(\/|$)/.test(opt);
const frozenOnGpu = (s, inst, i) => effectiveActivations(inst, s.workload.mode) === 'no_grad'
  && (inst.placement === 'sharded' || inst.placement === 'gpu') && sharesTarget(s, i) < 0;

// Each: (setup, ctx) → whether it changed anything. Same conditions as core/src/plan_suggest.c.
const REMEDIES = {
  grad_ckpt(s) {
    let any = false;
    for (const inst of s.instances) {
      if (keepsGraph(s, inst) && !(inst.grad_ckpt && int(inst.gc_every, 1) === 1)) {
        inst.grad_ckpt = true;
        inst.gc_every = 1;
        any = true;
      }
    }
    return any;
  },
  halve_batch(s) {
    const b = int(s.workload.batch, 0);
    if (!(b >= 2)) return false;
    s.workload.batch = Math.floor(b / 2);
    s.workload.grad_accum = int(s.workload.grad_accum, 1) * 2;
    return true;
  },
  micro_batch_1(s) {
    const b = int(s.workload.batch, 0);
    if (!(b >= 4)) return false;
    s.workload.grad_accum = int(s.workload.grad_accum, 1) * b;
    s.workload.batch = 1;
    return true;
  },
  adamw_8bit(s) {
    let any = false;
    for (const inst of s.instances) {
      if (isTrained(s, inst) && isAdam(inst.optimizer)) {
        inst.optimizer = 'adamw_8bit';
        any = true;
      }
    }
    return any;
  },
  adamw_fused(s) {
    let any = false;
    for (const inst of s.instances) {
      if (isTrained(s, inst) && /^(adamw|adam)\/foreach$/.test(inst.optimizer)) {
        inst.optimizer = inst.optimizer.replace('/foreach', '/fused');
        any = true;
      }
    }
    return any;
  },
  lora(s, ctx) {
    let any = false;
    s.instances.forEach((inst, i) => {
      const type = modelTypeOfModel(s.instances[ownModelIndex(s, i)].model, ctx.presetType);
      if (isTrained(s, inst) && inst.finetune === 'full' && !O.NON_DECODER_TYPES.includes(type)) {
        inst.finetune = 'lora';
        inst.lora.r = 16;
        inst.lora.alpha = 32;
        inst.lora.targets = loraTargetsFor(type);
        inst.lora.dtype = 'fp32'; // the full fine-tune's plan has no adapters: the core's default dtype
        if (['amp_bf16', 'amp_fp16', 'fp32'].includes(inst.precision)) inst.precision = 'bf16';
        any = true;
      }
    });
    return any;
  },
  qlora(s) {
    let any = false;
    for (const inst of s.instances) {
      if (isTrained(s, inst) && inst.finetune === 'lora' && inst.quant === 'none') {
        inst.finetune = 'qlora';
        inst.lora.quant = 'nf4';
        inst.lora.double_quant = true;
        any = true;
      }
    }
    return any;
  },
  pure_bf16(s) {
    let any = false;
    for (const inst of s.instances) {
      if (isTrained(s, inst) && inst.finetune === 'full' && ['amp_bf16', 'amp_fp16', 'fp32'].includes(inst.precision)) {
        inst.precision = 'bf16';
        any = true;
      }
    }
    return any;
  },
  frozen_to_cpu(s) {
    let any = false;
    s.instances.forEach((inst, i) => {
      if (frozenOnGpu(s, inst, i)) {
        inst.device = inst.placement === 'gpu' ? inst.device : 0;
        inst.placement = 'stream';
        inst.pinned = true;
        any = true;
      }
    });
    return any;
  },
  frozen_to_gpu1(s, ctx) {
    if (!(ctx.gpuCount >= 2)) return false;
    let any = false;
    s.instances.forEach((inst, i) => {
      if (frozenOnGpu(s, inst, i)) {
        inst.placement = 'gpu';
        inst.device = 1;
        any = true;
      }
    });
    return any;
  },
  precompute_reference(s) {
    const drop = s.instances.map((inst) => inst.role === 'reference' && effectiveActivations(inst, s.workload.mode) === 'no_grad');
    if (!drop.some(Boolean) || drop.every(Boolean)) return false;
    for (let i = s.instances.length - 1; i >= 0; i--) if (drop[i]) removeInstance(s, i);
    return true;
  },
  vae_tiling(s) {
    // which plans have a VAE wider than one tile is the core's call (plan_suggest.c); the page sets the option
    if (s.workload.diffusion?.vae_tiling) return false;
    s.workload.diffusion = { ...s.workload.diffusion, vae_tiling: true };
    return true;
  },
  precompute_embeddings(s) {
    if (s.workload.mode !== 'train' || s.workload.diffusion?.precompute) return false;
    s.workload.diffusion = { ...s.workload.diffusion, precompute: true };
    return true;
  },
  model_offload(s) {
    if (s.workload.mode !== 'infer' || (s.workload.diffusion?.offload ?? 'none') !== 'none') return false;
    s.workload.diffusion = { ...s.workload.diffusion, offload: 'model' };
    return true;
  },
  sequential_offload(s) {
    if (s.workload.mode !== 'infer' || s.workload.diffusion?.offload === 'sequential') return false;
    s.workload.diffusion = { ...s.workload.diffusion, offload: 'sequential' };
    return true;
  },
  group_offload(s, ctx) {
    // diffusers group offloading, leaf_level with streams, of a pipeline's transformer and text encoders (r_group_offload)
    if (s.workload.mode !== 'infer' || (s.workload.diffusion?.offload ?? 'none') !== 'none') return false;
    let any = false;
    s.instances.forEach((inst, i) => {
      if (sharesTarget(s, i) >= 0 || !diffusionPart(inst.model, ctx.presetType) || (inst.group_offload ?? 'none') !== 'none'
        || (inst.after_use ?? 'stay') !== 'stay') return;
      inst.group_offload = 'leaf_level';
      inst.group_stream = true;
      any = true;
    });
    return any;
  },
  fp8_storage(s, ctx) {
    // a 16-bit DiT that is frozen or the base of a LoRA stores its Linears in float8 (r_fp8_storage)
    let any = false;
    s.instances.forEach((inst, i) => {
      const infer = s.workload.mode === 'infer';
      const prec = infer ? inst.infer_precision : inst.precision;
      if (sharesTarget(s, i) >= 0 || diffusionPart(inst.model, ctx.presetType) !== 'dit' || (inst.quant ?? 'none') !== 'none') return;
      if (!['bf16', 'fp16'].includes(prec) || (isTrained(s, inst) && inst.finetune !== 'lora')) return;
      inst.quant = 'fp8';
      any = true;
    });
    return any;
  },
  shard_fsdp(s, ctx) {
    const p = s.parallel;
    if (!(ctx.gpuCount >= 2) || int(p.dp, 1) * int(p.tp, 1) * int(p.pp, 1) > 1) return false;
    p.dp = ctx.gpuCount;
    p.framework = 'fsdp';
    p.fsdp = 'full_shard';
    return true;
  },
  offload_optimizer(s) {
    const p = s.parallel;
    if (p.offload_optimizer || !s.instances.some((inst) => isTrained(s, inst) && inst.placement === 'sharded')) return false;
    p.offload_optimizer = true;
    if (p.framework === 'torch') p.framework = 'deepspeed';
    if (p.framework === 'deepspeed' && int(p.zero, 0) < 2) p.zero = 2;
    return true;
  },
  expandable_segments(s) {
    const conf = String(s.runtime.pytorch_cuda_alloc_conf ?? '').trim();
    if (/expandable_segments\s*:\s*true/i.test(conf) || /backend\s*:\s*cudaMallocAsync/i.test(conf)) return false;
    s.runtime.pytorch_cuda_alloc_conf = /expandable_segments\s*:/i.test(conf)
      ? conf.replace(/expandable_segments\s*:\s*\w+/i, 'expandable_segments:True')
      : conf ? `${conf},expandable_segments:True` : 'expandable_segments:True';
    return true;
  },
  halve_seq(s) {
    const q = int(s.workload.seq, 0);
    if (s.workload.mode !== 'train' || q < 256) return false;
    s.workload.seq = Math.floor(q / 2);
    return true;
  },
};

export const SUGGESTION_IDS = Object.freeze(Object.keys(REMEDIES));

/** The ids a suggestion stands for ("combined" lists several in "ids"). */
export function suggestionIds(sugg) {
  if (!sugg || typeof sugg.id !== 'string') return [];
  if (sugg.id !== 'combined') return [sugg.id];
  return Array.isArray(sugg.ids) ? sugg.ids.filter((x) => typeof x === 'string') : [];
}

/** Can the page turn this suggestion into form changes? */
export function canApply(sugg) {
  const ids = suggestionIds(sugg);
  return ids.length > 0 && ids.every((id) => Object.hasOwn(REMEDIES, id));
}

/**
 * The setup with a suggestion applied (the setup given is not changed).
 * @param {{presetType?: (id: string) => string, gpuCount?: number}} ctx
 * @returns {{state: object, applied: string[], skipped: string[]}}
 */
export function applySuggestion(state, sugg, ctx = {}) {
  const s = structuredClone(state);
  const c = { presetType: ctx.presetType || (() => ''), gpuCount: ctx.gpuCount ?? int(s.hardware.count, 1) };
  const applied = [];
  const skipped = [];
  for (const id of suggestionIds(sugg)) {
    const fn = Object.hasOwn(REMEDIES, id) ? REMEDIES[id] : null;
    (fn && fn(s, c) ? applied : skipped).push(id);
  }
  return { state: normalizeState(s), applied, skipped };
}
