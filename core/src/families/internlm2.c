/* internlm2.c: InternLM2 / 2.5 (remote code modeling_internlm2.py InternLM2ForCausalLM):
 * tok_embeddings; InternLM2DecoderLayer = attention_norm, attention.wqkv Linear(h, (a + 2·a_kv)·d,
 * bias=config.bias) and attention.wo Linear(a·d, h, bias=config.bias), ffn_norm, feed_forward w1/w3
 * Linear(h, intermediate_size) and w2 (SwiGLU, no bias); norm; output Linear(h, vocab) untied.
 * InternLM2Config bias defaults to True (the released configs set false). */
#include "family.h"

vp_status vp_read_internlm2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    if ((st = vp_read_need_inter(p, a, err))) return st;
    int bias = 1;
    if ((st = vp_json_opt_bool(c, p, "bias", &bias, err))) return st;
    a->qkv_bias = a->o_bias = bias;
    a->fused_qkv = 1;
    return VP_OK;
}
