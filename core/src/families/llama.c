/* llama.c: Llama (transformers models/llama/configuration_llama.py, modeling_llama.py) and Mistral
 * (models/mistral: the Llama block; sliding_window changes no shape). tie_word_embeddings defaults
 * to False in both configs. */
#include "family.h"

vp_status vp_read_llama(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    return vp_read_need_inter(p, a, err);
}

vp_status vp_read_mistral(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return vp_read_llama(c, p, a, err); }
