"""plan_from_model on live torch modules (Debian's python3-torch, CPU): exact parameter counts, frozen
parts, PEFT LoRA, dtypes, and bad input."""
import json
from types import SimpleNamespace

import pytest
import torch
from torch import nn

import vramplan
from llama_like import LlamaConfigStandIn, LlamaForCausalLM, LoraConfigStandIn, PeftModelStandIn

# The model of llama_like.py with its default config, counted by hand:
#   H = 64, heads 4 -> head_dim 16, kv heads 2 -> k/v width 32, I = 172, V = 1000, L = 2
#   embed_tokens V*H = 64,000;  lm_head H*V = 64,000 (untied)
#   per layer: q 64*64 + k 64*32 + v 64*32 + o 64*64 = 12,288; mlp 3*64*172 = 33,024; 2 norms 128
#             = 45,440; x 2 layers = 90,880;  final norm 64
#   total 64,000 + 90,880 + 64 + 64,000 = 218,944
LLAMA_TOTAL = 218944
EMBED = LM_HEAD = 64000


def core_counts(plan):
    est = vramplan.estimate(plan)
    info = est["instances"][0]
    return info["params_total"], info["params_trainable"]


def test_llama_shaped_model_exact_count():
    model = LlamaForCausalLM(LlamaConfigStandIn())
    assert sum(p.numel() for p in model.parameters()) == LLAMA_TOTAL  # the hand count is the module's
    plan = vramplan.plan_from_model(model, batch=2, seq=128)
    inst = plan["instances"][0]
    assert inst["model"]["hf_config"]["model_type"] == "llama"
    assert inst["model"]["hf_config"]["torch_dtype"] == "float32"  # a torch.dtype written as its name
    assert inst["precision"] == "fp32" and "finetune" not in inst
    assert inst["attn"] == "sdpa"
    assert core_counts(plan) == (LLAMA_TOTAL, LLAMA_TOTAL)
    assert "218,944 parameters (218,944 trainable, 0 frozen)" in plan["note"]
    assert "The core counts 218,944 parameters (218,944 trainable) from the config: the same." in plan["note"]
    assert plan["workload"] == {"mode": "train", "batch": 2, "seq": 128}


def test_tied_embeddings_are_counted_once():
    model = LlamaForCausalLM(LlamaConfigStandIn(tie_word_embeddings=True))
    assert core_counts(vramplan.plan_from_model(model, batch=1, seq=64)) == (LLAMA_TOTAL - LM_HEAD,) * 2


def test_bigger_config_exact():
    # H 256, heads 8 (hd 32), kv 8 (width 256), I 688, V 32000, L 3:
    #   embed 8,192,000 + lm_head 8,192,000; layer: attn 4*256*256 = 262,144, mlp 3*256*688 = 528,384,
    #   norms 512 -> 791,040 x 3 = 2,373,120; final norm 256 -> 18,757,376
    cfg = LlamaConfigStandIn(hidden_size=256, num_attention_heads=8, num_key_value_heads=8, intermediate_size=688,
                             vocab_size=32000, num_hidden_layers=3)
    model = LlamaForCausalLM(cfg)
    assert sum(p.numel() for p in model.parameters()) == 18757376
    assert core_counts(vramplan.plan_from_model(model, batch=1, seq=64))[0] == 18757376


def test_frozen_groups_trainable_and_frozen():
    model = LlamaForCausalLM(LlamaConfigStandIn())
    model.model.embed_tokens.weight.requires_grad_(False)
    model.lm_head.weight.requires_grad_(False)
    plan = vramplan.plan_from_model(model, batch=1, seq=64)
    ft = plan["instances"][0]["finetune"]
    assert ft == {"method": "full", "freeze": ["embeddings", "lm_head"]}
    # 218,944 - 64,000 - 64,000 = 90,944 trainable
    assert core_counts(plan) == (LLAMA_TOTAL, 90944)
    assert "(90,944 trainable, 128,000 frozen)" in plan["note"]


def test_frozen_norms_and_attention():
    model = LlamaForCausalLM(LlamaConfigStandIn())
    for layer in model.model.layers:
        for p in layer.self_attn.parameters():
            p.requires_grad_(False)
        layer.input_layernorm.weight.requires_grad_(False)
        layer.post_attention_layernorm.weight.requires_grad_(False)
    model.model.norm.weight.requires_grad_(False)
    plan = vramplan.plan_from_model(model, batch=1, seq=64)
    assert plan["instances"][0]["finetune"]["freeze"] == ["attention", "norms"]
    # frozen: 2 x 12,288 attention + 2 x 128 + 64 norms = 24,896
    assert core_counts(plan) == (LLAMA_TOTAL, LLAMA_TOTAL - 24896)


