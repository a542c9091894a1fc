/* registry_pipeline.c: components of pipeline presets. A diffusion pipeline's preset file
 * (models/models/<id>.json) holds its transformer's config at the top, as every preset, and the other
 * components of the pipeline's model_index.json under "pipeline.components"; "<id>/<component>" names
 * one of them (cogvideox-5b/text_encoder, cogvideox-5b/vae, cogvideox-5b/transformer). */
#include <string.h>

#include "registry.h"

const cJSON *vp_registry_component(const vp_registry *reg, const char *id) {
    const char *slash = id ? strchr(id, '/') : NULL;
    if (!slash || slash == id || strchr(slash + 1, '/')) return NULL;
    char base[96];
    size_t n = (size_t)(slash - id);
    if (n >= sizeof base) return NULL;
    memcpy(base, id, n);
    base[n] = '\0';
    const cJSON *entry = vp_registry_model(reg, base);
    if (!entry) return NULL;
    if (!strcmp(slash + 1, "transformer")) return entry;
    const cJSON *pipe = cJSON_GetObjectItemCaseSensitive(entry, "pipeline");
    const cJSON *comps = cJSON_GetObjectItemCaseSensitive(pipe, "components");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(comps, slash + 1);
    return cJSON_IsObject(c) ? c : NULL;
}
