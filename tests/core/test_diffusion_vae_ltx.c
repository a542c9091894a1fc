/* test_diffusion_vae_ltx.c: AutoencoderKLLTXVideo (core/src/vae_ltx.c; diffusers autoencoder_kl_ltx.py at 58eb52c0).
 * Group diffusion_vae_ltx: the exact parameter count of LTX-Video 0.9.0's VAE worked by hand and checked against the
 * released weight file's size, and hand-worked encode / decode peaks at small shapes, with and without tiling. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diffusers.h"
#include "plan.h"
#include "vp_test.h"
#include "t_arch.h"

/* LTX-Video 0.9.0 vae/config.json (block_out_channels 128, 256, 512, 512; layers_per_block 4, 3, 3, 3, 4; scaling
 * T, T, T, F; patch 4; latent 128; the decoder lists default to the same). conv(i, o, k) = i·o·k + o; a resnet c -> c is
 * 2·conv(c, c, 27) (RMSNorms without parameters): 128: 884,992; 256: 3,539,456; 512: 14,156,800; a resnet i -> o adds
 * LayerNorm(i) 2i and a 1x1x1 shortcut: 128 -> 256: 884,992 + 1,769,728 + 256 + 33,024 = 2,688,000;
 * 256 -> 512: 3,539,456 + 7,078,400 + 512 + 131,584 = 10,749,952; 512 -> 256: 3,539,200 + 1,769,728 + 1,024 + 131,328
 * = 5,441,280; 256 -> 128: 884,864 + 442,496 + 512 + 32,896 = 1,360,768.
 * Encoder: conv_in 48·128·27 + 128 = 166,016
 *   block 0: 4 × 884,992 + stride-2 conv 442,496 + conv_out 2,688,000              =  6,670,464
 *   block 1: 3 × 3,539,456 + 1,769,728 + 10,749,952                                = 23,138,048
 *   block 2: 3 × 14,156,800 + 7,078,400                                            = 49,548,800
 *   block 3: 3 × 14,156,800 (no scaling)                                           = 42,470,400
 *   mid 4 × 14,156,800 = 56,627,200; conv_out 512·129·27 + 129 = 1,783,425           -> 180,404,353
 * Decoder: conv_in 128·512·27 + 512 = 1,769,984; mid 56,627,200;
 *   up 0: 3 × 14,156,800                                                           = 42,470,400
 *   up 1: upsampler conv 512 -> 4096: 56,623,104 + 4,096 = 56,627,200, + 42,470,400  = 99,097,600
 *   up 2: 5,441,280 + conv 256 -> 2048 (14,155,776 + 2,048) + 3 × 3,539,456          = 30,217,472
 *   up 3: 1,360,768 + conv 128 -> 1024 (3,538,944 + 1,024) + 4 × 884,992             =  8,440,704
 *   conv_out 128·48·27 + 48 = 165,936                                               -> 238,789,296
 * Total 419,193,649. Independent: the released Lightricks/LTX-Video vae/diffusion_pytorch_model.safetensors (fp32,
 * revision 8984fa25, whose size a public repository pins: 1,676,798,532 B) = 8 B + a 22,904 B header (190 tensors:
 * the 188 parameters and the latents_mean / latents_std buffers of 128) + 4 × (419,193,649 + 256). */
static void ltx_params(void **s) {
    (void)s;
    const cJSON *e = t_estimate_json(t_plan1("{\"mode\":\"infer\",\"batch\":1}",
                                             "{\"name\":\"c\",\"role\":\"reference\",\"model\":{\"preset\":\"ltx-video/vae\"},"
                                             "\"precision\":\"bf16\",\"activations\":\"no_grad\"}"));
    assert_u64_equal(t_json_params_total(e, 0), 419193649ULL);
    assert_u64_equal((1676798532ULL - 8 - 22904) / 4 - 256, 419193649ULL);
    vp_arch a = t_arch_of("ltx-video/vae");
    assert_u64_equal((uint64_t)a.d.embed, 180404353ULL);
    assert_u64_equal((uint64_t)a.d.blocks_total, 238789296ULL);
    assert_int_equal(a.d.spatial, 32); /* patch 4 × 2³ */
    assert_int_equal(a.d.temporal, 8);
    /* a list shorter than the blocks it describes is refused with the field named */
    t_expect_error(t_plan1("{\"mode\":\"infer\",\"batch\":1}",
                           t_hf_instance("{\"_class_name\":\"AutoencoderKLLTXVideo\",\"layers_per_block\":[4,3,3]}", "")),
                   VP_ERR_FIELD, "instances[0].model.hf_config.layers_per_block");
    t_expect_error(t_plan1("{\"mode\":\"infer\",\"batch\":1}",
                           t_hf_instance("{\"_class_name\":\"AutoencoderKLLTXVideo\",\"downsample_type\":[\"conv\",\"diagonal\"]}", "")),
                   VP_ERR_FIELD, "instances[0].model.hf_config.downsample_type");
}

