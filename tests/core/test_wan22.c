/* test_wan22.c: Wan 2.2 (core/src/vae_wan.c, dit_params.c's Wan section, timeline_diffusion.c, activations_dit.c;
 * diffusers autoencoder_kl_wan.py, transformer_wan.py, pipeline_wan.py at 58eb52c0).
 * Group wan22: the exact parameter counts of Wan2.2-TI2V-5B's transformer and VAE and of the A14B experts, each against
 * an independent count; the TI2V token count (16x VAE), the per-token timestep modulation (expand_timesteps) at
 * inference and in training, the residual VAE's decode peak with and without tiling, and the A14B pipeline's two
 * transformers under each offload mode, and the Wan 2.1 VAE's decode, all worked by hand below. */
#include <stdio.h>
#include <string.h>

#include "diffusers.h"
#include "plan.h"
#include "vp_test.h"
#include "t_arch.h"

/* Wan2.2-TI2V-5B transformer (dim 3072 = 24 heads × 128, ffn 14336, 30 blocks, 48 latent channels in and out):
 * 4,999,787,712, the count a public verification of the released weights asserts over all 825 fp32 tensors of the
 * shards (parameter_bytes 19,999,150,848 = 4 × 4,999,787,712). The A14B experts: the Wan 14B shapes, safetensors index
 * total_size 57,153,966,336 B in fp32 / 4 each. */
static void transformers(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("wan2.2-ti2v-5b"), 19999150848ULL / 4);
    assert_u64_equal(t_count_preset("wan2.2-t2v-a14b"), 57153966336ULL / 4);
    assert_u64_equal(t_count_preset("wan2.2-t2v-a14b/transformer_2"), 57153966336ULL / 4);
    assert_u64_equal(t_count_preset("wan2.2-ti2v-5b/text_encoder"), 11361820672ULL / 2);
    /* Wan2.2-I2V-A14B: the T2V expert with 36 input channels (20 more × 1 × 2 × 2 × 5120 patch-embedding weights):
     * 14,288,901,184, the numel() sum over the 1,095 tensors of the released high_noise_model shards that a public
     * loader's run manifest records */
    assert_u64_equal(t_count_preset("wan2.2-i2v-a14b"), 14288901184ULL);
    assert_u64_equal(t_count_preset("wan2.2-i2v-a14b") - t_count_preset("wan2.2-t2v-a14b"), 20ULL * 4 * 5120);
    assert_u64_equal(t_count_preset("wan2.2-i2v-a14b/transformer_2"), 14288901184ULL);
}

/* The Wan 2.2 VAE (AutoencoderKLWan, is_residual, base_dim 160, decoder_base_dim 256, z_dim 48, 12 channels in and out,
 * patch 2). A WanResidualBlock(i, o) is gamma i + conv 27·i·o + o + gamma o + conv 27·o² + o (+ 1³ shortcut i·o + o):
 * (160,160) 1,383,040; (160,320) 4,199,840; (320,320) 5,530,880; (320,640) 16,796,480; (640,640) 22,120,960;
 * (1024,1024) 56,627,200; (1024,512) 21,761,024; (512,512) 14,157,824; (512,256) 5,441,024; (256,256) 3,539,968.
 * Encoder: conv_in 12 -> 160, 3³: 52,000; down blocks (2 resnets each; a stride-2 Conv2d 3×3 but at the last level;
 * a (3,1,1) time_conv where temperal_downsample):
 *   0: 2 × 1,383,040 + 230,560                                   =   2,996,640
 *   1: 4,199,840 + 5,530,880 + 921,920 + 307,520                  =  10,960,160
 *   2: 16,796,480 + 22,120,960 + 3,687,040 + 1,229,440            =  43,833,920
 *   3: 2 × 22,120,960                                            =  44,241,920
 *   mid 2 × 22,120,960 + attention 640 + 640·1920 + 1920 + 640² + 640 = 45,883,520; norm_out 640 + conv_out 640 -> 96,
 *   3³: 1,659,616                                                -> 149,627,776
 * Decoder (channels 1024, 1024, 1024, 512, 256, none halved): conv_in 48 -> 1024: 1,328,128; mid 2 × 56,627,200 +
 * 4,199,424 = 117,453,824; up blocks (3 resnets each; an upsampler Conv2d(C, C, 3) but at the last, a (3,1,1)
 * time_conv C -> 2C where temperal_upsample):
 *   0, 1: 3 × 56,627,200 + 9,438,208 + 6,293,504                 = 185,613,312 each
 *   2: 21,761,024 + 2 × 14,157,824 + 2,359,808                   =  52,436,480
 *   3: 5,441,024 + 2 × 3,539,968                                 =  12,520,960
 *   norm_out 256 + conv_out 256 -> 12: 83,212                    -> 555,049,228
 * quant_conv 96·96 + 96, post_quant_conv 48·48 + 48: 11,664. Total 704,688,668. Independent: Wan2.2_VAE.safetensors
 * holds 196 fp32 tensors and 2,818,754,672 data bytes (a public loader's metadata check) = 4 × 704,688,668; and
 * diffusers' own AutoencoderKLWan built with this config under torch counts the same encoder / decoder split. */
