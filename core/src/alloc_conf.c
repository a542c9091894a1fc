/* alloc_conf.c: PYTORCH_CUDA_ALLOC_CONF (PYTORCH_ALLOC_CONF) text -> vp_alloc_conf.
 *
 * Grammar and checks of PyTorch 2.11: c10/core/AllocatorConfig.cpp (ConfigTokenizer,
 * AcceleratorAllocatorConfig::parseArgs and its parse* helpers: the device-independent keys) and
 * c10/cuda/CUDAAllocatorConfig.cpp (CUDAAllocatorConfig::parseArgs: the CUDA keys, and the
 * "Unrecognized key" check). Tokens are split at ',', ':', '[' and ']'; spaces are dropped. Keys that
 * do not change device memory (pinned host memory, locking, graph capture) are checked and
 * ignored. Stricter than PyTorch in one way: a number must be all digits (std::stoul reads "12ab"
 * as 12). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_sim.h"
#include "util.h"

#define TOK_MAX 64
#define MB 1048576ULL

typedef struct {
    const char *p;
    const char *path;
    vp_error *err;
} lexer;

/* ConfigTokenizer: the next token into tok; 0 at the end of the text. */
static int lex(lexer *L, char tok[TOK_MAX]) {
    size_t n = 0;
    while (*L->p == ' ') L->p++;
    if (!*L->p) return 0;
    if (strchr(",:[]", *L->p)) {
        tok[0] = *L->p++;
        tok[1] = '\0';
        return 1;
    }
    while (*L->p && !strchr(",:[]", *L->p)) {
        if (*L->p != ' ' && n + 1 < TOK_MAX) tok[n++] = *L->p;
        L->p++;
    }
    tok[n] = '\0';
    return 1;
}

static int is_delim(const char *t) { return t[0] && strchr(",:[]", t[0]) && !t[1]; }

static vp_status expect(lexer *L, const char *what, const char *key) {
    char t[TOK_MAX];
    if (!lex(L, t) || strcmp(t, what) != 0)
        return vp_fail(L->err, VP_ERR_FIELD, L->path,
                       "Error parsing PYTORCH_CUDA_ALLOC_CONF: expected '%s' after %s", what, key);
    return VP_OK;
}

/* "key:" then the value token */
static vp_status value(lexer *L, const char *key, char tok[TOK_MAX]) {
    vp_status st = expect(L, ":", key);
    if (st) return st;
    if (!lex(L, tok) || is_delim(tok))
        return vp_fail(L->err, VP_ERR_FIELD, L->path, "Error, expecting %s value", key);
    return VP_OK;
}

