/* qwen2_moe.c: Qwen1.5-MoE / Qwen2-MoE (models/qwen2_moe/modeling_qwen2_moe.py): Qwen2 attention
 * (q/k/v biases), Qwen2MoeSparseMoeBlock with num_experts experts of moe_intermediate_size, a shared
 * expert of shared_expert_intermediate_size and its sigmoid gate Linear(h, 1); a layer is sparse when
 * it is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0 (Qwen2MoeDecoderLayer). */
#include "family.h"

vp_status vp_read_qwen2_moe(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    a->qkv_bias = 1;
    a->o_bias = 0;
    if ((st = vp_read_moe(c, p, a, "num_experts", "moe_intermediate_size", err))) return st;
    if ((st = vp_json_opt_int(c, p, "shared_expert_intermediate_size", 0, VP_MAXDIM, &a->shared_expert_inter, err)))
        return st;
    int64_t step = 1;
    if ((st = vp_json_opt_int(c, p, "decoder_sparse_step", 1, VP_MAXLAYERS, &step, err))) return st;
    int64_t sparse = 0;
    const cJSON *only = cJSON_GetObjectItemCaseSensitive(c, "mlp_only_layers");
    for (int64_t i = 0; i < a->layers; i++) {
        int dense = 0;
        if (cJSON_IsArray(only)) {
            const cJSON *x;
            cJSON_ArrayForEach(x, only) if (cJSON_IsNumber(x) && (int64_t)x->valuedouble == i) dense = 1;
        }
        if (!dense && (i + 1) % step == 0) sparse++;
    }
    a->moe_layers = sparse;
    if (sparse < a->layers && (st = vp_read_need_inter(p, a, err))) return st;
    return VP_OK;
}
