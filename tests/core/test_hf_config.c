/* test_hf_config.c: Hugging Face config.json -> model shapes (core/src/hf_config.c).
 * Defaults follow each family's configuration_*.py (transformers 5.x); their effect is checked
 * through exact parameter counts and KV-cache bytes, which depend on every shape field. */
#include <string.h>

#include "vp_test.h"

#define WL "{\"batch\":1,\"seq\":128}"
#define HFP "instances[0].model.hf_config."

static uint64_t count(const char *cfg) {
    return t_json_params_total(t_estimate_json(t_plan1(WL, t_hf_instance(cfg, ""))), 0);
}

/* Qwen3-0.6B (config.json of Qwen/Qwen3-0.6B): h 1024, L 28, a 16, a_kv 8, head_dim 128 (!= h/a = 64),
 * f 3072, v 151936, tied; Qwen3Attention adds q_norm and k_norm RMSNorm(head_dim).
 * per layer: q 1024·2048 = 2,097,152; k, v 1024·1024 each = 2,097,152; o 2048·1024 = 2,097,152;
 * q_norm + k_norm 256; MLP 3·1024·3072 = 9,437,184; norms 2,048 -> 15,730,944 × 28 = 440,466,432;
 * embeddings 151936·1024 = 155,582,464; final norm 1,024 -> 596,049,920
 * (model card: "Number of Parameters: 0.6B, Non-Embedding: 0.44B"). */
#define QWEN3_06B_FIELDS                                                                               \
    "\"model_type\":\"qwen3\",\"hidden_size\":1024,\"intermediate_size\":3072,\"num_hidden_layers\":28," \
    "\"num_attention_heads\":16,\"num_key_value_heads\":8,\"vocab_size\":151936,\"tie_word_embeddings\":true"
static void qwen3_head_dim_and_qk_norm(void **s) {
    (void)s;
    assert_u64_equal(count("{" QWEN3_06B_FIELDS ",\"head_dim\":128}"), 596049920ULL);
    /* Qwen3Config's head_dim default is 128, not hidden/heads */
    assert_u64_equal(count("{" QWEN3_06B_FIELDS "}"), 596049920ULL);
}

/* gemma and gemma2 tie the embeddings unless told otherwise; with tie_word_embeddings false the
 * Gemma-2-9B count grows by one v·h = 256000·3584 = 917,504,000 lm_head. */
static void gemma_tie_default(void **s) {
    (void)s;
    assert_u64_equal(count(CFG_GEMMA2_9B), 9241705984ULL);
    assert_u64_equal(count("{\"model_type\":\"gemma2\",\"hidden_size\":3584,\"intermediate_size\":14336,"
                           "\"num_hidden_layers\":42,\"num_attention_heads\":16,\"num_key_value_heads\":8,"
                           "\"head_dim\":256,\"vocab_size\":256000,\"tie_word_embeddings\":false}"),
                     9241705984ULL + 917504000ULL);
}

/* llama leaves embeddings untied: Llama-3.1-8B without tie_word_embeddings is 8,030,261,248. */
static void llama_untied_default(void **s) {
    (void)s;
    assert_u64_equal(count("{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":14336,"
                           "\"num_hidden_layers\":32,\"num_attention_heads\":32,\"num_key_value_heads\":8,"
                           "\"vocab_size\":128256}"),
                     8030261248ULL);
}

/* num_key_value_heads defaults to num_attention_heads (LlamaConfig): Llama-2-7B without it. */
static void kv_heads_default(void **s) {
    (void)s;
    assert_u64_equal(count("{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":11008,"
                           "\"num_hidden_layers\":32,\"num_attention_heads\":32,\"vocab_size\":32000}"),
                     6738415616ULL);
}

/* attention_bias adds q, k, v, o biases: (4096 + 1024 + 1024 + 4096) × 32 = 327,680 for Llama-3.1-8B;
 * mlp_bias adds gate, up, down biases: (14336 + 14336 + 4096) × 32 = 1,048,576. */
static void llama_biases(void **s) {
    (void)s;
    const char *base = "\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":14336,"
                       "\"num_hidden_layers\":32,\"num_attention_heads\":32,\"num_key_value_heads\":8,"
                       "\"vocab_size\":128256";
    assert_u64_equal(count(t_fmt("{%s,\"attention_bias\":true}", base)), 8030261248ULL + 327680ULL);
    assert_u64_equal(count(t_fmt("{%s,\"mlp_bias\":true}", base)), 8030261248ULL + 1048576ULL);
}

/* GPT2Config defaults: vocab_size 50257, n_positions 1024, n_inner 4·n_embd -> GPT-2 124,439,808. */
static void gpt2_defaults(void **s) {
    (void)s;
    assert_u64_equal(count("{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_layer\":12,\"n_head\":12}"), 124439808ULL);
}

/* T5: untying the head adds a second 32128·768 = 24,674,304 matrix to T5-base. "gated-gelu" (t5 v1.1)
 * splits wi into wi_0 and wi_1: one more 768·3072 = 2,359,296 per layer × 24 layers = 56,623,104. */
static void t5_variants(void **s) {
    (void)s;
    const char *base = "\"model_type\":\"t5\",\"d_model\":768,\"d_ff\":3072,\"d_kv\":64,\"num_layers\":12,"
                       "\"num_heads\":12,\"vocab_size\":32128";
    assert_u64_equal(count(t_fmt("{%s,\"tie_word_embeddings\":false}", base)), 222903552ULL + 24674304ULL);
    assert_u64_equal(count(t_fmt("{%s,\"feed_forward_proj\":\"gated-gelu\"}", base)), 222903552ULL + 56623104ULL);
}

