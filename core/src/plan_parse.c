/* plan_parse.c: vramplan/plan@1 JSON -> vp_plan, strictly (docs/schema/plan.md).
 * Unknown fields are errors; every error names the JSON path of the field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffusers.h"
#include "plan.h"
#include "precision.h"
#include "plan_serve.h"
#include "registry.h"
#include "terms.h"
#include "util.h"
#include "vlm_images.h"

const char *const vp_role_names[] = {"trained", "reference", "teacher", "ema", "reward", "critic",
                                     "editor", "functional_copy", "custom", NULL};
const char *const vp_precision_names[] = {"fp32", "amp_bf16", "amp_fp16", "bf16", "fp16", "fp8", "bf16_master", "fp16_master", NULL};
static const char *const k_quant[] = {"none", "int8", "nf4", "fp4", "fp8", NULL}; /* order of vp_quant */
static const char *const k_ft[] = {"full", "lora", "qlora", "adapter", "frozen", NULL};
static const char *const k_opt[] = {"adamw", "adam", "sgd", "sgd_momentum", "adafactor", "lion",
                                    "adamw_8bit", "paged_adamw", "paged_adamw_8bit", NULL};
static const char *const k_impl[] = {"foreach", "fused", "forloop", NULL};
static const char *const k_attn[] = {"sdpa", "flash", "eager", NULL};
static const char *const k_act[] = {"train", "no_grad", "keep_graph", "none", NULL};
static const char *const k_dtype[] = {"fp32", "bf16", "fp16", "fp8", "int8", NULL};
static const char *const k_mode[] = {"train", "infer", NULL}; /* and "serve" (plan_serve_parse.c) */

static void plan_warn(vp_plan *plan, const char *msg) {
    if (plan->n_warnings < 4) vp_strlcpy(plan->warnings[plan->n_warnings++], msg, sizeof plan->warnings[0]);
}

#define MAX_TOKENS 16777216LL /* 16M tokens per sequence */
#define MAX_BATCH 1048576LL

/* arch: the instance's model when known (NULL for one that shares another's weights). The names of
 * each family and the modules they select: lora_targets.c. PEFT raises ValueError "Target modules
 * {...} not found in the base model" when no target matches a module. */
static vp_status parse_targets(const cJSON *arr, const char *path, const vp_arch *arch, unsigned *out, vp_error *err) {
    if (!cJSON_IsArray(arr)) return vp_fail(err, VP_ERR_FIELD, path, "%s must be an array of module names", path);
    unsigned bits = 0;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        char ip[128];
        vp_path_index(ip, sizeof ip, path, i++);
        if (!cJSON_IsString(it)) return vp_fail(err, VP_ERR_FIELD, ip, "%s must be a string", ip);
        if (!vp_lora_target_known(it->valuestring)) {
            char shown[40];
            vp_strlcpy(shown, it->valuestring, sizeof shown);
            const char *mods = vp_lora_family_names(arch);
            return vp_fail(err, VP_ERR_UNSUPPORTED, ip, "%s: unknown module \"%s\" (%s%s%s)", ip, shown,
                           mods ? "this model's linear modules: " : "e.g. q_proj, k_proj, v_proj, o_proj, gate_proj, "
                                                                    "up_proj, down_proj, qkv_proj, gate_up_proj, c_attn",
                           mods ? mods : "", ", or all-linear");
        }
        bits |= vp_lora_target_bits(arch, it->valuestring);
    }
    if (!bits) {
        const char *mods = vp_lora_family_names(arch);
        if (mods)
            return vp_fail(err, VP_ERR_FIELD, path,
                           "%s: no such module in a %s model, so PEFT raises \"Target modules ... not found in the base "
                           "model\" (its linear modules: %s)", path, arch->model_type, mods);
        return vp_fail(err, VP_ERR_FIELD, path, "%s must name at least one module", path);
    }
    *out = bits;
    return VP_OK;
}

static vp_status parse_model(const cJSON *m, const char *p, const vp_registry *reg, vp_instance *in, vp_error *err) {
    static const char *const keys[] = {"preset", "hf_config", "custom", NULL};
    vp_status st;
    if (!cJSON_IsObject(m)) return vp_fail(err, VP_ERR_FIELD, p, "%s must be an object with preset, hf_config or custom", p);
    if ((st = vp_json_only_keys(m, p, keys, err))) return st;
    char path[128];
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(m, "preset");
    const cJSON *hf = cJSON_GetObjectItemCaseSensitive(m, "hf_config");
    const cJSON *custom = cJSON_GetObjectItemCaseSensitive(m, "custom");
    int n = !!preset + !!hf + !!custom;
    if (n != 1) return vp_fail(err, VP_ERR_FIELD, p, "%s needs exactly one of preset, hf_config, custom", p);
    if (preset) {
        vp_path_key(path, sizeof path, p, "preset");
        if (!cJSON_IsString(preset)) return vp_fail(err, VP_ERR_FIELD, path, "%s must be a preset id string", path);
        const cJSON *entry = vp_registry_model(reg, preset->valuestring);
        if (!entry) {
            char shown[48];
            vp_strlcpy(shown, preset->valuestring, sizeof shown);
            return vp_fail(err, VP_ERR_UNSUPPORTED, path, "%s: no preset model \"%s\" (list them with `vramplan models`)",
                           path, shown);
        }
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(entry, "config");
        char cpath[160];
        snprintf(cpath, sizeof cpath, "preset %.60s config", preset->valuestring);
        /* diffusers configs carry no model_type: the preset's family names it */
        const cJSON *fam = cJSON_GetObjectItemCaseSensitive(entry, "family");
        if (cJSON_IsObject(cfg) && !cJSON_GetObjectItemCaseSensitive(cfg, "model_type") && cJSON_IsString(fam)) {
            cJSON *copy = cJSON_Duplicate(cfg, 1);
            if (!copy) return vp_fail(err, VP_ERR_NOMEM, path, "out of memory");
            cJSON_AddStringToObject(copy, "model_type", fam->valuestring);
            st = vp_arch_from_hf(copy, cpath, &in->arch, err);
            cJSON_Delete(copy);
            return st;
        }
        return vp_arch_from_hf(cfg, cpath, &in->arch, err);
    }
    if (hf) {
        vp_path_key(path, sizeof path, p, "hf_config");
        return vp_arch_from_hf(hf, path, &in->arch, err);
    }
    vp_path_key(path, sizeof path, p, "custom");
    return vp_arch_from_custom(custom, path, &in->arch, err);
}

