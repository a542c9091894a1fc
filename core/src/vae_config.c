/* vae_config.c: what the VAE files share: the list fields of the video VAEs' config.json (layers_per_block as a list,
 * spatio_temporal_scaling, temporal_expansions, ...), read strictly with the field named in errors (vae_ltx.c,
 * vae_mochi.c, vae_wan.c), and the pixels one tile decodes or encodes. */
#include <string.h>

#include "diffusers.h"
#include "util.h"

/* The list at `key`: NULL when absent or null (the class default stays), else its size in *k (1..max, or an error
 * naming the field) and the field's path. */
static vp_status list_of(const cJSON *c, const char *p, const char *key, int max, const cJSON **it, int *k, char *path,
                         size_t n, vp_error *err) {
    *it = cJSON_GetObjectItemCaseSensitive(c, key);
    if (!*it || cJSON_IsNull(*it)) {
        *it = NULL;
        return VP_OK;
    }
    vp_path_key(path, n, p, key);
    *k = cJSON_IsArray(*it) ? cJSON_GetArraySize(*it) : 0;
    if (*k < 1 || *k > max) return vp_fail(err, VP_ERR_FIELD, path, "%s must be a list of 1 to %d entries", path, max);
    return VP_OK;
}

vp_status vp_vae_list(const cJSON *c, const char *p, const char *key, int boolean, int64_t lo, int64_t hi, int64_t *out,
                      int max, int *n, vp_error *err) {
    const cJSON *it;
    char path[128];
    int k = 0;
    vp_status st = list_of(c, p, key, max, &it, &k, path, sizeof path, err);
    if (st || !it) return st;
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

vp_status vp_vae_names(const cJSON *c, const char *p, const char *key, const char *const *allowed, int n_allowed, int *out,
                       int max, int *n, vp_error *err) {
    const cJSON *it;
    char path[128];
    int k = 0;
    vp_status st = list_of(c, p, key, max, &it, &k, path, sizeof path, err);
    if (st || !it) return st;
    for (int i = 0; i < k; i++) {
        const cJSON *e = cJSON_GetArrayItem(it, i);
        int found = -1;
        for (int j = 0; j < n_allowed && cJSON_IsString(e); j++)
            if (!strcmp(e->valuestring, allowed[j])) found = j;
        if (found < 0) {
            char list[160] = "";
            for (int j = 0; j < n_allowed; j++) {
                strncat(list, allowed[j], sizeof list - strlen(list) - 1);
                if (j + 1 < n_allowed) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return vp_fail(err, VP_ERR_FIELD, path, "%s entries must be one of %s", path, list);
        }
        out[i] = found;
    }
    *n = k;
    return VP_OK;
}

/* the pixels one call covers: the whole frame, or with tiling one tile of tile_h × tile_w (diffusers' tiled_decode /
 * tiled_encode) when the frame is larger */
void vp_vae_tile(const vp_arch *a, int64_t h, int64_t w, int tiling, int64_t *th, int64_t *tw) {
    *th = h, *tw = w;
    if (tiling && a->d.tile_h > 0 && (h > a->d.tile_h || w > a->d.tile_w)) {
        *th = h < a->d.tile_h ? h : a->d.tile_h;
        *tw = w < a->d.tile_w ? w : a->d.tile_w;
    }
}
