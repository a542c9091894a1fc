"""plan_from_model: a vramplan/plan@1 dict from a live torch.nn.Module, read without touching a GPU.

What is read, and from where:
* the architecture: the model's Hugging Face config (`model.config.to_dict()`, PretrainedConfig), handed
  to the core as `"hf_config"`; the core reads its shapes (docs/schema/plan.md "Model descriptions");
* the parameters, counted exactly from `model.named_parameters()` (shared tensors once, as torch lists
  them): numel per dtype, and which require grad;
* PEFT LoRA adapters: `model.peft_config[adapter]` (peft/tuners/lora/config.py LoraConfig: r,
  lora_alpha, lora_dropout, target_modules) and the adapter modules themselves (`...<target>.lora_A.<adapter>`
  parameters, peft/tuners/lora/layer.py), so the targets are the modules PEFT really wrapped;
* bitsandbytes quantization: `config.quantization_config` (load_in_4bit, bnb_4bit_quant_type,
  bnb_4bit_use_double_quant, load_in_8bit; transformers BitsAndBytesConfig);
* gradient checkpointing: `model.is_gradient_checkpointing` (transformers PreTrainedModel);
* attention: `config._attn_implementation` ("sdpa", "flash_attention_2", "eager").

Nothing is estimated here. The core counts the parameters again from the config; the plan's note
gives both counts, so a model the config does not describe exactly (extra heads, a custom module) is
visible. A plain nn.Module has no config: its exact counts go in the note, and the plan has no
"model" until one is given (config=): activations depend on shapes a parameter list does not tell.
"""
import json
import numbers

from . import _lib
from ._plan_text import plan_bytes
from .errors import PlanError

# torch dtype name -> plan dtype name (docs/schema/plan.md precision / lora.dtype)
_DTYPES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}
# the plan's module groups (finetune.freeze) and the names HF models give their parameters
_GROUP_WORDS = (
    ("lm_head", ("lm_head",)),
    ("embeddings", ("embed_tokens", "wte", "wpe", "embeddings", "embed_positions", "shared", "patch_embed",
                    "word_embeddings", "position_embeddings", "token_type_embeddings", "embed")),
    ("norms", ("norm", "layernorm", "ln_", "layer_norm")),
    ("attention", ("self_attn", "attn", "attention", "q_proj", "k_proj", "v_proj", "o_proj", "qkv_proj")),
    ("mlp", ("mlp", "feed_forward", "ffn", "gate_proj", "up_proj", "down_proj", "experts", "dense")),
)
# config._attn_implementation -> plan "attn"
_ATTN = {"sdpa": "sdpa", "eager": "eager", "flash_attention_2": "flash", "flash_attention_3": "flash",
         "flash_attention": "flash"}


