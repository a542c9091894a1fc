/*
 * test_probe_cli.c - runs the real vramplan-probe binary against the driver test doubles
 * (libfakecuda.so, libfakenvml.so) and checks its output, error documents and exit codes.
 *
 * usage: test_probe_cli GROUP PROBE FAKECUDA FAKENVML FAKECUDA_OLD FIXTURES_DIR OUT_DIR
 * GROUP: no_driver errors h100_fixture multi_gpu no_nvml degraded flags validate_cli hostile
 *
 * Fixtures made from the double (h100-sxm-x2-fake.json, h100-no-nvml-fake.json) are rewritten
 * instead of compared when VRAMPLAN_UPDATE_PROBE_FIXTURES=1. The real probe output
 * (h100-sxm-probe-2026-11-23.json) is never rewritten: the double must reproduce it byte for byte.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "json_diff.h"
#include "validate.h"

extern char **environ;

static const char *g_probe, *g_fakecuda, *g_fakenvml, *g_fakecuda_old, *g_fixtures, *g_outdir;

#define FIXTURE_TIME_EPOCH "1795344595" /* 2026-11-22T10:49:55Z, the nvidia-smi -q timestamp */
/* the real probe run on the H100: tests/probe/fixtures/h100-sxm-probe-2026-11-23.json */
#define REAL_FIXTURE "h100-sxm-probe-2026-11-23.json"
#define REAL_FIXTURE_EPOCH "1795420203" /* its "time", 2026-11-23T07:50:03Z */
/* the H100's memory as the real probe saw it (fake_gpu_table.h explains the numbers) */
#define H100_NVML_FREE 85014085632.0 /* 81079 MiB - 3407872 */
#define H100_PROBE_SELF 3407872.0    /* NVML used: the probe's own process */
#define H100_CONTEXT 548995072.0     /* nvml free - cuMemGetInfo free 84465090560 */
#define H100_UUID "GPU-f9f19e8f-205d-4509-0fc1-cd97e6572cf4"
#define MIB 1048576.0

typedef struct {
    int exit_code;
    char *out;
    char *err;
    cJSON *json; /* stdout parsed, or NULL */
} result;

static void result_free(result *r)
{
    free(r->out);
    free(r->err);
    cJSON_Delete(r->json);
    memset(r, 0, sizeof *r);
}

static void scrub_env(const char *prefix)
{
    char names[256][128];
    int n = 0;
    for (char **e = environ; e && *e && n < 256; e++) {
        if (strncmp(*e, prefix, strlen(prefix)) != 0) continue;
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (len >= sizeof names[0]) continue;
        memcpy(names[n], *e, len);
        names[n][len] = '\0';
        n++;
    }
    for (int i = 0; i < n; i++) unsetenv(names[i]);
}

/* env: NULL-terminated "KEY=VALUE" (set) or "KEY" (unset); args: NULL-terminated, after argv[0] */
static result run_probe(const char *name, const char *const *env, const char *const *args)
{
    result r;
    memset(&r, 0, sizeof r);
    char outp[1024], errp[1024];
    snprintf(outp, sizeof outp, "%s/%s.stdout", g_outdir, name);
    snprintf(errp, sizeof errp, "%s/%s.stderr", g_outdir, name);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) fail_msg("fork: %s", strerror(errno));
    if (pid == 0) {
        int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0) _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        close(fo);
        close(fe);
        scrub_env("FAKE_");
        scrub_env("VRAMPLAN_PROBE_");
        unsetenv("SOURCE_DATE_EPOCH");
        unsetenv("CUDA_VISIBLE_DEVICES");
        setenv("VRAMPLAN_PROBE_LIBCUDA", g_fakecuda, 1);
        setenv("VRAMPLAN_PROBE_LIBNVML", g_fakenvml, 1);
        setenv("VRAMPLAN_PROBE_PROC_DRIVER_VERSION", "/nonexistent/proc/driver/nvidia/version", 1);
        setenv("SOURCE_DATE_EPOCH", FIXTURE_TIME_EPOCH, 1);
        for (int i = 0; env && env[i]; i++) {
            char kv[1024];
            snprintf(kv, sizeof kv, "%s", env[i]);
            char *eq = strchr(kv, '=');
            if (eq) {
                *eq = '\0';
                setenv(kv, eq + 1, 1);
            } else {
                unsetenv(kv);
            }
        }
        const char *argv[64];
        int k = 0;
        argv[k++] = g_probe;
        for (int i = 0; args && args[i] && k < 63; i++) argv[k++] = args[i];
        argv[k] = NULL;
        execv(g_probe, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) fail_msg("waitpid: %s", strerror(errno));
    }
    r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    r.out = read_file(outp, NULL);
    r.err = read_file(errp, NULL);
    if (!r.out) r.out = calloc(1, 1);
    if (!r.err) r.err = calloc(1, 1);
    if (r.out && r.out[0]) r.json = cJSON_Parse(r.out);
    if (r.exit_code >= 128) print_error("probe died: signal %d\nstderr:\n%s\n", r.exit_code - 128, r.err);
    return r;
}

static cJSON *load_json(const char *path)
{
    char *t = read_file(path, NULL);
    if (!t) fail_msg("cannot read %s", path);
    cJSON *j = cJSON_Parse(t);
    free(t);
    if (!j) fail_msg("%s is not valid JSON", path);
    return j;
}

static void assert_valid_doc(const char *text, int want_error_doc)
{
    char report[4096];
    int is_err = 0;
    int n = vp_validate_text(text, strlen(text), report, sizeof report, &is_err);
    if (n != 0) fail_msg("probe output fails validation (%d problems):\n%s", n, report);
    assert_int_equal(is_err, want_error_doc);
}

