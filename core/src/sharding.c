/* sharding.c: one device's share of an instance's model states.
 *
 * Bytes per parameter of mixed-precision Adam (ZeRO paper, Rajbhandari et al. 2020, §3.1: 2Ψ 16-bit
 * params + 2Ψ 16-bit grads + KΨ optimizer states, K = 12 for fp32 master + m + v), sharded over N_d
 * data-parallel ranks by stage (Figure 1): P_os divides K, P_os+g also the grads, P_os+g+p also the
 * params. Framework specifics, each a real tensor of that framework:
 *  - DeepSpeed keeps an fp32 gradient of each rank's partition (stage_1_and_2.py
 *    single_partition_of_fp32_groups; its estimator counts "18 = 2_grads_16bit + 4_grads_32bit +
 *    4_params_32bit + 8_optimizer_states_32bit", memory-facts §2.1), and ZeRO-3 gathers a layer's
 *    16-bit params and grads in flight (estimate_zero3: largest_layer_memory = 4 × largest layer).
 *  - Megatron accumulates into fp32 main_grad buffers that are never sharded: 18 B/param, or
 *    6 + 12/N_d with the distributed optimizer (megatron/training/theoretical_memory_usage.py).
 *  - DeepSpeed ZeRO-3 holds its gradient partition from init in grad_accum_dtype and steps one
 *    sub-group at a time (deepspeed_zero3_grads below, stage3.py lines cited there).
 *  - PyTorch DDP's gradient buckets are a second copy of the gradients unless
 *    gradient_as_bucket_view=True (torch DistributedDataParallel docs).
 *  - PyTorch FSDP (full_shard, shard_grad_op, hybrid_shard): sharding_fsdp.c, fsdp_shard.c.
 *  - fp8 (Transformer Engine) weight copies and amax histories: precision.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "precision.h"
#include "sharding.h"
#include "util.h"

void vp_devctx_for(const vp_plan *plan, const vp_instance *in, int64_t rank, vp_devctx *ctx) {
    memset(ctx, 0, sizeof *ctx);
    ctx->rank = rank;
    ctx->tp = ctx->pp = ctx->ep = ctx->shard = 1;
    ctx->first = ctx->last = 1;
    const vp_parallel *p = &plan->par;
    if (!in->sharded) return;
    ctx->tp = p->tp;
    ctx->pp = p->pp;
    ctx->ep = in->arch.experts ? p->ep : 1;
    /* Megatron rank order: tensor-parallel fastest, then data, then pipeline */
    ctx->stage = (rank / (p->tp * p->dp)) % p->pp;
    ctx->first = ctx->stage == 0;
    ctx->last = ctx->stage == p->pp - 1;
    int zero = p->zero;
    int64_t shard = p->dp;
    if (p->framework == VP_FW_FSDP) {
        zero = p->fsdp == VP_FSDP_FULL_SHARD ? 3 : p->fsdp == VP_FSDP_SHARD_GRAD_OP ? 2
             : p->fsdp == VP_FSDP_HYBRID_SHARD ? 3 : 0;
        if (p->fsdp == VP_FSDP_HYBRID_SHARD && plan->gpu_count < shard) shard = plan->gpu_count;
    } else if (p->framework == VP_FW_MEGATRON) {
        zero = p->distributed_optimizer ? 1 : 0;
    }
    ctx->zero = shard > 1 ? zero : 0;
    ctx->shard = ctx->zero ? shard : 1;
}

#define term(t, bytes, ...) vp_term_set(ds, t, bytes, __VA_ARGS__)
void vp_term_set(const vp_devstate *ds, vp_term *t, int64_t bytes, const char *fmt, ...) {
    t->bytes = bytes > 0 ? bytes : 0;
    if (ds->quiet) {
        t->explain[0] = '\0';
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->explain, sizeof t->explain, fmt, ap);
    va_end(ap);
}

