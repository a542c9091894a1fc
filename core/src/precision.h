/* precision.h: which copies of the weights, gradients and optimizer state a precision recipe keeps
 * (precision.c), and the plan fields that choose them (plan_parallel_precision.c). */
#ifndef VP_PRECISION_H
#define VP_PRECISION_H

#include <cjson/cJSON.h>

#include "terms.h"

/* The optimizer steps an fp32 master copy with fp32 states: DeepSpeed / Megatron bf16 mode
 * (bf16_master), and fp8 training (Transformer Engine under Megatron / NeMo keeps bf16 or fp32
 * weights and fp32 master weights + fp32 Adam moments in the optimizer). */
int vp_fp32_master(const vp_instance *in);

/* Transformer Engine fp8 GEMMs: bytes of the fp8 weight copies (row-wise data + the column-wise
 * transpose backward needs) for `linear_params` matmul weights, and of the amax histories and
 * scales of `gemms` GEMMs (DelayedScaling, amax_history_len 1024). */
int64_t vp_fp8_weight_copy_bytes(double linear_params);
int64_t vp_fp8_meta_bytes(int64_t gemms);
/* GEMMs with their own fp8 metadata in one block of the model (TE TransformerLayer: QKV, proj, fc1, fc2). */
int64_t vp_fp8_gemms_per_block(const vp_instance *in);

/* plan_parallel_precision.c */
void vp_parallel_precision_defaults(vp_parallel *p);
vp_status vp_parse_parallel_precision(const cJSON *o, vp_parallel *p, vp_error *err);
void vp_plan_framework_precision(vp_plan *plan);

#endif
