/*
 * test_probe_fixture_nvsmi.c - the H100 fixture agrees with what nvidia-smi and torch reported on
 * that GPU (H100 80GB HBM3, driver 580.159.04, CUDA 13.0).
 *
 * usage: test_probe_fixture_nvsmi FIXTURE [GROUNDTRUTH_DIR]
 *
 * The values quoted below are from /work/shared/groundtruth/probe/ (h100-query.csv,
 * h100-nvidia-smi-q.txt/.xml, h100-torch-props.json). When GROUNDTRUTH_DIR holds those files the
 * test also parses them and compares field by field; when it does not (e.g. CI without the shared
 * folder) those comparisons are skipped and only the quoted values are checked.
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

#define MIB 1048576.0

static const char *g_fixture, *g_gt_dir;

/* strtod, not atof: out-of-range input is defined behaviour */
static double to_num(const char *s) { return strtod(s, NULL); }
static cJSON *g_doc;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

static const cJSON *dev0(const char *key)
{
    const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g_doc, "devices"), 0);
    const cJSON *v = d;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", key);
    for (char *tok = strtok(buf, "."); tok && v; tok = strtok(NULL, ".")) v = cJSON_GetObjectItemCaseSensitive(v, tok);
    if (!v) fail_msg("fixture has no devices[0].%s", key);
    return v;
}

static double num(const char *key)
{
    const cJSON *v = dev0(key);
    if (!cJSON_IsNumber(v)) fail_msg("devices[0].%s is not a number", key);
    return v->valuedouble;
}

static const char *str(const char *key)
{
    const cJSON *v = dev0(key);
    if (!cJSON_IsString(v)) fail_msg("devices[0].%s is not a string", key);
    return v->valuestring;
}

static int setup(void **state)
{
    (void)state;
    char *t = slurp(g_fixture);
    if (!t) return -1;
    g_doc = cJSON_Parse(t);
    free(t);
    return g_doc ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cJSON_Delete(g_doc);
    return 0;
}

/* h100-query.csv: "0, NVIDIA H100 80GB HBM3, GPU-..., 00000000:00:06.0, 81559 MiB, 0 MiB, 81079 MiB, 480 MiB,
 * 9.0, 580.159.04, 2619 MHz, 1980 MHz, 700.00 W, Enabled, Disabled" */
static void test_quoted_nvidia_smi_values(void **state)
{
    (void)state;
    assert_true(num("memory.nvml_total_bytes") == 81559 * MIB);
    assert_true(num("memory.reserved_bytes") == 480 * MIB);
    assert_true(num("memory.used_bytes") == 0);
    assert_true(num("memory.nvml_free_bytes") == 81079 * MIB);
    assert_string_equal(str("compute_capability"), "9.0");
    assert_true(num("bus_width_bits") == 5120);
    assert_true(num("max_mem_clock_mhz") == 2619);
    assert_true(num("max_sm_clock_mhz") == 1980);
    assert_true(num("power_limit_w") == 700);
    assert_true(num("pcie.gen") == 5);
    assert_true(num("pcie.width") == 16);
    assert_true(cJSON_IsTrue(dev0("ecc")));
    assert_true(cJSON_IsFalse(dev0("mig.enabled")));
    assert_string_equal(str("compute_mode"), "default");
    assert_string_equal(str("name"), "NVIDIA H100 80GB HBM3");
    assert_string_equal(str("pci_bus_id"), "00000000:00:06.0");
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(g_doc, "host");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(host, "driver_version")->valuestring, "580.159.04");
    assert_true(cJSON_GetObjectItemCaseSensitive(host, "cuda_driver_version")->valuedouble == 13000); /* "CUDA Version 13.0" */
    /* redacted: no UUID / serial */
    assert_true(cJSON_IsNull(dev0("uuid")));
    assert_true(cJSON_IsNull(dev0("serial")));
}

/* torch.cuda.get_device_properties / mem_get_info of the same GPU, and memory-facts 9.4 */
static void test_quoted_torch_values(void **state)
{
    (void)state;
    assert_true(num("memory.total_bytes") == 85017493504.0);
    assert_true(num("memory.free_bytes") == 84465090560.0);
    assert_true(num("sm_count") == 132);
    assert_true(num("l2_bytes") == 52428800);
    /* NVML: total = reserved + used + free; CUDA total = NVML total - reserved */
    assert_true(num("memory.nvml_total_bytes") ==
                num("memory.reserved_bytes") + num("memory.used_bytes") + num("memory.nvml_free_bytes"));
    assert_true(num("memory.total_bytes") == num("memory.nvml_total_bytes") - num("memory.reserved_bytes"));
    /* context = NVML free before - CUDA free inside the context */
    assert_true(num("memory.context_bytes") == num("memory.nvml_free_bytes") - num("memory.free_bytes"));
    /* memory-facts 9.4: 2 x 2619 MHz x 5120 / 8 = 3352 GB/s */
    assert_true(num("peak_bandwidth_gbs") == 3352.3);
}

