/* clip.c: CLIP and SigLIP dual encoders (transformers models/clip/modeling_clip.py CLIPModel,
 * models/siglip/modeling_siglip.py SiglipModel): a text transformer and a vision tower
 * (vision_towers.c) joined by projections. Counted whole; the memory is modelled as the vision
 * tower's ViT (the shared ViT accounting over image_size/patch_size), which dominates a
 * contrastive step's activations at the usual 77- or 64-token texts.
 *   CLIP text (CLIPTextConfig defaults: vocab 49408, hidden 512, intermediate 2048, 12 layers, 77
 *   positions): token_embedding + position_embedding, encoder layers as the tower's, final_layer_norm;
 *   visual_projection Linear(vision_hidden, projection_dim) and text_projection Linear(text_hidden,
 *   projection_dim), no biases; logit_scale (1).
 *   SigLIP text (SiglipTextConfig defaults: vocab 32000, hidden 768, intermediate 3072, 12 layers, 64
 *   positions): embeddings, layers, final_layer_norm and head Linear(h, projection_size = h) with
 *   bias; the vision tower keeps its attention-pooling head; logit_scale and logit_bias (2). */
#include <string.h>

#include "family.h"

static int64_t text_params(const cJSON *t, const char *tp, int siglip, int64_t *hidden, vp_status *st, vp_error *err) {
    int64_t v = siglip ? 32000 : 49408, h = siglip ? 768 : 512, f = siglip ? 3072 : 2048, L = 12, P = siglip ? 64 : 77;
    if (t) {
        if ((*st = vp_json_opt_int(t, tp, "vocab_size", 1, VP_MAXVOCAB, &v, err))) return 0;
        if ((*st = vp_json_opt_int(t, tp, "hidden_size", 1, VP_MAXDIM, &h, err))) return 0;
        if ((*st = vp_json_opt_int(t, tp, "intermediate_size", 1, VP_MAXDIM, &f, err))) return 0;
        if ((*st = vp_json_opt_int(t, tp, "num_hidden_layers", 1, VP_MAXLAYERS, &L, err))) return 0;
        if ((*st = vp_json_opt_int(t, tp, "max_position_embeddings", 1, 1000000, &P, err))) return 0;
    }
    *hidden = h;
    int64_t layer = 2 * h + 4 * (h * h + h) + 2 * h + (h * f + f) + (f * h + h);
    int64_t n = v * h + P * h + L * layer + 2 * h;
    if (siglip) {
        int64_t proj = h;
        if (t && (*st = vp_json_opt_int(t, tp, "projection_size", 1, VP_MAXDIM, &proj, err))) return 0;
        n += h * proj + proj;
    }
    return n;
}

static vp_status read_dual(const cJSON *c, const char *p, vp_arch *a, int siglip, vp_error *err) {
    char tp[128], vp[128];
    vp_path_key(tp, sizeof tp, p, "text_config");
    vp_path_key(vp, sizeof vp, p, "vision_config");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "text_config");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "vision_config");
    if (t && !cJSON_IsNull(t) && !cJSON_IsObject(t)) return vp_fail(err, VP_ERR_FIELD, tp, "%s must be an object", tp);
    if (v && !cJSON_IsNull(v) && !cJSON_IsObject(v)) return vp_fail(err, VP_ERR_FIELD, vp, "%s must be an object", vp);
    if (!cJSON_IsObject(t)) t = NULL;
    vp_status st = VP_OK;
    int64_t th = 0, vh = 0;
    int64_t text = text_params(t, tp, siglip, &th, &st, err);
    if (st) return st;
    cJSON *empty = NULL;
    if (!cJSON_IsObject(v)) {
        empty = cJSON_CreateObject();
        if (!empty) return vp_fail(err, VP_ERR_NOMEM, vp, "out of memory");
        v = empty;
    }
    int64_t tower = siglip ? vp_siglip_vision_params(v, vp, &vh, &st, err) : vp_clip_vision_params(v, vp, &vh, &st, err);
    /* the vision ViT for the activations: its shapes again */
    vp_arch vit;
    memset(&vit, 0, sizeof vit);
    if (!st) st = vp_read_vit_tower(v, vp, siglip, &vit, err);
    cJSON_Delete(empty);
    if (st) return st;
    int64_t proj = 0;
    if (!siglip) {
        int64_t pd = 512;
        if ((st = vp_json_opt_int(c, p, "projection_dim", 1, VP_MAXDIM, &pd, err))) return st;
        proj = vh * pd + th * pd + 1;
    } else {
        proj = 2;
    }
    char mt[24];
    memcpy(mt, a->model_type, sizeof mt);
    *a = vit;
    memcpy(a->model_type, mt, sizeof mt);
    a->vision_params = text + tower + proj; /* the whole model, counted by vp_count_dual */
    return VP_OK;
}

vp_status vp_read_clip(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return read_dual(c, p, a, 0, err); }
vp_status vp_read_siglip(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return read_dual(c, p, a, 1, err); }

void vp_count_dual(const vp_arch *a, vp_param_counts *c) {
    /* the ViT blocks' shares (for ZeRO-3 gathers and autocast) from the tower's shapes; the total
     * from the read */
    vp_count_vit(a, c);
    int64_t blocks = c->layers_total;
    memset(c, 0, sizeof *c);
    int64_t h = a->hidden, f = a->inter;
    c->per_layer_attn = 4 * (h * h + h);
    c->per_layer_mlp = h * f + f + f * h + h;
    c->per_layer_norm = 4 * h;
    c->layers_total = blocks;
    c->linear_in_layers = a->layers * (c->per_layer_attn + c->per_layer_mlp);
    c->other = a->vision_params - blocks;
    c->largest_tensor = h * f;
}
