/* events_lora.c: one Llama-style decoder block's forward with its autograd graph, LoRA adapters on
 * frozen half-precision weights, op by op as HF LlamaDecoderLayer / Qwen2DecoderLayer
 * (transformers 5.17 modeling_llama.py) and peft 0.21 lora.Linear.forward (peft/tuners/lora/layer.py)
 * run it. Every allocation and free, and their order, was read off the H100 trace qwen05-lora16all-b4s1024
 * (tests/groundtruth/h100-2026-11-23/run1/traces): which tensors autograd saves, which are freed as
 * soon as nothing references them, and when a Python name is rebound. The saved tensors are the same
 * as activations_decoder.c and lora.c list (the per-token bytes agree); what this adds is the
 * transients and the order, which decide how the caching allocator packs its segments. */
#include "alloc_events.h"

static int32_t al(vp_events *e, double bytes) { return vp_ev_alloc(e, (int64_t)bytes); }

/* LlamaRMSNorm.forward with a frozen weight on a half-precision input (the trace's order):
 * x = h.to(fp32) (saved by pow and mul); pow(2) and its mean; + eps; rsqrt (saved); x * rsqrt;
 * .to(half); weight * that = the output; the transients freed newest first, the mean last. */
int32_t vp_ev_norm_train(vp_events *e, const vp_lora_block_dims *d, vp_tensors *saved) {
    double T = d->T, h = d->h;
    vp_tensors_push(saved, e, al(e, T * h * 4.0));
    int32_t sq = al(e, T * h * 4.0), mean = al(e, T * 4.0);
    vp_ev_free(e, sq);
    int32_t eps = al(e, T * 4.0);
    vp_tensors_push(saved, e, al(e, T * 4.0));
    vp_ev_free(e, eps);
    int32_t y = al(e, T * h * 4.0), c = al(e, T * h * d->adt), out = al(e, T * h * d->adt);
    vp_ev_free(e, c);
    vp_ev_free(e, y);
    vp_ev_free(e, mean);
    return out;
}

/* peft lora.Linear.forward (layer.py): result = base_layer(x); x = _cast_input_dtype(x, lora_A dtype)
 * (a copy when the dtypes differ); result = result + lora_B(lora_A(dropout(x))) * scaling (Dropout
 * saves its bool mask and output, lora_A's output is saved by lora_B; lora_B's output is freed once
 * scaled, the scaled copy once summed, the sum promotes to the adapter dtype, `result` is rebound);
 * result.to(torch_result_dtype) (a copy when the sum was promoted). A module that is not adapted is
 * its base layer alone. Returns the module output. */
static int32_t linear(vp_events *e, const vp_lora_block_dims *d, double in_w, double out_w, int adapted, int input_grad,
                      vp_tensors *saved, vp_lora_mod_saved *m) {
    double T = d->T;
    int32_t r = al(e, T * out_w * d->adt);
    *m = (vp_lora_mod_saved){-1, -1, -1};
    if (!adapted) return r;
    int cast = d->ldt != d->adt;
    int32_t xc = cast ? al(e, T * in_w * d->ldt) : -1;
    /* dropout: its bool mask is saved only when its input needs a gradient (not in the first block,
     * whose input comes from the frozen embedding: freed at once there, as the trace shows) */
    int32_t mask = al(e, T * in_w);
    m->drop = al(e, T * in_w * d->ldt);
    vp_tensors_push(saved, e, m->drop); /* dropout output, saved by lora_A */
    if (input_grad) {
        vp_tensors_push(saved, e, mask);
        m->mask = mask;
    } else {
        vp_ev_free(e, mask);
    }
    m->a = al(e, T * d->rank * d->ldt);
    vp_tensors_push(saved, e, m->a); /* lora_A output, saved by lora_B */
    int32_t b = al(e, T * out_w * d->ldt), s = al(e, T * out_w * d->ldt);
    vp_ev_free(e, b);
    double pdt = d->ldt > d->adt ? d->ldt : d->adt;
    int32_t sum = al(e, T * out_w * pdt);
    vp_ev_free(e, s);
    vp_ev_free(e, r);
    int32_t out = sum;
    if (pdt != d->adt) {
        out = al(e, T * out_w * d->adt);
        vp_ev_free(e, sum);
    }
    vp_ev_free(e, xc);
    return out;
}

/* apply_rotary_pos_emb on one of q, k (width w bytes per token): x * cos, -x2, cat, * sin, the sum;
 * nothing saved (cos and sin are the only other operands). The same order in the fp32 trace
 * qwen05-fp32-b4s1024 (events_fp32_block.c). */
