/* serve.c: engine names, defaults, and the dispatch to one engine's arithmetic. */
#include <string.h>

#include "gguf_types.h"
#include "serve.h"
#include "util.h"

const char *const vp_engine_names[] = {"vllm", "sglang", "llamacpp", "hf", NULL};

void vp_serve_settings_default(vp_serve_settings *s, vp_engine e) {
    memset(s, 0, sizeof *s);
    s->engine = e;
    s->tp = s->pp = 1;
    s->gpu_memory_utilization = 0.9;     /* vllm/config/cache.py CacheConfig.gpu_memory_utilization */
    s->mem_fraction_static = 0;          /* sglang: by TP size (serve_sglang.c) */
    vp_strlcpy(s->kv_cache_dtype, "auto", sizeof s->kv_cache_dtype);
    s->block_size = 16;
    /* vllm/engine/arg_utils.py: on H100-class GPUs the OpenAI server defaults to max_num_seqs 1024 and
     * max_num_batched_tokens 8192 (as the 0.19 logs show) */
    s->max_num_seqs = 1024;
    s->max_num_batched_tokens = 8192;
    s->n_gpu_layers = -1;                /* llama-server -ngl: all (recent default "auto"/999) */
    s->ctx_size = 4096;
    s->n_batch = 2048;
    s->n_ubatch = 512;
    s->n_parallel = 1;
    s->cache_type_k = s->cache_type_v = VP_GGML_F16;
}

vp_status vp_serve_compute(const vp_serve_model *m, const vp_serve_settings *s, uint64_t total, vp_serve_result *o,
                           vp_error *err) {
    memset(o, 0, sizeof *o);
    o->engine = s->engine;
    o->tp = s->tp > 0 ? s->tp : 1;
    o->pp = s->pp > 0 ? s->pp : 1;
    o->gpus = o->tp * o->pp;
    o->gpu_total_bytes = total;
    o->max_model_len = s->max_model_len > 0 ? s->max_model_len : m->max_positions;
    vp_serve_settings s2 = *s;
    s2.max_model_len = o->max_model_len;
    switch (s->engine) {
    case VP_ENGINE_VLLM: return vp_serve_vllm(m, &s2, total, o, err);
    case VP_ENGINE_SGLANG: return vp_serve_sglang(m, &s2, total, o, err);
    case VP_ENGINE_LLAMACPP: return vp_serve_llamacpp(m, &s2, total, o, err);
    case VP_ENGINE_HF: break;
    }
    return vp_fail(err, VP_ERR_UNSUPPORTED, "workload.engine",
                   "workload.engine \"hf\" is planned by the inference mode (workload.mode \"infer\")");
}
