/* gemma.c: Gemma and Gemma 2 (models/gemma, models/gemma2). GemmaConfig: tie_word_embeddings True,
 * head_dim 256; GemmaMLP gate/up/down with gelu_pytorch_tanh (GeGLU); GemmaRMSNorm computes
 * x·(1 + w) in fp32. Gemma2DecoderLayer has 4 norms (input, post_attention, pre_feedforward,
 * post_feedforward) and final_logit_softcapping (default 30). */
#include "family.h"

vp_status vp_read_gemma(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 1, err))) return st;
    if (!cJSON_GetObjectItemCaseSensitive(c, "head_dim")) a->head_dim = 256;
    a->mlp = VP_MLP_GEGLU;
    a->norm_fp32 = 1;
    return vp_read_need_inter(p, a, err);
}

vp_status vp_read_gemma2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 1, err))) return st;
    if (!cJSON_GetObjectItemCaseSensitive(c, "head_dim")) a->head_dim = 256;
    a->mlp = VP_MLP_GEGLU;
    a->norm_fp32 = 1;
    a->norms_per_layer = 4;
    a->final_logit_softcap = 30.0;
    if ((st = vp_json_opt_num(c, p, "final_logit_softcapping", 0, 1e9, &a->final_logit_softcap, err))) return st;
    /* Gemma2Config: layers 0, 2, 4, ... slide over sliding_window 4096 (attn_local.c) */
    if ((st = vp_read_local_attn(c, p, a, VP_LOCAL_ALTERNATE, 4096, 0, err))) return st;
    return vp_read_need_inter(p, a, err);
}
