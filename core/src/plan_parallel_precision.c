/* plan_parallel_precision.c: the precision fields of "parallel" (FSDP version and mixed-precision
 * policy, DeepSpeed ZeRO-3 sub-group size and gradient-accumulation dtype), and the framework's own
 * default precision when an instance gives none. Called from plan_parse.c. */
#include <stdio.h>
#include <string.h>

#include "precision.h"
#include "util.h"

static const char *const k_mp_dtype[] = {"fp32", "bf16", "fp16", "fp8", NULL};

void vp_parallel_precision_defaults(vp_parallel *p) {
    p->fsdp_version = 2;
    p->fsdp_param_dtype = -1;
    p->fsdp_reduce_dtype = -1;
    p->sub_group_size = 1000000000; /* deepspeed/runtime/zero/config.py:175 sub_group_size = 1e9 */
    p->grad_accum_dtype = -1;       /* deepspeed/runtime/engine.py:1492-1495: the model dtype */
}

vp_status vp_parse_parallel_precision(const cJSON *o, vp_parallel *p, vp_error *err) {
    vp_status st;
    const char *b = "parallel";
    int64_t v = p->fsdp_version;
    if ((st = vp_json_opt_int(o, b, "fsdp_version", 1, 2, &v, err))) return st;
    p->fsdp_version = (int)v;
    if ((st = vp_json_opt_bool(o, b, "torch_autocast", &p->torch_autocast, err))) return st;
    if (p->torch_autocast && p->framework != VP_FW_DEEPSPEED)
        return vp_fail(err, VP_ERR_FIELD, "parallel.torch_autocast",
                       "parallel.torch_autocast is DeepSpeed's \"torch_autocast\" config section: it needs parallel.zero "
                       "(or framework \"deepspeed\")");
    if ((st = vp_json_opt_int(o, b, "sub_group_size", 1, (int64_t)1 << 40, &p->sub_group_size, err))) return st;
    if (cJSON_GetObjectItemCaseSensitive(o, "grad_accum_dtype")) {
        int d = 0;
        if ((st = vp_json_opt_enum(o, b, "grad_accum_dtype", k_mp_dtype, &d, err))) return st;
        if (d == VP_DT_FP8)
            return vp_fail(err, VP_ERR_FIELD, "parallel.grad_accum_dtype", "parallel.grad_accum_dtype must be fp32, bf16 or fp16");
        p->grad_accum_dtype = d;
    }
    const cJSON *mp = cJSON_GetObjectItemCaseSensitive(o, "fsdp_mixed_precision");
    if (!mp) return VP_OK;
    static const char *const keys[] = {"param_dtype", "reduce_dtype", "output_dtype", "buffer_dtype", NULL};
    const char *mb = "parallel.fsdp_mixed_precision";
    if (!cJSON_IsObject(mp)) return vp_fail(err, VP_ERR_FIELD, mb, "%s must be an object", mb);
    if ((st = vp_json_only_keys(mp, mb, keys, err))) return st;
    int pd = -1, rd = -1, od = 0, bd = 0;
    if (cJSON_GetObjectItemCaseSensitive(mp, "param_dtype") && (st = vp_json_opt_enum(mp, mb, "param_dtype", k_mp_dtype, &pd, err)))
        return st;
    if (cJSON_GetObjectItemCaseSensitive(mp, "reduce_dtype") && (st = vp_json_opt_enum(mp, mb, "reduce_dtype", k_mp_dtype, &rd, err)))
        return st;
    /* output_dtype (FSDP2) and buffer_dtype (FSDP1) cast activations at the unit boundary and the
     * buffers (rotary tables): accepted, no memory term of their own */
    if ((st = vp_json_opt_enum(mp, mb, "output_dtype", k_mp_dtype, &od, err))) return st;
    if ((st = vp_json_opt_enum(mp, mb, "buffer_dtype", k_mp_dtype, &bd, err))) return st;
    if (rd == VP_DT_FP8)
        return vp_fail(err, VP_ERR_FIELD, "parallel.fsdp_mixed_precision.reduce_dtype",
                       "parallel.fsdp_mixed_precision.reduce_dtype must be fp32, bf16 or fp16 (gradients are reduced in one of those)");
    p->fsdp_param_dtype = pd;
    p->fsdp_reduce_dtype = rd;
    return VP_OK;
}