static vp_status parse_finetune(const cJSON *f, const char *p, vp_instance *in, vp_error *err) {
    static const char *const keys[] = {"method", "lora", "adapter", "freeze", NULL};
    static const char *const lkeys[] = {"r", "alpha", "dropout", "dtype", "targets", NULL};
    static const char *const akeys[] = {"dim", NULL};
    vp_status st;
    if ((st = vp_json_only_keys(f, p, keys, err))) return st;
    int ft = (int)in->ft;
    if ((st = vp_json_opt_enum(f, p, "method", k_ft, &ft, err))) return st;
    in->ft = (vp_ft)ft;
    char path[128];
    const cJSON *lora = cJSON_GetObjectItemCaseSensitive(f, "lora");
    if (lora) {
        vp_path_key(path, sizeof path, p, "lora");
        if ((st = vp_json_only_keys(lora, path, lkeys, err))) return st;
        if ((st = vp_json_opt_int(lora, path, "r", 1, 65536, &in->lora_r, err))) return st;
        in->lora_alpha = 2.0 * (double)in->lora_r;
        if ((st = vp_json_opt_num(lora, path, "alpha", 0, 1e9, &in->lora_alpha, err))) return st;
        if ((st = vp_json_opt_num(lora, path, "dropout", 0, 0.999, &in->lora_dropout, err))) return st;
        int dt = (int)in->lora_dtype;
        if ((st = vp_json_opt_enum(lora, path, "dtype", k_dtype, &dt, err))) return st;
        in->lora_dtype = (vp_dtype)dt;
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(lora, "targets");
        if (t) {
            char tp[128];
            vp_path_key(tp, sizeof tp, path, "targets");
            if ((st = parse_targets(t, tp, in->arch.model_type[0] ? &in->arch : NULL, &in->lora_targets, err))) return st;
        }
    }
    const cJSON *ad = cJSON_GetObjectItemCaseSensitive(f, "adapter");
    if (ad) {
        vp_path_key(path, sizeof path, p, "adapter");
        if ((st = vp_json_only_keys(ad, path, akeys, err))) return st;
        if ((st = vp_json_opt_int(ad, path, "dim", 1, 1048576, &in->adapter_dim, err))) return st;
    }
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(f, "freeze");
    if (fr) {
        static const char *const groups[] = {"embeddings", "lm_head", "attention", "mlp", "norms", NULL};
        vp_path_key(path, sizeof path, p, "freeze");
        if (!cJSON_IsArray(fr)) return vp_fail(err, VP_ERR_FIELD, path, "%s must be an array", path);
        int i = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, fr) {
            char ip[128];
            vp_path_index(ip, sizeof ip, path, i++);
            int found = -1;
            if (cJSON_IsString(it))
                for (int k = 0; groups[k]; k++)
                    if (!strcmp(groups[k], it->valuestring)) found = k;
            if (found < 0)
                return vp_fail(err, VP_ERR_UNSUPPORTED, ip,
                               "%s must be one of embeddings, lm_head, attention, mlp, norms", ip);
            in->freeze |= 1u << found;
        }
    }
    return VP_OK;
}

