/* json_diff.h - structural comparison of two cJSON trees for the probe tests */
#ifndef VRAMPLAN_PROBE_JSON_DIFF_H
#define VRAMPLAN_PROBE_JSON_DIFF_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Returns 0 when `got` equals `want` (object key order ignored, numbers compared exactly).
 * Otherwise returns 1 and writes the first difference, e.g.
 * "devices[0].memory.free_bytes: got 1, want 2", into msg. */
int json_diff(const cJSON *got, const cJSON *want, char *msg, size_t msgsz);

/* Reads a whole file; returns a malloc'd NUL-terminated buffer or NULL. */
char *read_file(const char *path, size_t *len);

/* Looks up "devices[0].memory.total_bytes" style paths; NULL when absent. */
cJSON *json_at(const cJSON *root, const char *path);

#endif
