/* falcon.c: Falcon (transformers models/falcon/modeling_falcon.py) and the original RefinedWeb /
 * RefinedWebModel configs of tiiuae (remote code; FalconConfig attribute_map reads their n_layer,
 * n_head, n_head_kv; n_embed is their hidden size).
 * FalconDecoderLayer: with new_decoder_architecture (Falcon-40B/180B, model_type RefinedWeb) ln_attn
 * and ln_mlp (num_ln_in_parallel_attn 2) and query_key_value Linear(h, (a + 2·a_kv)·d); otherwise
 * (Falcon-7B, RefinedWebModel) input_layernorm (+ post_attention_layernorm unless parallel_attn) and
 * query_key_value Linear(h, h + 2d) when multi_query, else 3h. dense Linear(h, h), mlp
 * dense_h_to_4h Linear(h, ffn_hidden_size = 4h) and dense_4h_to_h, GELU, biases = config.bias (False);
 * LayerNorms with bias; lm_head tied. FalconConfig defaults: vocab 65024, hidden 4544, 32 layers,
 * 71 heads, multi_query True, parallel_attn True. Falcon-7B 6,921,720,704; Falcon-40B 41,303,293,952. */
#include <string.h>

#include "family.h"

static vp_status read_falcon(const cJSON *c, const char *p, vp_arch *a, int new_arch, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_DECODER;
    a->hidden = 4544;
    a->layers = 32;
    a->heads = 71;
    a->vocab = 65024;
    const char *hk = vp_has_key(c, "hidden_size") || !vp_has_key(c, "n_embed") ? "hidden_size" : "n_embed";
    const char *lk = vp_has_key(c, "num_hidden_layers") || !vp_has_key(c, "n_layer") ? "num_hidden_layers" : "n_layer";
    const char *ak = vp_has_key(c, "num_attention_heads") || !vp_has_key(c, "n_head") ? "num_attention_heads" : "n_head";
    const char *kk = vp_has_key(c, "num_kv_heads") || !vp_has_key(c, "n_head_kv") ? "num_kv_heads" : "n_head_kv";
    if ((st = vp_json_opt_int(c, p, hk, 1, VP_MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_opt_int(c, p, lk, 1, VP_MAXLAYERS, &a->layers, err))) return st;
    if ((st = vp_json_opt_int(c, p, ak, 1, 65536, &a->heads, err))) return st;
    if ((st = vp_json_opt_int(c, p, "vocab_size", 1, VP_MAXVOCAB, &a->vocab, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "new_decoder_architecture", &new_arch, err))) return st;
    if (a->hidden % a->heads) {
        char path[128];
        vp_path_key(path, sizeof path, p, ak);
        return vp_fail(err, VP_ERR_RANGE, path, "%s must divide the hidden size", path);
    }
    a->head_dim = a->hidden / a->heads;
    int mq = 1, parallel = 1, bias = 0;
    if ((st = vp_json_opt_bool(c, p, "multi_query", &mq, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "parallel_attn", &parallel, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "bias", &bias, err))) return st;
    if (new_arch) {
        a->kv_heads = a->heads;
        if ((st = vp_json_opt_int(c, p, kk, 1, 65536, &a->kv_heads, err))) return st;
        int64_t n_ln = 2;
        if ((st = vp_json_opt_int(c, p, "num_ln_in_parallel_attn", 1, 2, &n_ln, err))) return st;
        a->norms_per_layer = (int)n_ln;
    } else {
        a->kv_heads = mq ? 1 : a->heads;
        a->norms_per_layer = parallel ? 1 : 2;
    }
    if (a->heads % a->kv_heads) {
        char path[128];
        vp_path_key(path, sizeof path, p, kk);
        return vp_fail(err, VP_ERR_RANGE, path, "%s must divide the number of heads", path);
    }
    a->inter = 4 * a->hidden;
    if ((st = vp_json_opt_int(c, p, "ffn_hidden_size", 1, VP_MAXDIM, &a->inter, err))) return st;
    a->tie = 1;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &a->tie, err))) return st;
    a->qkv_bias = a->o_bias = a->mlp_bias = bias;
    a->fused_qkv = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    if ((st = vp_json_opt_num(c, p, "attention_dropout", 0, 1, &a->attn_dropout, err))) return st;
    double drop = 0;
    if ((st = vp_json_opt_num(c, p, "hidden_dropout", 0, 1, &drop, err))) return st;
    a->resid_dropout = drop;
    /* FalconConfig max_position_embeddings 2048; alibi (False) replaces the rotary embedding */
    if ((st = vp_read_rope(c, p, a, NULL, 1.0, err))) return st;
    int alibi = 0;
    if ((st = vp_json_opt_bool(c, p, "alibi", &alibi, err))) return st;
    a->rope = !alibi;
    return VP_OK;
}

vp_status vp_read_falcon(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return read_falcon(c, p, a, 0, err); }
/* tiiuae's remote RefinedWeb (40B) is the new decoder architecture; RefinedWebModel (7B) the old one */
vp_status vp_read_refinedweb(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return read_falcon(c, p, a, 1, err); }
vp_status vp_read_refinedwebmodel(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    return read_falcon(c, p, a, 0, err);
}
