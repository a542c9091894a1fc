/* timeline_diffusion.c: the moments of a diffusers pipeline call (inference), in the order
 * DiffusionPipeline.__call__ runs them: encode_prompt (each text encoder, the prompt and then the
 * negative prompt), the denoising loop (the transformer once per step on the batch, doubled when
 * classifier-free guidance concatenates the unconditional input), then vae.decode of the final latents.
 * Weights on the GPU follow the pipeline's offload mode (pipeline_utils.py):
 *   none: pipe.to("cuda"), every component resident throughout;
 *   enable_model_cpu_offload(): accelerate cpu_offload_with_hook, one whole component on the GPU at a time
 *     (the next one's hook moves the previous back to the CPU);
 *   enable_sequential_cpu_offload(): accelerate cpu_offload per leaf module, so at most the largest single
 *     module's weights are on the GPU beside the activations.
 * Each phase is one moment named after the component; the peak moment names the component that sets it. */
#include <stdio.h>
#include <string.h>

#include "alloc_events.h"
#include "diffusers.h"
#include "timeline.h"
#include "util.h"

int vp_plan_is_diffusion(const vp_plan *plan) {
    for (int i = 0; i < plan->n_instances; i++)
        if (plan->inst[i].arch.dclass) return 1;
    return 0;
}

/* torch.autocast's weight-cast cache (PyTorch aten/src/ATen/autocast_mode.cpp, cached_cast): a cast to the
 * autocast dtype of an fp32 leaf tensor that requires grad is kept in `cached_casts` while cache_enabled, and
 * the cache is cleared only when the outermost autocast context exits (torch/amp/autocast_mode.py __exit__:
 * torch.clear_autocast_cache() once autocast_decrement_nesting() reaches 0). diffusers' from_pretrained leaves
 * requires_grad on and the pipelines' @torch.no_grad() does not change it, so under
 * `with torch.autocast("cuda", torch.bfloat16): pipe(...)` every weight and bias a Linear casts stays as a 16-bit
 * copy from its first step to the end of the call: 2 B per transformer parameter (the patch embeddings are Conv /
 * Linear, also cast; the norms' few thousand parameters per block, which layer_norm / RMSNorm do not cast, are
 * counted too: < 0.1%). Not cached (instance
 * "autocast_cache": false) with autocast(cache_enabled=False) (diffusers docs mochi.md's 85-frame example) or
 * requires_grad_(False) (Wan's own wan/text2video.py line 88). */
double vp_dit_autocast_cache_bytes(const vp_instance *in) {
    if (!in->autocast_cache || !VP_DC_IS_DIT(in->arch.dclass)) return 0;
    if (vp_dtype_bytes(vp_param_dtype(in)) != 4 || vp_dtype_bytes(vp_act_dtype(in)) != 2) return 0;
    return 2.0 * (double)in->arch.d.params;
}

int64_t vp_diff_group_bytes(const vp_inst_calc *c, char *why, size_t n, double *total) {
    double w = (double)(c->ds.weights.bytes + c->ds.quant.bytes);
    if (total) *total = w;
    return (int64_t)(w * vp_diff_group_share(c->in, why, n) + 0.5);
}

/* the pipeline's order of a component's phase: text encoders, then the transformer, then the VAE */
static int phase_order(const vp_inst_calc *c, int i) {
    int dc = c->in->arch.dclass;
    int stage = VP_DC_IS_TEXT(dc) ? 0 : VP_DC_IS_VAE(dc) ? 2 : 1;
    return stage * VP_MAX_INSTANCES + i;
}

/* weights of the components on the GPU during the phase of component `run` */
static void weights_for(const vp_plan *plan, vp_moment *m, const vp_inst_calc *cs, int n, int run) {
    int mode = plan->diff.offload;
    for (int i = 0; i < n; i++) {
        const vp_inst_calc *c = &cs[i];
        if (c->in->group_offload != VP_GROUP_OFFLOAD_NONE) { /* instances[].group_offload (diffusion_plan.c) */
            if (i != run) continue;
            char why[200];
            double w = 0;
            int64_t on = vp_diff_group_bytes(c, why, sizeof why, &w);
            vp_moment_add(m, &c->owner, "weights", "Weights (group offloading)", on, "%s: %.1f%% of its %.2f GiB", why,
                          w > 0 ? 100.0 * (double)on / w : 0.0, w / 1073741824.0);
            continue;
        }
        if (vp_diff_resident(plan, c->in)) {
            /* a component the script moved to the CPU once its own phase was over (instances[].after_use) */
            if (c->in->after_use != VP_AFTER_USE_STAY && c->in->arch.dclass && phase_order(c, i) < phase_order(&cs[run], run))
                continue;
            vp_add_resident(m, c, 0);
        } else if (mode == VP_DIFF_OFFLOAD_MODEL) {
            if (i == run) vp_add_resident(m, c, 0);
        } else if (i == run) {
            double bytes = (double)vp_dtype_bytes(vp_param_dtype(c->in));
            int64_t big = (int64_t)((double)c->in->arch.d.largest_tensor * bytes);
            vp_moment_add(m, &c->owner, "weights", "Weights (one module streamed)", big,
                          "enable_sequential_cpu_offload: only the running leaf module's weights are on the GPU; the "
                          "largest is %lld parameters × %.0f B",
                          (long long)c->in->arch.d.largest_tensor, bytes);
        }
    }
}

