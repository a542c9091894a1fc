/* test_record.c: calibration records -> plans (core/src/record.c, vp_record_to_plan_json).
 * The record vocabulary is shared/groundtruth/README.md's: workload.mode fp32 | amp_bf16 | bf16 |
 * infer, optim adamw | adamw_fused | sgd (momentum 0.9) | adafactor, grad_ckpt, attn, lora {r,
 * targets} (dropout 0.05, alpha 2r, fp32 adapters), ref_model, ref_adapter_off. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vp_test.h"

#define GPT2_CFG                                                                                         \
    "{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_layer\":12,\"n_head\":12,\"vocab_size\":50257,"       \
    "\"n_positions\":2048}"
#define REC(workload) "{\"id\":\"t\",\"model\":\"gpt2\",\"model_config\":" GPT2_CFG ",\"workload\":" workload "}"
#define REC_M(workload, measured) \
    "{\"id\":\"t\",\"model\":\"gpt2\",\"model_config\":" GPT2_CFG ",\"workload\":" workload ",\"measured\":" measured "}"

/* record -> plan (parsed; the caller deletes it). The plan must be valid: it is estimated. */
static cJSON *to_plan(const char *record) {
    vp_error err;
    char *s = vp_record_to_plan_json(record, &err);
    if (!s) fail_msg("record refused: [%s] %s at '%s'", vp_status_name(err.code), err.message, err.path);
    (void)t_estimate(s);
    cJSON *j = cJSON_Parse(s);
    vp_free(s);
    assert_non_null(j);
    return j;
}

static const cJSON *get(const cJSON *o, const char *path) {
    /* dotted path with [i] indices */
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *cur = o;
    for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, ".")) {
        char *br = strchr(tok, '[');
        if (br) {
            *br = '\0';
            cur = cJSON_GetObjectItemCaseSensitive(cur, tok);
            cur = cJSON_GetArrayItem(cur, atoi(br + 1));
        } else {
            cur = cJSON_GetObjectItemCaseSensitive(cur, tok);
        }
    }
    return cur;
}

static void assert_str_at(const cJSON *o, const char *path, const char *want) {
    const cJSON *it = get(o, path);
    if (!cJSON_IsString(it)) fail_msg("%s is not a string", path);
    assert_string_equal(it->valuestring, want);
}

static void assert_num_at(const cJSON *o, const char *path, double want) {
    const cJSON *it = get(o, path);
    if (!cJSON_IsNumber(it)) fail_msg("%s is not a number", path);
    assert_true(it->valuedouble == want);
}

static void modes(void **s) {
    (void)s;
    cJSON *p = to_plan(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024}"));
    assert_str_at(p, "schema", VP_PLAN_SCHEMA);
    assert_str_at(p, "workload.mode", "train");
    assert_num_at(p, "workload.batch", 8);
    assert_num_at(p, "workload.seq", 1024);
    assert_str_at(p, "instances[0].precision", "fp32");
    assert_str_at(p, "instances[0].optimizer.name", "adamw");
    assert_str_at(p, "instances[0].optimizer.impl", "foreach");
    assert_str_at(p, "instances[0].model.hf_config.model_type", "gpt2");
    cJSON_Delete(p);
    p = to_plan(REC("{\"mode\":\"amp_bf16\",\"batch\":8,\"seq\":1024}"));
    assert_str_at(p, "instances[0].precision", "amp_bf16");
    cJSON_Delete(p);
    p = to_plan(REC("{\"mode\":\"bf16\",\"batch\":8,\"seq\":1024}"));
    assert_str_at(p, "instances[0].precision", "bf16");
    cJSON_Delete(p);
    p = to_plan(REC("{\"mode\":\"infer\",\"batch\":8,\"seq\":1024,\"new_tokens\":256}"));
    assert_str_at(p, "workload.mode", "infer");
    assert_num_at(p, "workload.new_tokens", 256);
    assert_str_at(p, "instances[0].precision", "bf16");
    assert_null(get(p, "instances[0].optimizer"));
    cJSON_Delete(p);
}