/* The later VAEs (scripts/convert_ltx_to_diffusers.py get_vae_config "0.9.1" and "0.9.5"; the 0.9.5 one is LTX-Video
 * 0.9.5-0.9.8's and LTXV 13B's). Counted with diffusers' own AutoencoderKLLTXVideo built from these configs under torch
 * (encoder / decoder): 0.9.1 934,976,434 (180,404,353 / 754,572,081), 0.9.5 1,246,913,522 (694,098,881 / 552,814,641).
 * By hand (res(c) = a c -> c resnet, 2 × (27c² + c), + 4c with the timestep conditioning's scale_shift_table, + 2c with
 * noise injection; te(d) = the time embedder 256·d + d + d² + d):
 *   0.9.5 encoder (LTXVideo095DownBlock3D, widths 128, 256, 512, 1024, 2048, layers 4, 6, 6, 2 + mid 2): conv_in 48 ->
 *     128: 166,016; block 0: 4 res(128) + the spatial downsampler's conv 128 -> 256/4: 3,761,216; block 1: 6 res(256)
 *     + temporal conv 256 -> 512/2: 23,006,464; block 2: 6 res(512) + conv 512 -> 1024/8: 86,710,400; block 3: 2
 *     res(1024) + conv 1024 -> 2048/8: 120,328,448; mid 2 res(2048) + conv_out 2048 -> 129: 460,126,337 -> 694,098,881;
 *   0.9.5 decoder (widths 1024, 512, 256 halved by upsample_factor 2, 5 resnets each, conditioned): conv_in 128 -> 1024
 *     + mid 5 res(1024) + te(4096): 304,520,192; up 0: te(2048) + the residual upsampler's conv 1024 -> 8 × 512 + 5
 *     res(512): 188,767,232; up 1 (256): 47,328,768; up 2 (128): 11,900,672; conv_out 128 -> 48 + the multiplier +
 *     te(256) + 2 × 128: 297,777 -> 552,814,641;
 *   0.9.1 decoder: the same widths with 5, 6, 7, 8 resnets (mid 8) and noise injection in the up blocks: 754,572,081,
 *     its encoder 0.9.0's.
 * The 0.9.5 encoder halves space thrice (spatial, spatiotemporal × 2) and time thrice (temporal, spatiotemporal × 2):
 * 32× and 8× as its config says; the decoder's last width, the full-resolution level of the decode peak, is 128. */
#define LTX091 "{\"_class_name\":\"AutoencoderKLLTXVideo\",\"block_out_channels\":[128,256,512,512],\"decoder_block_out_channels\":[256,512,1024]," \
    "\"layers_per_block\":[4,3,3,3,4],\"decoder_layers_per_block\":[5,6,7,8],\"spatio_temporal_scaling\":[true,true,true,false]," \
    "\"decoder_spatio_temporal_scaling\":[true,true,true],\"decoder_inject_noise\":[true,true,true,false],\"upsample_residual\":[true,true,true]," \
    "\"upsample_factor\":[2,2,2],\"timestep_conditioning\":true,\"patch_size\":4,\"patch_size_t\":1,\"encoder_causal\":true,\"decoder_causal\":false}"
#define LTX095 "{\"_class_name\":\"AutoencoderKLLTXVideo\",\"block_out_channels\":[128,256,512,1024,2048],\"decoder_block_out_channels\":[256,512,1024]," \
    "\"down_block_types\":[\"LTXVideo095DownBlock3D\",\"LTXVideo095DownBlock3D\",\"LTXVideo095DownBlock3D\",\"LTXVideo095DownBlock3D\"]," \
    "\"downsample_type\":[\"spatial\",\"temporal\",\"spatiotemporal\",\"spatiotemporal\"],\"layers_per_block\":[4,6,6,2,2]," \
    "\"decoder_layers_per_block\":[5,5,5,5],\"spatio_temporal_scaling\":[true,true,true,true],\"decoder_spatio_temporal_scaling\":[true,true,true]," \
    "\"decoder_inject_noise\":[false,false,false,false],\"upsample_residual\":[true,true,true],\"upsample_factor\":[2,2,2]," \
    "\"timestep_conditioning\":true,\"patch_size\":4,\"patch_size_t\":1,\"spatial_compression_ratio\":32,\"temporal_compression_ratio\":8}"
