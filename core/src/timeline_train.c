/* timeline_train.c: the moments of one training step, in the order PyTorch runs it:
 * frozen models' no-grad forwards, the trained model's forward (activations saved, autocast weight
 * copies, logits and loss), backward (loss gradients first, then blocks from last to first: saved
 * activations freed while gradients fill), optimizer step (state created at step 1, step temporaries),
 * zero_grad(set_to_none=True). Step 2 onward carries the optimizer state through forward and backward,
 * so the peak is taken over a steady-state step. */
#include <string.h>

#include "timeline.h"
#include "util.h"

void vp_inst_calc_init(const vp_plan *plan, const vp_instance *in, vp_inst_calc *c) {
    memset(c, 0, sizeof *c);
    c->in = in;
    c->owner.instance = in->name;
    c->owner.role = vp_role_names[in->role];
    vp_weights_compute(in, &c->w);
    vp_optimizer_compute(in, &c->w, &c->o);
    vp_activations_compute(plan, in, &c->a);
    vp_logits_compute(plan, in, &c->l);
    c->owns_weights = in->shares_weights_with < 0;
}

void vp_add_resident(vp_moment *m, const vp_inst_calc *c, int with_state) {
    char n[24];
    const vp_instance *in = c->in;
    if (c->owns_weights) {
        vp_fmt_count(n, sizeof n, (double)c->w.base_params);
        if (in->quant == VP_QUANT_NONE)
            vp_moment_add(m, &c->owner, "weights", "Weights", c->w.base_bytes, "%s params × %d B %s", n,
                          vp_dtype_bytes(vp_param_dtype(in)), vp_dtype_name(vp_param_dtype(in)));
        else
            vp_moment_add(m, &c->owner, "weights", "Weights (quantized)", c->w.base_bytes,
                          "%s params: block linears at %s, the rest %s", n,
                          in->quant == VP_QUANT_INT8 ? "1 B int8" : "0.5 B 4-bit", vp_dtype_name(vp_param_dtype(in)));
        vp_moment_add(m, &c->owner, "quant_constants", "Quantization constants", c->w.quant_const_bytes,
                      "%s absmax/scale constants%s", in->quant == VP_QUANT_INT8 ? "int8 row" : "4-bit block",
                      in->double_quant ? " (double-quantized)" : "");
        vp_fmt_count(n, sizeof n, (double)c->w.adapter_params);
        vp_moment_add(m, &c->owner, "adapters", in->ft == VP_FT_ADAPTER ? "Bottleneck adapters" : "LoRA adapters",
                      c->w.adapter_bytes, "%s params × %d B %s", n,
                      (int)(c->w.adapter_params ? c->w.adapter_bytes / c->w.adapter_params : 0),
                      in->ft == VP_FT_ADAPTER ? vp_dtype_name(vp_param_dtype(in)) : vp_dtype_name(in->lora_dtype));
    }
    if (with_state) vp_moment_add(m, &c->owner, "optimizer_state", "Optimizer state", c->o.state_bytes, "%s", c->o.state_explain);
}

static void add_workspace(vp_moment *m) {
    vp_owner dev = {"", ""};
    vp_moment_add(m, &dev, "cublas_workspace", "cuBLAS workspace", vp_cublas_workspace_bytes(),
                  "32 MiB allocated by the first GEMM through PyTorch's allocator (measured, H100/PyTorch 2.11)");
}

/* bf16 copies of the matmul weights that autocast makes in forward; the matmuls save them for
 * backward (memory-facts §2.5: ≈ 2 B per parameter held from forward to backward). */
static int64_t amp_weight_copies(const vp_inst_calc *c) {
    if (!vp_is_amp(c->in) || c->in->activations == VP_ACT_NO_GRAD) return 0;
    const vp_param_counts *pc = &c->in->pc;
    int64_t n = pc->linear_in_layers + (c->in->arch.kind == VP_KIND_VIT ? 0 : c->in->arch.vocab * c->in->arch.hidden);
    if (c->in->arch.kind == VP_KIND_T5 && !c->in->arch.tie) n += c->in->arch.vocab * c->in->arch.hidden;
    return 2 * n;
}

