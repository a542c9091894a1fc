/* serve_vllm.c: what vLLM V1 (0.1x) prints at startup, from the model and the settings.
 *
 * vllm/v1/worker/gpu_worker.py determine_available_memory():
 *   requested_memory = total GPU memory × gpu_memory_utilization
 *   non_kv_cache_memory = weights_memory + torch_peak_increase + non_torch_increase
 *     (+ the CUDA-graph estimate only with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1, off in 0.19:
 *      graphs are captured after the KV cache is allocated, "Graph capturing finished ... took")
 *   available_kv_cache_memory = requested_memory - non_kv_cache_memory
 * The torch peak comes from gpu_model_runner.py profile_run(): one dummy forward of
 * max_num_batched_tokens tokens, then _dummy_sampler_run() over min(max_num_seqs, tokens) rows of
 * logits. vllm/v1/core/kv_cache_utils.py turns the available memory into blocks, tokens
 * ("GPU KV cache size: N tokens") and "Maximum concurrency for L tokens per request: X". With
 * pipeline parallelism each stage sizes its own pool and the engine keeps the smallest block count. */
#include <stdio.h>
#include <string.h>

#include "serve.h"
#include "util.h"

static int64_t cdiv(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

/* Non-torch memory that the profile run adds (cuBLAS workspace; with TP>1 NCCL channel buffers and
 * vLLM's custom all-reduce IPC buffers). Measured, not derived: vLLM 0.19 startup logs on H100 of
 * the llm-d-planner sweep (../shared/groundtruth/serving; 0.24-0.27 GiB at TP=1 for every model,
 * 2.06-2.21 GiB at TP=2/4, 0.07 GiB per pipeline stage at TP=1). */
static uint64_t non_torch_bytes(int64_t tp, int64_t pp) {
    if (tp > 1) return (uint64_t)((2.0 + 0.035 * (double)tp) * VP_GIB);
    if (pp > 1) return (uint64_t)(0.07 * VP_GIB);
    return (uint64_t)(0.25 * VP_GIB);
}

/* Fused-MoE workspace per token: the modular fused_moe kernels draw workspace13 [T, top_k,
 * max(2·I/tp, h)] and workspace2 [T, top_k, I/tp] from vLLM's workspace manager
 * (vllm/v1/worker/workspace.py), which keeps the buffers the profile run sized (lock_workspace in
 * gpu_model_runner.py): they stay allocated through the sampler run. In elements per token. */
static double moe_workspace(const vp_serve_model *m, int64_t tp) {
    if (!m->experts) return 0;
    double ei = (double)cdiv(m->expert_inter, tp), k = (double)m->experts_per_tok, h = (double)m->hidden;
    return k * ((2 * ei > h ? 2 * ei : h) + ei);
}

/* The dummy forward's peak at T tokens: the hidden states and the residual stream with the
 * embedding output and the normed input ([T, h] each, 4 in all), and the widest block
 * intermediate: attention (qkv output + attention output), the MLP (gate_up output + activation,
 * MergedColumnParallelLinear / SiluAndMul), or the fused-MoE workspace. */
static double forward_peak(const vp_serve_model *m, int64_t tp, int dt, int64_t T, int moe_on_stage) {
    double h = (double)m->hidden, qh = (double)(m->heads / tp > 0 ? m->heads / tp : 1);
    double kvh = (double)vp_kv_heads_per_rank(m->kv_heads, tp), hd = (double)m->head_dim;
    double attn;
    if (m->kv_lora_rank)
        attn = qh * hd + qh * (double)(m->qk_nope_dim + m->v_head_dim) + qh * (double)m->v_head_dim;
    else
        attn = (qh + 2 * kvh) * hd + qh * hd;
    double f = (double)cdiv(m->inter, tp);
    double mlp = m->gated_mlp ? 3 * f : 2 * f;
    double moe = moe_on_stage ? moe_workspace(m, tp) : 0;
    double widest = attn > mlp ? attn : mlp;
    if (moe > widest) widest = moe;
    return (double)T * (4 * h + widest) * dt;
}

/* _dummy_sampler_run: compute_logits gives [R, vocab] in the model dtype (gathered over TP ranks),
 * Sampler.forward casts it to fp32, and the top-k/top-p path (topk_topp_sampler.py
 * apply_top_k_top_p) holds a sorted fp32 copy and an fp32 softmax of it: 12 bytes per logit beside
 * the model-dtype logits. The dummy run's hidden states ([T, h]: output, residual, gathered rows)
 * and the fused-MoE workspace stay alive meanwhile. */
static double sampler_peak(const vp_serve_model *m, int64_t tp, int dt, int64_t T, int64_t R) {
    return (double)T * ((double)m->hidden * 3 + moe_workspace(m, tp)) * dt + (double)R * (double)m->vocab * (dt + 12);
}

vp_status vp_serve_vllm(const vp_serve_model *m, const vp_serve_settings *s, uint64_t total, vp_serve_result *o,
                        vp_error *err) {
    int64_t tp = s->tp > 0 ? s->tp : 1, pp = s->pp > 0 ? s->pp : 1;
    int dt = s->dtype_bytes ? s->dtype_bytes : m->dtype_bytes;
    if (dt <= 0) dt = 2;
    if (m->heads % tp != 0)
        return vp_fail(err, VP_ERR_RANGE, "parallel.tp",
                       "tensor parallel size %lld must divide num_attention_heads = %lld (vLLM: \"Total number of "
                       "attention heads must be divisible by tensor parallel size\")",
                       (long long)tp, (long long)m->heads);
    if (pp > m->layers)
        return vp_fail(err, VP_ERR_RANGE, "parallel.pp", "pipeline parallel size %lld exceeds the %lld layers",
                       (long long)pp, (long long)m->layers);
    double util = s->gpu_memory_utilization > 0 ? s->gpu_memory_utilization : 0.9;
    int64_t T = s->max_num_batched_tokens > 0 ? s->max_num_batched_tokens : 8192;
    int64_t R = s->max_num_seqs > 0 ? s->max_num_seqs : 1024;
    if (R > T) R = T;
    o->budget_bytes = (uint64_t)((double)total * util);
    o->non_torch_bytes = non_torch_bytes(tp, pp);
    int64_t best_blocks = -1;
    for (int64_t r = 0; r < pp; r++) {
        vp_rank_weights w;
        vp_serve_rank_weights(m, s, r, &w);
        int moe_here = 0;
        for (int64_t i = w.first_layer; i < w.first_layer + w.layers_on_rank && i < VP_SERVE_MAX_LAYERS; i++)
            moe_here |= m->moe[i];
        double fwd = forward_peak(m, tp, dt, T, moe_here);
        double smp = r == pp - 1 ? sampler_peak(m, tp, dt, T, R) : 0;
        double act = fwd > smp ? fwd : smp;
        double avail = (double)o->budget_bytes - (double)w.total - act - (double)o->non_torch_bytes;
        vp_kv_layout lay;
        vp_vllm_kv_layout(m, s, w.first_layer, w.layers_on_rank, &lay);
        int64_t blocks = avail > 0 && lay.page_bytes > 0 && lay.group_size > 0
                             ? (int64_t)(avail / (double)lay.page_bytes) / lay.group_size
                             : 0;
        if (r == 0) { /* rank 0 of the first stage is what the log's per-worker lines show */
            o->weights_bytes_per_gpu = (uint64_t)w.total;
            o->activation_peak_bytes = (uint64_t)act;
            o->forward_peak_bytes = (uint64_t)fwd;
            o->sampler_peak_bytes = (uint64_t)smp;
            o->kv_cache_bytes_per_gpu = avail > 0 ? (uint64_t)avail : 0;
            o->layout = lay;
            o->kv_bytes_per_token = lay.bytes_per_token;
        }
        if (best_blocks < 0 || blocks < best_blocks) best_blocks = blocks;
    }
    o->num_gpu_blocks = best_blocks < 0 ? 0 : best_blocks;
    int groups = o->layout.n_groups > 0 ? o->layout.n_groups : 1;
    /* kv_cache_utils.py: num_tokens = num_blocks // len(kv_cache_groups) * min_block_size */
    o->kv_cache_tokens = o->num_gpu_blocks / groups * o->layout.block_size;
    o->max_concurrency = o->layout.blocks_per_request > 0
                             ? (double)o->num_gpu_blocks / (double)o->layout.blocks_per_request
                             : 0;
    o->fits = o->layout.blocks_per_request > 0 && o->num_gpu_blocks >= o->layout.blocks_per_request;
    o->cuda_graph_bytes = 0;
    if (m->max_positions > 0 && s->max_model_len > m->max_positions) {
        /* vllm/config/model.py _get_and_verify_max_len: a longer max_model_len than the model's derived
         * one (max_position_embeddings) is refused at startup */
        o->fits = 0;
        snprintf(o->note, sizeof o->note,
                 "vLLM refuses max_model_len %lld: greater than the derived max_model_len (max_position_embeddings=%lld)",
                 (long long)s->max_model_len, (long long)m->max_positions);
    } else if (!o->fits && o->kv_cache_bytes_per_gpu == 0)
        snprintf(o->note, sizeof o->note,
                 "vLLM cannot start: weights, profile peak and non-torch memory already exceed gpu_memory_utilization × "
                 "total; use more GPUs (tensor_parallel_size) or a quantized checkpoint");
    else if (!o->fits)
        snprintf(o->note, sizeof o->note,
                 "vLLM stops: the KV cache holds %lld tokens, fewer than one request of max_model_len %lld needs "
                 "(\"ValueError: To serve at least one request ... increase gpu_memory_utilization or decrease max_model_len\")",
                 (long long)o->kv_cache_tokens, (long long)s->max_model_len);
    else
        snprintf(o->note, sizeof o->note,
                 "CUDA graphs (%s) are captured after the KV cache is sized; vLLM 0.19 does not subtract them "
                 "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0), they take part of the %.0f%% left outside gpu_memory_utilization.",
                 s->enforce_eager ? "off: --enforce-eager" : "FULL_AND_PIECEWISE", 100.0 * (1.0 - util));
    return VP_OK;
}
