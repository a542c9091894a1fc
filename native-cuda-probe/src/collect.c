/* collect.c - query the CUDA driver API and NVML and build the vramplan/gpu-probe@1 document */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "utf8.h"
#include "validate.h"

#define SUPPORTS_RULE                                                                                \
    "bf16 and tf32 need compute capability >= 8.0, fp8 needs >= 8.9 (NVIDIA Transformer Engine "   \
    "'Datatype and hardware support matrix'; vramplan memory-facts 9.3)"

/* ------------------------------------------------------------------ small JSON helpers */

typedef struct {
    cJSON *unavailable; /* array of {field, reason} */
    cJSON *warnings;    /* array of strings */
    int oom;            /* a cJSON allocation failed somewhere */
    const vp_cuda *cuda;
    const vp_nvml *nvml;
    const char *nvml_reason; /* why NVML is not usable (NULL when it is) */
} build;

static cJSON *chk(build *b, cJSON *item)
{
    if (!item) b->oom = 1;
    return item;
}

static void put_str(build *b, cJSON *o, const char *k, const char *v)
{
    if (v) chk(b, cJSON_AddStringToObject(o, k, v));
    else chk(b, cJSON_AddNullToObject(o, k));
}

static void put_num(build *b, cJSON *o, const char *k, double v) { chk(b, cJSON_AddNumberToObject(o, k, v)); }
static void put_bool(build *b, cJSON *o, const char *k, int v) { chk(b, cJSON_AddBoolToObject(o, k, v != 0)); }
static void put_null(build *b, cJSON *o, const char *k) { chk(b, cJSON_AddNullToObject(o, k)); }

static cJSON *put_obj(build *b, cJSON *o, const char *k) { return chk(b, cJSON_AddObjectToObject(o, k)); }
static cJSON *put_arr(build *b, cJSON *o, const char *k) { return chk(b, cJSON_AddArrayToObject(o, k)); }

static void arr_add(build *b, cJSON *arr, cJSON *item)
{
    if (!chk(b, item)) return;
    if (!arr || !cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        b->oom = 1;
    }
}

static void unavail(build *b, const char *field, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    cJSON *e = cJSON_CreateObject();
    if (!chk(b, e)) return;
    chk(b, cJSON_AddStringToObject(e, "field", field));
    chk(b, cJSON_AddStringToObject(e, "reason", reason));
    arr_add(b, b->unavailable, e);
}

static void warn(build *b, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    arr_add(b, b->warnings, cJSON_CreateString(text));
}

/* Byte counts are JSON numbers. Every one the probe writes is <= VP_MAX_BYTES = 2^44 < 10^15, so cJSON
 * prints it as an integer ("%1.15g" is exact below 10^15), never in exponent form. A larger value is not
 * a memory size but a driver sentinel (NVML_VALUE_NOT_AVAILABLE is 2^64 - 1): it becomes null, with
 * `field` (a path such as devices[0].memory.total_bytes) in "unavailable". The callers check first and
 * give a better reason; this is the last guard. */
_Static_assert(VP_MAX_BYTES < 1000000000000000ULL, "byte counts must print as integers");
static int implausible_bytes(unsigned long long v) { return v > VP_MAX_BYTES; }

static void put_bytes(build *b, cJSON *o, const char *k, const char *field, unsigned long long v)
{
    if (!implausible_bytes(v)) {
        put_num(b, o, k, (double)v);
        return;
    }
    put_null(b, o, k);
    unavail(b, field, "the driver reported %llu bytes, more than 2^44 (16 TiB): not a memory size", v);
}

static const char *cuerr(const build *b, CUresult r, char *buf, size_t n) { return vp_cuda_err_name(b->cuda, r, buf, n); }

/* ------------------------------------------------------------------ shared helpers */

int vp_json_make_utf8(cJSON *item)
{
    int changed = 0;
    for (; item; item = item->next) {
        if (cJSON_IsString(item) && item->valuestring) {
            size_t n = strlen(item->valuestring);
            if (vp_utf8_check(item->valuestring, n) != n) {
                size_t cap = 3 * n; /* each ill-formed byte becomes at most one 3-byte U+FFFD */
                char *fixed = malloc(cap + 1);
                if (!fixed) return -1;
                vp_utf8_sanitize(item->valuestring, fixed, cap, NULL, NULL);
                char *set = cJSON_SetValuestring(item, fixed);
                free(fixed);
                if (!set) return -1;
                changed++;
            }
        }
        if (item->child) {
            int k = vp_json_make_utf8(item->child);
            if (k < 0) return -1;
            changed += k;
        }
    }
    return changed;
}

cJSON *vp_error_doc(vp_err e, const char *message)
{
    cJSON *doc = cJSON_CreateObject();
    if (!doc) return NULL;
    cJSON *err = NULL;
    if (!cJSON_AddStringToObject(doc, "schema", VP_PROBE_SCHEMA) || !(err = cJSON_AddObjectToObject(doc, "error")) ||
        !cJSON_AddStringToObject(err, "code", vp_err_code(e)) ||
        !cJSON_AddStringToObject(err, "message", message ? message : "") || vp_json_make_utf8(doc) < 0) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

int vp_format_time(char *buf, size_t bufsz)
{
    time_t now = time(NULL);
    const char *sde = getenv("SOURCE_DATE_EPOCH"); /* reproducible-builds convention, used by the tests */
    if (sde && *sde) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(sde, &end, 10);
        if (errno == 0 && end && *end == '\0' && v >= 0 && v <= 253402300799LL) now = (time_t)v;
    }
    struct tm tmv;
    if (!gmtime_r(&now, &tmv)) return -1;
    if (strftime(buf, bufsz, "%Y-%m-%dT%H:%M:%SZ", &tmv) == 0) return -1;
    return 0;
}

/* Kernel module version from /proc/driver/nvidia/version, used when NVML is missing.
 * Line looks like "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ..." or
 * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...". */
static int proc_driver_version(char *out, size_t outsz)
{
    const char *path = getenv("VRAMPLAN_PROBE_PROC_DRIVER_VERSION");
    if (!path || !*path) path = "/proc/driver/nvidia/version";
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    int found = -1;
    while (found != 0 && fgets(line, sizeof line, f)) {
        if (strncmp(line, "NVRM version:", 13) != 0) continue;
        const char *p = strstr(line, "Kernel Module");
        if (!p) continue;
        p += strlen("Kernel Module");
        while (*p) {
            while (*p && isspace((unsigned char)*p)) p++;
            const char *tok = p;
            while (*p && !isspace((unsigned char)*p)) p++;
            size_t len = (size_t)(p - tok);
            if (len > 0 && len < outsz && isdigit((unsigned char)tok[0]) && memchr(tok, '.', len)) {
                memcpy(out, tok, len);
                out[len] = '\0';
                found = 0;
                break;
            }
        }
    }
    fclose(f);
    return found;
}

static const char *compute_mode_name(int m)
{
    switch (m) {
    case CU_COMPUTEMODE_DEFAULT: return "default";
    case CU_COMPUTEMODE_EXCLUSIVE_THREAD: return "exclusive_thread";
    case CU_COMPUTEMODE_PROHIBITED: return "prohibited";
    case CU_COMPUTEMODE_EXCLUSIVE_PROCESS: return "exclusive_process";
    default: return "unknown";
    }
}

