/* test_vlm.c: images in vision-language models (core/src/vlm_images.c) on real published config.json
 * files (tests/fixtures/configs/hf, sources in its README.md): the decoder tokens one image becomes,
 * per family, seen through the KV cache they fill in inference, and the vision tower's own forward
 * (training: saved activations of a trained tower, nothing for a frozen one; inference: one block's
 * temporaries), worked out by hand.
 *
 * usage: test_vlm GROUP FIXTURE_DIR (tests/fixtures/configs/hf) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planning.h"
#include "vp_test.h"

static const char *g_dir = "tests/fixtures/configs/hf";

static const char *config(const char *name) { return t_fixture_text(g_dir, name); }

/* KV cache of a prefill-only generate (seq 512, batch 1) with `images` images of side `side` (0: default). */
static uint64_t kv(const char *cfg, int images, int side) {
    const char *wl = side ? t_fmt("{\"mode\":\"infer\",\"batch\":1,\"seq\":512,\"new_tokens\":0,\"images\":%d,\"image_size\":%d}",
                                  images, side)
                          : t_fmt("{\"mode\":\"infer\",\"batch\":1,\"seq\":512,\"new_tokens\":0,\"images\":%d}", images);
    return t_component(t_estimate(t_plan1(wl, t_hf_instance(cfg, ""))), 0, "kv_cache", NULL);
}

/* The KV cache grows by (image tokens) × (K,V bytes per token over all layers). */
static void assert_image_tokens(const char *file, int images, int side, uint64_t tokens, uint64_t kv_per_token) {
    const char *cfg = config(file);
    assert_u64_equal(kv(cfg, images, side) - kv(cfg, 0, 0), tokens * kv_per_token);
}

/* llava-1.5-7b-hf: CLIP ViT-L/14-336, (336/14)^2 = 576 patch features, vision_feature_select_strategy
 * "default" drops the CLS feature (modeling_llava.py get_image_features: selected[:, 1:];
 * processing_llava.py num_image_tokens = 576 + 1 - 1). Decoder: Llama-2-7B, 32 layers, 32 KV heads × 128,
 * bf16: 2 × 4096 × 2 B × 32 = 524,288 B per token; one image: 576 × 524,288 = 301,989,888 B;
 * two images twice that. The image's own size does not matter (resized to the 336 crop). */
static void llava_576_tokens(void **s) {
    (void)s;
    assert_image_tokens("llava-1.5-7b-hf.json", 1, 0, 576, 524288);
    assert_image_tokens("llava-1.5-7b-hf.json", 2, 0, 1152, 524288);
    assert_image_tokens("llava-1.5-7b-hf.json", 1, 1024, 576, 524288);
    /* "full" keeps the CLS feature: 577 */
    const char *full = "{\"model_type\":\"llava\",\"vision_feature_select_strategy\":\"full\",\"text_config\":{\"model_type\":"
                       "\"llama\"},\"vision_config\":{\"hidden_size\":1024,\"image_size\":336,\"intermediate_size\":4096,"
                       "\"num_attention_heads\":16,\"num_hidden_layers\":24,\"patch_size\":14}}";
    assert_u64_equal(kv(full, 1, 0) - kv(full, 0, 0), 577ULL * 524288);
}

/* llava_next (anyres, processing_llava_next.py _get_number_of_features, image_processing_utils.py
 * select_best_resolution), LlavaNextConfig default pinpoints [[336,672],[672,336],[672,672],[1008,336],
 * [336,1008]], CLIP 336/14 (24 × 24 features per tile), Llama-2-7B decoder (524,288 B per token):
 *   672 × 672: best fit 672 × 672 (2 × 2 tiles), 48 × 48 features, no unpadding, 48 newlines,
 *              + base 576 = 2304 + 48 + 576 = 2928 tokens;
 *   336 × 336: best fit 336 × 672 (first of the equal-effective, least-wasted pair), 24 × 48 features,
 *              unpadded to the square image: width 24 (padding 12 each side) -> 24 × 24 + 24 + 576 = 1176. */
