/* whisper.c: Whisper (transformers models/whisper/modeling_whisper.py WhisperForConditionalGeneration),
 * an encoder-decoder: its memory is modelled with the shared encoder-decoder (T5-kind) accounting,
 * the encoder over the workload's seq (Whisper's 30 s window is max_source_positions = 1500 frames
 * after the stride-2 conv) and the decoder over dec_seq.
 *   encoder: conv1 Conv1d(num_mel_bins, d, 3) and conv2 Conv1d(d, d, 3, stride 2) with biases;
 *   embed_positions Embedding(max_source_positions, d); encoder_layers × [self_attn q/v/out_proj
 *   Linear(d, d) with bias and k_proj without, self_attn_layer_norm, fc1 Linear(d, ffn) and fc2 with
 *   biases, final_layer_norm]; layer_norm.
 *   decoder: embed_tokens (v, d), embed_positions (max_target_positions, d); decoder_layers × [self_attn,
 *   its LayerNorm, encoder_attn (same shapes), its LayerNorm, fc1, fc2, final_layer_norm]; layer_norm;
 *   proj_out tied to embed_tokens. LayerNorms with bias, GELU.
 * WhisperConfig defaults: vocab 51865, 80 mel bins, d 384 (tiny), 4 + 4 layers, 6 heads, ffn 1536,
 * 1500 source and 448 target positions. whisper-large-v3: 1,543,490,560. */
#include "family.h"

vp_status vp_read_whisper(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_T5;
    int64_t mel = 80, enc_ffn = 1536, dec_ffn = 1536, src = 1500, tgt = 448, dec_heads = 6;
    a->hidden = 384;
    a->layers = 4;
    a->dec_layers = 4;
    a->heads = 6;
    a->vocab = 51865;
    if ((st = vp_json_opt_int(c, p, "d_model", 1, VP_MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_opt_int(c, p, "encoder_layers", 1, VP_MAXLAYERS, &a->layers, err))) return st;
    if ((st = vp_json_opt_int(c, p, "decoder_layers", 0, VP_MAXLAYERS, &a->dec_layers, err))) return st;
    if ((st = vp_json_opt_int(c, p, "encoder_attention_heads", 1, 65536, &a->heads, err))) return st;
    if ((st = vp_json_opt_int(c, p, "decoder_attention_heads", 1, 65536, &dec_heads, err))) return st;
    if ((st = vp_json_opt_int(c, p, "vocab_size", 1, VP_MAXVOCAB, &a->vocab, err))) return st;
    if ((st = vp_json_opt_int(c, p, "num_mel_bins", 1, 100000, &mel, err))) return st;
    if ((st = vp_json_opt_int(c, p, "encoder_ffn_dim", 1, VP_MAXDIM, &enc_ffn, err))) return st;
    if ((st = vp_json_opt_int(c, p, "decoder_ffn_dim", 1, VP_MAXDIM, &dec_ffn, err))) return st;
    if ((st = vp_json_opt_int(c, p, "max_source_positions", 1, 100000000, &src, err))) return st;
    if ((st = vp_json_opt_int(c, p, "max_target_positions", 1, 100000000, &tgt, err))) return st;
    if (a->hidden % a->heads) {
        char path[128];
        vp_path_key(path, sizeof path, p, "encoder_attention_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s must divide d_model", path);
    }
    a->kv_heads = a->heads;
    a->head_dim = a->hidden / a->heads;
    a->inter = enc_ffn;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 2;
    a->qkv_bias = a->o_bias = a->mlp_bias = 1;
    a->tie = 1;
    a->rel_buckets = 0;
    double drop = 0;
    if ((st = vp_json_opt_num(c, p, "dropout", 0, 1, &drop, err))) return st;
    a->resid_dropout = drop;
    if ((st = vp_json_opt_num(c, p, "attention_dropout", 0, 1, &a->attn_dropout, err))) return st;
    int64_t d = a->hidden;
    /* what the T5-kind block accounting does not see: convs, positions, decoder FFN width */
    a->positions = src + tgt;
    a->channels = mel;
    a->expert_inter = dec_ffn; /* (not an MoE: the decoder's FFN width, read by vp_count_whisper) */
    (void)d;
    return VP_OK;
}

void vp_count_whisper(const vp_arch *a, vp_param_counts *c) {
    int64_t d = a->hidden, fe = a->inter, fd = a->expert_inter, mel = a->channels;
    int64_t attn = 4 * d * d + 3 * d; /* k_proj has no bias */
    int64_t enc_mlp = d * fe + fe + fe * d + d, dec_mlp = d * fd + fd + fd * d + d;
    int64_t enc_layer = attn + 2 * d + enc_mlp + 2 * d;
    int64_t dec_layer = 2 * attn + 3 * 2 * d + dec_mlp;
    c->per_layer_attn = attn;
    c->per_layer_mlp = enc_mlp;
    c->per_layer_norm = 4 * d;
    c->layers_total = a->layers * enc_layer + a->dec_layers * dec_layer;
    c->linear_in_layers = a->layers * (4 * d * d + d * fe + fe * d) + a->dec_layers * (8 * d * d + d * fd + fd * d);
    c->embed = a->vocab * d + a->positions * d;
    c->lm_head = a->tie ? 0 : a->vocab * d;
    c->final_norm = 2 * 2 * d;
    c->other = mel * d * 3 + d + d * d * 3 + d; /* conv1, conv2 */
    c->largest_tensor = a->vocab * d;
}
