/* utf8.h - strict UTF-8 (RFC 3629; Unicode 15 table 3-7) for the strings of a probe document */
#ifndef VRAMPLAN_PROBE_UTF8_H
#define VRAMPLAN_PROBE_UTF8_H

#include <stddef.h>

/* Offset of the first byte of s[0..n) that is not part of well-formed UTF-8, or n when all of it is. */
size_t vp_utf8_check(const char *s, size_t n);

/* Copies the NUL-terminated src into dst as well-formed UTF-8: every maximal ill-formed subpart becomes
 * U+FFFD (Unicode 15 section 3.9, "U+FFFD substitution of maximal subparts", what a browser's
 * TextDecoder does). Stops before a character that would take the output past max_bytes, so a
 * character is never split. dst needs max_bytes + 1 bytes. Returns the length written; *replaced and
 * *truncated (either may be NULL) say whether anything was replaced or cut off. */
size_t vp_utf8_sanitize(const char *src, char *dst, size_t max_bytes, int *replaced, int *truncated);

#endif
