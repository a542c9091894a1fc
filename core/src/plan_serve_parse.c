/* plan_serve_parse.c: the serve part of a vramplan/plan@1 document (docs/schema/plan.md, "Serving").
 * workload.mode "serve" takes the engines' own setting names; instances holds one model; parallel
 * holds tp and pp. Unknown fields are errors naming their JSON path. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gguf_types.h"
#include "plan.h"
#include "registry.h"
#include "util.h"

vp_status vp_plan_serve_parse_workload(const cJSON *w, vp_plan *plan, vp_error *err);
vp_status vp_plan_serve_parse(const cJSON *root, const vp_registry *reg, vp_plan *plan, vp_error *err);

static const char *const k_engines[] = {"vllm", "sglang", "llamacpp", "hf", NULL};

/* kv_cache_dtype names of vLLM (auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16...) and SGLang -> element bytes */
static int kv_bytes_of(const char *s) {
    if (!strcmp(s, "auto")) return 0;
    if (!strncmp(s, "fp8", 3)) return 1;
    if (!strcmp(s, "bfloat16") || !strcmp(s, "bf16") || !strcmp(s, "float16") || !strcmp(s, "fp16") ||
        !strcmp(s, "half"))
        return 2;
    if (!strcmp(s, "float32") || !strcmp(s, "fp32")) return 4;
    return -1;
}

static int dtype_bytes_of(const char *s) {
    if (!strcmp(s, "auto")) return 0;
    if (!strcmp(s, "bfloat16") || !strcmp(s, "bf16") || !strcmp(s, "float16") || !strcmp(s, "fp16") ||
        !strcmp(s, "half"))
        return 2;
    if (!strcmp(s, "float32") || !strcmp(s, "fp32") || !strcmp(s, "float")) return 4;
    return -1;
}

static vp_status cache_type(const cJSON *w, const char *key, int *out, vp_error *err) {
    char v[16] = "";
    vp_status st;
    if ((st = vp_json_opt_str(w, "workload", key, v, sizeof v, err))) return st;
    if (!v[0]) return VP_OK;
    int t = vp_ggml_type_from_name(v);
    if (t < 0 || (t != VP_GGML_F32 && t != VP_GGML_F16 && t != VP_GGML_BF16 && t != VP_GGML_Q8_0 &&
                  t != VP_GGML_Q4_0 && t != VP_GGML_Q4_1 && t != VP_GGML_Q5_0 && t != VP_GGML_Q5_1 &&
                  t != VP_GGML_IQ4_NL))
        return vp_fail(err, VP_ERR_UNSUPPORTED, key[11] == 'k' ? "workload.cache_type_k" : "workload.cache_type_v",
                       "workload.%s \"%s\" is not a llama.cpp cache type (f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1)",
                       key, v);
    *out = t;
    return VP_OK;
}

vp_status vp_plan_serve_parse_workload(const cJSON *w, vp_plan *plan, vp_error *err) {
    static const char *const keys[] = {"mode", "engine", "max_model_len", "gpu_memory_utilization",
                                       "mem_fraction_static", "kv_cache_dtype", "block_size", "max_num_seqs",
                                       "max_num_batched_tokens", "cuda_graphs", "enforce_eager",
                                       "enable_prefix_caching", "dtype", "quantization", "n_gpu_layers", "ctx_size",
                                       "n_batch", "n_ubatch", "n_parallel", "cache_type_k", "cache_type_v",
                                       "flash_attn", "context_len", "target_concurrency", NULL};
    const char *p = "workload";
    vp_status st;
    if ((st = vp_json_only_keys(w, p, keys, err))) return st;
    int eng = 0;
    if (!cJSON_GetObjectItemCaseSensitive(w, "engine"))
        return vp_fail(err, VP_ERR_FIELD, "workload.engine",
                       "missing required field workload.engine (vllm, sglang or llamacpp) for workload.mode \"serve\"");
    if ((st = vp_json_opt_enum(w, p, "engine", k_engines, &eng, err))) return st;
    if (eng == VP_ENGINE_HF)
        return vp_fail(err, VP_ERR_UNSUPPORTED, "workload.engine",
                       "workload.engine \"hf\": plan Hugging Face generate() with workload.mode \"infer\" (batch, seq, new_tokens)");
    vp_plan_serve *sv = &plan->serve;
    vp_serve_settings *s = &sv->s;
    vp_serve_settings_default(s, (vp_engine)eng);
    plan->mode = VP_MODE_SERVE;
    plan->batch = 1;
    plan->grad_accum = 1;
    if ((st = vp_json_opt_int(w, p, "max_model_len", 1, 16777216, &s->max_model_len, err))) return st;
    if ((st = vp_json_opt_num(w, p, "gpu_memory_utilization", 0.01, 1.0, &s->gpu_memory_utilization, err))) return st;
    if ((st = vp_json_opt_num(w, p, "mem_fraction_static", 0.01, 1.0, &s->mem_fraction_static, err))) return st;
    if ((st = vp_json_opt_str(w, p, "kv_cache_dtype", s->kv_cache_dtype, sizeof s->kv_cache_dtype, err))) return st;
    s->kv_cache_bytes = kv_bytes_of(s->kv_cache_dtype);
    if (s->kv_cache_bytes < 0)
        return vp_fail(err, VP_ERR_UNSUPPORTED, "workload.kv_cache_dtype",
                       "workload.kv_cache_dtype \"%s\" is not one of auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16, float16",
                       s->kv_cache_dtype);
    if ((st = vp_json_opt_int(w, p, "block_size", 1, 4096, &s->block_size, err))) return st;
    if ((st = vp_json_opt_int(w, p, "max_num_seqs", 1, 1048576, &s->max_num_seqs, err))) return st;
    if ((st = vp_json_opt_int(w, p, "max_num_batched_tokens", 1, 16777216, &s->max_num_batched_tokens, err))) return st;
    int graphs = 1;
    if ((st = vp_json_opt_bool(w, p, "cuda_graphs", &graphs, err))) return st;
    s->enforce_eager = !graphs;
    if ((st = vp_json_opt_bool(w, p, "enforce_eager", &s->enforce_eager, err))) return st;
    if ((st = vp_json_opt_bool(w, p, "enable_prefix_caching", &s->enable_prefix_caching, err))) return st;
    if ((st = vp_json_opt_str(w, p, "dtype", sv->dtype_flag, sizeof sv->dtype_flag, err))) return st;
    if (sv->dtype_flag[0]) {
        s->dtype_bytes = dtype_bytes_of(sv->dtype_flag);
        if (s->dtype_bytes < 0)
            return vp_fail(err, VP_ERR_UNSUPPORTED, "workload.dtype",
                           "workload.dtype \"%s\" is not one of auto, bfloat16, float16, float32", sv->dtype_flag);
    }
    if ((st = vp_json_opt_str(w, p, "quantization", sv->quant_flag, sizeof sv->quant_flag, err))) return st;
    sv->given_n_gpu_layers = cJSON_GetObjectItemCaseSensitive(w, "n_gpu_layers") != NULL;
    if ((st = vp_json_opt_int(w, p, "n_gpu_layers", -1, 100000, &s->n_gpu_layers, err))) return st;
    sv->given_ctx = cJSON_GetObjectItemCaseSensitive(w, "ctx_size") != NULL;
    if ((st = vp_json_opt_int(w, p, "ctx_size", 0, 16777216, &s->ctx_size, err))) return st;
    if ((st = vp_json_opt_int(w, p, "n_batch", 1, 1048576, &s->n_batch, err))) return st;
    if ((st = vp_json_opt_int(w, p, "n_ubatch", 1, 1048576, &s->n_ubatch, err))) return st;
    if ((st = vp_json_opt_int(w, p, "n_parallel", 1, 65536, &s->n_parallel, err))) return st;
    if ((st = cache_type(w, "cache_type_k", &s->cache_type_k, err))) return st;
    if ((st = cache_type(w, "cache_type_v", &s->cache_type_v, err))) return st;
    if ((st = vp_json_opt_bool(w, p, "flash_attn", &s->flash_attn, err))) return st;
    if ((st = vp_json_opt_int(w, p, "context_len", 1, 16777216, &sv->context_len, err))) return st;
    sv->target_concurrency = 1;
    if ((st = vp_json_opt_num(w, p, "target_concurrency", 0.001, 1e7, &sv->target_concurrency, err))) return st;
    if (s->n_ubatch > s->n_batch) s->n_ubatch = s->n_batch; /* llama_context: n_ubatch = min(n_batch, n_ubatch) */
    return VP_OK;
}

