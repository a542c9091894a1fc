/* events_train.c: three training steps as the allocator sees them, tensor by tensor, in the order
 * of the training loop of shared/groundtruth/measure.py (and HF Trainer's): model built on the GPU
 * (one allocation per nn.Parameter), then per step: frozen models' no-grad forwards, forward (each
 * block's saved tensors, autocast weight copies, transients), logits and loss, backward from the
 * last block to the first (gradient temporaries, .grad tensors, saved tensors freed), optimizer
 * step (state created lazily at step 1, torch.optim _init_group; foreach intermediates),
 * zero_grad(set_to_none=True), `del out`. Three steps, because step 1 places the optimizer state
 * in the cache that step 1's logits and activations left, and steps 2 and 3 then find what fits
 * (measured: the reserved peak of every groundtruth trace is reached in step 2 or 3).
 *
 * Sizes come from the same terms as the moment timeline (timeline_train.c): the parameter tensors
 * of param_tensors.c scaled to this device's bytes of weights, grads and states (sharding.c), the
 * per-token activation terms of activations_*.c split into tensors of the model's widths, the
 * logits terms of logits.c. */
#include <stdlib.h>
#include <string.h>

#include "alloc_events.h"
#include "diffusers.h"
#include "util.h"
/* step 1 has no optimizer state in its forward; step 2 has; step 3 is the first whose start repeats
 * its predecessor's (what shared/groundtruth/measure.py measures) */
#define VP_TRAIN_STEPS 3


typedef struct {
    const vp_inst_calc *c;
    vp_tlist blk, pre, post;
    int64_t nblocks;     /* blocks on this device */
    int64_t act_blocks;  /* blocks the replay walks */
    double fold;         /* blocks one activation term stands for (t5 counts all its blocks as one) */
    double list_elems;   /* elements of the parameter list on this device */
    double wscale;       /* weight bytes per element */
    double gscale;       /* .grad bytes per element (full fine-tuning) */
    int lora;            /* trainable tensors are adapters */
    int n_adapter;       /* adapter tensors per block (A and B per target) */
    double adapter_bytes;/* bytes of one adapter tensor */
    double adapter_grad; /* grad bytes of one adapter tensor */
    int n_states;        /* optimizer state tensors per trainable tensor */
    double state_scale;  /* state bytes per trainable byte of grads */
    double temp_scale;   /* foreach intermediate bytes per trainable byte of grads */
    vp_tensors grads, states, kept, outside;
    vp_tensors *saved;   /* per block */
    vp_tensors *casts;   /* per block: autocast copies of its matmul weights */
    int32_t head_cast;
    int opwise;          /* blocks replayed op by op (events_lora.c) */
    int32_t resid;       /* ... and the residual stream between them */
    int bwd_opwise;      /* ... and their backward too (events_lora.c vp_ev_block_lora_backward) */
    int bwd_workspace;   /* the backward's cuBLAS workspace is placed (first backward GEMM) */
    vp_lora_block_saved *ls; /* per block: its saved tensors by name */
    int sharded_grad;    /* FSDP's sharded .grad in fp32 (the grads_fp32 term) is the .grad: per parameter */
    int32_t unit_next;   /* FSDP: the next block's unit, prefetched while this one computes */
    int32_t ck_next;     /* a checkpointed block's output, kept as the next checkpointed block's input */
    int states_built;    /* the optimizer state was made before the first step (DeepSpeed: init_states) */
    int fp32wise;        /* full fine-tuning in fp32, blocks forward and backward op by op (events_fp32_block.c) */
    vp_fp32_block_saved *fs; /* ... per block: its saved tensors by name */
    vp_fp32_norm_saved fn;   /* ... the final norm's */
    int32_t normed;          /* ... the final norm's output (saved by the head) */
    int32_t head_grad;       /* ... the tied embedding's .grad, first made by the head's backward */
    int acc;                 /* ... a later micro-batch: new gradients are added into .grad and freed */
    int64_t seq;             /* the workload's sequence length */
    int cogwise;             /* a checkpointed CogVideoX LoRA step, op by op (events_cogvideox.c) */
    vp_cog_dims cog;         /* ... its sizes */
    int32_t cog_h, cog_e;    /* ... the video and text streams between blocks (forward), their gradients (backward) */
    int32_t cog_emb;         /* ... the patch embedding's output */
    vp_cog_head cog_head;    /* ... the tensors the head saves */
} inst_ev;

static int trained(const vp_inst_calc *c) {
    return c->in->activations == VP_ACT_TRAIN || c->in->activations == VP_ACT_KEEP_GRAPH;
}


/* LoRA on a frozen half-precision Llama-style decoder without checkpointing: the blocks whose forward
 * events_lora.c replays op by op (what the H100 trace it was read from covers); other setups replay
 * the saved tensors the activation terms list. */
static int lora_opwise(const vp_inst_calc *c) {
    const vp_instance *in = c->in;
    const vp_arch *a = &in->arch;
    const char *k = c->a.attn_kernel ? c->a.attn_kernel : "";
    return a->kind == VP_KIND_DECODER && !c->a.megatron && in->ft == VP_FT_LORA && in->lora_dropout > 0 && in->lora_targets &&
           !vp_is_amp(in) && vp_dtype_bytes(vp_act_dtype(in)) < 4 && (!strcmp(k, "flash") || !strcmp(k, "mem-efficient")) &&
           !a->experts && !a->fused_qkv && !a->fused_gate_up && a->mlp == VP_MLP_SWIGLU && a->norm == VP_NORM_RMS && !a->norm_fp32 &&
           !a->qk_norm && a->attn_dropout <= 0 && a->resid_dropout <= 0 && c->act_div_shard == 1.0 && c->act_div_repl == 1.0 &&
           in->gc_every <= 0 && in->activations == VP_ACT_TRAIN && c->a.layers > 1;
}

static void lora_dims(const vp_inst_calc *c, double T, vp_lora_block_dims *d) {
    const vp_instance *in = c->in;
    const vp_arch *a = &in->arch;
    *d = (vp_lora_block_dims){T, (double)a->hidden, (double)(a->heads * a->head_dim), (double)(a->kv_heads * a->head_dim),
                              (double)a->inter, (double)a->heads, (double)vp_dtype_bytes(vp_act_dtype(in)),
                              (double)vp_dtype_bytes(in->lora_dtype), (double)in->lora_r, in->lora_targets};
}

/* cogvideox-factory's LoRA step as the H100 trace events_cogvideox.c was read from ran it: a CogVideoX 1.0
 * transformer (one latent frame per token) in bf16 under autocast, every block checkpointed, bf16 adapters without
 * dropout on to_q / to_k / to_v / to_out.0, on one device. */
static int cog_opwise(const vp_inst_calc *c, int64_t batch) {
    const vp_instance *in = c->in;
    const vp_arch *a = &in->arch;
    return a->dclass == VP_DC_COGVIDEOX && a->d.patch_t == 1 && a->d.joint && in->activations == VP_ACT_TRAIN &&
           in->gc_every == 1 && in->ft == VP_FT_LORA && in->lora_targets == (VP_T_Q | VP_T_K | VP_T_V | VP_T_O) &&
           in->lora_dropout <= 0 && in->lora_r > 0 && vp_dtype_bytes(in->lora_dtype) == 2 &&
           vp_dtype_bytes(vp_param_dtype(in)) == 2 && vp_dtype_bytes(vp_act_dtype(in)) == 2 && in->autocast16 &&
           in->quant == VP_QUANT_NONE && c->act_div_shard == 1.0 && c->act_div_repl == 1.0 && c->ds.layer_frac == 1.0 &&
           c->ds.gather_block_bytes <= 0 && c->ds.gathered.bytes <= 0 && batch > 0 &&
           c->a.tokens > batch * a->d.text_len && a->heads > 0 && a->patch_size > 0;
}

