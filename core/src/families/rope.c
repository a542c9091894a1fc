/* rope.c: the position fields of a config.json (vp_arch max_positions, rope_*): what the serving
 * engines build their rotary cos/sin caches from (serve_model.c), and the longest context the
 * model declares (vLLM's derived max_model_len).
 *   max_position_embeddings: the context (LlamaConfig default 2048; vLLM model.py
 *     _get_and_verify_max_len also falls back to 2048 when a config names none);
 *   partial_rotary_factor (Phi, Phi-3, GLM-4, StableLM) or rotary_pct (GPT-NeoX, Qwen v1): the rotated
 *     fraction of each head (vllm rotary_embedding get_rope: rotary_dim = head_size × factor);
 *   rope_scaling (transformers 4.x) or rope_parameters (5.x): rope_type (older "type"), factor and,
 *     for yarn, original_max_position_embeddings (transformers modeling_rope_utils.py). */
#include <string.h>

#include "family.h"

static vp_rope_type type_of(const char *s) {
    if (!s[0] || !strcmp(s, "default")) return VP_ROPE_DEFAULT;
    if (!strcmp(s, "linear")) return VP_ROPE_LINEAR;
    if (!strcmp(s, "dynamic")) return VP_ROPE_DYNAMIC;
    if (!strcmp(s, "yarn") || !strcmp(s, "deepseek_yarn")) return VP_ROPE_YARN;
    if (!strcmp(s, "llama3")) return VP_ROPE_LLAMA3;
    return VP_ROPE_OTHER; /* longrope, su, mrope, ...: caches of max_position_embeddings rows */
}

vp_status vp_read_rope(const cJSON *c, const char *p, vp_arch *a, const char *partial_key, double partial_default,
                       vp_error *err) {
    vp_status st;
    a->rope = 1;
    if (a->max_positions <= 0) a->max_positions = 2048; /* else the family's default (vp_decoder_defaults) */
    if ((st = vp_json_opt_int(c, p, "max_position_embeddings", 1, 1LL << 30, &a->max_positions, err))) return st;
    a->rope_partial = partial_default;
    if (partial_key && (st = vp_json_opt_num(c, p, partial_key, 0.0, 1.0, &a->rope_partial, err))) return st;
    a->rope_type = VP_ROPE_DEFAULT;
    a->rope_factor = 1.0;
    a->rope_orig_positions = 0;
    const char *key = "rope_scaling";
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(c, key);
    if (!cJSON_IsObject(rs)) {
        key = "rope_parameters";
        rs = cJSON_GetObjectItemCaseSensitive(c, key);
    }
    if (!cJSON_IsObject(rs)) return VP_OK;
    char rp[160], rt[24] = "";
    vp_path_key(rp, sizeof rp, p, key);
    if ((st = vp_json_opt_str(rs, rp, "rope_type", rt, sizeof rt, err))) return st;
    if (!rt[0] && (st = vp_json_opt_str(rs, rp, "type", rt, sizeof rt, err))) return st;
    a->rope_type = type_of(rt);
    if ((st = vp_json_opt_num(rs, rp, "factor", 0.0, 1024.0, &a->rope_factor, err))) return st;
    return vp_json_opt_int(rs, rp, "original_max_position_embeddings", 1, 1LL << 30, &a->rope_orig_positions, err);
}
