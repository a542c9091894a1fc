/* plan_recommend.c: the training setups that fit for a global batch, fastest first (`vramplan
 * recommend`, docs/schema/recommend.md).
 *
 * A setup is micro-batch b × gradient accumulation (global batch / (b × dp), so b runs over the
 * divisors of global / dp) × checkpointing every k-th block (k in 0 = off, 1, 2, 4, ... up to the
 * blocks) × optimizer implementation (the plan's optimizer family: torch Adam/AdamW fused and foreach,
 * bitsandbytes 8-bit, paged 8-bit and paged 32-bit; other optimizers as they are) × precision (the
 * plan's, then amp and pure bf16 where the GPU has bf16, else amp fp16). Only `fits` of the bare
 * estimate decides.
 *
 * Fastest first means, in this order:
 *   1. the largest micro-batch (fewest, fullest kernels per sample);
 *   2. the least recompute: no checkpointing, then checkpointing every k-th block with the largest k
 *      (1/k of the blocks run their forward twice);
 *   3. the plan's own precision before a change of numerics;
 *   4. the fewest optimizer-state bytes (paged states counted at their size: paging them out is slow);
 *   5. the implementation: fused, foreach, for-loop, 8-bit, paged 8-bit, paged 32-bit;
 *   6. then a fixed order of the choices, so every build lists the same setups.
 *
 * Speed: the setups are not all estimated. Each combination of (k, optimizer, precision) gets one
 * search over its micro-batches (plan_search.c: exponential, binary, neighbours), and a combination
 * that does not fit at the micro-batch of the current N-th best entry is skipped after that one
 * estimate: none of its setups can enter the top N. The listed setups are backed by an estimate each.
 *
 * Allocator settings: the estimates use the plan's runtime.pytorch_cuda_alloc_conf. When a setup that
 * would rank above the winner failed on fragmentation (its allocated peak fits, but a request finds no
 * free block: vp_device.fragmentation), the plan does not already expand segments, and that setup fits
 * with expandable_segments:True (one more estimate), the setups are ranked again with it added and that
 * ranking is kept when its winner has a larger micro-batch or less recompute; the winner's
 * PYTORCH_CUDA_ALLOC_CONF then says so. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffusers.h"
#include "planning.h"
#include "terms.h"
#include "util.h"

#define MAX_GLOBAL_BATCH (1LL << 30)
#define MAX_ACCUM 1000000LL /* workload.grad_accum range of the plan format */
#define MAX_GC 16           /* checkpoint choices: 0 and powers of two up to 4096 blocks, and the plan's own */
#define MAX_OPT 6
#define MAX_PREC 4

typedef struct {
    int64_t gc;
    vp_optimizer opt;
    vp_opt_impl impl;
    vp_precision prec;
    int own_prec;         /* the plan's precision */
    int impl_rank;        /* key 5 */
    int64_t state_bytes;  /* key 4 */
    int best;             /* 1 + index of the largest fitting micro-batch; 0: none (or skipped) */
    int frag_i;           /* 1 + index of the smallest micro-batch estimated that failed on fragmentation; 0 none */
    int rec_i;            /* 1 + index of the largest fitting micro-batch estimated so far, rec its numbers */
    vp_recommendation rec;
} combo;

typedef struct {
    const vp_plan *base;
    vp_plan *p;
    vp_estimate *e;
    combo *c;
    const int64_t *div;   /* micro-batches (divisors), ascending */
    int64_t per_rank;     /* global batch / dp */
    unsigned ckpt_mask, prec_mask, opt_mask;
    int n_estimates;
    vp_error err;
} ctx_t;

static int is_adam_family(vp_optimizer o) {
    return o == VP_OPT_ADAMW || o == VP_OPT_ADAM || o == VP_OPT_ADAMW_8BIT || o == VP_OPT_PAGED_ADAMW ||
           o == VP_OPT_PAGED_ADAMW_8BIT;
}

static int same_family(vp_optimizer a, vp_optimizer b) { return a == b || (is_adam_family(a) && is_adam_family(b)); }

