/* cohere.c: Command-R (cohere) and Command R7B / A (cohere2) (transformers models/cohere,
 * models/cohere2). One CohereLayerNorm(h) per block (weight only, no bias) feeds attention and MLP in
 * parallel; q/k/v/o_proj (attention_bias False), SwiGLU MLP; tie_word_embeddings True; logit_scale
 * multiplies the logits. cohere with use_qk_norm (Command R+) adds q_norm = CohereLayerNorm((a, d))
 * and k_norm = CohereLayerNorm((a_kv, d)). cohere2 alternates sliding-window and global layers
 * (sliding_window_pattern) without changing a shape. */
#include "family.h"

static vp_status read_cohere(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 1, err))) return st;
    if ((st = vp_read_need_inter(p, a, err))) return st;
    a->norm = VP_NORM_LAYER;
    a->norm_no_bias = 1;
    a->norms_per_layer = 1;
    return VP_OK;
}

vp_status vp_read_cohere(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = read_cohere(c, p, a, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "use_qk_norm", &a->qk_norm, err))) return st;
    a->qk_norm_full = a->qk_norm ? 2 : 0; /* CohereLayerNorm((a, d)) and ((a_kv, d)), one row per head */
    return VP_OK;
}

vp_status vp_read_cohere2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = read_cohere(c, p, a, err))) return st;
    /* Cohere2Config: sliding_window 4096, sliding_window_pattern 4: three local layers, then a global one */
    return vp_read_local_attn(c, p, a, VP_LOCAL_PATTERN, 4096, 4, err);
}

void vp_count_cohere(const vp_arch *a, vp_param_counts *c) {
    vp_count_decoder(a, c);
    if (a->qk_norm) /* whole (heads, head_dim) LayerNorm weights instead of the per-head 2·d */
        vp_count_add(c, a->heads * a->head_dim + a->kv_heads * a->head_dim - 2 * a->head_dim, 0, 0, a->layers, 0);
}
