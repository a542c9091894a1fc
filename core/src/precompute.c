/* precompute.c: diffusion training that precomputes its conditions and latents first
 * (workload.diffusion.precompute), as finetrainers runs it (trainer.py prepare_precomputations, commit 2da8cb5
 * of 21 Dec 2024 to e5df80c of 13 Jan 2025):
 *   1. load_condition_models() -> the text encoders, moved to the GPU; one forward per caption;
 *      _delete_components() sets self.text_encoder = None and calls free_memory() (gc.collect(),
 *      torch.cuda.empty_cache()), but the local dict condition_components still holds the encoders, so only
 *      their forward's temporaries are released;
 *   2. load_latent_models() -> the VAE, moved to the GPU (the encoders still held); vae.encode() per video;
 *      _delete_components() again: the encode's temporaries are released, the weights stay;
 *   3. the function returns: its locals go, and with them the encoders and the VAE, freed into the
 *      allocator's cache with no empty_cache after them;
 *   4. prepare_trainable_parameters() loads the transformer, whose weights reuse what fits of those cached
 *      segments, and training runs beside the rest of them.
 * finetrainers' LTX-Video LoRA log at 2da8cb5 shows each step: "after precomputing conditions" 8.880 GiB
 * allocated (T5-XXL), "after precomputing latents" 9.684 allocated / 9.807 reserved, "before training start"
 * 3.809 allocated (the transformer and its LoRA) / 10.010 reserved, "after epoch 1" 10.916 reserved.
 * The text encoder and VAE instances of the plan are the precomputed components: they are absent during the
 * training steps. */
#include <stdlib.h>
#include <string.h>

#include "alloc_events.h"
#include "diffusers.h"
#include "timeline.h"

static int precomputed(const vp_inst_calc *c) {
    int dc = c->in->arch.dclass;
    return VP_DC_IS_TEXT(dc) || VP_DC_IS_VAE(dc);
}

int vp_precompute_on(const vp_plan *plan) { return plan->mode == VP_MODE_TRAIN && plan->diff.precompute; }

vp_inst_calc *vp_precompute_training(const vp_plan *plan, const vp_inst_calc *cs, int *n) {
    if (!vp_precompute_on(plan)) return NULL;
    vp_inst_calc *t = malloc((size_t)(*n > 0 ? *n : 1) * sizeof *t);
    if (!t) return NULL;
    int k = 0;
    for (int i = 0; i < *n; i++)
        if (!precomputed(&cs[i])) t[k++] = cs[i];
    *n = k;
    return t;
}

/* bytes of one no-grad forward: one block at a time for a text encoder (timeline_train.c nograd_forward), the
 * encode peak and the input video for a VAE (activations_dit.c: fwd_temp = encode peak + video, tokens 1) */
static int64_t forward_bytes(const vp_inst_calc *c) {
    return (int64_t)((double)c->a.tokens * (vp_block_bytes(c, 1) + c->a.fwd_temp / c->act_div_shard));
}

void vp_timeline_precompute(const vp_plan *plan, const vp_inst_calc *cs, int n, vp_sink *out) {
    vp_owner dev = {"", ""};
    for (int stage = 0; stage < 2; stage++)
        for (int i = 0; i < n; i++) {
            const vp_inst_calc *c = &cs[i];
            int dc = c->in->arch.dclass;
            if (stage == 0 ? !VP_DC_IS_TEXT(dc) : !VP_DC_IS_VAE(dc)) continue;
            vp_moment *m = &out->work[0];
            vp_moment_init(m, stage == 0 ? "precompute_conditions" : "precompute_latents");
            m->quiet = plan->quiet;
            /* the encoders stay held through the latents stage (condition_components) */
            for (int j = 0; j < n; j++) {
                int dj = cs[j].in->arch.dclass;
                if (VP_DC_IS_TEXT(dj) || (stage == 1 && VP_DC_IS_VAE(dj))) vp_add_resident(m, &cs[j], 0);
            }
            vp_moment_add(m, &dev, "cublas_workspace", "cuBLAS workspace", vp_cublas_workspace_bytes(),
                          "32 MiB allocated by the first GEMM through PyTorch's allocator (measured, H100/PyTorch 2.11)");
            vp_moment_add(m, &c->owner, "activations", stage == 0 ? "Precompute: text encoder forward" : "Precompute: VAE encode",
                          forward_bytes(c), stage == 0 ? "one caption, one block at a time under no_grad"
                                                       : "one video through the encoder's conv stack, and the video itself");
            /* the stage must fit as the training does: finetrainers logs its peaks and resets them
             * (reset_peak_memory_stats) before training, but an out-of-memory error here ends the job all the same, so
             * the estimate's peak is the whole job's (a stage above the training step names it) */
            vp_sink_push(out, m);
        }
}

