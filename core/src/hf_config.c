/* hf_config.c: Hugging Face config.json -> vp_arch. The family of "model_type" reads it
 * (families/table.c -> families/<name>.c); field names and defaults follow each family's
 * configuration_*.py in transformers 5.x. Unknown config fields are ignored (config.json files
 * carry many that do not change a shape); shape fields are validated and a bad one is named in
 * the error. */
#include <string.h>

#include "families/family.h"
#include "diffusers.h"

vp_status vp_arch_from_hf(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    memset(a, 0, sizeof *a);
    if (!cJSON_IsObject(c)) return vp_fail(err, VP_ERR_FIELD, p, "%s must be a JSON object (a config.json)", p);
    if (vp_diffusers_is_component(c)) return vp_arch_from_diffusers(c, p, a, err); /* i12: diffusion pipelines */
    char path[128];
    vp_path_key(path, sizeof path, p, "model_type");
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(c, "model_type");
    if (!cJSON_IsString(mt) || !mt->valuestring)
        return vp_fail(err, VP_ERR_FIELD, path, "missing required field %s (the family, e.g. \"llama\")", path);
    const vp_family *fam = vp_family_find(mt->valuestring);
    if (!fam) {
        /* no family claims it: a generic decoder with a warning (families/generic.c) */
        vp_strlcpy(a->model_type, mt->valuestring, sizeof a->model_type);
        return vp_read_generic(c, p, a, err);
    }
    vp_strlcpy(a->model_type, fam->model_type, sizeof a->model_type);
    return fam->read(c, p, a, err);
}

/* A generic decoder for anything else (plan "model": {"custom": {...}}). */
vp_status vp_arch_from_custom(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    static const char *const keys[] = {"name", "hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim",
                                       "intermediate_size", "vocab_size", "mlp", "tie_embeddings", "attn_bias",
                                       "mlp_bias", "norm", NULL};
    static const char *const mlps[] = {"swiglu", "geglu", "gelu", "relu", NULL};
    static const char *const norms[] = {"rmsnorm", "layernorm", NULL};
    vp_status st;
    memset(a, 0, sizeof *a);
    if ((st = vp_json_only_keys(c, p, keys, err))) return st;
    vp_strlcpy(a->model_type, "custom", sizeof a->model_type);
    a->kind = VP_KIND_DECODER;
    if ((st = vp_json_int(c, p, "hidden_size", 1, VP_MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_int(c, p, "num_layers", 1, VP_MAXLAYERS, &a->layers, err))) return st;
    if ((st = vp_json_int(c, p, "num_heads", 1, 65536, &a->heads, err))) return st;
    if ((st = vp_json_int(c, p, "intermediate_size", 1, VP_MAXDIM, &a->inter, err))) return st;
    if ((st = vp_json_int(c, p, "vocab_size", 1, VP_MAXVOCAB, &a->vocab, err))) return st;
    a->kv_heads = a->heads;
    if ((st = vp_json_opt_int(c, p, "num_kv_heads", 1, 65536, &a->kv_heads, err))) return st;
    if (a->heads % a->kv_heads) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_kv_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s must divide num_heads", path);
    }
    if ((st = vp_json_opt_int(c, p, "head_dim", 1, 65536, &a->head_dim, err))) return st;
    if (!a->head_dim) {
        if (a->hidden % a->heads) {
            char path[128];
            vp_path_key(path, sizeof path, p, "num_heads");
            return vp_fail(err, VP_ERR_RANGE, path, "%s must divide hidden_size (or set head_dim)", path);
        }
        a->head_dim = a->hidden / a->heads;
    }
    int mlp = 0, norm = 0;
    if ((st = vp_json_opt_enum(c, p, "mlp", mlps, &mlp, err))) return st;
    if ((st = vp_json_opt_enum(c, p, "norm", norms, &norm, err))) return st;
    a->mlp = (vp_mlp)mlp;
    a->norm = (vp_norm)norm;
    a->norms_per_layer = 2;
    if ((st = vp_json_opt_bool(c, p, "tie_embeddings", &a->tie, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "attn_bias", &a->qkv_bias, err))) return st;
    a->o_bias = a->qkv_bias;
    if ((st = vp_json_opt_bool(c, p, "mlp_bias", &a->mlp_bias, err))) return st;
    return VP_OK;
}