static void ltx_later_params(void **s) {
    (void)s;
    const char *ref = "\"precision\":\"bf16\",\"role\":\"reference\",\"activations\":\"no_grad\"";
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"frames\":121,\"height\":512,\"width\":768}";
    assert_u64_equal(t_json_params_total(t_estimate_json(t_plan1(wl, t_hf_instance(LTX091, ref))), 0), 934976434ULL);
    assert_u64_equal(t_json_params_total(t_estimate_json(t_plan1(wl, t_hf_instance(LTX095, ref))), 0), 1246913522ULL);
    /* the decode's full level: 128 channels over T = 8 · 15 + 1 = 121 frames × 128 × 192 positions at a conv, 2 B × (6 + 6 / T)
     * each in bf16 (ltx_peaks): 12 × 128 × 128 × 192 × (121 + 1) B */
    const vp_estimate *e = t_estimate(t_plan1(wl, t_hf_instance(LTX095, ref)));
    assert_u64_equal(t_component(e, 0, "vae_decode", "policy"), 12ULL * 128 * 128 * 192 * 122);
}

/* Peaks (vae_ltx.c): a resnet at the full-resolution level, 128 channels over frames × (h / 4) × (w / 4) positions.
 * Per channel and position, bf16: norm2 holds the block input and conv1's output (2 × 2 B) and RMSNorm's fp32 copy and
 * its square (2 × 4 B) = 12 B; the convs hold 2 B × (6 + 6 / T) (input, SiLU, the 2 padding frames and their
 * concatenation, output, and cuDNN's workspace: the concatenation + the output) = 13.33 B at T = 9: the conv wins.
 * fp32: 12 B (the cast is a no-op) against 4 × (6 + 6/9) = 26.67 B.
 *  decode 9 × 64 × 96, bf16: 2 latent frames -> T = (2 - 1) · 8 + 1 = 9; N = 9 × 16 × 24 = 3,456;
 *    128 × 3,456 × 2 × 60 / 9 = 5,898,240 B; out: conv_out's output and its unpatchified copy 2 × 3 × 9 × 64 × 96 × 2 =
 *    663,552; fp32: 128 × 3,456 × 4 × 60 / 9 = 11,796,480 B;
 *  decode 9 × 512 × 768: untiled N = 9 × 128 × 192 = 221,184 -> 128 × 221,184 × 2 × 60 / 9 = 377,487,360 B; tiled (the
 *    latents are 24 wide > 16): 512 × 512 tiles, N = 9 × 128 × 128 = 147,456 -> 251,658,240 B; the tiles cover latent rows
 *    0-16 and 14-16 (16 + 2 = 18 -> 576 px) and columns 0-16, 14-24 (16 + 10 = 26 -> 832 px): 3 × 9 × 576 × 832 × 2 =
 *    25,878,528 B kept, plus the row and final concatenations 2 × 3 × 9 × 512 × 768 × 2 = 42,467,328 -> 68,345,856;
 *  encode 9 × 64 × 96, bf16: the first down block at 128 ch over 9 × 16 × 24 = 5,898,240 B; the input video
 *    3 × 9 × 64 × 96 × 2 = 331,776. Slicing: batch 2 sliced = batch 1. */
