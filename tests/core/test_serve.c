/* test_serve.c: the serving engines' arithmetic worked by hand (core/src/serve_*.c, quant_*.c,
 * gguf_types.c), through serve plans and the public API. Every expected number is written out with
 * the engine source it follows:
 *   vLLM (v0.19): vllm/v1/worker/gpu_worker.py determine_available_memory, gpu_model_runner.py
 *     profile_run / _dummy_sampler_run, vllm/v1/kv_cache_interface.py page sizes,
 *     vllm/v1/core/kv_cache_utils.py (_get_kv_cache_groups_uniform_page_size, get_num_blocks,
 *     _report_kv_cache_config, get_max_concurrency_for_kv_cache_config), vllm/distributed/utils.py
 *     get_pp_indices, quantization/{fp8,gptq_marlin,compressed_tensors}.py.
 *   SGLang: model_runner.py profile_max_num_token, mem_cache/memory_pool.py MHATokenToKVPool.
 *   llama.cpp: ggml.c type_traits, src/llama-quant.cpp llama_tensor_get_type, src/llama-kv-cache.cpp. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vp_test.h"

#define H100_TOTAL 85017493504ULL /* cudaGetDeviceProperties total of an H100 80GB HBM3 (models/gpus) */
#define GIB 1073741824.0
/* meta-llama/Llama-3.1-8B-Instruct config.json (the fields serving reads) */
#define CFG_LLAMA31_8B_SERVE                                                                                 \
    "{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":14336,\"num_hidden_layers\":32," \
    "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"vocab_size\":128256,\"tie_word_embeddings\":false," \
    "\"max_position_embeddings\":131072,\"torch_dtype\":\"bfloat16\"}"

static const vp_serving *serve(const char *workload, const char *model, const char *parallel) {
    const vp_estimate *e = t_estimate(t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":%s,\"instances\":[{\"model\":%s}],"
                                            "\"hardware\":{\"capacity_bytes\":%llu},\"parallel\":%s}",
                                            workload, model, (unsigned long long)H100_TOTAL, parallel));
    assert_string_not_equal(e->serving.engine, "");
    return &e->serving;
}
#define HF(cfg) t_fmt("{\"hf_config\":%s}", cfg)
#define VLLM(extra) "{\"mode\":\"serve\",\"engine\":\"vllm\",\"gpu_memory_utilization\":0.95" extra "}"


/* Llama-3.1-8B, TP 1, max_model_len 2048: every term of determine_available_memory. */
static void vllm_llama8b_by_hand(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":2048"), HF(CFG_LLAMA31_8B_SERVE), "{}");
    /* weights: 8,030,261,248 params × 2 B + RotaryEmbedding cos_sin_cache 131072 × 128 × 2 B */
    assert_u64_equal(v->weights_bytes_per_gpu, 8030261248ULL * 2 + 131072ULL * 128 * 2);
    /* _dummy_sampler_run: 1024 rows × 128256 logits × (2 B bf16 + 12 B fp32 copy, sorted, softmax)
     * + 3 × [8192, 4096] bf16 hidden states of the dummy run */
    uint64_t sampler = 1024ULL * 128256 * 14 + 3ULL * 8192 * 4096 * 2;
    assert_u64_equal(v->sampler_peak_bytes, sampler);
    /* the forward at 8192 tokens: 4 × [T, h] + gate_up [T, 2·14336] + act [T, 14336], bf16 */
    assert_u64_equal(v->forward_peak_bytes, 8192ULL * (4 * 4096 + 3 * 14336) * 2);
    assert_u64_equal(v->activation_peak_bytes, sampler);
    assert_u64_equal(v->non_torch_bytes, (uint64_t)(0.25 * GIB));
    uint64_t budget = (uint64_t)((double)H100_TOTAL * 0.95);
    assert_u64_equal(v->budget_bytes, budget);
    uint64_t avail = budget - v->weights_bytes_per_gpu - sampler - (uint64_t)(0.25 * GIB);
    assert_u64_equal(v->kv_cache_bytes_per_gpu, avail);
    /* FullAttentionSpec page: 2 · 16 · 8 kv heads · 128 · 2 B = 65536 B per layer; one group of 32 layers */
    int64_t blocks = (int64_t)(avail / 65536) / 32;
    assert_int_equal(v->num_gpu_blocks, blocks);
    assert_int_equal(v->kv_cache_groups, 1);
    assert_int_equal(v->kv_cache_tokens, blocks * 16);
    /* a 2048-token request: cdiv(2048, 16) = 128 blocks */
    assert_true(fabs(v->max_concurrency - (double)blocks / 128.0) < 1e-9);
    assert_int_equal(v->kv_bytes_per_token, 2 * 8 * 128 * 2 * 32);
    t_assert_contains(v->launch, "vllm serve", __FILE__, __LINE__);
    t_assert_contains(v->launch, "--max-model-len 2048 --gpu-memory-utilization 0.95", __FILE__, __LINE__);
}

