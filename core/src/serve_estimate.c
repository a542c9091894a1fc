/* serve_estimate.c: a serve plan -> the estimate: one GPU's breakdown as the engine divides it, the
 * top-level `serving` figures (docs/schema/estimate.md) with the arithmetic of each, and the
 * launch command. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gguf_types.h"
#include "plan_serve.h"
#include "util.h"

uint64_t vp_serve_gpu_total(const vp_plan *plan) {
    return plan->gpu.cuda_total_bytes ? plan->gpu.cuda_total_bytes : plan->gpu.memory_bytes;
}

static void line(vp_serving *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(vp_serving *sv, const char *fmt, ...) {
    if (sv->n_lines >= VP_SERVING_MAX_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sv->lines[sv->n_lines++], sizeof sv->lines[0], fmt, ap);
    va_end(ap);
}

static void comp(vp_device *d, const char *id, const char *label, uint64_t bytes, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void comp(vp_device *d, const char *id, const char *label, uint64_t bytes, const char *fmt, ...) {
    if (d->n_components >= VP_MAX_COMPONENTS) return;
    vp_component *c = &d->components[d->n_components++];
    memset(c, 0, sizeof *c);
    vp_strlcpy(c->id, id, sizeof c->id);
    vp_strlcpy(c->instance, "model", sizeof c->instance);
    vp_strlcpy(c->role, "served", sizeof c->role);
    vp_strlcpy(c->label, label, sizeof c->label);
    c->bytes = bytes;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->explain, sizeof c->explain, fmt, ap);
    va_end(ap);
}

static double gib(uint64_t b) { return (double)b / VP_GIB; }
static double mib(uint64_t b) { return (double)b / VP_MIB; }

static void vllm_lines(const vp_plan *plan, const vp_serve_result *r, vp_serving *o, vp_device *d) {
    const vp_serve_settings *s = &plan->serve.s;
    const vp_serve_model *m = &plan->serve.m;
    double util = s->gpu_memory_utilization;
    int is_vllm = s->engine == VP_ENGINE_VLLM;
    if (is_vllm)
        line(o, "budget: %.2f GiB total × gpu_memory_utilization %.2f = %.2f GiB", gib(r->gpu_total_bytes), util,
             gib(r->budget_bytes));
    else
        line(o, "budget: (%.2f GiB total − %.2f GiB context) × mem_fraction_static = %.2f GiB", gib(r->gpu_total_bytes),
             gib(VP_SERVE_CONTEXT_BYTES), gib(r->budget_bytes));
    line(o, "weights: %.2f GiB per GPU (%lld layers of %lld, tp %lld%s%s)", gib(r->weights_bytes_per_gpu),
         (long long)(m->layers / (s->pp > 0 ? s->pp : 1)), (long long)m->layers, (long long)r->tp,
         m->quant.name[0] ? ", stored as " : "", m->quant.name);
    comp(d, "weights", "weights", r->weights_bytes_per_gpu, "model weights on this GPU as stored%s%s",
         m->quant.name[0] ? ": " : "", m->quant.name);
    if (is_vllm) {
        line(o, "activation peak: max(forward at %lld tokens %.2f GiB, sampler %lld × %lld logits × %d B + hidden %.2f GiB) = %.2f GiB",
             (long long)s->max_num_batched_tokens, gib(r->forward_peak_bytes),
             (long long)(s->max_num_seqs < s->max_num_batched_tokens ? s->max_num_seqs : s->max_num_batched_tokens),
             (long long)m->vocab, (s->dtype_bytes ? s->dtype_bytes : m->dtype_bytes) + 12, gib(r->sampler_peak_bytes),
             gib(r->activation_peak_bytes));
        line(o, "non-torch: %.2f GiB (cuBLAS%s)", gib(r->non_torch_bytes), r->tp > 1 ? ", NCCL and custom all-reduce buffers" : "");
        line(o, "KV cache: %.2f − %.2f − %.2f − %.2f = %.2f GiB", gib(r->budget_bytes), gib(r->weights_bytes_per_gpu),
             gib(r->activation_peak_bytes), gib(r->non_torch_bytes), gib(r->kv_cache_bytes_per_gpu));
        line(o, "blocks: %.2f GiB ÷ (%lld B page × %lld layers per group) = %lld blocks of %lld tokens (%d KV group%s)",
             gib(r->kv_cache_bytes_per_gpu), (long long)r->layout.page_bytes, (long long)r->layout.group_size,
             (long long)r->num_gpu_blocks, (long long)r->layout.block_size, r->layout.n_groups,
             r->layout.n_groups == 1 ? "" : "s");
        line(o, "tokens: %lld blocks ÷ %d group%s × %lld = %lld", (long long)r->num_gpu_blocks, r->layout.n_groups,
             r->layout.n_groups == 1 ? "" : "s", (long long)r->layout.block_size, (long long)r->kv_cache_tokens);
        line(o, "max concurrency: %lld blocks ÷ %lld blocks per %lld-token request = %.2fx", (long long)r->num_gpu_blocks,
             (long long)r->layout.blocks_per_request, (long long)r->max_model_len, r->max_concurrency);
        if (r->layout.n_sliding || r->layout.n_chunked)
            line(o, "layers: %d full, %d sliding-window (%lld), %d chunked (%lld): a request holds fewer blocks on the local layers",
                 r->layout.n_full, r->layout.n_sliding, (long long)m->sliding_window, r->layout.n_chunked,
                 (long long)m->chunk_size);
        line(o, "CUDA graphs: captured after the KV cache is sized, not subtracted by vLLM 0.19");
        comp(d, "activations", "profile peak", r->activation_peak_bytes,
             "profile run: max(forward %.2f GiB, sampler %.2f GiB)", gib(r->forward_peak_bytes), gib(r->sampler_peak_bytes));
        comp(d, "non_torch", "non-torch", r->non_torch_bytes, "cuBLAS workspace%s", r->tp > 1 ? ", NCCL buffers" : "");
    } else {
        line(o, "KV cache: %.2f − %.2f GiB weights → %lld tokens × %lld B per token = %.2f GiB (K %.2f, V %.2f)",
             gib(r->budget_bytes), gib(r->weights_bytes_per_gpu), (long long)r->kv_cache_tokens,
             (long long)r->kv_bytes_per_token, gib(r->kv_cache_bytes_per_gpu), gib(r->kv_k_bytes), gib(r->kv_v_bytes));
        line(o, "max concurrency: %lld tokens ÷ %lld = %.2fx", (long long)r->kv_cache_tokens, (long long)r->max_model_len,
             r->max_concurrency);
    }
    comp(d, "kv_cache", "KV cache", r->kv_cache_bytes_per_gpu, "%lld tokens × %lld B per token (all layers on this GPU)",
         (long long)r->kv_cache_tokens, (long long)r->kv_bytes_per_token);
}

static void llamacpp_lines(const vp_serve_result *r, vp_serving *o, vp_device *d, const vp_serve_model *m) {
    line(o, "model buffer: %.2f MiB on the GPU (%lld of %lld layers%s), %.2f MiB in CPU memory",
         mib(r->model_buffer_gpu_bytes), (long long)(r->n_gpu_layers > m->layers ? m->layers : r->n_gpu_layers),
         (long long)m->layers, r->n_gpu_layers > m->layers ? " + output" : "", mib(r->model_buffer_cpu_bytes));
    line(o, "KV cache: %lld cells: K %.2f MiB + V %.2f MiB = %.2f MiB", (long long)r->ctx_cells, mib(r->kv_k_bytes),
         mib(r->kv_v_bytes), mib(r->kv_cache_bytes_per_gpu));
    line(o, "compute buffer: about %.2f MiB (graph at n_ubatch)", mib(r->compute_buffer_bytes));
    comp(d, "weights", "model buffer", r->model_buffer_gpu_bytes, "GGUF tensors of the offloaded layers");
    comp(d, "kv_cache", "KV cache", r->kv_cache_bytes_per_gpu, "%lld cells, K %.0f MiB + V %.0f MiB", (long long)r->ctx_cells,
         mib(r->kv_k_bytes), mib(r->kv_v_bytes));
    comp(d, "compute_buffer", "compute buffer", r->compute_buffer_bytes, "ggml graph at n_ubatch");
}

/* Bytes of KV cache one max_model_len request needs beyond the pool the engine sized (0 when it fits or
 * when the refusal is not about memory). vLLM counts blocks (get_max_concurrency_for_kv_cache_config);
 * SGLang and llama.cpp tokens. */
