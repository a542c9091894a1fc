/* smollm3.c: SmolLM3 (transformers models/smollm3/modeling_smollm3.py): the Llama block; every
 * no_rope_layer_interval-th layer skips RoPE (NoPE), which changes no shape. SmolLM3Config
 * tie_word_embeddings defaults to True. SmolLM3-3B: 3,075,098,624. */
#include "family.h"

vp_status vp_read_smollm3(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 1, err))) return st;
    return vp_read_need_inter(p, a, err);
}
