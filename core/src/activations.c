/* activations.c: the tensors autograd saves for backward, per block and per token.
 * Each family is written as the list of tensors its Hugging Face / timm forward keeps, with the
 * op that keeps it. Cross-checked per layer against memory-facts.md §1.4 (measured, Llama layer:
 * 49·sbh full bf16, 72.1·sbh LoRA, 2·sbh with checkpointing) and against the calibration records. */
#include <string.h>

#include "activations.h"
#include "vlm_images.h"

void vp_activations_compute(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    memset(r, 0, sizeof *r);
    if (in->sharded && plan->par.framework == VP_FW_MEGATRON && in->arch.kind == VP_KIND_DECODER) {
        vp_acts_megatron(plan, in, r);
        return;
    }
    switch (in->arch.kind) {
    case VP_KIND_DECODER:
        if (in->arch.ssm) vp_acts_ssm(plan, in, r); /* mamba2, jamba (activations_ssm.c) */
        else vp_acts_decoder(plan, in, r);
        break;
    case VP_KIND_GPT2: vp_acts_gpt2(plan, in, r); break;
    case VP_KIND_VIT: vp_acts_vit(plan, in, r); break;
    case VP_KIND_T5: vp_acts_t5(plan, in, r); break;
    case VP_KIND_DIT: vp_acts_dit(plan, in, r); break;
    }
    if (in->role == VP_ROLE_FUNCTIONAL_COPY && in->edited_layers > 0 && in->arch.kind != VP_KIND_T5) {
        /* the kept blocks are the edited ones (functional_copy.c): their MLP weights are p + update, so the
         * MLP linears also save their inputs for the weight gradient, which the frozen accounting leaves
         * out: the normed input (cast once per linear under autocast) and down_proj's input */
        const vp_act_dtypes dt = vp_act_dtypes_of(in);
        const vp_arch *a = &in->arch;
        double h = (double)a->hidden, f = (double)a->inter;
        int gated = a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU;
        double in_b = dt.amp ? 2.0 * h * (gated && !a->fused_gate_up ? 2.0 : 1.0) : dt.adt * h;
        r->layer += vp_act_item(r, in_b, 1) + vp_act_item(r, dt.adt * f, 1);
    }
    vp_acts_vision(plan, in, r); /* a VLM's vision tower over workload.images (vlm_images.c); no-op without images */
}
