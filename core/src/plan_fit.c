/* plan_fit.c: the largest batch, sequence length or generated-token count that fits, the rest of the
 * plan kept (`vramplan fit`, docs/schema/fit.md). The search (plan_search.c) runs on the bare estimate
 * of a quiet copy of the plan (numbers only); the two answers, at value and at value + 1, are estimated
 * again with their explanations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planning.h"
#include "util.h"

typedef struct {
    vp_plan *plan;
    vp_field field;
    vp_estimate *e;
    vp_error err;
} fit_ctx;

/* 1 fits, 0 does not (or is not a plannable value), -1 the estimate failed */
static int fits_at(void *p, int64_t v) {
    fit_ctx *c = p;
    if (vp_plan_field_set(c->plan, c->field, v, &c->err) != VP_OK) return 0;
    if (vp_estimate_plan(c->plan, c->e, &c->err) != VP_OK) return -1;
    return c->e->fits;
}

/* "workload.batch = 9 does not fit: GPU 0 needs ..., Peak in backward. Largest: ..." from the summary */
static void next_reason(const vp_fit *f, char *dst, size_t n) {
    const char *name = vp_field_name(f->field);
    long long v = (long long)f->value + 1;
    const char *s = f->next.summary;
    static const char prefix[] = "Does not fit: ";
    int w;
    if (f->next.fits)
        w = snprintf(dst, n, "workload.%s = %lld fits as well, but the search stopped (memory goes up and down with %s): %s",
                     name, v, name, s);
    else if (!strncmp(s, prefix, sizeof prefix - 1))
        w = snprintf(dst, n, "workload.%s = %lld does not fit: %s", name, v, s + sizeof prefix - 1);
    else
        w = snprintf(dst, n, "workload.%s = %lld: %s", name, v, s);
    if (w < 0) dst[0] = '\0';
}

vp_status vp_fit_plan(const vp_plan *plan, vp_field field, vp_fit *out, vp_error *err_out) {
    vp_error local, *err = err_out ? err_out : &local;
    vp_error_clear(err);
    if (!plan || !out) return vp_fail(err, VP_ERR_FIELD, "", "no plan");
    if ((unsigned)field > VP_FIELD_NEW_TOKENS) return vp_fail(err, VP_ERR_FIELD, "field", "unknown workload field");
    out->field = field;
    out->value = out->limit = 0;
    out->limited = out->n_estimates = out->n_gaps = 0;
    out->next_reason[0] = out->limit_reason[0] = '\0';
    vp_status st = vp_plan_field_limit(plan, field, &out->limit, out->limit_reason, sizeof out->limit_reason, err);
    if (st) return st;
    fit_ctx c = {.plan = malloc(sizeof *c.plan), .field = field, .e = &out->next};
    if (!c.plan) return vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    *c.plan = *plan;
    c.plan->quiet = 1;
    vp_search s;
    if (vp_search_largest(fits_at, &c, vp_plan_field_get(plan, field), out->limit, 0, &s) < 0) {
        *err = c.err;
        st = err->code;
        goto done;
    }
    out->value = s.value;
    out->n_estimates = s.n_calls;
    out->n_gaps = s.n_gaps;
    memcpy(out->gaps, s.gaps, sizeof s.gaps);
    /* the answers, with their explanations */
    c.plan->quiet = plan->quiet;
    out->estimate.n_devices = out->next.n_devices = 0;
    out->estimate.fits = out->next.fits = 0;
    if (out->value >= 1) {
        if ((st = vp_plan_field_set(c.plan, field, out->value, err)) || (st = vp_estimate_plan(c.plan, &out->estimate, err)))
            goto done;
        out->n_estimates++;
    }
    if (out->value >= out->limit) {
        out->limited = 1;
        snprintf(out->next_reason, sizeof out->next_reason, "workload.%s = %lld is the largest value to plan: %s",
                 vp_field_name(field), (long long)out->value, out->limit_reason);
    } else if (vp_plan_field_set(c.plan, field, out->value + 1, &c.err)) {
        out->limited = 1; /* plannable values end here (the bytes-per-step check) */
        snprintf(out->next_reason, sizeof out->next_reason, "%s", c.err.message);
    } else {
        if ((st = vp_estimate_plan(c.plan, &out->next, err))) goto done;
        out->n_estimates++;
        next_reason(out, out->next_reason, sizeof out->next_reason);
    }
done:
    free(c.plan);
    return st;
}
