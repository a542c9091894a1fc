/* mamba.c: Mamba v1 (transformers models/mamba/modeling_mamba.py, configuration_mamba.py).
 * MambaConfig: intermediate_size = int(expand · hidden_size); time_step_rank "auto" = ceil(hidden_size / 16);
 * defaults vocab 50280, hidden 768, state 16, 32 layers, conv_kernel 4, expand 2, use_bias False,
 * use_conv_bias True, tie_word_embeddings True.
 * MambaBlock = norm MambaRMSNorm(h) + MambaMixer: in_proj Linear(h, 2I, bias=use_bias); conv1d
 * Conv1d(I, I, conv_kernel, groups=I, bias=use_conv_bias); x_proj Linear(I, R + 2N, bias=False);
 * dt_proj Linear(R, I, bias=True); A_log (I, N); D (I); out_proj Linear(I, h, bias=use_bias)
 * (the same mixer as Jamba's without its dt/B/C norms: families/jamba.c vp_mamba_mixer_params).
 * MambaModel: embeddings (v, h), norm_f (h); MambaForCausalLM lm_head tied by default.
 * Generation: MambaCache conv_states (b, I, K) and ssm_states (b, I, N) per layer (ssm_state.c). */
#include <string.h>

#include "family.h"

vp_status vp_read_mamba(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    int64_t h = 768, L = 32, v = 50280, N = 16, K = 4, R = 0;
    double expand = 2.0;
    if ((st = vp_json_opt_int(c, p, "hidden_size", 1, VP_MAXDIM, &h, err))) return st;
    if ((st = vp_json_opt_int(c, p, "num_hidden_layers", 1, VP_MAXLAYERS, &L, err))) return st;
    if ((st = vp_json_opt_int(c, p, "vocab_size", 1, VP_MAXVOCAB, &v, err))) return st;
    if ((st = vp_json_opt_int(c, p, "state_size", 1, 65536, &N, err))) return st;
    if ((st = vp_json_opt_int(c, p, "conv_kernel", 1, 1024, &K, err))) return st;
    if ((st = vp_json_opt_num(c, p, "expand", 0.01, 64.0, &expand, err))) return st;
    const cJSON *dr = cJSON_GetObjectItemCaseSensitive(c, "time_step_rank");
    if (!(cJSON_IsString(dr) && dr->valuestring && !strcmp(dr->valuestring, "auto")))
        if ((st = vp_json_opt_int(c, p, "time_step_rank", 1, VP_MAXDIM, &R, err))) return st;
    if (R == 0) R = (h + 15) / 16;
    int tie = 1, bias = 0, conv_bias = 1;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &tie, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "use_bias", &bias, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "use_conv_bias", &conv_bias, err))) return st;
    int64_t I = (int64_t)(expand * (double)h);
    if (I < 1) {
        char path[128];
        vp_path_key(path, sizeof path, p, "expand");
        return vp_fail(err, VP_ERR_RANGE, path, "%s × hidden_size is below 1", path);
    }
    a->kind = VP_KIND_DECODER;
    a->hidden = h;
    a->layers = L;
    a->vocab = v;
    a->tie = tie;
    a->norm = VP_NORM_RMS;
    a->norms_per_layer = 1;
    a->heads = a->kv_heads = 1; /* no attention; keeps shared code's divisions defined */
    a->head_dim = h;
    a->inter = I;
    a->ssm = 1;
    a->ssm_layers = L;
    a->ssm_inner = I;
    a->ssm_state = N;
    a->ssm_conv_kernel = K;
    a->ssm_dt_rank = R;
    a->ssm_conv_bias = conv_bias;
    a->ssm_proj_bias = bias;
    return VP_OK;
}

void vp_count_mamba(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden, I = a->ssm_inner, R = a->ssm_dt_rank, N = a->ssm_state;
    int64_t mixer = vp_mamba_mixer_params(a);
    c->per_layer_attn = mixer;
    c->per_layer_norm = h;
    c->layers_total = a->layers * (mixer + h);
    c->linear_in_layers = a->layers * (h * 2 * I + I * (R + 2 * N) + R * I + I * h);
    c->embed = a->vocab * h;
    c->lm_head = a->tie ? 0 : a->vocab * h;
    c->final_norm = h;
    c->largest_tensor = a->vocab * h > h * 2 * I ? a->vocab * h : h * 2 * I;
}
