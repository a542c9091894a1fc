/* params.c: exact parameter counts from the module shapes of each family.
 * Checked against PyTorch's count for every calibration record (tests/test_params.c) and the
 * exact totals in shared/reference/memory-facts.md §10. */
#include <string.h>

#include "arch.h"
#include "diffusers.h"
#include "util.h"

static int64_t lin(int64_t in, int64_t out, int bias) { return in * out + (bias ? out : 0); }

static int64_t norm_params(const vp_arch *a, int64_t dim) {
    /* RMSNorm: weight only; LayerNorm: weight + bias */
    return a->norm == VP_NORM_RMS ? dim : 2 * dim;
}

static int64_t mlp_params(const vp_arch *a, int64_t h, int64_t f) {
    switch (a->mlp) {
    case VP_MLP_SWIGLU:
    case VP_MLP_GEGLU:
    case VP_MLP_GATED_RELU:
        /* gate_proj, up_proj: h->f; down_proj: f->h (LlamaMLP, GemmaMLP, T5DenseGatedActDense) */
        return 2 * lin(h, f, a->mlp_bias) + lin(f, h, a->mlp_bias);
    case VP_MLP_GELU:
    case VP_MLP_RELU:
        return lin(h, f, a->mlp_bias) + lin(f, h, a->mlp_bias);
    }
    return 0;
}

static void decoder_counts(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, d = a->head_dim, q = a->heads * d, kv = a->kv_heads * d;
    /* q_proj h->a·d, k_proj/v_proj h->a_kv·d, o_proj a·d->h (modeling_llama.py LlamaAttention) */
    c->per_layer_attn = lin(h, q, a->qkv_bias) + 2 * lin(h, kv, a->qkv_bias) + lin(q, h, a->o_bias);
    if (a->qk_norm) c->per_layer_attn += 2 * d; /* Qwen3 q_norm, k_norm */
    c->per_layer_norm = (int64_t)a->norms_per_layer * norm_params(a, h);
    int64_t dense_mlp = mlp_params(a, h, a->inter);
    int64_t moe_mlp = 0;
    if (a->experts) {
        /* router Linear(h, E, bias=False) + E experts (MixtralSparseMoeBlock / Qwen2MoeSparseMoeBlock) */
        moe_mlp = h * a->experts + a->experts * mlp_params(a, h, a->expert_inter);
        if (a->shared_expert_inter) /* Qwen2Moe shared_expert + shared_expert_gate Linear(h, 1) */
            moe_mlp += mlp_params(a, h, a->shared_expert_inter) + h;
    }
    int64_t n_moe = a->experts ? a->moe_layers : 0;
    int64_t n_dense = a->layers - n_moe;
    c->per_layer_mlp = a->experts ? moe_mlp : dense_mlp;
    c->layers_total = a->layers * (c->per_layer_attn + c->per_layer_norm) + n_dense * dense_mlp + n_moe * moe_mlp;
    c->embed = a->vocab * h;
    c->lm_head = a->tie ? 0 : a->vocab * h;
    c->final_norm = norm_params(a, h);
    c->linear_in_layers = a->layers * (c->per_layer_attn - (a->qk_norm ? 2 * d : 0)) + n_dense * dense_mlp + n_moe * moe_mlp;
    c->other = a->vision_params;
    c->largest_tensor = a->vocab * h;
    int64_t mt = a->experts ? a->expert_inter * h : a->inter * h;
    if (a->fused_gate_up) mt *= 2;
    if (mt > c->largest_tensor) c->largest_tensor = mt;
}

static void gpt2_counts(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden;
    /* GPT2Block: ln_1, attn.c_attn Conv1D(3h), attn.c_proj Conv1D(h), ln_2, mlp.c_fc, mlp.c_proj */
    c->per_layer_attn = lin(h, 3 * h, 1) + lin(h, h, 1);
    c->per_layer_mlp = mlp_params(a, h, a->inter);
    c->per_layer_norm = 2 * norm_params(a, h);
    c->layers_total = a->layers * (c->per_layer_attn + c->per_layer_mlp + c->per_layer_norm);
    c->embed = a->vocab * h + a->positions * h; /* wte + wpe */
    c->lm_head = a->tie ? 0 : a->vocab * h;
    c->final_norm = norm_params(a, h);
    c->linear_in_layers = a->layers * (c->per_layer_attn + c->per_layer_mlp);
    c->largest_tensor = a->vocab * h;
}

static void t5_counts(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, inner = a->heads * a->head_dim;
    int64_t attn = 4 * h * inner; /* T5Attention q, k, v, o: no biases */
    int64_t ff = mlp_params(a, h, a->inter);
    int64_t enc_layer = attn + ff + 2 * h;          /* T5LayerNorm: weight only */
    int64_t dec_layer = 2 * attn + ff + 3 * h;      /* self-attn, cross-attn, ff */
    c->per_layer_attn = attn;
    c->per_layer_mlp = ff;
    c->per_layer_norm = 2 * h;
    c->layers_total = a->layers * enc_layer + a->dec_layers * dec_layer;
    /* relative_attention_bias Embedding(buckets, heads) in the first layer of each stack */
    c->other = a->rel_buckets * a->heads * (a->dec_layers > 0 ? 2 : 1);
    c->embed = a->vocab * h; /* shared */
    c->lm_head = a->tie ? 0 : a->vocab * h;
    c->final_norm = h * (a->dec_layers > 0 ? 2 : 1);
    c->linear_in_layers = a->layers * (attn + ff) + a->dec_layers * (2 * attn + ff);
    c->largest_tensor = a->vocab * h;
}

