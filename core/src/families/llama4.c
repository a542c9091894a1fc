/* llama4.c: Llama 4 Scout / Maverick (transformers models/llama4/modeling_llama4.py,
 * Llama4ForConditionalGeneration). The language model sits in text_config:
 *   Llama4TextAttention q/k/v/o_proj (no bias; the qk norm is Llama4TextL2Norm, no weights; chunked
 *   attention on the RoPE layers, attention_chunk_size 8192);
 *   a layer is MoE when it is in moe_layers (default range(interleave_moe_layer_step - 1, L, step)):
 *   Llama4TextMoe = router Linear(h, E, bias=False), Llama4TextExperts gate_up_proj (E, h, 2f) and
 *   down_proj (E, f, h) with f = intermediate_size, and shared_expert Llama4TextMLP(intermediate_size);
 *   the other layers are Llama4TextMLP(intermediate_size_mlp); two RMSNorms per layer; untied lm_head.
 * Vision (Llama4VisionModel, vision_config): patch_embedding Llama4UnfoldConvolution = Linear(C·p·p, e,
 *   bias=False); class_embedding (e); positional_embedding_vlm ((S/p)² + 1, e); layernorm_pre and
 *   layernorm_post; num_hidden_layers × [input_layernorm, q/k/v/o Linear(e, e) with bias,
 *   post_attention_layernorm, mlp fc1 Linear(e, f) and fc2 with bias]; vision_adapter
 *   Llama4VisionMLP2 fc1 Linear(intermediate_size, projector_input_dim) + fc2
 *   Linear(projector_output_dim, projector_output_dim), no bias; then multi_modal_projector linear_1
 *   Linear(vision_output_dim, text hidden, bias=False).
 * Llama-4-Scout-17B-16E: 108,641,793,536 (tests/core/test_families.c). The shared expert's saved
 * activations are not in the shared MoE accounting yet (it counts the routed experts' top-k). */
#include "family.h"
#include "vlm_images.h"