/* Gemma 2 9B: 21 sliding-window (4096) and 21 full layers -> two groups of 21 (the counts are
 * equal, group_size = 21); a request of 8192 tokens: full cdiv(8192,16) = 512 blocks, sliding
 * min(4095 + 8192, 8192) = 8192 tokens -> 512 + 1 = 513 blocks; 1025 in all. */
static void vllm_gemma2_hybrid_groups(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":8192,\"dtype\":\"bfloat16\""), "{\"preset\":\"gemma-2-9b\"}", "{}");
    assert_int_equal(v->kv_cache_groups, 2);
    int64_t blocks = (int64_t)(v->kv_cache_bytes_per_gpu / (16ULL * 2 * 8 * 256 * 2)) / 21;
    assert_int_equal(v->num_gpu_blocks, blocks);
    assert_int_equal(v->kv_cache_tokens, blocks / 2 * 16);
    assert_true(fabs(v->max_concurrency - (double)blocks / 1025.0) < 1e-9);
}

/* Gemma 3 4B text: 34 layers, every 6th full (5 full, 29 sliding of 1024). group_size = 5 (29 ≥
 * 1.25 × 5), groups 1 + cdiv(29, 5) = 7. At max_model_len 32768: full 2048 blocks, sliding
 * min(1023 + 8192, 32768) = 9215 -> 576 + 1 = 577 blocks per group: 2048 + 6 × 577 = 5510. */
#define CFG_GEMMA3_4B                                                                                                 \
    "{\"model_type\":\"gemma3\",\"torch_dtype\":\"bfloat16\",\"text_config\":{\"model_type\":\"gemma3_text\","      \
    "\"hidden_size\":2560,\"intermediate_size\":10240,\"num_hidden_layers\":34,\"num_attention_heads\":8,"            \
    "\"num_key_value_heads\":4,\"head_dim\":256,\"sliding_window\":1024,\"vocab_size\":262208,"                       \
    "\"max_position_embeddings\":131072}}"
static void vllm_gemma3_pattern(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":32768"), HF(CFG_GEMMA3_4B), "{}");
    assert_int_equal(v->kv_cache_groups, 7);
    int64_t page = 16 * 2 * 4 * 256 * 2;
    int64_t blocks = (int64_t)(v->kv_cache_bytes_per_gpu / (uint64_t)page) / 5;
    assert_int_equal(v->num_gpu_blocks, blocks);
    assert_int_equal(v->kv_cache_tokens, blocks / 7 * 16);
    assert_true(fabs(v->max_concurrency - (double)blocks / 5510.0) < 1e-9);
}

/* Llama 4 Scout text, TP 4: 36 chunked-attention layers (chunk 8192) and 12 NoPE full layers
 * (every 4th). group_size 12, groups 1 + 3 = 4. 8 KV heads / 4 ranks = 2 per rank: page
 * 16 · 2 · 2 · 128 · 2 = 16384. At 32768: full 2048 blocks, chunked min(8192 + 8192, 32768) =
 * 16384 tokens -> 1024 blocks: 2048 + 3 × 1024 = 5120. */
#define CFG_LLAMA4_SCOUT                                                                                                \
    "{\"model_type\":\"llama4\",\"torch_dtype\":\"bfloat16\",\"text_config\":{\"model_type\":\"llama4_text\","        \
    "\"hidden_size\":5120,\"intermediate_size\":8192,\"intermediate_size_mlp\":16384,\"num_hidden_layers\":48,"         \
    "\"num_attention_heads\":40,\"num_key_value_heads\":8,\"head_dim\":128,\"vocab_size\":202048,"                       \
    "\"num_local_experts\":16,\"num_experts_per_tok\":1,\"interleave_moe_layer_step\":1,\"attention_chunk_size\":8192," \
    "\"max_position_embeddings\":10485760,\"tie_word_embeddings\":false}}"