static uint64_t kv_shortfall(const vp_serve_result *r) {
    if (r->engine == VP_ENGINE_VLLM) {
        int64_t missing = r->layout.blocks_per_request - r->num_gpu_blocks;
        if (missing <= 0) return 0;
        /* one block = a page in each layer of a group (serve_vllm.c: blocks = avail / page_bytes / group_size) */
        return (uint64_t)missing * (uint64_t)r->layout.page_bytes * (uint64_t)(r->layout.group_size > 0 ? r->layout.group_size : 1);
    }
    int64_t missing = r->max_model_len - r->kv_cache_tokens;
    return missing > 0 && r->kv_bytes_per_token > 0 ? (uint64_t)missing * (uint64_t)r->kv_bytes_per_token : 0;
}

vp_status vp_serve_estimate(const vp_plan *plan, vp_estimate *e, vp_error *err) {
    const vp_plan_serve *sv = &plan->serve;
    vp_serve_result r;
    vp_status st = vp_serve_compute(&sv->m, &sv->s, vp_serve_gpu_total(plan), &r, err);
    if (st) return st;
    vp_serving *o = &e->serving;
    memset(o, 0, sizeof *o);
    vp_strlcpy(o->engine, vp_engine_names[sv->s.engine], sizeof o->engine);
    o->tp = r.tp;
    o->pp = r.pp;
    o->gpus = r.gpus;
    o->max_model_len = r.max_model_len;
    o->gpu_total_bytes = r.gpu_total_bytes;
    o->budget_bytes = r.budget_bytes;
    o->weights_bytes_per_gpu = r.weights_bytes_per_gpu;
    o->kv_cache_bytes_per_gpu = r.kv_cache_bytes_per_gpu;
    o->kv_cache_tokens = r.kv_cache_tokens;
    o->max_concurrency = r.max_concurrency;
    o->activation_peak_bytes = r.activation_peak_bytes;
    o->forward_peak_bytes = r.forward_peak_bytes;
    o->sampler_peak_bytes = r.sampler_peak_bytes;
    o->non_torch_bytes = r.non_torch_bytes;
    o->cuda_graph_bytes = r.cuda_graph_bytes;
    o->num_gpu_blocks = r.num_gpu_blocks;
    o->block_size = r.layout.block_size;
    o->kv_cache_groups = r.layout.n_groups;
    o->kv_bytes_per_token = r.kv_bytes_per_token;
    o->n_gpu_layers = r.n_gpu_layers;
    o->ctx_cells = r.ctx_cells;
    o->model_buffer_gpu_bytes = r.model_buffer_gpu_bytes;
    o->model_buffer_cpu_bytes = r.model_buffer_cpu_bytes;
    o->compute_buffer_bytes = r.compute_buffer_bytes;
    o->kv_k_bytes = r.kv_k_bytes;
    o->kv_v_bytes = r.kv_v_bytes;
    vp_strlcpy(o->note, r.note, sizeof o->note);
    vp_plan_serve launch = *sv;
    if (!launch.s.max_model_len && sv->s.engine != VP_ENGINE_LLAMACPP) launch.s.max_model_len = 0;
    vp_serve_launch(&launch, o->launch, sizeof o->launch);

    vp_instance_info *info = &e->instances[e->n_instances++];
    vp_strlcpy(info->name, plan->inst[0].name, sizeof info->name);
    vp_strlcpy(info->role, "served", sizeof info->role);
    vp_strlcpy(info->model_type, sv->m.model_type, sizeof info->model_type);
    vp_serve_settings one = sv->s;
    one.tp = one.pp = 1;
    vp_rank_weights w;
    vp_serve_rank_weights(&sv->m, &one, 0, &w);
    info->params_total = (uint64_t)w.params;
    info->params_trainable = 0;

    int64_t shown = r.gpus < VP_MAX_GPUS ? r.gpus : VP_MAX_GPUS;
    if (sv->s.engine == VP_ENGINE_LLAMACPP) shown = 1;
    for (int64_t g = 0; g < shown; g++) {
        vp_device *d = &e->devices[e->n_devices++];
        memset(d, 0, sizeof *d);
        d->index = (int)g;
        vp_strlcpy(d->kind, "gpu", sizeof d->kind);
        vp_strlcpy(d->name, plan->gpu.name, sizeof d->name);
        d->capacity_bytes = plan->gpu.memory_bytes;
        d->usable_bytes = r.budget_bytes;
        d->context_bytes = VP_SERVE_CONTEXT_BYTES;
        vp_strlcpy(d->peak_phase, "serving", sizeof d->peak_phase);
        if (sv->s.engine == VP_ENGINE_LLAMACPP) {
            llamacpp_lines(&r, g == 0 ? o : &(vp_serving){0}, d, &sv->m);
            d->peak_alloc_bytes = r.model_buffer_gpu_bytes + r.kv_cache_bytes_per_gpu + r.compute_buffer_bytes;
        } else {
            vllm_lines(plan, &r, g == 0 ? o : &(vp_serving){0}, d);
            d->peak_alloc_bytes = r.weights_bytes_per_gpu + r.activation_peak_bytes + r.non_torch_bytes +
                                  r.kv_cache_bytes_per_gpu;
        }
        d->peak_reserved_bytes = d->peak_alloc_bytes;
        d->nvidia_smi_bytes = d->peak_alloc_bytes + VP_SERVE_CONTEXT_BYTES;
        d->headroom_bytes = (int64_t)d->usable_bytes - (int64_t)d->peak_alloc_bytes;
        /* vLLM / SGLang fill the budget with the KV pool; when it cannot hold one max_model_len request the
         * headroom is what that request's KV lacks (vLLM's startup error compares the two sizes:
         * v1/core/kv_cache_utils.py check_enough_kv_cache_memory) */
        uint64_t lack = r.fits ? 0 : kv_shortfall(&r);
        if (lack > 0 && d->headroom_bytes >= 0) d->headroom_bytes = -(int64_t)lack;
        d->fits = r.fits;
        d->n_phases = 1;
        vp_strlcpy(d->phases[0].name, "serving", sizeof d->phases[0].name);
        d->phases[0].alloc_bytes = d->peak_alloc_bytes;
    }
    if (sv->s.engine == VP_ENGINE_LLAMACPP && r.model_buffer_cpu_bytes) {
        vp_device *d = &e->devices[e->n_devices++];
        memset(d, 0, sizeof *d);
        d->index = -1;
        vp_strlcpy(d->kind, "cpu", sizeof d->kind);
        vp_strlcpy(d->name, "CPU RAM", sizeof d->name);
        d->capacity_bytes = d->usable_bytes = plan->cpu_ram_bytes;
        d->peak_alloc_bytes = d->peak_reserved_bytes = r.model_buffer_cpu_bytes;
        d->fits = 1;
        comp(d, "weights", "CPU_Mapped model buffer", r.model_buffer_cpu_bytes, "token_embd and the layers left on the CPU");
    }
    e->fits = r.fits;
    if (sv->s.engine == VP_ENGINE_LLAMACPP)
        snprintf(e->summary, sizeof e->summary,
                 "llama.cpp: %.0f MiB of model buffer, %.0f MiB of KV cache (%lld cells) and about %.0f MiB of compute "
                 "buffer on the GPU; %s.",
                 mib(r.model_buffer_gpu_bytes), mib(r.kv_cache_bytes_per_gpu), (long long)r.ctx_cells,
                 mib(r.compute_buffer_bytes), r.fits ? "it fits" : "it does not fit");
    else
        snprintf(e->summary, sizeof e->summary,
                 "%s on %lld GPU(s): %.2f GiB of weights per GPU leave %.2f GiB of KV cache: %lld tokens, %.2f "
                 "requests of %lld tokens at once%s.",
                 o->engine, (long long)r.gpus, gib(r.weights_bytes_per_gpu), gib(r.kv_cache_bytes_per_gpu),
                 (long long)r.kv_cache_tokens, r.max_concurrency, (long long)r.max_model_len,
                 r.fits ? "" : ": not one full-length request fits, the engine refuses to start");
    return VP_OK;
}
