/* params.c: exact parameter counts from the module shapes: the shared pieces (linear, norm, MLP,
 * the Llama-style decoder) and the dispatch to a family's own count (families/<name>.c).
 * Checked against PyTorch's count for every calibration record (tests/test_params.c) and the
 * exact totals in shared/reference/memory-facts.md §10. */
#include <string.h>

#include "families/family.h"
#include "diffusers.h"

int64_t vp_lin_params(int64_t in, int64_t out, int bias) { return in * out + (bias ? out : 0); }

int64_t vp_norm_params(const vp_arch *a, int64_t dim) {
    /* RMSNorm: weight only; LayerNorm: weight + bias */
    return a->norm == VP_NORM_RMS || a->norm_no_bias ? dim : 2 * dim;
}

int64_t vp_mlp_params(const vp_arch *a, int64_t h, int64_t f) {
    switch (a->mlp) {
    case VP_MLP_SWIGLU:
    case VP_MLP_GEGLU:
    case VP_MLP_GATED_RELU:
        /* gate_proj, up_proj: h->f; down_proj: f->h (LlamaMLP, GemmaMLP, T5DenseGatedActDense) */
        return 2 * vp_lin_params(h, f, a->mlp_bias) + vp_lin_params(f, h, a->mlp_bias);
    case VP_MLP_GELU:
    case VP_MLP_RELU:
        return vp_lin_params(h, f, a->mlp_bias) + vp_lin_params(f, h, a->mlp_bias);
    }
    return 0;
}

void vp_count_decoder(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, d = a->head_dim, q = a->heads * d, kv = a->kv_heads * d;
    /* q_proj h->a·d, k_proj/v_proj h->a_kv·d, o_proj a·d->h (modeling_llama.py LlamaAttention) */
    c->per_layer_attn = vp_lin_params(h, q, a->qkv_bias) + 2 * vp_lin_params(h, kv, a->qkv_bias) + vp_lin_params(q, h, a->o_bias);
    if (a->qk_norm) c->per_layer_attn += 2 * d; /* Qwen3 q_norm, k_norm */
    c->per_layer_norm = (int64_t)a->norms_per_layer * vp_norm_params(a, h);
    int64_t dense_mlp = vp_mlp_params(a, h, a->inter);
    int64_t moe_mlp = 0;
    if (a->experts) {
        /* router Linear(h, E, bias=False) + E experts (MixtralSparseMoeBlock / Qwen2MoeSparseMoeBlock) */
        moe_mlp = h * a->experts + a->experts * vp_mlp_params(a, h, a->expert_inter);
        if (a->shared_expert_inter) /* Qwen2Moe shared_expert + shared_expert_gate Linear(h, 1) */
            moe_mlp += vp_mlp_params(a, h, a->shared_expert_inter) + h;
    }
    int64_t n_moe = a->experts ? a->moe_layers : 0;
    int64_t n_dense = a->layers - n_moe;
    c->per_layer_mlp = a->experts ? moe_mlp : dense_mlp;
    c->layers_total = a->layers * (c->per_layer_attn + c->per_layer_norm) + n_dense * dense_mlp + n_moe * moe_mlp;
    c->embed = a->vocab * h;
    c->lm_head = a->tie ? 0 : a->vocab * h;
    c->final_norm = vp_norm_params(a, h);
    c->linear_in_layers = a->layers * (c->per_layer_attn - (a->qk_norm ? 2 * d : 0)) + n_dense * dense_mlp + n_moe * moe_mlp;
    c->other = a->vision_params;
    c->largest_tensor = a->vocab * h;
    int64_t mt = a->experts ? a->expert_inter * h : a->inter * h;
    if (a->fused_gate_up) mt *= 2;
    if (mt > c->largest_tensor) c->largest_tensor = mt;
}

void vp_count_add(vp_param_counts *c, int64_t attn, int64_t mlp, int64_t norm, int64_t n_layers, int64_t linear) {
    c->per_layer_attn += attn;
    c->per_layer_mlp += mlp;
    c->per_layer_norm += norm;
    c->layers_total += n_layers * (attn + mlp + norm);
    c->linear_in_layers += n_layers * linear;
}

/* An upper bound computed in floating point, so the exact integer sums below cannot overflow. */
static double rough_bound(const vp_arch *a) {
    double h = (double)a->hidden, f = (double)(a->inter > a->expert_inter ? a->inter : a->expert_inter);
    double q = (double)a->heads * (double)a->head_dim, e = (double)a->experts + 1.0 + (double)a->shared_experts;
    double shared = (double)a->shared_expert_inter;
    double layer = 4.0 * h * (q > h ? q : h) + 3.0 * h * (f * e + shared) + 8.0 * h * (double)a->time_embed_dim + e * h;
    /* MLA low-rank projections (deepseek): h·r_q + r_q·q + h·(r_kv + rope) + r_kv·a·(nope + v) + a·v·h */
    double rq = (double)a->mla_q_rank, rkv = (double)a->mla_kv_rank, av = (double)a->heads * (double)a->mla_v_dim;
    double qmla = (double)a->heads * (double)(a->mla_nope_dim + a->mla_rope_dim);
    layer += (h + qmla) * rq + h * (rkv + (double)a->mla_rope_dim) + rkv * (qmla + av) + av * h + h * qmla;
    double n = (double)a->image_size / (a->patch_size > 0 ? (double)a->patch_size : 1.0);
    return ((double)a->layers + 2.0 * (double)a->dec_layers + (double)a->mtp_layers) * layer + 2.0 * (double)a->vocab * h +
           (double)a->positions * h + (n * n + 2.0) * h + (double)a->labels * h +
           (double)a->text_embed_dim * h +
           ((double)a->channels + (double)a->in_channels + (double)a->out_channels) * (double)a->patch_size * (double)a->patch_size * h;
}

vp_status vp_count_params(const vp_arch *a, vp_param_counts *c, vp_error *err) {
    memset(c, 0, sizeof *c);
    if (rough_bound(a) > 1e15)
        return vp_fail(err, VP_ERR_RANGE, "model", "the model's shapes give more than 10^15 parameters; check the sizes");
    if (a->kind == VP_KIND_DIT && a->dclass) vp_diffusers_counts(a, c); /* diffusers components (dit_params.c, vae.c, text_encoder.c) */
    else {
        /* a family with its own module layout counts itself (families/<name>.c); the rest are
         * Llama-style decoders (custom models included) */
        const vp_family *fam = vp_family_find(a->model_type);
        if (fam && fam->count) fam->count(a, c);
        else vp_count_decoder(a, c);
    }
    c->total = c->embed + c->lm_head + c->layers_total + c->final_norm + c->other;
    int64_t one_layer = c->per_layer_attn + c->per_layer_mlp + c->per_layer_norm;
    c->largest_layer = one_layer > c->embed ? one_layer : c->embed;
    if (c->total <= 0 || c->total > (int64_t)1e15)
        return vp_fail(err, VP_ERR_RANGE, "model", "the model's parameter count (%lld) is not plausible",
                       (long long)c->total);
    return VP_OK;
}
