/* vp_test.c: helpers of vp_test.h. */
#include "vp_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena: everything a helper hands out lives until t_teardown / exit -------------------- */
static void **g_arena;
static size_t g_n, g_cap;
static vp_registry *g_reg;
static cJSON **g_trees;
static size_t g_nt, g_capt;

static void arena_free_all(void) {
    for (size_t i = 0; i < g_n; i++) free(g_arena[i]);
    free(g_arena);
    g_arena = NULL;
    g_n = g_cap = 0;
    for (size_t i = 0; i < g_nt; i++) cJSON_Delete(g_trees[i]);
    free(g_trees);
    g_trees = NULL;
    g_nt = g_capt = 0;
    vp_registry_free(g_reg);
    g_reg = NULL;
}

/* free what is left at exit too, so LeakSanitizer reports only the library's leaks */
static void arena_init(void) {
    static int registered;
    if (!registered) {
        atexit(arena_free_all);
        registered = 1;
    }
}

static void *keep(void *p) {
    if (!p) {
        fail_msg("out of memory in a test helper");
        return NULL;
    }
    arena_init();
    if (g_n == g_cap) {
        size_t cap = g_cap ? 2 * g_cap : 64;
        void **na = realloc(g_arena, cap * sizeof *na);
        if (!na) {
            free(p);
            fail_msg("out of memory in a test helper");
            return NULL;
        }
        g_arena = na;
        g_cap = cap;
    }
    g_arena[g_n++] = p;
    return p;
}

static cJSON *keep_json(cJSON *j) {
    if (g_nt == g_capt) {
        size_t cap = g_capt ? 2 * g_capt : 16;
        cJSON **nt = realloc(g_trees, cap * sizeof *nt);
        if (!nt) {
            cJSON_Delete(j);
            fail_msg("out of memory in a test helper");
            return NULL;
        }
        g_trees = nt;
        g_capt = cap;
    }
    arena_init();
    g_trees[g_nt++] = j;
    return j;
}

int t_setup(void **state) {
    (void)state;
    return 0;
}

int t_teardown(void **state) {
    (void)state;
    arena_free_all();
    return 0;
}

char *t_fmt(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) fail_msg("bad format");
    char *s = keep(malloc((size_t)n + 1));
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

const char *t_plan(const char *workload, const char *instances, const char *hardware) {
    if (hardware)
        return t_fmt("{\"schema\":\"%s\",\"workload\":%s,\"instances\":[%s],\"hardware\":%s}", VP_PLAN_SCHEMA, workload,
                     instances, hardware);
    return t_fmt("{\"schema\":\"%s\",\"workload\":%s,\"instances\":[%s]}", VP_PLAN_SCHEMA, workload, instances);
}

const char *t_plan1(const char *workload, const char *instance) { return t_plan(workload, instance, NULL); }

const char *t_hf_instance(const char *cfg, const char *extra) {
    return t_fmt("{\"name\":\"policy\",\"model\":{\"hf_config\":%s}%s%s}", cfg, extra && extra[0] ? "," : "",
                 extra ? extra : "");
}

const vp_registry *t_registry(void) {
    if (!g_reg) {
        vp_error err;
        g_reg = vp_registry_builtin(&err);
        if (!g_reg) fail_msg("builtin registry: %s (%s)", err.message, err.path);
    }
    return g_reg;
}

const vp_estimate *t_estimate(const char *plan_json) {
    vp_error err;
    memset(&err, 0x5a, sizeof err);
    vp_plan *plan = vp_plan_from_json(plan_json, t_registry(), &err);
    if (!plan) fail_msg("plan refused: [%s] %s at '%s'\nplan: %s", vp_status_name(err.code), err.message, err.path, plan_json);
    vp_estimate *e = keep(malloc(sizeof *e));
    vp_status st = vp_estimate_plan(plan, e, &err);
    vp_plan_free(plan);
    if (st != VP_OK) fail_msg("estimate failed: [%s] %s at '%s'", vp_status_name(err.code), err.message, err.path);
    assert_int_equal(err.code, VP_OK);
    return e;
}

const cJSON *t_estimate_json(const char *plan_json) {
    vp_error err;
    char *s = vp_estimate_json(plan_json, t_registry(), 0, &err);
    if (!s) fail_msg("plan refused: [%s] %s at '%s'\nplan: %s", vp_status_name(err.code), err.message, err.path, plan_json);
    assert_int_equal(err.code, VP_OK);
    cJSON *j = cJSON_Parse(s);
    vp_free(s);
    if (!j) fail_msg("vp_estimate_json printed invalid JSON");
    return keep_json(j);
}