/* ViT-B/16 (timm vit_base_patch16_224 / HF ViTForImageClassification with 1000 labels): 86,567,656.
 * patch embed 3·16·16·768 + 768 = 590,592; cls 768; positions 197·768 = 151,296; blocks 12 × 7,087,872
 * = 85,054,464; final LayerNorm 1,536; head 768·1000 + 1000 = 769,000 -> 86,567,656 (the calibration
 * record vitb-fp32-b128i224 measured the same params_total). */
static void vit_base(void **s) {
    (void)s;
    const cJSON *e = t_estimate_json(t_plan1("{\"batch\":2}", t_hf_instance("{\"model_type\":\"vit\",\"hidden_size\":768,"
                                                                           "\"num_hidden_layers\":12,\"num_attention_heads\":12,"
                                                                           "\"intermediate_size\":3072}",
                                                                           "")));
    assert_u64_equal(t_json_params_total(e, 0), 86567656ULL);
}

/* A custom decoder with the shapes of Llama-2-7B counts the same. */
static void custom_like_llama(void **s) {
    (void)s;
    const cJSON *e = t_estimate_json(
        t_plan1(WL, "{\"model\":{\"custom\":{\"hidden_size\":4096,\"num_layers\":32,\"num_heads\":32,"
                    "\"intermediate_size\":11008,\"vocab_size\":32000,\"mlp\":\"swiglu\",\"norm\":\"rmsnorm\"}}}"));
    assert_u64_equal(t_json_params_total(e, 0), 6738415616ULL);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "instances"), 0),
                                                         "model_type")
                            ->valuestring,
                        "custom");
}

/* Fields of config.json that do not change a shape are ignored, whatever their type. */
static void unknown_config_fields_ignored(void **s) {
    (void)s;
    assert_u64_equal(count("{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":14336,"
                           "\"num_hidden_layers\":32,\"num_attention_heads\":32,\"num_key_value_heads\":8,"
                           "\"vocab_size\":128256,\"architectures\":[\"LlamaForCausalLM\"],\"rope_theta\":500000.0,"
                           "\"rope_scaling\":{\"factor\":8.0,\"rope_type\":\"llama3\"},\"torch_dtype\":\"bfloat16\","
                           "\"bos_token_id\":128000,\"eos_token_id\":[128001,128008],\"max_position_embeddings\":131072,"
                           "\"_name_or_path\":\"meta-llama/Llama-3.1-8B\",\"use_cache\":null}"),
                     8030261248ULL);
}

/* The model_type of the estimate is the family that was parsed. */
static void model_type_reported(void **s) {
    (void)s;
    static const struct { const char *cfg, *type; } k[] = {
        {CFG_MIXTRAL_8X7B, "mixtral"}, {CFG_PHI3_MINI, "phi3"}, {CFG_T5_BASE, "t5"},
        {CFG_GPT2, "gpt2"},            {CFG_QWEN25_7B, "qwen2"}, {CFG_GEMMA2_9B, "gemma2"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        const vp_estimate *e = t_estimate(t_plan1(WL, t_hf_instance(k[i].cfg, "")));
        assert_string_equal(e->instances[0].model_type, k[i].type);
    }
}

/* Error paths name the config field under instances[i].model.hf_config. */
static void errors_name_the_config_field(void **s) {
    (void)s;
    t_expect_error(t_plan1(WL, t_hf_instance("{\"model_type\":\"qwen3\",\"hidden_size\":1024,\"intermediate_size\":3072,"
                                             "\"num_hidden_layers\":28,\"num_attention_heads\":16,\"num_key_value_heads\":8,"
                                             "\"vocab_size\":151936,\"head_dim\":0}",
                                             "")),
                   VP_ERR_RANGE, HFP "head_dim");
    t_expect_error(t_plan1(WL, t_hf_instance("{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_layer\":12,\"n_head\":5}", "")),
                   VP_ERR_RANGE, HFP "n_head");
    t_expect_error(t_plan1(WL, t_hf_instance("{\"model_type\":\"t5\",\"d_model\":768,\"d_ff\":3072,\"num_layers\":12,"
                                             "\"num_heads\":12}",
                                             "")),
                   VP_ERR_FIELD, HFP "d_kv");
    t_expect_error(t_plan1(WL, t_hf_instance("{\"model_type\":\"cogvideox\",\"num_attention_heads\":48,"
                                             "\"attention_head_dim\":64,\"num_layers\":42,\"patch_size\":1000}",
                                             "")),
                   VP_ERR_RANGE, HFP "patch_size");
    t_expect_error(t_plan1(WL, t_hf_instance("{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_layer\":12,\"n_head\":12,"
                                             "\"activation_function\":7}",
                                             "")),
                   VP_ERR_FIELD, HFP "activation_function");
    /* the second instance's config is named as such */
    t_expect_error(t_plan(WL, t_fmt("%s,{\"name\":\"ref\",\"role\":\"reference\",\"model\":{\"hf_config\":"
                                    "{\"model_type\":\"llama\",\"hidden_size\":4096}}}",
                                    t_hf_instance(CFG_GPT2, "")),
                          NULL),
                   VP_ERR_FIELD, "instances[1].model.hf_config.num_hidden_layers");
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(qwen3_head_dim_and_qk_norm),
        cmocka_unit_test(gemma_tie_default),
        cmocka_unit_test(llama_untied_default),
        cmocka_unit_test(kv_heads_default),
        cmocka_unit_test(llama_biases),
        cmocka_unit_test(gpt2_defaults),
        cmocka_unit_test(t5_variants),
        cmocka_unit_test(vit_base),
        cmocka_unit_test(custom_like_llama),
        cmocka_unit_test(unknown_config_fields_ignored),
        cmocka_unit_test(model_type_reported),
        cmocka_unit_test(errors_name_the_config_field),
    };
    return T_RUN("hf_config", tests, argc, argv);
}