static void vllm_llama4_chunked(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":32768"), HF(CFG_LLAMA4_SCOUT), "{\"tp\":4}");
    assert_int_equal(v->kv_cache_groups, 4);
    int64_t blocks = (int64_t)(v->kv_cache_bytes_per_gpu / 16384) / 12;
    assert_int_equal(v->num_gpu_blocks, blocks);
    assert_true(fabs(v->max_concurrency - (double)blocks / 5120.0) < 1e-9);
    assert_int_equal(v->kv_bytes_per_token, 2 * 2 * 128 * 2 * 48);
}

/* DeepSeek-V2-Lite: MLAAttentionSpec keeps one latent of kv_lora_rank + qk_rope_head_dim = 576
 * values per token and layer: 576 × 2 B × 27 layers = 31104 B per token, page 16 × 1152 B. */
#define CFG_DSV2_LITE                                                                                                  \
    "{\"model_type\":\"deepseek_v2\",\"hidden_size\":2048,\"intermediate_size\":10944,\"moe_intermediate_size\":1408," \
    "\"num_hidden_layers\":27,\"num_attention_heads\":16,\"num_key_value_heads\":16,\"n_routed_experts\":64,"          \
    "\"n_shared_experts\":2,\"num_experts_per_tok\":6,\"first_k_dense_replace\":1,\"kv_lora_rank\":512,"               \
    "\"q_lora_rank\":null,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\"v_head_dim\":128,\"vocab_size\":102400,"  \
    "\"max_position_embeddings\":163840,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\"}"
static void vllm_mla(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":8192"), HF(CFG_DSV2_LITE), "{}");
    assert_int_equal(v->kv_bytes_per_token, 576 * 2 * 27);
    assert_int_equal(v->num_gpu_blocks, (int64_t)(v->kv_cache_bytes_per_gpu / (16 * 1152)) / 27);
    assert_int_equal(v->kv_cache_groups, 1);
    /* weights: layer 0 dense (MLP 3 × 2048 × 10944), 26 MoE layers (64 × 3 × 2048 × 1408 + router
     * 2048 × 64 + shared 3 × 2048 × 2816); attention q 2048 → 16·192, kv_a 2048 → 576, kv_a_norm 512,
     * kv_b 512 → 16·256, o 2048 → 2048; norms 2 × 2048; embed + lm_head 102400 × 2048; final norm. */
    int64_t attn = 2048LL * 16 * 192 + 2048LL * 576 + 512 + 512LL * 16 * 256 + 2048LL * 2048;
    int64_t moe = 64LL * 3 * 2048 * 1408 + 2048LL * 64 + 3LL * 2048 * 2816;
    int64_t params = 27 * (attn + 2 * 2048) + 3LL * 2048 * 10944 + 26 * moe + 2 * 102400LL * 2048 + 2048;
    assert_u64_equal(v->weights_bytes_per_gpu, (uint64_t)params * 2 + 163840ULL * 64 * 2);
}

/* TP 16 > 8 KV heads: QKVParallelLinear replicates, one KV head per rank:
 * 2 · 1 · 128 · 2 B · 32 layers = 16384 B per token. */
static void vllm_kv_head_replication(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":8192"), HF(CFG_LLAMA31_8B_SERVE), "{\"tp\":16}");
    assert_int_equal(v->kv_bytes_per_token, 2 * 1 * 128 * 2 * 32);
}

/* get_pp_indices(32, 3): 32 // 3 = 10 each, the remainder 2 to the stages before the last:
 * [11, 11, 10]. Stage 0 holds 11 layers of 218,112,000 params, the embedding and the rope cache. */
static void vllm_pp_split(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":8192"), HF(CFG_LLAMA31_8B_SERVE), "{\"pp\":3}");
    assert_u64_equal(v->weights_bytes_per_gpu, 11ULL * 218112000 * 2 + 128256ULL * 4096 * 2 + 131072ULL * 128 * 2);
    assert_int_equal(v->pp, 3);
}

/* compressed-tensors w4a16 (group 128, symmetric), Marlin: qweight in·out/2 B, fp16 scales
 * [in/128, out]; embed and lm_head (ignored) stay fp16; the Marlin repack holds one extra copy of
 * the largest qweight (gate_up 4096 × 28672 / 2) at the load's peak. */
