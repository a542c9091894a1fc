/* test_sliding_kv.c: the K,V that HF `generate` keeps in sliding-window and chunked layers
 * (core/src/kv_local.c, timeline_infer.c, events_infer.c; readers in families/attn_local.c).
 *
 * transformers 5.x cache_utils.py (commit 004999d9): generate makes DynamicCache(config=...), whose
 * __init__ gives every layer_types entry "sliding_attention" / "chunked_attention" a
 * DynamicSlidingWindowLayer(sliding_window = config.sliding_window or config.attention_chunk_size),
 * the others a DynamicLayer. DynamicSlidingWindowLayer.update does
 *     full_key_states = torch.cat([self.keys, key_states], dim=-2)
 *     self.keys = full_key_states[:, :, -self.sliding_window + 1 :, :]
 * The slice is a view: after the prefill the layer still holds the storage of the whole prompt; from
 * the first decode step the cat makes a tensor of min(seen, W - 1) + 1 = min(seen, W) tokens per
 * sequence and frees the old one. A full layer (DynamicLayer) keeps every token.
 *
 * usage: test_sliding_kv GROUP FIXTURE_DIR (tests/fixtures/configs/hf) */
#include <stdio.h>
#include <string.h>

#include "vp_test.h"

static const char *g_dir = "tests/fixtures/configs/hf";

static const char *config(const char *name) { return t_fixture_text(g_dir, name); }

static const vp_estimate *infer(const char *cfg, int batch, int prompt, int new_tokens) {
    const char *wl = t_fmt("{\"mode\":\"infer\",\"batch\":%d,\"seq\":%d,\"new_tokens\":%d}", batch, prompt, new_tokens);
    return t_estimate(t_plan1(wl, t_hf_instance(cfg, "")));
}

static const char *kv_explain(const vp_estimate *e) {
    for (int i = 0; i < e->devices[0].n_components; i++)
        if (!strcmp(e->devices[0].components[i].id, "kv_cache")) return e->devices[0].components[i].explain;
    fail_msg("no kv_cache component");
    return "";
}

/* gemma-3-1b-it: 26 layers, sliding_window 512, sliding_window_pattern 6 -> layer i is global when
 * (i + 1) % 6 == 0: layers 5, 11, 17, 23 = 4 global, 22 local. K,V per token and layer:
 * 2 × a_kv 1 × d 256 × 2 B (bf16) = 1,024 B.
 * batch 2, prompt 1000, 20000 new tokens: the last decode step has seen 21,000 tokens per sequence.
 *   global 4 × 2 × 21,000 × 1,024 = 172,032,000
 *   local 22 × 2 × min(21,000, 512) × 1,024 = 23,068,672
 *   KV cache 195,100,672 B (a full cache in every layer would be 26 × 42,000 × 1,024 = 1,118,208,000). */
static void gemma3_1b_decode(void **s) {
    (void)s;
    const vp_estimate *e = infer(config("gemma-3-1b-it.json"), 2, 1000, 20000);
    assert_string_equal(e->devices[0].peak_phase, "decode");
    assert_u64_equal(t_component(e, 0, "kv_cache", NULL), 172032000ULL + 23068672ULL);
    assert_contains(kv_explain(e), "4 full layers");
    assert_contains(kv_explain(e), "22 local layers");
}

/* The prefill keeps the prompt's storage in every layer (the slice is a view of the cat): batch 1,
 * prompt 2048, one new token: 26 × 2,048 × 1,024 = 54,525,952 B at the peak (the prefill). */
static void gemma3_1b_prefill_keeps_prompt(void **s) {
    (void)s;
    const vp_estimate *e = infer(config("gemma-3-1b-it.json"), 1, 2048, 1);
    assert_string_equal(e->devices[0].peak_phase, "prefill");
    assert_u64_equal(t_component(e, 0, "kv_cache", NULL), 54525952ULL);
}

/* A prompt and generation inside the window: every layer keeps every token, as before.
 * batch 1, prompt 100, 300 new: 26 × 400 × 1,024 = 10,649,600. */
static void gemma3_1b_inside_window(void **s) {
    (void)s;
    const vp_estimate *e = infer(config("gemma-3-1b-it.json"), 1, 100, 300);
    assert_string_equal(e->devices[0].peak_phase, "decode");
    assert_u64_equal(t_component(e, 0, "kv_cache", NULL), 10649600ULL);
}

/* gpt-oss-20b: 24 layers, layer_types alternate sliding_attention / full_attention, sliding_window 128:
 * 12 + 12. K,V per token and layer: 2 × a_kv 8 × d 64 × 2 B = 2,048 B.
 * batch 1, prompt 1000, 30000 new: 31,000 tokens seen.
 *   full 12 × 31,000 × 2,048 = 761,856,000; sliding 12 × 128 × 2,048 = 3,145,728 -> 765,001,728 B. */
