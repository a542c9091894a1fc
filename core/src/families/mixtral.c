/* mixtral.c: Mixtral (models/mixtral/configuration_mixtral.py): the Mistral block with a sparse MoE
 * MLP in every layer, num_local_experts experts of intermediate_size (MixtralSparseMoeBlock). */
#include "family.h"

vp_status vp_read_mixtral(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    if ((st = vp_read_need_inter(p, a, err))) return st;
    return vp_read_moe(c, p, a, "num_local_experts", NULL, err);
}
