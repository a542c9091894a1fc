/*
 * test_probe_fixture_nvsmi.c - the probe's real output on the H100 (80GB HBM3, driver 580.159.04,
 * CUDA 13.0; tests/probe/fixtures/h100-sxm-probe-2026-11-23.json) agrees with what nvidia-smi and
 * torch reported on that GPU the day before (/work/shared/groundtruth/probe/, 2026-11-22).
 *
 * usage: test_probe_fixture_nvsmi FIXTURE [GROUNDTRUTH_DIR]
 *
 * Totals, clocks, bus width, compute capability, SMs, L2, power, PCIe, ECC/MIG modes, names and
 * versions must be equal. Free and used memory differ by the probe's own footprint (see
 * PROBE_SELF_BYTES) and nothing more than nvidia-smi's rounding to whole MiB.
 *
 * The nvidia-smi/torch values are quoted below (QUOTED_SMI, QUOTED_TORCH). When GROUNDTRUTH_DIR holds
 * the raw files, the test also parses them, checks the quotes against them and the fixture against
 * what they say; when it does not (e.g. CI without the shared folder) those tests are skipped.
 * test_detects_mismatches edits the fixture to prove each check fails on a real mismatch.
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

/* What the probe's own process holds when it reads NVML (after cuInit, before its context):
 * 3,407,872 B (3.25 MiB). On 2026-11-22 nvidia-smi, with no CUDA process running, showed 0 MiB used
 * and 81079 MiB free; on 2026-11-23 the probe read used 3,407,872 B and free 85,014,085,632 B
 * = 81079 MiB - 3,407,872. Its context_bytes (548,995,072) is therefore that much below the context
 * cost nvidia-smi and torch give (81079 MiB - torch mem_free 84,465,090,560 = 552,402,944). */
#define PROBE_SELF_BYTES 3407872.0
/* nvidia-smi prints memory in whole MiB */
#define SMI_ROUNDING MIB

typedef struct { /* nvidia-smi --query-gpu / -q */
    double total_mib, reserved_mib, used_mib, free_mib, mem_clock_mhz, sm_clock_mhz, power_w, pcie_gen, pcie_width;
    const char *name, *pci_bus_id, *compute_cap, *driver, *ecc, *mig, *compute_mode, *cuda_version;
} smi_values;

typedef struct { /* torch.cuda.get_device_properties() and mem_get_info() */
    double total_memory, mem_free, sm_count, bus_width, mem_clock_khz, clock_khz, l2, major, minor, integrated;
} torch_values;

/* h100-query.csv: "0, NVIDIA H100 80GB HBM3, GPU-..., 00000000:00:06.0, 81559 MiB, 0 MiB, 81079 MiB,
 * 480 MiB, 9.0, 580.159.04, 2619 MHz, 1980 MHz, 700.00 W, Enabled, Disabled"; h100-nvidia-smi-q.txt:
 * PCIe Generation Max 5, Link Width Max 16x, Compute Mode Default, CUDA Version 13.0 */
static const smi_values QUOTED_SMI = {81559, 480, 0, 81079, 2619, 1980, 700, 5, 16, "NVIDIA H100 80GB HBM3",
                                      "00000000:00:06.0", "9.0", "580.159.04", "Enabled", "Disabled", "Default",
                                      "13.0"};
/* h100-torch-props.json */
static const torch_values QUOTED_TORCH = {85017493504.0, 84465090560.0, 132, 5120, 2619000, 1980000, 52428800, 9, 0, 0};

static const char *g_fixture, *g_gt_dir;
static cJSON *g_doc;

/* strtod, not atof: out-of-range input is defined behaviour */
static double to_num(const char *s) { return strtod(s, NULL); }

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

/* ---------------------------------------------------------------- reading the fixture */

