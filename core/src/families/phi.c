/* phi.c: Phi-1 / Phi-1.5 / Phi-2 (transformers models/phi/modeling_phi.py, model_type "phi").
 * PhiConfig defaults: vocab 51200, hidden 2048, intermediate 8192, 24 layers, 32 heads,
 * num_key_value_heads None (= heads), partial_rotary_factor 0.5, qk_layernorm False,
 * tie_word_embeddings False, hidden_act gelu_new.
 * PhiDecoderLayer: one input_layernorm (LayerNorm with bias) feeding attention and MLP in parallel;
 * PhiAttention q/k/v_proj and dense with bias (and q/k_layernorm = LayerNorm(head_dim) when
 * qk_layernorm); PhiMLP fc1 Linear(h, intermediate_size) and fc2 with bias (GELU); final_layernorm;
 * PhiForCausalLM lm_head = Linear(h, vocab, bias=True). Phi-2: 2,779,683,840. */
#include "family.h"

vp_status vp_read_phi(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    vp_decoder_defaults d = {2048, 24, 32, 0, 0, 8192, 51200, 0, 2048};
    if ((st = vp_read_decoder_defaults(c, p, a, &d, err))) return st;
    a->qkv_bias = a->o_bias = a->mlp_bias = 1;
    a->mlp = VP_MLP_GELU;
    a->gelu_python = 1; /* gelu_new: NewGELUActivation */
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 1;
    a->lm_head_bias = 1;
    if ((st = vp_json_opt_bool(c, p, "qk_layernorm", &a->qk_norm, err))) return st;
    double drop = 0;
    if ((st = vp_json_opt_num(c, p, "resid_pdrop", 0, 1, &drop, err))) return st;
    a->resid_dropout = drop;
    drop = 0;
    if ((st = vp_json_opt_num(c, p, "embd_pdrop", 0, 1, &drop, err))) return st;
    a->embd_dropout = drop;
    return vp_read_rope(c, p, a, "partial_rotary_factor", 0.5, err);
}
