/* vlm_images.h: images in a vision-language model's workload (vlm_images.c): the decoder tokens one
 * image becomes, the vision tower's forward over its patches, in training and in inference. */
#ifndef VP_VLM_IMAGES_H
#define VP_VLM_IMAGES_H

#include "terms.h"

/* How an image becomes tokens (vp_arch.vis_rule). */
enum {
    VP_VIS_NONE = 0,
    VP_VIS_LLAVA,      /* CLIP tile, (S/p)^2 features (+ CLS under "full") */
    VP_VIS_LLAVA_NEXT, /* anyres: base tile + best-fit grid, unpadded, one newline per row */
    VP_VIS_FIXED,      /* gemma3: mm_tokens_per_image after pooling */
    VP_VIS_QWEN,       /* qwen2_vl / qwen2_5_vl: dynamic resolution, 2x2 merge */
    VP_VIS_PIXTRAL,    /* mistral3: merged patches + one [IMG_BREAK]/[IMG_END] per row */
    VP_VIS_LLAMA4      /* 336 tiles, pixel shuffle 0.5, global tile, separators */
};

/* Decoder tokens of one square image of side `side` (0: the family's default), and in *tower the
 * tokens the vision tower runs over for it (all tiles). 0 when the model has no vision tower. */
int64_t vp_image_tokens(const vp_arch *a, int64_t side, int64_t *tower);

/* After the instances are read: images × tokens per image join every sample's seq (plan->image_tokens). */
vp_status vp_plan_apply_images(vp_plan *plan, vp_error *err);

/* Training: the tower's saved tensors per micro-batch, added to r->outside per decoder token. */
void vp_acts_vision(const vp_plan *plan, const vp_instance *in, vp_acts *r);

/* Inference: the tower's forward peak (one block's temporaries + its output) for the batch's images, bytes. */
double vp_vision_infer_peak(const vp_plan *plan, const vp_instance *in, double *tokens);

#endif