static vp_status parse_instance(const cJSON *o, const char *p, const vp_registry *reg, vp_mode mode,
                                vp_instance *in, vp_error *err) {
    static const char *const keys[] = {"name", "role", "model", "precision", "quant", "double_quant", "finetune",
                                       "optimizer", "grad_ckpt", "attn", "activations", "passes", "placement",
                                       "shares_weights_with", "logprobs_fp32", "edited_layers", "autocast_cache", "after_use",
                                       "group_offload", "autocast", NULL};
    vp_status st;
    char path[128];
    if (!cJSON_IsObject(o)) return vp_fail(err, VP_ERR_FIELD, p, "%s must be an object", p);
    if ((st = vp_json_only_keys(o, p, keys, err))) return st;
    /* defaults (docs/schema/plan.md) */
    in->role = VP_ROLE_TRAINED;
    in->precision = mode == VP_MODE_TRAIN ? VP_PREC_AMP_BF16 : VP_PREC_BF16;
    in->ft = VP_FT_FULL;
    in->lora_r = 16;
    in->lora_alpha = 32;
    in->lora_dropout = 0.05;
    in->lora_dtype = VP_DT_FP32;
    in->lora_targets = VP_T_Q | VP_T_K | VP_T_V | VP_T_O | VP_T_GATE | VP_T_UP | VP_T_DOWN | VP_T_QKV | VP_T_GATE_UP;
    in->adapter_dim = 64;
    in->optimizer = VP_OPT_ADAMW;
    in->impl = VP_IMPL_FOREACH;
    in->attn = VP_ATTN_SDPA;
    in->passes = 1;
    in->shares_weights_with = -1;
    in->autocast_cache = 1; /* torch.autocast(cache_enabled=None) -> torch.is_autocast_cache_enabled(): True */
    in->after_use = VP_AFTER_USE_STAY;

    if ((st = vp_json_opt_str(o, p, "name", in->name, sizeof in->name, err))) return st;
    int role = 0;
    if ((st = vp_json_opt_enum(o, p, "role", vp_role_names, &role, err))) return st;
    in->role = (vp_role)role;
    if (!in->name[0]) vp_strlcpy(in->name, vp_role_names[role], sizeof in->name);
    vp_path_key(path, sizeof path, p, "model");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "model");
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(o, "shares_weights_with");
    if (!m && !sw) return vp_fail(err, VP_ERR_FIELD, path, "missing required field %s", path);
    if (m && (st = parse_model(m, path, reg, in, err))) return st;
    int prec = (int)in->precision;
    if ((st = vp_json_opt_enum(o, p, "precision", vp_precision_names, &prec, err))) return st;
    in->precision = (vp_precision)prec;
    const cJSON *pj = cJSON_GetObjectItemCaseSensitive(o, "precision");
    in->precision_set = pj && !cJSON_IsNull(pj);
    if ((st = vp_json_opt_bool(o, p, "autocast_cache", &in->autocast_cache, err))) return st;
    static const char *const k_after_use[] = {"stay", "cpu", "cpu_empty_cache", NULL}; /* order of VP_AFTER_USE_* */
    if ((st = vp_json_opt_enum(o, p, "after_use", k_after_use, &in->after_use, err))) return st;
    if ((st = vp_parse_group_offload(o, p, mode, in, err))) return st;
    if ((st = vp_parse_dit_autocast(o, p, mode, in, err))) return st;
    int q = 0;
    if ((st = vp_json_opt_enum(o, p, "quant", k_quant, &q, err))) return st;
    in->quant = (vp_quant)q;
    if ((st = vp_json_opt_bool(o, p, "double_quant", &in->double_quant, err))) return st;
    /* trained roles learn; the others run frozen (a reference, teacher or EMA copy has no optimizer) */
    int trains = in->role == VP_ROLE_TRAINED || in->role == VP_ROLE_CRITIC || in->role == VP_ROLE_EDITOR ||
                 in->role == VP_ROLE_CUSTOM;
    if (!trains || mode == VP_MODE_INFER) in->ft = VP_FT_FROZEN;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "finetune");
    if (f) {
        vp_path_key(path, sizeof path, p, "finetune");
        if ((st = parse_finetune(f, path, in, err))) return st;
    }
    if (in->ft == VP_FT_QLORA && in->quant == VP_QUANT_NONE) in->quant = VP_QUANT_NF4;
    if (in->quant != VP_QUANT_NONE && in->ft == VP_FT_FULL) {
        vp_path_key(path, sizeof path, p, "quant");
        return vp_fail(err, VP_ERR_FIELD, path,
                       "%s: quantized weights are frozen; use finetune.method lora/qlora/adapter/frozen", path);
    }
    const cJSON *opt = cJSON_GetObjectItemCaseSensitive(o, "optimizer");
    if (opt) {
        static const char *const okeys[] = {"name", "impl", NULL};
        vp_path_key(path, sizeof path, p, "optimizer");
        if ((st = vp_json_only_keys(opt, path, okeys, err))) return st;
        int on = 0, im = 0;
        if ((st = vp_json_opt_enum(opt, path, "name", k_opt, &on, err))) return st;
        if ((st = vp_json_opt_enum(opt, path, "impl", k_impl, &im, err))) return st;
        in->optimizer = (vp_optimizer)on;
        in->impl = (vp_opt_impl)im;
        in->impl_set = cJSON_GetObjectItemCaseSensitive(opt, "impl") != NULL;
    }
    const cJSON *gc = cJSON_GetObjectItemCaseSensitive(o, "grad_ckpt");
    if (gc) {
        static const char *const gkeys[] = {"every", NULL};
        vp_path_key(path, sizeof path, p, "grad_ckpt");
        if (cJSON_IsBool(gc)) {
            in->gc_every = cJSON_IsTrue(gc) ? 1 : 0;
        } else {
            if ((st = vp_json_only_keys(gc, path, gkeys, err))) return st;
            if ((st = vp_json_opt_int(gc, path, "every", 0, 4096, &in->gc_every, err))) return st;
        }
    }
    int at = 0;
    if ((st = vp_json_opt_enum(o, p, "attn", k_attn, &at, err))) return st;
    in->attn = (vp_attn)at;
    /* an EMA copy is only updated from the trained weights (no forward of its own) */
    int act = (trains && mode == VP_MODE_TRAIN) ? VP_ACT_TRAIN : in->role == VP_ROLE_EMA ? VP_ACT_NONE : VP_ACT_NO_GRAD;
    if ((st = vp_json_opt_enum(o, p, "activations", k_act, &act, err))) return st;
    in->activations = (vp_act)act;
    if ((st = vp_json_opt_int(o, p, "passes", 1, 1024, &in->passes, err))) return st;
    in->edited_layers = -1; /* the role's default, set once the model is known */
    if ((st = vp_json_opt_int(o, p, "edited_layers", 0, 4096, &in->edited_layers, err))) return st;
    if ((st = vp_json_opt_bool(o, p, "logprobs_fp32", &in->logprobs_fp32, err))) return st;
    in->sharded = 1; /* follows the parallel layout unless pinned to one device */
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(o, "placement");
    if (pl) {
        static const char *const pkeys[] = {"device", "pinned", "sharded", "stream_to", NULL};
        vp_path_key(path, sizeof path, p, "placement");
        if ((st = vp_json_only_keys(pl, path, pkeys, err))) return st;
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(pl, "device");
        char dp[128];
        vp_path_key(dp, sizeof dp, path, "device");
        if (cJSON_IsString(dev) && !strcmp(dev->valuestring, "cpu")) {
            in->device = -1;
            in->sharded = 0;
        } else if (dev) {
            int64_t d = 0;
            if (!cJSON_IsNumber(dev)) return vp_fail(err, VP_ERR_FIELD, dp, "%s must be a GPU index or \"cpu\"", dp);
            if ((st = vp_json_opt_int(pl, path, "device", 0, VP_MAX_GPUS - 1, &d, err))) return st;
            in->device = (int)d;
            in->sharded = 0;
        }
        if ((st = vp_json_opt_bool(pl, path, "pinned", &in->pinned, err))) return st;
        int sh = in->sharded;
        if ((st = vp_json_opt_bool(pl, path, "sharded", &sh, err))) return st;
        if (sh && dev) return vp_fail(err, VP_ERR_FIELD, path, "%s: give either a device or sharded, not both", path);
        in->sharded = sh;
        int64_t stream = -1;
        if ((st = vp_json_opt_int(pl, path, "stream_to", 0, VP_MAX_GPUS - 1, &stream, err))) return st;
        if (stream >= 0) {
            if (in->device >= 0) {
                char sp[128];
                vp_path_key(sp, sizeof sp, path, "stream_to");
                return vp_fail(err, VP_ERR_FIELD, sp, "%s needs \"device\": \"cpu\" (a CPU-resident model streamed through a GPU)", sp);
            }
            in->stream_from_cpu = (int)stream + 1;
        }
    }
    return VP_OK;
}

