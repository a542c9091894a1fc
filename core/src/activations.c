/* activations.c: the tensors autograd saves for backward, per block and per token.
 * Each family is written as the list of tensors its Hugging Face / timm forward keeps, with the
 * op that keeps it. Cross-checked per layer against memory-facts.md §1.4 (measured, Llama layer:
 * 49·sbh full bf16, 72.1·sbh LoRA, 2·sbh with checkpointing) and against the calibration records. */
#include <string.h>

#include "activations.h"

void vp_activations_compute(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    memset(r, 0, sizeof *r);
    if (in->sharded && plan->par.framework == VP_FW_MEGATRON && in->arch.kind == VP_KIND_DECODER) {
        vp_acts_megatron(plan, in, r);
        return;
    }
    switch (in->arch.kind) {
    case VP_KIND_DECODER: vp_acts_decoder(plan, in, r); break;
    case VP_KIND_GPT2: vp_acts_gpt2(plan, in, r); break;
    case VP_KIND_VIT: vp_acts_vit(plan, in, r); break;
    case VP_KIND_T5: vp_acts_t5(plan, in, r); break;
    case VP_KIND_DIT: vp_acts_dit(plan, in, r); break;
    }
}
