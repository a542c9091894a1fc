/* t_diffusion_plans.h: plan fragments the diffusion tests share (test_diffusion.c, test_diffusion_published.c):
 * one transformer instance, a pipeline's instances, and the settings of the published runs they score, each with
 * the source that fixes it. */
#ifndef T_DIFFUSION_PLANS_H
#define T_DIFFUSION_PLANS_H

#include "vp_test.h"

/* one bf16 transformer instance named "transformer", with the given extra fields */
static inline const char *one(const char *preset, const char *extra) {
    return t_fmt("{\"name\":\"transformer\",\"model\":{\"preset\":\"%s\"},\"precision\":\"bf16\"%s}", preset, extra);
}

/* a pipeline's components as reference no-grad instances in one precision (the transformer, the text encoders asked for,
 * the VAE), as diffusers loads them with one torch_dtype */
static inline const char *pipeline_instances(const char *id, const char *prec, int te, int te2, int te3) {
    const char *fmt = "{\"name\":\"%s\",\"role\":\"reference\",\"model\":{\"preset\":\"%s%s\"},\"precision\":\"%s\",\"activations\":\"no_grad\"}";
    const char *s = t_fmt(fmt, "transformer", id, "", prec);
    if (te) s = t_fmt("%s,%s", s, t_fmt(fmt, "text_encoder", id, "/text_encoder", prec));
    if (te2) s = t_fmt("%s,%s", s, t_fmt(fmt, "text_encoder_2", id, "/text_encoder_2", prec));
    if (te3) s = t_fmt("%s,%s", s, t_fmt(fmt, "text_encoder_3", id, "/text_encoder_3", prec));
    return t_fmt("%s,%s", s, t_fmt(fmt, "vae", id, "/vae", prec));
}

/* The optimizer of finetrainers' memory tables (trainer.py at e5df80c): torch AdamW, not bnb 8-bit. Their
 * "after epoch 1" memory_allocated is the weights plus 4 B per trainable parameter plus 32 MiB: accelerate's
 * AcceleratedOptimizer.zero_grad passes set_to_none=True (accelerate optimizer.py:112-118), so the gradients are
 * gone, and what stays is AdamW's exp_avg and exp_avg_sq in the bf16 parameters' dtype (2 × 2 B) and the
 * autograd thread's cuBLAS workspace: CogVideoX-5b full 10.376 + 5,570,283,072 × 4 / 2^30 + 0.031 = 31.16 GiB
 * (published 31.160), LoRA 10.622 + 132,120,576 × 4 / 2^30 + 0.031 = 11.145 (published 11.145); LTX full
 * 3.583 + 1,923,385,472 × 4 / 2^30 + 0.031 = 10.78 (published 10.769). bnb's 8-bit states would leave 2 B.
 * The LoRA adapters are bf16 (PEFT moves them to the base layer's dtype): "before training start" allocates
 * 10.622 - 10.376 = 0.246 GiB = 132,120,576 × 2 B for CogVideoX-5b, 3.809 - 3.583 = 0.226 ≈ 117,440,512 × 2 B for LTX.
 * The LoRA tables come from the trainer of Dec 2024 / Jan 2025 (commits 2da8cb5, 1f81197), whose
 * prepare_precomputations leaves the text encoder's and the VAE's segments cached (precompute.c): the LTX log
 * shows 10.010 GiB reserved with 3.809 allocated before training. The full fine-tune tables (e5df80c, 13 Jan 2025)
 * show nothing left: "before training start" reserved 10.387 / 4.025 against 10.376 / 3.583 allocated, so they
 * are modelled without the precompute phase (what emptied the cache there is not found in the trainer's code). */
#define PRECOMPUTE(id, vae) \
    one(id, LORA128 "},{\"name\":\"text_encoder\",\"role\":\"reference\",\"model\":{\"preset\":\"" id "/text_encoder\"}," \
            "\"precision\":\"bf16\",\"activations\":\"no_grad\"" vae)
