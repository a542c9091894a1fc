/* fuzz_record.c: libFuzzer target for vp_record_to_plan_json (the reader of calibration records that
 * `vramplan calibrate` feeds it line by line). A record either fails with a status, a path and a
 * message, or gives valid JSON that is then estimated (to reach the plan code with record-shaped
 * plans); the estimate must succeed or fail cleanly. Broken promises abort. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "vramplan.h"

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz_record: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

static vp_registry *g_reg;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    vp_error err;
    if (!g_reg) {
        g_reg = vp_registry_builtin(&err);
        if (!g_reg) abort();
    }
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *plan = vp_record_to_plan_json(text, &err);
    if (!plan) {
        CHECK(err.code != VP_OK);
        CHECK(memchr(err.path, '\0', sizeof err.path) != NULL);
        CHECK(err.message[0] != '\0');
        free(text);
        return 0;
    }
    CHECK(err.code == VP_OK);
    vp_error jerr;
    CHECK(vp_json_check(plan, &jerr) == VP_OK); /* the plan a record becomes is strict JSON */
    cJSON *j = cJSON_Parse(plan);
    CHECK(j != NULL);
    CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "schema")));
    cJSON_Delete(j);
    char *est = vp_estimate_json(plan, g_reg, 0, &err);
    if (est) {
        CHECK(err.code == VP_OK);
        CHECK(vp_json_check(est, &jerr) == VP_OK);
        cJSON *e = cJSON_Parse(est);
        CHECK(e != NULL);
        cJSON_Delete(e);
        vp_free(est);
    } else {
        CHECK(err.code != VP_OK && err.message[0] != '\0');
    }
    vp_free(plan);
    free(text);
    return 0;
}
