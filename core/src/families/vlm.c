/* vlm.c: vision-language families whose language model is another family's config in text_config:
 * llava, llava_next (CLIP tower), mistral3 (Pixtral tower), qwen2_5_vl (its own tower). The language
 * model is read by its own family (text_config.model_type); the tower and projector parameters go to
 * vp_arch.vision_params; the tower's block shapes and the rule turning an image into decoder tokens go
 * to vp_arch.vis_* for workload.images (vlm_images.c: image tokens, the tower's activations).
 *
 * Published llava configs are sparse: text_config carries only what differs from the config class
 * (LlamaConfig: vocab 32000, hidden 4096, intermediate 11008, 32 layers, 32 heads; MistralConfig:
 * intermediate 14336, 8 key/value heads), so those defaults are filled in before the family reads it.
 *
 * LlavaMultiModalProjector (models/llava/modeling_llava.py): linear_1 Linear(vision_hidden, text_hidden)
 * + GELU + linear_2 Linear(text_hidden, text_hidden), biases = multimodal_projector_bias (True).
 * llava_next adds image_newline = Parameter(text_hidden).
 * Mistral3MultiModalProjector (models/mistral3): norm RMSNorm(vision_hidden), patch_merger.merging_layer
 * Linear(vision_hidden·spatial_merge_size², vision_hidden, no bias), linear_1 Linear(vision_hidden,
 * text_hidden) + linear_2 Linear(text_hidden, text_hidden), biases = multimodal_projector_bias (False).
 * PixtralVisionModel (models/pixtral): patch_conv Conv2d(C, e, p, bias=False), ln_pre RMSNorm(e), layers ×
 * [attention_norm, q/k/v/o Linear(e, e) no bias, ffn_norm, SwiGLU gate/up/down (e, f) no bias].
 * Qwen2_5_VisionTransformerPretrainedModel (models/qwen2_5_vl): patch_embed Conv3d(C, e, (2, p, p),
 * bias=False); depth × [norm1, norm2 RMSNorm(e), qkv Linear(e, 3e) + proj Linear(e, e) with biases,
 * SwiGLU gate/up/down (e, intermediate_size) with biases]; merger ln_q RMSNorm(e) + Linear(4e, 4e) + GELU +
 * Linear(4e, out_hidden_size) with biases. */
#include <string.h>

#include "family.h"
#include "vlm_images.h"

static const char k_llama_defaults[] =
    "{\"vocab_size\":32000,\"hidden_size\":4096,\"intermediate_size\":11008,\"num_hidden_layers\":32,"
    "\"num_attention_heads\":32}";
static const char k_mistral_defaults[] =
    "{\"vocab_size\":32000,\"hidden_size\":4096,\"intermediate_size\":14336,\"num_hidden_layers\":32,"
    "\"num_attention_heads\":32,\"num_key_value_heads\":8}";

/* Reads config[key] (a text_config) with its family; dflt_type when it names none. */
static vp_status read_text(const cJSON *c, const char *p, const char *key, const char *dflt_type, vp_arch *a,
                           vp_error *err) {
    char tp[128];
    vp_path_key(tp, sizeof tp, p, key);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, key);
    if (!cJSON_IsObject(t)) return vp_fail(err, VP_ERR_FIELD, tp, "missing required field %s (an object)", tp);
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(t, "model_type");
    const char *type = cJSON_IsString(mt) && mt->valuestring ? mt->valuestring : dflt_type;
    const vp_family *fam = vp_family_find(type);
    /* a language model: a decoder family counted by the shared decoder count, and not itself a
     * vision-language wrapper (a config nesting wrappers is refused, not recursed into) */
    if (!fam || fam->count || fam->read == vp_read_llava || fam->read == vp_read_llava_next ||
        fam->read == vp_read_mistral3 || fam->read == vp_read_qwen2_5_vl || fam->read == vp_read_qwen2_vl ||
        fam->read == vp_read_gemma3) {
        char shown[40];
        vp_strlcpy(shown, type, sizeof shown);
        return vp_fail(err, VP_ERR_UNSUPPORTED, tp, "%s.model_type \"%s\" is not a supported language model here", tp,
                       shown);
    }
    const char *defaults = !strcmp(type, "llama") ? k_llama_defaults : !strcmp(type, "mistral") ? k_mistral_defaults : NULL;
    cJSON *merged = defaults ? cJSON_Parse(defaults) : cJSON_CreateObject();
    if (!merged) return vp_fail(err, VP_ERR_NOMEM, tp, "out of memory");
    const cJSON *it;
    cJSON_ArrayForEach(it, t) {
        cJSON *dup = cJSON_Duplicate(it, 1);
        if (!dup || !cJSON_AddItemToObject(merged, it->string, dup)) {
            cJSON_Delete(dup);
            cJSON_Delete(merged);
            return vp_fail(err, VP_ERR_NOMEM, tp, "out of memory");
        }
        /* a later duplicate key replaces the default: keep the config's value */
        cJSON *first = cJSON_GetObjectItemCaseSensitive(merged, it->string);
        if (first != dup) cJSON_DeleteItemFromObjectCaseSensitive(merged, it->string);
    }
    vp_status st = fam->read(merged, tp, a, err);
    cJSON_Delete(merged);
    return st;
}

