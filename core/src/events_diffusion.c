/* events_diffusion.c: a diffusers pipeline call as the caching allocator sees it (timeline_diffusion.c
 * gives the same phases as moments): each component's weight tensors, allocated at load (no offload) or
 * when its forward starts and freed when the next component's hook moves it back to the CPU
 * (enable_model_cpu_offload), or the running module's weights only (enable_sequential_cpu_offload); each
 * phase's temporaries tensor by tensor. The replay (alloc_sim.c) then keeps the freed segments of an
 * earlier component cached: the transformer's weights reuse what fits of the text encoder's blocks, and the
 * rest is new memory — what nvidia-smi shows under model offload. */
#include <string.h>

#include "alloc_events.h"
#include "diffusers.h"

/* The weight tensors of one component, as the modeling files build them (the matmul weights of each block,
 * the remainder of the block as one tensor, embeddings / the rest as one tensor each). */
void vp_ev_component_weights(const vp_inst_calc *c, vp_events *e, vp_tensors *t) {
    const vp_arch *a = &c->in->arch;
    double b = (double)vp_dtype_bytes(vp_param_dtype(c->in));
    int64_t h = a->hidden, f = a->inter;
    int64_t sizes[16];
    int n = 0, wo = -1; /* wo: the index of T5's FFN output Linear among sizes */
    int64_t blocks = a->layers + a->d.blocks2;
    if (VP_DC_IS_DIT(a->dclass)) {
        int dual = a->dclass == VP_DC_FLUX || a->dclass == VP_DC_HUNYUAN || a->dclass == VP_DC_SD3 || a->dclass == VP_DC_MOCHI;
        int attn = 4 * (a->d.attn_per_block > 1 || dual ? 2 : 1);
        for (int i = 0; i < attn && n < 10; i++) sizes[n++] = h * h;
        sizes[n++] = h * f;
        sizes[n++] = f * h;
        if (dual && a->dclass != VP_DC_MOCHI) sizes[n++] = h * f, sizes[n++] = f * h;
    } else if (a->dclass == VP_DC_T5_ENC || a->dclass == VP_DC_UMT5_ENC || a->dclass == VP_DC_CLIP_TEXT ||
               a->dclass == VP_DC_CLIP_VISION) {
        int64_t inner = a->heads * a->head_dim;
        for (int i = 0; i < 4; i++) sizes[n++] = h * inner;
        sizes[n++] = h * f;
        if (a->mlp == VP_MLP_GEGLU) sizes[n++] = h * f;
        wo = n;
        sizes[n++] = f * h;
    } else if (a->dclass == VP_DC_LLAMA_ENC) {
        int64_t q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
        sizes[n++] = h * q, sizes[n++] = h * kv, sizes[n++] = h * kv, sizes[n++] = q * h;
        sizes[n++] = h * f, sizes[n++] = h * f, sizes[n++] = f * h;
    } else { /* VAE: its conv weights, a level at a time */
        blocks = a->d.levels > 0 ? 2 * a->d.levels : 1;
    }
    int64_t per = blocks > 0 ? a->d.blocks_total / blocks : 0;
    if (VP_DC_IS_VAE(a->dclass)) per = a->d.params / blocks;
    int64_t listed = 0;
    for (int i = 0; i < n; i++) listed += sizes[i];
    if (listed > per) n = 0, listed = 0; /* shapes that do not add up: one tensor per block */
    /* T5's wo stays fp32 when transformers loads the encoder in float16 (_keep_in_fp32_modules, weights.c) */
    double wo_b = c->w.fp32_keep_params > 0 ? 4.0 : b;
    /* layerwise casting (weights.c VP_QUANT_FP8): the blocks' linears stored in float8, 1 B */
    double lin_b = c->in->quant == VP_QUANT_FP8 ? 1.0 : b;
    for (int64_t k = 0; k < blocks; k++) {
        for (int i = 0; i < n; i++) vp_tensors_push(t, e, vp_ev_alloc(e, (int64_t)((double)sizes[i] * (i == wo ? wo_b : lin_b))));
        if (per > listed) vp_tensors_push(t, e, vp_ev_alloc(e, (int64_t)((double)(per - listed) * b)));
    }
    int64_t rest = a->d.params - per * blocks;
    if (!VP_DC_IS_VAE(a->dclass)) {
        if (a->d.embed > 0 && a->d.embed <= rest) vp_tensors_push(t, e, vp_ev_alloc(e, (int64_t)((double)a->d.embed * b))), rest -= a->d.embed;
        if (rest > 0) vp_tensors_push(t, e, vp_ev_alloc(e, (int64_t)((double)rest * b)));
    }
}