static void vae_params(void **s) {
    (void)s;
    assert_u64_equal(t_count_preset("wan2.2-ti2v-5b/vae"), 2818754672ULL / 4);
    vp_arch v = t_arch_of("wan2.2-ti2v-5b/vae");
    assert_u64_equal((uint64_t)v.d.embed, 149627776ULL);
    assert_u64_equal((uint64_t)v.d.blocks_total, 555049228ULL);
    assert_int_equal(v.d.spatial, 16); /* 3 spatial downsamples × the 2×2 patch */
    assert_int_equal(v.d.temporal, 4);
    /* the Wan 2.1 VAE is unchanged by the rewrite */
    assert_u64_equal(t_count_preset("wan2.2-t2v-a14b/vae"), 126892531ULL);
    /* a patchified VAE needs 3 · patch² channels */
    t_expect_error(t_plan1("{\"mode\":\"infer\",\"batch\":1}",
                           t_hf_instance("{\"_class_name\":\"AutoencoderKLWan\",\"is_residual\":true,\"patch_size\":2}", "")),
                   VP_ERR_FIELD, "instances[0].model.hf_config.in_channels");
}

/* 121 frames at 704 × 1280 through the 16x VAE and the 1×2×2 patch: (121 - 1) / 4 + 1 = 31 latent frames of 44 × 80,
 * 31 × 22 × 40 = 27,280 tokens (the Wan 2.1 1.3B at 480 × 832, 81 frames: 21 × 30 × 52 = 32,760). */
static void tokens(void **s) {
    (void)s;
    vp_arch t = t_arch_of("wan2.2-ti2v-5b");
    assert_int_equal(vp_dit_video_tokens(&t, 121, 704, 1280), 27280);
    assert_int_equal(t.d.ts_tokens, 1);
    vp_arch o = t_arch_of("wan2.1-t2v-1.3b");
    assert_int_equal(vp_dit_video_tokens(&o, 81, 480, 832), 32760);
    assert_int_equal(o.d.ts_tokens, 0);
    /* a size without frames is the pipeline's default frame count (WanPipeline num_frames 81), as for an image model its
     * one frame: the same estimate as the one that says so */
    const char *ref = "{\"name\":\"t\",\"role\":\"reference\",\"model\":{\"preset\":\"%s\"},\"precision\":\"bf16\","
                      "\"activations\":\"no_grad\"}";
    const vp_estimate *a = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"height\":480,\"width\":832}", t_fmt(ref, "wan2.1-t2v-1.3b")));
    const vp_estimate *b = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832}",
                                              t_fmt(ref, "wan2.1-t2v-1.3b")));
    assert_u64_equal(a->devices[0].peak_alloc_bytes, b->devices[0].peak_alloc_bytes);
    /* one block's temporaries at 32,760 tokens: 2 B × (6 × 1536 + 2 × 8960) = 54,272 B per token */
    assert_u64_equal(t_component(a, 0, "inference_temp", "t"), 32760ULL * 54272ULL);
    const vp_estimate *c = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"height\":1024,\"width\":1024}", t_fmt(ref, "flux.1-dev")));
    const vp_estimate *d = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"frames\":1,\"height\":1024,\"width\":1024}",
                                              t_fmt(ref, "flux.1-dev")));
    assert_u64_equal(c->devices[0].peak_alloc_bytes, d->devices[0].peak_alloc_bytes);
}

/* Inference with expand_timesteps: temb (T × h) and timestep_proj (T × 6h) in bf16 for the whole call, 7 × 3072 × 2 =
 * 43,008 B per token, and in a block the fp32 scale_shift_table + temb.float() (6 × 3072 × 4 = 73,728 B per token; the
 * block's start, with the .float() copy too, is 2 × 73,728 + 2 × 3072 = 153,600 B against 73,728 + the step's 94,208,
 * so the steady part counts): 27,280 × 116,736 = 3,184,558,080 B. A config saying "expand_timesteps": false gives the
 * batch-sized terms of Wan 2.1: 7 × 3072 × 2 = 43,008 B. */