static void optimizers_and_options(void **s) {
    (void)s;
    cJSON *p = to_plan(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":512,\"optim\":\"adamw_fused\"}"));
    assert_str_at(p, "instances[0].optimizer.name", "adamw");
    assert_str_at(p, "instances[0].optimizer.impl", "fused");
    cJSON_Delete(p);
    p = to_plan(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":512,\"optim\":\"sgd\"}"));
    assert_str_at(p, "instances[0].optimizer.name", "sgd_momentum"); /* measure.py: momentum 0.9 */
    cJSON_Delete(p);
    p = to_plan(REC("{\"mode\":\"bf16\",\"batch\":8,\"seq\":512,\"optim\":\"adafactor\"}"));
    assert_str_at(p, "instances[0].optimizer.name", "adafactor");
    cJSON_Delete(p);
    p = to_plan(REC("{\"mode\":\"amp_bf16\",\"batch\":8,\"seq\":512,\"grad_ckpt\":true,\"attn\":\"eager\"}"));
    assert_num_at(p, "instances[0].grad_ckpt.every", 1);
    assert_str_at(p, "instances[0].attn", "eager");
    cJSON_Delete(p);
}

/* LoRA: alpha 2r, dropout 0.05 and fp32 adapters unless the record says otherwise. */
static void lora(void **s) {
    (void)s;
    cJSON *p = to_plan(
        REC("{\"mode\":\"amp_bf16\",\"batch\":4,\"seq\":1024,\"lora\":{\"r\":16,\"targets\":[\"c_attn\",\"c_proj\"]}}"));
    assert_str_at(p, "instances[0].finetune.method", "lora");
    assert_num_at(p, "instances[0].finetune.lora.r", 16);
    assert_num_at(p, "instances[0].finetune.lora.alpha", 32);
    assert_num_at(p, "instances[0].finetune.lora.dropout", 0.05);
    assert_str_at(p, "instances[0].finetune.lora.dtype", "fp32");
    assert_str_at(p, "instances[0].finetune.lora.targets[1]", "c_proj");
    cJSON_Delete(p);
}

/* DPO-style references: a second frozen bf16 copy, or the policy itself with adapters off. */
static void references(void **s) {
    (void)s;
    cJSON *p = to_plan(REC("{\"mode\":\"amp_bf16\",\"batch\":2,\"seq\":1024,\"ref_model\":true}"));
    assert_str_at(p, "instances[1].role", "reference");
    assert_str_at(p, "instances[1].precision", "bf16");
    assert_str_at(p, "instances[1].activations", "no_grad");
    assert_str_at(p, "instances[1].model.hf_config.model_type", "gpt2");
    cJSON_Delete(p);
    p = to_plan(REC("{\"mode\":\"amp_bf16\",\"batch\":2,\"seq\":1024,\"ref_adapter_off\":true,"
                             "\"lora\":{\"r\":16,\"targets\":[\"c_attn\"]}}"));
    assert_str_at(p, "instances[1].shares_weights_with", "policy");
    assert_null(get(p, "instances[1].model"));
    cJSON_Delete(p);
}

/* The GPU of the record: H100 preset with the measured CUDA total as capacity. */
static void capacity_from_measured(void **s) {
    (void)s;
    cJSON *p = to_plan(REC_M("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024}",
                             "{\"peak_alloc\":17434801152,\"total_bytes\":85017493504}"));
    assert_str_at(p, "hardware.gpu", "h100-sxm-80gb");
    assert_num_at(p, "hardware.capacity_bytes", 85017493504.0);
    cJSON_Delete(p);
    /* without a measured total the preset's */
    p = to_plan(REC_M("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024}", "{\"peak_alloc\":17434801152}"));
    assert_null(get(p, "hardware.capacity_bytes"));
    cJSON_Delete(p);
}

static void expect_record_error(const char *record, vp_status code, const char *path);