int32_t vp_ev_rope(vp_events *e, double T, double w) {
    int32_t a = al(e, T * w), n = al(e, T * w / 2.0), r = al(e, T * w);
    vp_ev_free(e, n);
    int32_t b = al(e, T * w);
    vp_ev_free(e, r);
    int32_t out = al(e, T * w);
    vp_ev_free(e, a);
    vp_ev_free(e, b);
    return out;
}

int32_t vp_ev_block_lora(vp_events *e, const vp_lora_block_dims *d, int32_t h_in, int first, vp_tensors *saved, vp_tensors *cache) {
    vp_lora_block_saved ls;
    return vp_ev_block_lora_saved(e, d, h_in, first, saved, cache, &ls);
}

/* the last two tensors pushed onto *saved (a norm's fp32 input and rsqrt) */
static void last_two(const vp_tensors *s, int32_t *x, int32_t *r) {
    *x = s->n >= 2 ? s->id[s->n - 2] : -1;
    *r = s->n >= 1 ? s->id[s->n - 1] : -1;
}

int32_t vp_ev_block_lora_saved(vp_events *e, const vp_lora_block_dims *d, int32_t h_in, int first, vp_tensors *saved,
                               vp_tensors *cache, vp_lora_block_saved *ls) {
    double T = d->T, h = d->h, qd = d->qd, kvd = d->kvd, f = d->f, adt = d->adt;
    unsigned t = d->targets;
    vp_lora_mod_saved *m = ls->m;
    ls->x1 = ls->r1 = ls->k = ls->v = -1;
    /* self-attention; the first block's input needs no gradient: its norm keeps no graph */
    int32_t n1 = first ? vp_ev_norm_nograd(e, T, h, adt, adt) : vp_ev_norm_train(e, d, saved);
    if (!first) last_two(saved, &ls->x1, &ls->r1);
    int32_t q = linear(e, d, h, qd, (t & VP_T_Q) != 0, !first, saved, &m[0]);
    int32_t k = linear(e, d, h, kvd, (t & VP_T_K) != 0, !first, saved, &m[1]);
    int32_t v = linear(e, d, h, kvd, (t & VP_T_V) != 0, !first, saved, &m[2]);
    int32_t qr = vp_ev_rope(e, T, qd * adt), kr = vp_ev_rope(e, T, kvd * adt);
    vp_ev_free(e, q); /* `q, k = apply_rotary_pos_emb(...)` rebinds both */
    vp_ev_free(e, k);
    /* DynamicLayer.update: K and V copied into the cache (cat with an empty tensor), kept by the
     * output; SDPA saves them */
    vp_tensors *kv = cache ? cache : saved;
    int32_t ck = al(e, T * kvd * adt), cv = al(e, T * kvd * adt);
    vp_tensors_push(kv, e, ck);
    vp_tensors_push(kv, e, cv);
    if (!cache) ls->k = ck, ls->v = cv;
    vp_ev_free(e, kr);
    vp_ev_free(e, v);
    vp_tensors_push(saved, e, qr);                           /* saved by SDPA */
    ls->qr = qr;
    int32_t o = al(e, T * qd * adt);                         /* SDPA output (saved) */
    ls->lse = al(e, T * 4.0 * d->heads);
    vp_tensors_push(saved, e, ls->lse);                      /* its fp32 logsumexp (saved) */
    int32_t ao = linear(e, d, qd, h, (t & VP_T_O) != 0, 1, saved, &m[3]);
    vp_tensors_push(saved, e, o);
    ls->o = o;
    vp_ev_free(e, n1); /* `hidden_states, _ = self.self_attn(...)` */
    int32_t mid = al(e, T * h * adt); /* residual + attention */
    vp_ev_free(e, ao);
    /* MLP: down(act(gate(x)) * up(x)); act saves gate's output, the product saves both factors */
    int32_t n2 = vp_ev_norm_train(e, d, saved);
    last_two(saved, &ls->x2, &ls->r2);
    int32_t g = linear(e, d, h, f, (t & VP_T_GATE) != 0, 1, saved, &m[4]);
    int32_t act = al(e, T * f * adt);
    int32_t u = linear(e, d, h, f, (t & VP_T_UP) != 0, 1, saved, &m[5]);
    ls->g = g, ls->act = act, ls->u = u;
    vp_tensors_push(saved, e, g);
    vp_tensors_push(saved, e, act);
    vp_tensors_push(saved, e, u);
    int32_t pr = al(e, T * f * adt);
    int32_t dn = linear(e, d, f, h, (t & VP_T_DOWN) != 0, 1, saved, &m[6]);
    vp_ev_free(e, pr);
    vp_ev_free(e, n2);
    int32_t out = al(e, T * h * adt); /* residual + MLP */
    vp_ev_free(e, dn);
    vp_ev_free(e, mid);
    /* the caller's name for the block input is rebound; the first block's input is the embedding
     * output, which the model's forward keeps (inputs_embeds) until it returns */
    if (!first) vp_ev_free(e, h_in);
    return out;
}

