/* timeline_infer.c: the moments of `model.generate` (HF transformers, greedy, DynamicCache):
 * prefill runs the prompt through the blocks one at a time under no_grad (only one block's
 * temporaries alive) and fills the KV cache; each decode step appends one token to every layer's
 * cache with torch.cat (a new tensor while the old one is still referenced) and computes logits for
 * the last position only (logits_to_keep=1, memory-facts §5), copied to fp32 for sampling. */
#include <string.h>

#include "kv_local.h"
#include "ssm.h"
#include "timeline.h"
#include "util.h"
#include "vlm_images.h"

/* KV cache bytes per token per layer: K and V of a_kv heads × head_dim (memory-facts §7.1). */
static double kv_per_token_layer(const vp_plan *plan, const vp_instance *in) {
    return 2.0 * (double)(in->arch.kv_heads * in->arch.head_dim) * vp_dtype_bytes(plan->kv_dtype);
}

void vp_timeline_infer(const vp_plan *plan, vp_inst_calc *cs, int n, vp_sink *out) {
    if (vp_plan_is_diffusion(plan)) { vp_timeline_diffusion(plan, cs, n, out); return; } /* i12 */
    vp_moment *base = &out->work[0];
    vp_moment_init(base, "load");
    base->quiet = plan->quiet;
    for (int i = 0; i < n; i++) vp_add_resident(base, &cs[i], 0);
    vp_owner dev = {"", ""};
    vp_moment_add(base, &dev, "cublas_workspace", "cuBLAS workspace", vp_cublas_workspace_bytes(),
                  "32 MiB allocated by the first GEMM through PyTorch's allocator (measured, H100/PyTorch 2.11)");
    vp_sink_push(out, base);
    for (int i = 0; i < n; i++) {
        const vp_inst_calc *c = &cs[i];
        const vp_instance *in = c->in;
        if (in->activations == VP_ACT_NONE) continue;
        const vp_arch *a = &in->arch;
        double b = (double)plan->batch, s = (double)plan->seq, gen = (double)plan->new_tokens;
        double h = (double)a->hidden, f = (double)(a->experts ? a->expert_inter * a->experts_per_tok : a->inter);
        double adt = vp_dtype_bytes(vp_act_dtype(in));
        double L = (double)vp_kv_layers(a); /* Mamba layers keep no K,V (ssm.h) */
        double kvt = a->kind == VP_KIND_VIT || a->kind == VP_KIND_DIT || a->encoder_only ? 0.0 : kv_per_token_layer(plan, in);
        double T = (double)c->a.tokens; /* b·s for decoders; patches for vision, video+text for DiT */
        if (a->kind == VP_KIND_T5) {
            /* encoder-decoder generate: the encoder runs the prompt once; every decoder layer caches
             * the encoder output's K,V (cross-attention, seq tokens) and its own K,V per new token */
            T = b * s;
            L = (double)a->dec_layers;
        }
        double tp = c->act_div_shard; /* tensor parallelism splits heads (KV) and the MLP */
        kvt /= tp;
        L *= c->ds.layer_frac;
        /* Mamba layers: conv + SSM state per sequence, the same in prefill and decode (ssm_state.c) */
        double ssm_b = b * vp_ssm_state_bytes_per_seq(a, vp_dtype_bytes(plan->kv_dtype)) * c->ds.layer_frac / tp;
        /* prefill: cache of the prompt in every layer + one block's temporaries at its largest, inside
         * the MLP: act(gate), up and their product (gate is freed once act returns), beside the
         * residual stream, the normalized MLP input and the attention sum */
        vp_moment *p = &out->work[1];
        vp_moment_copy(p, base);
        vp_strlcpy(p->phase, "prefill", sizeof p->phase);
        char tok[24];
        vp_fmt_count(tok, sizeof tok, T);
        vp_moment_add(p, &c->owner, "kv_cache", "KV cache", (int64_t)(T * kvt * L),
                      "%s prompt tokens × %.0f B (K,V: 2 × %lld heads × %lld dims × %d B) × %.0f layers", tok, kvt,
                      (long long)a->kv_heads, (long long)a->head_dim, vp_dtype_bytes(plan->kv_dtype), L);
        vp_moment_add(p, &c->owner, "ssm_state", "Mamba conv + SSM state", (int64_t)ssm_b,
                      "%.0f sequences × %lld Mamba layers × (conv state + SSM state) × %d B, fixed size", b,
                      (long long)a->ssm_layers, vp_dtype_bytes(plan->kv_dtype));
        double per_tok = 3.0 * adt * f / tp + 3.0 * adt * h;
        double mixer_tok = vp_ssm_prefill_temp_per_token(a, adt) / tp + 3.0 * adt * h; /* Mamba blocks (ssm_state.c) */
        int mixer_wins = a->ssm && (a->ssm_layers >= a->layers || mixer_tok > per_tok); /* mamba, mamba2: no MLP */
        if (mixer_wins) per_tok = mixer_tok;
        vp_moment_add(p, &c->owner, "inference_temp", "Prefill temporaries", (int64_t)(T * per_tok),
                      mixer_wins ? "one block at a time: %s tokens × %.0f B (Mamba mixer in_proj, conv, scan outputs + hidden states)"
                                 : "one block at a time: %s tokens × %.0f B (MLP act, up, product + hidden states)",
                      tok, per_tok);
        /* a VLM's vision tower runs over the images first, one encoder block at a time; its peak stands
         * beside the KV cache only where it passes the decoder's own temporaries (vlm_images.c) */
        double vis_tok = 0, vis = vp_vision_infer_peak(plan, in, &vis_tok) - T * per_tok;
        if (vis > 0) {
            char vt[24];
            vp_fmt_count(vt, sizeof vt, vis_tok);
            vp_moment_add(p, &c->owner, "vision_tower", "Vision tower forward", (int64_t)vis,
                          "%s tower positions (%lld image(s) × batch) × one block's MLP temporaries + output, above the "
                          "decoder's prefill temporaries", vt, (long long)plan->images);
        }
        /* LlamaModel.forward keeps `inputs_embeds = self.embed_tokens(input_ids)` in a local variable
         * until it returns, and the rotary cos, sin (b, s, head_dim) in the model dtype serve every
         * block (H100 trace l1b-infer-b8p1024n256, run1: the embedding output, event 297, is freed only
         * at the end of the prefill forward, event 2366; cos and sin, events 324-325, likewise) */
        int dec = a->kind == VP_KIND_DECODER;
        int64_t embeds = dec ? (int64_t)(T * adt * h) : 0;
        int attends = dec && a->ssm_layers < a->layers; /* mamba, mamba2: no attention, no mask */
        /* no RoPE in Mamba or Jamba, nor in the encoders (learned or relative positions) */
        int64_t rope = dec && !a->ssm && !a->encoder_only ? (int64_t)(2.0 * T * (double)a->head_dim * adt) : 0;
        vp_moment_add(p, &c->owner, "prefill_inputs", "Prompt embeddings + RoPE cos/sin", embeds + rope,
                      "inputs_embeds %s tokens × %lld × %.0f B, alive through the prefill forward, + cos, sin", tok,
                      (long long)a->hidden, adt);
        /* Eager attention gets the causal mask materialized as (b, 1, s, s) in the model dtype
         * (masking_utils eager_mask); SDPA with an all-ones attention_mask gets none (sdpa_mask's
         * is_causal skip): the 32 MiB that stays allocated from the prefill on in the l1b trace (event
         * 313) is cuBLAS's workspace, made by the rotary embedding's matmul, counted at load. */
        int64_t mask = attends && in->attn == VP_ATTN_EAGER ? (int64_t)(b * s * s * adt) : 0;
        vp_moment_add(p, &c->owner, "attention_mask", "Causal mask", mask,
                      "(b, 1, s, s) = %.0f × %.0f² × %.0f B (eager attention), built once for the prompt", b, s, adt);
        vp_sink_push(out, p);
        /* the head: the blocks' temporaries are gone; the last position's logits and their fp32 copy */
        vp_moment *ph = &out->work[2];
        vp_moment_copy(ph, base);
        vp_strlcpy(ph->phase, "prefill", sizeof ph->phase);
        vp_moment_add(ph, &c->owner, "kv_cache", "KV cache", (int64_t)(T * kvt * L), "%s prompt tokens × %.0f B × %.0f layers",
                      tok, kvt, L);
        vp_moment_add(ph, &c->owner, "prefill_inputs", "Prompt embeddings + RoPE cos/sin", embeds + rope,
                      "alive until the prefill forward returns");
        vp_moment_add(ph, &c->owner, "ssm_state", "Mamba conv + SSM state", (int64_t)ssm_b,
                      "fixed size per sequence");
        double lg = b * (double)a->vocab * (adt + 4.0);
        if (a->encoder_only) {
            /* one forward, no sampling. BertModel returns last_hidden_state (T, h); the masked-LM head
             * (BertOnlyMLMHead: transform dense -> GELU -> LayerNorm, then the tied decoder) keeps the
             * transform's output beside the logits of every token (modeling_bert.py BertLMPredictionHead) */
            double out_h = T * h * adt;
            double mlm = a->encoder_mlm ? T * (double)a->vocab * adt + T * h * adt : 0.0;
            if (a->encoder_mlm)
                vp_moment_add(ph, &c->owner, "logits", "Masked-LM logits", (int64_t)(out_h + mlm),
                              "%s tokens × (%lld vocab + 2 × %lld hidden) × %.0f B: every token's logits, the head's "
                              "transform and the encoder output", tok, (long long)a->vocab, (long long)a->hidden, adt);
            else
                vp_moment_add(ph, &c->owner, "logits", "Last hidden state", (int64_t)out_h,
                              "%s tokens × %lld hidden × %.0f B: the encoder's output", tok, (long long)a->hidden, adt);
        } else {
            vp_moment_add(ph, &c->owner, "logits", "Last-token logits", (int64_t)lg,
                          "%.0f × %lld vocab × (%.0f B + 4 B fp32 copy for sampling)", b, (long long)a->vocab, adt);
        }
        vp_moment_add(ph, &c->owner, "attention_mask", "Causal mask", mask, "(b, 1, s, s), eager attention");
        vp_sink_push(out, ph);
        if (gen <= 0 || a->encoder_only) continue; /* an encoder does not generate */
        /* last decode step: full cache + the torch.cat copy of one layer's K or V */
        vp_moment *d = &out->work[3];
        vp_moment_copy(d, base);
        vp_strlcpy(d->phase, "decode", sizeof d->phase);
        double ctx = b * (s + gen);
        vp_fmt_count(tok, sizeof tok, ctx);
        /* sliding-window / chunked layers (DynamicSlidingWindowLayer) hold min(tokens, window) per
         * sequence from the first decode step on, the full layers everything (kv_local.c) */
        double loc = a->kind == VP_KIND_DECODER ? (double)vp_kv_local_layers(a) * c->ds.layer_frac : 0.0;
        double kept = b * vp_kv_local_tokens(a, s + gen);
        if (loc > 0)
            vp_moment_add(d, &c->owner, "kv_cache", "KV cache", (int64_t)(ctx * kvt * (L - loc) + kept * kvt * loc),
                          "%s tokens (prompt + generated) × %.0f B × %.0f full layers + %.0f tokens (window %lld) × "
                          "%.0f B × %.0f local layers", tok, kvt, L - loc, kept, (long long)vp_kv_local_window(a), kvt, loc);
        else
            vp_moment_add(d, &c->owner, "kv_cache", "KV cache", (int64_t)(ctx * kvt * L),
                          "%s tokens (prompt + generated) × %.0f B × %.0f layers", tok, kvt, L);
        vp_moment_add(d, &c->owner, "ssm_state", "Mamba conv + SSM state", (int64_t)ssm_b,
                      "fixed size per sequence: does not grow with the generated tokens");
        vp_moment_add(d, &c->owner, "inference_temp", "torch.cat copy", (int64_t)((loc < L ? ctx : kept) * kvt / 2.0),
                      "DynamicCache appends with torch.cat: one layer's K (or V) exists twice for a moment");
        vp_moment_add(d, &c->owner, "logits", "Last-token logits", (int64_t)lg,
                      "%.0f × %lld vocab × (%.0f B + 4 B fp32)", b, (long long)a->vocab, adt);
        vp_moment_add(d, &c->owner, "attention_mask", "Causal mask", mask,
                      "(b, 1, s, s) of the prompt (eager attention), kept to the end of generate");
        vp_sink_push(out, d);
    }
}