static const cJSON *vision(const cJSON *c, const char *p, char *vp, size_t n, vp_error *err, vp_status *st) {
    vp_path_key(vp, n, p, "vision_config");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "vision_config");
    *st = VP_OK;
    if (!cJSON_IsObject(v)) *st = vp_fail(err, VP_ERR_FIELD, vp, "missing required field %s (an object)", vp);
    return v;
}

/* How an image becomes tokens (vlm_images.c): the CLIP tower's shape, vision_feature_select_strategy
 * (LlavaConfig default "default": the CLS feature is dropped) and, for llava_next, image_grid_pinpoints
 * (LlavaNextConfig default [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]]). */
static vp_status read_llava_images(const cJSON *c, const char *p, const cJSON *v, const char *vp, vp_arch *a, int next,
                                   vp_error *err) {
    vp_status st;
    if ((st = vp_read_vis_shape(v, vp, 0, a, err))) return st;
    a->vis_rule = next ? VP_VIS_LLAVA_NEXT : VP_VIS_LLAVA;
    const cJSON *sel = cJSON_GetObjectItemCaseSensitive(c, "vision_feature_select_strategy");
    a->vis_keep_cls = cJSON_IsString(sel) && sel->valuestring && !strcmp(sel->valuestring, "full");
    if (!next) return VP_OK;
    static const int64_t dflt[5][2] = {{336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}};
    a->vis_n_pin = 5;
    memcpy(a->vis_pin, dflt, sizeof dflt);
    const cJSON *pins = cJSON_GetObjectItemCaseSensitive(c, "image_grid_pinpoints");
    if (!pins || cJSON_IsNull(pins)) return VP_OK;
    char pp[128];
    vp_path_key(pp, sizeof pp, p, "image_grid_pinpoints");
    int n = cJSON_IsArray(pins) ? cJSON_GetArraySize(pins) : 0;
    if (n < 1 || n > 16) return vp_fail(err, VP_ERR_FIELD, pp, "%s must be a list of 1 to 16 [height, width] pairs", pp);
    for (int i = 0; i < n; i++) {
        const cJSON *pr = cJSON_GetArrayItem(pins, i);
        const cJSON *h = cJSON_GetArrayItem(pr, 0), *w = cJSON_GetArrayItem(pr, 1);
        if (!cJSON_IsArray(pr) || cJSON_GetArraySize(pr) != 2 || !cJSON_IsNumber(h) || !cJSON_IsNumber(w) ||
            h->valuedouble < 1 || w->valuedouble < 1 || h->valuedouble > 65536 || w->valuedouble > 65536 ||
            h->valuedouble != (double)(int64_t)h->valuedouble || w->valuedouble != (double)(int64_t)w->valuedouble)
            return vp_fail(err, VP_ERR_FIELD, pp, "%s[%d] must be [height, width] in pixels (1..65536)", pp, i);
        a->vis_pin[i][0] = (int64_t)h->valuedouble;
        a->vis_pin[i][1] = (int64_t)w->valuedouble;
    }
    a->vis_n_pin = n;
    return VP_OK;
}

static vp_status read_llava(const cJSON *c, const char *p, vp_arch *a, int next, vp_error *err) {
    vp_status st;
    if ((st = read_text(c, p, "text_config", "llama", a, err))) return st;
    char vp[128];
    const cJSON *v = vision(c, p, vp, sizeof vp, err, &st);
    if (st) return st;
    int64_t e = 0;
    int64_t tower = vp_clip_vision_params(v, vp, &e, &st, err);
    if (st) return st;
    int bias = 1;
    if ((st = vp_json_opt_bool(c, p, "multimodal_projector_bias", &bias, err))) return st;
    int64_t t = a->hidden;
    a->vision_params = tower + e * t + t * t + (bias ? 2 * t : 0) + (next ? t : 0);
    return read_llava_images(c, p, v, vp, a, next, err);
}