static void add_acts(vp_moment *m, const vp_inst_calc *c, double frac_layers, int gc, const char *what) {
    const vp_acts *a = &c->a;
    double T = (double)a->tokens, L = (double)a->layers;
    int64_t lay = (int64_t)(T * (a->layer - a->layer_attn_s) * L * frac_layers);
    int64_t s2 = (int64_t)(T * a->layer_attn_s * L * frac_layers);
    int64_t ck = (int64_t)(T * a->ckpt_layer * L * frac_layers);
    int64_t out = (int64_t)(T * a->outside);
    char tok[24];
    vp_fmt_count(tok, sizeof tok, T);
    if (gc) {
        vp_moment_add(m, &c->owner, "activations", "Activations (checkpoints)", ck + out,
                      "%s: %s tokens × %.0f B per block input × %.0f blocks + %.0f B/token outside", what, tok,
                      a->ckpt_layer, L * frac_layers, a->outside);
    } else {
        vp_moment_add(m, &c->owner, "activations", "Activations", lay + out,
                      "%s: %s tokens × %.0f B saved per block × %.0f blocks + %.0f B/token outside (%s attention)",
                      what, tok, a->layer - a->layer_attn_s, L * frac_layers, a->outside, a->attn_kernel);
        vp_moment_add(m, &c->owner, "attention_scores", "Attention scores (s²)", s2,
                      "%s tokens × %.0f B (heads × seq × bytes of saved probabilities) × %.0f blocks", tok,
                      a->layer_attn_s, L * frac_layers);
    }
}

static void add_kv_train(vp_moment *m, const vp_inst_calc *c, int gc, int graph_freed) {
    if (gc) return; /* HF turns use_cache off with gradient checkpointing */
    const vp_acts *a = &c->a;
    double per = graph_freed ? a->kv_total : a->kv_extra;
    int64_t kv = (int64_t)((double)a->tokens * per * (double)a->layers);
    if (graph_freed)
        vp_moment_add(m, &c->owner, "kv_cache", "KV cache (use_cache=True)", kv,
                      "HF DynamicCache in the output keeps K,V: %.0f B/token × %lld blocks (use_cache=False drops it)",
                      per, (long long)a->layers);
    else
        vp_moment_add(m, &c->owner, "kv_cache", "KV cache (use_cache=True)", kv,
                      "HF DynamicCache tensors not shared with what attention saves: %.0f B/token × %lld blocks",
                      per, (long long)a->layers);
}

/* A frozen model's no-grad forward: weights stay, one block's temporaries at a time, and its logits. */
static void nograd_forward(vp_moment *m, const vp_inst_calc *c) {
    const vp_acts *a = &c->a;
    double T = (double)a->tokens;
    int64_t one = (int64_t)(T * (a->layer + a->fwd_temp));
    vp_moment_add(m, &c->owner, "activations", "Forward temporaries (no grad)", one,
                  "one block at a time: %.0f tokens × %.0f B", T, a->layer + a->fwd_temp);
    int64_t lg = c->l.out + (c->in->logprobs_fp32 ? 8 * c->l.elems : 4 * c->l.elems);
    vp_moment_add(m, &c->owner, "logits", "Logits (no grad)", lg,
                  "%lld logits × %s", (long long)c->l.elems,
                  c->in->logprobs_fp32 ? "(2 B + 4 B fp32 upcast + 4 B log-softmax)" : "(2 B + 4 B upcast)");
}

