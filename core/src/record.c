/* record.c: a measured run in the format of shared/groundtruth/calibration.jsonl -> a plan.
 * The record's workload vocabulary is documented in shared/groundtruth/README.md. */
#include <stdlib.h>
#include <string.h>

#include "util.h"

static vp_status wl_int(const cJSON *w, const char *key, int64_t lo, int64_t hi, int required, cJSON *dst,
                        const char *dkey, vp_error *err) {
    int64_t v = 0;
    vp_status st = required ? vp_json_int(w, "workload", key, lo, hi, &v, err)
                            : vp_json_opt_int(w, "workload", key, lo, hi, &v, err);
    if (st) return st;
    if (v) cJSON_AddNumberToObject(dst, dkey, (double)v);
    return VP_OK;
}

#define MAX_MEASURED_BYTES (1LL << 50) /* 1 PiB: far above any GPU */

/* workload.fsdp (tools/groundtruth/measure.py's case "fsdp", issue 11): rank 0 of a world of `world`
 * ranks on one GPU through PyTorch's fake process group; fully_shard per decoder layer and the root
 * (version 2, default) or FullyShardedDataParallel with ModuleWrapPolicy (version 1), with
 * MixedPrecisionPolicy(param_dtype, reduce_dtype) as given: none given means no policy (fp32
 * all-gathers under autocast), which the plan says explicitly since its own FSDP default for
 * amp_bf16 is accelerate's bf16 policy. reshard_after_forward false is shard_grad_op. */
static vp_status record_fsdp(const cJSON *w, cJSON *plan, int64_t *world, vp_error *err) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(w, "fsdp");
    if (!f) return VP_OK;
    const char *b = "workload.fsdp";
    if (!cJSON_IsObject(f)) return vp_fail(err, VP_ERR_FIELD, b, "workload.fsdp must be an object");
    static const char *const keys[] = {"world", "version", "param_dtype", "reduce_dtype", "reshard_after_forward", "init", NULL};
    vp_status st;
    if ((st = vp_json_only_keys(f, b, keys, err))) return st;
    int64_t version = 2;
    if ((st = vp_json_int(f, b, "world", 1, 65536, world, err))) return st;
    if ((st = vp_json_opt_int(f, b, "version", 1, 2, &version, err))) return st;
    static const char *const dts[] = {"fp32", "bf16", "fp16", NULL};
    int pd = -1, rd = -1, raf = 1;
    if (cJSON_GetObjectItemCaseSensitive(f, "param_dtype") && !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(f, "param_dtype")) &&
        (st = vp_json_opt_enum(f, b, "param_dtype", dts, &pd, err)))
        return st;
    if (cJSON_GetObjectItemCaseSensitive(f, "reduce_dtype") && !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(f, "reduce_dtype")) &&
        (st = vp_json_opt_enum(f, b, "reduce_dtype", dts, &rd, err)))
        return st;
    if ((st = vp_json_opt_bool(f, b, "reshard_after_forward", &raf, err))) return st;
    cJSON *par = cJSON_AddObjectToObject(plan, "parallel");
    cJSON_AddNumberToObject(par, "dp", (double)*world);
    cJSON_AddStringToObject(par, "fsdp", raf ? "full_shard" : "shard_grad_op");
    cJSON_AddNumberToObject(par, "fsdp_version", (double)version);
    cJSON *mp = cJSON_AddObjectToObject(par, "fsdp_mixed_precision");
    /* MixedPrecisionPolicy(param_dtype=None): the parameters' own dtype; reduce_dtype=None: param_dtype */
    cJSON_AddStringToObject(mp, "param_dtype", dts[pd >= 0 ? pd : 0]);
    cJSON_AddStringToObject(mp, "reduce_dtype", dts[rd >= 0 ? rd : pd >= 0 ? pd : 0]);
    return VP_OK;
}

/* What was measured (shared/groundtruth/README.md "measured"): not needed for the plan, but a record
 * whose numbers are not numbers must not become a NaN% row or silently leave the statistics. Each
 * given value is a whole, finite, positive byte or parameter count. */
