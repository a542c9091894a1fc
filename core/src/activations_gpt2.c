/* activations_gpt2.c: GPT-2 blocks. */
#include <string.h>

#include "activations.h"

/* GPT2Block (transformers models/gpt2/modeling_gpt2.py): LayerNorm, Conv1D c_attn (addmm saves its
 * input), SDPA over views of the c_attn output, c_proj, dropouts (p = 0.1 by default), and the
 * "gelu_new" activation written as Python ops (activations.py NewGELUActivation):
 * 0.5·x·(1 + tanh(√(2/π)(x + 0.044715·x³))) keeps x (pow), tanh's output, 0.5·x and (1 + tanh).
 * Under autocast, pow runs in fp32 (autocast fp32 op list), so those copies are fp32. */
void vp_acts_gpt2(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, s = (double)plan->seq, heads = (double)a->heads;
    const vp_act_dtypes dt = vp_act_dtypes_of(in);
    int amp = dt.amp, full = dt.full;
    double adt = dt.adt, res = dt.res;
    const char *kern = vp_sdpa_kernel(in, adt < 4, 0);
    r->attn_kernel = kern;
    double L = 0, attn_s = 0;
    L += 2.0 * (res * h + 8.0);                  /* ln_1, ln_2 inputs */
    L += full ? 2.0 * (amp ? 2.0 : adt) * h : 0; /* c_attn and c_fc inputs (autocast casts) */
    L += adt * 3.0 * h;                          /* q, k, v: one c_attn output storage */
    if (!strcmp(kern, "eager")) {
        /* matmul(q, kᵀ) scaled, softmax in fp32 under autocast (saved), dropout mask and output */
        attn_s += 4.0 * heads * s;
        if (a->attn_dropout > 0) attn_s += (1.0 + adt) * heads * s;
        else if (adt < 4) attn_s += adt * heads * s;
        L += adt * h; /* c_proj input: contiguous copy of the merged heads */
    } else {
        L += adt * h + 4.0 * heads; /* SDPA output (shared with c_proj input) + logsumexp */
    }
    double drop = a->resid_dropout > 0 ? 1.0 : 0.0;
    L += 2.0 * drop * h;                          /* attention and MLP residual dropout masks */
    if (a->gelu_python) {
        double up = amp ? 4.0 : adt;              /* pow promotes to fp32 under autocast */
        L += up * f /* x (pow) */ + up * f /* tanh out */ + adt * f /* 0.5·x */ + up * f /* 1 + tanh */;
    } else {
        L += adt * f;                             /* gelu input */
    }
    if (full) L += adt * f;                       /* c_proj input (the activation's output) */
    r->layer = L + attn_s;
    r->layer_attn_s = attn_s;
    r->kv_total = 2.0 * adt * h; /* DynamicCache K, V copies (use_cache defaults to True) */
    r->kv_extra = r->kv_total;
    r->ckpt_layer = res * h;
    r->outside = (a->embd_dropout > 0 ? 1.0 * h : 0.0) + res * h + 8.0 + (full ? (amp ? 2.0 : adt) * h : 0);
    r->bwd_temp = 3.0 * adt * f + 2.0 * res * h;
    r->fwd_temp = (amp ? 4.0 : adt) * f + (!strcmp(kern, "eager") ? 4.0 * heads * s : 0.0);
    r->tokens = plan->batch * plan->seq;
    r->layers = a->layers;
}
