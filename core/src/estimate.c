/* estimate.c: a plan -> per-device peaks, breakdowns and a fit verdict. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_events.h"
#include "diffusers.h"
#include "plan_serve.h"
#include "timeline.h"
#include "util.h"

static void add_warning(vp_estimate *e, const char *msg) {
    for (int i = 0; i < e->n_warnings; i++)
        if (!strcmp(e->warnings[i], msg)) return;
    if (e->n_warnings < VP_MAX_WARNINGS) vp_strlcpy(e->warnings[e->n_warnings++], msg, sizeof e->warnings[0]);
}

/* Largest first; ties by id, then instance, so every libc (glibc natively, musl in the WASM build)
 * prints the same order: qsort is not stable, so the comparison must be total. */
static int cmp_comp(const void *a, const void *b) {
    const vp_component *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    int c = strcmp(x->id, y->id);
    return c ? c : strcmp(x->instance, y->instance);
}

static int64_t world_size(const vp_plan *plan) { return plan->par.dp * plan->par.tp * plan->par.pp; }

/* Is instance i on GPU `rank` (a global rank; node-0 GPUs have rank = local index)? */
static int on_gpu(const vp_plan *plan, const vp_instance *in, int64_t rank) {
    if (in->stream_from_cpu) return rank == in->stream_from_cpu - 1;
    if (in->device < 0) return 0;
    if (in->sharded) return rank < world_size(plan);
    return in->device == rank;
}

/* The replay's phase in the user's words: a diffusion pipeline's replay (events_diffusion.c) runs its text
 * encoders and denoising steps as "prefill" and its VAE as "decode", which are an LLM's words. */
static const char *oom_phase_name(const vp_plan *plan, int ph) {
    if (plan->mode == VP_MODE_INFER && vp_plan_is_diffusion(plan)) {
        if (ph == VP_PH_PREFILL) return "the text encoder or a denoising step";
        if (ph == VP_PH_DECODE) return "the VAE decode";
    }
    if (vp_precompute_on(plan) && ph == VP_PH_PREFILL) return "the precompute stage (text encoders, then the VAE)";
    return vp_ev_phase_names[ph];
}

/* A frame count the video pipeline does not take runs as the one it does (diffusion_workload.c vp_dit_run_frames):
 * say which, so a plan of 48 CogVideoX frames is not read as 48 */
static void frames_warning(const vp_plan *plan, vp_estimate *e) {
    const vp_instance *in = vp_plan_dit(plan);
    if (plan->frames <= 0 || plan->quiet || !in) return;
    const vp_arch *a = &in->arch;
    int64_t run = vp_dit_run_frames(a, plan->frames), t = a->d.temporal;
    if (run == plan->frames) return;
    char w[sizeof e->warnings[0]];
    if (t <= 1)
        snprintf(w, sizeof w,
                 "workload.frames = %lld, but instance \"%s\" is an image model (one image per sample): the estimate is "
                 "for 1 frame.",
                 (long long)plan->frames, in->name);
    else
        snprintf(w, sizeof w,
                 "workload.frames = %lld is not a count the pipeline takes (1 + %lld k frames): %s, and the estimate is "
                 "for %lld frames.",
                 (long long)plan->frames, (long long)t,
                 a->dclass == VP_DC_WAN ? "WanPipeline rounds num_frames to num_frames // 4 * 4 + 1"
                                        : "its (frames - 1) // t + 1 latent frames decode to 1 + t × (latent frames - 1)",
                 (long long)run);
    add_warning(e, w);
}

/* Peak reserved memory and the verdict from the allocator replay. The allocated peak of the replay
 * and of the moment timeline come from the same terms but not the same bookkeeping (the timeline
 * adds up per-phase totals; the replay splits them into tensors), so the replay's overhead above its
 * own allocated peak (segments, rounding, blocks no later request fits) is added to the timeline's
 * allocated peak, and the replay's memory limit is moved by the same difference. */