static vp_status check_measured(const cJSON *m, vp_error *err) {
    static const char *const bytes[] = {"peak_alloc", "peak_reserved", "after_load_alloc", "after_backward_alloc",
                                        "after_step_alloc", "context_bytes", "nonpytorch_bytes", "total_bytes", NULL};
    if (!m) return VP_OK;
    if (!cJSON_IsObject(m)) return vp_fail(err, VP_ERR_FIELD, "measured", "measured must be an object");
    vp_status st;
    int oom = 0;
    if ((st = vp_json_opt_bool(m, "measured", "oom", &oom, err))) return st;
    for (int i = 0; bytes[i]; i++) {
        int64_t v = 0;
        /* an OOM run's peak is what was allocated when it failed: it may be 0 */
        int64_t lo = (oom && i == 0) || i == 5 || i == 6 ? 0 : 1;
        if ((st = vp_json_opt_int(m, "measured", bytes[i], lo, MAX_MEASURED_BYTES, &v, err))) return st;
    }
    int64_t v = 0;
    if ((st = vp_json_opt_int(m, "measured", "params_total", 1, 1000000000000000LL, &v, err))) return st;
    if ((st = vp_json_opt_int(m, "measured", "params_trainable", 0, 1000000000000000LL, &v, err))) return st;
    if (!oom && !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(m, "peak_alloc")))
        return vp_fail(err, VP_ERR_FIELD, "measured.peak_alloc",
                       "missing required field measured.peak_alloc (the measured peak, bytes; or measured.oom: true)");
    return VP_OK;
}