static const cJSON *at(const cJSON *doc, const char *key) /* "host.x" or a key under devices[0] */
{
    const cJSON *v = doc;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", key);
    if (strncmp(key, "host.", 5) != 0) v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "devices"), 0);
    for (char *tok = strtok(buf, "."); tok && v; tok = strtok(NULL, ".")) v = cJSON_GetObjectItemCaseSensitive(v, tok);
    return v;
}

/* ---------------------------------------------------------------- checks: each returns its problems */

static int check_num(const cJSON *doc, const char *key, double want, double tol)
{
    const cJSON *v = at(doc, key);
    if (!cJSON_IsNumber(v)) {
        print_message("MISMATCH %s: not a number in the fixture\n", key);
        return 1;
    }
    double d = v->valuedouble - want;
    if (d > tol || d < -tol) {
        print_message("MISMATCH %s: fixture %.0f, expected %.0f (tolerance %.0f)\n", key, v->valuedouble, want, tol);
        return 1;
    }
    return 0;
}

static int check_str(const cJSON *doc, const char *key, const char *want)
{
    const cJSON *v = at(doc, key);
    if (!cJSON_IsString(v) || strcmp(v->valuestring, want) != 0) {
        print_message("MISMATCH %s: fixture %s, expected \"%s\"\n", key, cJSON_IsString(v) ? v->valuestring : "(not a string)",
                      want);
        return 1;
    }
    return 0;
}

static int check_bool(const cJSON *doc, const char *key, const char *smi_word) /* "Enabled" / "Disabled" */
{
    const cJSON *v = at(doc, key);
    int want = strcmp(smi_word, "Enabled") == 0;
    if (!cJSON_IsBool(v) || cJSON_IsTrue(v) != want) {
        print_message("MISMATCH %s: nvidia-smi says %s\n", key, smi_word);
        return 1;
    }
    return 0;
}

/* the fixture against nvidia-smi (another day, no CUDA process) */
static int check_vs_smi(const cJSON *doc, const smi_values *s)
{
    int p = 0;
    /* exact: NVML's total and reserved memory do not depend on who runs */
    p += check_num(doc, "memory.nvml_total_bytes", s->total_mib * MIB, 0);
    p += check_num(doc, "memory.reserved_bytes", s->reserved_mib * MIB, 0);
    /* NVML used / free: nvidia-smi's, shifted by the probe's own footprint, within nvidia-smi's MiB rounding */
    p += check_num(doc, "memory.used_bytes", s->used_mib * MIB + PROBE_SELF_BYTES, SMI_ROUNDING);
    p += check_num(doc, "memory.nvml_free_bytes", s->free_mib * MIB - PROBE_SELF_BYTES, SMI_ROUNDING);
    p += check_str(doc, "name", s->name);
    p += check_str(doc, "pci_bus_id", s->pci_bus_id);
    p += check_str(doc, "compute_capability", s->compute_cap);
    p += check_num(doc, "max_mem_clock_mhz", s->mem_clock_mhz, 0);
    p += check_num(doc, "max_sm_clock_mhz", s->sm_clock_mhz, 0);
    p += check_num(doc, "power_limit_w", s->power_w, 0);
    p += check_num(doc, "pcie.gen", s->pcie_gen, 0);
    p += check_num(doc, "pcie.width", s->pcie_width, 0);
    p += check_bool(doc, "ecc", s->ecc);
    p += check_bool(doc, "mig.enabled", s->mig);
    char mode[64]; /* nvidia-smi "Default", "Exclusive_Process", "Prohibited" -> the probe's names */
    size_t k = 0;
    for (; s->compute_mode[k] && k + 1 < sizeof mode; k++)
        mode[k] = (char)(s->compute_mode[k] >= 'A' && s->compute_mode[k] <= 'Z' ? s->compute_mode[k] + 32 : s->compute_mode[k]);
    mode[k] = '\0';
    p += check_str(doc, "compute_mode", mode);
    p += check_str(doc, "host.driver_version", s->driver);
    /* "CUDA Version 13.0" = cuDriverGetVersion 13000 */
    p += check_num(doc, "host.cuda_driver_version", to_num(s->cuda_version) * 1000, 0);
    return p;
}

