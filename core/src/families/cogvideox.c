/* cogvideox.c: CogVideoX diffusion transformer (diffusers CogVideoXTransformer3DModel,
 * transformer/config.json; no model_type: the preset's family names it). */
#include "family.h"

vp_status vp_read_cogvideox(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_DIT;
    /* diffusers CogVideoXTransformer3DModel config (transformer/config.json) */
    if ((st = vp_json_int(c, p, "num_attention_heads", 1, 65536, &a->heads, err))) return st;
    if ((st = vp_json_int(c, p, "attention_head_dim", 1, 65536, &a->head_dim, err))) return st;
    if ((st = vp_json_int(c, p, "num_layers", 1, VP_MAXLAYERS, &a->layers, err))) return st;
    a->hidden = a->heads * a->head_dim;
    a->kv_heads = a->heads;
    a->inter = 4 * a->hidden; /* FeedForward mult=4 */
    a->in_channels = 16;
    a->out_channels = 16;
    a->patch_size = 2;
    a->text_embed_dim = 4096;
    a->time_embed_dim = 512;
    a->text_tokens = 226;
    a->sample_frames = 49;
    a->sample_height = 60;
    a->sample_width = 90;
    a->temporal_compression = 4;
    if ((st = vp_json_opt_int(c, p, "in_channels", 1, 4096, &a->in_channels, err))) return st;
    if ((st = vp_json_opt_int(c, p, "out_channels", 1, 4096, &a->out_channels, err))) return st;
    if ((st = vp_json_opt_int(c, p, "patch_size", 1, 64, &a->patch_size, err))) return st;
    if ((st = vp_json_opt_int(c, p, "text_embed_dim", 1, VP_MAXDIM, &a->text_embed_dim, err))) return st;
    if ((st = vp_json_opt_int(c, p, "time_embed_dim", 1, VP_MAXDIM, &a->time_embed_dim, err))) return st;
    if ((st = vp_json_opt_int(c, p, "max_text_seq_length", 0, 1000000, &a->text_tokens, err))) return st;
    if ((st = vp_json_opt_int(c, p, "sample_frames", 1, 100000, &a->sample_frames, err))) return st;
    if ((st = vp_json_opt_int(c, p, "sample_height", 1, 100000, &a->sample_height, err))) return st;
    if ((st = vp_json_opt_int(c, p, "sample_width", 1, 100000, &a->sample_width, err))) return st;
    if ((st = vp_json_opt_int(c, p, "temporal_compression_ratio", 1, 64, &a->temporal_compression, err))) return st;
    a->qkv_bias = a->o_bias = a->mlp_bias = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 2;
    a->qk_norm = 1;
    a->vocab = 0;
    return VP_OK;
}

void vp_count_cogvideox(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, t = a->time_embed_dim, p = a->patch_size;
    /* diffusers cogvideox_transformer_3d.py CogVideoXBlock: two CogVideoXLayerNormZero
     * (Linear(t, 6h) + LayerNorm(h)), attention q/k/v/out with bias + LayerNorm(head_dim) on q and k,
     * FeedForward h->4h->h with bias. 132,197,632 per block for CogVideoX-5b (memory-facts §10). */
    int64_t norm_zero = vp_lin_params(t, 6 * h, 1) + 2 * h;
    c->per_layer_attn = 4 * vp_lin_params(h, h, 1) + 4 * a->head_dim;
    c->per_layer_mlp = vp_mlp_params(a, h, a->inter);
    c->per_layer_norm = 2 * norm_zero;
    c->layers_total = a->layers * (c->per_layer_attn + c->per_layer_mlp + c->per_layer_norm);
    /* patch_embed Conv2d(in, h, p) + text_proj Linear(text_embed, h); time_embedding h->t->t;
     * norm_final LayerNorm(h); norm_out Linear(t, 2h) + LayerNorm(h); proj_out Linear(h, p²·out) */
    c->embed = a->in_channels * p * p * h + h + vp_lin_params(a->text_embed_dim, h, 1);
    c->other = vp_lin_params(h, t, 1) + vp_lin_params(t, t, 1) + vp_lin_params(t, 2 * h, 1) + 2 * h + vp_lin_params(h, p * p * a->out_channels, 1);
    c->final_norm = 2 * h;
    c->linear_in_layers = a->layers * (4 * vp_lin_params(h, h, 1) + c->per_layer_mlp + 2 * vp_lin_params(t, 6 * h, 1));
    c->largest_tensor = h * a->inter;
}