def _check_count(value, name, lo=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < lo:
        raise ValueError("%s must be an integer >= %d, not %r" % (name, lo, value))
    return int(value)


def _dtype_name(dtype):
    s = str(dtype)
    return s[6:] if s.startswith("torch.") else s


def _json_value(v, depth=0):
    """A config value as JSON: dtypes and other objects as their names; what cannot be written is dropped."""
    if depth > 64:
        return None
    if v is None or isinstance(v, (bool, str, int)):
        return v
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else None
    if isinstance(v, dict):
        return {str(k): _json_value(x, depth + 1) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        items = sorted(v, key=str) if isinstance(v, (set, frozenset)) else v
        return [_json_value(x, depth + 1) for x in items]
    if hasattr(v, "to_dict") and callable(v.to_dict):
        return _json_value(v.to_dict(), depth + 1)
    if "dtype" in type(v).__name__.lower():
        return _dtype_name(v)
    if hasattr(v, "value") and isinstance(getattr(v, "value"), (str, int)):  # enum.Enum
        return v.value
    return str(v)


def config_dict(config):
    """A Hugging Face config (PretrainedConfig, or a stand-in with to_dict() / attributes, or a dict) as
    the JSON object of a config.json."""
    if isinstance(config, dict):
        raw = dict(config)
    elif hasattr(config, "to_dict") and callable(config.to_dict):
        raw = config.to_dict()
    elif hasattr(config, "__dict__"):
        raw = {k: v for k, v in vars(config).items() if not k.startswith("__")}
    else:
        raise ValueError("config must be a Hugging Face config (with to_dict()) or a dict, not %s"
                         % type(config).__name__)
    if not isinstance(raw, dict):
        raise ValueError("config.to_dict() returned %s, not a dict" % type(raw).__name__)
    out = {str(k): _json_value(v) for k, v in raw.items() if not callable(v)}
    # PretrainedConfig.to_dict() writes the class's model_type; a stand-in may keep it on the class
    if "model_type" not in out and isinstance(getattr(config, "model_type", None), str):
        out["model_type"] = config.model_type
    return out


def _hf_module(model):
    """The module that carries the Hugging Face config: the model itself, the base model under a PEFT
    wrapper, or the first submodule with one (an HF model inside a LightningModule)."""
    if getattr(model, "config", None) is not None:
        return model
    if hasattr(model, "get_base_model"):  # peft PeftModel
        base = model.get_base_model()
        if getattr(base, "config", None) is not None:
            return base
    for m in model.modules():
        cfg = getattr(m, "config", None)
        if cfg is not None and (hasattr(cfg, "to_dict") or isinstance(getattr(cfg, "model_type", None), str)):
            return m
    return None


def _find_config(model):
    m = _hf_module(model)
    return m.config if m is not None else None


def _group_of(name):
    parts = name.lower().split(".")
    for group, words in _GROUP_WORDS:
        for p in parts:
            if any(p == w or (w.endswith("_") and p.startswith(w)) or (len(w) > 4 and w in p) for w in words):
                return group
    return None


def _lora_info(model, named):
    """PEFT LoRA on the model: (lora dict for the plan, set of adapter parameter names), or (None, set())."""
    adapter_params = {n for n, _ in named if ".lora_" in n}
    peft_config = getattr(model, "peft_config", None)
    if not adapter_params and not peft_config:
        return None, set()
    active = getattr(model, "active_adapter", None)
    if isinstance(active, (list, tuple)):
        active = active[0] if active else None
    cfg = None
    if isinstance(peft_config, dict) and peft_config:
        cfg = peft_config.get(active) if active in peft_config else next(iter(peft_config.values()))
        active = active if active in peft_config else next(iter(peft_config))
    lora = {}
    if cfg is not None:
        ptype = _json_value(getattr(cfg, "peft_type", "LORA"))
        if str(ptype).upper() != "LORA":
            raise ValueError("model: PEFT %s adapters are not a plan finetune method (LoRA is)" % ptype)
        for key, attr in (("r", "r"), ("alpha", "lora_alpha"), ("dropout", "lora_dropout")):
            v = getattr(cfg, attr, None)
            if v is not None:
                lora[key] = v
    # the targets PEFT wrapped: the module holding "<target>.lora_A.<adapter>.weight"
    targets, a_dtype = [], None
    for n, p in named:
        parts = n.split(".")
        if "lora_A" in parts:
            i = parts.index("lora_A")
            if active and i + 1 < len(parts) and parts[i + 1] != active:
                continue
            t = parts[i - 1] if i > 0 else ""
            if t and t not in targets:
                targets.append(t)
            if a_dtype is None:
                a_dtype = _DTYPES.get(_dtype_name(p.dtype))
            if "r" not in lora and p.dim() == 2:
                lora["r"] = int(p.shape[0])
    if not targets and cfg is not None:
        tm = getattr(cfg, "target_modules", None)
        if isinstance(tm, str):
            targets = [tm] if tm == "all-linear" else []
        elif tm:
            targets = sorted(str(t) for t in tm)
    if targets:
        lora["targets"] = targets
    if a_dtype:
        lora["dtype"] = a_dtype
    return lora, adapter_params


def _quant(cfg):
    q = cfg.get("quantization_config") if isinstance(cfg, dict) else None
    if not isinstance(q, dict):
        return None, False
    if q.get("load_in_4bit"):
        return (q.get("bnb_4bit_quant_type") or "fp4"), bool(q.get("bnb_4bit_use_double_quant"))
    if q.get("load_in_8bit"):
        return "int8", False
    return None, False


def _fmt(n):
    return "{:,}".format(n)


def _numel(p):
    """Elements of a parameter as the model defines it: DeepSpeed ZeRO-3 keeps the full count in ds_numel
    (deepspeed/runtime/zero/partition_parameters.py) while numel() is 0 once partitioned; a bitsandbytes
    Params4bit packs two 4-bit values per uint8 and keeps the original shape in quant_state.shape
    (bitsandbytes/nn/modules.py)."""
    ds = getattr(p, "ds_numel", None)
    if isinstance(ds, int):
        return ds
    qs = getattr(p, "quant_state", None)
    shape = getattr(qs, "shape", None)
    if shape is not None:
        n = 1
        for s in shape:
            n *= int(s)
        return n
    return int(p.numel())


def _dtype_key(p):
    return "4bit" if getattr(getattr(p, "quant_state", None), "shape", None) is not None else _dtype_name(p.dtype)


def parameter_counts(model):
    """Exact counts of a module's parameters: total, trainable, frozen and numel per dtype name."""
    named = list(model.named_parameters())
    by_dtype = {}
    trainable = 0
    for _, p in named:
        n = _numel(p)
        d = _dtype_key(p)
        by_dtype[d] = by_dtype.get(d, 0) + n
        if p.requires_grad:
            trainable += n
    total = sum(by_dtype.values())
    return {"total": total, "trainable": trainable, "frozen": total - trainable, "by_dtype": by_dtype}


def plan_from_model(model, *, batch, seq, precision=None, optimizer=None, gpu=None, lora=None, mode="train",
                    grad_accum=None, new_tokens=None, grad_ckpt=None, attn=None, config=None, name=None,
                    parallel=None, runtime=None):
    """A vramplan/plan@1 dict for a live torch.nn.Module (no GPU is touched).

    batch, seq: the micro-batch and tokens per sequence (prompt tokens when mode="infer").
    precision: a plan precision (fp32, amp_bf16, bf16, ...); default: the weights' dtype (fp32, bf16, fp16).
    optimizer: a plan optimizer name, {"name":..., "impl":...}, or a torch.optim.Optimizer instance.
    gpu: a GPU preset id (`vramplan gpus`) or a whole "hardware" object (e.g. with a probe file).
    lora: a plan LoRA object ({"r", "alpha", "targets", ...}) for adapters not applied yet; it overrides
    what is read from PEFT.
    config: the model's config when model.config is absent (an HF config or dict, or a plan model
    description {"preset"|"hf_config"|"custom": ...}).
    """
    try:
        import torch
    except ImportError as e:  # pragma: no cover - the package's tests run with torch
        raise ImportError("plan_from_model needs torch (it reads a torch.nn.Module)") from e
    if not isinstance(model, torch.nn.Module):
        raise ValueError("model must be a torch.nn.Module, not %s" % type(model).__name__)
    if mode not in ("train", "infer"):
        raise ValueError("mode must be \"train\" or \"infer\", not %r" % (mode,))
    workload = {"mode": mode, "batch": _check_count(batch, "batch"), "seq": _check_count(seq, "seq")}
    if grad_accum is not None:
        workload["grad_accum"] = _check_count(grad_accum, "grad_accum")
    if new_tokens is not None:
        workload["new_tokens"] = _check_count(new_tokens, "new_tokens", 0)

    named = list(model.named_parameters())
    counts = parameter_counts(model)
    inst = {"name": name or "model", "role": "trained"}
    notes = ["Built by vramplan.plan_from_model from a live %s: %s parameters (%s trainable, %s frozen); dtypes: %s."
             % (type(model).__name__, _fmt(counts["total"]), _fmt(counts["trainable"]), _fmt(counts["frozen"]),
                ", ".join("%s %s" % (d, _fmt(n)) for d, n in sorted(counts["by_dtype"].items())) or "none")]

    # the architecture
    cfg_src = config if config is not None else _find_config(model)
    hf = None
    if isinstance(cfg_src, dict) and len(cfg_src) == 1 and next(iter(cfg_src)) in ("preset", "hf_config", "custom"):
        inst["model"] = json.loads(plan_bytes(cfg_src))
    elif cfg_src is not None:
        hf = config_dict(cfg_src)
        inst["model"] = {"hf_config": hf}
    else:
        notes.append("No config: activations need a config (the model's shapes), so this plan has no "
                     "instances[0].model yet; pass plan_from_model(..., config=...) with a Hugging Face config, "
                     "or set instances[0].model to a preset or a custom description.")

    # LoRA / frozen parts
    lora_read, adapter_params = _lora_info(model, named)
    base = [(n, p) for n, p in named if n not in adapter_params]
    base_trainable = [(n, p) for n, p in base if p.requires_grad]
    quant, double_quant = _quant(hf)
    finetune = None
    if lora_read is not None or lora is not None:
        lcfg = dict(lora_read or {})
        if lora is not None:
            if not isinstance(lora, dict):
                raise ValueError("lora must be a dict of the plan's LoRA fields (r, alpha, dropout, dtype, targets)")
            lcfg.update(lora)
        finetune = {"method": "qlora" if quant in ("nf4", "fp4") else "lora", "lora": lcfg}
        if base_trainable:
            notes.append("%s base parameters train besides the adapters (%s); the plan's LoRA keeps the whole base "
                         "frozen." % (_fmt(sum(_numel(p) for _, p in base_trainable)),
                                      ", ".join(sorted({n.rsplit(".", 1)[0] for n, _ in base_trainable})[:4])))
    elif mode == "train":
        if counts["trainable"] == 0:
            finetune = {"method": "frozen"}
            notes.append("No parameter requires grad: the model is planned frozen (torch.optim refuses an empty "
                         "parameter list).")
        elif counts["frozen"]:
            groups = {}
            for n, p in base:
                g = _group_of(n)
                st = groups.setdefault(g, [0, 0])
                st[0 if p.requires_grad else 1] += _numel(p)
            freeze = sorted(g for g, (tr, fr) in groups.items() if g and fr and not tr)
            mixed = sorted(g or "other" for g, (tr, fr) in groups.items() if fr and tr or (fr and not g))
            finetune = {"method": "full"}
            if freeze:
                finetune["freeze"] = freeze
            if mixed:
                notes.append("Frozen parameters in %s that the plan's freeze groups (whole embeddings, lm_head, "
                             "attention, mlp, norms) cannot say are planned as trainable." % ", ".join(mixed))
    if quant:
        inst["quant"] = quant
        if double_quant:
            inst["double_quant"] = True

    # precision
    if precision is None:
        dt = {}
        for _, p in (base or named):
            d = _dtype_key(p)
            dt[d] = dt.get(d, 0) + _numel(p)
        main = max(dt, key=dt.get) if dt else "float32"
        # a quantized base computes in its compute dtype (bnb_4bit_compute_dtype, bf16 in practice)
        precision = "bf16" if quant else _DTYPES.get(main, "fp32")
    inst["precision"] = precision
    if finetune:
        inst["finetune"] = finetune

    # optimizer, checkpointing, attention
    if optimizer is not None and mode == "train":
        inst["optimizer"] = optimizer_from(optimizer)
    if grad_ckpt is None:
        hfm = _hf_module(model)
        grad_ckpt = bool(getattr(hfm if hfm is not None else model, "is_gradient_checkpointing", False))
    if grad_ckpt:
        inst["grad_ckpt"] = {"every": 1} if grad_ckpt is True else grad_ckpt
    if attn is None and cfg_src is not None and not isinstance(cfg_src, dict):
        attn = _ATTN.get(getattr(cfg_src, "_attn_implementation", None) or "")
    if attn:
        inst["attn"] = attn

    plan = {"schema": "vramplan/plan@1", "name": "%s from plan_from_model" % type(model).__name__,
            "workload": workload, "instances": [inst]}
    if gpu is not None:
        if isinstance(gpu, str):
            plan["hardware"] = {"gpu": gpu}
        elif isinstance(gpu, dict):
            plan["hardware"] = dict(gpu)
        else:
            raise ValueError("gpu must be a GPU preset id (str) or a hardware object (dict), not %s"
                             % type(gpu).__name__)
    if parallel is not None:
        plan["parallel"] = parallel
    if runtime is not None:
        plan["runtime"] = runtime

    # the core's own count of the described model, beside the module's (params_total is the base model's:
    # LoRA adapters are counted in params_trainable only)
    if "model" in inst:
        est = json.loads(_lib.estimate_bare_text(plan_bytes(plan)))
        info = est["instances"][0]
        base_total = sum(_numel(p) for _, p in base)
        same = info["params_total"] == base_total and info["params_trainable"] == counts["trainable"]
        notes.append("The core counts %s parameters (%s trainable) from the config%s." % (
            _fmt(info["params_total"]), _fmt(info["params_trainable"]),
            ": the same" if same else "; the module has %s%s (%s trainable)" % (
                _fmt(base_total), " besides its adapters" if adapter_params else "", _fmt(counts["trainable"]))))
    plan["note"] = " ".join(notes)
    return plan


def optimizer_from(opt):
    """A plan optimizer object from a name, a dict or a torch.optim.Optimizer instance."""
    if isinstance(opt, str):
        return {"name": opt}
    if isinstance(opt, dict):
        return dict(opt)
    cls = type(opt).__name__
    groups = getattr(opt, "param_groups", None) or [{}]
    g = groups[0] if isinstance(groups[0], dict) else {}
    defaults = getattr(opt, "defaults", {}) or {}

    def flag(key):
        v = g.get(key, defaults.get(key))
        return v

    # torch/optim/adamw.py, adam.py: fused=True -> fused kernels; foreach=False -> for-loop; default
    # (None) -> foreach on CUDA (torch/optim/optimizer.py _default_to_fused_or_foreach)
    impl = "fused" if flag("fused") else "forloop" if flag("foreach") is False else "foreach"
    names = {"AdamW": "adamw", "Adam": "adam", "Adafactor": "adafactor", "Lion": "lion", "Lion32bit": "lion",
             "AdamW8bit": "adamw_8bit", "PagedAdamW8bit": "paged_adamw_8bit", "PagedAdamW": "paged_adamw",
             "PagedAdamW32bit": "paged_adamw"}
    if cls == "SGD":
        return {"name": "sgd_momentum" if flag("momentum") else "sgd"}
    if cls in names:
        out = {"name": names[cls]}
        if names[cls] in ("adamw", "adam"):
            out["impl"] = impl
        return out
    raise ValueError("optimizer: %s is not an optimizer the plan knows (adamw, adam, sgd, adafactor, lion, "
                     "adamw_8bit, paged_adamw, paged_adamw_8bit)" % cls)


__all__ = ["plan_from_model", "parameter_counts", "config_dict", "optimizer_from", "PlanError"]