static void ltx_peaks(void **s) {
    (void)s;
    vp_arch a = t_arch_of("ltx-video/vae");
    vp_vae_peak pk;
    vp_vae_decode_peak(&a, 1, 9, 64, 96, 2.0, 0, 0, 0, &pk);
    assert_int_equal(pk.chunk_frames, 9);
    assert_u64_equal((uint64_t)pk.bytes, 5898240ULL);
    assert_u64_equal((uint64_t)pk.out_bytes, 663552ULL);
    assert_u64_equal((uint64_t)pk.tensor_bytes, 128ULL * 3456 * 2);
    vp_vae_decode_peak(&a, 1, 9, 64, 96, 4.0, 0, 0, 0, &pk);
    assert_u64_equal((uint64_t)llround(pk.bytes), 11796480ULL);
    vp_vae_decode_peak(&a, 1, 9, 512, 768, 2.0, 0, 0, 0, &pk);
    assert_u64_equal((uint64_t)pk.bytes, 377487360ULL);
    vp_vae_decode_peak(&a, 1, 9, 512, 768, 2.0, 1, 0, 0, &pk);
    assert_int_equal(pk.tile_h, 512);
    assert_int_equal(pk.tile_w, 512);
    assert_u64_equal((uint64_t)pk.bytes, 251658240ULL);
    assert_u64_equal((uint64_t)pk.out_bytes, 68345856ULL);
    vp_vae_encode_peak(&a, 1, 9, 64, 96, 2.0, 0, 0, &pk);
    assert_u64_equal((uint64_t)pk.bytes, 5898240ULL);
    assert_u64_equal((uint64_t)pk.out_bytes, 331776ULL);
    vp_vae_peak two;
    vp_vae_encode_peak(&a, 2, 9, 64, 96, 2.0, 0, 1, &two);
    assert_true(two.bytes == pk.bytes);
}

/* finetrainers' LTX-Video LoRA log (README at 2da8cb5, 21 Dec 2024; --enable_slicing --enable_tiling, 49x512x768,
 * bf16): "after precomputing latents" max_memory_allocated 11.155 GiB: T5-XXL 4,762,310,656 × 2 B = 8.871 GiB, the
 * cuBLAS workspace 0.031, the VAE 419,193,649 × 2 B = 0.781, the video 3 × 49 × 512 × 768 × 2 B = 0.108 and the first
 * 512 × 512 tile's encode 12 × 128 × 49 × 128 × 128 = 1,233,125,376 B = 1.148: 10.94 GiB (-1.9%; what is missing may be
 * cuDNN's Conv3d workspace, not modelled). The phase is listed, and it is the job's peak: finetrainers resets its
 * logged peaks before training, but the stage has to fit the GPU as the step does. */
static void ltx_precompute_phase(void **s) {
    (void)s;
    const char *inst =
        "{\"name\":\"transformer\",\"model\":{\"preset\":\"ltx-video\"},\"precision\":\"bf16\",\"finetune\":{\"method\":\"lora\","
        "\"lora\":{\"r\":128,\"dtype\":\"bf16\",\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}},\"grad_ckpt\":true,"
        "\"optimizer\":{\"name\":\"adamw\"}},"
        "{\"name\":\"text_encoder\",\"role\":\"reference\",\"model\":{\"preset\":\"ltx-video/text_encoder\"},\"precision\":\"bf16\","
        "\"activations\":\"no_grad\"},"
        "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"ltx-video/vae\"},\"precision\":\"bf16\",\"activations\":\"no_grad\"}";
    const vp_estimate *e = t_estimate(t_plan(
        "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768,"
        "\"diffusion\":{\"precompute\":true,\"vae_tiling\":true,\"vae_slicing\":true}}",
        inst, "{\"gpu\":\"h100-sxm-80gb\",\"count\":1}"));
    const vp_device *d = &e->devices[0];
    double got = -1;
    for (int k = 0; k < d->n_phases; k++)
        if (!strcmp(d->phases[k].name, "precompute_latents")) got = (double)d->phases[k].alloc_bytes / 1073741824.0;
    print_message("precompute_latents: %.3f GiB (finetrainers log 11.155)\n", got);
    assert_true(got > 0.95 * 11.155 && got < 1.05 * 11.155);
    /* the peak is that stage, with the VAE's weights in it; the training step after it holds less (no T5, no VAE) */
    assert_string_equal(d->peak_phase, "precompute_latents");
    assert_u64_equal(t_component(e, 0, "weights", "vae"), (419193649ULL + 2 * 128) * 2); /* + latents_mean / latents_std */
    for (int k = 0; k < d->n_phases; k++)
        if (!strcmp(d->phases[k].name, "backward")) assert_true(d->phases[k].alloc_bytes < 0.95 * 11.155 * 1073741824.0);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ltx_params),
        cmocka_unit_test(ltx_later_params),
        cmocka_unit_test(ltx_peaks),
        cmocka_unit_test(ltx_precompute_phase),
    };
    return T_RUN("diffusion_vae_ltx", tests, argc, argv);
}
