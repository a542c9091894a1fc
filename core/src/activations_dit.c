/* activations_dit.c: diffusion-pipeline components: the DiT transformers' blocks, and for the frozen
 * text encoders and VAEs the temporaries of their (no-grad) forward. */
#include <string.h>

#include "activations.h"
#include "diffusers.h"

/* Text tokens a pipeline feeds its encoder: the transformer's (max_sequence_length / max_text_seq_length)
 * when the plan has one, else the encoder's own context (CLIP 77) or the common 226/256. */
static int64_t text_tokens(const vp_plan *plan, const vp_instance *in) {
    const vp_arch *a = &in->arch;
    if (a->dclass == VP_DC_CLIP_TEXT) return a->d.text_len > 0 ? a->d.text_len : 77;
    if (a->dclass == VP_DC_CLIP_VISION) return a->d.text_len; /* one image's patches and class token (257 at 224 px / 14) */
    if (plan->diff.text_tokens > 0) return plan->diff.text_tokens; /* workload.diffusion.text_tokens */
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_arch *t = &plan->inst[i].arch;
        if (VP_DC_IS_DIT(t->dclass) && t->d.text_len > 0) {
            /* SD3: 77 CLIP + 256 T5 tokens; the T5 encoder sees its 256 */
            return t->dclass == VP_DC_SD3 ? t->d.text_len - 77 : t->d.text_len;
        }
    }
    return a->dclass == VP_DC_LLAMA_ENC ? 256 : 226;
}

/* A frozen text encoder's forward under no_grad, one block at a time (transformers modeling_t5.py /
 * modeling_clip.py / modeling_llama.py): the hidden states and the normalized copy, q, k, v and the
 * attention output, the MLP's activations (gated: gate, up, product), and T5's eager attention scores
 * (bf16 scores + the fp32 softmax, per head and token) and its (1, heads, s, s) fp32 position bias. */
static void text_encoder(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double adt = vp_dtype_bytes(vp_act_dtype(in));
    double h = (double)a->hidden, f = (double)a->inter, heads = (double)a->heads;
    int64_t s = text_tokens(plan, in);
    int gated = a->mlp == VP_MLP_GEGLU || a->mlp == VP_MLP_SWIGLU;
    double per = adt * (6.0 * h + (gated ? 3.0 : 2.0) * f);
    if (a->dclass == VP_DC_T5_ENC || a->dclass == VP_DC_UMT5_ENC) per += heads * (double)s * (adt + 4.0 + 4.0);
    r->tokens = plan->batch * s;
    r->layers = 0; /* never trained here: nothing saved for backward */
    r->fwd_temp = per;
    r->attn_kernel = a->dclass == VP_DC_T5_ENC || a->dclass == VP_DC_UMT5_ENC ? "eager" : "mem-efficient";
}

/* A frozen VAE in training encodes the batch's videos on the fly (latents not precomputed): the encoder's
 * conv stack at full resolution (vae.c); the estimate carries it as one "token". */
static void vae(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    double adt = vp_dtype_bytes(vp_act_dtype(in));
    int64_t f, h, w;
    vp_pipeline_size(plan, &f, &h, &w);
    vp_vae_peak pk;
    if (plan->mode == VP_MODE_TRAIN)
        vp_vae_encode_peak(a, plan->batch, f, h, w, adt, plan->diff.vae_tiling, plan->diff.vae_slicing, &pk);
    else
        vp_vae_decode_peak(a, plan->batch, f, h, w, adt, plan->diff.vae_tiling, plan->diff.vae_slicing, plan->diff.diffusers, &pk);
    r->tokens = 1;
    r->layers = 0;
    r->fwd_temp = pk.bytes + pk.out_bytes;
    r->attn_kernel = "mem-efficient";
}

