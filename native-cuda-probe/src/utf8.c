/* utf8.c - strict UTF-8 checks and repair (see utf8.h) */
#include "utf8.h"

#include <string.h>

/* Length (1..4) of the well-formed sequence at s[0..n), or 0 with *bad = the length of its maximal
 * ill-formed subpart (>= 1). Table 3-7: second-byte ranges after E0, ED, F0 and F4 exclude overlong
 * forms, surrogates and code points above U+10FFFF; C0, C1 and F5..FF never start a sequence. */
static size_t seq(const unsigned char *s, size_t n, size_t *bad)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    size_t need;
    if (c < 0x80) return 1;
    if (c < 0xC2 || c > 0xF4) {
        *bad = 1;
        return 0;
    }
    if (c < 0xE0) need = 1;
    else if (c < 0xF0) {
        need = 2;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else {
        need = 3;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    }
    if (n < 2 || s[1] < lo || s[1] > hi) {
        *bad = 1;
        return 0;
    }
    for (size_t i = 2; i <= need; i++) {
        if (i >= n || s[i] < 0x80 || s[i] > 0xBF) {
            *bad = i;
            return 0;
        }
    }
    return need + 1;
}

size_t vp_utf8_check(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, bad = 0;
    while (i < n) {
        size_t k = seq(u + i, n - i, &bad);
        if (k == 0) return i;
        i += k;
    }
    return n;
}

size_t vp_utf8_sanitize(const char *src, char *dst, size_t max_bytes, int *replaced, int *truncated)
{
    static const char fffd[] = "\xEF\xBF\xBD";
    const unsigned char *u = (const unsigned char *)src;
    size_t n = strlen(src), i = 0, o = 0;
    if (replaced) *replaced = 0;
    if (truncated) *truncated = 0;
    while (i < n) {
        size_t bad = 0, k = seq(u + i, n - i, &bad);
        const char *piece = k ? src + i : fffd;
        size_t plen = k ? k : 3;
        if (o + plen > max_bytes) {
            if (truncated) *truncated = 1;
            break;
        }
        if (!k && replaced) *replaced = 1;
        memcpy(dst + o, piece, plen);
        o += plen;
        i += k ? k : bad;
    }
    dst[o] = '\0';
    return o;
}
