/* events_infer.c: one `model.generate` call as the allocator sees it (HF transformers 5.x, greedy,
 * DynamicCache). Prefill runs the prompt block by block under no_grad; each layer's cache starts
 * as torch.cat([empty, k]) (cache_utils.py DynamicLayer.update), a copy of the projected K and V.
 * Every decode step then replaces each layer's K and V with torch.cat([K, k_new]): a new tensor one
 * token longer is allocated while the old one is still referenced, and the old one is freed. The
 * freed blocks are one token too short for the next step's request, so the cache keeps segments
 * that no later request fits: the reserved-but-unallocated memory of generate (measured 0.3-0.45 x
 * the KV cache, tests/groundtruth/h100-2026-11-23 traces). Logits: the last position only
 * (logits_to_keep=1), copied to fp32 for the logits processors, kept until the next step. */
#include <stdlib.h>
#include <string.h>

#include "kv_local.h"
#include "ssm.h"
#include "alloc_events.h"
#include "timeline.h"
#include "util.h"
#include "vlm_images.h"

/* KV bytes per token of one layer's K (or V): a_kv heads × head_dim (memory-facts §7.1). */
static double kv_half(const vp_plan *plan, const vp_inst_calc *c) {
    const vp_arch *a = &c->in->arch;
    return (double)(a->kv_heads * a->head_dim) * vp_dtype_bytes(plan->kv_dtype) / c->act_div_shard;
}

static void alloc_weights(vp_events *e, const vp_inst_calc *c) {
    if (!c->owns_weights) return;
    vp_tlist blk, pre, post;
    vp_block_param_tensors(c->in, &blk);
    vp_outer_param_tensors(c->in, &pre, &post);
    double nb = (double)vp_block_count(c->in) * c->ds.layer_frac;
    int64_t n = (int64_t)(nb + 0.5) > 0 ? (int64_t)(nb + 0.5) : 1;
    double total = 0;
    for (int k = 0; k < blk.n; k++) total += (double)blk.elems[k] * (double)n;
    for (int k = 0; k < pre.n; k++) total += (double)pre.elems[k];
    for (int k = 0; k < post.n; k++) total += (double)post.elems[k];
    double scale = total > 0 ? (double)c->ds.weights.bytes / total : 0;
    vp_ev_place_weights(e, c, &pre, &blk, &post, n, scale, 0, 0.0);
    vp_ev_alloc(e, c->ds.quant.bytes);
    vp_ev_alloc(e, c->ds.adapters.bytes);
}

typedef struct {
    int32_t *k, *v;
} cache_ev;