static void assert_error(result *r, const char *code, int exit_code)
{
    if (r->exit_code != exit_code) print_error("stderr: %s\nstdout: %s\n", r->err, r->out);
    assert_int_equal(r->exit_code, exit_code);
    assert_non_null(r->json);
    assert_valid_doc(r->out, 1);
    cJSON *s = json_at(r->json, "schema");
    assert_true(cJSON_IsString(s));
    assert_string_equal(s->valuestring, "vramplan/gpu-probe@1");
    cJSON *c = json_at(r->json, "error.code");
    assert_true(cJSON_IsString(c));
    assert_string_equal(c->valuestring, code);
    cJSON *m = json_at(r->json, "error.message");
    assert_true(cJSON_IsString(m) && m->valuestring[0]);
    /* exactly {schema, error} */
    assert_int_equal(cJSON_GetArraySize(r->json), 2);
    /* a human sentence on stderr */
    assert_non_null(strstr(r->err, "vramplan-probe: "));
}

static void assert_success(result *r)
{
    if (r->exit_code != 0) print_error("stderr: %s\nstdout: %s\n", r->err, r->out);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(r->json);
    assert_valid_doc(r->out, 0);
}

static double num_at(const cJSON *root, const char *path)
{
    cJSON *v = json_at(root, path);
    if (!cJSON_IsNumber(v)) fail_msg("%s is not a number", path);
    return v->valuedouble;
}

static void assert_null_at(const cJSON *root, const char *path)
{
    cJSON *v = json_at(root, path);
    if (!v || !cJSON_IsNull(v)) fail_msg("%s should be null", path);
}

static const char *str_at(const cJSON *root, const char *path)
{
    cJSON *v = json_at(root, path);
    if (!cJSON_IsString(v)) fail_msg("%s is not a string", path);
    return v->valuestring;
}

static int bool_at(const cJSON *root, const char *path)
{
    cJSON *v = json_at(root, path);
    if (!cJSON_IsBool(v)) fail_msg("%s is not a boolean", path);
    return cJSON_IsTrue(v);
}

/* reason recorded in "unavailable" for field, or NULL */
static const char *unavailable_reason(const cJSON *doc, const char *field)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, json_at(doc, "unavailable"))
    {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "field");
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "reason");
        if (cJSON_IsString(f) && cJSON_IsString(r) && strcmp(f->valuestring, field) == 0) return r->valuestring;
    }
    return NULL;
}

static void assert_unavailable(const cJSON *doc, const char *field, const char *reason_part)
{
    const char *r = unavailable_reason(doc, field);
    if (!r) fail_msg("no \"unavailable\" entry for %s", field);
    if (reason_part && !strstr(r, reason_part)) fail_msg("reason for %s is \"%s\", expected it to mention \"%s\"", field, r, reason_part);
}

static void compare_fixture(const cJSON *got, const char *fixture_name, int may_update)
{
    char path[1024], msg[1024];
    snprintf(path, sizeof path, "%s/%s", g_fixtures, fixture_name);
    const char *upd = getenv("VRAMPLAN_UPDATE_PROBE_FIXTURES");
    if (may_update && upd && strcmp(upd, "1") == 0) {
        char *text = cJSON_Print(got);
        FILE *f = fopen(path, "w");
        assert_non_null(text);
        assert_non_null(f);
        fprintf(f, "%s\n", text);
        fclose(f);
        cJSON_free(text);
        print_message("updated %s\n", path);
        return;
    }
    cJSON *want = load_json(path);
    int d = json_diff(got, want, msg, sizeof msg);
    cJSON_Delete(want);
    if (d) fail_msg("output differs from %s: %s", fixture_name, msg);
}

/* ================================================================== no_driver */

static void test_no_driver_missing_library(void **state)
{
    (void)state;
    const char *env[] = {"VRAMPLAN_PROBE_LIBCUDA=/nonexistent/libcuda.so.1", NULL};
    result r = run_probe("no_driver", env, NULL);
    assert_error(&r, "no_driver", 3);
    assert_non_null(strstr(str_at(r.json, "error.message"), "/nonexistent/libcuda.so.1"));
    assert_non_null(strstr(r.err, "NVIDIA driver not found"));
    result_free(&r);
}

static void test_no_driver_written_to_output_file(void **state)
{
    (void)state;
    char out[1024];
    snprintf(out, sizeof out, "%s/no_driver_file.json", g_outdir);
    unlink(out);
    const char *env[] = {"VRAMPLAN_PROBE_LIBCUDA=/nonexistent/libcuda.so.1", NULL};
    const char *args[] = {"--output", out, "--pretty", NULL};
    result r = run_probe("no_driver_file", env, args);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.out, ""); /* nothing on stdout */
    char *text = read_file(out, NULL);
    assert_non_null(text);
    assert_valid_doc(text, 1);
    cJSON *j = cJSON_Parse(text);
    assert_string_equal(str_at(j, "error.code"), "no_driver");
    cJSON_Delete(j);
    free(text);
    result_free(&r);
}

static void test_no_driver_stub_library(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_CUDA_INIT_RESULT=34", NULL}; /* CUDA_ERROR_STUB_LIBRARY */
    result r = run_probe("stub", env, NULL);
    assert_error(&r, "no_driver", 3);
    assert_non_null(strstr(str_at(r.json, "error.message"), "CUDA_ERROR_STUB_LIBRARY"));
    result_free(&r);
}

/* ================================================================== errors */

static void test_no_gpu(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_CUDA_DEVICE_COUNT=0", NULL};
    result r = run_probe("no_gpu", env, NULL);
    assert_error(&r, "no_gpu", 4);
    assert_non_null(strstr(str_at(r.json, "error.message"), "CUDA_ERROR_NO_DEVICE"));
    result_free(&r);
}

static void test_permission_denied(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_CUDA_INIT_RESULT=800", NULL}; /* CUDA_ERROR_NOT_PERMITTED */
    result r = run_probe("perm", env, NULL);
    assert_error(&r, "permission_denied", 6);
    result_free(&r);
}

static void test_driver_too_old_init(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_CUDA_INIT_RESULT=36", NULL}; /* CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER */
    result r = run_probe("old_init", env, NULL);
    assert_error(&r, "driver_too_old", 5);
    result_free(&r);
}

