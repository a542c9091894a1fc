/* timeline_train.c: the moments of one training step, in the order PyTorch runs it:
 * frozen models' no-grad forwards, the trained model's forward (activations saved, autocast weight
 * copies, logits and loss), backward (loss gradients first, then blocks from last to first: saved
 * activations freed while gradients fill), optimizer step (state created at step 1, step temporaries),
 * zero_grad(set_to_none=True). Step 2 onward carries the optimizer state through forward and backward,
 * so the peak is taken over a steady-state step. */
#include <stdlib.h>
#include <string.h>

#include "alloc_events.h"
#include "timeline.h"
#include "util.h"

void vp_inst_calc_init(const vp_plan *plan, const vp_instance *in, int64_t rank, vp_inst_calc *c) {
    memset(c, 0, sizeof *c);
    c->in = in;
    c->owner.instance = in->name;
    c->owner.role = vp_role_names[in->role];
    vp_weights_compute(in, &c->w);
    vp_optimizer_compute(in, &c->w, &c->o);
    vp_activations_compute(plan, in, &c->a);
    vp_logits_compute(plan, in, &c->l);
    c->owns_weights = in->shares_weights_with < 0;
    vp_devctx_for(plan, in, rank, &c->ctx);
    vp_shard_compute(plan, in, &c->w, &c->o, &c->ctx, &c->ds);
    /* activations on this device: tensor parallelism splits the per-head and MLP tensors (the
     * hidden-width ones too with sequence parallelism); pipeline stage s of p holds min(p - s, M)
     * micro-batches in flight under 1F1B, and the interleaved schedule multiplies the first stage's by
     * 1 + (p - 1)/(p·m) (Korthikanti et al. §4.2.3; Megatron theoretical_memory_usage.py) */
    const vp_parallel *par = &plan->par;
    double tp = (double)c->ctx.tp;
    c->act_div_shard = tp;
    c->act_div_repl = (par->sp || c->a.megatron) && in->sharded ? tp : 1.0;
    if (c->a.megatron && !par->sp) c->act_div_repl = 1.0;
    double pp = (double)c->ctx.pp;
    c->inflight = 1.0;
    if (c->ctx.pp > 1) {
        double m = (double)(par->microbatches > 0 ? par->microbatches : plan->grad_accum);
        double left = pp - (double)c->ctx.stage;
        c->inflight = left < m ? left : m;
        if (par->vpp > 1 && c->ctx.first) c->inflight = pp * (1.0 + (pp - 1.0) / (pp * (double)par->vpp));
    }
    c->logits_div = (c->a.megatron && in->sharded) ? tp : 1.0;
    c->on_head = c->ctx.last;
    /* Megatron's DistributedDataParallel allocates its fp32 main_grad buffer when the model is
     * wrapped, so it is resident through the whole step (megatron/core/distributed) */
    c->grads_resident = in->sharded && par->framework == VP_FW_MEGATRON && c->ds.grads.bytes > 0;
    /* DeepSpeed ZeRO-3 allocates its gradient partition when the optimizer is built (sharding.c) */
    if (c->ds.grads_resident && c->ds.grads.bytes > 0) c->grads_resident = 1;
    /* with gradient accumulation the .grad tensors of the previous micro-batches stay allocated
     * through the next forward and backward (zero_grad only runs after optimizer.step) */
    if (plan->grad_accum > 1 && in->activations == VP_ACT_TRAIN && c->ds.grads.bytes > 0) c->grads_resident = 1;
}

/* Bytes of one block's saved activations per token on this device. */
double vp_block_bytes(const vp_inst_calc *c, int include_s2) {
    const vp_acts *a = &c->a;
    double repl = a->layer_repl;
    double rest = a->layer - a->layer_attn_s - repl;
    double v = repl / c->act_div_repl + rest / c->act_div_shard;
    if (include_s2) v += a->layer_attn_s / c->act_div_shard;
    return v;
}

static void add_term(vp_moment *m, const vp_owner *o, const char *id, const char *label, const vp_term *t) {
    vp_moment_add(m, o, id, label, t->bytes, "%s", t->explain);
}

void vp_add_resident(vp_moment *m, const vp_inst_calc *c, int with_state) {
    const vp_devstate *d = &c->ds;
    if (c->owns_weights) {
        add_term(m, &c->owner, "weights", c->in->quant == VP_QUANT_NONE ? "Weights" : "Weights (quantized)", &d->weights);
        add_term(m, &c->owner, "quant_constants", "Quantization constants", &d->quant);
        add_term(m, &c->owner, "adapters", c->in->ft == VP_FT_ADAPTER ? "Bottleneck adapters" : "LoRA adapters", &d->adapters);
    }
    if (c->in->role == VP_ROLE_FUNCTIONAL_COPY)
        vp_moment_add(m, &c->owner, "edited_weights", "Edited weights (functional copy)", vp_functional_copy_edited_bytes(c->in),
                      "p + update for the %lld edited parameters (MLP of the last %lld blocks); the others are the model's own "
                      "tensors (monkeypatch in_place)", (long long)vp_functional_copy_edited_params(c->in),
                      (long long)c->in->edited_layers);
    if (c->grads_resident) add_term(m, &c->owner, "grads", "Gradients", &d->grads);
    if (d->grads_resident) add_term(m, &c->owner, "grads_fp32", "Sharded fp32 gradients", &d->grad_fp32);
    /* Transformer Engine caches the fp8 weights across micro-batches when the caller passes
     * is_first_microbatch, as Megatron-LM does (precision.c) */
    if (c->in->sharded && c->in->precision == VP_PREC_FP8 && c->ds.fp8_weights.bytes > 0 &&
        c->a.megatron)
        add_term(m, &c->owner, "fp8_weights", "fp8 weight copies (TE workspaces)", &d->fp8_weights);
    add_term(m, &c->owner, "fp8_meta", "fp8 amax histories", &d->fp8_meta);
    if (with_state) {
        add_term(m, &c->owner, "master_weights", "fp32 master weights", &d->master);
        add_term(m, &c->owner, "optimizer_state", "Optimizer state", &d->states);
    }
}

static void add_workspace(vp_moment *m) {
    vp_owner dev = {"", ""};
    vp_moment_add(m, &dev, "cublas_workspace", "cuBLAS workspace", vp_cublas_workspace_bytes(),
                  "32 MiB allocated by the first GEMM through PyTorch's allocator (measured, H100/PyTorch 2.11)");
}

/* From the first backward on: the autograd engine runs backward on its own thread, whose cuBLAS handle
 * gets its own 32 MiB workspace, never freed (H100 traces tests/groundtruth/h100-2026-11-23: a second
 * 33,554,432 B block with no Python frame, at the first backward GEMM, in gpt2-amp-b8s1024 event 1269,
 * qwen05-amp-b4s1024 event 3511, t5base-amp-b8s512). */
static void add_backward_workspace(vp_moment *m) {
    vp_owner dev = {"", ""};
    vp_moment_remove(m, "cublas_workspace", "");
    vp_moment_add(m, &dev, "cublas_workspace", "cuBLAS workspaces", 2 * vp_cublas_workspace_bytes(),
                  "32 MiB for the first GEMM + 32 MiB for the autograd thread's cuBLAS handle from the first backward "
                  "on (measured, H100/PyTorch 2.11)");
}

/* bf16 copies of the matmul weights that autocast makes in forward; the matmuls save them for
 * backward (memory-facts §2.5: ≈ 2 B per parameter held from forward to backward). */
int64_t vp_amp_weight_copies(const vp_inst_calc *c) {
    if (!vp_is_amp(c->in) || c->in->activations == VP_ACT_NO_GRAD || c->ds.no_casts) return 0;
    const vp_param_counts *pc = &c->in->pc;
    double n = (double)pc->linear_in_layers * c->ds.layer_frac / c->act_div_shard;
    const vp_arch *a = &c->in->arch;
    if (a->experts > 0) {
        /* the routed experts' stacked weights go through grouped_mm, which autocast does not cast
         * (transformers 5.x integrations/moe.py _grouped_mm casts the input to the weight dtype instead) */
        int64_t per_expert = (a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU ? 3 : 2) * a->hidden * a->expert_inter;
        n -= (double)(a->moe_layers * a->experts * per_expert) * c->ds.layer_frac / c->act_div_shard;
    }
    if (c->in->arch.kind != VP_KIND_VIT && c->on_head) n += (double)(c->in->arch.vocab * c->in->arch.hidden) / c->act_div_shard;
    return (int64_t)(2.0 * n);
}