static void logits_terms(vp_moment *m, const vp_inst_calc *c, int which) {
    const vp_logits *l = &c->l;
    char e[24];
    vp_fmt_count(e, sizeof e, (double)l->elems);
    if (l->elems == 0) return;
    int64_t adt = vp_dtype_bytes(vp_act_dtype(c->in));
    if (which == 0) { /* forward, at the loss */
        vp_moment_add(m, &c->owner, "logits", "Logits + loss", l->fwd_peak,
                      "%s logits (b·s·v) × %.1f B: %lld B logits%s + 4 B log-softmax", e,
                      (double)l->fwd_peak / (double)l->elems, (long long)adt, adt < 4 ? " + 4 B fp32 upcast" : "");
    } else if (which == 1) { /* backward of the loss */
        vp_moment_add(m, &c->owner, "logits", "Logits + loss gradients", l->bwd_peak,
                      "%s logits × %.1f B: logits %lld B + log-softmax 4 B + its grad 4 B + grad of fp32 logits 4 B", e,
                      (double)l->bwd_peak / (double)l->elems, (long long)adt);
    } else { /* only the output tensor remains (alive until the training loop drops `out`) */
        vp_moment_add(m, &c->owner, "logits", "Logits (model output)", l->out,
                      "%s logits × %lld B, kept by the output object until it is deleted", e, (long long)adt);
    }
}