static void gpt_oss_20b_decode(void **s) {
    (void)s;
    const vp_estimate *e = infer(config("gpt-oss-20b.json"), 1, 1000, 30000);
    assert_string_equal(e->devices[0].peak_phase, "decode");
    assert_u64_equal(t_component(e, 0, "kv_cache", NULL), 761856000ULL + 3145728ULL);
    assert_contains(kv_explain(e), "12 local layers");
}

/* Llama-4-Scout: 48 layers, no_rope_layers [] -> the default int((i + 1) % 4 != 0): 36 RoPE layers
 * with chunked attention (attention_chunk_size 8192, a DynamicSlidingWindowLayer of window 8192) and
 * 12 NoPE global layers. K,V per token and layer: 2 × 8 × 128 × 2 B = 4,096 B.
 * batch 1, prompt 1000, 10000 new: 11,000 seen.
 *   global 12 × 11,000 × 4,096 = 540,672,000; chunked 36 × 8,192 × 4,096 = 1,207,959,552. */
static void llama4_scout_chunked(void **s) {
    (void)s;
    const vp_estimate *e = infer(config("llama-4-scout-17b-16e-instruct.json"), 1, 1000, 10000);
    assert_string_equal(e->devices[0].peak_phase, "decode");
    assert_u64_equal(t_component(e, 0, "kv_cache", NULL), 540672000ULL + 1207959552ULL);
    assert_contains(kv_explain(e), "36 local layers");
}

/* Command R7B (cohere2): 32 layers, sliding_window 4096, sliding_window_pattern 4 -> 24 local, 8
 * global. K,V per token and layer 2 × 8 × 128 × 2 B = 4,096 B. batch 1, prompt 1000, 9000 new:
 *   global 8 × 10,000 × 4,096 = 327,680,000; local 24 × 4,096 × 4,096 = 402,653,184. */
static void cohere2_pattern(void **s) {
    (void)s;
    const vp_estimate *e = infer(config("c4ai-command-r7b-12-2024.json"), 1, 1000, 9000);
    assert_string_equal(e->devices[0].peak_phase, "decode");
    assert_u64_equal(t_component(e, 0, "kv_cache", NULL), 327680000ULL + 402653184ULL);
}

/* Gemma 2 (CFG_GEMMA2_9B gives no sliding_window: Gemma2Config's 4096; layers 0, 2, ... slide):
 * 42 layers -> 21 + 21, 2 × 8 × 256 × 2 B = 8,192 B. batch 1, prompt 1000, 5000 new:
 *   full 21 × 6,000 × 8,192 = 1,032,192,000; sliding 21 × 4,096 × 8,192 = 704,643,072. */
static void gemma2_default_window(void **s) {
    (void)s;
    const vp_estimate *e = infer(CFG_GEMMA2_9B, 1, 1000, 5000);
    assert_string_equal(e->devices[0].peak_phase, "decode");
    assert_u64_equal(t_component(e, 0, "kv_cache", NULL), 1032192000ULL + 704643072ULL);
}

/* A config whose sliding_window is null has no local layers; a malformed layer_types is refused by name. */
static void null_window_and_bad_types(void **s) {
    (void)s;
    const char *cfg = "{\"model_type\":\"gemma2\",\"hidden_size\":512,\"intermediate_size\":1024,\"num_hidden_layers\":4,"
                      "\"num_attention_heads\":8,\"num_key_value_heads\":4,\"head_dim\":64,\"vocab_size\":1000,"
                      "\"sliding_window\":null}";
    /* 4 × 1 × 6,000 × (2 × 4 × 64 × 2 B = 1,024) = 24,576,000 */
    assert_u64_equal(t_component(infer(cfg, 1, 1000, 5000), 0, "kv_cache", NULL), 24576000ULL);
    const char *bad = "{\"model_type\":\"gpt_oss\",\"num_hidden_layers\":2,\"layer_types\":[\"full_attention\",7]}";
    t_expect_error(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"seq\":16}", t_hf_instance(bad, "")), VP_ERR_FIELD,
                   "instances[0].model.hf_config.layer_types");
}

int main(int argc, char **argv) {
    if (argc > 2) g_dir = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemma3_1b_decode),     cmocka_unit_test(gemma3_1b_prefill_keeps_prompt),
        cmocka_unit_test(gemma3_1b_inside_window), cmocka_unit_test(gpt_oss_20b_decode),
        cmocka_unit_test(llama4_scout_chunked), cmocka_unit_test(cohere2_pattern),
        cmocka_unit_test(gemma2_default_window), cmocka_unit_test(null_window_and_bad_types),
    };
    return T_RUN("sliding_kv", tests, argc, argv);
}