/* TrainingArguments(optim=...) names (transformers.training_args.OptimizerNames) */
static const char *hf_optim(vp_optimizer o, vp_opt_impl impl) {
    switch (o) {
    case VP_OPT_ADAMW:
    case VP_OPT_ADAM: return impl == VP_IMPL_FUSED ? "adamw_torch_fused" : "adamw_torch";
    case VP_OPT_ADAMW_8BIT: return "adamw_bnb_8bit";
    case VP_OPT_PAGED_ADAMW: return "paged_adamw_32bit";
    case VP_OPT_PAGED_ADAMW_8BIT: return "paged_adamw_8bit";
    case VP_OPT_ADAFACTOR: return "adafactor";
    case VP_OPT_SGD:
    case VP_OPT_SGD_MOMENTUM: return "sgd";
    case VP_OPT_LION: return "lion_32bit";
    }
    return "adamw_torch";
}

static int impl_rank(vp_optimizer o, vp_opt_impl impl) {
    switch (o) {
    case VP_OPT_ADAMW_8BIT: return 3;
    case VP_OPT_PAGED_ADAMW_8BIT: return 4;
    case VP_OPT_PAGED_ADAMW: return 5;
    default: return impl == VP_IMPL_FUSED ? 0 : impl == VP_IMPL_FOREACH ? 1 : 2;
    }
}

static const char *const k_opt_names[] = {"adamw", "adam", "sgd", "sgd_momentum", "adafactor", "lion",
                                          "adamw_8bit", "paged_adamw", "paged_adamw_8bit"};
static const char *const k_impl_names[] = {"foreach", "fused", "forloop"};

/* The plan with combination c at micro-batch b: only the instances the masks name change. */
static void apply(ctx_t *x, const combo *c, int64_t b) {
    vp_plan *p = x->p;
    *p = *x->base;
    p->quiet = 1;
    p->batch = b;
    p->grad_accum = x->per_rank / b;
    for (int i = 0; i < p->n_instances; i++) {
        vp_instance *in = &p->inst[i];
        if (x->ckpt_mask >> i & 1) in->gc_every = c->gc;
        if (x->prec_mask >> i & 1) in->precision = c->prec;
        if (x->opt_mask >> i & 1) {
            in->optimizer = c->opt;
            in->impl = c->impl;
        }
    }
}

/* Optimizer-state bytes of the trained instances under c (key 4): vp_optimizer_compute, with a paged
 * optimizer counted as its unpaged twin (the estimate counts paged state as 0 on the GPU). */
static int64_t state_bytes(ctx_t *x, const combo *c) {
    apply(x, c, 1);
    int64_t s = 0;
    for (int i = 0; i < x->p->n_instances; i++) {
        vp_instance in = x->p->inst[i];
        if (!(x->prec_mask >> i & 1)) continue;
        if (in.optimizer == VP_OPT_PAGED_ADAMW) in.optimizer = VP_OPT_ADAMW;
        if (in.optimizer == VP_OPT_PAGED_ADAMW_8BIT) in.optimizer = VP_OPT_ADAMW_8BIT;
        vp_weights w;
        vp_optim o;
        vp_weights_compute(&in, &w);
        vp_optimizer_compute(&in, &w, &o);
        s += o.state_bytes;
    }
    return s;
}

static int cmp_i64_desc(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x > y ? -1 : x < y;
}

/* one setup to rank: its combination's keys copied in, so the comparison needs nothing else */
typedef struct {
    int c, i;            /* combination (in search order) and 1 + micro-batch index */
    int64_t b;           /* key 1 */
    int64_t k;           /* key 2: checkpoint every k-th block, INT64_MAX when off */
    int own_prec;        /* key 3 */
    int64_t state_bytes; /* key 4 */
    int impl_rank;       /* key 5 */
    int prec;            /* key 6, then c */
} entry;

/* the order documented at the top of this file */
static int cmp_entry(const void *pa, const void *pb) {
    const entry *a = pa, *b = pb;
    if (a->b != b->b) return a->b > b->b ? -1 : 1;
    if (a->k != b->k) return a->k > b->k ? -1 : 1; /* recompute 1/k: none first, then the largest k */
    if (a->own_prec != b->own_prec) return a->own_prec ? -1 : 1;
    if (a->state_bytes != b->state_bytes) return a->state_bytes < b->state_bytes ? -1 : 1;
    if (a->impl_rank != b->impl_rank) return a->impl_rank < b->impl_rank ? -1 : 1;
    if (a->prec != b->prec) return a->prec < b->prec ? -1 : 1;
    return a->c != b->c ? a->c - b->c : a->i - b->i;
}

