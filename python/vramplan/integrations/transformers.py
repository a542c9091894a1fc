"""PreflightCallback for the Hugging Face Trainer: checks the job against the GPU's free memory before
the first step and stops the run (raises vramplan.WillNotFit) with the estimate's summary and
suggestions when it will not fit.

    from vramplan.integrations.transformers import PreflightCallback
    trainer = Trainer(model=model, args=args, ..., callbacks=[PreflightCallback(seq=2048)])

It runs in `on_train_begin(args, state, control, model=..., optimizer=..., ...)`, which the Trainer calls
once, after it has built the optimizer and before the first step (transformers trainer.py
_inner_training_loop; events of trainer_callback.py TrainerCallback). It reads, from the
TrainingArguments (transformers training_args.py):
  per_device_train_batch_size -> workload.batch      gradient_accumulation_steps -> workload.grad_accum
  bf16 / fp16 -> precision (autocast over fp32 weights: amp_bf16 / amp_fp16; over 16-bit weights: bf16 / fp16)
  gradient_checkpointing -> grad_ckpt every 1          optim -> optimizer (OptimizerNames)
  deepspeed (dict or JSON path) -> parallel.zero, offload_optimizer, offload_params; bf16_master / fp16_master
  fsdp ("full_shard auto_wrap offload" or a list of FSDPOption) -> parallel.fsdp, offload
  world_size -> parallel.dp and hardware.count          local_rank -> the CUDA device checked
and from the model: its config, dtypes, trainable parameters and PEFT adapters (plan_from_model).
TrainingArguments has no sequence length: give seq=, or it is read from max_length / max_seq_length
(TRL's SFTConfig / DPOConfig).
"""
from ._common import deepspeed_bf16, deepspeed_config, deepspeed_parallel, hf_optimizer, with_devices
from ..from_model import optimizer_from, parameter_counts

try:  # the real base class when transformers is installed (the Trainer calls every event on it)
    from transformers import TrainerCallback as _Base
except ImportError:  # pragma: no cover - exercised when transformers is absent
    class _Base:
        """Stand-in for transformers.TrainerCallback: every event is a no-op."""

        def __getattr__(self, name):
            if name.startswith("on_"):
                return lambda *args, **kwargs: None
            raise AttributeError(name)

_FSDP_MODES = ("full_shard", "shard_grad_op", "hybrid_shard", "no_shard")


def _fsdp_options(fsdp):
    """TrainingArguments.fsdp: "" / False, a string of options or a list of FSDPOption (str Enums)."""
    if not fsdp:
        return []
    if isinstance(fsdp, str):
        return fsdp.split()
    if fsdp is True:
        return ["full_shard"]
    return [str(getattr(o, "value", o)) for o in fsdp]


def _dominant_dtype(model):
    by = parameter_counts(model)["by_dtype"]
    return max(by, key=by.get) if by else "float32"


def plan_from_trainer(args, model, *, seq, optimizer=None, gpu=None, lora=None, name=None):
    """The plan a Trainer with these TrainingArguments will run (plan_from_model's dict)."""
    bf16, fp16 = bool(getattr(args, "bf16", False)), bool(getattr(args, "fp16", False))
    weights16 = _dominant_dtype(model) in ("bfloat16", "float16")
    precision = None
    if bf16:
        precision = "bf16" if weights16 else "amp_bf16"
    elif fp16:
        precision = "fp16" if weights16 else "amp_fp16"
    parallel = None
    ds = deepspeed_config(getattr(args, "deepspeed", None))
    if ds is not None:
        parallel = deepspeed_parallel(ds)
        # DeepSpeed's bf16/fp16 modes keep 16-bit weights and an fp32 master copy with the fp32 states
        mode = deepspeed_bf16(ds, "bf16" if bf16 else "fp16" if fp16 else None)
        if mode:
            precision = mode + "_master"
    opts = _fsdp_options(getattr(args, "fsdp", None))
    if opts:
        mode = next((o for o in opts if o in _FSDP_MODES), "full_shard")
        parallel = {"framework": "fsdp", "fsdp": mode}
        fcfg = getattr(args, "fsdp_config", None) or {}
        if "offload" in opts or (isinstance(fcfg, dict) and fcfg.get("offload_params")):
            # torch FSDP CPUOffload(offload_params=True): parameters and gradients on the CPU, step there
            parallel.update(offload_params=True, offload_optimizer=True)
    world = getattr(args, "world_size", 1)
    parallel, hardware = with_devices(parallel, world if isinstance(world, int) else 1, gpu)
    if optimizer is None:
        optim = getattr(args, "optim", None)
        optimizer = hf_optimizer(optim) if optim is not None else None
    else:
        optimizer = optimizer_from(optimizer)
    batch = getattr(args, "per_device_train_batch_size")
    accum = getattr(args, "gradient_accumulation_steps", 1) or 1
    if seq is None:
        seq = getattr(args, "max_length", None) or getattr(args, "max_seq_length", None)
        if seq is None:
            raise ValueError("PreflightCallback: give seq= (tokens per sequence); TrainingArguments has no "
                             "max_length or max_seq_length")
    from ..from_model import plan_from_model
    return plan_from_model(model, batch=batch, seq=seq, grad_accum=accum, precision=precision,
                           optimizer=optimizer, gpu=hardware, lora=lora, name=name,
                           grad_ckpt=True if getattr(args, "gradient_checkpointing", False) else None,
                           parallel=parallel)


def _known_optimizer(opt):
    """A torch optimizer (unwrapped from accelerate's AcceleratedOptimizer, .optimizer) as a plan optimizer,
    or None when its class is not one the plan names (then args.optim is used)."""
    for _ in range(3):
        try:
            return optimizer_from(opt)
        except ValueError:
            inner = getattr(opt, "optimizer", None)
            if inner is None or inner is opt:
                return None
            opt = inner
    return None


class PreflightCallback(_Base):
    """Raises vramplan.WillNotFit from on_train_begin when the job will not fit the GPU's free memory.

    seq: tokens per sequence (TrainingArguments has none). free_bytes: the memory to plan against
    instead of asking NVML / torch.cuda. gpu: a GPU preset id or hardware object for the plan.
    optimizer: overrides args.optim (a plan name or dict). The estimate is kept in .estimate."""

    def __init__(self, seq=None, *, free_bytes=None, device=None, gpu=None, optimizer=None, lora=None):
        self.seq, self.free_bytes, self.device, self.gpu = seq, free_bytes, device, gpu
        self.optimizer, self.lora = optimizer, lora
        self.estimate = None

    def on_train_begin(self, args, state, control, **kwargs):
        model = kwargs.get("model")
        if model is None:
            raise ValueError("PreflightCallback: the Trainer passed no model to on_train_begin")
        device = self.device
        if device is None:
            rank = getattr(args, "local_rank", -1)
            device = rank if isinstance(rank, int) and rank >= 0 else 0
        optimizer = self.optimizer
        if optimizer is None and kwargs.get("optimizer") is not None:
            optimizer = _known_optimizer(kwargs["optimizer"])  # the one the Trainer built (or was given)
        plan = plan_from_trainer(args, model, seq=self.seq, optimizer=optimizer, gpu=self.gpu, lora=self.lora)
        from .._preflight import preflight
        self.estimate = preflight(plan, device=device, free_bytes=self.free_bytes)
        return control


__all__ = ["PreflightCallback", "plan_from_trainer"]