/* one tensor of each listed size, then all freed (one block's or one conv level's temporaries) */
static void burst(vp_events *e, const double *sz, int n) {
    int32_t id[16];
    for (int i = 0; i < n; i++) id[i] = vp_ev_alloc(e, (int64_t)sz[i]);
    for (int i = n - 1; i >= 0; i--) vp_ev_free(e, id[i]);
}

/* enable_slicing's decode (autoencoder_kl_cogvideox.py / autoencoder_kl_wan.py `decode`): the decoded slices, then
 * torch.cat of them (the batch's video) while the list still holds them; freed at the phase's end */
static void sliced_videos(vp_events *e, vp_tensors *vids, int64_t batch, int64_t frames, int64_t h, int64_t w, double adt) {
    int32_t cat = vids->n > 1 ? vp_ev_alloc_bytes(e, 3.0 * (double)batch * (double)frames * (double)h * (double)w * adt) : -1;
    for (int32_t k = vids->n - 1; k >= 0; k--) vp_ev_free(e, vids->id[k]); /* the list, from its end */
    vids->n = 0;
    vp_ev_free(e, cat);
    vp_tensors_dispose(vids);
}

/* The decodes replayed op by op: today's CogVideoX (events_vae_cogvideox.c), Wan 2.1 (events_vae_wan.c) and the 2-D
 * AutoencoderKL (events_vae_kl.c), up to VP_EV_DECODE_CALLS decoder calls; enable_slicing decodes one video at a time.
 * 0: the decode keeps the pieces. */
static int op_decode(const vp_plan *plan, const vp_arch *a, int64_t f, int64_t hh, int64_t ww, double adt, vp_events *e) {
    int tiling = plan->diff.vae_tiling;
    int cog = a->dclass == VP_DC_VAE_COGVIDEOX && plan->diff.diffusers != VP_DIFFUSERS_0_30 &&
              vp_ev_cogvideox_decode_calls(a, f, hh, ww, tiling) <= VP_EV_DECODE_CALLS;
    int wan = a->dclass == VP_DC_VAE_WAN && !a->d.vae_residual && vp_ev_wan21_decode_calls(a, f, hh, ww, tiling) <= VP_EV_DECODE_CALLS;
    int kl = a->dclass == VP_DC_VAE_KL && vp_ev_kl_decode_calls(a, hh, ww, tiling) <= VP_EV_DECODE_CALLS;
    if (!cog && !wan && !kl) return 0;
    int64_t nb = plan->diff.vae_slicing ? plan->batch : 1, bb = plan->diff.vae_slicing ? 1 : plan->batch;
    vp_tensors vids = {0};
    for (int64_t k = 0; k < nb && k < 64; k++)
        vp_tensors_push(&vids, e, cog ? vp_ev_cogvideox_decode(e, a, bb, f, hh, ww, adt, tiling)
                                  : wan ? vp_ev_wan21_decode(e, a, bb, f, hh, ww, adt, tiling)
                                        : vp_ev_kl_decode(e, a, bb, hh, ww, adt, tiling));
    sliced_videos(e, &vids, plan->batch, f, hh, ww, adt);
    return 1;
}

