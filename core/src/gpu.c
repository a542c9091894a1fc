/* gpu.c: GPU presets (the files of models/gpus/) and probe files (vramplan/gpu-probe@1,
 * docs/schema/gpu-probe.md) -> vp_gpu. */
#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "util.h"

#define MAX_GPU_BYTES (1ULL << 44) /* 16 TiB: far above any GPU */

static vp_status read_bytes(const cJSON *obj, const char *base, const char *key, int required, uint64_t *out,
                            vp_error *err) {
    int64_t v = 0;
    vp_status st = required ? vp_json_int(obj, base, key, 1, (int64_t)MAX_GPU_BYTES, &v, err)
                            : vp_json_opt_int(obj, base, key, 0, (int64_t)MAX_GPU_BYTES, &v, err);
    if (st) return st;
    if (v > 0) *out = (uint64_t)v;
    return VP_OK;
}

vp_status vp_gpu_from_preset(const cJSON *o, const char *p, vp_gpu *g, vp_error *err) {
    vp_status st;
    memset(g, 0, sizeof *g);
    g->mig_instance = -1;
    if (!cJSON_IsObject(o)) return vp_fail(err, VP_ERR_FIELD, p, "%s must be an object", p);
    if ((st = vp_json_opt_str(o, p, "id", g->id, sizeof g->id, err))) return st;
    if ((st = vp_json_opt_str(o, p, "name", g->name, sizeof g->name, err))) return st;
    if ((st = read_bytes(o, p, "memory_bytes", 1, &g->memory_bytes, err))) return st;
    if ((st = read_bytes(o, p, "cuda_total_bytes", 0, &g->cuda_total_bytes, err))) return st;
    if ((st = vp_json_opt_num(o, p, "bandwidth_gbs", 0, 1e6, &g->bandwidth_gbs, err))) return st;
    if ((st = vp_json_opt_bool(o, p, "bf16", &g->bf16, err))) return st;
    if ((st = vp_json_opt_bool(o, p, "fp8", &g->fp8, err))) return st;
    if (!g->name[0]) vp_strlcpy(g->name, g->id, sizeof g->name);
    return VP_OK;
}

/* MIG on (docs/schema/gpu-probe.md "devices[i].mig"): CUDA sees MIG instances, never the whole GPU,
 * so the capacity is one instance's memory: the one the plan names, or the smallest (a job that must
 * fit whichever slice the scheduler hands out). NVML's free memory of the instance was read before
 * any context of ours, so it is what CUDA can offer the process. */
static vp_status read_mig(const cJSON *d, const char *dpath, int want, vp_gpu *g, vp_error *err) {
    const cJSON *mig = cJSON_GetObjectItemCaseSensitive(d, "mig");
    char mpath[128], ipath[128], path[128];
    vp_path_key(mpath, sizeof mpath, dpath, "mig");
    if (!mig || cJSON_IsNull(mig)) return VP_OK;
    if (!cJSON_IsObject(mig)) return vp_fail(err, VP_ERR_FIELD, mpath, "%s must be an object", mpath);
    int on = 0;
    vp_status st = vp_json_opt_bool(mig, mpath, "enabled", &on, err);
    if (st) return st;
    if (!on) {
        if (want >= 0)
            return vp_fail(err, VP_ERR_FIELD, "hardware.mig_instance",
                           "hardware.mig_instance picks a MIG instance, but MIG is not enabled on %s", dpath);
        return VP_OK;
    }
    const cJSON *insts = cJSON_GetObjectItemCaseSensitive(mig, "instances");
    vp_path_key(ipath, sizeof ipath, mpath, "instances");
    int n = cJSON_IsArray(insts) ? cJSON_GetArraySize(insts) : 0;
    if (n == 0)
        return vp_fail(err, VP_ERR_FIELD, ipath,
                       "%s is empty, but MIG is enabled: CUDA can only use a MIG instance, not the whole GPU "
                       "(create one with `nvidia-smi mig -cgi ... -C` and probe again, or set hardware.capacity_bytes)",
                       ipath);
    if (want >= n)
        return vp_fail(err, VP_ERR_RANGE, "hardware.mig_instance", "hardware.mig_instance = %d, but %s lists %d MIG instance(s)",
                       want, ipath, n);
    uint64_t best_total = 0, best_free = 0;
    int best = -1;
    for (int i = 0; i < n; i++) {
        const cJSON *in = cJSON_GetArrayItem(insts, i);
        char p[128];
        vp_path_index(p, sizeof p, ipath, i);
        if (!cJSON_IsObject(in)) return vp_fail(err, VP_ERR_FIELD, p, "%s must be an object", p);
        uint64_t total = 0, free_b = 0;
        if ((st = read_bytes(in, p, "total_bytes", 1, &total, err))) return st;
        if ((st = read_bytes(in, p, "free_bytes", 0, &free_b, err))) return st;
        if (free_b > total) {
            vp_path_key(path, sizeof path, p, "free_bytes");
            return vp_fail(err, VP_ERR_RANGE, path, "%s is larger than total_bytes", path);
        }
        if (want >= 0 ? i == want : (best < 0 || total < best_total)) {
            best = i;
            best_total = total;
            best_free = free_b;
        }
    }
    g->memory_bytes = best_total;
    g->cuda_total_bytes = best_free ? best_free : best_total;
    g->free_bytes = 0; /* the NVML figure already is what the process can have (no context of ours in it) */
    g->mig_instance = best;
    g->mig_count = n;
    char base[72];
    vp_strlcpy(base, g->name, sizeof base);
    snprintf(g->name, sizeof g->name, "%s MIG instance %d", base, best);
    return VP_OK;
}