static void test_driver_too_old_missing_symbol(void **state)
{
    (void)state;
    char e[1100];
    snprintf(e, sizeof e, "VRAMPLAN_PROBE_LIBCUDA=%s", g_fakecuda_old);
    const char *env[] = {e, NULL};
    result r = run_probe("old_sym", env, NULL);
    assert_error(&r, "driver_too_old", 5);
    assert_non_null(strstr(str_at(r.json, "error.message"), "cuDeviceTotalMem_v2"));
    result_free(&r);
}

static void test_init_failed(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_CUDA_INIT_RESULT=803", NULL}; /* CUDA_ERROR_SYSTEM_DRIVER_MISMATCH */
    result r = run_probe("init_failed", env, NULL);
    assert_error(&r, "init_failed", 7);
    assert_non_null(strstr(str_at(r.json, "error.message"), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"));
    result_free(&r);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    const char *cases[][4] = {
        {"--bogus", NULL, NULL, NULL},         {"--device", "x", NULL, NULL},   {"--device", "0,0", NULL, NULL},
        {"--device", "0,", NULL, NULL},        {"--device", "", NULL, NULL},    {"--output", NULL, NULL, NULL},
        {"--pretty=yes", NULL, NULL, NULL},    {"--device", "-1", NULL, NULL},  {"--device", "99999999999", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        result r = run_probe("bad_args", NULL, cases[i]);
        print_message("args: %s %s -> exit %d\n", cases[i][0], cases[i][1] ? cases[i][1] : "", r.exit_code);
        assert_error(&r, "bad_arguments", 2);
        result_free(&r);
    }
}

static void test_device_out_of_range(void **state)
{
    (void)state;
    const char *args[] = {"--device", "0,1", NULL};
    result r = run_probe("dev_range", NULL, args);
    assert_error(&r, "bad_arguments", 2);
    assert_non_null(strstr(str_at(r.json, "error.message"), "only 1 CUDA device"));
    result_free(&r);
}

static void test_io_error(void **state)
{
    (void)state;
    const char *args[] = {"--output", "/nonexistent-dir/x/probe.json", NULL};
    result r = run_probe("io_error", NULL, args);
    assert_int_equal(r.exit_code, 8);
    assert_non_null(strstr(r.err, "cannot open /nonexistent-dir/x/probe.json"));
    result_free(&r);
}

/* ================================================================== h100_fixture */

/* The double reproduces the real probe run on the H100 byte for byte: the same command
 * (`vramplan-probe --pretty --redact --output h100-probe.json`) at the same time. */
static void test_h100_matches_real_probe_output(void **state)
{
    (void)state;
    char out[1024], want_path[1024];
    snprintf(out, sizeof out, "%s/h100.json", g_outdir);
    snprintf(want_path, sizeof want_path, "%s/%s", g_fixtures, REAL_FIXTURE);
    unlink(out);
    const char *env[] = {"SOURCE_DATE_EPOCH=" REAL_FIXTURE_EPOCH, NULL};
    const char *args[] = {"--pretty", "--redact", "--output", out, NULL};
    result r = run_probe("h100", env, args);
    if (r.exit_code != 0) print_error("stderr: %s\n", r.err);
    assert_int_equal(r.exit_code, 0);
    char *text = read_file(out, NULL);
    assert_non_null(text);
    assert_valid_doc(text, 0);
    cJSON *got = cJSON_Parse(text);
    assert_non_null(got);
    compare_fixture(got, REAL_FIXTURE, 0); /* names the first differing field */
    char *want = read_file(want_path, NULL);
    assert_non_null(want);
    assert_string_equal(text, want);
    free(want);
    cJSON_Delete(got);
    free(text);
    result_free(&r);
}

static void test_h100_compact_equals_pretty(void **state)
{
    (void)state;
    const char *a1[] = {"--redact", NULL};
    const char *a2[] = {"--redact", "--pretty", NULL};
    result r1 = run_probe("compact", NULL, a1);
    result r2 = run_probe("pretty", NULL, a2);
    assert_success(&r1);
    assert_success(&r2);
    assert_null(strchr(r1.out, '\t'));
    assert_non_null(strchr(r2.out, '\n'));
    char msg[512];
    if (json_diff(r1.json, r2.json, msg, sizeof msg)) fail_msg("%s", msg);
    result_free(&r1);
    result_free(&r2);
}

static void test_h100_key_values(void **state)
{
    (void)state;
    const char *args[] = {"--redact", NULL};
    result r = run_probe("h100_values", NULL, args);
    assert_success(&r);
    cJSON *j = r.json;
    assert_int_equal(cJSON_GetArraySize(json_at(j, "devices")), 1);
    assert_true(num_at(j, "devices[0].memory.nvml_total_bytes") == 81559 * MIB);
    assert_true(num_at(j, "devices[0].memory.reserved_bytes") == 480 * MIB);
    assert_true(num_at(j, "devices[0].memory.used_bytes") == H100_PROBE_SELF);
    assert_true(num_at(j, "devices[0].memory.nvml_free_bytes") == H100_NVML_FREE);
    assert_true(num_at(j, "devices[0].memory.context_bytes") == H100_CONTEXT);
    assert_true(num_at(j, "devices[0].peak_bandwidth_gbs") == 3352.3);
    assert_string_equal(str_at(j, "devices[0].compute_capability"), "9.0");
    assert_true(bool_at(j, "devices[0].supports.fp8"));
    assert_string_equal(str_at(j, "nvlink[0].status"), "not_supported");
    assert_int_equal(cJSON_GetArraySize(json_at(j, "unavailable")), 0);
    assert_int_equal(cJSON_GetArraySize(json_at(j, "warnings")), 0);
    result_free(&r);
}

/* ================================================================== multi_gpu */

static void test_two_gpus_fixture(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_CUDA_DEVICE_COUNT=2", NULL};
    const char *args[] = {"--redact", NULL};
    result r = run_probe("x2", env, args);
    assert_success(&r);
    compare_fixture(r.json, "h100-sxm-x2-fake.json", 1);
    result_free(&r);
}

/* NVML lists the GPUs in the reverse order; only device 1 has another process (4608 MiB) */
static void test_two_gpus_matched_by_pci_bus_id(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_CUDA_DEVICE_COUNT=2", NULL};
    result r = run_probe("x2_match", env, NULL);
    assert_success(&r);
    cJSON *j = r.json;
    assert_string_equal(str_at(j, "devices[0].pci_bus_id"), "00000000:00:06.0");
    assert_string_equal(str_at(j, "devices[1].pci_bus_id"), "00000000:00:07.0");
    assert_true(num_at(j, "devices[0].nvml_index") == 1);
    assert_true(num_at(j, "devices[1].nvml_index") == 0);
    assert_string_equal(str_at(j, "devices[0].uuid"), H100_UUID);
    assert_string_equal(str_at(j, "devices[0].serial"), "1652824024958");
    assert_true(num_at(j, "devices[0].memory.other_processes_bytes") == 0);
    assert_true(num_at(j, "devices[1].memory.other_processes_bytes") == 4608 * MIB);
    assert_true(num_at(j, "devices[1].memory.other_processes_count") == 1);
    assert_true(num_at(j, "devices[1].memory.used_bytes") == 4608 * MIB + H100_PROBE_SELF);
    /* context cost is the same on both GPUs only if NVML and CUDA numbers come from the same GPU */
    assert_true(num_at(j, "devices[0].memory.context_bytes") == H100_CONTEXT);
    assert_true(num_at(j, "devices[1].memory.context_bytes") == H100_CONTEXT);
    assert_true(bool_at(j, "peer_access[0][1]"));
    assert_true(bool_at(j, "peer_access[1][0]"));
    assert_false(bool_at(j, "peer_access[1][1]"));
    assert_string_equal(str_at(j, "topology[0][1]"), "numa_node");
    assert_string_equal(str_at(j, "nvlink[1].status"), "active");
    assert_true(num_at(j, "nvlink[1].active_links") == 18);
    result_free(&r);
}

static void test_device_selection(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_CUDA_DEVICE_COUNT=3", NULL};
    const char *args[] = {"--device", "2,1", NULL};
    result r = run_probe("select", env, args);
    assert_success(&r);
    cJSON *j = r.json;
    assert_int_equal(cJSON_GetArraySize(json_at(j, "devices")), 2);
    assert_true(num_at(j, "devices[0].index") == 2);
    assert_true(num_at(j, "devices[1].index") == 1);
    assert_string_equal(str_at(j, "devices[0].pci_bus_id"), "00000000:00:08.0");
    assert_true(num_at(j, "devices[1].memory.other_processes_bytes") == 4608 * MIB);
    assert_int_equal(cJSON_GetArraySize(json_at(j, "peer_access")), 2);
    assert_true(num_at(j, "nvlink[0].device") == 2);
    result_free(&r);
}

/* ================================================================== no_nvml */

static void test_no_nvml_fixture(void **state)
{
    (void)state;
    char proc[1100];
    snprintf(proc, sizeof proc, "VRAMPLAN_PROBE_PROC_DRIVER_VERSION=%s/proc-driver-nvidia-version.txt", g_fixtures);
    const char *env[] = {"VRAMPLAN_PROBE_LIBNVML=/nonexistent/libnvidia-ml.so.1", proc, NULL};
    const char *args[] = {"--redact", NULL};
    result r = run_probe("no_nvml", env, args);
    assert_success(&r);
    cJSON *j = r.json;
    assert_false(bool_at(j, "host.nvml"));
    assert_string_equal(str_at(j, "host.driver_version"), "580.159.04"); /* from /proc */
    /* what CUDA alone still gives */
    assert_true(num_at(j, "devices[0].memory.total_bytes") == 85017493504.0);
    assert_true(num_at(j, "devices[0].memory.free_bytes") == 84465090560.0);
    assert_true(num_at(j, "devices[0].max_mem_clock_mhz") == 2619);
    assert_true(num_at(j, "devices[0].max_sm_clock_mhz") == 1980);
    assert_true(num_at(j, "devices[0].peak_bandwidth_gbs") == 3352.3);
    assert_true(bool_at(j, "devices[0].ecc"));
    /* what needs NVML: null + reason */
    const char *nvml_fields[] = {"devices[0].memory.nvml_total_bytes", "devices[0].memory.reserved_bytes",
                                 "devices[0].memory.used_bytes",       "devices[0].memory.other_processes_bytes",
                                 "devices[0].memory.context_bytes",    "devices[0].power_limit_w",
                                 "devices[0].pcie.gen",                "devices[0].pcie.width",
                                 "devices[0].mig.enabled",             "nvlink[0].active_links"};
    for (size_t i = 0; i < sizeof nvml_fields / sizeof nvml_fields[0]; i++) {
        assert_null_at(j, nvml_fields[i]);
        assert_unavailable(j, nvml_fields[i], "NVML not found");
    }
    compare_fixture(j, "h100-no-nvml-fake.json", 1);
    result_free(&r);
}

static void test_no_nvml_uuid_from_cuda(void **state)
{
    (void)state;
    const char *env[] = {"VRAMPLAN_PROBE_LIBNVML=/nonexistent/libnvidia-ml.so.1", NULL};
    result r = run_probe("no_nvml_uuid", env, NULL);
    assert_success(&r);
    assert_string_equal(str_at(r.json, "devices[0].uuid"), H100_UUID); /* cuDeviceGetUuid_v2 bytes */
    assert_null_at(r.json, "devices[0].serial");
    assert_unavailable(r.json, "devices[0].serial", "NVML not found");
    assert_null_at(r.json, "host.driver_version");
    assert_unavailable(r.json, "host.driver_version", "/proc/driver/nvidia/version");
    result_free(&r);
}

static void test_nvml_init_fails(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_NVML_INIT_RESULT=9", NULL}; /* NVML_ERROR_DRIVER_NOT_LOADED */
    result r = run_probe("nvml_init", env, NULL);
    assert_success(&r);
    assert_false(bool_at(r.json, "host.nvml"));
    assert_unavailable(r.json, "devices[0].memory.reserved_bytes", "nvmlInit_v2 failed: NVML_ERROR_DRIVER_NOT_LOADED");
    result_free(&r);
}

/* ================================================================== degraded */

static void test_memory_info_v1_fallback(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_NVML_MEMORY_V2_RESULT=13", NULL}; /* NVML_ERROR_FUNCTION_NOT_FOUND */
    result r = run_probe("mem_v1", env, NULL);
    assert_success(&r);
    cJSON *j = r.json;
    assert_string_equal(str_at(j, "devices[0].memory.nvml_memory_api"), "v1");
    assert_true(num_at(j, "devices[0].memory.nvml_total_bytes") == 81559 * MIB);
    assert_true(num_at(j, "devices[0].memory.nvml_free_bytes") == H100_NVML_FREE);
    assert_true(num_at(j, "devices[0].memory.context_bytes") == H100_CONTEXT);
    assert_null_at(j, "devices[0].memory.reserved_bytes");
    assert_unavailable(j, "devices[0].memory.reserved_bytes", "NVML_ERROR_FUNCTION_NOT_FOUND");
    assert_null_at(j, "devices[0].memory.used_bytes");
    result_free(&r);
}

static void test_context_creation_fails(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_CUDA_CTX_RESULT=46", NULL}; /* CUDA_ERROR_DEVICE_UNAVAILABLE */
    result r = run_probe("ctx_fail", env, NULL);
    assert_success(&r);
    cJSON *j = r.json;
    assert_null_at(j, "devices[0].memory.free_bytes");
    assert_unavailable(j, "devices[0].memory.free_bytes", "CUDA_ERROR_DEVICE_UNAVAILABLE");
    assert_null_at(j, "devices[0].memory.context_bytes");
    assert_true(num_at(j, "devices[0].memory.total_bytes") == 85017493504.0);
    assert_true(num_at(j, "devices[0].memory.nvml_free_bytes") == H100_NVML_FREE);
    result_free(&r);
}

static void test_mig_instances(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_NVML_MIG=1", NULL};
    result r = run_probe("mig", env, NULL);
    assert_success(&r);
    cJSON *j = r.json;
    assert_true(bool_at(j, "devices[0].mig.enabled"));
    assert_int_equal(cJSON_GetArraySize(json_at(j, "devices[0].mig.instances")), 2);
    assert_string_equal(str_at(j, "devices[0].mig.instances[1].uuid"), "MIG-00000000-0000-4000-8000-000000000002");
    assert_true(num_at(j, "devices[0].mig.instances[0].total_bytes") == 40448 * MIB);
    assert_true(num_at(j, "devices[0].mig.instances[1].gpu_instance_id") == 2);
    result_free(&r);

    const char *args[] = {"--redact", NULL};
    r = run_probe("mig_redact", env, args);
    assert_success(&r);
    assert_null_at(r.json, "devices[0].mig.instances[0].uuid");
    result_free(&r);
}

/* ================================================================== flags */

static void test_version_and_help(void **state)
{
    (void)state;
    const char *a1[] = {"--version", NULL};
    result r = run_probe("version", NULL, a1);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "vramplan-probe 0.1.0"));
    result_free(&r);
    const char *a2[] = {"--help", NULL};
    r = run_probe("help", NULL, a2);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "usage: vramplan-probe"));
    assert_non_null(strstr(r.out, "--redact"));
    result_free(&r);
}

