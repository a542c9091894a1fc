/* io.c: file reading and error printing for the CLI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

char *cli_read_file(const char *path, size_t max_bytes) {
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "vramplan: cannot open %s\n", path);
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
    if (buf) buf[len] = '\0';
    if (f != stdin) fclose(f);
    return buf;
}

void cli_print_error(const char *what, const vp_error *err) {
    if (err->path[0])
        fprintf(stderr, "vramplan: %s: %s [%s error at %s]\n", what, err->message, vp_status_name(err->code), err->path);
    else
        fprintf(stderr, "vramplan: %s: %s [%s error]\n", what, err->message, vp_status_name(err->code));
}

void cli_fmt_gib(char *dst, size_t n, double bytes) { snprintf(dst, n, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }
