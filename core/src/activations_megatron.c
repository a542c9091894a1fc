/* activations_megatron.c: Megatron-LM's accounting (Korthikanti et al. 2022) for framework "megatron". */
#include <string.h>

#include "activations.h"

/* Megatron-LM (Korthikanti et al. 2022, Table 2; megatron/training/theoretical_memory_usage.py):
 * 16-bit activations with dropout masks. Per block, per token: replicated 10h (LayerNorm inputs 4h,
 * QKV and MLP inputs 2h each, two dropout masks), split by TP 8h (Q, K, V, out-proj input) + 4f
 * (GeLU input and fc2 input), and 5·a·s for the attention scores unless selective recomputation
 * drops them; sequence parallelism splits the replicated part too. */
void vp_acts_megatron(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double h = (double)a->hidden, f = (double)a->inter, s = (double)plan->seq, heads = (double)a->heads;
    const vp_parallel *p = &plan->par;
    r->megatron = 1;
    r->attn_kernel = p->selective_recompute ? "recomputed (selective)" : "core attention saved";
    r->layer_repl = 10.0 * h;
    r->layer_attn_s = p->selective_recompute ? 0.0 : 5.0 * heads * s;
    r->layer = 10.0 * h + 8.0 * h + 4.0 * f + r->layer_attn_s;
    r->ckpt_layer = 2.0 * h;
    /* input to the embedding (8 B/token) and the embedding dropout mask */
    r->outside = 8.0 + h;
    r->bwd_temp = 0;
    r->fwd_temp = 0;
    r->tokens = plan->batch * plan->seq;
    r->layers = a->layers;
}