static void generate(const vp_plan *plan, const vp_inst_calc *c, vp_events *e) {
    const vp_instance *in = c->in;
    const vp_arch *a = &in->arch;
    double b = (double)plan->batch, s = (double)plan->seq;
    double adt = vp_dtype_bytes(vp_act_dtype(in));
    double h = (double)a->hidden / c->act_div_repl;
    double f = (double)(a->experts ? a->expert_inter * a->experts_per_tok : a->inter) / c->act_div_shard;
    int has_kv = a->kind != VP_KIND_VIT && a->kind != VP_KIND_DIT && !a->encoder_only; /* encoders: one forward */
    double T = (double)c->a.tokens;
    int64_t L = a->layers;
    if (a->kind == VP_KIND_T5) {
        T = b * s;
        L = a->dec_layers;
    }
    L = (int64_t)((double)L * c->ds.layer_frac + 0.5);
    if (L < 1) L = 1;
    double kvh = has_kv ? kv_half(plan, c) : 0.0;
    /* Mamba layers (mamba, mamba2, jamba): no K,V; a fixed conv + SSM state per sequence instead
     * (ssm_state.c). Their blocks replay as the shared block without a cache (rough temporaries);
     * Jamba's attention layers are taken as the first ones (only their count is kept). */
    int64_t L_kv = a->ssm ? (int64_t)((double)vp_kv_layers(a) * c->ds.layer_frac + 0.5) : L;
    double ssm_layer = a->ssm && a->ssm_layers > 0
                           ? b * vp_ssm_state_bytes_per_seq(a, vp_dtype_bytes(plan->kv_dtype)) / (double)a->ssm_layers /
                                 c->act_div_shard
                           : 0.0;
    cache_ev cache = {calloc((size_t)L, sizeof(int32_t)), calloc((size_t)L, sizeof(int32_t))};
    if (!cache.k || !cache.v) {
        free(cache.k);
        free(cache.v);
        e->failed = 1;
        return;
    }
    e->phase = VP_PH_PREFILL;
    /* t5: the encoder output and every decoder layer's cross-attention K,V over the prompt */
    if (a->kind == VP_KIND_T5) {
        vp_ev_alloc(e, (int64_t)(T * adt * h));
        for (int64_t l = 0; l < L; l++) {
            vp_ev_alloc(e, (int64_t)(T * kvh));
            vp_ev_alloc(e, (int64_t)(T * kvh));
        }
        T = b; /* the decoder starts from one token */
    }
    double qd = (double)(a->heads * a->head_dim) / c->act_div_shard;
    double kvd = (double)(a->kv_heads * a->head_dim) / c->act_div_shard;
    double in_b = (double)vp_dtype_bytes(vp_act_dtype(in));
    /* a VLM's vision tower runs over the batch's images first, under no_grad, one encoder block at a
     * time: its output, one block's temporaries (freed), then the projected image features that
     * masked_scatter writes into the embeddings (vlm_images.c) */
    double vis_tok = 0, vis = has_kv ? vp_vision_infer_peak(plan, in, &vis_tok) : 0.0;
    int32_t vis_feats = -1;
    if (vis > 0) {
        double vout = vis_tok * (double)a->vis_hidden * adt;
        int32_t vo = vp_ev_alloc(e, (int64_t)vout);
        vp_ev_free(e, vp_ev_alloc(e, (int64_t)(vis - vout)));
        vis_feats = vp_ev_alloc(e, (int64_t)(b * (double)plan->image_tokens * h * adt));
        vp_ev_free(e, vo);
    }
    int32_t cur = vp_ev_alloc(e, (int64_t)(T * h * adt)), prev = -1; /* embedding output */
    vp_ev_free(e, vis_feats);
    /* generate passes attention_mask, so the prompt's causal mask is materialized: (b, 1, s, s) at
     * 4 B per element, alive to the end of the call (measured: 33,554,432 B at b 8, s 1024 in the
     * H100 trace l1b-infer-b8p1024n256, never freed before generate returns) */
    if (a->kind == VP_KIND_DECODER && L_kv > 0 && !a->encoder_only) vp_ev_alloc(e, (int64_t)(b * s * s * 4.0)); /* not in mamba, mamba2 */
    /* LlamaRotaryEmbedding: emb = cat(freqs, freqs) and its cos, sin in fp32, cast to the model dtype
     * (b, s, head_dim), kept for every block of the prompt */
    int32_t cs[2] = {-1, -1};
    if (a->kind == VP_KIND_DECODER && !a->ssm && !a->encoder_only) { /* no RoPE in Mamba, Mamba2, Jamba or the encoders */
        double rot = T * (double)a->head_dim;
        int32_t emb = vp_ev_alloc(e, (int64_t)(rot * 4.0));
        int32_t c32 = vp_ev_alloc(e, (int64_t)(rot * 4.0)), s32 = vp_ev_alloc(e, (int64_t)(rot * 4.0));
        vp_ev_free(e, emb);
        cs[0] = vp_ev_alloc(e, (int64_t)(rot * adt));
        cs[1] = vp_ev_alloc(e, (int64_t)(rot * adt));
        vp_ev_free(e, s32);
        vp_ev_free(e, c32);
    }
    vp_block_dims d = {T, h, qd, kvd, f, adt, in_b, kvh, adt, 0, 0, 0, 0, NULL, {0}};
    for (int64_t l = 0; l < L; l++) {
        int32_t in_l = cur;
        d.kvh = l < L_kv ? kvh : 0.0;
        if (l >= L_kv) vp_ev_alloc(e, (int64_t)ssm_layer); /* conv + SSM state, kept to the end */
        cur = vp_ev_block_nograd(e, &d, cur, &cache.k[l], &cache.v[l]);
        /* a block's input outlives the next block: it is freed at that block's end (measured in the H100
         * trace of generate, l1b-infer-b8p1024n256) */
        vp_ev_free(e, prev);
        prev = in_l;
    }
    /* the final norm over the last hidden states, then the head over the last position */
    if (a->encoder_only) {
        /* encoders: no final norm (post-norm blocks); the output, and with the masked-LM head its
         * transform and the logits of every token (timeline_infer.c) */
        vp_ev_free(e, prev);
        if (a->encoder_mlm) {
            int32_t tr = vp_ev_alloc(e, (int64_t)(T * h * adt));
            int32_t lgt = vp_ev_alloc(e, (int64_t)(T * (double)a->vocab * adt));
            vp_ev_free(e, lgt);
            vp_ev_free(e, tr);
        }
        vp_ev_free(e, cur);
        free(cache.k);
        free(cache.v);
        return;
    }
    vp_ev_free(e, vp_ev_norm_nograd(e, T, h, adt, adt));
    vp_ev_free(e, prev);
    vp_ev_free(e, cur);
    vp_ev_free(e, cs[1]);
    vp_ev_free(e, cs[0]);
    double bv = b * (double)a->vocab;
    int32_t lg = vp_ev_alloc(e, (int64_t)(bv * adt));
    int32_t lg32 = vp_ev_alloc(e, (int64_t)(bv * 4.0));
    vp_ev_free(e, lg);
    if (!has_kv) {
        vp_ev_free(e, lg32);
        free(cache.k);
        free(cache.v);
        return;
    }
    e->phase = VP_PH_DECODE;
    double ctx = T;
    /* At most 128 decode steps are replayed: with more, each replayed step stands for `stride` real
     * ones and grows the cache by stride tokens at once (the same cat pattern: every freed block is
     * too short for the next request), ending on the exact final length. Measured: the reserved peak
     * of generate is set in prefill (l1b-infer trace), so the stride changes the replay's peak by
     * less than the cat copy of one layer. */
    /* sliding / chunked layers: from the first decode step the cat keeps min(seen, window) tokens per
     * sequence (kv_local.c); the prefill above kept the whole prompt's storage (a view of it) */
    int64_t n_loc = a->kind == VP_KIND_DECODER ? (int64_t)((double)vp_kv_local_layers(a) * c->ds.layer_frac + 0.5) : 0;
    int64_t steps = plan->new_tokens - 1;
    int64_t stride = steps > 128 ? (steps + 127) / 128 : 1;
    for (int64_t done = 0; done < steps && !e->failed;) {
        int64_t k = steps - done < stride ? steps - done : stride;
        done += k;
        ctx += b * (double)k;
        for (int64_t l = 0; l < L_kv; l++) {
            int32_t kn = vp_ev_alloc(e, (int64_t)(b * kvh)), vn = vp_ev_alloc(e, (int64_t)(b * kvh));
            double kept = vp_kv_layer_is_local(l, L_kv, n_loc) ? b * vp_kv_local_tokens(a, ctx / b) : ctx;
            int32_t k2 = vp_ev_alloc(e, (int64_t)(kept * kvh));
            vp_ev_free(e, cache.k[l]);
            cache.k[l] = k2;
            int32_t v2 = vp_ev_alloc(e, (int64_t)(kept * kvh));
            vp_ev_free(e, cache.v[l]);
            cache.v[l] = v2;
            vp_ev_free(e, kn);
            vp_ev_free(e, vn);
        }
        int32_t nl = vp_ev_alloc(e, (int64_t)(bv * adt));
        int32_t nl32 = vp_ev_alloc(e, (int64_t)(bv * 4.0));
        vp_ev_free(e, nl);
        vp_ev_free(e, lg32);
        lg32 = nl32;
    }
    free(cache.k);
    free(cache.v);
}

void vp_events_infer(const vp_plan *plan, const vp_inst_calc *cs, int n, vp_events *out) {
    if (vp_plan_is_diffusion(plan)) { vp_events_diffusion(plan, cs, n, out); return; } /* i12 (events_diffusion.c) */
    out->phase = VP_PH_LOAD;
    for (int i = 0; i < n; i++) alloc_weights(out, &cs[i]);
    vp_ev_alloc(out, vp_cublas_workspace_bytes());
    for (int i = 0; i < n && !out->failed; i++)
        if (cs[i].in->activations != VP_ACT_NONE) generate(plan, &cs[i], out);
}
