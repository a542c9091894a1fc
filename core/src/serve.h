/* serve.h: serving engines (vLLM V1, SGLang, llama.cpp) as they really allocate GPU memory.
 *
 * Layers, one way: config.json -> vp_arch (hf_config.c, families/) -> vp_serve_model (serve_model.c,
 * quant_config.c) -> per-rank weight bytes (quant_weights.c, gguf_types.c) and per-layer KV-cache
 * specs (serve_kv_spec.c) -> one engine's startup arithmetic (serve_vllm.c, serve_sglang.c,
 * serve_llamacpp.c) -> vp_serving.
 * The planning answers (plan_serve.c) sit above and call vp_serve_compute again. */
#ifndef VP_SERVE_H
#define VP_SERVE_H

#include <stdint.h>
#include "vramplan.h"

#define VP_SERVE_MAX_LAYERS 1024

typedef enum { VP_ENGINE_VLLM = 0, VP_ENGINE_SGLANG, VP_ENGINE_LLAMACPP, VP_ENGINE_HF } vp_engine;
extern const char *const vp_engine_names[]; /* "vllm", "sglang", "llamacpp", "hf" */

/* Attention kind of one decoder layer, as vLLM's KV-cache spec sees it (vllm/v1/kv_cache_interface.py). */
typedef enum {
    VP_LAYER_FULL = 0, /* FullAttentionSpec */
    VP_LAYER_SLIDING,  /* SlidingWindowSpec (gemma2/3, gpt-oss, layer_types "sliding_attention") */
    VP_LAYER_CHUNKED,  /* ChunkedLocalAttentionSpec (llama4 RoPE layers, attention_chunk_size) */
    VP_LAYER_MLA       /* MLAAttentionSpec (deepseek_v2/v3 compressed latent cache) */
} vp_layer_attn;

/* How a checkpoint stores its linear weights (quantization_config in config.json, or --quantization). */
typedef enum {
    VP_WQ_NONE = 0,
    VP_WQ_FP8,   /* fp8 e4m3 weights + fp32 scales (quant_method "fp8", compressed-tensors float 8-bit) */
    VP_WQ_INT8,  /* int8 weights + per-channel fp32 scales (compressed-tensors w8a8 int) */
    VP_WQ_INT4,  /* 4-bit packed weights + fp16 group scales (gptq, awq, compressed-tensors w4a16) */
    VP_WQ_MXFP4, /* 4-bit e2m1 + one e8m0 scale per 32 (gpt-oss MoE experts) */
    VP_WQ_GGUF   /* llama.cpp GGUF file types (gguf_types.c) */
} vp_wq_method;

typedef enum { VP_FP8_PER_TENSOR = 0, VP_FP8_PER_CHANNEL, VP_FP8_BLOCK } vp_fp8_scale;

typedef struct {
    vp_wq_method method;
    char name[32];        /* as read: "fp8", "compressed-tensors", "gptq", "awq", "mxfp4", "gguf:Q4_K_M" ... */
    int bits;             /* 4 or 8 */
    int64_t group_size;   /* int4: input columns per scale (-1 = one group per output channel) */
    int zero_point;       /* int4: asymmetric, zeros stored (gptq sym=false, awq zero_point=true) */
    int act_order;        /* int4: g_idx stored (gptq desc_act) */
    vp_fp8_scale fp8_scale;
    int64_t block_n, block_k; /* fp8 block quantization (weight_block_size) */
    int static_input_scale;   /* fp8/int8 static activation scales stored per linear */
    int marlin;           /* vLLM repacks int4 into Marlin tiles (gptq_marlin / awq_marlin on sm80+) */
    int experts_only;     /* mxfp4: only the MoE experts are quantized */
    int gguf_ftype;       /* VP_WQ_GGUF: llama_ftype (gguf_types.h) */
} vp_wquant;

/* The shapes serving needs, from a Hugging Face config.json through the family readers' vp_arch
 * (serve_model.c; text_config of multimodal models). */
