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
  { value: 'amp_bf16', label: 'bf16 mixed (fp32 master)', modes: ['train', 'infer'] },
  { value: 'bf16', label: 'bf16', modes: ['train', 'infer'] },
  { value: 'bf16_master', label: 'bf16 + fp32 master in the optimizer (DeepSpeed, Megatron)', modes: ['train'] },
  { value: 'fp16_master', label: 'fp16 + fp32 master in the optimizer (DeepSpeed, Megatron)', modes: ['train'] },
  { value: 'fp16', label: 'fp16', modes: ['train', 'infer'] },
  { value: 'amp_fp16', label: 'fp16 mixed (fp32 master)', modes: ['train', 'infer'] },
  { value: 'fp8', label: 'fp8 (Transformer Engine)', modes: ['train'] },
  { value: 'fp32', label: 'fp32', modes: ['train', 'infer'] },
];

// value is "name" or "name/impl"; plan.js splits it into {name, impl}.
export const OPTIMIZERS = [
  { value: 'adamw/foreach', label: 'AdamW (foreach, PyTorch default)' },
  { value: 'adamw/fused', label: 'AdamW (fused)' },
  { value: 'adamw/forloop', label: 'AdamW (for-loop)' },
  { value: 'adam/foreach', label: 'Adam (foreach)' },
  { value: 'adam/fused', label: 'Adam (fused)' },
  { value: 'adam/forloop', label: 'Adam (for-loop)' },
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
  { value: 'adapter', label: 'Adapters' },
  { value: 'frozen', label: 'Frozen' },
];

// Frozen base weights of a LoRA / adapter / frozen instance (plan "quant").
export const BASE_QUANT = [
  { value: 'none', label: 'Not quantized' },
  { value: 'int8', label: 'int8 (bitsandbytes)' },
  { value: 'nf4', label: 'NF4 (4-bit)' },
  { value: 'fp4', label: 'FP4 (4-bit)' },
  { value: 'fp8', label: 'fp8 storage (layerwise casting: one module upcast at a time)' },
];

// Model instances (plan "instances[].role"). The label says what it is for.
export const ROLES = [
  { value: 'trained', label: 'Trained (policy, student)' },
  { value: 'reference', label: 'Reference (frozen copy, DPO / PPO)' },
  { value: 'teacher', label: 'Teacher (distillation)' },
  { value: 'ema', label: 'EMA copy' },
  { value: 'reward', label: 'Reward model' },
  { value: 'critic', label: 'Critic / value model (PPO)' },
  { value: 'editor', label: 'Editor network (MEND)' },
  { value: 'functional_copy', label: 'Functional copy (graph kept)' },
  { value: 'custom', label: 'Custom' },
];

// Roles the core trains (docs/schema/plan.md: finetune defaults to full for these, frozen otherwise).
export const TRAINING_ROLES = ['trained', 'critic', 'editor', 'custom'];

// What the page fills in when a role is picked (the person can change each one).
const TRAINS = { finetune: 'full', activations: 'train', precision: 'amp_bf16', logprobs_fp32: false };
export const ROLE_DEFAULTS = {
  trained: TRAINS,
  critic: TRAINS,
  editor: TRAINS,
  custom: TRAINS,
  reference: { finetune: 'frozen', activations: 'no_grad', precision: 'bf16', logprobs_fp32: true },
  teacher: { finetune: 'frozen', activations: 'no_grad', precision: 'bf16', logprobs_fp32: true },
  reward: { finetune: 'frozen', activations: 'no_grad', precision: 'bf16', logprobs_fp32: false },
  ema: { finetune: 'frozen', activations: 'none', precision: 'fp32', logprobs_fp32: false },
  functional_copy: { finetune: 'frozen', activations: 'keep_graph', precision: 'bf16', logprobs_fp32: false },
};

export const ACTIVATIONS = [
  { value: 'train', label: 'Training (saved for backward)' },
  { value: 'no_grad', label: 'Forward only (no_grad)' },
  { value: 'keep_graph', label: 'Graph kept across passes' },
  { value: 'none', label: 'None (weights only, e.g. EMA)' },
];

