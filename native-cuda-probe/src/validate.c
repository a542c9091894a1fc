/* validate.c - structural and consistency checks of a vramplan/gpu-probe@1 document */
#define _POSIX_C_SOURCE 200809L

#include "validate.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#define T_NULL 1
#define T_BOOL 2
#define T_INT 4 /* integer >= 0, exactly representable (<= 2^53) */
#define T_NUM 8 /* any finite number >= 0 */
#define T_STR 16
#define T_OBJ 32
#define T_ARR 64

typedef struct {
    char *out;
    size_t outsz;
    size_t used;
    int problems;
    const cJSON *unavailable; /* array or NULL */
    int redacted;
} V;

static void problem(V *v, const char *path, const char *fmt, ...)
{
    v->problems++;
    if (!v->out || v->outsz == 0 || v->used + 1 >= v->outsz) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    int k = snprintf(v->out + v->used, v->outsz - v->used, "%s: %s\n", path[0] ? path : "(document)", line);
    if (k > 0) {
        size_t add = (size_t)k;
        v->used = (v->used + add < v->outsz) ? v->used + add : v->outsz - 1;
    }
}

static void join(char *dst, size_t n, const char *base, const char *key)
{
    /* truncation is acceptable for a path shown in a message */
    int w = base[0] ? snprintf(dst, n, "%s.%s", base, key) : snprintf(dst, n, "%s", key);
    if (w < 0 && n) dst[0] = '\0';
}

static int is_int(const cJSON *it)
{
    if (!cJSON_IsNumber(it)) return 0;
    double d = it->valuedouble;
    if (!(d >= 0.0 && d <= 9007199254740992.0)) return 0; /* also rejects NaN */
    return d == (double)(long long)d;
}

static int type_ok(const cJSON *it, int types)
{
    if ((types & T_NULL) && cJSON_IsNull(it)) return 1;
    if ((types & T_BOOL) && cJSON_IsBool(it)) return 1;
    if ((types & T_INT) && is_int(it)) return 1;
    if ((types & T_NUM) && cJSON_IsNumber(it) && it->valuedouble >= 0.0 && it->valuedouble <= 1e300) return 1;
    if ((types & T_STR) && cJSON_IsString(it) && it->valuestring) return 1;
    if ((types & T_OBJ) && cJSON_IsObject(it)) return 1;
    if ((types & T_ARR) && cJSON_IsArray(it)) return 1;
    return 0;
}

static const char *type_name(const cJSON *it)
{
    if (cJSON_IsNull(it)) return "null";
    if (cJSON_IsBool(it)) return "a boolean";
    if (cJSON_IsNumber(it)) {
        if (it->valuedouble < 0) return "a negative number";
        return is_int(it) ? "an integer" : "a non-integer number";
    }
    if (cJSON_IsString(it)) return "a string";
    if (cJSON_IsObject(it)) return "an object";
    if (cJSON_IsArray(it)) return "an array";
    return "an invalid value";
}

static const char *expected(int types)
{
    switch (types) {
    case T_NULL | T_BOOL: return "a boolean or null";
    case T_BOOL: return "a boolean";
    case T_INT: return "an integer >= 0";
    case T_INT | T_NULL: return "an integer >= 0 or null";
    case T_NUM | T_NULL: return "a number >= 0 or null";
    case T_STR: return "a string";
    case T_STR | T_NULL: return "a string or null";
    case T_OBJ: return "an object";
    case T_ARR: return "an array";
    default: return "a value of another type";
    }
}

static int has_unavailable(const V *v, const char *path)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, v->unavailable)
    {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "field");
        if (cJSON_IsString(f) && f->valuestring && strcmp(f->valuestring, path) == 0) return 1;
    }
    return 0;
}

/* Checks obj[key]. Returns the item when present and of an allowed type, else NULL.
 * need_reason: a null here must be explained by an "unavailable" entry for this field. */
static const cJSON *field(V *v, const cJSON *obj, const char *base, const char *key, int types, int required,
                          int need_reason)
{
    char path[256];
    join(path, sizeof path, base, key);
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it) {
        if (required) problem(v, path, "required field is missing");
        return NULL;
    }
    if (!type_ok(it, types)) {
        problem(v, path, "expected %s, got %s", expected(types), type_name(it));
        return NULL;
    }
    if (need_reason && cJSON_IsNull(it) && !has_unavailable(v, path))
        problem(v, path, "is null but has no entry in \"unavailable\" saying why");
    return it;
}

static int one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0) return 1;
    return 0;
}

