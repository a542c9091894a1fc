/* generic.c: the fallback for a model_type no family claims. A config with the standard decoder
 * fields (hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, vocab_size; or
 * their GPT-style aliases n_embd/n_embed, n_layer, n_head, n_inner) is estimated as a Llama-style
 * decoder (LlamaConfig defaults: SwiGLU MLP, RMSNorm, no biases, untied embeddings), with a
 * warning naming what was assumed: the count may be approximate. A multimodal config whose
 * language model sits in text_config is read from there. Sparse-MoE fields (num_local_experts,
 * num_experts, n_routed_experts with num_experts_per_tok and moe_intermediate_size) make every
 * layer an MoE layer. A vision_config beside it is counted as a generic ViT tower (vision_towers.c). */
#include <stdio.h>
#include <string.h>

#include "family.h"

/* The first of keys present (and not null) in c, or NULL. */
static const char *first_key(const cJSON *c, const char *const *keys) {
    for (int i = 0; keys[i]; i++)
        if (vp_has_key(c, keys[i])) return keys[i];
    return NULL;
}

/* A required field: when it is missing, the error is at model_type (the family is what is not
 * supported) and its message names the missing field. */
static vp_status need(const cJSON *c, const char *p, const char *const *keys, int64_t lo, int64_t hi, int64_t *out,
                      const char *mt_path, const char *shown, vp_error *err) {
    const char *k = first_key(c, keys);
    if (!k) {
        char path[128];
        vp_path_key(path, sizeof path, p, keys[0]);
        return vp_fail(err, VP_ERR_UNSUPPORTED, mt_path,
                       "%s \"%s\" is not a known family (such as llama) and %s is missing, so it cannot be "
                       "read as a generic decoder (describe it with \"custom\")",
                       mt_path, shown, path);
    }
    return vp_json_int(c, p, k, lo, hi, out, err);
}

static vp_status opt(const cJSON *c, const char *p, const char *const *keys, int64_t lo, int64_t hi, int64_t *out,
                     vp_error *err) {
    const char *k = first_key(c, keys);
    return k ? vp_json_int(c, p, k, lo, hi, out, err) : VP_OK;
}

