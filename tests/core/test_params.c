/* test_params.c: exact parameter counts (core/src/params.c), read back as params_total from the
 * estimate JSON of a plan {"model": {"hf_config": ...}}.
 *
 * Expected totals: memory-facts.md §10 ("Reference architectures ... exact parameter counts"),
 * re-counted there by instantiating each config on the meta device with transformers 5.17. The
 * per-layer arithmetic is written out so a wrong term can be located. */
#include <stdlib.h>
#include <string.h>

#include "vp_test.h"

#define WL "{\"batch\":1,\"seq\":128}"

static uint64_t count_hf(const char *cfg) {
    const cJSON *e = t_estimate_json(t_plan1(WL, t_hf_instance(cfg, "")));
    uint64_t total = t_json_params_total(e, 0);
    /* a full fine-tune trains every parameter */
    assert_u64_equal(t_json_params_trainable(e, 0), total);
    return total;
}

/* Llama-2-7B: h 4096, L 32, a = a_kv = 32, f 11008, v 32000, untied.
 * per layer: attention 4·h² = 67,108,864; MLP 3·h·f = 135,266,304; 2 RMSNorms 8,192
 *            -> 202,383,360 × 32 = 6,476,267,520
 * embed + lm_head 2·v·h = 262,144,000; final norm 4,096 -> 6,738,415,616 */
static void llama2_7b(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_LLAMA2_7B), 6738415616ULL);
}

/* Llama-3.1-8B: attention h·a·d + 2·h·a_kv·d + a·d·h = 16,777,216 + 8,388,608 + 16,777,216 = 41,943,040;
 * MLP 3·4096·14336 = 176,160,768; norms 8,192 -> 218,112,000 × 32 = 6,979,584,000;
 * embed = lm_head = 128256·4096 = 525,336,576 (×2); final norm 4,096 -> 8,030,261,248
 * (= PEFT's "all params: 8,072,204,288" − 41,943,040 LoRA params, memory-facts §4.1). */
static void llama31_8b(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_LLAMA31_8B), 8030261248ULL);
}

/* Llama-3.1-70B: attention 8192·8192·2 + 2·8192·1024 = 150,994,944; MLP 3·8192·28672 = 704,643,072;
 * norms 16,384 -> 855,654,400 × 80 = 68,452,352,000; 2·128256·8192 = 2,101,346,304; + 8,192
 * -> 70,553,706,496 */
static void llama31_70b(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_LLAMA31_70B), 70553706496ULL);
}

/* Mistral-7B-v0.1: Llama-3.1-8B layers with v = 32000: 6,979,584,000 + 2·32000·4096 + 4096 = 7,241,732,096 */
static void mistral_7b(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_MISTRAL_7B), 7241732096ULL);
}

/* Mixtral-8x7B: per layer attention 41,943,040 + router 4096·8 = 32,768 + 8 experts × 176,160,768
 * + norms 8,192 = 1,451,270,144 × 32 = 46,440,644,608; + 262,144,000 + 4,096 = 46,702,792,704 (§8) */
static void mixtral_8x7b(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_MIXTRAL_8X7B), 46702792704ULL);
}

/* Qwen2.5-7B: q 3584·3584 + 3584 bias, k and v 3584·512 + 512 each, o 3584·3584 (no bias)
 * = 12,845,056 + 3,584 + 2·(1,835,008 + 512) + 12,845,056 = 29,364,736; MLP 3·3584·18944 = 203,685,888;
 * norms 7,168 -> 233,057,792 × 28 = 6,525,618,176; 2·152064·3584 = 1,089,994,752; + 3,584 -> 7,615,616,512 */
static void qwen25_7b(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_QWEN25_7B), 7615616512ULL);
}

/* Phi-3-mini-4k: fused qkv_proj 3072→9216 = 28,311,552, o_proj 9,437,184, gate_up_proj 3072→16384 =
 * 50,331,648, down_proj 25,165,824, norms 6,144 -> 113,252,352 × 32 = 3,624,075,264;
 * 2·32064·3072 = 197,001,216; + 3,072 -> 3,821,079,552 */
