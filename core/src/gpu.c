/* gpu.c: GPU presets (the files of models/gpus/) and probe files (vramplan/gpu-probe@1,
 * docs/schema/gpu-probe.md) -> vp_gpu. */
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

vp_status vp_gpu_from_probe(const cJSON *probe, const char *p, int device, vp_gpu *g, int *n_devices, vp_error *err) {
    vp_status st;
    char path[128];
    memset(g, 0, sizeof *g);
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
    if ((st = read_bytes(mem, mpath, "total_bytes", 1, &g->cuda_total_bytes, err))) return st;
    if ((st = read_bytes(mem, mpath, "free_bytes", 0, &g->free_bytes, err))) return st;
    if ((st = read_bytes(mem, mpath, "context_bytes", 0, &g->context_bytes, err))) return st;
    if (g->free_bytes > g->cuda_total_bytes) {
        vp_path_key(path, sizeof path, mpath, "free_bytes");
        return vp_fail(err, VP_ERR_RANGE, path, "%s is larger than total_bytes", path);
    }
    g->memory_bytes = g->cuda_total_bytes;
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
