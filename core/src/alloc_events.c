/* alloc_events.c: building event lists (alloc_events.h). */
#include <stdlib.h>
#include <string.h>

#include "alloc_events.h"

const char *const vp_ev_phase_names[VP_PH_N] = {"load", "forward", "backward", "optimizer_step", "prefill", "decode"};

void vp_events_init(vp_events *e) { memset(e, 0, sizeof *e); }

void vp_events_free(vp_events *e) {
    free(e->ev);
    memset(e, 0, sizeof *e);
}

static int push(vp_events *e, uint64_t size, int32_t id) {
    if (e->failed) return 0;
    if (e->n == e->cap) {
        int32_t cap = e->cap ? e->cap * 2 : 1024;
        if (cap < e->cap || cap > (1 << 26)) { /* 64M events: far beyond any plan we build */
            e->failed = 1;
            return 0;
        }
        vp_event *p = realloc(e->ev, (size_t)cap * sizeof *p);
        if (!p) {
            e->failed = 1;
            return 0;
        }
        e->ev = p;
        e->cap = cap;
    }
    e->ev[e->n].size = size;
    e->ev[e->n].id = id;
    e->ev[e->n].phase = e->phase;
    e->n++;
    return 1;
}

int32_t vp_ev_alloc(vp_events *e, int64_t bytes) {
    if (bytes <= 0) return -1;
    int32_t id = e->n;
    return push(e, (uint64_t)bytes, id) ? id : -1;
}

int32_t vp_ev_alloc_bytes(vp_events *e, double bytes) {
    if (!(bytes >= 1.0)) return -1;   /* also NaN */
    if (bytes > 4.6e18) bytes = 4.6e18; /* below INT64_MAX: the conversion stays defined */
    return vp_ev_alloc(e, (int64_t)bytes);
}

void vp_ev_free(vp_events *e, int32_t id) {
    if (id >= 0) push(e, 0, id);
}

void vp_ev_empty_cache(vp_events *e) { push(e, 0, VP_EV_EMPTY_CACHE); }

void vp_tensors_push(vp_tensors *t, vp_events *e, int32_t id) {
    if (id < 0) return;
    if (t->n == t->cap) {
        int32_t cap = t->cap ? t->cap * 2 : 64;
        int32_t *p = realloc(t->id, (size_t)cap * sizeof *p);
        if (!p) {
            e->failed = 1;
            return;
        }
        t->id = p;
        t->cap = cap;
    }
    t->id[t->n++] = id;
}

void vp_tensors_release(vp_tensors *t, vp_events *e) {
    while (t->n > 0) vp_ev_free(e, t->id[--t->n]);
}

void vp_tensors_dispose(vp_tensors *t) {
    free(t->id);
    memset(t, 0, sizeof *t);
}