#define PRE_VAE(id) "},{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"" id "/vae\"},\"precision\":\"bf16\",\"activations\":\"no_grad\""
/* finetrainers passes --mixed_precision bf16: accelerator.prepare runs the bf16 transformer under autocast ("autocast") */
#define LORA128 ",\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":128,\"alpha\":128,\"dropout\":0,\"dtype\":\"bf16\",\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}}," \
                "\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"},\"autocast\":true"

/* the instances of a run whose components carry their own precisions (Mochi's fp32 checkpoint under autocast, Wan's
 * official scripts): each "name:preset:precision[:extra]" entry, reference, no_grad */
#define REF(name, preset, prec, extra) \
    "{\"name\":\"" name "\",\"role\":\"reference\",\"model\":{\"preset\":\"" preset "\"},\"precision\":\"" prec "\"," \
    "\"activations\":\"no_grad\"" extra "}"
#define HY_LORA \
    "{\"name\":\"transformer\",\"model\":{\"preset\":\"hunyuanvideo\"},\"precision\":\"bf16\"" LORA128 "}," \
    REF("text_encoder", "hunyuanvideo/text_encoder", "bf16", "") "," REF("text_encoder_2", "hunyuanvideo/text_encoder_2", "bf16", "") \
    "," REF("vae", "hunyuanvideo/vae", "bf16", "")
/* HunyuanVideo's own inference (Tencent/HunyuanVideo e965abb, hyvideo/config.py defaults): the transformer in bf16
 * (--precision), the LLaVA-Llama and CLIP text encoders and the VAE in fp16 (--text-encoder-precision,
 * --text-encoder-precision-2, --vae-precision) */
#define HY_OFFICIAL \
    REF("transformer", "hunyuanvideo", "bf16", "") "," REF("text_encoder", "hunyuanvideo/text_encoder", "fp16", "") "," \
    REF("text_encoder_2", "hunyuanvideo/text_encoder_2", "fp16", "") "," REF("vae", "hunyuanvideo/vae", "fp16", "")
/* the blog's train_dreambooth_lora_flux_miniature.py prepares the transformer with accelerate's mixed precision: the bf16
 * base runs under autocast ("autocast"; amp_bf16 already means autocast for the QLoRA run) */
#define FLUX_LORA4(method, prec, extra) \
    "{\"name\":\"transformer\",\"model\":{\"preset\":\"flux.1-dev\"},\"precision\":\"" prec "\",\"finetune\":{\"method\":\"" method "\"," \
    "\"lora\":{\"r\":4,\"alpha\":4,\"dropout\":0,\"dtype\":\"fp32\",\"targets\":[\"to_k\",\"to_q\",\"to_v\",\"to_out.0\"]}}," \
    "\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw_8bit\"}" extra "}"

/* the trainer of d220aac (finetrainers README support matrix): LoRA parameters cast to fp32 (trainer.py lines 452-454) */
#define LORA128_FP32 ",\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":128,\"alpha\":128,\"dropout\":0,\"dtype\":\"fp32\"," \
                     "\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}},\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"},\"autocast\":true"

/* cogvideox-factory's legacy LoRA scripts (a-r-r-o-w/finetrainers examples/_legacy/training, tables of 4-9 Oct 2024,
 * commits d81209b..3a519f5; README "Memory requirements", AdamW): CogVideoX-2b / 5b, LoRA rank r (alpha r) on to_k/to_q/
 * to_v/to_out.0, bf16 weights and adapters (PEFT takes the base layer's dtype; cast_training_params runs under fp16
 * only), `accelerate launch ... --mixed_precision bf16`, so accelerator.prepare runs the transformer under autocast
 * (instances[].autocast), 49x480x720 from --load_tensors (the encoders deleted before training, `del vae, text_encoder`
 * + empty_cache), one A100 80 GB. "memory_before_validation" is the training's peak after reset_peak_memory_stats
 * (utils.py reset_memory / print_memory, which prints memory_allocated, max_memory_allocated and max_memory_reserved;
 * the table does not say which): read as reserved, since the figures are not monotonic in the rank (batch 4: r16 21.803,
 * r64 22.254, r256 22.020), which an allocator's segments can do and allocated bytes cannot. */
