"""The Trainer and Lightning callbacks against minimal stand-ins of the objects they read, with the
field names those libraries define:
  transformers training_args.py TrainingArguments: per_device_train_batch_size, gradient_accumulation_steps,
    bf16, fp16, gradient_checkpointing, optim (OptimizerNames), deepspeed, fsdp, fsdp_config, local_rank,
    world_size; trainer_callback.py: on_train_begin(args, state, control, **kwargs) with model= and optimizer=
  lightning pytorch/trainer/trainer.py Trainer: precision (precision.py _PRECISION_INPUT_STR), strategy,
    world_size, accumulate_grad_batches, optimizers, local_rank; strategies/fsdp.py FSDPStrategy
    .sharding_strategy (torch ShardingStrategy), .cpu_offload (CPUOffload.offload_params);
    strategies/deepspeed.py DeepSpeedStrategy.config; callbacks/callback.py on_fit_start(trainer, pl_module)
"""
import enum
import json
import sys
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Optional

import pytest
import torch
from torch import nn

import vramplan
from llama_like import LlamaConfigStandIn, LlamaForCausalLM, LoraConfigStandIn, PeftModelStandIn

GIB = 1 << 30


@dataclass
class TrainingArguments:
    output_dir: str = "out"
    per_device_train_batch_size: int = 8
    gradient_accumulation_steps: int = 1
    bf16: bool = False
    fp16: bool = False
    gradient_checkpointing: bool = False
    optim: str = "adamw_torch"
    deepspeed: Optional[Any] = None
    fsdp: Any = ""
    fsdp_config: Optional[dict] = None
    local_rank: int = -1
    world_size: int = 1


def test_import_needs_neither_library():
    assert "transformers" not in sys.modules and "lightning" not in sys.modules
    from vramplan.integrations import lightning, transformers  # noqa: F401
    assert "transformers" not in sys.modules or hasattr(sys.modules["transformers"], "TrainerCallback")


def hf_callback():
    from vramplan.integrations.transformers import PreflightCallback
    return PreflightCallback


def test_trainer_arguments_become_the_plan():
    from vramplan.integrations.transformers import plan_from_trainer
    model = LlamaForCausalLM(LlamaConfigStandIn())
    args = TrainingArguments(per_device_train_batch_size=4, gradient_accumulation_steps=2, bf16=True,
                             gradient_checkpointing=True, optim="adamw_torch_fused")
    plan = plan_from_trainer(args, model, seq=512)
    assert plan["workload"] == {"mode": "train", "batch": 4, "seq": 512, "grad_accum": 2}
    inst = plan["instances"][0]
    assert inst["precision"] == "amp_bf16"  # bf16=True over fp32 weights is torch.autocast
    assert inst["optimizer"] == {"name": "adamw", "impl": "fused"}
    assert inst["grad_ckpt"] == {"every": 1}
    assert "parallel" not in plan and "hardware" not in plan
    # bf16=True over weights already in bf16: no fp32 copy anywhere
    plan = plan_from_trainer(args, model.to(torch.bfloat16), seq=512)
    assert plan["instances"][0]["precision"] == "bf16"


def test_trainer_deepspeed_and_fsdp(tmp_path):
    from vramplan.integrations.transformers import plan_from_trainer
    model = LlamaForCausalLM(LlamaConfigStandIn())
    ds = {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}, "bf16": {"enabled": "auto"}}
    path = tmp_path / "ds.json"
    path.write_text(json.dumps(ds))
    for given in (ds, str(path)):
        plan = plan_from_trainer(TrainingArguments(bf16=True, deepspeed=given, world_size=2), model, seq=256)
        assert plan["parallel"] == {"framework": "deepspeed", "zero": 2, "offload_optimizer": True, "dp": 2}
        assert plan["hardware"] == {"count": 2}
        assert plan["instances"][0]["precision"] == "bf16_master"
    # fp16=True with "fp16": {"enabled": "auto"}: DeepSpeed's fp16 mode, fp16 weights over the fp32 master
    ds16 = {"zero_optimization": {"stage": 3}, "fp16": {"enabled": "auto"}}
    plan = plan_from_trainer(TrainingArguments(fp16=True, deepspeed=ds16, world_size=2), model, seq=256)
    assert plan["instances"][0]["precision"] == "fp16_master"
    assert vramplan.estimate(plan)["fits"] in (True, False)
    plan = plan_from_trainer(TrainingArguments(fsdp="full_shard auto_wrap offload", world_size=4), model, seq=256)
    assert plan["parallel"] == {"framework": "fsdp", "fsdp": "full_shard", "offload_params": True,
                                "offload_optimizer": True, "dp": 4}
    plan = plan_from_trainer(TrainingArguments(fsdp=["shard_grad_op", "auto_wrap"], world_size=2), model, seq=256)
    assert plan["parallel"]["fsdp"] == "shard_grad_op"
    assert vramplan.estimate(plan)["fits"] in (True, False)  # the core takes what the callback wrote


