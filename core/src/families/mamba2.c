/* mamba2.c: Mamba-2 (transformers models/mamba2/modeling_mamba2.py, configuration_mamba2.py).
 * Mamba2Block = RMSNorm(h) + Mamba2Mixer; Mamba2Model: embeddings (v, h), layers, norm_f RMSNorm(h);
 * Mamba2ForCausalLM lm_head Linear(h, v, bias=False), tied when tie_word_embeddings.
 * Mamba2Mixer.__init__ (modeling_mamba2.py at transformers commit 020a37d2, 5.x):
 *   intermediate_size I = int(expand · hidden_size); conv_dim = I + 2·n_groups·state_size
 *   conv1d = Conv1d(conv_dim, conv_dim, kernel conv_kernel, groups=conv_dim, bias=use_conv_bias)
 *     -> conv_dim·K weights (+ conv_dim bias)
 *   in_proj = Linear(h, I + conv_dim + num_heads, bias=use_bias)
 *   dt_bias, A_log, D: Parameter(num_heads) each
 *   norm = MambaRMSNormGated(I): weight (I)
 *   out_proj = Linear(I, h, bias=use_bias)
 * No attention and no KV cache: generation keeps per layer a conv state (b, conv_dim, K) and an SSM
 * state (b, num_heads, head_dim, state_size) (Mamba2Cache / the conv_states and recurrent_states of
 * the cache layers), whatever the sequence length (ssm_state.c).
 * Mamba-Codestral-7B-v0.1: 7,285,403,648 parameters (Mistral AI's release note and model card). */
#include "family.h"

vp_status vp_read_mamba2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    /* Mamba2Config defaults (transformers 5.x): the Mamba-Codestral-7B shapes */
    int64_t h = 4096, L = 64, v = 32768, N = 128, H = 128, P = 64, G = 8, K = 4;
    double expand = 2.0;
    if ((st = vp_json_opt_int(c, p, "hidden_size", 1, VP_MAXDIM, &h, err))) return st;
    if ((st = vp_json_opt_int(c, p, "num_hidden_layers", 1, VP_MAXLAYERS, &L, err))) return st;
    if ((st = vp_json_opt_int(c, p, "vocab_size", 1, VP_MAXVOCAB, &v, err))) return st;
    if ((st = vp_json_opt_int(c, p, "state_size", 1, 65536, &N, err))) return st;
    if ((st = vp_json_opt_int(c, p, "num_heads", 1, VP_MAXDIM, &H, err))) return st;
    if ((st = vp_json_opt_int(c, p, "head_dim", 1, VP_MAXDIM, &P, err))) return st;
    if ((st = vp_json_opt_int(c, p, "n_groups", 1, VP_MAXDIM, &G, err))) return st;
    if ((st = vp_json_opt_int(c, p, "conv_kernel", 1, 1024, &K, err))) return st;
    if ((st = vp_json_opt_num(c, p, "expand", 0.01, 64.0, &expand, err))) return st;
    int tie = 0, bias = 0, conv_bias = 1;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &tie, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "use_bias", &bias, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "use_conv_bias", &conv_bias, err))) return st;
    int64_t I = (int64_t)(expand * (double)h);
    if (I < 1 || I > 64 * VP_MAXDIM || G * N > 64 * VP_MAXDIM) {
        char path[128];
        vp_path_key(path, sizeof path, p, "expand");
        return vp_fail(err, VP_ERR_RANGE, path, "%s × hidden_size (or n_groups × state_size) is out of range", path);
    }
    a->kind = VP_KIND_DECODER;
    a->hidden = h;
    a->layers = L;
    a->vocab = v;
    a->tie = tie;
    a->norm = VP_NORM_RMS;
    a->norms_per_layer = 1;
    /* no attention: heads/head_dim describe the SSM heads so shared code that divides by them stays defined */
    a->heads = H;
    a->kv_heads = H;
    a->head_dim = P;
    a->inter = I;
    a->ssm = 2;
    a->ssm_layers = L;
    a->ssm_inner = I;
    a->ssm_state = N;
    a->ssm_heads = H;
    a->ssm_head_dim = P;
    a->ssm_groups = G;
    a->ssm_conv_kernel = K;
    a->ssm_conv_bias = conv_bias;
    a->ssm_proj_bias = bias;
    return VP_OK;
}

/* One Mamba2Mixer (see the header comment for the modules). */
int64_t vp_mamba2_mixer_params(const vp_arch *a) {
    int64_t h = a->hidden, I = a->ssm_inner, H = a->ssm_heads;
    int64_t conv_dim = I + 2 * a->ssm_groups * a->ssm_state;
    return vp_lin_params(h, I + conv_dim + H, a->ssm_proj_bias)         /* in_proj */
           + conv_dim * a->ssm_conv_kernel + (a->ssm_conv_bias ? conv_dim : 0) /* conv1d */
           + 3 * H                                                         /* dt_bias, A_log, D */
           + I                                                             /* MambaRMSNormGated */
           + vp_lin_params(I, h, a->ssm_proj_bias);                        /* out_proj */
}

void vp_count_mamba2(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, mixer = vp_mamba2_mixer_params(a);
    int64_t conv_dim = a->ssm_inner + 2 * a->ssm_groups * a->ssm_state;
    c->per_layer_attn = mixer; /* the mixer stands where attention would */
    c->per_layer_mlp = 0;
    c->per_layer_norm = h;     /* Mamba2Block.norm */
    c->layers_total = a->layers * (mixer + h);
    c->linear_in_layers = a->layers * (h * (a->ssm_inner + conv_dim + a->ssm_heads) + a->ssm_inner * h);
    c->embed = a->vocab * h;
    c->lm_head = a->tie ? 0 : a->vocab * h;
    c->final_norm = h; /* norm_f */
    c->largest_tensor = a->vocab * h;
    int64_t inw = h * (a->ssm_inner + conv_dim + a->ssm_heads);
    if (inw > c->largest_tensor) c->largest_tensor = inw;
}
