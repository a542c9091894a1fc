/* qwen3.c: Qwen3 dense (models/qwen3/modeling_qwen3.py): the Llama block plus Qwen3Attention
 * q_norm / k_norm = RMSNorm(head_dim); Qwen3Config head_dim defaults to 128. */
#include "family.h"

vp_status vp_read_qwen3(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    a->qk_norm = 1;
    if (!cJSON_GetObjectItemCaseSensitive(c, "head_dim")) a->head_dim = 128;
    return vp_read_need_inter(p, a, err);
}
