/* bloom.c: BLOOM (transformers models/bloom). BloomConfig reads hidden_size (or the older n_embed),
 * n_layer and n_head (attribute_map: num_hidden_layers, num_attention_heads); vocab 250880 by default.
 * BloomBlock: input_layernorm, self_attention.query_key_value Linear(h, 3h) and dense Linear(h, h),
 * post_attention_layernorm, mlp dense_h_to_4h Linear(h, 4h) and dense_4h_to_h (GELU), all with biases;
 * BloomModel adds word_embeddings_layernorm after the embeddings and ln_f; lm_head is tied (ALiBi:
 * no position parameters). Per block 12h² + 13h. BLOOM-176B: 176,247,271,424. */
#include "family.h"

static vp_status read_alias(const cJSON *c, const char *p, const char *k1, const char *k2, int64_t lo, int64_t hi,
                            int64_t *out, vp_error *err) {
    return vp_json_int(c, p, vp_has_key(c, k2) && !vp_has_key(c, k1) ? k2 : k1, lo, hi, out, err);
}

vp_status vp_read_bloom(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_DECODER;
    if ((st = read_alias(c, p, "hidden_size", "n_embed", 1, VP_MAXDIM, &a->hidden, err))) return st;
    if ((st = read_alias(c, p, "n_layer", "num_hidden_layers", 1, VP_MAXLAYERS, &a->layers, err))) return st;
    if ((st = read_alias(c, p, "n_head", "num_attention_heads", 1, 65536, &a->heads, err))) return st;
    a->vocab = 250880;
    if ((st = vp_json_opt_int(c, p, "vocab_size", 1, VP_MAXVOCAB, &a->vocab, err))) return st;
    if (a->hidden % a->heads) {
        char path[128];
        vp_path_key(path, sizeof path, p, vp_has_key(c, "n_head") ? "n_head" : "num_attention_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s must divide the hidden size", path);
    }
    a->kv_heads = a->heads;
    a->head_dim = a->hidden / a->heads;
    a->inter = 4 * a->hidden;
    a->tie = 1;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &a->tie, err))) return st;
    a->qkv_bias = a->o_bias = a->mlp_bias = 1;
    a->fused_qkv = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 2;
    if ((st = vp_json_opt_num(c, p, "attention_dropout", 0, 1, &a->attn_dropout, err))) return st;
    double drop = 0;
    if ((st = vp_json_opt_num(c, p, "hidden_dropout", 0, 1, &drop, err))) return st;
    a->resid_dropout = drop;
    a->embed_norm = 1; /* word_embeddings_layernorm */
    a->max_positions = 2048; /* ALiBi, no rotary embedding; no context field: vLLM's default 2048 */
    return VP_OK;
}

void vp_count_bloom(const vp_arch *a, vp_param_counts *c) {
    vp_count_decoder(a, c);
    c->embed += 2 * a->hidden; /* word_embeddings_layernorm */
}