static void vit_counts(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, n = (a->image_size / a->patch_size) * (a->image_size / a->patch_size);
    /* timm VisionTransformer / HF ViTForImageClassification: patch conv, cls token, pos embed (n+1) */
    c->embed = a->channels * a->patch_size * a->patch_size * h + h + h + (n + 1) * h;
    c->per_layer_attn = lin(h, 3 * h, a->qkv_bias) + lin(h, h, 1);
    c->per_layer_mlp = mlp_params(a, h, a->inter);
    c->per_layer_norm = 2 * norm_params(a, h);
    c->layers_total = a->layers * (c->per_layer_attn + c->per_layer_mlp + c->per_layer_norm);
    c->final_norm = norm_params(a, h);
    c->other = a->labels ? lin(h, a->labels, 1) : 0; /* classifier head */
    c->linear_in_layers = a->layers * (c->per_layer_attn + c->per_layer_mlp) + c->other;
    c->largest_tensor = h * a->inter;
}

static void dit_counts(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, t = a->time_embed_dim, p = a->patch_size;
    /* diffusers cogvideox_transformer_3d.py CogVideoXBlock: two CogVideoXLayerNormZero
     * (Linear(t, 6h) + LayerNorm(h)), attention q/k/v/out with bias + LayerNorm(head_dim) on q and k,
     * FeedForward h->4h->h with bias. 132,197,632 per block for CogVideoX-5b (memory-facts §10). */
    int64_t norm_zero = lin(t, 6 * h, 1) + 2 * h;
    c->per_layer_attn = 4 * lin(h, h, 1) + 4 * a->head_dim;
    c->per_layer_mlp = mlp_params(a, h, a->inter);
    c->per_layer_norm = 2 * norm_zero;
    c->layers_total = a->layers * (c->per_layer_attn + c->per_layer_mlp + c->per_layer_norm);
    /* patch_embed Conv2d(in, h, p) + text_proj Linear(text_embed, h); time_embedding h->t->t;
     * norm_final LayerNorm(h); norm_out Linear(t, 2h) + LayerNorm(h); proj_out Linear(h, p²·out) */
    c->embed = a->in_channels * p * p * h + h + lin(a->text_embed_dim, h, 1);
    c->other = lin(h, t, 1) + lin(t, t, 1) + lin(t, 2 * h, 1) + 2 * h + lin(h, p * p * a->out_channels, 1);
    c->final_norm = 2 * h;
    c->linear_in_layers = a->layers * (4 * lin(h, h, 1) + c->per_layer_mlp + 2 * lin(t, 6 * h, 1));
    c->largest_tensor = h * a->inter;
}

/* An upper bound computed in floating point, so the exact integer sums below cannot overflow. */
static double rough_bound(const vp_arch *a) {
    double h = (double)a->hidden, f = (double)(a->inter > a->expert_inter ? a->inter : a->expert_inter);
    double q = (double)a->heads * (double)a->head_dim, e = (double)a->experts + 1.0;
    double shared = (double)a->shared_expert_inter;
    double layer = 4.0 * h * (q > h ? q : h) + 3.0 * h * (f * e + shared) + 8.0 * h * (double)a->time_embed_dim + e * h;
    double n = (double)a->image_size / (a->patch_size > 0 ? (double)a->patch_size : 1.0);
    return ((double)a->layers + 2.0 * (double)a->dec_layers) * layer + 2.0 * (double)a->vocab * h +
           (double)a->positions * h + (n * n + 2.0) * h + (double)a->labels * h +
           (double)a->text_embed_dim * h +
           ((double)a->channels + (double)a->in_channels + (double)a->out_channels) * (double)a->patch_size * (double)a->patch_size * h;
}

vp_status vp_count_params(const vp_arch *a, vp_param_counts *c, vp_error *err) {
    memset(c, 0, sizeof *c);
    if (rough_bound(a) > 1e15)
        return vp_fail(err, VP_ERR_RANGE, "model", "the model's shapes give more than 10^15 parameters; check the sizes");
    switch (a->kind) {
    case VP_KIND_DECODER: decoder_counts(a, c); break;
    case VP_KIND_GPT2: gpt2_counts(a, c); break;
    case VP_KIND_T5: t5_counts(a, c); break;
    case VP_KIND_VIT: vit_counts(a, c); break;
    case VP_KIND_DIT: if (a->dclass) vp_diffusers_counts(a, c); else dit_counts(a, c); break; /* i12 */
    }
    c->total = c->embed + c->lm_head + c->layers_total + c->final_norm + c->other;
    int64_t one_layer = c->per_layer_attn + c->per_layer_mlp + c->per_layer_norm;
    c->largest_layer = one_layer > c->embed ? one_layer : c->embed;
    if (c->total <= 0 || c->total > (int64_t)1e15)
        return vp_fail(err, VP_ERR_RANGE, "model", "the model's parameter count (%lld) is not plausible",
                       (long long)c->total);
    return VP_OK;
}
