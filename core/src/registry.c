/* registry.c: preset models and GPUs (the data files of models/, bundled as JSON). */
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "util.h"

struct vp_registry {
    cJSON *root; /* {"models":[...], "gpus":[...]}; never modified after creation */
};

vp_registry *vp_registry_from_json(const char *json, vp_error *err) {
    vp_error_clear(err);
    if (!json) {
        vp_fail(err, VP_ERR_JSON, "", "no preset bundle given");
        return NULL;
    }
    cJSON *root = vp_json_parse(json, err); /* strict: json_text.c */
    if (!root) return NULL;
    const char *lists[] = {"models", "gpus"};
    for (int i = 0; i < 2; i++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, lists[i]);
        if (!cJSON_IsArray(arr)) {
            cJSON_Delete(root);
            vp_fail(err, VP_ERR_FIELD, lists[i], "the preset bundle needs an array \"%s\"", lists[i]);
            return NULL;
        }
        int j = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, arr) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
            if (!cJSON_IsString(id)) {
                char path[64];
                vp_path_index(path, sizeof path, lists[i], j);
                cJSON_Delete(root);
                vp_fail(err, VP_ERR_FIELD, path, "%s has no string \"id\"", path);
                return NULL;
            }
            j++;
        }
    }
    vp_registry *reg = calloc(1, sizeof *reg);
    if (!reg) {
        cJSON_Delete(root);
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
        return NULL;
    }
    reg->root = root;
    return reg;
}

vp_registry *vp_registry_builtin(vp_error *err) { return vp_registry_from_json(vp_builtin_presets_json(), err); }

void vp_registry_free(vp_registry *reg) {
    if (!reg) return;
    cJSON_Delete(reg->root);
    free(reg);
}

static const cJSON *find(const vp_registry *reg, const char *list, const char *id) {
    if (!reg || !id) return NULL;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(reg->root, list);
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        const cJSON *pid = cJSON_GetObjectItemCaseSensitive(it, "id");
        if (cJSON_IsString(pid) && strcmp(pid->valuestring, id) == 0) return it;
    }
    return NULL;
}

const cJSON *vp_registry_model(const vp_registry *reg, const char *id) {
    if (id && strchr(id, '/')) return vp_registry_component(reg, id); /* i12: "ID/vae" (registry_pipeline.c) */
    return find(reg, "models", id);
}
const cJSON *vp_registry_gpu(const vp_registry *reg, const char *id) { return find(reg, "gpus", id); }