export const PLACEMENTS = [
  { value: 'sharded', label: 'Sharded over the job (default)' },
  { value: 'gpu', label: 'One GPU, whole' },
  { value: 'cpu', label: 'CPU RAM' },
  { value: 'stream', label: 'CPU RAM, streamed through a GPU' },
];

export const FRAMEWORKS = [
  { value: 'torch', label: 'PyTorch (DDP)' },
  { value: 'deepspeed', label: 'DeepSpeed' },
  { value: 'fsdp', label: 'PyTorch FSDP' },
  { value: 'megatron', label: 'Megatron-LM' },
];

// stage 1 shards the optimizer state, 2 also the gradients, 3 also the parameters
export const ZERO_STAGES = [
  { value: '0', label: 'off' },
  { value: '1', label: '1' },
  { value: '2', label: '2' },
  { value: '3', label: '3' },
];

export const FSDP_VERSIONS = [
  { value: '2', label: 'FSDP2 (fully_shard)' },
  { value: '1', label: 'FSDP1 (FullyShardedDataParallel)' },
];

// dtypes of FSDP's mixed-precision policy and DeepSpeed's grad_accum_dtype; '' = the core's default
export const MP_DTYPES = [
  { value: '', label: 'default' },
  { value: 'fp32', label: 'fp32' },
  { value: 'bf16', label: 'bf16' },
  { value: 'fp16', label: 'fp16' },
  { value: 'fp8', label: 'fp8' },
];
export const REDUCE_DTYPES = MP_DTYPES.filter((o) => o.value !== 'fp8');

export const FSDP_STRATEGIES = [
  { value: 'full_shard', label: 'full_shard' },
  { value: 'shard_grad_op', label: 'shard_grad_op' },
  { value: 'hybrid_shard', label: 'hybrid_shard' },
  { value: 'no_shard', label: 'no_shard' },
];

// Model families whose architecture is not a plain decoder (the core's arch kinds; the core's
// "lora" suggestion applies only to decoders).
export const DIT_TYPES = ['cogvideox', 'wan', 'hunyuanvideo', 'ltx', 'mochi', 'flux', 'sd3'];
// a diffusion pipeline's text and image encoders: component preset families, and the classes core/src/diffusers_config.c reads
export const DIFFUSION_TEXT_TYPES = ['t5_encoder', 'umt5_encoder', 'clip_text', 'llama_encoder', 'clip_vision'];
export const DIFFUSION_TEXT_CLASSES = ['T5EncoderModel', 'UMT5EncoderModel', 'CLIPTextModel', 'CLIPTextModelWithProjection', 'LlamaModel',
  'CLIPVisionModel', 'CLIPVisionModelWithProjection'];
export const NON_DECODER_TYPES = ['gpt2', 't5', 'vit', ...DIT_TYPES];

export const MAX_INSTANCES = 8;

export const QUANT_4BIT = [
  { value: 'nf4', label: 'NF4' },
  { value: 'fp4', label: 'FP4' },
];

