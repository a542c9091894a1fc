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
        /* weight (an fp32 parameter) * x: fp32, autocast or not (mul is not an autocast op; the
         * H100 trace l1b-amp-gc-b4s1024: 4096 x 2048 x 4 = 33,554,432 B) */
        int32_t out = vp_ev_alloc(e, (int64_t)(T * h * 4.0));
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
static int amp(const vp_block_dims *d) { return d->res >= 4 && d->adt < 4; }

/* Under autocast (amp(d)), the matmul's weight cast (kept in *casts by autocast's cache) and, when
 * the input is fp32 (a norm's output, `cast_in`), the input's cast to the compute dtype, freed once
 * the output is made: the H100 trace l1b-amp-gc-b4s1024 (run1), e.g. q_proj of block 1: the weight
 * cast (8 MiB), the input cast (16 MiB), the output (16 MiB), the input cast freed. */
static int32_t proj(vp_events *e, const vp_block_dims *d, double in_w, double out_w, double ob, unsigned bit, int widx,
                    int cast_in) {
    double T = d->T;
    if (d->casts && d->cast_bytes[widx] > 0) vp_tensors_push(d->casts, e, vp_ev_alloc(e, (int64_t)d->cast_bytes[widx]));
    int32_t xin = amp(d) && cast_in ? vp_ev_alloc(e, (int64_t)(T * in_w * d->adt)) : -1;
    int32_t r = vp_ev_alloc(e, (int64_t)(T * out_w * ob));
    vp_ev_free(e, xin);
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

/* apply_rotary_pos_emb under autocast on a half-precision q or k (w elements per token): cos and sin
 * are fp32 (LlamaRotaryEmbedding returns them in the dtype of the fp32 hidden states), so x * cos,
 * rotate_half(x) * sin and their sum are fp32; -x2 and the cat stay in x's dtype (the trace
 * l1b-amp-gc-b4s1024, block 1: 32, 8, 16 MiB, 8 freed, 32, 16 freed, 32, then the first product and
 * the second freed) */
static int32_t rope_amp(vp_events *e, double T, double w, double adt) {
    int32_t a = vp_ev_alloc(e, (int64_t)(T * w * 4.0)), n = vp_ev_alloc(e, (int64_t)(T * w * adt / 2.0));
    int32_t r = vp_ev_alloc(e, (int64_t)(T * w * adt));
    vp_ev_free(e, n);
    int32_t b = vp_ev_alloc(e, (int64_t)(T * w * 4.0));
    vp_ev_free(e, r);
    int32_t out = vp_ev_alloc(e, (int64_t)(T * w * 4.0));
    vp_ev_free(e, a);
    vp_ev_free(e, b);
    return out;
}

/* The block after o_proj: the attention's input norm freed, the residual sum, the MLP's norm and
 * LlamaMLP down(act(gate(x)) * up(x)), the residual sum = the block's output. */
static int32_t mlp_half(vp_events *e, const vp_block_dims *d, int32_t nrm, int32_t ao, int32_t in) {
    double T = d->T, h = d->h, f = d->f, adt = d->adt;
    (void)in;
    vp_ev_free(e, nrm);
    int32_t r2 = vp_ev_alloc(e, (int64_t)(T * h * d->res)); /* residual + attention */
    vp_ev_free(e, ao);
    nrm = vp_ev_norm_nograd(e, T, h, adt, d->res);
    /* LlamaMLP: down(act(gate(x)) * up(x)) */
    int32_t g = proj(e, d, h, f, adt, VP_T_GATE, 4, 1), act = vp_ev_alloc(e, (int64_t)(T * f * adt));
    vp_ev_free(e, g);
    int32_t u = proj(e, d, h, f, adt, VP_T_UP, 5, 1), pr = vp_ev_alloc(e, (int64_t)(T * f * adt));
    vp_ev_free(e, act);
    vp_ev_free(e, u);
    int32_t dn = proj(e, d, f, h, adt, VP_T_DOWN, 6, 0);
    vp_ev_free(e, pr);
    vp_ev_free(e, nrm);
    int32_t out = vp_ev_alloc(e, (int64_t)(T * h * d->res)); /* residual + MLP */
    vp_ev_free(e, dn);
    vp_ev_free(e, r2);
    return out;
}

int32_t vp_ev_block_nograd(vp_events *e, const vp_block_dims *d, int32_t in, int32_t *cache_k, int32_t *cache_v) {
    double T = d->T, h = d->h, qd = d->qd, kvd = d->kvd, adt = d->adt, in_b = d->in_b;
    int32_t nrm = vp_ev_norm_nograd(e, T, h, adt, d->res);
    int32_t q = proj(e, d, h, qd, in_b, VP_T_Q, 0, 1), k = proj(e, d, h, kvd, in_b, VP_T_K, 1, 1);
    int32_t v = proj(e, d, h, kvd, in_b, VP_T_V, 2, 1);
    int cache = cache_k && cache_v;
    if (amp(d) && !cache) {
        /* autocast, training: fp32 RoPE; SDPA casts k, then q, to the compute dtype (freed when it
         * returns); then as below (the trace l1b-amp-gc-b4s1024, block 1) */
        int32_t q2 = rope_amp(e, T, qd, adt), k2 = rope_amp(e, T, kvd, adt);
        vp_ev_free(e, q);
        vp_ev_free(e, k);
        int32_t kc = vp_ev_alloc(e, (int64_t)(T * kvd * adt)), qc = vp_ev_alloc(e, (int64_t)(T * qd * adt));
        int32_t o = vp_ev_alloc(e, (int64_t)(T * qd * in_b));
        vp_ev_free(e, qc);
        vp_ev_free(e, kc);
        int32_t ao = proj(e, d, qd, h, adt, VP_T_O, 3, 0);
        vp_ev_free(e, o);
        vp_ev_free(e, q2);
        vp_ev_free(e, k2);
        vp_ev_free(e, v);
        return mlp_half(e, d, nrm, ao, in);
    }
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
    int32_t ao = proj(e, d, qd, h, adt, VP_T_O, 3, 0);    /* o_proj */
    vp_ev_free(e, o);
    vp_ev_free(e, q2);
    if (!cache) {
        /* LlamaAttention.forward's key_states and value_states live until it returns, after o_proj
         * (the trace l7b-lora8qv-gc-b4s2048: SDPA output 624, o_proj 627, then 624, q 616, k 621,
         * v 611 freed, then the norm's output 592) */
        vp_ev_free(e, k2);
        vp_ev_free(e, v);
    }
    return mlp_half(e, d, nrm, ao, in);
}