static void cog_dims(const vp_inst_calc *c, int64_t batch, vp_cog_dims *d) {
    const vp_arch *a = &c->in->arch;
    double t = (double)(batch * a->d.text_len);
    *d = (vp_cog_dims){(double)c->a.tokens - t, t, (double)a->hidden, (double)a->inter, (double)a->heads,
                       (double)c->in->lora_r, (double)(a->patch_size * a->patch_size * a->out_channels), a->d.rotary};
}

/* Full fine-tuning of a Llama-style decoder in fp32 (no autocast) whose attention runs SDPA's math
 * kernel (fp32 with grouped KV heads): what the H100 trace qwen05-fp32-b4s1024 that
 * events_fp32_block.c was read from covers, on one device with unsharded fp32 gradients. */
static int fp32_opwise(const vp_inst_calc *c) {
    const vp_instance *in = c->in;
    const vp_arch *a = &in->arch;
    const char *k = c->a.attn_kernel ? c->a.attn_kernel : "";
    double grads = (double)c->ds.grads.bytes, params = (double)in->pc.total;
    return a->kind == VP_KIND_DECODER && !c->a.megatron && in->ft == VP_FT_FULL && !vp_is_amp(in) &&
           vp_dtype_bytes(vp_act_dtype(in)) == 4 && !strcmp(k, "math") && a->kv_heads > 0 && a->kv_heads < a->heads &&
           !a->experts && !a->fused_qkv && !a->fused_gate_up && a->mlp == VP_MLP_SWIGLU && a->norm == VP_NORM_RMS &&
           !a->qk_norm && !a->o_bias && !a->mlp_bias && a->attn_dropout <= 0 && a->resid_dropout <= 0 &&
           c->act_div_shard == 1.0 && c->act_div_repl == 1.0 && c->ds.layer_frac == 1.0 && c->on_head && c->ds.has_embed &&
           in->gc_every <= 0 && in->activations == VP_ACT_TRAIN && c->a.layers > 1 && grads == 4.0 * params && c->logits_div == 1.0;
}

static void inst_init(inst_ev *x, const vp_inst_calc *c) {
    memset(x, 0, sizeof *x);
    x->c = c;
    x->head_cast = -1;
    x->unit_next = -1;
    x->ck_next = -1;
    const vp_instance *in = c->in;
    vp_block_param_tensors(in, &x->blk);
    vp_outer_param_tensors(in, &x->pre, &x->post);
    double nb = (double)vp_block_count(in) * c->ds.layer_frac;
    x->nblocks = (int64_t)(nb + 0.5);
    if (x->nblocks < 1) x->nblocks = 1;
    double one = 0, outer = 0;
    for (int k = 0; k < x->blk.n; k++) one += (double)x->blk.elems[k];
    for (int k = 0; k < x->pre.n; k++) outer += (double)x->pre.elems[k];
    for (int k = 0; k < x->post.n; k++) outer += (double)x->post.elems[k];
    x->list_elems = one * (double)x->nblocks + outer;
    if (x->list_elems < 1) x->list_elems = 1;
    x->wscale = (double)c->ds.weights.bytes / x->list_elems;
    int64_t grad_bytes = c->ds.grads.bytes;
    /* FSDP1/2 with an fp32 model: the sharded .grad of each parameter is written when its unit's
     * reduce-scatter ends (_fsdp_collectives.py foreach_reduce), kept until zero_grad, and is what
     * the optimizer steps (sharding_fsdp.c puts it in the grads_fp32 term) */
    x->sharded_grad = !c->ds.grads_resident && grad_bytes == 0 && c->ds.grad_fp32.bytes > 0;
    if (x->sharded_grad) grad_bytes = c->ds.grad_fp32.bytes;
    x->lora = in->ft != VP_FT_FULL;
    if (x->lora) {
        /* lora_A and lora_B of every adapted module of the block (targets this family does not have
         * adapt nothing) */
        int t = vp_lora_modules_per_layer(in);
        x->n_adapter = 2 * (t > 0 ? t : 1);
        double per_block = (double)c->ds.adapters.bytes / (double)x->nblocks;
        x->adapter_bytes = per_block / x->n_adapter;
        x->adapter_grad = (double)grad_bytes / (double)x->nblocks / x->n_adapter;
    } else {
        x->gscale = (double)grad_bytes / x->list_elems;
    }
    /* optimizer state per tensor: Adam's exp_avg and exp_avg_sq (torch/optim/adamw.py _init_group),
     * one momentum for SGD and Lion, one factored state for Adafactor */
    vp_optimizer o = in->optimizer;
    x->n_states = (o == VP_OPT_ADAMW || o == VP_OPT_ADAM || o == VP_OPT_ADAMW_8BIT) ? 2 : 1;
    x->state_scale = grad_bytes > 0 ? (double)c->ds.states.bytes / (double)grad_bytes : 0;
    x->temp_scale = grad_bytes > 0 ? (double)c->ds.opt_temp.bytes / (double)grad_bytes : 0;
    x->act_blocks = (int64_t)((double)c->a.layers * c->ds.layer_frac + 0.5);
    if (x->act_blocks < 1) x->act_blocks = 1;
    /* a two-stack DiT (FLUX, HunyuanVideo: d.blocks2 single-stream blocks after the layers double-stream ones) places
     * its weights over `layers` blocks (vp_block_count) but runs layers + blocks2 blocks of activations */
    if (x->act_blocks > x->nblocks && !(in->arch.d.blocks2 > 0 && c->ds.layer_frac == 1.0 && c->ds.gather_block_bytes <= 0))
        x->act_blocks = x->nblocks;
    x->fold = 1.0;
    if (c->a.layers == 1 && x->nblocks > 1) {
        /* activations_t5.c sums every block into one term: walk the real blocks, a share each */
        x->fold = 1.0 / (double)x->nblocks;
        x->act_blocks = x->nblocks;
    }
    x->opwise = lora_opwise(c);
    x->resid = -1;
    if (x->opwise) {
        vp_lora_block_dims d;
        lora_dims(c, 1.0, &d);
        x->bwd_opwise = vp_lora_backward_opwise(&d);
    }
    x->fp32wise = !x->opwise && fp32_opwise(c);
    x->normed = x->head_grad = -1;
    x->fs = calloc((size_t)x->act_blocks, sizeof *x->fs);
    x->ls = calloc((size_t)x->act_blocks, sizeof *x->ls);
    x->saved = calloc((size_t)x->act_blocks, sizeof *x->saved);
    x->casts = calloc((size_t)x->act_blocks, sizeof *x->casts);
}

static void inst_dispose(inst_ev *x) {
    vp_tensors_dispose(&x->grads);
    vp_tensors_dispose(&x->states);
    vp_tensors_dispose(&x->kept);
    vp_tensors_dispose(&x->outside);
    for (int64_t b = 0; x->saved && b < x->act_blocks; b++) vp_tensors_dispose(&x->saved[b]);
    for (int64_t b = 0; x->casts && b < x->act_blocks; b++) vp_tensors_dispose(&x->casts[b]);
    free(x->saved);
    free(x->casts);
    free(x->ls);
    free(x->fs);
}

