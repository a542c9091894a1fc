/* test_diffusion.c: diffusion pipelines (core/src/diffusers_config.c, dit_params.c, vae.c,
 * text_encoder.c, diffusion_workload.c, timeline_diffusion.c).
 * Group diffusion_params: exact parameter counts of every pipeline preset's components, each checked
 * against an independent count: a released checkpoint's safetensors index total_size (bytes / dtype
 * size), a PyTorch count printed by public training code, or a sibling model the same formula must
 * reproduce. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffusers.h"
#include "plan.h"
#include "vp_test.h"
#include "t_arch.h"
#include "t_diffusion_plans.h"

/* ---- transformers ---- */

/* CogVideoX-5b: finetrainers docs/models/cogvideox.md prints the full fine-tune's "trainable parameters":
 * 5570283072 (a PyTorch count); memory-facts.md §10 has the same analytic figure. */
static void cogvideox_5b(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("cogvideox-5b"), 5570283072ULL);
    assert_u64_equal(t_count_preset("cogvideox-5b/transformer"), 5570283072ULL);
}

/* CogVideoX-2b: 30 heads × 64 = 1920 wide, 30 blocks; per block 2·(512·11520 + 11520 + 3840) +
 * 4·(1920² + 1920) + 4·64 + 2·1920·7680 + 7680 + 1920 = 56,081,536 -> 1,682,446,080; embeddings 16·4·1920 + 1920
 * + 4096·1920 + 1920 = 7,991,040; time 1920·512 + 512 + 512² + 512 = 1,246,208; norm_final 3,840; norm_out
 * 512·3840 + 3840 + 3840 = 1,973,760; proj_out 1920·64 + 64 = 122,944 -> 1,693,783,872. (The same
 * formula is the 5b's above.)
 * Independent count: the element sums of the released safetensors (zai-org/CogVideoX-2b, hunyuanvideo-community/
 * HunyuanVideo), tabled in a public repository's "Multimodal Lattice-Native Coverage Map" ("param counts are measured
 * during distillation (exact element sums)"); the same table gives the Wan 1.3B, umT5, T5-XXL, Wan VAE, SDXL VAE,
 * CLIP-L/bigG and HunyuanVideo Llama counts asserted in this file independently. */
static void cogvideox_2b(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("cogvideox-2b"), 1693783872ULL);
}

/* CogVideoX 1.5 (zai-org/CogVideoX1.5-5B transformer/config.json: patch_size_t 2, patch_bias false, 300 × 300 sample;
 * the values of diffusers' scripts/convert_cogvideox_to_diffusers.py "1.5"). The blocks are the 5b's; the patch embedding
 * is a Linear(16 × 2 × 2 × 2, 3072) with bias (CogVideoXPatchEmbed) where 1.0 has Conv2d(16, 3072, 2) with bias:
 * 5,570,283,072 - (16·4·3072 + 3072) + (128·3072 + 3072) + (3072·128 + 128) - (3072·64 + 64) = 5,570,676,352 (its three
 * safetensors shards, 4.98 + 4.95 + 1.22 GB, hold 11.15 GB ≈ 2 B × that). The 1.5 I2V model (in_channels 32,
 * ofs_embed_dim 512) adds 128·3072 patch-embedding weights and the ofs TimestepEmbedding 2 × (512² + 512):
 * 5,571,594,880 (the model-screening notes cited in wan_i2v give CogVideoX1.5-5B-I2V as 5.5716B). Tokens at 81 × 768 × 1360: 21 latent frames, padded to 22 by the pipeline (additional_frames) and
 * taken 2 at a time: 11 × 48 × 85 = 44,880 video tokens + 226 text. */
static void cogvideox_1_5(void **s) {
    (void)s;
    const char *t2v = "{\"_class_name\":\"CogVideoXTransformer3DModel\",\"attention_head_dim\":64,\"in_channels\":16,"
                      "\"max_text_seq_length\":226,\"num_attention_heads\":48,\"num_layers\":42,\"ofs_embed_dim\":%s,"
                      "\"out_channels\":16,\"patch_bias\":false,\"patch_size\":2,\"patch_size_t\":2,\"sample_frames\":81,"
                      "\"sample_height\":300,\"sample_width\":300,\"temporal_compression_ratio\":4,\"text_embed_dim\":4096,"
                      "\"time_embed_dim\":512,\"use_rotary_positional_embeddings\":true}";
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":768,\"width\":1360}";
    const char *ref = "\"precision\":\"bf16\",\"role\":\"reference\",\"activations\":\"no_grad\"";
    const cJSON *e = t_estimate_json(t_plan1(wl, t_hf_instance(t_fmt(t2v, "null"), ref)));
    assert_u64_equal(t_json_params_total(e, 0), 5570676352ULL);
    const char *i2v = t_fmt(t2v, "512");
    i2v = t_fmt("%.*s32%s", (int)(strstr(i2v, "16,") - i2v), i2v, strstr(i2v, "16,") + 2);
    assert_u64_equal(t_json_params_total(t_estimate_json(t_plan1(wl, t_hf_instance(i2v, ref))), 0), 5571594880ULL);
    vp_error err;
    vp_arch a;
    cJSON *c = cJSON_Parse(t_fmt(t2v, "null"));
    assert_int_equal(vp_arch_from_diffusers(c, "cfg", &a, &err), VP_OK);
    cJSON_Delete(c);
    assert_int_equal(vp_dit_seq_tokens(&a, 81, 768, 1360), 44880 + 226);
    /* the ofs embedding is added to the time embedding: another width is refused by name */
    t_expect_error(t_plan1(wl, t_hf_instance(t_fmt(t2v, "256"), ref)), VP_ERR_RANGE, "instances[0].model.hf_config.ofs_embed_dim");
}

/* Wan2.1's image-to-video transformers (WanTransformer3DModel with image_dim 1280, added_kv_proj_dim = h, in_channels 36):
 * over the text-to-video count, the patch embedding's 20 more input channels (20 × 1 × 2 × 2 × h), the image_embedder
 * (two affine FP32LayerNorms, 2 × 1280 + 2h; Linear(1280, 1280) + Linear(1280, h) with biases) and per block attn2's
 * add_k_proj + add_v_proj (2 × (h² + h)) and norm_added_k (h):
 *   14B (h 5120, 40 blocks): 14,288,491,584 + 409,600 + 8,211,200 + 40 × 52,444,160 = 16,394,878,784
 *   1.3B (h 1536, 30 blocks): 1,418,996,800 + 122,880 + 3,612,928 + 30 × 4,723,200 = 1,564,428,608
 * Independent count: a public repository's model-screening notes give SkyReels-V2-I2V-14B / 1.3B (Wan2.1's I2V
 * architecture) as 16,394,878,784 / 1,564,428,608 from their safetensors; the same notes give CogVideoX1.5-5B-I2V as
 * 5.5716B (cogvideox_1_5: 5,571,594,880). The cross-attention reads 257 image tokens (CLIP ViT-H/14 at 224 px): one
 * more SDPA of the video tokens' query per block, whose output and LSE training saves (activations_dit.c). */
static void wan_i2v(void **s) {
    (void)s;
    const char *fmt = "{\"_class_name\":\"WanTransformer3DModel\",\"added_kv_proj_dim\":%d,\"attention_head_dim\":128,"
                      "\"cross_attn_norm\":true,\"ffn_dim\":%d,\"freq_dim\":256,\"image_dim\":1280,\"in_channels\":36,"
                      "\"num_attention_heads\":%d,\"num_layers\":%d,\"out_channels\":16,\"patch_size\":[1,2,2],"
                      "\"qk_norm\":\"rms_norm_across_heads\",\"text_dim\":4096}";
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832}";
    const char *ref = "\"precision\":\"bf16\",\"role\":\"reference\",\"activations\":\"no_grad\"";
    assert_u64_equal(t_json_params_total(t_estimate_json(t_plan1(wl, t_hf_instance(t_fmt(fmt, 5120, 13824, 40, 40), ref))), 0),
                     16394878784ULL);
    assert_u64_equal(t_json_params_total(t_estimate_json(t_plan1(wl, t_hf_instance(t_fmt(fmt, 1536, 8960, 12, 30), ref))), 0),
                     1564428608ULL);
    /* training (LoRA r16 on to_q/k/v/out.0, which PEFT also matches in attn2) saves the image attention's output and LSE:
     * 2h + 4 · heads B per token per block more than the same blocks without the image cross-attention */
    const char *tw = "{\"mode\":\"train\",\"batch\":1,\"frames\":17,\"height\":256,\"width\":256}";
    const char *tr = "\"precision\":\"bf16\",\"optimizer\":{\"name\":\"adamw\"},\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16,"
                     "\"alpha\":16,\"dropout\":0,\"dtype\":\"bf16\",\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}}";
    const char *t2v = "{\"_class_name\":\"WanTransformer3DModel\",\"attention_head_dim\":128,\"cross_attn_norm\":true,"
                      "\"ffn_dim\":8960,\"freq_dim\":256,\"in_channels\":36,\"num_attention_heads\":12,\"num_layers\":30,"
                      "\"out_channels\":16,\"patch_size\":[1,2,2],\"qk_norm\":\"rms_norm_across_heads\",\"text_dim\":4096}";
    const vp_estimate *a = t_estimate(t_plan1(tw, t_hf_instance(t_fmt(fmt, 1536, 8960, 12, 30), tr)));
    const vp_estimate *b = t_estimate(t_plan1(tw, t_hf_instance(t2v, tr)));
    /* 17 frames of 256²: (17 - 1) / 4 + 1 = 5 latent frames × 16 × 16 = 1,280 tokens; 30 blocks × (2 × 1536 + 4 × 12) */
    assert_u64_equal(t_component(a, 0, "activations", "policy") - t_component(b, 0, "activations", "policy"),
                     1280ULL * 30ULL * (2ULL * 1536ULL + 48ULL));
    t_expect_error(t_plan1(wl, t_hf_instance("{\"_class_name\":\"WanTransformer3DModel\",\"image_dim\":1280}", ref)), VP_ERR_FIELD,
                   "instances[0].model.hf_config.added_kv_proj_dim");
}

/* Wan2.1-I2V-14B-480P (preset wan2.1-i2v-14b-480p): the transformer as wan_i2v counts it, and the image encoder that
 * scripts/convert_wan_to_diffusers.py saves: laion/CLIP-ViT-H-14-laion2B-s32B-b79K's CLIPVisionModelWithProjection.
 * By hand: class embedding 1280 + the patch Conv2d 3 × 14² × 1280 (no bias) 752,640 + 257 positions × 1280 = 328,960
 * + pre_layrnorm 2,560 + 32 blocks × (4 × (1280² + 1280) + 1280 × 5120 + 5120 + 5120 × 1280 + 1280 + 2 × 2,560 =
 * 19,677,440) = 629,678,080 + post_layernorm 2,560 + visual_projection 1280 × 1024 = 1,310,720: 632,076,800, the
 * vision tower (with projection) of that CLIP in public parameter tables, whose total 986,109,441 also appears as
 * HPS v2's printed count; 629,678,080 is the same tables' figure for its vision blocks. Loaded as CLIPVisionModel (the
 * diffusers docs' example), the projection is dropped: 630,766,080. The pipeline encodes the image in its own phase,
 * before the steps. */
static void wan_i2v_pipeline(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("wan2.1-i2v-14b-480p"), 16394878784ULL);
    assert_u64_equal(t_count_preset("wan2.1-i2v-14b-480p/image_encoder"), 632076800ULL);
    vp_arch v = t_arch_of("wan2.1-i2v-14b-480p/image_encoder");
    assert_u64_equal((uint64_t)v.d.blocks_total, 629678080ULL);
    assert_int_equal(v.d.text_len, 257);
    const char *plain = "{\"architectures\":[\"CLIPVisionModel\"],\"hidden_size\":1280,\"intermediate_size\":5120,"
                        "\"num_hidden_layers\":32,\"num_attention_heads\":16,\"image_size\":224,\"patch_size\":14,\"projection_dim\":1024}";
    const char *ref = "\"precision\":\"fp32\",\"role\":\"reference\",\"activations\":\"no_grad\"";
    const vp_estimate *e = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1}", t_hf_instance(plain, ref)));
    assert_u64_equal(t_component(e, 0, "weights", "policy"), (632076800ULL - 1280ULL * 1024) * 4);
    assert_string_equal(e->devices[0].peak_phase, "image_encoder");
}

/* Wan2.1-T2V-1.3B: 1,418,996,800, the PyTorch count public training code asserts for the frozen model
 * (EXPECTED_PARAMETER_COUNTS frozen_wan_parameters). */
static void wan_1_3b(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("wan2.1-t2v-1.3b"), 1418996800ULL);
}

/* Wan 14B: safetensors index total_size 57,153,966,336 B of the fp32 Wan2.2-T2V-A14B transformer (same
 * WanTransformer3DModel shapes as Wan2.1-T2V-14B) / 4 B = 14,288,491,584. */
static void wan_14b(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("wan2.1-t2v-14b"), 57153966336ULL / 4);
}

/* LTX-Video: finetrainers docs/models/ltx_video.md full fine-tune log "trainable parameters": 1923385472. */
static void ltx(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("ltx-video"), 1923385472ULL);
}

/* Mochi 1 preview: transformer index total_size 20,055,355,488 B (bf16) / 2 (fp32 variant 40,110,710,976 / 4). */
static void mochi(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("mochi-1"), 20055355488ULL / 2);
    assert_u64_equal(t_count_preset("mochi-1"), 40110710976ULL / 4);
}

/* FLUX.1-dev: transformer index total_size 23,802,816,640 B (bf16) / 2 = 11,901,408,320. */
static void flux_dev(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("flux.1-dev"), 23802816640ULL / 2);
}

/* HunyuanVideo: 12,821,012,544 from transformer_hunyuan_video.py (20 double + 40 single blocks of 3072, token
 * refiner, guidance embedder), "MMDiT transformer (dual-stream, 6 shards) 12,821,012,544".
 * Independent count: the element sums of the released safetensors (zai-org/CogVideoX-2b, hunyuanvideo-community/
 * HunyuanVideo), tabled in a public repository's "Multimodal Lattice-Native Coverage Map" ("param counts are measured
 * during distillation (exact element sums)"); the same table gives the Wan 1.3B, umT5, T5-XXL, Wan VAE, SDXL VAE,
 * CLIP-L/bigG and HunyuanVideo Llama counts asserted in this file independently. */
static void hunyuan(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("hunyuanvideo"), 12821012544ULL);
}

/* SD3: the same JointTransformerBlock formula gives SD3-medium's 2,028,328,000 (PyTorch count in a public
 * module-inspector table: heads 24, 24 layers, caption 1536, no qk norm); SD3.5-large (38 × 64, 38 layers,
 * rms_norm q/k) is 8,056,627,520 (+ the 192² × 2432 persistent pos_embed buffer in the file). */