static const char *topology_name(nvmlGpuTopologyLevel_t t)
{
    switch (t) {
    case NVML_TOPOLOGY_INTERNAL: return "internal";
    case NVML_TOPOLOGY_SINGLE: return "single_switch";   /* nvidia-smi topo: PIX */
    case NVML_TOPOLOGY_MULTIPLE: return "multiple_switches"; /* PXB */
    case NVML_TOPOLOGY_HOSTBRIDGE: return "host_bridge";  /* PHB */
    case NVML_TOPOLOGY_NODE: return "numa_node";          /* NODE */
    case NVML_TOPOLOGY_SYSTEM: return "system";           /* SYS */
    default: return "unknown";
    }
}

static void format_cuda_uuid(const CUuuid *u, char *out, size_t n)
{
    const unsigned char *b = (const unsigned char *)u->bytes;
    snprintf(out, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static double round1(double x) { return (double)(long long)(x * 10.0 + (x >= 0 ? 0.5 : -0.5)) / 10.0; }

/* ------------------------------------------------------------------ per-device state */

typedef struct {
    int ordinal;
    CUdevice dev;
    int has_nvml;
    nvmlDevice_t nvml;
    char path[64]; /* "devices[3]" */
} devstate;

static int attr(const build *b, CUdevice dev, int a, int *out)
{
    int v = 0;
    if (b->cuda->cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS) return 0;
    *out = v;
    return 1;
}

/* Find the NVML handle of a CUDA device by PCI bus id: CUDA and NVML enumerate in different orders. */
static int nvml_match(build *b, const char *cuda_busid, const char *canon_busid, unsigned dom, unsigned bus,
                      unsigned devno, nvmlDevice_t *out)
{
    const vp_nvml *N = b->nvml;
    if (N->nvmlDeviceGetHandleByPciBusId_v2) {
        if (cuda_busid[0] && N->nvmlDeviceGetHandleByPciBusId_v2(cuda_busid, out) == NVML_SUCCESS) return 1;
        if (N->nvmlDeviceGetHandleByPciBusId_v2(canon_busid, out) == NVML_SUCCESS) return 1;
    }
    unsigned int count = 0;
    if (!N->nvmlDeviceGetCount_v2 || !N->nvmlDeviceGetHandleByIndex_v2 || !N->nvmlDeviceGetPciInfo_v3 ||
        N->nvmlDeviceGetCount_v2(&count) != NVML_SUCCESS)
        return 0;
    for (unsigned int i = 0; i < count; i++) {
        nvmlDevice_t h;
        nvmlPciInfo_t pci;
        memset(&pci, 0, sizeof pci);
        if (N->nvmlDeviceGetHandleByIndex_v2(i, &h) != NVML_SUCCESS) continue;
        if (N->nvmlDeviceGetPciInfo_v3(h, &pci) != NVML_SUCCESS) continue;
        if (pci.domain == dom && pci.bus == bus && pci.device == devno) {
            *out = h;
            return 1;
        }
    }
    return 0;
}

/* Sum of memory used by other processes' compute contexts on this device. */
static int nvml_other_processes(build *b, nvmlDevice_t h, unsigned long long *bytes, int *count, char *why,
                                size_t whysz)
{
    const vp_nvml *N = b->nvml;
    PFN_nvmlDeviceGetComputeRunningProcesses_v3 f3 =
        N->nvmlDeviceGetComputeRunningProcesses_v3 ? N->nvmlDeviceGetComputeRunningProcesses_v3
                                                   : N->nvmlDeviceGetComputeRunningProcesses_v2;
    PFN_nvmlDeviceGetComputeRunningProcesses_v1 f1 = N->nvmlDeviceGetComputeRunningProcesses;
    if (!f3 && !f1) {
        snprintf(why, whysz, "nvmlDeviceGetComputeRunningProcesses not exported");
        return 0;
    }
    unsigned int pid_self = (unsigned int)getpid();
    for (int attempt = 0; attempt < 4; attempt++) {
        unsigned int n = 0;
        nvmlReturn_t r = f3 ? f3(h, &n, NULL) : f1(h, &n, NULL);
        if (r == NVML_SUCCESS) {
            *bytes = 0;
            *count = 0;
            return 1;
        }
        if (r != NVML_ERROR_INSUFFICIENT_SIZE) {
            snprintf(why, whysz, "nvmlDeviceGetComputeRunningProcesses: %s", vp_nvml_err_name(r));
            return 0;
        }
        if (n > 100000U) {
            snprintf(why, whysz, "nvmlDeviceGetComputeRunningProcesses: implausible process count %u", n);
            return 0;
        }
        unsigned int cap = n + 16U; /* processes may start between the two calls */
        unsigned long long sum = 0;
        unsigned long long bogus = 0;
        int cnt = 0, unknown = 0;
        if (f3) {
            nvmlProcessInfo_t *p = calloc(cap, sizeof *p);
            if (!p) {
                b->oom = 1;
                return 0;
            }
            unsigned int got = cap;
            r = f3(h, &got, p);
            if (r == NVML_SUCCESS) {
                for (unsigned int i = 0; i < got && i < cap; i++) {
                    if (p[i].pid == pid_self) continue;
                    cnt++;
                    if (p[i].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE) unknown = 1;
                    else if (implausible_bytes(p[i].usedGpuMemory)) bogus = p[i].usedGpuMemory;
                    else sum += p[i].usedGpuMemory; /* <= 2^44 each, at most 100016 of them: no overflow */
                }
            }
            free(p);
        } else {
            nvmlProcessInfo_v1_t *p = calloc(cap, sizeof *p);
            if (!p) {
                b->oom = 1;
                return 0;
            }
            unsigned int got = cap;
            r = f1(h, &got, p);
            if (r == NVML_SUCCESS) {
                for (unsigned int i = 0; i < got && i < cap; i++) {
                    if (p[i].pid == pid_self) continue;
                    cnt++;
                    if (p[i].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE) unknown = 1;
                    else if (implausible_bytes(p[i].usedGpuMemory)) bogus = p[i].usedGpuMemory;
                    else sum += p[i].usedGpuMemory; /* <= 2^44 each, at most 100016 of them: no overflow */
                }
            }
            free(p);
        }
        if (r == NVML_ERROR_INSUFFICIENT_SIZE) continue;
        if (r != NVML_SUCCESS) {
            snprintf(why, whysz, "nvmlDeviceGetComputeRunningProcesses: %s", vp_nvml_err_name(r));
            return 0;
        }
        *count = cnt;
        if (unknown) {
            snprintf(why, whysz, "NVML does not report per-process memory here (usedGpuMemory not available)");
            return 0;
        }
        if (bogus || implausible_bytes(sum)) {
            snprintf(why, whysz, "nvmlDeviceGetComputeRunningProcesses reported %llu bytes, not a memory size",
                     bogus ? bogus : sum);
            return 0;
        }
        *bytes = sum;
        return 1;
    }
    snprintf(why, whysz, "nvmlDeviceGetComputeRunningProcesses: process list kept growing");
    return 0;
}

static void mig_block(build *b, cJSON *dj, devstate *d, int redact)
{
    const vp_nvml *N = b->nvml;
    char field[128];
    cJSON *mig = put_obj(b, dj, "mig");
    if (!mig) return;
    if (!d->has_nvml || !N->nvmlDeviceGetMigMode) {
        const char *why = !b->nvml->ok ? b->nvml_reason
                          : !d->has_nvml ? "no NVML device matches this PCI bus id"
                                         : "nvmlDeviceGetMigMode not exported";
        put_null(b, mig, "supported");
        put_null(b, mig, "enabled");
        put_arr(b, mig, "instances");
        snprintf(field, sizeof field, "%s.mig.enabled", d->path);
        unavail(b, field, "%s", why);
        return;
    }
    unsigned int cur = 0, pend = 0;
    nvmlReturn_t r = N->nvmlDeviceGetMigMode(d->nvml, &cur, &pend);
    cJSON *inst = NULL;
    if (r == NVML_ERROR_NOT_SUPPORTED) {
        put_bool(b, mig, "supported", 0);
        put_bool(b, mig, "enabled", 0);
        put_arr(b, mig, "instances");
        return;
    }
    if (r != NVML_SUCCESS) {
        put_null(b, mig, "supported");
        put_null(b, mig, "enabled");
        put_arr(b, mig, "instances");
        snprintf(field, sizeof field, "%s.mig.enabled", d->path);
        unavail(b, field, "nvmlDeviceGetMigMode: %s", vp_nvml_err_name(r));
        return;
    }
    put_bool(b, mig, "supported", 1);
    put_bool(b, mig, "enabled", cur == NVML_DEVICE_MIG_ENABLE);
    inst = put_arr(b, mig, "instances");
    if (cur != NVML_DEVICE_MIG_ENABLE) return;
    unsigned int max = 0;
    if (!N->nvmlDeviceGetMaxMigDeviceCount || !N->nvmlDeviceGetMigDeviceHandleByIndex ||
        (r = N->nvmlDeviceGetMaxMigDeviceCount(d->nvml, &max)) != NVML_SUCCESS) {
        snprintf(field, sizeof field, "%s.mig.instances", d->path);
        unavail(b, field, "nvmlDeviceGetMaxMigDeviceCount: %s",
                N->nvmlDeviceGetMaxMigDeviceCount ? vp_nvml_err_name(r) : "not exported");
        return;
    }
    if (max > 64) max = 64;
    for (unsigned int i = 0; i < max; i++) {
        nvmlDevice_t m;
        r = N->nvmlDeviceGetMigDeviceHandleByIndex(d->nvml, i, &m);
        if (r == NVML_ERROR_NOT_FOUND || r == NVML_ERROR_INVALID_ARGUMENT) continue; /* empty slot */
        int pos = cJSON_GetArraySize(inst);
        if (r != NVML_SUCCESS) {
            snprintf(field, sizeof field, "%s.mig.instances", d->path);
            unavail(b, field, "nvmlDeviceGetMigDeviceHandleByIndex(%u): %s", i, vp_nvml_err_name(r));
            continue;
        }
        cJSON *o = cJSON_CreateObject();
        if (!chk(b, o)) return;
        put_num(b, o, "index", (double)i);
        char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = "";
        if (!redact && N->nvmlDeviceGetUUID && N->nvmlDeviceGetUUID(m, uuid, (unsigned)sizeof uuid - 1) == NVML_SUCCESS &&
            uuid[0])
            put_str(b, o, "uuid", uuid);
        else
            put_null(b, o, "uuid");
        unsigned int gi = 0, ci = 0;
        if (N->nvmlDeviceGetGpuInstanceId && N->nvmlDeviceGetGpuInstanceId(m, &gi) == NVML_SUCCESS)
            put_num(b, o, "gpu_instance_id", gi);
        else
            put_null(b, o, "gpu_instance_id");
        if (N->nvmlDeviceGetComputeInstanceId && N->nvmlDeviceGetComputeInstanceId(m, &ci) == NVML_SUCCESS)
            put_num(b, o, "compute_instance_id", ci);
        else
            put_null(b, o, "compute_instance_id");
        nvmlMemory_t mem;
        memset(&mem, 0, sizeof mem);
        if (N->nvmlDeviceGetMemoryInfo && (r = N->nvmlDeviceGetMemoryInfo(m, &mem)) == NVML_SUCCESS) {
            char ip[96];
            snprintf(ip, sizeof ip, "%s.mig.instances[%d]", d->path, pos);
            snprintf(field, sizeof field, "%s.total_bytes", ip);
            put_bytes(b, o, "total_bytes", field, mem.total);
            snprintf(field, sizeof field, "%s.free_bytes", ip);
            if (mem.free > mem.total) {
                put_null(b, o, "free_bytes");
                unavail(b, field, "nvmlDeviceGetMemoryInfo: free %llu is larger than total %llu", mem.free, mem.total);
            } else {
                put_bytes(b, o, "free_bytes", field, mem.free);
            }
            snprintf(field, sizeof field, "%s.used_bytes", ip);
            put_bytes(b, o, "used_bytes", field, mem.used);
        } else {
            put_null(b, o, "total_bytes");
            put_null(b, o, "free_bytes");
            put_null(b, o, "used_bytes");
            snprintf(field, sizeof field, "%s.mig.instances[%d].total_bytes", d->path, pos);
            unavail(b, field, "nvmlDeviceGetMemoryInfo: %s",
                    N->nvmlDeviceGetMemoryInfo ? vp_nvml_err_name(r) : "not exported");
        }
        arr_add(b, inst, o);
    }
}

static void device_block(build *b, const vp_options *opt, cJSON *devices, devstate *d)
{
    const vp_cuda *C = b->cuda;
    const vp_nvml *N = b->nvml;
    char eb[96], field[160], buf[256];
    CUresult cr;
    nvmlReturn_t nr;
    int v;

#define FIELD(suffix) (snprintf(field, sizeof field, "%s." suffix, d->path), field)
    /* why an NVML-only value is missing */
    const char *nvml_why = !N->ok ? b->nvml_reason : !d->has_nvml ? "no NVML device matches this PCI bus id" : NULL;

    cJSON *dj = cJSON_CreateObject();
    if (!chk(b, dj)) return;
    arr_add(b, devices, dj);
    if (b->oom) return;

    put_num(b, dj, "index", d->ordinal);
    unsigned int nvidx = 0;
    if (d->has_nvml && N->nvmlDeviceGetIndex && N->nvmlDeviceGetIndex(d->nvml, &nvidx) == NVML_SUCCESS)
        put_num(b, dj, "nvml_index", nvidx);
    else
        put_null(b, dj, "nvml_index");

    /* name: UTF-8 (driver bytes that are not become U+FFFD), at most the planner's VP_PROBE_NAME_MAX_BYTES,
     * cut at a character boundary */
    memset(buf, 0, sizeof buf);
    cr = C->cuDeviceGetName(buf, (int)sizeof buf - 1, d->dev);
    if (cr == CUDA_SUCCESS && buf[0]) {
        char name[VP_PROBE_NAME_MAX_BYTES + 1];
        int replaced = 0, truncated = 0;
        vp_utf8_sanitize(buf, name, VP_PROBE_NAME_MAX_BYTES, &replaced, &truncated);
        put_str(b, dj, "name", name);
        if (replaced) warn(b, "%s.name: the driver's name is not valid UTF-8; each invalid sequence became U+FFFD", d->path);
        if (truncated)
            warn(b, "%s.name: the driver's name (%zu bytes) was cut to %zu bytes, the longest the planner reads", d->path,
                 strlen(buf), strlen(name));
    } else {
        put_null(b, dj, "name");
        if (cr == CUDA_SUCCESS) unavail(b, FIELD("name"), "cuDeviceGetName returned an empty name");
        else unavail(b, FIELD("name"), "cuDeviceGetName: %s", cuerr(b, cr, eb, sizeof eb));
    }

    /* uuid: NVML's string, else CUDA's 16 bytes in the same "GPU-" form */
    if (opt->redact) put_null(b, dj, "uuid");
    else {
        char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = "";
        int have = 0;
        if (d->has_nvml && N->nvmlDeviceGetUUID &&
            N->nvmlDeviceGetUUID(d->nvml, uuid, (unsigned)sizeof uuid - 1) == NVML_SUCCESS && uuid[0])
            have = 1;
        if (!have) {
            CUuuid u;
            memset(&u, 0, sizeof u);
            PFN_cuDeviceGetUuid f = C->cuDeviceGetUuid_v2 ? C->cuDeviceGetUuid_v2 : C->cuDeviceGetUuid;
            if (f && (cr = f(&u, d->dev)) == CUDA_SUCCESS) {
                format_cuda_uuid(&u, uuid, sizeof uuid);
                have = 1;
            } else {
                unavail(b, FIELD("uuid"), "%s", f ? cuerr(b, cr, eb, sizeof eb) : "cuDeviceGetUuid not exported");
            }
        }
        if (have) put_str(b, dj, "uuid", uuid);
        else put_null(b, dj, "uuid");
    }

    /* serial (NVML only) */
    if (opt->redact) put_null(b, dj, "serial");
    else {
        char serial[NVML_DEVICE_SERIAL_BUFFER_SIZE + 2] = "";
        if (nvml_why) {
            put_null(b, dj, "serial");
            unavail(b, FIELD("serial"), "%s", nvml_why);
        } else if (!N->nvmlDeviceGetSerial) {
            put_null(b, dj, "serial");
            unavail(b, FIELD("serial"), "nvmlDeviceGetSerial not exported");
        } else if ((nr = N->nvmlDeviceGetSerial(d->nvml, serial, NVML_DEVICE_SERIAL_BUFFER_SIZE)) != NVML_SUCCESS) {
            put_null(b, dj, "serial");
            unavail(b, FIELD("serial"), "nvmlDeviceGetSerial: %s", vp_nvml_err_name(nr));
        } else {
            put_str(b, dj, "serial", serial);
        }
    }

    /* PCI bus id, NVML's 8-hex-digit-domain form */
    int dom = 0, bus = 0, devno = 0;
    char canon[40] = "";
    if (attr(b, d->dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &dom) && attr(b, d->dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &bus) &&
        attr(b, d->dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &devno)) {
        snprintf(canon, sizeof canon, "%08X:%02X:%02X.0", (unsigned)dom, (unsigned)bus, (unsigned)devno);
        put_str(b, dj, "pci_bus_id", canon);
    } else {
        put_null(b, dj, "pci_bus_id");
        unavail(b, FIELD("pci_bus_id"), "cuDeviceGetAttribute(PCI ids) failed");
    }

    /* compute capability, SMs */
    int ccmaj = 0, ccmin = 0, have_cc = 0;
    if (attr(b, d->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &ccmaj) &&
        attr(b, d->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &ccmin) && ccmaj >= 0 && ccmaj < 1000 &&
        ccmin >= 0 && ccmin <= 9) {
        have_cc = 1;
        snprintf(buf, sizeof buf, "%d.%d", ccmaj, ccmin);
        put_str(b, dj, "compute_capability", buf);
    } else {
        put_null(b, dj, "compute_capability");
        unavail(b, FIELD("compute_capability"), "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR/MINOR) failed");
    }
    if (attr(b, d->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &v) && v >= 0) put_num(b, dj, "sm_count", v);
    else {
        put_null(b, dj, "sm_count");
        unavail(b, FIELD("sm_count"), "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT) failed or gave a negative count");
    }
    if (attr(b, d->dev, CU_DEVICE_ATTRIBUTE_INTEGRATED, &v)) put_bool(b, dj, "integrated", v);
    else {
        put_null(b, dj, "integrated");
        unavail(b, FIELD("integrated"), "cuDeviceGetAttribute(INTEGRATED) failed");
    }

    /* ---- memory. NVML first (before our context exists), then CUDA inside our own context.
     * Numbers the driver gets wrong (a sentinel such as 2^64 - 1, free > total) become null with a
     * reason, so the document always passes --validate and the planner's limits. */
    cJSON *mem = put_obj(b, dj, "memory");
    if (!mem) return;
    int have_nvml_free = 0, nvml_view = 0;
    unsigned long long nvml_total = 0, nvml_free = 0, nvml_reserved = 0, nvml_used = 0;
    const char *mem_api = NULL;
    char mem_why[320] = "";
    if (nvml_why) snprintf(mem_why, sizeof mem_why, "%s", nvml_why);
    else {
        nvmlMemory_v2_t m2;
        memset(&m2, 0, sizeof m2);
        m2.version = nvmlMemory_v2;
        nr = NVML_ERROR_FUNCTION_NOT_FOUND;
        if (N->nvmlDeviceGetMemoryInfo_v2 && (nr = N->nvmlDeviceGetMemoryInfo_v2(d->nvml, &m2)) == NVML_SUCCESS) {
            mem_api = "v2";
            nvml_total = m2.total;
            nvml_free = m2.free;
            nvml_reserved = m2.reserved;
            nvml_used = m2.used;
            nvml_view = have_nvml_free = 1;
        } else {
            nvmlMemory_t m1;
            memset(&m1, 0, sizeof m1);
            nvmlReturn_t r1 = NVML_ERROR_FUNCTION_NOT_FOUND;
            if (N->nvmlDeviceGetMemoryInfo && (r1 = N->nvmlDeviceGetMemoryInfo(d->nvml, &m1)) == NVML_SUCCESS) {
                mem_api = "v1";
                nvml_total = m1.total;
                nvml_free = m1.free;
                nvml_view = have_nvml_free = 1;
                snprintf(mem_why, sizeof mem_why,
                         "nvmlDeviceGetMemoryInfo_v2: %s; the v1 call has no reserved field and its 'used' "
                         "includes reserved memory",
                         N->nvmlDeviceGetMemoryInfo_v2 ? vp_nvml_err_name(nr) : "not exported");
            } else {
                snprintf(mem_why, sizeof mem_why, "nvmlDeviceGetMemoryInfo_v2: %s; nvmlDeviceGetMemoryInfo: %s",
                         N->nvmlDeviceGetMemoryInfo_v2 ? vp_nvml_err_name(nr) : "not exported",
                         N->nvmlDeviceGetMemoryInfo ? vp_nvml_err_name(r1) : "not exported");
            }
        }
        int v2 = mem_api && strcmp(mem_api, "v2") == 0;
        if (nvml_view && (nvml_total == 0 || implausible_bytes(nvml_total) || nvml_free > nvml_total ||
                          (v2 && (nvml_reserved > nvml_total || nvml_used > nvml_total)))) {
            nvml_view = have_nvml_free = 0;
            snprintf(mem_why, sizeof mem_why,
                     "%s returned impossible numbers (total %llu, free %llu, reserved %llu, used %llu bytes)",
                     v2 ? "nvmlDeviceGetMemoryInfo_v2" : "nvmlDeviceGetMemoryInfo", nvml_total, nvml_free,
                     nvml_reserved, nvml_used);
        }
    }
    unsigned long long other_bytes = 0;
    int other_count = 0, have_other = 0;
    char other_why[256] = "";
    if (nvml_why) snprintf(other_why, sizeof other_why, "%s", nvml_why);
    else have_other = nvml_other_processes(b, d->nvml, &other_bytes, &other_count, other_why, sizeof other_why);

    size_t cu_total = 0, ctx_free = 0, ctx_total = 0;
    int have_cu_total = 0, have_ctx_free = 0;
    char total_why[160] = "", free_why[200] = "";
    cr = C->cuDeviceTotalMem_v2(&cu_total, d->dev);
    if (cr == CUDA_SUCCESS) have_cu_total = 1;
    else snprintf(total_why, sizeof total_why, "cuDeviceTotalMem_v2: %s", cuerr(b, cr, eb, sizeof eb));
    if (!C->cuCtxCreate_v2 || !C->cuMemGetInfo_v2 || !C->cuCtxDestroy_v2) {
        snprintf(free_why, sizeof free_why, "cuCtxCreate_v2/cuMemGetInfo_v2/cuCtxDestroy_v2 not exported");
    } else {
        CUcontext ctx = NULL;
        cr = C->cuCtxCreate_v2(&ctx, 0, d->dev);
        if (cr != CUDA_SUCCESS) {
            snprintf(free_why, sizeof free_why, "cuCtxCreate_v2: %s (compute mode or another process may hold the GPU)",
                     cuerr(b, cr, eb, sizeof eb));
        } else {
            cr = C->cuMemGetInfo_v2(&ctx_free, &ctx_total);
            if (cr == CUDA_SUCCESS) have_ctx_free = 1;
            else snprintf(free_why, sizeof free_why, "cuMemGetInfo_v2: %s", cuerr(b, cr, eb, sizeof eb));
            CUresult dr = C->cuCtxDestroy_v2(ctx);
            if (dr != CUDA_SUCCESS) warn(b, "%s: cuCtxDestroy_v2 failed: %s", d->path, cuerr(b, dr, eb, sizeof eb));
        }
    }
    if (!have_cu_total && have_ctx_free) {
        cu_total = ctx_total;
        have_cu_total = 1;
    }
    if (have_cu_total && (cu_total == 0 || implausible_bytes(cu_total))) {
        have_cu_total = 0;
        snprintf(total_why, sizeof total_why, "cuDeviceTotalMem_v2 reported %llu bytes, not a memory size",
                 (unsigned long long)cu_total);
    }
    if (have_ctx_free && (implausible_bytes(ctx_free) || (have_cu_total && ctx_free > cu_total))) {
        have_ctx_free = 0;
        if (have_cu_total)
            snprintf(free_why, sizeof free_why, "cuMemGetInfo_v2 reported free %llu bytes, more than total_bytes %llu",
                     (unsigned long long)ctx_free, (unsigned long long)cu_total);
        else
            snprintf(free_why, sizeof free_why, "cuMemGetInfo_v2 reported free %llu bytes, not a memory size",
                     (unsigned long long)ctx_free);
    }
    /* CUDA's total is NVML's less the reserved memory; a larger one means NVML's numbers are wrong
     * (the planner needs CUDA's total, so NVML's view is dropped) */
    if (have_cu_total && nvml_view && cu_total > nvml_total) {
        nvml_view = have_nvml_free = 0;
        snprintf(mem_why, sizeof mem_why, "NVML's total %llu bytes is smaller than CUDA's total_bytes %llu", nvml_total,
                 (unsigned long long)cu_total);
    }

    if (have_cu_total) put_bytes(b, mem, "total_bytes", FIELD("memory.total_bytes"), cu_total);
    else {
        put_null(b, mem, "total_bytes");
        unavail(b, FIELD("memory.total_bytes"), "%s", total_why);
    }
    if (have_ctx_free) put_bytes(b, mem, "free_bytes", FIELD("memory.free_bytes"), ctx_free);
    else {
        put_null(b, mem, "free_bytes");
        unavail(b, FIELD("memory.free_bytes"), "%s", free_why);
    }
    if (nvml_view) {
        put_bytes(b, mem, "nvml_total_bytes", FIELD("memory.nvml_total_bytes"), nvml_total);
        put_bytes(b, mem, "nvml_free_bytes", FIELD("memory.nvml_free_bytes"), nvml_free);
    } else {
        put_null(b, mem, "nvml_total_bytes");
        unavail(b, FIELD("memory.nvml_total_bytes"), "%s", mem_why);
        put_null(b, mem, "nvml_free_bytes");
        unavail(b, FIELD("memory.nvml_free_bytes"), "%s", mem_why);
    }
    if (nvml_view && strcmp(mem_api, "v2") == 0) {
        put_bytes(b, mem, "reserved_bytes", FIELD("memory.reserved_bytes"), nvml_reserved);
        put_bytes(b, mem, "used_bytes", FIELD("memory.used_bytes"), nvml_used);
    } else {
        put_null(b, mem, "reserved_bytes");
        unavail(b, FIELD("memory.reserved_bytes"), "%s", mem_why);
        put_null(b, mem, "used_bytes");
        unavail(b, FIELD("memory.used_bytes"), "%s", mem_why);
    }
    if (have_other) put_bytes(b, mem, "other_processes_bytes", FIELD("memory.other_processes_bytes"), other_bytes);
    else {
        put_null(b, mem, "other_processes_bytes");
        unavail(b, FIELD("memory.other_processes_bytes"), "%s", other_why);
    }
    if (have_other || other_count > 0) put_num(b, mem, "other_processes_count", other_count);
    else put_null(b, mem, "other_processes_count");
    if (have_nvml_free && have_ctx_free && nvml_free >= (unsigned long long)ctx_free) {
        put_bytes(b, mem, "context_bytes", FIELD("memory.context_bytes"), nvml_free - (unsigned long long)ctx_free);
    } else {
        put_null(b, mem, "context_bytes");
        if (!have_nvml_free) unavail(b, FIELD("memory.context_bytes"), "needs NVML free memory before the context: %s", mem_why);
        else if (!have_ctx_free) unavail(b, FIELD("memory.context_bytes"), "%s", free_why);
        else
            unavail(b, FIELD("memory.context_bytes"),
                    "free memory grew while the context was created (another process freed memory)");
    }
    put_str(b, mem, "nvml_memory_api", mem_api);

    /* ---- bandwidth inputs */
    int bus_width = 0, have_bw = 0;
    if (attr(b, d->dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &v) && v > 0) {
        bus_width = v;
        have_bw = 1;
    } else if (!nvml_why && N->nvmlDeviceGetMemoryBusWidth) {
        unsigned int w = 0;
        if (N->nvmlDeviceGetMemoryBusWidth(d->nvml, &w) == NVML_SUCCESS && w > 0 && w < 1000000U) {
            bus_width = (int)w;
            have_bw = 1;
        }
    }
    if (have_bw) put_num(b, dj, "bus_width_bits", bus_width);
    else {
        put_null(b, dj, "bus_width_bits");
        unavail(b, FIELD("bus_width_bits"), "neither CUDA (GLOBAL_MEMORY_BUS_WIDTH) nor NVML reports it");
    }
    /* max clocks: NVML max clock (MHz); else the CUDA attribute (kHz; CUDA 13 removed the cudaDeviceProp fields) */
    unsigned int mem_mhz = 0, sm_mhz = 0;
    int have_mem_clk = 0, have_sm_clk = 0;
    if (!nvml_why && N->nvmlDeviceGetMaxClockInfo) {
        if (N->nvmlDeviceGetMaxClockInfo(d->nvml, NVML_CLOCK_MEM, &mem_mhz) == NVML_SUCCESS && mem_mhz > 0)
            have_mem_clk = 1;
        if (N->nvmlDeviceGetMaxClockInfo(d->nvml, NVML_CLOCK_SM, &sm_mhz) == NVML_SUCCESS && sm_mhz > 0)
            have_sm_clk = 1;
    }
    if (!have_mem_clk && attr(b, d->dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &v) && v > 0) {
        mem_mhz = ((unsigned int)v + 500U) / 1000U;
        have_mem_clk = 1;
    }
    if (!have_sm_clk && attr(b, d->dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &v) && v > 0) {
        sm_mhz = ((unsigned int)v + 500U) / 1000U;
        have_sm_clk = 1;
    }
    if (have_mem_clk) put_num(b, dj, "max_mem_clock_mhz", mem_mhz);
    else {
        put_null(b, dj, "max_mem_clock_mhz");
        unavail(b, FIELD("max_mem_clock_mhz"), "neither NVML nor CUDA (MEMORY_CLOCK_RATE) reports it");
    }
    if (have_sm_clk) put_num(b, dj, "max_sm_clock_mhz", sm_mhz);
    else {
        put_null(b, dj, "max_sm_clock_mhz");
        unavail(b, FIELD("max_sm_clock_mhz"), "neither NVML nor CUDA (CLOCK_RATE) reports it");
    }
    /* 2 (DDR) x clock x bus width / 8 bits; memory-facts 9.4: H100 2*2619 MHz*5120/8 = 3352 GB/s */
    double peak = have_mem_clk && have_bw ? (double)mem_mhz * (double)bus_width / 4000.0 : 0.0;
    if (have_mem_clk && have_bw && peak <= VP_MAX_BANDWIDTH_GBS) put_num(b, dj, "peak_bandwidth_gbs", round1(peak));
    else {
        put_null(b, dj, "peak_bandwidth_gbs");
        if (have_mem_clk && have_bw)
            unavail(b, FIELD("peak_bandwidth_gbs"), "2 x %u MHz x %d bits / 8 = %.0f GB/s is not a plausible bandwidth",
                    mem_mhz, bus_width, peak);
        else
            unavail(b, FIELD("peak_bandwidth_gbs"), "needs max_mem_clock_mhz and bus_width_bits");
    }
    if (attr(b, d->dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &v) && v >= 0) put_num(b, dj, "l2_bytes", v);
    else {
        put_null(b, dj, "l2_bytes");
        unavail(b, FIELD("l2_bytes"), "cuDeviceGetAttribute(L2_CACHE_SIZE) failed");
    }

    /* ECC: NVML current mode, else the CUDA attribute */
    {
        nvmlEnableState_t cur = 0, pend = 0;
        if (!nvml_why && N->nvmlDeviceGetEccMode && N->nvmlDeviceGetEccMode(d->nvml, &cur, &pend) == NVML_SUCCESS)
            put_bool(b, dj, "ecc", cur == NVML_FEATURE_ENABLED);
        else if (attr(b, d->dev, CU_DEVICE_ATTRIBUTE_ECC_ENABLED, &v))
            put_bool(b, dj, "ecc", v);
        else {
            put_null(b, dj, "ecc");
            unavail(b, FIELD("ecc"), "neither NVML nor CUDA (ECC_ENABLED) reports it");
        }
    }

    mig_block(b, dj, d, opt->redact);

    if (attr(b, d->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, &v)) put_str(b, dj, "compute_mode", compute_mode_name(v));
    else {
        nvmlComputeMode_t m = 0;
        if (!nvml_why && N->nvmlDeviceGetComputeMode && N->nvmlDeviceGetComputeMode(d->nvml, &m) == NVML_SUCCESS)
            put_str(b, dj, "compute_mode", compute_mode_name(m));
        else {
            put_null(b, dj, "compute_mode");
            unavail(b, FIELD("compute_mode"), "neither CUDA (COMPUTE_MODE) nor NVML reports it");
        }
    }

    cJSON *sup = put_obj(b, dj, "supports");
    if (sup) {
        if (have_cc) {
            int cc = ccmaj * 10 + (ccmin > 9 ? 9 : ccmin);
            put_bool(b, sup, "bf16", cc >= 80);
            put_bool(b, sup, "tf32", cc >= 80);
            put_bool(b, sup, "fp8", cc >= 89);
        } else {
            put_null(b, sup, "bf16");
            put_null(b, sup, "tf32");
            put_null(b, sup, "fp8");
        }
        put_str(b, sup, "rule", SUPPORTS_RULE);
    }

    /* power limit (mW -> W) */
    if (nvml_why) {
        put_null(b, dj, "power_limit_w");
        unavail(b, FIELD("power_limit_w"), "%s", nvml_why);
    } else {
        unsigned int mw = 0;
        nr = N->nvmlDeviceGetPowerManagementLimit ? N->nvmlDeviceGetPowerManagementLimit(d->nvml, &mw)
                                                  : NVML_ERROR_FUNCTION_NOT_FOUND;
        if (nr == NVML_SUCCESS) put_num(b, dj, "power_limit_w", (double)mw / 1000.0);
        else {
            put_null(b, dj, "power_limit_w");
            unavail(b, FIELD("power_limit_w"), "nvmlDeviceGetPowerManagementLimit: %s", vp_nvml_err_name(nr));
        }
    }

    cJSON *pcie = put_obj(b, dj, "pcie");
    if (pcie) {
        unsigned int g = 0, w = 0;
        if (nvml_why) {
            put_null(b, pcie, "gen");
            unavail(b, FIELD("pcie.gen"), "%s", nvml_why);
            put_null(b, pcie, "width");
            unavail(b, FIELD("pcie.width"), "%s", nvml_why);
        } else {
            nr = N->nvmlDeviceGetMaxPcieLinkGeneration ? N->nvmlDeviceGetMaxPcieLinkGeneration(d->nvml, &g)
                                                        : NVML_ERROR_FUNCTION_NOT_FOUND;
            if (nr == NVML_SUCCESS) put_num(b, pcie, "gen", g);
            else {
                put_null(b, pcie, "gen");
                unavail(b, FIELD("pcie.gen"), "nvmlDeviceGetMaxPcieLinkGeneration: %s", vp_nvml_err_name(nr));
            }
            nr = N->nvmlDeviceGetMaxPcieLinkWidth ? N->nvmlDeviceGetMaxPcieLinkWidth(d->nvml, &w)
                                                   : NVML_ERROR_FUNCTION_NOT_FOUND;
            if (nr == NVML_SUCCESS) put_num(b, pcie, "width", w);
            else {
                put_null(b, pcie, "width");
                unavail(b, FIELD("pcie.width"), "nvmlDeviceGetMaxPcieLinkWidth: %s", vp_nvml_err_name(nr));
            }
        }
    }
#undef FIELD
}

static void nvlink_entry(build *b, cJSON *arr, const devstate *d, int pos)
{
    const vp_nvml *N = b->nvml;
    char field[96];
    cJSON *o = cJSON_CreateObject();
    if (!chk(b, o)) return;
    put_num(b, o, "device", d->ordinal);
    snprintf(field, sizeof field, "nvlink[%d].active_links", pos);
    if (!N->ok || !d->has_nvml || !N->nvmlDeviceGetNvLinkState) {
        put_null(b, o, "active_links");
        put_null(b, o, "supported_links");
        put_str(b, o, "status", "unavailable");
        unavail(b, field, "%s",
                !N->ok ? b->nvml_reason
                : !d->has_nvml ? "no NVML device matches this PCI bus id"
                               : "nvmlDeviceGetNvLinkState not exported");
        arr_add(b, arr, o);
        return;
    }
    int active = 0, supported = 0, other_err = 0;
    nvmlReturn_t first_err = NVML_SUCCESS;
    for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
        nvmlEnableState_t st = 0;
        nvmlReturn_t r = N->nvmlDeviceGetNvLinkState(d->nvml, link, &st);
        if (r == NVML_SUCCESS) {
            supported++;
            if (st == NVML_FEATURE_ENABLED) active++;
        } else if (r != NVML_ERROR_NOT_SUPPORTED && r != NVML_ERROR_INVALID_ARGUMENT) {
            /* NOT_SUPPORTED (no NVLink, or a VM without it) and INVALID_ARGUMENT (link >= links of this
             * GPU) are normal; anything else is a real failure */
            other_err++;
            if (first_err == NVML_SUCCESS) first_err = r;
        }
    }
    if (supported == 0 && other_err > 0) {
        put_null(b, o, "active_links");
        put_null(b, o, "supported_links");
        put_str(b, o, "status", "unavailable");
        unavail(b, field, "nvmlDeviceGetNvLinkState: %s", vp_nvml_err_name(first_err));
    } else {
        put_num(b, o, "active_links", active);
        put_num(b, o, "supported_links", supported);
        put_str(b, o, "status", supported == 0 ? "not_supported" : active > 0 ? "active" : "inactive");
    }
    arr_add(b, arr, o);
}

/* ------------------------------------------------------------------ init error mapping */

/* /dev/nvidiactl exists but we may not open it: a permissions problem, whatever cuInit said */
static int dev_permission_problem(void)
{
    const char *nodes[] = {"/dev/nvidiactl", "/dev/nvidia0"};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        if (access(nodes[i], F_OK) == 0 && access(nodes[i], R_OK | W_OK) != 0 && errno == EACCES) return 1;
    }
    return 0;
}