/* The residual stream's dtype (bytes) in a DiT's blocks. With 16-bit weights it is theirs. Under autocast over
 * fp32 weights (amp_*), an LLM's stream stays fp32 (its embedding is a lookup of fp32 weights), but a DiT's
 * begins at a patch embedding that autocast runs in 16 bits (Conv2d / Conv3d / Linear: autocast_mode.cpp's
 * lower-precision list) and most blocks never promote it: the gated sums add 16-bit Linear outputs times 16-bit
 * modulations (CogVideoXBlock, HunyuanVideo / FLUX / SD3 blocks with AdaLayerNormZero), Wan casts back with
 * `.type_as(hidden_states)` (transformer_wan.py), Mochi's MochiModulatedRMSNorm returns its input's dtype, and
 * SD3's PatchEmbed adds its fp32 pos_embed with `.to(latent.dtype)` (embeddings.py). CogVideoX-2b adds its
 * sincos pos_embedding buffer, cast to the embeddings' dtype since diffusers PR #10156 (13 Dec 2024); before it,
 * at the model's native size the buffer was added as it was stored, 16-bit when the model was loaded in 16 bits
 * and only its trainable parameters upcast (cogvideox-factory's scripts, cast_training_params), which is the
 * case modelled. LTX-Video is the exception: its gates come from the fp32 `scale_shift_table` parameter plus the
 * timestep embedding (transformer_ltx.py LTXVideoTransformerBlock.forward), so `hidden_states + attn * gate_msa`
 * is fp32 from the first block on. A QLoRA base promotes it too: bitsandbytes' Linear4bit returns its input's
 * dtype (bitsandbytes nn/modules.py Linear4bit.forward, `.to(inp_dtype)`), and the modulated LayerNorm output it
 * receives is autocast's fp32, so the attention and FF outputs and the gated sums are fp32 (Wan's `.type_as` and
 * Mochi's norms cast the Linears' inputs back to the stream's 16 bits first). Checked against cogvideox-factory's
 * full fine-tuning tables and the FLUX QLoRA blog (tests `dit_amp_stream`, `published_within_10`, `legacy_deepspeed`). */
static double dit_stream_bytes(const vp_instance *in, const vp_act_dtypes *dt) {
    const vp_arch *a = &in->arch;
    if (!dt->amp || !a->dclass || a->dclass == VP_DC_LTX) return dt->res;
    if (in->ft == VP_FT_QLORA && a->dclass != VP_DC_WAN && a->dclass != VP_DC_MOCHI) return 4.0;
    return dt->adt;
}

/* What the q and k norms save, per token, for one of them (q and k are qdt-byte tensors, `rows` norms per token). CogVideoX:
 * nn.LayerNorm(head_dim), its input and fp32 mean and rstd per head (the autocast copy is added below). diffusers'
 * RMSNorm (normalization.py: `variance = hidden_states.to(torch.float32).pow(2).mean(...)`, then `hidden_states *
 * torch.rsqrt(...)` on the *original* input): pow saves the fp32 copy, the product saves the input itself and the fp32
 * rsqrt; an fp32 input is its own copy. HunyuanVideo and SD3 use it (Attention qk_norm "rms_norm"), and FLUX and
 * LTX-Video did until diffusers' attention refactor (their FluxAttention / LTXAttention, after 0.32, and Wan's
 * WanAttention hold torch.nn.RMSNorm, whose CUDA kernel aten::_fused_rms_norm saves the input and an fp32 rstd per
 * row). Mochi's MochiRMSNorm casts to fp32 first and normalizes the copy: the fp32 copy and rstd. */
static double qk_norm_saved(const vp_plan *plan, const vp_arch *a, double h, double heads, double qdt) {
    int across = a->dclass == VP_DC_WAN || a->dclass == VP_DC_LTX; /* "rms_norm_across_heads": one norm over h */
    double rows = across ? 1.0 : heads;
    int old = plan->diff.diffusers != VP_DIFFUSERS_CURRENT;
    int dc = a->dclass;
    if (dc == VP_DC_HUNYUAN || dc == VP_DC_SD3 || (old && (dc == VP_DC_FLUX || dc == VP_DC_LTX)))
        return 4.0 * h + (qdt < 4 ? qdt * h : 0) + 4.0 * rows;     /* diffusers' RMSNorm */
    if (dc == VP_DC_FLUX || dc == VP_DC_LTX || dc == VP_DC_WAN) return qdt * h + 4.0 * rows; /* torch.nn.RMSNorm */
    if (dc == VP_DC_MOCHI) return 4.0 * h + 4.0 * rows;            /* MochiRMSNorm */
    return qdt * h + 8.0 * heads; /* CogVideoX's LayerNorm(head_dim); a DiT without a class */
}

