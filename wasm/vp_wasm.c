/* vp_wasm.c: the WebAssembly face of the vramplan core.
 *
 * C functions, JSON text in and JSON text out, built on vramplan.h only. Each char * result is
 * the document or {"error":{"code","path","message"}}:
 *   char *vpw_estimate(const char *plan_json, int pretty)        estimate@1 (with suggestions)
 *   char *vpw_fit(const char *plan_json, const char *field, int pretty)
 *                                     fit@1: largest batch | seq | new_tokens that fits (docs/schema/fit.md)
 *   char *vpw_sweep(const char *plan_json, const char *field, int n_points)
 *                                     sweep@1: peak reserved against the value, for the chart (sweep.md)
 *   char *vpw_recommend(const char *plan_json, int global_batch, int pretty)
 *                                     recommend@1: setups that fit, fastest first, each with the plan to
 *                                     apply; global_batch 0 = the plan's (recommend.md)
 *   char *vpw_expand_pipeline(const char *plan_json, int index, int keep_seq)
 *                                     {"added": N, "plan": plan@1}: the diffusion pipeline preset of
 *                                     instances[index] with its other components as instances
 *                                     (core/src/pipeline_expand.c)
 *   const char *vpw_presets(void)                                builtin presets bundle (static)
 *   const char *vpw_version(void)                                "0.1.0" (static)
 *   void vpw_free(void *p)                                       frees what the char * calls returned
 *
 * Ownership: the caller frees every char * result with vpw_free (NULL is fine); vpw_presets and
 * vpw_version return static storage. fit, sweep and recommend print the same bytes as the CLI
 * (`vramplan fit --json`, `vramplan recommend --json`). Nothing here keeps a pointer from JS after a call returns. The builtin
 * registry is created on first use and kept for the life of the module.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vramplan.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define VPW_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define VPW_EXPORT
#endif

static vp_registry *g_registry = NULL;
static vp_error g_registry_err;

/* Appends s to out as the body of a JSON string (no quotes); returns the new length. */
static size_t json_escape(char *out, size_t len, const char *s) {
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            out[len++] = '\\';
            out[len++] = (char)c;
        } else if (c < 0x20) {
            out[len++] = '\\';
            out[len++] = 'u';
            out[len++] = '0';
            out[len++] = '0';
            out[len++] = hex[c >> 4];
            out[len++] = hex[c & 15];
        } else {
            out[len++] = (char)c;
        }
    }
    return len;
}

/* {"error":{"code":"VP_ERR_...","path":"...","message":"..."}} in a malloc'd buffer. */
static char *error_json(const vp_error *err) {
    const char *code = vp_status_name(err->code);
    if (!code) code = "VP_ERR_UNKNOWN";
    /* every escaped byte takes at most 6 bytes */
    size_t cap = 64 + 6 * (strlen(code) + strlen(err->path) + strlen(err->message));
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t n = 0;
    memcpy(out + n, "{\"error\":{\"code\":\"", 18); n += 18;
    n = json_escape(out, n, code);
    memcpy(out + n, "\",\"path\":\"", 10); n += 10;
    n = json_escape(out, n, err->path);
    memcpy(out + n, "\",\"message\":\"", 13); n += 13;
    n = json_escape(out, n, err->message);
    memcpy(out + n, "\"}}", 4); /* with the terminating NUL */
    return out;
}

static const vp_registry *registry(void) {
    if (!g_registry) {
        memset(&g_registry_err, 0, sizeof g_registry_err);
        g_registry = vp_registry_builtin(&g_registry_err);
    }
    return g_registry;
}

/* Copies what the core returned (or its error) into a malloc'd block, so vpw_free has one rule
 * whatever the core allocates with. */
static char *hand_out(char *core, vp_error *err) {
    if (!core) {
        if (err->code == VP_OK) err->code = VP_ERR_NOMEM;
        return error_json(err);
    }
    size_t n = strlen(core) + 1;
    char *out = malloc(n);
    if (out) memcpy(out, core, n);
    vp_free(core);
    if (!out) {
        err->code = VP_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "Out of memory copying the result.");
        return error_json(err); /* may be NULL too; JS reports that */
    }
    return out;
}

/* The registry, or NULL with *err filled (no registry, or no plan given). */
static const vp_registry *ready(const char *plan_json, vp_error *err) {
    memset(err, 0, sizeof *err);
    const vp_registry *reg = registry();
    if (!reg) {
        *err = g_registry_err;
        return NULL;
    }
    if (!plan_json) {
        err->code = VP_ERR_JSON;
        snprintf(err->message, sizeof err->message, "No plan was given.");
        return NULL;
    }
    return reg;
}

VPW_EXPORT char *vpw_estimate(const char *plan_json, int pretty) {
    vp_error err;
    const vp_registry *reg = ready(plan_json, &err);
    if (!reg) return error_json(&err);
    return hand_out(vp_estimate_with_suggestions_json(plan_json, reg, pretty, &err), &err);
}

VPW_EXPORT char *vpw_fit(const char *plan_json, const char *field, int pretty) {
    vp_error err;
    const vp_registry *reg = ready(plan_json, &err);
    if (!reg) return error_json(&err);
    return hand_out(vp_fit_json(plan_json, reg, field, pretty, &err), &err);
}

VPW_EXPORT char *vpw_sweep(const char *plan_json, const char *field, int n_points) {
    vp_error err;
    const vp_registry *reg = ready(plan_json, &err);
    if (!reg) return error_json(&err);
    return hand_out(vp_sweep_json(plan_json, reg, field, n_points, &err), &err);
}

VPW_EXPORT char *vpw_recommend(const char *plan_json, int global_batch, int pretty) {
    vp_error err;
    const vp_registry *reg = ready(plan_json, &err);
    if (!reg) return error_json(&err);
    return hand_out(vp_recommend_json(plan_json, reg, global_batch > 0 ? global_batch : 0, 10, pretty, &err), &err);
}

VPW_EXPORT char *vpw_expand_pipeline(const char *plan_json, int index, int keep_seq) {
    vp_error err;
    const vp_registry *reg = ready(plan_json, &err);
    if (!reg) return error_json(&err);
    int added = 0;
    char *plan = vp_plan_expand_pipeline_json(plan_json, reg, index, keep_seq, &added, &err);
    if (!plan) return hand_out(NULL, &err);
    /* {"added":N,"plan":<the plan>} */
    size_t cap = strlen(plan) + 40;
    char *out = malloc(cap);
    if (out) snprintf(out, cap, "{\"added\":%d,\"plan\":%s}", added, plan);
    vp_free(plan);
    if (!out) {
        err.code = VP_ERR_NOMEM;
        snprintf(err.message, sizeof err.message, "Out of memory copying the result.");
        return error_json(&err);
    }
    return out;
}

VPW_EXPORT const char *vpw_presets(void) {
    const char *json = vp_builtin_presets_json();
    return json ? json : "{\"models\":[],\"gpus\":[]}";
}

VPW_EXPORT const char *vpw_version(void) { return VP_VERSION; }

/* Every char * result is a malloc'd block (hand_out above). */
VPW_EXPORT void vpw_free(void *p) { free(p); }
