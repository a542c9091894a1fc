/* test_diffusion_vae_mochi.c: AutoencoderKLMochi (core/src/vae_mochi.c; diffusers autoencoder_kl_mochi.py at 58eb52c0).
 * Group diffusion_vae_mochi: the exact parameter count of Mochi 1 preview's VAE worked by hand and checked against the
 * released weight file's size, and hand-worked decode / encode peaks at small shapes, with and without tiling, and at
 * the pipeline's default size, where CogVideoXSafeConv3d splits the convs. */
#include <stdio.h>
#include <string.h>

#include "diffusers.h"
#include "plan.h"
#include "vp_test.h"
#include "t_arch.h"

/* genmo/mochi-1-preview vae/config.json: encoder widths 64, 128, 256, 384, decoder 128, 256, 512, 768, layers 3, 3, 4,
 * 6, 3, temporal expansions 1, 2, 3, spatial 2, 2, 2, attention in every encoder block but block_in, 15 Fourier input
 * channels, latent 12. A resnet is 2 GroupNorms (2c each) + 2 convs 27c² + c: 54c² + 6c (64: 221,568; 128: 885,504;
 * 256: 3,540,480; 384: 7,964,928; 512: 14,158,848; 768: 31,855,104); an attention with its norm 2c + 3c² (q, k, v
 * without bias) + c² + c = 4c² + 3c (128: 65,920; 256: 262,912; 384: 590,976).
 * Encoder: proj_in 15·64 + 64 = 1,024; block_in 3 × 221,568 = 664,704;
 *   down 0: conv 64 -> 128, kernel 1·2·2: 32,896 + 3 × (885,504 + 65,920)        =  2,887,168
 *   down 1: conv 128 -> 256, kernel 2·2·2: 262,400 + 4 × (3,540,480 + 262,912)    = 15,475,968
 *   down 2: conv 256 -> 384, kernel 3·2·2: 1,180,032 + 6 × (7,964,928 + 590,976)  = 52,515,456
 *   block_out 3 × 8,555,904 = 25,667,712; norm_out 768; proj_out 384·24 = 9,216      -> 97,222,016
 * Decoder: conv_in 12·768 + 768 = 9,984; block_in 3 × 31,855,104 = 95,565,312;
 *   up 0: 6 × 31,855,104 + proj 768 -> 512·3·4: 4,718,592 + 6,144                  = 195,855,360
 *   up 1: 4 × 14,158,848 + proj 512 -> 256·2·4: 1,048,576 + 2,048                  =  57,686,016
 *   up 2: 3 × 3,540,480 + proj 256 -> 128·1·4: 131,072 + 512                       =  10,753,024
 *   block_out 3 × 885,504 = 2,656,512; proj_out 128·3 + 3 = 387                       -> 362,526,595
 * (Genmo's model card gives the AsymmVAE "362M": the decoder, the part first released.) Total 459,748,611.
 * Independent: the released vae/diffusion_pytorch_model.bf16.safetensors is 919,549,966 B (its size as a public
 * repository pins it with the rest of the mochi-1-preview snapshot) = 8 B + a 52,736 B header (437 tensors) +
 * 2 × 459,748,611. */
static void mochi_params(void **s) {
    (void)s;
    const cJSON *e = t_estimate_json(t_plan1("{\"mode\":\"infer\",\"batch\":1}",
                                             "{\"name\":\"c\",\"role\":\"reference\",\"model\":{\"preset\":\"mochi-1/vae\"},"
                                             "\"precision\":\"bf16\",\"activations\":\"no_grad\"}"));
    assert_u64_equal(t_json_params_total(e, 0), 459748611ULL);
    assert_u64_equal((919549966ULL - 8 - 52736) / 2, 459748611ULL);
    vp_arch a = t_arch_of("mochi-1/vae");
    assert_u64_equal((uint64_t)a.d.embed, 97222016ULL);
    assert_u64_equal((uint64_t)a.d.blocks_total, 362526595ULL);
    assert_int_equal(a.d.spatial, 8);
    assert_int_equal(a.d.temporal, 6);
    t_expect_error(t_plan1("{\"mode\":\"infer\",\"batch\":1}",
                           t_hf_instance("{\"_class_name\":\"AutoencoderKLMochi\",\"temporal_expansions\":[1,2]}", "")),
                   VP_ERR_FIELD, "instances[0].model.hf_config.layers_per_block");
}

