/* json_read.c: strict field readers over cJSON. Every failure names the JSON path. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

void vp_strlcpy(char *dst, const char *src, size_t n) {
    if (n == 0) return;
    size_t len = src ? strlen(src) : 0;
    if (len >= n) len = vp_utf8_cut(src, n - 1); /* never half a character */
    if (len) memcpy(dst, src, len);
    dst[len] = '\0';
}

/* a path cut at the buffer's end keeps whole characters */
static void cut_tail(char *dst, size_t n, int wrote) {
    if (n && wrote >= 0 && (size_t)wrote >= n) dst[vp_utf8_cut(dst, strlen(dst))] = '\0';
}

void vp_path_key(char *dst, size_t n, const char *base, const char *key) {
    int w;
    if (base && base[0])
        w = snprintf(dst, n, "%s.%s", base, key);
    else
        w = snprintf(dst, n, "%s", key);
    cut_tail(dst, n, w);
}

void vp_path_index(char *dst, size_t n, const char *base, int index) {
    int w = snprintf(dst, n, "%s[%d]", base ? base : "", index);
    cut_tail(dst, n, w);
}

static const cJSON *get(const cJSON *obj, const char *key) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it || cJSON_IsNull(it)) return NULL;
    return it;
}

static vp_status read_int(const cJSON *it, const char *path, int64_t lo, int64_t hi, int64_t *out,
                          vp_error *err) {
    if (!cJSON_IsNumber(it)) return vp_fail(err, VP_ERR_FIELD, path, "%s must be a number", path);
    double v = it->valuedouble;
    if (!isfinite(v)) return vp_fail(err, VP_ERR_RANGE, path, "%s is not a finite number", path);
    if (v != floor(v)) return vp_fail(err, VP_ERR_RANGE, path, "%s must be a whole number (got %g)", path, v);
    if (v < (double)lo || v > (double)hi) {
        /* whole numbers print in full up to 15 digits; beyond, %g (1e308 would take 309 digits) */
        if (v > -1e15 && v < 1e15)
            return vp_fail(err, VP_ERR_RANGE, path, "%s = %.0f is out of range [%lld, %lld]", path, v,
                           (long long)lo, (long long)hi);
        return vp_fail(err, VP_ERR_RANGE, path, "%s = %.6g is out of range [%lld, %lld]", path, v, (long long)lo,
                       (long long)hi);
    }
    *out = (int64_t)v;
    return VP_OK;
}

vp_status vp_json_int(const cJSON *obj, const char *base, const char *key, int64_t lo, int64_t hi,
                      int64_t *out, vp_error *err) {
    char path[128];
    vp_path_key(path, sizeof path, base, key);
    const cJSON *it = get(obj, key);
    if (!it) return vp_fail(err, VP_ERR_FIELD, path, "missing required field %s", path);
    return read_int(it, path, lo, hi, out, err);
}

vp_status vp_json_opt_int(const cJSON *obj, const char *base, const char *key, int64_t lo, int64_t hi,
                          int64_t *out, vp_error *err) {
    const cJSON *it = get(obj, key);
    if (!it) return VP_OK;
    char path[128];
    vp_path_key(path, sizeof path, base, key);
    return read_int(it, path, lo, hi, out, err);
}

vp_status vp_json_opt_num(const cJSON *obj, const char *base, const char *key, double lo, double hi,
                          double *out, vp_error *err) {
    const cJSON *it = get(obj, key);
    if (!it) return VP_OK;
    char path[128];
    vp_path_key(path, sizeof path, base, key);
    if (!cJSON_IsNumber(it)) return vp_fail(err, VP_ERR_FIELD, path, "%s must be a number", path);
    double v = it->valuedouble;
    if (!isfinite(v)) return vp_fail(err, VP_ERR_RANGE, path, "%s is not a finite number", path);
    if (v < lo || v > hi) return vp_fail(err, VP_ERR_RANGE, path, "%s = %g is out of range [%g, %g]", path, v, lo, hi);
    *out = v;
    return VP_OK;
}

vp_status vp_json_opt_bool(const cJSON *obj, const char *base, const char *key, int *out, vp_error *err) {
    const cJSON *it = get(obj, key);
    if (!it) return VP_OK;
    char path[128];
    vp_path_key(path, sizeof path, base, key);
    if (!cJSON_IsBool(it)) return vp_fail(err, VP_ERR_FIELD, path, "%s must be true or false", path);
    *out = cJSON_IsTrue(it) ? 1 : 0;
    return VP_OK;
}