static void sd3(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("sd3.5-large"), 8056627520ULL);
    const char *medium = "{\"_class_name\":\"SD3Transformer2DModel\",\"attention_head_dim\":64,\"caption_projection_dim\":1536,"
                         "\"in_channels\":16,\"joint_attention_dim\":4096,\"num_attention_heads\":24,\"num_layers\":24,"
                         "\"out_channels\":16,\"patch_size\":2,\"pooled_projection_dim\":2048,\"pos_embed_max_size\":192,"
                         "\"sample_size\":128}";
    const cJSON *e = t_estimate_json(t_plan1("{\"mode\":\"infer\",\"batch\":1}",
                                             t_hf_instance(medium, "\"precision\":\"bf16\",\"role\":\"reference\",\"activations\":\"no_grad\"")));
    assert_u64_equal(t_json_params_total(e, 0), 2028328000ULL);
    /* SD3.5-medium (MMDiT-X: dual-attention layers 0-12, qk rms_norm, pos_embed_max_size 384): 2,243,171,520; a public
     * checkpoint audit of a transformer of this shape counts 2,469,663,936 elements in its safetensors (909 tensors),
     * the parameters plus the 384² × 1536 = 226,492,416-element persistent pos_embed */
    assert_u64_equal(t_count_preset("sd3.5-medium"), 2469663936ULL - 384ULL * 384 * 1536);
}

/* SD3.5-medium's dual-attention blocks (JointTransformerBlock with use_dual_attention, layers 0-12): attn2 has its own
 * to_q/k/v/out.0 (1536 × 1536), so LoRA r16 on those names adds 13 × 4 × 16 × (1536 + 1536) = 2,555,904 adapter
 * parameters over the same model with no dual layers; in full fine-tuning at 1024² (64 × 64 = 4,096 image tokens; attn2
 * does not see the 333 text tokens), each of the 13 saves per image token the modulated input for to_q/k/v and the
 * gated output (2 × 2 × 1536), both q/k RMSNorms (diffusers' RMSNorm: 4 · 1536 + 2 · 1536 + 4 · 24 each) and SDPA's
 * q, k, v, out and LSE (4 × 2 × 1536 + 4 × 24): 6,144 + 18,624 + 12,384 = 37,152 B; 13 × 4,096 × 37,152 =
 * 1,978,269,696 B more activations. */
static void sd35_dual_attention(void **s) {
    (void)s;
    const char *fmt = "{\"_class_name\":\"SD3Transformer2DModel\",\"attention_head_dim\":64,\"caption_projection_dim\":1536,"
                      "\"dual_attention_layers\":%s,\"in_channels\":16,\"joint_attention_dim\":4096,\"num_attention_heads\":24,"
                      "\"num_layers\":24,\"out_channels\":16,\"patch_size\":2,\"pooled_projection_dim\":2048,"
                      "\"pos_embed_max_size\":384,\"qk_norm\":\"rms_norm\",\"sample_size\":128}";
    const char *dual = "[0,1,2,3,4,5,6,7,8,9,10,11,12]";
    const char *wl = "{\"mode\":\"train\",\"batch\":1,\"frames\":1,\"height\":1024,\"width\":1024}";
    const char *lora = "\"precision\":\"bf16\",\"optimizer\":{\"name\":\"adamw\"},\"finetune\":{\"method\":\"lora\","
                       "\"lora\":{\"r\":16,\"alpha\":16,\"dropout\":0,\"dtype\":\"bf16\",\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}}";
    const cJSON *a = t_estimate_json(t_plan1(wl, t_hf_instance(t_fmt(fmt, dual), lora)));
    const cJSON *b = t_estimate_json(t_plan1(wl, t_hf_instance(t_fmt(fmt, "[]"), lora)));
    assert_u64_equal(t_json_params_trainable(a, 0) - t_json_params_trainable(b, 0), 13ULL * 4 * 16 * (1536 + 1536));
    const char *full = "\"precision\":\"bf16\",\"optimizer\":{\"name\":\"adamw\"},\"finetune\":{\"method\":\"full\"}";
    const vp_estimate *fa = t_estimate(t_plan1(wl, t_hf_instance(t_fmt(fmt, dual), full)));
    const vp_estimate *fb = t_estimate(t_plan1(wl, t_hf_instance(t_fmt(fmt, "[]"), full)));
    assert_u64_equal(t_component(fa, 0, "activations", "policy") - t_component(fb, 0, "activations", "policy"), 13ULL * 4096 * 37152);
}

/* FLUX.1-schnell: FLUX.1-dev without the guidance embedder (guidance_embeds false: 256 -> 3072 -> 3072, 10,229,760
 * parameters); the transformer's stored size 23,782,357,120 B (bf16) / 2 = 11,891,178,560. */
static void flux_schnell(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("flux.1-schnell"), 23782357120ULL / 2);
    assert_u64_equal(t_count_preset("flux.1-dev") - t_count_preset("flux.1-schnell"), 256ULL * 3072 + 3072 + 3072ULL * 3072 + 3072);
}

/* LoRA on to_q, to_k, to_v, to_out.0 (PEFT matches by name): the single-stream blocks of FLUX and HunyuanVideo have
 * an Attention with pre_only=True (to_q/k/v, no to_out), HunyuanVideo's token refiner blocks a full one.
 * FLUX.1-dev r4, the HF blog "(LoRA) Fine-Tuning FLUX.1-dev on Consumer Hardware" (flux-qlora.md) prints
 * "trainable params: 4,669,440 || all params: 11,906,077,760" = (19 × 4 + 38 × 3) × 4 × (3072 + 3072);
 * HunyuanVideo r128, finetrainers docs/training/hunyuan_video.md (e5df80c) "trainable parameters": 163577856 =
 * (20 × 4 + 40 × 3 + 2 × 4) × 128 × (3072 + 3072). */
static void lora_single_stream(void **s) {
    (void)s;
    const char *fmt = "{\"name\":\"t\",\"model\":{\"preset\":\"%s\"},\"precision\":\"bf16\",\"finetune\":{\"method\":\"lora\","
                      "\"lora\":{\"r\":%d,\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}}}";
    const char *wl = "{\"mode\":\"train\",\"batch\":1,\"frames\":1,\"height\":512,\"width\":512}";
    const cJSON *f = t_estimate_json(t_plan(wl, t_fmt(fmt, "flux.1-dev", 4), NULL));
    assert_u64_equal(t_json_params_trainable(f, 0), 4669440ULL);
    assert_u64_equal(t_json_params_total(f, 0) + t_json_params_trainable(f, 0), 11906077760ULL);
    const cJSON *h = t_estimate_json(t_plan(wl, t_fmt(fmt, "hunyuanvideo", 128), NULL));
    assert_u64_equal(t_json_params_trainable(h, 0), 163577856ULL);
}

/* ---- text encoders ---- */

/* T5-v1_1-XXL encoder: index total_size 9,524,621,312 B bf16 (FLUX.1-dev text_encoder_2) / 2; Mochi's fp32 copy
 * 19,049,242,624 / 4; memory-facts.md §10 (meta-device count). */
static void t5_xxl(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("cogvideox-5b/text_encoder"), 9524621312ULL / 2);
    assert_u64_equal(t_count_preset("flux.1-dev/text_encoder_2"), 19049242624ULL / 4);
    assert_u64_equal(t_count_preset("sd3.5-large/text_encoder_3"), 4762310656ULL);
}

/* UMT5-XXL encoder (Wan): index total_size 11,361,820,672 B bf16 / 2 = 5,680,910,336 (every block has its own
 * relative_attention_bias: 24 · 32 · 64 more than T5 with the 256,384-token vocabulary). */
static void umt5(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("wan2.1-t2v-14b/text_encoder"), 11361820672ULL / 2);
}

/* CLIP text encoders: ViT-L/14 text 123,060,480 (SD/FLUX text_encoder, PyTorch counts printed by public code),
 * with text_projection 123,650,304, OpenCLIP bigG with projection 694,659,840 (SD3 module inspector table). */
static void clip(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("flux.1-dev/text_encoder"), 123060480ULL);
    assert_u64_equal(t_count_preset("sd3.5-large/text_encoder"), 123650304ULL);
    assert_u64_equal(t_count_preset("sd3.5-large/text_encoder_2"), 694659840ULL);
}

/* HunyuanVideo's LlamaModel (no lm_head): Llama-3-8B blocks (memory-facts §10: 218,112,000 per block) × 32 +
 * 128,320 × 4096 embeddings + 4096 final norm = 7,505,186,816 (Llama-3.1-8B's 8,030,261,248 less its
 * 525,336,576 lm_head, plus 64 × 4096 more vocabulary rows). */
static void llama_encoder(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("hunyuanvideo/text_encoder"), 8030261248ULL - 525336576ULL + 64ULL * 4096ULL);
    assert_u64_equal(t_count_preset("hunyuanvideo/text_encoder_2"), 123060480ULL);
}

/* ---- VAEs ---- */

/* AutoencoderKL: FLUX.1-dev's 16-channel VAE 83,819,683 (a public tensor validator: 244 tensors, 83819683
 * values; checkpoint metadata "vae params 83819683"); SD/SDXL's 4-channel one with quant convs 83,653,863
 * (the PyTorch count printed by public code). */
static void vae_kl(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("flux.1-dev/vae"), 83819683ULL);
    assert_u64_equal(t_count_preset("sd3.5-large/vae"), 83819683ULL);
    const char *sdxl = "{\"_class_name\":\"AutoencoderKL\",\"block_out_channels\":[128,256,512,512],\"latent_channels\":4,"
                       "\"layers_per_block\":2}";
    const cJSON *e = t_estimate_json(t_plan1("{\"mode\":\"infer\",\"batch\":1}",
                                             t_hf_instance(sdxl, "\"precision\":\"bf16\",\"role\":\"reference\",\"activations\":\"no_grad\"")));
    assert_u64_equal(t_json_params_total(e, 0), 83653863ULL);
}

/* AutoencoderKLWan: 126,892,531, the PyTorch count public training code asserts (frozen_vae_parameters). */
static void vae_wan(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("wan2.1-t2v-1.3b/vae"), 126892531ULL);
}

/* CogVideoX and HunyuanVideo VAEs, counted from their modeling files: "3D VAE 215,583,907" (CogVideoX-2b, the same
 * AutoencoderKLCogVideoX config as the 5b's) and "Causal 3D VAE 246,478,803" (HunyuanVideo).
 * Independent count: the element sums of the released safetensors (zai-org/CogVideoX-2b, hunyuanvideo-community/
 * HunyuanVideo), tabled in a public repository's "Multimodal Lattice-Native Coverage Map" ("param counts are measured
 * during distillation (exact element sums)"); the same table gives the Wan 1.3B, umT5, T5-XXL, Wan VAE, SDXL VAE,
 * CLIP-L/bigG and HunyuanVideo Llama counts asserted in this file independently. */
static void vae_video(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("cogvideox-5b/vae"), 215583907ULL);
    assert_u64_equal(t_count_preset("cogvideox-2b/vae"), 215583907ULL);
    assert_u64_equal(t_count_preset("hunyuanvideo/vae"), 246478803ULL);
}

/* Every component of every pipeline preset declares params_total; the count from its config must equal it. */
static void components_match_declared(void **s) {
    (void)s;
    cJSON *bundle = cJSON_Parse(vp_builtin_presets_json());
    assert_non_null(bundle);
    const cJSON *m;
    int checked = 0;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(bundle, "models")) {
        const cJSON *comps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "pipeline"), "components");
        const cJSON *c;
        cJSON_ArrayForEach(c, comps) {
            const char *id = t_fmt("%s/%s", cJSON_GetObjectItemCaseSensitive(m, "id")->valuestring, c->string);
            assert_u64_equal(t_count_preset(id), (uint64_t)cJSON_GetObjectItemCaseSensitive(c, "params_total")->valuedouble);
            checked++;
        }
    }
    assert_true(checked >= 20);
    cJSON_Delete(bundle);
}

/* Configs as published: unknown classes, bad fields and unknown components are named in the error. */
static void bad_configs(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"infer\",\"batch\":1}";
    t_expect_error(t_plan1(wl, t_hf_instance("{\"_class_name\":\"UNet2DConditionModel\"}", "")), VP_ERR_UNSUPPORTED,
                   "instances[0].model.hf_config._class_name");
    t_expect_error(t_plan1(wl, t_hf_instance("{\"_class_name\":\"WanTransformer3DModel\",\"num_layers\":-3}", "")),
                   VP_ERR_RANGE, "instances[0].model.hf_config.num_layers");
    t_expect_error(t_plan1(wl, t_hf_instance("{\"_class_name\":\"AutoencoderKL\",\"block_out_channels\":[128,\"x\"]}", "")),
                   VP_ERR_RANGE, "instances[0].model.hf_config.block_out_channels");
    t_expect_error(t_plan1(wl, "{\"name\":\"c\",\"model\":{\"preset\":\"cogvideox-5b/unet\"}}"), VP_ERR_UNSUPPORTED,
                   "instances[0].model.preset");
    /* absurd sizes: more than 2^36 pixels, or tokens whose activations no machine holds */
    const char *cog = "{\"name\":\"c\",\"model\":{\"preset\":\"cogvideox-5b\"}}";
    t_expect_error(t_plan1("{\"batch\":1,\"frames\":10000,\"height\":16384,\"width\":16384}", cog), VP_ERR_RANGE,
                   "workload.frames");
    t_expect_error(t_plan1("{\"batch\":1,\"frames\":1000,\"height\":8192,\"width\":8192}", cog), VP_ERR_RANGE,
                   "workload.frames");
    /* frames without a size: counted at the largest default size (HunyuanVideo's 720 x 1280) for the pixel bound */
    t_expect_error(t_plan1("{\"batch\":1024,\"frames\":10000}", cog), VP_ERR_RANGE, "workload.frames");
    t_expect_error(t_plan1("{\"batch\":1,\"height\":480,\"width\":720,\"diffusion\":{\"offload\":\"disk\"}}", cog),
                   VP_ERR_UNSUPPORTED, "workload.diffusion.offload");
    t_expect_error(t_plan1("{\"batch\":1,\"height\":480,\"width\":720,\"diffusion\":{\"diffusers\":\"0.29\"}}", cog),
                   VP_ERR_UNSUPPORTED, "workload.diffusion.diffusers");
}