static void allocator_verdict(const vp_plan *plan, const vp_events *ev, int64_t best_total, vp_device *d) {
    vp_reserved r;
    d->fragmentation = 0;
    d->failed_request_bytes = d->cached_unusable_bytes = 0;
    d->alloc_retries = 0;
    d->allocator_note[0] = '\0';
    /* no replay: out of memory while building it, or a verdict-only estimate whose tensors alone pass
     * the usable memory (the replay would say no as well: its limit, moved by the same difference,
     * falls below its own allocated peak) */
    if (ev->failed || ev->n == 0) {
        d->peak_reserved_bytes = (uint64_t)best_total;
        d->fits = d->peak_reserved_bytes <= d->usable_bytes;
        return;
    }
    vp_replay(ev, &plan->alloc_conf, 0, &r);
    int64_t shift = best_total - (int64_t)r.peak_alloc;
    int64_t over = (int64_t)r.peak_reserved - (int64_t)r.peak_alloc;
    d->peak_reserved_bytes = (uint64_t)vp_add_sat(best_total, over > 0 ? over : 0);
    if (d->peak_reserved_bytes <= d->usable_bytes) {
        d->fits = 1;
        return;
    }
    int64_t limit = (int64_t)d->usable_bytes - shift;
    if (limit <= 0 || (int64_t)r.peak_alloc > limit) {
        d->fits = 0; /* the tensors alone do not fit */
        /* With no memory limit the cache only grows (generate's torch.cat steps leave a block per
         * step that no later request fits), which no GPU shows: on a real one PyTorch frees its
         * cache and retries once cudaMalloc fails. What the job needs is then the least memory
         * under which the replay runs: searched when the unlimited figure is far above the
         * allocated peak (25 %) in generate; a training step's cache stops growing after three steps, and
         * its unlimited figure is what a larger GPU would show. */
        if (plan->mode == VP_MODE_INFER && r.peak_reserved > r.peak_alloc + r.peak_alloc / 4) {
            uint64_t need = vp_replay_min_limit(ev, &plan->alloc_conf, r.peak_alloc, r.peak_reserved);
            d->peak_reserved_bytes = (uint64_t)vp_add_sat(best_total, (int64_t)(need - r.peak_alloc));
        }
        return;
    }
    vp_replay(ev, &plan->alloc_conf, (uint64_t)limit, &r);
    d->fits = r.fits;
    d->alloc_retries = r.retries;
    char a[32], b[32], u[32];
    if (!r.fits) {
        d->fragmentation = 1;
        d->failed_request_bytes = r.oom.request;
        d->cached_unusable_bytes = r.oom.cached_free;
        vp_fmt_bytes(a, sizeof a, (double)r.oom.request);
        vp_fmt_bytes(b, sizeof b, (double)r.oom.cached_free);
        vp_fmt_bytes(u, sizeof u, (double)r.oom.largest_free_block);
        int w = snprintf(d->allocator_note, sizeof d->allocator_note,
                         "Fragmentation: in %s a %s request finds no free block and no room for a new segment, while %s "
                         "is cached but free in blocks of at most %s. PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                         "lets segments grow instead.",
                         oom_phase_name(plan, r.oom_phase), a, b, u);
        if (w < 0) d->allocator_note[0] = '\0';
    } else {
        int w = snprintf(d->allocator_note, sizeof d->allocator_note,
                         "Fits only after PyTorch frees its cached segments and retries cudaMalloc (%d time%s per run): "
                         "it runs, a little slower.",
                         r.retries, r.retries == 1 ? "" : "s");
        if (w < 0) d->allocator_note[0] = '\0';
        /* what the allocator holds at most is then the usable memory */
        d->peak_reserved_bytes = d->usable_bytes;
    }
}