/* the fixture against torch (another day, its own process) */
static int check_vs_torch(const cJSON *doc, const torch_values *t, const smi_values *s)
{
    int p = 0;
    p += check_num(doc, "memory.total_bytes", t->total_memory, 0);
    /* cuMemGetInfo inside one fresh context: torch's process and the probe's hold the same (the probe's
     * footprint is inside torch's context cost too), so free memory is equal */
    p += check_num(doc, "memory.free_bytes", t->mem_free, 0);
    /* context: torch's (nvidia-smi free - torch free) less the footprint NVML already counted */
    p += check_num(doc, "memory.context_bytes", s->free_mib * MIB - t->mem_free - PROBE_SELF_BYTES, SMI_ROUNDING);
    p += check_num(doc, "sm_count", t->sm_count, 0);
    p += check_num(doc, "bus_width_bits", t->bus_width, 0);
    p += check_num(doc, "max_mem_clock_mhz", t->mem_clock_khz / 1000.0, 0);
    p += check_num(doc, "max_sm_clock_mhz", t->clock_khz / 1000.0, 0);
    p += check_num(doc, "l2_bytes", t->l2, 0);
    char cc[32];
    snprintf(cc, sizeof cc, "%.0f.%.0f", t->major, t->minor);
    p += check_str(doc, "compute_capability", cc);
    const cJSON *integ = at(doc, "integrated");
    if (!cJSON_IsBool(integ) || cJSON_IsTrue(integ) != (t->integrated != 0)) {
        print_message("MISMATCH integrated\n");
        p++;
    }
    return p;
}

/* identities within the probe's one run */
static int check_identities(const cJSON *doc)
{
    const char *keys[] = {"memory.nvml_total_bytes", "memory.reserved_bytes", "memory.used_bytes",
                          "memory.nvml_free_bytes",  "memory.total_bytes",    "memory.free_bytes",
                          "memory.context_bytes",    "max_mem_clock_mhz",     "bus_width_bits",
                          "peak_bandwidth_gbs"};
    double v[10];
    for (int i = 0; i < 10; i++) {
        const cJSON *x = at(doc, keys[i]);
        if (!cJSON_IsNumber(x)) {
            print_message("MISMATCH %s: not a number\n", keys[i]);
            return 1;
        }
        v[i] = x->valuedouble;
    }
    /* memory-facts 9.4: 2 x 2619 MHz x 5120 / 8 = 3352.3 GB/s */
    double bw = (double)(long long)(v[7] * v[8] / 4000.0 * 10.0 + 0.5) / 10.0;
    const struct {
        int ok;
        const char *what;
    } ids[] = {
        {v[0] == v[1] + v[2] + v[3], "nvml_total = reserved + used + nvml_free (NVML v2)"},
        {v[4] == v[0] - v[1], "total_bytes = nvml_total - reserved (memory-facts 6.5)"},
        {v[6] == v[3] - v[5], "context_bytes = nvml_free before the context - free_bytes inside it"},
        {v[9] == bw, "peak_bandwidth_gbs = 2 x max_mem_clock_mhz x bus_width_bits / 8 / 1000"},
    };
    int p = 0;
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        if (ids[i].ok) continue;
        print_message("MISMATCH %s does not hold\n", ids[i].what);
        p++;
    }
    return p;
}

/* ---------------------------------------------------------------- tests */

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

static void test_quoted_values(void **state)
{
    (void)state;
    assert_int_equal(check_vs_smi(g_doc, &QUOTED_SMI), 0);
    assert_int_equal(check_vs_torch(g_doc, &QUOTED_TORCH, &QUOTED_SMI), 0);
    assert_int_equal(check_identities(g_doc), 0);
    /* written with --redact */
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g_doc, "redacted")));
    assert_true(cJSON_IsNull(at(g_doc, "uuid")));
    assert_true(cJSON_IsNull(at(g_doc, "serial")));
}