static void test_unredacted_has_ids_no_hostname(void **state)
{
    (void)state;
    result r = run_probe("ids", NULL, NULL);
    assert_success(&r);
    assert_false(bool_at(r.json, "redacted"));
    assert_string_equal(str_at(r.json, "devices[0].uuid"), H100_UUID);
    assert_string_equal(str_at(r.json, "devices[0].serial"), "1652824024958");
    assert_null(json_at(r.json, "host.hostname"));
    result_free(&r);
}

static void test_hostname_flag(void **state)
{
    (void)state;
    char hn[256];
    memset(hn, 0, sizeof hn);
    assert_int_equal(gethostname(hn, sizeof hn - 1), 0);
    const char *a1[] = {"--hostname", NULL};
    result r = run_probe("hostname", NULL, a1);
    assert_success(&r);
    assert_string_equal(str_at(r.json, "host.hostname"), hn);
    result_free(&r);

    const char *a2[] = {"--hostname", "--redact", NULL};
    r = run_probe("hostname_redact", NULL, a2);
    assert_success(&r);
    assert_null(json_at(r.json, "host.hostname"));
    assert_null(strstr(r.out, H100_UUID));
    assert_null(strstr(r.out, "1652824024958"));
    assert_true(bool_at(r.json, "redacted"));
    result_free(&r);
}

