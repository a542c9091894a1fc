// compare.js: what differs between the pinned setup and the current one, as labelled lines
// for the compare panel (view.js renderCompare draws them beside the two estimates).
import * as S from './setup.js';

const DIFF_LABELS = {
  name: 'Plan name', note: 'Plan note',
  'workload.mode': 'Mode', 'workload.batch': 'Micro-batch', 'workload.seq': 'Sequence length',
  'workload.grad_accum': 'Gradient accumulation', 'workload.prompt': 'Prompt tokens',
  'workload.new_tokens': 'Generated tokens', 'workload.kv_dtype': 'KV cache dtype',
  'workload.image_size': 'Image size', 'workload.frames': 'Frames', 'workload.height': 'Height',
  'workload.width': 'Width', 'workload.diffusion.cfg': 'Classifier-free guidance', 'workload.diffusion.offload': 'CPU offload',
  'workload.diffusion.vae_tiling': 'VAE tiling', 'workload.diffusion.vae_slicing': 'VAE slicing',
  'workload.diffusion.precompute': 'Precompute', 'workload.diffusion.diffusers': 'diffusers release', 'workload.diffusion.text_tokens': 'Prompt tokens',
  'workload.diffusion.offload_empty_cache': 'Offload empties the cache', 'workload.diffusion.code': 'Inference code', 'hardware.source': 'Hardware source', 'hardware.gpu': 'GPU',
  'hardware.count': 'GPUs per node', 'hardware.nodes': 'Nodes', 'hardware.cpu_ram_gib': 'CPU RAM (GiB)',
  'hardware.probe': 'Probe file', 'hardware.device': 'Probe device',
  'parallel.framework': 'Framework', 'parallel.dp': 'Data parallel', 'parallel.tp': 'Tensor parallel',
  'parallel.pp': 'Pipeline parallel', 'parallel.ep': 'Expert parallel', 'parallel.vpp': 'Virtual stages',
  'parallel.microbatches': 'Pipeline micro-batches', 'parallel.sp': 'Sequence parallel', 'parallel.zero': 'ZeRO stage',
  'parallel.fsdp': 'FSDP strategy', 'parallel.offload_optimizer': 'Optimizer offload',
  'parallel.offload_params': 'Parameter offload', 'parallel.activation_offload': 'Activation offload',
  'parallel.distributed_optimizer': 'Distributed optimizer', 'parallel.selective_recompute': 'Selective recompute',
  'parallel.gradient_as_bucket_view': 'gradient_as_bucket_view', 'parallel.reduce_bucket_size': 'Reduce bucket',
  'parallel.allgather_bucket_size': 'All-gather bucket',
  'runtime.pytorch_cuda_alloc_conf': 'PYTORCH_CUDA_ALLOC_CONF',
};
const INSTANCE_LABELS = {
  name: 'Name', role: 'Role', shares: 'Runs through the weights of', 'model.source': 'Model source',
  'model.preset': 'Model', 'model.hf': 'config.json', precision: 'Precision', infer_precision: 'Weights dtype',
  quant: 'Base weights', optimizer: 'Optimizer', finetune: 'Fine-tuning', 'lora.r': 'LoRA rank',
  'lora.alpha': 'LoRA alpha', 'lora.dropout': 'LoRA dropout', 'lora.targets': 'LoRA targets',
  'lora.quant': '4-bit type', 'lora.double_quant': 'Double quantization', adapter_dim: 'Adapter bottleneck',
  grad_ckpt: 'Gradient checkpointing', gc_every: 'Checkpoint every', attn: 'Attention',
  activations: 'Activations', passes: 'Passes', logprobs_fp32: 'fp32 log-probabilities',
  placement: 'Placement', device: 'Placement GPU', pinned: 'Pinned memory',
};
const LONG_FIELDS = ['model.hf', 'hardware.probe', 'note'];

function flatten(obj, prefix = '', out = {}) {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v, key, out);
    else out[key] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** [{label, from, to}] for each setting that differs between setups a and b. */
export function settingDiffs(a, b) {
  const out = [];
  const show = (v) => (typeof v === 'boolean' ? (v ? 'on' : 'off') : String(v));
  const push = (label, key, x, y) => {
    if (String(x) === String(y)) return;
    const long = LONG_FIELDS.some((f) => key === f || key.endsWith(`.${f}`));
    out.push({ label, from: long ? 'pasted text' : show(x), to: long ? 'changed' : show(y) });
  };
  const { instances: ia, ...ra } = a;
  const { instances: ib, ...rb } = b;
  const fa = flatten(ra);
  const fb = flatten(rb);
  for (const k of Object.keys(fb)) push(DIFF_LABELS[k] || k, k, fa[k], fb[k]);
  const na = S.instanceNames(a);
  const nb = S.instanceNames(b);
  const many = ia.length > 1 || ib.length > 1;
  for (let i = 0; i < Math.min(ia.length, ib.length); i++) {
    const xa = flatten(ia[i]);
    const xb = flatten(ib[i]);
    for (const k of Object.keys(xb)) {
      const label = INSTANCE_LABELS[k] || k.replace(/^model\.custom\./, 'Custom ');
      push(many ? `${nb[i]}: ${label}` : label, k, xa[k], xb[k]);
    }
  }
  for (let i = ib.length; i < ia.length; i++) out.push({ label: 'Model removed', from: na[i], to: '–' });
  for (let i = ia.length; i < ib.length; i++) out.push({ label: 'Model added', from: '–', to: `${nb[i]} (${ib[i].role})` });
  return out;
}