void vp_timeline_diffusion(const vp_plan *plan, vp_inst_calc *cs, int n, vp_sink *out) {
    const vp_instance *dit_in = vp_plan_dit(plan);
    const vp_arch *dit = dit_in ? &dit_in->arch : NULL;
    vp_owner dev = {"", ""};
    int64_t f, hgt, wid;
    vp_pipeline_size(plan, &f, &hgt, &wid);
    int64_t b = plan->batch;
    /* tensors the pipeline keeps across phases: the prompt embeddings (and the negative ones under CFG)
     * from encode_prompt until the loop ends, and the latents */
    double emb = 0, lat = 0;
    int64_t cfgb = dit ? vp_dit_cfg_batch(dit, b, plan->diff.cfg) : b;
    if (dit) {
        emb = (double)(plan->diff.cfg ? 2 * b : b) * (double)dit->d.text_len * (double)dit->d.text_dim * 2.0;
        int64_t s = dit->d.spatial > 0 ? dit->d.spatial : 8;
        int64_t lf = dit->d.temporal > 1 ? vp_dit_latent_frames(dit, f) : 1;
        lat = (double)b * (double)dit->in_channels * (double)lf * (double)(hgt / s) * (double)(wid / s) * 4.0;
        if (dit->dclass == VP_DC_FLUX) lat = (double)b * 16.0 * (double)(hgt / 8) * (double)(wid / 8) * 4.0;
    }
    vp_moment *base = &out->work[0];
    vp_moment_init(base, "load");
    base->quiet = plan->quiet;
    for (int i = 0; i < n; i++)
        if (vp_diff_resident(plan, cs[i].in))
            vp_add_resident(base, &cs[i], 0);
    vp_moment_add(base, &dev, "cublas_workspace", "cuBLAS workspace", vp_cublas_workspace_bytes(),
                  "32 MiB allocated by the first GEMM through PyTorch's allocator (measured, H100/PyTorch 2.11)");
    vp_sink_push(out, base);
    /* the autocast cache of the transformer: from its first step to the end of the pipeline call (the decode
     * runs inside the same autocast context) */
    double cast_cache = 0;
    const vp_inst_calc *cast_owner = NULL;
    for (int i = 0; i < n; i++)
        if (vp_dit_autocast_cache_bytes(cs[i].in) > 0 && cs[i].in->activations != VP_ACT_NONE)
            cast_cache = vp_dit_autocast_cache_bytes(cs[i].in), cast_owner = &cs[i];
    /* phases in pipeline order: text encoders, transformer, VAE */
    for (int stage = 0; stage < 3; stage++) {
        for (int i = 0; i < n; i++) {
            const vp_inst_calc *c = &cs[i];
            const vp_arch *a = &c->in->arch;
            int is = stage == 0 ? VP_DC_IS_TEXT(a->dclass) : stage == 1 ? VP_DC_IS_DIT(a->dclass) || !a->dclass
                                                                       : VP_DC_IS_VAE(a->dclass);
            if (!is || c->in->activations == VP_ACT_NONE) continue;
            vp_moment *m = &out->work[1];
            vp_moment_init(m, stage == 0 ? (a->dclass == VP_DC_CLIP_VISION ? "image_encoder" : "text_encoder")
                              : stage == 1 ? "transformer" : "vae_decode");
            m->quiet = plan->quiet;
            weights_for(plan, m, cs, n, i);
            vp_moment_add(m, &dev, "cublas_workspace", "cuBLAS workspace", vp_cublas_workspace_bytes(),
                          "32 MiB allocated by the first GEMM through PyTorch's allocator (measured, H100/PyTorch 2.11)");
            double adt = (double)vp_dtype_bytes(vp_act_dtype(c->in));
            if (stage > 0 && cast_cache > 0)
                vp_moment_add(m, &cast_owner->owner, "autocast_cache", "Autocast weight-cast cache", (int64_t)cast_cache,
                              "fp32 weights under torch.autocast: the 16-bit copy of every weight cast (2 B × %lld "
                              "params) stays cached until the autocast context exits",
                              (long long)cast_owner->in->arch.d.params);
            if (stage == 0) {
                vp_moment_add(m, &c->owner, "inference_temp",
                              a->dclass == VP_DC_CLIP_VISION ? "Image encoder forward" : "Text encoder forward",
                              (int64_t)((double)c->a.tokens * c->a.fwd_temp),
                              "one block at a time under no_grad: %lld tokens × %.0f B (hidden states, q/k/v, MLP%s)",
                              (long long)c->a.tokens, c->a.fwd_temp,
                              a->dclass == VP_DC_T5_ENC || a->dclass == VP_DC_UMT5_ENC ? ", eager scores + fp32 softmax" : "");
            } else if (stage == 1) {
                vp_moment_add(m, &dev, "text_embeddings", "Prompt embeddings", (int64_t)emb,
                              "%s × %lld tokens × %lld × 2 B, kept through the denoising loop",
                              plan->diff.cfg ? "prompt + negative prompt" : "prompt", (long long)(dit ? dit->d.text_len : 0),
                              (long long)(dit ? dit->d.text_dim : 0));
                vp_moment_add(m, &dev, "latents", "Latents", (int64_t)lat, "%lld × %lld channels × latent frames × pixels × 4 B",
                              (long long)b, (long long)(dit ? dit->in_channels : 0));
                double h = (double)a->hidden, ffn = (double)a->inter, heads = (double)a->heads;
                double T = c->a.tokens > 0 ? (double)c->a.tokens / (double)plan->batch : 0;
                double BT = (double)cfgb * T;
                /* one block under no_grad: residual stream, its normalized copy, q, k, v, the attention output,
                 * the FF hidden and its GELU output */
                double per = adt * (6.0 * h + 2.0 * ffn);
                /* single-stream blocks (FLUX, HunyuanVideo) concatenate the attention output with the MLP
                 * activation before proj_out: one more (h + f)-wide tensor */
                if (a->d.blocks2 > 0) per += adt * (h + ffn);
                char tok[24];
                vp_fmt_count(tok, sizeof tok, BT);
                if (plan->diff.code == VP_DIFF_CODE_OFFICIAL && a->dclass == VP_DC_HUNYUAN) {
                    /* HunyuanVideo's own blocks under autocast, tensor by tensor (events_hunyuan.c): the most they
                     * hold at once, in the single-stream block's torch.cat */
                    double S = (double)cfgb * (double)a->d.text_len;
                    double pk = vp_hunyuan_official_step_peak(a, BT - S, S);
                    vp_moment_add(m, &c->owner, "inference_temp", "Transformer step temporaries", (int64_t)pk,
                                  "official HunyuanVideo code (hyvideo/modules/models.py, autocast bf16): %s tokens, at most "
                                  "%.0f B per token (fp32 LayerNorm / modulate / RoPE temporaries, linear1's 7h output kept, "
                                  "q/k/v concatenations, GELU and its concatenation; events_hunyuan.c)",
                                  tok, BT > 0 ? pk / BT : 0);
                } else
                    vp_moment_add(m, &c->owner, "inference_temp", "Transformer step temporaries", (int64_t)(BT * per),
                                  "one block at a time: %s tokens (%lld × %.0f%s) × %.0f B (hidden, norm, q, k, v, attention out, FF)",
                                  tok, (long long)cfgb, T, cfgb > b ? ", CFG doubles the batch" : "", per);
                if (c->in->quant == VP_QUANT_INT8) { /* bitsandbytes LLM.int8 (diffusion_workload.c) */
                    double q8 = vp_dit_int8_matmul_per_token(a);
                    vp_moment_add(m, &c->owner, "int8_matmul", "Int8 matmul temporaries", (int64_t)(BT * q8),
                                  "bitsandbytes 8-bit Linears: the input's int8 copy and the int32 GEMM output of the "
                                  "widest one, %.0f B per token over a 16-bit Linear (MatMul8bitLt)",
                                  q8);
                }
                double dm = vp_dit_dense_mask_per_token(plan, a);
                if (dm > 0) { /* diffusers 0.32 HunyuanVideo (diffusion_workload.c, activations_dit.c) */
                    vp_moment_add(m, &c->owner, "attention_mask", "Attention mask (N × N bool)", (int64_t)(BT * dm),
                                  "diffusers 0.32 HunyuanVideo: a (batch, N, N) bool mask over the %.0f joint tokens, 1 B "
                                  "per pair, for the whole transformer call", dm);
                    vp_moment_add(m, &c->owner, "attention_scores", "Attention mask bias (s², SDPA)",
                                  (int64_t)(BT * dm * adt),
                                  "SDPA turns the bool mask into an additive bias in the query's dtype (%.0f B per pair) "
                                  "for the memory-efficient kernel, one block at a time", adt);
                }
                if (a->d.ts_tokens) {
                    /* Wan 2.2 TI2V (expand_timesteps, transformer_wan.py): temb (b, T, h) and timestep_proj
                     * (b, T, 6h) in the activation dtype for the whole call; in each block
                     * `self.scale_shift_table.unsqueeze(0) + temb.float()` is an fp32 (b, T, 6, h) tensor (24h B per
                     * token) whose six chunks live to the block's end, beside the block's temporaries, and at the
                     * block's start the `.float()` copy (24h more) is alive with it and the block's input */
                    double held = 24.0 * h, start = 48.0 * h + adt * h - per;
                    double blk = held > start ? held : start;
                    vp_moment_add(m, &c->owner, "modulation", "Timestep / modulation embeddings (per token)",
                                  (int64_t)(BT * (7.0 * h * adt + blk)),
                                  "expand_timesteps: one timestep per token, %s tokens × (temb + timestep_proj %.0f B + "
                                  "one block's fp32 shift/scale/gate %.0f B)", tok, 7.0 * h * adt, blk);
                } else
                    vp_moment_add(m, &c->owner, "modulation", "Timestep / modulation embeddings",
                                  (int64_t)((double)cfgb * 7.0 * h * adt),
                                  "temb (b × h) and one block's adaptive-norm shift/scale/gate (b × 6h)");
                const char *kern = c->a.attn_kernel ? c->a.attn_kernel : "flash";
                if (!strcmp(kern, "math") || !strcmp(kern, "eager")) {
                    double s2 = (double)cfgb * heads * T * T * 2.0 * adt;
                    vp_moment_add(m, &c->owner, "attention_scores", "Attention scores (s², math SDPA)", (int64_t)s2,
                                  "%s: %lld × %.0f heads × %.0f² tokens × (scores + softmax) × %.0f B", kern, (long long)cfgb,
                                  heads, T, adt);
                }
            } else {
                vp_vae_peak pk;
                int64_t vf = f, vh = hgt, vw = wid;
                if (!dit && !plan->height) vf = 1, vh = vw = 512;
                vp_vae_decode_peak(a, b, vf, vh, vw, adt, plan->diff.vae_tiling, plan->diff.vae_slicing, plan->diff.diffusers, &pk);
                vp_moment_add(m, &dev, "latents", "Latents", (int64_t)lat, "the final latents being decoded");
                vp_moment_add(m, &c->owner, "vae_decode", "VAE decode", (int64_t)pk.bytes,
                              "conv stack at its peak: %s%s%s", pk.where, plan->diff.vae_tiling ? ", tiled" : "",
                              plan->diff.vae_slicing ? ", one sample at a time" : "");
                vp_moment_add(m, &c->owner, "vae_output", "Decoded frames", (int64_t)pk.out_bytes,
                              "%lld × 3 × %lld frames × %lld × %lld × %.0f B, collected and concatenated",
                              (long long)b, (long long)vf, (long long)vh, (long long)vw, adt);
            }
            vp_sink_push(out, m);
        }
    }
}
