/* activations_t5.c: T5 encoder and decoder stacks (transformers 5.17 models/t5/modeling_t5.py, the
 * "sdpa" attention implementation it reports by default).
 *
 * Checked tensor by tensor against the H100 allocator trace of t5base-amp-b8s512
 * (tests/groundtruth/h100-2026-11-23/run3/traces, events 15140-16760 = one encoder layer and the
 * first decoder layer of step 2, with what is still alive at the step's peak):
 *
 * T5LayerNorm: variance = hidden.to(fp32).pow(2).mean(-1); hidden * rsqrt(variance + eps); weight * that.
 *   An fp32 residual (fp32 master weights, with or without autocast) is saved as it is by pow and mul,
 *   with rsqrt (4 B/token) and, when the weight trains, the normalized tensor (fp32). A bf16 residual
 *   (pure bf16) adds its fp32 copy (saved by pow) and the normalized tensor cast back to bf16.
 * Linear inputs: autocast casts the fp32 norm output once per linear (q, k, v: three bf16 copies, each
 *   saved); without autocast the linears share the one norm output.
 * Self-attention (encoder and decoder): T5 hands SDPA the relative position bias (plus the mask) as
 *   attn_mask. Its permuted layout (relative_attention_bias(...).permute(2, 0, 1)) has a last-dim
 *   stride of num_heads, which the fused kernels refuse (sdp_utils check_last_dim_stride_equals_1),
 *   so PyTorch runs _scaled_dot_product_attention_math: q, k, v upcast to fp32 (bf16 inputs) and
 *   scaled, each folded into an fp32 copy that bmm saves (12 B per inner dim); scores, the saved
 *   _safe_softmax output and the saved dropout output all fp32, plus the bool dropout mask:
 *   4 + 1 + 4 = 9 B per score in every precision (trace: 2 × 100,663,296 + 25,165,824 B kept per
 *   encoder layer at b 8, 12 heads, s 512). The output comes back in the input dtype and is made
 *   contiguous for o (saved).
 * Decoder self-attention also appends K and V to the DynamicCache that forward keeps with use_cache
 *   (default True): torch.cat copies in the activation dtype, alive until the output dies.
 * Cross-attention has no bias or mask, so a fused kernel runs: it keeps q, the cached K and V (cat
 *   copies over the encoder tokens, per decoder layer), its output and an fp32 logsumexp, and no s²
 *   tensor. Under autocast each decoder layer's k and v cast the fp32 encoder output again (saved).
 * T5DenseActDense: wi input (cast), relu output (saved), dropout mask, dropout output upcast to wo's
 *   fp32 dtype and, under autocast, cast back for wo (that bf16 copy saved). */
#include <string.h>

#include "activations.h"

/* One T5LayerNorm, bytes per token (see above). */
static double t5_norm(double res, double h, int full) {
    if (res >= 4.0) return 4.0 * h + (full ? 4.0 * h : 0.0) + 4.0;
    return 4.0 * h + res * h + (full ? res * h : 0.0) + 4.0;
}

void vp_acts_t5(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, inner = (double)(a->heads * a->head_dim);
    double heads = (double)a->heads, se = (double)plan->seq, sd = (double)plan->dec_seq;
    const vp_act_dtypes dt = vp_act_dtypes_of(in);
    int amp = dt.amp, full = dt.full;
    double adt = dt.adt, res = dt.res;
    double drop = a->resid_dropout > 0 ? 1.0 : 0.0;
    double norm = t5_norm(res, h, full);
    /* inputs saved by n linears reading one norm output: n autocast casts, or the output itself once */
#define LIN_IN(n) (full ? (amp ? (double)(n) * 2.0 * h : res * h) : 0.0)
    /* math SDPA: fp32 q, k, v copies; per score the fp32 softmax output (+ mask and fp32 dropout output) */
    double math_qkv = 3.0 * 4.0 * inner;
    double score = 4.0 + drop * (1.0 + 4.0);
    /* self-attention sub-layer, per token, without the s² part: norm, q/k/v inputs, fp32 q/k/v copies,
     * o input (the output made contiguous, activation dtype), residual dropout mask */
    double self_attn = norm + LIN_IN(3) + math_qkv + (full ? adt * inner : 0.0) + drop * h;
    double gated = a->mlp == VP_MLP_GEGLU ? 2.0 : 1.0;
    /* wi input(s), act output (and up), dropout mask, wo input, residual dropout mask */
    double ff = norm + LIN_IN(gated) + gated * adt * f + drop * f + (full ? adt * f : 0) + drop * h;
    double enc_tok = self_attn + ff;
    /* decoder self-attention: + the K, V cat copies DynamicCache keeps */
    double dec_self = self_attn + 2.0 * adt * inner;
    /* cross-attention per decoder token: norm, q input, q and the fused kernel's output (already in the
     * layout o reads, so o saves it as is), logsumexp (fp32 per head), residual dropout mask */
    double cross_q = norm + LIN_IN(1) + 2.0 * adt * inner + 4.0 * heads + drop * h;
    /* per encoder token per decoder layer: k, v casts of the encoder output (autocast only; otherwise
     * they read the one encoder output, counted once below) and the cached K, V */
    double cross_kv_per_enc_tok = (full && amp ? 2.0 * 2.0 * h : 0.0) + 2.0 * adt * inner;
#undef LIN_IN
    double enc = (double)a->layers * (enc_tok * se + score * heads * se * se);
    /* per decoder layer and sequence, measured in the trace: a bool (sd, sd) tensor kept by the masked
     * self-attention, and the fused kernel's two int64 dropout seeds (philox seed and offset) */
    double dec_fixed = (sd * sd + 16.0) / (double)plan->batch;
    double dec = (double)a->dec_layers * ((dec_self + cross_q + ff) * sd + score * heads * sd * sd + cross_kv_per_enc_tok * se + dec_fixed);
    double tokens = se + sd;
    r->tokens = plan->batch * (int64_t)tokens;
    r->layers = 1;
    r->layer = (enc + dec) / tokens;
    r->layer_attn_s = 0;
    r->ckpt_layer = res * h * (double)(a->layers + a->dec_layers) / tokens;
    /* outside the blocks, per token of either stack: the final norm of each stack over its own tokens,
     * the embedding and final dropout masks, the encoder output (kept by the returned output and read by
     * every cross-attention), the lm_head input (tied head: sequence_output * d_model^-0.5, then cast
     * under autocast) and the int64 relative-position buckets each stack's bias embedding saves */
    r->outside = norm + 2.0 * drop * h + res * h * se / tokens + (full ? (amp ? 2.0 : adt) * h * sd / tokens : 0.0) +
                 8.0 * (se * se + sd * sd) / ((double)plan->batch * tokens);
    /* the first block backward runs is the last decoder layer (sd tokens): the MLP's gradients, two
     * hidden-width gradients of the residual stream, and its math attention's fp32 score gradients
     * (the incoming one and softmax's), per token of both stacks */
    r->bwd_temp = (2.0 * adt * f + 2.0 * res * h + 8.0 * heads * sd) * sd / tokens;
    /* forward: the encoder's fp32 scores beside the softmax output, per token */
    r->fwd_temp = 8.0 * heads * se * se / tokens;
    r->attn_kernel = "math";
}