/* Measured values that are not byte counts are refused, naming the field (they used to become a
 * NaN% row, an inf% row, or silently leave the statistics while calibrate exited 0). */
static void bad_measured(void **s) {
    (void)s;
#define WL8 "{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024}"
    static const struct {
        const char *measured;
        vp_status code;
        const char *path;
    } bad[] = {
        {"{}", VP_ERR_FIELD, "measured.peak_alloc"},
        {"{\"oom\":false}", VP_ERR_FIELD, "measured.peak_alloc"},
        {"{\"peak_alloc\":null}", VP_ERR_FIELD, "measured.peak_alloc"},
        {"{\"peak_alloc\":0}", VP_ERR_RANGE, "measured.peak_alloc"},
        {"{\"peak_alloc\":-17434801152}", VP_ERR_RANGE, "measured.peak_alloc"},
        {"{\"peak_alloc\":1e999}", VP_ERR_RANGE, "measured.peak_alloc"},
        {"{\"peak_alloc\":-1e999}", VP_ERR_RANGE, "measured.peak_alloc"},
        {"{\"peak_alloc\":1e300}", VP_ERR_RANGE, "measured.peak_alloc"},
        {"{\"peak_alloc\":1.5}", VP_ERR_RANGE, "measured.peak_alloc"},
        {"{\"peak_alloc\":\"17434801152\"}", VP_ERR_FIELD, "measured.peak_alloc"},
        {"{\"peak_alloc\":17434801152,\"peak_reserved\":0}", VP_ERR_RANGE, "measured.peak_reserved"},
        {"{\"peak_alloc\":17434801152,\"peak_reserved\":1e999}", VP_ERR_RANGE, "measured.peak_reserved"},
        {"{\"peak_alloc\":17434801152,\"params_total\":-1}", VP_ERR_RANGE, "measured.params_total"},
        {"{\"peak_alloc\":17434801152,\"params_total\":1e999}", VP_ERR_RANGE, "measured.params_total"},
        {"{\"peak_alloc\":17434801152,\"total_bytes\":-5}", VP_ERR_RANGE, "measured.total_bytes"},
        {"{\"peak_alloc\":17434801152,\"total_bytes\":1e20}", VP_ERR_RANGE, "measured.total_bytes"},
        {"{\"peak_alloc\":17434801152,\"oom\":\"no\"}", VP_ERR_FIELD, "measured.oom"},
        {"[17434801152]", VP_ERR_FIELD, "measured"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_record_error(t_fmt("{\"id\":\"t\",\"model_config\":%s,\"workload\":%s,\"measured\":%s}", GPT2_CFG, WL8,
                                  bad[i].measured),
                            bad[i].code, bad[i].path);
    /* an OOM run may carry no peak, or the 0 allocated when it failed */
    cJSON *p = to_plan(REC_M(WL8, "{\"oom\":true}"));
    cJSON_Delete(p);
    p = to_plan(REC_M(WL8, "{\"oom\":true,\"peak_alloc\":0}"));
    cJSON_Delete(p);
    /* a record's text is read strictly: "fp32\u0000amp" is not "fp32", a duplicate key is ambiguous */
    expect_record_error(REC("{\"mode\":\"fp32\\u0000amp\",\"batch\":8,\"seq\":1024}"), VP_ERR_FIELD, "workload.mode");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"batch\":16,\"seq\":1024}"), VP_ERR_FIELD, "workload.batch");
    expect_record_error("{\"id\":\"t\xFF\",\"model_config\":" GPT2_CFG ",\"workload\":" WL8 "}", VP_ERR_JSON, "id");
#undef WL8
}

/* The plan of a record counts the parameters PyTorch saw: gpt2 with n_positions 2048 = 125,226,240
 * (record gpt2-fp32-b8s1024, measured.params_total). */
static void params_of_a_record(void **s) {
    (void)s;
    vp_error err;
    char *plan = vp_record_to_plan_json(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024}"), &err);
    assert_non_null(plan);
    const cJSON *e = t_estimate_json(plan);
    vp_free(plan);
    assert_u64_equal(t_json_params_total(e, 0), 125226240ULL);
}