/* Parameters of the instance that live on this device (before ZeRO sharding). */
static double device_param_fraction(const vp_instance *in, const vp_devctx *ctx, vp_devstate *ds) {
    const vp_param_counts *pc = &in->pc;
    const vp_arch *a = &in->arch;
    double L = (double)(a->layers > 0 ? a->layers : 1);
    double per_stage = (double)((a->layers + ctx->pp - 1) / ctx->pp);
    ds->layer_frac = ctx->pp > 1 ? per_stage / L : 1.0;
    double layers = (double)pc->layers_total * ds->layer_frac;
    double norms = (double)pc->per_layer_norm * L * ds->layer_frac;
    double experts = 0;
    if (a->experts) experts = (double)a->moe_layers * (double)a->experts * 3.0 * (double)a->hidden * (double)a->expert_inter * ds->layer_frac;
    double tp = (double)ctx->tp;
    double dev = norms + (layers - norms - experts) / tp + experts / (tp * (double)ctx->ep);
    ds->has_embed = ctx->first;
    ds->has_head = ctx->last;
    if (ctx->first) dev += (double)pc->embed / tp;
    if (ctx->last) {
        dev += (double)(pc->lm_head ? pc->lm_head : (ctx->pp > 1 ? pc->embed : 0)) / tp + (double)pc->final_norm + (double)pc->other;
    }
    return dev / (double)pc->total;
}

/* DeepSpeed ZeRO-3's gradient partition, optimizer step and buckets (deepspeed/runtime/zero/stage3.py
 * @ edaa722):
 *  - grad_partitions_flat_buffer = torch.zeros(sum(p.partition_numel()), dtype=gradient_accumulation_dtype)
 *    is allocated once, when the optimizer is built (stage3.py:742-744), so the partition's gradients
 *    are resident through every phase; gradient_accumulation_dtype is data_types.grad_accum_dtype, or
 *    the model dtype when unset (engine.py:1485-1496): fp32 under torch.autocast, bf16 in bf16 mode;
 *  - under torch.autocast the fp32 model params are the master: no second copy (stage3.py:1113-1117);
 *  - step() works one sub-group at a time (sub_group_size elements, config.py:175 default 1e9): the
 *    sub-group's gradients are flattened into a fresh fp32 tensor (_prepare_fp32_grad_for_sub_group,
 *    stage3.py:2398-2417), the optimizer steps that one flat tensor (_optimizer_step, stage3.py:
 *    1185-1209), and the fp32 gradient is dropped (_release_sub_group, stage3.py:2448-2452);
 *  - one contiguous reduce bucket of reduce_bucket_size elements per communication dtype (stage3.py:
 *    456-464, 731-735): with torch_autocast, Linear gradients are reduced in the autocast dtype
 *    (torch_autocast.py init_autocast_params: comm_dtype) and the others in fp32. */