/* model_index.json: the pipeline class and its components ([library, class]; null entries skipped). */
static void model_index(void **s) {
    (void)s;
    cJSON *mi = cJSON_Parse("{\"_class_name\":\"CogVideoXPipeline\",\"_diffusers_version\":\"0.30.0.dev0\","
                            "\"scheduler\":[\"diffusers\",\"CogVideoXDDIMScheduler\"],\"text_encoder\":[\"transformers\",\"T5EncoderModel\"],"
                            "\"tokenizer\":[\"transformers\",\"T5Tokenizer\"],\"transformer\":[\"diffusers\",\"CogVideoXTransformer3DModel\"],"
                            "\"vae\":[\"diffusers\",\"AutoencoderKLCogVideoX\"],\"safety_checker\":[null,null]}");
    vp_model_index idx;
    vp_error err;
    assert_int_equal(vp_model_index_read(mi, "model_index", &idx, &err), VP_OK);
    assert_string_equal(idx.pipeline, "CogVideoXPipeline");
    assert_int_equal(idx.n, 5);
    assert_string_equal(idx.comp[1].name, "text_encoder");
    assert_string_equal(idx.comp[4].cls, "AutoencoderKLCogVideoX");
    cJSON_Delete(mi);
    cJSON *bad = cJSON_Parse("{\"vae\":[\"diffusers\",\"AutoencoderKL\"]}");
    assert_int_equal(vp_model_index_read(bad, "model_index", &idx, &err), VP_ERR_FIELD);
    assert_string_equal(err.path, "model_index._class_name");
    cJSON_Delete(bad);
}


/* ---- group diffusion_workload: hand-worked tokens, VAE decode peaks, CFG ---- */

/* Tokens through the transformer, from the pixels:
 *  CogVideoX 49×480×720: latent frames (49-1)/4+1 = 13, 480/8/2 = 30, 720/8/2 = 45 -> 17,550 video + 226 text = 17,776
 *  (memory-facts §10); the notes' 17×256×256: 5 × 16 × 16 = 1,280 + 226 = 1,506 (the notes' "24 × 32×32" forgets the
 *  4× temporal compression and the 2×2 patches);
 *  Wan 81×480×832: 21 × 30 × 52 = 32,760 (text through cross-attention, not in the sequence);
 *  HunyuanVideo 129×720×1280: 33 × 45 × 80 = 118,800 + 256 text;
 *  LTX 161×512×704: (160/8+1) = 21 × 16 × 22 = 7,392 (32× spatial, 8× temporal, patch 1);
 *  FLUX 1024²: (1024/16)² = 4,096 + 512 T5 tokens; SD3.5 1024²: 64² = 4,096 + 77 + 256. */
static void tokens(void **s) {
    (void)s;
    vp_arch cog = t_arch_of("cogvideox-5b");
    assert_int_equal(vp_dit_latent_frames(&cog, 49), 13);
    assert_int_equal(vp_dit_seq_tokens(&cog, 49, 480, 720), 17776);
    assert_int_equal(vp_dit_seq_tokens(&cog, 17, 256, 256), 1506);
    vp_arch wan = t_arch_of("wan2.1-t2v-14b");
    assert_int_equal(vp_dit_seq_tokens(&wan, 81, 480, 832), 32760);
    vp_arch hy = t_arch_of("hunyuanvideo");
    assert_int_equal(vp_dit_seq_tokens(&hy, 129, 720, 1280), 118800 + 256);
    vp_arch ltx = t_arch_of("ltx-video");
    assert_int_equal(vp_dit_seq_tokens(&ltx, 161, 512, 704), 7392);
    vp_arch flux = t_arch_of("flux.1-dev");
    assert_int_equal(vp_dit_seq_tokens(&flux, 1, 1024, 1024), 4096 + 512);
    vp_arch sd3 = t_arch_of("sd3.5-large");
    assert_int_equal(vp_dit_seq_tokens(&sd3, 1, 1024, 1024), 4096 + 333);
    /* the estimate uses them: the unlearning example at the notes' settings saves activations for
     * batch 4 × 1,506 = 6,024 tokens */
    const vp_estimate *e = t_estimate(t_plan1("{\"mode\":\"train\",\"batch\":4,\"frames\":17,\"height\":256,\"width\":256}",
                                              "{\"name\":\"u\",\"model\":{\"preset\":\"cogvideox-5b\"},\"precision\":\"bf16\"}"));
    int found = 0;
    for (int k = 0; k < e->devices[0].n_components; k++)
        if (!strcmp(e->devices[0].components[k].id, "activations")) {
            assert_contains(e->devices[0].components[k].explain, "6024 tokens");
            found = 1;
        }
    assert_true(found);
}

/* The frames a pipeline runs for a requested count (diffusion_workload.c vp_dit_run_frames):
 *  WanPipeline.__call__ (pipeline_wan.py lines 493-497): `num_frames // 4 * 4 + 1` when num_frames % 4 != 1,
 *    so 48 -> 12 * 4 + 1 = 49 and 46 -> 11 * 4 + 1 = 45; 81 stays;
 *  CogVideoX prepare_latents (pipeline_cogvideox.py line 680): (48 - 1) // 4 + 1 = 12 latent frames, decoded to
 *    1 + 4 * 11 = 45 frames; 49 -> 13 -> 49;
 *  Mochi (6x): 40 -> (39 // 6) + 1 = 7 latent frames -> 1 + 6 * 6 = 37; LTX-Video (8x): 50 -> 7 -> 49;
 *  image models (FLUX) make one image per sample whatever the frames (the estimate says so).
 * The estimate runs that count: a CogVideoX-2b plan at 48 frames is the plan at 45, byte for byte, and a Wan plan
 * at 48 is the plan at 49. */
static void run_frames(void **s) {
    (void)s;
    vp_arch wan = t_arch_of("wan2.1-t2v-1.3b"), cog = t_arch_of("cogvideox-2b"), mochi = t_arch_of("mochi-1");
    vp_arch ltx = t_arch_of("ltx-video"), flux = t_arch_of("flux.1-dev");
    assert_int_equal(vp_dit_run_frames(&wan, 48), 49);
    assert_int_equal(vp_dit_run_frames(&wan, 46), 45);
    assert_int_equal(vp_dit_run_frames(&wan, 81), 81);
    assert_int_equal(vp_dit_run_frames(&cog, 48), 45);
    assert_int_equal(vp_dit_run_frames(&cog, 49), 49);
    assert_int_equal(vp_dit_run_frames(&mochi, 40), 37);
    assert_int_equal(vp_dit_run_frames(&ltx, 50), 49);
    assert_int_equal(vp_dit_run_frames(&flux, 1), 1);
    assert_int_equal(vp_dit_run_frames(&flux, 5), 1); /* FluxPipeline has no num_frames */
    const char *fmt = "{\"mode\":\"infer\",\"batch\":1,\"frames\":%d,\"height\":480,\"width\":%d}";
    const char *inst = "{\"name\":\"t\",\"model\":{\"preset\":\"%s\"},\"precision\":\"bf16\",\"role\":\"reference\","
                       "\"activations\":\"no_grad\"}";
    const struct {
        const char *id;
        int width, asked, runs, other;
    } rows[] = {{"cogvideox-2b", 720, 48, 45, 49}, {"wan2.1-t2v-1.3b", 832, 48, 49, 45}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint64_t got[3];
        const int fr[3] = {rows[i].asked, rows[i].runs, rows[i].other};
        for (int k = 0; k < 3; k++)
            got[k] = t_estimate(t_plan1(t_fmt(fmt, fr[k], rows[i].width), t_fmt(inst, rows[i].id)))->devices[0].peak_alloc_bytes;
        assert_u64_equal(got[0], got[1]);
        assert_true(got[0] != got[2]);
        /* the estimate says which count it is for; a count the pipeline takes gets no such line */
        const vp_estimate *asked = t_estimate(t_plan1(t_fmt(fmt, fr[0], rows[i].width), t_fmt(inst, rows[i].id)));
        const vp_estimate *runs = t_estimate(t_plan1(t_fmt(fmt, fr[1], rows[i].width), t_fmt(inst, rows[i].id)));
        int said = 0;
        for (int k = 0; k < asked->n_warnings; k++)
            said |= strstr(asked->warnings[k], t_fmt("the estimate is for %d frames", rows[i].runs)) != NULL;
        assert_true(said);
        for (int k = 0; k < runs->n_warnings; k++) assert_null(strstr(runs->warnings[k], "workload.frames"));
    }
    /* frames without height and width run at the pipeline's default size (CogVideoX-2b: 480 x 720) */
    const vp_estimate *a = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"frames\":25}", t_fmt(inst, "cogvideox-2b")));
    const vp_estimate *b = t_estimate(t_plan1(t_fmt(fmt, 25, 720), t_fmt(inst, "cogvideox-2b")));
    const vp_estimate *c = t_estimate(t_plan1(t_fmt(fmt, 49, 720), t_fmt(inst, "cogvideox-2b")));
    assert_u64_equal(a->devices[0].peak_alloc_bytes, b->devices[0].peak_alloc_bytes);
    assert_true(a->devices[0].peak_alloc_bytes < c->devices[0].peak_alloc_bytes);
    const vp_estimate *f5 = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"frames\":5}", t_fmt(inst, "flux.1-dev")));
    const vp_estimate *f1 = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"frames\":1}", t_fmt(inst, "flux.1-dev")));
    assert_u64_equal(f5->devices[0].peak_alloc_bytes, f1->devices[0].peak_alloc_bytes);
    assert_int_equal(f5->n_warnings, 1);
    assert_contains(f5->warnings[0], "is an image model");
    assert_int_equal(f1->n_warnings, 0);
}

/* workload.diffusion.text_tokens (diffusion_plan.c vp_diff_apply_text_tokens): the prompt's tokens replace the
 * pipeline's max_sequence_length. FLUX at 512×768 with the 77 tokens the FLUX QLoRA blog embeds: (512/16) × (768/16) =
 * 1,536 + 77 = 1,613 tokens (1,536 + 512 by default); SD3 keeps its 77 CLIP tokens in front: 4,096 + 77 + 100 at 1024²
 * with 100. Out of range is refused by name. */
static void text_tokens_override(void **s) {
    (void)s;
    const char *fmt = "{\"schema\":\"%s\",\"workload\":{\"mode\":\"infer\",\"batch\":1,\"frames\":1,\"height\":%d,"
                      "\"width\":%d%s},\"instances\":[{\"name\":\"t\",\"model\":{\"preset\":\"%s\"},\"precision\":\"bf16\","
                      "\"role\":\"reference\",\"activations\":\"no_grad\"}]}";
    const struct {
        const char *id, *extra;
        int h, w;
        int64_t want;
    } rows[] = {{"flux.1-dev", ",\"diffusion\":{\"text_tokens\":77}", 768, 512, 1613},
                {"flux.1-dev", "", 768, 512, 2048},
                {"sd3.5-large", ",\"diffusion\":{\"text_tokens\":100}", 1024, 1024, 4096 + 77 + 100}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        vp_error err;
        vp_plan *p = vp_plan_from_json(t_fmt(fmt, VP_PLAN_SCHEMA, rows[i].h, rows[i].w, rows[i].extra, rows[i].id), t_registry(), &err);
        assert_non_null(p);
        assert_int_equal(vp_dit_plan_tokens(p, &p->inst[0].arch), rows[i].want);
        vp_plan_free(p);
    }
    t_expect_error(t_fmt(fmt, VP_PLAN_SCHEMA, 1024, 1024, ",\"diffusion\":{\"text_tokens\":0}", "flux.1-dev"), VP_ERR_RANGE,
                   "workload.diffusion.text_tokens");
}

/* What to change when a diffusion pipeline does not fit (plan_suggest.c): CogVideoX-5b in bf16, every component on an
 * RTX 4090 at the native 49 × 480 × 720 (T5-XXL 8.9 GiB, the transformer 10.4, the untiled decode), does not fit; the
 * remedies are diffusers' own options, each re-estimated: pipe.enable_model_cpu_offload() and vae.enable_tiling(), which
 * together fit (what THUDM's README recommends for this model on one consumer GPU), and group offloading. Group
 * offloading alone fits with less than 10% to spare, so a combination is looked for: group offloading + tiling. The
 * combined suggestion's figure is the bare estimate of the plan with both set. */
static void diffusion_suggestions(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720%s}";
    const char *inst = pipeline_instances("cogvideox-5b", "bf16", 1, 0, 0);
    const char *hw = "{\"gpu\":\"rtx-4090\",\"count\":1}";
    vp_error err;
    vp_plan *p = vp_plan_from_json(t_plan(t_fmt(wl, ""), inst, hw), t_registry(), &err);
    if (!p) fail_msg("%s: %s", err.path, err.message);
    vp_estimate *e = malloc(sizeof *e);
    assert_non_null(e);
    assert_int_equal(vp_estimate_with_suggestions(p, e, &err), VP_OK);
    assert_false(e->fits);
    int offload = 0, tiling = 0, both = -1;
    for (int i = 0; i < e->n_suggestions; i++) {
        const vp_suggestion *g = &e->suggestions[i];
        offload |= !strcmp(g->id, "model_offload");
        tiling |= !strcmp(g->id, "vae_tiling");
        if (!strcmp(g->id, "combined")) both = i;
    }
    assert_true(offload && tiling);
    assert_true(both >= 0);
    assert_string_equal(e->suggestions[both].ids, "group_offload,vae_tiling");
    assert_true(e->suggestions[both].fits);
    assert_int_equal(both, 0); /* it fits and saves the most */
    const char *go = "{\"type\":\"leaf_level\",\"use_stream\":true}";
    const char *grouped = t_fmt("{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"cogvideox-5b\"},\"precision\":"
                                "\"bf16\",\"activations\":\"no_grad\",\"group_offload\":%s},{\"name\":\"text_encoder\",\"role\":"
                                "\"reference\",\"model\":{\"preset\":\"cogvideox-5b/text_encoder\"},\"precision\":\"bf16\",\"activations\":"
                                "\"no_grad\",\"group_offload\":%s}%s",
                                go, go, strstr(inst, ",{\"name\":\"vae\""));
    const vp_estimate *direct = t_estimate(t_plan(t_fmt(wl, ",\"diffusion\":{\"vae_tiling\":true}"), grouped, hw));
    assert_u64_equal(e->suggestions[both].peak_reserved_bytes, direct->devices[0].peak_reserved_bytes);
    assert_true(t_estimate(t_plan(t_fmt(wl, ",\"diffusion\":{\"offload\":\"model\",\"vae_tiling\":true}"), inst, hw))->fits);
    free(e);
    vp_plan_free(p);
    /* an image pipeline at a size one tile covers gets no tiling suggestion: FLUX's 1024² decode is one 1024 tile */
    vp_plan *f = vp_plan_from_json(t_plan("{\"mode\":\"infer\",\"batch\":1,\"height\":1024,\"width\":1024}",
                                          pipeline_instances("flux.1-dev", "bf16", 1, 1, 0), "{\"gpu\":\"rtx-4090\",\"count\":1}"),
                                   t_registry(), &err);
    if (!f) fail_msg("%s: %s", err.path, err.message);
    vp_estimate *fe = malloc(sizeof *fe);
    assert_non_null(fe);
    assert_int_equal(vp_estimate_with_suggestions(f, fe, &err), VP_OK);
    assert_false(fe->fits);
    for (int i = 0; i < fe->n_suggestions; i++) assert_null(strstr(fe->suggestions[i].ids[0] ? fe->suggestions[i].ids : fe->suggestions[i].id, "vae_tiling"));
    free(fe);
    vp_plan_free(f);
}

