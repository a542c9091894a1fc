/* kv_local.h: how many tokens the generate cache (transformers DynamicCache) keeps in the layers that
 * attend locally (sliding-window or chunked attention), read from vp_arch by kv_local.c. */
#ifndef VP_KV_LOCAL_H
#define VP_KV_LOCAL_H

#include <stdint.h>

#include "arch.h"

/* Layers whose cache is a DynamicSlidingWindowLayer (0 when the model has none). */
int64_t vp_kv_local_layers(const vp_arch *a);
/* That layer's sliding_window: DynamicCache passes `sliding_window or attention_chunk_size`. */
int64_t vp_kv_local_window(const vp_arch *a);
/* Tokens per sequence whose K,V storage a local layer holds after a decode step that has seen
 * `ctx` tokens per sequence: min(ctx, window). */
double vp_kv_local_tokens(const vp_arch *a, double ctx);
/* Is layer l (of n cached layers, local of them local) a local one: spread evenly, for the replay. */
int vp_kv_layer_is_local(int64_t l, int64_t n, int64_t local);

#endif
