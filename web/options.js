// options.js: the page's choices, labels and defaults as data (no logic, no formulas).
//
// Every value here is a plan field value from docs/schema/plan.md; the labels are what a
// person reads. Defaults follow what common training scripts do (HF Trainer + PEFT):
// AdamW foreach, bf16 mixed precision with fp32 master weights, SDPA attention,
// LoRA r=16 alpha=32 dropout 0.05.

export const MODES = [
  { value: 'train', label: 'Train' },
  { value: 'infer', label: 'Inference' },
];

export const PRECISIONS = [
  { value: 'amp_bf16', label: 'bf16 mixed (fp32 master)', modes: ['train'] },
  { value: 'bf16', label: 'bf16', modes: ['train', 'infer'] },
  { value: 'fp16', label: 'fp16', modes: ['train', 'infer'] },
  { value: 'amp_fp16', label: 'fp16 mixed (fp32 master)', modes: ['train'] },
  { value: 'fp32', label: 'fp32', modes: ['train', 'infer'] },
];

// value is "name" or "name/impl"; plan.js splits it into {name, impl}.
export const OPTIMIZERS = [
  { value: 'adamw/foreach', label: 'AdamW (foreach, PyTorch default)' },
  { value: 'adamw/fused', label: 'AdamW (fused)' },
  { value: 'adamw/forloop', label: 'AdamW (for-loop)' },
  { value: 'sgd', label: 'SGD' },
  { value: 'sgd_momentum', label: 'SGD with momentum' },
  { value: 'adafactor', label: 'Adafactor' },
  { value: 'lion', label: 'Lion' },
  { value: 'adamw_8bit', label: '8-bit AdamW (bitsandbytes)' },
  { value: 'paged_adamw', label: 'Paged AdamW' },
  { value: 'paged_adamw_8bit', label: 'Paged 8-bit AdamW' },
];

export const FINETUNE = [
  { value: 'full', label: 'Full' },
  { value: 'lora', label: 'LoRA' },
  { value: 'qlora', label: 'QLoRA (4-bit base)' },
];

export const QUANT_4BIT = [
  { value: 'nf4', label: 'NF4' },
  { value: 'fp4', label: 'FP4' },
];

export const ATTN = [
  { value: 'sdpa', label: 'SDPA (PyTorch default)' },
  { value: 'flash', label: 'FlashAttention 2' },
  { value: 'eager', label: 'Eager (materialised scores)' },
];

// LoRA target module names per model family (what PEFT's target_modules takes).
export const LORA_TARGETS = {
  default: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
  gpt2: ['c_attn', 'c_proj', 'c_fc'],
  t5: ['q', 'k', 'v', 'o', 'wi', 'wo'],
  vit: ['qkv', 'proj', 'fc1', 'fc2'],
  phi3: ['qkv_proj', 'o_proj', 'gate_up_proj', 'down_proj'],
  cogvideox: ['to_q', 'to_k', 'to_v', 'to_out.0'],
};

export const CUSTOM_FIELDS = [
  { key: 'hidden_size', label: 'Hidden size', min: 1 },
  { key: 'num_layers', label: 'Layers', min: 1 },
  { key: 'num_heads', label: 'Attention heads', min: 1 },
  { key: 'num_kv_heads', label: 'KV heads', min: 1 },
  { key: 'head_dim', label: 'Head dim', min: 1 },
  { key: 'intermediate_size', label: 'MLP size', min: 1 },
  { key: 'vocab_size', label: 'Vocabulary', min: 1 },
];

export const CUSTOM_MLP = [
  { value: 'swiglu', label: 'SwiGLU' },
  { value: 'geglu', label: 'GeGLU' },
  { value: 'gelu', label: 'GELU' },
  { value: 'relu', label: 'ReLU' },
];

export const CUSTOM_NORM = [
  { value: 'rmsnorm', label: 'RMSNorm' },
  { value: 'layernorm', label: 'LayerNorm' },
];

function deepFreeze(o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}