def test_partly_frozen_group_is_planned_trainable_and_said():
    model = LlamaForCausalLM(LlamaConfigStandIn())
    for p in model.model.layers[0].mlp.parameters():  # one layer's MLP: no plan group says that
        p.requires_grad_(False)
    plan = vramplan.plan_from_model(model, batch=1, seq=64)
    assert "freeze" not in plan["instances"][0]["finetune"]
    assert "Frozen parameters in mlp" in plan["note"]
    assert "(185,920 trainable, 33,024 frozen)" in plan["note"]  # 218,944 - 33,024
    assert core_counts(plan) == (LLAMA_TOTAL, LLAMA_TOTAL)  # conservative: the whole MLP trains


def test_bf16_weights_give_bf16():
    model = LlamaForCausalLM(LlamaConfigStandIn()).to(torch.bfloat16)
    plan = vramplan.plan_from_model(model, batch=1, seq=64)
    assert plan["instances"][0]["precision"] == "bf16"
    assert "bfloat16 218,944" in plan["note"]
    est = vramplan.estimate(plan)
    w = [c for c in est["devices"][0]["components"] if c["id"] == "weights"][0]
    assert w["bytes"] == 2 * LLAMA_TOTAL


def test_peft_lora():
    model = PeftModelStandIn(LlamaForCausalLM(LlamaConfigStandIn()),
                             LoraConfigStandIn(r=8, lora_alpha=16, lora_dropout=0.05, target_modules={"q_proj", "v_proj"}))
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    # per layer: q (A 8x64 + B 64x8) 1,024 + v (A 8x64 + B 32x8) 768 = 1,792; x 2 layers = 3,584
    assert trainable == 3584
    plan = vramplan.plan_from_model(model, batch=1, seq=64, optimizer="adamw")
    inst = plan["instances"][0]
    assert inst["finetune"] == {"method": "lora", "lora": {"r": 8, "alpha": 16, "dropout": 0.05,
                                                            "targets": ["q_proj", "v_proj"], "dtype": "fp32"}}
    total, core_trainable = core_counts(plan)
    assert core_trainable == 3584
    assert total == LLAMA_TOTAL  # the base model's parameters; the adapters are the trainable ones
    assert "from the config: the same." in plan["note"]
    est = vramplan.estimate(plan)
    adapters = [c for c in est["devices"][0]["components"] if c["id"] == "adapters"][0]
    assert adapters["bytes"] == 4 * 3584


class Params4bitStandIn(nn.Parameter):
    """bitsandbytes Params4bit: two 4-bit values per uint8, the original shape in quant_state.shape."""

    def __new__(cls, shape):
        data = torch.zeros(((shape[0] * shape[1] + 1) // 2, 1), dtype=torch.uint8)
        p = super().__new__(cls, data, requires_grad=False)
        p.quant_state = SimpleNamespace(shape=torch.Size(shape))
        return p


def test_qlora_from_a_4bit_model():
    cfg = LlamaConfigStandIn()
    # transformers BitsAndBytesConfig.to_dict() fields
    cfg.quantization_config = {"load_in_4bit": True, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True,
                               "bnb_4bit_compute_dtype": "bfloat16"}
    model = LlamaForCausalLM(cfg)
    for layer in model.model.layers:  # Linear4bit in the blocks; embeddings, norms and lm_head stay
        for mod in list(layer.self_attn.children()) + list(layer.mlp.children()):
            mod.weight = Params4bitStandIn(tuple(mod.weight.shape))
    model = PeftModelStandIn(model, LoraConfigStandIn(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=["q_proj", "v_proj"]))
    counts = vramplan.from_model.parameter_counts(model)
    # the 4-bit weights: 2 x (12,288 + 33,024) = 90,624 of the 218,944; adapters 3,584 (fp32)
    assert counts["by_dtype"]["4bit"] == 90624
    assert counts["total"] == LLAMA_TOTAL + 3584
    plan = vramplan.plan_from_model(model, batch=1, seq=64)
    inst = plan["instances"][0]
    assert (inst["quant"], inst["double_quant"], inst["finetune"]["method"], inst["precision"]) == ("nf4", True, "qlora", "bf16")
    assert core_counts(plan) == (LLAMA_TOTAL, 3584)
    assert "from the config: the same." in plan["note"]


def test_lora_argument_plans_adapters_not_applied_yet():
    model = LlamaForCausalLM(LlamaConfigStandIn())
    plan = vramplan.plan_from_model(model, batch=1, seq=64, lora={"r": 4, "targets": ["q_proj"]})
    assert plan["instances"][0]["finetune"] == {"method": "lora", "lora": {"r": 4, "targets": ["q_proj"]}}
    # q only: per layer A 4x64 + B 64x4 = 512; x 2 = 1,024
    assert core_counts(plan)[1] == 1024


def test_plain_module_counts_and_note():
    model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))
    model[0].weight.requires_grad_(False)
    model[2].to(torch.float16)
    counts = vramplan.from_model.parameter_counts(model)
    # Linear(10, 20): 200 + 20; Linear(20, 5): 100 + 5 (fp16); frozen: the first weight, 200
    assert counts == {"total": 325, "trainable": 125, "frozen": 200, "by_dtype": {"float32": 220, "float16": 105}}
    plan = vramplan.plan_from_model(model, batch=1, seq=1)
    assert "model" not in plan["instances"][0]
    assert "325 parameters (125 trainable, 200 frozen); dtypes: float16 105, float32 220" in plan["note"]
    assert "activations need a config" in plan["note"]
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.estimate(plan)
    assert e.value.path == "instances[0].model"


