/* activations_moe.c: what a routed MoE block of transformers 5.17 saves for backward, per token.
 *
 * Which code runs: MixtralExperts / Qwen2MoeExperts hold each layer's experts as two stacked 3-D
 * parameters (gate_up_proj [E, 2f, h], down_proj [E, h, f]) and carry @use_experts_implementation
 * (integrations/moe.py). PreTrainedModel.get_correct_experts_implementation (modeling_utils.py) picks
 * "grouped_mm" when none is requested, so training runs grouped_mm_experts_forward (integrations/moe.py),
 * not the per-expert loop of the class's own forward. Per routed (token, expert) pair, S = k·T rows:
 *   token_idx = arange(T).repeat_interleave(k)            int64 (S), saved by hidden_states[token_idx]
 *   selected = hidden_states[token_idx]                    (S, h), alive to the end of the call
 *   perm = argsort(expert_ids); inv_perm                   int64 (S) each, saved by the index backwards
 *   selected_g = selected[perm]                            (S, h), saved by the first grouped_mm
 *   _grouped_mm(input.to(weight.dtype), weight, offs)     "grouped_mm is not autocast-enabled": with fp32
 *                                                          master weights the experts run in fp32
 *   gate_up_out (S, 2f) -> chunk -> act_fn(gate) * up      gate_up_out kept (act saves the gate view, the
 *                                                          product the up view), act output (S, f)
 *   gated (S, f)                                           saved by the second grouped_mm (down_proj)
 *   out_g * sample_weights_g                               out_g (S, h) and the weights (S) saved
 *   out = out_g[inv_perm]; view(T, k, h).sum(1)            transient
 * Router (MixtralTopKRouter): F.linear (autocast casts its input, saved), softmax(router_logits.float())
 * saved in fp32 (T, E), topk keeps its int64 indices (T, k), the division by the top-k sum keeps the
 * top-k values and the sum. */
#include "activations.h"

double vp_moe_acts(vp_acts *r, const vp_arch *a, double w, int full) {
    double E = (double)a->experts, k = (double)a->experts_per_tok, h = (double)a->hidden;
    double fe = (double)a->expert_inter;
    int gated = a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU;
    double L = 0;
    /* router: fp32 softmax output, int64 top-k indices, top-k values and their sum (fp32) */
    L += vp_act_item(r, 4.0 * E, 1) + vp_act_item(r, 8.0 * k, 1) + vp_act_item(r, 4.0 * k + 4.0, 1);
    /* int64 token_idx, perm, inv_perm kept by the three index backwards */
    L += vp_act_item(r, 8.0 * k, 3);
    /* the expert-sorted input, saved for the stacked weight's gradient (only when it trains) */
    if (full) L += vp_act_item(r, w * h * k, 1);
    if (gated) {
        L += vp_act_item(r, 2.0 * w * fe * k, 1); /* gate_up_out, kept through its gate and up views */
        L += vp_act_item(r, w * fe * k, 1);       /* act(gate) */
        if (full) L += vp_act_item(r, w * fe * k, 1); /* act(gate) * up = down_proj's input */
    } else {
        L += vp_act_item(r, w * fe * k, 1);
        if (full) L += vp_act_item(r, w * fe * k, 1);
    }
    /* the routing multiply: the down output and the per-pair weights */
    L += vp_act_item(r, w * h * k, 1) + vp_act_item(r, 4.0 * k, 1);
    return L;
}
