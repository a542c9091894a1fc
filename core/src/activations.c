/* activations.c: the tensors autograd saves for backward, per block and per token.
 * Each family is written as the list of tensors its Hugging Face / timm forward keeps, with the
 * op that keeps it. Cross-checked per layer against memory-facts.md §1.4 (measured, Llama layer:
 * 49·sbh full bf16, 72.1·sbh LoRA, 2·sbh with checkpointing) and against the calibration records. */
#include <string.h>

#include "terms.h"

/* Which SDPA backend PyTorch 2.11 picks (torch/nn/attention sdp_utils): flash needs fp16/bf16 and
 * head_dim <= 256; mem-efficient takes fp32 but has no GQA kernel (memory-facts §1.2: "No available
 * kernel"), so fp32 + GQA falls back to the math backend, which materializes the s×s probabilities. */
static const char *sdpa_kernel(const vp_instance *in, int half, int gqa) {
    if (in->attn == VP_ATTN_EAGER) return "eager";
    if (half && in->arch.head_dim <= 256 && in->arch.head_dim % 8 == 0) return "flash";
    if (!gqa) return "mem-efficient";
    return "math";
}

/* One RMSNorm/LayerNorm over width w, given the dtype of the residual stream entering it.
 * HF LlamaRMSNorm (modeling_llama.py L62-67): x.to(fp32) saved by pow/mul; the normalized tensor
 * (cast back to the input dtype) saved by `weight *` when the weight trains. */
static double norm_saved(double res_b, double w, int weight_trains, vp_norm kind) {
    double b = 0;
    if (kind == VP_NORM_RMS) {
        b += 4.0 * w;                        /* fp32 copy of the input (the input itself if already fp32) */
        if (weight_trains) b += res_b * w;   /* normalized, in the input dtype */
        b += 4.0;                            /* rsqrt(variance) per token */
    } else {
        b += res_b * w + 8.0;                /* native_layer_norm saves input, mean and rstd */
    }
    return b;
}