// the adapters' dtype (plan finetune.lora.dtype): PEFT keeps them fp32 unless the script casts them (finetrainers: bf16)
export const LORA_DTYPES = [
  { value: 'fp32', label: 'fp32 (PEFT default)' },
  { value: 'bf16', label: 'bf16' },
  { value: 'fp16', label: 'fp16' },
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
  t5: ['q', 'k', 'v', 'o', 'wi', 'wi_0', 'wi_1', 'wo'],
  vit: ['qkv', 'proj', 'fc1', 'fc2'],
  phi3: ['qkv_proj', 'o_proj', 'gate_up_proj', 'down_proj'],
  // the other families' nn.Linear names (core/src/lora_targets.c, docs/schema/plan.md "LoRA target names")
  glm4: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_up_proj', 'down_proj'],
  starcoder2: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'c_fc', 'c_proj'],
  gpt_neox: ['query_key_value', 'dense', 'dense_h_to_4h', 'dense_4h_to_h'],
  falcon: ['query_key_value', 'dense', 'dense_h_to_4h', 'dense_4h_to_h'],
  RefinedWeb: ['query_key_value', 'dense', 'dense_h_to_4h', 'dense_4h_to_h'],
  RefinedWebModel: ['query_key_value', 'dense', 'dense_h_to_4h', 'dense_4h_to_h'],
  bloom: ['query_key_value', 'dense', 'dense_h_to_4h', 'dense_4h_to_h'],
  qwen: ['c_attn', 'c_proj', 'w1', 'w2'],
  internlm2: ['wqkv', 'wo', 'w1', 'w2', 'w3'],
  bert: ['query', 'key', 'value', 'dense'],
  roberta: ['query', 'key', 'value', 'dense'],
  'xlm-roberta': ['query', 'key', 'value', 'dense'],
  'deberta-v2': ['query_proj', 'key_proj', 'value_proj', 'dense'],
  deepseek_v2: ['q_proj', 'q_a_proj', 'q_b_proj', 'kv_a_proj_with_mqa', 'kv_b_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
  deepseek_v3: ['q_proj', 'q_a_proj', 'q_b_proj', 'kv_a_proj_with_mqa', 'kv_b_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
  mamba: ['in_proj', 'x_proj', 'dt_proj', 'out_proj'],
  mamba2: ['in_proj', 'out_proj'],
  jamba: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'in_proj', 'x_proj', 'dt_proj', 'out_proj', 'gate_proj', 'up_proj', 'down_proj'],
  cogvideox: ['to_q', 'to_k', 'to_v', 'to_out.0'],
  wan: ['to_q', 'to_k', 'to_v', 'to_out.0'],
  hunyuanvideo: ['to_q', 'to_k', 'to_v', 'to_out.0'],
  ltx: ['to_q', 'to_k', 'to_v', 'to_out.0'],
  mochi: ['to_q', 'to_k', 'to_v', 'to_out.0'],
  flux: ['to_q', 'to_k', 'to_v', 'to_out.0'],
  sd3: ['to_q', 'to_k', 'to_v', 'to_out.0'],
};