static vp_status parse_workload(const cJSON *w, vp_plan *plan, vp_error *err) {
    static const char *const keys[] = {"mode", "batch", "seq", "grad_accum", "new_tokens", "dec_seq",
                                       "image_size", "kv_dtype", "frames", "height", "width", "diffusion", "images", "steps", NULL};
    vp_status st;
    const char *p = "workload";
    if (!w) return vp_fail(err, VP_ERR_FIELD, p, "missing required field workload");
    const cJSON *serve = cJSON_GetObjectItemCaseSensitive(w, "mode"); /* serving engines: plan_serve_parse.c */
    if (cJSON_IsString(serve) && !strcmp(serve->valuestring, "serve")) return vp_plan_serve_parse_workload(w, plan, err);
    if ((st = vp_json_only_keys(w, p, keys, err))) return st;
    int mode = 0;
    if ((st = vp_json_opt_enum(w, p, "mode", k_mode, &mode, err))) return st;
    plan->mode = (vp_mode)mode;
    if ((st = vp_json_int(w, p, "batch", 1, MAX_BATCH, &plan->batch, err))) return st;
    plan->seq = 0;
    if ((st = vp_json_opt_int(w, p, "seq", 1, MAX_TOKENS, &plan->seq, err))) return st;
    plan->grad_accum = 1;
    if ((st = vp_json_opt_int(w, p, "grad_accum", 1, 1000000, &plan->grad_accum, err))) return st;
    if ((st = vp_json_opt_int(w, p, "new_tokens", 0, MAX_TOKENS, &plan->new_tokens, err))) return st;
    plan->dec_seq = 128;
    if ((st = vp_json_opt_int(w, p, "dec_seq", 1, MAX_TOKENS, &plan->dec_seq, err))) return st;
    if ((st = vp_json_opt_int(w, p, "image_size", 1, 65536, &plan->image_size, err))) return st;
    if ((st = vp_json_opt_int(w, p, "images", 0, 64, &plan->images, err))) return st; /* vlm_images.c */
    /* a log read after the first step(s): the replay stops there (events_train.c) */
    plan->steps = 0;
    if ((st = vp_json_opt_int(w, p, "steps", 1, 1000000000, &plan->steps, err))) return st;
    if (plan->steps && plan->mode != VP_MODE_TRAIN)
        return vp_fail(err, VP_ERR_FIELD, "workload.steps", "workload.steps counts training steps: it needs \"mode\": \"train\"");
    if (plan->steps == 1 || plan->steps == 2)
        plan_warn(plan, plan->steps == 1 ? "workload.steps = 1: the figures are the first step's: torch.optim makes its state in that "
                                           "step's step() (DeepSpeed's when it is built); later steps hold it throughout."
                                         : "workload.steps = 2: reserved memory is what two steps leave; the steady state is reached by step 3.");
    int kv = VP_DT_BF16;
    if ((st = vp_json_opt_enum(w, p, "kv_dtype", k_dtype, &kv, err))) return st;
    plan->kv_dtype = (vp_dtype)kv;
    return vp_parse_diffusion_workload(w, plan, err); /* i12: frames, height, width, diffusion */
}

static vp_status parse_hardware(const cJSON *h, const vp_registry *reg, vp_plan *plan, vp_error *err) {
    static const char *const keys[] = {"gpu", "probe", "device", "mig_instance", "count", "nodes", "capacity_bytes",
                                       "cpu_ram_bytes", NULL};
    vp_status st;
    const char *p = "hardware";
    plan->gpu_count = 1;
    plan->nodes = 1;
    const cJSON *gpu_id = NULL, *probe = NULL;
    int64_t dev = 0, cap = 0, mig = -1;
    if (h) {
        if ((st = vp_json_only_keys(h, p, keys, err))) return st;
        gpu_id = cJSON_GetObjectItemCaseSensitive(h, "gpu");
        probe = cJSON_GetObjectItemCaseSensitive(h, "probe");
        if (cJSON_IsNull(gpu_id)) gpu_id = NULL;
        if (cJSON_IsNull(probe)) probe = NULL;
        /* two descriptions of the GPU: refuse rather than silently pick one */
        if (gpu_id && probe)
            return vp_fail(err, VP_ERR_FIELD, "hardware.gpu",
                           "hardware.gpu and hardware.probe both describe the GPU: give one (the probe file is the "
                           "measured GPU, hardware.gpu a preset)");
        if ((st = vp_json_opt_int(h, p, "count", 1, VP_MAX_GPUS, &plan->gpu_count, err))) return st;
        if ((st = vp_json_opt_int(h, p, "device", 0, 1024, &dev, err))) return st;
        if ((st = vp_json_opt_int(h, p, "mig_instance", 0, 63, &mig, err))) return st;
        if (!probe && (dev || cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(h, "device"))))
            return vp_fail(err, VP_ERR_FIELD, "hardware.device",
                           "hardware.device picks a GPU of a probe file; this plan has no hardware.probe");
        if (!probe && mig >= 0)
            return vp_fail(err, VP_ERR_FIELD, "hardware.mig_instance",
                           "hardware.mig_instance picks a MIG instance of a probe file; this plan has no hardware.probe");
        if ((st = vp_json_opt_int(h, p, "capacity_bytes", 1, (int64_t)1 << 44, &cap, err))) return st;
        if ((st = vp_json_opt_int(h, p, "nodes", 1, 100000, &plan->nodes, err))) return st;
        int64_t ram = 0;
        if ((st = vp_json_opt_int(h, p, "cpu_ram_bytes", 1, (int64_t)1 << 52, &ram, err))) return st;
        plan->cpu_ram_bytes = (uint64_t)ram;
    }
    if (probe) {
        int n = 0;
        if ((st = vp_gpu_from_probe(probe, "hardware.probe", (int)dev, (int)mig, &plan->gpu, &n, err))) return st;
        if (plan->gpu.mig_count) {
            char msg[200], gib[32];
            vp_fmt_bytes(gib, sizeof gib, (double)plan->gpu.cuda_total_bytes);
            snprintf(msg, sizeof msg,
                     "MIG is on: CUDA can use one MIG instance, not the whole GPU; planning against instance %d (%s)%s of %d%s.",
                     plan->gpu.mig_instance, gib, mig < 0 ? ", the smallest" : "", plan->gpu.mig_count,
                     mig < 0 ? " (pick another with hardware.mig_instance)" : "");
            plan_warn(plan, msg);
        }
        /* a probe file describes the node: its GPU count is the node's unless the plan says otherwise */
        if (!cJSON_GetObjectItemCaseSensitive(h, "count")) plan->gpu_count = n < VP_MAX_GPUS ? n : VP_MAX_GPUS;
        else if (plan->gpu_count > n) {
            char msg[160];
            snprintf(msg, sizeof msg, "hardware.count = %lld, but the probe file lists %d GPU(s); planning with the probed GPU's memory for all",
                     (long long)plan->gpu_count, n);
            if (plan->n_warnings < 4) vp_strlcpy(plan->warnings[plan->n_warnings++], msg, sizeof plan->warnings[0]);
        }
    } else {
        const char *id = "h100-sxm-80gb";
        if (gpu_id) {
            if (!cJSON_IsString(gpu_id)) return vp_fail(err, VP_ERR_FIELD, "hardware.gpu", "hardware.gpu must be a preset id");
            id = gpu_id->valuestring;
        }
        const cJSON *entry = vp_registry_gpu(reg, id);
        if (entry) {
            if ((st = vp_gpu_from_preset(entry, "hardware.gpu", &plan->gpu, err))) return st;
        } else if (gpu_id || !cap) {
            char shown[48];
            vp_strlcpy(shown, id, sizeof shown);
            return vp_fail(err, VP_ERR_UNSUPPORTED, "hardware.gpu", "hardware.gpu: no GPU preset \"%s\" (list them with `vramplan gpus`)", shown);
        }
    }
    if (cap) {
        plan->gpu.cuda_total_bytes = (uint64_t)cap;
        plan->gpu.memory_bytes = (uint64_t)cap;
        plan->gpu.free_bytes = 0;
        if (!plan->gpu.name[0]) vp_strlcpy(plan->gpu.name, "custom GPU", sizeof plan->gpu.name);
    }
    return VP_OK;
}

