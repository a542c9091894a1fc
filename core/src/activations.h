/* activations.h: per-family accounting of the tensors autograd saves (activations_*.c). */
#ifndef VP_ACTIVATIONS_H
#define VP_ACTIVATIONS_H

#include "terms.h"

/* The dtypes every family's accounting starts from. */
typedef struct {
    int amp;    /* torch.autocast over fp32 master weights */
    int full;   /* the block's weights train (full fine-tune) */
    double adt; /* bytes per element of the activations (16-bit under autocast) */
    double res; /* bytes per element of the residual stream: fp32 under autocast (fp32 weights) */
} vp_act_dtypes;
vp_act_dtypes vp_act_dtypes_of(const vp_instance *in);

/* Which SDPA backend PyTorch picks for this instance: "flash", "mem-efficient", "math" or "eager". */
const char *vp_sdpa_kernel(const vp_instance *in, int half, int gqa);
/* Bytes per token one RMSNorm/LayerNorm of width w saves (activations_common.c). */
double vp_norm_saved(double res_b, double w, int weight_trains, vp_norm kind);

/* The routed experts of one MoE block (transformers 5.x grouped_mm experts), bytes per token;
 * w is the bytes per element of the expert weights, which set the experts' compute dtype. */
double vp_moe_acts(vp_acts *r, const vp_arch *a, double w, int full);

void vp_acts_decoder(const vp_plan *plan, const vp_instance *in, vp_acts *r);
/* mamba2, jamba (activations_ssm.c): rough, documented per-token terms */
void vp_acts_ssm(const vp_plan *plan, const vp_instance *in, vp_acts *r);
void vp_acts_gpt2(const vp_plan *plan, const vp_instance *in, vp_acts *r);
void vp_acts_vit(const vp_plan *plan, const vp_instance *in, vp_acts *r);
void vp_acts_t5(const vp_plan *plan, const vp_instance *in, vp_acts *r);
void vp_acts_dit(const vp_plan *plan, const vp_instance *in, vp_acts *r);
void vp_acts_megatron(const vp_plan *plan, const vp_instance *in, vp_acts *r);

#endif