def test_trainer_callback_passes_and_stops():
    PreflightCallback = hf_callback()
    model = LlamaForCausalLM(LlamaConfigStandIn())
    args = TrainingArguments(per_device_train_batch_size=2, bf16=True)
    control = SimpleNamespace(should_training_stop=False)
    cb = PreflightCallback(seq=128, free_bytes=8 * GIB)
    assert cb.on_train_begin(args, SimpleNamespace(), control, model=model) is control
    assert cb.estimate["fits"] and cb.estimate["preflight"]["free_bytes"] == 8 * GIB
    cb = PreflightCallback(seq=128, free_bytes=64 << 20)
    with pytest.raises(vramplan.WillNotFit) as e:
        cb.on_train_begin(args, SimpleNamespace(), control, model=model)
    assert e.value.estimate["summary"] in str(e.value)


def test_trainer_callback_reads_the_real_optimizer_and_lora():
    from vramplan.integrations.transformers import PreflightCallback, plan_from_trainer
    model = PeftModelStandIn(LlamaForCausalLM(LlamaConfigStandIn()),
                             LoraConfigStandIn(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=["q_proj", "v_proj"]))
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1, momentum=0.9)
    wrapped = SimpleNamespace(optimizer=opt)  # accelerate's AcceleratedOptimizer keeps the torch one in .optimizer
    cb = PreflightCallback(seq=64, free_bytes=8 * GIB)
    cb.on_train_begin(TrainingArguments(per_device_train_batch_size=1), None, None, model=model, optimizer=wrapped)
    inst = cb.estimate["instances"][0]
    assert inst["params_trainable"] == 3584
    plan = plan_from_trainer(TrainingArguments(per_device_train_batch_size=1), model, seq=64, optimizer=opt)
    assert plan["instances"][0]["optimizer"] == {"name": "sgd_momentum"}
    assert plan["instances"][0]["finetune"]["method"] == "lora"


def test_trainer_bad_settings():
    from vramplan.integrations.transformers import plan_from_trainer
    model = LlamaForCausalLM(LlamaConfigStandIn())
    with pytest.raises(ValueError, match="optim"):
        plan_from_trainer(TrainingArguments(optim="ademamix"), model, seq=64)
    with pytest.raises(ValueError, match="seq"):
        plan_from_trainer(TrainingArguments(), model, seq=None)
    args = TrainingArguments()
    args.max_length = 300  # TRL's SFTConfig / DPOConfig carry the length
    assert plan_from_trainer(args, model, seq=None)["workload"]["seq"] == 300
    with pytest.raises(ValueError, match="stage"):
        plan_from_trainer(TrainingArguments(deepspeed={"zero_optimization": {"stage": "auto"}}), model, seq=64)
    with pytest.raises(ValueError, match="batch"):
        plan_from_trainer(TrainingArguments(per_device_train_batch_size=0), model, seq=64)


# ---- Lightning ----------------------------------------------------------------------------------

class ShardingStrategy(enum.Enum):  # torch.distributed.fsdp.ShardingStrategy
    FULL_SHARD = 1
    SHARD_GRAD_OP = 2
    NO_SHARD = 3
    HYBRID_SHARD = 4


