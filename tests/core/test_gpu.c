/* test_gpu.c: the GPU of a plan: presets (models/gpus) and probe files (vramplan/gpu-probe@1,
 * docs/schema/gpu-probe.md), core/src/gpu.c and runtime.c.
 * usage: test_gpu GROUP FIXTURE_DIR (tests/fixtures) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vp_test.h"

#define WL "{\"batch\":1,\"seq\":128}"
#define INST "{\"model\":{\"preset\":\"gpt2\"}}"

static const char *g_fixtures = "tests/fixtures";

static const char *fixture(const char *name) {
    const char *path = t_fmt("%s/probes/%s", g_fixtures, name);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open fixture %s", path);
    char *buf = t_fmt("%*s", 1 << 16, "");
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static const char *with_probe(const char *probe_text, const char *extra) {
    return t_plan(WL, INST, t_fmt("{\"probe\":%s%s}", probe_text, extra ? extra : ""));
}

/* The H100 probe (the real probe's memory numbers on the groundtruth H100, 2026-11-23,
 * tests/probe/fixtures/h100-sxm-probe-2026-11-23.json): CUDA offers the free memory seen by the probe
 * plus the context it held while probing: 84,465,090,560 + 548,995,072 = 85,014,085,632 B; the context
 * is the probe's 548,995,072 B. That is 3,407,872 B less than cudaMemGetInfo's total 85,017,493,504 and
 * a PyTorch process's 552,402,944: NVML had already counted the probe process's own 3,407,872 B before
 * its context (tests/probe/fixtures/README.md). */
static void h100_probe(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(with_probe(fixture("h100.json"), NULL));
    assert_int_equal(e->n_devices, 1);
    assert_string_equal(e->devices[0].name, "NVIDIA H100 80GB HBM3");
    assert_u64_equal(e->devices[0].capacity_bytes, 85014085632ULL);
    assert_u64_equal(e->devices[0].context_bytes, 548995072ULL);
    assert_true(e->fits);
    assert_contains(e->summary, "gpu-node-7");
}

/* A busy GPU: only its free memory (+ our context) is usable. 40 GiB free of 80: capacity
 * 42,949,672,960 + 548,995,072 = 43,498,668,032 B. */
static void busy_gpu(void **s) {
    (void)s;
    const char *p = fixture("h100.json");
    const char *busy = strstr(p, "84465090560");
    assert_non_null(busy);
    char *copy = t_fmt("%s", p);
    memcpy(copy + (busy - p), "42949672960", 11);
    const vp_estimate *e = t_estimate(with_probe(copy, NULL));
    assert_u64_equal(e->devices[0].capacity_bytes, 43498668032ULL);
}

/* GPU presets: the CUDA total of the preset when it was measured (H100 SXM: 85,017,493,504). */
static void presets(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan(WL, INST, "{\"gpu\":\"h100-sxm-80gb\"}"));
    assert_u64_equal(e->devices[0].capacity_bytes, 85017493504ULL);
    /* every GPU preset loads and gives a capacity no larger than its datasheet memory */
    cJSON *bundle = cJSON_Parse(vp_builtin_presets_json());
    const cJSON *g;
    int n = 0;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(bundle, "gpus")) {
        const char *id = cJSON_GetObjectItemCaseSensitive(g, "id")->valuestring;
        const cJSON *mem = cJSON_GetObjectItemCaseSensitive(g, "memory_bytes");
        const vp_estimate *x = t_estimate(t_plan(WL, INST, t_fmt("{\"gpu\":\"%s\"}", id)));
        assert_true(x->devices[0].capacity_bytes > 0);
        assert_true((double)x->devices[0].capacity_bytes <= mem->valuedouble);
        assert_true(x->devices[0].usable_bytes < x->devices[0].capacity_bytes);
        n++;
    }
    cJSON_Delete(bundle);
    assert_true(n >= 10);
}

