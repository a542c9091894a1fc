/* planning.h: the planning layer above the estimator (plan_*.c): suggestions, fit, sweep, recommend.
 * Everything here edits copies of a parsed plan and calls vp_estimate_plan; estimate.c never includes
 * this header. */
#ifndef VP_PLANNING_H
#define VP_PLANNING_H

#include "plan.h"

/* Which instances a training change applies to: the ones that learn (get gradients and an optimizer),
 * and the ones whose forward keeps a graph for backward (checkpointing applies to them). */
static inline int vp_inst_trained(const vp_instance *in) {
    return in->activations == VP_ACT_TRAIN || (in->activations == VP_ACT_KEEP_GRAPH && in->ft != VP_FT_FROZEN);
}
static inline int vp_inst_keeps_graph(const vp_instance *in) {
    return in->activations == VP_ACT_TRAIN || in->activations == VP_ACT_KEEP_GRAPH;
}

/* ---- plan_serve.c: a serve plan's answers (e is its estimate): e->serving.has_answers ... --------- */
vp_status vp_serve_answers(const vp_plan *plan, vp_estimate *e, vp_error *err);

/* ---- plan_suggest.c -------------------------------------------------------------------------- */
/* Fill e->suggestions (e is plan's estimate) by re-estimating single and combined changes of the plan. */
void vp_plan_suggest(const vp_plan *plan, vp_estimate *e);

/* ---- plan_edit.c: the workload value fit and sweep vary --------------------------------------- */
int64_t vp_plan_field_get(const vp_plan *plan, vp_field f);
/* Sets workload.<f> = v after the checks the plan parser makes (range, tokens and bytes per step);
 * on error the plan is unchanged and err names workload.<f>. */
vp_status vp_plan_field_set(vp_plan *plan, vp_field f, int64_t v, vp_error *err);
/* The largest value a search may try, and why; VP_ERR_FIELD when the field does not apply. */
/* The distance between the values a search tries: 1, except frames (the video VAE's temporal compression:
 * a pipeline's frame counts are 4k + 1 for a 4x causal VAE, pipeline_wan.py / pipeline_cogvideox.py). */
int64_t vp_plan_field_step(const vp_plan *plan, vp_field f);
/* A search counts k = 1, 2, 3, ...: the value of count k, and the count of value v (rounded down). */
static inline int64_t vp_field_value_of(int64_t k, int64_t step) { return k < 1 ? 0 : 1 + (k - 1) * step; }
static inline int64_t vp_field_count_of(int64_t v, int64_t step) { return v < 1 ? 0 : (v - 1) / step + 1; }
vp_status vp_plan_field_limit(const vp_plan *plan, vp_field f, int64_t *limit, char *why, size_t n, vp_error *err);

/* ---- plan_device.c ------------------------------------------------------------------------------ */
/* The device that decides the verdict: least headroom among the GPUs and CPU RAM of known size (the
 * one the estimate's summary names). NULL when there is none. */
const vp_device *vp_tightest_device(const vp_estimate *e);
/* The GPU with the least headroom (for charts); NULL when there is none. */
const vp_device *vp_tightest_gpu(const vp_estimate *e);
/* Sum of the components with this id on device d. */
uint64_t vp_device_component_bytes(const vp_device *d, const char *id);

/* ---- plan_search.c: the largest integer with a property, without assuming monotonicity ---------- */
/* 1: value fits, 0: it does not, < 0: error (the search stops and returns it). */
typedef int (*vp_fits_fn)(void *ctx, int64_t value);

#define VP_SEARCH_UP 3   /* after the binary search, value+2 .. value+1+UP are estimated too */
#define VP_SEARCH_DOWN 3 /* ... and value-1 .. value-DOWN */

typedef struct {
    int64_t value;  /* largest fitting value found in 1..cap; 0 when none of 1..1+UP fits */
    int n_calls;    /* distinct values evaluated */
    int n_gaps;     /* evaluated values below `value` that do not fit, largest first */
    int64_t gaps[VP_FIT_MAX_GAPS];
} vp_search;

/* flags of vp_search_largest */
#define VP_SEARCH_NO_BELOW 1   /* skip value-1 .. value-DOWN (the caller checks what it uses) */
#define VP_SEARCH_ABOVE_HINT 2 /* only values >= hint matter: when the hint does not fit, value = 0 */
#define VP_SEARCH_GALLOP 4     /* grow by 1, 2, 4, ... above the fitting start (the answer is expected near
                                  the hint) instead of doubling the value */

/* The hint first (the plan's own value): when it fits the search starts there, else it starts at the
 * first fitting value of 1 .. 1+UP (none: value 0). Then exponential search up, binary search down to a
 * boundary (value fits, value+1 does not), then the neighbours: a fitting value among value+2 ..
 * value+1+UP restarts the search from there; values value-1 .. value-DOWN that fail are gaps. Returns 0
 * or the callback's error. */
int vp_search_largest(vp_fits_fn fits, void *ctx, int64_t hint, int64_t cap, int flags, vp_search *out);

/* ---- plan_sweep.c / plan_fit.c ----------------------------------------------------------------- */
/* The sweep's values: n evenly spaced (power-of-two step) up to about 2 × largest, plus 1, largest and
 * largest + 1, capped at limit; sorted, distinct. Returns how many were written (<= max). */
int vp_sweep_values(int64_t largest, int64_t current, int64_t limit, int n, int64_t *out, int max);

/* plan_json.c: the one-call JSON entry points; the estimate@1 tree and printing are estimate_json.c's
 * (util.h: vp_estimate_to_cjson, vp_cjson_print). */

#endif
