/* olmo2.c: OLMo 2 (transformers models/olmo2/modeling_olmo2.py). Olmo2Attention normalizes the whole
 * query and key projections: q_norm = Olmo2RMSNorm(num_heads·head_dim), k_norm =
 * Olmo2RMSNorm(num_key_value_heads·head_dim) (not per head as Qwen3); Olmo2DecoderLayer keeps two
 * norms, both after their sublayer (post_attention_layernorm, post_feedforward_layernorm).
 * Olmo2Config tie_word_embeddings False. OLMo-2-1124-7B: 7,298,617,344. */
#include "family.h"

vp_status vp_read_olmo2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    a->qk_norm = 1; /* the activations of a q/k norm are the same, per head or whole-width */
    a->qk_norm_full = 1;
    return vp_read_need_inter(p, a, err);
}

void vp_count_olmo2(const vp_arch *a, vp_param_counts *c) {
    vp_count_decoder(a, c);
    /* the shared count gave the per-head 2·head_dim; OLMo 2's norms span a·d and a_kv·d */
    int64_t extra = a->heads * a->head_dim + a->kv_heads * a->head_dim - 2 * a->head_dim;
    vp_count_add(c, extra, 0, 0, a->layers, 0);
}
