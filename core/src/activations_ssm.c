/* activations_ssm.c: training activations of state-space models (mamba2, jamba).
 * ROUGH, documented per-token terms (the exact counts and the inference state are exact; these are
 * not measured): each Mamba block is counted as the tensors the fused CUDA kernels save.
 * Mamba2 (Mamba2Mixer.cuda_kernels_forward in training -> mamba_ssm
 * mamba_split_conv1d_scan_combined): the in_proj output zxbcdt (2I + 2·G·N + H), the scan output
 * before the gated norm (I) and the norm's fp32 rstd per group; the norm output and out_proj input are
 * recomputed in backward. Plus the block's RMSNorm and the in_proj input when weights train.
 * Mamba v1 in Jamba (JambaMambaMixer.cuda_kernels_forward: in_proj, causal_conv1d_fn, x_proj, the
 * dt/B/C RMSNorms, dt_proj, selective_scan_fn, out_proj; mamba_inner_fn is not used because of the
 * inner norms): in_proj output (2I), conv output (I), x_proj output (R + 2N) and its normed copy,
 * dt_proj output (I), scan output (I) = out_proj input, plus the in_proj input.
 * Jamba's attention layers and feed-forwards are the shared decoder's (activations_decoder.c); the
 * attention part of a block is swapped for the mixer in the Mamba layers, and the s² and KV-cache
 * terms are spread over the attention layers only. */
#include "activations.h"

void vp_acts_ssm(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    const vp_act_dtypes dt = vp_act_dtypes_of(in);
    double adt = dt.adt, res = dt.res, h = (double)a->hidden;
    double I = (double)a->ssm_inner, N = (double)a->ssm_state;
    double in_b = dt.full ? (dt.amp ? 2.0 * h : adt * h) : 0.0; /* in_proj input, when its weight trains */
    double norm = vp_norm_saved(res, h, dt.full, VP_NORM_RMS);
    double R = (double)a->ssm_dt_rank;
    /* the mixer's saved tensors per token (header comment) */
    double mixer = a->ssm == 2 ? adt * (2.0 * I + 2.0 * (double)a->ssm_groups * N + (double)a->ssm_heads) + adt * I +
                                     4.0 * (double)a->ssm_groups
                               : adt * (2.0 * I + I + 2.0 * (R + 2.0 * N) + I + I);
    double wide = a->ssm == 2 ? adt * (2.0 * I + 2.0 * (double)a->ssm_groups * N + (double)a->ssm_heads) : adt * 2.0 * I;
    if (a->ssm_layers >= a->layers) {
        /* mamba, mamba2: every block is norm + mixer, no MLP, no attention */
        r->layer = norm + in_b + mixer;
        r->layer_repl = norm + in_b;
        r->ckpt_layer = res * h;
        r->outside = vp_norm_saved(res, h, dt.full, VP_NORM_RMS) + (dt.full ? (dt.amp ? 2.0 * h : adt * h) : 0.0);
        r->fwd_temp = wide;                   /* the in_proj output's conv/scan products inside the kernels */
        r->bwd_temp = wide + 2.0 * res * h;   /* its gradient + gradients of the hidden state */
        r->attn_kernel = "none";
        r->tokens = plan->batch * plan->seq;
        r->layers = a->layers;
    } else {
        vp_acts_decoder(plan, in, r);
        double L = (double)a->layers, na = (double)(a->layers - a->ssm_layers), nm = (double)a->ssm_layers;
        double qd = (double)(a->heads * a->head_dim), kvd = (double)(a->kv_heads * a->head_dim);
        /* the attention core (flash / mem-efficient saves: q, k, v, out, fp32 logsumexp) + its input */
        double attn = adt * (2.0 * qd + 2.0 * kvd) + 4.0 * (double)a->heads + in_b;
        double base = r->layer - r->layer_attn_s;
        r->layer = base + (nm * (in_b + mixer - attn)) / L + r->layer_attn_s * na / L;
        r->layer_attn_s *= na / L;
        r->kv_total *= na / L;
        r->kv_extra *= na / L;
    }
    r->n_items = 0;
    r->items_overflow = 1; /* no op-by-op list: the replay uses the block's total */
}