void vp_timeline_train(const vp_plan *plan, vp_inst_calc *cs, int n, vp_moments *out) {
    (void)plan;
    out->n = 0;
    /* resident set at steady state */
    vp_moment base;
    vp_moment_init(&base, "load");
    for (int i = 0; i < n; i++) vp_add_resident(&base, &cs[i], 1);
    add_workspace(&base);
    out->m[out->n++] = base;

    /* frozen instances' forwards run first (reference log-probs, teacher targets) */
    for (int i = 0; i < n && out->n < VP_MAX_MOMENTS - 8; i++) {
        if (cs[i].in->activations != VP_ACT_NO_GRAD) continue;
        vp_moment *m = &out->m[out->n++];
        *m = base;
        vp_strlcpy(m->phase, "forward", sizeof m->phase);
        nograd_forward(m, &cs[i]);
    }
    /* trained (and graph-keeping) instances */
    for (int i = 0; i < n && out->n < VP_MAX_MOMENTS - 6; i++) {
        const vp_inst_calc *c = &cs[i];
        if (c->in->activations == VP_ACT_NO_GRAD) continue;
        int gc = c->in->gc_every > 0;
        double passes = c->in->activations == VP_ACT_KEEP_GRAPH ? (double)c->in->passes : 1.0;
        int64_t casts = amp_weight_copies(c);
        char cnt[24];
        vp_fmt_count(cnt, sizeof cnt, (double)casts / 2.0);
        int64_t T = c->a.tokens;
        /* every k-th block checkpointed: the others keep their full activations */
        double frac_ck = gc ? 1.0 / (double)c->in->gc_every : 0.0;
        const vp_acts *a = &c->a;
        int64_t one_block = (int64_t)((double)T * (a->layer + a->bwd_temp));

        /* end of forward, at the loss */
        vp_moment *f = &out->m[out->n++];
        *f = base;
        vp_strlcpy(f->phase, "forward", sizeof f->phase);
        if (gc) {
            add_acts(f, c, frac_ck * passes, 1, "checkpointed blocks");
            if (frac_ck < 1.0) add_acts(f, c, (1.0 - frac_ck) * passes, 0, "un-checkpointed blocks");
        } else {
            add_acts(f, c, passes, 0, passes > 1 ? "graphs of all passes" : "saved for backward");
        }
        vp_moment_add(f, &c->owner, "weights_lowp_copy", "Autocast weight copies", casts,
                      "autocast bf16 copies of %s matmul weights × 2 B, saved for backward", cnt);
        add_kv_train(f, c, gc, 0);
        logits_terms(f, c, 0);

        /* start of backward: loss gradients over the logits */
        vp_moment *b0 = &out->m[out->n++];
        *b0 = *f;
        vp_strlcpy(b0->phase, "backward", sizeof b0->phase);
        vp_moment_remove(b0, "logits", c->owner.instance);
        logits_terms(b0, c, 1);
        if (gc && vp_is_amp(c->in)) {
            /* autocast's cache is dropped when the autocast region exits; the recompute re-casts per block */
            for (int k = 0; k < b0->n; k++)
                if (!strcmp(b0->c[k].id, "weights_lowp_copy")) b0->c[k].bytes = (uint64_t)(2 * c->in->arch.vocab * c->in->arch.hidden);
        }

        /* first block's backward: all activations still saved, the head's gradients exist, plus one
         * block's gradient temporaries (and its recomputed activations under checkpointing) */
        vp_moment *b1 = &out->m[out->n++];
        *b1 = *f;
        vp_strlcpy(b1->phase, "backward", sizeof b1->phase);
        vp_moment_remove(b1, "logits", c->owner.instance);
        logits_terms(b1, c, 2);
        if (gc && vp_is_amp(c->in)) {
            for (int k = 0; k < b1->n; k++)
                if (!strcmp(b1->c[k].id, "weights_lowp_copy")) b1->c[k].bytes = (uint64_t)(2 * c->in->pc.per_layer_attn + 2 * c->in->pc.per_layer_mlp);
        }
        int64_t head_grads = c->in->ft == VP_FT_FULL ? (c->in->pc.lm_head ? c->in->pc.lm_head : c->in->pc.embed) *
                                                           vp_dtype_bytes(c->w.grad_dtype)
                                                     : 0;
        vp_moment_add(b1, &c->owner, "grads", "Gradients", head_grads, "output-head gradients first");
        vp_moment_add(b1, &c->owner, "backward_temp", gc ? "Recomputed block + gradient temporaries" : "Gradient temporaries",
                      gc ? one_block : (int64_t)((double)T * a->bwd_temp),
                      "one block's backward: %lld tokens × %.0f B%s", (long long)T, gc ? a->layer + a->bwd_temp : a->bwd_temp,
                      gc ? " (its activations recomputed, then gradients)" : "");

        /* end of backward: activations freed, all gradients present */
        vp_moment *b2 = &out->m[out->n++];
        vp_moment_init(b2, "backward");
        *b2 = base;
        vp_strlcpy(b2->phase, "backward", sizeof b2->phase);
        for (int k = 0; k < n; k++)
            if (cs[k].in->activations != VP_ACT_NO_GRAD) {
                char pc[24];
                vp_fmt_count(pc, sizeof pc, (double)cs[k].w.trainable);
                vp_moment_add(b2, &cs[k].owner, "grads", "Gradients", cs[k].w.grad_bytes, "%s trainable params × %d B %s",
                              pc, vp_dtype_bytes(cs[k].w.grad_dtype), vp_dtype_name(cs[k].w.grad_dtype));
            }
        add_kv_train(b2, c, gc, 1);
        logits_terms(b2, c, 2);
        vp_moment_add(b2, &c->owner, "backward_temp", "Gradient temporaries", (int64_t)((double)T * a->bwd_temp),
                      "first block's backward: %lld tokens × %.0f B", (long long)T, a->bwd_temp);

        /* optimizer step: grads + state + temporaries; the output (logits, cache) is still referenced */
        vp_moment *s = &out->m[out->n++];
        *s = *b2;
        vp_strlcpy(s->phase, "optimizer_step", sizeof s->phase);
        vp_moment_remove(s, "backward_temp", NULL);
        vp_moment_add(s, &c->owner, "optimizer_temp", "Optimizer step temporaries", c->o.temp_bytes, "%s", c->o.temp_explain);
    }
    /* drop zero-byte components */
    for (int i = 0; i < out->n; i++) {
        vp_moment *m = &out->m[i];
        int w = 0;
        for (int k = 0; k < m->n; k++)
            if (m->c[k].bytes) m->c[w++] = m->c[k];
        m->n = w;
    }
}
