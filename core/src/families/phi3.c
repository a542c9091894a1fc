/* phi3.c: Phi-3 (models/phi3/modeling_phi3.py): Phi3Attention.qkv_proj (one fused linear),
 * Phi3MLP.gate_up_proj (fused), residual dropout resid_pdrop. */
#include "family.h"

vp_status vp_read_phi3(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    a->fused_qkv = 1;
    a->fused_gate_up = 1;
    double r = 0;
    if ((st = vp_json_opt_num(c, p, "resid_pdrop", 0, 1, &r, err))) return st;
    a->resid_dropout = r;
    return vp_read_need_inter(p, a, err);
}