/* Tensors of `per_token` bytes per token over T tokens, cut at the model's width `unit` (bytes per
 * token of one hidden-width tensor): what one op's output is. */
static void alloc_split(vp_events *e, vp_tensors *into, double T, double per_token, double unit) {
    if (per_token <= 0 || T <= 0) return;
    if (unit <= 0) unit = per_token;
    double n = per_token / unit;
    int64_t whole = (int64_t)n;
    if (whole > 64) whole = 64, unit = per_token / 64.0; /* a bounded number of tensors */
    for (int64_t k = 0; k < whole; k++) vp_tensors_push(into, e, vp_ev_alloc(e, (int64_t)(T * unit)));
    double rest = per_token - (double)whole * unit;
    if (rest * T >= 512.0) vp_tensors_push(into, e, vp_ev_alloc(e, (int64_t)(T * rest)));
}

/* ---- model states ---- */

static void alloc_weights(vp_events *e, inst_ev *x) {
    const vp_inst_calc *c = x->c;
    if (!c->owns_weights) return;
    vp_ev_place_weights(e, c, &x->pre, &x->blk, &x->post, x->nblocks, x->wscale, x->lora ? x->n_adapter : 0, x->adapter_bytes);
    /* quantization constants and sharded flat buffers as whole tensors */
    vp_ev_alloc(e, c->ds.quant.bytes);
    if (!x->lora) vp_ev_alloc(e, c->ds.adapters.bytes);
    vp_ev_alloc(e, c->ds.master.bytes);
    vp_ev_alloc(e, c->ds.buckets.bytes);
}

/* .grad tensors of block b (or of the outer tensors: b = -1 head side, -2 embedding side). */
static void alloc_grads(vp_events *e, inst_ev *x, int64_t b, int accumulate) {
    const vp_inst_calc *c = x->c;
    if (!trained(c) || c->grads_resident) return;
    vp_tensors tmp = {0};
    vp_tensors *into = accumulate ? &tmp : &x->grads;
    if (x->lora) {
        if (b >= 0)
            for (int k = 0; k < x->n_adapter; k++) vp_tensors_push(into, e, vp_ev_alloc(e, (int64_t)x->adapter_grad));
    } else {
        const vp_tlist *t = b >= 0 ? &x->blk : b == -1 ? &x->post : &x->pre;
        for (int k = t->n - 1; k >= 0; k--)
            vp_tensors_push(into, e, vp_ev_alloc(e, (int64_t)((double)t->elems[k] * x->gscale)));
    }
    /* with gradient accumulation the new gradient is added into .grad and freed */
    vp_tensors_release(&tmp, e);
    vp_tensors_dispose(&tmp);
}

/* All .grad tensors at once (Megatron's contiguous buffer, accumulation kept from the start). */
static void alloc_resident_grads(vp_events *e, inst_ev *x) {
    const vp_inst_calc *c = x->c;
    if (!trained(c)) return;
    /* DeepSpeed ZeRO-3's fp32 gradient partition (grad_partitions_flat_buffer, stage3.py:742-744):
     * allocated when the optimizer is built, never freed */
    if (c->ds.grads_resident) vp_ev_alloc(e, c->ds.grad_fp32.bytes);
    if (!c->grads_resident) return;
    vp_tensors_push(&x->grads, e, vp_ev_alloc(e, c->ds.grads.bytes));
}

static void foreach_trainable(vp_events *e, inst_ev *x, vp_tensors *into, double scale, int per_tensor) {
    if (scale <= 0) return;
    if (x->lora) {
        for (int64_t b = 0; b < x->nblocks; b++)
            for (int k = 0; k < x->n_adapter; k++)
                for (int s = 0; s < per_tensor; s++)
                    vp_tensors_push(into, e, vp_ev_alloc(e, (int64_t)(x->adapter_grad * scale / per_tensor)));
        return;
    }
    const vp_tlist *lists[3] = {&x->pre, &x->blk, &x->post};
    for (int l = 0; l < 3; l++) {
        int64_t reps = l == 1 ? x->nblocks : 1;
        for (int64_t r = 0; r < reps; r++)
            for (int k = 0; k < lists[l]->n; k++)
                for (int s = 0; s < per_tensor; s++)
                    vp_tensors_push(into, e,
                                    vp_ev_alloc(e, (int64_t)((double)lists[l]->elems[k] * x->gscale * scale / per_tensor)));
    }
}

static void optimizer_step(vp_events *e, inst_ev *x, int first) {
    const vp_inst_calc *c = x->c;
    if (!trained(c)) return;
    /* states created at the first step, one zeros_like per state per parameter */
    if (first && !x->states_built) {
        if (c->grads_resident || x->lora || x->gscale > 0)
            foreach_trainable(e, x, &x->states, x->state_scale, x->n_states);
        else /* a ZeRO partition's flat states (no per-parameter .grad to follow) */
            vp_tensors_push(&x->states, e, vp_ev_alloc(e, c->ds.states.bytes));
        if (c->grads_resident && x->state_scale <= 0) vp_tensors_push(&x->states, e, vp_ev_alloc(e, c->ds.states.bytes));
    }
    /* DeepSpeed ZeRO-1/2: step() flattens the partition's gradients into an fp32 copy
     * (single_partition_of_fp32_groups[i].grad) and drops it after the update (stage_1_and_2.py step) */
    int32_t fp32_grad = !x->sharded_grad && !c->ds.grads_resident ? vp_ev_alloc(e, c->ds.grad_fp32.bytes) : -1;
    vp_tensors tmp = {0};
    if (c->in->impl == VP_IMPL_FOREACH) {
        /* _multi_tensor_adamw: torch._foreach_sqrt(exp_avg_sqs) makes one intermediate per parameter */
        foreach_trainable(e, x, &tmp, x->temp_scale, 1);
    } else {
        /* for-loop and Adafactor: temporaries of the largest tensor, one tensor at a time */
        vp_tensors_push(&tmp, e, vp_ev_alloc(e, c->ds.opt_temp.bytes));
    }
    vp_tensors_release(&tmp, e);
    vp_tensors_dispose(&tmp);
    vp_ev_free(e, fp32_grad);
}

/* DeepSpeed's ZeRO optimizers make their state when they are built, before any activation exists: a step with a
 * zero-valued fp32 gradient partition (deepspeed/runtime/zero/stage_1_and_2.py initialize_optimizer_states, called
 * from __init__: single_grad_partition = torch.zeros(partition_size, fp32) as the partition's .grad, then
 * optimizer.step(), then the .grad dropped unless offloaded; stage3.py alike). torch.optim makes it lazily, at the
 * first step() (optimizer_step). */
static void init_states(vp_events *e, inst_ev *x) {
    const vp_inst_calc *c = x->c;
    if (!trained(c) || c->ds.states.bytes <= 0) return;
    int32_t g = vp_ev_alloc(e, c->ds.grad_fp32.bytes);
    vp_tensors_push(&x->states, e, vp_ev_alloc(e, c->ds.states.bytes));
    vp_ev_free(e, vp_ev_alloc(e, c->ds.opt_temp.bytes));
    vp_ev_free(e, g);
    x->states_built = 1;
}

/* ---- activations ---- */