static void llava_next_anyres(void **s) {
    (void)s;
    const char *cfg = "{\"model_type\":\"llava_next\",\"text_config\":{\"model_type\":\"llama\"},\"vision_config\":{"
                      "\"hidden_size\":1024,\"image_size\":336,\"intermediate_size\":4096,\"num_attention_heads\":16,"
                      "\"num_hidden_layers\":24,\"patch_size\":14}}";
    assert_u64_equal(kv(cfg, 1, 672) - kv(cfg, 0, 0), 2928ULL * 524288);
    assert_u64_equal(kv(cfg, 1, 0) - kv(cfg, 0, 0), 2928ULL * 524288); /* default side 672 */
    assert_u64_equal(kv(cfg, 1, 336) - kv(cfg, 0, 0), 1176ULL * 524288);
    /* a single 336 × 336 pinpoint: one grid tile, 24 × 24 + 24 newlines + 576 base = 1176 */
    const char *one = "{\"model_type\":\"llava_next\",\"image_grid_pinpoints\":[[336,336]],\"text_config\":{\"model_type\":"
                      "\"llama\"},\"vision_config\":{\"hidden_size\":1024,\"image_size\":336,\"intermediate_size\":4096,"
                      "\"num_attention_heads\":16,\"num_hidden_layers\":24,\"patch_size\":14}}";
    assert_u64_equal(kv(one, 1, 672) - kv(one, 0, 0), 1176ULL * 524288);
}

/* gemma-3-4b-it: mm_tokens_per_image 256 (Gemma3MultiModalProjector avg-pools the (896/14)^2 = 4096
 * SigLIP patches to 16 × 16). Decoder: 34 layers, 4 KV heads × 256 (Gemma3TextConfig defaults), bf16:
 * 2 × 1024 × 2 B × 34 = 139,264 B per token; one image 256 × 139,264 = 35,651,584 B. */
static void gemma3_256_tokens(void **s) {
    (void)s;
    assert_image_tokens("gemma-3-4b-it.json", 1, 0, 256, 139264);
    assert_image_tokens("gemma-3-4b-it.json", 3, 0, 768, 139264);
}

/* Qwen2.5-VL-7B: patch 14, spatial_merge_size 2 (image_processing_qwen2_vl.py smart_resize rounds each
 * side to a multiple of 28; PatchMerger merges 2 × 2 patches). Decoder: 28 layers, 4 KV heads × 128:
 * 2 × 512 × 2 B × 28 = 57,344 B per token.
 *   448: (448/14)^2 = 1024 patches / 4 = 256 tokens (also the default side);
 *   896: 64^2 / 4 = 1024;  1000: round(1000/28) = 36 -> 1008 px, 72^2 / 4 = 1296 (smart_resize). */
static void qwen2_5_vl_dynamic(void **s) {
    (void)s;
    assert_image_tokens("qwen2.5-vl-7b-instruct.json", 1, 448, 256, 57344);
    assert_image_tokens("qwen2.5-vl-7b-instruct.json", 1, 0, 256, 57344);
    assert_image_tokens("qwen2.5-vl-7b-instruct.json", 1, 896, 1024, 57344);
    assert_image_tokens("qwen2.5-vl-7b-instruct.json", 1, 1000, 1296, 57344);
    /* 4000: above max_pixels 12,845,056 = 3584^2, so 3584 px: 256^2 / 4 = 16384 */
    assert_image_tokens("qwen2.5-vl-7b-instruct.json", 1, 4000, 16384, 57344);
}

/* Mistral-Small-3.1-24B (mistral3, Pixtral tower: patch 14, image_size 1540, spatial_merge_size 2):
 * ceil(side / 28) tokens per row, each row ending with [IMG_BREAK] ([IMG_END] for the last),
 * processing_pixtral.py / processing_mistral3.py. Decoder: 40 layers, 8 KV heads × 128:
 * 2 × 1024 × 2 B × 40 = 163,840 B per token.
 *   1540 (default): 55 rows × 56 = 3080 tokens;  1024: ceil(1024/28) = 37 -> 37 × 38 = 1406;
 *   4000: capped at the longest edge 1540 -> 3080. */
static void mistral3_pixtral_rows(void **s) {
    (void)s;
    assert_image_tokens("mistral-small-3.1-24b-instruct-2503.json", 1, 0, 3080, 163840);
    assert_image_tokens("mistral-small-3.1-24b-instruct-2503.json", 1, 1024, 1406, 163840);
    assert_image_tokens("mistral-small-3.1-24b-instruct-2503.json", 1, 4000, 3080, 163840);
}

/* Llama-4-Scout: tiles of 336 (vision image_size), (336/14)^2 = 576 patches × pixel_shuffle_ratio^2
 * (0.25) = 144 tokens per tile; processing_llama4.py _prompt_split_image: <|image_start|> + per tile
 * 144 <|patch|> + one x/y separator (when more than one tile) + <|image|> + 144 (global tile) +
 * <|image_end|>. Decoder: 48 layers, 8 KV heads × 128: 2 × 1024 × 2 B × 48 = 196,608 B per token.
 *   336: one tile, no grid: 3 + 144 = 147;  672: 2 × 2 tiles: 147 + 4 × 145 = 727. */