/* search order: the combinations that save the most memory first, so the top-N threshold rises early */
static int cmp_search_order(const void *pa, const void *pb) {
    const combo *a = pa, *b = pb;
    int64_t ka = a->gc ? a->gc : INT64_MAX, kb = b->gc ? b->gc : INT64_MAX;
    if (ka != kb) return ka < kb ? -1 : 1;
    if (a->state_bytes != b->state_bytes) return a->state_bytes < b->state_bytes ? -1 : 1;
    if (a->prec != b->prec) return a->prec > b->prec ? -1 : 1; /* bf16 (3) before amp (1) before fp32 (0) */
    return a->impl_rank - b->impl_rank;
}

static void fill_entry(vp_recommendation *r, const combo *c, int64_t b, int64_t per_rank, const vp_estimate *e) {
    memset(r, 0, sizeof *r);
    r->micro_batch = b;
    r->grad_accum = per_rank / b;
    r->gc_every = c->gc;
    r->recompute = c->gc ? 1.0 / (double)c->gc : 0.0;
    vp_strlcpy(r->precision, vp_precision_names[c->prec], sizeof r->precision);
    vp_strlcpy(r->optimizer, k_opt_names[c->opt], sizeof r->optimizer);
    vp_strlcpy(r->optim_impl, k_impl_names[c->impl], sizeof r->optim_impl);
    vp_strlcpy(r->hf_optim, hf_optim(c->opt, c->impl), sizeof r->hf_optim);
    r->optimizer_state_bytes = (uint64_t)c->state_bytes;
    const vp_device *d = vp_tightest_device(e);
    if (d) {
        r->device = d->index;
        r->peak_alloc_bytes = d->peak_alloc_bytes;
        r->peak_reserved_bytes = d->peak_reserved_bytes;
        r->usable_bytes = d->usable_bytes;
        r->headroom_bytes = d->headroom_bytes;
        vp_strlcpy(r->peak_phase, d->peak_phase, sizeof r->peak_phase);
    }
    vp_strlcpy(r->summary, e->summary, sizeof r->summary);
}

/* search callback: does combination x->c fit at micro-batch div[i - 1]? The largest fitting one is kept
 * with its numbers, so the listed setups need no second estimate. */
static int fits_at(void *p, int64_t i) {
    ctx_t *x = p;
    apply(x, x->c, x->div[i - 1]);
    vp_error e2;
    if (vp_plan_check_magnitudes(x->p, &e2)) return 0;
    x->n_estimates++;
    if (vp_estimate_plan(x->p, x->e, &x->err) != VP_OK) return -1;
    if (!x->e->fits) {
        const vp_device *d = vp_tightest_device(x->e);
        if (d && d->fragmentation && (!x->c->frag_i || i < x->c->frag_i)) x->c->frag_i = (int)i;
    }
    if (x->e->fits && i > x->c->rec_i) {
        x->c->rec_i = (int)i;
        fill_entry(&x->c->rec, x->c, x->div[i - 1], x->per_rank, x->e);
    }
    return x->e->fits;
}