/* A pipeline's offloaded components are in CPU RAM (estimate.c diff_on_cpu): from_pretrained loads them there and the
 * offload hooks keep them there. HunyuanVideo in bf16 with model offload: its four components' weights,
 * (12,821,012,544 + 7,505,186,816 + 123,060,480 + 246,478,803) × 2 B = 41,391,477,286 B; 32 GiB of RAM is not enough.
 * Everything on the GPU holds nothing there (no CPU device). */
static void offload_cpu_ram(void **s) {
    (void)s;
    const char *inst = pipeline_instances("hunyuanvideo", "bf16", 1, 1, 0);
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":61,\"height\":544,\"width\":960%s}";
    const vp_estimate *e = t_estimate(t_plan(t_fmt(wl, ",\"diffusion\":{\"offload\":\"model\",\"vae_tiling\":true}"), inst,
                                             "{\"gpu\":\"h100-sxm-80gb\",\"count\":1,\"cpu_ram_bytes\":34359738368}"));
    const vp_device *cpu = &e->devices[e->n_devices - 1];
    assert_int_equal(cpu->index, -1);
    assert_u64_equal(cpu->peak_alloc_bytes, 41391477286ULL);
    assert_false(cpu->fits);
    assert_false(e->fits);
    assert_string_equal(cpu->peak_phase, "load");
    /* sequential offload keeps the same copies (accelerate cpu_offload's state dict) */
    const vp_estimate *q = t_estimate(t_plan(t_fmt(wl, ",\"diffusion\":{\"offload\":\"sequential\"}"), inst, NULL));
    assert_u64_equal(q->devices[q->n_devices - 1].peak_alloc_bytes, 41391477286ULL);
    const vp_estimate *none = t_estimate(t_plan(t_fmt(wl, ""), inst, NULL));
    for (int i = 0; i < none->n_devices; i++) assert_int_not_equal(none->devices[i].index, -1);
}

/* the suggestions of a plan (NULL when it has none of id), each re-estimated by the core */
static const vp_suggestion *suggestion(const char *wl, const char *inst, const char *hw, const char *id, vp_estimate *e) {
    vp_error err;
    vp_plan *p = vp_plan_from_json(t_plan(wl, inst, hw), t_registry(), &err);
    if (!p) fail_msg("%s: %s", err.path, err.message);
    assert_int_equal(vp_estimate_with_suggestions(p, e, &err), VP_OK);
    vp_plan_free(p);
    for (int i = 0; i < e->n_suggestions; i++)
        if (!strcmp(e->suggestions[i].id, id)) return &e->suggestions[i];
    return NULL;
}

/* Sequential offload and float8 weight storage as suggestions (plan_suggest.c r_seq_offload, r_fp8_storage): each is
 * the plan re-estimated with that one change, and the rules of when they apply. */
static void offload_fp8_suggestions(void **s) {
    (void)s;
    vp_estimate *e = malloc(sizeof *e);
    assert_non_null(e);
    /* CogVideoX-5b with model offload and tiling on a 16 GB T4: tight, so suggestions are made */
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"offload\":\"%s\",\"vae_tiling\":true}}";
    const char *inst = pipeline_instances("cogvideox-5b", "bf16", 1, 0, 0);
    const char *t4 = "{\"gpu\":\"t4\",\"count\":1}";
    const vp_suggestion *g = suggestion(t_fmt(wl, "model"), inst, t4, "sequential_offload", e);
    assert_non_null(g);
    const vp_estimate *seq = t_estimate(t_plan(t_fmt(wl, "sequential"), inst, t4));
    assert_u64_equal(g->peak_reserved_bytes, seq->devices[0].peak_reserved_bytes);
    g = suggestion(t_fmt(wl, "model"), inst, t4, "fp8_storage", e);
    assert_non_null(g);
    /* the change is the transformer's "quant": "fp8"; its weights are 4,757,501,952 B lighter (fp8_layerwise above) */
    const char *inst8 = t_fmt("{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"cogvideox-5b\"},"
                              "\"precision\":\"bf16\",\"activations\":\"no_grad\",\"quant\":\"fp8\"}%s",
                              strstr(inst, ",{\"name\":\"text_encoder\"")); /* the text encoder and VAE as in inst */
    assert_u64_equal(g->peak_reserved_bytes, t_estimate(t_plan(t_fmt(wl, "model"), inst8, t4))->devices[0].peak_reserved_bytes);
    /* (without offload every component is resident at the peak, so the breakdown shows the transformer's weights) */
    const vp_estimate *f8 = t_estimate(t_plan(t_fmt(wl, "none"), inst8, NULL));
    const vp_estimate *bf = t_estimate(t_plan(t_fmt(wl, "none"), inst, NULL));
    assert_u64_equal(t_component(bf, 0, "weights", "transformer") - t_component(f8, 0, "weights", "transformer"), 4757501952ULL);
    assert_true(g->saves_bytes > 0);

    /* HunyuanVideo at 129 × 720 × 1280 on a 24 GB card does not fit: sequential offload is listed, and a combination
     * takes model or sequential offload, not both (the second replaces the first). The greedy combination starts from
     * model offload, the largest single saving (97 -> 50 GiB), and ends above the card with VAE tiling and float8
     * storage; the second try without it takes VAE tiling + group offloading, which fits */
    const char *hy = pipeline_instances("hunyuanvideo", "bf16", 1, 1, 0);
    const char *hwl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":129,\"height\":720,\"width\":1280}";
    assert_non_null(suggestion(hwl, hy, "{\"gpu\":\"rtx-4090\",\"count\":1}", "sequential_offload", e));
    assert_false(e->fits);
    int combined = 0;
    for (int i = 0; i < e->n_suggestions; i++) {
        const vp_suggestion *c = &e->suggestions[i];
        if (strcmp(c->id, "combined")) continue;
        combined = 1;
        assert_false(strstr(c->ids, "model_offload") && strstr(c->ids, "sequential_offload"));
        assert_string_equal(c->ids, "vae_tiling,group_offload");
        assert_true(c->fits);
    }
    assert_true(combined);

    /* LoRA training: without checkpointing the upcast bf16 copy of every float8 Linear is saved for backward, more than
     * the byte per parameter float8 saves (fp8_layerwise above), so it is not suggested; with checkpointing it is */
    const char *lora = "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-5b\"},\"precision\":\"bf16\",\"finetune\":{\"method\":"
                       "\"lora\",\"lora\":{\"r\":64}},\"grad_ckpt\":%s,\"optimizer\":{\"name\":\"adamw\"}}";
    const char *twl = "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720}";
    const char *r4090 = "{\"gpu\":\"rtx-4090\",\"count\":1}";
    assert_null(suggestion(twl, t_fmt(lora, "false"), r4090, "fp8_storage", e));
    assert_false(e->fits);
    assert_non_null(suggestion(twl, t_fmt(lora, "true"), "{\"gpu\":\"rtx-4080\",\"count\":1}", "fp8_storage", e));
    /* a fully fine-tuned DiT keeps its weights: quantized weights are frozen */
    const char *full = "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-2b\"},\"precision\":\"bf16\",\"finetune\":{\"method\":"
                       "\"full\"},\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"}}";
    assert_null(suggestion(twl, full, "{\"gpu\":\"rtx-4080\",\"count\":1}", "fp8_storage", e));
    assert_true(e->n_suggestions > 0);
    free(e);
}

/* The CogVideoX encode of 49 × 480 × 720 in bf16 (vae.c vp_vae_encode_peak): 9 frames in the first encoder call
 * (num_sample_frames_batch_size 8, + the odd first frame), a conv of the first down block's second resnet: the block's
 * input, the resnet's input, SiLU's output and the conv's output, 128 channels × 9 × 480 × 720 each (4 × 398,131,200 =
 * 1,592,524,800 elements), the causal conv's padded copy, 128 × 11 frames × 482 × 722 = 489,989,632, and cuDNN's
 * workspace, that copy + the output: 1,592,524,800 + 2 × 489,989,632 = 2,572,504,064 elements, 5,145,008,128 B. */
static void vae_encode_3d(void **s) {
    (void)s;
    vp_arch v = t_arch_of("cogvideox-2b/vae");
    vp_vae_peak pk;
    vp_vae_encode_peak(&v, 1, 49, 480, 720, 2.0, 0, 0, &pk);
    assert_int_equal(pk.chunk_frames, 9);
    assert_true(fabs(pk.bytes - 5145008128.0) < 1.0);
    assert_true(fabs(pk.out_bytes - 3.0 * 49 * 480 * 720 * 2.0) < 1.0); /* the input video */
}

/* CogVideoX VAE decode of 49 frames at 480×720 in bf16, no tiling (autoencoder_kl_cogvideox.py at 58eb52c0; vae.c
 * cog_call_peak): 13 latent frames decode in 6 calls, the first of 3 latent frames (-> 9 pixel frames), the others of
 * 2 (-> 8). Caches (CogVideoXCausalConv3d line 141, inputs[:, :, -k+1:].clone()): 2 frames of every 3×3×3 conv's input
 * and, for the kernel-1 conv_y / conv_b of each spatial norm, the whole zq copy (16 channels × the frames at that
 * level). _decode keeps the previous call's dict alive through the next call, so the second call peaks, at norm2 of
 * the last resnet of the last up block (the H100 trace's peak; tests/groundtruth/h100-2026-11-24-diffusion). In units
 * of one channel × one frame over 345,600 px (691,200 B), frames per up block 3/5/9/9 (call 1), 2/4/8/8 (call 2):
 *   activations: the block's input 256 (held by the caller), the resnet's input 128, conv1's output f 128, conv_y,
 *     conv_b, norm_f, product, sum 5 × 128, the interpolated zq 16: 1,168 channels × 8 frames          =  9,344
 *   call 1's whole dict: conv_in 32/64 + mid 2 × (96 + 1024 + 96 + 1024)/64 + up0 4 × 2,240/64
 *     + up1 (1,856 + 3 × 1,344)/16 + up2 4 × 1,600/4 + up3 (1,344 + 3 × 1,088) + norm_out 288 + conv_out 256 =  7,330.5
 *   call 2 so far: 0.5 + 4,352/64 + 8,704/64 + (1,792 + 3 × 1,280)/16 + 6,144/4 + (1,280 + 2 × 1,024 + 768) =  6,188.5
 *   call 1's decoded frames in _decode's `dec` list, 3 × 9                                                =     27
 *   22,890 × 691,200 = 15,821,568,000 B (measured on the H100 in fp16, the same bytes: 15,831,533,568, -0.06%; the first
 *   call alone peaks at 11,779,776,000). With enable_tiling the tile is 240 × 360 (sample size / 2): a quarter of
 *   every term, 3,955,392,000, plus the tiles decoded before the last full-size one, kept for the blend (tiled_decode
 *   lines 1358-1383; 3 × 3 tiles at strides 25 × 36 latents): 3 × 49 frames × (3 × 86,400 + 240 × 144) px × 2 B =
 *   86,365,440: 4,041,757,440 B (measured 4,056,316,416, -0.36%). */
static void vae_decode_peak(void **s) {
    (void)s;
    vp_arch v = t_arch_of("cogvideox-5b/vae");
    vp_vae_peak pk;
    vp_vae_decode_peak(&v, 1, 49, 480, 720, 2.0, 0, 0, 0, &pk);
    assert_int_equal(pk.chunk_frames, 8);
    assert_u64_equal((uint64_t)pk.bytes, 15821568000ULL);
    vp_vae_decode_peak(&v, 1, 49, 480, 720, 2.0, 1, 0, 0, &pk);
    assert_int_equal(pk.tile_h, 240);
    assert_int_equal(pk.tile_w, 360);
    assert_u64_equal((uint64_t)pk.bytes, 4041757440ULL);
    /* diffusers 0.30.1-0.30.3 (autoencoder_kl_cogvideox.py at v0.30.1; the code of the Aug 2024 figures): each
     * CogVideoXCausalConv3d keeps its cache as an attribute and deletes it before cloning the new one (lines 133-139),
     * so during call 2 every conv holds one cache, call 2's where it has run and call 1's for the rest of the last up
     * block and norm_out; the spatial norm computes norm_f first and frees conv_y's output once multiplied (lines
     * 192-193): f, norm_f, the product, conv_b(zq), the sum = 5 × 256 channels (conv1's f, h, cat and F.pad copy over
     * 8 + 2 frames: 512 + 2 × 256 × 10/8 = 1,152 is less):
     *   activations 1280 × 345,600 px × 8 frames × 2 B                      = 7,077,888,000
     *   3×3×3 caches, 2 frames of every conv (16 × (128 + 88) × 691,200)     = 2,388,787,200
     *   call 2's zq copies so far (as above)                                 =   583,372,800
     *   call 1's zq copies of the last block's other 8 norms and norm_out      8 × 9 frames × 22,118,400 = 1,592,524,800
     *   total 11,642,572,800 B (call 1: 7,962,624,000 + 664,934,400 + 973,209,600 = 9,600,768,000); a 240 × 360 tile
     *   is a quarter: 2,910,643,200 B. */
    vp_vae_decode_peak(&v, 1, 49, 480, 720, 2.0, 0, 0, VP_DIFFUSERS_0_30, &pk);
    assert_u64_equal((uint64_t)pk.bytes, 11642572800ULL);
    vp_vae_decode_peak(&v, 1, 49, 480, 720, 2.0, 1, 0, VP_DIFFUSERS_0_30, &pk);
    assert_u64_equal((uint64_t)pk.bytes, 2910643200ULL);
    /* slicing decodes one sample at a time: batch 2 with slicing = batch 1 */
    vp_vae_peak one, two;
    vp_vae_decode_peak(&v, 1, 49, 480, 720, 2.0, 0, 1, 0, &one);
    vp_vae_decode_peak(&v, 2, 49, 480, 720, 2.0, 0, 1, 0, &two);
    assert_true(one.bytes == two.bytes);
    /* HunyuanVideo (vae.c hunyuan_call_peak, from autoencoder_kl_hunyuan_video.py): temporal tiles of 4 + 1 latent
     * frames, each decoded to 1 + 4 × 4 = 17 frames. At 121 × 512 × 768 in bf16, untiled, the peak is the conv of the
     * last upsampler (256 channels): its input (9 frames at 256 × 384: 884,736 px), first_frame interpolated
     * (393,216), the other 16 frames interpolated (6,291,456), their cat (17 × 393,216 = 6,684,672), F.pad's copy
     * (19 × 514 × 770 = 7,519,820), the output (6,684,672) and cuDNN's workspace (pad + output: 14,204,492):
     *   256 × 42,663,064 = 10,921,744,384 elements × 2 B = 21,843,488,768 B
     * (conv1 of the last up block's first resnet: 256 × 2 × 6,684,672 + 256 × 2 × 7,519,820 + 128 × 2 × 6,684,672 =
     * 8,983,975,936 elements, less; the mid attention's mask, scores and softmax, 3 × (5 × 64 × 96)² = 2,831,155,200,
     * less). The HF video blog's 4-bit + model offload row, where this decode is alone on the GPU, is 21.99 GiB. With
     * enable_tiling (256 × 256 tiles): 256 × 7,133,336 × 2 B = 3,652,268,032 B. */
    vp_arch hv = t_arch_of("hunyuanvideo/vae");
    vp_vae_decode_peak(&hv, 1, 121, 512, 768, 2.0, 0, 0, 0, &pk);
    assert_int_equal(pk.chunk_frames, 17);
    assert_u64_equal((uint64_t)pk.bytes, 21843488768ULL);
    assert_contains(pk.where, "last upsampler");
    vp_vae_decode_peak(&hv, 1, 121, 512, 768, 2.0, 1, 0, 0, &pk);
    assert_u64_equal((uint64_t)pk.bytes, 3652268032ULL);
    /* the estimate reports the decode under the VAE instance */
    const vp_estimate *e = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720}",
                                              "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"cogvideox-5b/vae\"},"
                                              "\"precision\":\"bf16\",\"activations\":\"no_grad\"}"));
    assert_u64_equal(t_component(e, 0, "vae_decode", "vae"), 15821568000ULL);
    assert_string_equal(e->devices[0].peak_phase, "vae_decode");
}