/* Keep what a shell and a page can show as is: letters, digits and ._-/: ; anything else becomes '_'. */
static void safe_ref(char *dst, size_t n, const char *src) {
    size_t i = 0;
    for (; src && src[i] && i + 1 < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (isalnum(c) || c == '.' || c == '_' || c == '-' || c == '/' || c == ':') ? (char)c : '_';
    }
    dst[i] = '\0';
}

static vp_status parse_model(const cJSON *m, const char *p, const vp_registry *reg, vp_plan_serve *sv, vp_error *err) {
    static const char *const keys[] = {"preset", "hf_config", NULL};
    vp_status st;
    if (!cJSON_IsObject(m)) return vp_fail(err, VP_ERR_FIELD, p, "%s must be an object with preset or hf_config", p);
    if ((st = vp_json_only_keys(m, p, keys, err))) return st;
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(m, "preset");
    const cJSON *hf = cJSON_GetObjectItemCaseSensitive(m, "hf_config");
    char path[128];
    if ((preset != NULL) == (hf != NULL)) return vp_fail(err, VP_ERR_FIELD, p, "%s needs exactly one of preset, hf_config", p);
    if (preset) {
        vp_path_key(path, sizeof path, p, "preset");
        if (!cJSON_IsString(preset)) return vp_fail(err, VP_ERR_FIELD, path, "%s must be a preset id", path);
        const cJSON *entry = vp_registry_model(reg, preset->valuestring);
        if (!entry)
            return vp_fail(err, VP_ERR_UNSUPPORTED, path, "%s: no preset model \"%.48s\" (list them with `vramplan models`)",
                           path, preset->valuestring);
        const cJSON *repo = cJSON_GetObjectItemCaseSensitive(entry, "hf_repo");
        safe_ref(sv->model_ref, sizeof sv->model_ref, cJSON_IsString(repo) ? repo->valuestring : preset->valuestring);
        char cpath[160];
        snprintf(cpath, sizeof cpath, "%s(%.48s).config", path, preset->valuestring);
        return vp_serve_model_from_hf(cJSON_GetObjectItemCaseSensitive(entry, "config"), cpath, &sv->m, err);
    }
    vp_path_key(path, sizeof path, p, "hf_config");
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(hf, "_name_or_path");
    if (cJSON_IsString(nm) && nm->valuestring[0]) safe_ref(sv->model_ref, sizeof sv->model_ref, nm->valuestring);
    return vp_serve_model_from_hf(hf, path, &sv->m, err);
}