static void phase(const vp_plan *plan, const vp_inst_calc *c, vp_events *e) {
    const vp_arch *a = &c->in->arch;
    double adt = (double)vp_dtype_bytes(vp_act_dtype(c->in));
    if (VP_DC_IS_TEXT(a->dclass)) {
        double T = (double)c->a.tokens, h = (double)a->hidden, f = (double)a->inter;
        double sz[] = {T * h * adt, T * h * adt, T * h * adt, T * h * adt, T * f * adt, T * f * adt, T * f * adt};
        for (int k = 0; k < 2; k++) burst(e, sz, 7);
    } else if (VP_DC_IS_DIT(a->dclass) || !a->dclass) {
        double T = c->a.tokens > 0 ? (double)c->a.tokens / (double)plan->batch : 0;
        double BT = (double)vp_dit_cfg_batch(a, plan->batch, plan->diff.cfg) * T, h = (double)a->hidden, f = (double)a->inter;
        if (plan->diff.code == VP_DIFF_CODE_OFFICIAL && a->dclass == VP_DC_HUNYUAN) { /* HunyuanVideo's own blocks, op by op (events_hunyuan.c) */
            double S = (double)vp_dit_cfg_batch(a, plan->batch, plan->diff.cfg) * (double)a->d.text_len;
            for (int k = 0; k < 2; k++) vp_ev_hunyuan_official_step(e, a, BT - S, S);
            return;
        }
        if (a->dclass == VP_DC_COGVIDEOX && a->d.patch_t == 1 && a->d.joint && a->heads > 0 && a->patch_size > 0 &&
            vp_dtype_bytes(vp_act_dtype(c->in)) == 2 && vp_dtype_bytes(vp_param_dtype(c->in)) == 2 &&
            c->in->quant == VP_QUANT_NONE && T > (double)a->d.text_len && c->in->group_offload == VP_GROUP_OFFLOAD_NONE &&
            plan->diff.offload != VP_DIFF_OFFLOAD_SEQUENTIAL) {
            /* CogVideoX 1.0 in 16 bits with its weights resident: each step's transformer forward op by op
             * (events_cogvideox.c). Under sequential or group offloading the step keeps the pieces below: with the
             * program there (and each Linear's weight streamed around its forward, as accelerate's AlignDevicesHook
             * does) the H100's sequential pipeline went from +5.7% to +10.5% reserved (docs/diffusion.md, vaeops) */
            double cb = (double)vp_dit_cfg_batch(a, plan->batch, plan->diff.cfg), tt = cb * (double)a->d.text_len;
            vp_cog_dims d = {BT - tt, tt, (double)a->hidden, (double)a->inter, (double)a->heads, 0,
                             (double)(a->patch_size * a->patch_size * a->out_channels), a->d.rotary};
            for (int k = 0; k < 2; k++) vp_ev_cog_transformer_infer(e, &d, a->layers);
            return;
        }
        /* diffusers 0.32 HunyuanVideo: the (B, N, N) bool mask for the whole call, and the additive bias SDPA makes
         * of it in each block beside q, k, v (timeline_diffusion.c) */
        double dm = vp_dit_dense_mask_per_token(plan, a);
        int32_t mask = dm > 0 ? vp_ev_alloc(e, (int64_t)(BT * dm)) : -1;
        /* a bitsandbytes 8-bit transformer's int8 matmul temporaries (timeline_diffusion.c) */
        double q8 = c->in->quant == VP_QUANT_INT8 ? BT * vp_dit_int8_matmul_per_token(a) : 0;
        double sz[] = {BT * h * adt, BT * h * adt, BT * h * adt, BT * h * adt, dm > 0 ? BT * dm * adt : 0, BT * h * adt,
                       BT * h * adt, BT * f * adt, BT * f * adt, a->d.blocks2 > 0 ? BT * (h + f) * adt : 0, q8};
        for (int k = 0; k < 2; k++) burst(e, sz, 11);
        vp_ev_free(e, mask);
    } else {
        int64_t f, hh, ww;
        vp_pipeline_size(plan, &f, &hh, &ww);
        if (op_decode(plan, a, f, hh, ww, adt, e)) return;
        vp_vae_peak pk;
        vp_vae_decode_peak(a, plan->batch, f, hh, ww, adt, plan->diff.vae_tiling, plan->diff.vae_slicing, plan->diff.diffusers, &pk);
        /* the decode's tensors: full-resolution feature maps of the widest channel count at that level */
        int64_t ch = a->d.ch[a->d.levels > 1 ? 1 : 0];
        double one = (double)ch * (double)pk.chunk_frames * (double)pk.tile_h * (double)pk.tile_w * adt;
        if (pk.tensor_bytes > 0) one = pk.tensor_bytes; /* the class gives its feature map (vae_ltx.c, vae_mochi.c) */
        int32_t out = vp_ev_alloc(e, (int64_t)(pk.out_bytes / 2.0));
        if (one > 0) {
            int k = (int)(pk.bytes / one);
            if (k > 15) k = 15;
            double sz[16];
            for (int i = 0; i < k; i++) sz[i] = one;
            sz[k] = pk.bytes - one * k;
            burst(e, sz, k + 1);
        }
        vp_ev_free(e, out);
    }
}

/* The transformer's autocast cache (timeline_diffusion.c, vp_dit_autocast_cache_bytes): allocated as its first
 * step's Linears cast their weights (one copy per block, then the rest), kept to the end of the call. */