/* ---------------------------------------------------------------- the raw files, when present */

static void gt_path(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", g_gt_dir, name); }

static void trim(char *s)
{
    size_t a = 0, n = strlen(s);
    while (s[a] == ' ' || s[a] == '\t') a++;
    while (n > a && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\t')) n--;
    memmove(s, s + a, n - a);
    s[n - a] = '\0';
}

/* split a CSV line at ", " */
static int split_csv(char *line, char **cols, int max)
{
    int n = 0;
    char *p = line;
    while (p && n < max) {
        char *c = strchr(p, ',');
        if (c) *c = '\0';
        trim(p);
        cols[n++] = p;
        p = c ? c + 1 : NULL;
    }
    return n;
}

static const char *csv_col(char **hdr, char **val, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(hdr[i], name) == 0) return val[i];
    fail_msg("h100-query.csv has no column %s", name);
    return NULL;
}

static void test_groundtruth_query_csv(void **state)
{
    (void)state;
    char p[1024];
    gt_path(p, sizeof p, "h100-query.csv");
    char *t = slurp(p);
    if (!t) {
        print_message("skipping: %s not found\n", p);
        skip();
    }
    char *nl = strchr(t, '\n');
    assert_non_null(nl);
    *nl = '\0';
    char *hdr[32], *val[32];
    int nh = split_csv(t, hdr, 32);
    int nv = split_csv(nl + 1, val, 32);
    assert_int_equal(nh, nv);
    assert_true(to_num(csv_col(hdr, val, nh, "memory.total [MiB]")) * MIB == num("memory.nvml_total_bytes"));
    assert_true(to_num(csv_col(hdr, val, nh, "memory.reserved [MiB]")) * MIB == num("memory.reserved_bytes"));
    assert_true(to_num(csv_col(hdr, val, nh, "memory.used [MiB]")) * MIB == num("memory.used_bytes"));
    assert_true(to_num(csv_col(hdr, val, nh, "memory.free [MiB]")) * MIB == num("memory.nvml_free_bytes"));
    assert_string_equal(csv_col(hdr, val, nh, "compute_cap"), str("compute_capability"));
    assert_string_equal(csv_col(hdr, val, nh, "name"), str("name"));
    assert_string_equal(csv_col(hdr, val, nh, "pci.bus_id"), str("pci_bus_id"));
    assert_true(to_num(csv_col(hdr, val, nh, "clocks.max.memory [MHz]")) == num("max_mem_clock_mhz"));
    assert_true(to_num(csv_col(hdr, val, nh, "clocks.max.sm [MHz]")) == num("max_sm_clock_mhz"));
    assert_true(to_num(csv_col(hdr, val, nh, "power.limit [W]")) == num("power_limit_w"));
    assert_string_equal(csv_col(hdr, val, nh, "ecc.mode.current"), cJSON_IsTrue(dev0("ecc")) ? "Enabled" : "Disabled");
    assert_string_equal(csv_col(hdr, val, nh, "mig.mode.current"),
                        cJSON_IsTrue(dev0("mig.enabled")) ? "Enabled" : "Disabled");
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(g_doc, "host");
    assert_string_equal(csv_col(hdr, val, nh, "driver_version"),
                        cJSON_GetObjectItemCaseSensitive(host, "driver_version")->valuestring);
    free(t);
}

static double torch_num(const cJSON *tp, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(tp, key);
    if (cJSON_IsNumber(v)) return v->valuedouble;
    if (cJSON_IsString(v)) return to_num(v->valuestring); /* the dump stores most values as strings */
    fail_msg("h100-torch-props.json has no %s", key);
    return 0;
}

static void test_groundtruth_torch_props(void **state)
{
    (void)state;
    char p[1024];
    gt_path(p, sizeof p, "h100-torch-props.json");
    char *t = slurp(p);
    if (!t) {
        print_message("skipping: %s not found\n", p);
        skip();
    }
    cJSON *tp = cJSON_Parse(t);
    free(t);
    assert_non_null(tp);
    assert_true(torch_num(tp, "total_memory") == num("memory.total_bytes"));
    assert_true(torch_num(tp, "mem_total") == num("memory.total_bytes"));
    assert_true(torch_num(tp, "mem_free") == num("memory.free_bytes"));
    assert_true(torch_num(tp, "multi_processor_count") == num("sm_count"));
    assert_true(torch_num(tp, "memory_bus_width") == num("bus_width_bits"));
    assert_true(torch_num(tp, "memory_clock_rate") / 1000.0 == num("max_mem_clock_mhz"));
    assert_true(torch_num(tp, "clock_rate") / 1000.0 == num("max_sm_clock_mhz"));
    assert_true(torch_num(tp, "L2_cache_size") == num("l2_bytes"));
    char cc[16];
    snprintf(cc, sizeof cc, "%.0f.%.0f", torch_num(tp, "major"), torch_num(tp, "minor"));
    assert_string_equal(cc, str("compute_capability"));
    assert_true(torch_num(tp, "is_integrated") == (cJSON_IsTrue(dev0("integrated")) ? 1 : 0));
    cJSON_Delete(tp);
}

/* value of <tag> after the first occurrence of <section> in the nvidia-smi -q XML */
static int xml_value(const char *xml, const char *section, const char *tag, char *out, size_t n)
{
    const char *s = section ? strstr(xml, section) : xml;
    if (!s) return -1;
    char open[64];
    snprintf(open, sizeof open, "<%s>", tag);
    const char *a = strstr(s, open);
    if (!a) return -1;
    a += strlen(open);
    const char *b = strchr(a, '<');
    if (!b || (size_t)(b - a) >= n) return -1;
    memcpy(out, a, (size_t)(b - a));
    out[b - a] = '\0';
    return 0;
}

static void test_groundtruth_nvidia_smi_xml(void **state)
{
    (void)state;
    char p[1024], v[128];
    gt_path(p, sizeof p, "h100-nvidia-smi-q.xml");
    char *x = slurp(p);
    if (!x) {
        print_message("skipping: %s not found\n", p);
        skip();
    }
    assert_int_equal(xml_value(x, "<fb_memory_usage>", "total", v, sizeof v), 0);
    assert_true(to_num(v) * MIB == num("memory.nvml_total_bytes")); /* "81559 MiB" */
    assert_int_equal(xml_value(x, "<fb_memory_usage>", "reserved", v, sizeof v), 0);
    assert_true(to_num(v) * MIB == num("memory.reserved_bytes"));
    assert_int_equal(xml_value(x, "<fb_memory_usage>", "free", v, sizeof v), 0);
    assert_true(to_num(v) * MIB == num("memory.nvml_free_bytes"));
    assert_int_equal(xml_value(x, "<pci>", "pci_bus_id", v, sizeof v), 0);
    assert_string_equal(v, str("pci_bus_id"));
    assert_int_equal(xml_value(x, NULL, "max_link_gen", v, sizeof v), 0);
    assert_true(to_num(v) == num("pcie.gen"));
    assert_int_equal(xml_value(x, NULL, "max_link_width", v, sizeof v), 0);
    assert_true(to_num(v) == num("pcie.width")); /* "16x" */
    assert_int_equal(xml_value(x, NULL, "compute_mode", v, sizeof v), 0);
    assert_string_equal(v, "Default");
    assert_int_equal(xml_value(x, "<max_clocks>", "mem_clock", v, sizeof v), 0);
    assert_true(to_num(v) == num("max_mem_clock_mhz"));
    assert_int_equal(xml_value(x, "<max_clocks>", "sm_clock", v, sizeof v), 0);
    assert_true(to_num(v) == num("max_sm_clock_mhz"));
    assert_int_equal(xml_value(x, "<ecc_mode>", "current_ecc", v, sizeof v), 0);
    assert_string_equal(v, "Enabled");
    assert_int_equal(xml_value(x, "<mig_mode>", "current_mig", v, sizeof v), 0);
    assert_string_equal(v, "Disabled");
    assert_int_equal(xml_value(x, NULL, "current_power_limit", v, sizeof v), 0);
    assert_true(to_num(v) == num("power_limit_w"));
    assert_int_equal(xml_value(x, NULL, "driver_version", v, sizeof v), 0);
    assert_string_equal(v, "580.159.04");
    assert_int_equal(xml_value(x, NULL, "cuda_version", v, sizeof v), 0);
    assert_string_equal(v, "13.0");
    free(x);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s FIXTURE [GROUNDTRUTH_DIR]\n", argv[0]);
        return 2;
    }
    g_fixture = argv[1];
    g_gt_dir = argc == 3 ? argv[2] : "/nonexistent";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quoted_nvidia_smi_values),   cmocka_unit_test(test_quoted_torch_values),
        cmocka_unit_test(test_groundtruth_query_csv),      cmocka_unit_test(test_groundtruth_torch_props),
        cmocka_unit_test(test_groundtruth_nvidia_smi_xml),
    };
    return cmocka_run_group_tests_name("probe_fixture_vs_nvidia_smi", tests, setup, teardown);
}
