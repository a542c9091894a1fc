/* precision.c: the copies a precision recipe keeps.
 *
 * fp8 with Transformer Engine (transformer_engine/pytorch/module/linear.py @ d0067d0):
 *  - the weight is quantized for every forward (quantize_weight, linear.py:478-489) with row-wise
 *    usage for the forward GEMM and column-wise usage (the fp8 transpose) when backward will need it
 *    (columnwise_usage = is_grad_enabled and inp.requires_grad, linear.py:467-475): 1 B + 1 B per
 *    weight element, saved for backward (ctx.save_for_backward, linear.py:1434), and cached across
 *    micro-batches in module._fp8_workspaces when the caller passes is_first_microbatch, as
 *    Megatron-LM's TE wrappers do (linear.py:1958-1960, 2068-2071);
 *  - every GEMM carries fp8 metadata: 3 quantizers in forward, 2 in backward (module/base.py:1139),
 *    each with an fp32 amax history of amax_history_len rows and an fp32 scale (quantization.py:
 *    1436-1442; recipe DelayedScaling amax_history_len = 1024, common/recipe/__init__.py:255);
 *  - the master weights and Adam moments stay fp32 in the optimizer (Megatron DistributedOptimizer /
 *    NeMo MegatronOptimizer), so fp8 training keeps 4 B master + 8 B moments per parameter. */
#include "precision.h"

#define TE_AMAX_HISTORY_LEN 1024 /* DelayedScaling default, common/recipe/__init__.py:255 */

int vp_fp32_master(const vp_instance *in) {
    return in->precision == VP_PREC_BF16_MASTER || in->precision == VP_PREC_FP16_MASTER || in->precision == VP_PREC_FP8;
}

int64_t vp_fp8_weight_copy_bytes(double linear_params) { return (int64_t)(linear_params * 2.0); }

int64_t vp_fp8_meta_bytes(int64_t gemms) {
    /* forward 3 + backward 2 quantizers per GEMM, each amax history rows + one scale, fp32 */
    return gemms * 5 * (TE_AMAX_HISTORY_LEN + 1) * 4;
}

int64_t vp_fp8_gemms_per_block(const vp_instance *in) {
    (void)in;
    return 4; /* LayerNormLinear(qkv), Linear(proj), LayerNormMLP(fc1, fc2) */
}
