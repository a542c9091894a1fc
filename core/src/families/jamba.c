/* jamba.c: Jamba (transformers models/jamba/modeling_jamba.py, configuration_jamba.py).
 * JambaConfig.layers_block_type: layer i is "attention" when i % attn_layer_period == attn_layer_offset,
 * else "mamba"; layers_num_experts: num_experts when i % expert_layer_period == expert_layer_offset, else 1.
 * JambaAttentionDecoderLayer / JambaMambaDecoderLayer: the mixer, then feed_forward =
 * JambaSparseMoeBlock (router Linear(h, E, bias=False) + E JambaMLP) when the layer has > 1 expert,
 * else one JambaMLP (gate/up/down, no bias); input_layernorm + pre_ff_layernorm RMSNorm(h).
 * JambaAttention: q/k/v/o_proj without bias, head_dim = hidden_size / num_attention_heads.
 * JambaMambaMixer (Mamba v1, I = mamba_expand · h, N = mamba_d_state, R = mamba_dt_rank, "auto" = ceil(h/16)):
 *   in_proj Linear(h, 2I, bias=mamba_proj_bias); conv1d Conv1d(I, I, mamba_d_conv, groups=I,
 *   bias=mamba_conv_bias); x_proj Linear(I, R + 2N, bias=False); dt_proj Linear(R, I, bias=True);
 *   A_log (I, N); D (I); out_proj Linear(I, h, bias=mamba_proj_bias);
 *   dt_layernorm RMSNorm(R), b_layernorm RMSNorm(N), c_layernorm RMSNorm(N) (Jamba only).
 * Generation: HybridMambaAttentionDynamicCache keeps K,V for the attention layers only, and for each
 * mamba layer conv_states (b, I, K) and ssm_states (b, I, N) (ssm_state.c).
 * (JambaMambaMixer.__init__ read at transformers commit 008f5c8c, the stored copy; the module list is the
 * one transformers 5.x keeps.)
 * Jamba-v0.1 / AI21-Jamba-1.5-Mini: 51,570,323,328 parameters (tests/core/test_families_ssm.c). */
#include <math.h>
#include <string.h>

#include "family.h"

vp_status vp_read_jamba(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    vp_decoder_defaults d = {4096, 32, 32, 8, 0, 14336, 65536, 0, 262144}; /* JambaConfig defaults */
    if ((st = vp_read_decoder_defaults(c, p, a, &d, err))) return st;
    if (a->hidden % a->heads != 0) { /* JambaAttention raises the same */
        char path[128];
        vp_path_key(path, sizeof path, p, "num_attention_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "hidden_size must be divisible by %s", path);
    }
    a->head_dim = a->hidden / a->heads; /* JambaAttention */
    a->qkv_bias = a->o_bias = a->mlp_bias = 0;
    int64_t E = 16, k = 2, ep = 2, eo = 1, ap = 8, ao = 4, N = 16, K = 4, expand = 2, R = 0;
    if ((st = vp_json_opt_int(c, p, "num_experts", 1, 4096, &E, err))) return st;
    if ((st = vp_json_opt_int(c, p, "num_experts_per_tok", 1, 4096, &k, err))) return st;
    if ((st = vp_json_opt_int(c, p, "expert_layer_period", 1, VP_MAXLAYERS, &ep, err))) return st;
    if ((st = vp_json_opt_int(c, p, "expert_layer_offset", 0, VP_MAXLAYERS, &eo, err))) return st;
    if ((st = vp_json_opt_int(c, p, "attn_layer_period", 1, VP_MAXLAYERS, &ap, err))) return st;
    if ((st = vp_json_opt_int(c, p, "attn_layer_offset", 0, VP_MAXLAYERS, &ao, err))) return st;
    if ((st = vp_json_opt_int(c, p, "mamba_d_state", 1, 65536, &N, err))) return st;
    if ((st = vp_json_opt_int(c, p, "mamba_d_conv", 1, 1024, &K, err))) return st;
    if ((st = vp_json_opt_int(c, p, "mamba_expand", 1, 64, &expand, err))) return st;
    const cJSON *dr = cJSON_GetObjectItemCaseSensitive(c, "mamba_dt_rank");
    if (!(cJSON_IsString(dr) && dr->valuestring && !strcmp(dr->valuestring, "auto")))
        if ((st = vp_json_opt_int(c, p, "mamba_dt_rank", 1, VP_MAXDIM, &R, err))) return st;
    if (R == 0) R = (a->hidden + 15) / 16; /* math.ceil(hidden_size / 16) */
    if (k > E) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_experts_per_tok");
        return vp_fail(err, VP_ERR_RANGE, path, "%s exceeds the number of experts", path);
    }
    int conv_bias = 1, proj_bias = 0;
    if ((st = vp_json_opt_bool(c, p, "mamba_conv_bias", &conv_bias, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "mamba_proj_bias", &proj_bias, err))) return st;
    int64_t attn = 0, moe = 0;
    for (int64_t i = 0; i < a->layers; i++) {
        if (i % ap == ao) attn++;
        if (i % ep == eo) moe++;
    }
    a->ssm = 1;
    a->ssm_layers = a->layers - attn;
    a->ssm_inner = expand * a->hidden;
    a->ssm_state = N;
    a->ssm_conv_kernel = K;
    a->ssm_dt_rank = R;
    a->ssm_conv_bias = conv_bias;
    a->ssm_proj_bias = proj_bias;
    a->ssm_bcdt_norms = 1;
    if (E > 1 && moe > 0) {
        a->experts = E;
        a->experts_per_tok = k;
        a->expert_inter = a->inter;
        a->moe_layers = moe;
    }
    return VP_OK;
}

