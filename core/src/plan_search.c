/* plan_search.c: the largest integer in 1..cap for which a predicate ("the plan fits") holds, found
 * without assuming the predicate is monotone: memory need not grow with every step of batch or
 * sequence (allocator rounding, kernels picked by size), so after the exponential and binary search
 * the neighbours of the boundary are evaluated too. */
#include <string.h>

#include "planning.h"

#define MEMO 160 /* distinct values one search evaluates: ~2 × 24 halvings + neighbours, with restarts */
#define MAX_RESTARTS 8

typedef struct {
    vp_fits_fn fits;
    void *ctx;
    int n;
    int64_t v[MEMO];
    signed char r[MEMO];
    int err;
} memo;

/* fits(value), each value evaluated once */
static int eval(memo *m, int64_t value) {
    for (int i = 0; i < m->n; i++)
        if (m->v[i] == value) return m->r[i];
    int r = m->fits(m->ctx, value);
    if (r < 0) {
        m->err = r;
        return 0;
    }
    if (m->n < MEMO) {
        m->v[m->n] = value;
        m->r[m->n++] = (signed char)(r > 0);
    }
    return r > 0;
}

int vp_search_largest(vp_fits_fn fits, void *ctx, int64_t hint, int64_t cap, int flags, vp_search *out) {
    memset(out, 0, sizeof *out);
    memo *m = &(memo){.fits = fits, .ctx = ctx};
    int64_t lo = 0, hi = 0; /* lo fits; hi (when > 0) does not */
    int have_hint = hint >= 1 && hint <= cap;
    if (have_hint && eval(m, hint)) {
        lo = hint;
    } else if (!(flags & VP_SEARCH_ABOVE_HINT) || !have_hint) {
        if (have_hint) hi = hint;
        for (int64_t v = 1; v <= cap && v <= 1 + VP_SEARCH_UP && !m->err; v++)
            if (eval(m, v)) {
                lo = v;
                break;
            }
        if (hi && lo >= hi) hi = 0; /* a value above the failing hint fits: search up from it */
    }
    for (int restart = 0; lo > 0 && restart < MAX_RESTARTS && !m->err; restart++) {
        /* exponential: double the value (or, galloping, the step above it) until a value fails or the
         * cap is reached */
        for (int64_t step = 1; !hi && lo < cap && !m->err; step *= 2) {
            int64_t grow = flags & VP_SEARCH_GALLOP ? step : lo;
            int64_t next = lo > cap - grow ? cap : lo + grow;
            if (eval(m, next))
                lo = next;
            else
                hi = next;
        }
        /* binary: keep lo fitting and hi failing until they are neighbours */
        while (hi && hi - lo > 1 && !m->err) {
            int64_t mid = lo + (hi - lo) / 2;
            if (eval(m, mid))
                lo = mid;
            else
                hi = mid;
        }
        /* above the boundary: lo+1 fails (or lo == cap); does anything just above fit again? */
        int64_t above = 0;
        for (int64_t v = lo + 2; v <= lo + 1 + VP_SEARCH_UP && v <= cap && !m->err; v++)
            if (eval(m, v)) above = v;
        if (!above) break;
        lo = above;
        hi = 0;
    }
    /* below the boundary: memory may have a bump just under the largest fitting value */
    if (!(flags & VP_SEARCH_NO_BELOW))
        for (int64_t v = lo - 1; v >= 1 && v >= lo - VP_SEARCH_DOWN && !m->err; v--) eval(m, v);
    out->value = lo;
    out->n_calls = m->n;
    /* gaps: the evaluated values below lo that did not fit, largest first (the largest few kept) */
    for (int i = 0; i < m->n; i++) {
        if (m->r[i] || m->v[i] >= lo) continue;
        int k;
        if (out->n_gaps < VP_FIT_MAX_GAPS)
            k = out->n_gaps++;
        else if (m->v[i] > out->gaps[VP_FIT_MAX_GAPS - 1])
            k = VP_FIT_MAX_GAPS - 1;
        else
            continue;
        out->gaps[k] = m->v[i];
        for (; k > 0 && out->gaps[k - 1] < out->gaps[k]; k--) {
            int64_t t = out->gaps[k - 1];
            out->gaps[k - 1] = out->gaps[k];
            out->gaps[k] = t;
        }
    }
    return m->err;
}