/* the combinations for the plan: checkpointing × optimizer implementations × precisions */
static int enumerate(const vp_plan *plan, const vp_instance *ref, int64_t layers, combo *out) {
    int64_t gcs[MAX_GC];
    int ng = 0;
    gcs[ng++] = 0;
    for (int64_t k = 1; k <= layers && ng < MAX_GC - 1; k *= 2) gcs[ng++] = k;
    int own = 0;
    for (int i = 0; i < ng; i++) own |= gcs[i] == ref->gc_every;
    if (!own) gcs[ng++] = ref->gc_every;

    vp_optimizer opts[MAX_OPT];
    vp_opt_impl impls[MAX_OPT];
    int no = 0;
    if (is_adam_family(ref->optimizer)) {
        vp_optimizer torch_opt = ref->optimizer == VP_OPT_ADAM ? VP_OPT_ADAM : VP_OPT_ADAMW;
        opts[no] = torch_opt, impls[no++] = VP_IMPL_FUSED;
        opts[no] = torch_opt, impls[no++] = VP_IMPL_FOREACH;
        if (ref->impl == VP_IMPL_FORLOOP && (ref->optimizer == VP_OPT_ADAM || ref->optimizer == VP_OPT_ADAMW))
            opts[no] = torch_opt, impls[no++] = VP_IMPL_FORLOOP; /* the plan's own; otherwise fused is as lean and faster */
        opts[no] = VP_OPT_ADAMW_8BIT, impls[no++] = VP_IMPL_FOREACH;
        opts[no] = VP_OPT_PAGED_ADAMW_8BIT, impls[no++] = VP_IMPL_FOREACH;
        opts[no] = VP_OPT_PAGED_ADAMW, impls[no++] = VP_IMPL_FOREACH;
    } else {
        opts[no] = ref->optimizer, impls[no++] = ref->impl;
    }

    vp_precision precs[MAX_PREC];
    int np = 0;
    precs[np++] = ref->precision;
    int bf16 = plan->gpu.bf16 || ref->precision == VP_PREC_AMP_BF16 || ref->precision == VP_PREC_BF16 ||
               ref->precision == VP_PREC_BF16_MASTER;
    vp_precision more[2] = {bf16 ? VP_PREC_AMP_BF16 : VP_PREC_AMP_FP16, VP_PREC_BF16};
    for (int k = 0; k < (bf16 ? 2 : 1); k++)
        if (more[k] != ref->precision) precs[np++] = more[k];

    int n = 0;
    for (int g = 0; g < ng; g++)
        for (int o = 0; o < no; o++)
            for (int q = 0; q < np; q++) {
                combo *c = &out[n++];
                memset(c, 0, sizeof *c);
                c->gc = gcs[g];
                c->opt = opts[o];
                c->impl = impls[o];
                c->prec = precs[q];
                c->own_prec = q == 0;
                c->impl_rank = impl_rank(c->opt, c->impl);
            }
    return n;
}

static vp_status rank_setups(const vp_plan *plan, int ref_i, int64_t layers, int64_t per_rank, int64_t bmax, int top_n,
                             vp_recommend *out, int *frag, vp_error *err);

vp_status vp_recommend_plan(const vp_plan *plan, int64_t global_batch, int top_n, vp_recommend *out, vp_error *err_out) {
    vp_error local, *err = err_out ? err_out : &local;
    vp_error_clear(err);
    if (!plan || !out) return vp_fail(err, VP_ERR_FIELD, "", "no plan");
    memset(out, 0, offsetof(vp_recommend, r));
    out->alloc_conf[0] = '\0';
    out->ckpt_instances = out->precision_instances = out->optim_instances = 0;
    if (plan->mode != VP_MODE_TRAIN)
        return vp_fail(err, VP_ERR_FIELD, "workload.mode",
                       "recommend chooses training settings (micro-batch, accumulation, checkpointing, optimizer, "
                       "precision); this plan is an inference plan (use `fit --max batch|seq|new-tokens|frames`)");
    const vp_instance *ref = NULL;
    int ref_i = -1;
    int64_t layers = 0;
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_instance *in = &plan->inst[i];
        if (vp_inst_trained(in) && !ref) ref = in, ref_i = i;
        if (vp_inst_keeps_graph(in)) {
            out->ckpt_instances |= 1u << i;
            if (in->arch.layers + in->arch.dec_layers > layers) layers = in->arch.layers + in->arch.dec_layers;
        }
    }
    if (!ref) return vp_fail(err, VP_ERR_FIELD, "instances", "no instance of this plan trains: nothing to recommend");
    out->diffusion = VP_DC_IS_DIT(ref->arch.dclass);
    out->autocast = ref->autocast16;
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_instance *in = &plan->inst[i];
        if (!vp_inst_trained(in)) continue;
        out->precision_instances |= 1u << i;
        if (same_family(in->optimizer, ref->optimizer)) out->optim_instances |= 1u << i;
    }
    int64_t dp = plan->par.dp > 0 ? plan->par.dp : 1;
    int64_t g = global_batch > 0 ? global_batch : plan->batch * plan->grad_accum * dp;
    if (g > MAX_GLOBAL_BATCH)
        return vp_fail(err, VP_ERR_RANGE, "global_batch", "global batch %lld: at most %lld", (long long)g,
                       (long long)MAX_GLOBAL_BATCH);
    if (g % dp)
        return vp_fail(err, VP_ERR_RANGE, "global_batch",
                       "global batch %lld is not a multiple of the %lld data-parallel ranks (parallel.dp): "
                       "micro-batch × accumulation × dp must equal it",
                       (long long)g, (long long)dp);
    out->global_batch = g;
    out->dp = dp;
    int64_t per_rank = g / dp, bmax = 0;
    char why[160];
    vp_status st = vp_plan_field_limit(plan, VP_FIELD_BATCH, &bmax, why, sizeof why, err);
    if (st) return st;
    if (top_n < 1) top_n = 10;
    if (top_n > VP_RECOMMEND_MAX) top_n = VP_RECOMMEND_MAX;

    int frag = 0;
    if ((st = rank_setups(plan, ref_i, layers, per_rank, bmax, top_n, out, &frag, err))) return st;
    /* the allocator settings the estimates were made with: the plan's runtime.pytorch_cuda_alloc_conf */
    vp_strlcpy(out->alloc_conf, plan->alloc_conf_text, sizeof out->alloc_conf);
    if (!frag || plan->alloc_conf.expandable_segments || plan->alloc_conf.backend_cuda_malloc_async) return VP_OK;
    /* Fragmentation decided: a faster setup than the winner fits with expandable_segments:True. Rank
     * again with it, and keep that ranking when its winner is faster. */
    vp_plan *xp = malloc(sizeof *xp);
    vp_recommend *alt = malloc(sizeof *alt);
    if (!xp || !alt) {
        free(xp);
        free(alt);
        return vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    }
    *xp = *plan;
    xp->alloc_conf.expandable_segments = 1;
    int w = snprintf(xp->alloc_conf_text, sizeof xp->alloc_conf_text, "%s%sexpandable_segments:True", plan->alloc_conf_text,
                     plan->alloc_conf_text[0] ? "," : "");
    *alt = *out;
    alt->n = 0;
    int frag2 = 0;
    st = w > 0 && (size_t)w < sizeof xp->alloc_conf_text ? rank_setups(xp, ref_i, layers, per_rank, bmax, top_n, alt, &frag2, err) : VP_OK;
    if (st == VP_OK && alt->n > 0 &&
        (out->n == 0 || alt->r[0].micro_batch > out->r[0].micro_batch ||
         (alt->r[0].micro_batch == out->r[0].micro_batch && alt->r[0].recompute < out->r[0].recompute))) {
        alt->n_estimates += out->n_estimates;
        alt->n_setups += out->n_setups;
        *out = *alt;
        vp_strlcpy(out->alloc_conf, xp->alloc_conf_text, sizeof out->alloc_conf);
    } else if (st == VP_OK) {
        out->n_estimates += alt->n_estimates;
        out->n_setups += alt->n_setups;
    }
    free(xp);
    free(alt);
    return st;
}

