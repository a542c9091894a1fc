/* plan_serve.c: the answers people want from a serve plan, each re-estimated by the core on an
 * edited copy of the plan (planning layer: calls vp_estimate_plan, never the reverse):
 *   - the KV-cache tokens and maximum concurrency (the estimate itself) and the concurrency at other
 *     context lengths;
 *   - the longest max_model_len (llama.cpp: ctx_size) with which the engine starts;
 *   - the fewest GPUs (tensor-parallel degree) that reach workload.target_concurrency requests of
 *     max_model_len;
 *   - llama.cpp: the most layers (-ngl) that fit the card;
 * each with its launch command. */
#include <stdlib.h>
#include <string.h>

#include "plan_serve.h"
#include "planning.h"
#include "util.h"

typedef struct {
    vp_plan *p;
    vp_estimate *e;
} ctx;

/* Estimate the edited copy; 1 = the engine starts (fits), 0 = not, -1 = error. */
static int run(ctx *c, vp_error *err) {
    if (vp_estimate_plan(c->p, c->e, err) != VP_OK) return -1;
    return c->e->fits ? 1 : 0;
}

/* the largest v in [lo, hi] with ok(v), given ok(lo) (memory grows with v: bisection) */
static int64_t largest(ctx *c, int64_t lo, int64_t hi, int64_t *field, vp_error *err) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        *field = mid;
        int r = run(c, err);
        if (r < 0) return -1;
        if (r) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

vp_status vp_serve_answers(const vp_plan *plan, vp_estimate *e, vp_error *err) {
    vp_serving *o = &e->serving;
    const vp_plan_serve *sv0 = &plan->serve;
    ctx c = {malloc(sizeof *plan), malloc(sizeof *e)};
    if (!c.p || !c.e) {
        free(c.p);
        free(c.e);
        return vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    }
    vp_status st = VP_OK;
    vp_serve_settings *s = &c.p->serve.s;
    int cpp = sv0->s.engine == VP_ENGINE_LLAMACPP;
    o->has_answers = 1;
    o->target_concurrency = sv0->target_concurrency > 0 ? sv0->target_concurrency : 1;
    o->best_n_gpu_layers = -1;
    int64_t maxpos = sv0->m.max_positions > 0 ? sv0->m.max_positions : 4096;
    if (maxpos > 16777216) maxpos = 16777216;
    /* concurrency at other lengths (vLLM / SGLang: the pool does not depend on max_model_len) */
    if (!cpp) {
        static const int64_t lens[] = {2048, 8192, 32768, 131072};
        o->n_at = 0;
        int64_t want[6];
        int nw = 0;
        if (sv0->context_len) want[nw++] = sv0->context_len;
        for (int k = 0; k < 4; k++)
            if (lens[k] <= maxpos && lens[k] != sv0->context_len) want[nw++] = lens[k];
        for (int k = 0; k < nw && o->n_at < 6; k++) {
            *c.p = *plan;
            s->max_model_len = want[k];
            if (run(&c, err) < 0) goto fail;
            o->at_len[o->n_at] = want[k];
            o->at_concurrency[o->n_at++] = c.e->serving.max_concurrency;
        }
    }
    /* the longest max_model_len / ctx_size that starts */
    *c.p = *plan;
    int64_t *len = cpp ? &s->ctx_size : &s->max_model_len;
    *len = cpp ? 256 : 16;
    int r = run(&c, err);
    if (r < 0) goto fail;
    o->longest_max_model_len = 0;
    if (r) {
        int64_t best = largest(&c, *len, cpp ? 16777216 : maxpos, len, err);
        if (best < 0) goto fail;
        o->longest_max_model_len = best;
        *len = best;
        vp_serve_launch(&c.p->serve, o->longest_launch, sizeof o->longest_launch);
    }
    /* fewest GPUs for the target concurrency at max_model_len */
    o->fewest_tp = 0;
    if (!cpp) {
        for (int64_t tp = 1; tp <= VP_MAX_GPUS; tp *= 2) {
            if (sv0->m.heads % tp) continue;
            *c.p = *plan;
            s->tp = tp;
            s->pp = 1;
            c.p->par.tp = tp;
            if ((r = run(&c, err)) < 0) goto fail;
            if (r && c.e->serving.max_concurrency >= o->target_concurrency) {
                o->fewest_tp = tp;
                o->fewest_tp_concurrency = c.e->serving.max_concurrency;
                vp_serve_launch(&c.p->serve, o->fewest_launch, sizeof o->fewest_launch);
                break;
            }
        }
    } else {
        /* the most layers on the card at this ctx_size */
        *c.p = *plan;
        int64_t L = sv0->m.layers;
        s->n_gpu_layers = 0;
        if ((r = run(&c, err)) < 0) goto fail;
        if (r) {
            int64_t best = largest(&c, 0, L + 1, &s->n_gpu_layers, err);
            if (best < 0) goto fail;
            o->best_n_gpu_layers = best;
            s->n_gpu_layers = best;
            vp_serve_launch(&c.p->serve, o->ngl_launch, sizeof o->ngl_launch);
        }
    }
    goto done;
fail:
    st = err->code ? err->code : VP_ERR_RANGE;
done:
    free(c.p);
    free(c.e);
    return st;
}
