/* serve_sglang.c: SGLang's token pool, from the model and the settings.
 * python/sglang/srt/model_executor/model_runner.py:
 *   total_gpu_memory = available memory before the weights load (min over TP ranks)
 *   profile_max_num_token(): available_gpu_memory (after loading) - total_gpu_memory·(1 - mem_fraction_static)
 *     = rest_memory; cell_size = kv_heads/tp · head_dim · layers · 2 · element_size (MHA),
 *     (kv_lora_rank + qk_rope_head_dim) · layers · element_size (MLA);
 *     max_total_num_tokens = rest_memory // cell_size
 * python/sglang/srt/mem_cache/memory_pool.py MHATokenToKVPool: K and V buffers of
 *   [size + page_size, kv_heads, head_dim] per layer ("KV Cache is allocated. #tokens, K size, V size").
 * python/sglang/srt/server_args.py: mem_fraction_static defaults by TP size (0.88 at TP 1, 0.87 at 2,
 *   0.85 at 4, 0.81 at 8, 0.79 at 16 in the releases our log comes from). */
#include <stdio.h>

#include "serve.h"
#include "util.h"

double vp_sglang_default_mem_fraction(int64_t tp);
double vp_sglang_default_mem_fraction(int64_t tp) {
    if (tp >= 16) return 0.79;
    if (tp >= 8) return 0.81;
    if (tp >= 4) return 0.85;
    if (tp >= 2) return 0.87;
    return 0.88;
}

vp_status vp_serve_sglang(const vp_serve_model *m, const vp_serve_settings *s, uint64_t total, vp_serve_result *o,
                          vp_error *err) {
    int64_t tp = s->tp > 0 ? s->tp : 1;
    if (m->heads % tp != 0)
        return vp_fail(err, VP_ERR_RANGE, "parallel.tp", "tensor parallel size %lld must divide num_attention_heads = %lld",
                       (long long)tp, (long long)m->heads);
    int dt = s->dtype_bytes ? s->dtype_bytes : m->dtype_bytes;
    int kvb = s->kv_cache_bytes ? s->kv_cache_bytes : dt;
    double mfs = s->mem_fraction_static > 0 ? s->mem_fraction_static : vp_sglang_default_mem_fraction(tp);
    vp_rank_weights w;
    vp_serve_settings s1 = *s;
    s1.pp = 1;
    vp_serve_rank_weights(m, &s1, 0, &w);
    /* free memory when the weights start loading: the CUDA context, and with TP > 1 the NCCL
     * communicators and custom all-reduce buffers set up before (1.53 GiB in use at TP 2 in the
     * vLLM 0.19 H100 logs: "Free memory on device (77.66/79.19 GiB)", against 0.51 GiB at TP 1) */
    double before = (double)total - (double)VP_SERVE_CONTEXT_BYTES - (tp > 1 ? 1.02 * VP_GIB : 0.0);
    double after = before - (double)w.total;
    double rest = after - before * (1.0 - mfs);
    int64_t kvh = vp_kv_heads_per_rank(m->kv_heads, tp);
    int64_t cell = m->kv_lora_rank ? (m->kv_lora_rank + m->qk_rope_dim) * m->layers * kvb
                                   : kvh * m->head_dim * m->layers * 2 * kvb;
    o->budget_bytes = (uint64_t)(before * mfs);
    o->weights_bytes_per_gpu = (uint64_t)w.total;
    o->kv_bytes_per_token = cell;
    o->kv_cache_tokens = rest > 0 && cell > 0 ? (int64_t)(rest / (double)cell) : 0;
    o->kv_cache_bytes_per_gpu = (uint64_t)(o->kv_cache_tokens * cell);
    o->kv_k_bytes = o->kv_v_bytes = m->kv_lora_rank ? o->kv_cache_bytes_per_gpu : o->kv_cache_bytes_per_gpu / 2;
    o->layout.block_size = 1; /* page_size 1 */
    o->layout.n_groups = 1;
    o->layout.bytes_per_token = cell;
    o->max_concurrency = s->max_model_len > 0 ? (double)o->kv_cache_tokens / (double)s->max_model_len : 0;
    o->fits = o->kv_cache_tokens >= s->max_model_len && o->kv_cache_tokens > 0;
    snprintf(o->note, sizeof o->note,
             "SGLang keeps %.2f of the memory free before loading (mem_fraction_static %.2f); what the weights leave of it "
             "is the token pool, the rest is for activations and CUDA graphs.",
             1.0 - mfs, mfs);
    return VP_OK;
}
