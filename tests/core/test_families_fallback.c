/* test_families_fallback.c: the generic fallback (core/src/families/generic.c). A config.json whose
 * model_type no family claims is estimated as a generic decoder with a warning that names what was
 * assumed and says the parameter count may be approximate; it never crashes.
 *
 * The configs are real published config.json files (tests/fixtures/configs/hf/README.md names each
 * source). Their model_type is renamed ("x-" prefix) so that these tests keep exercising the
 * fallback after the families themselves gained files.
 *
 * usage: test_families_fallback GROUP FIXTURE_DIR (tests/fixtures/configs/hf) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vp_test.h"

static const char *g_dir = "tests/fixtures/configs/hf";

static const char *read_config(const char *name) {
    const char *path = t_fmt("%s/%s", g_dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open fixture %s", path);
    char *buf = t_fmt("%*s", 1 << 16, "");
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* The config with its top-level model_type renamed to "x-<model_type>". */
static const char *renamed(const char *name) {
    cJSON *c = cJSON_Parse(read_config(name));
    assert_non_null(c);
    cJSON *mt = cJSON_GetObjectItemCaseSensitive(c, "model_type");
    assert_true(cJSON_IsString(mt));
    const char *nt = t_fmt("x-%s", mt->valuestring);
    cJSON_ReplaceItemInObjectCaseSensitive(c, "model_type", cJSON_CreateString(nt));
    char *s = cJSON_PrintUnformatted(c);
    const char *out = t_fmt("%s", s);
    free(s);
    cJSON_Delete(c);
    return out;
}

static const char *warning_with(const vp_estimate *e, const char *needle) {
    for (int i = 0; i < e->n_warnings; i++)
        if (strstr(e->warnings[i], needle)) return e->warnings[i];
    return NULL;
}

/* Each config is accepted in training and in inference, with the warning. */
static const vp_estimate *check_fallback(const char *file, const char *type) {
    const char *cfg = renamed(file);
    const vp_estimate *e = NULL;
    for (int mode = 0; mode < 2; mode++) {
        const char *wl = mode ? "{\"mode\":\"infer\",\"batch\":1,\"seq\":256,\"new_tokens\":16}" : "{\"batch\":1,\"seq\":256}";
        e = t_estimate(t_plan1(wl, t_hf_instance(cfg, "")));
        const char *w = warning_with(e, "parameter count may be approximate");
        if (!w) fail_msg("%s: no fallback warning", file);
        assert_contains(w, t_fmt("unknown model_type \"x-%s\"", type));
        assert_contains(w, "generic decoder");
        assert_true(e->instances[0].params_total > 0);
    }
    return e;
}

/* The eight model_types the issue named as refused before their files existed. */
static void eight_refused_families(void **s) {
    (void)s;
    /* medgemma-27b-it: a gemma3 config whose language model sits in text_config */
    const vp_estimate *e = check_fallback("medgemma-27b-it.json", "gemma3");
    assert_contains(warning_with(e, "approximate"), "from text_config");
    /* Qwen3-30B-A3B: num_experts 128, top-8, moe_intermediate_size 768 read as MoE */
    e = check_fallback("qwen3-30b-a3b.json", "qwen3_moe");
    assert_contains(warning_with(e, "approximate"), "MoE");
    check_fallback("gpt-oss-20b.json", "gpt_oss");
    check_fallback("bert-base-uncased.json", "bert");
    check_fallback("gpt-neox-20b.json", "gpt_neox");
    /* bloom has n_embed/n_layer and no intermediate_size: 4·h is assumed, and said */
    e = check_fallback("bloom-176b.json", "bloom");
    assert_contains(warning_with(e, "approximate"), "intermediate_size=4h");
    check_fallback("granite-3.1-1b-a400m-instruct.json", "granitemoe");
    check_fallback("qwen-7b-chat.json", "qwen");
}

/* For a Llama-shaped config the generic decoder is the Llama count: Llama-3.1-8B renamed still
 * counts 8,030,261,248 (test_params.c shows the arithmetic), and nothing is listed as assumed
 * (tie_word_embeddings and intermediate_size are given). */
static void llama_shaped_is_exact(void **s) {
    (void)s;
    const char *cfg = t_fmt("%s", CFG_LLAMA31_8B);
    char *p = strstr(cfg, "\"llama\"");
    assert_non_null(p);
    const char *renamed_cfg = t_fmt("%.*s\"x-llama\"%s", (int)(p - cfg), cfg, p + strlen("\"llama\""));
    const vp_estimate *e = t_estimate(t_plan1("{\"batch\":1,\"seq\":128}", t_hf_instance(renamed_cfg, "")));
    assert_u64_equal(e->instances[0].params_total, 8030261248ULL);
    const char *w = warning_with(e, "approximate");
    assert_non_null(w);
    assert_true(strstr(w, "assumed") == NULL);
}

/* Without the standard fields the config is refused, naming the missing field; never a crash. */
static void missing_fields_refused(void **s) {
    (void)s;
    const char *msg = t_expect_error(t_plan1("{\"batch\":1,\"seq\":8}", t_hf_instance("{\"model_type\":\"zz\",\"hidden_size\":64}", "")),
                                     VP_ERR_UNSUPPORTED, "instances[0].model.hf_config.model_type");
    assert_contains(msg, "and instances[0].model.hf_config.num_hidden_layers is missing");
    msg = t_expect_error(t_plan1("{\"batch\":1,\"seq\":8}", t_hf_instance("{\"model_type\":\"zz\"}", "")), VP_ERR_UNSUPPORTED,
                         "instances[0].model.hf_config.model_type");
    assert_contains(msg, "hf_config.hidden_size is missing");
    /* an empty text_config is not read from */
    msg = t_expect_error(t_plan1("{\"batch\":1,\"seq\":8}", t_hf_instance("{\"model_type\":\"zz\",\"text_config\":{}}", "")),
                         VP_ERR_UNSUPPORTED, "instances[0].model.hf_config.model_type");
    assert_contains(msg, "text_config.hidden_size is missing");
    /* wrong types and ranges name the field */
    t_expect_error(t_plan1("{\"batch\":1,\"seq\":8}",
                           t_hf_instance("{\"model_type\":\"zz\",\"hidden_size\":64,\"n_layer\":\"2\",\"n_head\":2,\"vocab_size\":9}", "")),
                   VP_ERR_FIELD, "instances[0].model.hf_config.n_layer");
    t_expect_error(t_plan1("{\"batch\":1,\"seq\":8}",
                           t_hf_instance("{\"model_type\":\"zz\",\"hidden_size\":64,\"n_layer\":2,\"n_head\":3,\"vocab_size\":9}", "")),
                   VP_ERR_RANGE, "instances[0].model.hf_config.n_head");
    t_expect_error(t_plan1("{\"batch\":1,\"seq\":8}",
                           t_hf_instance("{\"model_type\":\"zz\",\"hidden_size\":64,\"n_layer\":2,\"n_head\":4,\"vocab_size\":9,"
                                         "\"num_key_value_heads\":3}", "")),
                   VP_ERR_RANGE, "instances[0].model.hf_config.num_key_value_heads");
}

int main(int argc, char **argv) {
    if (argc > 2) g_dir = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eight_refused_families),
        cmocka_unit_test(llama_shaped_is_exact),
        cmocka_unit_test(missing_fields_refused),
    };
    return T_RUN("families_fallback", tests, argc, argv);
}
