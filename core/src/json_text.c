/* json_text.c: JSON text -> cJSON, strictly (RFC 8259), and UTF-8 helpers.
 *
 * cJSON is lenient where Python's json, jq and the browser are strict, and silent where they
 * disagree: it copies invalid UTF-8 into strings (so an estimate echoing a name is no longer
 * JSON), cuts "a\u0000b" to "a", accepts +1, 01, .5 and control characters as whitespace, and
 * keeps the first of two equal keys where Python and Hugging Face keep the last. The text is
 * therefore checked here first, with the line and column of the first problem (and the JSON path
 * of the field it is in), then handed to cJSON; every object of the tree is then checked for keys
 * given twice. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MAX_DEPTH 512   /* below cJSON's CJSON_NESTING_LIMIT (1000) */
#define MAX_NUMBER 63   /* cJSON reads at most 63 characters of a number */

/* ---- UTF-8 --------------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when it is not one: overlong
 * forms, UTF-16 surrogates (U+D800..DFFF), code points above U+10FFFF, stray continuation bytes,
 * 0xC0, 0xC1, 0xF5..0xFF, and sequences cut short are all invalid (Unicode 15, table 3-7). */
static size_t utf8_seq(const unsigned char *s, size_t n) {
    if (n == 0) return 0;
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;      /* overlong */
        else if (c == 0xED) hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;      /* overlong */
        else if (c == 0xF4) hi = 0x8F; /* above U+10FFFF */
    } else {
        return 0;
    }
    if (n < len) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return len;
}

int vp_utf8_valid(const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t k = utf8_seq(u + i, n - i);
        if (!k) return 0;
        i += k;
    }
    return 1;
}

void vp_utf8_scrub(char *s) {
    if (!s) return;
    unsigned char *u = (unsigned char *)s;
    size_t n = strlen(s), i = 0;
    while (i < n) {
        size_t k = utf8_seq(u + i, n - i);
        if (k) {
            i += k;
        } else {
            u[i++] = '?';
        }
    }
}

size_t vp_utf8_cut(const char *s, size_t n) {
    /* back off over a sequence that starts before n but does not end by n */
    const unsigned char *u = (const unsigned char *)s;
    size_t i = n;
    size_t back = 0;
    while (i > 0 && back < 4 && (u[i - 1] & 0xC0) == 0x80) {
        i--;
        back++;
    }
    if (i > 0 && u[i - 1] >= 0xC0) {
        size_t start = i - 1;
        if (utf8_seq(u + start, n - start) == 0) return start; /* incomplete at the cut */
    }
    return n;
}

/* ---- the strict scanner ---------------------------------------------------------------------- */

typedef struct {
    const char *text;
    const char *p;
    int depth;
    size_t plen;
    char path[128];
    vp_error *err;
} jscan;

