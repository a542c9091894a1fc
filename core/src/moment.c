/* moment.c: component lists for one instant of a step (moment.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "moment.h"
#include "util.h"

void vp_moment_init(vp_moment *m, const char *phase) {
    m->n = 0;
    m->quiet = 0;
    vp_strlcpy(m->phase, phase, sizeof m->phase);
}

void vp_moment_copy(vp_moment *dst, const vp_moment *src) {
    if (dst == src) return;
    memcpy(dst->phase, src->phase, sizeof dst->phase);
    dst->n = src->n;
    dst->quiet = src->quiet;
    memcpy(dst->c, src->c, sizeof(vp_component) * (size_t)src->n);
}

static vp_component *find_or_add(vp_moment *m, const vp_owner *o, const char *id, int *fresh) {
    const char *inst = o ? o->instance : "";
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->c[i].id, id) && !strcmp(m->c[i].instance, inst)) {
            *fresh = 0;
            return &m->c[i];
        }
    if (m->n >= VP_MAX_COMPONENTS) return NULL;
    vp_component *c = &m->c[m->n++];
    memset(c, 0, sizeof *c);
    vp_strlcpy(c->id, id, sizeof c->id);
    vp_strlcpy(c->instance, inst, sizeof c->instance);
    vp_strlcpy(c->role, o ? o->role : "", sizeof c->role);
    *fresh = 1;
    return c;
}

void vp_moment_add(vp_moment *m, const vp_owner *o, const char *id, const char *label, int64_t bytes,
                   const char *fmt, ...) {
    if (bytes <= 0) return;
    int fresh = 0;
    vp_component *c = find_or_add(m, o, id, &fresh);
    if (!c) return;
    c->bytes += (uint64_t)bytes;
    if (fresh && m->quiet) {
        vp_strlcpy(c->label, label, sizeof c->label);
        c->explain[0] = '\0';
    } else if (fresh) {
        vp_strlcpy(c->label, label, sizeof c->label);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->explain, sizeof c->explain, fmt, ap);
        va_end(ap);
    }
}

int64_t vp_moment_total(const vp_moment *m) {
    int64_t t = 0;
    for (int i = 0; i < m->n; i++) t = vp_add_sat(t, (int64_t)m->c[i].bytes);
    return t;
}

void vp_moment_remove(vp_moment *m, const char *id, const char *instance) {
    int w = 0;
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->c[i].id, id) || (instance && strcmp(m->c[i].instance, instance))) m->c[w++] = m->c[i];
    m->n = w;
}