vp_status vp_json_opt_str(const cJSON *obj, const char *base, const char *key, char *out, size_t n,
                          vp_error *err) {
    const cJSON *it = get(obj, key);
    if (!it) return VP_OK;
    char path[128];
    vp_path_key(path, sizeof path, base, key);
    if (!cJSON_IsString(it) || !it->valuestring) return vp_fail(err, VP_ERR_FIELD, path, "%s must be a string", path);
    if (strlen(it->valuestring) >= n)
        return vp_fail(err, VP_ERR_RANGE, path, "%s is too long (at most %zu characters)", path, n - 1);
    vp_strlcpy(out, it->valuestring, n);
    return VP_OK;
}

vp_status vp_json_opt_enum(const cJSON *obj, const char *base, const char *key, const char *const *choices,
                           int *out, vp_error *err) {
    const cJSON *it = get(obj, key);
    if (!it) return VP_OK;
    char path[128];
    vp_path_key(path, sizeof path, base, key);
    if (!cJSON_IsString(it) || !it->valuestring) return vp_fail(err, VP_ERR_FIELD, path, "%s must be a string", path);
    for (int i = 0; choices[i]; i++) {
        if (strcmp(choices[i], it->valuestring) == 0) {
            *out = i;
            return VP_OK;
        }
    }
    char list[200] = "";
    size_t used = 0;
    for (int i = 0; choices[i] && used + 2 < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", choices[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
    char shown[40];
    vp_strlcpy(shown, it->valuestring, sizeof shown);
    return vp_fail(err, VP_ERR_UNSUPPORTED, path, "%s: unknown value \"%s\" (expected one of: %s)", path, shown, list);
}

vp_status vp_json_only_keys(const cJSON *obj, const char *base, const char *const *allowed, vp_error *err) {
    if (!cJSON_IsObject(obj)) return vp_fail(err, VP_ERR_FIELD, base, "%s must be an object", base);
    for (const cJSON *it = obj->child; it; it = it->next) {
        int ok = 0;
        for (int i = 0; allowed[i]; i++) {
            if (it->string && strcmp(it->string, allowed[i]) == 0) {
                ok = 1;
                break;
            }
        }
        if (!ok) {
            char key[48];
            vp_strlcpy(key, it->string ? it->string : "?", sizeof key);
            char path[128];
            vp_path_key(path, sizeof path, base, key);
            return vp_fail(err, VP_ERR_FIELD, path, "unknown field %s", path);
        }
        /* a field given twice is ambiguous (JSON parsers disagree on which wins): refuse it */
        for (const cJSON *later = it->next; later; later = later->next) {
            if (later->string && it->string && strcmp(later->string, it->string) == 0) {
                char key[48];
                vp_strlcpy(key, it->string, sizeof key);
                char path[128];
                vp_path_key(path, sizeof path, base, key);
                return vp_fail(err, VP_ERR_FIELD, path, "field %s is given twice", path);
            }
        }
    }
    return VP_OK;
}

void vp_fmt_count(char *dst, size_t n, double c) {
    if (c >= 1e9)
        snprintf(dst, n, "%.2fB", c / 1e9);
    else if (c >= 1e6)
        snprintf(dst, n, "%.1fM", c / 1e6);
    else if (c >= 1e4)
        snprintf(dst, n, "%.1fK", c / 1e3);
    else
        snprintf(dst, n, "%.0f", c);
}

void vp_fmt_bytes(char *dst, size_t n, double b) {
    double a = b < 0 ? -b : b;
    if (a >= VP_GIB)
        snprintf(dst, n, "%.2f GiB", b / VP_GIB);
    else if (a >= VP_MIB)
        snprintf(dst, n, "%.1f MiB", b / VP_MIB);
    else if (a >= 1024.0)
        snprintf(dst, n, "%.1f KiB", b / 1024.0);
    else
        snprintf(dst, n, "%.0f B", b);
}

int64_t vp_mul_sat(int64_t a, int64_t b) {
    if (a <= 0 || b <= 0) return 0; /* sizes are non-negative */
    if (a > INT64_MAX / b) return INT64_MAX;
    return a * b;
}

int64_t vp_add_sat(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    return a + b;
}
