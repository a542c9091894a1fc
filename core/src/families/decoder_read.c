/* decoder_read.c: the config.json fields every Llama-style decoder shares (LlamaConfig in
 * transformers 5.x models/llama/configuration_llama.py), read once for all decoder families. */
#include <string.h>

#include "family.h"

int vp_has_key(const cJSON *c, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, key);
    return v && !cJSON_IsNull(v);
}

/* A field that is required unless the family's configuration class gives it a default (dflt > 0). */
static vp_status int_or_default(const cJSON *c, const char *p, const char *key, int64_t lo, int64_t hi, int64_t dflt,
                                int64_t *out, vp_error *err) {
    if (dflt <= 0) return vp_json_int(c, p, key, lo, hi, out, err);
    *out = dflt;
    return vp_json_opt_int(c, p, key, lo, hi, out, err);
}

vp_status vp_read_decoder_defaults(const cJSON *c, const char *p, vp_arch *a, const vp_decoder_defaults *d,
                                   vp_error *err) {
    static const vp_decoder_defaults none = {0};
    if (!d) d = &none;
    vp_status st;
    a->kind = VP_KIND_DECODER;
    if ((st = int_or_default(c, p, "hidden_size", 1, VP_MAXDIM, d->hidden, &a->hidden, err))) return st;
    if ((st = int_or_default(c, p, "num_hidden_layers", 1, VP_MAXLAYERS, d->layers, &a->layers, err))) return st;
    if ((st = int_or_default(c, p, "num_attention_heads", 1, 65536, d->heads, &a->heads, err))) return st;
    if ((st = int_or_default(c, p, "vocab_size", 1, VP_MAXVOCAB, d->vocab, &a->vocab, err))) return st;
    /* LlamaConfig: num_key_value_heads None -> num_attention_heads; some classes (Gemma3TextConfig: 4) fix it */
    a->kv_heads = d->kv_heads > 0 ? d->kv_heads : a->heads;
    if ((st = vp_json_opt_int(c, p, "num_key_value_heads", 1, 65536, &a->kv_heads, err))) return st;
    if (a->heads % a->kv_heads != 0) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_key_value_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s = %lld must divide num_attention_heads = %lld", path,
                       (long long)a->kv_heads, (long long)a->heads);
    }
    a->head_dim = d->head_dim;
    if ((st = vp_json_opt_int(c, p, "head_dim", 1, 65536, &a->head_dim, err))) return st;
    if (a->head_dim == 0) {
        if (a->hidden % a->heads != 0) {
            char path[128];
            vp_path_key(path, sizeof path, p, "num_attention_heads");
            return vp_fail(err, VP_ERR_RANGE, path, "%s = %lld does not divide hidden_size = %lld (set head_dim)",
                           path, (long long)a->heads, (long long)a->hidden);
        }
        a->head_dim = a->hidden / a->heads;
    }
    a->tie = d->tie;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &a->tie, err))) return st;
    a->inter = d->inter;
    if ((st = vp_json_opt_int(c, p, "intermediate_size", 1, VP_MAXDIM, &a->inter, err))) return st;
    int ab = 0, mb = 0;
    if ((st = vp_json_opt_bool(c, p, "attention_bias", &ab, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "mlp_bias", &mb, err))) return st;
    a->qkv_bias = ab;
    a->o_bias = ab;
    a->mlp_bias = mb;
    a->mlp = VP_MLP_SWIGLU;
    a->norm = VP_NORM_RMS;
    a->norms_per_layer = 2;
    if ((st = vp_json_opt_num(c, p, "attention_dropout", 0.0, 1.0, &a->attn_dropout, err))) return st;
    /* an explicit layer_types (transformers >= 4.53 writes it, e.g. Qwen2Config from use_sliding_window and
     * max_window_layers) marks the sliding / chunked layers of any family; the families with a default rule
     * (gemma2, gemma3, cohere2, gpt_oss, llama4) read it again with their defaults (attn_local.c) */
    if (vp_has_key(c, "layer_types") && (st = vp_read_local_attn(c, p, a, VP_LOCAL_NONE, 0, 0, err))) return st;
    a->max_positions = d->max_positions;
    return vp_read_rope(c, p, a, "partial_rotary_factor", 1.0, err);
}

vp_status vp_read_decoder_common(const cJSON *c, const char *p, vp_arch *a, int tie_default, vp_error *err) {
    vp_decoder_defaults d = {0};
    d.tie = tie_default;
    return vp_read_decoder_defaults(c, p, a, &d, err);
}

vp_status vp_read_need_inter(const char *p, const vp_arch *a, vp_error *err) {
    if (a->inter <= 0) {
        char path[128];
        vp_path_key(path, sizeof path, p, "intermediate_size");
        return vp_fail(err, VP_ERR_FIELD, path, "missing required field %s", path);
    }
    return VP_OK;
}

vp_status vp_read_moe(const cJSON *c, const char *p, vp_arch *a, const char *n_key, const char *inter_key,
                      vp_error *err) {
    vp_status st;
    if ((st = vp_json_int(c, p, n_key, 1, 4096, &a->experts, err))) return st;
    if ((st = vp_json_int(c, p, "num_experts_per_tok", 1, 4096, &a->experts_per_tok, err))) return st;
    if (a->experts_per_tok > a->experts) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_experts_per_tok");
        return vp_fail(err, VP_ERR_RANGE, path, "%s exceeds the number of experts", path);
    }
    a->expert_inter = a->inter;
    if (inter_key && (st = vp_json_opt_int(c, p, inter_key, 1, VP_MAXDIM, &a->expert_inter, err))) return st;
    if (a->expert_inter <= 0) return vp_read_need_inter(p, a, err);
    a->moe_layers = a->layers;
    vp_layer_map_fill(&a->moe_map, a->layers);
    return VP_OK;
}

/* Qwen2MoeDecoderLayer / Qwen3MoeDecoderLayer: layer i is sparse when it is not in mlp_only_layers and
 * (i + 1) % decoder_sparse_step == 0; dense layers use intermediate_size. */
vp_status vp_read_sparse_layers(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    int64_t step = 1;
    if ((st = vp_json_opt_int(c, p, "decoder_sparse_step", 1, VP_MAXLAYERS, &step, err))) return st;
    int64_t sparse = 0;
    memset(&a->moe_map, 0, sizeof a->moe_map);
    const cJSON *only = cJSON_GetObjectItemCaseSensitive(c, "mlp_only_layers");
    for (int64_t i = 0; i < a->layers; i++) {
        int dense = 0;
        if (cJSON_IsArray(only)) {
            const cJSON *x;
            cJSON_ArrayForEach(x, only) if (cJSON_IsNumber(x) && (int64_t)x->valuedouble == i) dense = 1;
        }
        if (!dense && (i + 1) % step == 0) {
            vp_layer_map_set(&a->moe_map, i);
            sparse++;
        }
    }
    a->moe_layers = sparse;
    if (sparse < a->layers && (st = vp_read_need_inter(p, a, err))) return st;
    return VP_OK;
}
