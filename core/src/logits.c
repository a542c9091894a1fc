/* logits.c: the output logits and the cross-entropy loss.
 * transformers loss_utils.py ForCausalLMLoss: logits.float() (upcast copy unless already fp32), then
 * cross_entropy = log_softmax (output saved, fp32) + nll_loss. Measured per element of b·s·v in a bf16
 * model (memory-facts.md §5.1): held 6 B (bf16 logits 2 + log-softmax 4), forward peak 10 B (+ the
 * 4 B upcast), backward peak 14 B (+ grad of the log-softmax output 4 + grad of the fp32 logits 4).
 * In an fp32 model .float() aliases: held 8, forward 8, backward 16. */
#include "terms.h"

void vp_logits_compute(const vp_plan *plan, const vp_instance *in, vp_logits *l) {
    const vp_arch *a = &in->arch;
    int64_t rows;
    int64_t width = a->vocab;
    switch (a->kind) {
    case VP_KIND_T5: rows = plan->batch * plan->dec_seq; break;
    case VP_KIND_VIT: rows = plan->batch; width = a->labels; break;
    case VP_KIND_DIT: rows = 0; break;
    default: rows = plan->batch * plan->seq; break;
    }
    int64_t e = rows * width;
    int64_t adt = vp_dtype_bytes(vp_act_dtype(in));
    l->elems = e;
    l->out = adt * e;
    int64_t upcast = adt < 4 ? 4 * e : 0;
    int64_t lsm = 4 * e;
    /* gemma2 final_logit_softcapping: logits = tanh(logits / cap) * cap; tanh saves its output */
    int64_t softcap = a->final_logit_softcap > 0 ? adt * e : 0;
    l->held = l->out + lsm + softcap;
    l->fwd_peak = l->held + upcast;
    l->bwd_peak = l->held + 4 * e + 4 * e; /* grad of log-softmax output + grad of its input (fp32) */
    if (in->sharded && plan->par.framework == VP_FW_MEGATRON) {
        /* vocab-parallel cross-entropy in fp32 computed in place: 4·s·b·v (Korthikanti §4.3) */
        l->out = l->held = l->fwd_peak = l->bwd_peak = 4 * e;
    }
}