/* transformers keeps T5's wo in fp32 when the encoder is loaded with torch_dtype=torch.float16
 * (T5PreTrainedModel / UMT5PreTrainedModel _keep_in_fp32_modules = ["wo"]; modeling_utils.py applies it for float16
 * only): T5-v1.1-XXL has 24 blocks of wo = Linear(10240, 4096), 24 × 10240 × 4096 = 1,006,632,960 params at 4 B:
 *   fp16: (4,762,310,656 - 1,006,632,960) × 2 + 1,006,632,960 × 4 = 9,524,621,312 + 2,013,265,920 = 11,537,887,232 B
 *   bf16: 4,762,310,656 × 2 = 9,524,621,312 B (no upcast)
 * the same for UMT5-XXL (Wan): 5,680,910,336 × 2 + 2,013,265,920 = 13,375,086,592 B in fp16. */
static void t5_wo_fp32(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720}";
    const char *fmt = "{\"name\":\"text_encoder\",\"role\":\"reference\",\"model\":{\"preset\":\"%s\"},\"precision\":\"%s\","
                      "\"activations\":\"no_grad\"}";
    const vp_estimate *h = t_estimate(t_plan(wl, t_fmt(fmt, "cogvideox-2b/text_encoder", "fp16"), NULL));
    assert_u64_equal(t_component(h, 0, "weights", "text_encoder"), 11537887232ULL);
    const vp_estimate *b = t_estimate(t_plan(wl, t_fmt(fmt, "cogvideox-2b/text_encoder", "bf16"), NULL));
    assert_u64_equal(t_component(b, 0, "weights", "text_encoder"), 9524621312ULL);
    const vp_estimate *u = t_estimate(t_plan(wl, t_fmt(fmt, "wan2.1-t2v-14b/text_encoder", "fp16"), NULL));
    assert_u64_equal(t_component(u, 0, "weights", "text_encoder"), 13375086592ULL);
    /* the replay allocates the same bytes: the text encoder's phase peak holds them */
    assert_true(h->devices[0].peak_alloc_bytes >= 11537887232ULL);
    /* bitsandbytes keeps wo fp32 and unquantized whatever the dtype (use_keep_in_fp32_modules = True in its quantizers;
     * modules_to_not_convert gets keep_in_fp32_modules). T5-XXL's block Linears: 24 × (4 × 4096² + 2 × 4096 × 10240 +
     * 10240 × 4096) = 4,630,511,616, of which wo 1,006,632,960; the other 131,799,040 (the shared embedding 32128 × 4096,
     * the norms, the relative attention bias) stay in the compute dtype:
     *   int8, fp16: 3,623,878,656 × 1 + 131,799,040 × 2 + 1,006,632,960 × 4 = 7,914,008,576 B
     *   int8, bf16: the same (wo fp32 here too)
     *   NF4, bf16:  3,623,878,656 × 0.5 + 131,799,040 × 2 + 1,006,632,960 × 4 = 6,102,069,248 B */
    const char *q = "{\"name\":\"text_encoder\",\"role\":\"reference\",\"model\":{\"preset\":\"cogvideox-2b/text_encoder\"},"
                    "\"precision\":\"%s\",\"quant\":\"%s\",\"activations\":\"no_grad\"}";
    assert_u64_equal(t_component(t_estimate(t_plan(wl, t_fmt(q, "fp16", "int8"), NULL)), 0, "weights", "text_encoder"), 7914008576ULL);
    assert_u64_equal(t_component(t_estimate(t_plan(wl, t_fmt(q, "bf16", "int8"), NULL)), 0, "weights", "text_encoder"), 7914008576ULL);
    assert_u64_equal(t_component(t_estimate(t_plan(wl, t_fmt(q, "bf16", "nf4"), NULL)), 0, "weights", "text_encoder"), 6102069248ULL);
}

/* Classifier-free guidance: CogVideoXPipeline concatenates [uncond, cond] latents, so the transformer's step
 * temporaries double (17,776 tokens × 2); WanPipeline runs a second transformer call instead, so they do not. */
static void cfg_doubling(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720%s}";
    /* the transformer alone, so that its step is the peak */
    const char *inst = "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"cogvideox-5b\"},"
                       "\"precision\":\"bf16\",\"activations\":\"no_grad\"}";
    const vp_estimate *on = t_estimate(t_plan(t_fmt(wl, ""), inst, NULL));
    uint64_t with_cfg = t_component(on, 0, "inference_temp", "transformer");
    const vp_estimate *off = t_estimate(t_plan(t_fmt(wl, ",\"diffusion\":{\"cfg\":false}"), inst, NULL));
    uint64_t without = t_component(off, 0, "inference_temp", "transformer");
    /* one block at a time: tokens × 2 B × (6 × 3072 + 2 × 12288) = 86,016 B per token */
    assert_u64_equal(without, 17776ULL * 86016ULL);
    assert_u64_equal(with_cfg, 2ULL * 17776ULL * 86016ULL);
    const char *wi = "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-1.3b\"},"
                     "\"precision\":\"bf16\",\"activations\":\"no_grad\"}";
    const char *ww = "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832%s}";
    uint64_t w_on = t_component(t_estimate(t_plan(t_fmt(ww, ""), wi, NULL)), 0, "inference_temp", "transformer");
    uint64_t w_off = t_component(t_estimate(t_plan(t_fmt(ww, ",\"diffusion\":{\"cfg\":false}"), wi, NULL)), 0, "inference_temp", "transformer");
    assert_u64_equal(w_on, w_off);
    assert_u64_equal(w_on, 32760ULL * 2ULL * (6ULL * 1536 + 2ULL * 8960));
}

/* bitsandbytes' LLM.int8 matmul at inference (diffusion_workload.c vp_dit_int8_matmul_per_token): per token, the
 * input's int8 copy (K B) and the int32 GEMM output (4M B) of the widest Linear of a block. HunyuanVideo (h 3072, FF
 * 12288, single-stream blocks): linear1 of a single-stream block, 3072 -> 3 × 3072 + 12288 = 21,504: 3072 + 4 × 21,504
 * = 89,088 B; Wan2.1-1.3B (h 1536, FF 8960, no single-stream blocks): the FF up projection, 1536 + 4 × 8960 = 37,376 B.
 * The estimate carries it as its own component for an 8-bit transformer, none for a 16-bit one. */
static void int8_matmul(void **s) {
    (void)s;
    vp_arch hy = t_arch_of("hunyuanvideo"), wan = t_arch_of("wan2.1-t2v-1.3b");
    assert_true(vp_dit_int8_matmul_per_token(&hy) == 89088.0);
    assert_true(vp_dit_int8_matmul_per_token(&wan) == 37376.0);
    const char *inst = "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-1.3b\"},"
                       "\"precision\":\"bf16\"%s,\"activations\":\"no_grad\"}";
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832,\"diffusion\":{\"cfg\":false}}";
    /* 21 × 30 × 52 = 32,760 tokens, no CFG: 32,760 × 37,376 = 1,224,437,760 B */
    assert_u64_equal(t_component(t_estimate(t_plan1(wl, t_fmt(inst, ",\"quant\":\"int8\""))), 0, "int8_matmul", "transformer"),
                     1224437760ULL);
    assert_u64_equal(t_component(t_estimate(t_plan1(wl, t_fmt(inst, ""))), 0, "int8_matmul", "transformer"), 0);
}

/* the allocated peak of the phase with this name (0 when there is none) */
static uint64_t phase_alloc(const vp_estimate *e, const char *name) {
    for (int i = 0; i < e->devices[0].n_phases; i++)
        if (!strcmp(e->devices[0].phases[i].name, name)) return e->devices[0].phases[i].alloc_bytes;
    return 0;
}

/* enable_model_cpu_offload places no hook on a bitsandbytes 8-bit component (diffusers pipeline_utils.py, lines
 * 1264-1272): HunyuanVideo's int8 transformer stays on the GPU through the text encoders and the VAE decode, so the
 * decode phase holds its weights more than with workload.diffusion.offload_8bit (newer transformers and bitsandbytes,
 * where the hook is placed) or an NF4 transformer, which is offloaded either way. */
static void offload_8bit_resident(void **s) {
    (void)s;
    const char *inst = "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"hunyuanvideo\"},\"precision\":"
                       "\"bf16\",\"quant\":\"%s\",\"activations\":\"no_grad\"},{\"name\":\"vae\",\"role\":\"reference\",\"model\":"
                       "{\"preset\":\"hunyuanvideo/vae\"},\"precision\":\"bf16\",\"activations\":\"no_grad\"}";
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":61,\"height\":512,\"width\":768,\"diffusion\":{\"offload\":"
                     "\"model\",\"vae_tiling\":true%s}}";
    const vp_estimate *stay = t_estimate(t_plan1(t_fmt(wl, ""), t_fmt(inst, "int8")));
    const vp_estimate *go = t_estimate(t_plan1(t_fmt(wl, ",\"offload_8bit\":true"), t_fmt(inst, "int8")));
    const vp_estimate *nf4 = t_estimate(t_plan1(t_fmt(wl, ""), t_fmt(inst, "nf4")));
    const vp_estimate *nf4_flag = t_estimate(t_plan1(t_fmt(wl, ",\"offload_8bit\":true"), t_fmt(inst, "nf4")));
    uint64_t w8 = t_component(stay, 0, "weights", "transformer");
    assert_true(w8 > 12000000000ULL && w8 < 14000000000ULL); /* 12.8B params, the block Linears in 1 B */
    /* its weights and the int8 row scales (quant_constants) stay */
    assert_u64_equal(phase_alloc(stay, "vae_decode") - phase_alloc(go, "vae_decode"),
                     w8 + t_component(stay, 0, "quant_constants", "transformer"));
    assert_u64_equal(phase_alloc(nf4, "vae_decode"), phase_alloc(nf4_flag, "vae_decode"));
    assert_u64_equal(phase_alloc(nf4, "vae_decode"), phase_alloc(go, "vae_decode"));
}

/* Offload modes, in pipeline order: without offload every component stays, with enable_model_cpu_offload one
 * component at a time (the peak names it), with enable_sequential_cpu_offload one module's weights. */
static void offload_modes(void **s) {
    (void)s;
    const char *inst = pipeline_instances("cogvideox-5b", "bf16", 1, 0, 0);
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"offload\":\"%s\",\"vae_tiling\":%s}}";
    const vp_estimate *none = t_estimate(t_plan(t_fmt(wl, "none", "false"), inst, NULL));
    const vp_estimate *model = t_estimate(t_plan(t_fmt(wl, "model", "true"), inst, NULL));
    const vp_estimate *seq = t_estimate(t_plan(t_fmt(wl, "sequential", "true"), inst, NULL));
    assert_string_equal(none->devices[0].peak_phase, "vae_decode");
    assert_string_equal(model->devices[0].peak_phase, "transformer");
    /* model offload at the transformer: its weights only (5,570,283,072 × 2 B) beside the step */
    assert_u64_equal(t_component(model, 0, "weights", "transformer"), 5570283072ULL * 2);
    assert_u64_equal(t_component(model, 0, "weights", "text_encoder"), 0);
    assert_true(seq->devices[0].peak_alloc_bytes < model->devices[0].peak_alloc_bytes);
    assert_true(model->devices[0].peak_alloc_bytes < none->devices[0].peak_alloc_bytes);
    /* phases in the pipeline's order */
    assert_string_equal(none->devices[0].phases[1].name, "text_encoder");
    assert_string_equal(none->devices[0].phases[2].name, "transformer");
    assert_string_equal(none->devices[0].phases[3].name, "vae_decode");
}

/* instances[].group_offload (diffusion_plan.c vp_diff_group_share; diffusers hooks/group_offloading.py), as the
 * diffusers docs' Wan2.1-T2V-14B example runs it (docs/source/en/api/pipelines/wan.md at 58eb52c0): the UMT5 text
 * encoder under apply_group_offloading(block_level, num_blocks_per_group=4), the transformer under
 * enable_group_offload(leaf_level, use_stream=True), the fp32 VAE moved to the GPU by pipeline.to("cuda"), 81x480x832.
 *  - UMT5EncoderModel's top-level children are `shared` and `encoder` (a UMT5Stack, not a ModuleList), so block_level
 *    finds no block list: one unmatched group, the whole encoder on the GPU while it runs, 5,680,910,336 × 2 B =
 *    11,361,820,672 B, and none of it after;
 *  - leaf_level with a stream: the running Linear and the prefetched next, at most 2 × the FFN's 5120 × 13824 =
 *    70,778,880 parameters × 2 B = 283,115,520 B during the steps;
 *  - block_level on the transformer with 2 blocks per group: the 2 blocks (351,394,304 parameters each: 4 q/k/v/out
 *    Linears with biases in each of 2 attentions 104,888,320 + norm2 10,240 + FFN 141,576,704 + scale_shift_table
 *    30,720) and everything outside transformer_blocks (14,288,491,584 - 40 × 351,394,304 = 232,719,424):
 *    935,508,032 × 2 B = 1,871,016,064 B; use_stream means one block per group and the next prefetched, the same;
 *    40 per group is the whole model.
 * The peak is the text encoder's phase: the encoder, the VAE (126,892,531 × 4 B) and the encoder's forward. */
