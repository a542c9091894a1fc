/* events_fp32_block.c: one Llama-style decoder block trained in full in fp32 (no autocast), forward
 * with its autograd graph and backward, op by op, as HF LlamaDecoderLayer / Qwen2DecoderLayer
 * (transformers 5.17 modeling_qwen2.py, modeling_llama.py) and PyTorch 2.11's math SDPA kernel
 * (aten/src/ATen/native/transformers/attention.cpp _scaled_dot_product_attention_math: fp32 with
 * grouped KV heads is neither flash nor mem-efficient, activations_common.c vp_sdpa_kernel) run it.
 * Every allocation and free over the block, and their order, was read off the H100 trace
 * qwen05-fp32-b4s1024 (tests/groundtruth/h100-2026-11-23/run4/traces, fixture
 * tests/fixtures/alloc_traces/qwen05-fp32-b4s1024.txt): which tensors autograd saves, which are freed
 * as soon as nothing references them, and the order in which the autograd engine runs the backward
 * (highest sequence number first). The saved tensors add up to the per-token bytes of
 * activations_decoder.c; what this adds is the transients (the two fp32 score-sized tensors of the
 * math kernel, its 1-byte-per-score mask, the rotary and reduction temporaries) and their order,
 * which decide how the caching allocator packs its segments. */
#include "alloc_events.h"

static int32_t al(vp_events *e, double bytes) { return vp_ev_alloc(e, (int64_t)bytes); }