static void quant_w4a16_bytes(void **s) {
    (void)s;
    const char *cfg =
        "{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":14336,\"num_hidden_layers\":32,"
        "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"vocab_size\":128256,\"tie_word_embeddings\":false,"
        "\"max_position_embeddings\":131072,\"torch_dtype\":\"float16\",\"quantization_config\":{\"quant_method\":"
        "\"compressed-tensors\",\"config_groups\":{\"group_0\":{\"targets\":[\"Linear\"],\"weights\":{\"num_bits\":4,"
        "\"type\":\"int\",\"strategy\":\"group\",\"group_size\":128,\"symmetric\":true}}},\"ignore\":[\"lm_head\"]}}";
    const vp_serving *v = serve(VLLM(",\"max_model_len\":8192"), HF(cfg), "{}");
    int64_t qweights = (4096LL * 6144 + 4096LL * 4096 + 4096LL * 28672 + 14336LL * 4096) / 2;
    int64_t scales = (32LL * 6144 + 32LL * 4096 + 32LL * 28672 + 112LL * 4096) * 2;
    int64_t layer = qweights + scales + 2 * 4096 * 2;
    uint64_t expect = 32ULL * layer + 2ULL * 128256 * 4096 * 2 + 4096 * 2 + 131072ULL * 128 * 2 + 4096ULL * 28672 / 2;
    assert_u64_equal(v->weights_bytes_per_gpu, expect);
}

/* vllm --quantization fp8 on a bf16 checkpoint: fp8 weights, one fp32 scale per logical shard
 * (q,k,v = 3; gate,up = 2; o; down): 7 × 4 B per layer. */
static void quant_fp8_online(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":8192,\"quantization\":\"fp8\""), HF(CFG_LLAMA31_8B_SERVE), "{}");
    int64_t layer = 4096LL * 6144 + 4096LL * 4096 + 4096LL * 28672 + 14336LL * 4096 + 7 * 4 + 2 * 4096 * 2;
    assert_u64_equal(v->weights_bytes_per_gpu,
                     32ULL * layer + 2ULL * 128256 * 4096 * 2 + 4096 * 2 + 131072ULL * 128 * 2);
}

/* SGLang: rest = free_before × mem_fraction_static − weights; cell = 8 × 128 × 32 × 2 × 2 = 131072 B;
 * max_total_num_tokens = rest // cell. Free before loading = total − the CUDA context (0.51 GiB). */
static void sglang_pool(void **s) {
    (void)s;
    const vp_serving *v =
        serve("{\"mode\":\"serve\",\"engine\":\"sglang\",\"mem_fraction_static\":0.88}", HF(CFG_LLAMA31_8B_SERVE), "{}");
    double before = (double)H100_TOTAL - 547618816.0;
    double rest = before - (double)v->weights_bytes_per_gpu - before * (1 - 0.88);
    assert_int_equal(v->kv_cache_tokens, (int64_t)(rest / 131072.0));
    assert_u64_equal(v->kv_k_bytes, (uint64_t)v->kv_cache_tokens * 65536);
    t_assert_contains(v->launch, "python -m sglang.launch_server --model-path", __FILE__, __LINE__);
}

/* A request longer than the KV pool: the GPU does not fit, and its headroom is what that request's KV lacks, as
 * vLLM's startup error compares them (kv_cache_utils.py check_enough_kv_cache_memory). Llama-3.1-8B bf16 KV:
 * 32 layers × 8 heads × 128 × 2 (K, V) × 2 B = 131,072 B per token; vLLM in 16-token blocks: 2 MiB per block,
 * 100,000 tokens = 6,250 blocks. SGLang counts tokens: 100,000 × 131,072 B less its pool. */