static void group_offload(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832}";
    const char *fmt = "{\"name\":\"text_encoder\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-14b/text_encoder\"},"
                      "\"precision\":\"bf16\",\"activations\":\"no_grad\",\"group_offload\":{\"type\":\"block_level\",\"num_blocks_per_group\":4}},"
                      "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-14b\"},\"precision\":\"bf16\","
                      "\"activations\":\"no_grad\",\"group_offload\":%s},"
                      "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-14b/vae\"},\"precision\":\"fp32\","
                      "\"activations\":\"no_grad\"}";
    const vp_estimate *e = t_estimate(t_plan(wl, t_fmt(fmt, "{\"type\":\"leaf_level\",\"use_stream\":true}"), NULL));
    const vp_device *d = &e->devices[0];
    assert_string_equal(d->peak_phase, "text_encoder");
    assert_u64_equal(t_component(e, 0, "weights", "text_encoder"), 11361820672ULL);
    assert_u64_equal(t_component(e, 0, "weights", "transformer"), 0); /* on the CPU outside its phase */
    assert_u64_equal(t_component(e, 0, "weights", "vae"), 126892531ULL * 4);
    assert_u64_equal(d->peak_alloc_bytes, 11361820672ULL + 126892531ULL * 4 + t_component(e, 0, "inference_temp", "text_encoder") +
                                              t_component(e, 0, "cublas_workspace", NULL));
    /* during the steps: the transformer's group(s), the VAE, the step's temporaries */
    const vp_estimate *b2 = t_estimate(t_plan(wl, t_fmt(fmt, "{\"type\":\"block_level\",\"num_blocks_per_group\":2}"), NULL));
    const vp_estimate *bs = t_estimate(t_plan(wl, t_fmt(fmt, "{\"type\":\"block_level\",\"use_stream\":true}"), NULL));
    const vp_estimate *lf = t_estimate(t_plan(wl, t_fmt(fmt, "{\"type\":\"leaf_level\",\"use_stream\":true}"), NULL));
    const vp_estimate *all = t_estimate(t_plan(wl, t_fmt(fmt, "{\"type\":\"block_level\",\"num_blocks_per_group\":40}"), NULL));
    assert_u64_equal(t_component(lf, 0, "weights", "transformer"), 0); /* the peak is T5's phase: not there */
    assert_u64_equal(t_phase(b2, 0, "transformer") - t_phase(lf, 0, "transformer"), 1871016064ULL - 283115520ULL);
    assert_u64_equal(t_phase(bs, 0, "transformer"), t_phase(b2, 0, "transformer"));
    assert_u64_equal(t_phase(all, 0, "transformer") - t_phase(lf, 0, "transformer"), 14288491584ULL * 2 - 283115520ULL);
    /* refused: in training, on a model that is not a pipeline component, an unknown type or field */
    const char *tr = "{\"name\":\"transformer\",\"model\":{\"preset\":\"wan2.1-t2v-1.3b\"},\"precision\":\"bf16\","
                     "\"finetune\":{\"method\":\"lora\"},\"group_offload\":{\"type\":\"leaf_level\"}}";
    t_expect_error(t_plan("{\"mode\":\"train\",\"batch\":1,\"frames\":17,\"height\":256,\"width\":256}", tr, NULL), VP_ERR_FIELD,
                   "instances[0].group_offload");
    t_expect_error(t_plan("{\"mode\":\"infer\",\"batch\":1,\"seq\":128}",
                          "{\"name\":\"m\",\"model\":{\"preset\":\"gpt2\"},\"group_offload\":{\"type\":\"leaf_level\"}}", NULL),
                   VP_ERR_FIELD, "instances[0].group_offload");
    t_expect_error(t_plan(wl, t_fmt(fmt, "{\"type\":\"module_level\"}"), NULL), VP_ERR_UNSUPPORTED,
                   "instances[1].group_offload.type");
    t_expect_error(t_plan(wl, t_fmt(fmt, "{\"use_stream\":true}"), NULL), VP_ERR_FIELD, "instances[1].group_offload.type");
    t_expect_error(t_plan(wl, t_fmt(fmt, "{\"type\":\"leaf_level\",\"stream\":true}"), NULL), VP_ERR_FIELD,
                   "instances[1].group_offload.stream");
    /* diffusers itself refuses model / sequential offload beside group offloading; after_use has nothing to do */
    const char *wl_model = "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832,\"diffusion\":{\"offload\":\"model\"}}";
    t_expect_error(t_plan(wl_model, t_fmt(fmt, "{\"type\":\"leaf_level\"}"), NULL), VP_ERR_FIELD, "instances[0].group_offload");
    const char *after = "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-14b\"},"
                        "\"activations\":\"no_grad\",\"after_use\":\"cpu\",\"group_offload\":{\"type\":\"leaf_level\"}}";
    t_expect_error(t_plan(wl, after, NULL), VP_ERR_FIELD, "instances[0].after_use");
}

/* enable_model_cpu_offload and the allocator's cache: accelerate >= 0.34 calls clear_device_cache()
 * (torch.cuda.empty_cache()) right after the next component's hook offloads the previous one (hooks.py
 * CpuOffload.pre_forward, PR #2994), so T5-XXL's 8.87 GiB of freed segments go back to the driver before the
 * CogVideoX-5b transformer loads; with accelerate 0.33 they stay cached and only partly fit the transformer's
 * tensors (T5's 32 / 80 MiB blocks against 18 / 72 MiB ones). Allocated memory is the same either way. */
static void offload_empty_cache(void **s) {
    (void)s;
    const char *inst = pipeline_instances("cogvideox-5b", "bf16", 1, 0, 0);
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,"
                     "\"diffusion\":{\"offload\":\"model\",\"vae_tiling\":true%s}}";
    const vp_device *now = &t_estimate(t_plan(t_fmt(wl, ""), inst, NULL))->devices[0];
    const vp_device *old = &t_estimate(t_plan(t_fmt(wl, ",\"offload_empty_cache\":false"), inst, NULL))->devices[0];
    assert_u64_equal(now->peak_alloc_bytes, old->peak_alloc_bytes);
    /* 0.33: T5's segments stay beside the transformer: more than 2 GiB reserved above the allocated peak */
    assert_true(old->peak_reserved_bytes > now->peak_alloc_bytes + (2ULL << 30));
    /* >= 0.34: each component starts from an empty cache; what is left is the step's own slack, the transformer's
     * forward replayed op by op (events_cogvideox.c): 2.13 GiB, where the H100 measured 2.06 (15.13 GiB reserved for
     * 13.07 allocated, tests/groundtruth/h100-2026-11-24-diffusion, pipe:cogvideox-5b:bf16:49:480:720:model:tiling) */
    assert_true(now->peak_reserved_bytes < now->peak_alloc_bytes + (5ULL << 29));
    assert_true(now->peak_reserved_bytes > now->peak_alloc_bytes + (3ULL << 29));
    assert_true(now->peak_reserved_bytes < old->peak_reserved_bytes);
}

/* torch.autocast's weight-cast cache (timeline_diffusion.c vp_dit_autocast_cache_bytes; PyTorch autocast_mode.cpp
 * cached_cast): Mochi loaded in fp32 and run under autocast(bf16) keeps a bf16 copy of every weight it casts until
 * the context exits: 10,027,677,744 × 2 B = 20,055,355,488 B beside the 40,110,710,976 B of fp32 weights, from the
 * transformer's phase through the decode (inside the same pipeline call). autocast(cache_enabled=False) (the
 * instance's "autocast_cache": false), a bf16 model (nothing to cast) or a text encoder: no cache. */
static void autocast_cache(void **s) {
    (void)s;
    const char *fmt = "{\"name\":\"%s\",\"role\":\"reference\",\"model\":{\"preset\":\"%s\"},\"precision\":\"%s\","
                      "\"activations\":\"no_grad\"}";
    const char *amp = t_fmt("%s,%s", t_fmt(fmt, "transformer", "mochi-1", "amp_bf16"), t_fmt(fmt, "vae", "mochi-1/vae", "fp32"));
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":85,\"height\":480,\"width\":848,"
                     "\"diffusion\":{\"offload\":\"model\",\"vae_tiling\":true%s}}";
    const char *amp_off = t_fmt("{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"mochi-1\"},"
                                "\"precision\":\"amp_bf16\",\"activations\":\"no_grad\",\"autocast_cache\":false},%s",
                                t_fmt(fmt, "vae", "mochi-1/vae", "fp32"));
    const vp_estimate *on = t_estimate(t_plan(t_fmt(wl, ""), amp, NULL));
    const vp_estimate *off = t_estimate(t_plan(t_fmt(wl, ""), amp_off, NULL));
    assert_u64_equal(t_component(on, 0, "weights", "transformer"), 40110710976ULL);
    assert_u64_equal(t_component(on, 0, "autocast_cache", "transformer"), 20055355488ULL);
    assert_u64_equal(t_component(off, 0, "autocast_cache", "transformer"), 0);
    /* the same step, 20,055,355,488 B higher (both peaks in the transformer's phase) */
    assert_string_equal(on->devices[0].peak_phase, "transformer");
    assert_u64_equal(on->devices[0].peak_alloc_bytes - off->devices[0].peak_alloc_bytes, 20055355488ULL);
    const vp_estimate *bf = t_estimate(t_plan(t_fmt(wl, ""), t_fmt(fmt, "transformer", "mochi-1", "bf16"), NULL));
    assert_u64_equal(t_component(bf, 0, "autocast_cache", "transformer"), 0);
}

/* workload.steps (plan_parse.c, timeline_train.c, events_train.c): a figure logged after the first optimizer step. Its
 * forward and backward run before torch.optim makes the state (Adam's _init_group at the first step()), so they hold
 * CogVideoX-5b's bf16 weights without m and v: 5,570,283,072 trainable parameters × 2 states × 2 B = 22,281,132,288 B
 * less in the forward than at the steady state; the optimizer step holds them either way. The replay walks one step
 * instead of three, so the reserved memory is what step 1 left (finetrainers' "after epoch 1" of one sample:
 * published_within_10). DeepSpeed's ZeRO optimizers make their state when built (stage_1_and_2.py
 * initialize_optimizer_states): their step 1 holds it. A count of steps is a training count: refused at inference. */
static void first_step(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720%s}";
    const char *inst = one("cogvideox-5b", ",\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"},\"autocast\":true");
    const vp_estimate *steady = t_estimate(t_plan(t_fmt(wl, ""), inst, NULL));
    const vp_estimate *first = t_estimate(t_plan(t_fmt(wl, ",\"steps\":1"), inst, NULL));
    const vp_estimate *three = t_estimate(t_plan(t_fmt(wl, ",\"steps\":3"), inst, NULL));
    assert_u64_equal(phase_alloc(steady, "forward") - phase_alloc(first, "forward"), 22281132288ULL);
    assert_u64_equal(phase_alloc(steady, "backward") - phase_alloc(first, "backward"), 22281132288ULL);
    assert_u64_equal(phase_alloc(steady, "optimizer_step"), phase_alloc(first, "optimizer_step"));
    assert_string_equal(first->devices[0].peak_phase, "optimizer_step");
    assert_true(first->devices[0].peak_reserved_bytes < steady->devices[0].peak_reserved_bytes);
    assert_u64_equal(three->devices[0].peak_reserved_bytes, steady->devices[0].peak_reserved_bytes);
    /* DeepSpeed builds its ZeRO optimizer's state at initialization: step 1 holds it as every later step does */
    const char *zwl = "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720%s}";
    const char *z2 = "{\"gpu\":\"h100-sxm-80gb\",\"count\":2}";
    const char *zp = "{\"dp\":2,\"zero\":2}";
    const vp_estimate *zs = t_estimate(t_fmt("{\"schema\":\"%s\",\"workload\":%s,\"hardware\":%s,\"parallel\":%s,\"instances\":[%s]}",
                                             VP_PLAN_SCHEMA, t_fmt(zwl, ""), z2, zp, inst));
    const vp_estimate *z1 = t_estimate(t_fmt("{\"schema\":\"%s\",\"workload\":%s,\"hardware\":%s,\"parallel\":%s,\"instances\":[%s]}",
                                             VP_PLAN_SCHEMA, t_fmt(zwl, ",\"steps\":1"), z2, zp, inst));
    assert_u64_equal(phase_alloc(z1, "forward"), phase_alloc(zs, "forward"));
    int said = 0; /* the estimate says which step it is */
    for (int i = 0; i < first->n_warnings; i++) said |= strstr(first->warnings[i], "workload.steps = 1") != NULL;
    assert_true(said);
    t_expect_error(t_fmt("{\"schema\":\"%s\",\"workload\":{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,"
                         "\"width\":720,\"steps\":1},\"instances\":[%s]}", VP_PLAN_SCHEMA, inst),
                   VP_ERR_FIELD, "workload.steps");
    t_expect_error(t_fmt("{\"schema\":\"%s\",\"workload\":{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":480,"
                         "\"width\":720,\"steps\":0},\"instances\":[%s]}", VP_PLAN_SCHEMA, inst),
                   VP_ERR_RANGE, "workload.steps");
}

/* instances[].after_use with offload "none" (timeline_diffusion.c weights_for, events_diffusion.c): Wan's own
 * wan/text2video.py keeps the fp32 DiT (14,288,491,584 × 4 = 57,153,966,336 B) and the fp32 VAE (126,892,531 × 4 =
 * 507,570,124 B) on the GPU from __init__, moves T5 (5,680,910,336 × 2 = 11,361,820,672 B) on for the prompts and off
 * after (model.cpu()), and before the decode moves the DiT off and empties the cache. So T5's phase holds all three
 * (the peak, 69,023,357,132 B of weights), the transformer's phase no T5, the decode neither T5 nor the DiT: against
 * the same plan with every component staying, the decode's phase is lower by exactly the two models' weights; and
 * T5's freed segments stay reserved through the steps ("cpu": no empty_cache). */
static void after_use_schedule(void **s) {
    (void)s;
    const char *fmt = "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-14b/vae\"},\"precision\":\"fp32\","
                      "\"activations\":\"no_grad\"},"
                      "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-14b\"},\"precision\":\"amp_bf16\","
                      "\"activations\":\"no_grad\",\"autocast_cache\":false,\"after_use\":\"%s\"},"
                      "{\"name\":\"text_encoder\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-14b/text_encoder\"},"
                      "\"precision\":\"bf16\",\"activations\":\"no_grad\",\"after_use\":\"%s\"}";
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":720,\"width\":1280}";
    const vp_estimate *w = t_estimate(t_plan(wl, t_fmt(fmt, "cpu_empty_cache", "cpu"), NULL));
    const vp_estimate *st = t_estimate(t_plan(wl, t_fmt(fmt, "stay", "stay"), NULL));
    assert_string_equal(w->devices[0].peak_phase, "text_encoder");
    assert_u64_equal(t_component(w, 0, "weights", "transformer"), 57153966336ULL);
    assert_u64_equal(t_component(w, 0, "weights", "vae"), 507570124ULL);
    assert_u64_equal(t_component(w, 0, "weights", "text_encoder"), 11361820672ULL);
    assert_u64_equal(phase_alloc(st, "transformer") - phase_alloc(w, "transformer"), 11361820672ULL);
    assert_u64_equal(phase_alloc(st, "vae_decode") - phase_alloc(w, "vae_decode"), 57153966336ULL + 11361820672ULL);
    /* T5's segments stay cached: reserved above the allocated peak by more than the steps' new tensors need */
    assert_true(w->devices[0].peak_reserved_bytes > w->devices[0].peak_alloc_bytes + (4ULL << 30));
}