/* Bytes per token of the two widths the blocks' tensors have. */
static double unit_h(const vp_inst_calc *c) {
    return (double)vp_dtype_bytes(vp_act_dtype(c->in)) * (double)c->in->arch.hidden / c->act_div_repl;
}
static double unit_f(const vp_inst_calc *c) {
    const vp_arch *a = &c->in->arch;
    double f = (double)(a->experts ? a->expert_inter * a->experts_per_tok : a->inter);
    return (double)vp_dtype_bytes(vp_act_dtype(c->in)) * f / c->act_div_shard;
}

static double tokens(const vp_inst_calc *c) { return (double)c->a.tokens * c->inflight; }

/* events_fp32_block.c's widths: T tokens of `seq` each (the math kernel's scores are per sequence) */
static void fp32_dims(const inst_ev *x, vp_fp32_block_dims *d) {
    const vp_arch *a = &x->c->in->arch;
    double T = tokens(x->c), s = (double)x->seq;
    *d = (vp_fp32_block_dims){T, s > 0 ? T / s : 1.0, s, (double)a->hidden, (double)(a->heads * a->head_dim),
                              (double)(a->kv_heads * a->head_dim), (double)a->inter, (double)a->heads, a->qkv_bias};
}

/* Training-time KV cache tensors HF keeps in the output (use_cache=True without checkpointing). */
static int keeps_kv(const vp_inst_calc *c) { return !(c->in->gc_every > 0) && !c->a.megatron; }

/* The parameter blocks [*lo, *hi) that activation block b stands for. */
static void param_range(const inst_ev *x, int64_t b, int64_t *lo, int64_t *hi) {
    *lo = b * x->nblocks / x->act_blocks;
    *hi = (b + 1) * x->nblocks / x->act_blocks;
}

/* Autocast's bf16 copies of the matmul weights of activation block b (kept for backward). */
static void alloc_casts(vp_events *e, inst_ev *x, int64_t b) {
    const vp_inst_calc *c = x->c;
    if (c->ds.no_casts) return; /* the matmuls get their weights in the compute dtype (FSDP param_dtype) */
    int64_t lo, hi;
    param_range(x, b, &lo, &hi);
    for (int64_t j = lo; j < hi; j++)
        for (int k = 0; k < x->blk.n; k++)
            if (x->blk.matmul[k])
                vp_tensors_push(&x->casts[b], e, vp_ev_alloc(e, (int64_t)(2.0 * (double)x->blk.elems[k] / c->act_div_shard)));
}

/* Layerwise casting (timeline_train.c, backward moment): the bf16 copies of block b's float8 Linears that its
 * matmuls saved (weight.t() views), in pieces of one h × h projection (the blocks' other Linears are multiples of
 * it: h × 4h, 4h × h, 5h × h); kept with the autocast casts and freed when the block's backward ends. */
static void alloc_layerwise_copies(vp_events *e, inst_ev *x, int64_t b) {
    const vp_inst_calc *c = x->c;
    if (c->in->quant != VP_QUANT_FP8) return;
    const vp_arch *a = &c->in->arch;
    double adt = (double)vp_dtype_bytes(vp_act_dtype(c->in)), h = (double)a->hidden;
    /* two stacks (FLUX, HunyuanVideo): the last blocks2 are single-stream blocks (dit_params.c d.last_linear), the
     * double-stream blocks have the rest */
    int64_t lw = vp_layerwise_cast_params(c->in, 0);
    if (a->d.last_linear > 0 && a->layers > 0 && b < x->act_blocks - a->d.blocks2)
        lw = (vp_layerwise_cast_params(c->in, 1) - a->d.blocks2 * a->d.last_linear) / a->layers;
    alloc_split(e, &x->casts[b], 1.0, (double)lw * adt, h * h * adt);
}

/* One block's saved tensors over T tokens: the family's own list when it gives one (activations_*.c
 * items, scaled to this device's share under tensor parallelism), else its per-token bytes cut at
 * the hidden width; the s×s attention terms one (b, heads, s, s) tensor at a time. Cache entries
 * go to `cache` when the output keeps them (NULL: with the rest). */
static void alloc_block_saved(vp_events *e, const inst_ev *x, double T, vp_tensors *into, vp_tensors *cache) {
    const vp_inst_calc *c = x->c;
    const vp_acts *a = &c->a;
    double s2 = a->layer_attn_s / c->act_div_shard * x->fold;
    if (a->n_items > 0 && !a->items_overflow && !a->megatron) {
        double full = a->layer - a->layer_attn_s;
        double scale = full > 0 ? vp_block_bytes(c, 0) / full : 1.0;
        vp_tensors tmp = {0};
        for (int k = 0; k < a->n_items; k++) {
            if (a->items[k].cache == 3) { /* a module's end: its transients are freed */
                vp_tensors_release(&tmp, e);
                continue;
            }
            for (int j = 0; j < a->items[k].count; j++) {
                vp_tensors *to = a->items[k].cache == 2 ? &tmp : a->items[k].cache && cache ? cache : into;
                vp_tensors_push(to, e, vp_ev_alloc(e, (int64_t)(T * a->items[k].bytes * scale)));
            }
        }
        vp_tensors_release(&tmp, e);
        vp_tensors_dispose(&tmp);
    } else {
        double kv_graph = cache ? (a->kv_total - a->kv_extra) / c->act_div_shard : 0.0;
        double rest = vp_block_bytes(c, 0) * x->fold - kv_graph;
        alloc_split(e, into, T, rest > 0 ? rest : 0, unit_h(c));
        if (cache && kv_graph > 0) {
            vp_tensors_push(cache, e, vp_ev_alloc(e, (int64_t)(T * kv_graph / 2.0)));
            vp_tensors_push(cache, e, vp_ev_alloc(e, (int64_t)(T * kv_graph / 2.0)));
        }
    }
    double heads = (double)c->in->arch.heads / c->act_div_shard;
    double seq = (double)c->a.tokens > 0 && c->in->arch.kind != VP_KIND_VIT ? s2 / (heads > 0 ? heads : 1.0) / 4.0 : 0.0;
    alloc_split(e, into, T, s2, seq > 0 ? 4.0 * heads * seq : 0.0);
    /* HF DynamicCache tensors beyond what the graph saves (the fp32 K under autocast, GQA copies) */
    if (cache) vp_tensors_push(cache, e, vp_ev_alloc(e, (int64_t)(T * a->kv_extra / c->act_div_shard)));
}

/* The parameters block b computes with, gathered (ZeRO-3 / FSDP); freed by the caller when the block
 * ends. FSDP full_shard gathers one block's unit at a time and prefetches the next one in the order
 * the blocks run (torch/distributed/fsdp/_fully_shard/_fsdp_state.py: forward prefetch of the next
 * unit by default, backward prefetch of the previous one); ZeRO-3 counts its largest layer. */
static int32_t gather_unit(vp_events *e, inst_ev *x, int has_next) {
    const vp_devstate *ds = &x->c->ds;
    if (ds->gather_block_bytes <= 0) return vp_ev_alloc(e, ds->gathered.bytes);
    int32_t cur = x->unit_next >= 0 ? x->unit_next : vp_ev_alloc(e, ds->gather_block_bytes);
    x->unit_next = has_next ? vp_ev_alloc(e, ds->gather_block_bytes) : -1;
    return cur;
}

/* A checkpointed Llama-style decoder block under autocast whose seven matmul weights (q, k, v, o,
 * gate, up, down in construction order, param_tensors.c) events_block.c casts as each matmul runs */