/* One Mamba v1 mixer (MambaMixer; JambaMambaMixer adds the dt/B/C RMSNorms). */
int64_t vp_mamba_mixer_params(const vp_arch *a) {
    int64_t h = a->hidden, I = a->ssm_inner, N = a->ssm_state, R = a->ssm_dt_rank;
    return vp_lin_params(h, 2 * I, a->ssm_proj_bias)                       /* in_proj */
           + I * a->ssm_conv_kernel + (a->ssm_conv_bias ? I : 0)            /* conv1d (depthwise) */
           + vp_lin_params(I, R + 2 * N, 0)                                 /* x_proj */
           + vp_lin_params(R, I, 1)                                         /* dt_proj */
           + I * N + I                                                      /* A_log, D */
           + vp_lin_params(I, h, a->ssm_proj_bias)                          /* out_proj */
           + (a->ssm_bcdt_norms ? R + 2 * N : 0);                           /* dt/b/c_layernorm */
}

void vp_count_jamba(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    int64_t attn = vp_lin_params(h, q, 0) + 2 * vp_lin_params(h, kv, 0) + vp_lin_params(q, h, 0);
    int64_t mixer = vp_mamba_mixer_params(a), n_attn = a->layers - a->ssm_layers;
    int64_t dense = vp_mlp_params(a, h, a->inter);
    int64_t n_moe = a->experts ? a->moe_layers : 0;
    int64_t moe = a->experts ? h * a->experts + a->experts * vp_mlp_params(a, h, a->expert_inter) : 0;
    int64_t I = a->ssm_inner, R = a->ssm_dt_rank, N = a->ssm_state;
    int64_t mixer_lin = h * 2 * I + I * (R + 2 * N) + R * I + I * h;
    /* per layer: the mixer most layers hold, and the MoE feed-forward when there is one */
    c->per_layer_attn = mixer > attn ? mixer : attn;
    c->per_layer_mlp = a->experts ? moe : dense;
    c->per_layer_norm = 2 * h;
    c->layers_total = n_attn * attn + a->ssm_layers * mixer + n_moe * moe + (a->layers - n_moe) * dense +
                      a->layers * 2 * h;
    c->linear_in_layers = n_attn * attn + a->ssm_layers * mixer_lin + n_moe * moe + (a->layers - n_moe) * dense;
    c->embed = a->vocab * h;
    c->lm_head = a->tie ? 0 : a->vocab * h;
    c->final_norm = h; /* final_layernorm */
    c->largest_tensor = a->vocab * h;
    if (h * 2 * I > c->largest_tensor) c->largest_tensor = h * 2 * I;
    if (a->inter * h > c->largest_tensor) c->largest_tensor = a->inter * h;
}
