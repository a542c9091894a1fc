/* json_diff.c - see json_diff.h */
#define _POSIX_C_SOURCE 200809L

#include "json_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void describe(const cJSON *v, char *buf, size_t n)
{
    if (!v) snprintf(buf, n, "(missing)");
    else if (cJSON_IsNull(v)) snprintf(buf, n, "null");
    else if (cJSON_IsTrue(v)) snprintf(buf, n, "true");
    else if (cJSON_IsFalse(v)) snprintf(buf, n, "false");
    else if (cJSON_IsNumber(v)) snprintf(buf, n, "%.17g", v->valuedouble);
    else if (cJSON_IsString(v)) snprintf(buf, n, "\"%s\"", v->valuestring);
    else if (cJSON_IsArray(v)) snprintf(buf, n, "an array of %d", cJSON_GetArraySize(v));
    else if (cJSON_IsObject(v)) snprintf(buf, n, "an object");
    else snprintf(buf, n, "(invalid)");
}

static int diff_at(const cJSON *a, const cJSON *b, const char *path, char *msg, size_t msgsz)
{
    char da[200], db[200], sub[512];
    int same_type = a && b && ((a->type & 0xFF) == (b->type & 0xFF));
    if (!same_type) goto differ;
    if (cJSON_IsNumber(a)) {
        if (a->valuedouble != b->valuedouble) goto differ;
        return 0;
    }
    if (cJSON_IsString(a)) {
        if (strcmp(a->valuestring, b->valuestring) != 0) goto differ;
        return 0;
    }
    if (cJSON_IsArray(a)) {
        int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
        if (na != nb) goto differ;
        for (int i = 0; i < na; i++) {
            snprintf(sub, sizeof sub, "%s[%d]", path, i);
            if (diff_at(cJSON_GetArrayItem(a, i), cJSON_GetArrayItem(b, i), sub, msg, msgsz)) return 1;
        }
        return 0;
    }
    if (cJSON_IsObject(a)) {
        const cJSON *c;
        cJSON_ArrayForEach(c, b)
        {
            snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", c->string);
            if (diff_at(cJSON_GetObjectItemCaseSensitive(a, c->string), c, sub, msg, msgsz)) return 1;
        }
        cJSON_ArrayForEach(c, a)
        {
            if (!cJSON_GetObjectItemCaseSensitive(b, c->string)) {
                snprintf(msg, msgsz, "%s%s%s: unexpected field in output", path, path[0] ? "." : "", c->string);
                return 1;
            }
        }
        return 0;
    }
    return 0; /* null, true, false: same type is equal */
differ:
    describe(a, da, sizeof da);
    describe(b, db, sizeof db);
    snprintf(msg, msgsz, "%s: got %s, want %s", path[0] ? path : "(document)", da, db);
    return 1;
}

int json_diff(const cJSON *got, const cJSON *want, char *msg, size_t msgsz)
{
    if (msgsz) msg[0] = '\0';
    return diff_at(got, want, "", msg, msgsz);
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

cJSON *json_at(const cJSON *root, const char *path)
{
    const cJSON *cur = root;
    const char *p = path;
    while (cur && *p) {
        if (*p == '.') p++;
        if (*p == '[') {
            char *end = NULL;
            long i = strtol(p + 1, &end, 10);
            if (!end || *end != ']' || i < 0 || i > 100000) return NULL;
            cur = cJSON_GetArrayItem(cur, (int)i);
            p = end + 1;
            continue;
        }
        char key[128];
        size_t k = 0;
        while (*p && *p != '.' && *p != '[' && k + 1 < sizeof key) key[k++] = *p++;
        key[k] = '\0';
        cur = cJSON_GetObjectItemCaseSensitive(cur, key);
    }
    return (cJSON *)cur;
}
