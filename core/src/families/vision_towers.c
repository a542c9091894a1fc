/* vision_towers.c: the vision encoders that vision-language families carry (their parameters are
 * counted in vp_arch.vision_params; what they save for backward is not modelled yet).
 *
 * SigLIP (transformers models/siglip/modeling_siglip.py SiglipVisionModel): SiglipVisionEmbeddings =
 * patch_embedding Conv2d(C, e, p, stride p) with bias + position_embedding Embedding((S/p)², e);
 * num_hidden_layers × SiglipEncoderLayer = layer_norm1, self_attn q/k/v/out_proj Linear(e, e) with
 * biases, layer_norm2, mlp fc1 Linear(e, f) + fc2 Linear(f, e) with biases; post_layernorm; and,
 * when vision_use_head (SiglipVisionConfig default True), SiglipMultiheadAttentionPoolingHead =
 * probe (1, 1, e) + nn.MultiheadAttention(e) (in_proj 3e·e + 3e, out_proj e·e + e) + layernorm + mlp.
 * SiglipVisionConfig defaults: hidden 768, intermediate 3072, 12 layers, 3 channels, image 224, patch 16.
 *
 * CLIP (models/clip/modeling_clip.py CLIPVisionModel): CLIPVisionEmbeddings = class_embedding (e) +
 * patch_embedding Conv2d(C, e, p, bias=False) + position_embedding ((S/p)² + 1, e); pre_layrnorm;
 * CLIPEncoderLayer as SigLIP's; post_layernorm. CLIPVisionConfig defaults: 768, 3072, 12 layers,
 * 3 channels, image 224, patch 32. */
#include <string.h>

#include "family.h"
#include "vlm_images.h"

typedef struct {
    int64_t hidden, inter, layers, channels, image, patch;
    int use_head;
} tower;

static vp_status read_tower(const cJSON *v, const char *vp, tower *t, vp_error *err) {
    vp_status st;
    if ((st = vp_json_opt_int(v, vp, "hidden_size", 1, VP_MAXDIM, &t->hidden, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "intermediate_size", 1, VP_MAXDIM, &t->inter, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "num_hidden_layers", 1, VP_MAXLAYERS, &t->layers, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "num_channels", 1, 1024, &t->channels, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "image_size", 1, 65536, &t->image, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "patch_size", 1, 65536, &t->patch, err))) return st;
    if (t->patch > t->image) {
        char path[128];
        vp_path_key(path, sizeof path, vp, "patch_size");
        return vp_fail(err, VP_ERR_RANGE, path, "%s is larger than image_size", path);
    }
    return VP_OK;
}

/* One pre-norm ViT encoder layer with biases everywhere (SigLIP and CLIP share it). */
static int64_t encoder_layer(int64_t e, int64_t f) { return 2 * e + 4 * (e * e + e) + 2 * e + (e * f + f) + (f * e + e); }

int64_t vp_siglip_vision_params(const cJSON *v, const char *vp, int64_t *hidden, vp_status *st, vp_error *err) {
    tower t = {768, 3072, 12, 3, 224, 16, 1};
    if ((*st = read_tower(v, vp, &t, err))) return 0;
    if ((*st = vp_json_opt_bool(v, vp, "vision_use_head", &t.use_head, err))) return 0;
    int64_t e = t.hidden, f = t.inter, n = (t.image / t.patch) * (t.image / t.patch);
    int64_t p = t.channels * t.patch * t.patch * e + e + n * e + t.layers * encoder_layer(e, f) + 2 * e;
    if (t.use_head) p += e + (3 * e * e + 3 * e) + (e * e + e) + 2 * e + (e * f + f) + (f * e + e);
    *hidden = e;
    return p;
}

int64_t vp_clip_vision_params(const cJSON *v, const char *vp, int64_t *hidden, vp_status *st, vp_error *err) {
    tower t = {768, 3072, 12, 3, 224, 32, 0};
    if ((*st = read_tower(v, vp, &t, err))) return 0;
    int64_t e = t.hidden, f = t.inter, n = (t.image / t.patch) * (t.image / t.patch);
    *hidden = e;
    return e + t.channels * t.patch * t.patch * e + (n + 1) * e + 2 * e + t.layers * encoder_layer(e, f) + 2 * e;
}

/* The tower as a ViT for the shared ViT activations (no classifier head, no vocab). */
vp_status vp_read_vit_tower(const cJSON *v, const char *vp, int siglip, vp_arch *a, vp_error *err) {
    tower t = {768, 3072, 12, 3, 224, siglip ? 16 : 32, 0};
    vp_status st;
    if ((st = read_tower(v, vp, &t, err))) return st;
    int64_t heads = 12;
    if ((st = vp_json_opt_int(v, vp, "num_attention_heads", 1, 65536, &heads, err))) return st;
    if (t.hidden % heads) {
        char path[128];
        vp_path_key(path, sizeof path, vp, "num_attention_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s must divide hidden_size", path);
    }
    a->kind = VP_KIND_VIT;
    a->hidden = t.hidden;
    a->inter = t.inter;
    a->layers = t.layers;
    a->heads = a->kv_heads = heads;
    a->head_dim = t.hidden / heads;
    a->channels = t.channels;
    a->image_size = t.image;
    a->patch_size = t.patch;
    a->qkv_bias = a->o_bias = a->mlp_bias = 1;
    a->fused_qkv = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 2;
    return VP_OK;
}