const char *t_expect_error(const char *plan_json, vp_status code, const char *path) {
    vp_error err;
    memset(&err, 0x5a, sizeof err); /* the library must overwrite every field it reports */
    vp_plan *plan = vp_plan_from_json(plan_json, t_registry(), &err);
    if (plan) {
        vp_plan_free(plan);
        fail_msg("plan accepted, expected a %s error at '%s'\nplan: %s", vp_status_name(code), path, plan_json);
    }
    if (err.code != code || strcmp(err.path, path) != 0)
        fail_msg("expected [%s] at '%s', got [%s] at '%s': %s\nplan: %s", vp_status_name(code), path,
                 vp_status_name(err.code), err.path, err.message, plan_json);
    assert_non_null(memchr(err.message, '\0', sizeof err.message));
    assert_true(strlen(err.message) > 0);

    vp_error err2;
    memset(&err2, 0x5a, sizeof err2);
    char *out = vp_estimate_json(plan_json, t_registry(), 0, &err2);
    if (out) {
        vp_free(out);
        fail_msg("vp_estimate_json accepted a plan that vp_plan_from_json refused");
    }
    assert_int_equal(err2.code, code);
    assert_string_equal(err2.path, path);
    assert_string_equal(err2.message, err.message);
    return t_fmt("%s", err.message);
}

uint64_t t_component(const vp_estimate *e, int dev, const char *id, const char *instance) {
    assert_true(dev < e->n_devices);
    const vp_device *d = &e->devices[dev];
    uint64_t sum = 0;
    for (int i = 0; i < d->n_components; i++)
        if (!strcmp(d->components[i].id, id) && (!instance || !strcmp(d->components[i].instance, instance)))
            sum += d->components[i].bytes;
    return sum;
}

int t_has_component(const vp_estimate *e, int dev, const char *id) {
    const vp_device *d = &e->devices[dev];
    for (int i = 0; i < d->n_components; i++)
        if (!strcmp(d->components[i].id, id)) return 1;
    return 0;
}

uint64_t t_phase(const vp_estimate *e, int dev, const char *phase) {
    assert_true(dev < e->n_devices);
    const vp_device *d = &e->devices[dev];
    for (int i = 0; i < d->n_phases; i++)
        if (!strcmp(d->phases[i].name, phase)) return d->phases[i].alloc_bytes;
    fail_msg("device %d has no phase '%s'", dev, phase);
    return 0;
}

static uint64_t json_u64(const cJSON *o, const char *k) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(it)) fail_msg("estimate JSON has no number '%s'", k);
    return (uint64_t)it->valuedouble;
}

uint64_t t_json_params_total(const cJSON *est, int i) {
    const cJSON *in = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(est, "instances"), i);
    assert_non_null(in);
    return json_u64(in, "params_total");
}

uint64_t t_json_params_trainable(const cJSON *est, int i) {
    const cJSON *in = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(est, "instances"), i);
    assert_non_null(in);
    return json_u64(in, "params_trainable");
}

void t_assert_close(double actual, double expected, double rel, const char *what, const char *file, int line) {
    double diff = fabs(actual - expected);
    if (!(diff <= rel * fabs(expected))) {
        print_error("%s:%d: %s = %.17g, expected %.17g within %g%% (off by %.3g%%)\n", file, line, what, actual,
                    expected, 100.0 * rel, expected != 0 ? 100.0 * diff / fabs(expected) : 0.0);
        _fail(file, line);
    }
}

void t_assert_contains(const char *hay, const char *needle, const char *file, int line) {
    if (!hay || !strstr(hay, needle)) {
        print_error("%s:%d: '%s' does not contain '%s'\n", file, line, hay ? hay : "(null)", needle);
        _fail(file, line);
    }
}

int t_run(const char *group, const struct CMUnitTest *tests, size_t n, int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], group) != 0) return 0;
    return _cmocka_run_group_tests(group, tests, n, t_setup, t_teardown);
}

const char *t_fixture_text(const char *dir, const char *name) {
    const char *path = t_fmt("%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open fixture %s", path);
    char *buf = t_fmt("%*s", 1 << 16, "");
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}
