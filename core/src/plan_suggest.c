/* plan_suggest.c: what to change when a plan does not fit (planning layer). Each remedy is one change
 * to a copy of the plan, estimated again with the same model (vp_estimate_plan), so every suggestion
 * is quantified by the same arithmetic as the estimate itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffusers.h"
#include "planning.h"
#include "precision.h"
#include "timeline.h"
#include "terms.h"
#include "util.h"

typedef int (*remedy_fn)(vp_plan *p, char *change, size_t n);


static int r_grad_ckpt(vp_plan *p, char *c, size_t n) {
    int any = 0;
    for (int i = 0; i < p->n_instances; i++)
        if (vp_inst_keeps_graph(&p->inst[i]) && p->inst[i].gc_every != 1) {
            p->inst[i].gc_every = 1;
            any = 1;
        }
    snprintf(c, n, "Gradient checkpointing on every block (recompute activations in backward, ~30%% more compute)");
    return any;
}

static int r_halve_batch(vp_plan *p, char *c, size_t n) {
    if (p->batch < 2) return 0;
    int64_t b = p->batch / 2;
    snprintf(c, n, "Micro-batch %lld instead of %lld, with gradient accumulation %lld to keep the global batch", (long long)b,
             (long long)p->batch, (long long)(p->grad_accum * 2));
    p->batch = b;
    p->grad_accum *= 2;
    return 1;
}

static int r_micro1(vp_plan *p, char *c, size_t n) {
    if (p->batch < 4) return 0;
    snprintf(c, n, "Micro-batch 1 with gradient accumulation %lld", (long long)(p->grad_accum * p->batch));
    p->grad_accum *= p->batch;
    p->batch = 1;
    return 1;
}

static int r_adam8(vp_plan *p, char *c, size_t n) {
    int any = 0;
    for (int i = 0; i < p->n_instances; i++) {
        vp_instance *in = &p->inst[i];
        if (vp_inst_trained(in) && (in->optimizer == VP_OPT_ADAMW || in->optimizer == VP_OPT_ADAM)) {
            in->optimizer = VP_OPT_ADAMW_8BIT;
            any = 1;
        }
    }
    snprintf(c, n, "8-bit AdamW (bitsandbytes): optimizer state 2 B/param instead of 8");
    return any;
}

static int r_fused(vp_plan *p, char *c, size_t n) {
    int any = 0;
    for (int i = 0; i < p->n_instances; i++) {
        vp_instance *in = &p->inst[i];
        if (vp_inst_trained(in) && (in->optimizer == VP_OPT_ADAMW || in->optimizer == VP_OPT_ADAM) && in->impl == VP_IMPL_FOREACH) {
            in->impl = VP_IMPL_FUSED;
            any = 1;
        }
    }
    snprintf(c, n, "AdamW(fused=True): no foreach intermediates during the step");
    return any;
}

static int r_lora(vp_plan *p, char *c, size_t n) {
    int any = 0;
    for (int i = 0; i < p->n_instances; i++) {
        vp_instance *in = &p->inst[i];
        if (vp_inst_trained(in) && in->ft == VP_FT_FULL && in->arch.kind == VP_KIND_DECODER) {
            in->ft = VP_FT_LORA;
            in->lora_r = 16;
            in->lora_alpha = 32;
            if (vp_is_amp(in) || in->precision == VP_PREC_FP32) in->precision = VP_PREC_BF16;
            any = 1;
        }
    }
    snprintf(c, n, "LoRA r=16 on all linear projections over frozen bf16 weights instead of full fine-tuning");
    return any;
}

static int r_qlora(vp_plan *p, char *c, size_t n) {
    int any = 0;
    for (int i = 0; i < p->n_instances; i++) {
        vp_instance *in = &p->inst[i];
        if (vp_inst_trained(in) && in->ft == VP_FT_LORA && in->quant == VP_QUANT_NONE) {
            in->ft = VP_FT_QLORA;
            in->quant = VP_QUANT_NF4;
            in->double_quant = 1;
            any = 1;
        }
    }
    snprintf(c, n, "QLoRA: 4-bit NF4 base weights with double quantization");
    return any;
}

static int r_pure_bf16(vp_plan *p, char *c, size_t n) {
    int any = 0;
    for (int i = 0; i < p->n_instances; i++) {
        vp_instance *in = &p->inst[i];
        if (vp_inst_trained(in) && in->ft == VP_FT_FULL && (vp_is_amp(in) || in->precision == VP_PREC_FP32)) {
            in->precision = VP_PREC_BF16;
            any = 1;
        }
    }
    snprintf(c, n, "Pure bf16 weights, gradients and Adam states (no fp32 master copy; watch for precision loss)");
    return any;
}

static int frozen_on_gpu(const vp_instance *in) {
    return in->activations == VP_ACT_NO_GRAD && in->device >= 0 && in->shares_weights_with < 0;
}

static int r_frozen_cpu(vp_plan *p, char *c, size_t n) {
    if (p->mode == VP_MODE_INFER && vp_plan_is_diffusion(p)) return 0; /* a pipeline's way is group offloading */
    int any = 0;
    for (int i = 0; i < p->n_instances; i++) {
        vp_instance *in = &p->inst[i];
        if (frozen_on_gpu(in)) {
            in->stream_from_cpu = in->device + 1;
            in->device = -1;
            in->sharded = 0;
            in->pinned = 1;
            any = 1;
        }
    }
    snprintf(c, n, "Keep the frozen model(s) in pinned CPU RAM and stream their blocks through the GPU");
    return any;
}