static void decoder_acts(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, qd = (double)(a->heads * a->head_dim), kvd = (double)(a->kv_heads * a->head_dim);
    double f = (double)a->inter, s = (double)plan->seq, heads = (double)a->heads;
    int amp = vp_is_amp(in), full = in->ft == VP_FT_FULL;
    double adt = vp_dtype_bytes(vp_act_dtype(in));
    double res = amp ? 4.0 : adt; /* residual stream dtype: fp32 master weights keep it fp32 under autocast */
    int gqa = a->kv_heads != a->heads;
    const char *kern = sdpa_kernel(in, adt < 4, gqa);
    r->attn_kernel = kern;
    int moe = a->experts > 0;
    double fe = moe ? (double)a->expert_inter * (double)a->experts_per_tok : f;

    double L = 0;
    /* norms before attention and MLP (gemma2 adds two post-norms) */
    if (a->norm_fp32) {
        /* GemmaRMSNorm (modeling_gemma2.py): x.float() saved by pow/mul, and the fp32 normalized
         * tensor saved by `* (1.0 + weight.float())` when the weight trains; output cast back */
        L += (double)a->norms_per_layer * (4.0 * h + (full ? 4.0 * h : 0.0) + 4.0);
    } else {
        L += (double)a->norms_per_layer * norm_saved(res, h, full, a->norm);
    }
    double R = L; /* replicated under tensor parallelism (hidden-width), divided only with SP */
    /* qwen3 q_norm / k_norm (Qwen3RMSNorm over head_dim, modeling_qwen3.py): per head like LlamaRMSNorm,
     * the fp32 copy of q (k) and, when the weight trains, the normalized tensor in the input dtype */
    if (a->qk_norm) L += (4.0 + (full ? adt : 0.0)) * (qd + kvd) + 8.0 * (heads + (double)a->kv_heads);
    /* inputs of the attention projections, saved only when their weights train */
    if (full) {
        if (amp) L += (a->fused_qkv ? 1.0 : 3.0) * 2.0 * h; /* autocast casts the input per linear */
        else L += adt * h;                                /* q, k, v share one saved input */
        R = L;
    }
    /* attention core */
    double attn_s = 0;
    double kv_extra = 0, kv_total = 0;
    if (!strcmp(kern, "flash") || !strcmp(kern, "mem-efficient")) {
        /* saves q, k, v (k, v at a_kv heads with enable_gqa), out and the fp32 logsumexp */
        L += adt * (qd + 2.0 * kvd) + adt * qd + 4.0 * heads;
        /* o_proj input shares the SDPA output (flash returns the (b, s, a, d) layout).
         * use_cache defaults to True, so HF (>= 4.56 cache_utils.py DynamicLayer.update) keeps
         * K = cat([empty, k]) and V copies and hands those copies to attention: SDPA saves the very
         * same tensors, so the cache costs nothing extra until backward frees the graph. Under
         * autocast K is fp32 after RoPE (cos/sin follow the fp32 hidden states) and SDPA saves a
         * bf16 cast of it, so the fp32 K is extra. */
        kv_total = (amp ? 4.0 : adt) * kvd + adt * kvd;
        kv_extra = amp ? 4.0 * kvd : 0.0;
    } else if (!strcmp(kern, "math")) {
        /* _scaled_dot_product_attention_math: repeat_interleave K,V to a heads, scale q and k, fp32
         * probabilities (b, a, s, s) saved by the second matmul */
        L += adt * qd * 3.0;      /* q·√scale, k·√scale, repeated v */
        attn_s += adt * heads * s; /* softmax output, per token */
        L += adt * qd;            /* o_proj input: contiguous copy of the transposed output */
        kv_total = 2.0 * adt * kvd;
        kv_extra = kv_total;
    } else {
        /* HF eager_attention_forward: repeat_kv (copies for GQA), softmax(dtype=fp32) saved, its
         * bf16 cast saved by attn @ V, contiguous copy of the output for o_proj (memory-facts §1.2:
         * "HF eager keeps 6as²b") */
        L += adt * qd;                          /* q */
        L += gqa ? 2.0 * adt * qd : 2.0 * adt * kvd; /* repeated k, v */
        attn_s += 4.0 * heads * s + (adt < 4 ? adt * heads * s : 0.0);
        if (a->attn_dropout > 0) attn_s += (1.0 + adt) * heads * s;
        L += adt * qd;
        kv_total = (amp ? 4.0 : adt) * kvd + adt * kvd;
        kv_extra = gqa ? kv_total : (amp ? 4.0 * kvd : 0.0);
    }
    if (!full) {
        /* frozen o_proj saves nothing, but the SDPA output is still saved by SDPA itself (counted) */
    }
    /* MLP */
    if (full) {
        if (amp) L += (a->fused_gate_up ? 1.0 : (a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU ? 2.0 : 1.0)) * 2.0 * h;
        else L += adt * h;
    }
    if (a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU) {
        /* gate out (saved by act), act out and up out (saved by the product) */
        L += 3.0 * adt * fe;
        if (a->fused_gate_up) L += 0; /* phi3 chunks the fused output: same tensors as views */
        if (full) L += adt * fe;      /* product = down_proj input */
    } else {
        L += adt * fe;                /* fc1 output saved by the activation */
        if (full) L += adt * fe;      /* activation output = fc2 input */
    }
    if (moe) {
        /* transformers 5.17 MixtralSparseMoeBlock / MixtralExperts (memory-facts §8): the router's
         * fp32 softmax (saved), top-k weights; per routed (token, expert) pair the gathered input
         * hidden_states[token_idx] (saved by the expert's gate_up linear when it trains) and the
         * expert's output (saved by `* top_k_weights`); int64 token indices kept by gather and
         * index_add_. The gate/up/act/product terms are counted above with f = k · expert f. */
        double E = (double)a->experts, k = (double)a->experts_per_tok;
        L += 4.0 * E + 4.0 * k + (full ? adt * h * k : 0.0) + adt * h * k + 16.0 * k;
    }
    if (full) {
        double mlp_in = amp ? (a->fused_gate_up ? 1.0 : (a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU ? 2.0 : 1.0)) * 2.0 * h : adt * h;
        R += mlp_in;
    }
    if (a->resid_dropout > 0) {
        L += 2.0 * h; /* two residual dropout masks */
        R += 2.0 * h;
    }
    L += vp_lora_act_per_token_layer(in);
    r->layer = L + attn_s;
    r->layer_repl = R;
    r->layer_attn_s = attn_s;
    r->kv_extra = kv_extra;
    r->kv_total = kv_total;
    r->ckpt_layer = res * h; /* non-reentrant checkpoint keeps the block input */
    /* outside the blocks: final norm and the lm_head input */
    r->outside = a->norm_fp32 ? 4.0 * h + (full ? 4.0 * h : 0.0) + 4.0 : norm_saved(res, h, full, a->norm);
    if (full) r->outside += amp ? 2.0 * h : adt * h;
    /* one block's backward, net of the saved tensors it frees as it goes: the gated product's
     * backward holds the incoming gradient and the two gradients of act(gate) and up at once, while
     * down_proj's saved input is already freed (autograd releases a node's saved tensors when it has
     * run); plus the gradients of the hidden state */
    r->bwd_temp = ((a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU) ? 2.0 : 1.0) * adt * fe + 2.0 * res * h;
    /* LoRA: the adapter path returns the gradient of its (cast) input in the adapter dtype, beside the
     * base path's gradient, before the two are summed: one more input-wide tensor for the widest
     * adapted input (down_proj's f when it is targeted) */
    if ((in->ft == VP_FT_LORA || in->ft == VP_FT_QLORA) && in->lora_targets) {
        double widest = (in->lora_targets & (VP_T_DOWN | VP_T_FC2)) ? fe : h;
        r->bwd_temp += (double)vp_dtype_bytes(in->lora_dtype) * widest;
    }
    r->fwd_temp = 2.0 * adt * fe + 4.0 * heads * s * (!strcmp(kern, "eager") || !strcmp(kern, "math") ? 1.0 : 0.0);
    r->tokens = plan->batch * plan->seq;
    r->layers = a->layers;
}