static void fill_device(const vp_plan *plan, int64_t rank, vp_device *d, vp_estimate *e) {
    vp_inst_calc *cs = malloc(VP_MAX_INSTANCES * sizeof *cs);
    vp_sink *ms = malloc(sizeof *ms);
    memset(d, 0, offsetof(vp_device, components));
    if (!cs || !ms) {
        free(cs);
        free(ms);
        return;
    }
    int n = 0;
    for (int i = 0; i < plan->n_instances; i++)
        if (on_gpu(plan, &plan->inst[i], rank)) vp_inst_calc_init(plan, &plan->inst[i], rank, &cs[n++]);
    vp_sink_init(ms);
    if (plan->mode == VP_MODE_TRAIN)
        vp_timeline_train(plan, cs, n, ms);
    else
        vp_timeline_infer(plan, cs, n, ms);
    int64_t best_total = ms->best_total;
    int64_t nonpt = vp_nonpytorch_bytes(&plan->gpu) + (world_size(plan) > 1 ? vp_nccl_bytes() : 0);
    uint64_t capacity = vp_capacity_bytes(&plan->gpu);
    uint64_t usable = capacity > (uint64_t)nonpt ? capacity - (uint64_t)nonpt : 0;
    /* the same step as the allocator sees it: tensor by tensor, replayed through the caching allocator
     * (not when only the verdict is asked for and the tensors alone do not fit: no allocator
     * behaviour makes that fit, see allocator_verdict) */
    vp_events ev;
    vp_events_init(&ev);
    int replay = !(plan->verdict_only && best_total > (int64_t)usable);
    if (!replay)
        ev.failed = 1;
    else if (plan->mode == VP_MODE_TRAIN)
        vp_events_train(plan, cs, n, &ev);
    else
        vp_events_infer(plan, cs, n, &ev);
    d->n_phases = ms->n_phases;
    memcpy(d->phases, ms->phases, sizeof(vp_phase) * (size_t)ms->n_phases);
    const vp_moment *pk = &ms->best;
    d->n_components = pk->n;
    memcpy(d->components, pk->c, sizeof(vp_component) * (size_t)pk->n);
    qsort(d->components, (size_t)d->n_components, sizeof(vp_component), cmp_comp);
    vp_strlcpy(d->peak_phase, pk->phase, sizeof d->peak_phase);
    d->peak_alloc_bytes = (uint64_t)best_total;
    for (int i = 0; i < n; i++)
        if (plan->par.pp > 1 && cs[i].in->sharded && rank == 0 && !cs[i].ctx.last && plan->mode == VP_MODE_TRAIN) {
            char w[200];
            snprintf(w, sizeof w, "Pipeline stage 0 holds %.0f micro-batches of activations in flight (1F1B); the last stage holds the logits.",
                     cs[i].inflight);
            add_warning(e, w);
        }
    free(ms);
    free(cs);

    d->index = (int)rank;
    vp_strlcpy(d->kind, "gpu", sizeof d->kind);
    if (rank < plan->gpu_count)
        vp_strlcpy(d->name, plan->gpu.name, sizeof d->name);
    else {
        char gpu[61]; /* cut between UTF-8 characters, never inside one (%.60s cuts bytes) */
        vp_strlcpy(gpu, plan->gpu.name, sizeof gpu);
        snprintf(d->name, sizeof d->name, "%s (rank %lld, node %lld)", gpu, (long long)rank,
                 (long long)(rank / plan->gpu_count));
    }
    d->capacity_bytes = capacity;
    d->context_bytes = (uint64_t)vp_context_bytes(&plan->gpu);
    d->usable_bytes = usable;
    allocator_verdict(plan, &ev, best_total, d);
    vp_events_free(&ev);
    d->nvidia_smi_bytes = d->peak_reserved_bytes + (uint64_t)nonpt;
    d->headroom_bytes = (int64_t)d->usable_bytes - (int64_t)d->peak_reserved_bytes;
}

/* A diffusion pipeline's component that lives in CPU RAM: offloaded by diffusers (model, sequential or group
 * offloading: vp_diff_resident) or moved there once its phase is over (after_use). The pipeline loads each component on
 * the CPU first (DiffusionPipeline.from_pretrained without a device_map), and the hooks keep its weights there:
 * accelerate's cpu_offload keeps the whole state dict on the CPU and copies each module in for its forward
 * (big_modeling.py), group offloading keeps the CPU copies, pinned with use_stream (group_offloading.py), and
 * enable_model_cpu_offload moves the other components back to the CPU when one is onloaded. */
static int diff_on_cpu(const vp_plan *plan, const vp_instance *in) {
    return plan->mode == VP_MODE_INFER && in->arch.dclass && (!vp_diff_resident(plan, in) || in->after_use != VP_AFTER_USE_STAY);
}

