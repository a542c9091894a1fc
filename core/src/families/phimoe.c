/* phimoe.c: Phi-3.5-MoE (transformers models/phimoe/modeling_phimoe.py). PhimoeAttention q/k/v/o_proj
 * with bias=attention_bias (PhimoeConfig default True); PhimoeSparseMoeBlock gate Linear(h,
 * num_local_experts, bias=False) and num_local_experts SwiGLU experts (w1, w2, w3) of
 * intermediate_size; input_layernorm / post_attention_layernorm / norm are nn.LayerNorm with bias;
 * lm_head Linear(h, vocab, bias=lm_head_bias) (default True), untied. */
#include "family.h"

vp_status vp_read_phimoe(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    if ((st = vp_read_need_inter(p, a, err))) return st;
    int bias = 1;
    if ((st = vp_json_opt_bool(c, p, "attention_bias", &bias, err))) return st;
    a->qkv_bias = a->o_bias = bias;
    a->norm = VP_NORM_LAYER;
    a->lm_head_bias = 1;
    if ((st = vp_json_opt_bool(c, p, "lm_head_bias", &a->lm_head_bias, err))) return st;
    return vp_read_moe(c, p, a, "num_local_experts", NULL, err);
}

void vp_count_phimoe(const vp_arch *a, vp_param_counts *c) {
    vp_count_decoder(a, c);
    if (a->lm_head_bias) c->lm_head += a->vocab; /* PhimoeForCausalLM lm_head bias */
}
