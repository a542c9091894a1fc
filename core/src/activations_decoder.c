/* activations_decoder.c: Llama-style decoders (llama, mistral, mixtral, qwen2/2_moe/2_vl/3, phi3,
 * gemma/gemma2, custom): what one block saves per token, op by op, cross-checked against the
 * measured Llama layer of memory-facts.md §1.4 and the calibration records. */
#include <string.h>

#include "activations.h"

/* What vp_norm_saved counts, tensor by tensor. */
static double norm_items(vp_acts *r, double res, double h, int full, vp_norm kind, int count) {
    if (kind == VP_NORM_RMS)
        return vp_act_item(r, 4.0 * h, count) + (full ? vp_act_item(r, res * h, count) : 0.0) + vp_act_item(r, 4.0, count);
    return vp_act_item(r, res * h, count) + vp_act_item(r, 4.0, count) + vp_act_item(r, 4.0, count);
}

/* One decoder block of HF transformers 5.x, per token. */
void vp_acts_decoder(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, qd = (double)(a->heads * a->head_dim), kvd = (double)(a->kv_heads * a->head_dim);
    double f = (double)a->inter, s = (double)plan->seq, heads = (double)a->heads;
    const vp_act_dtypes dt = vp_act_dtypes_of(in);
    int amp = dt.amp, full = dt.full;
    double adt = dt.adt, res = dt.res;
    int gqa = a->kv_heads != a->heads;
    const char *kern = vp_sdpa_kernel(in, adt < 4, gqa);
    r->attn_kernel = kern;
    int moe = a->experts > 0;
    double fe = moe ? (double)a->expert_inter * (double)a->experts_per_tok : f;

    double L = 0;
    /* norms before attention and MLP (gemma2 adds two post-norms) */
    if (a->norm_fp32) {
        /* GemmaRMSNorm (modeling_gemma2.py): x.float() saved by pow/mul, and the fp32 normalized
         * tensor saved by `* (1.0 + weight.float())` when the weight trains; output cast back */
        L += vp_act_item(r, 4.0 * h, a->norms_per_layer) + (full ? vp_act_item(r, 4.0 * h, a->norms_per_layer) : 0.0) +
             vp_act_item(r, 4.0, a->norms_per_layer);
    } else {
        L += norm_items(r, res, h, full, a->norm, a->norms_per_layer);
    }
    double R = L; /* replicated under tensor parallelism (hidden-width), divided only with SP */
    /* qwen3 q_norm / k_norm (Qwen3RMSNorm over head_dim, modeling_qwen3.py): per head like LlamaRMSNorm,
     * the fp32 copy of q (k) and, when the weight trains, the normalized tensor in the input dtype */
    if (a->qk_norm)
        L += vp_act_item(r, 4.0 * qd, 1) + vp_act_item(r, 4.0 * kvd, 1) + (full ? vp_act_item(r, adt * qd, 1) + vp_act_item(r, adt * kvd, 1) : 0.0) +
             vp_act_item(r, 8.0 * heads, 1) + vp_act_item(r, 8.0 * (double)a->kv_heads, 1);
    /* inputs of the attention projections, saved only when their weights train */
    if (full) {
        if (amp) L += vp_act_item(r, 2.0 * h, a->fused_qkv ? 1 : 3); /* autocast casts the input per linear */
        else L += vp_act_item(r, adt * h, 1);                          /* q, k, v share one saved input */
        R = L;
    }
    /* LoRA tensors are listed where their module runs (the sum is the same wherever they go) */
    double Lr = vp_lora_act_items_of(in, r, VP_T_Q | VP_T_K | VP_T_V | VP_T_QKV | VP_T_Q_A | VP_T_Q_B | VP_T_KV_A | VP_T_KV_B);
    /* attention core */
    double attn_s = 0;
    double kv_extra = 0, kv_total = 0;
    if (!strcmp(kern, "flash") || !strcmp(kern, "mem-efficient")) {
        /* saves q, k, v (k, v at a_kv heads with enable_gqa), out and the fp32 logsumexp */
        L += vp_act_item(r, adt * qd, 1) + (amp ? vp_act_item(r, adt * kvd, 1) : vp_act_cache_item(r, adt * kvd)) +
             vp_act_cache_item(r, adt * kvd) + vp_act_item(r, adt * qd, 1) + vp_act_item(r, 4.0 * heads, 1);
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
        L += vp_act_item(r, adt * qd, 3); /* q·√scale, k·√scale, repeated v */
        attn_s += adt * heads * s; /* softmax output, per token */
        L += vp_act_item(r, adt * qd, 1); /* o_proj input: contiguous copy of the transposed output */
        kv_total = 2.0 * adt * kvd;
        kv_extra = kv_total;
    } else {
        /* HF eager_attention_forward: repeat_kv (copies for GQA), softmax(dtype=fp32) saved, its
         * bf16 cast saved by attn @ V, contiguous copy of the output for o_proj (memory-facts §1.2:
         * "HF eager keeps 6as²b") */
        L += vp_act_item(r, adt * qd, 1);                                  /* q */
        L += gqa ? vp_act_item(r, adt * qd, 2) : vp_act_item(r, adt * kvd, 2); /* repeated k, v */
        attn_s += 4.0 * heads * s + (adt < 4 ? adt * heads * s : 0.0);
        if (a->attn_dropout > 0) attn_s += (1.0 + adt) * heads * s;
        L += vp_act_item(r, adt * qd, 1);
        kv_total = (amp ? 4.0 : adt) * kvd + adt * kvd;
        kv_extra = gqa ? kv_total : (amp ? 4.0 * kvd : 0.0);
    }
    if (!full) {
        /* frozen o_proj saves nothing, but the SDPA output is still saved by SDPA itself (counted) */
    }
    Lr += vp_lora_act_items_of(in, r, VP_T_O);
    /* MLP: the nn.Linear MLP (a MoE block's shared expert, qwen2_moe) and the routed experts */
    int gated = a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU;
    double fd = moe ? (double)a->shared_expert_inter : f;
    /* linears reading the post-attention norm output: autocast casts it once per linear; the MoE router
     * (and qwen2_moe's shared_expert_gate) are linears too, while the experts' grouped_mm reads it as is */
    int n_dense_in = fd > 0 ? (a->fused_gate_up ? 1 : (gated ? 2 : 1)) : 0;
    int n_in = moe ? 1 + n_dense_in + (a->shared_expert_inter ? 1 : 0) : n_dense_in;
    double mlp_in = 0;
    if (full) {
        if (amp) mlp_in = vp_act_item(r, 2.0 * h, n_in);
        else mlp_in = vp_act_item(r, adt * h, 1);
        L += mlp_in;
    }
    Lr += vp_lora_act_items_of(in, r, VP_T_GATE | VP_T_UP | VP_T_GATE_UP | VP_T_FC1);
    if (fd > 0) {
        if (gated) {
            /* gate out (saved by act), act out and up out (saved by the product) */
            L += vp_act_item(r, adt * fd, 3);
            if (a->fused_gate_up) L += 0; /* phi3 chunks the fused output: same tensors as views */
            if (full) L += vp_act_item(r, adt * fd, 1); /* product = down_proj input */
        } else {
            L += vp_act_item(r, adt * fd, 1);             /* fc1 output saved by the activation */
            if (full) L += vp_act_item(r, adt * fd, 1);   /* activation output = fc2 input */
        }
    }
    Lr += vp_lora_act_items_of(in, r, VP_T_DOWN | VP_T_FC2);
    /* routed experts compute in the weights' dtype (fp32 master weights under autocast) */
    double wexp = res;
    if (moe) L += vp_moe_acts(r, a, wexp, full);
    if (full) R += mlp_in;
    if (a->resid_dropout > 0) {
        L += vp_act_item(r, 1.0 * h, 2); /* two residual dropout masks */
        R += 2.0 * h;
    }
    L += Lr;
    r->layer = L + attn_s;
    r->layer_repl = R;
    r->layer_attn_s = attn_s;
    r->kv_extra = kv_extra;
    r->kv_total = kv_total;
    r->ckpt_layer = res * h; /* non-reentrant checkpoint keeps the block input */
    /* outside the blocks: final norm and the lm_head input */
    r->outside = a->norm_fp32 ? 4.0 * h + (full ? 4.0 * h : 0.0) + 4.0 : vp_norm_saved(res, h, full, a->norm);
    if (full) r->outside += amp ? 2.0 * h : adt * h;
    /* one block's backward, net of the saved tensors it frees as it goes: the gated product's
     * backward holds the incoming gradient and the two gradients of act(gate) and up at once, while
     * down_proj's saved input is already freed (autograd releases a node's saved tensors when it has
     * run); plus the gradients of the hidden state */
    r->bwd_temp = (gated ? 2.0 : 1.0) * (moe ? wexp : adt) * fe + 2.0 * res * h;
    /* LoRA: the adapter path returns the gradient of its (cast) input in the adapter dtype, beside the
     * base path's gradient, before the two are summed: one more input-wide tensor for the widest
     * adapted input (down_proj's f when it is targeted) */
    if ((in->ft == VP_FT_LORA || in->ft == VP_FT_QLORA) && in->lora_targets) {
        double widest = (in->lora_targets & (VP_T_DOWN | VP_T_FC2)) ? fe : h;
        r->lora_bwd = (double)vp_dtype_bytes(in->lora_dtype) * widest;
        r->bwd_temp += r->lora_bwd;
    }
    /* MoE: the unsorted gather and the reordered output (S, h) alive inside grouped_mm_experts_forward */
    r->fwd_temp = (moe ? 2.0 * wexp * h * (double)a->experts_per_tok : 2.0 * adt * fe) + 4.0 * heads * s * (!strcmp(kern, "eager") || !strcmp(kern, "math") ? 1.0 : 0.0);
    r->tokens = plan->batch * plan->seq;
    r->layers = a->layers;
}