/* A mask the model's forward builds once and every block reads (diffusers 0.32 HunyuanVideo, activations_dit.c):
 * alive from the forward to the end of backward (each checkpointed block holds it as an input). */
static void add_step_mask(vp_moment *m, const vp_inst_calc *c) {
    const vp_acts *a = &c->a;
    if (a->step_mask <= 0) return;
    double T = (double)a->tokens;
    vp_moment_add(m, &c->owner, "attention_mask", "Attention mask (N × N bool)", (int64_t)(T * a->step_mask),
                  "diffusers 0.32 HunyuanVideo: a (batch, N, N) bool mask over the %.0f joint tokens, 1 B per pair, "
                  "passed to every block", a->step_mask);
}

static void add_acts(vp_moment *m, const vp_inst_calc *c, double frac_layers, double graphs, int gc, const char *what) {
    const vp_acts *a = &c->a;
    double T = (double)a->tokens;
    double L = (double)a->layers * c->ds.layer_frac * c->inflight * frac_layers;
    double blk = vp_block_bytes(c, 0);
    int64_t lay = (int64_t)(T * blk * L);
    int64_t s2 = (int64_t)(T * a->layer_attn_s / c->act_div_shard * L);
    int64_t ck = (int64_t)(T * a->ckpt_layer / c->act_div_repl * L);
    double outside = (c->ds.has_embed || c->ds.has_head) ? a->outside / c->act_div_repl : 0.0;
    if (c->ctx.first && c->ctx.pp > 1) outside *= c->inflight;
    outside *= graphs; /* keep_graph: every pass keeps its own final norm and head input */
    int64_t out = (int64_t)(T * outside);
    char tok[24];
    vp_fmt_count(tok, sizeof tok, T);
    if (gc) {
        vp_moment_add(m, &c->owner, "activations", "Activations (checkpoints)", ck + out,
                      "%s: %s tokens × %.0f B per block input × %.0f blocks + %.0f B/token outside", what, tok,
                      a->ckpt_layer / c->act_div_repl, L, outside);
    } else {
        vp_moment_add(m, &c->owner, "activations", "Activations", lay + out,
                      "%s: %s tokens × %.0f B saved per block × %.0f blocks + %.0f B/token outside (%s attention)",
                      what, tok, blk, L, outside, a->attn_kernel);
        if (a->step_mask > 0) /* the s² term is the mask's additive bias (activations_dit.c), not scores */
            vp_moment_add(m, &c->owner, "attention_scores", "Attention mask bias (s², saved by SDPA)", s2,
                          "%s tokens × %.0f B (the (B, N, N) additive bias each block's memory-efficient SDPA saves) × "
                          "%.0f blocks", tok, a->layer_attn_s / c->act_div_shard, L);
        else
            vp_moment_add(m, &c->owner, "attention_scores", "Attention scores (s²)", s2,
                          "%s tokens × %.0f B (heads × seq × bytes of saved probabilities) × %.0f blocks", tok,
                          a->layer_attn_s / c->act_div_shard, L);
    }
    add_step_mask(m, c);
}

