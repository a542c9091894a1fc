/* dtypes.c: storage and activation dtypes of an instance under each precision mode. */
#include "terms.h"

int vp_dtype_bytes(vp_dtype dt) {
    switch (dt) {
    case VP_DT_FP32: return 4;
    case VP_DT_BF16:
    case VP_DT_FP16: return 2;
    case VP_DT_FP8:
    case VP_DT_INT8: return 1;
    }
    return 4;
}

const char *vp_dtype_name(vp_dtype dt) {
    switch (dt) {
    case VP_DT_FP32: return "fp32";
    case VP_DT_BF16: return "bf16";
    case VP_DT_FP16: return "fp16";
    case VP_DT_FP8: return "fp8";
    case VP_DT_INT8: return "int8";
    }
    return "?";
}

int vp_is_amp(const vp_instance *in) { return in->precision == VP_PREC_AMP_BF16 || in->precision == VP_PREC_AMP_FP16; }

/* fp32 and autocast keep fp32 parameters (AMP "master weights"); pure modes store the low dtype.
 * fp8 training (Transformer Engine) keeps bf16 weights and casts per GEMM. */
vp_dtype vp_param_dtype(const vp_instance *in) {
    switch (in->precision) {
    case VP_PREC_FP32:
    case VP_PREC_AMP_BF16:
    case VP_PREC_AMP_FP16: return VP_DT_FP32;
    case VP_PREC_BF16:
    case VP_PREC_BF16_MASTER:
    case VP_PREC_FP8: return VP_DT_BF16;
    case VP_PREC_FP16:
    case VP_PREC_FP16_MASTER: return VP_DT_FP16;
    }
    return VP_DT_FP32;
}

/* Autocast runs matmuls in the low dtype, so the activations they produce are 16-bit. */
vp_dtype vp_act_dtype(const vp_instance *in) {
    switch (in->precision) {
    case VP_PREC_FP32: return VP_DT_FP32;
    case VP_PREC_AMP_FP16:
    case VP_PREC_FP16:
    case VP_PREC_FP16_MASTER: return VP_DT_FP16;
    default: return VP_DT_BF16;
    }
}