/* GPT2Block (transformers models/gpt2/modeling_gpt2.py): LayerNorm, Conv1D c_attn (addmm saves its
 * input), SDPA over views of the c_attn output, c_proj, dropouts (p = 0.1 by default), and the
 * "gelu_new" activation written as Python ops (activations.py NewGELUActivation):
 * 0.5·x·(1 + tanh(√(2/π)(x + 0.044715·x³))) keeps x (pow), tanh's output, 0.5·x and (1 + tanh).
 * Under autocast, pow runs in fp32 (autocast fp32 op list), so those copies are fp32. */
static void gpt2_acts(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, s = (double)plan->seq, heads = (double)a->heads;
    int amp = vp_is_amp(in), full = in->ft == VP_FT_FULL;
    double adt = vp_dtype_bytes(vp_act_dtype(in));
    double res = amp ? 4.0 : adt;
    const char *kern = sdpa_kernel(in, adt < 4, 0);
    r->attn_kernel = kern;
    double L = 0, attn_s = 0;
    L += 2.0 * (res * h + 8.0);                  /* ln_1, ln_2 inputs */
    L += full ? 2.0 * (amp ? 2.0 : adt) * h : 0; /* c_attn and c_fc inputs (autocast casts) */
    L += adt * 3.0 * h;                          /* q, k, v: one c_attn output storage */
    if (!strcmp(kern, "eager")) {
        /* matmul(q, kᵀ) scaled, softmax in fp32 under autocast (saved), dropout mask and output */
        attn_s += 4.0 * heads * s;
        if (a->attn_dropout > 0) attn_s += (1.0 + adt) * heads * s;
        else if (adt < 4) attn_s += adt * heads * s;
        L += adt * h; /* c_proj input: contiguous copy of the merged heads */
    } else {
        L += adt * h + 4.0 * heads; /* SDPA output (shared with c_proj input) + logsumexp */
    }
    double drop = a->resid_dropout > 0 ? 1.0 : 0.0;
    L += 2.0 * drop * h;                          /* attention and MLP residual dropout masks */
    if (a->gelu_python) {
        double up = amp ? 4.0 : adt;              /* pow promotes to fp32 under autocast */
        L += up * f /* x (pow) */ + up * f /* tanh out */ + adt * f /* 0.5·x */ + up * f /* 1 + tanh */;
    } else {
        L += adt * f;                             /* gelu input */
    }
    if (full) L += adt * f;                       /* c_proj input (the activation's output) */
    r->layer = L + attn_s;
    r->layer_attn_s = attn_s;
    r->kv_total = 2.0 * adt * h; /* DynamicCache K, V copies (use_cache defaults to True) */
    r->kv_extra = r->kv_total;
    r->ckpt_layer = res * h;
    r->outside = (a->embd_dropout > 0 ? 1.0 * h : 0.0) + res * h + 8.0 + (full ? (amp ? 2.0 : adt) * h : 0);
    r->bwd_temp = 3.0 * adt * f + 2.0 * res * h;
    r->fwd_temp = (amp ? 4.0 : adt) * f + (!strcmp(kern, "eager") ? 4.0 * heads * s : 0.0);
    r->tokens = plan->batch * plan->seq;
    r->layers = a->layers;
}

