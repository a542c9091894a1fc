/* diffusers_config.c: reads a diffusion pipeline's components from their config.json as published,
 * dispatching on diffusers' `_class_name` (transformer/config.json, vae/config.json) or, for the text
 * encoders (transformers configs), on `architectures[0]`; and reads a pipeline's model_index.json,
 * whose entries map a component name to [library, class] (diffusers pipeline_utils.py
 * DiffusionPipeline.from_pretrained). The hook in hf_config.c sends these configs here. */
#include <string.h>

#include "diffusers.h"
#include "util.h"

static const struct {
    const char *name;
    int dclass;
} k_classes[] = {
    {"CogVideoXTransformer3DModel", VP_DC_COGVIDEOX},
    {"WanTransformer3DModel", VP_DC_WAN},
    {"HunyuanVideoTransformer3DModel", VP_DC_HUNYUAN},
    {"LTXVideoTransformer3DModel", VP_DC_LTX},
    {"MochiTransformer3DModel", VP_DC_MOCHI},
    {"FluxTransformer2DModel", VP_DC_FLUX},
    {"SD3Transformer2DModel", VP_DC_SD3},
    {"AutoencoderKLCogVideoX", VP_DC_VAE_COGVIDEOX},
    {"AutoencoderKLWan", VP_DC_VAE_WAN},
    {"AutoencoderKLHunyuanVideo", VP_DC_VAE_HUNYUAN},
    {"AutoencoderKLLTXVideo", VP_DC_VAE_LTX},
    {"AutoencoderKLMochi", VP_DC_VAE_MOCHI},
    {"AutoencoderKL", VP_DC_VAE_KL},
    {"T5EncoderModel", VP_DC_T5_ENC},
    {"UMT5EncoderModel", VP_DC_UMT5_ENC},
    {"CLIPTextModel", VP_DC_CLIP_TEXT},
    {"CLIPTextModelWithProjection", VP_DC_CLIP_TEXT},
    {"LlamaModel", VP_DC_LLAMA_ENC},
    {"CLIPVisionModel", VP_DC_CLIP_VISION},
    {"CLIPVisionModelWithProjection", VP_DC_CLIP_VISION},
    {NULL, 0},
};

static int class_of(const char *s) {
    for (int i = 0; k_classes[i].name; i++)
        if (!strcmp(k_classes[i].name, s)) return k_classes[i].dclass;
    return 0;
}

/* the class name a config declares: diffusers `_class_name`, else transformers `architectures[0]` */
static const char *declared(const cJSON *c, int *diffusers) {
    const cJSON *cn = cJSON_GetObjectItemCaseSensitive(c, "_class_name");
    if (cJSON_IsString(cn) && cn->valuestring) {
        *diffusers = 1;
        return cn->valuestring;
    }
    *diffusers = 0;
    const cJSON *ar = cJSON_GetObjectItemCaseSensitive(c, "architectures");
    const cJSON *a0 = cJSON_IsArray(ar) ? cJSON_GetArrayItem(ar, 0) : NULL;
    return cJSON_IsString(a0) && a0->valuestring ? a0->valuestring : NULL;
}

int vp_diffusers_is_component(const cJSON *c) {
    if (!cJSON_IsObject(c)) return 0;
    int dif = 0;
    const char *n = declared(c, &dif);
    if (!n) return 0;
    if (dif) return 1; /* every diffusers class comes here (unknown ones get a clear error) */
    return class_of(n) >= VP_DC_T5_ENC;
}

vp_status vp_arch_from_diffusers(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    memset(a, 0, sizeof *a);
    int dif = 0;
    const char *n = declared(c, &dif);
    int dc = n ? class_of(n) : 0;
    if (!dc) {
        char path[160], shown[48];
        vp_path_key(path, sizeof path, p, dif ? "_class_name" : "architectures");
        vp_strlcpy(shown, n ? n : "", sizeof shown);
        return vp_fail(err, VP_ERR_UNSUPPORTED, path,
                       "%s \"%s\" is not supported (diffusers: CogVideoXTransformer3DModel, WanTransformer3DModel, "
                       "HunyuanVideoTransformer3DModel, LTXVideoTransformer3DModel, MochiTransformer3DModel, "
                       "FluxTransformer2DModel, SD3Transformer2DModel, AutoencoderKLCogVideoX, AutoencoderKLWan, "
                       "AutoencoderKLHunyuanVideo, AutoencoderKLLTXVideo, AutoencoderKLMochi, AutoencoderKL)",
                       path, shown);
    }
    a->dclass = dc;
    vp_status st;
    if (VP_DC_IS_DIT(dc)) st = vp_dit_parse(c, p, dc, a, err);
    else if (VP_DC_IS_VAE(dc)) st = vp_vae_parse(c, p, dc, a, err);
    else st = vp_text_encoder_parse(c, p, dc, a, err);
    if (st) return st;
    if (a->d.params <= 0 || a->d.params > (int64_t)1e13) {
        char path[160];
        vp_path_key(path, sizeof path, p, "_class_name");
        return vp_fail(err, VP_ERR_RANGE, path, "%s: the shapes give an implausible parameter count", p);
    }
    return VP_OK;
}

void vp_diffusers_counts(const vp_arch *a, vp_param_counts *c) {
    const struct vp_diff_shape *d = &a->d;
    c->embed = d->embed;
    c->other = d->other;
    c->layers_total = d->blocks_total;
    c->per_layer_attn = 0;
    c->per_layer_mlp = d->per_block; /* one block, as one group (the families' split is not needed here) */
    c->per_layer_norm = 0;
    c->final_norm = 0;
    c->lm_head = 0;
    c->linear_in_layers = d->linear;
    c->largest_tensor = d->largest_tensor;
}

vp_status vp_model_index_read(const cJSON *mi, const char *p, vp_model_index *out, vp_error *err) {
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(mi)) return vp_fail(err, VP_ERR_FIELD, p, "%s must be a JSON object (a model_index.json)", p);
    const cJSON *cn = cJSON_GetObjectItemCaseSensitive(mi, "_class_name");
    if (!cJSON_IsString(cn) || !cn->valuestring) {
        char path[160];
        vp_path_key(path, sizeof path, p, "_class_name");
        return vp_fail(err, VP_ERR_FIELD, path, "missing required field %s (the pipeline class)", path);
    }
    vp_strlcpy(out->pipeline, cn->valuestring, sizeof out->pipeline);
    const cJSON *it;
    cJSON_ArrayForEach(it, mi) {
        if (!it->string || it->string[0] == '_') continue;
        /* components are ["library", "Class"]; null entries (absent optional components) are skipped */
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2) continue;
        const cJSON *lib = cJSON_GetArrayItem(it, 0), *cls = cJSON_GetArrayItem(it, 1);
        if (!cJSON_IsString(lib) || !cJSON_IsString(cls)) continue;
        if (out->n >= (int)(sizeof out->comp / sizeof out->comp[0])) {
            char path[160];
            vp_path_key(path, sizeof path, p, it->string);
            return vp_fail(err, VP_ERR_RANGE, path, "%s: more than 8 components", p);
        }
        vp_strlcpy(out->comp[out->n].name, it->string, sizeof out->comp[0].name);
        vp_strlcpy(out->comp[out->n].library, lib->valuestring, sizeof out->comp[0].library);
        vp_strlcpy(out->comp[out->n].cls, cls->valuestring, sizeof out->comp[0].cls);
        out->n++;
    }
    return VP_OK;
}
