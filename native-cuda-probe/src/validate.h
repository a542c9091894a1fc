/* validate.h - checks a vramplan/gpu-probe@1 document (used by `vramplan-probe --validate` and the tests) */
#ifndef VRAMPLAN_PROBE_VALIDATE_H
#define VRAMPLAN_PROBE_VALIDATE_H

#include <stddef.h>

/* The longest device name, in bytes of UTF-8, that the planner reads: core/src/gpu.h keeps it in
 * vp_gpu.name[96] and core/src/json_read.c (vp_json_opt_str) rejects a longer string. The probe cuts a
 * longer driver name to this length at a character boundary; --validate rejects a longer one. */
#define VP_PROBE_NAME_MAX_BYTES 95

/*
 * Validates `len` bytes of JSON text, which must be UTF-8 (RFC 8259 section 8.1). Returns the number of problems found (0: valid).
 * Each problem is written to `out` as one line "<field path>: <what is wrong>", e.g.
 * "devices[0].memory.total_bytes: expected an integer >= 0 or null, got a string".
 * `out` is always NUL-terminated (when outsz > 0); extra problems are counted but may be cut.
 * *is_error_doc (if not NULL) is set to 1 for a valid error document ({"schema", "error"}).
 */
int vp_validate_text(const char *text, size_t len, char *out, size_t outsz, int *is_error_doc);

#endif
