/* activations_vit.c: timm / HF ViT blocks. */
#include <string.h>

#include "activations.h"

/* timm VisionTransformer Block: norm1, qkv Linear, F.scaled_dot_product_attention over views of the
 * qkv output, transpose+reshape copy into proj, norm2, fc1, nn.GELU (saves its input), fc2. */
void vp_acts_vit(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, heads = (double)a->heads;
    int64_t img = plan->image_size ? plan->image_size : a->image_size;
    int64_t n = (img / a->patch_size) * (img / a->patch_size) + 1; /* patches + class token */
    const vp_act_dtypes dt = vp_act_dtypes_of(in);
    int amp = dt.amp, full = dt.full;
    double adt = dt.adt, res = dt.res;
    const char *kern = vp_sdpa_kernel(in, adt < 4, 0);
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
