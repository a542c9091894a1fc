/* kv_local.c: the K,V that `generate` keeps in sliding-window and chunked-attention layers.
 *
 * transformers 5.x cache_utils.py (commit 004999d9): generate builds DynamicCache(config=text config)
 * (generation/utils.py _prepare_cache_for_generation: dynamic_cache_kwargs = {"config": ...}), and
 * DynamicCache.__init__ makes one DynamicSlidingWindowLayer(sliding_window = config.sliding_window or
 * config.attention_chunk_size) per layer_types entry "sliding_attention" or "chunked_attention"
 * ("from a cache point of view, both sliding and chunked are the same"), a DynamicLayer otherwise.
 *
 * DynamicSlidingWindowLayer.update:
 *     full_key_states = torch.cat([self.keys, key_states], dim=-2)
 *     self.keys = full_key_states[:, :, -self.sliding_window + 1 :, :]     (a view)
 *     return full_key_states, ...
 * The kept keys are a slice, a view of full_key_states: its whole storage stays allocated. So
 *   - after the prefill each local layer still holds the storage of the whole prompt (s tokens),
 *     exactly like a full layer: the prefill moment is unchanged;
 *   - at each decode step the cat makes a new tensor of min(seen, W - 1) + 1 tokens and the old
 *     storage is freed when self.keys is reassigned: from the first decode step on, a local layer
 *     holds min(tokens seen, W) tokens per sequence, a full layer (DynamicLayer) all of them. */
#include "kv_local.h"

int64_t vp_kv_local_layers(const vp_arch *a) {
    if (vp_kv_local_window(a) <= 0) return 0;
    int64_t n = (a->sliding_window > 0 ? a->sliding_layers : 0) + a->chunked_layers;
    return n < 0 ? 0 : (n > a->layers ? a->layers : n);
}

int64_t vp_kv_local_window(const vp_arch *a) {
    return a->sliding_window > 0 ? a->sliding_window : a->chunk_size; /* `sliding_window or attention_chunk_size` */
}

double vp_kv_local_tokens(const vp_arch *a, double ctx) {
    double w = (double)vp_kv_local_window(a);
    return w > 0 && ctx > w ? w : ctx;
}

int vp_kv_layer_is_local(int64_t l, int64_t n, int64_t local) {
    if (n <= 0 || local <= 0) return 0;
    if (local >= n) return 1;
    return ((l + 1) * local) / n > (l * local) / n;
}