static void modulation_infer(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":121,\"height\":704,\"width\":1280}";
    const char *ref = "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.2-ti2v-5b\"},\"precision\":"
                      "\"bf16\",\"activations\":\"no_grad\"}";
    const vp_estimate *e = t_estimate(t_plan1(wl, ref));
    assert_u64_equal(t_component(e, 0, "modulation", "transformer"), 27280ULL * 116736ULL);
    assert_u64_equal(t_component(e, 0, "inference_temp", "transformer"), 27280ULL * 94208ULL);
    const char *cfg = "{\"_class_name\":\"WanTransformer3DModel\",\"attention_head_dim\":128,\"expand_timesteps\":false,"
                      "\"ffn_dim\":14336,\"in_channels\":48,\"num_attention_heads\":24,\"num_layers\":30,\"out_channels\":48,"
                      "\"patch_size\":[1,2,2],\"qk_norm\":\"rms_norm_across_heads\",\"text_dim\":4096}";
    const vp_estimate *f = t_estimate(t_plan1(wl, t_hf_instance(cfg, "\"precision\":\"bf16\",\"role\":\"reference\","
                                                                       "\"activations\":\"no_grad\"")));
    assert_u64_equal(t_component(f, 0, "modulation", "policy"), 43008ULL);
}

/* Training (LoRA r16 on to_q/k/v/out.0, bf16, no checkpointing, 17 frames of 256²: 5 latent frames × 8 × 8 = 320
 * tokens): per block the fp32 modulation kept by the gate views (24h) and the two fp32 `1 + scale` tensors (8h), 32 ×
 * 3072 = 98,304 B per token, × 30 blocks; outside the blocks temb + timestep_proj (7 × 3072 × 2) and norm_out's fp32
 * `1 + scale` (4 × 3072): 55,296 B per token. Against the same model with expand_timesteps off: 320 × (30 × 98,304 +
 * 55,296) = 961,413,120 B more activations. */
static void modulation_train(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"train\",\"batch\":1,\"frames\":17,\"height\":256,\"width\":256}";
    const char *tr = "\"precision\":\"bf16\",\"optimizer\":{\"name\":\"adamw\"},\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16,"
                     "\"alpha\":16,\"dropout\":0,\"dtype\":\"bf16\",\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}}";
    const char *fmt = "{\"_class_name\":\"WanTransformer3DModel\",\"attention_head_dim\":128,\"expand_timesteps\":%s,"
                      "\"ffn_dim\":14336,\"in_channels\":48,\"num_attention_heads\":24,\"num_layers\":30,\"out_channels\":48,"
                      "\"patch_size\":[1,2,2],\"qk_norm\":\"rms_norm_across_heads\",\"text_dim\":4096}";
    const vp_estimate *on = t_estimate(t_plan1(wl, t_hf_instance(t_fmt(fmt, "true"), tr)));
    const vp_estimate *off = t_estimate(t_plan1(wl, t_hf_instance(t_fmt(fmt, "false"), tr)));
    assert_u64_equal(t_component(on, 0, "activations", "policy") - t_component(off, 0, "activations", "policy"),
                     320ULL * (30ULL * 98304ULL + 55296ULL));
}

/* The residual VAE's decode at 121 × 704 × 1280, bf16 (vae_wan.c): a call decodes one latent frame into 4 frames at the
 * decoder's full level, 352 × 640 = 225,280 positions (the 2×2 patch). The first resnet of the last up block (512 ->
 * 256) holds its input and the block's x_copy (2 × 512), conv_shortcut's output (256), the SiLU output (512), the
 * F.pad copy of the cat with the 2 cached frames (512 × 6/4 = 768), conv1's output (256) and cuDNN's workspace, the
 * padded input + the output (768 + 256): 3,840 channels (the cat and its copy at the F.pad, 3,584, the upsampler's 1,536
 * and the DupUp3D shortcut's 1,792 are less): 3,840 × 225,280 × 4 × 2 B = 6,920,601,600. Feature caches, 2 frames of
 * 6 conv inputs per up block: 6 × (256 + 512/4 + 1024/16 + 1024/64) = 2,784 channels × 225,280 × 2 frames × 2 B =
 * 2,508,718,080. Total 9,429,319,680 B. Tiled (256 × 256 px tiles: 128 × 128 = 16,384 positions): 3,840 × 16,384 × 8 +
 * 2,784 × 16,384 × 4 = 503,316,480 + 182,452,224 = 685,768,704 B. */