static void phi3_mini(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_PHI3_MINI), 3821079552ULL);
}

/* Gemma-2-9B (head_dim 256, tied, 4 RMSNorms per layer): q 3584·4096, k and v 3584·2048, o 4096·3584
 * = 44,040,192; MLP 3·3584·14336 = 154,140,672; norms 4·3584 = 14,336 -> 198,195,200 × 42 =
 * 8,324,198,400; embeddings (tied) 256000·3584 = 917,504,000; + 3,584 -> 9,241,705,984 */
static void gemma2_9b(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_GEMMA2_9B), 9241705984ULL);
}

/* GPT-2 124M: per block ln 2·2·768, c_attn 768·2304 + 2304, c_proj 768·768 + 768, c_fc 768·3072 + 3072,
 * mlp c_proj 3072·768 + 768 = 7,087,872 × 12 = 85,054,464; wte 50257·768 = 38,597,376;
 * wpe 1024·768 = 786,432; ln_f 1,536; tied head -> 124,439,808 */
static void gpt2(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_GPT2), 124439808ULL);
}

/* The calibration records use n_positions 2048 (measured params_total 125,226,240):
 * 124,439,808 + 1024·768 more position rows = 125,226,240. */
static void gpt2_n_positions(void **s) {
    (void)s;
    assert_u64_equal(count_hf("{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_layer\":12,\"n_head\":12,"
                              "\"vocab_size\":50257,\"n_positions\":2048}"),
                     125226240ULL);
}

/* T5-base: encoder layer = 4·768·768 (q,k,v,o) + 2·768·3072 (wi, wo) + 2·768 (norms) = 7,079,424 × 12;
 * decoder layer = 2·2,359,296 + 4,718,592 + 3·768 = 9,439,488 × 12; relative_attention_bias
 * 32·12 × 2 stacks; shared embedding 32128·768 = 24,674,304 (tied head); final norms 2·768
 * -> 84,953,088 + 113,273,856 + 768 + 24,674,304 + 1,536 = 222,903,552 */
static void t5_base(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_T5_BASE), 222903552ULL);
}

/* CogVideoX-5b transformer: 132,197,632 per block × 42 (memory-facts §10, analytic from diffusers),
 * total 5,570,283,072. */
static void cogvideox_5b(void **s) {
    (void)s;
    assert_u64_equal(count_hf(CFG_COGVIDEOX_5B), 5570283072ULL);
}

/* The same counts through presets: every preset in models/models/ declares params_total (with its
 * source); the count computed from its config must be that number exactly. */
static void presets_match_declared(void **s) {
    (void)s;
    cJSON *bundle = cJSON_Parse(vp_builtin_presets_json());
    assert_non_null(bundle);
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(bundle, "models");
    assert_true(cJSON_GetArraySize(models) >= 10);
    const cJSON *m;
    int checked = 0;
    cJSON_ArrayForEach(m, models) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
        const cJSON *declared = cJSON_GetObjectItemCaseSensitive(m, "params_total");
        assert_true(cJSON_IsString(id));
        if (!cJSON_IsNumber(declared)) continue;
        const char *plan = t_plan1(WL, t_fmt("{\"model\":{\"preset\":\"%s\"}}", id->valuestring));
        vp_error err;
        char *out = vp_estimate_json(plan, t_registry(), 0, &err);
        if (!out) {
            cJSON_Delete(bundle);
            fail_msg("preset %s refused: %s (%s)", id->valuestring, err.message, err.path);
        }
        cJSON *e = cJSON_Parse(out);
        vp_free(out);
        uint64_t got = t_json_params_total(e, 0);
        cJSON_Delete(e);
        if (got != (uint64_t)declared->valuedouble) {
            print_error("preset %s: computed %llu, declared %.0f\n", id->valuestring, (unsigned long long)got,
                        declared->valuedouble);
            cJSON_Delete(bundle);
            fail();
        }
        checked++;
    }
    cJSON_Delete(bundle);
    assert_true(checked >= 10);
}

