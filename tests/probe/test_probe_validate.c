/*
 * test_probe_validate.c - the gpu-probe@1 validator (native-cuda-probe/src/validate.c) accepts the
 * fixtures and rejects truncated and hand-edited documents with a message naming the field.
 *
 * usage: test_probe_validate FIXTURES_DIR
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "validate.h"

static const char *g_fixtures;

#define REAL_FIXTURE "h100-sxm-probe-2026-11-23.json" /* the probe's real output on the H100 */

static char *slurp(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_fixtures, name);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    assert_non_null(buf);
    for (;;) {
        if (n == cap) {
            buf = realloc(buf, cap * 2 + 1);
            assert_non_null(buf);
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

static int validate(const char *text, char *report, size_t reportsz, int *is_err)
{
    return vp_validate_text(text, strlen(text), report, reportsz, is_err);
}

static void test_fixtures_are_valid(void **state)
{
    (void)state;
    const char *names[] = {REAL_FIXTURE, "h100-sxm-x2-fake.json", "h100-no-nvml-fake.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *t = slurp(names[i], NULL);
        char report[4096];
        int is_err = -1;
        int n = validate(t, report, sizeof report, &is_err);
        if (n) fail_msg("%s: %d problems:\n%s", names[i], n, report);
        assert_int_equal(is_err, 0);
        free(t);
    }
}

static void test_error_document_is_valid(void **state)
{
    (void)state;
    char report[1024];
    int is_err = 0;
    const char *doc = "{\"schema\":\"vramplan/gpu-probe@1\",\"error\":{\"code\":\"no_driver\",\"message\":\"x\"}}";
    assert_int_equal(validate(doc, report, sizeof report, &is_err), 0);
    assert_int_equal(is_err, 1);
    const char *bad = "{\"schema\":\"vramplan/gpu-probe@1\",\"error\":{\"code\":\"on_fire\",\"message\":\"x\"}}";
    assert_int_equal(validate(bad, report, sizeof report, &is_err), 1);
    assert_non_null(strstr(report, "error.code: unknown value \"on_fire\""));
}

/* every truncation of the fixture is rejected as invalid JSON */
static void test_truncated_rejected(void **state)
{
    (void)state;
    size_t len = 0;
    char *t = slurp(REAL_FIXTURE, &len);
    /* the last characters are "}\n": cutting only whitespace keeps the JSON whole */
    while (len > 0 && (t[len - 1] == '\n' || t[len - 1] == ' ')) len--;
    for (size_t cut = 0; cut < len; cut += (cut < 40 ? 1 : 37)) {
        char report[1024];
        int n = vp_validate_text(t, cut, report, sizeof report, NULL);
        if (n == 0) fail_msg("truncated to %zu bytes but accepted", cut);
        if (!strstr(report, "not valid JSON")) fail_msg("cut %zu: unexpected report %s", cut, report);
    }
    char report[1024];
    int n = vp_validate_text(t, len - 1, report, sizeof report, NULL);
    assert_int_not_equal(n, 0);
    free(t);
}

/* ------------------------------------------------------------------ hand edits */

/* resolves "a.b[2].c" to the parent container and the last step */
static cJSON *parent_of(cJSON *root, const char *path, char *last_key, size_t lksz, int *last_index)
{
    cJSON *cur = root;
    const char *p = path;
    *last_index = -1;
    last_key[0] = '\0';
    for (;;) {
        char key[128] = "";
        int idx = -1;
        if (*p == '.') p++;
        if (*p == '[') {
            idx = (int)strtol(p + 1, NULL, 10);
            p = strchr(p, ']');
            assert_non_null(p);
            p++;
        } else {
            size_t k = 0;
            while (*p && *p != '.' && *p != '[' && k + 1 < sizeof key) key[k++] = *p++;
            key[k] = '\0';
        }
        if (*p == '\0') {
            snprintf(last_key, lksz, "%s", key);
            *last_index = idx;
            return cur;
        }
        cur = idx >= 0 ? cJSON_GetArrayItem(cur, idx) : cJSON_GetObjectItemCaseSensitive(cur, key);
        if (!cur) fail_msg("path %s does not exist in the fixture", path);
    }
}

/* replaces (or, with value NULL, deletes) the item at path */
static void edit(cJSON *root, const char *path, cJSON *value)
{
    char key[128];
    int idx;
    cJSON *parent = parent_of(root, path, key, sizeof key, &idx);
    if (idx >= 0) {
        if (value) assert_true(cJSON_ReplaceItemInArray(parent, idx, value));
        else cJSON_DeleteItemFromArray(parent, idx);
    } else {
        if (value) {
            if (cJSON_GetObjectItemCaseSensitive(parent, key))
                assert_true(cJSON_ReplaceItemInObjectCaseSensitive(parent, key, value));
            else
                cJSON_AddItemToObject(parent, key, value);
        } else {
            assert_non_null(cJSON_GetObjectItemCaseSensitive(parent, key));
            cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
        }
    }
}

typedef struct {
    const char *path;
    const char *json_value; /* NULL: delete the field */
    const char *expect;     /* substring of the validator's report */
} mutation;

static const mutation MUTATIONS[] = {
    {"devices[0].memory.total_bytes", NULL, "devices[0].memory.total_bytes: required field is missing"},
    {"devices[0].memory.total_bytes", "\"80 GB\"",
     "devices[0].memory.total_bytes: expected an integer >= 0 or null, got a string"},
    {"devices[0].memory.free_bytes", "-1", "devices[0].memory.free_bytes: expected an integer >= 0 or null, got a negative number"},
    {"devices[0].memory.free_bytes", "1.5", "devices[0].memory.free_bytes: expected an integer >= 0 or null, got a non-integer number"},
    {"devices[0].memory.free_bytes", "99999999999999", "devices[0].memory.free_bytes: free (99999999999999) is larger than total_bytes"},
    {"devices[0].memory.reserved_bytes", "null", "devices[0].memory.reserved_bytes: is null but has no entry in \"unavailable\""},
    {"devices[0].memory", "[]", "devices[0].memory: expected an object, got an array"},
    {"devices[0].compute_capability", "\"9\"", "devices[0].compute_capability: expected \"MAJOR.MINOR\""},
    {"devices[0].compute_capability", "8.9", "devices[0].compute_capability: expected a string or null, got a non-integer number"},
    {"devices[0].compute_capability", NULL, "devices[0].compute_capability: required field is missing"},
    {"devices[0].supports.fp8", "false", "devices[0].supports.fp8: false contradicts compute_capability 9.0"},
    {"devices[0].supports.rule", NULL, "devices[0].supports.rule: required field is missing"},
    {"devices[0].bus_width_bits", "\"5120\"", "devices[0].bus_width_bits: expected an integer >= 0 or null, got a string"},
    {"devices[0].peak_bandwidth_gbs", "4000", "devices[0].peak_bandwidth_gbs: 4000.0 does not equal"},
    {"devices[0].ecc", "\"Enabled\"", "devices[0].ecc: expected a boolean or null, got a string"},
    {"devices[0].mig.instances", NULL, "devices[0].mig.instances: required field is missing"},
    {"devices[0].compute_mode", "\"shared\"", "devices[0].compute_mode: unknown value \"shared\""},
    {"devices[0].pcie.gen", "\"Gen5\"", "devices[0].pcie.gen: expected an integer >= 0 or null, got a string"},
    {"devices[0].uuid", "\"GPU-f9f19e8f-205d-4509-0fc1-cd97e6572cf4\"", "devices[0].uuid: must be null in a redacted document"},
    {"devices[0].name", NULL, "devices[0].name: required field is missing"},
    {"devices", "[]", "devices: is empty"},
    {"devices[0]", "7", "devices[0]: expected an object, got an integer"},
    {"host.cuda_driver_version", "\"13.0\"", "host.cuda_driver_version: expected an integer >= 0, got a string"},
    {"host.nvml", NULL, "host.nvml: required field is missing"},
    {"host.hostname", "\"gpu-node-7\"", "host.hostname: must be absent or null in a redacted document"},
    {"schema", "\"vramplan/gpu-probe@2\"", "schema: expected \"vramplan/gpu-probe@1\""},
    {"schema", NULL, "schema: required field is missing"},
    {"peer_access[0][0]", "true", "peer_access[0][0]: the diagonal must be false"},
    {"peer_access", "[[false],[false]]", "peer_access: has 2 rows but there are 1 devices"},
    {"peer_access", NULL, "peer_access: required field is missing"},
    {"topology[0][0]", "\"NV18\"", "topology[0][0]: unknown value \"NV18\""},
    {"nvlink[0].status", "\"up\"", "nvlink[0].status: unknown value \"up\""},
    {"nvlink", "[]", "nvlink: has 0 entries but there are 1 devices"},
    {"unavailable", "{}", "unavailable: expected an array, got an object"},
    {"unavailable", "[{\"field\": \"x\"}]", "unavailable[0].reason: required field is missing"},
    {"warnings", "[1]", "warnings[0]: expected a string, got an integer"},
};

static void test_hand_edits_name_the_field(void **state)
{
    (void)state;
    char *t = slurp(REAL_FIXTURE, NULL);
    for (size_t i = 0; i < sizeof MUTATIONS / sizeof MUTATIONS[0]; i++) {
        const mutation *m = &MUTATIONS[i];
        cJSON *doc = cJSON_Parse(t);
        assert_non_null(doc);
        cJSON *v = NULL;
        if (m->json_value) {
            v = cJSON_Parse(m->json_value);
            if (!v) fail_msg("bad test value %s", m->json_value);
        }
        edit(doc, m->path, v);
        char *edited = cJSON_PrintUnformatted(doc);
        cJSON_Delete(doc);
        assert_non_null(edited);
        char report[4096];
        int n = validate(edited, report, sizeof report, NULL);
        cJSON_free(edited);
        if (n == 0) fail_msg("edit %zu (%s = %s) was accepted", i, m->path, m->json_value ? m->json_value : "(deleted)");
        if (!strstr(report, m->expect))
            fail_msg("edit %zu (%s): report does not contain \"%s\":\n%s", i, m->path, m->expect, report);
    }
    free(t);
}

/* a null value is fine when "unavailable" explains it */
static void test_null_with_reason_is_valid(void **state)
{
    (void)state;
    char *t = slurp(REAL_FIXTURE, NULL);
    cJSON *doc = cJSON_Parse(t);
    free(t);
    edit(doc, "devices[0].power_limit_w", cJSON_CreateNull());
    edit(doc, "unavailable", cJSON_Parse("[{\"field\":\"devices[0].power_limit_w\",\"reason\":\"NVML not found\"}]"));
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    char report[2048];
    int n = validate(text, report, sizeof report, NULL);
    cJSON_free(text);
    if (n) fail_msg("%s", report);
}

/* JSON text must be UTF-8 (RFC 8259 section 8.1): a byte that is not, anywhere, is a problem */
static void test_invalid_utf8_rejected(void **state)
{
    (void)state;
    char *t = slurp(REAL_FIXTURE, NULL);
    char *at = strstr(t, "H100 80GB");
    assert_non_null(at);
    const char *bad[] = {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *copy = strdup(t);
        assert_non_null(copy);
        memcpy(copy + (at - t), bad[i], strlen(bad[i])); /* overwrites "H100..." inside the name */
        char report[2048];
        int n = validate(copy, report, sizeof report, NULL);
        if (n == 0) fail_msg("ill-formed sequence %zu accepted", i);
        if (!strstr(report, "not valid UTF-8 at byte")) fail_msg("sequence %zu: %s", i, report);
        free(copy);
    }
    /* well-formed multi-byte characters are fine */
    char *copy = strdup(t);
    assert_non_null(copy);
    memcpy(copy + (at - t), "\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80", 9); /* "ü€😀" over "H100 80GB" */
    char report[2048];
    int n = validate(copy, report, sizeof report, NULL);
    if (n) fail_msg("%s", report);
    free(copy);
    free(t);
}

/* the planner reads device names of at most 95 bytes (core/src/gpu.h vp_gpu.name[96]) */
static void test_name_length_limit(void **state)
{
    (void)state;
    char *t = slurp(REAL_FIXTURE, NULL);
    char name[200];
    for (int len = 94; len <= 97; len++) {
        cJSON *doc = cJSON_Parse(t);
        assert_non_null(doc);
        memset(name, 'N', (size_t)len);
        name[len] = '\0';
        if (len == 95) memcpy(name + 92, "\xe2\x82\xac", 3); /* counted in bytes, not characters */
        edit(doc, "devices[0].name", cJSON_CreateString(name));
        char *text = cJSON_PrintUnformatted(doc);
        cJSON_Delete(doc);
        char report[2048];
        int n = validate(text, report, sizeof report, NULL);
        cJSON_free(text);
        if (len <= VP_PROBE_NAME_MAX_BYTES && n) fail_msg("%d-byte name rejected: %s", len, report);
        if (len > VP_PROBE_NAME_MAX_BYTES) {
            assert_int_equal(n, 1);
            char want[128];
            snprintf(want, sizeof want, "devices[0].name: is %d bytes long; the planner reads names of at most 95 bytes", len);
            if (!strstr(report, want)) fail_msg("%s", report);
        }
    }
    free(t);
}

static void test_not_an_object(void **state)
{
    (void)state;
    char report[512];
    assert_int_equal(validate("[1,2]", report, sizeof report, NULL), 1);
    assert_non_null(strstr(report, "expected a JSON object, got an array"));
    assert_int_not_equal(validate("", report, sizeof report, NULL), 0);
    assert_non_null(strstr(report, "not valid JSON"));
}

static void test_small_report_buffer_is_safe(void **state)
{
    (void)state;
    char report[8];
    int n = validate("{\"schema\": 1}", report, sizeof report, NULL);
    assert_true(n >= 1);
    assert_true(strlen(report) < sizeof report);
    assert_true(validate("{}", NULL, 0, NULL) >= 1);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
        return 2;
    }
    g_fixtures = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_are_valid),        cmocka_unit_test(test_error_document_is_valid),
        cmocka_unit_test(test_truncated_rejected),        cmocka_unit_test(test_hand_edits_name_the_field),
        cmocka_unit_test(test_null_with_reason_is_valid), cmocka_unit_test(test_invalid_utf8_rejected),
        cmocka_unit_test(test_name_length_limit),         cmocka_unit_test(test_not_an_object),
        cmocka_unit_test(test_small_report_buffer_is_safe),
    };
    return cmocka_run_group_tests_name("probe_validate", tests, NULL, NULL);
}