static void llama4_tiles(void **s) {
    (void)s;
    assert_image_tokens("llama-4-scout-17b-16e-instruct.json", 1, 0, 147, 196608);
    assert_image_tokens("llama-4-scout-17b-16e-instruct.json", 1, 672, 727, 196608);
}

/* The trained tower's saved activations (full fine-tune, amp_bf16, SDPA flash), llava-1.5-7b, batch 1, one
 * image: the forward phase minus the same decoder sequence without the tower (seq 512 + 576 = 1088).
 * CLIP block per position (activations_vit.c, h 1024, f 4096, 16 heads): 2 norms × (4 B × 1024 + 8)
 * = 8208; qkv and fc1 inputs in bf16 2 × 2 × 1024 = 4096; q, k, v 3 × 2 × 1024 = 6144; SDPA output +
 * logsumexp 2 × 1024 + 4 × 16 = 2112; GELU input 2 × 4096 = 8192; fc2 input 8192 -> 36,944 B × 24 layers
 * = 886,656. Outside the blocks per position: the bf16 image 3 × 14 × 14 × 2 × 576/577 = 1173.96, the
 * embeddings' and final norm's fp32 inputs 4096 + 8 + 4096 -> 9373.96. 577 positions (576 + CLS) ×
 * 896,029.96 = 517,009,287; projector 576 tokens × 2 B × (1024 + 2 × 4096) = 10,616,832
 * -> 527,626,119 B. A LoRA-trained (frozen) tower saves nothing: the difference is 0. */
static void tower_training(void **s) {
    (void)s;
    const char *cfg = config("llava-1.5-7b-hf.json");
    uint64_t with = t_phase(t_estimate(t_plan1("{\"batch\":1,\"seq\":512,\"images\":1}", t_hf_instance(cfg, ""))), 0, "forward");
    uint64_t without = t_phase(t_estimate(t_plan1("{\"batch\":1,\"seq\":1088}", t_hf_instance(cfg, ""))), 0, "forward");
    assert_close((double)(with - without), 527626119.0, 1e-8);
    const char *lora = "\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16}}";
    with = t_phase(t_estimate(t_plan1("{\"batch\":1,\"seq\":512,\"images\":1}", t_hf_instance(cfg, lora))), 0, "forward");
    without = t_phase(t_estimate(t_plan1("{\"batch\":1,\"seq\":1088}", t_hf_instance(cfg, lora))), 0, "forward");
    assert_u64_equal(with, without);
}

/* A gated tower (Qwen2.5-VL-7B, full fine-tune, amp_bf16, one 448 px image: 1024 tower positions, e 1280,
 * f 3420, 32 blocks, 256 merged tokens): the ViT block of tower_training with e 1280, f 3420 is norms
 * 2 × (4 × 1280 + 8) = 10,256, 5120, 7680, 2 × 1280 + 4 × 16 = 2624, 6840, 6840 -> 39,360, plus the gated
 * MLP's gate and up outputs 2 × 2 × 3420 = 13,680 -> 53,040 B × 32 = 1,697,280; outside: the image
 * 3 × 196 × 2 × 1024/1025 = 1174.85 + 4 × 1280 + 8 + 4 × 1280 -> 11,422.85; 1024 × 1,708,702.85
 * = 1,749,711,721; projector 256 × 2 × (1280 + 2 × 3584) = 4,325,376 -> 1,754,037,097 B, against the same
 * decoder sequence without the tower (512 + 256 = 768). */
static void gated_tower_training(void **s) {
    (void)s;
    const char *cfg = config("qwen2.5-vl-7b-instruct.json");
    uint64_t with = t_phase(t_estimate(t_plan1("{\"batch\":1,\"seq\":512,\"images\":1}", t_hf_instance(cfg, ""))), 0, "forward");
    uint64_t without = t_phase(t_estimate(t_plan1("{\"batch\":1,\"seq\":768}", t_hf_instance(cfg, ""))), 0, "forward");
    assert_close((double)(with - without), 1754037097.0, 1e-8);
}

/* Inference: the tower runs one SigLIP block at a time before the decoder (gemma-3-4b-it, one image,
 * seq 512): 4096 positions × 2 B × (fc1 out + GELU out 2 × 4304 + 3 × 1152 hidden-width + 1152 output)
 * = 4096 × 2 × 13,216 = 108,265,472 B; the decoder's prefill temporaries over 768 tokens are
 * 768 × (3 × 2 × 10240 + 3 × 2 × 2560) = 58,982,400; the tower stands 49,283,072 B above them. */