class FSDPStrategy:
    def __init__(self, sharding_strategy=ShardingStrategy.FULL_SHARD, offload=False):
        self.sharding_strategy = sharding_strategy
        self.cpu_offload = SimpleNamespace(offload_params=offload)  # torch CPUOffload
        self.root_device = torch.device("cuda", 1)  # the rank's GPU: the one checked


class DeepSpeedStrategy:
    def __init__(self, config):
        self.config = config


class SingleDeviceStrategy:
    root_device = None


@dataclass
class LightningTrainer:
    precision: str = "32-true"
    strategy: Any = field(default_factory=SingleDeviceStrategy)
    world_size: int = 1
    accumulate_grad_batches: int = 1
    optimizers: list = field(default_factory=list)
    local_rank: int = 0


class LitModule(nn.Module):
    def __init__(self, batch_size=None):
        super().__init__()
        self.model = LlamaForCausalLM(LlamaConfigStandIn())
        self.hparams = {"batch_size": batch_size} if batch_size else {}


def test_lightning_precision_and_strategy():
    from vramplan.integrations.lightning import plan_from_lightning
    lit = LitModule()
    opt = torch.optim.AdamW(lit.parameters(), foreach=False)
    tr = LightningTrainer(precision="bf16-mixed", strategy=FSDPStrategy(ShardingStrategy.SHARD_GRAD_OP), world_size=2,
                          accumulate_grad_batches=4, optimizers=[opt])
    plan = plan_from_lightning(tr, lit, batch=2, seq=256)
    inst = plan["instances"][0]
    assert inst["precision"] == "amp_bf16" and inst["optimizer"] == {"name": "adamw", "impl": "forloop"}
    assert plan["parallel"] == {"framework": "fsdp", "fsdp": "shard_grad_op", "dp": 2}
    assert plan["workload"]["grad_accum"] == 4
    assert vramplan.estimate(plan)["instances"][0]["params_total"] == 218944  # the HF model inside the module
    for prec, want in (("32-true", "fp32"), ("16-mixed", "amp_fp16"), ("bf16-true", "bf16"), ("16-true", "fp16")):
        assert plan_from_lightning(LightningTrainer(precision=prec), lit, batch=1, seq=64)["instances"][0]["precision"] == want
    ds = DeepSpeedStrategy({"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}}})
    plan = plan_from_lightning(LightningTrainer(precision="bf16-mixed", strategy=ds, world_size=8), lit, batch=1, seq=64)
    assert plan["parallel"] == {"framework": "deepspeed", "zero": 3, "offload_params": True, "dp": 8}
    assert plan["instances"][0]["precision"] == "bf16_master"
    plan = plan_from_lightning(LightningTrainer(precision="16-mixed", strategy=ds, world_size=8), lit, batch=1, seq=64)
    assert plan["instances"][0]["precision"] == "fp16_master"
    with pytest.raises(ValueError, match="precision"):
        plan_from_lightning(LightningTrainer(precision="64-true"), lit, batch=1, seq=64)


def test_lightning_callback():
    from vramplan.integrations.lightning import PreflightCallback
    lit = LitModule(batch_size=2)
    cb = PreflightCallback(seq=64, free_bytes=8 * GIB)
    cb.on_fit_start(LightningTrainer(precision="bf16-mixed"), lit)  # batch from hparams.batch_size
    assert cb.estimate["fits"] and cb.estimate["preflight"]["device"] == 0
    with pytest.raises(vramplan.WillNotFit):
        PreflightCallback(batch=2, seq=64, free_bytes=32 << 20).on_fit_start(LightningTrainer(), lit)
    with pytest.raises(ValueError, match="batch"):
        PreflightCallback(seq=64, free_bytes=GIB).on_fit_start(LightningTrainer(), LitModule())
    cb = PreflightCallback(batch=1, seq=64, free_bytes=8 * GIB)
    cb.on_fit_start(LightningTrainer(strategy=FSDPStrategy(), world_size=2), lit)
    assert cb.estimate["preflight"]["device"] == 1
