/* test_kv_cache.c: the KV cache of inference (core/src/timeline_infer.c).
 *
 * kv bytes = 2 (K and V) × L × a_kv × d_head × tokens × bytes_per_elem (memory-facts.md §7.1), i.e.
 * bytes per token = 2·L·a_kv·d·bytes. After the prefill of a prompt of P tokens at batch B the cache
 * holds exactly B·P tokens (transformers 5.17 DynamicCache, measured: no padding or over-allocation);
 * at the last decode step B·(P + new_tokens). */
#include <string.h>

#include "vp_test.h"

static const vp_estimate *infer(const char *cfg, int batch, int prompt, int new_tokens, const char *kv_dtype) {
    const char *wl = t_fmt("{\"mode\":\"infer\",\"batch\":%d,\"seq\":%d,\"new_tokens\":%d%s%s%s}", batch, prompt, new_tokens,
                           kv_dtype ? ",\"kv_dtype\":\"" : "", kv_dtype ? kv_dtype : "", kv_dtype ? "\"" : "");
    return t_estimate(t_plan1(wl, t_hf_instance(cfg, "")));
}

/* §7.1 table, bf16 KV, bytes per token. Prefill of B = 3, P = 1000 (below Gemma-2's 4096 window, so
 * every layer keeps the whole prompt): kv_cache = 3 · 1000 · bytes/token. */
static void per_token_table(void **s) {
    (void)s;
    static const struct {
        const char *name, *cfg;
        uint64_t per_token;
    } k[] = {
        {"Llama-2-7B: 2·32·32·128·2", CFG_LLAMA2_7B, 524288},
        {"Llama-3.1-8B: 2·32·8·128·2 (kvplan: 131,072 bytes per token)", CFG_LLAMA31_8B, 131072},
        {"Mistral-7B", CFG_MISTRAL_7B, 131072},
        {"Mixtral-8x7B: MoE does not change attention", CFG_MIXTRAL_8X7B, 131072},
        {"Llama-3.1-70B: 2·80·8·128·2", CFG_LLAMA31_70B, 327680},
        {"Qwen2.5-7B: 2·28·4·128·2", CFG_QWEN25_7B, 57344},
        {"Phi-3-mini: 2·32·32·96·2", CFG_PHI3_MINI, 393216},
        {"Gemma-2-9B: 2·42·8·256·2", CFG_GEMMA2_9B, 344064},
        {"GPT-2: 2·12·12·64·2", CFG_GPT2, 36864},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        const vp_estimate *e = infer(k[i].cfg, 3, 1000, 0, NULL);
        uint64_t kv = t_component(e, 0, "kv_cache", NULL);
        if (kv != 3ULL * 1000ULL * k[i].per_token) {
            print_error("%s: kv_cache %llu, expected 3 × 1000 × %llu = %llu\n", k[i].name, (unsigned long long)kv,
                        (unsigned long long)k[i].per_token, 3ULL * 1000ULL * (unsigned long long)k[i].per_token);
            fail();
        }
        assert_string_equal(e->devices[0].peak_phase, "prefill");
    }
}

/* The measured case of §7.1: L = 2, a_kv = 4, d = 64, s = 1000, b = 2, bf16 -> 4,096,000 B. */
static void measured_dynamic_cache(void **s) {
    (void)s;
    const char *cfg = "{\"model_type\":\"llama\",\"hidden_size\":512,\"intermediate_size\":1024,\"num_hidden_layers\":2,"
                      "\"num_attention_heads\":8,\"num_key_value_heads\":4,\"vocab_size\":1000}";
    const vp_estimate *e = infer(cfg, 2, 1000, 0, NULL);
    assert_u64_equal(t_component(e, 0, "kv_cache", NULL), 4096000ULL);
}

/* Llama-3.1-8B at batch B and prompt P: exactly B·P·131,072 at prefill, for several B and P. */
static void scales_with_batch_and_prompt(void **s) {
    (void)s;
    static const int bs[] = {1, 4, 16}, ps[] = {1, 128, 2048, 8192};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 4; j++) {
            const vp_estimate *e = infer(CFG_LLAMA31_8B, bs[i], ps[j], 0, NULL);
            assert_u64_equal(t_component(e, 0, "kv_cache", NULL), (uint64_t)bs[i] * (uint64_t)ps[j] * 131072ULL);
        }
}

/* Decoding 4096 tokens after a 16-token prompt at batch 4: the cache of the last step holds
 * 4 · (16 + 4096) = 16,448 tokens × 131,072 = 2,155,872,256 B and that step is the peak. */
static void decode(void **s) {
    (void)s;
    const vp_estimate *e = infer(CFG_LLAMA31_8B, 4, 16, 4096, NULL);
    assert_string_equal(e->devices[0].peak_phase, "decode");
    assert_u64_equal(t_component(e, 0, "kv_cache", NULL), 2155872256ULL);
    /* and the decode phase is above the prefill phase by at least the cache growth 4·4096·131,072 */
    assert_true(t_phase(e, 0, "decode") >= t_phase(e, 0, "prefill") + 4ULL * 4096ULL * 131072ULL);
}

/* The cache dtype: fp32 doubles the bytes, fp8 halves them. */
static void kv_dtype(void **s) {
    (void)s;
    assert_u64_equal(t_component(infer(CFG_LLAMA31_8B, 2, 512, 0, "fp32"), 0, "kv_cache", NULL), 2ULL * 512 * 262144);
    assert_u64_equal(t_component(infer(CFG_LLAMA31_8B, 2, 512, 0, "fp8"), 0, "kv_cache", NULL), 2ULL * 512 * 65536);
    assert_u64_equal(t_component(infer(CFG_LLAMA31_8B, 2, 512, 0, "bf16"), 0, "kv_cache", NULL), 2ULL * 512 * 131072);
}

/* Inference holds no gradients, optimizer state or saved activations, and the weights are bf16:
 * 2 × 8,030,261,248 = 16,060,522,496 B. */
static void no_training_state(void **s) {
    (void)s;
    const vp_estimate *e = infer(CFG_LLAMA31_8B, 1, 1024, 64, NULL);
    assert_u64_equal(t_component(e, 0, "weights", NULL), 16060522496ULL);
    assert_false(t_has_component(e, 0, "grads"));
    assert_false(t_has_component(e, 0, "optimizer_state"));
    assert_false(t_has_component(e, 0, "attention_scores"));
}

/* generate() computes logits for the last position only (logits_to_keep = 1, memory-facts §5):
 * b·v per step, not b·s·v. Llama-3.1-8B, b = 8: 8 × 128,256 = 1,026,048 logits, bf16 (2 B) plus the
 * fp32 copy used for sampling (4 B) = 6,156,288 B, whatever the prompt length. They are made after
 * the last block, when its MLP temporaries are gone: the prefill peak (inside the last block's MLP,
 * H100 trace l1b-infer-b8p1024n256 event 2324) holds none; the decode peak holds them. */
static void last_token_logits(void **s) {
    (void)s;
    const vp_estimate *a = infer(CFG_LLAMA31_8B, 8, 128, 0, NULL);
    const vp_estimate *b = infer(CFG_LLAMA31_8B, 8, 8192, 0, NULL);
    assert_string_equal(a->devices[0].peak_phase, "prefill");
    assert_u64_equal(t_component(a, 0, "logits", NULL), 0);
    assert_u64_equal(t_component(b, 0, "logits", NULL), 0);
    /* a long generation from a short prompt peaks in decode, with the last-token logits */
    const vp_estimate *c = infer(CFG_LLAMA31_8B, 8, 16, 4096, NULL);
    assert_string_equal(c->devices[0].peak_phase, "decode");
    assert_u64_equal(t_component(c, 0, "logits", NULL), 6156288ULL);
}

/* The prefill of the H100 trace l1b-infer-b8p1024n256 (tests/groundtruth/h100-2026-11-23/run1): at its
 * peak (event 2324, the last block's MLP) the embedding output (event 297, 8·1024 × 2048 × 2 B =
 * 33,554,432; LlamaModel.forward's inputs_embeds) and the rotary cos, sin (events 324-325, 2 × 8·1024
 * × 64 × 2 B = 2,097,152) are alive; no causal mask is (SDPA: is_causal); the one 32 MiB block made
 * before the rotary matmul and never freed (event 313) is cuBLAS's workspace. Eager attention gets the
 * (b, 1, s, s) mask in bf16: 8 × 1024² × 2 = 16,777,216. */
#define L1B_CFG                                                                                            \
    "{\"model_type\":\"llama\",\"hidden_size\":2048,\"intermediate_size\":8192,\"num_hidden_layers\":16," \
    "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"head_dim\":64,\"vocab_size\":128256,"        \
    "\"tie_word_embeddings\":true}"
static void prefill_inputs_and_mask(void **s) {
    (void)s;
    const vp_estimate *e = infer(L1B_CFG, 8, 1024, 256, NULL);
    assert_string_equal(e->devices[0].peak_phase, "prefill");
    assert_u64_equal(t_component(e, 0, "prefill_inputs", NULL), 33554432ULL + 2097152ULL);
    assert_u64_equal(t_component(e, 0, "attention_mask", NULL), 0);
    assert_u64_equal(t_component(e, 0, "cublas_workspace", NULL), 33554432ULL);
    const vp_estimate *g = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":8,\"seq\":1024,\"new_tokens\":256}",
                                              t_hf_instance(L1B_CFG, "\"attn\":\"eager\"")));
    assert_u64_equal(t_component(g, 0, "attention_mask", NULL), 16777216ULL);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prefill_inputs_and_mask),
        cmocka_unit_test(per_token_table),
        cmocka_unit_test(measured_dynamic_cache),
        cmocka_unit_test(scales_with_batch_and_prompt),
        cmocka_unit_test(decode),
        cmocka_unit_test(kv_dtype),
        cmocka_unit_test(no_training_state),
        cmocka_unit_test(last_token_logits),
    };
    return T_RUN("kv_cache", tests, argc, argv);
}