static int r_frozen_other_gpu(vp_plan *p, char *c, size_t n) {
    if (p->gpu_count < 2) return 0;
    int any = 0;
    for (int i = 0; i < p->n_instances; i++) {
        vp_instance *in = &p->inst[i];
        if (frozen_on_gpu(in)) {
            in->device = 1;
            in->sharded = 0;
            any = 1;
        }
    }
    snprintf(c, n, "Put the frozen model(s) on GPU 1");
    return any;
}

static int r_precompute(vp_plan *p, char *c, size_t n) {
    int w = 0, any = 0, map[VP_MAX_INSTANCES];
    for (int i = 0; i < p->n_instances; i++) {
        map[i] = -1;
        if (p->inst[i].activations == VP_ACT_NO_GRAD && p->inst[i].role == VP_ROLE_REFERENCE) {
            any = 1;
            continue;
        }
        map[i] = w;
        p->inst[w++] = p->inst[i];
    }
    if (!any || w == 0) return 0;
    p->n_instances = w;
    /* keep weight sharing between the instances that remain (indices shift) */
    for (int i = 0; i < w; i++) {
        int j = p->inst[i].shares_weights_with;
        p->inst[i].shares_weights_with = j >= 0 ? map[j] : -1;
    }
    /* a diffusion pipeline's frozen text encoders and VAE: their outputs are the prompt embeddings and the latents */
    if (vp_plan_is_diffusion(p))
        snprintf(c, n, "Compute the prompt embeddings and the latents once beforehand and drop the frozen encoders from the job");
    else
        snprintf(c, n, "Precompute the reference model's outputs once (e.g. DPO log-probabilities) and drop it from the step");
    return 1;
}

/* diffusers' pipe.enable_model_cpu_offload(): a pipeline's components on the GPU one at a time (diffusion_plan.c), for
 * a diffusion pipeline in inference with more than one component and no offload yet */
static int r_model_offload(vp_plan *p, char *c, size_t n) {
    if (p->mode != VP_MODE_INFER || p->diff.offload != VP_DIFF_OFFLOAD_NONE || p->n_instances < 2 || !vp_plan_is_diffusion(p))
        return 0;
    p->diff.offload = VP_DIFF_OFFLOAD_MODEL;
    snprintf(c, n, "pipe.enable_model_cpu_offload(): each component on the GPU only while it runs");
    return 1;
}

/* diffusers' pipe.enable_sequential_cpu_offload(): every leaf module's weights on the GPU only while it runs
 * (accelerate's AlignDevicesHook; diffusion_plan.c), for a pipeline in inference not already run that way */
static int r_seq_offload(vp_plan *p, char *c, size_t n) {
    if (p->mode != VP_MODE_INFER || p->diff.offload == VP_DIFF_OFFLOAD_SEQUENTIAL || !vp_plan_is_diffusion(p)) return 0;
    p->diff.offload = VP_DIFF_OFFLOAD_SEQUENTIAL;
    snprintf(c, n, "pipe.enable_sequential_cpu_offload(): each submodule's weights on the GPU only while it runs (slow)");
    return 1;
}