static void bad_probes(void **s) {
    (void)s;
    t_expect_error(with_probe(fixture("wrong-schema.json"), NULL), VP_ERR_SCHEMA, "hardware.probe.schema");
    t_expect_error(with_probe(fixture("not-a-probe.json"), NULL), VP_ERR_SCHEMA, "hardware.probe.schema");
    t_expect_error(with_probe(fixture("reported-error.json"), NULL), VP_ERR_FIELD, "hardware.probe.error");
    t_expect_error(with_probe(fixture("total-as-string.json"), NULL), VP_ERR_FIELD,
                   "hardware.probe.devices[0].memory.total_bytes");
    /* a truncated probe file makes the whole plan invalid JSON */
    t_expect_error(with_probe(fixture("truncated.json"), NULL), VP_ERR_JSON, "");
    t_expect_error(with_probe("[1,2]", NULL), VP_ERR_FIELD, "hardware.probe");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[]}", NULL), VP_ERR_FIELD,
                   "hardware.probe.devices");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[7]}", NULL), VP_ERR_FIELD,
                   "hardware.probe.devices[0]");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"memory\":{\"total_bytes\":1000}}]}", NULL),
                   VP_ERR_FIELD, "hardware.probe.devices[0].name");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\"}]}", NULL), VP_ERR_FIELD,
                   "hardware.probe.devices[0].memory");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\",\"memory\":{}}]}", NULL),
                   VP_ERR_FIELD, "hardware.probe.devices[0].memory.total_bytes");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\",\"memory\":"
                              "{\"total_bytes\":-1}}]}",
                              NULL),
                   VP_ERR_RANGE, "hardware.probe.devices[0].memory.total_bytes");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\",\"memory\":"
                              "{\"total_bytes\":1e300}}]}",
                              NULL),
                   VP_ERR_RANGE, "hardware.probe.devices[0].memory.total_bytes");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\",\"memory\":"
                              "{\"total_bytes\":1000,\"free_bytes\":2000}}]}",
                              NULL),
                   VP_ERR_RANGE, "hardware.probe.devices[0].memory.free_bytes");
}

/* Probe files may carry keys this build does not know (docs/schema/gpu-probe.md: readers must ignore
 * them). */
static void unknown_probe_keys_ignored(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(with_probe(
        "{\"schema\":\"vramplan/gpu-probe@1\",\"future_key\":{\"x\":1},\"devices\":[{\"name\":\"X\",\"new\":[1],"
        "\"memory\":{\"total_bytes\":25769803776,\"new_counter\":5}}]}",
        NULL));
    assert_u64_equal(e->devices[0].capacity_bytes, 25769803776ULL);
}

/* A probe of more GPUs than a plan can hold is refused or capped, never overflows the device table. */
static void many_probed_gpus(void **s) {
    (void)s;
    char *devs = t_fmt("%s", "");
    for (int i = 0; i < 20; i++)
        devs = t_fmt("%s%s{\"name\":\"G%d\",\"memory\":{\"total_bytes\":25769803776}}", devs, i ? "," : "", i);
    const char *plan = with_probe(t_fmt("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[%s]}", devs), NULL);
    vp_error err;
    vp_plan *p = vp_plan_from_json(plan, t_registry(), &err);
    if (!p) {
        assert_int_equal(err.code, VP_ERR_RANGE);
        return;
    }
    vp_estimate *e = malloc(sizeof *e);
    assert_non_null(e);
    vp_status st = vp_estimate_plan(p, e, &err);
    vp_plan_free(p);
    int n = e->n_devices;
    free(e);
    assert_int_equal(st, VP_OK);
    assert_true(n >= 1 && n <= VP_MAX_DEVICES);
}

/* MIG (docs/schema/gpu-probe.md "devices[i].mig"): with MIG on, CUDA sees MIG instances, never the
 * whole GPU, so the plan is checked against one instance. The fixture is the H100 80GB split into two
 * 3g.40gb instances as the probe writes it against its NVML test double (tests/probe/fake_nvml.c):
 * 40,448 MiB each, 38 MiB used, so 40,410 MiB = 42,372,956,160 B free for the process. */