export const CUSTOM_FIELDS = [
  { key: 'hidden_size', label: 'Hidden size', min: 1 },
  { key: 'num_layers', label: 'Layers', min: 1 },
  { key: 'num_heads', label: 'Attention heads', min: 1 },
  // optional: left empty, they are left out of the plan and the core uses its default
  { key: 'num_kv_heads', label: 'KV heads', min: 1, optional: 'as heads' },
  { key: 'head_dim', label: 'Head dim', min: 1, optional: 'hidden / heads' },
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

// KV-cache dtype (workload.kv_dtype; the core's default is bf16).
// What a script does with a pipeline component once its phase is over (plan instances[].after_use)
export const AFTER_USE = [
  { value: 'stay', label: 'stays on the GPU' },
  { value: 'cpu', label: 'moved to the CPU (.cpu(): freed into the cache)' },
  { value: 'cpu_empty_cache', label: 'moved to the CPU, then torch.cuda.empty_cache()' },
];

// diffusers' group offloading of one pipeline component (plan instances[].group_offload, core/src/diffusion_plan.c)
export const GROUP_OFFLOAD = [
  { value: 'none', label: 'none' },
  { value: 'leaf_level', label: 'leaf_level (one Linear / Conv at a time)' },
  { value: 'block_level', label: 'block_level (blocks per group)' },
];

// diffusers pipelines' offload modes (plan workload.diffusion.offload, core/src/diffusion_plan.c)
export const DIFFUSION_OFFLOAD = [
  { value: 'none', label: 'none (every component on the GPU)' },
  { value: 'model', label: 'enable_model_cpu_offload (one component at a time)' },
  { value: 'sequential', label: 'enable_sequential_cpu_offload (one submodule at a time)' },
];

// the diffusers release whose code ran (plan workload.diffusion.diffusers, core/src/diffusers.h): where an older
// release kept more memory (CogVideoX's VAE decode in 0.30, HunyuanVideo's N × N attention mask in 0.32)
export const DIFFUSERS_RELEASES = [
  { value: 'current', label: 'current' },
  { value: '0.32', label: '0.32.0–0.32.1 (HunyuanVideo N × N attention mask)' },
  { value: '0.30', label: '0.30.1–0.30.3 (CogVideoX VAE decode)' },
];

export const KV_DTYPES = [
  { value: 'bf16', label: 'bf16' },
  { value: 'fp16', label: 'fp16' },
  { value: 'fp8', label: 'fp8' },
  { value: 'int8', label: 'int8' },
  { value: 'fp32', label: 'fp32' },
];

function deepFreeze(o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}

// ---- v1 (one model) ------------------------------------------------------------------------
// The setup of #v1. share links, frozen: tests/web/fixtures/default-state-v1.json pins it.
// share.js reads a v1 link against these defaults and turns it into a v2 setup (setup.js).
export const DEFAULT_STATE_V1 = deepFreeze({
  model: {
    source: 'preset',
    preset: '',
    hf: '',
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
      r: 16, alpha: 32, dropout: 0.05,
      targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
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
    source: 'preset',
    gpu: '',
    count: 1,
    probe: '',
    device: 0,
  },
});

// The allowed values of v1's enumerated fields, as they were (frozen with the v1 format).
export const CHOICES_V1 = deepFreeze({
  'model.source': ['preset', 'hf', 'custom'],
  'model.custom.mlp': ['swiglu', 'geglu', 'gelu', 'relu'],
  'model.custom.norm': ['rmsnorm', 'layernorm'],
  'workload.mode': ['train', 'infer'],
  'workload.precision': ['amp_bf16', 'bf16', 'fp16', 'amp_fp16', 'fp32'],
  'workload.infer_precision': ['bf16', 'fp16', 'fp32'],
  'workload.optimizer': ['adamw/foreach', 'adamw/fused', 'adamw/forloop', 'sgd', 'sgd_momentum', 'adafactor',
    'lion', 'adamw_8bit', 'paged_adamw', 'paged_adamw_8bit'],
  'workload.finetune': ['full', 'lora', 'qlora'],
  'workload.lora.quant': ['nf4', 'fp4'],
  'workload.attn': ['sdpa', 'flash', 'eager'],
  'workload.kv_dtype': ['bf16', 'fp16', 'fp8', 'int8', 'fp32'],
  'hardware.source': ['preset', 'probe'],
});

// ---- v2 (model instances + parallel layout) ------------------------------------------------
// One model instance of the setup (plan "instances[]"). Defaults: the trained model of a
// plain fine-tune, as HF Trainer + PEFT do it (AdamW foreach, bf16 mixed, SDPA, LoRA r=16).
export const DEFAULT_INSTANCE = deepFreeze({
  name: '',                  // '' = automatic: the model's id for the first, the role for others
  role: 'trained',
  shares: -1,                // index of the instance whose weights this one runs through; -1 = own model
  model: {
    source: 'preset',        // preset | hf | custom
    preset: '',              // filled with the first preset once presets load
    hf: '',                  // the pasted config.json text
    custom: {
      name: '',
      hidden_size: 2048, num_layers: 16, num_heads: 32, num_kv_heads: 8, head_dim: 64,
      intermediate_size: 8192, vocab_size: 128256, mlp: 'swiglu', norm: 'rmsnorm',
      tie_embeddings: true, attn_bias: false, mlp_bias: false,
    },
  },
  precision: 'amp_bf16',     // training
  precision_framework: false, // the plan gave no "precision" and DeepSpeed / Megatron picked its own bf16
                             // (bf16_master): plan.js leaves "precision" out again while it still holds
                             // (docs/schema/plan.md "Precision modes")
  optimizer_framework: false, // the plan gave no optimizer.impl and FSDP picked fused AdamW: plan.js
                             // leaves "impl" out again while it still holds (added within v2)
  autocast_cache: true,      // torch.autocast(cache_enabled=...); false: Lightning >= 2.6
  after_use: 'stay',         // diffusion inference: stay | cpu | cpu_empty_cache once its phase is over (added within v2)
  group_offload: 'none',     // diffusion inference: diffusers group offloading, none | leaf_level | block_level (added within v2)
  group_blocks: 1,           //   block_level's num_blocks_per_group (added within v2)
  group_stream: false,       //   use_stream: the next group prefetched (added within v2)
  autocast16: false,         // diffusion training: the 16-bit DiT runs under torch.autocast (accelerate mixed_precision;
                             // plan instances[].autocast) (added within v2)
  edited_layers: '',         // functional_copy: the last blocks the edit replaces ('' = the core's default, 3)
  infer_precision: 'bf16',   // inference
  quant: 'none',             // frozen base weights of lora / adapter / frozen (qlora uses lora.quant)
  optimizer: 'adamw/foreach',
  finetune: 'full',
  lora: {
    r: 16, alpha: 32, dropout: 0.05, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
    quant: 'nf4',            // QLoRA's 4-bit type
    double_quant: true,      // nf4/fp4 double quantization (QLoRA, or a 4-bit base quant)
    dtype: 'fp32',           // the adapters' dtype (added within v2)
  },
  adapter_dim: 64,
  grad_ckpt: false,
  gc_every: 1,               // checkpoint every k-th block when grad_ckpt is on (a plan may say 2, 4, ...)
  attn: 'sdpa',
  activations: 'train',      // train | no_grad | keep_graph | none (training mode; inference is forward only)
  passes: 1,                 // keep_graph
  logprobs_fp32: false,
  placement: 'sharded',      // sharded | gpu | cpu | stream
  device: 0,                 // gpu: that GPU; stream: the GPU the blocks stream through
  pinned: true,              // cpu / stream: pinned CPU memory
});

// The page's whole setup. share.js stores exactly this shape (versioned, #v2.), so a field
// added here must get a default here; older links then read it as the default.
// Empty strings in number fields mean "leave it out of the plan" (the core's default).
export const DEFAULT_STATE = deepFreeze({
  name: '',                  // the plan's name and note, when it came from a file or an example
  note: '',
  workload: {
    mode: 'train',
    batch: 4,
    seq: 1024,
    grad_accum: 1,
    prompt: 1024,
    new_tokens: 256,
    kv_dtype: 'bf16',
    image_size: 224,
    // diffusion pipelines (docs/diffusion.md; added within v2: a link without them reads these)
    frames: '',              // '' = the pipeline's default size
    height: '',
    width: '',
    diffusion: { cfg: true, offload: 'none', vae_tiling: false, vae_slicing: false, precompute: false,
      diffusers: 'current', offload_empty_cache: true, code: 'diffusers', text_tokens: '' },
  },
  instances: [DEFAULT_INSTANCE],
  hardware: {
    source: 'preset',          // preset | probe
    gpu: '',                   // filled with a default GPU once presets load
    count: 1,                  // GPUs per node (a probe file gives its own)
    nodes: 1,
    cpu_ram_gib: '',           // CPU RAM per node in GiB ('' = not given)
    probe: '',                 // the probe JSON text
    device: 0,
  },
  parallel: {
    framework: 'torch',
    dp: 1, tp: 1, pp: 1, ep: 1,
    vpp: '', microbatches: '',
    sp: false,
    zero: 0,
    fsdp: 'full_shard',
    offload_optimizer: false,
    offload_params: false,
    activation_offload: false,
    distributed_optimizer: false,
    selective_recompute: false,
    gradient_as_bucket_view: false,
    reduce_bucket_size: '',
    allgather_bucket_size: '',
    // added within v2 (a link without them reads these defaults, the core's own):
    fsdp_version: 2,           // 2 = fully_shard (FSDP2), 1 = FullyShardedDataParallel
    fsdp_param_dtype: '',      // fsdp_mixed_precision.*: '' = the core's default for the precision
    fsdp_reduce_dtype: '',
    fsdp_output_dtype: '',
    fsdp_buffer_dtype: '',
    sub_group_size: '',        // DeepSpeed ZeRO-3, elements ('' = 1e9)
    grad_accum_dtype: '',      // DeepSpeed data_types.grad_accum_dtype ('' = the model dtype)
    torch_autocast: false,     // DeepSpeed config "torch_autocast": {"enabled": true} (added within v2)
  },
  runtime: {
    pytorch_cuda_alloc_conf: '', // PYTORCH_CUDA_ALLOC_CONF of the job ('' = PyTorch's defaults); added
                                 // within v2: a link without it reads ''
  },
});

// The allowed values of each enumerated setup field (share links and plan files are checked
// against them). Instance fields are under "instance.".
export const CHOICES = {
  'workload.mode': MODES.map((o) => o.value),
  'workload.kv_dtype': KV_DTYPES.map((o) => o.value),
  'workload.diffusion.offload': DIFFUSION_OFFLOAD.map((o) => o.value),
  'workload.diffusion.diffusers': DIFFUSERS_RELEASES.map((o) => o.value),
  'workload.diffusion.code': ['diffusers', 'official'],
  'hardware.source': ['preset', 'probe'],
  'parallel.framework': FRAMEWORKS.map((o) => o.value),
  'parallel.fsdp': FSDP_STRATEGIES.map((o) => o.value),
  'parallel.fsdp_param_dtype': MP_DTYPES.map((o) => o.value),
  'parallel.fsdp_reduce_dtype': REDUCE_DTYPES.map((o) => o.value),
  'parallel.fsdp_output_dtype': MP_DTYPES.map((o) => o.value),
  'parallel.fsdp_buffer_dtype': MP_DTYPES.map((o) => o.value),
  'parallel.grad_accum_dtype': REDUCE_DTYPES.map((o) => o.value),
  'instance.role': ROLES.map((o) => o.value),
  'instance.model.source': ['preset', 'hf', 'custom'],
  'instance.model.custom.mlp': CUSTOM_MLP.map((o) => o.value),
  'instance.model.custom.norm': CUSTOM_NORM.map((o) => o.value),
  'instance.precision': PRECISIONS.filter((o) => o.modes.includes('train')).map((o) => o.value),
  'instance.infer_precision': PRECISIONS.filter((o) => o.modes.includes('infer')).map((o) => o.value),
  'instance.quant': BASE_QUANT.map((o) => o.value),
  'instance.optimizer': OPTIMIZERS.map((o) => o.value),
  'instance.finetune': FINETUNE.map((o) => o.value),
  'instance.lora.quant': QUANT_4BIT.map((o) => o.value),
  'instance.lora.dtype': LORA_DTYPES.map((o) => o.value),
  'instance.attn': ATTN.map((o) => o.value),
  'instance.activations': ACTIVATIONS.map((o) => o.value),
  'instance.placement': PLACEMENTS.map((o) => o.value),
  'instance.after_use': AFTER_USE.map((o) => o.value),
  'instance.group_offload': GROUP_OFFLOAD.map((o) => o.value),
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
  // diffusion pipelines (core/src/timeline_diffusion.c, precompute.c): one phase per component
  text_encoder: 'Text encoder',
  transformer: 'Transformer steps',
  vae_decode: 'VAE decode',
  precompute_conditions: 'Precompute: text embeddings',
  precompute_latents: 'Precompute: latents',
};

// Where a core error path points in the form: the first matching prefix wins. Values are
// element ids in index.html (a message goes to "<id>-msg").
export const ERROR_FIELDS = [
  ['workload.batch', 'batch'],
  ['workload.seq', 'seq'],            // controller.js: "prompt" in inference mode
  ['workload.grad_accum', 'grad-accum'],
  ['workload.new_tokens', 'new-tokens'],
  ['workload.image_size', 'image-size'],
  ['workload.kv_dtype', 'kv-dtype'],
  ['workload.frames', 'frames'],
  ['workload.height', 'height'],
  ['workload.width', 'width'],
  ['workload.diffusion.offload', 'diff-offload'],
  ['workload.diffusion.precompute', 'diff-precompute'],
  ['workload.diffusion.diffusers', 'diff-diffusers'],
  ['workload.diffusion.text_tokens', 'diff-text-tokens'],
  ['workload', 'workload-fieldset'],
  ['hardware.probe', 'probe-text'],
  ['hardware.device', 'probe-device'],
  ['hardware.gpu', 'gpu'],
  ['hardware.count', 'gpu-count'],
  ['hardware.nodes', 'gpu-nodes'],
  ['hardware.cpu_ram_bytes', 'cpu-ram'],
  ['hardware', 'hardware-fieldset'],
  ['parallel.dp', 'par-dp'],
  ['parallel.tp', 'par-tp'],
  ['parallel.pp', 'par-pp'],
  ['parallel.vpp', 'par-vpp'],
  ['parallel.ep', 'par-ep'],
  ['parallel.sp', 'par-sp'],
  ['parallel.microbatches', 'par-microbatches'],
  ['parallel.zero', 'par-zero'],
  ['parallel.framework', 'par-framework'],
  ['parallel.fsdp_version', 'par-fsdp-version'],
  ['parallel.fsdp_mixed_precision.reduce_dtype', 'par-fsdp-reduce-dtype'],
  ['parallel.fsdp_mixed_precision.output_dtype', 'par-fsdp-output-dtype'],
  ['parallel.fsdp_mixed_precision.buffer_dtype', 'par-fsdp-buffer-dtype'],
  ['parallel.fsdp_mixed_precision', 'par-fsdp-param-dtype'],
  ['parallel.fsdp', 'par-fsdp'],
  ['parallel.sub_group_size', 'par-sub-group'],
  ['parallel.grad_accum_dtype', 'par-grad-accum-dtype'],
  ['parallel.torch_autocast', 'par-torch-autocast'],
  ['parallel.offload_optimizer', 'par-offload-optimizer'],
  ['parallel.offload_params', 'par-offload-params'],
  ['parallel.activation_offload', 'par-activation-offload'],
  ['parallel.distributed_optimizer', 'par-distributed-optimizer'],
  ['parallel.selective_recompute', 'par-selective-recompute'],
  ['parallel.gradient_as_bucket_view', 'par-bucket-view'],
  ['parallel.reduce_bucket_size', 'par-reduce-bucket'],
  ['parallel.allgather_bucket_size', 'par-allgather-bucket'],
  ['parallel', 'parallel-fieldset'],
  ['runtime', 'alloc-conf'],
];

// The same for "instances[i].<rest>": <rest> → element id (the form shows instance i then).
export const INSTANCE_ERROR_FIELDS = [
  ['model.hf_config', 'hf-config'],
  ['model.custom.', 'custom-'],      // + the field name
  ['model.preset', 'preset-search'],
  ['model', 'model-fieldset'],
  ['finetune.lora.r', 'lora-r'],
  ['finetune.lora.alpha', 'lora-alpha'],
  ['finetune.lora.dropout', 'lora-dropout'],
  ['finetune.lora.dtype', 'lora-dtype'],
  ['finetune.lora.targets', 'lora-targets'],
  ['finetune.adapter', 'adapter-dim'],
  ['finetune', 'finetune'],
  ['precision', 'precision'],          // controller.js: "infer-precision" in inference mode
  ['quant', 'base-quant'],
  ['double_quant', 'double-quant'],
  ['optimizer', 'optimizer'],
  ['grad_ckpt', 'grad-ckpt'],
  ['attn', 'attn'],
  ['activations', 'activations'],
  ['passes', 'passes'],
  ['logprobs_fp32', 'logprobs'],
  ['autocast_cache', 'autocast-cache'],
  ['autocast', 'dit-autocast'],
  ['after_use', 'after-use'],
  ['group_offload.num_blocks_per_group', 'group-blocks'],
  ['group_offload.use_stream', 'group-stream'],
  ['group_offload', 'group-offload'],
  ['edited_layers', 'edited-layers'],
  ['placement.stream_to', 'placement-device'],
  ['placement.device', 'placement-device'],
  ['placement', 'placement'],
  ['shares_weights_with', 'shares'],
  ['name', 'instance-name'],
  ['role', 'role'],
];