static void deepspeed_zero3_grads(const vp_plan *plan, const vp_instance *in, const vp_weights *w, const vp_optim *o,
                                  double N, double dev_train, const char *nt, vp_devstate *ds) {
    const vp_parallel *par = &plan->par;
    int amp = vp_is_amp(in);
    vp_dtype model = amp || in->precision == VP_PREC_FP32 ? VP_DT_FP32 : vp_param_dtype(in);
    vp_dtype gad = par->grad_accum_dtype >= 0 ? (vp_dtype)par->grad_accum_dtype : model;
    int gab = vp_dtype_bytes(gad);
    double part = dev_train / N;
    ds->grads_resident = 1;
    if (gad == VP_DT_FP32)
        term(&ds->grad_fp32, (int64_t)(part * 4.0),
             "ZeRO-3 fp32 gradient partition (grad_partitions_flat_buffer, allocated at init): %s × 4 B / %.0f ranks", nt, N);
    else
        term(&ds->grads, (int64_t)(part * gab), "ZeRO-3 gradient partition in %s (grad_accum_dtype = the model dtype), "
             "allocated at init: %s × %d B / %.0f ranks", vp_dtype_name(gad), nt, gab, N);
    double sub = (double)par->sub_group_size;
    if (sub > part) sub = part;
    double temp_per = w->trainable > 0 ? (double)o->temp_bytes / (double)w->trainable : 0.0;
    term(&ds->opt_temp, (int64_t)(sub * (4.0 + temp_per)),
         "ZeRO-3 steps one sub-group (%.0fM elements) at a time: its fp32 flat gradient 4 B%s", sub / 1e6,
         temp_per > 0 ? " + the optimizer's temporaries" : "");
    if (plan->par.dp > 1) {
        double elems = (double)par->reduce_bucket;
        if (elems > dev_train) elems = dev_train;
        double per = amp ? 2.0 + 4.0 : (double)vp_dtype_bytes(vp_param_dtype(in));
        term(&ds->buckets, (int64_t)(elems * per), amp ? "ZeRO-3 reduce buckets: %.0fM elements × (2 B autocast-dtype + 4 B fp32)"
                                                      : "ZeRO-3 reduce bucket: %.0fM elements × %.0f B",
             elems / 1e6, per);
    }
}

/* Transformer Engine fp8 copies (precision.c) of the matmul weights on this device. */
static void fp8_terms(const vp_instance *in, const vp_devctx *ctx, vp_devstate *ds) {
    if (in->precision != VP_PREC_FP8 || in->activations == VP_ACT_NO_GRAD) return;
    double lin = (double)in->pc.linear_in_layers * ds->layer_frac / (double)ctx->tp;
    char n[24];
    vp_fmt_count(n, sizeof n, lin);
    term(&ds->fp8_weights, vp_fp8_weight_copy_bytes(lin),
         "Transformer Engine fp8 weights: %s matmul weights × (1 B row-wise + 1 B transpose for backward)", n);
    int64_t blocks = (int64_t)((double)in->arch.layers * ds->layer_frac + 0.5);
    term(&ds->fp8_meta, vp_fp8_meta_bytes(blocks * vp_fp8_gemms_per_block(in)),
         "fp8 amax histories: %lld GEMMs × 5 quantizers × 1024 steps × 4 B (DelayedScaling)",
         (long long)(blocks * vp_fp8_gemms_per_block(in)));
}