static void check_enum(V *v, const cJSON *it, const char *path, const char *const *list)
{
    if (cJSON_IsString(it) && !one_of(it->valuestring, list)) problem(v, path, "unknown value \"%s\"", it->valuestring);
}

static const char *const ERROR_CODES[] = {"no_driver",         "no_gpu",      "driver_too_old", "permission_denied",
                                          "init_failed",       "bad_arguments", "io_error",     "internal", NULL};
static const char *const COMPUTE_MODES[] = {"default", "exclusive_thread", "prohibited", "exclusive_process", "unknown",
                                            NULL};
static const char *const NVLINK_STATUS[] = {"active", "inactive", "not_supported", "unavailable", NULL};
static const char *const TOPOLOGY[] = {"self",      "internal", "single_switch", "multiple_switches", "host_bridge",
                                       "numa_node", "system",   "unknown",       NULL};
static const char *const MEM_API[] = {"v1", "v2", NULL};

static void check_memory(V *v, const cJSON *dev, const char *dpath)
{
    char mp[128];
    join(mp, sizeof mp, dpath, "memory");
    const cJSON *m = field(v, dev, dpath, "memory", T_OBJ, 1, 0);
    if (!m) return;
    const char *byte_keys[] = {"total_bytes",           "free_bytes",     "nvml_total_bytes", "nvml_free_bytes",
                               "reserved_bytes",        "used_bytes",     "other_processes_bytes", "context_bytes"};
    const cJSON *vals[8];
    for (size_t i = 0; i < 8; i++) vals[i] = field(v, m, mp, byte_keys[i], T_INT | T_NULL, 1, 1);
    field(v, m, mp, "other_processes_count", T_INT | T_NULL, 0, 0);
    const cJSON *api = field(v, m, mp, "nvml_memory_api", T_STR | T_NULL, 0, 0);
    char p[160];
    join(p, sizeof p, mp, "nvml_memory_api");
    check_enum(v, api, p, MEM_API);

    const cJSON *total = vals[0], *free_ = vals[1], *ntotal = vals[2], *nfree = vals[3], *res = vals[4];
    if (is_int(total) && is_int(free_) && free_->valuedouble > total->valuedouble) {
        join(p, sizeof p, mp, "free_bytes");
        problem(v, p, "free (%.0f) is larger than total_bytes (%.0f)", free_->valuedouble, total->valuedouble);
    }
    if (is_int(ntotal) && is_int(nfree) && nfree->valuedouble > ntotal->valuedouble) {
        join(p, sizeof p, mp, "nvml_free_bytes");
        problem(v, p, "free (%.0f) is larger than nvml_total_bytes (%.0f)", nfree->valuedouble, ntotal->valuedouble);
    }
    if (is_int(ntotal) && is_int(res) && res->valuedouble > ntotal->valuedouble) {
        join(p, sizeof p, mp, "reserved_bytes");
        problem(v, p, "reserved (%.0f) is larger than nvml_total_bytes (%.0f)", res->valuedouble, ntotal->valuedouble);
    }
    if (is_int(total) && is_int(ntotal) && total->valuedouble > ntotal->valuedouble) {
        join(p, sizeof p, mp, "total_bytes");
        problem(v, p, "CUDA total (%.0f) is larger than NVML total (%.0f)", total->valuedouble, ntotal->valuedouble);
    }
}

/* "9.0" -> 9, 0. Major 1..3 digits, minor one digit (no sscanf: %d overflow is undefined). */
static int parse_cc(const char *s, int *maj, int *min)
{
    int m = 0, digits = 0;
    while (*s >= '0' && *s <= '9' && digits < 3) {
        m = m * 10 + (*s++ - '0');
        digits++;
    }
    if (digits == 0 || *s != '.' || !(s[1] >= '0' && s[1] <= '9') || s[2] != '\0') return -1;
    *maj = m;
    *min = s[1] - '0';
    return 0;
}

