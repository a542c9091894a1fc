/* attn_local.c: which layers attend locally (sliding window or chunked attention), read from a
 * config.json the way the transformers 5.x configuration classes build `layer_types`:
 *   an explicit "layer_types" list wins ("sliding_attention" / "chunked_attention" / "full_attention");
 *   otherwise the class default:
 *   - VP_LOCAL_ALTERNATE: Gemma2Config, GptOssConfig: "sliding_attention" if bool((i + 1) % 2), i.e.
 *     layers 0, 2, 4, ... slide (sliding_window defaults 4096 for gemma2, 128 for gpt_oss);
 *   - VP_LOCAL_PATTERN: Gemma3TextConfig (sliding_window_pattern 6, sliding_window 4096) and
 *     Cohere2Config (sliding_window_pattern 4, sliding_window 4096): "sliding_attention" if
 *     bool((i + 1) % pattern), i.e. pattern - 1 local layers, then one global;
 *   - VP_LOCAL_CHUNKED: Llama4TextConfig: no_rope_layers (default, also when empty:
 *     int((i + 1) % no_rope_layer_interval != 0), interval 4); a RoPE layer (1) is
 *     "chunked_attention" of attention_chunk_size (8192), a NoPE layer (0) "full_attention".
 * The layers are marked in a->sliding_map / a->chunked_map (layer_map.c) and counted; the counts feed
 * the generate cache (kv_local.c), the maps the serving engines' per-layer KV specs (serve_model.c).
 * They change no parameter shape. */
#include <string.h>

#include "family.h"

static vp_status read_layer_types(const cJSON *types, const char *p, vp_arch *a, vp_error *err) {
    char path[128];
    vp_path_key(path, sizeof path, p, "layer_types");
    int64_t i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, types) {
        if (i >= a->layers) break;
        if (!cJSON_IsString(x) || !x->valuestring)
            return vp_fail(err, VP_ERR_FIELD, path, "%s[%lld] must be a string", path, (long long)i);
        if (!strcmp(x->valuestring, "sliding_attention")) vp_layer_map_set(&a->sliding_map, i);
        else if (!strcmp(x->valuestring, "chunked_attention")) vp_layer_map_set(&a->chunked_map, i);
        i++;
    }
    return VP_OK;
}

vp_status vp_read_local_attn(const cJSON *c, const char *p, vp_arch *a, vp_local_rule rule, int64_t window_default,
                             int64_t pattern_default, vp_error *err) {
    vp_status st;
    a->sliding_layers = a->chunked_layers = 0;
    memset(&a->sliding_map, 0, sizeof a->sliding_map);
    memset(&a->chunked_map, 0, sizeof a->chunked_map);
    a->sliding_window = rule == VP_LOCAL_CHUNKED ? 0 : window_default;
    a->chunk_size = rule == VP_LOCAL_CHUNKED ? window_default : 0;
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(c, "sliding_window");
    if (sw && cJSON_IsNull(sw)) a->sliding_window = 0; /* null: no sliding window */
    if ((st = vp_json_opt_int(c, p, "sliding_window", 1, 1LL << 30, &a->sliding_window, err))) return st;
    const cJSON *ck = cJSON_GetObjectItemCaseSensitive(c, "attention_chunk_size");
    if (ck && cJSON_IsNull(ck)) a->chunk_size = 0;
    if ((st = vp_json_opt_int(c, p, "attention_chunk_size", 1, 1LL << 30, &a->chunk_size, err))) return st;
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(c, "layer_types");
    if (cJSON_IsArray(types)) {
        if ((st = read_layer_types(types, p, a, err))) return st;
    } else if (types && !cJSON_IsNull(types)) {
        char path[128];
        vp_path_key(path, sizeof path, p, "layer_types");
        return vp_fail(err, VP_ERR_FIELD, path, "%s must be a list of strings", path);
    } else if (rule == VP_LOCAL_ALTERNATE) {
        for (int64_t i = 0; i < a->layers; i += 2) vp_layer_map_set(&a->sliding_map, i); /* (i + 1) % 2 != 0 */
    } else if (rule == VP_LOCAL_PATTERN) {
        int64_t pat = pattern_default;
        if ((st = vp_json_opt_int(c, p, "sliding_window_pattern", 1, VP_MAXLAYERS, &pat, err))) return st;
        for (int64_t i = 0; i < a->layers; i++)
            if ((i + 1) % pat) vp_layer_map_set(&a->sliding_map, i);
    } else if (rule == VP_LOCAL_CHUNKED) {
        int64_t every = 4;
        if ((st = vp_json_opt_int(c, p, "no_rope_layer_interval", 1, VP_MAXLAYERS, &every, err))) return st;
        const cJSON *nr = cJSON_GetObjectItemCaseSensitive(c, "no_rope_layers");
        int n = cJSON_IsArray(nr) ? cJSON_GetArraySize(nr) : 0; /* `no_rope_layers if no_rope_layers else default` */
        for (int64_t i = 0; i < a->layers; i++) {
            int rope = (i + 1) % every != 0;
            if (i < n) {
                const cJSON *x = cJSON_GetArrayItem(nr, (int)i);
                rope = cJSON_IsNumber(x) && x->valuedouble != 0;
            }
            if (rope) vp_layer_map_set(&a->chunked_map, i);
        }
    }
    if (a->sliding_window <= 0) memset(&a->sliding_map, 0, sizeof a->sliding_map);
    if (a->chunk_size <= 0 && a->sliding_window <= 0) memset(&a->chunked_map, 0, sizeof a->chunked_map);
    a->sliding_layers = vp_layer_map_count(&a->sliding_map, a->layers);
    a->chunked_layers = vp_layer_map_count(&a->chunked_map, a->layers);
    return VP_OK;
}