/* DeepSpeed and Megatron-LM train in their own bf16 mode unless told otherwise: DeepSpeed's
 * "bf16": {"enabled": true} (what accelerate sets for mixed_precision="bf16",
 * accelerate/utils/dataclasses.py:1415-1427) keeps bf16 weights and gradients and an fp32 master
 * copy with fp32 Adam moments in the optimizer partition (stage3.py _create_fp32_partitions,
 * stage_1_and_2.py single_partition_of_fp32_groups); Megatron's --bf16 keeps bf16 weights, fp32
 * main_grad buffers and the same fp32 optimizer state. Neither runs torch.autocast, so no autocast
 * weight copies exist.
 *
 * "amp_bf16" (HF Trainer bf16=True, accelerate mixed_precision="bf16") means the same thing there:
 * accelerate turns native autocast on only when the job is not DeepSpeed or Megatron
 * (accelerate/accelerator.py:564-592, native_amp stays False) and hands bf16 to DeepSpeed's config
 * instead; DeepSpeed's engine even switches an outer torch.autocast off around its forward unless
 * its own "torch_autocast" section is enabled (deepspeed/runtime/torch_autocast.py
 * autocast_if_enabled). parallel.torch_autocast selects that section: fp32 ZeRO partitions with
 * torch.autocast in forward (sharding.c). */
void vp_plan_framework_precision(vp_plan *plan) {
    const vp_parallel *p = &plan->par;
    if (plan->mode != VP_MODE_TRAIN) return;
    int changed = 0, fused = 0;
    for (int i = 0; i < plan->n_instances; i++) {
        vp_instance *in = &plan->inst[i];
        if (!in->sharded || in->activations != VP_ACT_TRAIN) continue;
        if (p->framework == VP_FW_FSDP && !in->impl_set && in->impl == VP_IMPL_FOREACH &&
            (in->optimizer == VP_OPT_ADAMW || in->optimizer == VP_OPT_ADAM)) {
            /* FSDP jobs are launched through HF Trainer / accelerate or torchtitan, and both pick fused
             * AdamW: transformers/training_args.py default_optim = "adamw_torch_fused" for torch >= 2.8;
             * torchtitan/config/job_config.py Optimizer.implementation = "fused". A bare
             * torch.optim.AdamW over DTensors is foreach (torch/distributed/tensor/__init__.py adds
             * DTensor to _foreach_supported_types): set optimizer.impl "foreach" for that. */
            in->impl = VP_IMPL_FUSED;
            fused = 1;
        }
        if (p->framework != VP_FW_DEEPSPEED && p->framework != VP_FW_MEGATRON) continue;
        if (p->framework == VP_FW_DEEPSPEED && p->torch_autocast) continue; /* torch.autocast over fp32 partitions */
        if (in->precision_set && in->precision != VP_PREC_AMP_BF16 && in->precision != VP_PREC_AMP_FP16) continue;
        /* accelerate's fp16 likewise becomes the config's "fp16": {"enabled": true} (dataclasses.py:1415-1424):
         * fp16 weights and gradients, fp32 master and moments, the loss scaler (no tensors of note) */
        in->precision = in->precision_set && in->precision == VP_PREC_AMP_FP16 ? VP_PREC_FP16_MASTER : VP_PREC_BF16_MASTER;
        changed = in->precision == VP_PREC_FP16_MASTER ? 2 : changed ? changed : 1;
    }
    if (fused && plan->n_warnings < 4)
        snprintf(plan->warnings[plan->n_warnings++], sizeof plan->warnings[0],
                 "FSDP: AdamW fused, as HF Trainer (torch >= 2.8) and torchtitan pick; set optimizer.impl \"foreach\" "
                 "for a plain torch.optim.AdamW (+1 fp32 shard at the step).");
    if (!changed || plan->n_warnings >= 4) return;
    snprintf(plan->warnings[plan->n_warnings++], sizeof plan->warnings[0],
             "%s %s mode (what %s runs there): %s weights and grads, fp32 master weights and Adam "
             "moments in the optimizer partition, no autocast copies.",
             p->framework == VP_FW_DEEPSPEED ? "DeepSpeed's" : "Megatron's", changed == 2 ? "fp16" : "bf16",
             changed == 2 ? "amp_fp16" : "bf16/amp_bf16", changed == 2 ? "fp16" : "bf16");
}