/* diffusers' group offloading (enable_group_offload / apply_group_offloading, offload_type="leaf_level",
 * use_stream=True, the form the diffusers docs recommend for speed; diffusion_plan.c vp_diff_group_share) of a
 * pipeline's transformer and text encoders in inference; diffusers refuses it beside model or sequential offload */
static int r_group_offload(vp_plan *p, char *c, size_t n) {
    if (p->mode != VP_MODE_INFER || p->diff.offload != VP_DIFF_OFFLOAD_NONE) return 0;
    int any = 0;
    for (int i = 0; i < p->n_instances; i++) {
        vp_instance *in = &p->inst[i];
        int d = in->arch.dclass;
        if ((!VP_DC_IS_DIT(d) && !VP_DC_IS_TEXT(d)) || in->group_offload != VP_GROUP_OFFLOAD_NONE || in->shares_weights_with >= 0 ||
            in->after_use != VP_AFTER_USE_STAY)
            continue;
        in->group_offload = VP_GROUP_OFFLOAD_LEAF;
        in->group_stream = 1;
        any = 1;
    }
    snprintf(c, n, "Group offloading (enable_group_offload, leaf_level, use_stream): the transformer and text encoders onloaded layer by layer");
    return any;
}

/* diffusers' layerwise casting (transformer.enable_layerwise_casting(storage_dtype=torch.float8_e4m3fn,
 * compute_dtype=torch.bfloat16); finetrainers --layerwise_upcasting_modules transformer): a 16-bit DiT's block
 * Linears stored in float8 and upcast one module at a time (quant "fp8", weights.c), for a frozen DiT or the
 * base of a LoRA; a fully trained DiT keeps its weights */
static int r_fp8_storage(vp_plan *p, char *c, size_t n) {
    int any = 0;
    for (int i = 0; i < p->n_instances; i++) {
        vp_instance *in = &p->inst[i];
        if (!VP_DC_IS_DIT(in->arch.dclass) || in->quant != VP_QUANT_NONE || in->shares_weights_with >= 0) continue;
        if (in->precision != VP_PREC_BF16 && in->precision != VP_PREC_FP16) continue;
        if (vp_inst_trained(in) && in->ft != VP_FT_LORA) continue;
        in->quant = VP_QUANT_FP8;
        any = 1;
    }
    snprintf(c, n, "Store the transformer's weights in float8 (transformer.enable_layerwise_casting), computing in 16-bit");
    return any;
}

/* finetrainers' precomputation (workload.diffusion.precompute, precompute.c): the text encoders and the VAE of a
 * diffusion training job run once before training and are freed, instead of staying beside the step */
static int r_diff_precompute(vp_plan *p, char *c, size_t n) {
    if (p->mode != VP_MODE_TRAIN || p->diff.precompute) return 0;
    int enc = 0;
    for (int i = 0; i < p->n_instances; i++) enc |= VP_DC_IS_TEXT(p->inst[i].arch.dclass) || VP_DC_IS_VAE(p->inst[i].arch.dclass);
    if (!enc) return 0;
    p->diff.precompute = 1;
    snprintf(c, n, "Precompute the prompt embeddings and latents first (finetrainers' precomputation): the encoders run once, then are freed");
    return 1;
}

/* diffusers' vae.enable_tiling(): the VAE decodes (and encodes) tile by tile, its sample_size at a time (vae.c
 * vp_vae_tile); only where the plan has a VAE whose frames are larger than one tile */
static int r_vae_tiling(vp_plan *p, char *c, size_t n) {
    if (p->diff.vae_tiling) return 0;
    int any = 0;
    int64_t f, h, w, th, tw;
    vp_pipeline_size(p, &f, &h, &w);
    for (int i = 0; i < p->n_instances; i++) {
        const vp_arch *a = &p->inst[i].arch;
        if (!VP_DC_IS_VAE(a->dclass)) continue;
        vp_vae_tile(a, h, w, 1, &th, &tw);
        any |= th < h || tw < w;
    }
    if (!any) return 0;
    p->diff.vae_tiling = 1;
    snprintf(c, n, "VAE tiling (vae.enable_tiling()): the VAE decodes and encodes tile by tile");
    return 1;
}

