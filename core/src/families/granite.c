/* granite.c: Granite 3.x dense and MoE (transformers models/granite, models/granitemoe).
 * granite: the Llama block; embedding_multiplier, attention_multiplier, residual_multiplier and
 * logits_scaling scale activations without changing a shape. GraniteConfig tie_word_embeddings
 * defaults to False (the 3.x configs set True).
 * granitemoe: GraniteMoeMoE = router GraniteMoeTopKGating(layer = Linear(h, num_local_experts,
 * bias=False)), input_linear GraniteMoeParallelExperts(E, h, 2·intermediate_size) and output_linear
 * (E, intermediate_size, h): the stacked SwiGLU experts of the shared MoE count.
 * granite-3.3-2b-instruct 2,533,539,840; granite-3.1-1b-a400m-instruct 1,334,628,352. */
#include "family.h"

vp_status vp_read_granite(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    return vp_read_need_inter(p, a, err);
}

vp_status vp_read_granitemoe(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    if ((st = vp_read_need_inter(p, a, err))) return st;
    return vp_read_moe(c, p, a, "num_local_experts", NULL, err);
}
