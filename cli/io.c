/* io.c: file reading and error printing for the CLI. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

char *cli_read_text(const char *path, size_t max_bytes, size_t *len_out, int *rc) {
    int dummy;
    if (!rc) rc = &dummy;
    *rc = 0;
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "vramplan: cannot open %s\n", path);
        *rc = EXIT_IO;
        return NULL;
    }
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            if (cap >= max_bytes) {
                fprintf(stderr, "vramplan: %s is larger than %zu bytes\n", path, max_bytes);
                free(buf);
                buf = NULL;
                break;
            }
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        size_t r = fread(buf + len, 1, cap - len - 1, f);
        if (r == 0) break;
        len += r;
    }
    if (buf && ferror(f)) {
        fprintf(stderr, "vramplan: cannot read %s\n", path);
        free(buf);
        buf = NULL;
    }
    if (buf) buf[len] = '\0';
    if (f != stdin) fclose(f);
    if (!buf && !*rc) *rc = EXIT_IO;
    if (len_out) *len_out = buf ? len : 0;
    return buf;
}

/* line and column (1-based, in bytes) of offset off */
static void line_col(const char *buf, size_t off, int *line, int *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

char *cli_read_file(const char *path, size_t max_bytes) {
    size_t len = 0;
    char *buf = cli_read_text(path, max_bytes, &len, NULL);
    if (!buf) return NULL;
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        /* C strings end at the first NUL: what follows it would be silently lost */
        int line, col;
        line_col(buf, (size_t)(nul - buf), &line, &col);
        fprintf(stderr, "vramplan: %s: line %d, column %d: a NUL byte (this is not a text file)\n", path, line, col);
        free(buf);
        return NULL;
    }
    return buf;
}

char *cli_read_json(const char *path, size_t max_bytes, int *rc) {
    size_t len = 0;
    char *buf = cli_read_text(path, max_bytes, &len, rc);
    if (!buf) return NULL;
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        int line, col;
        line_col(buf, (size_t)(nul - buf), &line, &col);
        fprintf(stderr, "vramplan: %s: line %d, column %d: a NUL byte (this is not a JSON text file)\n", path, line, col);
        free(buf);
        *rc = EXIT_INPUT;
        return NULL;
    }
    vp_error err;
    if (vp_json_check(buf, &err) != VP_OK) {
        cli_print_error(strcmp(path, "-") ? path : "standard input", &err);
        free(buf);
        *rc = EXIT_INPUT;
        return NULL;
    }
    return buf;
}

void cli_print_error(const char *what, const vp_error *err) {
    if (err->path[0])
        fprintf(stderr, "vramplan: %s: %s [%s error at %s]\n", what, err->message, vp_status_name(err->code), err->path);
    else
        fprintf(stderr, "vramplan: %s: %s [%s error]\n", what, err->message, vp_status_name(err->code));
}

const char *cli_col(char *dst, size_t n, const char *s, int width) {
    /* width characters (UTF-8 code points), cut between characters and padded with spaces, so a
     * table column never ends inside a multi-byte character */
    size_t o = 0;
    int w = 0;
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    while (*u && w < width) {
        size_t k = *u < 0x80 ? 1 : *u >= 0xF0 ? 4 : *u >= 0xE0 ? 3 : *u >= 0xC0 ? 2 : 1;
        size_t have = 1;
        while (have < k && u[have] && (u[have] & 0xC0) == 0x80) have++;
        if (have < k) k = have;
        if (o + k + 1 > n) break;
        memcpy(dst + o, u, k);
        o += k;
        u += k;
        w++;
    }
    while (w++ < width && o + 2 <= n) dst[o++] = ' ';
    dst[o] = '\0';
    return dst;
}

void cli_fmt_gib(char *dst, size_t n, double bytes) { snprintf(dst, n, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

double cli_num(const cJSON *o, const char *k) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(it) ? it->valuedouble : 0;
}

const char *cli_str(const cJSON *o, const char *k) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(it) ? it->valuestring : "";
}