/* CPU RAM of one node: offloaded optimizer state and parameters, CPU-placed models, offloaded pipeline components. */
static void fill_cpu(const vp_plan *plan, vp_device *d) {
    memset(d, 0, sizeof *d);
    d->index = -1;
    vp_strlcpy(d->kind, "cpu", sizeof d->kind);
    vp_strlcpy(d->name, "CPU RAM (per node)", sizeof d->name);
    vp_moment m;
    /* what it holds is there for the whole run; training reads it at the optimizer step, inference from the load */
    const char *phase = plan->mode == VP_MODE_TRAIN ? "optimizer_step" : "load";
    vp_moment_init(&m, phase);
    int64_t ranks = world_size(plan) < plan->gpu_count ? world_size(plan) : plan->gpu_count;
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_instance *in = &plan->inst[i];
        vp_inst_calc c;
        vp_inst_calc_init(plan, in, 0, &c);
        if (diff_on_cpu(plan, in)) {
            if (c.owns_weights)
                vp_moment_add(&m, &c.owner, "weights", in->group_stream ? "Weights (pinned)" : "Weights", c.w.base_bytes,
                              "pipeline component in CPU RAM while offloaded (loaded there by from_pretrained)");
        } else if (in->sharded) {
            vp_moment_add(&m, &c.owner, "optimizer_state", "Offloaded optimizer state", c.ds.cpu_states.bytes * ranks,
                          "%s, × %lld ranks on the node", c.ds.cpu_states.explain, (long long)ranks);
            vp_moment_add(&m, &c.owner, "weights", "Offloaded parameters", c.ds.cpu_weights.bytes * ranks,
                          "%s, × %lld ranks on the node", c.ds.cpu_weights.explain, (long long)ranks);
        } else if (in->device < 0 && c.owns_weights) {
            vp_moment_add(&m, &c.owner, "weights", in->pinned ? "Weights (pinned)" : "Weights", c.w.base_bytes + c.w.adapter_bytes,
                          "%s model kept in CPU RAM%s", vp_role_names[in->role],
                          in->stream_from_cpu ? ", its layers streamed through the GPU" : "");
        }
    }
    int64_t t = vp_moment_total(&m);
    d->n_components = m.n;
    memcpy(d->components, m.c, sizeof(vp_component) * (size_t)m.n);
    qsort(d->components, (size_t)d->n_components, sizeof(vp_component), cmp_comp);
    d->peak_alloc_bytes = d->peak_reserved_bytes = (uint64_t)t;
    d->capacity_bytes = d->usable_bytes = plan->cpu_ram_bytes;
    d->headroom_bytes = plan->cpu_ram_bytes ? (int64_t)plan->cpu_ram_bytes - t : 0;
    d->fits = !plan->cpu_ram_bytes || d->headroom_bytes >= 0;
    vp_strlcpy(d->peak_phase, phase, sizeof d->peak_phase);
    d->n_phases = 1;
    vp_strlcpy(d->phases[0].name, phase, sizeof d->phases[0].name);
    d->phases[0].alloc_bytes = (uint64_t)t;
}

static void summarize(const vp_plan *plan, vp_estimate *e) {
    char need[32], have[32], miss[32];
    const vp_device *worst = NULL;
    for (int i = 0; i < e->n_devices; i++) {
        const vp_device *d = &e->devices[i];
        if (d->index < 0 && !plan->cpu_ram_bytes) continue;
        if (!worst || d->headroom_bytes < worst->headroom_bytes) worst = d;
    }
    if (!worst) {
        snprintf(e->summary, sizeof e->summary, "Nothing is placed on a GPU.");
        return;
    }
    vp_fmt_bytes(need, sizeof need, (double)worst->peak_reserved_bytes);
    vp_fmt_bytes(have, sizeof have, (double)worst->usable_bytes);
    vp_fmt_bytes(miss, sizeof miss, (double)(worst->headroom_bytes < 0 ? -worst->headroom_bytes : worst->headroom_bytes));
    char top[256] = "";
    size_t used = 0;
    for (int k = 0; k < worst->n_components && k < 3; k++) {
        char b[32];
        vp_fmt_bytes(b, sizeof b, (double)worst->components[k].bytes);
        const vp_component *c = &worst->components[k];
        int w = c->instance[0] && e->n_instances > 1
                    ? snprintf(top + used, sizeof top - used, "%s%s (%s) %s", k ? ", " : "", c->label, c->instance, b)
                    : snprintf(top + used, sizeof top - used, "%s%s %s", k ? ", " : "", c->label, b);
        if (w < 0 || (size_t)w >= sizeof top - used) break;
        used += (size_t)w;
    }
    char dev[64];
    if (worst->index < 0)
        snprintf(dev, sizeof dev, "CPU RAM");
    else
        snprintf(dev, sizeof dev, "GPU %d", worst->index);
    const char *node = plan->gpu.node[0] ? plan->gpu.node : "";
    /* the return value is checked so gcc's -Wformat-truncation accepts the (intended) truncation */
    int w;
    char alloc[32];
    vp_fmt_bytes(alloc, sizeof alloc, (double)worst->peak_alloc_bytes);
    if (e->fits)
        w = snprintf(e->summary, sizeof e->summary, "Fits: %s needs %s of the %s usable on %s%s%s (%s headroom). Peak in %s. Largest: %s.%s%s",
                     dev, need, have, worst->name, node[0] ? " on " : "", node, miss, worst->peak_phase, top,
                     worst->allocator_note[0] ? " " : "", worst->allocator_note);
    else if (worst->fragmentation)
        /* the allocated peak fits; the caching allocator's replay (reserved.c) is what fails */
        w = snprintf(e->summary, sizeof e->summary,
                     "Does not fit: %s's tensors peak at %s, within the %s usable on %s%s%s, but PyTorch's caching "
                     "allocator runs out. %s",
                     dev, alloc, have, worst->name, node[0] ? " on " : "", node, worst->allocator_note);
    else
        w = snprintf(e->summary, sizeof e->summary,
                     "Does not fit: %s needs %s, %s more than the %s usable on %s%s%s. Peak in %s. Largest: %s.",
                     dev, need, miss, have, worst->name, node[0] ? " on " : "", node, worst->peak_phase, top);
    if (w < 0) e->summary[0] = '\0';
}