/* Rank the setups of plan (its instance ref_i sets the optimizer family and precision) into out. */
static vp_status rank_setups(const vp_plan *plan, int ref_i, int64_t layers, int64_t per_rank, int64_t bmax, int top_n,
                             vp_recommend *out, int *frag, vp_error *err) {
    const vp_instance *ref = &plan->inst[ref_i];
    vp_status st = VP_OK;
    /* micro-batches: divisors of per_rank within the plan format's batch and accumulation ranges */
    int nd = 0, cap_d = 2048;
    int64_t *div = malloc((size_t)cap_d * sizeof *div);
    combo *cs = malloc(MAX_GC * MAX_OPT * MAX_PREC * sizeof *cs);
    ctx_t x = {.base = plan, .p = malloc(sizeof *x.p), .e = malloc(sizeof *x.e), .per_rank = per_rank,
               .ckpt_mask = out->ckpt_instances, .prec_mask = out->precision_instances, .opt_mask = out->optim_instances};
    entry *ents = NULL;
    if (!div || !cs || !x.p || !x.e) {
        st = vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
        goto done;
    }
    for (int64_t d = 1; d * d <= per_rank && nd < cap_d - 1; d++) {
        if (per_rank % d) continue;
        int64_t pair[2] = {d, per_rank / d};
        for (int k = 0; k < (pair[0] == pair[1] ? 1 : 2); k++)
            if (pair[k] <= bmax && per_rank / pair[k] <= MAX_ACCUM) div[nd++] = pair[k];
    }
    qsort(div, (size_t)nd, sizeof *div, cmp_i64_desc);
    for (int i = 0; i < nd / 2; i++) { /* ascending */
        int64_t t = div[i];
        div[i] = div[nd - 1 - i];
        div[nd - 1 - i] = t;
    }
    x.div = div;
    int nc = enumerate(plan, ref, layers, cs);
    for (int c = 0; c < nc; c++) cs[c].state_bytes = state_bytes(&x, &cs[c]);
    qsort(cs, (size_t)nc, sizeof *cs, cmp_search_order);
    out->n_setups = (int64_t)nc * nd;

    /* search each combination, skipping those that cannot reach the current top N */
    int64_t *bests = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *bests);
    int nb = 0;
    int64_t last_best = 0;
    if (!bests) {
        st = vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
        goto done;
    }
    for (int c = 0; c < nc && nd > 0; c++) {
        x.c = &cs[c];
        /* start where the last combination ended (neighbouring combinations fit similar micro-batches) */
        int64_t hint = last_best ? last_best : nd;
        int flags = VP_SEARCH_NO_BELOW | (last_best ? VP_SEARCH_GALLOP : 0);
        if (nb >= top_n) {
            /* the N-th largest best micro-batch so far: setups below it rank after N that fit, so
             * a combination that does not fit there is dropped after that one estimate */
            qsort(bests, (size_t)nb, sizeof *bests, cmp_i64_desc);
            int ti = 0;
            while (ti < nd && div[ti] < bests[top_n - 1]) ti++;
            hint = ti + 1;
            flags |= VP_SEARCH_ABOVE_HINT;
        }
        if (hint < 1) hint = 1;
        vp_search s;
        if (vp_search_largest(fits_at, &x, hint, nd, flags, &s) < 0) break;
        cs[c].best = (int)s.value;
        if (s.value > 0) {
            bests[nb++] = div[s.value - 1];
            last_best = s.value;
        }
    }
    free(bests);
    if (x.err.code != VP_OK) {
        *err = x.err;
        st = err->code;
        goto done;
    }

    /* rank every setup at or below a combination's largest fitting micro-batch; list the first that fit */
    int ne = 0;
    for (int c = 0; c < nc; c++) ne += cs[c].best;
    ents = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *ents);
    if (!ents) {
        st = vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
        goto done;
    }
    ne = 0;
    for (int c = 0; c < nc; c++)
        for (int i = 1; i <= cs[c].best; i++)
            ents[ne++] = (entry){.c = c, .i = i, .b = div[i - 1], .k = cs[c].gc ? cs[c].gc : INT64_MAX,
                                 .own_prec = cs[c].own_prec, .state_bytes = cs[c].state_bytes,
                                 .impl_rank = cs[c].impl_rank, .prec = (int)cs[c].prec};
    qsort(ents, (size_t)ne, sizeof *ents, cmp_entry);
    for (int k = 0; k < ne && out->n < top_n; k++) {
        x.c = &cs[ents[k].c];
        if (ents[k].i == x.c->rec_i) { /* its combination's largest: estimated by the search */
            out->r[out->n++] = x.c->rec;
            continue;
        }
        int r = fits_at(&x, ents[k].i); /* a smaller micro-batch of the combination: estimated now */
        if (r < 0) {
            *err = x.err;
            st = err->code;
            goto done;
        }
        if (r) fill_entry(&out->r[out->n++], x.c, ents[k].b, per_rank, x.e);
    }
    /* Fragmentation: a setup that failed only for want of a free block (its allocated peak fits) and
     * would rank above the winner. Does it fit with expandable_segments:True? Then ranking again with
     * that setting gives a faster winner (vp_recommend_plan does it). */
    *frag = 0;
    for (int c = 0; c < nc && !*frag && !plan->alloc_conf.expandable_segments && !plan->alloc_conf.backend_cuda_malloc_async; c++) {
        const combo *cc = &cs[c];
        if (!cc->frag_i) continue;
        int64_t b = div[cc->frag_i - 1];
        double rc = cc->gc ? 1.0 / (double)cc->gc : 0.0;
        if (out->n && !(b > out->r[0].micro_batch || (b == out->r[0].micro_batch && rc < out->r[0].recompute))) continue;
        apply(&x, cc, b);
        x.p->alloc_conf.expandable_segments = 1;
        x.n_estimates++;
        if (vp_estimate_plan(x.p, x.e, &x.err) != VP_OK) break;
        *frag = x.e->fits;
    }
    if (x.err.code != VP_OK) {
        *err = x.err;
        st = err->code;
    }
    out->n_estimates = x.n_estimates;
done:
    free(ents);
    free(div);
    free(cs);
    free(x.p);
    free(x.e);
    return st;
}