/* timm VisionTransformer Block: norm1, qkv Linear, F.scaled_dot_product_attention over views of the
 * qkv output, transpose+reshape copy into proj, norm2, fc1, nn.GELU (saves its input), fc2. */
static void vit_acts(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, heads = (double)a->heads;
    int64_t img = plan->image_size ? plan->image_size : a->image_size;
    int64_t n = (img / a->patch_size) * (img / a->patch_size) + 1; /* patches + class token */
    int amp = vp_is_amp(in), full = in->ft == VP_FT_FULL;
    double adt = vp_dtype_bytes(vp_act_dtype(in));
    double res = amp ? 4.0 : adt;
    const char *kern = sdpa_kernel(in, adt < 4, 0);
    r->attn_kernel = kern;
    double L = 0, attn_s = 0;
    L += 2.0 * (res * h + 8.0);
    if (full) L += 2.0 * (amp ? 2.0 : adt) * h; /* qkv and fc1 inputs */
    L += adt * 3.0 * h;                          /* q, k, v views of the qkv output */
    if (!strcmp(kern, "eager")) {
        attn_s += (4.0 + adt) * heads * (double)n;
        L += adt * h;                            /* proj input: reshape copy of the transposed output */
    } else {
        /* SDPA output + logsumexp; flash and mem-efficient return the (B, N, H, D) layout, so
         * x.transpose(1, 2).reshape(B, N, C) is a view and proj saves that same tensor */
        L += adt * h + 4.0 * heads;
    }
    L += adt * f;                                /* GELU input */
    if (full) L += adt * f;                      /* fc2 input */
    r->layer = L + attn_s;
    r->layer_attn_s = attn_s;
    r->ckpt_layer = res * h;
    /* patch-embed conv saves the image (cast to bf16 under autocast); the final norm saves its input
     * over all tokens, and the head's input x[:, 0] is a view that keeps the whole norm output alive */
    double img_b = amp ? 2.0 : (double)vp_dtype_bytes(vp_param_dtype(in));
    r->outside = (full ? (double)(a->channels * a->patch_size * a->patch_size) * img_b * (double)(n - 1) / (double)n : 0) +
                 res * h + 8.0 + (full ? res * h : 0);
    /* GELU MLP backward: fc2's input gradient and GELU's input gradient overlap, fc2's saved input
     * is already freed; plus the hidden-state gradients */
    r->bwd_temp = adt * f + 2.0 * res * h;
    r->fwd_temp = 2.0 * adt * f;
    r->tokens = plan->batch * n;
    r->layers = a->layers;
}