static int decoder_ckpt_casts(const inst_ev *x) {
    const vp_inst_calc *c = x->c;
    const vp_arch *a = &c->in->arch;
    if (!vp_is_amp(c->in) || c->ds.no_casts || c->in->activations == VP_ACT_NO_GRAD || a->kind != VP_KIND_DECODER ||
        c->a.megatron || a->fused_qkv || a->fused_gate_up || a->experts || a->mlp != VP_MLP_SWIGLU)
        return 0;
    int n = 0;
    for (int k = 0; k < x->blk.n; k++) n += x->blk.matmul[k] != 0;
    return n == 7;
}

/* The forward of block b: autocast copies, saved tensors, transients. */
static void block_forward(vp_events *e, inst_ev *x, int64_t b, int checkpointed, double passes) {
    const vp_inst_calc *c = x->c;
    double T = tokens(c) * passes;
    vp_tensors *sv = &x->saved[b];
    vp_tensors tmp = {0};
    int opwise_temps = 0; /* the block's transients were replayed op by op */
    if (x->cogwise) { /* the checkpoint keeps the block's inputs (views of the embedding for the first) */
        if (x->cog_h >= 0) vp_tensors_push(sv, e, x->cog_h);
        if (x->cog_e >= 0) vp_tensors_push(sv, e, x->cog_e);
        vp_ev_cog_block(e, &x->cog, &x->cog_h, &x->cog_e);
        return;
    }
    int32_t gather = gather_unit(e, x, b + 1 < x->act_blocks);
    if (x->opwise) {
        vp_lora_block_dims d;
        lora_dims(c, T, &d);
        x->resid = vp_ev_block_lora_saved(e, &d, x->resid, b == 0, sv, keeps_kv(c) ? &x->kept : NULL, &x->ls[b]);
        vp_ev_free(e, gather);
        return;
    }
    if (x->fp32wise) {
        vp_fp32_block_dims d;
        fp32_dims(x, &d);
        x->resid = vp_ev_block_fp32(e, &d, x->resid, &x->kept, &x->fs[b]);
        vp_ev_free(e, gather);
        return;
    }
    /* a checkpointed decoder block under autocast places its weight casts as its matmuls run
     * (events_block.c) */
    int casts_in_block = checkpointed && decoder_ckpt_casts(x);
    if (vp_is_amp(c->in) && c->in->activations != VP_ACT_NO_GRAD && !casts_in_block) alloc_casts(e, x, b);
    if (!checkpointed && c->in->activations != VP_ACT_NO_GRAD) alloc_layerwise_copies(e, x, b); /* kept to backward */
    if (checkpointed) {
        /* non-reentrant checkpoint: the block input is kept, everything else is freed as soon as
         * nothing references it, as in a no-grad forward (events_block.c for Llama-style blocks) */
        int64_t kept = (int64_t)(T * c->a.ckpt_layer / c->act_div_repl * x->fold);
        /* the input of a block after a checkpointed one is that block's output, made by its last
         * residual add (modeling_llama.py LlamaDecoderLayer.forward `hidden_states = residual +
         * hidden_states`; LlamaModel.forward passes it on), not a new tensor at the block's start:
         * in the H100 trace l7b-lora8qv-gc-b4s2048 each block's output (bf16, T x h) is allocated
         * after its down_proj output and before that and the first residual sum are freed, and
         * stays until the block's backward */
        vp_tensors_push(sv, e, x->ck_next >= 0 ? x->ck_next : vp_ev_alloc(e, kept));
        x->ck_next = -1;
        if (c->in->arch.kind == VP_KIND_DECODER && !c->a.megatron) {
            const vp_arch *ar = &c->in->arch;
            double adt = (double)vp_dtype_bytes(vp_act_dtype(c->in));
            vp_block_dims d = {T,
                               (double)ar->hidden / c->act_div_repl,
                               (double)(ar->heads * ar->head_dim) / c->act_div_shard,
                               (double)(ar->kv_heads * ar->head_dim) / c->act_div_shard,
                               (double)(ar->experts ? ar->expert_inter * ar->experts_per_tok : ar->inter) / c->act_div_shard,
                               adt, adt, 0.0, vp_is_amp(c->in) ? 4.0 : adt, 0, 0, 0, 0, NULL, {0}};
            if (c->in->ft == VP_FT_LORA && c->in->lora_targets && c->act_div_shard == 1.0) {
                d.lora_targets = c->in->lora_targets;
                d.ldt = (double)vp_dtype_bytes(c->in->lora_dtype);
                d.rank = (double)c->in->lora_r;
                d.lora_dropout = c->in->lora_dropout > 0;
            }
            if (casts_in_block) {
                d.casts = &x->casts[b];
                int n = 0;
                for (int k = 0; k < x->blk.n && n < 7; k++)
                    if (x->blk.matmul[k]) d.cast_bytes[n++] = 2.0 * (double)x->blk.elems[k] / c->act_div_shard;
            }
            int32_t out = vp_ev_block_nograd(e, &d, -1, NULL, NULL);
            int64_t every = c->in->gc_every;
            int next_ck = every > 0 && b + 1 < x->act_blocks && (b + 1) % every == 0;
            if (next_ck && out >= 0 && (int64_t)e->ev[out].size == kept)
                x->ck_next = out;
            else
                vp_ev_free(e, out);
            opwise_temps = 1;
        } else {
            alloc_block_saved(e, x, T, &tmp, NULL);
        }
    } else {
        /* K and V of the DynamicCache (cache_utils.py DynamicLayer.update) stay with the output */
        alloc_block_saved(e, x, T, sv, keeps_kv(c) ? &x->kept : NULL);
    }
    /* the forward's transients (fwd_temp: gate's and up's outputs) are events_block.c's own when it
     * ran the block */
    if (!opwise_temps) alloc_split(e, &tmp, T, c->a.fwd_temp / c->act_div_shard, unit_f(c));
    vp_tensors_release(&tmp, e);
    /* autocast's cache keeps the casts until the forward ends (released in train_step) */
    if (checkpointed && !c->ds.casts_cached) vp_tensors_release(&x->casts[b], e);
    vp_ev_free(e, gather);
    vp_tensors_dispose(&tmp);
}