static void mig_instances(void **s) {
    (void)s;
    const char *mig = fixture("h100-mig-2x3g40gb.json");
    const vp_estimate *e = t_estimate(with_probe(mig, NULL));
    assert_u64_equal(e->devices[0].capacity_bytes, 42372956160ULL);
    assert_contains(e->devices[0].name, "MIG instance 0");
    int warned = 0;
    for (int i = 0; i < e->n_warnings; i++)
        if (strstr(e->warnings[i], "MIG") && strstr(e->warnings[i], "smallest")) warned = 1;
    assert_true(warned);
    /* a job of about 49 GiB (qwen2.5-0.5b, bf16, 13 × 1024 tokens) fits the whole H100, not a 39.5 GiB slice */
    const char *wl = "{\"batch\":13,\"seq\":1024}";
    const char *job = "{\"model\":{\"preset\":\"qwen2.5-0.5b\"},\"precision\":\"bf16\"}";
    const vp_estimate *whole = t_estimate(t_plan(wl, job, t_fmt("{\"probe\":%s}", fixture("h100.json"))));
    const vp_estimate *slice = t_estimate(t_plan(wl, job, t_fmt("{\"probe\":%s}", mig)));
    assert_true(whole->fits);
    assert_true(whole->devices[0].peak_reserved_bytes > 42372956160ULL);
    assert_false(slice->fits);
    assert_true(slice->devices[0].headroom_bytes < 0);
    /* the smallest instance is the default; hardware.mig_instance picks another */
    char *two = t_fmt("%s", mig);
    char *second = strstr(strstr(two, "\"gpu_instance_id\": 2"), "\"total_bytes\": 42412802048");
    assert_non_null(second);
    memcpy(second, "\"total_bytes\": 21206401024", strlen("\"total_bytes\": 21206401024")); /* instance 1: 20,224 MiB */
    char *free1 = strstr(second, "\"free_bytes\": 42372956160");
    assert_non_null(free1);
    memcpy(free1, "\"free_bytes\": 21166555136", strlen("\"free_bytes\": 21166555136"));
    e = t_estimate(with_probe(two, NULL));
    assert_u64_equal(e->devices[0].capacity_bytes, 21166555136ULL);
    assert_contains(e->devices[0].name, "MIG instance 1");
    e = t_estimate(with_probe(two, ",\"mig_instance\":0"));
    assert_u64_equal(e->devices[0].capacity_bytes, 42372956160ULL);
    t_expect_error(with_probe(mig, ",\"mig_instance\":2"), VP_ERR_RANGE, "hardware.mig_instance");
    t_expect_error(with_probe(fixture("h100.json"), ",\"mig_instance\":0"), VP_ERR_FIELD, "hardware.mig_instance");
    /* MIG on with no instance created: nothing CUDA could use */
    char *none = t_fmt("%s", mig);
    char *arr = strstr(none, "\"instances\": [");
    assert_non_null(arr);
    const char *end = strstr(arr, "]\n");
    assert_non_null(end);
    none = t_fmt("%.*s\"instances\": []%s", (int)(arr - none), none, end + 1);
    t_expect_error(with_probe(none, NULL), VP_ERR_FIELD, "hardware.probe.devices[0].mig.instances");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\",\"memory\":{\"total_bytes\":null},"
                              "\"mig\":{\"enabled\":true,\"instances\":[{\"total_bytes\":\"40GB\"}]}}]}",
                              NULL),
                   VP_ERR_FIELD, "hardware.probe.devices[0].mig.instances[0].total_bytes");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\",\"memory\":{},"
                              "\"mig\":{\"enabled\":true,\"instances\":[{\"total_bytes\":100,\"free_bytes\":200}]}}]}",
                              NULL),
                   VP_ERR_RANGE, "hardware.probe.devices[0].mig.instances[0].free_bytes");
}