static void tower_inference(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"seq\":512,\"new_tokens\":0,\"images\":1}",
                                              t_hf_instance(config("gemma-3-4b-it.json"), "")));
    assert_u64_equal(t_component(e, 0, "vision_tower", NULL), 49283072ULL);
    assert_u64_equal(t_component(e, 0, "inference_temp", NULL), 58982400ULL);
}

/* images = 0 (or absent) leaves every estimate as it was; errors name the field. */
static void images_fields(void **s) {
    (void)s;
    const char *cfg = config("llava-1.5-7b-hf.json");
    const vp_estimate *a = t_estimate(t_plan1("{\"batch\":1,\"seq\":512}", t_hf_instance(cfg, "")));
    const vp_estimate *b = t_estimate(t_plan1("{\"batch\":1,\"seq\":512,\"images\":0}", t_hf_instance(cfg, "")));
    assert_u64_equal(t_phase(a, 0, "forward"), t_phase(b, 0, "forward"));
    assert_u64_equal(t_phase(a, 0, "backward"), t_phase(b, 0, "backward"));
    const char *llama = "{\"model_type\":\"llama\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                        "\"intermediate_size\":512,\"vocab_size\":1000}";
    const char *msg = t_expect_error(t_plan1("{\"batch\":1,\"seq\":64,\"images\":1}", t_hf_instance(llama, "")), VP_ERR_FIELD,
                                     "workload.images");
    assert_contains(msg, "vision");
    t_expect_error(t_plan1("{\"batch\":1,\"seq\":64,\"images\":65}", t_hf_instance(cfg, "")), VP_ERR_RANGE, "workload.images");
    t_expect_error(t_plan1("{\"batch\":1,\"seq\":64,\"images\":-1}", t_hf_instance(cfg, "")), VP_ERR_RANGE, "workload.images");
    const char *bad = "{\"model_type\":\"llava_next\",\"image_grid_pinpoints\":[[336,\"x\"]],\"text_config\":{\"model_type\":"
                      "\"llama\"},\"vision_config\":{\"image_size\":336,\"patch_size\":14}}";
    t_expect_error(t_plan1("{\"batch\":1,\"seq\":64}", t_hf_instance(bad, "")), VP_ERR_FIELD,
                   "instances[0].model.hf_config.image_grid_pinpoints");
}

/* `fit --max seq` answers the text beside the images: on an A10 (llava-1.5-7b, prefill only) one image
 * leaves about 576 fewer text tokens and two images about 1152 fewer (within the allocator's rounding:
 * the tower's features are allocated before the prompt's embeddings), not the same total. */
static int64_t fit_seq(int images) {
    const char *plan = t_plan(t_fmt("{\"mode\":\"infer\",\"batch\":1,\"seq\":512,\"new_tokens\":0,\"images\":%d}", images),
                              t_hf_instance(config("llava-1.5-7b-hf.json"), ""), "{\"gpu\":\"a10\"}");
    vp_error err;
    vp_plan *p = vp_plan_from_json(plan, t_registry(), &err);
    if (!p) fail_msg("plan refused: %s (%s)", err.message, err.path);
    vp_fit *fit = malloc(sizeof *fit);
    vp_status st = vp_fit_plan(p, VP_FIELD_SEQ, fit, &err);
    vp_plan_free(p);
    if (st) fail_msg("fit failed: %s (%s)", err.message, err.path);
    int64_t v = fit->value;
    free(fit);
    return v;
}

static void fit_text_beside_images(void **s) {
    (void)s;
    int64_t v0 = fit_seq(0), v1 = fit_seq(1), v2 = fit_seq(2);
    assert_true(v0 > 4096);
    assert_in_range(v0 - v1, 574, 578);
    assert_in_range(v0 - v2, 1150, 1154);
}

int main(int argc, char **argv) {
    if (argc > 2) g_dir = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llava_576_tokens),   cmocka_unit_test(llava_next_anyres),     cmocka_unit_test(gemma3_256_tokens),
        cmocka_unit_test(qwen2_5_vl_dynamic), cmocka_unit_test(mistral3_pixtral_rows), cmocka_unit_test(llama4_tiles),
        cmocka_unit_test(tower_training),     cmocka_unit_test(gated_tower_training), cmocka_unit_test(tower_inference),       cmocka_unit_test(images_fields), cmocka_unit_test(fit_text_beside_images),
    };
    return T_RUN("vlm", tests, argc, argv);
}
