/* deberta_v2.c: DeBERTa-v2 / v3 (transformers models/deberta_v2/modeling_deberta_v2.py). Counted as
 * DebertaV2Model (the published v3 configs name no head class):
 *   embeddings: word_embeddings (v, h) (the v3 embedding_size is h), position_embeddings only when
 *   position_biased_input (v3: False), token_type_embeddings when type_vocab_size > 0, LayerNorm;
 *   encoder: rel_embeddings Embedding(2·position_buckets, h) (or 2·max_relative_positions) and its
 *   LayerNorm when norm_rel_ebd has "layer_norm"; layers × [query/key/value_proj Linear(h, h) with
 *   bias (the positional projections are shared when share_att_key), attention output dense +
 *   LayerNorm, intermediate Linear(h, f), output Linear(f, h) + LayerNorm]. Memory as the BERT-style
 *   block (disentangled attention's extra c2p/p2c score tensors are not modelled).
 * DebertaV2Config defaults: vocab 128100, hidden 1536, intermediate 6144, 24 layers, 24 heads.
 * deberta-v3-base: 183,831,552. */
#include <string.h>

#include "family.h"

vp_status vp_read_deberta_v2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    vp_decoder_defaults d = {1536, 24, 24, 0, 0, 6144, 128100, 1, 512};
    if ((st = vp_read_decoder_defaults(c, p, a, &d, err))) return st;
    a->kv_heads = a->heads;
    a->qkv_bias = a->o_bias = a->mlp_bias = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->tie = 1;
    int64_t h = a->hidden, pos = 512, types = 0, buckets = 0, maxrel = -1;
    int pbi = 1, rel = 0;
    if ((st = vp_json_opt_int(c, p, "max_position_embeddings", 1, 100000000, &pos, err))) return st;
    if ((st = vp_json_opt_int(c, p, "type_vocab_size", 0, 1000000, &types, err))) return st;
    if ((st = vp_json_opt_int(c, p, "position_buckets", -1, 1000000, &buckets, err))) return st;
    if ((st = vp_json_opt_int(c, p, "max_relative_positions", -1, 100000000, &maxrel, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "position_biased_input", &pbi, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "relative_attention", &rel, err))) return st;
    char nre[64] = "none";
    if ((st = vp_json_opt_str(c, p, "norm_rel_ebd", nre, sizeof nre, err))) return st;
    int64_t extra = 2 * h + (pbi ? pos * h : 0) + types * h;
    if (rel) {
        int64_t span = buckets > 0 ? buckets : (maxrel < 1 ? pos : maxrel);
        extra += 2 * span * h + (strstr(nre, "layer_norm") ? 2 * h : 0);
    }
    a->positions = pbi ? pos : 0;
    a->vision_params = extra;
    double drop = 0.1;
    if ((st = vp_json_opt_num(c, p, "hidden_dropout_prob", 0, 1, &drop, err))) return st;
    a->resid_dropout = drop;
    a->encoder_only = 1; /* DebertaV2Model: bidirectional, no cache (modeling_deberta_v2.py); counted without a head */
    return VP_OK;
}
