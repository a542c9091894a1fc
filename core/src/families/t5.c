/* t5.c: T5 (models/t5/configuration_t5.py, modeling_t5.py): encoder-decoder, relative attention
 * bias, T5LayerNorm (weight only), ReLU or gated-GELU feed-forward. */
#include <string.h>

#include "family.h"

vp_status vp_read_t5(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_T5;
    if ((st = vp_json_int(c, p, "d_model", 1, VP_MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_int(c, p, "d_ff", 1, VP_MAXDIM, &a->inter, err))) return st;
    if ((st = vp_json_int(c, p, "d_kv", 1, 65536, &a->head_dim, err))) return st;
    if ((st = vp_json_int(c, p, "num_layers", 1, VP_MAXLAYERS, &a->layers, err))) return st;
    a->dec_layers = a->layers;
    if ((st = vp_json_opt_int(c, p, "num_decoder_layers", 0, VP_MAXLAYERS, &a->dec_layers, err))) return st;
    if ((st = vp_json_int(c, p, "num_heads", 1, 65536, &a->heads, err))) return st;
    a->kv_heads = a->heads;
    a->vocab = 32128;
    if ((st = vp_json_opt_int(c, p, "vocab_size", 1, VP_MAXVOCAB, &a->vocab, err))) return st;
    a->rel_buckets = 32;
    if ((st = vp_json_opt_int(c, p, "relative_attention_num_buckets", 1, 65536, &a->rel_buckets, err))) return st;
    a->tie = 1;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &a->tie, err))) return st;
    char ff[32] = "relu";
    if ((st = vp_json_opt_str(c, p, "feed_forward_proj", ff, sizeof ff, err))) return st;
    a->mlp = strncmp(ff, "gated-", 6) == 0 ? VP_MLP_GEGLU : VP_MLP_RELU;
    a->norm = VP_NORM_RMS;
    a->norms_per_layer = 2;
    a->resid_dropout = 0.1; /* T5Config dropout_rate default */
    if ((st = vp_json_opt_num(c, p, "dropout_rate", 0, 1, &a->resid_dropout, err))) return st;
    a->attn_dropout = a->resid_dropout;
    a->embd_dropout = a->resid_dropout;
    return VP_OK;
}

void vp_count_t5(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, inner = a->heads * a->head_dim;
    int64_t attn = 4 * h * inner; /* T5Attention q, k, v, o: no biases */
    int64_t ff = vp_mlp_params(a, h, a->inter);
    int64_t enc_layer = attn + ff + 2 * h;          /* T5LayerNorm: weight only */
    int64_t dec_layer = 2 * attn + ff + 3 * h;      /* self-attn, cross-attn, ff */
    c->per_layer_attn = attn;
    c->per_layer_mlp = ff;
    c->per_layer_norm = 2 * h;
    c->layers_total = a->layers * enc_layer + a->dec_layers * dec_layer;
    /* relative_attention_bias Embedding(buckets, heads) in the first layer of each stack */
    c->other = a->rel_buckets * a->heads * (a->dec_layers > 0 ? 2 : 1);
    c->embed = a->vocab * h; /* shared */
    c->lm_head = a->tie ? 0 : a->vocab * h;
    c->final_norm = h * (a->dec_layers > 0 ? 2 : 1);
    c->linear_in_layers = a->layers * (attn + ff) + a->dec_layers * (2 * attn + ff);
    c->largest_tensor = a->vocab * h;
}