/* ================================================================== validate_cli */

static void test_validate_cli_fixtures(void **state)
{
    (void)state;
    const char *names[] = {REAL_FIXTURE, "h100-sxm-x2-fake.json", "h100-no-nvml-fake.json"};
    for (size_t i = 0; i < 3; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", g_fixtures, names[i]);
        const char *args[] = {"--validate", p, NULL};
        result r = run_probe("validate_ok", NULL, args);
        if (r.exit_code != 0) print_error("%s\n", r.err);
        assert_int_equal(r.exit_code, 0);
        assert_non_null(strstr(r.out, "valid vramplan/gpu-probe@1 document"));
        result_free(&r);
    }
}

static void test_validate_cli_rejects_bad_files(void **state)
{
    (void)state;
    struct {
        const char *file, *must_mention;
    } cases[] = {
        {"bad/truncated.json", "not valid JSON"},
        {"bad/hand-edited.json", "devices[0].memory.total_bytes: expected an integer >= 0 or null, got a string"},
        {"bad/hand-edited.json", "devices[0].l2_bytes: required field is missing"},
        {"bad/hand-edited.json", "devices[0].supports.fp8: false contradicts compute_capability"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", g_fixtures, cases[i].file);
        const char *args[] = {"--validate", p, NULL};
        result r = run_probe("validate_bad", NULL, args);
        assert_int_equal(r.exit_code, 1);
        if (!strstr(r.err, cases[i].must_mention))
            fail_msg("--validate %s: stderr does not mention \"%s\":\n%s", cases[i].file, cases[i].must_mention, r.err);
        result_free(&r);
    }
    const char *args[] = {"--validate", "/nonexistent/file.json", NULL};
    result r = run_probe("validate_missing", NULL, args);
    assert_int_equal(r.exit_code, 8);
    result_free(&r);
}

/* ================================================================== hostile
 * A broken or hostile driver (FAKE_GPU_HOSTILE, fake_gpu_table.h) must never make the probe write a
 * file that its own --validate rejects, that is not strict UTF-8, or that the planner cannot read. */

#define PLANNER_MAX_BYTES 17592186044416.0 /* 2^44, MAX_GPU_BYTES in core/src/gpu.c */
#define PLANNER_MAX_NAME 95                /* core/src/gpu.h: vp_gpu.name[96] */
#define U_FFFD "\xEF\xBF\xBD"

/* Offset of the first byte that is not well-formed UTF-8 (RFC 3629), or n. Decoded here, not taken
 * from the probe, so that the test does not trust the code it tests. */
static size_t first_bad_utf8(const unsigned char *s, size_t n)
{
    static const unsigned min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i], cp;
        size_t len;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07;
        else return i;
        if (i + len > n) return i;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += len;
    }
    return n;
}