static void check_device(V *v, const cJSON *dev, int i, int *cc_out)
{
    char dp[64], p[160];
    snprintf(dp, sizeof dp, "devices[%d]", i);
    *cc_out = -1;
    if (!cJSON_IsObject(dev)) {
        problem(v, dp, "expected an object, got %s", type_name(dev));
        return;
    }
    field(v, dev, dp, "index", T_INT, 1, 0);
    field(v, dev, dp, "nvml_index", T_INT | T_NULL, 0, 0);
    const cJSON *name = field(v, dev, dp, "name", T_STR | T_NULL, 1, 1);
    if (cJSON_IsString(name) && strlen(name->valuestring) > VP_PROBE_NAME_MAX_BYTES) {
        join(p, sizeof p, dp, "name");
        problem(v, p, "is %zu bytes long; the planner reads names of at most %d bytes", strlen(name->valuestring),
                VP_PROBE_NAME_MAX_BYTES);
    }
    const cJSON *uuid = field(v, dev, dp, "uuid", T_STR | T_NULL, 1, !v->redacted);
    const cJSON *serial = field(v, dev, dp, "serial", T_STR | T_NULL, 0, !v->redacted);
    if (v->redacted && uuid && !cJSON_IsNull(uuid)) {
        join(p, sizeof p, dp, "uuid");
        problem(v, p, "must be null in a redacted document");
    }
    if (v->redacted && serial && !cJSON_IsNull(serial)) {
        join(p, sizeof p, dp, "serial");
        problem(v, p, "must be null in a redacted document");
    }
    field(v, dev, dp, "pci_bus_id", T_STR | T_NULL, 1, 1);
    const cJSON *cc = field(v, dev, dp, "compute_capability", T_STR | T_NULL, 1, 1);
    int ccmaj = -1, ccmin = -1;
    if (cJSON_IsString(cc)) {
        if (parse_cc(cc->valuestring, &ccmaj, &ccmin) != 0) {
            join(p, sizeof p, dp, "compute_capability");
            problem(v, p, "expected \"MAJOR.MINOR\" such as \"9.0\", got \"%s\"", cc->valuestring);
            ccmaj = -1;
        } else {
            *cc_out = ccmaj * 10 + ccmin;
        }
    }
    field(v, dev, dp, "sm_count", T_INT | T_NULL, 1, 1);
    field(v, dev, dp, "integrated", T_BOOL | T_NULL, 0, 1);
    check_memory(v, dev, dp);
    const cJSON *bw = field(v, dev, dp, "bus_width_bits", T_INT | T_NULL, 1, 1);
    const cJSON *mclk = field(v, dev, dp, "max_mem_clock_mhz", T_INT | T_NULL, 1, 1);
    field(v, dev, dp, "max_sm_clock_mhz", T_INT | T_NULL, 1, 1);
    const cJSON *peak = field(v, dev, dp, "peak_bandwidth_gbs", T_NUM | T_NULL, 1, 1);
    if (is_int(bw) && is_int(mclk) && cJSON_IsNumber(peak)) {
        double want = mclk->valuedouble * bw->valuedouble / 4000.0;
        double diff = peak->valuedouble - want;
        if (diff > 0.051 || diff < -0.051) {
            join(p, sizeof p, dp, "peak_bandwidth_gbs");
            problem(v, p, "%.1f does not equal 2 x max_mem_clock_mhz x bus_width_bits / 8 / 1000 = %.1f",
                    peak->valuedouble, want);
        }
    }
    field(v, dev, dp, "l2_bytes", T_INT | T_NULL, 1, 1);
    field(v, dev, dp, "ecc", T_BOOL | T_NULL, 1, 1);

    char mp[128];
    join(mp, sizeof mp, dp, "mig");
    const cJSON *mig = field(v, dev, dp, "mig", T_OBJ, 1, 0);
    if (mig) {
        field(v, mig, mp, "supported", T_BOOL | T_NULL, 0, 0);
        field(v, mig, mp, "enabled", T_BOOL | T_NULL, 1, 1);
        const cJSON *inst = field(v, mig, mp, "instances", T_ARR, 1, 0);
        int k = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, inst)
        {
            char ip[160];
            snprintf(ip, sizeof ip, "%s.instances[%d]", mp, k++);
            if (!cJSON_IsObject(e)) {
                problem(v, ip, "expected an object, got %s", type_name(e));
                continue;
            }
            field(v, e, ip, "index", T_INT, 1, 0);
            const cJSON *mu = field(v, e, ip, "uuid", T_STR | T_NULL, 1, 0);
            if (v->redacted && mu && !cJSON_IsNull(mu)) {
                join(p, sizeof p, ip, "uuid");
                problem(v, p, "must be null in a redacted document");
            }
            field(v, e, ip, "gpu_instance_id", T_INT | T_NULL, 0, 0);
            field(v, e, ip, "compute_instance_id", T_INT | T_NULL, 0, 0);
            field(v, e, ip, "total_bytes", T_INT | T_NULL, 1, 0);
            field(v, e, ip, "free_bytes", T_INT | T_NULL, 1, 0);
            field(v, e, ip, "used_bytes", T_INT | T_NULL, 0, 0);
        }
    }
    const cJSON *cm = field(v, dev, dp, "compute_mode", T_STR | T_NULL, 1, 1);
    join(p, sizeof p, dp, "compute_mode");
    check_enum(v, cm, p, COMPUTE_MODES);

    char sp[128];
    join(sp, sizeof sp, dp, "supports");
    const cJSON *sup = field(v, dev, dp, "supports", T_OBJ, 1, 0);
    if (sup) {
        const char *keys[] = {"bf16", "tf32", "fp8"};
        const int need[] = {80, 80, 89};
        for (int k = 0; k < 3; k++) {
            const cJSON *b = field(v, sup, sp, keys[k], T_BOOL | T_NULL, 1, 0);
            if (cJSON_IsBool(b) && *cc_out >= 0 && (cJSON_IsTrue(b) != 0) != (*cc_out >= need[k])) {
                join(p, sizeof p, sp, keys[k]);
                problem(v, p, "%s contradicts compute_capability %d.%d (rule: >= %d.%d)",
                        cJSON_IsTrue(b) ? "true" : "false", *cc_out / 10, *cc_out % 10, need[k] / 10, need[k] % 10);
            }
        }
        field(v, sup, sp, "rule", T_STR, 1, 0);
    }
    field(v, dev, dp, "power_limit_w", T_NUM | T_NULL, 1, 1);
    char pp[128];
    join(pp, sizeof pp, dp, "pcie");
    const cJSON *pcie = field(v, dev, dp, "pcie", T_OBJ, 1, 0);
    if (pcie) {
        field(v, pcie, pp, "gen", T_INT | T_NULL, 1, 1);
        field(v, pcie, pp, "width", T_INT | T_NULL, 1, 1);
    }
}

