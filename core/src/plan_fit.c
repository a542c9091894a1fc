/* plan_fit.c: the largest batch, sequence length, generated-token count or video frame count that fits,
 * the rest of the plan kept (`vramplan fit`, docs/schema/fit.md). The search (plan_search.c) runs on the
 * bare estimate of a verdict-only copy of the plan (estimate.c skips the allocator replay of a value whose
 * tensors alone do not fit); the two answers, at value and at value + step, are the search's own estimates
 * when it kept them, else estimated again. The search counts values 1, 2, 3, ...; the k-th is
 * 1 + (k - 1) × step (frames: 1, 5, 9, ... for a 4x temporal VAE; the rest: k itself). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planning.h"
#include "util.h"

/* The search's estimates are kept for the answer when they can be: the one at the largest value that
 * fits so far, and the one at the smallest value above it that does not. Three buffers, each estimate
 * going into one that holds neither. */
typedef struct {
    vp_plan *plan;
    vp_field field;
    int64_t step;
    vp_estimate *buf[3];
    vp_estimate *best, *above; /* NULL: none kept */
    int64_t best_v, above_v;   /* search counts */
    vp_error err;
} fit_ctx;

static vp_estimate *spare(fit_ctx *c) {
    for (int i = 0; i < 3; i++)
        if (c->buf[i] != c->best && c->buf[i] != c->above) return c->buf[i];
    return c->buf[0]; /* unreachable: two roles, three buffers */
}

/* The verdict-only estimate skipped the replay of a device whose tensors alone do not fit
 * (estimate.c): its reserved figures are not the full estimate's. */
static int complete(const vp_estimate *e) {
    for (int i = 0; i < e->n_devices; i++)
        if (!strcmp(e->devices[i].kind, "gpu") && e->devices[i].peak_alloc_bytes > e->devices[i].usable_bytes) return 0;
    return 1;
}

/* 1 fits, 0 does not (or is not a plannable value), -1 the estimate failed; v is a search count */
static int fits_at(void *p, int64_t v) {
    fit_ctx *c = p;
    if (vp_plan_field_set(c->plan, c->field, vp_field_value_of(v, c->step), &c->err) != VP_OK) return 0;
    vp_estimate *e = spare(c);
    if (vp_estimate_plan(c->plan, e, &c->err) != VP_OK) return -1;
    if (e->fits && (!c->best || v > c->best_v)) {
        c->best = e;
        c->best_v = v;
        if (c->above && c->above_v <= v) c->above = NULL;
    } else if (!e->fits && (!c->best || v > c->best_v) && (!c->above || v < c->above_v) && complete(e)) {
        c->above = e;
        c->above_v = v;
    }
    return e->fits;
}

/* "workload.batch = 9 does not fit: GPU 0 needs ..., Peak in backward. Largest: ..." from the summary */
static void next_reason(const vp_fit *f, char *dst, size_t n) {
    const char *name = vp_field_name(f->field);
    long long v = (long long)(f->value + f->step);
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
    if ((unsigned)field > VP_FIELD_FRAMES) return vp_fail(err, VP_ERR_FIELD, "field", "unknown workload field");
    out->field = field;
    out->step = 1;
    out->value = out->limit = 0;
    out->limited = out->n_estimates = out->n_gaps = 0;
    out->next_reason[0] = out->limit_reason[0] = '\0';
    vp_status st = vp_plan_field_limit(plan, field, &out->limit, out->limit_reason, sizeof out->limit_reason, err);
    if (st) return st;
    int64_t step = out->step = vp_plan_field_step(plan, field);
    /* the search's buffers: the two answers' own places and one more */
    fit_ctx c = {.plan = malloc(sizeof *c.plan),
                 .field = field,
                 .step = step,
                 .buf = {&out->estimate, &out->next, malloc(sizeof(vp_estimate))}};
    if (!c.plan || !c.buf[2]) {
        st = vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
        goto done;
    }
    *c.plan = *plan;
    c.plan->verdict_only = 1;
    vp_search s;
    if (vp_search_largest(fits_at, &c, vp_field_count_of(vp_plan_field_get(plan, field), step), vp_field_count_of(out->limit, step), 0, &s) < 0) {
        *err = c.err;
        st = err->code;
        goto done;
    }
    out->value = vp_field_value_of(s.value, step);
    out->n_estimates = s.n_calls;
    out->n_gaps = s.n_gaps;
    for (int i = 0; i < s.n_gaps; i++) out->gaps[i] = vp_field_value_of(s.gaps[i], step);
    /* the answers, with their explanations: the search's own estimates when it kept them (the same
     * plan, estimated the same way: verdict-only changes nothing for a value that fits, and `complete`
     * kept no other), else estimated again */
    c.plan->verdict_only = 0;
    int want_next = 0;
    if (out->value >= out->limit) {
        out->limited = 1;
        snprintf(out->next_reason, sizeof out->next_reason, "workload.%s = %lld is the largest value to plan: %s",
                 vp_field_name(field), (long long)out->value, out->limit_reason);
    } else if (vp_plan_field_set(c.plan, field, out->value + step, &c.err)) {
        out->limited = 1; /* plannable values end here (the bytes-per-step check) */
        snprintf(out->next_reason, sizeof out->next_reason, "%s", c.err.message);
    } else {
        want_next = 1;
    }
    vp_estimate *E = &out->estimate, *X = &out->next, *H = c.buf[2];
    vp_estimate *B = s.value >= 1 && c.best && c.best_v == s.value ? c.best : NULL;
    vp_estimate *N = want_next && c.above && c.above_v == s.value + 1 ? c.above : NULL;
    /* put the kept ones in place: B into E, N into X */
    if (N == E) {
        if (B == X) {
            memcpy(H, X, sizeof *H);
            B = H;
        }
        memcpy(X, E, sizeof *X);
        N = X;
    }
    if (B && B != E) memcpy(E, B, sizeof *E);
    if (N && N != X) memcpy(X, N, sizeof *X);
    if (!B) {
        E->n_devices = 0;
        E->fits = 0;
        if (out->value >= 1) {
            if ((st = vp_plan_field_set(c.plan, field, out->value, err)) || (st = vp_estimate_plan(c.plan, E, err))) goto done;
            out->n_estimates++;
        }
    }
    if (!N) {
        X->n_devices = 0;
        X->fits = 0;
        if (want_next) {
            if ((st = vp_plan_field_set(c.plan, field, out->value + step, err)) || (st = vp_estimate_plan(c.plan, X, err))) goto done;
            out->n_estimates++;
        }
    }
    if (want_next) next_reason(out, out->next_reason, sizeof out->next_reason);
done:
    free(c.plan);
    free(c.buf[2]);
    return st;
}
