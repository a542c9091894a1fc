#!/usr/bin/env python3
"""Exact parameter counts from a model's config.json, per family, analytically.

Every formula below follows the module structure of the Hugging Face modeling file
named in its docstring (transformers / diffusers); "unique parameters" are counted,
so a tied lm_head is counted once, and buffers (rotary tables, causal masks) are not
parameters. No weights are downloaded and nothing is imported beyond the standard
library.

Usage
  python3 count_params.py                 # self-check + check every preset in models/models/
  python3 count_params.py CONFIG.json [--family F]   # count one config (family defaults to model_type)

Self-check: the reference table REFERENCES below holds the exact totals of
/work/shared/reference/memory-facts.md section 10 and the params_total measured by
PyTorch in /work/shared/groundtruth/calibration.jsonl (read at run time when present).
Exit status 1 when any computed count differs from a reference or from a preset's
params_total whose params_source says it was computed by this script.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS_DIR = os.path.join(HERE, "..", "models")
CALIBRATION = "/work/shared/groundtruth/calibration.jsonl"


def _head_dim(c):
    hd = c.get("head_dim")
    return hd if hd else c["hidden_size"] // c["num_attention_heads"]


def _attention(c, qkv_bias, o_bias, qk_norm=False):
    """q/k/v/o projections of a GQA attention block.
    q: h -> a*d, k,v: h -> a_kv*d, o: a*d -> h (HF *Attention.__init__)."""
    h = c["hidden_size"]
    a = c["num_attention_heads"]
    kv = c.get("num_key_value_heads") or a
    d = _head_dim(c)
    n = h * a * d + 2 * h * kv * d + a * d * h
    if qkv_bias:
        n += a * d + 2 * kv * d
    if o_bias:
        n += h
    if qk_norm:  # Qwen3 q_norm / k_norm: RMSNorm(head_dim) each
        n += 2 * d
    return n


def _swiglu(h, f, bias=False):
    """gate_proj + up_proj (h->f) and down_proj (f->h); Phi-3 fuses gate/up, same count."""
    return 3 * h * f + ((2 * f + h) if bias else 0)


def _embeddings(c):
    h, v = c["hidden_size"], c["vocab_size"]
    tied = c.get("tie_word_embeddings", False)
    return v * h * (1 if tied else 2)


def count_decoder(c, family):
    """llama  (transformers models/llama/modeling_llama.py: LlamaAttention bias=attention_bias on
               q,k,v,o; LlamaMLP bias=mlp_bias; 2 RMSNorm(h) per layer; final norm)
       mistral (modeling_mistral.py: no biases)
       qwen2  (modeling_qwen2.py: q,k,v bias=True, o_proj bias=False)
       qwen3  (modeling_qwen3.py: bias=attention_bias, plus q_norm/k_norm RMSNorm(head_dim))
       phi3   (modeling_phi3.py: fused qkv_proj h->(a+2kv)*d and gate_up_proj h->2f, no biases)
       gemma  (modeling_gemma.py: GeGLU MLP 3*h*f, bias=attention_bias, 2 RMSNorm(h)/layer, tied)
       gemma2 (modeling_gemma2.py: as gemma + pre/post-feedforward norms: 4 RMSNorm(h)/layer)
    Total = v*h (embed) [+ v*h lm_head if untied] + L*(attn + mlp + norms) + h (final norm)."""
    h, L = c["hidden_size"], c["num_hidden_layers"]
    f = c["intermediate_size"]
    if family in ("gemma", "gemma2"):
        c = dict(c)
        c.setdefault("tie_word_embeddings", True)  # GemmaConfig / Gemma2Config default
    if family == "qwen2":
        attn = _attention(c, True, False)
    elif family == "qwen3":
        ab = c.get("attention_bias", False)
        attn = _attention(c, ab, ab, qk_norm=True)
    elif family in ("llama", "gemma", "gemma2"):
        ab = c.get("attention_bias", False)
        attn = _attention(c, ab, ab)
    else:  # mistral, phi3
        attn = _attention(c, False, False)
    mlp = _swiglu(h, f, c.get("mlp_bias", False) if family == "llama" else False)
    norms = (4 if family == "gemma2" else 2) * h
    return _embeddings(c) + L * (attn + mlp + norms) + h


def count_mixtral(c):
    """transformers models/mixtral/modeling_mixtral.py: attention as Mistral (no bias);
    MixtralSparseMoeBlock: router gate Linear(h, E, bias=False) + E experts w1,w2,w3 (3*h*f,
    f = intermediate_size per expert); 2 RMSNorm(h) per layer."""
    h, L, f, E = c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"], c["num_local_experts"]
    layer = _attention(c, False, False) + E * 3 * h * f + h * E + 2 * h
    return _embeddings(c) + L * layer + h


def count_qwen2_moe(c):
    """transformers models/qwen2_moe/modeling_qwen2_moe.py: attention as Qwen2 (q,k,v bias);
    sparse layer (i not in mlp_only_layers and (i+1) % decoder_sparse_step == 0):
      gate Linear(h, E, bias=False) + E experts SwiGLU(moe_intermediate_size)
      + shared_expert SwiGLU(shared_expert_intermediate_size) + shared_expert_gate Linear(h, 1, bias=False);
    dense layer: SwiGLU(intermediate_size); 2 RMSNorm(h) per layer."""
    h, L, E = c["hidden_size"], c["num_hidden_layers"], c["num_experts"]
    step = c.get("decoder_sparse_step", 1)
    mlp_only = set(c.get("mlp_only_layers") or [])
    attn = _attention(c, True, False)
    total = _embeddings(c) + h
    for i in range(L):
        if i not in mlp_only and E > 0 and (i + 1) % step == 0:
            mlp = h * E + E * _swiglu(h, c["moe_intermediate_size"]) \
                + _swiglu(h, c["shared_expert_intermediate_size"]) + h
        else:
            mlp = _swiglu(h, c["intermediate_size"])
        total += attn + mlp + 2 * h
    return total


def count_gpt2(c):
    """transformers models/gpt2/modeling_gpt2.py: wte v*h, wpe n_positions*h; per block ln_1 (2h),
    c_attn Conv1D h->3h (+3h), c_proj h->h (+h), ln_2 (2h), mlp c_fc h->n_inner (+n_inner),
    c_proj n_inner->h (+h), n_inner = 4h when null; ln_f (2h); lm_head tied to wte."""
    h, L, v, P = c["n_embd"], c["n_layer"], c["vocab_size"], c["n_positions"]
    inner = c.get("n_inner") or 4 * h
    block = 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + 2 * h + (h * inner + inner) + (inner * h + h)
    lm_head = 0 if c.get("tie_word_embeddings", True) else v * h
    return v * h + P * h + L * block + 2 * h + lm_head


def count_t5(c, encoder_only=False):
    """transformers models/t5/modeling_t5.py: shared Embedding(v, d_model); T5Attention q,k,v,o
    d_model <-> num_heads*d_kv, no bias; relative_attention_bias Embedding(num_buckets, heads) in the
    first layer of each stack (self-attention only); T5LayerNorm(d_model) (weight only) before each
    sub-layer and at the end of each stack; FF: relu -> wi, wo; gated-* -> wi_0, wi_1, wo; no bias.
    Decoder layers add cross-attention (+ its norm). lm_head counted only when untied."""
    d, dff, v = c["d_model"], c["d_ff"], c["vocab_size"]
    inner = c["num_heads"] * c["d_kv"]
    L = c["num_layers"]
    Ld = c.get("num_decoder_layers") or L
    buckets = c.get("relative_attention_num_buckets", 32)
    gated = str(c.get("feed_forward_proj", "relu")).startswith("gated")
    ff = (3 if gated else 2) * d * dff
    attn = 4 * d * inner
    enc = L * (attn + d + ff + d) + buckets * c["num_heads"] + d
    total = v * d + enc
    if encoder_only:
        return total
    dec = Ld * (2 * (attn + d) + ff + d) + buckets * c["num_heads"] + d
    total += dec
    if not c.get("tie_word_embeddings", True):
        total += v * d
    return total


def count_vit(c):
    """transformers models/vit/modeling_vit.py (ViTForImageClassification, no pooler) and timm
    vision_transformer.py (same tensors): patch Conv2d(C, h, p, p) + bias, cls token h,
    position embeddings (N+1)*h with N = (image/patch)^2; per layer LayerNorm (2h) x2,
    q,k,v h*h (+h each when qkv_bias), out h*h+h, fc1 h*f+f, fc2 f*h+h; final LayerNorm 2h;
    classifier h*num_labels + num_labels."""
    h, L, f = c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"]
    p, img, C = c["patch_size"], c["image_size"], c.get("num_channels", 3)
    labels = c.get("num_labels", 1000)
    n = (img // p) ** 2
    qkv_b = 3 * h if c.get("qkv_bias", True) else 0
    layer = 2 * h + 3 * h * h + qkv_b + h * h + h + 2 * h + h * f + f + f * h + h
    return C * p * p * h + h + h + (n + 1) * h + L * layer + 2 * h + h * labels + labels


def count_qwen2_vl_vision(vc):
    """transformers models/qwen2_vl/modeling_qwen2_vl.py: PatchEmbed Conv3d(in_chans, embed_dim,
    (temporal_patch_size, patch, patch), bias=False); Qwen2VLVisionBlock: norm1/norm2 LayerNorm(e),
    VisionAttention qkv Linear(e,3e)+bias, proj Linear(e,e)+bias, VisionMlp fc1 e->e*mlp_ratio (+bias),
    fc2 back (+bias); PatchMerger: ln_q LayerNorm(e), Linear(e*m^2, e*m^2)+bias, Linear(e*m^2, hidden)+bias
    with m = spatial_merge_size. Rotary tables are buffers."""
    e, depth = vc["embed_dim"], vc["depth"]
    mlp = int(e * vc.get("mlp_ratio", 4))
    p = vc.get("patch_size", vc.get("spatial_patch_size", 14))
    tp = vc.get("temporal_patch_size", 2)
    cin = vc.get("in_chans", vc.get("in_channels", 3))
    m = vc.get("spatial_merge_size", 2)
    patch = cin * tp * p * p * e
    block = 2 * e + 2 * e + (3 * e * e + 3 * e) + (e * e + e) + (e * mlp + mlp) + (mlp * e + e)
    ctx = e * m * m
    merger = 2 * e + (ctx * ctx + ctx) + (ctx * vc["hidden_size"] + vc["hidden_size"])
    return patch + depth * block + merger


def count_qwen2_vl(c):
    """Qwen2VLForConditionalGeneration = Qwen2 decoder (q,k,v bias, untied lm_head) + vision tower."""
    return count_decoder(c, "qwen2") + count_qwen2_vl_vision(c["vision_config"])


def count_cogvideox(c):
    """diffusers src/diffusers/models/transformers/cogvideox_transformer_3d.py (CogVideoXTransformer3DModel):
    D = heads*head_dim. patch_embed (CogVideoXPatchEmbed, patch_size_t None): proj Conv2d(in, D, p, p)+bias,
    text_proj Linear(text_embed_dim, D)+bias (no learned positions when rotary); time_embedding
    TimestepEmbedding Linear(D, T)+bias, Linear(T, T)+bias (T = time_embed_dim); per block 2 x
    CogVideoXLayerNormZero (Linear(T, 6D)+bias, LayerNorm(D)), Attention q,k,v (+bias when
    attention_bias), out Linear(D,D)+bias, qk LayerNorm(head_dim) x2, FeedForward D->4D->D with bias;
    norm_final LayerNorm(D); norm_out AdaLayerNorm Linear(T, 2D)+bias, LayerNorm(D);
    proj_out Linear(D, p*p*out_channels)+bias."""
    heads, hd = c["num_attention_heads"], c["attention_head_dim"]
    D, T = heads * hd, c.get("time_embed_dim", 512)
    p, cin = c["patch_size"], c["in_channels"]
    cout = c.get("out_channels") or cin
    if c.get("patch_size_t"):
        raise ValueError("CogVideoX 1.5 (patch_size_t) is not modelled")
    ab = D if c.get("attention_bias", True) else 0
    patch = cin * p * p * D + D + c["text_embed_dim"] * D + D
    if c.get("use_learned_positional_embeddings"):
        raise ValueError("learned positional embeddings are not modelled")
    time = (D * T + T) + (T * T + T)
    ofs = c.get("ofs_embed_dim")
    if ofs:
        time += (ofs * ofs + ofs) * 2
    norm_zero = (T * 6 * D + 6 * D) + 2 * D
    attn = 3 * (D * D + ab) + (D * D + D) + 2 * (2 * hd)
    ff = (D * 4 * D + 4 * D) + (4 * D * D + D)
    block = 2 * norm_zero + attn + ff
    out = 2 * D + (T * 2 * D + 2 * D) + 2 * D + (D * p * p * cout + p * p * cout)
    return patch + time + c["num_layers"] * block + out


def count(config, family=None):
    fam = family or config.get("model_type")
    if fam in ("llama", "mistral", "qwen2", "qwen3", "phi3", "gemma", "gemma2"):
        return count_decoder(config, fam)
    if fam == "mixtral":
        return count_mixtral(config)
    if fam == "qwen2_moe":
        return count_qwen2_moe(config)
    if fam == "gpt2":
        return count_gpt2(config)
    if fam == "t5":
        return count_t5(config)
    if fam == "t5_encoder":
        return count_t5(config, encoder_only=True)
    if fam == "vit":
        return count_vit(config)
    if fam == "qwen2_vl":
        return count_qwen2_vl(config)
    if fam == "cogvideox":
        return count_cogvideox(config)
    raise ValueError("no formula for family %r" % fam)


# Exact totals from independent sources, checked on every run.
# (name, family, config-or-preset-id, expected, source)
REFERENCES = [
    ("Llama-2-7b", None, "llama-2-7b", 6738415616, "memory-facts.md s10"),
    ("Llama-3.1-8B", None, "llama-3.1-8b", 8030261248, "memory-facts.md s10"),
    ("Llama-3.1-70B", None, "llama-3.1-70b", 70553706496, "memory-facts.md s10"),
    ("Mistral-7B-v0.1", None, "mistral-7b-v0.1", 7241732096, "memory-facts.md s10"),
    ("Mixtral-8x7B-v0.1", None, "mixtral-8x7b-v0.1", 46702792704, "memory-facts.md s8/s10"),
    ("Qwen2.5-7B", None, "qwen2.5-7b", 7615616512, "memory-facts.md s10"),
    ("Phi-3-mini-4k", None, "phi-3-mini-4k", 3821079552, "memory-facts.md s10"),
    ("gemma-2-9b", None, "gemma-2-9b", 9241705984, "memory-facts.md s10"),
    ("gpt2 (124M)", None, "gpt2", 124439808, "memory-facts.md s10"),
    ("t5-base", None, "t5-base", 222903552, "memory-facts.md s10"),
    ("Qwen2-VL-7B", None, "qwen2-vl-7b", 8291375616, "memory-facts.md s10"),
    ("Qwen2-VL-7B vision tower", "qwen2_vl_vision", "qwen2-vl-7b", 675759104, "memory-facts.md s10"),
    ("CogVideoX-5b transformer", None, "cogvideox-5b", 5570283072, "memory-facts.md s10 (analytic there too)"),
    ("t5-v1_1-xxl encoder", "t5_encoder",
     {"model_type": "t5", "d_model": 4096, "d_ff": 10240, "d_kv": 64, "num_heads": 64, "num_layers": 24,
      "vocab_size": 32128, "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False},
     4762310656, "memory-facts.md s10"),
]


def load_preset(pid):
    with open(os.path.join(MODELS_DIR, pid + ".json")) as fh:
        return json.load(fh)


def _count_ref(fam, cfg):
    if fam == "qwen2_vl_vision":
        return count_qwen2_vl_vision(cfg["vision_config"])
    if fam == "t5_encoder":
        return count_t5(cfg, encoder_only=True)
    return count(cfg)


def self_check():
    bad = 0
    print("== references (memory-facts.md s8/s10) ==")
    for name, fam, src, expected, where in REFERENCES:
        if isinstance(src, str):
            preset = load_preset(src)
            cfg = preset["config"]
            if fam is None:
                fam_used = preset["family"]
                got = count(cfg, fam_used)
            else:
                got = _count_ref(fam, cfg)
        else:
            got = _count_ref(fam, src)
        ok = got == expected
        bad += not ok
        print("%-28s %16d %16d %s  (%s)" % (name, got, expected, "ok" if ok else "MISMATCH", where))

    if os.path.exists(CALIBRATION):
        print("== calibration.jsonl measured params_total (distinct model_config) ==")
        seen = set()
        with open(CALIBRATION) as fh:
            for line in fh:
                r = json.loads(line)
                key = json.dumps(r["model_config"], sort_keys=True)
                if key in seen:
                    continue
                seen.add(key)
                got = count(r["model_config"])
                exp = r["measured"]["params_total"]
                ok = got == exp
                bad += not ok
                print("%-28s %16d %16d %s" % (r["model"], got, exp, "ok" if ok else "MISMATCH"))

    print("== presets in models/models/ ==")
    for fn in sorted(os.listdir(MODELS_DIR)):
        if not fn.endswith(".json"):
            continue
        p = load_preset(fn[:-5])
        if p["family"] not in ("cogvideox",) and "_class_name" in p["config"]:
            # diffusers pipelines other than CogVideoX: counted by core/src/dit_params.c and checked
            # against safetensors index sizes in tests/core/test_diffusion_params.c
            print("%-28s %16d %16s skipped (diffusers pipeline, checked in C)" % (p["id"], p["params_total"], ""))
            continue
        got = count(p["config"], p["family"])
        pt = p["params_total"]
        if pt is None:
            status = "no params_total"
        elif pt == got:
            status = "ok"
        else:
            status = "DIFFERS"
            if "count_params.py" in p["params_source"]:
                bad += 1
                status = "MISMATCH"
        print("%-28s %16d %16s %s" % (p["id"], got, pt, status))
    return bad


def main(argv):
    if len(argv) > 1:
        with open(argv[1]) as fh:
            cfg = json.load(fh)
        fam = None
        if "--family" in argv:
            fam = argv[argv.index("--family") + 1]
        print(count(cfg, fam))
        return 0
    bad = self_check()
    print("mismatches:", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