/* workload.fsdp (tools/groundtruth/measure.py's fake-process-group FSDP cases, issue 11) and
 * autocast_cache: rank 0 of `world` ranks; no dtype given means no MixedPrecisionPolicy (fp32
 * all-gathers, reduce in the param dtype), which the plan must say since its FSDP default for
 * amp_bf16 is accelerate's bf16 policy; the optimizer stays measure.py's foreach AdamW. */
static void fsdp_records(void **s) {
    (void)s;
    cJSON *p = to_plan(REC("{\"mode\":\"amp_bf16\",\"batch\":4,\"seq\":512,\"grad_ckpt\":true,"
                           "\"fsdp\":{\"world\":8,\"param_dtype\":\"bf16\",\"reduce_dtype\":\"fp32\"}}"));
    assert_num_at(p, "parallel.dp", 8);
    assert_num_at(p, "hardware.count", 8);
    assert_str_at(p, "parallel.fsdp", "full_shard");
    assert_num_at(p, "parallel.fsdp_version", 2);
    assert_str_at(p, "parallel.fsdp_mixed_precision.param_dtype", "bf16");
    assert_str_at(p, "parallel.fsdp_mixed_precision.reduce_dtype", "fp32");
    assert_str_at(p, "instances[0].optimizer.impl", "foreach");
    cJSON_Delete(p);
    p = to_plan(REC("{\"mode\":\"amp_bf16\",\"batch\":4,\"seq\":512,\"autocast_cache\":false,"
                    "\"fsdp\":{\"world\":4,\"version\":1,\"reshard_after_forward\":false}}"));
    assert_str_at(p, "parallel.fsdp", "shard_grad_op");
    assert_num_at(p, "parallel.fsdp_version", 1);
    assert_str_at(p, "parallel.fsdp_mixed_precision.param_dtype", "fp32");
    assert_str_at(p, "parallel.fsdp_mixed_precision.reduce_dtype", "fp32");
    assert_true(cJSON_IsFalse(get(p, "instances[0].autocast_cache")));
    cJSON_Delete(p);
    expect_record_error(REC("{\"mode\":\"amp_bf16\",\"batch\":4,\"seq\":512,\"fsdp\":{\"world\":0}}"), VP_ERR_RANGE,
                        "workload.fsdp.world");
    expect_record_error(REC("{\"mode\":\"amp_bf16\",\"batch\":4,\"seq\":512,\"fsdp\":{\"world\":8,\"param_dtype\":\"int4\"}}"),
                        VP_ERR_UNSUPPORTED, "workload.fsdp.param_dtype");
    expect_record_error(REC("{\"mode\":\"amp_bf16\",\"batch\":4,\"seq\":512,\"fsdp\":{\"world\":8,\"turbo\":1}}"),
                        VP_ERR_FIELD, "workload.fsdp.turbo");
    expect_record_error(REC("{\"mode\":\"amp_bf16\",\"batch\":4,\"seq\":512,\"fsdp\":[8]}"), VP_ERR_FIELD, "workload.fsdp");
}

static void expect_record_error(const char *record, vp_status code, const char *path) {
    vp_error err;
    memset(&err, 0x5a, sizeof err);
    char *out = vp_record_to_plan_json(record, &err);
    if (out) {
        vp_free(out);
        fail_msg("record accepted, expected [%s] at '%s': %s", vp_status_name(code), path, record);
    }
    if (err.code != code || strcmp(err.path, path) != 0)
        fail_msg("expected [%s] at '%s', got [%s] at '%s': %s", vp_status_name(code), path, vp_status_name(err.code), err.path,
                 err.message);
    assert_true(strlen(err.message) > 0);
}

