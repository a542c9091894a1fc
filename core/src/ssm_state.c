/* ssm_state.c: the recurrent state of Mamba layers during generation.
 * Mamba2 (modeling_mamba2.py, Mamba2Mixer with the cache): per layer a conv state
 * (b, conv_dim, conv_kernel) with conv_dim = I + 2·n_groups·state_size, written by update_conv_state
 * from the padded (b, conv_dim, K) window, and a recurrent state (b, num_heads, head_dim, state_size)
 * updated in place by selective_state_update.
 * Mamba v1 / Jamba (modeling_jamba.py HybridMambaAttentionDynamicCache.__init__): conv_states
 * torch.zeros(b, I, d_conv) and ssm_states torch.zeros(b, I, d_state) per mamba layer, in the cache's
 * dtype (the model dtype); attention layers keep K,V as DynamicCache does.
 * Neither grows with the sequence: it is the same at the prompt's first token and the last. */
#include "ssm.h"

int64_t vp_kv_layers(const vp_arch *a) { return a->ssm ? a->layers - a->ssm_layers : a->layers; }

double vp_ssm_state_bytes_per_seq(const vp_arch *a, int elem) {
    if (!a->ssm || a->ssm_layers <= 0) return 0.0;
    double I = (double)a->ssm_inner, N = (double)a->ssm_state, K = (double)a->ssm_conv_kernel;
    double conv, ssm;
    if (a->ssm == 2) {
        conv = (I + 2.0 * (double)a->ssm_groups * N) * K;
        ssm = (double)a->ssm_heads * (double)a->ssm_head_dim * N;
    } else {
        conv = I * K;
        ssm = I * N;
    }
    return (conv + ssm) * (double)elem * (double)a->ssm_layers;
}

/* One Mamba mixer's temporaries per prompt token in a no_grad prefill (rough: the tensors alive at
 * once in cuda_kernels_forward, not measured). Mamba2: in_proj output zxbcdt (2I + 2GN + H), the
 * causal_conv1d output (conv_dim), the chunked-scan output (I) and the gated RMSNorm's fp32 copy (4 B · I).
 * Mamba v1: in_proj output (2I), conv output (I), x_proj output (R + 2N) and its normed copy (Jamba),
 * dt_proj output (I), the scan output (I). */
double vp_ssm_prefill_temp_per_token(const vp_arch *a, double adt) {
    double I = (double)a->ssm_inner, N = (double)a->ssm_state;
    if (a->ssm == 2) {
        double conv_dim = I + 2.0 * (double)a->ssm_groups * N;
        return adt * (I + conv_dim + (double)a->ssm_heads) + adt * conv_dim + adt * I + 4.0 * I;
    }
    if (a->ssm == 1) return adt * (2.0 * I + I + 2.0 * ((double)a->ssm_dt_rank + 2.0 * N) + I + I);
    return 0.0;
}