// The page's whole setup. share.js stores exactly this shape (versioned), so a field added
// here must get a default here; old links then read it as the default.
export const DEFAULT_STATE = deepFreeze({
  model: {
    source: 'preset',          // preset | hf | custom
    preset: '',                // filled with the first preset once presets load
    hf: '',                    // the pasted config.json text
    custom: {
      hidden_size: 2048, num_layers: 16, num_heads: 32, num_kv_heads: 8, head_dim: 64,
      intermediate_size: 8192, vocab_size: 128256, mlp: 'swiglu', norm: 'rmsnorm',
      tie_embeddings: true,
    },
  },
  workload: {
    mode: 'train',
    precision: 'amp_bf16',
    infer_precision: 'bf16',
    optimizer: 'adamw/foreach',
    finetune: 'full',
    lora: {
      r: 16, alpha: 32, dropout: 0.05, targets: LORA_TARGETS.default.slice(),
      quant: 'nf4', double_quant: true,
    },
    grad_ckpt: false,
    attn: 'sdpa',
    batch: 4,
    seq: 1024,
    grad_accum: 1,
    prompt: 1024,
    new_tokens: 256,
    kv_dtype: 'bf16',
    image_size: 224,
  },
  hardware: {
    source: 'preset',          // preset | probe
    gpu: '',                   // filled with a default GPU once presets load
    count: 1,
    probe: '',                 // the probe JSON text
    device: 0,
  },
});

// KV-cache dtype (workload.kv_dtype; the core's default is bf16).
export const KV_DTYPES = [
  { value: 'bf16', label: 'bf16' },
  { value: 'fp16', label: 'fp16' },
  { value: 'fp8', label: 'fp8' },
  { value: 'int8', label: 'int8' },
  { value: 'fp32', label: 'fp32' },
];

// The allowed values of each enumerated setup field (share links are checked against them).
export const CHOICES = {
  'model.source': ['preset', 'hf', 'custom'],
  'model.custom.mlp': CUSTOM_MLP.map((o) => o.value),
  'model.custom.norm': CUSTOM_NORM.map((o) => o.value),
  'workload.mode': MODES.map((o) => o.value),
  'workload.precision': PRECISIONS.filter((o) => o.modes.includes('train')).map((o) => o.value),
  'workload.infer_precision': PRECISIONS.filter((o) => o.modes.includes('infer')).map((o) => o.value),
  'workload.optimizer': OPTIMIZERS.map((o) => o.value),
  'workload.finetune': FINETUNE.map((o) => o.value),
  'workload.lora.quant': QUANT_4BIT.map((o) => o.value),
  'workload.attn': ATTN.map((o) => o.value),
  'workload.kv_dtype': KV_DTYPES.map((o) => o.value),
  'hardware.source': ['preset', 'probe'],
};

export const PREFERRED_DEFAULTS = {
  preset: ['llama-3.2-1b', 'llama-3.1-8b', 'qwen2.5-1.5b'],
  gpu: ['h100-sxm-80gb', 'h100-80gb', 'a100-80gb'],
};

// Human names for phases (the estimate's phases[].name).
export const PHASE_LABELS = {
  load: 'Load',
  forward: 'Forward',
  backward: 'Backward',
  optimizer_step: 'Optimizer step',
  prefill: 'Prefill',
  decode: 'Decode',
};

// Where a core error path points in the form: the first matching prefix wins.
// Values are element ids in index.html.
export const ERROR_FIELDS = [
  ['instances[0].model.hf_config', 'hf-config'],
  ['instances[0].model.custom.', 'custom-'],      // + the field name
  ['instances[0].model.preset', 'preset-search'],
  ['instances[0].model', 'model-fieldset'],
  ['instances[0].finetune.lora.r', 'lora-r'],
  ['instances[0].finetune.lora.alpha', 'lora-alpha'],
  ['instances[0].finetune.lora.dropout', 'lora-dropout'],
  ['instances[0].finetune.lora.targets', 'lora-targets'],
  ['instances[0].finetune', 'finetune'],
  ['instances[0].precision', 'precision'],
  ['instances[0].quant', 'finetune'],
  ['instances[0].optimizer', 'optimizer'],
  ['instances[0].grad_ckpt', 'grad-ckpt'],
  ['instances[0].attn', 'attn'],
  ['instances[0].kv_dtype', 'kv-dtype'],
  ['workload.batch', 'batch'],
  ['workload.seq', 'seq'],
  ['workload.grad_accum', 'grad-accum'],
  ['workload.new_tokens', 'new-tokens'],
  ['workload.image_size', 'image-size'],
  ['workload.kv_dtype', 'kv-dtype'],
  ['hardware.probe', 'probe-text'],
  ['hardware.device', 'probe-device'],
  ['hardware.gpu', 'gpu'],
  ['hardware.count', 'gpu-count'],
  ['hardware', 'hardware-fieldset'],
];