/* a burst of temporaries of `total` bytes in tensors of at most `one` bytes, allocated then freed */
static void burst(vp_events *e, double total, double one) {
    if (total <= 0) return;
    if (one <= 0 || one > total) one = total;
    int32_t id[17];
    int k = 0;
    while (total >= one && k < 16) id[k++] = vp_ev_alloc(e, (int64_t)one), total -= one;
    if (total >= 512.0) id[k++] = vp_ev_alloc(e, (int64_t)total);
    for (int i = k - 1; i >= 0; i--) vp_ev_free(e, id[i]);
}

void vp_events_precompute(const vp_plan *plan, const vp_inst_calc *cs, int n, vp_events *e) {
    vp_tensors held = {0};
    const vp_arch *dit = NULL;
    for (int i = 0; i < n; i++)
        if (VP_DC_IS_DIT(cs[i].in->arch.dclass)) dit = &cs[i].in->arch;
    /* the stages count toward the peaks (the replay resets them when loading ends: reserved.c) */
    e->phase = VP_PH_PREFILL;
    for (int stage = 0; stage < 2; stage++) {
        int ran = 0;
        for (int i = 0; i < n; i++) {
            const vp_inst_calc *c = &cs[i];
            const vp_arch *a = &c->in->arch;
            if (stage == 0 ? !VP_DC_IS_TEXT(a->dclass) : !VP_DC_IS_VAE(a->dclass)) continue;
            vp_ev_component_weights(c, e, &held); /* _move_components_to_device(): .to(device), tensor by tensor */
            ran = 1;
        }
        for (int i = 0; i < n; i++) {
            const vp_inst_calc *c = &cs[i];
            const vp_arch *a = &c->in->arch;
            if (stage == 0 ? !VP_DC_IS_TEXT(a->dclass) : !VP_DC_IS_VAE(a->dclass)) continue;
            double adt = (double)vp_dtype_bytes(vp_act_dtype(c->in));
            if (stage == 0) {
                /* hidden-width tensors of one block at a time */
                burst(e, (double)forward_bytes(c), (double)c->a.tokens * (double)a->hidden * adt);
                continue;
            }
            int64_t f = 1, h = 512, w = 512;
            if (dit) vp_diffusion_size(plan, dit, &f, &h, &w);
            vp_vae_peak pk;
            vp_vae_encode_peak(a, plan->batch, f, h, w, adt, plan->diff.vae_tiling, plan->diff.vae_slicing, &pk);
            int32_t video = vp_ev_alloc(e, (int64_t)pk.out_bytes); /* the video moved to the GPU by prepare_latents */
            /* up to VP_EV_DECODE_CALLS encoder calls (Wan: the first frame, then 4 per call), as the decodes */
            int wan = a->dclass == VP_DC_VAE_WAN && !a->d.vae_residual && 1 + (f - 1) / 4 <= VP_EV_DECODE_CALLS;
            int kl = a->dclass == VP_DC_VAE_KL;
            if ((wan || kl) && pk.tile_h == h && pk.tile_w == w) {
                /* the Wan 2.1 and AutoencoderKL encodes op by op (events_vae_wan.c, events_vae_kl.c), one video at a
                 * time under enable_slicing */
                int64_t nb = plan->diff.vae_slicing ? plan->batch : 1, bb = plan->diff.vae_slicing ? 1 : plan->batch;
                for (int64_t k = 0; k < nb && k < 64; k++)
                    vp_ev_free(e, wan ? vp_ev_wan21_encode(e, a, bb, f, h, w, adt) : vp_ev_kl_encode(e, a, bb, h, w, adt));
            } else {
                double one = (double)a->d.ch[0] * (double)pk.chunk_frames * (double)pk.tile_h * (double)pk.tile_w * adt;
                burst(e, pk.bytes, pk.tensor_bytes > 0 ? pk.tensor_bytes : one); /* vae_ltx.c / vae_mochi.c give theirs */
            }
            vp_ev_free(e, video);
        }
        /* _delete_components(): free_memory() empties the cache while the components are still held */
        if (ran) vp_ev_empty_cache(e);
    }
    /* prepare_precomputations returns: the encoders and the VAE are freed, their segments stay cached */
    vp_tensors_release(&held, e);
    vp_tensors_dispose(&held);
}
