"""PreflightCallback for Lightning: checks the job against the GPU's free memory before the first step
and stops the run (raises vramplan.WillNotFit) when it will not fit.

    from vramplan.integrations.lightning import PreflightCallback
    trainer = L.Trainer(precision="bf16-mixed", callbacks=[PreflightCallback(batch=8, seq=2048)])

It runs in `on_fit_start(trainer, pl_module)`, which Lightning calls after `strategy.setup(trainer)` has
moved the model to its device and built the optimizers, before any step (lightning/pytorch/trainer/
trainer.py `_run`; lightning/pytorch/callbacks/callback.py Callback). It reads from the Trainer:
  trainer.precision ("32-true", "bf16-mixed", "16-mixed", "bf16-true", "16-true", "transformer-engine";
      lightning/fabric/plugins/precision/precision.py _PRECISION_INPUT_STR) -> the plan's precision
  trainer.strategy: FSDPStrategy (.sharding_strategy, .cpu_offload.offload_params), DeepSpeedStrategy
      (.config: zero_optimization), DDPStrategy -> parallel; trainer.world_size -> parallel.dp
  trainer.accumulate_grad_batches -> workload.grad_accum;  trainer.optimizers[0] -> optimizer
  trainer.local_rank -> the CUDA device checked
and from the LightningModule: the parameters, and the config of the Hugging Face model inside it.
Lightning does not know the batch or the sequence length: give batch= and seq= (batch falls back
to pl_module.hparams.batch_size).
"""
from ._common import deepspeed_bf16, deepspeed_parallel, with_devices
from ..from_model import optimizer_from

try:
    from lightning.pytorch.callbacks import Callback as _Base
except ImportError:
    try:
        from pytorch_lightning.callbacks import Callback as _Base
    except ImportError:  # pragma: no cover - exercised when Lightning is absent
        class _Base:
            """Stand-in for lightning.pytorch.callbacks.Callback."""

# Lightning precision -> plan precision (docs/schema/plan.md "Precision modes": bf16-mixed is
# torch.autocast over fp32 weights, *-true casts the weights)
PRECISION = {"32-true": "fp32", "32": "fp32", "bf16-mixed": "amp_bf16", "bf16": "amp_bf16",
             "16-mixed": "amp_fp16", "16": "amp_fp16", "bf16-true": "bf16", "16-true": "fp16",
             "transformer-engine": "fp8", "transformer-engine-float16": "fp8"}
# torch.distributed.fsdp.ShardingStrategy names -> plan parallel.fsdp
_FSDP = {"FULL_SHARD": "full_shard", "SHARD_GRAD_OP": "shard_grad_op", "HYBRID_SHARD": "hybrid_shard",
         "_HYBRID_SHARD_ZERO2": "hybrid_shard", "NO_SHARD": "no_shard"}


def _precision(trainer):
    p = str(getattr(trainer, "precision", "32-true"))
    if p not in PRECISION:
        raise ValueError("trainer.precision = %r: vramplan plans %s" % (p, ", ".join(sorted(PRECISION))))
    return PRECISION[p]


def _strategy(trainer, precision):
    """(parallel dict or None, precision) from trainer.strategy."""
    st = getattr(trainer, "strategy", None)
    kind = type(st).__name__ if st is not None else ""
    if "DeepSpeed" in kind:
        cfg = getattr(st, "config", None) or {}
        par = deepspeed_parallel(cfg)
        # Lightning's DeepSpeed precision casts the module to 16-bit; DeepSpeed keeps fp32 master weights
        # (its "fp16" section: fp16 weights and loss scaling, the same fp32 master)
        mode = deepspeed_bf16(cfg, None)
        if precision in ("amp_fp16", "fp16") or mode == "fp16":
            precision = "fp16_master"
        elif precision in ("amp_bf16", "bf16") or mode == "bf16":
            precision = "bf16_master"
        return par, precision
    if "FSDP" in kind:
        ss = getattr(st, "sharding_strategy", None)
        name = getattr(ss, "name", str(ss) if ss is not None else "FULL_SHARD")
        par = {"framework": "fsdp", "fsdp": _FSDP.get(name, "full_shard")}
        off = getattr(st, "cpu_offload", None)
        if getattr(off, "offload_params", False) or off is True:
            par.update(offload_params=True, offload_optimizer=True)
        return par, precision
    return None, precision


def plan_from_lightning(trainer, pl_module, *, batch=None, seq, optimizer=None, gpu=None, lora=None, grad_ckpt=None):
    """The plan of a Lightning fit (plan_from_model's dict)."""
    if batch is None:
        hp = getattr(pl_module, "hparams", None) or {}
        batch = hp.get("batch_size") if hasattr(hp, "get") else None
        if batch is None:
            raise ValueError("PreflightCallback: give batch= (Lightning does not know the micro-batch)")
    if seq is None:
        raise ValueError("PreflightCallback: give seq= (tokens per sequence)")
    precision = _precision(trainer)
    parallel, precision = _strategy(trainer, precision)
    world = getattr(trainer, "world_size", 1)
    parallel, hardware = with_devices(parallel, world if isinstance(world, int) else 1, gpu)
    if optimizer is None:
        opts = getattr(trainer, "optimizers", None) or []
        if opts:
            try:
                optimizer = optimizer_from(opts[0])
            except ValueError:
                optimizer = None
    else:
        optimizer = optimizer_from(optimizer)
    from ..from_model import plan_from_model
    return plan_from_model(pl_module, batch=batch, seq=seq, grad_accum=getattr(trainer, "accumulate_grad_batches", 1),
                           precision=precision, optimizer=optimizer, gpu=hardware, lora=lora, grad_ckpt=grad_ckpt,
                           parallel=parallel)


class PreflightCallback(_Base):
    """Raises vramplan.WillNotFit from on_fit_start when the job will not fit the GPU's free memory."""

    def __init__(self, batch=None, seq=None, *, free_bytes=None, device=None, gpu=None, optimizer=None, lora=None,
                 grad_ckpt=None):
        self.batch, self.seq, self.free_bytes, self.device, self.gpu = batch, seq, free_bytes, device, gpu
        self.optimizer, self.lora, self.grad_ckpt = optimizer, lora, grad_ckpt
        self.estimate = None

    def on_fit_start(self, trainer, pl_module):
        device = self.device
        if device is None:
            root = getattr(getattr(trainer, "strategy", None), "root_device", None)
            idx = getattr(root, "index", None)
            device = idx if isinstance(idx, int) else getattr(trainer, "local_rank", 0) or 0
        plan = plan_from_lightning(trainer, pl_module, batch=self.batch, seq=self.seq, optimizer=self.optimizer,
                                   gpu=self.gpu, lora=self.lora, grad_ckpt=self.grad_ckpt)
        from .._preflight import preflight
        self.estimate = preflight(plan, device=device, free_bytes=self.free_bytes)


__all__ = ["PreflightCallback", "plan_from_lightning", "PRECISION"]