/* line and column (in characters) of position at */
static void line_col(const jscan *s, const char *at, int *line, int *col) {
    int l = 1, c = 1;
    for (const char *q = s->text; q < at && *q; q++) {
        if (*q == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)*q & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* A syntax error: err->path stays "" (the text is not JSON); the message says where. */
static vp_status syntax(jscan *s, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static vp_status syntax(jscan *s, const char *at, const char *fmt, ...) {
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int line, col;
    line_col(s, at, &line, &col);
    if (s->plen)
        return vp_fail(s->err, VP_ERR_JSON, "", "not valid JSON: line %d, column %d (in %s): %s", line, col, s->path, what);
    return vp_fail(s->err, VP_ERR_JSON, "", "not valid JSON: line %d, column %d: %s", line, col, what);
}

/* append to the path in place (no printf: this runs for every key of every document) */
static void append(jscan *s, const char *a, size_t n) {
    size_t room = sizeof s->path - 1 - s->plen;
    if (n > room) n = vp_utf8_cut(a, room);
    memcpy(s->path + s->plen, a, n);
    s->plen += n;
    s->path[s->plen] = '\0';
}

static void push_key(jscan *s, const char *key, size_t *saved) {
    *saved = s->plen;
    if (s->plen) append(s, ".", 1);
    append(s, key, strlen(key));
}

static void push_index(jscan *s, int i, size_t *saved) {
    *saved = s->plen;
    char buf[16];
    size_t n = 0;
    char digits[12];
    int k = 0;
    unsigned u = (unsigned)i;
    do {
        digits[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u && k < 11);
    buf[n++] = '[';
    while (k) buf[n++] = digits[--k];
    buf[n++] = ']';
    append(s, buf, n);
}

static void pop(jscan *s, size_t saved) {
    s->plen = saved;
    s->path[saved] = '\0';
}

static void skip_ws(jscan *s) {
    while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r') s->p++;
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char *dst, unsigned cp) {
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xC0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xE0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        dst[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    dst[0] = (char)(0xF0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    dst[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* bytes readable at p before its NUL, up to 4 (a UTF-8 sequence's longest) */
static size_t avail4(const char *p) {
    size_t n = 0;
    while (n < 4 && p[n]) n++;
    return n;
}

/* A string at s->p (on its opening quote). A key is decoded into key (size keycap, truncated at a
 * character boundary) for the paths of later errors. `where` names the string in errors: the
 * current path for a value; for a key, the object that holds it. */
static vp_status scan_string(jscan *s, char *key, size_t keycap) {
    const char *open = s->p;
    size_t kl = 0;
    const char *where = s->plen ? s->path : "the text";
    s->p++;
    for (;;) {
        unsigned char c = (unsigned char)*s->p;
        if (c == '"') {
            s->p++;
            break;
        }
        if (c == '\0') return syntax(s, open, "a string that is never closed (missing '\"')");
        if (c < 0x20)
            return syntax(s, s->p, "control character 0x%02X inside a string (write it as an escape, e.g. \\n)", c);
        char one[4];
        size_t ol = 0;
        if (c == '\\') {
            const char *esc = s->p;
            char e = s->p[1];
            switch (e) {
            case '"': case '\\': case '/': one[0] = e; ol = 1; s->p += 2; break;
            case 'b': one[0] = '\b'; ol = 1; s->p += 2; break;
            case 'f': one[0] = '\f'; ol = 1; s->p += 2; break;
            case 'n': one[0] = '\n'; ol = 1; s->p += 2; break;
            case 'r': one[0] = '\r'; ol = 1; s->p += 2; break;
            case 't': one[0] = '\t'; ol = 1; s->p += 2; break;
            case 'u': {
                unsigned cp;
                if (!hex4(s->p + 2, &cp)) return syntax(s, esc, "\\u must be followed by four hexadecimal digits");
                s->p += 6;
                if (cp == 0) {
                    int line, col;
                    line_col(s, esc, &line, &col);
                    return vp_fail(s->err, VP_ERR_FIELD, s->path,
                                   "%s contains \\u0000 (a NUL character) at line %d, column %d; names and values cannot hold one",
                                   where, line, col);
                }
                if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    int line, col;
                    line_col(s, esc, &line, &col);
                    return vp_fail(s->err, VP_ERR_JSON, s->path,
                                   "%s has an unpaired UTF-16 surrogate \\u%04X at line %d, column %d (not a character)",
                                   where, cp, line, col);
                }
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned lo;
                    if (s->p[0] != '\\' || s->p[1] != 'u' || !hex4(s->p + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                        int line, col;
                        line_col(s, esc, &line, &col);
                        return vp_fail(s->err, VP_ERR_JSON, s->path,
                                       "%s has an unpaired UTF-16 surrogate \\u%04X at line %d, column %d (not a character)",
                                       where, cp, line, col);
                    }
                    s->p += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                ol = put_utf8(one, cp);
                break;
            }
            default:
                return syntax(s, esc, "unknown escape \\%c in a string", e >= 0x20 && e < 0x7F ? e : '?');
            }
        } else if (c < 0x80) {
            one[0] = (char)c;
            ol = 1;
            s->p++;
        } else {
            size_t k = utf8_seq((const unsigned char *)s->p, avail4(s->p));
            if (!k) {
                int line, col;
                line_col(s, s->p, &line, &col);
                return vp_fail(s->err, VP_ERR_JSON, s->path,
                               "%s%s is not valid UTF-8 (byte 0x%02X at line %d, column %d); JSON text must be UTF-8",
                               key ? "a key of " : "", where, c, line, col);
            }
            memcpy(one, s->p, k);
            ol = k;
            s->p += k;
        }
        if (key && kl + ol < keycap) {
            memcpy(key + kl, one, ol);
            kl += ol;
        }
    }
    if (key) key[kl] = '\0';
    return VP_OK;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static vp_status scan_number(jscan *s) {
    const char *start = s->p;
    if (*s->p == '-') s->p++;
    if (*s->p == '0') {
        s->p++;
        if (is_digit(*s->p)) return syntax(s, start, "a number may not start with 0 (write 7, not 07)");
    } else if (is_digit(*s->p)) {
        while (is_digit(*s->p)) s->p++;
    } else {
        return syntax(s, start, "'-' must be followed by a digit");
    }
    if (*s->p == '.') {
        s->p++;
        if (!is_digit(*s->p)) return syntax(s, start, "a digit must follow the decimal point (write 1.0, not 1.)");
        while (is_digit(*s->p)) s->p++;
    }
    if (*s->p == 'e' || *s->p == 'E') {
        s->p++;
        if (*s->p == '+' || *s->p == '-') s->p++;
        if (!is_digit(*s->p)) return syntax(s, start, "an exponent needs digits (1e5, 1e-5)");
        while (is_digit(*s->p)) s->p++;
    }
    if (s->p - start > MAX_NUMBER) return syntax(s, start, "a number longer than %d characters", MAX_NUMBER);
    return VP_OK;
}

static vp_status scan_value(jscan *s);

static vp_status scan_object(jscan *s) {
    s->p++; /* { */
    skip_ws(s);
    if (*s->p == '}') {
        s->p++;
        return VP_OK;
    }
    for (;;) {
        skip_ws(s);
        if (*s->p != '"')
            return syntax(s, s->p, *s->p == '}' ? "a ',' before '}' (trailing commas are not JSON)"
                                                : *s->p == '\'' ? "keys need double quotes, not single quotes"
                                                                : "expected a key in double quotes");
        char key[64];
        vp_status st = scan_string(s, key, sizeof key);
        if (st) return st;
        skip_ws(s);
        if (*s->p != ':') return syntax(s, s->p, "expected ':' after the key \"%s\"", key);
        s->p++;
        size_t saved;
        push_key(s, key, &saved);
        st = scan_value(s);
        if (st) return st;
        pop(s, saved);
        skip_ws(s);
        if (*s->p == ',') {
            s->p++;
            continue;
        }
        if (*s->p == '}') {
            s->p++;
            return VP_OK;
        }
        return syntax(s, s->p, *s->p ? "expected ',' or '}' after a value" : "the text ends inside an object (missing '}')");
    }
}

static vp_status scan_array(jscan *s) {
    s->p++; /* [ */
    skip_ws(s);
    if (*s->p == ']') {
        s->p++;
        return VP_OK;
    }
    for (int i = 0;; i++) {
        skip_ws(s);
        if (*s->p == ']') return syntax(s, s->p, "a ',' before ']' (trailing commas are not JSON)");
        size_t saved;
        push_index(s, i, &saved);
        vp_status st = scan_value(s);
        if (st) return st;
        pop(s, saved);
        skip_ws(s);
        if (*s->p == ',') {
            s->p++;
            continue;
        }
        if (*s->p == ']') {
            s->p++;
            return VP_OK;
        }
        return syntax(s, s->p, *s->p ? "expected ',' or ']' after a value" : "the text ends inside an array (missing ']')");
    }
}

static vp_status scan_value(jscan *s) {
    skip_ws(s);
    char c = *s->p;
    if (c == '{' || c == '[') {
        if (++s->depth > MAX_DEPTH) return syntax(s, s->p, "nested deeper than %d levels", MAX_DEPTH);
        vp_status st = c == '{' ? scan_object(s) : scan_array(s);
        s->depth--;
        return st;
    }
    if (c == '"') return scan_string(s, NULL, 0);
    if (c == '-' || is_digit(c)) return scan_number(s);
    static const char *const lits[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(lits[i]);
        if (!strncmp(s->p, lits[i], n)) {
            s->p += n;
            return VP_OK;
        }
    }
    if (c == '\0') return syntax(s, s->p, "the text ends where a value should be");
    if (!strncmp(s->p, "NaN", 3) || !strncmp(s->p, "Infinity", 8) || !strncmp(s->p, "-Infinity", 9))
        return syntax(s, s->p, "NaN and Infinity are not JSON numbers");
    if (c == '\'') return syntax(s, s->p, "strings need double quotes, not single quotes");
    if (c == '+' || c == '.') return syntax(s, s->p, "a number may not start with '%c'", c);
    if ((unsigned char)c >= 0x80 && !utf8_seq((const unsigned char *)s->p, avail4(s->p))) {
        int line, col;
        line_col(s, s->p, &line, &col);
        return vp_fail(s->err, VP_ERR_JSON, "", "not valid JSON: line %d, column %d: byte 0x%02X is not UTF-8", line, col,
                       (unsigned char)c);
    }
    return syntax(s, s->p, "expected a value (an object, array, string, number, true, false or null)");
}

static vp_status scan_document(jscan *s) {
    if ((unsigned char)s->p[0] == 0xEF && (unsigned char)s->p[1] == 0xBB && (unsigned char)s->p[2] == 0xBF)
        return vp_fail(s->err, VP_ERR_JSON, "", "not valid JSON: the text starts with a UTF-8 byte-order mark (save it without one)");
    skip_ws(s);
    if (!*s->p) return vp_fail(s->err, VP_ERR_JSON, "", "not valid JSON: the text is empty");
    vp_status st = scan_value(s);
    if (st) return st;
    skip_ws(s);
    if (*s->p) return syntax(s, s->p, "text after the end of the JSON value");
    return VP_OK;
}

/* ---- keys given twice ----------------------------------------------------------------------- */

static int cmp_item_key(const void *a, const void *b) {
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(x->string, y->string);
}

static vp_status dup_fail(const cJSON *item, const char *path, vp_error *err) {
    char p[128];
    vp_path_key(p, sizeof p, path, item->string);
    return vp_fail(err, VP_ERR_FIELD, p,
                   "field %s is given twice (JSON readers disagree on which one counts: give it once)", p);
}

static vp_status check_dups(const cJSON *node, const char *path, vp_error *err) {
    if (!cJSON_IsObject(node) && !cJSON_IsArray(node)) return VP_OK;
    int n = 0;
    for (const cJSON *it = node->child; it; it = it->next) n++;
    if (cJSON_IsObject(node) && n > 1) {
        if (n <= 16) {
            for (const cJSON *it = node->child; it; it = it->next)
                for (const cJSON *later = it->next; later; later = later->next)
                    if (!strcmp(it->string, later->string)) return dup_fail(it, path, err);
        } else {
            const cJSON **keys = malloc((size_t)n * sizeof *keys);
            if (!keys) return vp_fail(err, VP_ERR_NOMEM, path, "out of memory");
            int k = 0;
            for (const cJSON *it = node->child; it; it = it->next) keys[k++] = it;
            qsort(keys, (size_t)n, sizeof *keys, cmp_item_key);
            for (int i = 1; i < n; i++)
                if (!strcmp(keys[i - 1]->string, keys[i]->string)) {
                    vp_status st = dup_fail(keys[i], path, err);
                    free(keys);
                    return st;
                }
            free(keys);
        }
    }
    int i = 0;
    for (const cJSON *it = node->child; it; it = it->next, i++) {
        if (!cJSON_IsObject(it) && !cJSON_IsArray(it)) continue;
        char p[128];
        if (cJSON_IsObject(node))
            vp_path_key(p, sizeof p, path, it->string);
        else
            vp_path_index(p, sizeof p, path, i);
        vp_status st = check_dups(it, p, err);
        if (st) return st;
    }
    return VP_OK;
}

cJSON *vp_json_parse(const char *text, vp_error *err) {
    if (!text) {
        vp_fail(err, VP_ERR_JSON, "", "no text given");
        return NULL;
    }
    jscan s;
    memset(&s, 0, sizeof s);
    s.text = s.p = text;
    s.err = err;
    if (scan_document(&s)) return NULL;
    cJSON *root = cJSON_ParseWithOpts(text, NULL, 1);
    if (!root) {
        /* the text is strict JSON, so cJSON can only have run out of memory */
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory while reading the JSON text");
        return NULL;
    }
    if (check_dups(root, "", err)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

vp_status vp_json_check(const char *text, vp_error *err) {
    vp_error local;
    if (!err) err = &local;
    vp_error_clear(err);
    cJSON *root = vp_json_parse(text, err);
    if (!root) return err->code;
    cJSON_Delete(root);
    return VP_OK;
}
