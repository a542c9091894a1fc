/* t_seq.c: see t_seq.h */
#include "t_seq.h"

#include <stdlib.h>

#include "vp_test.h"

void t_seq_push(t_seq *s, double size, int32_t free_of) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->size = realloc(s->size, (size_t)s->cap * sizeof *s->size);
        s->free_of = realloc(s->free_of, (size_t)s->cap * sizeof *s->free_of);
        assert_non_null(s->size);
        assert_non_null(s->free_of);
    }
    s->size[s->n] = size;
    s->free_of[s->n++] = free_of;
}

void t_seq_dispose(t_seq *s) {
    free(s->size);
    free(s->free_of);
    s->size = NULL;
    s->free_of = NULL;
    s->n = s->cap = 0;
}

void t_seq_of_events(const vp_events *e, int32_t from, t_seq *s) {
    s->n = 0;
    int32_t *num = malloc((size_t)(e->n > 0 ? e->n : 1) * sizeof *num);
    assert_non_null(num);
    int32_t n = 0;
    for (int32_t i = 0; i < e->n; i++) {
        num[i] = -1;
        if (i < from) continue;
        if (e->ev[i].size > 0) {
            if ((double)e->ev[i].size >= T_SEQ_MIB) num[i] = n++, t_seq_push(s, (double)e->ev[i].size, -2);
        } else if (e->ev[i].id >= 0 && (double)e->ev[e->ev[i].id].size >= T_SEQ_MIB) {
            t_seq_push(s, 0, num[e->ev[i].id]);
        }
    }
    free(num);
}