typedef struct {
    char model_type[32];
    int64_t hidden, layers, heads, kv_heads, head_dim, vocab, inter;
    int64_t v_head_dim;      /* = head_dim except MLA */
    int tie, qkv_bias, o_bias, mlp_bias, qk_norm, attn_sinks;
    int gated_mlp;           /* gate_proj + up_proj + down_proj (1), or fc1 + fc2 (0) */
    int norms_per_layer;     /* RMSNorm/LayerNorm weights per block */
    int layernorm;           /* LayerNorm (weight + bias) instead of RMSNorm */
    int qk_norm_full;        /* q/k norms over all heads (arch.h): 1 replicated (olmo2), 2 split by heads (cohere) */
    int lm_head_bias;        /* phi, phimoe: ParallelLMHead(bias=True) */
    int embed_norm;          /* bloom word_embeddings_layernorm */
    int64_t positions;       /* learned position embedding rows (gpt2 wpe), 0 if none */
    /* mixture of experts */
    int64_t experts, experts_per_tok, expert_inter, shared_inter; /* shared_inter: all shared experts together */
    int shared_gate;         /* qwen2_moe shared_expert_gate Linear(h, 1) */
    int expert_bias, router_bias; /* gpt-oss */
    int router_score_bias;   /* deepseek noaux_tc: gate.e_score_correction_bias, fp32 [experts] */
    int64_t n_moe_layers;
    unsigned char moe[VP_SERVE_MAX_LAYERS];  /* layer i has experts */
    unsigned char attn[VP_SERVE_MAX_LAYERS]; /* vp_layer_attn of layer i */
    int64_t sliding_window, chunk_size;
    /* multi-head latent attention (deepseek_v2/v3) */
    int64_t q_lora_rank, kv_lora_rank, qk_nope_dim, qk_rope_dim;
    int64_t max_positions, rotary_dim; /* rotary_dim 0: no rotary cache (learned positions, ALiBi) */
    int64_t rope_positions;  /* rows of every rotary cos/sin cache together (scaled RoPE caches are longer) */
    int64_t vision_params;   /* vision tower + projector of a multimodal checkpoint (loaded by vLLM/SGLang) */
    int dtype_bytes;         /* torch_dtype (2 for bf16/fp16, 4 for fp32) */
    vp_wquant quant;
} vp_serve_model;

/* Engine settings, with the engines' own names and defaults. 0 / -1 = the engine's default. */
typedef struct {
    vp_engine engine;
    int64_t tp, pp;
    int64_t max_model_len;          /* vllm --max-model-len, sglang --context-length (0 = config's max_position_embeddings) */
    double gpu_memory_utilization;  /* vllm, default 0.9 */
    double mem_fraction_static;     /* sglang (0 = its default by TP size) */
    int kv_cache_bytes;             /* kv element bytes: 2 (auto/bf16/fp16), 1 (fp8) ; 0 = model dtype */
    char kv_cache_dtype[16];        /* as given: auto, fp8, fp8_e4m3, fp8_e5m2, bf16, fp16 */
    int64_t block_size;             /* vllm --block-size (0 = 16; 64 for MLA) */
    int64_t max_num_seqs;           /* vllm default 1024 on H100 (0.19 online serving), sglang --max-running-requests */
    int64_t max_num_batched_tokens; /* vllm default 8192 on H100 (0.19 online serving) */
    int enforce_eager;              /* no CUDA graphs */
    int enable_prefix_caching;      /* does not change the pool's size */
    int dtype_bytes;                /* --dtype (0 = checkpoint's torch_dtype) */
    /* llama.cpp */
    int64_t n_gpu_layers;           /* -ngl (-1 = all) */
    int64_t ctx_size;               /* -c (0 = 4096 llama-server's default) */
    int64_t n_batch, n_ubatch;      /* -b 2048, -ub 512 */
    int64_t n_parallel;             /* -np, sequences sharing the cache */
    int cache_type_k, cache_type_v; /* ggml types (gguf_types.h), default f16 */
    int flash_attn;                 /* -fa */
} vp_serve_settings;

/* A serve plan's part (plan.h vp_plan.serve; plan_serve_parse.c). */
typedef struct {
    vp_serve_settings s;
    vp_serve_model m;
    char model_ref[128];   /* what the launch command names: the preset's hf_repo, _name_or_path, or the instance name */
    char quant_flag[32];   /* workload.quantization as given ("" = the checkpoint's own quantization_config) */
    char dtype_flag[16];   /* workload.dtype as given ("" = auto) */
    int given_n_gpu_layers, given_ctx;
    int64_t context_len;        /* workload.context_len: a length to report the concurrency at (0 = none) */
    double target_concurrency;  /* workload.target_concurrency: for the fewest-GPUs answer (default 1) */
} vp_plan_serve;

/* Fill s with every engine's defaults for engine e. */
void vp_serve_settings_default(vp_serve_settings *s, vp_engine e);

struct cJSON;
/* config.json -> m (serve_model.c). quantization_config is read as it is (quant_config.c). */
vp_status vp_serve_model_from_hf(const struct cJSON *cfg, const char *path, vp_serve_model *m, vp_error *err);
/* quantization_config object -> q (quant_config.c). */
vp_status vp_wquant_from_config(const struct cJSON *qc, const char *path, vp_wquant *q, vp_error *err);
/* --quant / quantization name ("fp8", "awq", "gptq", "mxfp4", "gguf:Q4_K_M", "none") -> q. */
vp_status vp_wquant_from_name(const char *name, vp_wquant *q, vp_error *err);