/* the first JSON number in text written with an exponent ("1.8446744073709552e+19"), or NULL */
static const char *exponent_number(const char *t)
{
    int in_str = 0;
    for (const char *p = t; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') in_str = 0;
            continue;
        }
        if (*p == '"') in_str = 1;
        else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            const char *q = p;
            while (*q && strchr("0123456789.eE+-", *q)) q++;
            for (const char *e = p; e < q; e++)
                if (*e == 'e' || *e == 'E') return p;
            p = q - 1;
        }
    }
    return NULL;
}

/* every "*_bytes" number is a whole number the planner accepts */
static void assert_byte_counts_plannable(const cJSON *item)
{
    for (; item; item = item->next) {
        size_t kl = item->string ? strlen(item->string) : 0;
        if (cJSON_IsNumber(item) && kl > 6 && strcmp(item->string + kl - 6, "_bytes") == 0) {
            double v = item->valuedouble;
            if (!(v >= 0 && v <= PLANNER_MAX_BYTES && v == (double)(long long)v))
                fail_msg("%s = %.17g is not a byte count the planner accepts", item->string, v);
        }
        if (item->child) assert_byte_counts_plannable(item->child);
    }
}

/* Runs the probe with --output, then `vramplan-probe --validate` on that file; checks the exit code,
 * the validator's verdict, strict UTF-8, integer byte counts and the planner's limits. Returns the
 * parsed document (caller deletes). */
static cJSON *run_hostile(const char *tag, const char *const *env, const char *const *args, int want_exit)
{
    char out[1024];
    snprintf(out, sizeof out, "%s/hostile-%s.json", g_outdir, tag);
    unlink(out);
    const char *argv[16];
    int k = 0;
    for (; args && args[k] && k < 12; k++) argv[k] = args[k];
    argv[k++] = "--output";
    argv[k++] = out;
    argv[k] = NULL;
    result r = run_probe(tag, env, argv);
    if (r.exit_code != want_exit) fail_msg("%s: exit %d, expected %d; stderr:\n%s", tag, r.exit_code, want_exit, r.err);
    result_free(&r);

    const char *vargs[] = {"--validate", out, NULL};
    r = run_probe("hostile_validate", NULL, vargs);
    if (r.exit_code != 0 || !strstr(r.out, "valid vramplan/gpu-probe@1"))
        fail_msg("%s: --validate rejects the probe's own output (exit %d):\n%s", tag, r.exit_code, r.err);
    result_free(&r);

    size_t len = 0;
    char *text = read_file(out, &len);
    assert_non_null(text);
    size_t bad = first_bad_utf8((const unsigned char *)text, len);
    if (bad != len) fail_msg("%s: output is not UTF-8 at byte %zu", tag, bad);
    const char *e = exponent_number(text);
    if (e) fail_msg("%s: a number is written with an exponent: %.30s", tag, e);
    assert_valid_doc(text, want_exit != 0);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    assert_byte_counts_plannable(j);
    cJSON *name;
    cJSON_ArrayForEach(name, json_at(j, "devices"))
    {
        cJSON *n = cJSON_GetObjectItemCaseSensitive(name, "name");
        if (cJSON_IsString(n) && strlen(n->valuestring) > PLANNER_MAX_NAME)
            fail_msg("%s: name of %zu bytes, longer than the planner reads", tag, strlen(n->valuestring));
    }
    return j;
}

/* every variant, with 1 and 2 GPUs, with and without MIG, pretty / redacted / with the host name */
static void test_hostile_matrix(void **state)
{
    (void)state;
    const char *variants[] = {"free_gt_total", "huge", "strings", "negative"};
    /* each row NULL-terminated with room to spare, so gcc -O3's bounds analysis of run_hostile's
     * copy loop (up to 12 arguments) sees no read past a row */
    const char *flags[][13] = {{"--pretty", NULL}, {"--redact", NULL}, {"--hostname", NULL}};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
        for (int n = 1; n <= 2; n++)
            for (int mig = 0; mig <= 1; mig++)
                for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
                    char h[64], c[64], tag[96];
                    snprintf(h, sizeof h, "FAKE_GPU_HOSTILE=%s", variants[v]);
                    snprintf(c, sizeof c, "FAKE_CUDA_DEVICE_COUNT=%d", n);
                    snprintf(tag, sizeof tag, "%s-x%d-mig%d%s", variants[v], n, mig, flags[f][0]);
                    const char *env[] = {h, c, mig ? "FAKE_NVML_MIG=1" : "FAKE_NVML_MIG", NULL};
                    cJSON *j = run_hostile(tag, env, flags[f], 0);
                    assert_int_equal(cJSON_GetArraySize(json_at(j, "devices")), n);
                    cJSON_Delete(j);
                }
}

