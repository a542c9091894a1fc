/* reserved.c: replay a step's allocation events through the caching-allocator model (alloc_sim.c):
 * peak reserved memory, and whether every request finds a block or a new segment within the memory
 * the allocator may use (the verdict). */
#include <stdlib.h>
#include <string.h>

#include "alloc_events.h"

static void run(const vp_events *ev, vp_alloc_sim *sim, int64_t *handle, vp_reserved *out, int limited) {
    int loaded = 0;
    for (int32_t i = 0; i < ev->n; i++) {
        const vp_event *x = &ev->ev[i];
        /* peaks count from the end of loading, as torch.cuda.reset_peak_memory_stats() after the
         * model is built (shared/groundtruth/measure.py); what loading left cached stays reserved */
        if (!loaded && x->phase != VP_PH_LOAD) {
            vp_alloc_sim_reset_peaks(sim);
            loaded = 1;
        }
        if (x->size) {
            handle[i] = vp_alloc_sim_malloc(sim, x->size);
            if (handle[i] < 0 && limited) {
                out->fits = 0;
                out->oom_phase = x->phase;
                vp_alloc_sim_oom(sim, &out->oom);
                return; /* PyTorch raises OutOfMemoryError: the step ends here */
            }
        } else if (x->id >= 0 && x->id < i) {
            vp_alloc_sim_release(sim, handle[x->id]);
            handle[x->id] = -1;
        } else if (x->id == VP_EV_EMPTY_CACHE) {
            vp_alloc_sim_empty_cache(sim);
        }
    }
}

void vp_replay(const vp_events *ev, const vp_alloc_conf *conf, uint64_t usable, vp_reserved *out) {
    memset(out, 0, sizeof *out);
    out->fits = 1;
    out->n_events = ev->n;
    int64_t *handle = malloc((size_t)(ev->n > 0 ? ev->n : 1) * sizeof *handle);
    vp_alloc_sim *sim = vp_alloc_sim_new(conf, 0);
    if (!handle || !sim) {
        free(handle);
        vp_alloc_sim_free(sim);
        out->fits = 0;
        return;
    }
    /* unlimited: the peaks a GPU with room to spare shows (torch.cuda.max_memory_reserved) */
    run(ev, sim, handle, out, 0);
    vp_alloc_stats st;
    vp_alloc_sim_stats(sim, &st);
    out->peak_alloc = st.peak_allocated;
    out->peak_reserved = st.peak_reserved;
    /* under the usable memory: a cudaMalloc that does not fit makes PyTorch free its cached segments
     * and retry (CUDACachingAllocator.cpp malloc: release_cached_blocks), so a reserved peak above
     * the usable memory can still fit; only a request that fails after that is an OOM */
    if (usable && st.peak_reserved > usable) {
        vp_alloc_sim_reset(sim, usable);
        run(ev, sim, handle, out, 1);
        vp_alloc_sim_stats(sim, &st);
        out->retries = (int)(st.n_alloc_retries > 1000000 ? 1000000 : st.n_alloc_retries);
    }
    vp_alloc_sim_free(sim);
    free(handle);
}

uint64_t vp_replay_min_limit(const vp_events *ev, const vp_alloc_conf *conf, uint64_t lo, uint64_t hi) {
    /* lo does not fit (or is the allocated peak, which nothing below fits), hi does: bisect to 1 % */
    vp_reserved r;
    for (int k = 0; k < 24 && hi - lo > hi / 100; k++) {
        uint64_t mid = lo + (hi - lo) / 2;
        vp_replay(ev, conf, mid, &r);
        if (r.fits)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}
