// plan.js: the page's setup (options.js DEFAULT_STATE shape) → a vramplan/plan@1 object.
//
// A pure mapping of fields; it computes no memory. Text the user pasted (a config.json,
// a probe file) is parsed here so a JSON syntax error can be shown next to its field;
// everything else (ranges, unknown model types, a probe from something else) is the
// core's job, and its error "path" says which field to blame.

export const PLAN_SCHEMA = 'vramplan/plan@1';
export const PROBE_SCHEMA = 'vramplan/gpu-probe@1';

/** Thrown for input the page itself cannot turn into a plan (bad JSON text). */
export class InputError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field; // element id in index.html
  }
}

/** JSON.parse that names the field and says where the syntax broke. */
export function parseJsonField(text, field, what) {
  if (!text || !text.trim()) throw new InputError(field, `Paste or upload ${what}.`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(field, `${what} is not valid JSON: ${e.message}`);
  }
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A display name for a pasted config (never trusted: the view renders it as text). */
export function hfConfigName(cfg) {
  if (!isObject(cfg)) return '';
  for (const k of ['_name_or_path', 'name_or_path', 'name', 'model_name']) {
    if (typeof cfg[k] === 'string' && cfg[k].trim()) return cfg[k].trim();
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

/** Numbers from inputs: '' stays null so the core reports the field as missing. */
function num(v) {
  if (v === '' || v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

function modelOf(state) {
  const m = state.model;
  if (m.source === 'hf') {
    const cfg = parseJsonField(m.hf, 'hf-config', 'The config.json');
    if (!isObject(cfg)) throw new InputError('hf-config', 'The config.json must be a JSON object ({...}).');
    return { model: { hf_config: cfg }, name: hfConfigName(cfg) };
  }
  if (m.source === 'custom') {
    const c = m.custom;
    return {
      model: {
        custom: {
          hidden_size: num(c.hidden_size), num_layers: num(c.num_layers),
          num_heads: num(c.num_heads), num_kv_heads: num(c.num_kv_heads),
          head_dim: num(c.head_dim), intermediate_size: num(c.intermediate_size),
          vocab_size: num(c.vocab_size), mlp: c.mlp, norm: c.norm,
          tie_embeddings: !!c.tie_embeddings,
        },
      },
      name: 'custom',
    };
  }
  if (!m.preset) throw new InputError('preset-search', 'Pick a model.');
  return { model: { preset: m.preset }, name: m.preset };
}

function hardwareOf(state) {
  const h = state.hardware;
  if (h.source === 'probe') {
    const probe = parseJsonField(h.probe, 'probe-text', 'The probe file');
    if (!isObject(probe)) throw new InputError('probe-text', 'The probe file must be a JSON object ({...}).');
    return { probe, device: num(h.device) ?? 0 };
  }
  if (!h.gpu) throw new InputError('gpu', 'Pick a GPU.');
  return { gpu: h.gpu, count: num(h.count) };
}

/**
 * The plan for a setup.
 * @param {object} state  the DEFAULT_STATE shape
 * @param {{modelType?: string}} [info]  what the page knows of the chosen model
 * @returns {object} a vramplan/plan@1 document
 * @throws {InputError} when pasted text is not JSON
 */
export function buildPlan(state, info = {}) {
  const w = state.workload;
  const { model, name } = modelOf(state);
  const train = w.mode === 'train';

  const inst = { name: shortName(name || 'model') || 'model', model };
  if (train) {
    inst.precision = w.precision;
    const [optName, impl] = String(w.optimizer).split('/');
    inst.optimizer = impl ? { name: optName, impl } : { name: optName };
    if (w.finetune === 'full') {
      inst.finetune = { method: 'full' };
    } else {
      inst.finetune = {
        method: w.finetune,
        lora: {
          r: num(w.lora.r), alpha: num(w.lora.alpha), dropout: num(w.lora.dropout),
          targets: w.lora.targets.slice(),
        },
      };
      if (w.finetune === 'qlora') {
        inst.quant = w.lora.quant;
        inst.double_quant = !!w.lora.double_quant;
      }
    }
    inst.grad_ckpt = { every: w.grad_ckpt ? 1 : 0 };
  } else {
    inst.precision = w.infer_precision;
  }
  inst.attn = w.attn;

  const workload = { mode: w.mode, batch: num(w.batch) };
  if (train) {
    workload.seq = num(w.seq);
    workload.grad_accum = num(w.grad_accum);
  } else {
    workload.seq = num(w.prompt);
    workload.new_tokens = num(w.new_tokens);
    workload.kv_dtype = w.kv_dtype;
  }
  if (info.modelType === 'vit') workload.image_size = num(w.image_size);

  return {
    schema: PLAN_SCHEMA,
    workload,
    instances: [inst],
    hardware: hardwareOf(state),
  };
}
