/* qwen2.c: Qwen2 / Qwen2.5 (models/qwen2/modeling_qwen2.py): the Llama block with
 * Qwen2Attention q/k/v Linear(bias=True), o_proj bias=False. */
#include "family.h"

vp_status vp_read_qwen2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    a->qkv_bias = 1;
    a->o_bias = 0;
    return vp_read_need_inter(p, a, err);
}
