/* layer_map.c: one bit per decoder layer (vp_layer_map in arch.h). The family readers mark which
 * layers slide, attend in chunks (attn_local.c) or hold experts (decoder_read.c, deepseek.c,
 * llama4.c); the counts they report (sliding_layers, chunked_layers, moe_layers) are the maps'
 * populations, and the serving engines read the maps layer by layer (serve_model.c: vLLM builds
 * one KV-cache spec per layer and splits layers over pipeline stages by position). */
#include "arch.h"

void vp_layer_map_set(vp_layer_map *m, int64_t i) {
    if (i >= 0 && i < VP_ARCH_MAX_LAYERS) m->w[i / 64] |= (uint64_t)1 << (i % 64);
}

int vp_layer_map_has(const vp_layer_map *m, int64_t i) {
    return i >= 0 && i < VP_ARCH_MAX_LAYERS && ((m->w[i / 64] >> (i % 64)) & 1);
}

int64_t vp_layer_map_count(const vp_layer_map *m, int64_t n) {
    int64_t c = 0;
    for (int64_t i = 0; i < n && i < VP_ARCH_MAX_LAYERS; i++) c += vp_layer_map_has(m, i);
    return c;
}

void vp_layer_map_fill(vp_layer_map *m, int64_t n) {
    for (int64_t i = 0; i < n && i < VP_ARCH_MAX_LAYERS; i++) vp_layer_map_set(m, i);
}