def test_plain_module_with_a_config():
    model = LlamaForCausalLM(LlamaConfigStandIn())
    cfg = model.config.to_dict()
    del model.config
    plan = vramplan.plan_from_model(model, batch=1, seq=64, config=cfg)
    assert core_counts(plan) == (LLAMA_TOTAL, LLAMA_TOTAL)
    plan = vramplan.plan_from_model(model, batch=1, seq=64, config={"preset": "llama-3.2-1b"})
    assert "the module has 218,944" in plan["note"]  # the preset does not describe this module


def test_gradient_checkpointing_and_attention_are_read():
    cfg = LlamaConfigStandIn(attn="eager")
    model = LlamaForCausalLM(cfg)
    model.is_gradient_checkpointing = True
    inst = vramplan.plan_from_model(model, batch=1, seq=64)["instances"][0]
    assert inst["grad_ckpt"] == {"every": 1} and inst["attn"] == "eager"


def test_torch_optimizer_instances():
    model = LlamaForCausalLM(LlamaConfigStandIn())
    f = vramplan.from_model.optimizer_from
    assert f(torch.optim.AdamW(model.parameters(), foreach=False)) == {"name": "adamw", "impl": "forloop"}
    assert f(torch.optim.AdamW(model.parameters())) == {"name": "adamw", "impl": "foreach"}
    adam = torch.optim.Adam(model.parameters())
    adam.param_groups[0]["fused"] = True  # fused=True needs CUDA parameters in torch 1.13
    assert f(adam) == {"name": "adam", "impl": "fused"}
    assert f(torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)) == {"name": "sgd_momentum"}
    assert f(torch.optim.SGD(model.parameters(), lr=0.1)) == {"name": "sgd"}
    with pytest.raises(ValueError, match="Adagrad"):
        f(torch.optim.Adagrad(model.parameters()))


@pytest.mark.parametrize("kw, field", [
    (dict(batch=0, seq=64), "batch"), (dict(batch="2", seq=64), "batch"), (dict(batch=True, seq=64), "batch"),
    (dict(batch=1, seq=-5), "seq"), (dict(batch=1, seq=64, mode="serve"), "mode"),
    (dict(batch=1, seq=64, gpu=5), "gpu"), (dict(batch=1, seq=64, lora=[8]), "lora"),
])
def test_bad_arguments_name_the_field(kw, field):
    model = LlamaForCausalLM(LlamaConfigStandIn())
    with pytest.raises(ValueError, match=field):
        vramplan.plan_from_model(model, **kw)


def test_not_a_module():
    with pytest.raises(ValueError, match="model must be a torch.nn.Module"):
        vramplan.plan_from_model({"hidden_size": 4}, batch=1, seq=1)


def test_core_refusals_come_back_as_plan_errors():
    model = LlamaForCausalLM(LlamaConfigStandIn())
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.plan_from_model(model, batch=1, seq=64, precision="fp64")
    assert e.value.path == "instances[0].precision"
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.plan_from_model(model, batch=1, seq=64, gpu="no-such-gpu")
    assert e.value.path == "hardware.gpu"
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.plan_from_model(model, batch=1, seq=64, lora={"r": 4, "targets": ["c_attn"]})
    assert e.value.path == "instances[0].finetune.lora.targets"


def test_plan_is_json_and_round_trips():
    model = LlamaForCausalLM(LlamaConfigStandIn())
    plan = vramplan.plan_from_model(model, batch=2, seq=128, gpu="rtx-4090")
    text = json.dumps(plan)
    assert vramplan.estimate_json(text) == vramplan.estimate_json(plan)