/* ConfigTokenizer::toSizeT */
static vp_status to_size(lexer *L, const char *key, const char *tok, uint64_t *out) {
    uint64_t v = 0;
    if (!*tok) return vp_fail(L->err, VP_ERR_RANGE, L->path, "Expected an integer for %s, got ''", key);
    for (const char *c = tok; *c; c++) {
        if (*c < '0' || *c > '9')
            return vp_fail(L->err, VP_ERR_RANGE, L->path, "Expected an integer for %s, got '%s'", key, tok);
        if (v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
            return vp_fail(L->err, VP_ERR_RANGE, L->path, "%s value '%s' is too large", key, tok);
        v = v * 10 + (uint64_t)(*c - '0');
    }
    *out = v;
    return VP_OK;
}

/* ConfigTokenizer::toDouble */
static vp_status to_double(lexer *L, const char *key, const char *tok, double *out) {
    char *end = NULL;
    double v = strtod(tok, &end);
    if (!*tok || !end || *end || v != v)
        return vp_fail(L->err, VP_ERR_RANGE, L->path, "Expected a number for %s, got '%s'", key, tok);
    *out = v;
    return VP_OK;
}

/* ConfigTokenizer::toBool */
static vp_status to_bool(lexer *L, const char *key, int *out) {
    char t[TOK_MAX];
    vp_status st = value(L, key, t);
    if (st) return st;
    if (strcmp(t, "True") && strcmp(t, "False"))
        return vp_fail(L->err, VP_ERR_RANGE, L->path, "Expected a single True/False argument for %s, got '%s'",
                       key, t);
    *out = strcmp(t, "True") == 0;
    return VP_OK;
}

static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
static int log2_floor(uint64_t x) { return 63 - __builtin_clzll(x); }

/* parseMaxSplitSize / parseMaxNonSplitRoundingSize: MiB, at least kLargeBuffer (20 MiB), capped at
 * SIZE_MAX / 1 MiB */
static vp_status size_mb(lexer *L, const char *key, uint64_t *out) {
    char t[TOK_MAX];
    uint64_t v;
    vp_status st = value(L, key, t);
    if (!st) st = to_size(L, key, t, &v);
    if (st) return st;
    if (v < 20)
        return vp_fail(L->err, VP_ERR_RANGE, L->path, "CachingAllocator option %s too small, must be >= 20", key);
    if (v > UINT64_MAX / MB) v = UINT64_MAX / MB;
    *out = v * MB;
    return VP_OK;
}

/* parseRoundUpPower2Divisions: "4" (every size) or "[256:1,512:2,>:8]" (per power-of-two interval
 * of the request size in MiB; '>' sets every interval after the last one named) */
static vp_status roundup(lexer *L, vp_alloc_conf *c) {
    const char *key = "roundup_power2_divisions";
    char t[TOK_MAX];
    uint64_t v;
    vp_status st = expect(L, ":", key);
    if (st) return st;
    if (!lex(L, t)) return vp_fail(L->err, VP_ERR_FIELD, L->path, "Error, expecting %s value", key);
    if (strcmp(t, "[") != 0) { /* Keep this for backwards compatibility */
        if ((st = to_size(L, key, t, &v))) return st;
        if (!is_pow2(v) || v > (1u << 30))
            return vp_fail(L->err, VP_ERR_RANGE, L->path, "For roundups, the divisions has to be power of 2 (%s)", key);
        for (int i = 0; i < VP_ALLOC_ROUNDUP_INTERVALS; i++) c->roundup_power2_intervals[i] = (uint32_t)v;
        c->roundup_power2_divisions = (int)v;
        return VP_OK;
    }
    uint32_t iv[VP_ALLOC_ROUNDUP_INTERVALS];
    memcpy(iv, c->roundup_power2_intervals, sizeof iv);
    int first = 1;
    uint64_t last_index = 0;
    for (;;) {
        char b[TOK_MAX], vt[TOK_MAX];
        if (!lex(L, b))
            return vp_fail(L->err, VP_ERR_FIELD, L->path, "Expected closing bracket ']' in %s", key);
        if (!strcmp(b, "]")) break;
        if ((st = expect(L, ":", key))) return st;
        if (!lex(L, vt) || is_delim(vt)) return vp_fail(L->err, VP_ERR_FIELD, L->path, "Error parsing %s value", key);
        if ((st = to_size(L, key, vt, &v))) return st;
        if ((v != 0 && !is_pow2(v)) || v > (1u << 30))
            return vp_fail(L->err, VP_ERR_RANGE, L->path,
                           "For roundups, the divisions has to be power of 2 or 0 to disable roundup (%s)", key);
        if (!strcmp(b, ">")) {
            for (uint64_t i = last_index + 1; i < VP_ALLOC_ROUNDUP_INTERVALS; i++) iv[i] = (uint32_t)v;
        } else {
            uint64_t boundary;
            if ((st = to_size(L, key, b, &boundary))) return st;
            if (!is_pow2(boundary))
                return vp_fail(L->err, VP_ERR_RANGE, L->path, "For roundups, the intervals have to be power of 2 (%s)",
                               key);
            uint64_t index = (uint64_t)log2_floor(boundary);
            if (index > VP_ALLOC_ROUNDUP_INTERVALS - 1) index = VP_ALLOC_ROUNDUP_INTERVALS - 1;
            if (first) {
                for (uint64_t i = 0; i < index; i++) iv[i] = (uint32_t)v;
                first = 0;
            }
            iv[index] = (uint32_t)v;
            last_index = index;
        }
        lexer peek = *L;
        char nt[TOK_MAX];
        if (lex(&peek, nt) && strcmp(nt, "]") != 0 && (st = expect(L, ",", key))) return st;
    }
    memcpy(c->roundup_power2_intervals, iv, sizeof iv);
    c->roundup_power2_divisions = 0;
    return VP_OK;
}

vp_status vp_alloc_conf_parse(const char *text, const char *path_prefix, vp_alloc_conf *out, vp_error *err) {
    vp_alloc_conf c;
    vp_alloc_conf_default(&c);
    lexer L = {text ? text : "", path_prefix ? path_prefix : "", err};
    char key[TOK_MAX], t[TOK_MAX];
    int flag = 0;
    uint64_t v;
    double d = 0.0;
    vp_status st = VP_OK;
    while (lex(&L, key)) {
        if (!strcmp(key, "max_split_size_mb")) {
            st = size_mb(&L, key, &c.max_split_size);
        } else if (!strcmp(key, "max_non_split_rounding_mb")) {
            st = size_mb(&L, key, &c.max_non_split_rounding_size);
        } else if (!strcmp(key, "garbage_collection_threshold")) {
            if (!(st = value(&L, key, t)) && !(st = to_double(&L, key, t, &d))) {
                if (!(d > 0.0 && d < 1.0))
                    st = vp_fail(err, VP_ERR_RANGE, L.path,
                                 "garbage_collect_threshold is invalid, set it in (0.0, 1.0): got %s", t);
                else c.garbage_collection_threshold = d;
            }
        } else if (!strcmp(key, "roundup_power2_divisions")) {
            st = roundup(&L, &c);
        } else if (!strcmp(key, "expandable_segments")) {
            if (!(st = to_bool(&L, key, &flag))) c.expandable_segments = flag;
        } else if (!strcmp(key, "per_process_memory_fraction")) {
            if (!(st = value(&L, key, t)) && !(st = to_double(&L, key, t, &d))) {
                if (!(d >= 0.0 && d <= 1.0))
                    st = vp_fail(err, VP_ERR_RANGE, L.path,
                                 "per_process_memory_fraction is invalid, set it in [0.0, 1.0]: got %s", t);
                else c.per_process_memory_fraction = d;
            }
        } else if (!strcmp(key, "backend")) {
            if (!(st = value(&L, key, t))) {
                if (!strcmp(t, "native")) c.backend_cuda_malloc_async = 0;
                else if (!strcmp(t, "cudaMallocAsync")) c.backend_cuda_malloc_async = 1;
                else st = vp_fail(err, VP_ERR_RANGE, L.path,
                                  "Unknown allocator backend '%s', options are native and cudaMallocAsync", t);
            }
        } else if (!strcmp(key, "release_lock_on_cudamalloc") || !strcmp(key, "release_lock_on_hipmalloc") ||
                   !strcmp(key, "pinned_use_cuda_host_register") || !strcmp(key, "pinned_use_hip_host_register") ||
                   !strcmp(key, "graph_capture_record_stream_reuse") ||
                   !strcmp(key, "pinned_use_background_threads")) {
            st = to_bool(&L, key, &flag);
        } else if (!strcmp(key, "pinned_num_register_threads")) {
            /* parsePinnedNumRegisterThreads: a power of 2, at most pinned_max_register_threads() = 128 */
            if (!(st = value(&L, key, t)) && !(st = to_size(&L, key, t, &v)) && (!is_pow2(v) || v > 128))
                st = vp_fail(err, VP_ERR_RANGE, L.path,
                             "Number of register threads has to be a power of 2 up to 128, got %s", t);
        } else if (!strcmp(key, "pinned_reserve_segment_size_mb")) {
            if (!(st = value(&L, key, t)) && !(st = to_size(&L, key, t, &v)) && v == 0)
                st = vp_fail(err, VP_ERR_RANGE, L.path, "Pinned reserve segment size has to be greater than 0");
        } else {
            st = vp_fail(err, VP_ERR_FIELD, L.path, "Unrecognized key '%s' in CUDA allocator config.", key);
        }
        if (st) return st;
        /* if (i + 1 < tokenizer.size()) tokenizer.checkToken(++i, ",") */
        if (lex(&L, t) && strcmp(t, ",") != 0)
            return vp_fail(err, VP_ERR_FIELD, L.path,
                           "Error parsing PYTORCH_CUDA_ALLOC_CONF: expected ',' after the value of %s, got '%s'", key, t);
    }
    if (out) *out = c;
    return VP_OK;
}
