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


/* A projection's output of `ob` bytes per element. With a LoRA adapter, peft 0.21 lora.Linear.forward
 * (peft/tuners/lora/layer.py) with nothing saved for backward (a checkpointed block's forward): the
 * base output; the input cast to the adapter dtype (a copy when the dtypes differ); Dropout's bool
 * mask and output (the mask freed as Dropout returns); lora_A's output (the dropout output freed once
 * lora_A has read it); lora_B's output, its `* scaling` copy (lora_B's output freed), the sum with
 * the base output, promoted to the adapter dtype (the scaled copy and the base output freed), its
 * cast back to the base dtype (the sum freed), the input cast freed. Every allocation and free in
 * this order, as the H100 trace l7b-lora8qv-gc-b4s2048 (run3, allocations 593-601: q_proj of the
 * first block, fp32 adapters on bf16) shows; the saving variant is events_lora.c linear(). */
static int32_t proj(vp_events *e, const vp_block_dims *d, double in_w, double out_w, double ob, unsigned bit) {
    double T = d->T;
    int32_t r = vp_ev_alloc(e, (int64_t)(T * out_w * ob));
    if (!(d->lora_targets & bit)) return r;
    int32_t xc = d->ldt != ob ? vp_ev_alloc(e, (int64_t)(T * in_w * d->ldt)) : -1;
    int32_t drop = -1;
    if (d->lora_dropout) {
        int32_t mask = vp_ev_alloc(e, (int64_t)(T * in_w));
        drop = vp_ev_alloc(e, (int64_t)(T * in_w * d->ldt));
        vp_ev_free(e, mask);
    }
    int32_t a = vp_ev_alloc(e, (int64_t)(T * d->rank * d->ldt));
    vp_ev_free(e, drop);
    int32_t b = vp_ev_alloc(e, (int64_t)(T * out_w * d->ldt));
    vp_ev_free(e, a);
    int32_t sc = vp_ev_alloc(e, (int64_t)(T * out_w * d->ldt));
    vp_ev_free(e, b);
    double pdt = d->ldt > ob ? d->ldt : ob;
    int32_t sum = vp_ev_alloc(e, (int64_t)(T * out_w * pdt));
    vp_ev_free(e, sc);
    vp_ev_free(e, r);
    int32_t out = sum;
    if (pdt != ob) {
        out = vp_ev_alloc(e, (int64_t)(T * out_w * ob));
        vp_ev_free(e, sum);
    }
    vp_ev_free(e, xc);
    return out;
}

int32_t vp_ev_block_nograd(vp_events *e, const vp_block_dims *d, int32_t in, int32_t *cache_k, int32_t *cache_v) {
    double T = d->T, h = d->h, qd = d->qd, kvd = d->kvd, f = d->f, adt = d->adt, in_b = d->in_b;
    int32_t nrm = vp_ev_norm_nograd(e, T, h, adt, d->res);
    int32_t q = proj(e, d, h, qd, in_b, VP_T_Q), k = proj(e, d, h, kvd, in_b, VP_T_K);
    int32_t v = proj(e, d, h, kvd, in_b, VP_T_V);
    int cache = cache_k && cache_v;
    /* without a cache (a checkpointed block in training: modeling_llama.py passes no past_key_values
     * when gradient checkpointing trains) RoPE frees x * cos before rotate_half(x) * sin, as
     * events_lora.c's vp_ev_rope (the H100 trace l7b-lora8qv-gc-b4s2048, allocations 612-621) */
    int32_t q2 = cache ? rope(e, T, qd * in_b) : vp_ev_rope(e, T, qd * in_b);
    int32_t k2 = cache ? rope(e, T, kvd * in_b) : vp_ev_rope(e, T, kvd * in_b);
    vp_ev_free(e, q);
    vp_ev_free(e, k);
    if (cache) {
        /* DynamicLayer.update: keys = torch.cat([keys, k]) (a copy), then values; key_states and
         * value_states are rebound to them, so the RoPE output and v go */
        *cache_k = vp_ev_alloc(e, (int64_t)(T * d->kvh));
        *cache_v = vp_ev_alloc(e, (int64_t)(T * d->kvh));
        vp_ev_free(e, k2);
        vp_ev_free(e, v);
    }
    int32_t o = vp_ev_alloc(e, (int64_t)(T * qd * in_b)); /* SDPA output */
    int32_t ao = proj(e, d, qd, h, adt, VP_T_O);          /* o_proj */
    vp_ev_free(e, o);
    vp_ev_free(e, q2);
    if (!cache) {
        /* LlamaAttention.forward's key_states and value_states live until it returns, after o_proj
         * (the trace l7b-lora8qv-gc-b4s2048: SDPA output 624, o_proj 627, then 624, q 616, k 621,
         * v 611 freed, then the norm's output 592) */
        vp_ev_free(e, k2);
        vp_ev_free(e, v);
    }
    vp_ev_free(e, nrm);
    int32_t r2 = vp_ev_alloc(e, (int64_t)(T * h * d->res)); /* residual + attention */
    vp_ev_free(e, ao);
    (void)in;
    nrm = vp_ev_norm_nograd(e, T, h, adt, d->res);
    /* LlamaMLP: down(act(gate(x)) * up(x)) */
    int32_t g = proj(e, d, h, f, adt, VP_T_GATE), act = vp_ev_alloc(e, (int64_t)(T * f * adt));
    vp_ev_free(e, g);
    int32_t u = proj(e, d, h, f, adt, VP_T_UP), pr = vp_ev_alloc(e, (int64_t)(T * f * adt));
    vp_ev_free(e, act);
    vp_ev_free(e, u);
    int32_t dn = proj(e, d, f, h, adt, VP_T_DOWN);
    vp_ev_free(e, pr);
    vp_ev_free(e, nrm);
    int32_t out = vp_ev_alloc(e, (int64_t)(T * h * d->res)); /* residual + MLP */
    vp_ev_free(e, dn);
    vp_ev_free(e, r2);
    return out;
}
