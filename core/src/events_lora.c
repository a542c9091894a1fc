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
                      vp_tensors *saved) {
    double T = d->T;
    int32_t r = al(e, T * out_w * d->adt);
    if (!adapted) return r;
    int cast = d->ldt != d->adt;
    int32_t xc = cast ? al(e, T * in_w * d->ldt) : -1;
    /* dropout: its bool mask is saved only when its input needs a gradient (not in the first block,
     * whose input comes from the frozen embedding: freed at once there, as the trace shows) */
    int32_t mask = al(e, T * in_w);
    vp_tensors_push(saved, e, al(e, T * in_w * d->ldt)); /* dropout output, saved by lora_A */
    if (input_grad)
        vp_tensors_push(saved, e, mask);
    else
        vp_ev_free(e, mask);
    vp_tensors_push(saved, e, al(e, T * d->rank * d->ldt)); /* lora_A output, saved by lora_B */
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
 * nothing saved (cos and sin are the only other operands) */
static int32_t rope(vp_events *e, double T, double w) {
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
    double T = d->T, h = d->h, qd = d->qd, kvd = d->kvd, f = d->f, adt = d->adt;
    unsigned t = d->targets;
    /* self-attention; the first block's input needs no gradient: its norm keeps no graph */
    int32_t n1 = first ? vp_ev_norm_nograd(e, T, h, adt, adt) : vp_ev_norm_train(e, d, saved);
    int32_t q = linear(e, d, h, qd, (t & VP_T_Q) != 0, !first, saved);
    int32_t k = linear(e, d, h, kvd, (t & VP_T_K) != 0, !first, saved);
    int32_t v = linear(e, d, h, kvd, (t & VP_T_V) != 0, !first, saved);
    int32_t qr = rope(e, T, qd * adt), kr = rope(e, T, kvd * adt);
    vp_ev_free(e, q); /* `q, k = apply_rotary_pos_emb(...)` rebinds both */
    vp_ev_free(e, k);
    /* DynamicLayer.update: K and V copied into the cache (cat with an empty tensor), kept by the
     * output; SDPA saves them */
    vp_tensors *kv = cache ? cache : saved;
    vp_tensors_push(kv, e, al(e, T * kvd * adt));
    vp_tensors_push(kv, e, al(e, T * kvd * adt));
    vp_ev_free(e, kr);
    vp_ev_free(e, v);
    vp_tensors_push(saved, e, qr);                           /* saved by SDPA */
    int32_t o = al(e, T * qd * adt);                         /* SDPA output (saved) */
    vp_tensors_push(saved, e, al(e, T * 4.0 * d->heads));    /* its fp32 logsumexp (saved) */
    int32_t ao = linear(e, d, qd, h, (t & VP_T_O) != 0, 1, saved);
    vp_tensors_push(saved, e, o);
    vp_ev_free(e, n1); /* `hidden_states, _ = self.self_attn(...)` */
    int32_t mid = al(e, T * h * adt); /* residual + attention */
    vp_ev_free(e, ao);
    /* MLP: down(act(gate(x)) * up(x)); act saves gate's output, the product saves both factors */
    int32_t n2 = vp_ev_norm_train(e, d, saved);
    int32_t g = linear(e, d, h, f, (t & VP_T_GATE) != 0, 1, saved);
    int32_t act = al(e, T * f * adt);
    int32_t u = linear(e, d, h, f, (t & VP_T_UP) != 0, 1, saved);
    vp_tensors_push(saved, e, g);
    vp_tensors_push(saved, e, act);
    vp_tensors_push(saved, e, u);
    int32_t pr = al(e, T * f * adt);
    int32_t dn = linear(e, d, f, h, (t & VP_T_DOWN) != 0, 1, saved);
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