static void test_hostile_free_larger_than_total(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_GPU_HOSTILE=free_gt_total", "FAKE_NVML_MIG=1", NULL};
    cJSON *j = run_hostile("free_gt_total", env, NULL, 0);
    /* CUDA's total is kept (the planner needs it); what contradicts it becomes null + reason */
    assert_true(num_at(j, "devices[0].memory.total_bytes") == 85017493504.0);
    assert_null_at(j, "devices[0].memory.free_bytes");
    assert_unavailable(j, "devices[0].memory.free_bytes", "more than total_bytes 85017493504");
    const char *nvml[] = {"nvml_total_bytes", "nvml_free_bytes", "reserved_bytes", "used_bytes", "context_bytes"};
    for (size_t i = 0; i < sizeof nvml / sizeof nvml[0]; i++) {
        char p[96];
        snprintf(p, sizeof p, "devices[0].memory.%s", nvml[i]);
        assert_null_at(j, p);
        assert_unavailable(j, p, "impossible numbers (total 42949672960, free 107374182400");
    }
    assert_null_at(j, "devices[0].mig.instances[0].free_bytes");
    assert_unavailable(j, "devices[0].mig.instances[0].free_bytes", "larger than total");
    assert_true(num_at(j, "devices[0].mig.instances[0].total_bytes") == 1073741824.0);
    cJSON_Delete(j);
}

static void test_hostile_huge_values(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_GPU_HOSTILE=huge", "FAKE_NVML_MIG=1", NULL};
    cJSON *j = run_hostile("huge", env, NULL, 0);
    const char *mem[] = {"total_bytes",          "free_bytes",            "nvml_total_bytes", "nvml_free_bytes",
                         "reserved_bytes",       "used_bytes",            "other_processes_bytes",
                         "context_bytes"};
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++) {
        char p[96];
        snprintf(p, sizeof p, "devices[0].memory.%s", mem[i]);
        assert_null_at(j, p);
        assert_unavailable(j, p, NULL);
    }
    assert_unavailable(j, "devices[0].memory.total_bytes", "18446744073709551615 bytes, not a memory size");
    assert_unavailable(j, "devices[0].memory.other_processes_bytes", "18446744073709551614 bytes");
    assert_null_at(j, "devices[0].mig.instances[0].total_bytes");
    assert_unavailable(j, "devices[0].mig.instances[0].total_bytes", "more than 2^44");
    /* 0xFFFFFFFF MHz x INT_MAX bits: reported as the driver says, but no bandwidth from them */
    assert_true(num_at(j, "devices[0].max_mem_clock_mhz") == 4294967295.0);
    assert_true(num_at(j, "devices[0].bus_width_bits") == 2147483647.0);
    assert_null_at(j, "devices[0].peak_bandwidth_gbs");
    assert_unavailable(j, "devices[0].peak_bandwidth_gbs", "not a plausible bandwidth");
    cJSON_Delete(j);
}

static void test_hostile_strings(void **state)
{
    (void)state;
    /* fake_hostile_name(): each maximal ill-formed subpart -> one U+FFFD; cut before the "€" that would
     * end at byte 96 */
    char want[128];
    snprintf(want, sizeof want, "%s%s%s%s%s%s%s%s", "NVIDIA H100 80GB HBM3 ", U_FFFD "\xC3\xBC", U_FFFD U_FFFD,
             U_FFFD U_FFFD U_FFFD, U_FFFD U_FFFD U_FFFD U_FFFD, U_FFFD "x", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "");
    assert_int_equal(strlen(want), 93);
    const char *env[] = {"FAKE_GPU_HOSTILE=strings", "FAKE_CUDA_DEVICE_COUNT=2", NULL};
    cJSON *j = run_hostile("strings", env, NULL, 0);
    assert_string_equal(str_at(j, "devices[0].name"), want);
    assert_null_at(j, "devices[1].name");
    assert_unavailable(j, "devices[1].name", "empty name");
    assert_string_equal(str_at(j, "host.driver_version"), "580.159.04" U_FFFD U_FFFD);
    assert_string_equal(str_at(j, "devices[0].serial"), "16528" U_FFFD "24958");
    assert_string_equal(str_at(j, "devices[0].uuid"), "GPU-" U_FFFD U_FFFD "f9f19e8f-205d-4509-0fc1-cd97e6572cf4");
    int cut = 0, replaced = 0;
    cJSON *w;
    cJSON_ArrayForEach(w, json_at(j, "warnings"))
    {
        cut |= strstr(w->valuestring, "devices[0].name: the driver's name (254 bytes) was cut to 93 bytes") != NULL;
        replaced |= strstr(w->valuestring, "devices[0].name: the driver's name is not valid UTF-8") != NULL;
    }
    assert_true(cut);
    assert_true(replaced);
    cJSON_Delete(j);

    /* a driver error name that is not UTF-8, in a reason */
    const char *env2[] = {"FAKE_GPU_HOSTILE=strings", "FAKE_CUDA_CTX_RESULT=46", NULL};
    j = run_hostile("strings_ctx", env2, NULL, 0);
    assert_unavailable(j, "devices[0].memory.free_bytes", "cuCtxCreate_v2: CUDA_ERROR_" U_FFFD U_FFFD U_FFFD);
    cJSON_Delete(j);

    /* an error document whose message quotes a library path that is not UTF-8 */
    const char *env3[] = {"VRAMPLAN_PROBE_LIBCUDA=/nonexistent/\xff\xfe/libcuda.so.1", NULL};
    j = run_hostile("strings_path", env3, NULL, 3);
    assert_string_equal(str_at(j, "error.code"), "no_driver");
    assert_non_null(strstr(str_at(j, "error.message"), "/nonexistent/" U_FFFD U_FFFD "/libcuda.so.1"));
    cJSON_Delete(j);
}

