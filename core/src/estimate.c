/* estimate.c: a plan -> per-device peaks, breakdowns and a fit verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "util.h"

static void add_warning(vp_estimate *e, const char *msg) {
    if (e->n_warnings < VP_MAX_WARNINGS) vp_strlcpy(e->warnings[e->n_warnings++], msg, sizeof e->warnings[0]);
}

static int cmp_comp(const void *a, const void *b) {
    const vp_component *x = a, *y = b;
    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

static void fill_device(const vp_plan *plan, int index, vp_inst_calc *cs, int n, vp_device *d) {
    vp_moments *ms = malloc(sizeof *ms);
    if (!ms) return;
    if (plan->mode == VP_MODE_TRAIN)
        vp_timeline_train(plan, cs, n, ms);
    else
        vp_timeline_infer(plan, cs, n, ms);
    int best = 0;
    int64_t best_total = -1;
    d->n_phases = 0;
    for (int i = 0; i < ms->n; i++) {
        int64_t t = vp_moment_total(&ms->m[i]);
        if (t > best_total) {
            best_total = t;
            best = i;
        }
        int p = -1;
        for (int k = 0; k < d->n_phases; k++)
            if (!strcmp(d->phases[k].name, ms->m[i].phase)) p = k;
        if (p < 0 && d->n_phases < VP_MAX_PHASES) {
            p = d->n_phases++;
            vp_strlcpy(d->phases[p].name, ms->m[i].phase, sizeof d->phases[p].name);
            d->phases[p].alloc_bytes = 0;
        }
        if (p >= 0 && (uint64_t)t > d->phases[p].alloc_bytes) d->phases[p].alloc_bytes = (uint64_t)t;
    }
    const vp_moment *pk = &ms->m[best];
    d->n_components = pk->n;
    memcpy(d->components, pk->c, sizeof(vp_component) * (size_t)pk->n);
    qsort(d->components, (size_t)d->n_components, sizeof(vp_component), cmp_comp);
    vp_strlcpy(d->peak_phase, pk->phase, sizeof d->peak_phase);
    d->peak_alloc_bytes = (uint64_t)best_total;
    free(ms);

    d->index = index;
    vp_strlcpy(d->kind, "gpu", sizeof d->kind);
    vp_strlcpy(d->name, plan->gpu.name, sizeof d->name);
    d->capacity_bytes = vp_capacity_bytes(&plan->gpu);
    d->context_bytes = (uint64_t)vp_context_bytes(&plan->gpu);
    int64_t nonpt = vp_nonpytorch_bytes(&plan->gpu);
    d->usable_bytes = d->capacity_bytes > (uint64_t)nonpt ? d->capacity_bytes - (uint64_t)nonpt : 0;
    d->peak_reserved_bytes = (uint64_t)vp_reserved_from_alloc(best_total, 0);
    d->nvidia_smi_bytes = d->peak_reserved_bytes + (uint64_t)nonpt;
    d->headroom_bytes = (int64_t)d->usable_bytes - (int64_t)d->peak_reserved_bytes;
    d->fits = d->headroom_bytes >= 0;
}

static void summarize(const vp_plan *plan, vp_estimate *e) {
    char need[32], have[32], miss[32];
    const vp_device *worst = NULL;
    for (int i = 0; i < e->n_devices; i++)
        if (!worst || e->devices[i].headroom_bytes < worst->headroom_bytes) worst = &e->devices[i];
    if (!worst) {
        snprintf(e->summary, sizeof e->summary, "Nothing is placed on a GPU.");
        return;
    }
    vp_fmt_bytes(need, sizeof need, (double)worst->peak_reserved_bytes);
    vp_fmt_bytes(have, sizeof have, (double)worst->usable_bytes);
    vp_fmt_bytes(miss, sizeof miss, (double)(worst->headroom_bytes < 0 ? -worst->headroom_bytes : worst->headroom_bytes));
    char top[200] = "";
    size_t used = 0;
    for (int k = 0; k < worst->n_components && k < 3; k++) {
        char b[32];
        vp_fmt_bytes(b, sizeof b, (double)worst->components[k].bytes);
        int w = snprintf(top + used, sizeof top - used, "%s%s %s", k ? ", " : "", worst->components[k].label, b);
        if (w < 0 || (size_t)w >= sizeof top - used) break;
        used += (size_t)w;
    }
    const char *node = plan->gpu.node[0] ? plan->gpu.node : "";
    if (e->fits)
        snprintf(e->summary, sizeof e->summary, "Fits: GPU %d needs %s of the %s usable on %s%s%s (%s headroom). Peak in %s. Largest: %s.",
                 worst->index, need, have, worst->name, node[0] ? " on " : "", node, miss, worst->peak_phase, top);
    else
        snprintf(e->summary, sizeof e->summary,
                 "Does not fit: GPU %d needs %s, %s more than the %s usable on %s%s%s. Peak in %s. Largest: %s.",
                 worst->index, need, miss, have, worst->name, node[0] ? " on " : "", node, worst->peak_phase, top);
}

vp_status vp_estimate_plan(const vp_plan *plan, vp_estimate *e, vp_error *err) {
    vp_error_clear(err);
    if (!plan || !e) return vp_fail(err, VP_ERR_FIELD, "", "no plan");
    memset(e, 0, sizeof *e);
    vp_inst_calc *cs = calloc(VP_MAX_INSTANCES, sizeof *cs);
    if (!cs) return vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_instance *in = &plan->inst[i];
        vp_inst_calc_init(plan, in, &cs[i]);
        vp_instance_info *info = &e->instances[e->n_instances++];
        vp_strlcpy(info->name, in->name, sizeof info->name);
        vp_strlcpy(info->role, vp_role_names[in->role], sizeof info->role);
        vp_strlcpy(info->model_type, in->arch.model_type, sizeof info->model_type);
        info->params_total = (uint64_t)in->pc.total;
        info->params_trainable = (uint64_t)cs[i].w.trainable;
        if (in->precision == VP_PREC_FP8 && !plan->gpu.fp8 && plan->gpu.memory_bytes)
            add_warning(e, "fp8 was asked for, but this GPU has no fp8 tensor cores (compute capability < 8.9).");
        if (strcmp(cs[i].a.attn_kernel ? cs[i].a.attn_kernel : "", "math") == 0 && plan->mode == VP_MODE_TRAIN)
            add_warning(e, "fp32 attention with grouped KV heads falls back to PyTorch's math SDPA kernel, which stores the "
                           "full s×s probabilities; bf16 autocast would use flash attention.");
    }
    /* GPUs that hold something */
    e->fits = 1;
    for (int g = 0; g < plan->gpu_count && e->n_devices < VP_MAX_DEVICES; g++) {
        vp_inst_calc on[VP_MAX_INSTANCES];
        int n = 0;
        for (int i = 0; i < plan->n_instances; i++)
            if (plan->inst[i].device == g) on[n++] = cs[i];
        if (!n && g > 0) continue;
        vp_device *d = &e->devices[e->n_devices++];
        fill_device(plan, g, on, n, d);
        if (!d->fits) e->fits = 0;
    }
    free(cs);
    summarize(plan, e);
    return VP_OK;
}
