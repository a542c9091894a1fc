/* serve_llamacpp.c: what llama.cpp (llama-server / llama-cli) allocates on the GPU.
 *  - Model buffers: every tensor of the GGUF file with the type llama-quant.cpp gave it
 *    (gguf_types.c); src/llama-model.cpp load_tensors(): the input layer (token_embd) always stays
 *    on the CPU, repeating layers il >= n_layer - n_gpu_layers go to the GPU, and the output layer
 *    (output_norm, output) when n_gpu_layers > n_layer ("offloaded 33/33 layers to GPU"). A model
 *    without output.weight uses token_embd for it (TENSOR_DUPLICATED), a second copy on the GPU.
 *  - KV cache: src/llama-kv-cache.cpp: per layer K [n_embd_k_gqa, kv_size] of cache_type_k and V of
 *    cache_type_v (ggml_row_size), on the device of the layer (offload_kqv); kv_size = n_ctx padded to
 *    get_padding() (256 with flash attention, else 32). Sliding-window layers (llama-kv-cache-iswa.cpp)
 *    keep min(kv_size, GGML_PAD(n_swa·n_seq_max + n_ubatch, pad)) cells.
 *  - Compute buffer: ggml-alloc's worst-case graph at n_ubatch; without flash attention the
 *    [kv_size, n_ubatch, n_head] fp32 attention scores dominate, with the [n_vocab, n_ubatch] fp32
 *    logits when the output layer is offloaded (an approximation of the graph allocator). */
#include <stdio.h>
#include <string.h>

#include "gguf_types.h"
#include "serve.h"
#include "util.h"

static int64_t pad(int64_t x, int64_t n) { return (x + n - 1) / n * n; }

typedef struct {
    const vp_serve_model *m;
    int ft, is_70b;
    int64_t n_gqa;
    int64_t gpu, cpu;
} gacc;

/* one tensor of ne1 rows of ne0 columns (× ne2 experts); 1-D tensors are F32 */
static void tensor(gacc *a, vp_gguf_tensor t, int64_t ne0, int64_t ne1, int64_t ne2, int64_t il, int on_gpu) {
    int ty = vp_gguf_tensor_type(a->ft, t, ne0, il, a->m->layers, a->n_gqa, a->m->experts, a->is_70b);
    int64_t b = ne1 * vp_ggml_row_size(ty, ne0) * ne2;
    b = pad(b, 32); /* GGUF tensor data alignment (general.alignment = 32) */
    if (on_gpu) a->gpu += b;
    else a->cpu += b;
}
static void f32(gacc *a, int64_t n, int on_gpu) {
    int64_t b = pad(n * 4, 32);
    if (on_gpu) a->gpu += b;
    else a->cpu += b;
}