/* The preset llama-3.1-8b and the hand-written config of memory-facts §10 are the same model. */
static void preset_equals_hf_config(void **s) {
    (void)s;
    const cJSON *e = t_estimate_json(t_plan1(WL, "{\"model\":{\"preset\":\"llama-3.1-8b\"}}"));
    assert_u64_equal(t_json_params_total(e, 0), 8030261248ULL);
}

/* Freezing module groups of a full fine-tune (plan finetune.freeze) removes exactly those parameters
 * from the trainable count. Llama-3.1-8B: embeddings 525,336,576; lm_head 525,336,576. */
static void freeze_groups(void **s) {
    (void)s;
    const cJSON *e = t_estimate_json(
        t_plan1(WL, t_hf_instance(CFG_LLAMA31_8B, "\"finetune\":{\"method\":\"full\",\"freeze\":[\"embeddings\"]}")));
    assert_u64_equal(t_json_params_total(e, 0), 8030261248ULL);
    assert_u64_equal(t_json_params_trainable(e, 0), 8030261248ULL - 525336576ULL);
    e = t_estimate_json(t_plan1(
        WL, t_hf_instance(CFG_LLAMA31_8B, "\"finetune\":{\"freeze\":[\"embeddings\",\"lm_head\"]}")));
    assert_u64_equal(t_json_params_trainable(e, 0), 8030261248ULL - 2 * 525336576ULL);
    /* attention: 41,943,040 × 32 = 1,342,177,280 */
    e = t_estimate_json(t_plan1(WL, t_hf_instance(CFG_LLAMA31_8B, "\"finetune\":{\"freeze\":[\"attention\"]}")));
    assert_u64_equal(t_json_params_trainable(e, 0), 8030261248ULL - 1342177280ULL);
    /* mlp: 176,160,768 × 32 = 5,637,144,576 */
    e = t_estimate_json(t_plan1(WL, t_hf_instance(CFG_LLAMA31_8B, "\"finetune\":{\"freeze\":[\"mlp\"]}")));
    assert_u64_equal(t_json_params_trainable(e, 0), 8030261248ULL - 5637144576ULL);
    /* norms: 8,192 × 32 + 4,096 = 266,240 */
    e = t_estimate_json(t_plan1(WL, t_hf_instance(CFG_LLAMA31_8B, "\"finetune\":{\"freeze\":[\"norms\"]}")));
    assert_u64_equal(t_json_params_trainable(e, 0), 8030261248ULL - 266240ULL);
}

/* Frozen roles (reference, teacher) have no trainable parameters. */
static void frozen_roles_train_nothing(void **s) {
    (void)s;
    const char *inst = t_fmt("%s,%s", t_hf_instance(CFG_GPT2, ""),
                             "{\"name\":\"ref\",\"role\":\"reference\",\"model\":{\"hf_config\":" CFG_GPT2 "}}");
    const cJSON *e = t_estimate_json(t_plan(WL, inst, NULL));
    assert_u64_equal(t_json_params_trainable(e, 0), 124439808ULL);
    assert_u64_equal(t_json_params_total(e, 1), 124439808ULL);
    assert_u64_equal(t_json_params_trainable(e, 1), 0);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llama2_7b),
        cmocka_unit_test(llama31_8b),
        cmocka_unit_test(llama31_70b),
        cmocka_unit_test(mistral_7b),
        cmocka_unit_test(mixtral_8x7b),
        cmocka_unit_test(qwen25_7b),
        cmocka_unit_test(phi3_mini),
        cmocka_unit_test(gemma2_9b),
        cmocka_unit_test(gpt2),
        cmocka_unit_test(gpt2_n_positions),
        cmocka_unit_test(t5_base),
        cmocka_unit_test(cogvideox_5b),
        cmocka_unit_test(presets_match_declared),
        cmocka_unit_test(preset_equals_hf_config),
        cmocka_unit_test(freeze_groups),
        cmocka_unit_test(frozen_roles_train_nothing),
    };
    return T_RUN("params", tests, argc, argv);
}