static vp_err map_init_error(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_STUB_LIBRARY: return VP_ERR_NO_DRIVER;
    case CUDA_ERROR_NOT_PERMITTED: return VP_ERR_PERMISSION_DENIED;
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER: return VP_ERR_DRIVER_TOO_OLD;
    case CUDA_ERROR_NO_DEVICE: return dev_permission_problem() ? VP_ERR_PERMISSION_DENIED : VP_ERR_NO_GPU;
    case CUDA_ERROR_UNKNOWN:
    case CUDA_ERROR_OPERATING_SYSTEM:
        return dev_permission_problem() ? VP_ERR_PERMISSION_DENIED : VP_ERR_INIT_FAILED;
    default: return VP_ERR_INIT_FAILED;
    }
}

static const char *init_hint(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_STUB_LIBRARY:
        return "the loaded libcuda is the CUDA toolkit's stub (lib64/stubs), not the NVIDIA driver's; "
               "check LD_LIBRARY_PATH";
    case CUDA_ERROR_NO_DEVICE: return "no CUDA-capable GPU is visible (check CUDA_VISIBLE_DEVICES and nvidia-smi)";
    case CUDA_ERROR_NOT_PERMITTED: return "the driver refused access; check permissions on /dev/nvidia*";
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER: return "the installed NVIDIA driver is too old";
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
        return "the NVIDIA kernel module and the user-space driver versions differ (reboot or reload the module "
               "after a driver upgrade)";
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        return "the CUDA forward-compatibility package is not supported on this GPU";
    case CUDA_ERROR_SYSTEM_NOT_READY: return "the system is not ready (e.g. fabric manager not running on an NVSwitch system)";
    default: return "the CUDA driver could not be initialised";
    }
}