static void layer(gacc *a, int64_t il, int g) {
    const vp_serve_model *m = a->m;
    int64_t h = m->hidden, hd = m->head_dim, q = m->heads * hd, kv = m->kv_heads * hd;
    f32(a, (int64_t)m->norms_per_layer * h * (m->layernorm ? 2 : 1), g);
    int fused = !strcmp(m->model_type, "phi3"); /* phi3: attn_qkv and a fused ffn_up (gate + up) */
    if (m->kv_lora_rank) {
        int64_t qk = m->qk_nope_dim + m->qk_rope_dim;
        if (m->q_lora_rank) {
            tensor(a, VP_GT_OTHER_2D, h, m->q_lora_rank, 1, il, g);
            f32(a, m->q_lora_rank, g);
            tensor(a, VP_GT_ATTN_Q, m->q_lora_rank, m->heads * qk, 1, il, g);
        } else {
            tensor(a, VP_GT_ATTN_Q, h, m->heads * qk, 1, il, g);
        }
        tensor(a, VP_GT_OTHER_2D, h, m->kv_lora_rank + m->qk_rope_dim, 1, il, g);
        f32(a, m->kv_lora_rank, g);
        tensor(a, VP_GT_OTHER_2D, m->kv_lora_rank, m->heads * (m->qk_nope_dim + m->v_head_dim), 1, il, g);
        tensor(a, VP_GT_ATTN_OUTPUT, m->heads * m->v_head_dim, h, 1, il, g);
    } else {
        if (fused) tensor(a, VP_GT_ATTN_QKV, h, q + 2 * kv, 1, il, g);
        else {
            tensor(a, VP_GT_ATTN_Q, h, q, 1, il, g);
            tensor(a, VP_GT_ATTN_K, h, kv, 1, il, g);
            tensor(a, VP_GT_ATTN_V, h, kv, 1, il, g);
        }
        if (m->qkv_bias) f32(a, q + 2 * kv, g);
        tensor(a, VP_GT_ATTN_OUTPUT, q, h, 1, il, g);
        if (m->o_bias) f32(a, h, g);
        if (m->qk_norm) f32(a, m->qk_norm_full ? q + kv : 2 * hd, g);
        if (m->attn_sinks) f32(a, m->heads, g);
    }
    if (m->experts && m->moe[il]) {
        int64_t e = m->experts, ei = m->expert_inter;
        tensor(a, VP_GT_FFN_GATE_INP, h, e, 1, il, g);
        if (m->router_score_bias) f32(a, e, g); /* llama-model.cpp deepseek2 ffn_exp_probs_b [n_expert] */
        tensor(a, VP_GT_FFN_GATE_EXPS, h, ei, e, il, g);
        tensor(a, VP_GT_FFN_UP_EXPS, h, ei, e, il, g);
        tensor(a, VP_GT_FFN_DOWN_EXPS, ei, h, e, il, g);
        if (m->expert_bias) f32(a, e * (2 * ei + h), g);
        if (m->shared_inter) {
            tensor(a, VP_GT_FFN_GATE, h, m->shared_inter, 1, il, g);
            tensor(a, VP_GT_FFN_UP, h, m->shared_inter, 1, il, g);
            tensor(a, VP_GT_FFN_DOWN, m->shared_inter, h, 1, il, g);
        }
    } else if (fused) {
        tensor(a, VP_GT_FFN_UP, h, 2 * m->inter, 1, il, g);
        tensor(a, VP_GT_FFN_DOWN, m->inter, h, 1, il, g);
    } else {
        if (m->gated_mlp) tensor(a, VP_GT_FFN_GATE, h, m->inter, 1, il, g);
        tensor(a, VP_GT_FFN_UP, h, m->inter, 1, il, g);
        tensor(a, VP_GT_FFN_DOWN, m->inter, h, 1, il, g);
        if (m->mlp_bias) f32(a, m->inter + h, g);
    }
}

/* Model buffers on the GPU and in CPU memory for n_gpu_layers. */
void vp_llamacpp_model_buffers(const vp_serve_model *m, int ft, int64_t ngl, int64_t *gpu, int64_t *cpu);
void vp_llamacpp_model_buffers(const vp_serve_model *m, int ft, int64_t ngl, int64_t *gpu, int64_t *cpu) {
    gacc a = {m, ft, 0, m->heads / (m->kv_heads > 0 ? m->kv_heads : 1), 0, 0};
    /* llama-model.cpp: LLM_TYPE_70B for 80-layer llama models (the attn_v bump of the recipe) */
    a.is_70b = m->layers == 80 && !strncmp(m->model_type, "llama", 5);
    int64_t L = m->layers, start = L - (ngl < 0 ? L + 1 : ngl);
    if (start < 0) start = 0;
    int out_gpu = ngl < 0 || ngl > L;
    for (int64_t il = 0; il < L && il < VP_SERVE_MAX_LAYERS; il++) layer(&a, il, il >= start);
    int64_t h = m->hidden, v = m->vocab;
    if (m->embed_norm) f32(&a, 2 * h, 0);          /* bloom token_embd_norm (weight, bias): the input layer, CPU */
    f32(&a, h * (m->layernorm ? 2 : 1), out_gpu); /* output_norm */
    if (m->lm_head_bias) f32(&a, v, out_gpu);      /* output.bias (phi2) */
    if (m->tie) {
        /* no output.weight: token_embd was quantized as the output tensor and is duplicated for it */
        tensor(&a, VP_GT_OUTPUT, h, v, 1, 0, 0);
        tensor(&a, VP_GT_OUTPUT, h, v, 1, 0, out_gpu);
    } else {
        tensor(&a, VP_GT_TOKEN_EMBD, h, v, 1, 0, 0);
        tensor(&a, VP_GT_OUTPUT, h, v, 1, 0, out_gpu);
    }
    *gpu = a.gpu;
    *cpu = a.cpu;
}