/* The bare estimate: never calls the planning layer (suggestions, fit, recommend live above it in
 * plan_*.c and call this). */
vp_status vp_estimate_plan(const vp_plan *plan, vp_estimate *e, vp_error *err) {
    vp_error_clear(err);
    if (!plan || !e) return vp_fail(err, VP_ERR_FIELD, "", "no plan");
    /* the struct is ~300 KB: reset the counts, not every byte (each device header is cleared when
     * it is filled, and only n_components entries are ever read) */
    e->fits = 0;
    e->summary[0] = '\0';
    e->n_instances = e->n_devices = e->n_warnings = e->n_suggestions = 0;
    memset(e->instances, 0, sizeof e->instances);
    e->serving.engine[0] = '\0';
    if (plan->mode == VP_MODE_SERVE) return vp_serve_estimate(plan, e, err); /* serving engines: serve_estimate.c */
    int any_cpu = 0;
    for (int i = 0; i < plan->n_warnings; i++) add_warning(e, plan->warnings[i]);
    frames_warning(plan, e);
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_instance *in = &plan->inst[i];
        vp_weights w;
        vp_weights_compute(in, &w);
        vp_instance_info *info = &e->instances[e->n_instances++];
        vp_strlcpy(info->name, in->name, sizeof info->name);
        vp_strlcpy(info->role, vp_role_names[in->role], sizeof info->role);
        vp_strlcpy(info->model_type, in->arch.model_type, sizeof info->model_type);
        info->params_total = (uint64_t)in->pc.total;
        info->params_trainable = (uint64_t)w.trainable;
        if (in->precision == VP_PREC_FP8 && !plan->gpu.fp8 && plan->gpu.memory_bytes)
            add_warning(e, "fp8 was asked for, but this GPU has no fp8 tensor cores (compute capability < 8.9).");
        int math_kernel = in->precision == VP_PREC_FP32 && in->attn != VP_ATTN_EAGER && in->arch.kv_heads != in->arch.heads &&
                          in->arch.kind == VP_KIND_DECODER;
        if (math_kernel && plan->mode == VP_MODE_TRAIN && !plan->quiet)
            add_warning(e, "fp32 attention with grouped KV heads falls back to PyTorch's math SDPA kernel, which stores the "
                           "full s×s probabilities; bf16 autocast would use flash attention.");
        if (in->device < 0 || (in->sharded && (plan->par.offload_optimizer || plan->par.offload_params)) || diff_on_cpu(plan, in)) any_cpu = 1;
    }
    e->fits = 1;
    int64_t world = world_size(plan);
    int64_t local = plan->gpu_count;
    for (int64_t g = 0; g < local && g < VP_MAX_GPUS; g++) {
        int used = g == 0;
        for (int i = 0; i < plan->n_instances; i++) used |= on_gpu(plan, &plan->inst[i], g);
        if (!used) continue;
        vp_device *d = &e->devices[e->n_devices++];
        fill_device(plan, g, d, e);
        if (!d->fits) e->fits = 0;
    }
    /* the last pipeline stage (it holds the output head and the loss) when it is on another node */
    if (plan->par.pp > 1 && world > local && e->n_devices < VP_MAX_DEVICES - 1) {
        vp_device *d = &e->devices[e->n_devices++];
        fill_device(plan, world - 1, d, e);
        if (!d->fits) e->fits = 0;
    }
    if (any_cpu && e->n_devices < VP_MAX_DEVICES) {
        vp_device *d = &e->devices[e->n_devices++];
        fill_cpu(plan, d);
        if (!d->fits) e->fits = 0;
    }
    summarize(plan, e);
    return VP_OK;
}
