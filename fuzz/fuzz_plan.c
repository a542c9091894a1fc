/* fuzz_plan.c: libFuzzer target for the plan entry point, vp_estimate_json, with the builtin presets.
 *
 * Beyond "no crash, no sanitizer report", every input must give either
 *   - an error: a nonzero status with a NUL-terminated, UTF-8 path and a non-empty UTF-8 message, and no
 *     output; or
 *   - an estimate whose numbers keep the promises of docs/schema/estimate.md: components sum to the
 *     peak, reserved >= allocated, fits <=> headroom >= 0, the plan fits iff every GPU fits, and the
 *     struct API and the JSON API print the same bytes, and those bytes are strict UTF-8 JSON
 *     (vp_json_check: what Python's json and jq accept), whatever names the plan carried.
 * The pipeline expansion (vp_plan_expand_pipeline_json) runs on every input too: an error or strict JSON; the
 * suggestions (vp_estimate_with_suggestions) on one in four.
 * A broken promise aborts, which libFuzzer reports as a crash with the input saved. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vramplan.h"

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "fuzz_plan: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

static vp_registry *g_reg;

/* Strict UTF-8 (RFC 3629), written out here rather than taken from the core it checks. */
static int utf8_ok(const char *str) {
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned c = *s, cp, n;
        if (c < 0x80) {
            s++;
            continue;
        }
        if ((c & 0xE0) == 0xC0) n = 1, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0) n = 2, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0) n = 3, cp = c & 0x07;
        else return 0;
        for (unsigned i = 1; i <= n; i++) {
            if ((s[i] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[i] & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000)) return 0;
        if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
        s += n + 1;
    }
    return 1;
}

static void check_error(const vp_error *err) {
    CHECK(err->code != VP_OK);
    CHECK(memchr(err->path, '\0', sizeof err->path) != NULL);
    CHECK(memchr(err->message, '\0', sizeof err->message) != NULL);
    CHECK(err->message[0] != '\0');
    CHECK(strcmp(vp_status_name(err->code), "unknown") != 0);
    /* messages and paths quote the input: they stay UTF-8 whatever it was (they end up in JSON) */
    CHECK(utf8_ok(err->message));
    CHECK(utf8_ok(err->path));
}

static void check_estimate(const vp_estimate *e) {
    CHECK(e->n_instances >= 1 && e->n_instances <= VP_MAX_INSTANCES);
    CHECK(e->n_devices >= 0 && e->n_devices <= VP_MAX_DEVICES);
    CHECK(e->n_warnings >= 0 && e->n_warnings <= VP_MAX_WARNINGS);
    CHECK(memchr(e->summary, '\0', sizeof e->summary) != NULL);
    int all_fit = 1;
    for (int i = 0; i < e->n_devices; i++) {
        const vp_device *d = &e->devices[i];
        CHECK(d->n_components >= 0 && d->n_components <= VP_MAX_COMPONENTS);
        CHECK(d->n_phases >= 0 && d->n_phases <= VP_MAX_PHASES);
        if (strcmp(d->kind, "gpu") != 0) continue;
        uint64_t sum = 0;
        for (int k = 0; k < d->n_components; k++) {
            CHECK(memchr(d->components[k].id, '\0', sizeof d->components[k].id) != NULL);
            CHECK(memchr(d->components[k].explain, '\0', sizeof d->components[k].explain) != NULL);
            sum += d->components[k].bytes;
        }
        /* below 2^62 nothing saturates, and the breakdown must add up exactly */
        if (d->peak_alloc_bytes < (1ULL << 62)) CHECK(sum == d->peak_alloc_bytes);
        CHECK(d->peak_reserved_bytes >= d->peak_alloc_bytes);
        CHECK(d->usable_bytes <= d->capacity_bytes);
        /* a serving engine can also refuse settings that are not about memory (vLLM: max_model_len above the
         * model's); a negative headroom never fits */
        if (e->serving.engine[0]) CHECK(d->headroom_bytes >= 0 || !d->fits);
        else CHECK(d->fits == (d->headroom_bytes >= 0));
        for (int k = 0; k < d->n_phases; k++) CHECK(d->phases[k].alloc_bytes <= d->peak_alloc_bytes);
        all_fit &= d->fits;
    }
    CHECK(!e->fits || all_fit);
}

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
    int pretty = size > 0 && (data[0] & 1);

    /* the pipeline expansion (page and CLI) takes the same text: an error, or a plan that is strict JSON */
    int added = -1;
    char *expanded = vp_plan_expand_pipeline_json(text, g_reg, 0, pretty, &added, &err);
    if (!expanded) check_error(&err);
    else {
        vp_error jerr;
        CHECK(added >= 0 && vp_json_check(expanded, &jerr) == VP_OK);
        vp_free(expanded);
    }

    vp_plan *plan = vp_plan_from_json(text, g_reg, &err);
    if (!plan) {
        check_error(&err);
        vp_error err2;
        char *out = vp_estimate_json(text, g_reg, pretty, &err2);
        CHECK(out == NULL);
        CHECK(err2.code == err.code && strcmp(err2.path, err.path) == 0);
        free(text);
        return 0;
    }
    vp_estimate *e = malloc(sizeof *e);
    if (e) {
        /* a plan that parsed always gets an estimate */
        CHECK(vp_estimate_plan(plan, e, &err) == VP_OK);
        check_estimate(e);
        char *a = vp_estimate_to_json(e, pretty);
        char *b = vp_estimate_json(text, g_reg, pretty, &err);
        CHECK(a != NULL && b != NULL);
        CHECK(strcmp(a, b) == 0);
        /* the estimate is JSON every strict reader accepts: UTF-8, no key twice, nothing after it */
        CHECK(utf8_ok(a));
        vp_error jerr;
        CHECK(vp_json_check(a, &jerr) == VP_OK);
        /* an accepted plan's text is one the strict reader accepts too */
        CHECK(vp_json_check(text, &jerr) == VP_OK);
        vp_free(a);
        vp_free(b);
        /* the planning layer on a tight plan (one input in four, by its first byte: each costs up to ~90 more
         * estimates): every suggestion is a re-estimate that saves memory and says what it changes */
        if (size > 0 && (data[0] & 6) == 0 && vp_estimate_with_suggestions(plan, e, &err) == VP_OK) {
            check_estimate(e);
            CHECK(e->n_suggestions >= 0 && e->n_suggestions <= VP_MAX_SUGGESTIONS);
            for (int i = 0; i < e->n_suggestions; i++) {
                const vp_suggestion *g = &e->suggestions[i];
                CHECK(g->id[0] && g->change[0] && utf8_ok(g->change) && g->saves_bytes > 0 && (g->fits == 0 || g->fits == 1));
                CHECK(strcmp(g->id, "combined") != 0 || g->ids[0]);
            }
        }
    }
    free(e);
    vp_plan_free(plan);
    free(text);
    return 0;
}