/* Two descriptions of the GPU (a preset and a probe) are refused rather than one silently winning;
 * keys given twice inside a probe are refused (cJSON kept the first, Python the last); a probe's
 * strings must be UTF-8. */
static void conflicting_or_ambiguous_probes(void **s) {
    (void)s;
    const char *msg = t_expect_error(t_plan(WL, INST, t_fmt("{\"gpu\":\"a100-sxm-80gb\",\"probe\":%s}", fixture("h100.json"))),
                                     VP_ERR_FIELD, "hardware.gpu");
    assert_contains(msg, "hardware.probe");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\",\"memory\":"
                              "{\"total_bytes\":85017493504,\"total_bytes\":1000}}]}",
                              NULL),
                   VP_ERR_FIELD, "hardware.probe.devices[0].memory.total_bytes");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\",\"name\":\"Y\",\"memory\":"
                              "{\"total_bytes\":85017493504}}]}",
                              NULL),
                   VP_ERR_FIELD, "hardware.probe.devices[0].name");
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\xC0\xAF\",\"memory\":"
                              "{\"total_bytes\":85017493504}}]}",
                              NULL),
                   VP_ERR_JSON, "hardware.probe.devices[0].name");
    /* a long host name of multi-byte characters is cut at a character boundary, never inside one */
    char *host = t_fmt("%s", "");
    for (int i = 0; i < 40; i++) host = t_fmt("%s\xC3\xA9", host);
    const vp_estimate *e = t_estimate(with_probe(t_fmt("{\"schema\":\"vramplan/gpu-probe@1\",\"host\":{\"hostname\":\"%s\"},"
                                                       "\"devices\":[{\"name\":\"X\",\"memory\":{\"total_bytes\":85017493504}}]}",
                                                       host),
                                                 NULL));
    const char *h = strstr(e->summary, "\xC3\xA9");
    assert_non_null(h);
    for (const unsigned char *u = (const unsigned char *)h; *u && *u != '.' && *u != ' ' && *u != '('; u += 2)
        if (u[0] != 0xC3 || u[1] != 0xA9) fail_msg("host name cut inside a character: %s", e->summary);
}

/* ---- known bugs ------------------------------------------------------------------------------- */

/* hardware.device picks the probed GPU; a device the probe does not list is reported at
 * "hardware.probe.devices" instead of the field that is wrong, "hardware.device". */
static void bug_probe_device_path(void **s) {
    (void)s;
    t_expect_error(with_probe(fixture("h100.json"), ",\"device\":3"), VP_ERR_RANGE, "hardware.device");
}

/* A bad supports.bf16 is reported at "hardware.probe.devices[0].bf16": the "supports" level is
 * missing from the path (gpu.c passes the device path, not the supports path, to the reader). */
static void bug_probe_supports_path(void **s) {
    (void)s;
    t_expect_error(with_probe("{\"schema\":\"vramplan/gpu-probe@1\",\"devices\":[{\"name\":\"X\",\"memory\":"
                              "{\"total_bytes\":85017493504},\"supports\":{\"bf16\":\"yes\"}}]}",
                              NULL),
                   VP_ERR_FIELD, "hardware.probe.devices[0].supports.bf16");
}

int main(int argc, char **argv) {
    if (argc > 2) g_fixtures = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h100_probe),
        cmocka_unit_test(busy_gpu),
        cmocka_unit_test(presets),
        cmocka_unit_test(bad_probes),
        cmocka_unit_test(unknown_probe_keys_ignored),
        cmocka_unit_test(many_probed_gpus),
        cmocka_unit_test(mig_instances),
        cmocka_unit_test(conflicting_or_ambiguous_probes),
    };
    const struct CMUnitTest bugs[] = {
        cmocka_unit_test(bug_probe_device_path),
        cmocka_unit_test(bug_probe_supports_path),
    };
    int rc = T_RUN("gpu", tests, argc, argv);
    rc += T_RUN("gpu_bugs", bugs, argc, argv);
    return rc;
}