vp_status vp_read_llava(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return read_llava(c, p, a, 0, err); }
vp_status vp_read_llava_next(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return read_llava(c, p, a, 1, err); }

vp_status vp_read_mistral3(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = read_text(c, p, "text_config", "mistral", a, err))) return st;
    char vp[128];
    const cJSON *v = vision(c, p, vp, sizeof vp, err, &st);
    if (st) return st;
    int64_t e = 1024, f = 4096, L = 24, ch = 3, patch = 16, merge = 2; /* PixtralVisionConfig defaults */
    if ((st = vp_json_opt_int(v, vp, "hidden_size", 1, VP_MAXDIM, &e, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "intermediate_size", 1, VP_MAXDIM, &f, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "num_hidden_layers", 1, VP_MAXLAYERS, &L, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "num_channels", 1, 1024, &ch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "patch_size", 1, 1024, &patch, err))) return st;
    if ((st = vp_json_opt_int(c, p, "spatial_merge_size", 1, 64, &merge, err))) return st;
    int bias = 0;
    if ((st = vp_json_opt_bool(c, p, "multimodal_projector_bias", &bias, err))) return st;
    int64_t t = a->hidden;
    int64_t tower = ch * patch * patch * e + e + L * (2 * e + 4 * e * e + 3 * e * f);
    int64_t proj = e + e * merge * merge * e + e * t + t * t + (bias ? 2 * t : 0);
    a->vision_params = tower + proj;
    /* image tokens (vlm_images.c): PixtralVisionConfig image_size 1024 by default, heads 16 */
    a->vis_rule = VP_VIS_PIXTRAL;
    a->vis_gated = 1; /* PixtralMLP gate/up/down */
    a->vis_hidden = e;
    a->vis_inter = f;
    a->vis_layers = L;
    a->vis_heads = 16;
    a->vis_image = 1024;
    a->vis_patch = patch;
    a->vis_merge = merge;
    if ((st = vp_json_opt_int(v, vp, "image_size", patch, 65536, &a->vis_image, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "num_attention_heads", 1, 65536, &a->vis_heads, err))) return st;
    return VP_OK;
}

vp_status vp_read_qwen2_5_vl(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    /* transformers 5.x writes the language model into text_config; older configs keep it at the top */
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c, "text_config")) &&
        !cJSON_GetObjectItemCaseSensitive(c, "hidden_size")) {
        if ((st = read_text(c, p, "text_config", "qwen2", a, err))) return st;
    } else if ((st = vp_read_qwen2(c, p, a, err))) {
        return st;
    }
    char vp[128];
    const cJSON *v = vision(c, p, vp, sizeof vp, err, &st);
    if (st) return st;
    int64_t depth = 32, e = 1280, f = 3420, ch = 3, patch = 14, tpatch = 2, merge = 2, out = a->hidden;
    if ((st = vp_json_opt_int(v, vp, "depth", 1, VP_MAXLAYERS, &depth, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "hidden_size", 1, VP_MAXDIM, &e, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "intermediate_size", 1, VP_MAXDIM, &f, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "in_chans", 1, 1024, &ch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "patch_size", 1, 1024, &patch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "temporal_patch_size", 1, 64, &tpatch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "spatial_merge_size", 1, 64, &merge, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "out_hidden_size", 1, VP_MAXDIM, &out, err))) return st;
    int64_t m = e * merge * merge;
    if ((double)m * (double)m > 1e15) {
        char path[128];
        vp_path_key(path, sizeof path, vp, "spatial_merge_size");
        return vp_fail(err, VP_ERR_RANGE, path, "%s gives a merger too large to be real", path);
    }
    int64_t block = 2 * e + (e * 3 * e + 3 * e) + (e * e + e) + 2 * (e * f + f) + (f * e + e);
    a->vision_params = ch * tpatch * patch * patch * e + depth * block + e + (m * m + m) + (m * out + out);
    /* image tokens (vlm_images.c); Qwen2_5_VLMLP is gated (gate/up/down) */
    return vp_read_vis_qwen(v, vp, e, f, depth, patch, merge, 1, a, err);
}
