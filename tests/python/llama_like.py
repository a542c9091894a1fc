"""A Llama-shaped model written out by hand in plain torch (transformers is not installed here), built
from a config the way transformers' modeling_llama.py builds LlamaForCausalLM: embed_tokens, blocks of
self_attn (q_proj, k_proj, v_proj, o_proj, no bias), mlp (gate_proj, up_proj, down_proj, no bias) and two
RMSNorm weights (input_layernorm, post_attention_layernorm), the final norm and lm_head. Also minimal
stand-ins of PEFT's LoRA wrapping (peft/tuners/lora/layer.py LoraLayer: base_layer, lora_A / lora_B
ModuleDicts keyed by adapter name; peft_model.py PeftModel.peft_config, active_adapter,
get_base_model; tuners/lora/config.py LoraConfig r, lora_alpha, lora_dropout, target_modules)."""
import torch
from torch import nn


class LlamaConfigStandIn:
    """The fields of transformers' LlamaConfig that shape the model; to_dict() as PretrainedConfig has it."""
    model_type = "llama"

    def __init__(self, **kw):
        self.vocab_size = kw.get("vocab_size", 1000)
        self.hidden_size = kw.get("hidden_size", 64)
        self.intermediate_size = kw.get("intermediate_size", 172)
        self.num_hidden_layers = kw.get("num_hidden_layers", 2)
        self.num_attention_heads = kw.get("num_attention_heads", 4)
        self.num_key_value_heads = kw.get("num_key_value_heads", 2)
        self.max_position_embeddings = kw.get("max_position_embeddings", 2048)
        self.rms_norm_eps = 1e-5
        self.tie_word_embeddings = kw.get("tie_word_embeddings", False)
        self.attention_bias = False
        self.mlp_bias = False
        self.torch_dtype = kw.get("torch_dtype", torch.float32)  # a torch.dtype, as in a loaded config
        self._attn_implementation = kw.get("attn", "sdpa")

    def to_dict(self):
        out = {k: v for k, v in vars(self).items() if not k.startswith("_")}
        out["model_type"] = self.model_type
        return out


class RMSNorm(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        hd = c.hidden_size // c.num_attention_heads
        self.q_proj = nn.Linear(c.hidden_size, c.num_attention_heads * hd, bias=False)
        self.k_proj = nn.Linear(c.hidden_size, c.num_key_value_heads * hd, bias=False)
        self.v_proj = nn.Linear(c.hidden_size, c.num_key_value_heads * hd, bias=False)
        self.o_proj = nn.Linear(c.num_attention_heads * hd, c.hidden_size, bias=False)


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.up_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.down_proj = nn.Linear(c.intermediate_size, c.hidden_size, bias=False)


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = Attention(c)
        self.mlp = MLP(c)
        self.input_layernorm = RMSNorm(c.hidden_size)
        self.post_attention_layernorm = RMSNorm(c.hidden_size)


class LlamaModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c.vocab_size, c.hidden_size)
        self.layers = nn.ModuleList([DecoderLayer(c) for _ in range(c.num_hidden_layers)])
        self.norm = RMSNorm(c.hidden_size)


class LlamaForCausalLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.model = LlamaModel(c)
        self.lm_head = nn.Linear(c.hidden_size, c.vocab_size, bias=False)
        if c.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight
        self.is_gradient_checkpointing = False


class LoraConfigStandIn:
    peft_type = "LORA"

    def __init__(self, r, lora_alpha, lora_dropout, target_modules):
        self.r, self.lora_alpha, self.lora_dropout, self.target_modules = r, lora_alpha, lora_dropout, target_modules


class LoraLinear(nn.Module):
    """peft LoraLayer over an nn.Linear: the frozen base_layer and lora_A/lora_B per adapter."""

    def __init__(self, base, r, adapter="default"):
        super().__init__()
        self.base_layer = base
        self.lora_A = nn.ModuleDict({adapter: nn.Linear(base.in_features, r, bias=False)})
        self.lora_B = nn.ModuleDict({adapter: nn.Linear(r, base.out_features, bias=False)})


class LoraModel(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model


class PeftModelStandIn(nn.Module):
    """get_peft_model(model, LoraConfig(...)): freezes the base, wraps the targets."""

    def __init__(self, model, cfg, adapter="default"):
        super().__init__()
        for p in model.parameters():
            p.requires_grad_(False)
        for layer in model.model.layers:
            for t in cfg.target_modules:
                owner = layer.self_attn if hasattr(layer.self_attn, t) else layer.mlp
                setattr(owner, t, LoraLinear(getattr(owner, t), cfg.r, adapter))
        self.base_model = LoraModel(model)
        self.peft_config = {adapter: cfg}
        self.active_adapter = adapter

    def get_base_model(self):
        return self.base_model.model