static void vae_decode(void **s) {
    (void)s;
    vp_arch v = t_arch_of("wan2.2-ti2v-5b/vae");
    vp_vae_peak pk;
    vp_vae_decode_peak(&v, 1, 121, 704, 1280, 2.0, 0, 0, 0, &pk);
    assert_int_equal(pk.chunk_frames, 4);
    assert_u64_equal((uint64_t)pk.bytes, 9429319680ULL);
    vp_vae_decode_peak(&v, 1, 121, 704, 1280, 2.0, 1, 0, 0, &pk);
    assert_u64_equal((uint64_t)pk.bytes, 685768704ULL);
    /* encode (training without precomputed latents): the patchified video goes through the encoder one frame, then 4
     * frames, per call; the first down block (160 channels at 352 × 640 positions) holds a resnet's input, SiLU output,
     * F.pad copy and conv output, the block's x_copy and cuDNN's workspace (the padded input + the output): 7 × 160 ×
     * 225,280 × 4 × 2 B = 2,018,508,800; beside it the
     * video and its patchified copy, 2 × 3 × 121 × 704 × 1280 × 2 B = 1,308,426,240 */
    vp_vae_encode_peak(&v, 1, 121, 704, 1280, 2.0, 0, 0, &pk);
    assert_u64_equal((uint64_t)pk.bytes, 2018508800ULL);
    assert_u64_equal((uint64_t)pk.out_bytes, 1308426240ULL);
    /* the pipeline's decode phase carries it for the vae instance */
    const vp_estimate *e = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"frames\":121,\"height\":704,\"width\":1280}",
                                              "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.2-ti2v-5b/vae\"},"
                                              "\"precision\":\"bf16\",\"activations\":\"no_grad\"}"));
    assert_u64_equal(t_component(e, 0, "vae_decode", "vae"), 9429319680ULL);
}

/* A pipeline preset's plan expanded into its components as the CLI's --model does (pipeline_expand.c). */
static const vp_estimate *expanded(const char *workload, const char *preset, const char *gpu, int want_added) {
    const char *plan = t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":%s,\"hardware\":{\"gpu\":\"%s\"},"
                             "\"instances\":[{\"model\":{\"preset\":\"%s\"}}]}",
                             workload, gpu, preset);
    vp_error err;
    int added = 0;
    char *out = vp_plan_expand_pipeline_json(plan, t_registry(), 0, 0, &added, &err);
    if (!out) {
        fail_msg("refused: %s: %s", err.path, err.message);
        return NULL;
    }
    assert_int_equal(added, want_added);
    const vp_estimate *e = t_estimate(t_fmt("%s", out));
    vp_free(out);
    return e;
}

/* The Wan 2.1 VAE's decode (vae_wan.c vp_vae_wan21_decode_units), 81 × 480 × 832 in bf16: one latent frame per call,
 * 4 frames out, at full resolution P = 480 × 832 = 399,360 px; decoder channels 384 (mid), up blocks 384, 384, 192, 96.
 * The peak is conv1 of the last up block's second resnet (96 -> 96), inside the conv: the block's input (the
 * upsampler's 96 channels, held by the decoder's `x`), the resnet's input and SiLU output (3 × 96 × 4 frames = 1,152
 * channel-frames × P), WanCausalConv3d's F.pad copy (96 × 6 × 482 × 834; the torch.cat it was made from is freed
 * by then), conv1's output (384 × P) and cuDNN's workspace (384 × P × 1,596,621,175 / 707,788,800, the ratio the
 * CogVideoX decode trace measured), 384 × 3.2558 = 1,250.2. At the F.pad, with the cat (96 × 6 × P) and no output,
 * 1,152 + 576 channel-frames × P plus the pad: less. Caches, 2 frames of each 3-D conv input: the last up block's 96 +
 * 96 + 4 × 96, conv_out's 96 and the running conv's new clone 96 (768 × P); up block 2's 192 + 192 + 4 × 192 at P / 4
 * (288); up block 1's 192 + 384 + 4 × 384 and its time_conv's 384 at P / 16 (156); up block 0's 6 × 384 and time_conv
 * 384 at P / 64 (42); the mid block's 4 × 384 and conv_in's 16 at P / 64 (24.25): 1,278.25 × 2 frames. Bytes: (1,152
 * × 399,360 + 96 × 6 × 401,988 + 1,250.2 × 399,360 + 2,556.5 × 399,360) × 2 B = 4,423,720,951. The H100 measured this
 * decode's max_memory_allocated (tests/groundtruth/h100-2026-11-24-diffusion, test_diffusion_h100.c): before this
 * walk the model gave 3,507,978,240 (-16% of the whole). */
