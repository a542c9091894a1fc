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
    return vp_read_sparse_layers(c, p, a, err);
}
