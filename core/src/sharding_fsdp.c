/* sharding_fsdp.c: one rank's model states under PyTorch FSDP (full_shard, shard_grad_op,
 * hybrid_shard), FSDP2 fully_shard by default, FSDP1 FullyShardedDataParallel with fsdp_version 1.
 *
 * Units: transformer-layer wrapping, as accelerate's fsdp2_prepare_model and torchtitan apply it:
 * fully_shard(block) for every block, then fully_shard(model) for the root (embeddings, final norm,
 * output head). Shard sizes: fsdp_shard.c (dim-0 chunks padded to ceil(dim0 / world) rows).
 *
 * Mixed precision (FSDP2 MixedPrecisionPolicy(param_dtype, reduce_dtype, output_dtype), FSDP1
 * MixedPrecision(param_dtype, reduce_dtype, buffer_dtype)):
 *  - the sharded parameters keep their original dtype (fp32 for an fp32 model): they are what the
 *    optimizer steps, so there is no separate master copy;
 *  - all-gather inputs are cast to param_dtype (_fsdp_param.py all_gather_inputs:
 *    _to_dtype_if_needed(sharded_param_data, self.param_dtype)), so a gathered unit costs
 *    unit × param_dtype bytes; the matmuls see param_dtype weights and autocast has nothing to cast;
 *  - the unsharded gradients are in param_dtype; foreach_reduce (_fsdp_collectives.py) converts them
 *    to reduce_dtype, copies them into one reduce-scatter input of the padded unit size, reduce-scatters
 *    into unit / world elements and casts the result to the original dtype: the sharded .grad
 *    (fp32 for an fp32 model) that stays until zero_grad.
 * Without a policy (param_dtype None) under torch.autocast the gathered fp32 weights are cast per
 * matmul. FSDP2 builds each unsharded parameter once as an nn.Parameter and frees and refills its
 * storage (_fsdp_param.py "[Note: FSDP and autograd]", init_unsharded_param, free_unsharded_param), so
 * autocast's cache, keyed by that parameter, keeps every block's bf16 copy until autocast exits.
 * FSDP1 runs forward on plain-tensor views of the flat parameter (_flat_param.py
 * _use_unsharded_views(as_params=False)), which autocast_mode.cpp cached_cast does not cache
 * (!arg.is_view()).
 *
 * Default policy when the plan gives none: what accelerate sets for mixed_precision="bf16"/"fp16"
 * (accelerate/utils/dataclasses.py:2119-2126, called from state.py:1011-1013): param_dtype =
 * reduce_dtype = the 16-bit dtype. fp8 (torchao float8 with enable_fsdp_float8_all_gather,
 * torchao/float8/fsdp_utils.py: fsdp_pre_all_gather casts the shard to fp8): fp32 sharded params,
 * fp8 all-gather, bf16 reduce. */
#include <string.h>

#include "fsdp_shard.h"
#include "precision.h"
#include "sharding.h"
#include "util.h"

#define term(t, bytes, ...) vp_term_set(ds, t, bytes, __VA_ARGS__)

static int mp_bytes(int explicit_dtype, int dflt) { return explicit_dtype >= 0 ? vp_dtype_bytes((vp_dtype)explicit_dtype) : dflt; }