/* Sizes can each be in range while their products are absurd (2^20 sequences of 2^24 tokens). Refuse
 * workloads whose tokens or bytes no machine could hold, so every later product stays far inside
 * int64 (bounds computed in floating point). */
vp_status vp_plan_check_magnitudes(const vp_plan *plan, vp_error *err) {
    vp_status dst = vp_diffusion_check_magnitudes(plan, err); /* i12: tokens from frames × height × width */
    if (dst) return dst;
    double tok = (double)plan->batch * ((double)plan->seq + (double)plan->new_tokens + (double)plan->dec_seq);
    if (tok > 4294967296.0)
        return vp_fail(err, VP_ERR_RANGE, "workload.batch",
                       "workload.batch × (seq + new_tokens) = %.3g tokens per step; at most 2^32 are planned", tok);
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_arch *a = &plan->inst[i].arch;
        double img = plan->image_size ? (double)plan->image_size : (double)a->image_size;
        double patches = a->patch_size ? (img / (double)a->patch_size) * (img / (double)a->patch_size) + 1.0 : 0.0;
        double t = tok + (double)plan->batch * patches;
        double h = (double)a->hidden, f = (double)(a->inter > a->expert_inter ? a->inter : a->expert_inter);
        double per_tok = 64.0 * h + 16.0 * f * (double)(a->experts_per_tok > 0 ? a->experts_per_tok : 1) +
                         16.0 * (double)a->heads * ((double)plan->seq + (double)plan->new_tokens + (double)plan->dec_seq + patches);
        double bytes = t * per_tok * (double)(a->layers + a->dec_layers) + 16.0 * t * (double)(a->vocab + a->labels) +
                       32.0 * (double)plan->inst[i].pc.total;
        if (bytes > 2.3e18)
            return vp_fail(err, VP_ERR_RANGE, "workload.seq",
                           "workload: %.3g tokens through instance \"%s\" would need about %.3g bytes; not a plannable job", t,
                           plan->inst[i].name, bytes);
    }
    return VP_OK;
}