vp_status vp_read_llama4(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    char tp[128], vp[128];
    vp_path_key(tp, sizeof tp, p, "text_config");
    vp_path_key(vp, sizeof vp, p, "vision_config");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "text_config");
    if (!cJSON_IsObject(t)) return vp_fail(err, VP_ERR_FIELD, tp, "missing required field %s (an object)", tp);
    vp_status st;
    /* Llama4TextConfig defaults: vocab 202048, hidden 5120, intermediate 8192, intermediate_size_mlp
     * 16384, 48 layers, 40 heads, 8 key/value heads, head_dim 128, 16 experts, top-1, step 1 */
    vp_decoder_defaults d = {5120, 48, 40, 8, 128, 8192, 202048, 0, 131072}; /* max_position_embeddings 4096 · 32 */
    if ((st = vp_read_decoder_defaults(t, tp, a, &d, err))) return st;
    a->expert_inter = a->inter;
    a->inter = 16384;
    if ((st = vp_json_opt_int(t, tp, "intermediate_size_mlp", 1, VP_MAXDIM, &a->inter, err))) return st;
    a->experts = 16;
    a->experts_per_tok = 1;
    int64_t step = 1;
    if ((st = vp_json_opt_int(t, tp, "num_local_experts", 1, 4096, &a->experts, err))) return st;
    if ((st = vp_json_opt_int(t, tp, "num_experts_per_tok", 1, 4096, &a->experts_per_tok, err))) return st;
    if ((st = vp_json_opt_int(t, tp, "interleave_moe_layer_step", 1, VP_MAXLAYERS, &step, err))) return st;
    if (a->experts_per_tok > a->experts) {
        char path[128];
        vp_path_key(path, sizeof path, tp, "num_experts_per_tok");
        return vp_fail(err, VP_ERR_RANGE, path, "%s exceeds num_local_experts", path);
    }
    /* Llama4TextConfig: moe_layers if given, else list(range(interleave_moe_layer_step - 1, L, step)) */
    const cJSON *ml = cJSON_GetObjectItemCaseSensitive(t, "moe_layers");
    if (cJSON_IsArray(ml)) {
        char path[128];
        vp_path_key(path, sizeof path, tp, "moe_layers");
        const cJSON *x;
        cJSON_ArrayForEach(x, ml) {
            if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble >= (double)a->layers)
                return vp_fail(err, VP_ERR_RANGE, path, "%s must list layer indices below num_hidden_layers = %lld",
                               path, (long long)a->layers);
            vp_layer_map_set(&a->moe_map, (int64_t)x->valuedouble);
        }
    } else if (ml && !cJSON_IsNull(ml)) {
        char path[128];
        vp_path_key(path, sizeof path, tp, "moe_layers");
        return vp_fail(err, VP_ERR_FIELD, path, "%s must be a list of layer indices", path);
    } else {
        for (int64_t i = step - 1; i < a->layers; i += step) vp_layer_map_set(&a->moe_map, i);
    }
    a->moe_layers = vp_layer_map_count(&a->moe_map, a->layers);
    a->shared_experts = 1;
    /* the RoPE layers attend in chunks of attention_chunk_size 8192; every 4th (NoPE) layer is global */
    if ((st = vp_read_local_attn(t, tp, a, VP_LOCAL_CHUNKED, 8192, 0, err))) return st;
    /* the vision tower (its defaults are Scout's) */
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "vision_config");
    if (!cJSON_IsObject(v)) return VP_OK; /* a text-only export */
    int64_t e = 768, f = 3072, L = 34, ch = 3, img = 448, patch = 14, pin = 4096, pout = 4096, vout = 7680;
    if ((st = vp_json_opt_int(v, vp, "hidden_size", 1, VP_MAXDIM, &e, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "intermediate_size", 1, VP_MAXDIM, &f, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "num_hidden_layers", 1, VP_MAXLAYERS, &L, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "num_channels", 1, 1024, &ch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "image_size", 1, 65536, &img, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "patch_size", 1, 65536, &patch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "projector_input_dim", 1, VP_MAXDIM, &pin, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "projector_output_dim", 1, VP_MAXDIM, &pout, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "vision_output_dim", 1, VP_MAXDIM, &vout, err))) return st;
    if (patch > img) {
        char path[128];
        vp_path_key(path, sizeof path, vp, "patch_size");
        return vp_fail(err, VP_ERR_RANGE, path, "%s is larger than image_size", path);
    }
    int64_t n = (img / patch) * (img / patch);
    int64_t layer = 2 * e + 4 * (e * e + e) + 2 * e + (e * f + f) + (f * e + e);
    a->vision_params = ch * patch * patch * e + e + (n + 1) * e + 4 * e + L * layer + f * pin + pout * pout + vout * a->hidden;
    /* image tokens (vlm_images.c): tiles of image_size, class token, pixel_shuffle_ratio 0.5
     * (Llama4VisionConfig) -> merge 2 per side; num_attention_heads 16 */
    double ratio = 0.5;
    if ((st = vp_json_opt_num(v, vp, "pixel_shuffle_ratio", 0.01, 1.0, &ratio, err))) return st;
    a->vis_rule = VP_VIS_LLAMA4;
    a->vis_hidden = e;
    a->vis_inter = f;
    a->vis_layers = L;
    a->vis_heads = 16;
    a->vis_image = img;
    a->vis_patch = patch;
    a->vis_merge = (int64_t)(1.0 / ratio + 0.5);
    a->vis_cls = 1;
    if ((st = vp_json_opt_int(v, vp, "num_attention_heads", 1, 65536, &a->vis_heads, err))) return st;
    return VP_OK;
}

void vp_count_llama4(const vp_arch *a, vp_param_counts *c) {
    vp_count_decoder(a, c);
    /* the shared expert of every MoE layer: a SwiGLU of intermediate_size, no gate */
    int64_t shared = 3 * a->hidden * a->expert_inter;
    c->layers_total += a->moe_layers * shared;
    c->linear_in_layers += a->moe_layers * shared;
    c->per_layer_mlp += shared;
}