static const vp_estimate *serve_est(const char *workload) {
    return t_estimate(t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":%s,\"instances\":[{\"model\":%s}],"
                            "\"hardware\":{\"capacity_bytes\":%llu}}",
                            workload, HF(CFG_LLAMA31_8B_SERVE), (unsigned long long)H100_TOTAL));
}
static void kv_shortfall_headroom(void **s) {
    (void)s;
    const vp_estimate *e = serve_est("{\"mode\":\"serve\",\"engine\":\"vllm\",\"max_model_len\":100000,\"gpu_memory_utilization\":0.3}");
    const vp_serving *v = &e->serving;
    assert_int_equal(v->block_size, 16);
    assert_true(v->num_gpu_blocks < 6250);
    assert_false(e->fits);
    assert_false(e->devices[0].fits);
    assert_int_equal(e->devices[0].headroom_bytes, -(int64_t)(6250 - v->num_gpu_blocks) * 16 * 131072);
    e = serve_est("{\"mode\":\"serve\",\"engine\":\"sglang\",\"max_model_len\":100000,\"mem_fraction_static\":0.3}");
    v = &e->serving;
    assert_true(v->kv_cache_tokens < 100000);
    assert_false(e->devices[0].fits);
    assert_int_equal(e->devices[0].headroom_bytes, -(int64_t)(100000 - v->kv_cache_tokens) * 131072);
    /* refused for a reason that is not memory (max_model_len above max_position_embeddings 131072): no shortfall */
    e = serve_est(VLLM(",\"max_model_len\":140000"));
    assert_false(e->devices[0].fits);
    assert_int_equal(e->devices[0].headroom_bytes, 0);
    t_assert_contains(e->serving.note, "max_position_embeddings", __FILE__, __LINE__);
}

/* llama.cpp, Phi-3-mini Q4_K_M, all 33 layers offloaded (llama-quant.cpp):
 * attn_qkv -> Q5_K (176 B / 256), attn_output and ffn_up -> Q4_K (144 B / 256), ffn_down -> Q6_K
 * (210 B / 256) in the use_more_bits layers (i < 4, i >= 28, (i − 4) % 3 == 2: 16 of 32) else
 * Q4_K, output -> Q6_K, norms F32; token_embd (Q4_K) stays in CPU memory. Matches the log's
 * "CUDA0 model buffer size = 2228.82 MiB" and "CPU_Mapped ... 52.84 MiB". */
static void llamacpp_q4km_phi3(void **s) {
    (void)s;
    const vp_serving *v = serve("{\"mode\":\"serve\",\"engine\":\"llamacpp\",\"quantization\":\"Q4_K_M\","
                                "\"n_gpu_layers\":33,\"ctx_size\":4096,\"n_batch\":256,\"n_ubatch\":256}",
                                HF(CFG_PHI3_MINI), "{}");
    int64_t qkv = 9216LL * (3072 / 256) * 176, o = 3072LL * 12 * 144, up = 16384LL * 12 * 144;
    int64_t down6 = 3072LL * 32 * 210, down4 = 3072LL * 32 * 144, norms = 2 * 3072 * 4;
    int64_t gpu = 32 * (qkv + o + up + norms) + 16 * down6 + 16 * down4 + 3072 * 4 + 32064LL * 12 * 210;
    assert_u64_equal(v->model_buffer_gpu_bytes, (uint64_t)gpu);
    assert_u64_equal(v->model_buffer_cpu_bytes, 32064ULL * 12 * 144);
    /* KV: 4096 cells × 32 layers × 3072 × 2 B for K and again for V = 768 MiB each */
    assert_u64_equal(v->kv_k_bytes, 4096ULL * 32 * 3072 * 2);
    assert_u64_equal(v->kv_v_bytes, 4096ULL * 32 * 3072 * 2);
}

/* q8_0 cache: ggml_row_size(Q8_0, 3072) = 96 blocks × 34 B; ctx 5000 is padded to 5024 cells
 * (get_padding 32 without flash attention; 5120 with it); -ngl 20 keeps layers 12..31 on the GPU. */
static void llamacpp_cache_types(void **s) {
    (void)s;
    const vp_serving *v = serve("{\"mode\":\"serve\",\"engine\":\"llamacpp\",\"quantization\":\"Q8_0\","
                                "\"n_gpu_layers\":20,\"ctx_size\":5000,\"cache_type_k\":\"q8_0\",\"cache_type_v\":\"q8_0\"}",
                                HF(CFG_PHI3_MINI), "{}");
    assert_int_equal(v->ctx_cells, 5024);
    assert_u64_equal(v->kv_k_bytes, 5024ULL * 20 * 96 * 34);
    const vp_serving *fa = serve("{\"mode\":\"serve\",\"engine\":\"llamacpp\",\"ctx_size\":5000,\"flash_attn\":true}",
                                 HF(CFG_PHI3_MINI), "{}");
    assert_int_equal(fa->ctx_cells, 5120);
    t_assert_contains(v->launch, "llama-server", __FILE__, __LINE__);
    t_assert_contains(v->launch, "-ngl 20 -c 5000 -ctk q8_0 -ctv q8_0", __FILE__, __LINE__);
}