/* N x N matrix of (bool|null) or (string|null) */
static void check_matrix(V *v, const cJSON *doc, const char *key, int n, int want_bool, int required)
{
    const cJSON *m = field(v, doc, "", key, T_ARR, required, 0);
    if (!m) return;
    char p[96];
    if (cJSON_GetArraySize(m) != n) {
        problem(v, key, "has %d rows but there are %d devices", cJSON_GetArraySize(m), n);
        return;
    }
    for (int i = 0; i < n; i++) {
        const cJSON *row = cJSON_GetArrayItem(m, i);
        snprintf(p, sizeof p, "%s[%d]", key, i);
        if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != n) {
            problem(v, p, "expected an array of %d values", n);
            continue;
        }
        for (int j = 0; j < n; j++) {
            const cJSON *c = cJSON_GetArrayItem(row, j);
            snprintf(p, sizeof p, "%s[%d][%d]", key, i, j);
            if (want_bool) {
                if (!cJSON_IsBool(c) && !cJSON_IsNull(c)) problem(v, p, "expected a boolean or null, got %s", type_name(c));
                else if (i == j && !cJSON_IsFalse(c)) problem(v, p, "the diagonal must be false");
            } else {
                if (!cJSON_IsString(c) && !cJSON_IsNull(c)) problem(v, p, "expected a string or null, got %s", type_name(c));
                else if (cJSON_IsString(c)) check_enum(v, c, p, TOPOLOGY);
            }
            if (cJSON_IsNull(c) && !has_unavailable(v, p)) problem(v, p, "is null but has no entry in \"unavailable\"");
        }
    }
}