#define LEGACY(id, r, gc) \
    one(id, ",\"autocast\":true,\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":" #r ",\"alpha\":" #r ",\"dropout\":0," \
            "\"dtype\":\"bf16\",\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}},\"grad_ckpt\":" #gc ",\"optimizer\":{\"name\":\"adamw\"}")
#define LEGACY_WL(b) "{\"mode\":\"train\",\"batch\":" #b ",\"frames\":49,\"height\":480,\"width\":720}"
/* The same README's full fine-tuning tables (cogvideox_text_to_video_sft.py, gradient checkpointing, AdamW or bnb 8-bit
 * AdamW, --load_tensors, one A100 80 GB; "memory_before_validation" read as reserved, as the LoRA tables). The weights are
 * fp32 under autocast: "memory_before_training" is 30.061 GiB for CogVideoX-5b where the LoRA table's bf16 model gives
 * 19.742, 10.319 GiB more, and 5,570,283,072 params × 2 B more per parameter = 10.375 GiB (2b: 16.396 - 12.945 = 3.451
 * GiB for 1,693,783,872 × 2 B = 3.155 GiB); the script upcasts its trainable parameters with cast_training_params
 * (under --mixed_precision fp16 at 3a519f5, whose bytes are bf16's) and leaves its buffers 16-bit, so the DiT's residual
 * stream is 16-bit (activations_dit.c dit_stream_bytes). */
#define LEGACY_SFT(id, opt) \
    "{\"name\":\"transformer\",\"model\":{\"preset\":\"" id "\"},\"precision\":\"amp_bf16\",\"finetune\":{\"method\":\"full\"}," \
    "\"grad_ckpt\":true,\"optimizer\":{\"name\":\"" opt "\"}}"

/* THUDM/CogVideo finetune/ (the diffusers-based trainer, Jan 2025): README "Hardware Requirements", added in 249fadf
 * (LoRA, 8 Jan 2025) and f516938 (SFT, 12 Jan 2025). The trainer precomputes latents and prompt embeddings, then moves
 * the VAE and T5 to the CPU and empties the cache (trainer.py prepare_dataset: unload_model + free_memory); training is
 * batch 1 with gradient checkpointing, AdamW, LoRA rank 128 / alpha 64 on to_q/k/v/out.0 (schemas/args.py defaults),
 * under accelerate's mixed precision. At 249fadf the LoRA base is cast to the training dtype (__load_components:
 * `.to(device, dtype=weight_dtype)`) and the adapters upcast to fp32 (prepare_optimizer cast_training_params); the
 * SFT transformer is left as from_pretrained loads it, fp32 (ignore_list ["transformer"]), under autocast. The
 * figures name a card ("16GB VRAM (NVIDIA 4080)", "24GB VRAM (NVIDIA 4090)") or a size on an A100 ("35GB", "36GB"):
 * the latter are scored as nvidia-smi GB, the former as fits claims (published_claims). */
#define THUDM_LORA(prec) \
    "\"precision\":\"" prec "\",\"autocast\":true,\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"},\"finetune\":{\"method\":\"lora\"," \
    "\"lora\":{\"r\":128,\"alpha\":64,\"dropout\":0,\"dtype\":\"fp32\",\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}}"
/* CogVideoX1.5-5B's transformer config (cogvideox_1_5) */
#define COG15_CONFIG \
    "{\"_class_name\":\"CogVideoXTransformer3DModel\",\"attention_head_dim\":64,\"in_channels\":16,\"max_text_seq_length\":226," \
    "\"num_attention_heads\":48,\"num_layers\":42,\"out_channels\":16,\"patch_bias\":false,\"patch_size\":2,\"patch_size_t\":2," \
    "\"sample_frames\":81,\"sample_height\":300,\"sample_width\":300,\"temporal_compression_ratio\":4,\"text_embed_dim\":4096," \
    "\"time_embed_dim\":512,\"use_rotary_positional_embeddings\":true}"

#endif