static int r_zero3(vp_plan *p, char *c, size_t n) {
    if (p->gpu_count < 2 || p->par.dp * p->par.tp * p->par.pp > 1) return 0;
    p->par.dp = p->gpu_count;
    p->par.framework = VP_FW_FSDP;
    p->par.fsdp = VP_FSDP_FULL_SHARD;
    /* the optimizer stays as the plan resolved it (a plan file without optimizer.impl would read as
     * fused AdamW under FSDP: plan_parallel_precision.c) */
    snprintf(c, n, "Shard weights, gradients and optimizer state over the node's %lld GPUs (FSDP full_shard / ZeRO-3)",
             (long long)p->gpu_count);
    return 1;
}

/* PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: segments grow by mapping pages instead of each
 * request needing a free block or a new cudaMalloc, so a job that fails on fragmentation fits
 * (CUDACachingAllocator.cpp ExpandableSegment; re-estimated by the allocator replay, reserved.c). */
static int r_expandable(vp_plan *p, char *c, size_t n) {
    if (p->alloc_conf.expandable_segments || p->alloc_conf.backend_cuda_malloc_async) return 0;
    p->alloc_conf.expandable_segments = 1;
    int w = p->alloc_conf_text[0] ? snprintf(c, n, "PYTORCH_CUDA_ALLOC_CONF=%s,expandable_segments:True (segments grow instead of fragmenting)", p->alloc_conf_text)
                                  : snprintf(c, n, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (segments grow instead of fragmenting)");
    if (w < 0) c[0] = '\0';
    return 1;
}

static int r_offload_opt(vp_plan *p, char *c, size_t n) {
    int any = 0;
    for (int i = 0; i < p->n_instances; i++) any |= vp_inst_trained(&p->inst[i]) && p->inst[i].sharded;
    if (!any || p->par.offload_optimizer) return 0;
    p->par.offload_optimizer = 1;
    if (p->par.framework == VP_FW_TORCH) p->par.framework = VP_FW_DEEPSPEED;
    if (p->par.zero < 2 && p->par.framework == VP_FW_DEEPSPEED) p->par.zero = 2;
    vp_plan_framework_precision(p); /* under DeepSpeed amp_bf16 is its bf16 mode, as a plan would read */
    snprintf(c, n, "Offload the optimizer state to CPU RAM (DeepSpeed ZeRO-Offload)");
    return 1;
}

static int r_half_seq(vp_plan *p, char *c, size_t n) {
    int64_t text = p->seq - p->image_tokens; /* a VLM's image tokens stay (vlm_images.c); 0 otherwise */
    if (text < 256 || p->mode != VP_MODE_TRAIN) return 0;
    snprintf(c, n, "Sequence length %lld instead of %lld (fewer tokens or frames per sample)", (long long)(text / 2),
             (long long)text);
    p->seq = text / 2 + p->image_tokens;
    return 1;
}

static const struct {
    const char *id;
    const char *label; /* short form for combined suggestions */
    remedy_fn fn;
    int alt;           /* remedies with the same nonzero alt are alternatives: a combination takes one of them */
    int slow;          /* a last resort that costs much speed: listed alone, never in a combination, and its fitting
                        * alone does not stop the search for a combination of faster changes */
} k_remedies[] = {
    {"expandable_segments", "expandable segments", r_expandable, 0, 0},
    {"grad_ckpt", "checkpointing", r_grad_ckpt, 0, 0},
    {"halve_batch", "half the micro-batch", r_halve_batch, 0, 0},
    {"micro_batch_1", "micro-batch 1", r_micro1, 0, 0},
    {"precompute_reference", "precomputed reference log-probs", r_precompute, 0, 0},
    {"vae_tiling", "VAE tiling", r_vae_tiling, 0, 0},
    {"model_offload", "model CPU offload", r_model_offload, 1, 0},
    {"sequential_offload", "sequential CPU offload", r_seq_offload, 1, 1},
    {"group_offload", "group offloading", r_group_offload, 1, 0},
    {"fp8_storage", "float8 weight storage", r_fp8_storage, 0, 0},
    {"precompute_embeddings", "precomputed embeddings and latents", r_diff_precompute, 0, 0},
    {"frozen_to_cpu", "frozen models streamed from CPU", r_frozen_cpu, 0, 0},
    {"frozen_to_gpu1", "frozen models on GPU 1", r_frozen_other_gpu, 0, 0},
    {"adamw_8bit", "8-bit AdamW", r_adam8, 0, 0},
    {"adamw_fused", "fused AdamW", r_fused, 0, 0},
    {"lora", "LoRA r=16", r_lora, 0, 0},
    {"qlora", "QLoRA", r_qlora, 0, 0},
    {"pure_bf16", "pure bf16", r_pure_bf16, 0, 0},
    {"shard_fsdp", "FSDP full shard", r_zero3, 0, 0},
    {"offload_optimizer", "optimizer offload", r_offload_opt, 0, 0},
    {"halve_seq", "half the sequence", r_half_seq, 0, 0},
};

/* The tightest device's reserved peak; *fits: 2 when the plan fits with at least 10% of every device's usable
 * memory to spare, 1 when it fits more tightly than that (the estimate then makes suggestions), 0 when it does not. */
static int64_t tightest(const vp_estimate *e, int *fits) {
    const vp_device *d = vp_tightest_device(e);
    *fits = e->fits ? 2 : 0;
    for (int i = 0; i < e->n_devices && *fits; i++)
        if (e->devices[i].index >= 0 && e->devices[i].headroom_bytes < (int64_t)(e->devices[i].usable_bytes / 10)) *fits = 1;
    return d ? (int64_t)d->peak_reserved_bytes : 0;
}

static int cmp_sugg(const void *a, const void *b) {
    const vp_suggestion *x = a, *y = b;
    if (x->fits != y->fits) return y->fits - x->fits;
    /* an allocator setting changes nothing about the training: when it is enough, it comes first */
    int xe = !strcmp(x->id, "expandable_segments"), ye = !strcmp(y->id, "expandable_segments");
    if (x->fits && xe != ye) return ye - xe;
    if (x->saves_bytes != y->saves_bytes) return x->saves_bytes < y->saves_bytes ? 1 : -1;
    return strcmp(x->id, y->id); /* total order: the same on every libc */
}

#define N_REMEDIES (sizeof k_remedies / sizeof k_remedies[0])

/* A combination found greedily: from the plan, apply the change that lowers the tightest GPU the most,
 * re-estimate, repeat (at most 4 changes) until the plan fits with 10% to spare. Slow remedies and the
 * ones in `banned` are not used; of remedies that are alternatives (alt), one at most. */
typedef struct {
    char ids[160], text[160];
    int64_t peak;
    int fits, used, first;
} combo;

static void combine(const vp_plan *plan, int64_t peak0, unsigned banned, vp_plan *cur, vp_plan *best_plan, vp_plan *copy,
                    vp_estimate *alt, combo *out) {
    *cur = *plan;
    cur->quiet = 1;
    snprintf(out->text, sizeof out->text, "Together: ");
    out->ids[0] = '\0';
    out->peak = peak0;
    out->fits = 0;
    out->used = 0;
    out->first = -1;
    unsigned done = 0, alts = 0; /* alts: the alternative groups a change made already belongs to */
    for (int step = 0; step < 4 && out->fits < 2; step++) {
        int best_k = -1, best_fits = 0;
        int64_t best_peak = out->peak - out->peak / 100;
        for (size_t k = 0; k < N_REMEDIES; k++) {
            if (((done | banned) & (1u << k)) || k_remedies[k].slow || (alts & (1u << k_remedies[k].alt))) continue;
            *copy = *cur;
            char change[160];
            if (!k_remedies[k].fn(copy, change, sizeof change)) continue;
            vp_error err;
            if (vp_estimate_plan(copy, alt, &err) != VP_OK) continue;
            int f;
            int64_t pk = tightest(alt, &f);
            if (pk < best_peak) {
                best_peak = pk;
                best_k = (int)k;
                best_fits = f;
                *best_plan = *copy;
            }
        }
        if (best_k < 0) break;
        done |= 1u << best_k;
        if (k_remedies[best_k].alt) alts |= 1u << k_remedies[best_k].alt;
        if (out->first < 0) out->first = best_k;
        *cur = *best_plan;
        out->peak = best_peak;
        out->fits = best_fits;
        size_t li = strlen(out->ids), lt = strlen(out->text);
        snprintf(out->ids + li, sizeof out->ids - li, "%s%s", out->used ? "," : "", k_remedies[best_k].id);
        snprintf(out->text + lt, sizeof out->text - lt, "%s%s", out->used ? " + " : "", k_remedies[best_k].label);
        out->used++;
    }
}

void vp_plan_suggest(const vp_plan *plan, vp_estimate *e) {
    int fits0;
    int64_t peak0 = tightest(e, &fits0);
    vp_plan *copy = malloc(sizeof *copy), *cur = malloc(sizeof *cur), *best_plan = malloc(sizeof *best_plan);
    vp_estimate *alt = malloc(sizeof *alt);
    vp_suggestion *all = calloc(N_REMEDIES + 1, sizeof *all);
    int n = 0, roomy = 0; /* roomy: a single change that is not slow fits with 10% to spare */
    if (!copy || !cur || !best_plan || !alt || !all) goto out;
    for (size_t k = 0; k < N_REMEDIES; k++) {
        *copy = *plan;
        copy->quiet = 1;
        char change[160] = "";
        if (!k_remedies[k].fn(copy, change, sizeof change)) continue;
        vp_error err;
        if (vp_estimate_plan(copy, alt, &err) != VP_OK) continue;
        int fits;
        int64_t peak = tightest(alt, &fits);
        if (peak >= peak0 - peak0 / 100) continue; /* less than 1% better: not worth listing */
        roomy |= fits == 2 && !k_remedies[k].slow;
        vp_suggestion *s = &all[n++];
        vp_strlcpy(s->id, k_remedies[k].id, sizeof s->id);
        vp_strlcpy(s->change, change, sizeof s->change);
        s->peak_reserved_bytes = (uint64_t)peak;
        s->saves_bytes = peak0 - peak;
        s->fits = fits > 0;
    }
    /* When no single change leaves room, look for a combination; when the greedy one does not leave room
     * either, try once more without its first change (model offload can be a dead end where group offloading
     * is not), and keep the better. */
    if (!roomy && n >= 2) {
        combo a, b;
        combine(plan, peak0, 0, cur, best_plan, copy, alt, &a);
        if (a.fits < 2 && a.first >= 0) {
            combine(plan, peak0, 1u << a.first, cur, best_plan, copy, alt, &b);
            if (b.used >= 2 && (b.fits > a.fits || (b.fits == a.fits && b.peak < a.peak))) a = b;
        }
        if (a.used >= 2) {
            vp_suggestion *s = &all[n++];
            vp_strlcpy(s->id, "combined", sizeof s->id);
            vp_strlcpy(s->ids, a.ids, sizeof s->ids);
            vp_strlcpy(s->change, a.text, sizeof s->change);
            s->peak_reserved_bytes = (uint64_t)a.peak;
            s->saves_bytes = peak0 - a.peak;
            s->fits = a.fits > 0;
        }
    }
    qsort(all, (size_t)n, sizeof *all, cmp_sugg);
    e->n_suggestions = n < VP_MAX_SUGGESTIONS ? n : VP_MAX_SUGGESTIONS;
    memcpy(e->suggestions, all, sizeof *all * (size_t)e->n_suggestions);
out:
    free(copy);
    free(cur);
    free(best_plan);
    free(alt);
    free(all);
}

vp_status vp_estimate_with_suggestions(const vp_plan *plan, vp_estimate *e, vp_error *err) {
    vp_status st = vp_estimate_plan(plan, e, err);
    if (st != VP_OK) return st;
    if (plan->mode == VP_MODE_SERVE) return vp_serve_answers(plan, e, err); /* a serve plan's answers: plan_serve.c */
    /* suggestions only when memory is tight: each costs one more estimate per remedy */
    int fits;
    tightest(e, &fits);
    if (fits < 2) vp_plan_suggest(plan, e);
    return VP_OK;
}
