/* test_registry.c: preset bundles (core/src/registry.c): the builtin one compiled from models/ and
 * bundles given as JSON {"models":[...], "gpus":[...]}. */
#include <string.h>

#include "vp_test.h"

static void expect_bundle_error(const char *json, vp_status code, const char *path) {
    vp_error err;
    memset(&err, 0x5a, sizeof err);
    vp_registry *r = vp_registry_from_json(json, &err);
    if (r) {
        vp_registry_free(r);
        fail_msg("bundle accepted: %s", json ? json : "(null)");
    }
    assert_int_equal(err.code, code);
    assert_string_equal(err.path, path);
    assert_true(strlen(err.message) > 0);
}

static void builtin(void **s) {
    (void)s;
    vp_error err;
    vp_registry *r = vp_registry_builtin(&err);
    assert_non_null(r);
    assert_int_equal(err.code, VP_OK);
    vp_registry_free(r);
    cJSON *b = cJSON_Parse(vp_builtin_presets_json());
    assert_non_null(b);
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b, "models")) >= 10);
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b, "gpus")) >= 10);
    /* ids are unique */
    const char *lists[] = {"models", "gpus"};
    for (int l = 0; l < 2; l++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(b, lists[l]);
        for (int i = 0; i < cJSON_GetArraySize(arr); i++)
            for (int j = i + 1; j < cJSON_GetArraySize(arr); j++)
                assert_string_not_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(arr, i), "id")->valuestring,
                                        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(arr, j), "id")->valuestring);
    }
    cJSON_Delete(b);
}

static void bad_bundles(void **s) {
    (void)s;
    expect_bundle_error(NULL, VP_ERR_JSON, "");
    expect_bundle_error("{\"models\":[", VP_ERR_JSON, "");
    expect_bundle_error("{\"gpus\":[]}", VP_ERR_FIELD, "models");
    expect_bundle_error("{\"models\":[]}", VP_ERR_FIELD, "gpus");
    expect_bundle_error("{\"models\":{},\"gpus\":[]}", VP_ERR_FIELD, "models");
    expect_bundle_error("{\"models\":[{\"id\":\"a\"},{\"name\":\"no id\"}],\"gpus\":[]}", VP_ERR_FIELD, "models[1]");
    expect_bundle_error("{\"models\":[],\"gpus\":[{\"id\":7}]}", VP_ERR_FIELD, "gpus[0]");
}

/* A bundle of one model and one GPU is used for presets, and the builtin ones are then unknown. */
static void custom_bundle(void **s) {
    (void)s;
    vp_error err;
    vp_registry *r = vp_registry_from_json(
        "{\"models\":[{\"id\":\"my-gpt2\",\"config\":" CFG_GPT2 "}],"
        "\"gpus\":[{\"id\":\"my-gpu\",\"name\":\"My GPU\",\"memory_bytes\":25769803776,\"cuda_total_bytes\":25438126080}]}",
        &err);
    assert_non_null(r);
    char *out = vp_estimate_json("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":1,\"seq\":64},"
                                 "\"instances\":[{\"model\":{\"preset\":\"my-gpt2\"}}],\"hardware\":{\"gpu\":\"my-gpu\"}}",
                                 r, 0, &err);
    assert_non_null(out);
    cJSON *e = cJSON_Parse(out);
    vp_free(out);
    assert_u64_equal(t_json_params_total(e, 0), 124439808ULL);
    const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "devices"), 0);
    assert_true(cJSON_GetObjectItemCaseSensitive(d, "capacity_bytes")->valuedouble == 25438126080.0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(d, "name")->valuestring, "My GPU");
    cJSON_Delete(e);
    out = vp_estimate_json("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":1,\"seq\":64},"
                           "\"instances\":[{\"model\":{\"preset\":\"gpt2\"}}],\"hardware\":{\"gpu\":\"my-gpu\"}}",
                           r, 0, &err);
    assert_null(out);
    assert_string_equal(err.path, "instances[0].model.preset");
    /* the default GPU (h100-sxm-80gb) is not in this bundle either */
    out = vp_estimate_json("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":1,\"seq\":64},"
                           "\"instances\":[{\"model\":{\"preset\":\"my-gpt2\"}}]}",
                           r, 0, &err);
    assert_null(out);
    assert_int_equal(err.code, VP_ERR_UNSUPPORTED);
    assert_string_equal(err.path, "hardware.gpu");
    vp_registry_free(r);
}

/* Every builtin model preset is read by its own family (no fallback warning) and counts exactly the
 * params_total its file states; each file's params_source cites where that number comes from (an
 * index total_size, the Hub's safetensors.total, a model card) or says it is computed. The issue-13
 * presets whose independent figure is cited: llama-3.3-70b 70,553,706,496; gemma-3-1b 999,885,952;
 * gemma-3-4b 4,300,079,472; qwen3-30b-a3b 30,532,122,624; gpt-oss-20b 20,914,757,184; gpt-oss-120b
 * 116,829,156,672; phi-4 14,659,507,200; phi-4-mini 3,836,021,760; olmo-2-7b 7,298,617,344;
 * granite-3.3-2b 2,533,539,840; granite-3.3-8b 8,170,864,640; smollm3-3b 3,075,098,624. */
static void presets_count_their_params_total(void **s) {
    (void)s;
    static const struct { const char *id; uint64_t n; } cited[] = {
        {"llama-3.3-70b", 70553706496ULL}, {"gemma-3-1b", 999885952ULL},      {"gemma-3-4b", 4300079472ULL},
        {"qwen3-30b-a3b", 30532122624ULL}, {"gpt-oss-20b", 20914757184ULL},   {"gpt-oss-120b", 116829156672ULL},
        {"phi-4", 14659507200ULL},         {"phi-4-mini", 3836021760ULL},     {"olmo-2-7b", 7298617344ULL},
        {"granite-3.3-2b", 2533539840ULL}, {"granite-3.3-8b", 8170864640ULL}, {"smollm3-3b", 3075098624ULL},
    };
    cJSON *b = cJSON_Parse(vp_builtin_presets_json());
    assert_non_null(b);
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(b, "models"), *m;
    int checked = 0;
    cJSON_ArrayForEach(m, models) {
        const char *id = cJSON_GetObjectItemCaseSensitive(m, "id")->valuestring;
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "params_total");
        if (!cJSON_IsNumber(n)) continue;
        const vp_estimate *e = t_estimate(t_plan1("{\"batch\":1,\"seq\":64}", t_fmt("{\"model\":{\"preset\":\"%s\"}}", id)));
        if (e->instances[0].params_total != (uint64_t)n->valuedouble)
            fail_msg("preset %s counts %llu, its file says %.0f", id, (unsigned long long)e->instances[0].params_total, n->valuedouble);
        for (int i = 0; i < e->n_warnings; i++)
            if (strstr(e->warnings[i], "unknown model_type")) fail_msg("preset %s read by the fallback", id);
        for (size_t k = 0; k < sizeof cited / sizeof cited[0]; k++)
            if (!strcmp(id, cited[k].id)) {
                assert_u64_equal(e->instances[0].params_total, cited[k].n);
                checked++;
            }
    }
    assert_int_equal(checked, (int)(sizeof cited / sizeof cited[0]));
    cJSON_Delete(b);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin),
        cmocka_unit_test(bad_bundles),
        cmocka_unit_test(custom_bundle),
        cmocka_unit_test(presets_count_their_params_total),
    };
    return T_RUN("registry", tests, argc, argv);
}