/* Peaks (vae_mochi.c): a resnet of 128 channels at every pixel of T = latent frames × 6 frames (decode), of 64 channels
 * (encode). Per resnet: norm2 holds the input, conv1's output, the chunks' GroupNorm outputs and their concatenation
 * (4 × c·N); a conv holds the input, SiLU's output, the replicate-padded copy c × (T + 2) × (h + 2) × (w + 2), the
 * output and cuDNN's workspace (the padded copy + the output + the weight, c × c × 27): 4 c·N + 2 pad + weight; above
 * 2^30 padded elements CogVideoXSafeConv3d splits it (copies, output chunks, their concatenation).
 *  decode 13 × 64 × 96 bf16: (13 - 1) / 6 + 1 = 3 latent frames, T = 18; c·N = 128 × 18 × 64 × 96 = 14,155,776;
 *    pad 128 × 20 × 66 × 98 = 16,558,080; conv 4 × 14,155,776 + 2 × 16,558,080 + 442,368 = 90,181,632 > norm
 *    56,623,104 -> 2 B × 90,181,632 = 180,363,264 B; out: 13 kept frames 3 × 13 × 64 × 96 × 2 = 479,232;
 *  decode 13 × 256 × 384: untiled c·N = 226,492,416, pad 128 × 20 × 258 × 386 = 254,945,280, conv 1,416,302,592 >
 *    norm 905,969,664 -> 2,832,605,184 B; tiled (48 latents > 32): 256 × 256, c·N = 150,994,944, pad 128 × 20 × 258²
 *    = 170,403,840, conv 945,229,824 -> 1,890,459,648 B; tiles over latent rows 0-32, 24-32 (40 -> 320 px) and columns
 *    0-32, 24-48 (56 -> 448 px): 3 × 18 × 320 × 448 × 2 = 15,482,880 kept + 2 × 3 × 13 × 256 × 384 × 2 = 15,335,424
 *    -> 30,818,304;
 *  decode 163 × 480 × 848 untiled (the longest video, 5.4 s at 30 fps): 28 latent frames, T = 168; c·N = 128 × 168 × 480 × 848 =
 *    8,752,988,160; pad 128 × 170 × 482 × 850 = 8,915,072,000 > 2^30: int(8,915,072,000 / 2^30) + 1 = 9 parts of
 *    ceil(170 / 9) = 19 frames (9 chunks), the 8 after the first copied with 2 more frames: 170 - 19 + 16 = 167
 *    frames × 128 × 482 × 850 = 8,757,747,200; conv 4 × 8,752,988,160 + 8,915,072,000 + 8,757,747,200 =
 *    52,684,771,840 -> 105,369,543,680 B (98.1 GiB: why Mochi is decoded with tiling; the last chunk's workspace comes
 *    before that concatenation and is smaller than it);
 *  encode 13 × 64 × 96 bf16: c·N = 64 × 13 × 64 × 96 = 5,111,808; pad 64 × 15 × 66 × 98 = 6,209,280; conv
 *    4 × 5,111,808 + 2 × 6,209,280 + 64 × 64 × 27 = 32,976,384 > norm 20,447,232 -> 65,952,768 B; the video
 *    3 × 13 × 64 × 96 × 2 = 479,232. */
static void mochi_peaks(void **s) {
    (void)s;
    vp_arch a = t_arch_of("mochi-1/vae");
    vp_vae_peak pk;
    vp_vae_decode_peak(&a, 1, 13, 64, 96, 2.0, 0, 0, 0, &pk);
    assert_int_equal(pk.chunk_frames, 18);
    assert_u64_equal((uint64_t)pk.bytes, 180363264ULL);
    assert_u64_equal((uint64_t)pk.out_bytes, 479232ULL);
    vp_vae_decode_peak(&a, 1, 13, 256, 384, 2.0, 0, 0, 0, &pk);
    assert_u64_equal((uint64_t)pk.bytes, 2832605184ULL);
    vp_vae_decode_peak(&a, 1, 13, 256, 384, 2.0, 1, 0, 0, &pk);
    assert_int_equal(pk.tile_w, 256);
    assert_u64_equal((uint64_t)pk.bytes, 1890459648ULL);
    assert_u64_equal((uint64_t)pk.out_bytes, 30818304ULL);
    vp_vae_decode_peak(&a, 1, 163, 480, 848, 2.0, 0, 0, 0, &pk);
    assert_u64_equal((uint64_t)pk.bytes, 105369543680ULL);
    vp_vae_encode_peak(&a, 1, 13, 64, 96, 2.0, 0, 0, &pk);
    assert_u64_equal((uint64_t)pk.bytes, 65952768ULL);
    assert_u64_equal((uint64_t)pk.out_bytes, 479232ULL);
    /* slicing: one sample per call */
    vp_vae_peak two;
    vp_vae_decode_peak(&a, 2, 13, 64, 96, 2.0, 0, 1, 0, &two);
    vp_vae_decode_peak(&a, 1, 13, 64, 96, 2.0, 0, 0, 0, &pk);
    assert_true(two.bytes == pk.bytes);
}

/* The pipeline's decode is reported under the VAE instance: mochi-1 inference with tiling names the VAE decode. */
static void mochi_pipeline(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan1(
        "{\"mode\":\"infer\",\"batch\":1,\"frames\":13,\"height\":256,\"width\":384,\"diffusion\":{\"vae_tiling\":true}}",
        "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"mochi-1/vae\"},\"precision\":\"bf16\",\"activations\":\"no_grad\"}"));
    assert_u64_equal(t_component(e, 0, "weights", "vae"), 459748611ULL * 2);
    assert_true(t_component(e, 0, "vae_decode", "vae") > 0);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mochi_params),
        cmocka_unit_test(mochi_peaks),
        cmocka_unit_test(mochi_pipeline),
    };
    return T_RUN("diffusion_vae_mochi", tests, argc, argv);
}
