/* deepseek.c: DeepSeek-V2 / V2-Lite and V3 / R1 (transformers models/deepseek_v2, models/deepseek_v3).
 *
 * Multi-head latent attention (DeepseekV3Attention): q_a_proj Linear(h, q_lora_rank) + q_a_layernorm
 * RMSNorm(q_lora_rank) + q_b_proj Linear(q_lora_rank, a·(qk_nope + qk_rope)), or one q_proj Linear(h,
 * a·(qk_nope + qk_rope)) when q_lora_rank is null (V2-Lite); kv_a_proj_with_mqa Linear(h, kv_lora_rank +
 * qk_rope) + kv_a_layernorm RMSNorm(kv_lora_rank) + kv_b_proj Linear(kv_lora_rank, a·(qk_nope + v));
 * o_proj Linear(a·v, h); no biases (attention_bias False).
 * MLP: the first first_k_dense_replace layers are dense SwiGLU of intermediate_size; the others
 * (moe_layer_freq 1) DeepseekV3MoE = gate weight (n_routed_experts, h) (+ e_score_correction_bias
 * (n_routed_experts) with topk_method noaux_tc, V3), n_routed_experts SwiGLU experts of
 * moe_intermediate_size and shared_experts = one SwiGLU of moe_intermediate_size · n_shared_experts.
 * Two RMSNorms per layer, final norm, untied lm_head.
 * V3's multi-token-prediction layer (num_nextn_predict_layers, model.layers.61 in the checkpoint) is
 * not built by transformers, so it holds no GPU memory there and is not counted.
 * The transformers cache keeps the decompressed K (a·(nope + rope)) and V (a·v) per token, not the
 * latent (DeepseekV3Attention.forward updates past_key_values after kv_b_proj): the shared
 * attention accounting, which gives K and V one head_dim, gets head_dim = (nope + rope + v) / 2, so
 * K + V = a·(nope + rope + v) per token as transformers stores them (V3: 128·320·2 B = 81,920 B per
 * layer in bf16). */
#include <string.h>

#include "family.h"

static vp_status read_deepseek(const cJSON *c, const char *p, vp_arch *a, int v3, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    if ((st = vp_read_need_inter(p, a, err))) return st;
    int64_t nope = 128, rope = 64, v = 128, kvr = 512, qr = v3 ? 1536 : 0; /* DeepseekV3Config defaults */
    if ((st = vp_json_opt_int(c, p, "qk_nope_head_dim", 1, 65536, &nope, err))) return st;
    if ((st = vp_json_opt_int(c, p, "qk_rope_head_dim", 0, 65536, &rope, err))) return st;
    if ((st = vp_json_opt_int(c, p, "v_head_dim", 1, 65536, &v, err))) return st;
    if ((st = vp_json_opt_int(c, p, "kv_lora_rank", 1, VP_MAXDIM, &kvr, err))) return st;
    if (vp_has_key(c, "q_lora_rank") || !cJSON_GetObjectItemCaseSensitive(c, "q_lora_rank")) {
        if ((st = vp_json_opt_int(c, p, "q_lora_rank", 1, VP_MAXDIM, &qr, err))) return st;
    } else {
        qr = 0; /* "q_lora_rank": null -> q_proj */
    }
    a->mla_q_rank = qr;
    a->mla_kv_rank = kvr;
    a->mla_nope_dim = nope;
    a->mla_rope_dim = rope;
    a->mla_v_dim = v;
    a->head_dim = (nope + rope + v + 1) / 2;
    a->kv_heads = a->heads; /* the decompressed K, V have every head */
    a->qkv_bias = a->o_bias = 0;
    int64_t routed = 0, shared = 0, first_dense = 0, freq = 1;
    if ((st = vp_json_opt_int(c, p, "n_routed_experts", 0, 4096, &routed, err))) return st;
    if (routed > 0) {
        if ((st = vp_json_int(c, p, "num_experts_per_tok", 1, 4096, &a->experts_per_tok, err))) return st;
        if ((st = vp_json_int(c, p, "moe_intermediate_size", 1, VP_MAXDIM, &a->expert_inter, err))) return st;
        if ((st = vp_json_opt_int(c, p, "n_shared_experts", 0, 4096, &shared, err))) return st;
        if ((st = vp_json_opt_int(c, p, "first_k_dense_replace", 0, VP_MAXLAYERS, &first_dense, err))) return st;
        if ((st = vp_json_opt_int(c, p, "moe_layer_freq", 1, VP_MAXLAYERS, &freq, err))) return st;
        if (a->experts_per_tok > routed) {
            char path[128];
            vp_path_key(path, sizeof path, p, "num_experts_per_tok");
            return vp_fail(err, VP_ERR_RANGE, path, "%s exceeds n_routed_experts", path);
        }
        a->experts = routed;
        a->shared_experts = shared;
        int64_t n = 0;
        for (int64_t i = 0; i < a->layers; i++) /* DeepseekV3DecoderLayer */
            if (i >= first_dense && i % freq == 0) {
                vp_layer_map_set(&a->moe_map, i);
                n++;
            }
        a->moe_layers = n;
        const cJSON *tm = cJSON_GetObjectItemCaseSensitive(c, "topk_method");
        a->router_score_bias = v3 || (cJSON_IsString(tm) && tm->valuestring && !strcmp(tm->valuestring, "noaux_tc"));
    }
    if ((st = vp_json_opt_int(c, p, "num_nextn_predict_layers", 0, 64, &a->mtp_layers, err))) return st;
    return VP_OK;
}

vp_status vp_read_deepseek_v2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return read_deepseek(c, p, a, 0, err); }
vp_status vp_read_deepseek_v3(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return read_deepseek(c, p, a, 1, err); }

void vp_count_deepseek(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, H = a->heads, qk = a->mla_nope_dim + a->mla_rope_dim, v = a->mla_v_dim, qr = a->mla_q_rank, kvr = a->mla_kv_rank;
    int64_t q = qr ? h * qr + qr + qr * H * qk : h * H * qk;
    int64_t attn = q + h * (kvr + a->mla_rope_dim) + kvr + kvr * H * (qk - a->mla_rope_dim + v) + H * v * h;
    int64_t attn_norms = qr ? qr + kvr : kvr; /* q_a_layernorm, kv_a_layernorm: not matmul weights */
    int64_t dense = 3 * h * a->inter;
    int64_t moe = 0;
    if (a->experts)
        moe = a->experts * h + (a->router_score_bias ? a->experts : 0) + a->experts * 3 * h * a->expert_inter +
              3 * h * a->expert_inter * a->shared_experts;
    int64_t n_moe = a->experts ? a->moe_layers : 0, n_dense = a->layers - n_moe;
    c->per_layer_attn = attn;
    c->per_layer_mlp = a->experts ? moe : dense;
    c->per_layer_norm = 2 * h;
    c->layers_total = a->layers * (attn + 2 * h) + n_dense * dense + n_moe * moe;
    c->linear_in_layers = a->layers * (attn - attn_norms) + n_dense * dense + n_moe * moe;
    c->embed = a->vocab * h;
    c->lm_head = a->tie ? 0 : a->vocab * h;
    c->final_norm = h;
    c->largest_tensor = a->vocab * h;
    if (a->expert_inter * h > c->largest_tensor) c->largest_tensor = a->expert_inter * h;
    if (a->inter * h > c->largest_tensor) c->largest_tensor = a->inter * h;
}
