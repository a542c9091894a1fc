/* t_events.h: what the tests of the op-by-op VAE programs (test_events_vae_wan.c, test_events_vae_kl.c) read off an
 * event list: its allocation sizes in order, whether a run of sizes occurs in it, and its replay through the
 * allocator model with the default settings. Internal: include after alloc_events.h and vp_test.h. */
#ifndef T_EVENTS_H
#define T_EVENTS_H

#include <stdlib.h>

/* the events' allocation sizes, in order (free() the result) */
static inline int64_t *t_allocs(const vp_events *e, int *n) {
    int64_t *s = malloc((size_t)(e->n > 0 ? e->n : 1) * sizeof *s);
    assert_non_null(s);
    *n = 0;
    for (int32_t i = 0; i < e->n; i++)
        if (e->ev[i].size > 0) s[(*n)++] = (int64_t)e->ev[i].size;
    return s;
}

/* whether want[0..k) occurs in s as consecutive allocations */
static inline int t_has_run(const int64_t *s, int n, const int64_t *want, int k) {
    for (int i = 0; i + k <= n; i++) {
        int ok = 1;
        for (int j = 0; j < k && ok; j++) ok = s[i + j] == want[j];
        if (ok) return 1;
    }
    return 0;
}

/* the replay from an empty cache with PyTorch's default allocator settings */
static inline void t_replay(const vp_events *e, vp_reserved *r) {
    vp_alloc_conf conf;
    vp_alloc_conf_default(&conf);
    vp_replay(e, &conf, 0, r);
}

#endif