static void vae21_decode(void **s) {
    (void)s;
    vp_arch v = t_arch_of("wan2.1-t2v-1.3b/vae");
    vp_vae_peak pk;
    vp_vae_decode_peak(&v, 1, 81, 480, 832, 2.0, 0, 0, 0, &pk);
    assert_int_equal(pk.chunk_frames, 4);
    assert_u64_equal((uint64_t)pk.bytes, 4423720951ULL);
    /* Wan's own code (workload.diffusion.code "official": a flat Decoder3d) does not hold the level's input: 96 × 4
     * frames × 399,360 px × 2 B = 306,708,480 B less */
    const vp_estimate *d = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832}",
                                              "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-1.3b/vae\"},"
                                              "\"precision\":\"bf16\",\"activations\":\"no_grad\"}"));
    const vp_estimate *o = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832,"
                                              "\"diffusion\":{\"code\":\"official\"}}",
                                              "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"wan2.1-t2v-1.3b/vae\"},"
                                              "\"precision\":\"bf16\",\"activations\":\"no_grad\"}"));
    assert_u64_equal(t_component(d, 0, "vae_decode", "vae") - t_component(o, 0, "vae_decode", "vae"), 306708480ULL);
}

/* Wan2.2-T2V-A14B: `--model wan2.2-t2v-a14b` expands to transformer, transformer_2 (the low-noise expert), UMT5 and the
 * Wan 2.1 VAE. pipe.to("cuda") keeps both experts: 2 × 14,288,491,584 × 2 B in every phase; enable_model_cpu_offload
 * keeps one component at a time, so the step's phase holds one expert's 28,576,983,168 B. */
static void a14b_pipeline(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":720,\"width\":1280%s}";
    const vp_estimate *none = expanded(t_fmt(wl, ""), "wan2.2-t2v-a14b", "h100-sxm-80gb", 3);
    const vp_estimate *model = expanded(t_fmt(wl, ",\"diffusion\":{\"offload\":\"model\"}"), "wan2.2-t2v-a14b", "h100-sxm-80gb", 3);
    assert_u64_equal(t_component(none, 0, "weights", "transformer"), 28576983168ULL);
    assert_u64_equal(t_component(none, 0, "weights", "transformer_2"), 28576983168ULL);
    assert_string_equal(model->devices[0].peak_phase, "transformer");
    assert_u64_equal(t_component(model, 0, "weights", "transformer_2"), 0);
    assert_true(none->devices[0].peak_alloc_bytes > model->devices[0].peak_alloc_bytes + 28576983168ULL);
}

/* The Wan2.2 README's single-GPU claims (Wan-Video/Wan2.2 README, "Run Text-Image-to-Video Generation" and "Run
 * Text-to-Video Generation"): TI2V-5B at 1280×704 (121 frames, its default) with `--offload_model True
 * --convert_model_dtype --t5_cpu` "can run on a GPU with at least 24GB VRAM (e.g, RTX 4090 GPU)", and without those
 * options on an 80 GB GPU; T2V-A14B at 1280×720 with `--offload_model True --convert_model_dtype` on an 80 GB GPU. Read
 * here through diffusers' pipelines in bf16, enable_model_cpu_offload standing for --offload_model (one model on the
 * GPU at a time): TI2V-5B peaks at 14.7 GiB in the transformer's phase, A14B at 34.9 GiB (one expert's 26.6 GiB of
 * weights alone is more than a 24 GB card holds). */
static void readme_claims(void **s) {
    (void)s;
    const char *ti2v = "{\"mode\":\"infer\",\"batch\":1,\"frames\":121,\"height\":704,\"width\":1280%s}";
    assert_true(expanded(t_fmt(ti2v, ",\"diffusion\":{\"offload\":\"model\"}"), "wan2.2-ti2v-5b", "rtx-4090", 2)->fits);
    assert_true(expanded(t_fmt(ti2v, ""), "wan2.2-ti2v-5b", "h100-sxm-80gb", 2)->fits);
    const char *a14 = "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":720,\"width\":1280,"
                      "\"diffusion\":{\"offload\":\"model\"}}";
    assert_true(expanded(a14, "wan2.2-t2v-a14b", "a100-sxm-80gb", 3)->fits);
    assert_false(expanded(a14, "wan2.2-t2v-a14b", "rtx-4090", 3)->fits);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(transformers),     cmocka_unit_test(vae_params), cmocka_unit_test(tokens),
        cmocka_unit_test(modulation_infer), cmocka_unit_test(modulation_train), cmocka_unit_test(vae_decode),     cmocka_unit_test(vae21_decode),
        cmocka_unit_test(a14b_pipeline),    cmocka_unit_test(readme_claims),
    };
    return T_RUN("wan22", tests, argc, argv);
}