static void add_kv_train(vp_moment *m, const vp_inst_calc *c, int gc, int graph_freed) {
    if (gc || c->a.megatron) return; /* HF turns use_cache off with gradient checkpointing */
    const vp_acts *a = &c->a;
    double per = (graph_freed ? a->kv_total : a->kv_extra) / c->act_div_shard;
    int64_t kv = (int64_t)((double)a->tokens * per * (double)a->layers * c->ds.layer_frac);
    if (graph_freed)
        vp_moment_add(m, &c->owner, "kv_cache", "KV cache (use_cache=True)", kv,
                      "HF DynamicCache in the output keeps K,V: %.0f B/token × %.0f blocks (use_cache=False drops it)",
                      per, (double)a->layers * c->ds.layer_frac);
    else
        vp_moment_add(m, &c->owner, "kv_cache", "KV cache (use_cache=True)", kv,
                      "HF DynamicCache tensors not shared with what attention saves: %.0f B/token × %.0f blocks",
                      per, (double)a->layers * c->ds.layer_frac);
}

/* A frozen model's no-grad forward: weights stay, one block's temporaries at a time, and its logits. */
static void nograd_forward(vp_moment *m, const vp_inst_calc *c) {
    const vp_acts *a = &c->a;
    double T = (double)a->tokens;
    int64_t one = (int64_t)(T * (vp_block_bytes(c, 1) + a->fwd_temp / c->act_div_shard));
    vp_moment_add(m, &c->owner, "activations", "Forward temporaries (no grad)", one,
                  "one block at a time: %.0f tokens × %.0f B", T, vp_block_bytes(c, 1) + a->fwd_temp / c->act_div_shard);
    add_step_mask(m, c);
    if (!c->on_head) return;
    int64_t lg = c->l.out + (c->in->logprobs_fp32 ? 8 * c->l.elems : 4 * c->l.elems);
    vp_moment_add(m, &c->owner, "logits", "Logits (no grad)", lg,
                  "%lld logits × %s", (long long)c->l.elems,
                  c->in->logprobs_fp32 ? "(2 B + 4 B fp32 upcast + 4 B log-softmax)" : "(2 B + 4 B upcast)");
}

static void logits_terms(vp_moment *m, const vp_inst_calc *c, int which) {
    const vp_logits *l = &c->l;
    if (l->elems == 0 || !c->on_head) return;
    char e[24];
    double div = c->logits_div;
    vp_fmt_count(e, sizeof e, (double)l->elems / div);
    int64_t adt = vp_dtype_bytes(vp_act_dtype(c->in));
    if (c->a.megatron) {
        vp_moment_add(m, &c->owner, "logits", "Logits (vocab-parallel, fp32)", (int64_t)((double)l->held / div),
                      "%s logits on this rank × 4 B fp32 (Megatron cross-entropy, Korthikanti §4.3)", e);
        return;
    }
    if (which == 0) { /* forward, at the loss */
        vp_moment_add(m, &c->owner, "logits", "Logits + loss", (int64_t)((double)l->fwd_peak / div),
                      "%s logits (b·s·v) × %.1f B: %lld B logits%s + 4 B log-softmax", e,
                      (double)l->fwd_peak / (double)l->elems, (long long)adt, adt < 4 ? " + 4 B fp32 upcast" : "");
    } else if (which == 1) { /* backward of the loss */
        vp_moment_add(m, &c->owner, "logits", "Logits + loss gradients", (int64_t)((double)l->bwd_peak / div),
                      "%s logits × %.1f B: logits %lld B + log-softmax 4 B + its grad 4 B + grad of fp32 logits 4 B", e,
                      (double)l->bwd_peak / (double)l->elems, (long long)adt);
    } else { /* only the output tensor remains (alive until the training loop drops `out`) */
        vp_moment_add(m, &c->owner, "logits", "Logits (model output)", (int64_t)((double)l->out / div),
                      "%s logits × %lld B, kept by the output object until it is deleted", e, (long long)adt);
    }
}

static void add_grads(vp_moment *m, const vp_inst_calc *c) {
    if (!c->grads_resident) add_term(m, &c->owner, "grads", "Gradients", &c->ds.grads);
    if (!c->ds.grads_resident) add_term(m, &c->owner, "grads_fp32", "Sharded fp32 gradients", &c->ds.grad_fp32);
}