/* ---- the backward, read off the same trace from its first backward event on (step 1, block 23,
 * then each block down to 0). Widths as in the forward; ldt > adt (fp32 adapters on half weights). ---- */

int vp_lora_backward_opwise(const vp_lora_block_dims *d) {
    unsigned all = VP_T_Q | VP_T_K | VP_T_V | VP_T_O | VP_T_GATE | VP_T_UP | VP_T_DOWN;
    return (d->targets & all) == all && d->ldt > d->adt;
}

/* LlamaRMSNorm backward (autograd of weight * (x * rsqrt).to(half), x = h.float()): the weight
 * product's grad (half), its cast to fp32, the two grads of x * rsqrt, the rsqrt/mean/pow chain over
 * T fp32 values (rsqrt freed once read), the pow's grad and the sum of x's two gradients (x freed),
 * the cast back to half = the input's gradient. */
int32_t vp_ev_norm_train_backward(vp_events *e, const vp_lora_block_dims *d, int32_t g, int32_t x, int32_t rsqrt) {
    double T = d->T, h = d->h;
    int32_t a1 = al(e, T * h * d->adt);
    vp_ev_free(e, g);
    int32_t a2 = al(e, T * h * 4.0);
    vp_ev_free(e, a1);
    int32_t a3 = al(e, T * h * 4.0), a4 = al(e, T * h * 4.0), a5 = al(e, T * 4.0);
    vp_ev_free(e, a3);
    vp_ev_free(e, a2);
    int32_t a6 = al(e, T * 4.0), a7 = al(e, T * 4.0), a8 = al(e, T * 4.0);
    vp_ev_free(e, a7);
    vp_ev_free(e, a6);
    vp_ev_free(e, a5);
    vp_ev_free(e, rsqrt);
    int32_t a9 = al(e, T * h * 4.0);
    vp_ev_free(e, a8);
    int32_t a10 = al(e, T * h * 4.0), a11 = al(e, T * h * 4.0), a12 = al(e, T * h * 4.0);
    vp_ev_free(e, a11);
    vp_ev_free(e, a10);
    vp_ev_free(e, a9);
    vp_ev_free(e, x);
    vp_ev_free(e, a12);
    int32_t out = al(e, T * h * d->adt);
    vp_ev_free(e, a4);
    return out;
}

/* peft lora.Linear backward, `g` the gradient of the module output (half). `transposed`: g comes out
 * of SDPA's backward as a transposed view, copied contiguous first. ToCopy backward to the adapter
 * dtype; the base output's grad (half, only when the input needs one); the grad through * scaling;
 * lora_B.weight.grad (out x r, adapter dtype, allocated on first touch after zero_grad(set_to_none));
 * lora_A output's grad (lora_A output freed); lora_A.weight.grad (r x in); the dropout output's grad
 * (dropout output freed), Dropout backward through the mask (mask freed), the cast back to half; the
 * frozen base linear's grad_input alone, added into the input's gradient. `acc`: the input's
 * gradient buffer when another consumer of the input ran first (the new part is added into it in
 * place and freed). Returns the input's gradient (-1 without one). */
