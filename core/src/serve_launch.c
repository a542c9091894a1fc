/* serve_launch.c: the command that starts a planned deployment, with the engines' own flags
 * (vllm/engine/arg_utils.py EngineArgs, sglang/srt/server_args.py ServerArgs, llama.cpp
 * common/arg.cpp). Only settings that differ from the engine's default are written, besides the
 * ones the plan is about (parallelism, context, memory fraction). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gguf_types.h"
#include "plan_serve.h"

static void add(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *dst, size_t n, const char *fmt, ...) {
    size_t len = strlen(dst);
    if (len + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst + len, n - len, fmt, ap);
    va_end(ap);
}

void vp_serve_launch(const vp_plan_serve *sv, char *dst, size_t n) {
    const vp_serve_settings *s = &sv->s;
    dst[0] = '\0';
    const char *ref = sv->model_ref[0] ? sv->model_ref : "MODEL";
    switch (s->engine) {
    case VP_ENGINE_VLLM:
        add(dst, n, "vllm serve %s", ref);
        if (s->tp > 1) add(dst, n, " --tensor-parallel-size %lld", (long long)s->tp);
        if (s->pp > 1) add(dst, n, " --pipeline-parallel-size %lld", (long long)s->pp);
        if (s->max_model_len > 0) add(dst, n, " --max-model-len %lld", (long long)s->max_model_len);
        add(dst, n, " --gpu-memory-utilization %.2f", s->gpu_memory_utilization);
        if (sv->dtype_flag[0] && strcmp(sv->dtype_flag, "auto")) add(dst, n, " --dtype %s", sv->dtype_flag);
        if (sv->quant_flag[0]) add(dst, n, " --quantization %s", sv->quant_flag);
        if (strcmp(s->kv_cache_dtype, "auto")) add(dst, n, " --kv-cache-dtype %s", s->kv_cache_dtype);
        if (s->block_size != 16) add(dst, n, " --block-size %lld", (long long)s->block_size);
        if (s->max_num_seqs != 1024) add(dst, n, " --max-num-seqs %lld", (long long)s->max_num_seqs);
        if (s->max_num_batched_tokens != 8192)
            add(dst, n, " --max-num-batched-tokens %lld", (long long)s->max_num_batched_tokens);
        if (s->enforce_eager) add(dst, n, " --enforce-eager");
        if (s->enable_prefix_caching) add(dst, n, " --enable-prefix-caching");
        break;
    case VP_ENGINE_SGLANG:
        add(dst, n, "python -m sglang.launch_server --model-path %s", ref);
        if (s->tp > 1) add(dst, n, " --tp %lld", (long long)s->tp);
        if (s->pp > 1) add(dst, n, " --pp-size %lld", (long long)s->pp);
        if (s->max_model_len > 0) add(dst, n, " --context-length %lld", (long long)s->max_model_len);
        if (s->mem_fraction_static > 0) add(dst, n, " --mem-fraction-static %.2f", s->mem_fraction_static);
        if (sv->dtype_flag[0] && strcmp(sv->dtype_flag, "auto")) add(dst, n, " --dtype %s", sv->dtype_flag);
        if (sv->quant_flag[0]) add(dst, n, " --quantization %s", sv->quant_flag);
        if (strcmp(s->kv_cache_dtype, "auto")) add(dst, n, " --kv-cache-dtype %s", s->kv_cache_dtype);
        if (s->max_num_seqs != 1024) add(dst, n, " --max-running-requests %lld", (long long)s->max_num_seqs);
        if (s->enforce_eager) add(dst, n, " --disable-cuda-graph");
        break;
    case VP_ENGINE_LLAMACPP: {
        const char *ft = sv->m.quant.method == VP_WQ_GGUF ? vp_gguf_ftype_name(sv->m.quant.gguf_ftype) : "F16";
        const char *slash = strrchr(ref, '/');
        add(dst, n, "llama-server -m %s-%s.gguf", slash ? slash + 1 : ref, ft);
        add(dst, n, " -ngl %lld", (long long)(s->n_gpu_layers < 0 ? 999 : s->n_gpu_layers));
        add(dst, n, " -c %lld", (long long)s->ctx_size);
        if (s->n_batch != 2048) add(dst, n, " -b %lld", (long long)s->n_batch);
        if (s->n_ubatch != 512) add(dst, n, " -ub %lld", (long long)s->n_ubatch);
        if (s->n_parallel > 1) add(dst, n, " -np %lld", (long long)s->n_parallel);
        if (s->cache_type_k != VP_GGML_F16) add(dst, n, " -ctk %s", vp_ggml_type_name(s->cache_type_k));
        if (s->cache_type_v != VP_GGML_F16) add(dst, n, " -ctv %s", vp_ggml_type_name(s->cache_type_v));
        if (s->flash_attn) add(dst, n, " -fa on");
        break;
    }
    case VP_ENGINE_HF: break;
    }
}
