/* gpt_neox.c: GPT-NeoX / Pythia (transformers models/gpt_neox/modeling_gpt_neox.py). GPTNeoXLayer:
 * input_layernorm and post_attention_layernorm (LayerNorm with bias), attention.query_key_value
 * Linear(h, 3h, bias=attention_bias) and attention.dense Linear(h, h, bias=attention_bias)
 * (GPTNeoXConfig attention_bias True), mlp dense_h_to_4h Linear(h, intermediate_size) and
 * dense_4h_to_h with biases (GELU); embed_in, final_layer_norm, embed_out (tie_word_embeddings
 * False). use_parallel_residual changes no shape. GPT-NeoX-20B: 20,554,567,680. */
#include "family.h"

vp_status vp_read_gpt_neox(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    if ((st = vp_read_need_inter(p, a, err))) return st;
    int bias = 1;
    if ((st = vp_json_opt_bool(c, p, "attention_bias", &bias, err))) return st;
    a->qkv_bias = a->o_bias = bias;
    a->mlp_bias = 1;
    a->fused_qkv = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    double drop = 0;
    if ((st = vp_json_opt_num(c, p, "hidden_dropout", 0, 1, &drop, err))) return st;
    a->resid_dropout = drop;
    return vp_read_rope(c, p, a, "rotary_pct", 0.25, err); /* GPTNeoXConfig rotary_pct 0.25 */
}
