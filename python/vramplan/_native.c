/* _native.c: what the Python package's ctypes layer (vramplan/_lib.py) needs from libvramplan.so
 * beyond the functions of vramplan.h: the layout of vp_error as this build compiled it, so that a
 * header change that moves its fields is refused at import instead of reading the wrong bytes.
 * Everything else Python calls is the public C API itself (vp_estimate_with_suggestions_json,
 * vp_fit_json, ..., the functions the CLI and the WASM build call). */
#include <stddef.h>

#include "vramplan.h"

/* sizeof(vp_error), then the offsets and sizes of code, path and message (7 numbers). */
void vp_py_error_layout(size_t out[7]);

void vp_py_error_layout(size_t out[7]) {
    vp_error e;
    out[0] = sizeof e;
    out[1] = offsetof(vp_error, code);
    out[2] = sizeof e.code;
    out[3] = offsetof(vp_error, path);
    out[4] = sizeof e.path;
    out[5] = offsetof(vp_error, message);
    out[6] = sizeof e.message;
}
