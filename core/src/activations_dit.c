/* activations_dit.c: CogVideoX-style diffusion transformer blocks. */
#include <string.h>

#include "activations.h"

/* CogVideoX blocks (diffusers cogvideox_transformer_3d.py CogVideoXBlock, CogVideoXAttnProcessor2_0):
 * text and video tokens in one sequence. Per op: LayerNormZero = LayerNorm (saves its input) then
 * `* (1 + scale) + shift` (saves the normalized tensor only when scale needs a gradient, i.e. the
 * block trains); q, k, v Linears (save their shared input when they train); LayerNorm on q and k
 * over head_dim (save their inputs); RoPE in place on the video part; SDPA (q, k, v, out, fp32 LSE);
 * `gate * attn_out` and `gate_ff * ff_out` save the other operand only when the gate needs a
 * gradient; FeedForward: Linear, GELU-tanh (saves its input), Linear. Bottleneck adapters save their
 * input and hidden activation. */
void vp_acts_dit(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, heads = (double)a->heads;
    int64_t tokens = plan->seq;
    if (!tokens) {
        int64_t frames = (a->sample_frames - 1) / a->temporal_compression + 1;
        tokens = frames * (a->sample_height / a->patch_size) * (a->sample_width / a->patch_size) + a->text_tokens;
    }
    const vp_act_dtypes dt = vp_act_dtypes_of(in);
    int full = dt.full;
    double adt = dt.adt, res = dt.res;
    const char *kern = vp_sdpa_kernel(in, adt < 4, 0);
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