static void serve_errors(void **s) {
    (void)s;
    const char *m = "{\"model\":{\"preset\":\"llama-3.1-8b\"}}";
    t_expect_error(t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\"},\"instances\":[%s]}", m),
                   VP_ERR_FIELD, "workload.engine");
    t_expect_error(t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\",\"engine\":\"vllm\"},"
                         "\"instances\":[%s],\"parallel\":{\"tp\":3}}", m),
                   VP_ERR_RANGE, "parallel.tp");
    t_expect_error(t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\",\"engine\":\"vllm\","
                         "\"kv_cache_dtype\":\"int3\"},\"instances\":[%s]}", m),
                   VP_ERR_UNSUPPORTED, "workload.kv_cache_dtype");
    t_expect_error(t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\",\"engine\":\"vllm\","
                         "\"quantization\":\"gguf:Q4_K_M\"},\"instances\":[%s]}", m),
                   VP_ERR_FIELD, "workload.quantization");
    t_expect_error(t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\",\"engine\":\"vllm\","
                         "\"batch\":4},\"instances\":[%s]}", m),
                   VP_ERR_FIELD, "workload.batch");
    t_expect_error("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\",\"engine\":\"vllm\"},"
                   "\"instances\":[{\"model\":{\"hf_config\":{\"model_type\":\"x\",\"hidden_size\":64}}}]}",
                   VP_ERR_UNSUPPORTED, "instances[0].model.hf_config.model_type"); /* generic.c: an unknown family missing a field */
    t_expect_error("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\",\"engine\":\"vllm\"},"
                   "\"instances\":[{\"model\":{\"hf_config\":{\"model_type\":\"llama\",\"hidden_size\":64,"
                   "\"num_hidden_layers\":2,\"intermediate_size\":128,\"num_attention_heads\":4,\"vocab_size\":10,\"quantization_config\":"
                   "{\"quant_method\":\"hqq\"}}}}]}",
                   VP_ERR_UNSUPPORTED, "instances[0].model.hf_config.quantization_config.quant_method");
}


/* The answers (plan_serve.c), each checked against a re-estimate: the fewest GPUs for the target
 * reach it and half as many do not; the longest max_model_len starts and one token more does not;
 * the -ngl answer fits and one layer more does not. */
static const vp_estimate *serve_sugg(const char *plan_json) {
    vp_error err;
    vp_plan *p = vp_plan_from_json(plan_json, t_registry(), &err);
    if (!p) fail_msg("%s (%s)", err.message, err.path);
    static vp_estimate e;
    assert_int_equal(vp_estimate_with_suggestions(p, &e, &err), VP_OK);
    vp_plan_free(p);
    return &e;
}
static double conc(const char *workload, const char *parallel) {
    return serve(workload, "{\"preset\":\"qwen2.5-72b\"}", parallel)->max_concurrency;
}
static void answers(void **s) {
    (void)s;
    const vp_estimate *e = serve_sugg(t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\",\"engine\":"
                                            "\"vllm\",\"max_model_len\":32768,\"gpu_memory_utilization\":0.95,"
                                            "\"target_concurrency\":20},\"instances\":[{\"model\":{\"preset\":\"qwen2.5-72b\"}}],"
                                            "\"hardware\":{\"capacity_bytes\":%llu}}", (unsigned long long)H100_TOTAL));
    const vp_serving *v = &e->serving;
    assert_true(v->has_answers);
    assert_true(v->fewest_tp > 1);
    const char *wl = VLLM(",\"max_model_len\":32768");
    assert_true(conc(wl, t_fmt("{\"tp\":%lld}", (long long)v->fewest_tp)) >= 20.0);
    assert_true(conc(wl, t_fmt("{\"tp\":%lld}", (long long)v->fewest_tp / 2)) < 20.0);
    t_assert_contains(v->fewest_launch, t_fmt("--tensor-parallel-size %lld", (long long)v->fewest_tp), __FILE__, __LINE__);
    /* llama.cpp on a 16 GiB card: the most layers of Llama-3.1-8B F16 (15 GB) with 8192 cells */
    const vp_estimate *l = serve_sugg("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\",\"engine\":"
                                      "\"llamacpp\",\"ctx_size\":8192},\"instances\":[{\"model\":{\"preset\":\"llama-3.1-8b\"}}],"
                                      "\"hardware\":{\"capacity_bytes\":17179869184}}");
    int64_t ngl = l->serving.best_n_gpu_layers;
    assert_true(ngl > 0 && ngl < 33);
    const char *base = "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\",\"engine\":\"llamacpp\","
                       "\"ctx_size\":8192,\"n_gpu_layers\":%lld},\"instances\":[{\"model\":{\"preset\":\"llama-3.1-8b\"}}],"
                       "\"hardware\":{\"capacity_bytes\":17179869184}}";
    assert_true(t_estimate(t_fmt(base, (long long)ngl))->fits);
    assert_false(t_estimate(t_fmt(base, (long long)ngl + 1))->fits);
    t_assert_contains(l->serving.ngl_launch, t_fmt("-ngl %lld", (long long)ngl), __FILE__, __LINE__);
}