static int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t last_pow2(int64_t n) {
    int64_t p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

/* The sum over the T token rows of a (T, w) fp32 tensor into w values (ATen cuda/Reduce.cuh
 * setReduceConfig and gpu_reduce_kernel, PyTorch 2.11): the output is the contiguous dimension, so
 * outputs are vectorised by 4 and split across a block of width 32 (set_block_dimension with
 * max_reduce_threads 512 / 4); rows go to the block's 4 warps (values per thread >= 64), and when a
 * thread would still sum >= 256 values the rows are split across ctas_per_output thread blocks =
 * max(min(ceil(target grid / grid.x), ceil(values/16)), ceil(values/256)), which then need a
 * global-memory buffer of 4 B x w x ctas x (32 x 4) and one int semaphore per grid column.
 * The target grid is the H100's 132 SMs x 2048 threads / 128 per block, the GPU every calibration
 * record ran on. Checked on the trace: w = 896, T = 4096 gives 29,360,128 B and 28 B; w = 128 gives
 * 4,194,304 B and 4 B. */
void vp_ev_token_sum(vp_events *e, double T, double w, vp_tensors *grads) {
    vp_tensors_push(grads, e, al(e, w * 4.0));
    int64_t wi = (int64_t)w, rows = (int64_t)T;
    int64_t vec = 4;
    while (vec > 1 && wi % vec) vec /= 2;
    int64_t dim0 = wi / vec, mnt = 512 / vec;
    int64_t d0 = dim0 < mnt ? last_pow2(dim0) : mnt, d1 = rows < mnt ? last_pow2(rows) : mnt;
    int64_t bw = d0 < 32 ? d0 : 32;
    int64_t bh = d1 < mnt / bw ? d1 : mnt / bw;
    bw = d0 < mnt / bh ? d0 : mnt / bh;
    int64_t step_out = bw, values = rows, split_rows = 0;
    int64_t thr = bh * 16 < 256 ? bh * 16 : 256;
    if (values >= thr) {
        values = div_up(values, bh);
        split_rows = 1;
    } else {
        step_out *= bh;
    }
    int64_t grid_x = div_up(dim0, step_out), target = 132 * (2048 / (bw * bh)), ctas = 1;
    if (split_rows && values >= 256 && grid_x <= target) {
        int64_t c1 = div_up(target, grid_x), c2 = div_up(values, 16), c3 = div_up(values, 256);
        ctas = c1 < c2 ? c1 : c2;
        if (ctas < c3) ctas = c3;
    }
    if (ctas <= 1) return;
    int32_t buf = vp_ev_alloc(e, 4 * wi * ctas * bw * vec), sem = vp_ev_alloc(e, 4 * grid_x);
    vp_ev_free(e, sem);
    vp_ev_free(e, buf);
}

/* LlamaRMSNorm.forward on an fp32 input (the .to(fp32) is a no-op): pow(2) (freed once its mean is
 * taken), mean, + eps, rsqrt (saved), x * rsqrt (saved by `weight *`), weight * that (the output);
 * `variance` goes when the function returns. x itself is saved by pow and by x * rsqrt. */
int32_t vp_ev_norm_fp32(vp_events *e, const vp_fp32_block_dims *d, int32_t x, vp_fp32_norm_saved *s) {
    double T = d->T, h = d->h;
    int32_t sq = al(e, T * h * 4.0), mean = al(e, T * 4.0);
    vp_ev_free(e, sq);
    int32_t eps = al(e, T * 4.0);
    s->x = x;
    s->r = al(e, T * 4.0);
    vp_ev_free(e, eps);
    s->y = al(e, T * h * 4.0);
    int32_t out = al(e, T * h * 4.0);
    vp_ev_free(e, mean);
    return out;
}

/* Its backward, in the trace's order: `weight *` (grad of x * rsqrt, then grad * y summed over the
 * tokens into the weight's gradient; g and y freed), x * rsqrt (grad * x summed per token for rsqrt,
 * grad * rsqrt for x: added into the residual stream's gradient in place when there is one), rsqrt's
 * and mean's backward over T values (rsqrt freed), mean's expand, pow's 2x * grad (x freed), added
 * into x's gradient in place. */
int32_t vp_ev_norm_fp32_backward(vp_events *e, const vp_fp32_block_dims *d, const vp_fp32_norm_saved *s, int32_t g,
                                 int32_t resid, vp_tensors *grads) {
    double T = d->T, h = d->h;
    int32_t gy = al(e, T * h * 4.0), gwy = al(e, T * h * 4.0);
    vp_ev_token_sum(e, T, h, grads);
    vp_ev_free(e, gwy);
    vp_ev_free(e, g);
    vp_ev_free(e, s->y);
    int32_t t1 = al(e, T * h * 4.0), gx = al(e, T * h * 4.0), gr = al(e, T * 4.0);
    vp_ev_free(e, t1);
    vp_ev_free(e, gy);
    if (resid >= 0) {
        vp_ev_free(e, gx);
        gx = resid;
    }
    int32_t r1 = al(e, T * 4.0), r2 = al(e, T * 4.0), r3 = al(e, T * 4.0);
    vp_ev_free(e, r2);
    vp_ev_free(e, r1);
    vp_ev_free(e, gr);
    vp_ev_free(e, s->r);
    int32_t m = al(e, T * h * 4.0);
    vp_ev_free(e, r3);
    int32_t p1 = al(e, T * h * 4.0), p2 = al(e, T * h * 4.0), p3 = al(e, T * h * 4.0);
    vp_ev_free(e, p2);
    vp_ev_free(e, p1);
    vp_ev_free(e, m);
    vp_ev_free(e, s->x);
    vp_ev_free(e, p3);
    return gx;
}

int32_t vp_ev_block_fp32(vp_events *e, const vp_fp32_block_dims *d, int32_t in, vp_tensors *cache, vp_fp32_block_saved *s) {
    double T = d->T, h = d->h, qd = d->qd, kvd = d->kvd, f = d->f;
    double S = d->b * d->heads * d->s * d->s; /* attention scores */
    double L2 = d->s * d->s;                  /* one (L, S) causal mask */
    s->o1 = vp_ev_norm_fp32(e, d, in, &s->n1);
    int32_t q = al(e, T * qd * 4.0), k = al(e, T * kvd * 4.0), v = al(e, T * kvd * 4.0);
    int32_t qe = vp_ev_rope(e, T, qd * 4.0), ke = vp_ev_rope(e, T, kvd * 4.0);
    vp_ev_free(e, q); /* `q, k = apply_rotary_pos_emb(...)` rebinds both */
    vp_ev_free(e, k);
    /* DynamicLayer.update: K and V copied into the cache (cat with an empty tensor), kept by the
     * output. `del out` drops the cache's list of layers last layer first (CPython list_dealloc), each
     * layer's keys before its values: pushed values first, as the group is released newest first. */
    int32_t ck = al(e, T * kvd * 4.0), cv = al(e, T * kvd * 4.0);
    vp_tensors_push(cache, e, cv);
    vp_tensors_push(cache, e, ck);
    vp_ev_free(e, ke);
    vp_ev_free(e, v);
    /* _scaled_dot_product_attention_math: query * sqrt(scale); is_causal: ones(L, S, bool).tril(),
     * convert_boolean_attn_mask (where over two scalars: an fp32 L x S mask); K, V repeat_interleave'd
     * to every query head (enable_gqa); K^T * sqrt(scale); matmul folds q to 3-D (a copy: q is a
     * transposed view); the scores; _safe_softmax (its output saved; the eq(-inf) mask, one byte a
     * score, and its all() per row, freed with the scores); matmul with V */
    int32_t qs = al(e, T * qd * 4.0), ones = al(e, L2), tril = al(e, L2);
    vp_ev_free(e, ones);
    int32_t c1 = al(e, 4.0), c2 = al(e, 4.0), mask = al(e, L2 * 4.0);
    vp_ev_free(e, c2);
    vp_ev_free(e, c1);
    vp_ev_free(e, tril);
    int32_t kx = al(e, T * qd * 4.0);
    s->vx = al(e, T * qd * 4.0);
    s->kt = al(e, T * qd * 4.0);
    s->qc = al(e, T * qd * 4.0);
    int32_t sc = al(e, S * 4.0);
    s->pr = al(e, S * 4.0);
    int32_t bm = al(e, S), rows = al(e, d->b * d->heads * d->s), z = al(e, 4.0);
    vp_ev_free(e, z);
    vp_ev_free(e, rows);
    vp_ev_free(e, bm);
    vp_ev_free(e, sc);
    int32_t ao = al(e, T * qd * 4.0);
    vp_ev_free(e, kx);
    vp_ev_free(e, qs);
    vp_ev_free(e, mask);
    /* sdpa_attention_forward: attn_output.transpose(1, 2).contiguous() (saved by o_proj) */
    s->oc = al(e, T * qd * 4.0);
    vp_ev_free(e, ao);
    int32_t o = al(e, T * h * 4.0);
    vp_ev_free(e, qe); /* query_states goes when self_attn returns */
    int32_t mid = al(e, T * h * 4.0); /* residual + attention (saved by the next norm) */
    vp_ev_free(e, o);
    s->o2 = vp_ev_norm_fp32(e, d, mid, &s->n2);
    /* LlamaMLP: down(act_fn(gate(x)) * up(x)); SiLU saves gate's output, the product both factors,
     * down its input */
    s->g = al(e, T * f * 4.0);
    s->act = al(e, T * f * 4.0);
    s->u = al(e, T * f * 4.0);
    s->p = al(e, T * f * 4.0);
    int32_t dn = al(e, T * h * 4.0), out = al(e, T * h * 4.0); /* residual + MLP */
    vp_ev_free(e, dn);
    return out;
}

/* nn.Linear's backward (in_w -> out_w), `g` the output's gradient: without a bias (mm) the weight's
 * gradient comes first, then the input's; with one (addmm) the input's, the weight's, then the bias's
 * sum over the tokens. g is freed when `free_g`, the saved input when `last` (its last reader).
 * Returns the input's gradient. */
static int32_t linear_bwd(vp_events *e, const vp_fp32_block_dims *d, double in_w, double out_w, int bias, int32_t g,
                          int free_g, int32_t input, int last, vp_tensors *grads) {
    double T = d->T;
    int32_t gi;
    if (bias) {
        gi = al(e, T * in_w * 4.0);
        vp_tensors_push(grads, e, al(e, in_w * out_w * 4.0));
        vp_ev_token_sum(e, T, out_w, grads);
    } else {
        vp_tensors_push(grads, e, al(e, in_w * out_w * 4.0));
        gi = al(e, T * in_w * 4.0);
    }
    if (free_g) vp_ev_free(e, g);
    if (last) vp_ev_free(e, input);
    return gi;
}

void vp_ev_block_fp32_backward(vp_events *e, const vp_fp32_block_dims *d, const vp_fp32_block_saved *s, int32_t g,
                               vp_tensors *grads) {
    double T = d->T, h = d->h, qd = d->qd, kvd = d->kvd, f = d->f;
    double S = d->b * d->heads * d->s * d->s;
    int qb = d->qkv_bias;
    /* MLP: down, Mul backward (up's factor first), up, SiLU backward, gate; the two input gradients of
     * the norm's output summed out of place */
    int32_t gp = linear_bwd(e, d, f, h, 0, g, 0, s->p, 1, grads);
    int32_t gu = al(e, T * f * 4.0), gact = al(e, T * f * 4.0);
    vp_ev_free(e, gp);
    vp_ev_free(e, s->u);
    vp_ev_free(e, s->act);
    int32_t gnu = linear_bwd(e, d, h, f, 0, gu, 1, s->o2, 0, grads);
    int32_t gg = al(e, T * f * 4.0);
    vp_ev_free(e, gact);
    vp_ev_free(e, s->g);
    int32_t gng = linear_bwd(e, d, h, f, 0, gg, 1, s->o2, 1, grads);
    int32_t gn = al(e, T * h * 4.0);
    vp_ev_free(e, gnu);
    vp_ev_free(e, gng);
    vp_ev_norm_fp32_backward(e, d, &s->n2, gn, g, grads);
    /* attention: o_proj; the output's gradient made contiguous for the bmm (a transposed view);
     * matmul(attn, V) backward (V's gradient first), _safe_softmax backward, matmul(q, K^T) backward
     * (K^T's first), K^T's scale, V's and K's repeat_interleave backward (sums over the query heads of
     * each KV head), q's scale; RoPE backward on k then q */
    int32_t go = linear_bwd(e, d, qd, h, 0, g, 0, s->oc, 1, grads);
    int32_t gc = al(e, T * qd * 4.0);
    vp_ev_free(e, go);
    int32_t gvx = al(e, T * qd * 4.0), gpr = al(e, S * 4.0);
    vp_ev_free(e, gc);
    vp_ev_free(e, s->vx);
    int32_t gs = al(e, S * 4.0), t = al(e, S * 4.0);
    vp_ev_free(e, t);
    vp_ev_free(e, gpr);
    vp_ev_free(e, s->pr);
    int32_t gkt = al(e, T * qd * 4.0), gqc = al(e, T * qd * 4.0);
    vp_ev_free(e, gs);
    vp_ev_free(e, s->kt);
    vp_ev_free(e, s->qc);
    int32_t gk1 = al(e, T * qd * 4.0);
    vp_ev_free(e, gkt);
    int32_t gv = al(e, T * kvd * 4.0);
    vp_ev_free(e, gvx);
    int32_t gk = al(e, T * kvd * 4.0);
    vp_ev_free(e, gk1);
    int32_t gq = al(e, T * qd * 4.0);
    vp_ev_free(e, gqc);
    gk = vp_ev_rope_backward(e, T, kvd * 4.0, gk);
    gq = vp_ev_rope_backward(e, T, qd * 4.0, gq);
    /* v, k, q projections: each gradient copied contiguous (a transposed view) first; the first two
     * input gradients summed out of place, q's added in place */
    int32_t c = al(e, T * kvd * 4.0);
    vp_ev_free(e, gv);
    int32_t gin_v = linear_bwd(e, d, h, kvd, qb, c, 1, s->o1, 0, grads);
    c = al(e, T * kvd * 4.0);
    vp_ev_free(e, gk);
    int32_t gin_k = linear_bwd(e, d, h, kvd, qb, c, 1, s->o1, 0, grads);
    int32_t gin = al(e, T * h * 4.0);
    vp_ev_free(e, gin_v);
    vp_ev_free(e, gin_k);
    c = al(e, T * qd * 4.0);
    vp_ev_free(e, gq);
    vp_ev_free(e, linear_bwd(e, d, h, qd, qb, c, 1, s->o1, 1, grads));
    vp_ev_norm_fp32_backward(e, d, &s->n1, gin, g, grads);
}