/* The tower's block shapes for the image memory (vlm_images.c): a CLIP or SigLIP vision_config. */
vp_status vp_read_vis_shape(const cJSON *v, const char *vp, int siglip, vp_arch *a, vp_error *err) {
    vp_arch t;
    memset(&t, 0, sizeof t);
    vp_status st = vp_read_vit_tower(v, vp, siglip, &t, err);
    if (st) return st;
    a->vis_hidden = t.hidden;
    a->vis_inter = t.inter;
    a->vis_layers = t.layers;
    a->vis_heads = t.heads;
    a->vis_image = t.image_size;
    a->vis_patch = t.patch_size;
    a->vis_cls = !siglip; /* CLIPVisionEmbeddings prepends class_embedding; SigLIP has none */
    return VP_OK;
}

/* The Qwen2-VL / Qwen2.5-VL tower's block shapes for the image memory (vlm_images.c): dynamic
 * resolution with merge² patches per token (vis_image 448 only bounds the patch); num_heads from
 * vision_config, 16 by default (Qwen2VLVisionConfig / Qwen2_5_VLVisionConfig). gated: Qwen2_5_VLMLP
 * gate/up/down. */
vp_status vp_read_vis_qwen(const cJSON *v, const char *vp, int64_t e, int64_t f, int64_t depth, int64_t patch,
                           int64_t merge, int gated, vp_arch *a, vp_error *err) {
    a->vis_rule = VP_VIS_QWEN;
    a->vis_gated = gated;
    a->vis_hidden = e;
    a->vis_inter = f;
    a->vis_layers = depth;
    a->vis_heads = 16;
    a->vis_image = 448;
    a->vis_patch = patch;
    a->vis_merge = merge;
    return vp_json_opt_int(v, vp, "num_heads", 1, 65536, &a->vis_heads, err);
}

/* The vision tower of a multimodal config no family claims (families/generic.c): a ViT of
 * vision_config's width (embed_dim, else hidden_size or width: Qwen-style towers name the language
 * model's width hidden_size), depth (num_hidden_layers, depth or num_layers) and MLP
 * (intermediate_size or mlp_dim, else 4 × width). Per block q/k/v/o Linear(e, e) with biases, two
 * LayerNorms, fc1 / fc2 with biases; a patch Conv2d with bias, (image_size / patch_size)² learned
 * positions, a final LayerNorm, and a Linear(e, text hidden) projector: SiglipVisionModel's layout
 * (vllm siglip.py SiglipEncoderLayer), the most common tower. 0 when vision_config names no width or
 * no depth. */
static const char *first_of(const cJSON *v, const char *const *keys) {
    for (int i = 0; keys[i]; i++)
        if (vp_has_key(v, keys[i])) return keys[i];
    return keys[0];
}

int64_t vp_generic_vision_params(const cJSON *v, const char *vp, int64_t text_hidden, vp_status *st, vp_error *err) {
    static const char *const k_e[] = {"embed_dim", "hidden_size", "width", NULL};
    static const char *const k_f[] = {"intermediate_size", "mlp_dim", NULL};
    static const char *const k_l[] = {"num_hidden_layers", "depth", "num_layers", NULL};
    int64_t e = 0, f = 0, l = 0, patch = 14, img = 224, ch = 3;
    *st = VP_OK;
    if ((*st = vp_json_opt_int(v, vp, first_of(v, k_e), 1, VP_MAXDIM, &e, err))) return 0;
    if ((*st = vp_json_opt_int(v, vp, first_of(v, k_f), 1, VP_MAXDIM, &f, err))) return 0;
    if ((*st = vp_json_opt_int(v, vp, first_of(v, k_l), 1, VP_MAXLAYERS, &l, err))) return 0;
    if ((*st = vp_json_opt_int(v, vp, "patch_size", 1, 4096, &patch, err))) return 0;
    if ((*st = vp_json_opt_int(v, vp, "image_size", 1, 65536, &img, err))) return 0;
    if ((*st = vp_json_opt_int(v, vp, "num_channels", 1, 64, &ch, err))) return 0;
    if (!e || !l) return 0;
    if (!f) f = 4 * e;
    int64_t n = (img / patch) * (img / patch);
    int64_t block = 4 * (e * e + e) + 2 * 2 * e + (e * f + f) + (f * e + e);
    return l * block + ch * patch * patch * e + e + n * e + 2 * e + e * text_hidden;
}