/* "quant": "fp8", layerwise casting (weights.c): the blocks' linears stored as float8 (1 B), the rest in bf16. LTX-Video:
 * per block attn1 and attn2 4 × (2048² + 2048) each, ff 2048 × 8192 + 8192 + 8192 × 2048 + 2048: 67,135,488, × 28 blocks
 * = 1,879,793,664 params one byte lighter than in bf16 (diffusers' DEFAULT_SKIP_MODULES_PATTERN keeps the "norm"-named
 * modules, the adaptive-norm Linears among them, in the compute dtype: hooks/layerwise_casting.py). */
static void fp8_layerwise(void **s) {
    (void)s;
    const char *fmt = "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"ltx-video\"},\"precision\":\"bf16\","
                      "\"activations\":\"no_grad\"%s}";
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768}";
    const vp_estimate *bf = t_estimate(t_plan(wl, t_fmt(fmt, ""), NULL));
    const vp_estimate *f8 = t_estimate(t_plan(wl, t_fmt(fmt, ",\"quant\":\"fp8\""), NULL));
    assert_u64_equal(t_component(bf, 0, "weights", "transformer") - t_component(f8, 0, "weights", "transformer"), 1879793664ULL);
    /* CogVideoX-5b: the attention 4 × (3072² + 3072) and the FF 3072 × 12288 + 12288 + 12288 × 3072 + 3072 per block,
     * 113,273,856 × 42 = 4,757,501,952; norm1.linear and norm2.linear (Linear(512, 18432) each) stay bf16 */
    const char *c5 = "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"cogvideox-5b\"},\"precision\":\"bf16\","
                     "\"activations\":\"no_grad\"%s}";
    const vp_estimate *cb = t_estimate(t_plan(wl, t_fmt(c5, ""), NULL));
    const vp_estimate *c8 = t_estimate(t_plan(wl, t_fmt(c5, ",\"quant\":\"fp8\""), NULL));
    assert_u64_equal(t_component(cb, 0, "weights", "transformer") - t_component(c8, 0, "weights", "transformer"), 4757501952ULL);

    /* Training. module.to() in the hooks swaps each Parameter's storage (param.data = ...), but the matmul of
     * F.linear saved weight.t(), a view holding the bf16 storage, so the upcast copy of every float8 Linear whose input
     * requires grad lives until that Linear's backward (timeline_train.c). With checkpointing the forward saves
     * nothing; the recompute before a block's backward runs the hooks again and keeps them: at the first block's
     * backward the last block's float8 Linears are there in bf16 beside their float8 storage. LTX-Video: 67,135,488
     * × 2 B = 134,270,976 (before: the largest Linear, 2048 × 8192 × 2 B = 33,554,432, "Dequantized weight"). */
    const char *tr = "{\"name\":\"transformer\",\"model\":{\"preset\":\"%s\"},\"precision\":\"bf16\",\"quant\":\"fp8\","
                     "\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":128,\"alpha\":128,\"dropout\":0,\"dtype\":\"bf16\","
                     "\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}},\"grad_ckpt\":%s,\"optimizer\":{\"name\":\"adamw\"}}";
    const char *twl = "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768}";
    const vp_estimate *lg = t_estimate(t_plan(twl, t_fmt(tr, "ltx-video", "true"), NULL));
    assert_u64_equal(t_component(lg, 0, "layerwise_copy", "transformer"), 67135488ULL * 2);
    assert_false(t_has_component(lg, 0, "inference_temp"));
    /* HunyuanVideo: the last block is a single-stream block: q/k/v 3 × (3072² + 3072), proj_mlp 3072 × 12288 + 12288,
     * proj_out 15360 × 3072 + 3072 = 113,270,784 (its norm.linear, Linear(3072, 9216), stays bf16) × 2 B */
    const vp_estimate *hg = t_estimate(t_plan(twl, t_fmt(tr, "hunyuanvideo", "true"), NULL));
    assert_u64_equal(t_component(hg, 0, "layerwise_copy", "transformer"), 113270784ULL * 2);
    /* without checkpointing every block's copies stay from forward to backward: all 1,879,793,664 float8 params × 2 B,
     * more than the 1 B per param the float8 storage saved */
    const vp_estimate *ln = t_estimate(t_plan(twl, t_fmt(tr, "ltx-video", "false"), NULL));
    assert_u64_equal(t_component(ln, 0, "layerwise_copy", "transformer"), 1879793664ULL * 2);
}

/* Precomputed conditions (precompute.c, finetrainers prepare_precomputations): LTX-Video LoRA r128 with T5-XXL.
 * - the adapters: to_q/k/v/out.0 of attn1 and attn2 in 28 blocks, 128 × (2048 + 2048) each = 117,440,512, the
 *   "trainable parameters" of finetrainers' log (docs/models/ltx_video.md);
 * - the precompute phase is listed, and it is the job's peak: T5's 4,762,310,656 × 2 B weights and its forward, more than
 *   the training step holds (finetrainers resets its logged peaks before training, but an out-of-memory error in this
 *   stage ends the job all the same); T5's weights are gone from the training step's phases;
 * - T5's freed segments stay cached: reserved is at least T5's 8.87 GiB although the step allocates ~5 GiB, as the
 *   log's "before training start" 3.809 GiB allocated / 10.010 GiB reserved. */
static void precompute_phase(void **s) {
    (void)s;
    const char *inst = t_fmt("{\"name\":\"transformer\",\"model\":{\"preset\":\"ltx-video\"},\"precision\":\"bf16\","
                             "\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":128,\"dtype\":\"bf16\",\"targets\":"
                             "[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}},\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"}},"
                             "{\"name\":\"text_encoder\",\"role\":\"reference\",\"model\":{\"preset\":\"ltx-video/text_encoder\"},"
                             "\"precision\":\"bf16\",\"activations\":\"no_grad\"}");
    const char *wl = "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768%s}";
    const char *plan = t_plan(t_fmt(wl, ",\"diffusion\":{\"precompute\":true}"), inst, NULL);
    assert_u64_equal(t_json_params_trainable(t_estimate_json(plan), 0), 117440512ULL);
    const vp_estimate *pre = t_estimate(plan);
    const vp_device *d = &pre->devices[0];
    int listed = 0;
    for (int k = 0; k < d->n_phases; k++) listed |= !strcmp(d->phases[k].name, "precompute_conditions");
    assert_true(listed);
    assert_string_equal(d->peak_phase, "precompute_conditions");
    assert_u64_equal(t_component(pre, 0, "weights", "text_encoder"), 4762310656ULL * 2);
    uint64_t step = 0;
    for (int k = 0; k < d->n_phases; k++)
        if (!strcmp(d->phases[k].name, "backward")) step = d->phases[k].alloc_bytes;
    assert_true(step > 0 && step < 4762310656ULL * 2);
    assert_true(d->peak_reserved_bytes > 4762310656ULL * 2);
    /* encoded on the fly instead: T5 resident through the step */
    const vp_estimate *fly = t_estimate(t_plan(t_fmt(wl, ""), inst, NULL));
    assert_u64_equal(t_component(fly, 0, "weights", "text_encoder"), 4762310656ULL * 2);
    assert_true(fly->devices[0].peak_alloc_bytes > step + 4762310656ULL * 2 - (1ULL << 28));
    /* a GPU the step fits and the stage does not: T5 loaded in fp32 (4,762,310,656 × 4 B = 17.7 GiB) on a 16 GB card,
     * where the training step (under 8.9 GiB, above) would fit: the verdict is the stage's */
    char *fp32 = t_fmt("%s", inst);
    char *bf = strstr(fp32, "\"precision\":\"bf16\",\"activations\"");
    assert_non_null(bf);
    memcpy(bf + 13, "fp32", 4);
    const vp_estimate *small = t_estimate(t_plan(t_fmt(wl, ",\"diffusion\":{\"precompute\":true}"), fp32, "{\"gpu\":\"rtx-4080\",\"count\":1}"));
    assert_false(small->fits);
    assert_string_equal(small->devices[0].peak_phase, "precompute_conditions");
    t_expect_error(t_plan(t_fmt(wl, ",\"diffusion\":{\"precompute\":1}"), inst, NULL), VP_ERR_FIELD, "workload.diffusion.precompute");
    t_expect_error(t_plan("{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768,\"diffusion\":{\"precompute\":true}}",
                          inst, NULL),
                   VP_ERR_FIELD, "workload.diffusion.precompute");
}

/* HunyuanVideo's own inference code (workload.diffusion.code "official": Tencent/HunyuanVideo at e965abb,
 * sample_video.py --use-cpu-offload). enable_sequential_cpu_offload streams the text encoders and the VAE, but the
 * official pipeline's _exclude_from_cpu_offload = ["transformer"] (pipeline_hunyuan_video.py line 165) keeps the
 * transformer on the GPU: 12,821,012,544 × 2 B resident, the LLaVA-Llama encoder not.
 * The step (events_hunyuan.c), hand-worked at 129×720×1280: N = 33 × 45 × 80 = 118,800 image tokens, S = 256 text
 * tokens, L = 119,056; h = 3072, f = 12288; bf16 2 B, autocast's fp32 4 B. The most it holds is in the single-stream
 * block's torch.cat((attn, mlp_act(mlp)), 2) (models.py line 359):
 *   outside the block: the last double block's input (img + txt, L·h·2, kept by double_block_args), its output
 *     (img, txt: L·h·2), the block's input x (L·h·2)                                               3 L·h·2
 *   x_mod, fp32 (modulate of the fp32 LayerNorm, line 320)                                           2 L·h·2
 *   linear1's output, 3h + 4h, kept through the qkv / mlp views                                      7 L·h·2
 *   the q and k RMSNorm outputs (kept by the txt_q / txt_k slices)                                   2 L·h·2
 *   the roped image q and k                                                                          2 N·h·2
 *   the q and k concatenations, the attention output                                                 3 L·h·2
 *   GELU(mlp) (4h) and the concatenation (h + 4h)                                                    9 L·h·2
 *   = 26 × 119,056 × 6144 + 2 × 118,800 × 6144 = 19,018,481,664 + 1,459,814,400 = 20,478,296,064 B (19.07 GiB,
 *   172,006 B per token). The double-stream block peaks lower (23 units at its MLP's GELU), the RoPE at
 *   7 transient units inside both. */
static void hunyuan_official(void **s) {
    (void)s;
    const char *inst = pipeline_instances("hunyuanvideo", "bf16", 1, 1, 0);
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":129,\"height\":720,\"width\":1280,"
                     "\"diffusion\":{\"vae_tiling\":true,\"offload\":\"sequential\"%s}}";
    const vp_estimate *o = t_estimate(t_plan(t_fmt(wl, ",\"code\":\"official\""), inst, NULL));
    assert_string_equal(o->devices[0].peak_phase, "transformer");
    assert_u64_equal(t_component(o, 0, "weights", "transformer"), 12821012544ULL * 2);
    assert_u64_equal(t_component(o, 0, "weights", "text_encoder"), 0);
    assert_u64_equal(t_component(o, 0, "inference_temp", "transformer"), 20478296064ULL);
    /* the replay of those tensors keeps segments no later request of the step fits: reserved above allocated */
    assert_true(o->devices[0].peak_reserved_bytes > o->devices[0].peak_alloc_bytes + (8ULL << 30));
    /* diffusers' pipeline under the same offload streams the transformer too */
    const vp_estimate *d = t_estimate(t_plan(t_fmt(wl, ""), inst, NULL));
    assert_true(t_component(d, 0, "weights", "transformer") < 12821012544ULL);
    /* the official code is HunyuanVideo's, bf16 under autocast, and inference */
    t_expect_error(t_plan(t_fmt(wl, ",\"code\":\"official\""), pipeline_instances("cogvideox-5b", "bf16", 1, 0, 0), NULL),
                   VP_ERR_FIELD, "workload.diffusion.code");
    t_expect_error(t_plan(t_fmt(wl, ",\"code\":\"official\""), pipeline_instances("hunyuanvideo", "fp32", 1, 1, 0), NULL),
                   VP_ERR_FIELD, "workload.diffusion.code");
    t_expect_error(t_plan("{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768,\"diffusion\":{\"code\":\"official\"}}",
                          "{\"name\":\"transformer\",\"model\":{\"preset\":\"hunyuanvideo\"},\"precision\":\"bf16\"}", NULL),
                   VP_ERR_FIELD, "workload.diffusion.code");
    t_expect_error(t_plan(t_fmt(wl, ",\"code\":\"tencent\""), inst, NULL), VP_ERR_UNSUPPORTED, "workload.diffusion.code");
}

/* The seeds' scenario (shared/seeds/000): the notes' 192 GB. At their settings (batch 4, 17 frames, 256×256) the
 * whole job (two 5.57B transformers, T5-XXL, VAE, 8.4M adapters) fits on one 80 GB card, activations of the
 * unlearned copy's two passes dominate; at the native 49×480×720 with batch 1 it does not fit, and checkpointing
 * makes it fit. */
static void unlearning_scenario(void **s) {
    (void)s;
    char path[512];
    snprintf(path, sizeof path, "%s/examples/cogvideox-unlearning.json", VP_SOURCE_DIR);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const vp_estimate *e = t_estimate(buf);
    assert_true(e->fits);
    assert_int_equal(e->n_instances, 4);
    assert_u64_equal(e->instances[0].params_trainable, 42ULL * (2ULL * 3072 * 32 + 32 + 3072)); /* 8,387,904 */
    assert_string_equal(e->devices[0].components[0].id, "activations");
    /* two full bf16 copies of the transformer, T5-XXL and the VAE: 2 × 11.14 + 9.52 + 0.43 GB */
    assert_u64_equal(t_component(e, 0, "weights", NULL), 2ULL * 5570283072ULL * 2 + 4762310656ULL * 2 + 215583907ULL * 2);
    assert_true(e->devices[0].peak_alloc_bytes < 80ULL * 1000000000ULL);
    char *native = strstr(buf, "\"batch\": 4");
    assert_non_null(native);
    memcpy(native, "\"batch\": 1", 10);
    char *fr = strstr(buf, "\"frames\": 17,\n    \"height\": 256,\n    \"width\": 256");
    assert_non_null(fr);
    const char *rep = "\"frames\": 49,\n    \"height\": 480,\n    \"width\": 720";
    memcpy(fr, rep, strlen(rep));
    const vp_estimate *nat = t_estimate(buf);
    assert_false(nat->fits);
    assert_string_equal(nat->devices[0].components[0].id, "activations");
}

