/* quant_weights.c: the bytes of weights each GPU of a vLLM / SGLang deployment holds, tensor by
 * tensor as the engines build their layers, stored as the checkpoint stores them.
 *
 * Splits (vllm/model_executor/layers/linear.py): QKVParallelLinear and MergedColumnParallelLinear
 * split their outputs over the TP ranks, RowParallelLinear its inputs; KV heads are replicated when
 * tp > num_key_value_heads (QKVParallelLinear num_kv_head_replicas = tp / kv_heads). FusedMoE keeps
 * every expert on every rank and splits intermediate_size_per_partition = moe_intermediate / tp.
 * VocabParallelEmbedding / ParallelLMHead pad the vocabulary to a multiple of 64
 * (vocab_parallel_embedding.py DEFAULT_VOCAB_PADDING_SIZE) and split it over the ranks.
 * Pipeline stages take layers as vllm/distributed/utils.py get_pp_indices() assigns them. */
#include <string.h>

#include "serve.h"

static int64_t cdiv(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

int64_t vp_kv_heads_per_rank(int64_t kv_heads, int64_t tp) {
    if (tp <= 1) return kv_heads;
    return kv_heads >= tp ? kv_heads / tp : 1; /* replicated: each rank keeps one whole KV head */
}

/* get_pp_indices: layers // pp each, the remainder given to the stages before the last one */
void vp_pp_layers(int64_t layers, int64_t pp, int64_t r, int64_t *first, int64_t *count) {
    if (pp < 1) pp = 1;
    int64_t per = layers / pp, rem = layers % pp, start = 0;
    for (int64_t k = 0; k <= r && k < pp; k++) {
        int64_t n = per + ((k >= pp - 1 - rem && k < pp - 1) ? 1 : 0);
        if (k == r) {
            *first = start;
            *count = n;
            return;
        }
        start += n;
    }
    *first = 0;
    *count = layers;
}

typedef struct {
    const vp_serve_model *m;
    const vp_wquant *q;
    int dt;      /* bytes of an unquantized element */
    int64_t largest_q; /* largest quantized weight tensor (Marlin's repack transient) */
    vp_rank_weights *w;
} acc;

/* One linear layer (count matrices of out × in on this rank, `shards` logical shards merged). */
static void linear(acc *a, int64_t in, int64_t out, int64_t count, int shards, int quantizable, int expert) {
    const vp_wquant *q = a->q;
    int64_t n = out * in * count;
    a->w->params += n;
    int quant = quantizable && q->method != VP_WQ_NONE && q->method != VP_WQ_GGUF && (!q->experts_only || expert);
    if (!quant) {
        a->w->linear_bytes += n * a->dt;
        return;
    }
    int64_t wb = 0, sb = 0;
    switch (q->method) {
    case VP_WQ_FP8:
        /* fp8.py Fp8LinearMethod: weight float8_e4m3fn; weight_scale fp32 per logical shard (per tensor),
         * per output channel, or weight_scale_inv per [block_n, block_k] tile */
        wb = n;
        if (q->fp8_scale == VP_FP8_PER_CHANNEL) sb = out * count * 4;
        else if (q->fp8_scale == VP_FP8_BLOCK) sb = cdiv(out, q->block_n) * cdiv(in, q->block_k) * count * 4;
        else sb = (int64_t)shards * count * 4;
        if (q->static_input_scale) sb += (int64_t)shards * count * 4;
        break;
    case VP_WQ_INT8:
        /* compressed_tensors_w8a8_int8.py: int8 weight, fp32 channel-wise weight_scale */
        wb = n;
        sb = (q->fp8_scale == VP_FP8_PER_CHANNEL ? out : shards) * count * 4;
        if (q->static_input_scale) sb += (int64_t)shards * count * 4;
        break;
    case VP_WQ_INT4: {
        /* gptq.py / awq.py / compressed_tensors_wNa16.py: qweight packs 8 int4 per int32 (in·out/2 bytes),
         * scales fp16 [in/group, out], qzeros int4 [in/group, out/8 int32] when asymmetric, g_idx int32 [in]
         * with act-order (gptq_marlin keeps g_idx and its sort indices). */
        int64_t groups = q->group_size > 0 ? cdiv(in, q->group_size) : 1;
        wb = n * q->bits / 8;
        sb = groups * out * count * 2;
        if (q->zero_point) sb += groups * out * count * q->bits / 8;
        if (q->act_order) sb += 2 * in * count * 4;
        if (q->marlin && out * in * q->bits / 8 * count > a->largest_q) a->largest_q = out * in * q->bits / 8 * count;
        break;
    }
    case VP_WQ_MXFP4:
        /* mxfp4.py Mxfp4MoEMethod: w13/w2 as uint8 pairs of e2m1 (in·out/2 bytes) + one e8m0 scale per 32 */
        wb = n / 2;
        sb = cdiv(in, q->group_size > 0 ? q->group_size : 32) * out * count;
        if (q->group_size == 16) sb += 4 * count; /* nvfp4: fp8 block scales + a global fp32 scale */
        break;
    default:
        wb = n * a->dt;
        break;
    }
    a->w->linear_bytes += wb;
    a->w->scale_bytes += sb;
}

static void other(acc *a, int64_t params, int bytes) {
    a->w->params += params;
    a->w->other_bytes += params * bytes;
}

static void layer(acc *a, int64_t i, int64_t tp) {
    const vp_serve_model *m = a->m;
    int64_t h = m->hidden, qh = m->heads / tp > 0 ? m->heads / tp : 1;
    int64_t kvh = vp_kv_heads_per_rank(m->kv_heads, tp), hd = m->head_dim;
    if (m->kv_lora_rank) {
        /* vllm deepseek_v2.py DeepseekV2MLAAttention */
        int64_t qk = m->qk_nope_dim + m->qk_rope_dim;
        if (m->q_lora_rank) {
            linear(a, h, m->q_lora_rank, 1, 1, 1, 0);               /* q_a_proj (replicated) */
            other(a, m->q_lora_rank, a->dt);                          /* q_a_layernorm */
            linear(a, m->q_lora_rank, qh * qk, 1, 1, 1, 0);          /* q_b_proj (column) */
        } else {
            linear(a, h, qh * qk, 1, 1, 1, 0);                        /* q_proj */
        }
        linear(a, h, m->kv_lora_rank + m->qk_rope_dim, 1, 1, 1, 0);   /* kv_a_proj_with_mqa (replicated) */
        other(a, m->kv_lora_rank, a->dt);                             /* kv_a_layernorm */
        linear(a, m->kv_lora_rank, qh * (m->qk_nope_dim + m->v_head_dim), 1, 1, 1, 0); /* kv_b_proj */
        linear(a, qh * m->v_head_dim, h, 1, 1, 1, 0);                 /* o_proj (row) */
    } else {
        int64_t qkv_out = (qh + 2 * kvh) * hd;
        linear(a, h, qkv_out, 1, 3, 1, 0); /* qkv_proj */
        if (m->qkv_bias) other(a, qkv_out, a->dt);
        linear(a, qh * hd, h, 1, 1, 1, 0); /* o_proj */
        if (m->o_bias) other(a, h, a->dt);
        /* q_norm / k_norm: RMSNorm(head_dim) each (qwen3.py); over every head and replicated (olmo2.py
         * Olmo2Attention: RMSNorm(hidden_size), RMSNorm(total_num_kv_heads · head_dim)); or one row per head
         * of this rank (commandr.py CohereAttention: LayerNorm(param_shape=(num_heads, head_dim))) */
        if (m->qk_norm)
            other(a, m->qk_norm_full == 2 ? (qh + kvh) * hd : m->qk_norm_full ? (m->heads + m->kv_heads) * hd : 2 * hd,
                  a->dt);
        if (m->attn_sinks) other(a, qh, 4); /* gpt_oss.py sinks: fp32 [heads/tp] */
    }
    if (m->experts && m->moe[i]) {
        int64_t ei = cdiv(m->expert_inter, tp), e = m->experts, he = h;
        if (a->q->method == VP_WQ_MXFP4 && a->q->experts_only) {
            /* mxfp4.py Mxfp4MoEMethod.create_weights on Hopper (Marlin / triton path): the per-rank
             * intermediate size is padded to a multiple of 128 and the hidden size to 256
             * (gpt-oss-20b: 2880 -> 2944 and 3072; checked on vLLM 0.19: 13.64 GiB at TP 1, 7.01 at TP 2) */
            ei = cdiv(ei, 128) * 128;
            he = cdiv(h, 256) * 256;
        }
        linear(a, he, 2 * ei, e, 2, 1, 1); /* FusedMoE w13_weight [E, 2·I/tp, h] */
        linear(a, ei, he, e, 1, 1, 1);     /* w2_weight [E, h, I/tp] */
        if (m->expert_bias) other(a, e * (2 * ei + h), a->dt);
        other(a, h * e + (m->router_bias ? e : 0), a->dt); /* router gate: ReplicatedLinear, not quantized */
        if (m->router_score_bias) other(a, e, 4); /* deepseek_v2.py: e_score_correction_bias, torch.float32 */
        if (m->shared_inter) {
            int64_t si = cdiv(m->shared_inter, tp);
            linear(a, h, 2 * si, 1, 2, 1, 0);
            linear(a, si, h, 1, 1, 1, 0);
            if (m->shared_gate) other(a, h, a->dt);
        }
    } else {
        int64_t f = cdiv(m->inter, tp);
        if (m->gated_mlp) {
            linear(a, h, 2 * f, 1, 2, 1, 0); /* gate_up_proj */
            linear(a, f, h, 1, 1, 1, 0);     /* down_proj */
        } else {
            linear(a, h, f, 1, 1, 1, 0);     /* fc1 */
            linear(a, f, h, 1, 1, 1, 0);     /* fc2 */
        }
        if (m->mlp_bias) other(a, f + h, a->dt);
    }
    other(a, (int64_t)m->norms_per_layer * h * (m->layernorm ? 2 : 1), a->dt);
}

void vp_serve_rank_weights(const vp_serve_model *m, const vp_serve_settings *s, int64_t pp_rank, vp_rank_weights *w) {
    memset(w, 0, sizeof *w);
    int64_t tp = s->tp > 0 ? s->tp : 1, pp = s->pp > 0 ? s->pp : 1;
    acc a = {m, &m->quant, s->dtype_bytes ? s->dtype_bytes : m->dtype_bytes, 0, w};
    if (a.dt <= 0) a.dt = 2;
    vp_pp_layers(m->layers, pp, pp_rank, &w->first_layer, &w->layers_on_rank);
    for (int64_t i = w->first_layer; i < w->first_layer + w->layers_on_rank && i < VP_SERVE_MAX_LAYERS; i++)
        layer(&a, i, tp);
    int64_t vpad = cdiv(m->vocab, 64) * 64, vrank = cdiv(vpad, tp);
    int first = pp_rank == 0, last = pp_rank == pp - 1;
    if (first) {
        w->embed_bytes = vrank * m->hidden * a.dt;
        w->params += vrank * m->hidden;
        if (m->positions) other(&a, m->positions * m->hidden, a.dt); /* gpt2.py wpe: nn.Embedding, replicated */
        if (m->embed_norm) other(&a, 2 * m->hidden, a.dt);          /* bloom.py word_embeddings_layernorm */
    }
    if (last) {
        if (!m->tie || !first) {
            w->lm_head_bytes = vrank * m->hidden * a.dt;
            w->params += vrank * m->hidden;
        }
        other(&a, m->hidden * (m->layernorm ? 2 : 1), a.dt); /* final norm */
        if (m->lm_head_bias) other(&a, vrank, a.dt);          /* phi.py ParallelLMHead(bias=True) */
    }
    if (first && m->vision_params) other(&a, cdiv(m->vision_params, tp), a.dt);
    /* RotaryEmbedding._compute_cos_sin_cache: [max_position, rotary_dim] in the default dtype */
    w->rope_bytes = m->rope_positions * m->rotary_dim * a.dt;
    /* gptq_marlin / awq_marlin process_weights_after_loading: the Marlin copy of a qweight exists next
     * to the original until replace_parameter frees it, so the load's peak holds one extra tensor */
    w->repack_bytes = a.largest_q;
    w->total = w->linear_bytes + w->scale_bytes + w->embed_bytes + w->lm_head_bytes + w->other_bytes + w->rope_bytes +
               w->repack_bytes;
}
