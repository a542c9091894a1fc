/* starcoder2.c: StarCoder2 (transformers models/starcoder2/modeling_starcoder2.py): Starcoder2Attention
 * q/k/v/o_proj with bias=use_bias (default True), Starcoder2MLP c_fc Linear(h, intermediate_size) and
 * c_proj with bias=use_bias (gelu_pytorch_tanh), input_layernorm and post_attention_layernorm =
 * nn.LayerNorm (with bias); Starcoder2Config tie_word_embeddings True. */
#include "family.h"

vp_status vp_read_starcoder2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 1, err))) return st;
    if ((st = vp_read_need_inter(p, a, err))) return st;
    int bias = 1;
    if ((st = vp_json_opt_bool(c, p, "use_bias", &bias, err))) return st;
    a->qkv_bias = a->o_bias = a->mlp_bias = bias;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    double drop = 0;
    if ((st = vp_json_opt_num(c, p, "residual_dropout", 0, 1, &drop, err))) return st;
    a->resid_dropout = drop;
    drop = 0;
    if ((st = vp_json_opt_num(c, p, "embedding_dropout", 0, 1, &drop, err))) return st;
    a->embd_dropout = drop;
    return VP_OK;
}