static vp_status parse_parallel(const cJSON *o, vp_plan *plan, vp_error *err) {
    static const char *const keys[] = {"dp", "tp", "pp", "vpp", "ep", "sp", "microbatches", "zero", "framework", "fsdp",
                                       "offload_optimizer", "offload_params", "activation_offload",
                                       "distributed_optimizer", "selective_recompute", "gradient_as_bucket_view",
                                       "reduce_bucket_size", "allgather_bucket_size",
                                       "fsdp_version", "fsdp_mixed_precision", "sub_group_size", "grad_accum_dtype",
                                       "torch_autocast", NULL};
    static const char *const fws[] = {"torch", "deepspeed", "fsdp", "megatron", NULL};
    static const char *const fsdps[] = {"full_shard", "shard_grad_op", "hybrid_shard", "no_shard", NULL};
    vp_parallel *p = &plan->par;
    const char *b = "parallel";
    vp_status st;
    p->dp = p->tp = p->pp = p->ep = 1;
    p->reduce_bucket = 500000000;    /* DeepSpeed config docs: reduce_bucket_size default 5e8 */
    p->allgather_bucket = 500000000; /* allgather_bucket_size default 5e8 */
    vp_parallel_precision_defaults(p);
    if (!o) return VP_OK;
    if ((st = vp_json_only_keys(o, b, keys, err))) return st;
    if ((st = vp_json_opt_int(o, b, "dp", 1, 1000000, &p->dp, err))) return st;
    if ((st = vp_json_opt_int(o, b, "tp", 1, 4096, &p->tp, err))) return st;
    if ((st = vp_json_opt_int(o, b, "pp", 1, 4096, &p->pp, err))) return st;
    if ((st = vp_json_opt_int(o, b, "vpp", 1, 1024, &p->vpp, err))) return st;
    if ((st = vp_json_opt_int(o, b, "ep", 1, 4096, &p->ep, err))) return st;
    if ((st = vp_json_opt_int(o, b, "microbatches", 1, 1000000, &p->microbatches, err))) return st;
    int64_t zero = 0;
    if ((st = vp_json_opt_int(o, b, "zero", 0, 3, &zero, err))) return st;
    p->zero = (int)zero;
    int fw = 0, fs = 0;
    if ((st = vp_json_opt_enum(o, b, "framework", fws, &fw, err))) return st;
    if ((st = vp_json_opt_enum(o, b, "fsdp", fsdps, &fs, err))) return st;
    p->framework = (vp_framework)fw;
    p->fsdp = (vp_fsdp)fs;
    /* FSDP and DeepSpeed ZeRO are two ways to shard the same states: a plan gets one */
    if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "fsdp")) && cJSON_GetObjectItemCaseSensitive(o, "fsdp") && p->zero)
        return vp_fail(err, VP_ERR_FIELD, "parallel.zero",
                       "parallel.zero = %d (DeepSpeed ZeRO) and parallel.fsdp (PyTorch FSDP) both shard the model: give one",
                       p->zero);
    if (cJSON_GetObjectItemCaseSensitive(o, "fsdp") && !cJSON_GetObjectItemCaseSensitive(o, "framework")) p->framework = VP_FW_FSDP;
    if (p->zero && !cJSON_GetObjectItemCaseSensitive(o, "framework")) p->framework = VP_FW_DEEPSPEED;
    if ((st = vp_json_opt_bool(o, b, "sp", &p->sp, err))) return st;
    if ((st = vp_json_opt_bool(o, b, "offload_optimizer", &p->offload_optimizer, err))) return st;
    if ((st = vp_json_opt_bool(o, b, "offload_params", &p->offload_params, err))) return st;
    if ((st = vp_json_opt_bool(o, b, "activation_offload", &p->activation_offload, err))) return st;
    if ((st = vp_json_opt_bool(o, b, "distributed_optimizer", &p->distributed_optimizer, err))) return st;
    if ((st = vp_json_opt_bool(o, b, "selective_recompute", &p->selective_recompute, err))) return st;
    if ((st = vp_json_opt_bool(o, b, "gradient_as_bucket_view", &p->grad_as_bucket_view, err))) return st;
    if ((st = vp_json_opt_int(o, b, "reduce_bucket_size", 1, (int64_t)1 << 40, &p->reduce_bucket, err))) return st;
    if ((st = vp_json_opt_int(o, b, "allgather_bucket_size", 1, (int64_t)1 << 40, &p->allgather_bucket, err))) return st;
    return vp_parse_parallel_precision(o, p, err);
}

/* GPUs the hardware has but the plan leaves unused: the sharded instances run on the first
 * dp × tp × pp ranks, the others on the GPU they are placed on or stream through. */
static void warn_idle_gpus(vp_plan *plan) {
    const vp_parallel *p = &plan->par;
    int64_t world = p->dp * p->tp * p->pp, total = plan->gpu_count * plan->nodes;
    int sharded = 0;
    for (int i = 0; i < plan->n_instances; i++) sharded |= plan->inst[i].sharded && !plan->inst[i].stream_from_cpu;
    int64_t used = 0;
    for (int64_t g = 0; g < plan->gpu_count && g < VP_MAX_GPUS; g++) {
        int u = sharded && g < world;
        for (int i = 0; i < plan->n_instances; i++) {
            const vp_instance *in = &plan->inst[i];
            u |= (!in->sharded && in->device == g) || in->stream_from_cpu - 1 == g;
        }
        used += u;
    }
    if (sharded && world > plan->gpu_count) used += world - plan->gpu_count; /* ranks on the other nodes */
    if (used >= total) return;
    char msg[200];
    snprintf(msg, sizeof msg,
             "%lld of the %lld GPUs stay idle: dp × tp × pp = %lld × %lld × %lld = %lld and no instance is placed on the "
             "others; use them with parallel.dp (dp × tp × pp = %lld) or lower hardware.count.",
             (long long)(total - used), (long long)total, (long long)p->dp, (long long)p->tp, (long long)p->pp,
             (long long)world, (long long)total);
    plan_warn(plan, msg);
}

/* Checks that need the whole plan: the layout must exist and divide the models. */
static vp_status validate_layout(vp_plan *plan, vp_error *err) {
    const vp_parallel *p = &plan->par;
    int64_t world = p->dp * p->tp * p->pp;
    if (world > plan->gpu_count * plan->nodes)
        return vp_fail(err, VP_ERR_RANGE, "parallel",
                       "parallel: dp × tp × pp = %lld × %lld × %lld = %lld GPUs, but the hardware has %lld GPU(s) × %lld node(s)",
                       (long long)p->dp, (long long)p->tp, (long long)p->pp, (long long)world, (long long)plan->gpu_count,
                       (long long)plan->nodes);
    if (p->offload_params && !(p->zero == 3 || (p->framework == VP_FW_FSDP && p->fsdp != VP_FSDP_SHARD_GRAD_OP)))
        return vp_fail(err, VP_ERR_FIELD, "parallel.offload_params", "parallel.offload_params needs ZeRO-3 (\"zero\": 3) or FSDP full_shard");
    if (p->zero && p->framework != VP_FW_DEEPSPEED && p->framework != VP_FW_TORCH)
        return vp_fail(err, VP_ERR_FIELD, "parallel.zero", "parallel.zero is a DeepSpeed setting; with %s use %s",
                       p->framework == VP_FW_FSDP ? "FSDP" : "Megatron",
                       p->framework == VP_FW_FSDP ? "parallel.fsdp" : "parallel.distributed_optimizer");
    if (p->zero == 3 && p->dp == 1)
        plan_warn(plan, "ZeRO-3 with one data-parallel rank shards nothing: every model state stays whole on the GPU.");
    if (p->sp && p->tp == 1) plan_warn(plan, "Sequence parallelism splits activations across the tensor-parallel group; with tp = 1 it changes nothing.");
    if (p->vpp > 1 && p->pp == 1) plan_warn(plan, "Interleaved pipeline stages (vpp) need pp > 1; ignored.");
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_instance *in = &plan->inst[i];
        if (!in->sharded) continue;
        const vp_arch *a = &in->arch;
        if (a->heads % p->tp || a->kv_heads % p->tp) {
            if (a->kv_heads % p->tp == 0 || a->heads % p->tp)
                return vp_fail(err, VP_ERR_RANGE, "parallel.tp",
                               "parallel.tp = %lld does not divide the %lld attention heads of instance \"%s\"",
                               (long long)p->tp, (long long)a->heads, in->name);
            return vp_fail(err, VP_ERR_RANGE, "parallel.tp",
                           "parallel.tp = %lld does not divide the %lld KV heads of instance \"%s\" (Megatron would replicate them; "
                           "pick tp <= %lld)", (long long)p->tp, (long long)a->kv_heads, in->name, (long long)a->kv_heads);
        }
        if (p->pp > a->layers)
            return vp_fail(err, VP_ERR_RANGE, "parallel.pp", "parallel.pp = %lld is larger than the %lld blocks of instance \"%s\"",
                           (long long)p->pp, (long long)a->layers, in->name);
        if (p->ep > 1 && (!a->experts || a->experts % p->ep))
            return vp_fail(err, VP_ERR_RANGE, "parallel.ep", "parallel.ep = %lld must divide the %lld experts of instance \"%s\"",
                           (long long)p->ep, (long long)a->experts, in->name);
    }
    if (p->pp > 1) {
        int64_t m = p->microbatches > 0 ? p->microbatches : plan->grad_accum;
        if (m < p->pp)
            plan_warn(plan, "Fewer micro-batches than pipeline stages: the pipeline bubble dominates (set grad_accum or parallel.microbatches >= pp).");
    }
    warn_idle_gpus(plan);
    return VP_OK;
}