/* T5 (transformers models/t5/modeling_t5.py), per op:
 * T5LayerNorm: hidden.to(fp32).pow(2) saves the (fp32) input, weight * normalized saves the normalized.
 * T5Attention: q, k, v Linear (autocast casts the input per linear), scores = q @ kᵀ (saves q, k),
 * scores += position_bias (in place), softmax(scores.float()) saves its fp32 output, .type_as(scores)
 * then dropout (bool mask; its bf16 output is saved by attn @ V, with V), output transposed and made
 * contiguous for o (saved by o). Each sub-layer adds dropout(output) to the residual (bool mask).
 * T5DenseActDense: wi input cast, relu saves its output, dropout mask, and since hidden is bf16 while
 * wo.weight is fp32 the code upcasts it (hidden.to(wo.weight.dtype)) and autocast casts it back:
 * wo saves that bf16 cast. Per score: 4 (softmax) + 1 (mask) + adt (dropout output) bytes. */
static void t5_acts(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, inner = (double)(a->heads * a->head_dim);
    double heads = (double)a->heads, se = (double)plan->seq, sd = (double)plan->dec_seq;
    int amp = vp_is_amp(in), full = in->ft == VP_FT_FULL;
    double adt = vp_dtype_bytes(vp_act_dtype(in));
    double res = amp ? 4.0 : adt;
    double drop = a->resid_dropout > 0 ? 1.0 : 0.0;
    double cast = amp ? 2.0 : adt;
    double norm = norm_saved(res, h, full, VP_NORM_RMS);
    double score = 4.0 + (drop > 0 ? 1.0 + adt : adt); /* softmax out + (mask + dropout out | bf16 probs) */
    /* self-attention sub-layer, per token, without the s² part */
    double self_attn = norm + (full ? 3.0 * cast * h : 0) + 3.0 * adt * inner + adt * inner + drop * h;
    double gated = a->mlp == VP_MLP_GEGLU ? 2.0 : 1.0;
    double ff = norm + (full ? gated * cast * h : 0) + gated * adt * f + drop * f + (full ? adt * f : 0) + drop * h;
    double enc_tok = self_attn + ff;
    /* decoder adds cross-attention: q from the decoder, K and V from the encoder output (per encoder token) */
    double cross_q = norm + (full ? cast * h : 0) + adt * inner + adt * inner + drop * h;
    double cross_kv_per_enc_tok = (full ? 2.0 * cast * h : 0) + 2.0 * adt * inner;
    double enc = (double)a->layers * (enc_tok * se + score * heads * se * se);
    double dec = (double)a->dec_layers *
                 ((self_attn + cross_q + ff) * sd + score * heads * (sd * sd + sd * se) + cross_kv_per_enc_tok * se);
    double tokens = se + sd;
    r->tokens = plan->batch * (int64_t)tokens;
    r->layers = 1;
    r->layer = (enc + dec) / tokens;
    r->layer_attn_s = 0;
    r->ckpt_layer = res * h * (double)(a->layers + a->dec_layers) / tokens;
    /* final norms of both stacks, their dropouts, the lm_head input cast (per token average) */
    r->outside = (2.0 * norm + 2.0 * drop * h) + (full ? cast * h * sd / tokens : 0);
    r->bwd_temp = (adt * f + 2.0 * res * h) + 4.0 * heads * se * (se / tokens);
    r->fwd_temp = 4.0 * heads * se;
    r->attn_kernel = "eager";
}

/* CogVideoX blocks (diffusers cogvideox_transformer_3d.py CogVideoXBlock, CogVideoXAttnProcessor2_0):
 * text and video tokens in one sequence. Per op: LayerNormZero = LayerNorm (saves its input) then
 * `* (1 + scale) + shift` (saves the normalized tensor only when scale needs a gradient, i.e. the
 * block trains); q, k, v Linears (save their shared input when they train); LayerNorm on q and k
 * over head_dim (save their inputs); RoPE in place on the video part; SDPA (q, k, v, out, fp32 LSE);
 * `gate * attn_out` and `gate_ff * ff_out` save the other operand only when the gate needs a
 * gradient; FeedForward: Linear, GELU-tanh (saves its input), Linear. Bottleneck adapters save their
 * input and hidden activation. */
