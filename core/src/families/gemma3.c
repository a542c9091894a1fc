/* gemma3.c: Gemma 3 (transformers models/gemma3). gemma3_text (Gemma3ForCausalLM, e.g. gemma-3-1b) is
 * the decoder; gemma3 (Gemma3ForConditionalGeneration, 4b/12b/27b) adds a SigLIP vision tower and the
 * multimodal projector, with the decoder's config in text_config.
 *
 * Gemma3TextConfig defaults (configuration_gemma3.py): vocab 262208, hidden 2304, intermediate 9216,
 * 26 layers, 8 heads, 4 key/value heads, head_dim 256, tie_word_embeddings True, sliding_window 4096,
 * sliding_window_pattern 6 (five local layers, then one global), final_logit_softcapping None,
 * max_position_embeddings 131072. The published 4b/12b/27b configs leave heads, head_dim, vocab and
 * max_position_embeddings out, so the defaults matter.
 *
 * Block (modeling_gemma3.py Gemma3DecoderLayer): input_layernorm, post_attention_layernorm,
 * pre_feedforward_layernorm, post_feedforward_layernorm (4 Gemma3RMSNorm(h), x·(1 + w) in fp32);
 * Gemma3Attention q/k/v/o_proj (attention_bias False) with q_norm and k_norm = Gemma3RMSNorm(head_dim);
 * Gemma3MLP gate/up/down with gelu_pytorch_tanh (GeGLU). The shared decoder count and activations
 * read these flags (qk_norm, norms_per_layer 4, norm_fp32, GeGLU).
 *
 * Gemma3MultiModalProjector: mm_input_projection_weight (vision_hidden, text_hidden) and
 * mm_soft_emb_norm = Gemma3RMSNorm(vision_hidden). Checked: gemma-3-4b-it 4,300,079,472 and
 * gemma-3-1b-it 999,885,952 (tests/core/test_families.c). */
#include "family.h"
#include "vlm_images.h"

static const vp_decoder_defaults k_text = {2304, 26, 8, 4, 256, 9216, 262208, 1, 131072};

static vp_status read_text(const cJSON *c, const char *p, vp_arch *a, int tie_default, vp_error *err) {
    vp_decoder_defaults d = k_text;
    d.tie = tie_default;
    vp_status st;
    if ((st = vp_read_decoder_defaults(c, p, a, &d, err))) return st;
    a->mlp = VP_MLP_GEGLU;
    a->norm_fp32 = 1;
    a->norms_per_layer = 4;
    a->qk_norm = 1;
    a->final_logit_softcap = 0; /* None by default; a config may set it */
    a->rope_local = 1; /* Gemma3Attention: the sliding layers rotate by rope_local_base_freq, unscaled */
    if ((st = vp_json_opt_num(c, p, "final_logit_softcapping", 0, 1e9, &a->final_logit_softcap, err))) return st;
    /* five local layers per global one: sliding_window 4096, sliding_window_pattern 6 (attn_local.c) */
    return vp_read_local_attn(c, p, a, VP_LOCAL_PATTERN, 4096, 6, err);
}

vp_status vp_read_gemma3_text(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    return read_text(c, p, a, 1, err);
}

vp_status vp_read_gemma3(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "text_config");
    char tp[128], vp[128];
    vp_path_key(tp, sizeof tp, p, "text_config");
    vp_path_key(vp, sizeof vp, p, "vision_config");
    vp_status st;
    /* Gemma3ForConditionalGeneration ties lm_head to the text embeddings unless the top level says not */
    int tie = 1;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &tie, err))) return st;
    static const char empty_json[] = "{}";
    cJSON *empty = NULL;
    if (!cJSON_IsObject(t)) {
        if (t && !cJSON_IsNull(t)) return vp_fail(err, VP_ERR_FIELD, tp, "%s must be an object", tp);
        empty = cJSON_Parse(empty_json); /* Gemma3Config() builds Gemma3TextConfig() */
        if (!empty) return vp_fail(err, VP_ERR_NOMEM, tp, "out of memory");
        t = empty;
    }
    st = read_text(t, tp, a, tie, err);
    cJSON_Delete(empty);
    if (st) return st;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "vision_config");
    if (v && !cJSON_IsNull(v) && !cJSON_IsObject(v)) return vp_fail(err, VP_ERR_FIELD, vp, "%s must be an object", vp);
    static const char no_fields[] = "{}";
    cJSON *dflt = NULL;
    if (!cJSON_IsObject(v)) {
        dflt = cJSON_Parse(no_fields); /* SiglipVisionConfig() */
        if (!dflt) return vp_fail(err, VP_ERR_NOMEM, vp, "out of memory");
        v = dflt;
    }
    int64_t e = 0;
    int64_t tower = vp_siglip_vision_params(v, vp, &e, &st, err);
    if (!st) st = vp_read_vis_shape(v, vp, 1, a, err); /* the tower's blocks for the image memory */
    cJSON_Delete(dflt);
    if (st) return st;
    /* Gemma3Config mm_tokens_per_image (256): the projector avg-pools the (896/14)^2 = 4096 SigLIP
     * patches to 16 × 16 tokens per image (modeling_gemma3.py Gemma3MultiModalProjector) */
    a->vis_rule = VP_VIS_FIXED;
    a->vis_tokens = 256;
    if ((st = vp_json_opt_int(c, p, "mm_tokens_per_image", 1, 1048576, &a->vis_tokens, err))) return st;
    a->vision_params = tower + e * a->hidden + e; /* + projector weight and its RMSNorm */
    return VP_OK;
}
