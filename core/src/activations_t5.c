/* activations_t5.c: T5 encoder and decoder stacks. */
#include <string.h>

#include "activations.h"

/* T5 (transformers models/t5/modeling_t5.py), per op:
 * T5LayerNorm: hidden.to(fp32).pow(2) saves the (fp32) input, weight * normalized saves the normalized.
 * T5Attention: q, k, v Linear (autocast casts the input per linear), scores = q @ kᵀ (saves q, k),
 * scores += position_bias (in place), softmax(scores.float()) saves its fp32 output, .type_as(scores)
 * then dropout (bool mask; its bf16 output is saved by attn @ V, with V), output transposed and made
 * contiguous for o (saved by o). Each sub-layer adds dropout(output) to the residual (bool mask).
 * T5DenseActDense: wi input cast, relu saves its output, dropout mask, and since hidden is bf16 while
 * wo.weight is fp32 the code upcasts it (hidden.to(wo.weight.dtype)) and autocast casts it back:
 * wo saves that bf16 cast. Per score: 4 (softmax) + 1 (mask) + adt (dropout output) bytes. */
void vp_acts_t5(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, inner = (double)(a->heads * a->head_dim);
    double heads = (double)a->heads, se = (double)plan->seq, sd = (double)plan->dec_seq;
    const vp_act_dtypes dt = vp_act_dtypes_of(in);
    int amp = dt.amp, full = dt.full;
    double adt = dt.adt, res = dt.res;
    double drop = a->resid_dropout > 0 ? 1.0 : 0.0;
    double cast = amp ? 2.0 : adt;
    double norm = vp_norm_saved(res, h, full, VP_NORM_RMS);
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
