/* alloc_sim.h: a simulation of PyTorch's CUDA caching allocator (one device, one stream).
 *
 * It replays an ordered list of allocations and frees the way DeviceCachingAllocator does
 * (PyTorch 2.11 c10/cuda/CUDACachingAllocator.cpp, c10/core/AllocatorConfig.cpp): request rounding,
 * the small (<= 1 MiB) and large pools, best-fit reuse, block splitting and merging, the cudaMalloc
 * segment sizes, the retry path that frees cached segments when a cudaMalloc fails, garbage
 * collection, and expandable segments. It reports allocated and reserved bytes with their peaks and,
 * when a request cannot be served under the memory limit, why.
 *
 * Pure: no global state, no I/O; every simulator is an opaque heap object. Sizes saturate instead of
 * overflowing. */
#ifndef VP_ALLOC_SIM_H
#define VP_ALLOC_SIM_H

#include <stdint.h>

#include "vramplan.h"

/* PYTORCH_CUDA_ALLOC_CONF (PYTORCH_ALLOC_CONF) settings that change device memory. */
#define VP_ALLOC_ROUNDUP_INTERVALS 16 /* AllocatorConfig.cpp kRoundUpPowerOfTwoIntervals: 1 MiB .. 64 GiB */
typedef struct {
    int expandable_segments;              /* expandable_segments:True */
    uint64_t max_split_size;              /* bytes; UINT64_MAX when unset (PyTorch's default SIZE_MAX) */
    double garbage_collection_threshold;  /* 0 = off; only acts under a memory limit, like PyTorch */
    int roundup_power2_divisions;         /* 0 = off (the single-value form) */
    /* additions */
    uint64_t max_non_split_rounding_size; /* max_non_split_rounding_mb; default kLargeBuffer (20 MiB) */
    /* the list form roundup_power2_divisions:[256:1,512:2,>:8]: divisions per power-of-two interval of
     * the request size, [1,2) MiB, [2,4) MiB, ... (entry 0 also covers sizes below 1 MiB, entry 15 all
     * sizes from 32 GiB). All zero: the single value above applies to every size. */
    uint32_t roundup_power2_intervals[VP_ALLOC_ROUNDUP_INTERVALS];
    double per_process_memory_fraction;   /* per_process_memory_fraction:F (0 = unset); the caller turns
                                             it into the limit given to vp_alloc_sim_new */
    int backend_cuda_malloc_async;        /* backend:cudaMallocAsync: the caching allocator is not used */
} vp_alloc_conf;

void vp_alloc_conf_default(vp_alloc_conf *c);
/* Parses PYTORCH_CUDA_ALLOC_CONF text ("expandable_segments:True,max_split_size_mb:128").
 * NULL or "" gives the defaults. Unknown keys and syntax errors -> VP_ERR_FIELD, bad values ->
 * VP_ERR_RANGE, with err->path = path_prefix and a message naming the key, like PyTorch's own
 * TORCH_CHECK messages. *out is written only on success. */
vp_status vp_alloc_conf_parse(const char *text, const char *path_prefix, vp_alloc_conf *out, vp_error *err);

typedef struct vp_alloc_sim vp_alloc_sim; /* opaque, heap-allocated */

/* limit_bytes: what the allocator may reserve, as torch.cuda.set_per_process_memory_fraction sets it
 * (a cudaMalloc that would take reserved memory past it fails); 0 = unlimited. NULL conf = defaults.
 * Returns NULL when out of memory. */
vp_alloc_sim *vp_alloc_sim_new(const vp_alloc_conf *conf, uint64_t limit_bytes);
void vp_alloc_sim_free(vp_alloc_sim *s);
/* Back to an empty allocator with a new limit, keeping the conf and the buffers (for bisections). */
void vp_alloc_sim_reset(vp_alloc_sim *s, uint64_t limit_bytes);

/* The handle of a 0-byte request: PyTorch hands out a null pointer without touching the allocator. */
#define VP_ALLOC_SIM_EMPTY INT64_MAX
/* Allocate `size` bytes; returns a handle >= 0, or -1 on out-of-memory (then vp_alloc_sim_oom() says
 * why for the first one). A handle stays valid until released. */
int64_t vp_alloc_sim_malloc(vp_alloc_sim *s, uint64_t size);
/* Free a handle. Unknown, stale or already released handles (and -1, VP_ALLOC_SIM_EMPTY) are ignored
 * and counted in n_bad_frees. */
void vp_alloc_sim_release(vp_alloc_sim *s, int64_t handle);
/* The simulated device address of a live allocation, 0 if the handle is not live. Segments get
 * increasing addresses in the order they are made (real cudaMalloc addresses are not ordered). */
uint64_t vp_alloc_sim_address(const vp_alloc_sim *s, int64_t handle);
/* Free every cached block PyTorch can give back (torch.cuda.empty_cache). */
void vp_alloc_sim_empty_cache(vp_alloc_sim *s);

typedef struct {
    uint64_t allocated, reserved, peak_allocated, peak_reserved;
    uint64_t n_segments, n_alloc_retries, n_ooms;
    /* additions */
    uint64_t n_device_alloc;  /* cudaMalloc calls and expandable-segment maps (stats num_device_alloc) */
    uint64_t n_device_free;   /* cudaFree calls and unmaps (num_device_free) */
    uint64_t n_bad_frees;     /* releases of handles that were not live */
} vp_alloc_stats;
/* n_segments: live cudaMalloc segments, plus live expandable segments (each counts once, however
 * much of it is mapped). */
void vp_alloc_sim_stats(const vp_alloc_sim *s, vp_alloc_stats *out);

typedef struct {
    uint64_t request;         /* the size asked for */
    uint64_t rounded;         /* after round_size */
    uint64_t segment;         /* the cudaMalloc it needed (get_allocation_size) */
    uint64_t allocated, reserved, limit;
    uint64_t cached_free;     /* reserved - allocated at the failure: cached but unusable for this request */
    uint64_t largest_free_block;
} vp_alloc_oom;
int vp_alloc_sim_oom(const vp_alloc_sim *s, vp_alloc_oom *out); /* 1 if an OOM happened (the first one) */
/* Reset the peak counters (like torch.cuda.reset_peak_memory_stats). */
void vp_alloc_sim_reset_peaks(vp_alloc_sim *s);

/* Internal consistency (for tests): every live block is accounted once, reserved equals the mapped
 * bytes, allocated the allocated blocks, the free index holds exactly the free mapped blocks, and no
 * two free neighbours were left unmerged. Returns 0 when consistent, else the number of the first
 * broken rule. */
int vp_alloc_sim_check(const vp_alloc_sim *s);

/* PyTorch's request rounding (round_size) and segment size (get_allocation_size), for callers and tests. */
uint64_t vp_alloc_round_size(const vp_alloc_conf *conf, uint64_t size);
uint64_t vp_alloc_segment_size(uint64_t rounded);

#endif