vp_status vp_serve_llamacpp(const vp_serve_model *m, const vp_serve_settings *s, uint64_t total, vp_serve_result *o,
                            vp_error *err) {
    (void)err;
    int ft = m->quant.method == VP_WQ_GGUF ? m->quant.gguf_ftype
             : (s->dtype_bytes ? s->dtype_bytes : m->dtype_bytes) == 4 ? VP_FT_ALL_F32 : VP_FT_F16;
    int64_t L = m->layers, ngl = s->n_gpu_layers;
    if (ngl < 0 || ngl > L + 1) ngl = L + 1;
    int64_t gpu = 0, cpu = 0;
    vp_llamacpp_model_buffers(m, ft, ngl, &gpu, &cpu);
    o->n_gpu_layers = ngl;
    o->offloaded_layers = ngl;
    o->model_buffer_gpu_bytes = (uint64_t)gpu;
    o->model_buffer_cpu_bytes = (uint64_t)cpu;
    o->weights_bytes_per_gpu = (uint64_t)gpu;
    int64_t ctx = s->ctx_size > 0 ? s->ctx_size : 4096;
    /* llama_kv_cache get_padding(): 256 with flash attention (its kernels read whole tiles), else 32 */
    int64_t npad = s->flash_attn ? 256 : 32;
    int64_t cells = pad(ctx, npad);
    int64_t ub = s->n_ubatch > 0 ? s->n_ubatch : 512, nseq = s->n_parallel > 0 ? s->n_parallel : 1;
    int tk = s->cache_type_k > 0 || s->cache_type_k == VP_GGML_F32 ? s->cache_type_k : VP_GGML_F16;
    int tv = s->cache_type_v > 0 || s->cache_type_v == VP_GGML_F32 ? s->cache_type_v : VP_GGML_F16;
    int64_t start = L - ngl < 0 ? 0 : L - ngl;
    int64_t k_embd = m->kv_lora_rank ? m->kv_lora_rank + m->qk_rope_dim : m->kv_heads * m->head_dim;
    int64_t v_embd = m->kv_lora_rank ? m->kv_lora_rank : m->kv_heads * m->v_head_dim;
    int64_t kb = 0, vb = 0;
    int64_t swa_cells = m->sliding_window > 0 ? pad(m->sliding_window * nseq + ub, npad) : cells;
    if (swa_cells > cells) swa_cells = cells;
    for (int64_t il = start; il < L && il < VP_SERVE_MAX_LAYERS; il++) {
        int64_t c = m->attn[il] == VP_LAYER_SLIDING ? swa_cells : cells;
        kb += c * vp_ggml_row_size(tk, k_embd);
        vb += c * vp_ggml_row_size(tv, v_embd);
    }
    o->ctx_cells = cells;
    o->kv_k_bytes = (uint64_t)kb;
    o->kv_v_bytes = (uint64_t)vb;
    o->kv_cache_bytes_per_gpu = (uint64_t)(kb + vb);
    o->kv_cache_tokens = cells;
    o->kv_bytes_per_token = L > 0 ? (vp_ggml_row_size(tk, k_embd) + vp_ggml_row_size(tv, v_embd)) * (L - start) : 0;
    o->max_model_len = cells / nseq;
    o->max_concurrency = (double)nseq;
    double logits = ngl > L ? (double)m->vocab * (double)ub * 4 : 0;
    double scores = s->flash_attn ? (double)ub * (double)(m->hidden + m->inter) * 4.0
                                  : (double)cells * (double)ub * (double)m->heads * 4.0;
    o->compute_buffer_bytes = ngl > 0 ? (uint64_t)(scores + logits) : 0;
    o->budget_bytes = total > VP_SERVE_CONTEXT_BYTES ? total - VP_SERVE_CONTEXT_BYTES : 0;
    uint64_t need = o->model_buffer_gpu_bytes + o->kv_cache_bytes_per_gpu + o->compute_buffer_bytes;
    o->fits = need <= o->budget_bytes;
    snprintf(o->note, sizeof o->note, "llama.cpp %s: %lld of %lld layers on the GPU%s; %lld KV cells.",
             vp_gguf_ftype_name(ft), (long long)(ngl > L ? L : ngl), (long long)L,
             ngl > L ? " with the output layer" : "", (long long)cells);
    return VP_OK;
}