/* ------------------------------------------------------------------ vp_collect */

cJSON *vp_collect(const vp_options *opt, vp_err *err, char *msg, size_t msgsz)
{
    vp_cuda cuda;
    vp_nvml nvml;
    char lmsg[512], eb[96], nvml_reason[512] = "";
    cJSON *doc = NULL;
    devstate *ds = NULL;
    memset(&nvml, 0, sizeof nvml);

    const char *libcuda = getenv("VRAMPLAN_PROBE_LIBCUDA");
    if (!libcuda || !*libcuda) libcuda = "libcuda.so.1";
    const char *libnvml = getenv("VRAMPLAN_PROBE_LIBNVML");
    if (!libnvml || !*libnvml) libnvml = "libnvidia-ml.so.1";

    vp_load_result lr = vp_cuda_load(&cuda, libcuda, lmsg, sizeof lmsg);
    if (lr == VP_LOAD_NOT_FOUND) {
        *err = VP_ERR_NO_DRIVER;
        snprintf(msg, msgsz, "NVIDIA driver not found: cannot load %s (%s)", libcuda, lmsg);
        return NULL;
    }
    if (lr == VP_LOAD_MISSING_SYMBOL) {
        *err = VP_ERR_DRIVER_TOO_OLD;
        snprintf(msg, msgsz, "NVIDIA driver too old: %s", lmsg);
        return NULL;
    }
    CUresult r = cuda.cuInit(0);
    if (r != CUDA_SUCCESS) {
        *err = map_init_error(r);
        snprintf(msg, msgsz, "cuInit failed: %s: %s", vp_cuda_err_name(&cuda, r, eb, sizeof eb), init_hint(r));
        goto fail;
    }
    int drv = 0;
    if ((r = cuda.cuDriverGetVersion(&drv)) != CUDA_SUCCESS) {
        *err = VP_ERR_INIT_FAILED;
        snprintf(msg, msgsz, "cuDriverGetVersion failed: %s", vp_cuda_err_name(&cuda, r, eb, sizeof eb));
        goto fail;
    }
    if (drv < 0) { /* host.cuda_driver_version is a required integer >= 0 */
        *err = VP_ERR_INIT_FAILED;
        snprintf(msg, msgsz, "cuDriverGetVersion returned %d, which is not a CUDA version", drv);
        goto fail;
    }
    int count = 0;
    if ((r = cuda.cuDeviceGetCount(&count)) != CUDA_SUCCESS) {
        *err = map_init_error(r);
        snprintf(msg, msgsz, "cuDeviceGetCount failed: %s: %s", vp_cuda_err_name(&cuda, r, eb, sizeof eb), init_hint(r));
        goto fail;
    }
    if (count <= 0) {
        *err = VP_ERR_NO_GPU;
        snprintf(msg, msgsz, "the CUDA driver reports no GPU (check CUDA_VISIBLE_DEVICES and nvidia-smi)");
        goto fail;
    }

    /* which devices */
    int n = opt->n_devices > 0 ? opt->n_devices : (count > VP_MAX_DEVICES ? VP_MAX_DEVICES : count);
    for (int i = 0; i < opt->n_devices; i++) {
        if (opt->devices[i] >= count) {
            *err = VP_ERR_BAD_ARGUMENTS;
            snprintf(msg, msgsz, "--device %d: only %d CUDA device%s visible (indices 0..%d)", opt->devices[i], count,
                     count == 1 ? " is" : "s are", count - 1);
            goto fail;
        }
    }
    if (opt->n_devices == 0 && count > VP_MAX_DEVICES)
        snprintf(lmsg, sizeof lmsg, "%d CUDA devices visible; only the first %d are reported", count, VP_MAX_DEVICES);
    else
        lmsg[0] = '\0';
    ds = calloc((size_t)n, sizeof *ds);
    if (!ds) goto oom;
    for (int i = 0; i < n; i++) {
        ds[i].ordinal = opt->n_devices > 0 ? opt->devices[i] : i;
        snprintf(ds[i].path, sizeof ds[i].path, "devices[%d]", i);
        if ((r = cuda.cuDeviceGet(&ds[i].dev, ds[i].ordinal)) != CUDA_SUCCESS) {
            *err = VP_ERR_INIT_FAILED;
            snprintf(msg, msgsz, "cuDeviceGet(%d) failed: %s", ds[i].ordinal, vp_cuda_err_name(&cuda, r, eb, sizeof eb));
            goto fail;
        }
    }

    /* NVML is optional */
    if (vp_nvml_load(&nvml, libnvml, nvml_reason, sizeof nvml_reason) != 0 && !nvml_reason[0])
        snprintf(nvml_reason, sizeof nvml_reason, "NVML not usable");

    build b;
    memset(&b, 0, sizeof b);
    b.cuda = &cuda;
    b.nvml = &nvml;
    b.nvml_reason = nvml.ok ? NULL : nvml_reason;
    b.unavailable = cJSON_CreateArray();
    b.warnings = cJSON_CreateArray();
    doc = cJSON_CreateObject();
    if (!b.unavailable || !b.warnings || !doc) {
        cJSON_Delete(b.unavailable);
        cJSON_Delete(b.warnings);
        goto oom;
    }

    if (lmsg[0]) warn(&b, "%s", lmsg);

    /* match CUDA devices to NVML devices */
    for (int i = 0; i < n && nvml.ok; i++) {
        int dom = 0, bus = 0, dv = 0;
        char cbus[64] = "", canon[40] = "";
        if (cuda.cuDeviceGetPCIBusId && cuda.cuDeviceGetPCIBusId(cbus, (int)sizeof cbus - 1, ds[i].dev) != CUDA_SUCCESS)
            cbus[0] = '\0';
        if (attr(&b, ds[i].dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &dom) &&
            attr(&b, ds[i].dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &bus) &&
            attr(&b, ds[i].dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &dv)) {
            snprintf(canon, sizeof canon, "%08X:%02X:%02X.0", (unsigned)dom, (unsigned)bus, (unsigned)dv);
            ds[i].has_nvml = nvml_match(&b, cbus, canon, (unsigned)dom, (unsigned)bus, (unsigned)dv, &ds[i].nvml);
        }
        if (!ds[i].has_nvml) warn(&b, "CUDA device %d (%s): no NVML device with this PCI bus id", ds[i].ordinal, canon);
    }

    put_str(&b, doc, "schema", VP_PROBE_SCHEMA);
    put_str(&b, doc, "probe_version", VP_PROBE_VERSION);
    char tbuf[64];
    if (vp_format_time(tbuf, sizeof tbuf) == 0) put_str(&b, doc, "time", tbuf);
    else put_null(&b, doc, "time");

    cJSON *host = put_obj(&b, doc, "host");
    if (host) {
        if (opt->hostname && !opt->redact) {
            char hn[256];
            memset(hn, 0, sizeof hn);
            if (gethostname(hn, sizeof hn - 1) == 0) put_str(&b, host, "hostname", hn);
            else {
                put_null(&b, host, "hostname");
                unavail(&b, "host.hostname", "gethostname: %s", strerror(errno));
            }
        }
        char dv[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE + 1];
        memset(dv, 0, sizeof dv);
        nvmlReturn_t nr = NVML_ERROR_FUNCTION_NOT_FOUND;
        if (nvml.ok && nvml.nvmlSystemGetDriverVersion &&
            (nr = nvml.nvmlSystemGetDriverVersion(dv, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE)) == NVML_SUCCESS)
            put_str(&b, host, "driver_version", dv);
        else if (proc_driver_version(dv, sizeof dv) == 0)
            put_str(&b, host, "driver_version", dv);
        else {
            put_null(&b, host, "driver_version");
            if (!nvml.ok)
                unavail(&b, "host.driver_version", "%s; /proc/driver/nvidia/version not readable", nvml_reason);
            else
                unavail(&b, "host.driver_version", "nvmlSystemGetDriverVersion: %s", vp_nvml_err_name(nr));
        }
        put_num(&b, host, "cuda_driver_version", drv);
        put_bool(&b, host, "nvml", nvml.ok);
        int ncv = 0;
        if (nvml.ok && nvml.nvmlSystemGetCudaDriverVersion_v2 &&
            nvml.nvmlSystemGetCudaDriverVersion_v2(&ncv) == NVML_SUCCESS && ncv != drv)
            warn(&b, "cuDriverGetVersion says %d but NVML says %d (CUDA forward-compatibility package in use?)", drv, ncv);
    }
    put_bool(&b, doc, "redacted", opt->redact);

    cJSON *devices = put_arr(&b, doc, "devices");
    for (int i = 0; i < n && !b.oom; i++) device_block(&b, opt, devices, &ds[i]);

    /* peer access matrix, indexed by position in devices[] */
    cJSON *peer = put_arr(&b, doc, "peer_access");
    for (int i = 0; i < n && !b.oom; i++) {
        cJSON *row = cJSON_CreateArray();
        arr_add(&b, peer, row);
        if (b.oom) break;
        for (int j = 0; j < n; j++) {
            if (i == j) {
                arr_add(&b, row, cJSON_CreateFalse());
                continue;
            }
            int can = 0;
            CUresult pr = cuda.cuDeviceCanAccessPeer ? cuda.cuDeviceCanAccessPeer(&can, ds[i].dev, ds[j].dev)
                                                     : CUDA_ERROR_NOT_SUPPORTED;
            if (pr == CUDA_SUCCESS) arr_add(&b, row, cJSON_CreateBool(can != 0));
            else {
                char f[64];
                arr_add(&b, row, cJSON_CreateNull());
                snprintf(f, sizeof f, "peer_access[%d][%d]", i, j);
                unavail(&b, f, "%s", cuda.cuDeviceCanAccessPeer ? vp_cuda_err_name(&cuda, pr, eb, sizeof eb)
                                                                : "cuDeviceCanAccessPeer not exported");
            }
        }
    }

    /* PCIe topology between devices (NVML common ancestor) */
    cJSON *topo = put_arr(&b, doc, "topology");
    for (int i = 0; i < n && !b.oom; i++) {
        cJSON *row = cJSON_CreateArray();
        arr_add(&b, topo, row);
        if (b.oom) break;
        for (int j = 0; j < n; j++) {
            if (i == j) {
                arr_add(&b, row, cJSON_CreateString("self"));
                continue;
            }
            nvmlGpuTopologyLevel_t lvl = 0;
            nvmlReturn_t tr = NVML_ERROR_FUNCTION_NOT_FOUND;
            if (nvml.ok && ds[i].has_nvml && ds[j].has_nvml && nvml.nvmlDeviceGetTopologyCommonAncestor &&
                (tr = nvml.nvmlDeviceGetTopologyCommonAncestor(ds[i].nvml, ds[j].nvml, &lvl)) == NVML_SUCCESS) {
                arr_add(&b, row, cJSON_CreateString(topology_name(lvl)));
            } else {
                char f[64];
                arr_add(&b, row, cJSON_CreateNull());
                snprintf(f, sizeof f, "topology[%d][%d]", i, j);
                unavail(&b, f, "%s",
                        !nvml.ok ? nvml_reason
                        : (!ds[i].has_nvml || !ds[j].has_nvml) ? "no NVML device matches this PCI bus id"
                        : !nvml.nvmlDeviceGetTopologyCommonAncestor ? "nvmlDeviceGetTopologyCommonAncestor not exported"
                                                                    : vp_nvml_err_name(tr));
            }
        }
    }

    cJSON *nvl = put_arr(&b, doc, "nvlink");
    for (int i = 0; i < n && !b.oom; i++) nvlink_entry(&b, nvl, &ds[i], i);

    if (!cJSON_AddItemToObject(doc, "unavailable", b.unavailable)) {
        cJSON_Delete(b.unavailable);
        b.oom = 1;
    }
    if (!cJSON_AddItemToObject(doc, "warnings", b.warnings)) {
        cJSON_Delete(b.warnings);
        b.oom = 1;
    }
    if (!b.oom && vp_json_make_utf8(doc) < 0) b.oom = 1;
    if (b.oom) goto oom;

    free(ds);
    vp_nvml_unload(&nvml);
    vp_cuda_unload(&cuda);
    *err = VP_OK;
    return doc;

oom:
    *err = VP_ERR_INTERNAL;
    snprintf(msg, msgsz, "out of memory while building the report");
fail:
    cJSON_Delete(doc);
    free(ds);
    vp_nvml_unload(&nvml);
    vp_cuda_unload(&cuda);
    return NULL;
}