/* Each edit is a real mismatch (a wrong total, clock, capability, or a free/used/context shift beyond
 * the probe's footprint and nvidia-smi's rounding): the checks above must report it. */
static void test_detects_mismatches(void **state)
{
    (void)state;
    static const struct {
        const char *key;
        double delta;       /* added to a number */
        const char *string; /* or: the new string */
    } edits[] = {
        {"memory.nvml_total_bytes", MIB, NULL},
        {"memory.nvml_total_bytes", 1, NULL},
        {"memory.reserved_bytes", -MIB, NULL},
        {"memory.total_bytes", 4096, NULL},
        {"memory.free_bytes", 2 * MIB, NULL},
        {"memory.used_bytes", 2 * MIB, NULL},  /* footprint 5.25 MiB instead of 3.25 */
        {"memory.used_bytes", -PROBE_SELF_BYTES - 2 * MIB, NULL},
        {"memory.nvml_free_bytes", -2 * MIB, NULL},
        {"memory.context_bytes", 2 * MIB, NULL},
        {"max_mem_clock_mhz", -19, NULL},
        {"max_sm_clock_mhz", 1, NULL},
        {"bus_width_bits", -1024, NULL},
        {"sm_count", -18, NULL},
        {"l2_bytes", 1024, NULL},
        {"power_limit_w", -50, NULL},
        {"pcie.gen", -1, NULL},
        {"compute_capability", 0, "8.0"},
        {"name", 0, "NVIDIA H100 PCIe"},
        {"host.driver_version", 0, "580.95.05"},
        {"host.cuda_driver_version", 10, NULL},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        cJSON *doc = cJSON_Duplicate(g_doc, 1);
        assert_non_null(doc);
        cJSON *v = (cJSON *)at(doc, edits[i].key);
        assert_non_null(v);
        if (edits[i].string) assert_non_null(cJSON_SetValuestring(v, edits[i].string));
        else cJSON_SetNumberValue(v, v->valuedouble + edits[i].delta);
        int p = check_vs_smi(doc, &QUOTED_SMI) + check_vs_torch(doc, &QUOTED_TORCH, &QUOTED_SMI) + check_identities(doc);
        cJSON_Delete(doc);
        if (p == 0) fail_msg("edit %zu (%s) was not detected", i, edits[i].key);
    }
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
    smi_values s = QUOTED_SMI; /* PCIe, compute mode and CUDA version are not in the CSV */
    s.total_mib = to_num(csv_col(hdr, val, nh, "memory.total [MiB]"));
    s.reserved_mib = to_num(csv_col(hdr, val, nh, "memory.reserved [MiB]"));
    s.used_mib = to_num(csv_col(hdr, val, nh, "memory.used [MiB]"));
    s.free_mib = to_num(csv_col(hdr, val, nh, "memory.free [MiB]"));
    s.mem_clock_mhz = to_num(csv_col(hdr, val, nh, "clocks.max.memory [MHz]"));
    s.sm_clock_mhz = to_num(csv_col(hdr, val, nh, "clocks.max.sm [MHz]"));
    s.power_w = to_num(csv_col(hdr, val, nh, "power.limit [W]"));
    s.name = csv_col(hdr, val, nh, "name");
    s.pci_bus_id = csv_col(hdr, val, nh, "pci.bus_id");
    s.compute_cap = csv_col(hdr, val, nh, "compute_cap");
    s.driver = csv_col(hdr, val, nh, "driver_version");
    s.ecc = csv_col(hdr, val, nh, "ecc.mode.current");
    s.mig = csv_col(hdr, val, nh, "mig.mode.current");
    /* the quotes are the file's values */
    assert_true(s.total_mib == QUOTED_SMI.total_mib && s.reserved_mib == QUOTED_SMI.reserved_mib &&
                s.used_mib == QUOTED_SMI.used_mib && s.free_mib == QUOTED_SMI.free_mib);
    assert_string_equal(s.name, QUOTED_SMI.name);
    assert_int_equal(check_vs_smi(g_doc, &s), 0);
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
    torch_values tv = {torch_num(tp, "total_memory"),     torch_num(tp, "mem_free"),
                       torch_num(tp, "multi_processor_count"), torch_num(tp, "memory_bus_width"),
                       torch_num(tp, "memory_clock_rate"), torch_num(tp, "clock_rate"),
                       torch_num(tp, "L2_cache_size"),     torch_num(tp, "major"),
                       torch_num(tp, "minor"),             torch_num(tp, "is_integrated")};
    assert_true(torch_num(tp, "mem_total") == tv.total_memory);
    assert_memory_equal(&tv, &QUOTED_TORCH, sizeof tv); /* the quotes are the file's values */
    assert_int_equal(check_vs_torch(g_doc, &tv, &QUOTED_SMI), 0);
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
    char p[1024];
    gt_path(p, sizeof p, "h100-nvidia-smi-q.xml");
    char *x = slurp(p);
    if (!x) {
        print_message("skipping: %s not found\n", p);
        skip();
    }
    static const struct {
        const char *section, *tag;
        size_t off; /* of the const char * in smi_values, or of the double */
        int is_str;
    } fields[] = {
        {"<fb_memory_usage>", "total", offsetof(smi_values, total_mib), 0},
        {"<fb_memory_usage>", "reserved", offsetof(smi_values, reserved_mib), 0},
        {"<fb_memory_usage>", "used", offsetof(smi_values, used_mib), 0},
        {"<fb_memory_usage>", "free", offsetof(smi_values, free_mib), 0},
        {"<pci>", "pci_bus_id", offsetof(smi_values, pci_bus_id), 1},
        {NULL, "max_link_gen", offsetof(smi_values, pcie_gen), 0},
        {NULL, "max_link_width", offsetof(smi_values, pcie_width), 0}, /* "16x" */
        {NULL, "compute_mode", offsetof(smi_values, compute_mode), 1},
        {"<max_clocks>", "mem_clock", offsetof(smi_values, mem_clock_mhz), 0},
        {"<max_clocks>", "sm_clock", offsetof(smi_values, sm_clock_mhz), 0},
        {"<ecc_mode>", "current_ecc", offsetof(smi_values, ecc), 1},
        {"<mig_mode>", "current_mig", offsetof(smi_values, mig), 1},
        {NULL, "current_power_limit", offsetof(smi_values, power_w), 0},
        {NULL, "driver_version", offsetof(smi_values, driver), 1},
        {NULL, "cuda_version", offsetof(smi_values, cuda_version), 1},
        {NULL, "product_name", offsetof(smi_values, name), 1},
    };
    enum { N = sizeof fields / sizeof fields[0] };
    static char strs[N][128];
    smi_values s = QUOTED_SMI; /* compute capability is not in this file */
    for (size_t i = 0; i < N; i++) {
        if (xml_value(x, fields[i].section, fields[i].tag, strs[i], sizeof strs[i]) != 0)
            fail_msg("h100-nvidia-smi-q.xml has no <%s>", fields[i].tag);
        char *dst = (char *)&s + fields[i].off;
        if (fields[i].is_str) {
            const char *v = strs[i];
            memcpy(dst, &v, sizeof v);
        } else {
            double d = to_num(strs[i]);
            memcpy(dst, &d, sizeof d);
        }
    }
    assert_int_equal(check_vs_smi(g_doc, &s), 0);
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
        cmocka_unit_test(test_quoted_values),         cmocka_unit_test(test_detects_mismatches),
        cmocka_unit_test(test_groundtruth_query_csv), cmocka_unit_test(test_groundtruth_torch_props),
        cmocka_unit_test(test_groundtruth_nvidia_smi_xml),
    };
    return cmocka_run_group_tests_name("probe_fixture_vs_nvidia_smi", tests, setup, teardown);
}
