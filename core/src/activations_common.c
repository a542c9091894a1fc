/* activations_common.c: pieces every family shares: the SDPA backend PyTorch picks and what a
 * normalization layer saves. */
#include <string.h>

#include "activations.h"

/* Which SDPA backend PyTorch 2.11 picks (torch/nn/attention sdp_utils): flash needs fp16/bf16 and
 * head_dim <= 256; mem-efficient takes fp32 but has no GQA kernel (memory-facts §1.2: "No available
 * kernel"), so fp32 + GQA falls back to the math backend, which materializes the s×s probabilities. */
const char *vp_sdpa_kernel(const vp_instance *in, int half, int gqa) {
    if (in->attn == VP_ATTN_EAGER) return "eager";
    if (half && in->arch.head_dim <= 256 && in->arch.head_dim % 8 == 0) return "flash";
    if (!gqa) return "mem-efficient";
    return "math";
}

/* One RMSNorm/LayerNorm over width w, given the dtype of the residual stream entering it.
 * HF LlamaRMSNorm (modeling_llama.py L62-67): x.to(fp32) saved by pow/mul; the normalized tensor
 * (cast back to the input dtype) saved by `weight *` when the weight trains. */
double vp_norm_saved(double res_b, double w, int weight_trains, vp_norm kind) {
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

vp_act_dtypes vp_act_dtypes_of(const vp_instance *in) {
    vp_act_dtypes d;
    d.amp = vp_is_amp(in);
    d.full = in->ft == VP_FT_FULL;
    d.adt = vp_dtype_bytes(vp_act_dtype(in));
    /* the residual stream keeps the weights' dtype: fp32 master weights keep it fp32 under autocast */
    d.res = d.amp ? 4.0 : d.adt;
    return d;
}

static double item(vp_acts *r, double bytes, int count, int cache) {
    if (bytes <= 0 || count <= 0) return 0;
    if (r->n_items >= (int)(sizeof r->items / sizeof r->items[0])) {
        r->items_overflow = 1; /* the replay then cuts the block's bytes at the hidden width instead */
    } else {
        r->items[r->n_items].bytes = bytes;
        r->items[r->n_items].count = count;
        r->items[r->n_items].cache = cache;
        r->n_items++;
    }
    return bytes * count;
}

double vp_act_item(vp_acts *r, double bytes, int count) { return item(r, bytes, count, 0); }
double vp_act_cache_item(vp_acts *r, double bytes) { return item(r, bytes, 1, 1); }

/* A tensor of the block's forward that is freed before the block ends (not saved): recorded for the
 * allocator replay only, so it adds nothing to the saved bytes. */
double vp_act_transient_item(vp_acts *r, double bytes) {
    item(r, bytes, 1, 2);
    return 0.0;
}

/* Marks the end of a module's forward: its transients are freed there. */
void vp_act_module_end(vp_acts *r) {
    if (r->n_items >= (int)(sizeof r->items / sizeof r->items[0])) {
        r->items_overflow = 1;
    } else {
        r->items[r->n_items].bytes = 0;
        r->items[r->n_items].count = 0;
        r->items[r->n_items].cache = 3;
        r->n_items++;
    }
}