void vp_shard_fsdp(const vp_plan *plan, const vp_instance *in, const vp_weights *w, const vp_optim *o,
                   const vp_devctx *ctx, double frac, vp_devstate *ds) {
    const vp_parallel *par = &plan->par;
    int version = par->fsdp_version == 1 ? 1 : 2;
    double N = (double)ctx->shard;
    int z = ctx->zero;
    int amp = vp_is_amp(in), fp8 = in->precision == VP_PREC_FP8;
    /* the dtype the model is built in: fp32 under autocast and for torchao float8, else the storage dtype */
    int ob = amp || fp8 ? 4 : vp_dtype_bytes(vp_param_dtype(in));
    int low = in->precision == VP_PREC_AMP_FP16 ? 2 : amp ? 2 : ob;
    int pdb = mp_bytes(par->fsdp_param_dtype, fp8 ? 1 : low);
    int rdb = mp_bytes(par->fsdp_reduce_dtype, fp8 ? 2 : pdb < 2 ? 2 : pdb);
    const char *vname = version == 2 ? "FSDP2" : "FSDP1";

    /* units and this rank's shards (exact per-parameter padding without TP/PP) */
    vp_fsdp_units u;
    int64_t rank_in_shard = ctx->rank % (ctx->shard > 0 ? ctx->shard : 1);
    vp_fsdp_units_compute(in, version, ctx->shard, rank_in_shard, &u);
    double shard = (double)u.shard, shard_un = (double)u.shard_unpadded;
    double block = (double)u.block, root = (double)u.root;
    if (ctx->tp > 1 || ctx->pp > 1 || in->quant != VP_QUANT_NONE) {
        /* with tensor or pipeline parallelism (or quantized blocks) the local shapes differ: the
         * device's share of the parameters over the ranks */
        shard = shard_un = (double)w->base_params * frac / N;
        block /= (double)ctx->tp;
        root = root / (double)ctx->tp * (ds->has_embed || ds->has_head ? 1.0 : 0.0);
    }
    double trainable_frac = w->base_params > 0 ? (double)w->trainable / (double)w->base_params : 0.0;
    char ns[24];
    vp_fmt_count(ns, sizeof ns, shard);

    /* ---- weights: sharded in the original dtype ---- */
    int full_model_bytes = in->quant != VP_QUANT_NONE;
    double wbytes = full_model_bytes ? (double)w->base_bytes * frac / N : shard * ob;
    if (par->offload_params && z == 3)
        term(&ds->cpu_weights, (int64_t)wbytes, "%s CPU offload: the %s-element parameter shard lives in CPU RAM", vname, ns);
    else
        term(&ds->weights, (int64_t)wbytes, "%s sharded params: %s elements × %d B on this rank (%s dim-0 chunks over %.0f ranks%s)",
             vname, ns, ob, version == 2 ? "per-parameter" : "flat-parameter", N,
             shard > shard_un ? ", padded" : "");
    term(&ds->quant, (int64_t)((double)w->quant_const_bytes * frac / N), "%s",
         in->quant == VP_QUANT_INT8 ? "int8 row scales (fp32)" : "4-bit block absmax constants");
    char na[24];
    vp_fmt_count(na, sizeof na, (double)w->adapter_params * frac);
    term(&ds->adapters, (int64_t)((double)w->adapter_bytes * frac / N), "%s adapter params × %d B / %.0f ranks", na,
         (int)(w->adapter_params ? w->adapter_bytes / w->adapter_params : 0), N);

    /* ---- gathered units: the root stays gathered from the model's pre-forward to its post-backward
     * (its forward is the whole model's); one block computes while the next is prefetched. Under
     * shard_grad_op (reshard_after_forward=False) every block stays gathered from forward to backward. */
    double gathered = z == 2 ? (root + block * (double)u.blocks) : (root + 2.0 * block);
    if (ctx->tp > 1 || ctx->pp > 1) gathered = z == 2 ? (double)w->base_params * frac : root + 2.0 * block;
    char nb[24];
    vp_fmt_count(nb, sizeof nb, block);
    if (z == 2)
        term(&ds->gathered, (int64_t)(gathered * pdb), "%s shard_grad_op: every unit stays gathered from forward to backward, %d B",
             vname, pdb);
    else
        term(&ds->gathered, (int64_t)(gathered * pdb), "%s gathered: root unit (embeddings, norm, head) + this block and the "
             "prefetched one (%s params each) × %d B %s", vname, nb, pdb,
             pdb == 1 ? "fp8" : pdb == 2 ? "param_dtype" : "fp32");
    if (z != 2) {
        ds->gather_root_bytes = (int64_t)(root * pdb);
        ds->gather_block_bytes = (int64_t)(block * pdb);
    }
    ds->no_casts = !amp || pdb < 4;
    ds->casts_cached = version == 2 && in->autocast_cache && (in->ft == VP_FT_FULL || in->ft == VP_FT_QLORA); /* sharding.c */
    double dev_train = (double)w->trainable * frac;
    if (dev_train <= 0) return;

    /* ---- backward: a block's unsharded grads (param_dtype) and its reduce-scatter input (reduce_dtype) ---- */
    term(&ds->gathered_bwd, (int64_t)(block * (pdb < 2 ? 2 : pdb) + block * rdb),
         "%s backward: one block's unsharded grads %d B + its reduce-scatter input %d B (reduce_dtype)", vname,
         pdb < 2 ? 2 : pdb, rdb);
    ds->head_grad_bytes = (int64_t)((double)(in->pc.lm_head ? in->pc.lm_head : in->pc.embed) / (double)ctx->tp *
                                    (pdb < 2 ? 2 : pdb));

    /* ---- sharded gradients, in the original dtype, until zero_grad ---- */
    double gshard = shard * trainable_frac;
    char ng[24];
    vp_fmt_count(ng, sizeof ng, gshard);
    vp_term *gt = ob == 4 ? &ds->grad_fp32 : &ds->grads;
    /* CPUOffloadPolicy moves the sharded params, their grads and the optimizer step to the CPU
     * (_fsdp_param.py offload_to_cpu; FSDP1 CPUOffload(offload_params=True) likewise) */
    int offload = par->offload_optimizer || (par->offload_params && z == 3);
    if (offload)
        term(gt, 0, "offloaded");
    else
        term(gt, (int64_t)(gshard * ob), "%s sharded .grad: %s elements × %d B %s (reduce-scatter output cast to the param dtype)",
             vname, ng, ob, ob == 4 ? "fp32" : "16-bit");

    /* ---- optimizer: states and step temporaries over the rank's local (unpadded) shard ---- */
    double local = shard_un * trainable_frac;
    double per_state = w->trainable > 0 ? (double)o->state_bytes / (double)w->trainable : 0.0;
    double per_temp = w->trainable > 0 ? (double)o->temp_bytes / (double)w->trainable : 0.0;
    if (offload) {
        term(&ds->cpu_states, (int64_t)(local * (per_state + ob)), "%s CPU offload: optimizer states and grads of the shard in CPU RAM",
             vname);
        return;
    }
    if (vp_fp32_master(in) && !fp8)
        term(&ds->master, (int64_t)(local * 4.0), "fp32 master weights of the shard: %s × 4 B", ng);
    term(&ds->states, (int64_t)(local * per_state), "%s (the rank's shard: %.3gB elements)", o->state_explain, local / 1e9);
    term(&ds->opt_temp, (int64_t)(local * per_temp), "%s (over the rank's shard)", o->temp_explain);
}