static int32_t linear_bwd(vp_events *e, const vp_lora_block_dims *d, double in_w, double out_w, const vp_lora_mod_saved *m,
                          int32_t g, int free_g, int transposed, int input_grad, int32_t acc, vp_tensors *grads) {
    double T = d->T;
    if (transposed) {
        int32_t c = al(e, T * out_w * d->adt);
        if (free_g) vp_ev_free(e, g);
        g = c;
        free_g = 1;
    }
    int32_t t1 = al(e, T * out_w * d->ldt);
    if (free_g) vp_ev_free(e, g);
    int32_t gr = input_grad ? al(e, T * out_w * d->adt) : -1;
    int32_t gb = al(e, T * out_w * d->ldt);
    vp_ev_free(e, t1);
    vp_tensors_push(grads, e, al(e, out_w * d->rank * d->ldt));
    int32_t ga = al(e, T * d->rank * d->ldt);
    vp_ev_free(e, gb);
    vp_ev_free(e, m->a);
    vp_tensors_push(grads, e, al(e, d->rank * in_w * d->ldt));
    if (!input_grad) {
        vp_ev_free(e, ga);
        vp_ev_free(e, m->drop);
        vp_ev_free(e, m->mask);
        return -1;
    }
    int32_t gd = al(e, T * in_w * d->ldt);
    vp_ev_free(e, ga);
    vp_ev_free(e, m->drop);
    int32_t gm = al(e, T * in_w * d->ldt);
    vp_ev_free(e, gd);
    vp_ev_free(e, m->mask);
    int32_t gx = al(e, T * in_w * d->adt);
    vp_ev_free(e, gm);
    if (acc >= 0) {
        vp_ev_free(e, gx);
        gx = acc;
    }
    int32_t gbase = al(e, T * in_w * d->adt);
    vp_ev_free(e, gr);
    vp_ev_free(e, gbase);
    return gx;
}

/* apply_rotary_pos_emb backward on one of q, k: returns the pre-rotation gradient, frees g (the same
 * order in the fp32 trace qwen05-fp32-b4s1024) */
int32_t vp_ev_rope_backward(vp_events *e, double T, double w, int32_t g) {
    int32_t a1 = al(e, T * w), a2 = al(e, T * w / 2.0), a3 = al(e, T * w);
    vp_ev_free(e, a2);
    int32_t a4 = al(e, T * w);
    vp_ev_free(e, a1);
    vp_ev_free(e, a4);
    int32_t a5 = al(e, T * w);
    vp_ev_free(e, g);
    vp_ev_free(e, a5);
    return a3;
}

void vp_ev_block_lora_backward(vp_events *e, const vp_lora_block_dims *d, const vp_lora_block_saved *s, int32_t g, int first,
                               vp_tensors *grads) {
    double T = d->T, h = d->h, qd = d->qd, kvd = d->kvd, f = d->f, adt = d->adt;
    const vp_lora_mod_saved *m = s->m;
    /* MLP: down's input gradient, then Mul backward (up's factor first), up, SiLU backward, gate
     * (added into up's input gradient), the norm; its result added into g */
    int32_t gpr = linear_bwd(e, d, f, h, &m[6], g, 0, 0, 1, -1, grads);
    int32_t gu = al(e, T * f * adt), gact = al(e, T * f * adt);
    vp_ev_free(e, gpr);
    vp_ev_free(e, s->u);
    vp_ev_free(e, s->act);
    int32_t gn2 = linear_bwd(e, d, h, f, &m[5], gu, 1, 0, 1, -1, grads);
    int32_t gg = al(e, T * f * adt);
    vp_ev_free(e, gact);
    vp_ev_free(e, s->g);
    linear_bwd(e, d, h, f, &m[4], gg, 1, 0, 1, gn2, grads);
    vp_ev_free(e, vp_ev_norm_train_backward(e, d, gn2, s->x2, s->r2));
    /* attention: o_proj (g freed there in the first block: nothing upstream needs it), SDPA backward
     * (grad q, k, v; its saved tensors freed), RoPE backward on k then q, then v, k, q projections */
    int32_t go = linear_bwd(e, d, qd, h, &m[3], g, first, 0, 1, -1, grads);
    int32_t gq = al(e, T * qd * adt), gk = al(e, T * kvd * adt), gv = al(e, T * kvd * adt);
    vp_ev_free(e, go);
    vp_ev_free(e, s->qr);
    vp_ev_free(e, s->lse);
    vp_ev_free(e, s->o);
    vp_ev_free(e, s->k);
    vp_ev_free(e, s->v);
    gk = vp_ev_rope_backward(e, T, kvd * adt, gk);
    gq = vp_ev_rope_backward(e, T, qd * adt, gq);
    int32_t gn1 = linear_bwd(e, d, h, kvd, &m[2], gv, 1, 1, !first, -1, grads);
    linear_bwd(e, d, h, kvd, &m[1], gk, 1, 1, !first, gn1, grads);
    linear_bwd(e, d, h, qd, &m[0], gq, 1, 1, !first, gn1, grads);
    if (!first) vp_ev_free(e, vp_ev_norm_train_backward(e, d, gn1, s->x1, s->r1));
}