/* ---- quant_weights.c: bytes each tensor-parallel / pipeline rank holds ---- */
typedef struct {
    int64_t params;          /* parameters on the rank */
    int64_t linear_bytes;    /* linear layers inside the blocks, as stored (quantized or not) */
    int64_t scale_bytes;     /* quantization scales, zeros and g_idx */
    int64_t embed_bytes;     /* token embedding (vocab-parallel, padded) */
    int64_t lm_head_bytes;   /* 0 when tied or not on this rank */
    int64_t other_bytes;     /* norms, biases, routers, sinks, vision tower */
    int64_t rope_bytes;      /* rotary cos/sin caches */
    int64_t repack_bytes;    /* transient of a repack (Marlin) seen by the load's peak */
    int64_t total;
    int64_t layers_on_rank;
    int64_t first_layer;
} vp_rank_weights;
/* Weights of pipeline stage pp_rank (0 = first) of one tensor-parallel rank. */
void vp_serve_rank_weights(const vp_serve_model *m, const vp_serve_settings *s, int64_t pp_rank, vp_rank_weights *w);
/* Layers of pipeline stage r (vllm/distributed/utils.py get_pp_indices). */
void vp_pp_layers(int64_t layers, int64_t pp, int64_t r, int64_t *first, int64_t *count);
/* KV heads one TP rank holds (replicated when tp > kv_heads). */
int64_t vp_kv_heads_per_rank(int64_t kv_heads, int64_t tp);

/* ---- serve_kv_spec.c: vLLM's KV-cache specs, pages and groups ---- */
typedef struct {
    int64_t block_size;
    int64_t page_bytes;          /* one block of one layer (uniform across groups after vLLM's unification) */
    int n_groups;                /* KV cache groups (kv_cache_utils.py _get_kv_cache_groups_uniform_page_size) */
    int64_t group_size;          /* layers per group (tensors the pool is split into) */
    int n_full, n_sliding, n_chunked, n_mla; /* layers of each kind on the rank */
    int64_t blocks_per_request;  /* at max_model_len (get_max_concurrency_for_kv_cache_config) */
    int64_t bytes_per_token;     /* all layers of the rank, full attention (for display) */
} vp_kv_layout;
void vp_vllm_kv_layout(const vp_serve_model *m, const vp_serve_settings *s, int64_t first_layer, int64_t n_layers,
                       vp_kv_layout *out);

/* ---- the result of one engine (per GPU; rank 0 of the first pipeline stage) ---- */
typedef struct {
    vp_engine engine;
    int64_t tp, pp, gpus;
    int64_t max_model_len;
    uint64_t gpu_total_bytes;        /* CUDA total of one GPU */
    uint64_t budget_bytes;           /* vllm: total × gpu_memory_utilization; sglang: avail × mem_fraction_static */
    uint64_t weights_bytes_per_gpu;
    uint64_t activation_peak_bytes;  /* vllm profile run: torch peak increase */
    uint64_t forward_peak_bytes;     /* ... of which the forward at max_num_batched_tokens */
    uint64_t sampler_peak_bytes;     /* ... and the sampler over max_num_seqs × vocab */
    uint64_t non_torch_bytes;        /* vllm non-torch increase (NCCL, cuBLAS) */
    uint64_t cuda_graph_bytes;       /* captured after the KV cache; not subtracted by vLLM 0.19 */
    uint64_t kv_cache_bytes_per_gpu;
    int64_t kv_cache_tokens;
    int64_t num_gpu_blocks;
    double max_concurrency;          /* at max_model_len */
    int64_t kv_bytes_per_token;      /* one token, every layer of the rank */
    vp_kv_layout layout;
    /* llama.cpp */
    int64_t n_gpu_layers, offloaded_layers;
    uint64_t model_buffer_gpu_bytes, model_buffer_cpu_bytes, compute_buffer_bytes, kv_k_bytes, kv_v_bytes;
    int64_t ctx_cells;
    int fits;                        /* the KV cache holds at least one max_model_len request */
    char note[256];
} vp_serve_result;

/* One engine's startup arithmetic. gpu_total_bytes: what CUDA reports as total memory of one GPU. */
vp_status vp_serve_compute(const vp_serve_model *m, const vp_serve_settings *s, uint64_t gpu_total_bytes,
                           vp_serve_result *out, vp_error *err);
vp_status vp_serve_vllm(const vp_serve_model *m, const vp_serve_settings *s, uint64_t gpu_total_bytes,
                        vp_serve_result *out, vp_error *err);
vp_status vp_serve_sglang(const vp_serve_model *m, const vp_serve_settings *s, uint64_t gpu_total_bytes,
                          vp_serve_result *out, vp_error *err);
vp_status vp_serve_llamacpp(const vp_serve_model *m, const vp_serve_settings *s, uint64_t gpu_total_bytes,
                            vp_serve_result *out, vp_error *err);

/* CUDA context and allocator state before an engine loads anything (our H100 probe: 0.51 GiB used
 * at vLLM's startup, "Free memory on device (78.68/79.19 GiB)"). */
#define VP_SERVE_CONTEXT_BYTES 547618816ULL /* 0.51 GiB */

#endif