static void bad_records(void **s) {
    (void)s;
    expect_record_error(NULL, VP_ERR_JSON, "");
    expect_record_error("", VP_ERR_JSON, "");
    expect_record_error("{\"id\":", VP_ERR_JSON, "");
    expect_record_error("[]", VP_ERR_FIELD, "model_config");
    expect_record_error("{\"workload\":{\"mode\":\"fp32\",\"batch\":1,\"seq\":1}}", VP_ERR_FIELD, "model_config");
    expect_record_error("{\"model_config\":[1],\"workload\":{\"mode\":\"fp32\",\"batch\":1,\"seq\":1}}", VP_ERR_FIELD,
                        "model_config");
    expect_record_error("{\"model_config\":" GPT2_CFG "}", VP_ERR_FIELD, "workload");
    expect_record_error(REC("{\"batch\":8,\"seq\":1024}"), VP_ERR_FIELD, "workload.mode");
    expect_record_error(REC("{\"mode\":\"fp64\",\"batch\":8,\"seq\":1024}"), VP_ERR_UNSUPPORTED, "workload.mode");
    expect_record_error(REC("{\"mode\":3,\"batch\":8,\"seq\":1024}"), VP_ERR_FIELD, "workload.mode");
    expect_record_error(REC("{\"mode\":\"fp32\",\"seq\":1024}"), VP_ERR_FIELD, "workload.batch");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":0,\"seq\":1024}"), VP_ERR_RANGE, "workload.batch");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":1e300,\"seq\":1024}"), VP_ERR_RANGE, "workload.batch");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":-1}"), VP_ERR_RANGE, "workload.seq");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":\"1024\"}"), VP_ERR_FIELD, "workload.seq");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024,\"optim\":\"rmsprop\"}"), VP_ERR_UNSUPPORTED,
                        "workload.optim");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024,\"grad_ckpt\":\"yes\"}"), VP_ERR_FIELD,
                        "workload.grad_ckpt");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024,\"attn\":\"flash3\"}"), VP_ERR_UNSUPPORTED,
                        "workload.attn");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024,\"lora\":{\"targets\":[\"c_attn\"]}}"), VP_ERR_FIELD,
                        "workload.lora.r");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024,\"lora\":{\"r\":0,\"targets\":[\"c_attn\"]}}"),
                        VP_ERR_RANGE, "workload.lora.r");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024,\"lora\":{\"r\":8,\"targets\":\"c_attn\"}}"),
                        VP_ERR_FIELD, "workload.lora.targets");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024,\"lora\":{\"r\":8,\"targets\":[\"c_attn\"],"
                            "\"dropout\":2}}"),
                        VP_ERR_RANGE, "workload.lora.dropout");
    expect_record_error(REC("{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024,\"ref_model\":1}"), VP_ERR_FIELD,
                        "workload.ref_model");
    /* a NULL error pointer is allowed */
    assert_null(vp_record_to_plan_json("{", NULL));
}

/* A bad model_config passes through the record and is caught by the plan, naming the field. */
static void bad_config_caught_by_the_plan(void **s) {
    (void)s;
    vp_error err;
    char *plan = vp_record_to_plan_json("{\"model_config\":{\"model_type\":\"gpt2\",\"n_embd\":-768,\"n_layer\":12,\"n_head\":12},"
                                        "\"workload\":{\"mode\":\"fp32\",\"batch\":8,\"seq\":1024}}",
                                        &err);
    assert_non_null(plan);
    t_expect_error(plan, VP_ERR_RANGE, "instances[0].model.hf_config.n_embd");
    vp_free(plan);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(modes),
        cmocka_unit_test(optimizers_and_options),
        cmocka_unit_test(lora),
        cmocka_unit_test(references),
        cmocka_unit_test(capacity_from_measured),
        cmocka_unit_test(bad_measured),
        cmocka_unit_test(params_of_a_record),
        cmocka_unit_test(bad_records),
        cmocka_unit_test(bad_config_caught_by_the_plan),
        cmocka_unit_test(fsdp_records),
    };
    return T_RUN("record", tests, argc, argv);
}