vp_status vp_gpu_from_probe(const cJSON *probe, const char *p, int device, int mig_instance, vp_gpu *g, int *n_devices,
                            vp_error *err) {
    vp_status st;
    char path[128];
    memset(g, 0, sizeof *g);
    g->mig_instance = -1;
    if (!cJSON_IsObject(probe)) return vp_fail(err, VP_ERR_FIELD, p, "%s must be a probe object (vramplan/gpu-probe@1)", p);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(probe, "schema");
    vp_path_key(path, sizeof path, p, "schema");
    if (!cJSON_IsString(schema))
        return vp_fail(err, VP_ERR_SCHEMA, path,
                       "%s is missing: this is not a vramplan-probe file (expected \"" VP_PROBE_SCHEMA "\")", path);
    if (strcmp(schema->valuestring, VP_PROBE_SCHEMA) != 0) {
        char shown[48];
        vp_strlcpy(shown, schema->valuestring, sizeof shown);
        return vp_fail(err, VP_ERR_SCHEMA, path, "%s is \"%s\"; this build reads \"" VP_PROBE_SCHEMA "\"", path, shown);
    }
    const cJSON *perr = cJSON_GetObjectItemCaseSensitive(probe, "error");
    if (perr) {
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(perr, "message");
        char shown[160];
        vp_strlcpy(shown, cJSON_IsString(msg) ? msg->valuestring : "unknown error", sizeof shown);
        vp_path_key(path, sizeof path, p, "error");
        return vp_fail(err, VP_ERR_FIELD, path, "the probe reported an error instead of GPUs: %s", shown);
    }
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(probe, "devices");
    vp_path_key(path, sizeof path, p, "devices");
    if (!cJSON_IsArray(devs) || cJSON_GetArraySize(devs) == 0)
        return vp_fail(err, VP_ERR_FIELD, path, "%s must be a non-empty array of GPUs", path);
    int n = cJSON_GetArraySize(devs);
    if (n_devices) *n_devices = n;
    if (device < 0 || device >= n)
        return vp_fail(err, VP_ERR_RANGE, "hardware.device", "hardware.device = %d, but the probe file has %d GPU(s)", device, n);
    char dpath[128];
    vp_path_index(dpath, sizeof dpath, path, device);
    const cJSON *d = cJSON_GetArrayItem(devs, device);
    if (!cJSON_IsObject(d)) return vp_fail(err, VP_ERR_FIELD, dpath, "%s must be an object", dpath);
    if ((st = vp_json_opt_str(d, dpath, "name", g->name, sizeof g->name, err))) return st;
    if (!g->name[0]) {
        vp_path_key(path, sizeof path, dpath, "name");
        return vp_fail(err, VP_ERR_FIELD, path, "missing required field %s", path);
    }
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(d, "memory");
    char mpath[128];
    vp_path_key(mpath, sizeof mpath, dpath, "memory");
    if (!cJSON_IsObject(mem)) return vp_fail(err, VP_ERR_FIELD, mpath, "missing required object %s", mpath);
    /* with MIG on, the whole GPU's memory may be unmeasured (null): the instances carry it */
    int mig_on = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "mig"), "enabled"));
    if ((st = read_bytes(mem, mpath, "total_bytes", !mig_on, &g->cuda_total_bytes, err))) return st;
    if ((st = read_bytes(mem, mpath, "free_bytes", 0, &g->free_bytes, err))) return st;
    if ((st = read_bytes(mem, mpath, "context_bytes", 0, &g->context_bytes, err))) return st;
    if (g->cuda_total_bytes && g->free_bytes > g->cuda_total_bytes) {
        vp_path_key(path, sizeof path, mpath, "free_bytes");
        return vp_fail(err, VP_ERR_RANGE, path, "%s is larger than total_bytes", path);
    }
    g->memory_bytes = g->cuda_total_bytes;
    if ((st = read_mig(d, dpath, mig_instance, g, err))) return st;
    if ((st = vp_json_opt_num(d, dpath, "peak_bandwidth_gbs", 0, 1e6, &g->bandwidth_gbs, err))) return st;
    const cJSON *sup = cJSON_GetObjectItemCaseSensitive(d, "supports");
    if (cJSON_IsObject(sup)) {
        char spath[160];
        vp_path_key(spath, sizeof spath, dpath, "supports");
        if ((st = vp_json_opt_bool(sup, spath, "bf16", &g->bf16, err))) return st;
        if ((st = vp_json_opt_bool(sup, spath, "fp8", &g->fp8, err))) return st;
    }
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(probe, "host");
    if (cJSON_IsObject(host)) {
        const cJSON *hn = cJSON_GetObjectItemCaseSensitive(host, "hostname");
        if (cJSON_IsString(hn)) vp_strlcpy(g->node, hn->valuestring, sizeof g->node);
    }
    g->from_probe = 1;
    vp_strlcpy(g->id, "probe", sizeof g->id);
    return VP_OK;
}
