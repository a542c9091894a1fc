/* functional_copy.c: the edited functional model of MEND-style editors (role "functional_copy").
 *
 * MEND (eric-mitchell/mend algs/mend.py MEND.edit; EasyEdit easyeditor/trainer/algs/MEND.py) makes it
 * with `monkeypatch(model, in_place=True)` (EasyEdit easyeditor/trainer/algs/patch.py, a fork of
 * facebookresearch/higher higher/patch.py monkeypatch/_MonkeyPatchBase). With in_place the
 * encapsulator takes `params = [p if device is None else p.to(device) for p in module.parameters()]`:
 * the model's own tensors (copied only when the copy lives on another device), not higher's
 * default get_func_params clone of every parameter. MEND then passes `p + updates[n]` for the edited
 * parameters (config inner_params: the MLP weights of the last 3 blocks, Mitchell et al. 2022 §5) and
 * `p` for all others to update_params. So:
 *  - new tensors: one per edited parameter (its dtype), whatever the device;
 *  - graph: the other parameters are frozen, so autograd records nothing until the first op that
 *    reads an edited weight; every pass through the copy keeps the graph of the edited blocks onward
 *    (and of the head and loss after them) until the editor's loss is backpropagated;
 *  - backward: the gradient of each edited weight accumulates over the passes before it flows into
 *    the update (lr · einsum of the editor's factors). */
#include <stdio.h>

#include "plan.h"
#include "terms.h"
#include "util.h"

vp_status vp_functional_copy_edits(vp_instance *in, const char *path, vp_error *err) {
    if (in->role != VP_ROLE_FUNCTIONAL_COPY) {
        if (in->edited_layers > 0) {
            char p[160];
            snprintf(p, sizeof p, "%s.edited_layers", path);
            return vp_fail(err, VP_ERR_FIELD, p, "%s applies to role \"functional_copy\" only", p);
        }
        in->edited_layers = 0;
        return VP_OK;
    }
    int64_t blocks = in->arch.layers + (in->arch.kind == VP_KIND_T5 ? in->arch.dec_layers : 0);
    if (in->edited_layers < 0) in->edited_layers = blocks < 3 ? blocks : 3; /* MEND's inner_params */
    if (in->edited_layers > blocks) {
        char p[160];
        snprintf(p, sizeof p, "%s.edited_layers", path);
        return vp_fail(err, VP_ERR_RANGE, p, "%s = %lld is more than the model's %lld blocks", p, (long long)in->edited_layers,
                       (long long)blocks);
    }
    return VP_OK;
}

/* Fraction of the blocks whose graph a pass keeps: from the first edited block to the last. */
double vp_functional_copy_graph_frac(const vp_instance *in) {
    if (in->role != VP_ROLE_FUNCTIONAL_COPY || in->edited_layers <= 0) return 1.0;
    int64_t blocks = in->arch.layers + (in->arch.kind == VP_KIND_T5 ? in->arch.dec_layers : 0);
    return blocks > 0 ? (double)in->edited_layers / (double)blocks : 1.0;
}

/* Parameters the edit replaces: the MLP weights of the edited blocks (per_layer_mlp: a dense MLP, or a
 * MoE block's experts and router). */
int64_t vp_functional_copy_edited_params(const vp_instance *in) {
    if (in->role != VP_ROLE_FUNCTIONAL_COPY) return 0;
    return in->edited_layers * in->pc.per_layer_mlp;
}

int64_t vp_functional_copy_edited_bytes(const vp_instance *in) {
    return vp_functional_copy_edited_params(in) * vp_dtype_bytes(vp_param_dtype(in));
}