static void check_probe_doc(V *v, const cJSON *doc)
{
    field(v, doc, "", "probe_version", T_STR, 1, 0);
    field(v, doc, "", "time", T_STR | T_NULL, 1, 0);
    const cJSON *un = field(v, doc, "", "unavailable", T_ARR, 1, 0);
    v->unavailable = un;
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, un)
    {
        char p[64];
        snprintf(p, sizeof p, "unavailable[%d]", k++);
        if (!cJSON_IsObject(e)) {
            problem(v, p, "expected an object, got %s", type_name(e));
            continue;
        }
        field(v, e, p, "field", T_STR, 1, 0);
        field(v, e, p, "reason", T_STR, 1, 0);
    }
    const cJSON *red = field(v, doc, "", "redacted", T_BOOL, 0, 0);
    v->redacted = cJSON_IsTrue(red);

    const cJSON *host = field(v, doc, "", "host", T_OBJ, 1, 0);
    if (host) {
        const cJSON *hn = field(v, host, "host", "hostname", T_STR | T_NULL, 0, 0);
        if (v->redacted && cJSON_IsString(hn)) problem(v, "host.hostname", "must be absent or null in a redacted document");
        field(v, host, "host", "driver_version", T_STR | T_NULL, 1, 1);
        field(v, host, "host", "cuda_driver_version", T_INT, 1, 0);
        field(v, host, "host", "nvml", T_BOOL, 1, 0);
    }
    const cJSON *devs = field(v, doc, "", "devices", T_ARR, 1, 0);
    int n = 0;
    if (devs) {
        n = cJSON_GetArraySize(devs);
        if (n == 0) problem(v, "devices", "is empty (a probe document lists at least one GPU)");
        int i = 0;
        cJSON_ArrayForEach(e, devs)
        {
            int cc;
            check_device(v, e, i++, &cc);
        }
    }
    check_matrix(v, doc, "peer_access", n, 1, 1);
    check_matrix(v, doc, "topology", n, 0, 0);
    const cJSON *nvl = field(v, doc, "", "nvlink", T_ARR, 1, 0);
    if (nvl) {
        if (devs && cJSON_GetArraySize(nvl) != n) problem(v, "nvlink", "has %d entries but there are %d devices", cJSON_GetArraySize(nvl), n);
        k = 0;
        cJSON_ArrayForEach(e, nvl)
        {
            char p[64], q[96];
            snprintf(p, sizeof p, "nvlink[%d]", k++);
            if (!cJSON_IsObject(e)) {
                problem(v, p, "expected an object, got %s", type_name(e));
                continue;
            }
            field(v, e, p, "device", T_INT, 1, 0);
            field(v, e, p, "active_links", T_INT | T_NULL, 1, 1);
            field(v, e, p, "supported_links", T_INT | T_NULL, 0, 0);
            const cJSON *st = field(v, e, p, "status", T_STR, 1, 0);
            join(q, sizeof q, p, "status");
            check_enum(v, st, q, NVLINK_STATUS);
        }
    }
    const cJSON *w = field(v, doc, "", "warnings", T_ARR, 0, 0);
    k = 0;
    cJSON_ArrayForEach(e, w)
    {
        char p[64];
        snprintf(p, sizeof p, "warnings[%d]", k++);
        if (!cJSON_IsString(e)) problem(v, p, "expected a string, got %s", type_name(e));
    }
}

int vp_validate_text(const char *text, size_t len, char *out, size_t outsz, int *is_error_doc)
{
    V v;
    memset(&v, 0, sizeof v);
    v.out = out;
    v.outsz = outsz;
    if (out && outsz) out[0] = '\0';
    if (is_error_doc) *is_error_doc = 0;

    size_t bad = vp_utf8_check(text, len);
    if (bad < len) {
        size_t line = 1;
        for (size_t i = 0; i < bad; i++) line += text[i] == '\n';
        problem(&v, "", "not valid UTF-8 at byte %zu (line %zu); JSON text must be UTF-8 (RFC 8259 section 8.1)", bad,
                line);
    }
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!doc) {
        size_t off = (end && end >= text && (size_t)(end - text) <= len) ? (size_t)(end - text) : len;
        size_t line = 1, col = 1;
        for (size_t i = 0; i < off; i++) {
            if (text[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        problem(&v, "", "not valid JSON (truncated or corrupted?) near line %zu column %zu", line, col);
        return v.problems;
    }
    if (!cJSON_IsObject(doc)) {
        problem(&v, "", "expected a JSON object, got %s", type_name(doc));
        cJSON_Delete(doc);
        return v.problems;
    }
    const cJSON *schema = field(&v, doc, "", "schema", T_STR, 1, 0);
    if (schema && strcmp(schema->valuestring, "vramplan/gpu-probe@1") != 0)
        problem(&v, "schema", "expected \"vramplan/gpu-probe@1\", got \"%s\"", schema->valuestring);

    const cJSON *err = cJSON_GetObjectItemCaseSensitive(doc, "error");
    if (err) {
        const cJSON *eo = field(&v, doc, "", "error", T_OBJ, 1, 0);
        if (eo) {
            const cJSON *code = field(&v, eo, "error", "code", T_STR, 1, 0);
            check_enum(&v, code, "error.code", ERROR_CODES);
            field(&v, eo, "error", "message", T_STR, 1, 0);
        }
        if (is_error_doc && v.problems == 0) *is_error_doc = 1;
    } else {
        check_probe_doc(&v, doc);
    }
    cJSON_Delete(doc);
    return v.problems;
}
