"""What the framework callbacks share: DeepSpeed configs, HF optimizer names, the pre-flight call."""
import json
import os


# TrainingArguments(optim=...) names (transformers training_args.py OptimizerNames) -> plan optimizer;
# the inverse of core/src/plan_recommend.c hf_optim()
HF_OPTIM = {
    "adamw_torch": {"name": "adamw", "impl": "foreach"},
    "adamw_hf": {"name": "adamw", "impl": "forloop"},
    "adamw_torch_fused": {"name": "adamw", "impl": "fused"},
    "adamw_bnb_8bit": {"name": "adamw_8bit"},
    "adamw_8bit": {"name": "adamw_8bit"},
    "paged_adamw_32bit": {"name": "paged_adamw"},
    "paged_adamw_8bit": {"name": "paged_adamw_8bit"},
    "adafactor": {"name": "adafactor"},
    "sgd": {"name": "sgd"},
    "lion_32bit": {"name": "lion"},
}


def hf_optimizer(optim):
    name = getattr(optim, "value", optim)  # OptimizerNames is a str Enum
    if name not in HF_OPTIM:
        raise ValueError("optim = %r: not an optimizer vramplan plans (%s)" % (name, ", ".join(sorted(HF_OPTIM))))
    return dict(HF_OPTIM[name])


def deepspeed_config(ds):
    """A DeepSpeed config given as a dict or a path to its JSON file, as a dict (None when absent)."""
    if ds is None or ds == "" or ds is False:
        return None
    if isinstance(ds, dict):
        return ds
    if isinstance(ds, (str, os.PathLike)):
        with open(ds, encoding="utf-8") as f:
            return json.load(f)
    cfg = getattr(ds, "config", None)  # transformers HfDeepSpeedConfig
    if isinstance(cfg, dict):
        return cfg
    raise ValueError("deepspeed must be a config dict or the path of its JSON file, not %s" % type(ds).__name__)


def _offloaded(section):
    return isinstance(section, dict) and str(section.get("device", "none")).lower() in ("cpu", "nvme")


def deepspeed_parallel(cfg):
    """DeepSpeed's zero_optimization (stage, offload_optimizer.device, offload_param.device; deepspeed
    runtime/zero/config.py) -> the plan's parallel fields."""
    zero = cfg.get("zero_optimization") or {}
    stage = zero.get("stage", 0)
    if not isinstance(stage, int):
        raise ValueError("deepspeed zero_optimization.stage = %r: give the stage as an integer 0-3" % (stage,))
    out = {"framework": "deepspeed", "zero": stage}
    if _offloaded(zero.get("offload_optimizer")):
        out["offload_optimizer"] = True
    if _offloaded(zero.get("offload_param")):
        out["offload_params"] = True
    return out


def deepspeed_bf16(cfg, default):
    """DeepSpeed's bf16 / fp16 sections ({"enabled": true | "auto"}); "auto" follows the trainer's flag."""
    for key in ("bf16", "fp16"):
        sec = cfg.get(key) or {}
        en = sec.get("enabled") if isinstance(sec, dict) else None
        if en is True or (en == "auto" and default == key):
            return key
    return None


def with_devices(parallel, world_size, gpu):
    """parallel.dp and hardware.count for a data-parallel job of world_size ranks on one node."""
    if world_size and world_size > 1:
        parallel = dict(parallel or {})
        parallel.setdefault("dp", int(world_size))
        if isinstance(gpu, dict):
            hw = dict(gpu)
        else:
            hw = {"gpu": gpu} if gpu else {}
        hw.setdefault("count", int(world_size))
        return parallel, hw
    return parallel, gpu
