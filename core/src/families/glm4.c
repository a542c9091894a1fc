/* glm4.c: GLM-4 (0414) (transformers models/glm4/modeling_glm4.py). Glm4Attention q/k/v_proj with
 * bias=attention_bias (Glm4Config default True), o_proj without; Glm4MLP gate_up_proj Linear(h,
 * 2·intermediate_size, bias=False) and down_proj; Glm4DecoderLayer has four RMSNorms
 * (input_layernorm, post_self_attn_layernorm, post_attention_layernorm, post_mlp_layernorm);
 * head_dim 128 by default, partial rotary; tie_word_embeddings False. */
#include "family.h"

vp_status vp_read_glm4(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    if ((st = vp_read_need_inter(p, a, err))) return st;
    if (!vp_has_key(c, "head_dim")) a->head_dim = 128;
    int bias = 1;
    if ((st = vp_json_opt_bool(c, p, "attention_bias", &bias, err))) return st;
    a->qkv_bias = bias;
    a->o_bias = 0;
    a->fused_gate_up = 1;
    a->norms_per_layer = 4;
    return vp_read_rope(c, p, a, "partial_rotary_factor", 0.5, err); /* Glm4Config partial_rotary_factor 0.5 */
}
