/* serve_kv_spec.c: vLLM V1's per-layer KV-cache specs, their pages, and how vLLM groups layers of
 * different kinds into KV-cache groups that share one pool.
 *
 * vllm/v1/kv_cache_interface.py:
 *   AttentionSpec.page_size_bytes = 2 · block_size · num_kv_heads · head_size · dtype_size
 *   MLAAttentionSpec.page_size_bytes = block_size · (kv_lora_rank + qk_rope_head_dim) · dtype_size
 *     (one latent vector per token, no separate V)
 *   FullAttentionSpec.max_memory_usage_bytes = cdiv(max_model_len, block_size) · page
 *   SlidingWindowSpec: tokens = min(sliding_window - 1 + max_num_batched_tokens, max_model_len),
 *     (cdiv(tokens, block_size) + 1) · page
 *   ChunkedLocalAttentionSpec: tokens = min(attention_chunk_size + max_num_batched_tokens, max_model_len),
 *     cdiv(tokens, block_size) · page
 * vllm/v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size(): layers of one spec form
 *   groups of group_size layers, group_size = the smallest type's layer count (or the largest when
 *   max < 1.25 · min); each type gives cdiv(n, group_size) groups. The pool is group_size tensors of
 *   num_blocks pages (get_num_blocks: available // page // group_size); every group draws blocks
 *   from it. */
#include <string.h>

#include "serve.h"

static int64_t cdiv(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

void vp_vllm_kv_layout(const vp_serve_model *m, const vp_serve_settings *s, int64_t first, int64_t n,
                       vp_kv_layout *o) {
    memset(o, 0, sizeof *o);
    int64_t tp = s->tp > 0 ? s->tp : 1;
    int kvb = s->kv_cache_bytes ? s->kv_cache_bytes : (s->dtype_bytes ? s->dtype_bytes : m->dtype_bytes);
    if (kvb <= 0) kvb = 2;
    o->block_size = s->block_size > 0 ? s->block_size : 16; /* CacheConfig block_size: 16 on CUDA */
    int64_t kvh = vp_kv_heads_per_rank(m->kv_heads, tp);
    int64_t per_tok_layer = m->kv_lora_rank ? (m->kv_lora_rank + m->qk_rope_dim) * kvb : 2 * kvh * m->head_dim * kvb;
    o->page_bytes = o->block_size * per_tok_layer;
    for (int64_t i = first; i < first + n && i < VP_SERVE_MAX_LAYERS; i++) {
        switch ((vp_layer_attn)m->attn[i]) {
        case VP_LAYER_FULL: o->n_full++; break;
        case VP_LAYER_SLIDING: o->n_sliding++; break;
        case VP_LAYER_CHUNKED: o->n_chunked++; break;
        case VP_LAYER_MLA: o->n_mla++; break;
        }
    }
    o->bytes_per_token = per_tok_layer * n;
    int counts[4] = {o->n_full, o->n_sliding, o->n_chunked, o->n_mla};
    int types = 0, mn = 0, mx = 0;
    for (int k = 0; k < 4; k++) {
        if (!counts[k]) continue;
        if (!types || counts[k] < mn) mn = counts[k];
        if (counts[k] > mx) mx = counts[k];
        types++;
    }
    if (types == 0) return;
    if (types == 1) {
        o->group_size = mx; /* one UniformTypeKVCacheSpecs group of every layer */
        o->n_groups = 1;
    } else {
        o->group_size = mn;
        if (mx < mn * 1.25) o->group_size = mx;
        for (int k = 0; k < 4; k++)
            if (counts[k]) o->n_groups += (int)cdiv(counts[k], o->group_size);
    }
    /* blocks one request of max_model_len needs: Σ over groups of its spec's blocks
     * (get_max_concurrency_for_kv_cache_config: group_size · Σ usage / (page · group_size)) */
    int64_t len = s->max_model_len, bt = s->max_num_batched_tokens, bs = o->block_size;
    int64_t full = cdiv(len, bs);
    int64_t sw = m->sliding_window > 0 ? m->sliding_window - 1 + bt : len;
    int64_t sliding = cdiv(sw < len ? sw : len, bs) + 1;
    int64_t ch = m->chunk_size > 0 ? m->chunk_size + bt : len;
    int64_t chunked = cdiv(ch < len ? ch : len, bs);
    int64_t per_type[4] = {full, sliding, chunked, full};
    for (int k = 0; k < 4; k++) {
        if (!counts[k]) continue;
        int64_t groups = types == 1 ? 1 : cdiv(counts[k], o->group_size);
        o->blocks_per_request += groups * per_type[k];
    }
}