static void alloc_casts(const vp_inst_calc *c, vp_events *e, vp_tensors *casts) {
    const vp_arch *a = &c->in->arch;
    double cc = vp_dit_autocast_cache_bytes(c->in);
    if (cc <= 0 || casts->n > 0) return;
    int64_t blocks = a->layers + a->d.blocks2;
    double per = blocks > 0 ? 2.0 * (double)a->d.blocks_total / (double)blocks : 0;
    for (int64_t k = 0; k < blocks; k++) vp_tensors_push(casts, e, vp_ev_alloc(e, (int64_t)per));
    if (cc > per * (double)blocks) vp_tensors_push(casts, e, vp_ev_alloc(e, (int64_t)(cc - per * (double)blocks)));
}

void vp_events_diffusion(const vp_plan *plan, const vp_inst_calc *cs, int n, vp_events *e) {
    vp_tensors held[VP_MAX_INSTANCES];
    memset(held, 0, sizeof held);
    e->phase = VP_PH_LOAD;
    vp_ev_alloc(e, vp_cublas_workspace_bytes());
    int mode = plan->diff.offload;
    for (int i = 0; i < n && i < VP_MAX_INSTANCES; i++)
        if (vp_diff_resident(plan, cs[i].in)) vp_ev_component_weights(&cs[i], e, &held[i]);
    e->phase = VP_PH_PREFILL;
    int prev = -1;
    vp_tensors casts = {0}; /* the transformer's autocast cache (timeline_diffusion.c): one copy per block, then the rest */
    for (int stage = 0; stage < 3; stage++)
        for (int i = 0; i < n && i < VP_MAX_INSTANCES; i++) {
            const vp_arch *a = &cs[i].in->arch;
            int is = stage == 0 ? VP_DC_IS_TEXT(a->dclass) : stage == 1 ? VP_DC_IS_DIT(a->dclass) || !a->dclass
                                                                       : VP_DC_IS_VAE(a->dclass);
            if (!is || cs[i].in->activations == VP_ACT_NONE) continue;
            if (cs[i].in->group_offload != VP_GROUP_OFFLOAD_NONE) {
                /* group offloading (diffusion_plan.c vp_diff_group_share): its running group's weights, onloaded for
                 * the phase and offloaded after it (the freed segments stay cached) */
                char why[200];
                if (stage == 2) e->phase = VP_PH_DECODE;
                int32_t g = vp_ev_alloc(e, vp_diff_group_bytes(&cs[i], why, sizeof why, NULL));
                alloc_casts(&cs[i], e, &casts);
                phase(plan, &cs[i], e);
                vp_ev_free(e, g);
                continue;
            }
            if (mode == VP_DIFF_OFFLOAD_MODEL && a->dclass) {
                /* accelerate's hook: the previous component goes back to the CPU when this one's forward starts */
                if (prev >= 0) {
                    vp_tensors_release(&held[prev], e);
                    /* accelerate >= 0.34 (hooks.py CpuOffload.pre_forward, PR #2994): clear_device_cache(), i.e.
                     * torch.cuda.empty_cache(), right after prev_module_hook.offload(); 0.33 kept the segments */
                    if (plan->diff.offload_empty_cache) vp_ev_empty_cache(e);
                }
                vp_ev_component_weights(&cs[i], e, &held[i]);
                prev = i;
            } else if (mode == VP_DIFF_OFFLOAD_SEQUENTIAL && !vp_diff_resident(plan, cs[i].in)) {
                double b = (double)vp_dtype_bytes(vp_param_dtype(cs[i].in));
                int32_t w = vp_ev_alloc(e, (int64_t)((double)a->d.largest_tensor * b));
                alloc_casts(&cs[i], e, &casts);
                phase(plan, &cs[i], e);
                vp_ev_free(e, w);
                continue;
            }
            if (stage == 2) e->phase = VP_PH_DECODE;
            alloc_casts(&cs[i], e, &casts);
            phase(plan, &cs[i], e);
            /* instances[].after_use: model.cpu() once the phase is over (its segments stay cached), then
             * torch.cuda.empty_cache() where the script calls it (Wan's wan/text2video.py lines 257-259) */
            if (mode == VP_DIFF_OFFLOAD_NONE && cs[i].in->after_use != VP_AFTER_USE_STAY) {
                vp_tensors_release(&held[i], e);
                if (cs[i].in->after_use == VP_AFTER_USE_CPU_EMPTY_CACHE) vp_ev_empty_cache(e);
            }
        }
    vp_tensors_dispose(&casts);
    for (int i = 0; i < n && i < VP_MAX_INSTANCES; i++) vp_tensors_dispose(&held[i]);
}