vp_status vp_plan_serve_parse(const cJSON *root, const vp_registry *reg, vp_plan *plan, vp_error *err) {
    static const char *const ikeys[] = {"name", "model", NULL};
    static const char *const pkeys[] = {"tp", "pp", NULL};
    vp_status st;
    vp_plan_serve *sv = &plan->serve;
    const cJSON *insts = cJSON_GetObjectItemCaseSensitive(root, "instances");
    if (!cJSON_IsArray(insts) || cJSON_GetArraySize(insts) != 1)
        return vp_fail(err, VP_ERR_FIELD, "instances", "a serve plan has exactly one instance: the served model");
    const cJSON *in = cJSON_GetArrayItem(insts, 0);
    if (!cJSON_IsObject(in)) return vp_fail(err, VP_ERR_FIELD, "instances[0]", "instances[0] must be an object");
    if ((st = vp_json_only_keys(in, "instances[0]", ikeys, err))) return st;
    vp_instance *i0 = &plan->inst[0];
    memset(i0, 0, sizeof *i0);
    vp_strlcpy(i0->name, "model", sizeof i0->name);
    if ((st = vp_json_opt_str(in, "instances[0]", "name", i0->name, sizeof i0->name, err))) return st;
    i0->shares_weights_with = -1;
    plan->n_instances = 1;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(in, "model");
    if (!m) return vp_fail(err, VP_ERR_FIELD, "instances[0].model", "missing required field instances[0].model");
    if ((st = parse_model(m, "instances[0].model", reg, sv, err))) return st;
    if (!sv->model_ref[0]) safe_ref(sv->model_ref, sizeof sv->model_ref, i0->name);
    vp_strlcpy(i0->arch.model_type, sv->m.model_type, sizeof i0->arch.model_type);
    /* quantization: a checkpoint's own quantization_config wins (vLLM reads it; --quantization must agree) */
    if (sv->quant_flag[0] && sv->m.quant.method == VP_WQ_NONE) {
        char q[40];
        int gguf = sv->s.engine == VP_ENGINE_LLAMACPP && strncmp(sv->quant_flag, "gguf:", 5) != 0;
        snprintf(q, sizeof q, "%s%s", gguf ? "gguf:" : "", sv->quant_flag);
        if ((st = vp_wquant_from_name(q, &sv->m.quant, err))) {
            vp_strlcpy(err->path, "workload.quantization", sizeof err->path);
            return st;
        }
    }
    if (sv->m.quant.method == VP_WQ_GGUF && sv->s.engine != VP_ENGINE_LLAMACPP)
        return vp_fail(err, VP_ERR_FIELD, "workload.quantization",
                       "workload.quantization \"%s\" is a GGUF file type: serve it with workload.engine \"llamacpp\"",
                       sv->quant_flag);
    const cJSON *par = cJSON_GetObjectItemCaseSensitive(root, "parallel");
    plan->par.dp = plan->par.tp = plan->par.pp = plan->par.vpp = plan->par.ep = plan->par.microbatches = 1;
    if (par && !cJSON_IsNull(par)) {
        if ((st = vp_json_only_keys(par, "parallel", pkeys, err))) return st;
        if ((st = vp_json_opt_int(par, "parallel", "tp", 1, VP_MAX_GPUS, &sv->s.tp, err))) return st;
        if ((st = vp_json_opt_int(par, "parallel", "pp", 1, VP_MAX_GPUS, &sv->s.pp, err))) return st;
    }
    if (sv->s.tp * sv->s.pp > VP_MAX_GPUS)
        return vp_fail(err, VP_ERR_RANGE, "parallel.tp", "parallel.tp × parallel.pp = %lld GPUs; at most %d are planned",
                       (long long)(sv->s.tp * sv->s.pp), VP_MAX_GPUS);
    if (sv->s.engine == VP_ENGINE_LLAMACPP && (sv->s.tp > 1 || sv->s.pp > 1))
        return vp_fail(err, VP_ERR_UNSUPPORTED, "parallel.tp",
                       "llama.cpp splits layers over GPUs with --split-mode, not tp/pp; plan one GPU (n_gpu_layers)");
    if (sv->m.heads % sv->s.tp != 0)
        return vp_fail(err, VP_ERR_RANGE, "parallel.tp",
                       "parallel.tp = %lld must divide num_attention_heads = %lld (the engines split whole heads)",
                       (long long)sv->s.tp, (long long)sv->m.heads);
    if (sv->s.pp > sv->m.layers)
        return vp_fail(err, VP_ERR_RANGE, "parallel.pp", "parallel.pp = %lld exceeds the model's %lld layers",
                       (long long)sv->s.pp, (long long)sv->m.layers);
    plan->par.tp = sv->s.tp;
    plan->par.pp = sv->s.pp;
    return VP_OK;
}