/* instances[].autocast (activations_dit.c): accelerate's autocast over a bf16 DiT. CogVideoX-2b (h = 1920, 30 blocks),
 * LoRA on to_q/k/v/out.0, no checkpointing, 49x480x720 = 17,776 tokens: each block saves its two LayerNorm inputs in
 * fp32 (+2 × 2h B), q, k and v each their own bf16 cast of the fp32 modulated input (+2 × 2h B) and its q/k
 * LayerNorm(head_dim) inputs in fp32 (+2 × 2h B): 12h = 23,040 B per token per block, 17,776 × 30 × 23,040 =
 * 12,286,771,200 B more activations. Wan (FP32LayerNorm and explicit casts) and LTX-Video (RMSNorm) are unchanged;
 * the field is refused where it means nothing. */
static void dit_autocast(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720}";
    const char *lora = ",\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16,\"alpha\":16,\"dropout\":0,\"dtype\":\"bf16\","
                       "\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}},\"optimizer\":{\"name\":\"adamw\"}%s";
    const vp_estimate *on = t_estimate(t_plan(wl, one("cogvideox-2b", t_fmt(lora, ",\"autocast\":true")), NULL));
    const vp_estimate *off = t_estimate(t_plan(wl, one("cogvideox-2b", t_fmt(lora, "")), NULL));
    assert_u64_equal(t_component(on, 0, "activations", "transformer") - t_component(off, 0, "activations", "transformer"),
                     12286771200ULL);
    for (int k = 0; k < 2; k++) {
        const char *id = k ? "ltx-video" : "wan2.1-t2v-1.3b";
        const vp_estimate *a = t_estimate(t_plan(wl, one(id, t_fmt(lora, ",\"autocast\":true")), NULL));
        const vp_estimate *b = t_estimate(t_plan(wl, one(id, t_fmt(lora, "")), NULL));
        assert_u64_equal(a->devices[0].peak_alloc_bytes, b->devices[0].peak_alloc_bytes);
    }
    t_expect_error(t_plan(wl, "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-2b\"},\"precision\":\"amp_bf16\",\"autocast\":true}", NULL),
                   VP_ERR_FIELD, "instances[0].autocast");
    t_expect_error(t_plan("{\"mode\":\"train\",\"batch\":1,\"seq\":128}",
                          "{\"name\":\"m\",\"model\":{\"preset\":\"gpt2\"},\"precision\":\"bf16\",\"autocast\":true}", NULL),
                   VP_ERR_FIELD, "instances[0].autocast");
}

/* diffusers 0.32's HunyuanVideo attention mask (diffusion_workload.c vp_dit_dense_mask_per_token, activations_dit.c):
 * transformer_hunyuan_video.py at v0.32.0 lines 713-723 build a (batch, N, N) bool mask over the joint tokens.
 * 49x512x768: (49 - 1) / 4 + 1 = 13 latent frames, 512 / 8 / 2 = 32 by 768 / 8 / 2 = 48 patches, 13 × 32 × 48 = 19,968
 * video tokens + 256 text = N = 20,224; the mask is 20,224² × 1 B = 409,010,176 B, and SDPA's bf16 additive bias of it
 * (attention.cpp convert_boolean_attn_mask), saved by the recomputed block's memory-efficient attention, 818,020,352 B.
 * Training (LoRA r128, GC): the peak (backward) is higher than today's code by exactly the two. Inference at 720p,
 * 129 frames: 33 × 45 × 80 + 256 = 119,056 tokens, a 14,174,331,136 B mask (the bug diffusers PR #10548 fixed).
 * Other models and the official code have no such mask. */
static void dense_mask_032(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768%s}";
    const char *v032 = ",\"diffusion\":{\"diffusers\":\"0.32\"}";
    const vp_estimate *old = t_estimate(t_plan(t_fmt(wl, v032), one("hunyuanvideo", LORA128), NULL));
    const vp_estimate *cur = t_estimate(t_plan(t_fmt(wl, ""), one("hunyuanvideo", LORA128), NULL));
    assert_u64_equal(t_component(old, 0, "attention_mask", "transformer"), 409010176ULL);
    assert_u64_equal(t_component(cur, 0, "attention_mask", "transformer"), 0);
    assert_string_equal(old->devices[0].peak_phase, "backward");
    assert_string_equal(cur->devices[0].peak_phase, "backward");
    assert_u64_equal(old->devices[0].peak_alloc_bytes - cur->devices[0].peak_alloc_bytes, 409010176ULL + 818020352ULL);
    /* CogVideoX-5b's attention has no mask in any version */
    const vp_estimate *c1 = t_estimate(t_plan(t_fmt(wl, v032), one("cogvideox-5b", LORA128), NULL));
    const vp_estimate *c2 = t_estimate(t_plan(t_fmt(wl, ""), one("cogvideox-5b", LORA128), NULL));
    assert_u64_equal(c1->devices[0].peak_alloc_bytes, c2->devices[0].peak_alloc_bytes);
    /* inference, the transformer's step */
    const char *inf = "{\"mode\":\"infer\",\"batch\":1,\"frames\":129,\"height\":720,\"width\":1280,"
                      "\"diffusion\":{\"diffusers\":\"0.32\"%s}}";
    const char *tr = REF("transformer", "hunyuanvideo", "bf16", "");
    const vp_estimate *i1 = t_estimate(t_plan(t_fmt(inf, ""), tr, NULL));
    assert_u64_equal(t_component(i1, 0, "attention_mask", "transformer"), 14174331136ULL);
    assert_u64_equal(t_component(i1, 0, "attention_scores", "transformer"), 2ULL * 14174331136ULL);
    const vp_estimate *i2 = t_estimate(t_plan(t_fmt(inf, ",\"code\":\"official\""), tr, NULL));
    assert_u64_equal(t_component(i2, 0, "attention_mask", "transformer"), 0);
}

/* Floating buffers go to the GPU with their module, in the dtype from_pretrained gives the model (weights.c). CogVideoX-2b
 * (use_rotary_positional_embeddings false): CogVideoXPatchEmbed's non-persistent sincos table, (226 + 30 × 45 × 13) ×
 * 1920 = 17,776 × 1920 = 34,129,920 elements; CogVideoX-5b-I2V (rotary and use_learned_positional_embeddings): the
 * persistent learned table, 17,776 × 3072 = 54,607,872 (the 5b T2V, rotary only, has none); SD3.5-large: the persistent
 * sincos pos_embed, pos_embed_max_size 192² × 2432 = 89,653,248. In bf16: 2 B each beside the parameters. */
static void position_buffers(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"infer\",\"batch\":1}";
    const char *ref = "{\"name\":\"t\",\"role\":\"reference\",\"model\":{\"preset\":\"%s\"},\"precision\":\"bf16\","
                      "\"activations\":\"no_grad\"}";
    assert_u64_equal(t_component(t_estimate(t_plan1(wl, t_fmt(ref, "cogvideox-2b"))), 0, "weights", "t"),
                     (1693783872ULL + 34129920ULL) * 2);
    assert_u64_equal(t_component(t_estimate(t_plan1(wl, t_fmt(ref, "cogvideox-5b"))), 0, "weights", "t"), 5570283072ULL * 2);
    assert_u64_equal(t_component(t_estimate(t_plan1(wl, t_fmt(ref, "sd3.5-large"))), 0, "weights", "t"),
                     (8056627520ULL + 89653248ULL) * 2);
    const char *i2v = "{\"_class_name\":\"CogVideoXTransformer3DModel\",\"attention_head_dim\":64,\"in_channels\":32,"
                      "\"num_attention_heads\":48,\"num_layers\":42,\"out_channels\":16,\"patch_size\":2,\"sample_frames\":49,"
                      "\"sample_height\":60,\"sample_width\":90,\"max_text_seq_length\":226,\"text_embed_dim\":4096,"
                      "\"time_embed_dim\":512,\"use_rotary_positional_embeddings\":true,\"use_learned_positional_embeddings\":true}";
    vp_arch a = t_arch_of("cogvideox-5b");
    assert_int_equal(a.d.buffers, 0);
    const vp_estimate *e = t_estimate(t_plan1(wl, t_hf_instance(i2v, "\"precision\":\"bf16\",\"role\":\"reference\","
                                                                     "\"activations\":\"no_grad\"")));
    /* the I2V model's 32 input channels: 16 × 2 × 2 × 3072 more patch-embedding weights than the T2V 5b */
    assert_u64_equal(t_component(e, 0, "weights", "policy"), (5570283072ULL + 16ULL * 4 * 3072 + 54607872ULL) * 2);
}

/* torch.autocast caches a cast only for a leaf that requires grad (aten/src/ATen/autocast_mode.cpp cached_cast:
 * `arg.requires_grad() && arg.is_leaf() && !arg.is_view()`; sharding.c). A LoRA base over fp32 weights is frozen, so with
 * checkpointing its casts die with each matmul and only the recomputed block's copies live, to its backward: CogVideoX-2b's
 * block holds 2·(512·11520 + 11520 + 3840) + 4·(1920² + 1920) + 4·64 + 2·1920·7680 + 7680 + 1920 = 56,081,536 parameters,
 * 112,163,072 B in bf16 (the whole model's 3.39 GB of copies, which the cache of a fully trained model keeps through the
 * forward, never exist). */
static void autocast_cache_frozen(void **s) {
    (void)s;
    const char *inst = "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-2b\"},\"precision\":\"amp_bf16\",\"grad_ckpt\":true,"
                       "\"optimizer\":{\"name\":\"adamw_8bit\"},\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16,\"alpha\":16,"
                       "\"dropout\":0,\"dtype\":\"fp32\",\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}}}";
    const vp_estimate *e = t_estimate(t_plan(LEGACY_WL(1), inst, NULL));
    assert_string_equal(e->devices[0].peak_phase, "backward");
    assert_u64_equal(t_component(e, 0, "weights_lowp_copy", "transformer"), 112163072ULL);
}

/* The q/k norms (activations_dit.c qk_norm_saved). diffusers' RMSNorm computes the variance on an fp32 copy and multiplies
 * the original input by rsqrt: it saves both, 4 + 2 B per element in bf16; FLUX's FluxAttention of the current release
 * holds torch.nn.RMSNorm (aten::_fused_rms_norm saves the input and rstd). FLUX.1-dev LoRA r16, no checkpointing, 1024²
 * (4096 + 512 tokens), 57 blocks of h = 3072: diffusers 0.32's attention (Attention(qk_norm="rms_norm")) saves two fp32
 * copies more per block, 4608 × 57 × 2 × 4 × 3072 = 6,455,033,856 B. */
static void qk_norms(void **s) {
    (void)s;
    const char *inst = "{\"name\":\"transformer\",\"model\":{\"preset\":\"flux.1-dev\"},\"precision\":\"bf16\",\"finetune\":"
                       "{\"method\":\"lora\",\"lora\":{\"r\":16,\"alpha\":16,\"dropout\":0,\"dtype\":\"bf16\",\"targets\":"
                       "[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}},\"optimizer\":{\"name\":\"adamw\"}}";
    const char *wl = "{\"mode\":\"train\",\"batch\":1,\"frames\":1,\"height\":1024,\"width\":1024%s}";
    const vp_estimate *cur = t_estimate(t_plan(t_fmt(wl, ""), inst, NULL));
    const vp_estimate *old = t_estimate(t_plan(t_fmt(wl, ",\"diffusion\":{\"diffusers\":\"0.32\"}"), inst, NULL));
    assert_u64_equal(t_component(old, 0, "activations", "transformer") - t_component(cur, 0, "activations", "transformer"),
                     6455033856ULL);
}

/* The residual stream under autocast over fp32 weights (activations_dit.c dit_stream_bytes): a DiT's patch embedding
 * runs in bf16 and CogVideoX's blocks keep it, so each checkpointed block keeps a bf16 input. CogVideoX-2b (h = 1920,
 * 30 blocks) at 49x480x720, batch 4: 13 latent frames × 30 × 45 patches + 226 text tokens = 17,776 tokens per sample,
 * 71,104 in all; 71,104 × (30 × 1920 × 2 B + 2 × 1920 × 2 B outside the blocks) = 8,737,259,520 B (fp32 would be twice
 * that). */
static void dit_amp_stream(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan(LEGACY_WL(4), LEGACY_SFT("cogvideox-2b", "adamw_8bit"), NULL));
    assert_u64_equal(t_component(e, 0, "activations", "transformer"), 8737259520ULL);
}

int main(int argc, char **argv) {
    const struct CMUnitTest params[] = {
        cmocka_unit_test(cogvideox_5b), cmocka_unit_test(cogvideox_2b), cmocka_unit_test(cogvideox_1_5), cmocka_unit_test(wan_i2v), cmocka_unit_test(wan_i2v_pipeline), cmocka_unit_test(wan_1_3b),
        cmocka_unit_test(wan_14b),      cmocka_unit_test(ltx),          cmocka_unit_test(mochi),
        cmocka_unit_test(flux_dev), cmocka_unit_test(flux_schnell), cmocka_unit_test(sd35_dual_attention),     cmocka_unit_test(hunyuan), cmocka_unit_test(lora_single_stream),      cmocka_unit_test(sd3),
        cmocka_unit_test(t5_xxl),       cmocka_unit_test(umt5),         cmocka_unit_test(clip),
        cmocka_unit_test(llama_encoder), cmocka_unit_test(vae_kl),      cmocka_unit_test(vae_wan),
        cmocka_unit_test(vae_video),    cmocka_unit_test(components_match_declared),
        cmocka_unit_test(bad_configs),  cmocka_unit_test(model_index),
    };
    const struct CMUnitTest workload[] = {
        cmocka_unit_test(tokens), cmocka_unit_test(run_frames), cmocka_unit_test(text_tokens_override),        cmocka_unit_test(vae_decode_peak), cmocka_unit_test(vae_encode_3d), cmocka_unit_test(diffusion_suggestions), cmocka_unit_test(t5_wo_fp32), cmocka_unit_test(cfg_doubling),
        cmocka_unit_test(offload_modes), cmocka_unit_test(offload_8bit_resident), cmocka_unit_test(int8_matmul), cmocka_unit_test(group_offload), cmocka_unit_test(offload_empty_cache), cmocka_unit_test(autocast_cache), cmocka_unit_test(after_use_schedule), cmocka_unit_test(hunyuan_official), cmocka_unit_test(fp8_layerwise), cmocka_unit_test(offload_fp8_suggestions), cmocka_unit_test(offload_cpu_ram), cmocka_unit_test(precompute_phase), cmocka_unit_test(dense_mask_032), cmocka_unit_test(dit_autocast), cmocka_unit_test(dit_amp_stream), cmocka_unit_test(qk_norms), cmocka_unit_test(autocast_cache_frozen), cmocka_unit_test(position_buffers), cmocka_unit_test(first_step),
        cmocka_unit_test(unlearning_scenario),
    };
    int rc = 0;
    rc |= T_RUN("diffusion_params", params, argc, argv);
    rc |= T_RUN("diffusion_workload", workload, argc, argv);
    return rc;
}
