/* events_block.c: one Llama-style decoder block run without keeping its graph, op by op as HF
 * LlamaDecoderLayer runs it (modeling_llama.py): every intermediate is freed as soon as nothing
 * references it. Used by generate's prefill (events_infer.c) and by the forward of checkpointed
 * blocks (events_train.c: torch.utils.checkpoint, non-reentrant, keeps only the block input). The
 * order of every allocation and free was read off the H100 trace l1b-infer-b8p1024n256
 * (tests/groundtruth/h100-2026-11-23/run1). */
#include "alloc_events.h"

/* LlamaRMSNorm under no_grad (modeling_llama.py), as the H100 trace of generate shows it:
 * x = hidden.to(fp32); var = x.pow(2).mean() (the square is freed); x = x * rsqrt(var) (the first
 * copy is freed); weight * x.to(dtype) (the cast is freed, then the fp32 x). */
int32_t vp_ev_norm_nograd(vp_events *e, double T, double h, double adt, double res) {
    if (adt >= 4 || res >= 4) { /* the input is already fp32 (fp32 model, or autocast's fp32 residual) */
        int32_t sq = vp_ev_alloc(e, (int64_t)(T * h * 4.0));
        vp_ev_free(e, sq);
        int32_t y = vp_ev_alloc(e, (int64_t)(T * h * 4.0));
        int32_t out = vp_ev_alloc(e, (int64_t)(T * h * adt));
        vp_ev_free(e, y);
        return out;
    }
    int32_t x = vp_ev_alloc(e, (int64_t)(T * h * 4.0));
    int32_t sq = vp_ev_alloc(e, (int64_t)(T * h * 4.0));
    vp_ev_free(e, sq);
    int32_t y = vp_ev_alloc(e, (int64_t)(T * h * 4.0));
    vp_ev_free(e, x);
    int32_t c = vp_ev_alloc(e, (int64_t)(T * h * adt));
    int32_t out = vp_ev_alloc(e, (int64_t)(T * h * adt));
    vp_ev_free(e, c);
    vp_ev_free(e, y);
    return out;
}

/* apply_rotary_pos_emb: x * cos + rotate_half(x) * sin, rotate_half = cat(-x2, x1). */
static int32_t rope(vp_events *e, double T, double w) {
    int32_t a = vp_ev_alloc(e, (int64_t)(T * w));       /* x * cos */
    int32_t n = vp_ev_alloc(e, (int64_t)(T * w / 2.0)); /* -x2 */
    int32_t r = vp_ev_alloc(e, (int64_t)(T * w));       /* cat */
    vp_ev_free(e, n);
    int32_t b = vp_ev_alloc(e, (int64_t)(T * w)); /* * sin */
    vp_ev_free(e, r);
    int32_t out = vp_ev_alloc(e, (int64_t)(T * w));
    vp_ev_free(e, b);
    vp_ev_free(e, a);
    return out;
}


int32_t vp_ev_block_nograd(vp_events *e, const vp_block_dims *d, int32_t in, int32_t *cache_k, int32_t *cache_v) {
    double T = d->T, h = d->h, qd = d->qd, kvd = d->kvd, f = d->f, adt = d->adt, in_b = d->in_b;
    int32_t nrm = vp_ev_norm_nograd(e, T, h, adt, d->res);
    int32_t q = vp_ev_alloc(e, (int64_t)(T * qd * in_b)), k = vp_ev_alloc(e, (int64_t)(T * kvd * in_b));
    int32_t v = vp_ev_alloc(e, (int64_t)(T * kvd * in_b));
    int32_t q2 = rope(e, T, qd * in_b), k2 = rope(e, T, kvd * in_b);
    vp_ev_free(e, q);
    vp_ev_free(e, k);
    if (cache_k && cache_v) {
        /* DynamicLayer.update: keys = torch.cat([keys, k]) (a copy), then values */
        *cache_k = vp_ev_alloc(e, (int64_t)(T * d->kvh));
        *cache_v = vp_ev_alloc(e, (int64_t)(T * d->kvh));
    }
    vp_ev_free(e, k2);
    vp_ev_free(e, v);
    int32_t o = vp_ev_alloc(e, (int64_t)(T * qd * in_b)); /* SDPA output */
    int32_t ao = vp_ev_alloc(e, (int64_t)(T * h * adt));  /* o_proj */
    vp_ev_free(e, o);
    vp_ev_free(e, q2);
    vp_ev_free(e, nrm);
    int32_t r2 = vp_ev_alloc(e, (int64_t)(T * h * d->res)); /* residual + attention */
    vp_ev_free(e, ao);
    (void)in;
    nrm = vp_ev_norm_nograd(e, T, h, adt, d->res);
    /* LlamaMLP: down(act(gate(x)) * up(x)) */
    int32_t g = vp_ev_alloc(e, (int64_t)(T * f * adt)), act = vp_ev_alloc(e, (int64_t)(T * f * adt));
    vp_ev_free(e, g);
    int32_t u = vp_ev_alloc(e, (int64_t)(T * f * adt)), pr = vp_ev_alloc(e, (int64_t)(T * f * adt));
    vp_ev_free(e, act);
    vp_ev_free(e, u);
    int32_t dn = vp_ev_alloc(e, (int64_t)(T * h * adt));
    vp_ev_free(e, pr);
    vp_ev_free(e, nrm);
    int32_t out = vp_ev_alloc(e, (int64_t)(T * h * d->res)); /* residual + MLP */
    vp_ev_free(e, dn);
    vp_ev_free(e, r2);
    return out;
}
