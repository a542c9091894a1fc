/* qwen2_vl.c: Qwen2-VL (models/qwen2_vl): the Qwen2 decoder plus a vision tower whose parameters are
 * counted (vision_params); its shapes go to vp_arch.vis_* for workload.images (vlm_images.c).
 *
 * Vision tower (modeling_qwen2_vl.py Qwen2VisionTransformerPretrainedModel): Conv3d patch embedding
 * (no bias), depth × [LayerNorm, qkv Linear(e, 3e), proj, LayerNorm, MLP e -> e·mlp_ratio -> e],
 * PatchMerger LayerNorm + Linear(4e, 4e) + Linear(4e, hidden).
 * 675,759,104 for Qwen2-VL-7B (memory-facts §10, counted on the meta device). */
#include "family.h"
#include "vlm_images.h"

static vp_status read_vision(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "vision_config");
    if (!cJSON_IsObject(v)) return VP_OK;
    char vp[128];
    vp_path_key(vp, sizeof vp, p, "vision_config");
    int64_t depth = 32, e = 1280, ratio = 4, ch = 3, patch = 14, tpatch = 2, merge = 2, out = a->hidden;
    vp_status st;
    if ((st = vp_json_opt_int(v, vp, "depth", 1, 4096, &depth, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "embed_dim", 1, 1048576, &e, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "mlp_ratio", 1, 64, &ratio, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "in_chans", 1, 64, &ch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "patch_size", 1, 1024, &patch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "temporal_patch_size", 1, 64, &tpatch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "spatial_merge_size", 1, 64, &merge, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "hidden_size", 1, 1048576, &out, err))) return st;
    if ((double)e * (double)merge * (double)merge * (double)e * (double)merge * (double)merge > 1e15 ||
        (double)e * (double)ratio * (double)e * (double)depth > 1e15) {
        char path[128];
        vp_path_key(path, sizeof path, vp, "embed_dim");
        return vp_fail(err, VP_ERR_RANGE, path, "%s and the tower's other sizes give more than 10^15 parameters", path);
    }
    int64_t f = e * ratio, m = e * merge * merge;
    int64_t block = 2 * e + (e * 3 * e + 3 * e) + (e * e + e) + 2 * e + (e * f + f) + (f * e + e);
    a->vision_params = ch * tpatch * patch * patch * e + depth * block + 2 * e + (m * m + m) + (m * out + out);
    /* image tokens (vlm_images.c) */
    return vp_read_vis_qwen(v, vp, e, f, depth, patch, merge, 0, a, err);
}

vp_status vp_read_qwen2_vl(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    if ((st = read_vision(c, p, a, err))) return st;
    a->qkv_bias = 1; /* Qwen2 attention: q/k/v biases, o_proj none */
    a->o_bias = 0;
    return vp_read_need_inter(p, a, err);
}