static void test_hostile_negative_values(void **state)
{
    (void)state;
    const char *env[] = {"FAKE_GPU_HOSTILE=negative", NULL};
    cJSON *j = run_hostile("negative", env, NULL, 0);
    const char *nulls[] = {"devices[0].compute_capability", "devices[0].sm_count",         "devices[0].l2_bytes",
                           "devices[0].bus_width_bits",     "devices[0].max_mem_clock_mhz", "devices[0].max_sm_clock_mhz",
                           "devices[0].peak_bandwidth_gbs"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++) {
        assert_null_at(j, nulls[i]);
        assert_unavailable(j, nulls[i], NULL);
    }
    assert_null_at(j, "devices[0].supports.fp8");
    assert_string_equal(str_at(j, "devices[0].compute_mode"), "unknown");
    cJSON_Delete(j);

    /* host.cuda_driver_version is a required integer >= 0: a negative one is an init failure */
    const char *env2[] = {"FAKE_CUDA_DRIVER_VERSION=-1", NULL};
    j = run_hostile("negative_version", env2, NULL, 7);
    assert_string_equal(str_at(j, "error.code"), "init_failed");
    assert_non_null(strstr(str_at(j, "error.message"), "cuDriverGetVersion returned -1"));
    cJSON_Delete(j);
}

/* ================================================================== main */

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: %s GROUP PROBE FAKECUDA FAKENVML FAKECUDA_OLD FIXTURES_DIR OUT_DIR\n", argv[0]);
        return 2;
    }
    const char *group = argv[1];
    g_probe = argv[2];
    g_fakecuda = argv[3];
    g_fakenvml = argv[4];
    g_fakecuda_old = argv[5];
    g_fixtures = argv[6];
    g_outdir = argv[7];
    if (mkdir(g_outdir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s: %s\n", g_outdir, strerror(errno));
        return 2;
    }

    const struct CMUnitTest no_driver[] = {
        cmocka_unit_test(test_no_driver_missing_library),
        cmocka_unit_test(test_no_driver_written_to_output_file),
        cmocka_unit_test(test_no_driver_stub_library),
    };
    const struct CMUnitTest errors[] = {
        cmocka_unit_test(test_no_gpu),           cmocka_unit_test(test_permission_denied),
        cmocka_unit_test(test_driver_too_old_init), cmocka_unit_test(test_driver_too_old_missing_symbol),
        cmocka_unit_test(test_init_failed),      cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_device_out_of_range), cmocka_unit_test(test_io_error),
    };
    const struct CMUnitTest h100_fixture[] = {
        cmocka_unit_test(test_h100_matches_real_probe_output),
        cmocka_unit_test(test_h100_compact_equals_pretty),
        cmocka_unit_test(test_h100_key_values),
    };
    const struct CMUnitTest multi_gpu[] = {
        cmocka_unit_test(test_two_gpus_fixture),
        cmocka_unit_test(test_two_gpus_matched_by_pci_bus_id),
        cmocka_unit_test(test_device_selection),
    };
    const struct CMUnitTest no_nvml[] = {
        cmocka_unit_test(test_no_nvml_fixture),
        cmocka_unit_test(test_no_nvml_uuid_from_cuda),
        cmocka_unit_test(test_nvml_init_fails),
    };
    const struct CMUnitTest degraded[] = {
        cmocka_unit_test(test_memory_info_v1_fallback),
        cmocka_unit_test(test_context_creation_fails),
        cmocka_unit_test(test_mig_instances),
    };
    const struct CMUnitTest flags[] = {
        cmocka_unit_test(test_version_and_help),
        cmocka_unit_test(test_unredacted_has_ids_no_hostname),
        cmocka_unit_test(test_hostname_flag),
    };
    const struct CMUnitTest hostile[] = {
        cmocka_unit_test(test_hostile_matrix),
        cmocka_unit_test(test_hostile_free_larger_than_total),
        cmocka_unit_test(test_hostile_huge_values),
        cmocka_unit_test(test_hostile_strings),
        cmocka_unit_test(test_hostile_negative_values),
    };
    const struct CMUnitTest validate_cli[] = {
        cmocka_unit_test(test_validate_cli_fixtures),
        cmocka_unit_test(test_validate_cli_rejects_bad_files),
    };

    if (!strcmp(group, "no_driver")) return cmocka_run_group_tests_name("probe_no_driver", no_driver, NULL, NULL);
    if (!strcmp(group, "errors")) return cmocka_run_group_tests_name("probe_errors", errors, NULL, NULL);
    if (!strcmp(group, "h100_fixture")) return cmocka_run_group_tests_name("probe_h100_fixture", h100_fixture, NULL, NULL);
    if (!strcmp(group, "multi_gpu")) return cmocka_run_group_tests_name("probe_multi_gpu", multi_gpu, NULL, NULL);
    if (!strcmp(group, "no_nvml")) return cmocka_run_group_tests_name("probe_no_nvml", no_nvml, NULL, NULL);
    if (!strcmp(group, "degraded")) return cmocka_run_group_tests_name("probe_degraded", degraded, NULL, NULL);
    if (!strcmp(group, "flags")) return cmocka_run_group_tests_name("probe_flags", flags, NULL, NULL);
    if (!strcmp(group, "validate_cli")) return cmocka_run_group_tests_name("probe_validate_cli", validate_cli, NULL, NULL);
    if (!strcmp(group, "hostile")) return cmocka_run_group_tests_name("probe_hostile", hostile, NULL, NULL);
    fprintf(stderr, "unknown group %s\n", group);
    return 2;
}
