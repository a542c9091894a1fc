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
 * accelerate/utils/dataclasses.py:1425-1427) keeps bf16 weights and gradients and an fp32 master
 * copy with fp32 Adam moments in the optimizer partition (stage3.py _create_fp32_partitions,
 * stage_1_and_2.py single_partition_of_fp32_groups); Megatron's --bf16 keeps bf16 weights, fp32
 * main_grad buffers and the same fp32 optimizer state. Neither runs torch.autocast, so no autocast
 * weight copies exist. */
void vp_plan_framework_precision(vp_plan *plan) {
    const vp_parallel *p = &plan->par;
    if (plan->mode != VP_MODE_TRAIN) return;
    if (p->framework != VP_FW_DEEPSPEED && p->framework != VP_FW_MEGATRON) return;
    int changed = 0;
    for (int i = 0; i < plan->n_instances; i++) {
        vp_instance *in = &plan->inst[i];
        if (in->precision_set || !in->sharded || in->activations != VP_ACT_TRAIN) continue;
        in->precision = VP_PREC_BF16_MASTER;
        changed = 1;
    }
    if (!changed || plan->n_warnings >= 4) return;
    snprintf(plan->warnings[plan->n_warnings++], sizeof plan->warnings[0],
             "%s bf16 mode (the default without \"precision\"): bf16 weights and grads, fp32 master weights and Adam "
             "moments in the optimizer partition, no autocast copies.",
             p->framework == VP_FW_DEEPSPEED ? "DeepSpeed's" : "Megatron's");
}
