/* vae_config.c: the list fields of the video VAEs' config.json (layers_per_block as a list,
 * spatio_temporal_scaling, temporal_expansions, ...), read strictly with the field named in errors
 * (vae_ltx.c, vae_mochi.c). */
#include "diffusers.h"
#include "util.h"

vp_status vp_vae_list(const cJSON *c, const char *p, const char *key, int boolean, int64_t lo, int64_t hi, int64_t *out,
                      int max, int *n, vp_error *err) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(c, key);
    if (!it || cJSON_IsNull(it)) return VP_OK; /* absent: the class default stays */
    char path[128];
    vp_path_key(path, sizeof path, p, key);
    int k = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : 0;
    if (k < 1 || k > max) return vp_fail(err, VP_ERR_FIELD, path, "%s must be a list of 1 to %d entries", path, max);
    for (int i = 0; i < k; i++) {
        const cJSON *e = cJSON_GetArrayItem(it, i);
        if (boolean) {
            if (!cJSON_IsBool(e)) return vp_fail(err, VP_ERR_FIELD, path, "%s entries must be true or false", path);
            out[i] = cJSON_IsTrue(e);
            continue;
        }
        if (!cJSON_IsNumber(e) || e->valuedouble < (double)lo || e->valuedouble > (double)hi ||
            e->valuedouble != (double)(int64_t)e->valuedouble)
            return vp_fail(err, VP_ERR_RANGE, path, "%s entries must be integers in %lld..%lld", path, (long long)lo,
                           (long long)hi);
        out[i] = (int64_t)e->valuedouble;
    }
    *n = k;
    return VP_OK;
}