/* Llama-3.1-8B Q8_0, -ngl 33: every 2-D tensor Q8_0 (34 B per 32; llama_tensor_get_type keeps the
 * output in Q8_0: "else if (new_type != GGML_TYPE_Q8_0) new_type = GGML_TYPE_Q6_K"), norms F32,
 * token_embd on the CPU: 7605.33 MiB on CUDA0 and 532.31 MiB CPU_Mapped, as llama.cpp prints for
 * this file. Q4_K_M: attn_v and ffn_down Q6_K in the 16 use_more_bits layers, output Q6_K:
 * 4403.49 MiB and 281.81 MiB. */
static void llamacpp_llama8b_types(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"serve\",\"engine\":\"llamacpp\",\"quantization\":\"%s\",\"n_gpu_layers\":33}";
    const vp_serving *v = serve(t_fmt(wl, "Q8_0"), HF(CFG_LLAMA31_8B_SERVE), "{}");
    uint64_t layer = 218103808ULL / 32 * 34 + 2 * 4096 * 4;
    uint64_t gpu = 32 * layer + 128256ULL * 4096 / 32 * 34 + 4096 * 4;
    assert_u64_equal(v->model_buffer_gpu_bytes, gpu);
    assert_u64_equal(v->model_buffer_cpu_bytes, 128256ULL * 4096 / 32 * 34);
    assert_true(fabs((double)gpu / 1048576.0 - 7605.33) < 0.005);
    v = serve(t_fmt(wl, "Q4_K_M"), HF(CFG_LLAMA31_8B_SERVE), "{}");
    uint64_t q4 = 144, q6 = 210; /* bytes per 256 */
    uint64_t attn_qo = 2ULL * 4096 * 4096 / 256 * q4, k = 1024ULL * 4096 / 256 * q4;
    uint64_t v4 = 1024ULL * 4096 / 256 * q4, v6 = 1024ULL * 4096 / 256 * q6;
    uint64_t gu = 2ULL * 14336 * 4096 / 256 * q4, d4 = 4096ULL * 14336 / 256 * q4, d6 = 4096ULL * 14336 / 256 * q6;
    uint64_t g4 = 32 * (attn_qo + k + gu + 2 * 4096 * 4) + 16 * (v4 + d4) + 16 * (v6 + d6) + 128256ULL * 4096 / 256 * q6 + 4096 * 4;
    assert_u64_equal(v->model_buffer_gpu_bytes, g4);
    assert_true(fabs((double)g4 / 1048576.0 - 4403.49) < 0.005);
    assert_true(fabs((double)v->model_buffer_cpu_bytes / 1048576.0 - 281.81) < 0.005);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_llama8b_by_hand), cmocka_unit_test(vllm_gemma2_hybrid_groups),
        cmocka_unit_test(vllm_gemma3_pattern),  cmocka_unit_test(vllm_llama4_chunked),
        cmocka_unit_test(vllm_mla),             cmocka_unit_test(vllm_kv_head_replication),
        cmocka_unit_test(vllm_pp_split),        cmocka_unit_test(quant_w4a16_bytes),
        cmocka_unit_test(quant_fp8_online),     cmocka_unit_test(sglang_pool),
        cmocka_unit_test(llamacpp_q4km_phi3),   cmocka_unit_test(llamacpp_cache_types),
        cmocka_unit_test(serve_errors),         cmocka_unit_test(answers), cmocka_unit_test(kv_shortfall_headroom), cmocka_unit_test(llamacpp_llama8b_types),
    };
    return T_RUN("serve", tests, argc, argv);
}