/* DiT blocks (diffusers cogvideox_transformer_3d.py CogVideoXBlock + CogVideoXAttnProcessor2_0, and the
 * same op sequence in transformer_wan.py, transformer_flux.py, transformer_sd3.py, transformer_hunyuan_video.py,
 * transformer_ltx.py, transformer_mochi.py). Per op: the adaptive norm = LayerNorm (saves its input) then
 * `* (1 + scale) + shift` (saves the normalized tensor only when scale needs a gradient, i.e. the block
 * trains); q, k, v Linears (save their shared input when they train); q/k norms (save their inputs); RoPE;
 * SDPA (q, k, v, out, fp32 LSE); `gate * attn_out` and `gate_ff * ff_out` save the other operand only when the
 * gate needs a gradient; FeedForward: Linear, GELU-tanh (saves its input), Linear. Cross-attention blocks
 * (Wan attn2, LTX attn2) add a norm, q and its norm, SDPA q/out/LSE over the video tokens (k, v are the few
 * text tokens). Bottleneck adapters save their input and hidden activation; LoRA its adapters' inputs and
 * rank-r intermediates (lora.c). */
void vp_acts_dit(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    const vp_arch *a = &in->arch;
    if (VP_DC_IS_TEXT(a->dclass)) {
        text_encoder(plan, in, r);
        return;
    }
    if (VP_DC_IS_VAE(a->dclass)) {
        vae(plan, in, r);
        return;
    }
    double h = (double)a->hidden, f = (double)a->inter, heads = (double)a->heads;
    int64_t tokens = plan->seq;
    if (a->dclass) {
        tokens = vp_dit_plan_tokens(plan, a);
    } else if (!tokens) {
        int64_t frames = (a->sample_frames - 1) / (a->temporal_compression > 0 ? a->temporal_compression : 1) + 1;
        int64_t p = a->patch_size > 0 ? a->patch_size : 1;
        tokens = frames * (a->sample_height / p) * (a->sample_width / p) + a->text_tokens;
    }
    const vp_act_dtypes dt = vp_act_dtypes_of(in);
    int full = dt.full;
    double adt = dt.adt, res = dit_stream_bytes(in, &dt);
    /* Wan's norms are FP32LayerNorm called on `hidden_states.float()` (transformer_wan.py WanTransformerBlock.forward:
     * `self.norm1(hidden_states.float())`, norm2 and norm3 alike): layer_norm saves that fp32 copy whatever the
     * stream's dtype */
    double norm_b = a->dclass == VP_DC_WAN ? 4.0 : res;
    const char *kern = vp_sdpa_kernel(in, adt < 4, 0);
    r->attn_kernel = kern;
    double L = 0;
    L += 2.0 * (norm_b * h + 8.0);                 /* norm1, norm2 LayerNorm inputs */
    if (full) L += 2.0 * adt * h;                  /* normalized tensors saved by `* (1 + scale)` */
    if (full) L += adt * h;                        /* shared input of to_q, to_k, to_v */
    /* q and k come out of 16-bit Linears, or in fp32 out of a QLoRA base under an fp32 stream (dit_stream_bytes) */
    double qdt = in->ft == VP_FT_QLORA && res >= 4 ? 4.0 : adt;
    L += 2.0 * qk_norm_saved(plan, a, h, heads, qdt); /* norm_q, norm_k (qk_norm_saved) */
    L += 4.0 * adt * h + 4.0 * heads;              /* SDPA q, k, v, out (shared with to_out's input) + LSE */
    if (full) L += 2.0 * adt * h;                  /* attention and FF outputs saved by the gate products */
    if (full) L += adt * h;                        /* ff.net.0.proj input */
    L += adt * f;                                  /* GELU input */
    if (full) L += adt * f;                        /* ff.net.2 input */
    double attn_s = !strcmp(kern, "eager") || !strcmp(kern, "math") ? (4.0 + adt) * heads * (double)tokens : 0;
    if (a->d.attn_per_block > 1) {                 /* cross-attention over the text tokens */
        L += norm_b * h + 8.0 + (full ? 2.0 * adt * h : 0) + qk_norm_saved(plan, a, h, heads, qdt) + 2.0 * adt * h + 4.0 * heads;
        if (attn_s > 0) attn_s += (4.0 + adt) * heads * (double)a->d.text_len;
        if (a->d.image_len > 0) {
            /* Wan I2V: attn2 runs a second SDPA of the same query over the image tokens' keys and values and adds
             * it (transformer_wan.py WanAttnProcessor: hidden_states_img, `hidden_states + hidden_states_img`):
             * its output and LSE are saved as well */
            L += adt * h + 4.0 * heads;
            if (attn_s > 0) attn_s += (4.0 + adt) * heads * (double)a->d.image_len;
        }
    }
    /* diffusers 0.32's HunyuanVideo hands SDPA a (B, N, N) bool mask (vp_dit_dense_mask_per_token). PyTorch's
     * scaled_dot_product_attention (aten/src/ATen/native/transformers/attention.cpp, 2.4-2.5) turns it into an
     * additive bias in the query's dtype (convert_boolean_attn_mask: at::where(mask.logical_not(), -inf, 0)); flash
     * takes no mask, so the memory-efficient kernel runs (preprocess_mask expands the bias to (B, heads, N, N)
     * without a copy: N is a multiple of 16) and saves the bias for backward: N × adt bytes per token per block,
     * an s²-sized tensor of its own. The bool mask itself lives from the model's forward to the end of backward. */
    double dense_mask = vp_dit_dense_mask_per_token(plan, a);
    if (dense_mask > 0) {
        if (!strcmp(kern, "flash")) r->attn_kernel = kern = "mem-efficient";
        r->step_mask = dense_mask;
    }
    /* accelerate's autocast over the 16-bit DiT (instances[].autocast, diffusion_plan.c). torch.autocast runs
     * layer_norm in fp32 (aten/src/ATen/autocast_mode.cpp, fp32 cast policy: layer_norm, native_layer_norm): its input
     * becomes an fp32 copy, which native_layer_norm saves, and its output is fp32; `* (1 + scale) + shift` with 16-bit
     * modulations promotes to fp32, and each Linear then casts that fp32 input to a 16-bit copy of its own, which its
     * matmul (or PEFT's lora_A) saves. Where the adaptive norms are plain nn.LayerNorm (CogVideoXLayerNormZero; the
     * AdaLayerNormZero of HunyuanVideo, FLUX, SD3): the two norms save fp32 inputs (+2h B each), q, k and v save three
     * 16-bit copies instead of one shared tensor (+2 × adt·h) when they train or carry LoRA, and with full fine-tuning
     * the normalized tensors `* (1 + scale)` saves are fp32 (+2 × 2h). CogVideoX's q/k norms are LayerNorm(head_dim):
     * their inputs are saved in fp32 too (+2h B each). Wan (FP32LayerNorm and explicit casts), LTX-Video (RMSNorm,
     * 16-bit modulation) and Mochi (explicit fp32, cast back) keep their dtypes. Backward: the fp32 gradient of the
     * modulated input accumulates the three Linears' gradients, each a 16-bit tensor cast to fp32 by the cast's
     * ToCopyBackward (an fp32 buffer, a 16-bit gradient and its fp32 cast alive together: 10h B where 16-bit weights
     * without autocast hold 4h), and the LayerNorm's backward runs in fp32: 6h more bytes per token at the peak of a
     * block's backward. */
    int ln_mod = a->dclass == VP_DC_COGVIDEOX || a->dclass == VP_DC_HUNYUAN || a->dclass == VP_DC_FLUX || a->dclass == VP_DC_SD3;
    double cast_extra = 0, cast_bwd = 0, cast_fwd = 0;
    if ((in->autocast16 || dt.amp) && ln_mod) {
        /* under amp_* lora.c already counts lora_A's own 16-bit copy of its input per module */
        int lora_qkv = !dt.amp && (in->ft == VP_FT_LORA || in->ft == VP_FT_QLORA) && (in->lora_targets & (VP_T_Q | VP_T_K | VP_T_V));
        int qkv = full || lora_qkv;
        cast_extra += 2.0 * (4.0 - res) * h;               /* norm1, norm2 inputs in fp32 (a 16-bit stream's copy) */
        if (qkv) cast_extra += 2.0 * adt * h;              /* to_q, to_k, to_v: one 16-bit copy each */
        if (full) cast_extra += 2.0 * (4.0 - adt) * h;     /* the normalized tensors, fp32 */
        if (a->dclass == VP_DC_COGVIDEOX) cast_extra += 2.0 * (4.0 - adt) * h; /* norm_q, norm_k inputs in fp32 */
        cast_bwd = 6.0 * h;
        cast_fwd = 4.0 * h; /* the FF's input: the fp32 concatenation (4h, not adt·h) and proj's 16-bit cast of it */
        L += cast_extra;
    }
    /* Wan 2.2 TI2V's per-token modulation (expand_timesteps; transformer_wan.py WanTransformerBlock.forward): the
     * block's fp32 `scale_shift_table + temb.float()` (6h × 4 B per token) stays saved through its chunk views
     * gate_msa and c_gate_msa, which `attn_output * gate_msa` and `ff_output.float() * c_gate_msa` keep for the
     * outputs' gradients, and the two fp32 `1 + scale` tensors are saved by their products with the normalized
     * inputs (+8h). Outside the blocks temb and timestep_proj (7h in the activation dtype, the checkpointed blocks'
     * shared input) and norm_out's fp32 `1 + scale` (4h) are kept to the backward. */
    double ts_out = 0;
    if (a->d.ts_tokens) {
        L += 24.0 * h + 8.0 * h;
        ts_out = 7.0 * adt * h + 4.0 * h;
    }
    /* SD3.5-medium's dual-attention blocks (attention.py JointTransformerBlock with use_dual_attention): attn2 over the
     * image tokens reads norm_hidden_states2 (SD35AdaLayerNormZeroX: the same normalized input times its own scale and
     * shift), and saves what the joint attention does for them: the modulated input (when the block trains), the q/k
     * norms, SDPA's q, k, v, out and LSE, the gated output; averaged over the blocks (dual_layers of layers). Its
     * to_q/k/v/out.0 carry LoRA like attn's. */
    double dual = a->layers > 0 ? (double)a->d.dual_layers / (double)a->layers : 0;
    if (dual > 0 && tokens > 0) {
        /* per joint token: attn2 sees the image tokens only, tokens - text_len of them */
        double img = (double)(tokens - (a->d.joint ? a->d.text_len : 0)) / (double)tokens;
        double attn2 = (full ? 2.0 * adt * h : 0) + 2.0 * qk_norm_saved(plan, a, h, heads, qdt) + 4.0 * adt * h + 4.0 * heads;
        L += dual * img * attn2;
        if (!strcmp(kern, "eager") || !strcmp(kern, "math")) attn_s += dual * img * (4.0 + adt) * heads * img * (double)tokens;
        dual *= img;
    }
    if (in->ft == VP_FT_ADAPTER) L += adt * h + 2.0 * adt * (double)in->adapter_dim; /* adapter input, bottleneck */
    if (in->ft == VP_FT_LORA || in->ft == VP_FT_QLORA)
        L += vp_lora_act_per_token_layer(in) * ((a->d.attn_per_block > 1 ? 2 : 1) + dual);
    attn_s += adt * dense_mask;                    /* the additive bias saved by SDPA (above) */
    r->layer = L + attn_s;
    r->layer_attn_s = attn_s;
    r->layer_repl = 2.0 * (res * h + 8.0);
    r->ckpt_layer = res * h;
    r->outside = 2.0 * res * h + ts_out;
    r->bwd_temp = adt * f + 2.0 * res * h + cast_bwd;
    r->fwd_temp = 2.0 * adt * f + cast_fwd;
    r->tokens = plan->batch * tokens;
    r->layers = a->layers + a->d.blocks2;
}