/* "runtime": the process's allocator settings. pytorch_cuda_alloc_conf is PYTORCH_CUDA_ALLOC_CONF as
 * the job sets it (alloc_conf.c reads it the way PyTorch's AllocatorConfig does). */
static vp_status parse_runtime(const cJSON *o, vp_plan *plan, vp_error *err) {
    static const char *const keys[] = {"pytorch_cuda_alloc_conf", NULL};
    vp_alloc_conf_default(&plan->alloc_conf);
    plan->alloc_conf_text[0] = '\0';
    if (!o) return VP_OK;
    if (!cJSON_IsObject(o)) return vp_fail(err, VP_ERR_FIELD, "runtime", "runtime must be an object");
    vp_status st = vp_json_only_keys(o, "runtime", keys, err);
    if (st) return st;
    if ((st = vp_json_opt_str(o, "runtime", "pytorch_cuda_alloc_conf", plan->alloc_conf_text, sizeof plan->alloc_conf_text, err)))
        return st;
    return vp_alloc_conf_parse(plan->alloc_conf_text, "runtime.pytorch_cuda_alloc_conf", &plan->alloc_conf, err);
}

/* Instances are referred to by name (shares_weights_with, the breakdown): two with one name are
 * ambiguous. Names default to the role, so two unnamed instances of one role collide too. */
static vp_status check_names(const vp_plan *plan, vp_error *err) {
    for (int i = 1; i < plan->n_instances; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(plan->inst[i].name, plan->inst[j].name)) {
                char ip[64];
                snprintf(ip, sizeof ip, "instances[%d].name", i);
                return vp_fail(err, VP_ERR_FIELD, ip,
                               "%s: instances[%d] is already called \"%s\" (a name defaults to the role); give each instance "
                               "its own name", ip, j, plan->inst[i].name);
            }
    return VP_OK;
}

/* Jobs the real stack refuses to start (each names the field to change):
 *  - a full fine-tune whose freeze list covers every parameter: torch.optim raises "optimizer got an
 *    empty parameter list";
 *  - more tokens than a model with learned absolute positions has (GPT-2 n_positions): its position
 *    embedding lookup raises "index out of range in self". Rotary (llama...), relative (t5) and patch
 *    (vit, cogvideox) positions have no such table. */
static vp_status check_trainable(const vp_plan *plan, vp_error *err) {
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_instance *in = &plan->inst[i];
        char ip[96];
        if (in->ft == VP_FT_FULL && in->freeze &&
            (in->activations == VP_ACT_TRAIN || in->activations == VP_ACT_KEEP_GRAPH)) {
            vp_weights w;
            vp_weights_compute(in, &w);
            if (w.trainable <= 0) {
                snprintf(ip, sizeof ip, "instances[%d].finetune.freeze", i);
                return vp_fail(err, VP_ERR_FIELD, ip,
                               "%s freezes every parameter of \"%s\": its optimizer would get none (torch.optim raises "
                               "\"optimizer got an empty parameter list\"); use finetune.method \"frozen\" for a model that "
                               "does not train", ip, in->name);
            }
        }
        const int64_t pos = in->arch.positions;
        if (pos <= 0) continue;
        if (plan->seq > pos)
            return vp_fail(err, VP_ERR_RANGE, "workload.seq",
                           "workload.seq = %lld is longer than the %lld positions \"%s\" (%s) has learned (n_positions): "
                           "its position embedding raises \"index out of range\"", (long long)plan->seq, (long long)pos,
                           in->name, in->arch.model_type);
        if (plan->mode == VP_MODE_INFER && plan->seq + plan->new_tokens > pos)
            return vp_fail(err, VP_ERR_RANGE, "workload.new_tokens",
                           "workload.seq + new_tokens = %lld + %lld is more than the %lld positions \"%s\" (%s) has learned "
                           "(n_positions): generation past them raises \"index out of range\"", (long long)plan->seq,
                           (long long)plan->new_tokens, (long long)pos, in->name, in->arch.model_type);
    }
    return VP_OK;
}