void vp_shard_compute(const vp_plan *plan, const vp_instance *in, const vp_weights *w, const vp_optim *o,
                      const vp_devctx *ctx, vp_devstate *ds) {
    memset(ds, 0, sizeof *ds);
    ds->quiet = plan->quiet;
    const vp_parallel *par = &plan->par;
    double frac = device_param_fraction(in, ctx, ds);
    double N = (double)ctx->shard;
    int z = ctx->zero;
    vp_framework fw = in->sharded ? par->framework : VP_FW_TORCH;
    /* torch.autocast casts fp32 weights for the matmuls; its cache (cache_enabled) keeps each cast of a
     * leaf parameter until the autocast region exits (aten/src/ATen/autocast_mode.cpp cached_cast) */
    ds->no_casts = !vp_is_amp(in);
    /* QLoRA: the base Linear4bit weights are packed uint8 Params4bit, which autocast does not cast (only floating
     * leaves); bitsandbytes' MatMul4Bit dequantizes them per call into a temporary and saves the packed weight for
     * backward (bitsandbytes autograd/_functions.py MatMul4Bit.forward: F.dequantize_4bit(B, quant_state)
     * .to(A.dtype).t(); ctx.tensors = (A, B)), so no weight copy outlives its matmul */
    if (in->ft == VP_FT_QLORA) ds->no_casts = 1;
    /* the cache takes only leaves that require grad (cached_cast: `arg.requires_grad() && arg.is_leaf()`): a LoRA or
     * adapter base, which PEFT freezes (requires_grad_(False)), or a frozen model, casts its fp32 weights anew at each
     * matmul; without checkpointing the matmul saves that copy for backward (the same bytes), with it the copy dies
     * with the matmul and the recomputed block's copies live to its backward */
    ds->casts_cached = in->autocast_cache && (in->ft == VP_FT_FULL || in->ft == VP_FT_QLORA);
    if (fw == VP_FW_FSDP && z >= 2 && !in->stream_from_cpu) {
        vp_shard_fsdp(plan, in, w, o, ctx, frac, ds);
        return;
    }
    int master = vp_fp32_master(in);
    int pb = vp_dtype_bytes(vp_param_dtype(in));
    int gb = vp_dtype_bytes(w->grad_dtype);
    double dev_params = (double)w->base_params * frac;
    double dev_train = (double)w->trainable * frac;
    char np[24], nt[24];
    vp_fmt_count(np, sizeof np, dev_params);
    vp_fmt_count(nt, sizeof nt, dev_train);
    const char *where = (ctx->tp > 1 || ctx->pp > 1) ? " on this device (TP/PP share)" : "";
    int off_opt = in->sharded && par->offload_optimizer && dev_train > 0;
    int off_par = in->sharded && par->offload_params && z == 3;

    /* ---- weights ---- */
    double wbytes = (double)w->base_bytes * frac;
    if (in->stream_from_cpu) {
        /* CPU-resident frozen model: each block is copied in before it runs and the next one is
         * prefetched (accelerate cpu_offload / diffusers enable_model_cpu_offload style) */
        int64_t layer = in->pc.largest_layer;
        term(&ds->weights, (int64_t)(2.0 * (double)layer * pb + (double)(in->pc.embed + in->pc.lm_head) * 0.0),
             "streamed from CPU: 2 blocks of %lld params × %d B on the GPU at a time", (long long)layer, pb);
        return;
    }
    if (z == 3) {
        if (off_par)
            term(&ds->cpu_weights, (int64_t)(wbytes / N), "ZeRO-3 parameter offload: the %s-param shard lives in CPU RAM", np);
        else
            term(&ds->weights, (int64_t)(wbytes / N), "%s params%s × %d B / %.0f ranks (ZeRO-3 / full shard)", np, where, pb, N);
        /* the layer being computed gathered, with its grads: DeepSpeed's estimate_zero3 counts
         * largest_layer_memory = 4 × largest layer (2 B params + 2 B grads) */
        int64_t layer = in->pc.largest_layer;
        term(&ds->gathered, (int64_t)((double)layer / (double)ctx->tp * (pb + (dev_train > 0 ? gb : 0))),
             "largest layer (%lld params) gathered: %d B params%s", (long long)layer, pb,
             dev_train > 0 ? " + its unsharded grads" : "");
    } else if (w->mxfp4_params > 0) {
        /* weights.c: transformers' Mxfp4HfQuantizer keeps gpt-oss experts as uint8 pairs of e2m1 values
         * plus one e8m0 scale per 32 (integrations/mxfp4.py): 16 + 1 B per 32 weights = 4.25 bits */
        char nm[24], no[24];
        vp_fmt_count(nm, sizeof nm, (double)w->mxfp4_params * frac);
        vp_fmt_count(no, sizeof no, (double)(w->base_params - w->mxfp4_params) * frac);
        term(&ds->weights, (int64_t)wbytes, "%s MXFP4 expert params × 17/32 B (4-bit values + an 8-bit scale per 32: "
             "4.25 bits) + %s others%s × %d B %s", nm, no, where, pb, vp_dtype_name(vp_param_dtype(in)));
    } else if (in->quant == VP_QUANT_INT8 || in->quant == VP_QUANT_NF4 || in->quant == VP_QUANT_FP4) {
        /* weights.c: bitsandbytes quantizes the blocks' Linears (int8: 1 B; NF4 / FP4: 0.5 B, their block constants
         * counted apart), the rest stays in the compute dtype, and _keep_in_fp32_modules (T5's wo) in fp32 */
        char nq[24], no[24], nk[24] = "";
        int64_t q = in->pc.linear_in_layers - w->fp32_keep_params;
        vp_fmt_count(nq, sizeof nq, (double)q * frac);
        vp_fmt_count(no, sizeof no, (double)(w->base_params - q - w->fp32_keep_params) * frac);
        if (w->fp32_keep_params > 0) vp_fmt_count(nk, sizeof nk, (double)w->fp32_keep_params * frac);
        term(&ds->weights, (int64_t)wbytes, "%s block linear params × %s + %s others%s × %d B %s%s%s%s", nq,
             in->quant == VP_QUANT_INT8 ? "1 B int8" : in->quant == VP_QUANT_NF4 ? "0.5 B NF4" : "0.5 B FP4", no, where, pb,
             vp_dtype_name(vp_param_dtype(in)), nk[0] ? " + " : "", nk, nk[0] ? " wo params × 4 B fp32 (_keep_in_fp32_modules)" : "");
    } else if (w->fp32_keep_params > 0) {
        /* weights.c: transformers keeps T5's wo in fp32 when the model is loaded in float16 */
        char nk[24], no[24];
        vp_fmt_count(nk, sizeof nk, (double)w->fp32_keep_params * frac);
        vp_fmt_count(no, sizeof no, (double)(w->base_params - w->fp32_keep_params) * frac);
        term(&ds->weights, (int64_t)wbytes, "%s params%s × %d B %s + %s wo params × 4 B fp32 (_keep_in_fp32_modules)", no,
             where, pb, vp_dtype_name(vp_param_dtype(in)), nk);
    } else if (in->quant == VP_QUANT_FP8) {
        char nq[24], no[24];
        int64_t q8 = in->pc.linear_in_layers - in->arch.d.norm_linear;
        vp_fmt_count(nq, sizeof nq, (double)q8 * frac);
        vp_fmt_count(no, sizeof no, (double)(w->base_params - q8) * frac);
        term(&ds->weights, (int64_t)wbytes, "layerwise casting: %s block linear params × 1 B float8 + %s others%s × %d B %s", nq, no,
             where, pb, vp_dtype_name(vp_param_dtype(in)));
    } else if (in->arch.d.buffers > 0) {
        char nb[24];
        vp_fmt_count(nb, sizeof nb, (double)in->arch.d.buffers * frac);
        term(&ds->weights, (int64_t)wbytes, "%s params + %s buffer elements (position tables)%s × %d B %s", np, nb, where, pb,
             vp_dtype_name(vp_param_dtype(in)));
    } else {
        term(&ds->weights, (int64_t)wbytes, "%s params%s × %d B %s", np, where, pb, vp_dtype_name(vp_param_dtype(in)));
    }
    term(&ds->quant, (int64_t)((double)w->quant_const_bytes * frac / (z == 3 ? N : 1.0)), "%s",
         in->quant == VP_QUANT_INT8 ? "int8 row scales (fp32)" : "4-bit block absmax constants");
    char na[24];
    vp_fmt_count(na, sizeof na, (double)w->adapter_params * frac);
    term(&ds->adapters, (int64_t)((double)w->adapter_bytes * frac / (z == 3 ? N : 1.0)), "%s adapter params × %d B %s", na,
         (int)(w->adapter_params ? w->adapter_bytes / w->adapter_params : 0),
         in->ft == VP_FT_ADAPTER ? vp_dtype_name(vp_param_dtype(in)) : vp_dtype_name(in->lora_dtype));
    if (dev_train <= 0) return;
    fp8_terms(in, ctx, ds);

    /* ---- gradients ---- */
    int ds_z3 = fw == VP_FW_DEEPSPEED && z == 3 && !off_opt;
    if (fw == VP_FW_MEGATRON) {
        /* fp32 main_grad buffers, never sharded (the distributed optimizer shards only the states) */
        term(&ds->grads, (int64_t)(dev_train * 4.0), "%s params × 4 B fp32 main_grad (Megatron)", nt);
    } else if (off_opt) {
        term(&ds->grads, 0, "offloaded");
    } else if (ds_z3) {
        /* each layer's 16-bit grads are counted with the gathered layer; the partition: */
        deepspeed_zero3_grads(plan, in, w, o, N, dev_train, nt, ds);
    } else {
        double gdiv = z >= 2 ? N : 1.0;
        term(&ds->grads, (int64_t)(dev_train * gb / gdiv), "%s trainable params × %d B %s%s", nt, gb, vp_dtype_name(w->grad_dtype),
             z >= 2 ? " / ranks (ZeRO-2+)" : "");
        /* stage_1_and_2.py step(): the partition's gradients flattened into an fp32 copy
         * (single_partition_of_fp32_groups[i].grad); DeepSpeed's estimator counts it as 4_grads_32bit */
        if (fw == VP_FW_DEEPSPEED && master)
            term(&ds->grad_fp32, (int64_t)(dev_train * 4.0 / (z >= 1 ? N : 1.0)),
                 "DeepSpeed fp32 gradient of the optimizer partition: %s × 4 B%s", nt, z >= 1 ? " / ranks" : "");
    }
    ds->head_grad_bytes = (int64_t)((double)(in->pc.lm_head ? in->pc.lm_head : in->pc.embed) * gb / (double)ctx->tp);

    /* ---- optimizer: fp32 master copy, states, step temporaries ---- */
    double odiv = z >= 1 ? N : 1.0;
    if (master) {
        vp_term *t = off_opt ? &ds->cpu_states : &ds->master;
        term(t, (int64_t)(dev_train * 4.0 / odiv), "fp32 master weights: %s × 4 B%s", nt, odiv > 1 ? " / ranks" : "");
    }
    if (off_opt) {
        double cpu = (double)o->state_bytes * frac / odiv + (master ? dev_train * 4.0 / odiv : 0) + dev_train * 4.0 / odiv;
        term(&ds->cpu_states, (int64_t)cpu, "optimizer offload: fp32 master, states and grads of %s params%s in CPU RAM", nt,
             odiv > 1 ? " / ranks" : "");
    } else {
        term(&ds->states, (int64_t)((double)o->state_bytes * frac / odiv), "%s%s", o->state_explain,
             odiv > 1 ? " / ranks (ZeRO-1+)" : "");
        if (!ds_z3) term(&ds->opt_temp, (int64_t)((double)o->temp_bytes * frac / odiv), "%s", o->temp_explain);
    }
    if (ds_z3 && vp_is_amp(in) && !ds->quiet)
        vp_strlcpy(ds->gathered.explain, "largest layer gathered: bf16 all-gather into its fp32 param.data + its fp32 grads; "
                   "autocast caches a bf16 copy of each (same nn.Parameter)", sizeof ds->gathered.explain);

    /* ---- communication buffers ---- */
    if (in->sharded && par->dp > 1 && !ds_z3) {
        if (fw == VP_FW_TORCH && z == 0 && !par->grad_as_bucket_view)
            term(&ds->buckets, (int64_t)(dev_train * gb), "DDP gradient buckets: a second copy of the %s grads "
                 "(gradient_as_bucket_view=False)", nt);
        else if (fw == VP_FW_DEEPSPEED && z >= 1) {
            double elems = (double)par->reduce_bucket;
            if (elems > dev_train) elems = dev_train;
            term(&ds->buckets, (int64_t)(elems * gb), "DeepSpeed reduce bucket: %.0fM elements × %d B (reduce_bucket_size)",
                 elems / 1e6, gb);
        }
    }
}
