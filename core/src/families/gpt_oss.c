/* gpt_oss.c: gpt-oss (transformers models/gpt_oss/modeling_gpt_oss.py). GptOssAttention q/k/v/o_proj
 * with bias (attention_bias True) and sinks = Parameter(num_attention_heads): one learned logit per
 * head joins the softmax; layers alternate sliding_window (128) and full attention (layer_types).
 * GptOssMLP: router GptOssTopKRouter = weight (E, h) + bias (E); experts GptOssExperts =
 * gate_up_proj (E, h, 2f) + gate_up_proj_bias (E, 2f), down_proj (E, f, h) + down_proj_bias (E, h),
 * a clamped SwiGLU (swiglu_limit 7, alpha 1.702). Two RMSNorms per block, untied lm_head.
 * The released checkpoints keep the experts in MXFP4 (quantization_config quant_method mxfp4: 4-bit
 * blocks of 32 values + one uint8 scale, 17/32 byte per parameter); transformers dequantizes them to
 * bf16 unless its MXFP4 kernels are available (integrations/mxfp4.py).
 * gpt-oss-20b: 20,914,757,184 (index total_size 13,761,264,768 = 19,110,297,600 expert weights ×
 * 17/32 + 1,804,459,584 others × 2). */
#include <string.h>

#include "family.h"

vp_status vp_read_gpt_oss(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    vp_decoder_defaults d = {2880, 36, 64, 8, 64, 2880, 201088, 0, 131072}; /* GptOssConfig defaults */
    if ((st = vp_read_decoder_defaults(c, p, a, &d, err))) return st;
    int bias = 1;
    if ((st = vp_json_opt_bool(c, p, "attention_bias", &bias, err))) return st;
    a->qkv_bias = a->o_bias = bias;
    a->attn_sinks = 1;
    a->router_bias = 1;
    a->expert_bias = 1;
    if (!vp_has_key(c, "num_local_experts")) a->experts = 128;
    if (!vp_has_key(c, "num_experts_per_tok")) a->experts_per_tok = 4;
    if (vp_has_key(c, "num_local_experts") || vp_has_key(c, "num_experts_per_tok")) {
        if ((st = vp_json_opt_int(c, p, "num_local_experts", 1, 4096, &a->experts, err))) return st;
        if ((st = vp_json_opt_int(c, p, "num_experts_per_tok", 1, 4096, &a->experts_per_tok, err))) return st;
    }
    if (a->experts_per_tok > a->experts) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_experts_per_tok");
        return vp_fail(err, VP_ERR_RANGE, path, "%s exceeds the number of experts", path);
    }
    a->expert_inter = a->inter;
    a->moe_layers = a->layers;
    vp_layer_map_fill(&a->moe_map, a->layers);
    /* GptOssConfig: layer_types alternate sliding (window 128) and full attention (attn_local.c) */
    if ((st = vp_read_local_attn(c, p, a, VP_LOCAL_ALTERNATE, 128, 0, err))) return st;
    /* quantization_config.quant_method "mxfp4": the experts' gate_up and down weights (not their biases) */
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(c, "quantization_config");
    const cJSON *m = cJSON_IsObject(q) ? cJSON_GetObjectItemCaseSensitive(q, "quant_method") : NULL;
    /* (bounded first: the shapes are checked against 10^15 parameters only when counted) */
    double mx = (double)a->layers * (double)a->experts * 3.0 * (double)a->expert_inter * (double)a->hidden;
    if (cJSON_IsString(m) && m->valuestring && !strcmp(m->valuestring, "mxfp4") && mx < 1e15)
        a->mxfp4_params = a->layers * a->experts * 3 * a->expert_inter * a->hidden;
    return VP_OK;
}

void vp_count_gpt_oss(const vp_arch *a, vp_param_counts *c) {
    vp_count_decoder(a, c);
    int64_t E = a->experts, h = a->hidden, f = a->expert_inter;
    /* sinks (a per layer); router bias (E); expert biases E·(2f + h) */
    vp_count_add(c, a->attn_sinks ? a->heads : 0, (a->router_bias ? E : 0) + (a->expert_bias ? E * (2 * f + h) : 0), 0,
                 a->layers, 0);
}
