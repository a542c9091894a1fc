/* qwen3_moe.c: Qwen3-MoE (transformers models/qwen3_moe/modeling_qwen3_moe.py): Qwen3Attention (no
 * biases, q_norm/k_norm = RMSNorm(head_dim)) and Qwen3MoeSparseMoeBlock: gate Linear(h, num_experts,
 * bias=False) and num_experts SwiGLU experts of moe_intermediate_size, no shared expert; sparse layers
 * by decoder_sparse_step / mlp_only_layers as Qwen2-MoE, dense ones of intermediate_size.
 * Qwen3-30B-A3B: 30,532,122,624 (tests/core/test_families.c). */
#include "family.h"

vp_status vp_read_qwen3_moe(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    a->qk_norm = 1;
    if ((st = vp_read_moe(c, p, a, "num_experts", "moe_intermediate_size", err))) return st;
    return vp_read_sparse_layers(c, p, a, err);
}
