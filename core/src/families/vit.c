/* vit.c: ViT (models/vit, timm VisionTransformer): patch embedding, cls token, learned positions,
 * LayerNorm, GELU MLP, classifier head. */
#include "family.h"

vp_status vp_read_vit(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_VIT;
    if ((st = vp_json_int(c, p, "hidden_size", 1, VP_MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_int(c, p, "num_hidden_layers", 1, VP_MAXLAYERS, &a->layers, err))) return st;
    if ((st = vp_json_int(c, p, "num_attention_heads", 1, 65536, &a->heads, err))) return st;
    if ((st = vp_json_int(c, p, "intermediate_size", 1, VP_MAXDIM, &a->inter, err))) return st;
    if (a->hidden % a->heads) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_attention_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s must divide hidden_size", path);
    }
    a->kv_heads = a->heads;
    a->head_dim = a->hidden / a->heads;
    a->image_size = 224;
    a->patch_size = 16;
    a->channels = 3;
    if ((st = vp_json_opt_int(c, p, "image_size", 1, 65536, &a->image_size, err))) return st;
    if ((st = vp_json_opt_int(c, p, "patch_size", 1, 65536, &a->patch_size, err))) return st;
    if ((st = vp_json_opt_int(c, p, "num_channels", 1, 1024, &a->channels, err))) return st;
    if (a->patch_size > a->image_size) {
        char path[128];
        vp_path_key(path, sizeof path, p, "patch_size");
        return vp_fail(err, VP_ERR_RANGE, path, "%s is larger than image_size", path);
    }
    a->labels = 1000; /* ImageNet-1k head (timm vit_*_patch16_224) */
    if ((st = vp_json_opt_int(c, p, "num_labels", 0, VP_MAXVOCAB, &a->labels, err))) return st;
    const cJSON *id2label = cJSON_GetObjectItemCaseSensitive(c, "id2label");
    if (cJSON_IsObject(id2label) && !cJSON_GetObjectItemCaseSensitive(c, "num_labels"))
        a->labels = cJSON_GetArraySize(id2label);
    a->qkv_bias = 1;
    if ((st = vp_json_opt_bool(c, p, "qkv_bias", &a->qkv_bias, err))) return st;
    a->o_bias = a->mlp_bias = 1;
    a->fused_qkv = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 2;
    a->vocab = 0;
    a->tie = 0;
    return VP_OK;
}

void vp_count_vit(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, n = (a->image_size / a->patch_size) * (a->image_size / a->patch_size);
    /* timm VisionTransformer / HF ViTForImageClassification: patch conv, cls token, pos embed (n+1) */
    c->embed = a->channels * a->patch_size * a->patch_size * h + h + h + (n + 1) * h;
    c->per_layer_attn = vp_lin_params(h, 3 * h, a->qkv_bias) + vp_lin_params(h, h, 1);
    c->per_layer_mlp = vp_mlp_params(a, h, a->inter);
    c->per_layer_norm = 2 * vp_norm_params(a, h);
    c->layers_total = a->layers * (c->per_layer_attn + c->per_layer_mlp + c->per_layer_norm);
    c->final_norm = vp_norm_params(a, h);
    c->other = a->labels ? vp_lin_params(h, a->labels, 1) : 0; /* classifier head */
    c->linear_in_layers = a->layers * (c->per_layer_attn + c->per_layer_mlp) + c->other;
    c->largest_tensor = h * a->inter;
}