/* The backward of block b (recomputing its forward first when it was checkpointed). */
static void block_backward(vp_events *e, inst_ev *x, int64_t b, int checkpointed, int accumulate) {
    const vp_inst_calc *c = x->c;
    double T = tokens(c);
    vp_tensors tmp = {0};
    if (x->cogwise) { /* its inputs are freed by its backward; the adapters' .grad tensors (small pool) after it */
        vp_tensors *sv = &x->saved[b];
        int last = b == x->act_blocks - 1 && !x->cog.rotary;
        int32_t ge = vp_ev_cog_block_backward(e, &x->cog, sv->n >= 1 ? sv->id[0] : -1, sv->n >= 2 ? sv->id[1] : -1, last);
        if (last) x->cog_e = ge;
        sv->n = 0;
        int64_t lo, hi;
        param_range(x, b, &lo, &hi);
        for (int64_t j = hi - 1; j >= lo; j--) alloc_grads(e, x, j, accumulate);
        return;
    }
    int32_t gather = gather_unit(e, x, b > 0);
    if (x->bwd_opwise) {
        /* op by op (events_lora.c); x->resid holds the gradient of the residual stream. With
         * gradient accumulation the adapters' new gradients are added into .grad and freed. */
        vp_lora_block_dims d;
        lora_dims(c, T, &d);
        vp_ev_block_lora_backward(e, &d, &x->ls[b], x->resid, b == 0, accumulate ? &tmp : &x->grads);
        if (b == 0) x->resid = -1;
        x->saved[b].n = 0; /* each freed by the backward */
        vp_tensors_release(&tmp, e);
        vp_ev_free(e, gather);
        vp_tensors_dispose(&tmp);
        return;
    }
    if (x->fp32wise) {
        /* op by op (events_fp32_block.c); x->resid holds the gradient of the residual stream. With
         * gradient accumulation the new gradients are added into .grad and freed. */
        vp_fp32_block_dims d;
        fp32_dims(x, &d);
        vp_ev_block_fp32_backward(e, &d, &x->fs[b], x->resid, accumulate ? &tmp : &x->grads);
        vp_tensors_release(&tmp, e);
        vp_ev_free(e, gather);
        vp_tensors_dispose(&tmp);
        return;
    }
    if (checkpointed) {
        if (vp_is_amp(c->in)) alloc_casts(e, x, b);
        alloc_layerwise_copies(e, x, b); /* the recompute's hooks upcast them again, its matmuls keep them */
        alloc_block_saved(e, x, T, &x->saved[b], NULL);
    }
    /* the adapter-dtype input gradient of a LoRA module is one tensor (activations_decoder.c) */
    int64_t lg = (int64_t)(T * c->a.lora_bwd / c->act_div_shard);
    if (lg > 0 && c->in->lora_dropout > 0) {
        /* lora_A's input gradient goes through Dropout's backward (grad × mask / (1 - p)): a second
         * tensor of the same width before the first is freed (peft Linear, adapter dtype) */
        int32_t g = vp_ev_alloc(e, lg);
        vp_tensors_push(&tmp, e, vp_ev_alloc(e, lg));
        vp_ev_free(e, g);
    } else {
        vp_tensors_push(&tmp, e, vp_ev_alloc(e, lg));
    }
    alloc_split(e, &tmp, T, (c->a.bwd_temp - c->a.lora_bwd) / c->act_div_shard, unit_f(c));
    int64_t lo, hi;
    param_range(x, b, &lo, &hi);
    for (int64_t j = hi - 1; j >= lo; j--) alloc_grads(e, x, j, accumulate);
    vp_tensors_release(&tmp, e);
    vp_tensors_release(&x->saved[b], e);
    vp_tensors_release(&x->casts[b], e);
    vp_ev_free(e, gather);
    vp_tensors_dispose(&tmp);
}

/* The output head and the loss (logits.c): returns the logits tensor the output keeps. */
static void loss_forward(vp_events *e, inst_ev *x, vp_tensors *loss_saved) {
    const vp_inst_calc *c = x->c;
    const vp_logits *l = &c->l;
    if (!c->on_head || l->elems == 0) return;
    double div = c->logits_div;
    int64_t elems = (int64_t)((double)l->elems / div);
    if (vp_is_amp(c->in) && c->in->arch.kind != VP_KIND_VIT)
        x->head_cast = vp_ev_alloc(e, 2 * c->in->arch.vocab * c->in->arch.hidden / (int64_t)c->act_div_shard);
    if (c->a.megatron) {
        vp_tensors_push(loss_saved, e, vp_ev_alloc(e, (int64_t)((double)l->held / div)));
        return;
    }
    int64_t adt = vp_dtype_bytes(vp_act_dtype(c->in));
    vp_tensors_push(&x->kept, e, vp_ev_alloc(e, adt * elems));          /* logits in the output */
    int64_t soft = l->held - l->out - 4 * l->elems;                      /* gemma2 softcap tanh */
    vp_tensors_push(loss_saved, e, vp_ev_alloc(e, (int64_t)((double)soft / div)));
    int32_t up = adt < 4 ? vp_ev_alloc(e, 4 * elems) : -1;               /* logits.float() */
    vp_tensors_push(loss_saved, e, vp_ev_alloc(e, 4 * elems));           /* log_softmax output */
    vp_ev_free(e, up);
}

static void loss_backward(vp_events *e, inst_ev *x, vp_tensors *loss_saved) {
    const vp_inst_calc *c = x->c;
    const vp_logits *l = &c->l;
    if (!c->on_head || l->elems == 0) {
        vp_tensors_release(loss_saved, e);
        return;
    }
    int64_t elems = (int64_t)((double)l->elems / c->logits_div);
    int64_t adt = vp_dtype_bytes(vp_act_dtype(c->in));
    /* nll_loss backward: grad of the log-softmax output; log_softmax backward: grad of its fp32
     * input; the cast back to the logits dtype; then the head's matmul backward */
    int32_t g1 = vp_ev_alloc(e, 4 * elems);
    int32_t g2 = vp_ev_alloc(e, 4 * elems);
    vp_ev_free(e, g1);
    vp_tensors_release(loss_saved, e);
    int32_t g3 = adt < 4 ? vp_ev_alloc(e, adt * elems) : -1;
    if (g3 >= 0) vp_ev_free(e, g2);
    if (x->bwd_opwise) {
        /* the head's matmul backward: the gradient of its input (the final norm's output), then
         * the backward's own cuBLAS workspace: the autograd engine runs the backward on its device
         * thread, whose cuBLAS handle gets its own workspace (ATen cuda/CublasHandlePool.cpp:
         * handles and workspaces are per thread and stream); seen once, in the first backward, in
         * the H100 trace qwen05-lora16all-b4s1024 */
        x->resid = vp_ev_alloc(e, (int64_t)((double)c->a.tokens * unit_h(c)));
        if (!x->bwd_workspace) vp_ev_alloc(e, vp_cublas_workspace_bytes());
        x->bwd_workspace = 1;
    }
    if (x->fp32wise) {
        /* the head's backward (events_fp32_block.c order, the H100 trace qwen05-fp32-b4s1024): its
         * weight's gradient (the tied embedding's .grad), the backward thread's cuBLAS workspace at
         * its first GEMM, the input's gradient; the head's saved input (the final norm's output)
         * goes with its node */
        const vp_arch *a = &c->in->arch;
        int32_t hg = vp_ev_alloc(e, 4 * a->vocab * a->hidden);
        if (!x->acc) vp_tensors_push(&x->grads, e, hg);
        x->head_grad = a->tie && !x->acc ? hg : -1;
        if (!x->bwd_workspace) vp_ev_alloc(e, vp_cublas_workspace_bytes());
        x->bwd_workspace = 1;
        x->resid = vp_ev_alloc(e, (int64_t)((double)c->a.tokens * unit_h(c)));
        if (x->acc) vp_ev_free(e, hg); /* gradient accumulation: added into .grad in place */
        vp_ev_free(e, g2);
        vp_ev_free(e, x->normed);
        x->normed = -1;
        return;
    }
    if (c->in->ft == VP_FT_FULL && c->on_head) alloc_grads(e, x, -1, 0);
    vp_ev_free(e, g3 >= 0 ? g3 : g2);
    vp_ev_free(e, x->head_cast);
    x->head_cast = -1;
}

static void outside_forward(vp_events *e, inst_ev *x) {
    const vp_inst_calc *c = x->c;
    double outside = (c->ds.has_embed || c->ds.has_head) ? c->a.outside / c->act_div_repl : 0.0;
    if (c->ctx.first && c->ctx.pp > 1) outside *= c->inflight;
    alloc_split(e, &x->outside, (double)c->a.tokens, outside, unit_h(c));
    /* the model's attention mask, built before the blocks and released with the rest (activations_dit.c) */
    if (c->a.step_mask > 0) vp_tensors_push(&x->outside, e, vp_ev_alloc(e, (int64_t)((double)c->a.tokens * c->a.step_mask)));
}