static void dit_acts(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, heads = (double)a->heads;
    int64_t tokens = plan->seq;
    if (!tokens) {
        int64_t frames = (a->sample_frames - 1) / a->temporal_compression + 1;
        tokens = frames * (a->sample_height / a->patch_size) * (a->sample_width / a->patch_size) + a->text_tokens;
    }
    int amp = vp_is_amp(in), full = in->ft == VP_FT_FULL;
    double adt = vp_dtype_bytes(vp_act_dtype(in));
    double res = amp ? 4.0 : adt;
    const char *kern = sdpa_kernel(in, adt < 4, 0);
    r->attn_kernel = kern;
    double L = 0;
    L += 2.0 * (res * h + 8.0);                    /* norm1, norm2 LayerNorm inputs */
    if (full) L += 2.0 * adt * h;                  /* normalized tensors saved by `* (1 + scale)` */
    if (full) L += adt * h;                        /* shared input of to_q, to_k, to_v */
    L += 2.0 * (adt * h + 8.0 * heads);            /* norm_q, norm_k inputs (per head) */
    L += 4.0 * adt * h + 4.0 * heads;              /* SDPA q, k, v, out (shared with to_out's input) + LSE */
    if (full) L += 2.0 * adt * h;                  /* attention and FF outputs saved by the gate products */
    if (full) L += adt * h;                        /* ff.net.0.proj input */
    L += adt * f;                                  /* GELU input */
    if (full) L += adt * f;                        /* ff.net.2 input */
    if (in->ft == VP_FT_ADAPTER) L += adt * h + 2.0 * adt * (double)in->adapter_dim; /* adapter input, bottleneck */
    double attn_s = !strcmp(kern, "eager") ? (4.0 + adt) * heads * (double)tokens : 0;
    r->layer = L + attn_s;
    r->layer_attn_s = attn_s;
    r->layer_repl = 2.0 * (res * h + 8.0);
    r->ckpt_layer = res * h;
    r->outside = 2.0 * res * h;
    r->bwd_temp = adt * f + 2.0 * res * h;
    r->fwd_temp = 2.0 * adt * f;
    r->tokens = plan->batch * tokens;
    r->layers = a->layers;
}

/* Megatron-LM (Korthikanti et al. 2022, Table 2; megatron/training/theoretical_memory_usage.py):
 * 16-bit activations with dropout masks. Per block, per token: replicated 10h (LayerNorm inputs 4h,
 * QKV and MLP inputs 2h each, two dropout masks), split by TP 8h (Q, K, V, out-proj input) + 4f
 * (GeLU input and fc2 input), and 5·a·s for the attention scores unless selective recomputation
 * drops them; sequence parallelism splits the replicated part too. */
static void megatron_acts(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, s = (double)plan->seq, heads = (double)a->heads;
    const vp_parallel *p = &plan->par;
    r->megatron = 1;
    r->attn_kernel = p->selective_recompute ? "recomputed (selective)" : "core attention saved";
    r->layer_repl = 10.0 * h;
    r->layer_attn_s = p->selective_recompute ? 0.0 : 5.0 * heads * s;
    r->layer = 10.0 * h + 8.0 * h + 4.0 * f + r->layer_attn_s;
    r->ckpt_layer = 2.0 * h;
    /* input to the embedding (8 B/token) and the embedding dropout mask */
    r->outside = 8.0 + h;
    r->bwd_temp = 0;
    r->fwd_temp = 0;
    r->tokens = plan->batch * plan->seq;
    r->layers = a->layers;
}

void vp_activations_compute(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    memset(r, 0, sizeof *r);
    if (in->sharded && plan->par.framework == VP_FW_MEGATRON && in->arch.kind == VP_KIND_DECODER) {
        megatron_acts(plan, in, r);
        return;
    }
    switch (in->arch.kind) {
    case VP_KIND_DECODER: decoder_acts(plan, in, r); break;
    case VP_KIND_GPT2: gpt2_acts(plan, in, r); break;
    case VP_KIND_VIT: vit_acts(plan, in, r); break;
    case VP_KIND_T5: t5_acts(plan, in, r); break;
    case VP_KIND_DIT: dit_acts(plan, in, r); break;
    }
}
