/* errors.c: error values (the library never prints or aborts). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *vp_status_name(vp_status code) {
    switch (code) {
    case VP_OK: return "ok";
    case VP_ERR_JSON: return "json";
    case VP_ERR_SCHEMA: return "schema";
    case VP_ERR_FIELD: return "field";
    case VP_ERR_RANGE: return "range";
    case VP_ERR_UNSUPPORTED: return "unsupported";
    case VP_ERR_NOMEM: return "nomem";
    case VP_ERR_IO: return "io";
    }
    return "unknown";
}

void vp_free(void *p) { free(p); }

vp_status vp_fail(vp_error *err, vp_status code, const char *path, const char *fmt, ...) {
    if (!err) return code;
    err->code = code;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    /* a message or path cut at its buffer's end, or quoting a cut value, keeps whole UTF-8 characters:
     * callers print them into JSON (the page) and terminals */
    vp_utf8_scrub(err->path);
    err->message[vp_utf8_cut(err->message, strlen(err->message))] = '\0';
    vp_utf8_scrub(err->message);
    return code;
}

void vp_error_clear(vp_error *err) {
    if (!err) return;
    err->code = VP_OK;
    err->path[0] = '\0';
    err->message[0] = '\0';
}
