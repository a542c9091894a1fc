/* decoder_read.c: the config.json fields every Llama-style decoder shares (LlamaConfig in
 * transformers 5.x models/llama/configuration_llama.py), read once for all decoder families. */
#include "family.h"

int vp_has_key(const cJSON *c, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, key);
    return v && !cJSON_IsNull(v);
}

vp_status vp_read_decoder_common(const cJSON *c, const char *p, vp_arch *a, int tie_default, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_DECODER;
    if ((st = vp_json_int(c, p, "hidden_size", 1, VP_MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_int(c, p, "num_hidden_layers", 1, VP_MAXLAYERS, &a->layers, err))) return st;
    if ((st = vp_json_int(c, p, "num_attention_heads", 1, 65536, &a->heads, err))) return st;
    if ((st = vp_json_int(c, p, "vocab_size", 1, VP_MAXVOCAB, &a->vocab, err))) return st;
    a->kv_heads = a->heads;
    if ((st = vp_json_opt_int(c, p, "num_key_value_heads", 1, 65536, &a->kv_heads, err))) return st;
    if (a->heads % a->kv_heads != 0) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_key_value_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s = %lld must divide num_attention_heads = %lld", path,
                       (long long)a->kv_heads, (long long)a->heads);
    }
    a->head_dim = 0;
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
    a->tie = tie_default;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &a->tie, err))) return st;
    a->inter = 0;
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
    return VP_OK;
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
    return VP_OK;
}