vp_plan *vp_plan_from_json(const char *json, const vp_registry *reg, vp_error *err) {
    static const char *const keys[] = {"schema", "workload", "instances", "hardware", "parallel", "runtime", "name", "note", NULL};
    vp_error_clear(err);
    if (!json) {
        vp_fail(err, VP_ERR_JSON, "", "no plan given");
        return NULL;
    }
    /* strict JSON: line and column of a syntax error, UTF-8 only, no key given twice in any object
     * (hf_config and probe included), no \u0000, nothing after the closing brace (json_text.c) */
    cJSON *root = vp_json_parse(json, err);
    if (!root) return NULL;
    vp_plan *plan = calloc(1, sizeof *plan);
    vp_status st = VP_OK;
    if (!plan) {
        st = vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
        goto done;
    }
    if (!cJSON_IsObject(root)) {
        st = vp_fail(err, VP_ERR_FIELD, "", "the plan must be a JSON object");
        goto done;
    }
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsString(schema)) {
        st = vp_fail(err, VP_ERR_SCHEMA, "schema", "missing required field schema (\"" VP_PLAN_SCHEMA "\")");
        goto done;
    }
    if (strcmp(schema->valuestring, VP_PLAN_SCHEMA) != 0) {
        char shown[48];
        vp_strlcpy(shown, schema->valuestring, sizeof shown);
        st = vp_fail(err, VP_ERR_SCHEMA, "schema", "schema \"%s\" is not readable by this build (it reads \"" VP_PLAN_SCHEMA "\")", shown);
        goto done;
    }
    if ((st = vp_json_only_keys(root, "", keys, err))) goto done;
    if ((st = parse_workload(cJSON_GetObjectItemCaseSensitive(root, "workload"), plan, err))) goto done;
    if (plan->mode == VP_MODE_SERVE) { /* one model, tp/pp, the engine's settings (plan_serve_parse.c) */
        if ((st = vp_plan_serve_parse(root, reg, plan, err))) goto done;
        st = parse_hardware(cJSON_GetObjectItemCaseSensitive(root, "hardware"), reg, plan, err);
        goto done;
    }
    const cJSON *insts = cJSON_GetObjectItemCaseSensitive(root, "instances");
    if (!cJSON_IsArray(insts) || cJSON_GetArraySize(insts) == 0) {
        st = vp_fail(err, VP_ERR_FIELD, "instances", "instances must be a non-empty array of model instances");
        goto done;
    }
    if (cJSON_GetArraySize(insts) > VP_MAX_INSTANCES) {
        st = vp_fail(err, VP_ERR_RANGE, "instances", "at most %d model instances per plan", VP_MAX_INSTANCES);
        goto done;
    }
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, insts) {
        char ip[64];
        vp_path_index(ip, sizeof ip, "instances", i);
        if ((st = parse_instance(it, ip, reg, plan->mode, &plan->inst[i], err))) goto done;
        if ((st = vp_group_offload_check(plan, &plan->inst[i], ip, err))) goto done;
        vp_diff_apply_text_tokens(plan, &plan->inst[i]); /* workload.diffusion.text_tokens */
        vp_diff_apply_code(plan, &plan->inst[i]);        /* workload.diffusion.code */
        if (plan->inst[i].arch.note[0]) plan_warn(plan, plan->inst[i].arch.note); /* config reader (generic fallback) */
        i++;
    }
    plan->n_instances = i;
    if ((st = check_names(plan, err))) goto done;
    /* resolve shares_weights_with (by name) and count parameters */
    i = 0;
    cJSON_ArrayForEach(it, insts) {
        vp_instance *in = &plan->inst[i];
        const cJSON *sw = cJSON_GetObjectItemCaseSensitive(it, "shares_weights_with");
        if (sw) {
            char ip[96];
            snprintf(ip, sizeof ip, "instances[%d].shares_weights_with", i);
            int found = -1;
            if (cJSON_IsString(sw))
                for (int j = 0; j < plan->n_instances; j++)
                    if (j != i && !strcmp(plan->inst[j].name, sw->valuestring)) found = j;
            if (found < 0 || plan->inst[found].shares_weights_with >= 0) {
                st = vp_fail(err, VP_ERR_FIELD, ip, "%s must name another instance that has its own model", ip);
                goto done;
            }
            in->shares_weights_with = found;
            in->arch = plan->inst[found].arch;
        }
        i++;
    }
    for (i = 0; i < plan->n_instances; i++) {
        char ip[64];
        vp_path_index(ip, sizeof ip, "instances", i);
        if ((st = vp_functional_copy_edits(&plan->inst[i], ip, err))) goto done;
        if ((st = vp_count_params(&plan->inst[i].arch, &plan->inst[i].pc, err))) {
            snprintf(err->path, sizeof err->path, "%s.model", ip);
            goto done;
        }
    }
    if ((st = parse_hardware(cJSON_GetObjectItemCaseSensitive(root, "hardware"), reg, plan, err))) goto done;
    for (i = 0; i < plan->n_instances; i++) {
        if (plan->inst[i].device >= plan->gpu_count) {
            char ip[96];
            snprintf(ip, sizeof ip, "instances[%d].placement.device", i);
            st = vp_fail(err, VP_ERR_RANGE, ip, "%s = %d, but the hardware has %lld GPU(s)", ip, plan->inst[i].device,
                         (long long)plan->gpu_count);
            goto done;
        }
        if (plan->inst[i].stream_from_cpu > plan->gpu_count) {
            char ip[96];
            snprintf(ip, sizeof ip, "instances[%d].placement.stream_to", i);
            st = vp_fail(err, VP_ERR_RANGE, ip, "%s = %d, but the hardware has %lld GPU(s)", ip,
                         plan->inst[i].stream_from_cpu - 1, (long long)plan->gpu_count);
            goto done;
        }
    }
    if ((st = check_trainable(plan, err))) goto done;
    if ((st = vp_plan_apply_images(plan, err))) goto done; /* image tokens join seq (vlm_images.c) */
    if ((st = vp_plan_check_magnitudes(plan, err))) goto done;
    if ((st = parse_parallel(cJSON_GetObjectItemCaseSensitive(root, "parallel"), plan, err))) goto done;
    if ((st = validate_layout(plan, err))) goto done;
    vp_plan_framework_precision(plan);
    if ((st = parse_runtime(cJSON_GetObjectItemCaseSensitive(root, "runtime"), plan, err))) goto done;
    if (plan->mode == VP_MODE_TRAIN || plan->seq == 0) {
        for (i = 0; i < plan->n_instances; i++) {
            vp_kind k = plan->inst[i].arch.kind;
            if (plan->seq == 0 && k != VP_KIND_VIT && k != VP_KIND_DIT) {
                st = vp_fail(err, VP_ERR_FIELD, "workload.seq", "missing required field workload.seq");
                goto done;
            }
        }
    }
done:
    cJSON_Delete(root);
    if (st != VP_OK) {
        free(plan);
        return NULL;
    }
    return plan;
}

void vp_plan_free(vp_plan *plan) { free(plan); }