static void add_sharding_buffers(vp_moment *m, const vp_inst_calc *c, int in_flight) {
    if (in_flight) add_term(m, &c->owner, "gathered_params", "Gathered layer (ZeRO-3/FSDP)", &c->ds.gathered);
    add_term(m, &c->owner, "comm_buffers", "Communication buckets", &c->ds.buckets);
}

void vp_timeline_train(const vp_plan *plan, vp_inst_calc *cs, int n, vp_sink *out) {
    /* diffusion training with precomputed conditions and latents: the encoders' phase first, then the step
     * without them (precompute.c, i12) */
    vp_inst_calc *kept = NULL;
    if (vp_precompute_on(plan)) {
        vp_timeline_precompute(plan, cs, n, out);
        if ((kept = vp_precompute_training(plan, cs, &n))) cs = kept;
    }
    /* resident set at steady state */
    vp_moment *basep = &out->work[0];
    vp_moment_init(basep, "load");
    basep->quiet = plan->quiet;
    for (int i = 0; i < n; i++) vp_add_resident(basep, &cs[i], 1);
    /* workload.steps 1: a figure read after the first step, whose forward and backward run before the optimizer
     * makes its state (torch.optim's _init_group at the first step(), bitsandbytes' init_state alike). DeepSpeed's
     * ZeRO optimizers make theirs when they are built (deepspeed/runtime/zero/stage_1_and_2.py and stage3.py
     * initialize_optimizer_states, called from __init__: a step over zero-valued gradients; events_train.c
     * init_states), so under ZeRO step 1 holds it too */
    int first_step = plan->steps == 1 && !(plan->par.framework == VP_FW_DEEPSPEED && plan->par.zero > 0);
    if (first_step) vp_moment_remove(basep, "optimizer_state", NULL);
    add_workspace(basep);
    vp_sink_push(out, basep);
    const vp_moment *base = basep;

    /* frozen instances' forwards run first (reference log-probs, teacher targets) */
    for (int i = 0; i < n; i++) {
        if (cs[i].in->activations != VP_ACT_NO_GRAD) continue;
        vp_moment *m = &out->work[1];
        vp_moment_copy(m, base);
        vp_strlcpy(m->phase, "forward", sizeof m->phase);
        add_backward_workspace(m); /* step 2 on */
        add_sharding_buffers(m, &cs[i], 1);
        nograd_forward(m, &cs[i]);
        vp_sink_push(out, m);
    }
    /* trained (and graph-keeping) instances */
    for (int i = 0; i < n; i++) {
        const vp_inst_calc *c = &cs[i];
        if (c->in->activations == VP_ACT_NO_GRAD || c->in->activations == VP_ACT_NONE) continue;
        int gc = c->in->gc_every > 0;
        double graphs = c->in->activations == VP_ACT_KEEP_GRAPH ? (double)c->in->passes : 1.0;
        /* a functional copy records graph from its first edited block on (functional_copy.c) */
        double passes = graphs * vp_functional_copy_graph_frac(c->in);
        int64_t casts = vp_amp_weight_copies(c);
        char cnt[24];
        vp_fmt_count(cnt, sizeof cnt, (double)casts / 2.0);
        int64_t T = c->a.tokens;
        /* every k-th block checkpointed: the others keep their full activations */
        double frac_ck = gc ? 1.0 / (double)c->in->gc_every : 0.0;
        const vp_acts *a = &c->a;
        double bwd_temp = a->bwd_temp / c->act_div_shard;
        int64_t one_block = (int64_t)((double)T * (vp_block_bytes(c, 1) + bwd_temp));
        int act_offload = c->in->sharded && plan->par.activation_offload;

        /* end of forward, at the loss */
        vp_moment *f = &out->work[1];
        vp_moment_copy(f, base);
        vp_strlcpy(f->phase, "forward", sizeof f->phase);
        add_backward_workspace(f); /* step 2 on: left by step 1's backward */
        add_sharding_buffers(f, c, 1);
        if (act_offload) {
            /* saved activations are copied to pinned CPU memory as they are produced; the GPU keeps
             * about two blocks' worth (the one computed and the one being copied) */
            vp_moment_add(f, &c->owner, "activations", "Activations (offloaded to CPU)", 2 * one_block,
                          "activation offload: about two blocks' activations stay on the GPU");
        } else if (gc) {
            add_acts(f, c, frac_ck * passes, graphs, 1, "checkpointed blocks");
            if (frac_ck < 1.0) add_acts(f, c, (1.0 - frac_ck) * passes, 0.0, 0, "un-checkpointed blocks");
        } else {
            add_acts(f, c, passes, graphs, 0, graphs > 1 ? "graphs of all passes" : "saved for backward");
        }
        if (gc && !c->ds.casts_cached && casts > 0) {
            /* without autocast's cache a checkpointed block's casts die with each matmul; only the
             * output head's copy is saved for backward */
            if (c->on_head)
                vp_moment_add(f, &c->owner, "weights_lowp_copy", "Autocast weight copies", 2 * c->in->arch.vocab * c->in->arch.hidden,
                              "bf16 copy of the output head, saved for backward (autocast cache off: block casts are per matmul)");
        } else {
            vp_moment_add(f, &c->owner, "weights_lowp_copy", "Autocast weight copies", casts,
                          gc ? "autocast's cache keeps the bf16 copies of %s matmul weights × 2 B until the forward ends"
                             : "autocast bf16 copies of %s matmul weights × 2 B, saved for backward", cnt);
        }
        if (c->in->quant == VP_QUANT_FP8 && frac_ck < 1.0) {
            /* layerwise casting in the blocks that are not checkpointed: every Linear's matmul saved its bf16
             * weight view (the backward moment's comment), so their float8 Linears exist in bf16 as well until
             * backward (every block without checkpointing; 1 - 1/K of them when every K-th block is) */
            int64_t lw = (int64_t)((double)vp_layerwise_cast_params(c->in, 1) * (1.0 - frac_ck));
            vp_moment_add(f, &c->owner, "layerwise_copy", "Layerwise-cast bf16 weights saved for backward",
                          lw * vp_dtype_bytes(vp_act_dtype(c->in)),
                          "%lld float8 Linear params of the un-checkpointed blocks upcast to %s, saved by their matmuls",
                          (long long)lw, vp_dtype_name(vp_act_dtype(c->in)));
        }
        if (c->in->precision == VP_PREC_FP8 && !c->a.megatron)
            add_term(f, &c->owner, "fp8_weights", "fp8 weight copies", &c->ds.fp8_weights);
        add_kv_train(f, c, gc, 0);
        logits_terms(f, c, 0);
        if (graphs > 1 && c->on_head && c->l.elems > 0)
            vp_moment_add(f, &c->owner, "logits_passes", "Logits of the earlier passes", (int64_t)((graphs - 1.0) * (double)c->l.held),
                          "keep_graph: %.0f more passes each keep their logits and log-softmax (%lld B each)", graphs - 1.0,
                          (long long)c->l.held);

        /* start of backward: loss gradients over the logits */
        vp_moment *b0 = &out->work[2];
        vp_moment_copy(b0, f);
        vp_strlcpy(b0->phase, "backward", sizeof b0->phase);
        vp_moment_remove(b0, "logits", c->owner.instance);
        logits_terms(b0, c, 1);
        if (gc && casts > 0) {
            /* autocast's cache is dropped when the autocast region exits; only the head's copy is saved */
            vp_moment_remove(b0, "weights_lowp_copy", c->owner.instance);
            if (c->on_head)
                vp_moment_add(b0, &c->owner, "weights_lowp_copy", "Autocast weight copies",
                              2 * c->in->arch.vocab * c->in->arch.hidden, "bf16 copy of the output head, saved for backward");
        }

        /* first block's backward: all activations still saved, the head's gradients exist, plus one
         * block's gradient temporaries (and its recomputed activations under checkpointing) */
        vp_moment *b1 = &out->work[3];
        vp_moment_copy(b1, f);
        vp_strlcpy(b1->phase, "backward", sizeof b1->phase);
        vp_moment_remove(b1, "logits", c->owner.instance);
        logits_terms(b1, c, 2);
        if (gc && casts > 0) {
            vp_moment_remove(b1, "weights_lowp_copy", c->owner.instance);
            vp_moment_add(b1, &c->owner, "weights_lowp_copy", "Autocast weight copies",
                          2 * (c->in->pc.per_layer_attn + c->in->pc.per_layer_mlp), "bf16 copies of the recomputed block's weights");
        }
        if (c->in->ft == VP_FT_FULL && c->on_head && !c->grads_resident)
            vp_moment_add(b1, &c->owner, "grads", "Gradients", c->ds.head_grad_bytes, "output-head gradients first");
        add_term(b1, &c->owner, "gathered_grads", "Unsharded unit grads + reduce-scatter (FSDP)", &c->ds.gathered_bwd);
        if (c->in->arch.experts && c->in->ft == VP_FT_FULL) {
            /* the first MoE block backward reaches: grouped_mm's weight gradient (derivatives.yaml
             * _grouped_mm, mat2: _grouped_mm_mat2_backward) is one tensor of the whole stacked
             * parameter [E, 2f, h] / [E, h, f], which AccumulateGrad keeps as .grad: one layer's expert
             * weights in the gradient dtype exist while every activation is still saved */
            const vp_arch *ar = &c->in->arch;
            int64_t ex = ar->experts * 3 * ar->hidden * ar->expert_inter / (int64_t)c->act_div_shard;
            vp_moment_add(b1, &c->owner, "backward_temp", "Gradient temporaries", ex * vp_dtype_bytes(c->w.grad_dtype),
                          "MoE grouped_mm backward: the stacked gradient of one layer's %lld expert params", (long long)ex);
        }
        if (c->in->role == VP_ROLE_FUNCTIONAL_COPY) {
            /* the gradient of every edited weight accumulates over the passes before it reaches the update */
            int64_t ed = vp_functional_copy_edited_params(c->in);
            vp_moment_add(b1, &c->owner, "backward_temp", "Gradients of the edited weights", vp_functional_copy_edited_bytes(c->in),
                          "%lld edited parameters (MLP of the last %lld blocks), accumulated over the passes", (long long)ed,
                          (long long)c->in->edited_layers);
        }
        if (c->in->quant == VP_QUANT_FP8) {
            /* layerwise casting (finetrainers hooks/layerwise_upcasting.py at d220aac, diffusers
             * hooks/layerwise_casting.py): pre_forward module.to(compute dtype), post_forward back to float8.
             * module.to() swaps the Parameter's storage (torch/nn/modules/module.py _apply: param.data =
             * param_applied), but F.linear's matmul saved weight.t() (ATen Linear.cpp: addmm(bias, input,
             * weight.t())), a view holding the bf16 storage itself (saved_variable.cpp: a non-output is saved
             * as is), so each Linear whose input requires grad keeps its bf16 copy until its backward runs.
             * Checkpointed: the forward's saved tensors are dropped (torch/utils/checkpoint.py _checkpoint_hook
             * pack_hook returns a _Holder), the recompute before the block's backward runs the hooks again and
             * _recomputation_hook keeps every saved tensor, the weight views included, so at the start of the
             * first block's backward all its float8 Linears exist in bf16 as well. Without checkpointing every
             * block's copies stay from forward to backward (the forward moment's term, copied here). */
            if (gc) {
                int64_t lw = vp_layerwise_cast_params(c->in, 0);
                vp_moment_add(b1, &c->owner, "layerwise_copy", "Layerwise-cast bf16 weights saved for backward",
                              lw * vp_dtype_bytes(vp_act_dtype(c->in)),
                              "the recomputed block's %lld float8 Linear params upcast to %s, saved by its matmuls",
                              (long long)lw, vp_dtype_name(vp_act_dtype(c->in)));
            }
        } else if (c->in->quant == VP_QUANT_NF4 || c->in->quant == VP_QUANT_FP4 || c->in->quant == VP_QUANT_INT8) {
            /* bitsandbytes dequantizes each frozen weight for its matmul (MatMul4Bit: F.dequantize_4bit
             * ... .to(A.dtype)) in forward and again for the input gradient in backward */
            int64_t lin = c->in->arch.hidden * (c->in->arch.experts ? c->in->arch.expert_inter : c->in->arch.inter);
            vp_moment_add(b1, &c->owner, "inference_temp", "Dequantized weight (transient)",
                          lin * vp_dtype_bytes(vp_act_dtype(c->in)), "largest linear (%lld params) dequantized to %s for its matmul",
                          (long long)lin, vp_dtype_name(vp_act_dtype(c->in)));
        }
        vp_moment_add(b1, &c->owner, "backward_temp", gc ? "Recomputed block + gradient temporaries" : "Gradient temporaries",
                      gc || act_offload ? one_block : (int64_t)((double)T * bwd_temp),
                      "one block's backward: %lld tokens × %.0f B%s", (long long)T,
                      gc || act_offload ? vp_block_bytes(c, 1) + bwd_temp : bwd_temp,
                      gc ? " (its activations recomputed, then gradients)" : "");

        /* end of backward: activations freed, all gradients present */
        vp_moment *b2 = &out->work[4];
        vp_moment_copy(b2, base);
        vp_strlcpy(b2->phase, "backward", sizeof b2->phase);
        add_backward_workspace(b2);
        for (int k = 0; k < n; k++)
            if (cs[k].in->activations == VP_ACT_TRAIN || cs[k].in->activations == VP_ACT_KEEP_GRAPH) add_grads(b2, &cs[k]);
        add_sharding_buffers(b2, c, 1);
        add_term(b2, &c->owner, "gathered_grads", "Unsharded unit grads + reduce-scatter (FSDP)", &c->ds.gathered_bwd);
        add_kv_train(b2, c, gc, 1);
        logits_terms(b2, c, 2);
        vp_moment_add(b2, &c->owner, "backward_temp", "Gradient temporaries", (int64_t)((double)T * bwd_temp),
                      "first block's backward: %lld tokens × %.0f B", (long long)T, bwd_temp);

        /* optimizer step: grads + state + temporaries; the output (logits, cache) is still referenced */
        vp_moment *s = &out->work[5];
        vp_moment_copy(s, b2);
        vp_strlcpy(s->phase, "optimizer_step", sizeof s->phase);
        vp_moment_remove(s, "backward_temp", NULL);
        vp_moment_remove(s, "gathered_params", NULL);
        vp_moment_remove(s, "gathered_grads", NULL);
        add_term(s, &c->owner, "optimizer_temp", "Optimizer step temporaries", &c->ds.opt_temp);
        if (first_step)
            for (int k = 0; k < n; k++) add_term(s, &cs[k].owner, "optimizer_state", "Optimizer state", &cs[k].ds.states);
        vp_sink_push(out, f);
        vp_sink_push(out, b0);
        vp_sink_push(out, b1);
        vp_sink_push(out, b2);
        vp_sink_push(out, s);
    }
    free(kept);
}

void vp_sink_init(vp_sink *s) {
    s->best_total = -1;
    s->best.n = 0;
    s->best.phase[0] = '\0';
    s->n_phases = 0;
}

void vp_sink_push(vp_sink *s, const vp_moment *m) {
    int64_t t = vp_moment_total(m);
    if (t > s->best_total) {
        s->best_total = t;
        vp_moment_copy(&s->best, m);
    }
    vp_sink_note_phase(s, m);
}

void vp_sink_note_phase(vp_sink *s, const vp_moment *m) {
    int64_t t = vp_moment_total(m);
    int p = -1;
    for (int k = 0; k < s->n_phases; k++)
        if (!strcmp(s->phases[k].name, m->phase)) p = k;
    if (p < 0 && s->n_phases < VP_MAX_PHASES) {
        p = s->n_phases++;
        vp_strlcpy(s->phases[p].name, m->phase, sizeof s->phases[p].name);
        s->phases[p].alloc_bytes = 0;
    }
    if (p >= 0 && (uint64_t)t > s->phases[p].alloc_bytes) s->phases[p].alloc_bytes = (uint64_t)t;
}