/* A half-precision Llama-style decoder whose no-grad blocks events_block.c replays op by op. */
static int nograd_opwise(const vp_inst_calc *c) {
    const vp_instance *in = c->in;
    const vp_arch *a = &in->arch;
    const char *k = c->a.attn_kernel ? c->a.attn_kernel : "";
    return a->kind == VP_KIND_DECODER && !c->a.megatron && !vp_is_amp(in) && vp_dtype_bytes(vp_act_dtype(in)) < 4 &&
           (!strcmp(k, "flash") || !strcmp(k, "mem-efficient")) && !a->experts && !a->fused_qkv && !a->fused_gate_up &&
           a->mlp == VP_MLP_SWIGLU && a->norm == VP_NORM_RMS && !a->norm_fp32 && !a->qk_norm && c->act_div_shard == 1.0 &&
           c->act_div_repl == 1.0 && c->a.layers > 1;
}

/* A frozen model's no-grad forward: one block's temporaries at a time, then its logits. A Llama-style
 * decoder runs its blocks op by op (events_block.c, as generate's prefill): the embedding output, each
 * block's input freed at the next block's end, the DynamicCache K and V of every block (use_cache
 * defaults to True) kept by the output until the statement ends. */
static void nograd_forward(vp_events *e, inst_ev *x, int *workspace) {
    const vp_inst_calc *c = x->c;
    double T = (double)c->a.tokens;
    vp_tensors tmp = {0};
    if (nograd_opwise(c)) {
        const vp_arch *a = &c->in->arch;
        double adt = (double)vp_dtype_bytes(vp_act_dtype(c->in));
        double kvd = (double)(a->kv_heads * a->head_dim);
        vp_block_dims d = {T, (double)a->hidden, (double)(a->heads * a->head_dim), kvd, (double)a->inter, adt, adt, kvd * adt, adt, 0, 0, 0, 0, NULL, {0}};
        int32_t emb = vp_ev_alloc(e, (int64_t)(T * d.h * adt)), cur = emb, prev = -1;
        if (*workspace) { /* the first GEMM: the rotary embedding's inv_freq @ positions */
            vp_ev_alloc(e, vp_cublas_workspace_bytes());
            *workspace = 0;
        }
        for (int64_t b = 0; b < x->act_blocks; b++) {
            int32_t in_b = cur, ck = -1, cv = -1;
            cur = vp_ev_block_nograd(e, &d, cur, &ck, &cv);
            vp_tensors_push(&tmp, e, ck);
            vp_tensors_push(&tmp, e, cv);
            if (prev != emb) vp_ev_free(e, prev);
            prev = in_b;
        }
        int32_t nrm = vp_ev_norm_nograd(e, T, d.h, adt, adt);
        if (prev != emb) vp_ev_free(e, prev);
        vp_ev_free(e, cur);
        vp_ev_free(e, emb);
        vp_tensors_push(&tmp, e, nrm);
    } else {
        /* the model's attention mask for the whole forward (activations_dit.c) */
        int32_t mask = c->a.step_mask > 0 ? vp_ev_alloc(e, (int64_t)(T * c->a.step_mask)) : -1;
        for (int64_t b = 0; b < x->act_blocks; b++) {
            alloc_split(e, &tmp, T, vp_block_bytes(c, 1) * x->fold + c->a.fwd_temp / c->act_div_shard, unit_h(c));
            vp_tensors_release(&tmp, e);
        }
        vp_ev_free(e, mask);
    }
    if (c->on_head && c->l.elems > 0) {
        int64_t el = c->l.elems;
        vp_tensors_push(&tmp, e, vp_ev_alloc(e, c->l.out));
        vp_tensors_push(&tmp, e, vp_ev_alloc(e, 4 * el)); /* .float() */
        if (c->in->logprobs_fp32) vp_tensors_push(&tmp, e, vp_ev_alloc(e, 4 * el)); /* log_softmax */
        vp_tensors_release(&tmp, e);
    }
    vp_tensors_dispose(&tmp);
}

/* The embedding's backward after the blocks' (events_fp32_block.c runs): embedding_dense_backward
 * makes the weight's gradient, then the residual stream's gradient goes; a tied weight already has
 * its .grad from the head, and AccumulateGrad adds the two out of place (new .grad, both freed), as
 * the H100 trace qwen05-fp32-b4s1024 shows. Its index sort's cub buffer (16,145,920 B there) is not
 * modelled: it lands in a freed block at the end of the backward. */
static void embedding_backward(vp_events *e, inst_ev *x) {
    const vp_arch *a = &x->c->in->arch;
    int64_t bytes = 4 * a->vocab * a->hidden;
    int32_t g = vp_ev_alloc(e, bytes);
    vp_ev_free(e, x->resid);
    x->resid = -1;
    if (x->acc) { /* gradient accumulation: added into .grad in place */
        vp_ev_free(e, g);
        return;
    }
    if (x->head_grad < 0) {
        vp_tensors_push(&x->grads, e, g);
        return;
    }
    /* the sum replaces the head's entry; zero_grad frees .grad in model.parameters() order (the
     * embedding first, then each block's in the reverse of their backward order): the group is
     * released newest first, so the new .grad goes last */
    int32_t sum = vp_ev_alloc(e, bytes), w = 0;
    for (int32_t k = 0; k < x->grads.n; k++)
        if (x->grads.id[k] != x->head_grad) x->grads.id[w++] = x->grads.id[k];
    x->grads.n = w;
    vp_tensors_push(&x->grads, e, sum);
    vp_ev_free(e, x->head_grad);
    vp_ev_free(e, g);
    x->head_grad = -1;
}