char *vp_record_to_plan_json(const char *record_json, vp_error *err) {
    vp_error_clear(err);
    cJSON *rec = vp_json_parse(record_json, err); /* strict: json_text.c */
    if (!rec) return NULL;
    cJSON *plan = cJSON_CreateObject();
    char *out = NULL;
    vp_status st = VP_OK;
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(rec, "model_config");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "workload");
    const cJSON *meas = cJSON_GetObjectItemCaseSensitive(rec, "measured");
    if (!cJSON_IsObject(cfg)) {
        st = vp_fail(err, VP_ERR_FIELD, "model_config", "missing required object model_config");
        goto done;
    }
    if (!cJSON_IsObject(w)) {
        st = vp_fail(err, VP_ERR_FIELD, "workload", "missing required object workload");
        goto done;
    }
    if ((st = check_measured(meas, err))) goto done;
    static const char *const modes[] = {"fp32", "amp_bf16", "bf16", "infer", NULL};
    int mode = 0;
    if (!cJSON_GetObjectItemCaseSensitive(w, "mode")) {
        st = vp_fail(err, VP_ERR_FIELD, "workload.mode", "missing required field workload.mode");
        goto done;
    }
    if ((st = vp_json_opt_enum(w, "workload", "mode", modes, &mode, err))) goto done;
    cJSON_AddStringToObject(plan, "schema", VP_PLAN_SCHEMA);
    cJSON *wl = cJSON_AddObjectToObject(plan, "workload");
    cJSON_AddStringToObject(wl, "mode", mode == 3 ? "infer" : "train");
    if ((st = wl_int(w, "batch", 1, 1048576, 1, wl, "batch", err))) goto done;
    if ((st = wl_int(w, "seq", 1, 16777216, 0, wl, "seq", err))) goto done;
    if ((st = wl_int(w, "dec_seq", 1, 16777216, 0, wl, "dec_seq", err))) goto done;
    if ((st = wl_int(w, "image_size", 1, 65536, 0, wl, "image_size", err))) goto done;
    if ((st = wl_int(w, "new_tokens", 0, 16777216, 0, wl, "new_tokens", err))) goto done;

    cJSON *insts = cJSON_AddArrayToObject(plan, "instances");
    cJSON *pol = cJSON_CreateObject();
    cJSON_AddItemToArray(insts, pol);
    cJSON_AddStringToObject(pol, "name", "policy");
    cJSON_AddStringToObject(pol, "role", "trained");
    cJSON *model = cJSON_AddObjectToObject(pol, "model");
    cJSON_AddItemToObject(model, "hf_config", cJSON_Duplicate(cfg, 1));
    static const char *const prec[] = {"fp32", "amp_bf16", "bf16", "bf16"};
    cJSON_AddStringToObject(pol, "precision", prec[mode]);
    if (mode != 3) {
        static const char *const opts[] = {"adamw", "adamw_fused", "sgd", "adafactor", NULL};
        int o = 0;
        if ((st = vp_json_opt_enum(w, "workload", "optim", opts, &o, err))) goto done;
        cJSON *opt = cJSON_AddObjectToObject(pol, "optimizer");
        /* measure.py: adamw = foreach=True, sgd = momentum 0.9 foreach, adafactor = torch.optim.Adafactor */
        static const char *const names[] = {"adamw", "adamw", "sgd_momentum", "adafactor"};
        cJSON_AddStringToObject(opt, "name", names[o]);
        if (o <= 1) cJSON_AddStringToObject(opt, "impl", o == 1 ? "fused" : "foreach");
        int gc = 0;
        if ((st = vp_json_opt_bool(w, "workload", "grad_ckpt", &gc, err))) goto done;
        if (gc) {
            cJSON *g = cJSON_AddObjectToObject(pol, "grad_ckpt");
            cJSON_AddNumberToObject(g, "every", 1);
        }
        const cJSON *lora = cJSON_GetObjectItemCaseSensitive(w, "lora");
        if (lora) {
            int64_t r = 0;
            if ((st = vp_json_int(lora, "workload.lora", "r", 1, 65536, &r, err))) goto done;
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(lora, "targets");
            if (!cJSON_IsArray(t)) {
                st = vp_fail(err, VP_ERR_FIELD, "workload.lora.targets", "workload.lora.targets must be an array");
                goto done;
            }
            double dropout = 0.05; /* measure.py default */
            if ((st = vp_json_opt_num(lora, "workload.lora", "dropout", 0, 0.999, &dropout, err))) goto done;
            cJSON *ft = cJSON_AddObjectToObject(pol, "finetune");
            cJSON_AddStringToObject(ft, "method", "lora");
            cJSON *l = cJSON_AddObjectToObject(ft, "lora");
            cJSON_AddNumberToObject(l, "r", (double)r);
            cJSON_AddNumberToObject(l, "alpha", (double)(2 * r));
            cJSON_AddNumberToObject(l, "dropout", dropout);
            cJSON_AddStringToObject(l, "dtype", "fp32");
            cJSON_AddItemToObject(l, "targets", cJSON_Duplicate(t, 1));
        }
    }
    static const char *const attns[] = {"sdpa", "eager", NULL};
    int at = 0;
    if ((st = vp_json_opt_enum(w, "workload", "attn", attns, &at, err))) goto done;
    cJSON_AddStringToObject(pol, "attn", attns[at]);
    int ref = 0, ref_off = 0;
    if ((st = vp_json_opt_bool(w, "workload", "ref_model", &ref, err))) goto done;
    if ((st = vp_json_opt_bool(w, "workload", "ref_adapter_off", &ref_off, err))) goto done;
    if (ref || ref_off) {
        /* DPO-style reference: a no-grad forward each step, logits upcast to fp32 for log_softmax */
        cJSON *r = cJSON_CreateObject();
        cJSON_AddItemToArray(insts, r);
        cJSON_AddStringToObject(r, "name", "reference");
        cJSON_AddStringToObject(r, "role", "reference");
        if (ref) {
            cJSON *m = cJSON_AddObjectToObject(r, "model");
            cJSON_AddItemToObject(m, "hf_config", cJSON_Duplicate(cfg, 1));
            cJSON_AddStringToObject(r, "precision", "bf16");
        } else {
            cJSON_AddStringToObject(r, "shares_weights_with", "policy");
            cJSON_AddStringToObject(r, "precision", prec[mode]);
        }
        cJSON_AddStringToObject(r, "attn", attns[at]);
        cJSON_AddStringToObject(r, "activations", "no_grad");
        cJSON_AddTrueToObject(r, "logprobs_fp32");
    }
    int cache = 1;
    if ((st = vp_json_opt_bool(w, "workload", "autocast_cache", &cache, err))) goto done;
    if (!cache) cJSON_AddFalseToObject(pol, "autocast_cache");
    int64_t world = 1;
    if ((st = record_fsdp(w, plan, &world, err))) goto done;
    cJSON *hw = cJSON_AddObjectToObject(plan, "hardware");
    cJSON_AddStringToObject(hw, "gpu", "h100-sxm-80gb");
    if (world > 1) cJSON_AddNumberToObject(hw, "count", (double)world);
    /* the measured GPU's CUDA total (checked above; the plan format takes up to 2^44) */
    const cJSON *tb = cJSON_GetObjectItemCaseSensitive(meas, "total_bytes");
    if (cJSON_IsNumber(tb) && tb->valuedouble > 17592186044416.0) {
        st = vp_fail(err, VP_ERR_RANGE, "measured.total_bytes", "measured.total_bytes = %.6g is more than 16 TiB; not a GPU",
                     tb->valuedouble);
        goto done;
    }
    if (cJSON_IsNumber(tb)) cJSON_AddNumberToObject(hw, "capacity_bytes", tb->valuedouble);
    out = cJSON_PrintUnformatted(plan);
    if (!out) st = vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
done:
    cJSON_Delete(plan);
    cJSON_Delete(rec);
    if (st != VP_OK && out) {
        cJSON_free(out);
        out = NULL;
    }
    if (out) {
        size_t n = strlen(out);
        char *copy = malloc(n + 1);
        if (copy) memcpy(copy, out, n + 1);
        cJSON_free(out);
        out = copy;
    }
    return out;
}
