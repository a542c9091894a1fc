/* util.h: error helpers, strict JSON field readers and byte formatting shared by the core. */
#ifndef VP_UTIL_H
#define VP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "vramplan.h"

#define VP_GIB (1024.0 * 1024.0 * 1024.0)
#define VP_MIB (1024.0 * 1024.0)

vp_status vp_fail(vp_error *err, vp_status code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void vp_error_clear(vp_error *err);

/* Copy src into dst (size n), always NUL-terminated, truncating. */
void vp_strlcpy(char *dst, const char *src, size_t n);
/* dst = base + "." + key (or "[i]"), truncated to n. */
void vp_path_key(char *dst, size_t n, const char *base, const char *key);
void vp_path_index(char *dst, size_t n, const char *base, int index);

/* Strict readers. Each returns VP_OK and writes *out, or fails naming base.key.
 * "opt" variants leave *out unchanged when the key is absent or null. */
vp_status vp_json_int(const cJSON *obj, const char *base, const char *key, int64_t lo, int64_t hi,
                      int64_t *out, vp_error *err);
vp_status vp_json_opt_int(const cJSON *obj, const char *base, const char *key, int64_t lo, int64_t hi,
                          int64_t *out, vp_error *err);
vp_status vp_json_opt_num(const cJSON *obj, const char *base, const char *key, double lo, double hi,
                          double *out, vp_error *err);
vp_status vp_json_opt_bool(const cJSON *obj, const char *base, const char *key, int *out, vp_error *err);
/* String that must be one of choices (NULL-terminated list); *out = index. */
vp_status vp_json_opt_enum(const cJSON *obj, const char *base, const char *key, const char *const *choices,
                           int *out, vp_error *err);
vp_status vp_json_opt_str(const cJSON *obj, const char *base, const char *key, char *out, size_t n,
                          vp_error *err);
/* Every key of obj must be in allowed (NULL-terminated). */
vp_status vp_json_only_keys(const cJSON *obj, const char *base, const char *const *allowed, vp_error *err);

/* Strict JSON text (RFC 8259) -> cJSON tree (json_text.c). NULL and err filled, naming the line and
 * column (and the JSON path of the field, when there is one) on: a syntax error, text after the
 * value, bytes that are not UTF-8, \u0000 or an unpaired surrogate, a key given twice in any object,
 * a number JSON does not allow (+1, 01, .5) or longer than 63 characters, nesting deeper than 512. */
cJSON *vp_json_parse(const char *text, vp_error *err);

/* ---- estimate_json.c ---- */
/* The estimate@1 object of e (NULL when out of memory). */
cJSON *vp_estimate_to_cjson(const vp_estimate *e);
/* The top-level "serving" object of a serve plan's estimate, added to root (serve_json.c). */
void vp_serving_to_cjson(const vp_serving *sv, cJSON *root);
/* Print root (and delete it) into memory the caller frees with vp_free; NULL when out of memory. */
char *vp_cjson_print(cJSON *root, int pretty);
/* Is s[0..n) valid UTF-8 (no overlong forms, surrogates or code points above U+10FFFF)? */
int vp_utf8_valid(const char *s, size_t n);
/* Replace every byte that is not part of a valid UTF-8 sequence with '?'. */
void vp_utf8_scrub(char *s);
/* The largest length <= n at which s (valid UTF-8) can be cut without splitting a character. */
size_t vp_utf8_cut(const char *s, size_t n);

/* "1.24B", "41.9M", "896" */
void vp_fmt_count(char *dst, size_t n, double count);
/* "12.3 GiB", "512 MiB", "3.0 KiB" */
void vp_fmt_bytes(char *dst, size_t n, double bytes);

/* Saturating helpers: sizes are int64 and never overflow silently. */
int64_t vp_mul_sat(int64_t a, int64_t b);
int64_t vp_add_sat(int64_t a, int64_t b);

#endif