static void train_step(vp_events *e, inst_ev *xs, int n, int step, int64_t micro, int *workspace) {
    e->phase = VP_PH_FORWARD;
    for (int i = 0; i < n; i++)
        if (xs[i].c->in->activations == VP_ACT_NO_GRAD) nograd_forward(e, &xs[i], workspace);
    for (int64_t mb = 0; mb < micro; mb++) {
        for (int i = 0; i < n; i++) {
            inst_ev *x = &xs[i];
            const vp_inst_calc *c = x->c;
            if (!trained(c)) continue;
            int64_t every = c->in->gc_every;
            double passes = c->in->activations == VP_ACT_KEEP_GRAPH ? (double)c->in->passes : 1.0;
            vp_tensors loss_saved = {0};
            e->phase = VP_PH_FORWARD;
            /* FSDP's root unit (embeddings, final norm, head) */
            int32_t root = vp_ev_alloc(e, c->ds.gather_root_bytes);
            int stepwise = x->opwise || x->fp32wise;
            if (!stepwise && !x->cogwise) outside_forward(e, x);
            if (x->cogwise) {
                x->cog_emb = vp_ev_cog_embed(e, &x->cog);
                x->cog_h = x->cog_e = -1;
            }
            /* the embedding's output: the first block's input (events_lora.c frees each block's;
             * events_fp32_block.c's norms save it) */
            int32_t emb = stepwise ? vp_ev_alloc(e, (int64_t)(tokens(c) * unit_h(c))) : -1;
            x->resid = emb;
            if (emb >= 0 && *workspace) { /* the first GEMM: the rotary embedding's inv_freq @ positions */
                vp_ev_alloc(e, vp_cublas_workspace_bytes());
                *workspace = 0;
            }
            for (int64_t b = 0; b < x->act_blocks; b++) block_forward(e, x, b, every > 0 && b % every == 0, passes);
            if (x->cogwise) {
                vp_ev_cog_head(e, &x->cog, x->cog_h, x->cog_e, &x->cog_head, &x->kept);
                x->cog_h = x->cog_e = -1;
            }
            /* the final norm (with its graph) reads the last block's output, then the name is
             * rebound; the model's forward returns (inputs_embeds goes); the norm's output is the
             * head's input */
            int32_t normed = -1;
            vp_tensors fn = {0}; /* the final norm's saved tensors when the backward is op by op */
            if (x->opwise) {
                vp_lora_block_dims d;
                lora_dims(c, tokens(c), &d);
                normed = vp_ev_norm_train(e, &d, x->bwd_opwise ? &fn : &x->outside);
            }
            if (x->fp32wise) {
                /* the last block's output is saved by the final norm, its output by the head */
                vp_fp32_block_dims d;
                fp32_dims(x, &d);
                x->normed = vp_ev_norm_fp32(e, &d, x->resid, &x->fn);
            } else {
                if (x->resid != emb) vp_ev_free(e, x->resid);
                vp_ev_free(e, emb);
            }
            x->resid = -1;
            loss_forward(e, x, &loss_saved);
            vp_ev_free(e, normed);
            /* the autocast region exits with the forward: torch.clear_autocast_cache() drops the casts
             * checkpointed blocks kept (torch/amp/autocast_mode.py __exit__) */
            if (c->ds.casts_cached)
                for (int64_t b = 0; b < x->act_blocks; b++)
                    if (every > 0 && b % every == 0) vp_tensors_release(&x->casts[b], e);
            e->phase = VP_PH_BACKWARD;
            int acc = mb > 0;
            x->acc = acc;
            loss_backward(e, x, &loss_saved);
            if (x->bwd_opwise) {
                /* the final norm's backward: its result is the residual stream's gradient */
                vp_lora_block_dims d;
                lora_dims(c, tokens(c), &d);
                x->resid = vp_ev_norm_train_backward(e, &d, x->resid, fn.n >= 2 ? fn.id[0] : -1, fn.n >= 2 ? fn.id[1] : -1);
            }
            vp_tensors_dispose(&fn);
            if (x->cogwise) {
                /* the residual streams' gradients: the head's (video; joint where rotary, the text's a view of
                 * it), the text's made by the last block's norm2 backward (block_backward); the blocks add into
                 * both in place */
                x->cog_h = vp_ev_cog_head_backward(e, &x->cog, &x->cog_head, &x->bwd_workspace);
                x->cog_e = -1;
            }
            vp_fp32_block_dims fd;
            if (x->fp32wise) {
                fp32_dims(x, &fd);
                vp_tensors ng = {0};
                x->resid = vp_ev_norm_fp32_backward(e, &fd, &x->fn, x->resid, -1, acc ? &ng : &x->grads);
                vp_tensors_release(&ng, e);
                vp_tensors_dispose(&ng);
            }
            for (int64_t b = x->act_blocks - 1; b >= 0; b--) block_backward(e, x, b, every > 0 && b % every == 0, acc);
            if (x->cogwise) {
                vp_ev_free(e, x->cog_e);
                vp_ev_free(e, x->cog_h);
                vp_ev_free(e, x->cog_emb);
                x->cog_h = x->cog_e = x->cog_emb = -1;
            }
            vp_tensors_release(&x->outside, e);
            if (x->fp32wise)
                embedding_backward(e, x);
            else if (c->in->ft == VP_FT_FULL)
                alloc_grads(e, x, -2, acc);
            vp_ev_free(e, root);
            vp_tensors_dispose(&loss_saved);
            if (mb + 1 < micro) vp_tensors_release(&x->kept, e); /* the loop drops `out` */
        }
    }
    e->phase = VP_PH_STEP;
    for (int i = 0; i < n; i++) optimizer_step(e, &xs[i], step == 0);
    for (int i = 0; i < n; i++) {
        if (!xs[i].c->grads_resident) vp_tensors_release(&xs[i].grads, e); /* zero_grad(set_to_none) */
        vp_tensors_release(&xs[i].kept, e);                                /* del out, loss */
    }
}

void vp_events_train(const vp_plan *plan, const vp_inst_calc *cs, int n, vp_events *out) {
    inst_ev *xs = calloc((size_t)(n > 0 ? n : 1), sizeof *xs);
    if (!xs) {
        out->failed = 1;
        return;
    }
    out->phase = VP_PH_LOAD;
    /* diffusion training with precomputed conditions and latents (precompute.c, i12): the encoders run and are
     * freed into the cache before the transformer loads */
    vp_inst_calc *kept = NULL;
    if (vp_precompute_on(plan)) {
        vp_events_precompute(plan, cs, n, out);
        if ((kept = vp_precompute_training(plan, cs, &n))) cs = kept;
    }
    for (int i = 0; i < n; i++) {
        inst_init(&xs[i], &cs[i]);
        xs[i].seq = plan->seq;
        xs[i].cogwise = !xs[i].opwise && !xs[i].fp32wise && cog_opwise(&cs[i], plan->batch);
        if (xs[i].cogwise) cog_dims(&cs[i], plan->batch, &xs[i].cog);
        /* the math kernel's scores are per sequence: tokens must be whole sequences (not a VLM's
         * image tokens beside the text) */
        if (xs[i].fp32wise && (plan->seq <= 0 || cs[i].a.tokens % plan->seq)) xs[i].fp32wise = 0;
        if (!xs[i].saved || !xs[i].casts || !xs[i].ls || !xs[i].fs) out->failed = 1;
    }
    for (int i = 0; i < n && !out->failed; i++) {
        alloc_weights(out, &xs[i]);
        alloc_resident_grads(out, &xs[i]);
        if (plan->par.framework == VP_FW_DEEPSPEED && plan->par.zero > 0) init_states(out, &xs[i]);
    }
    /* the cuBLAS workspace: allocated through PyTorch's allocator by the first GEMM (runtime.c), in
     * the first forward after the embedding where the blocks are replayed op by op (the H100 trace
     * qwen05-lora16all), else counted from the end of loading */
    int workspace = 0, first_nograd = 1;
    for (int i = 0; i < n; i++) workspace |= (xs[i].opwise || xs[i].fp32wise) && xs[i].c->in->activations == VP_ACT_TRAIN;
    for (int i = 0; i < n; i++) /* frozen forwards run first */
        if (xs[i].c->in->activations == VP_ACT_NO_GRAD) {
            if (first_nograd) workspace &= nograd_opwise(xs[i].c);
            first_nograd = 0;
        }
    if (!workspace) vp_ev_alloc(out, vp_cublas_workspace_bytes());
    int64_t micro = plan->grad_accum > 1 ? 2 : 1;
    /* workload.steps: a figure logged after the first step or two is what those steps reserved */
    int steps = plan->steps > 0 && plan->steps < VP_TRAIN_STEPS ? (int)plan->steps : VP_TRAIN_STEPS;
    for (int step = 0; step < steps && !out->failed; step++) train_step(out, xs, n, step, micro, &workspace);
    for (int i = 0; i < n; i++) inst_dispose(&xs[i]);
    free(xs);
    free(kept);
}