vp_status vp_read_generic(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    static const char *const k_hidden[] = {"hidden_size", "n_embd", "n_embed", "d_model", NULL};
    static const char *const k_layers[] = {"num_hidden_layers", "n_layer", "num_layers", NULL};
    static const char *const k_heads[] = {"num_attention_heads", "n_head", "num_heads", NULL};
    static const char *const k_kv[] = {"num_key_value_heads", "num_kv_heads", "n_head_kv", NULL};
    static const char *const k_hd[] = {"head_dim", "kv_channels", NULL};
    static const char *const k_inter[] = {"intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size", "d_ff", NULL};
    static const char *const k_vocab[] = {"vocab_size", "padded_vocab_size", NULL};
    static const char *const k_experts[] = {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts", NULL};
    static const char *const k_topk[] = {"num_experts_per_tok", "moe_topk", "top_k", NULL};
    static const char *const k_einter[] = {"moe_intermediate_size", "expert_intermediate_size", NULL};
    char shown[25];
    vp_strlcpy(shown, a->model_type, sizeof shown);
    char tp[128], mt_path[128];
    const char *p0 = p;
    vp_path_key(mt_path, sizeof mt_path, p, "model_type");
    const cJSON *top = c;
    int from_text = 0;
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(c, "text_config");
    if (!first_key(c, k_hidden) && cJSON_IsObject(tc)) {
        vp_path_key(tp, sizeof tp, p, "text_config");
        c = tc;
        p = tp;
        from_text = 1;
    }
    vp_status st;
    a->kind = VP_KIND_DECODER;
    if ((st = need(c, p, k_hidden, 1, VP_MAXDIM, &a->hidden, mt_path, shown, err))) return st;
    if ((st = need(c, p, k_layers, 1, VP_MAXLAYERS, &a->layers, mt_path, shown, err))) return st;
    if ((st = need(c, p, k_heads, 1, 65536, &a->heads, mt_path, shown, err))) return st;
    if ((st = need(c, p, k_vocab, 1, VP_MAXVOCAB, &a->vocab, mt_path, shown, err))) return st;
    a->kv_heads = a->heads;
    if ((st = opt(c, p, k_kv, 1, 65536, &a->kv_heads, err))) return st;
    if (a->heads % a->kv_heads) {
        char path[128];
        vp_path_key(path, sizeof path, p, first_key(c, k_kv));
        return vp_fail(err, VP_ERR_RANGE, path, "%s = %lld must divide the number of attention heads (%lld)", path,
                       (long long)a->kv_heads, (long long)a->heads);
    }
    if ((st = opt(c, p, k_hd, 1, 65536, &a->head_dim, err))) return st;
    if (!a->head_dim) {
        if (a->hidden % a->heads) {
            char path[128];
            vp_path_key(path, sizeof path, p, first_key(c, k_heads));
            return vp_fail(err, VP_ERR_RANGE, path, "%s = %lld does not divide hidden_size = %lld (set head_dim)", path,
                           (long long)a->heads, (long long)a->hidden);
        }
        a->head_dim = a->hidden / a->heads;
    }
    char assumed[120] = "";
    size_t n = 0;
    if ((st = opt(c, p, k_inter, 1, VP_MAXDIM, &a->inter, err))) return st;
    if (!a->inter) {
        a->inter = 4 * a->hidden; /* the GPT-2/BERT convention when no intermediate size is given */
        n += (size_t)snprintf(assumed + n, sizeof assumed - n, ", intermediate_size=4h");
    }
    if ((st = opt(c, p, k_experts, 0, 4096, &a->experts, err))) return st;
    if (a->experts > 0) {
        a->experts_per_tok = 0;
        if ((st = opt(c, p, k_topk, 1, 4096, &a->experts_per_tok, err))) return st;
        if (!a->experts_per_tok) {
            a->experts_per_tok = a->experts < 2 ? a->experts : 2; /* Mixtral's top-2 */
            if (n < sizeof assumed) n += (size_t)snprintf(assumed + n, sizeof assumed - n, ", top-2");
        }
        if (a->experts_per_tok > a->experts) a->experts_per_tok = a->experts;
        a->expert_inter = a->inter;
        if ((st = opt(c, p, k_einter, 1, VP_MAXDIM, &a->expert_inter, err))) return st;
        a->moe_layers = a->layers;
        vp_layer_map_fill(&a->moe_map, a->layers);
    }
    a->tie = 0; /* LlamaConfig default; a multimodal config may set it at the top level */
    if ((st = vp_json_opt_bool(top, p0, "tie_word_embeddings", &a->tie, err))) return st;
    if (from_text && (st = vp_json_opt_bool(c, p, "tie_word_embeddings", &a->tie, err))) return st;
    if (!vp_has_key(c, "tie_word_embeddings") && !vp_has_key(top, "tie_word_embeddings") && n < sizeof assumed)
        n += (size_t)snprintf(assumed + n, sizeof assumed - n, ", untied");
    a->mlp = VP_MLP_SWIGLU;
    a->norm = VP_NORM_RMS;
    a->norms_per_layer = 2;
    if ((st = vp_read_rope(c, p, a, "partial_rotary_factor", 1.0, err))) return st;
    if (vp_has_key(c, "layer_types") && (st = vp_read_local_attn(c, p, a, VP_LOCAL_NONE, 0, 0, err))) return st;
    const cJSON *vc = cJSON_GetObjectItemCaseSensitive(top, "vision_config");
    if (cJSON_IsObject(vc)) { /* a vision tower beside the language model (vision_towers.c) */
        char vp[128];
        vp_path_key(vp, sizeof vp, p0, "vision_config");
        a->vision_params = vp_generic_vision_params(vc, vp, a->hidden, &st, err);
        if (st) return st;
    }
    /* the approximation comes first: a long model_type can only cut the list of assumptions */
    snprintf(a->note, sizeof a->note,
             "unknown model_type \"%s\", its parameter count may be approximate: read as a generic decoder (SwiGLU, "
             "RMSNorm, no biases%s%s%s)%s%s",
             shown, a->experts ? ", MoE" : "", from_text ? ", from text_config" : "",
             a->vision_params ? ", generic ViT vision tower" : "", n ? "; assumed " : "",
             n ? assumed + 2 : "");
    return VP_OK;
}
