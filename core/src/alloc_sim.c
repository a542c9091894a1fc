/* alloc_sim.c: PyTorch's CUDA caching allocator (DeviceCachingAllocator), one device, one stream.
 *
 * Source followed: c10/cuda/CUDACachingAllocator.cpp (PyTorch 2.11; read at pytorch/pytorch
 * 001074d2 and checked against the 2.9+ layout where the settings moved to
 * c10/core/AllocatorConfig.cpp). Comments name the C++ function each rule comes from. Validated
 * by replaying eight allocator histories recorded with PyTorch 2.11 on an H100
 * (tests/groundtruth/h100-2026-11-23, tests/core/test_alloc_sim.c).
 *
 * Not modelled: other streams (record_stream events), CUDA graph private pools, free-memory
 * callbacks, IPC. A block is one slot of an array; the free blocks of each pool are kept in the
 * order of BlockComparatorSize (size, then address) in size bins threaded through the blocks, so
 * best fit is a bitmap scan and usually the first block of a bin, and taking a block out an unlink.
 * Speed (tests/core/bench_alloc_sim.c) matters: every estimate replays thousands of events. */
#include <stdlib.h>
#include <string.h>

#include "alloc_sim.h"

/* CUDACachingAllocator.cpp constants (top of the file) */
#define K_MIN_BLOCK 512ULL               /* kMinBlockSize: all sizes are rounded to at least 512 B */
#define K_SMALL_SIZE 1048576ULL          /* kSmallSize: largest "small" allocation is 1 MiB */
#define K_SMALL_BUFFER 2097152ULL        /* kSmallBuffer: small allocations are packed in 2 MiB blocks */
#define K_LARGE_BUFFER 20971520ULL       /* kLargeBuffer: 1-10 MiB requests are packed in 20 MiB blocks */
#define K_MIN_LARGE_ALLOC 10485760ULL    /* kMinLargeAlloc */
#define K_ROUND_LARGE 2097152ULL         /* kRoundLarge: large allocations are rounded to 2 MiB */
#define K_ONE_EXA 1152921504606846976ULL /* NativeCachingAllocator::allocate refuses >= 1 EB */
/* Virtual address space of one expandable segment. PyTorch reserves 9/8 of the GPU's memory
 * (ExpandableSegment constructor, find_expandable_block); any span larger than every block behaves
 * the same, so we reserve 64 TiB, whole pages. */
#define K_ES_VA (1ULL << 46)
#define K_VA_TOP (1ULL << 62)

/* Speed only: keep the rare paths out of line so that the hot ones stay short. */
#if defined(__GNUC__) || defined(__clang__)
#define NOINLINE __attribute__((noinline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define NOINLINE
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#endif

typedef struct {
    uint64_t ptr, size;          /* (Block::requested_size only feeds stats this model does not keep) */
    int64_t gc_base;             /* Block::gc_count_base */
    int32_t prev, next;          /* neighbours in the segment (-1: none) */
    int32_t fprev, fnext;        /* neighbours in its bin of the free index while in_tree (-1: none) */
    uint32_t gen;                /* handle generation */
    int32_t es;                  /* expandable segment index, -1 for cudaMalloc segments */
    uint16_t bin;                /* its bin while in_tree */
    uint8_t large, allocated, mapped, in_tree;
    uint8_t pad_[8];             /* 64 bytes: an index is a shift (measured faster than 56) */
} blk_t;

typedef struct {
    int32_t *v;
    int32_t n, cap;
} ivec;

/* BlockPool::blocks: free mapped blocks in BlockComparatorSize order (size, then address), kept in
 * size bins (16 per power of two), each a list threaded through the blocks (fprev, fnext) in that
 * order, and a bitmap of non-empty bins: best fit is a bitmap scan and the first block of a bin that
 * is large enough; taking a block out is an unlink. head and tail are only meaningful while the bin's
 * bit is set. */
#define N_BINS 1024
typedef struct {
    int32_t head, tail;
} fbin;
typedef struct {
    fbin bin[N_BINS];
    uint64_t nonempty[N_BINS / 64];
    uint64_t summary;           /* bit w: nonempty[w] != 0 */
    int64_t gfb_count;          /* BlockPool::get_free_blocks_call_count */
    ivec unmapped;              /* BlockPool::unmapped, by address */
} pool_t;

typedef struct {
    uint64_t base, page;
    int live;
} eseg_t;

struct vp_alloc_sim {
    vp_alloc_conf conf;
    int intervals; /* conf has the list form of roundup_power2_divisions */
    int plain_round; /* no roundup_power2_divisions at all: round_size is "512 B multiple" */
    uint64_t limit;
    blk_t *b;
    int32_t nb, capb;
    ivec free_slots, scratch, scratch2;
    pool_t pool[2]; /* [0] small_blocks, [1] large_blocks */
    eseg_t *es;
    int32_t nes, capes;
    uint64_t next_va;
    int nomem; /* a host allocation failed: results are no longer exact */
    vp_alloc_stats st;
    int oom_set;
    vp_alloc_oom oom;
};

/* ---- arithmetic ------------------------------------------------------------------------------ */
static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t sub_floor(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }
static uint64_t round_up(uint64_t x, uint64_t m) {
    uint64_t r = x % m;
    return r ? add_sat(x, m - r) : x;
}
static int log2_floor(uint64_t x) { return 63 - __builtin_clzll(x); } /* x > 0 */
static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* ---- rounding ---------------------------------------------------------------------------------- */
/* AcceleratorAllocatorConfig::roundup_power2_divisions(size): intervals start at 1 MiB (index 0 also
 * takes smaller sizes) and the last one takes everything from 32 GiB. */
static int has_intervals(const vp_alloc_conf *c) {
    int any = 0;
    for (int i = 0; i < VP_ALLOC_ROUNDUP_INTERVALS; i++) any |= c->roundup_power2_intervals[i] != 0;
    return any;
}
static uint64_t divisions_for(const vp_alloc_conf *c, int intervals, uint64_t size) {
    if (!intervals) return c->roundup_power2_divisions > 0 ? (uint64_t)c->roundup_power2_divisions : 0;
    int lg = log2_floor(size), idx = lg > 20 ? lg - 20 : 0;
    if (idx > VP_ALLOC_ROUNDUP_INTERVALS - 1) idx = VP_ALLOC_ROUNDUP_INTERVALS - 1;
    return c->roundup_power2_intervals[idx];
}

/* roundup_power2_next_division: 1200 with 4 divisions lies in [1024, 2048), split at 1024, 1280,
 * 1536, 1792 -> 1280. */
static uint64_t next_division(uint64_t size, uint64_t divisions) {
    if (is_pow2(size)) return size;
    uint64_t floor2 = 1ULL << log2_floor(size);
    uint64_t step = floor2 >> log2_floor(divisions);
    if (step == 0) return floor2 > UINT64_MAX / 2 ? UINT64_MAX : floor2 << 1;
    uint64_t lo = size & ~(step - 1);
    return lo == size ? size : add_sat(lo, step);
}

/* DeviceCachingAllocator::round_size */
static uint64_t round_size(const vp_alloc_conf *conf, int intervals, uint64_t size) {
    if (size < K_MIN_BLOCK) return K_MIN_BLOCK;
    uint64_t d = divisions_for(conf, intervals, size);
    if (d > 1 && d < (1ULL << 40) && size > K_MIN_BLOCK * d) return next_division(size, d);
    return round_up(size, K_MIN_BLOCK);
}
uint64_t vp_alloc_round_size(const vp_alloc_conf *conf, uint64_t size) {
    vp_alloc_conf def;
    if (!conf) {
        vp_alloc_conf_default(&def);
        conf = &def;
    }
    return round_size(conf, has_intervals(conf), size);
}

/* DeviceCachingAllocator::get_allocation_size: the cudaMalloc a request needs */
uint64_t vp_alloc_segment_size(uint64_t rounded) {
    if (rounded <= K_SMALL_SIZE) return K_SMALL_BUFFER;
    if (rounded < K_MIN_LARGE_ALLOC) return K_LARGE_BUFFER;
    return round_up(rounded, K_ROUND_LARGE);
}

/* ---- small vectors ------------------------------------------------------------------------------ */
static int iv_reserve(ivec *v, int32_t n) {
    if (n <= v->cap) return 1;
    int32_t cap = v->cap ? v->cap : 16;
    while (cap < n) {
        if (cap > INT32_MAX / 2) return 0;
        cap *= 2;
    }
    int32_t *nv = realloc(v->v, (size_t)cap * sizeof *nv);
    if (!nv) return 0;
    v->v = nv;
    v->cap = cap;
    return 1;
}
static int iv_push(ivec *v, int32_t x) {
    if (!iv_reserve(v, v->n + 1)) return 0;
    v->v[v->n++] = x;
    return 1;
}

/* ---- block slots ----------------------------------------------------------------------------------- */
#define B(i) (s->b[(i)])

/* A new block (never moves existing blocks' indices; may move s->b). -1 when out of memory. */
static inline int32_t blk_new(vp_alloc_sim *s) {
    int32_t i;
    if (s->free_slots.n > 0) {
        i = s->free_slots.v[--s->free_slots.n];
    } else {
        if (s->nb == s->capb) {
            if (s->capb > INT32_MAX / 2) return -1;
            int32_t cap = s->capb ? 2 * s->capb : 256;
            blk_t *nb = realloc(s->b, (size_t)cap * sizeof *nb);
            if (!nb) return -1;
            s->b = nb;
            s->capb = cap;
        }
        i = s->nb++;
        s->b[i].gen = 0;
    }
    blk_t *b = &s->b[i]; /* every field but the handle generation */
    b->ptr = b->size = 0;
    b->gc_base = 0;
    b->prev = b->next = -1;
    b->es = -1;
    b->large = b->allocated = b->in_tree = 0;
    b->mapped = 1;
    return i;
}
static inline void blk_drop(vp_alloc_sim *s, int32_t i) {
    s->b[i].size = 0;
    s->b[i].allocated = 0;
    /* free_slots was reserved for every slot when the slot was made (see ensure_slots) */
    if (!iv_push(&s->free_slots, i)) return; /* leaks the slot; never happens after ensure_slots */
}
/* Room for `extra` new blocks, so that an operation never fails half-way. */
static NOINLINE int ensure_slots_grow(vp_alloc_sim *s, int32_t extra) {
    int32_t need = s->nb + extra;
    if (need > s->capb) {
        int32_t cap = s->capb ? s->capb : 256;
        while (cap < need) {
            if (cap > INT32_MAX / 2) return 0;
            cap *= 2;
        }
        blk_t *nb = realloc(s->b, (size_t)cap * sizeof *nb);
        if (!nb) return 0;
        s->b = nb;
        s->capb = cap;
    }
    return iv_reserve(&s->free_slots, s->capb);
}
static inline int ensure_slots(vp_alloc_sim *s, int32_t extra) {
    return LIKELY(s->free_slots.n >= extra) || LIKELY(s->nb + extra <= s->capb && s->free_slots.cap >= s->capb) ||
           ensure_slots_grow(s, extra);
}

/* ---- the free-block index (BlockPool::blocks) ------------------------------------------------------ */
/* Most bins hold zero or one block (in the H100 traces, with 8 bins per power of two, 83 % of
 * insertions went into an empty bin and 70 % of lookups were answered by the first block of a later
 * bin): insertion is mostly a push on an empty bin or an append after its last block, a lookup a
 * bitmap scan, a removal an unlink. */
static int key_lt(uint64_t size_a, uint64_t ptr_a, uint64_t size, uint64_t ptr) {
    return size_a != size ? size_a < size : ptr_a < ptr;
}
/* the same without branches (for the append test, where the answer is data) */
static inline int key_lt_flat(uint64_t size_a, uint64_t ptr_a, uint64_t size, uint64_t ptr) {
    return (size_a < size) | ((size_a == size) & (ptr_a < ptr));
}
/* 16 bins per power of two, monotonic in size (measured faster than 8 or 32 per power of two) */
static unsigned bin_of(uint64_t size) {
    uint64_t v = size < 16 ? 16 : size; /* sizes below 16 B (none) share the bin of 16 B */
    unsigned lg = (unsigned)log2_floor(v);
    return lg * 16 + (unsigned)((v >> (lg - 4)) & 15);
}
static int bin_on(const pool_t *p, unsigned c) { return (int)((p->nonempty[c / 64] >> (c % 64)) & 1); }
static void bin_mark(pool_t *p, unsigned c) {
    p->nonempty[c / 64] |= 1ULL << (c % 64);
    p->summary |= 1ULL << (c / 64);
}
/* the first non-empty bin after c, or -1 (c < N_BINS). Whether it is in c's bitmap word or a later
 * one is data: both are computed and one is picked without a branch. */
static inline int next_bin(const pool_t *p, unsigned c) {
    unsigned w = c / 64;
    uint64_t m = p->nonempty[w] & ((~0ULL << (c % 64)) << 1);
    uint64_t sw = p->summary & ((~0ULL << w) << 1);
    unsigned w2 = (unsigned)__builtin_ctzll(sw | (1ULL << (N_BINS / 64 - 1))); /* a later word, if any */
    uint64_t m2 = p->nonempty[w2];
    if (UNLIKELY(!(m | sw))) return -1;
    uint64_t in_w = (uint64_t)0 - (uint64_t)(m != 0); /* all ones when c's word has one */
    uint64_t mm = (m & in_w) | (m2 & ~in_w), wn = ((uint64_t)w & in_w) | ((uint64_t)w2 & ~in_w);
    return (int)(wn * 64 + (uint64_t)__builtin_ctzll(mm));
}
/* the last non-empty bin <= c, or -1 */
static int prev_bin(const pool_t *p, int c) {
    if (c < 0) return -1;
    int w = c / 64;
    uint64_t m = p->nonempty[w] & (~0ULL >> (63 - c % 64));
    if (m) return w * 64 + 63 - __builtin_clzll(m);
    uint64_t sw = w > 0 ? p->summary & (~0ULL >> (64 - w)) : 0;
    if (!sw) return -1;
    w = 63 - __builtin_clzll(sw);
    return w * 64 + 63 - __builtin_clzll(p->nonempty[w]);
}
/* insert x before y (y in the bin, x's key below y's) */
static void link_before(vp_alloc_sim *s, fbin *f, int32_t x, int32_t y) {
    int32_t pv = B(y).fprev;
    B(x).fprev = pv;
    B(x).fnext = y;
    B(y).fprev = x;
    if (pv >= 0) B(pv).fnext = x;
    else f->head = x;
}
/* x goes somewhere before the bin's last block: after the last block whose key is below x's
 * (BlockComparatorSize order). The walk starts from the end nearer to x (by size, or by address
 * among equal sizes), which halves it for blocks freed in scrambled order; a bin of n blocks still
 * costs O(n) here, as the memmove of a sorted array did. */
static NOINLINE void tree_insert_inside(vp_alloc_sim *s, fbin *f, int32_t x) {
    uint64_t size = B(x).size, ptr = B(x).ptr;
    int32_t h = f->head, t = f->tail;
    if (!key_lt(B(h).size, B(h).ptr, size, ptr)) {
        link_before(s, f, x, h); /* a new head */
        return;
    }
    /* head < x < tail */
    int from_head = B(h).size != B(t).size ? size - B(h).size < B(t).size - size : ptr - B(h).ptr < B(t).ptr - ptr;
    if (from_head) {
        int32_t y = h; /* walk up to the last block below x */
        while (key_lt(B(B(y).fnext).size, B(B(y).fnext).ptr, size, ptr)) y = B(y).fnext;
        link_before(s, f, x, B(y).fnext);
    } else {
        int32_t y = t; /* walk down to the first block above x */
        while (!key_lt(B(B(y).fprev).size, B(B(y).fprev).ptr, size, ptr)) y = B(y).fprev;
        link_before(s, f, x, y);
    }
}
/* BlockPool::insert_into_blocks: also stamps the gc age base */
static inline void tree_insert(vp_alloc_sim *s, int32_t x) {
    blk_t *bx = &B(x);
    pool_t *p = &s->pool[bx->large];
    unsigned c = bin_of(bx->size);
    fbin *f = &p->bin[c];
    bx->bin = (uint16_t)c;
    bx->gc_base = p->gfb_count;
    bx->in_tree = 1;
    if (!bin_on(p, c)) { /* an empty bin */
        bx->fprev = bx->fnext = -1;
        f->head = f->tail = x;
        bin_mark(p, c);
        return;
    }
    int32_t t = f->tail;
    if (UNLIKELY(!key_lt_flat(B(t).size, B(t).ptr, bx->size, bx->ptr))) {
        tree_insert_inside(s, f, x);
        return;
    }
    B(t).fnext = x; /* after the last block */
    bx->fprev = t;
    bx->fnext = -1;
    f->tail = x;
}
static inline void tree_erase(vp_alloc_sim *s, int32_t x) {
    blk_t *bx = &B(x);
    if (!bx->in_tree) return;
    bx->in_tree = 0;
    pool_t *p = &s->pool[bx->large];
    unsigned c = bx->bin;
    fbin *f = &p->bin[c];
    int32_t pv = bx->fprev, nx = bx->fnext;
    if ((pv | nx) < 0) { /* the first or the last block of its bin */
        if (pv >= 0) {
            B(pv).fnext = -1;
            f->tail = pv;
        } else if (nx >= 0) {
            B(nx).fprev = -1;
            f->head = nx;
        } else { /* the bin is empty now */
            uint64_t w = p->nonempty[c / 64] &= ~(1ULL << (c % 64));
            p->summary &= ~((uint64_t)(w == 0) << (c / 64));
        }
        return;
    }
    B(pv).fnext = nx;
    B(nx).fprev = pv;
}
/* lower_bound(size): the smallest block of at least `size` bytes (lowest address among equals) */
static inline int32_t tr_lower_bound(const vp_alloc_sim *s, const pool_t *p, uint64_t size) {
    unsigned c = bin_of(size);
    if (bin_on(p, c) && s->b[p->bin[c].tail].size >= size) { /* this bin has one */
        int32_t y = p->bin[c].head;
        while (s->b[y].size < size) y = s->b[y].fnext;
        return y;
    }
    int n = next_bin(p, c);
    return n < 0 ? -1 : p->bin[n].head;
}
static int32_t tr_max(const pool_t *p) {
    int c = prev_bin(p, N_BINS - 1);
    return c < 0 ? -1 : p->bin[c].tail;
}
/* the next / previous block in (size, address) order */
static inline int32_t tr_succ(const vp_alloc_sim *s, const pool_t *p, int32_t x) {
    if (s->b[x].fnext >= 0) return s->b[x].fnext;
    int c = next_bin(p, s->b[x].bin);
    return c < 0 ? -1 : p->bin[c].head;
}
static int32_t tr_pred(const vp_alloc_sim *s, const pool_t *p, int32_t x) {
    if (s->b[x].fprev >= 0) return s->b[x].fprev;
    int c = prev_bin(p, (int)s->b[x].bin - 1);
    return c < 0 ? -1 : p->bin[c].tail;
}
/* every block of the pool in order (to iterate while releasing some) */
static int tr_collect(const vp_alloc_sim *s, const pool_t *p, ivec *out) {
    for (int c = bin_on(p, 0) ? 0 : next_bin(p, 0); c >= 0; c = next_bin(p, (unsigned)c))
        for (int32_t y = p->bin[c].head; y >= 0; y = s->b[y].fnext)
            if (!iv_push(out, y)) return 0;
    return 1;
}

/* ---- BlockPool::unmapped (expandable segments): a short list by address ---------------------- */
static void unmapped_insert(vp_alloc_sim *s, int32_t x) {
    ivec *u = &s->pool[B(x).large].unmapped;
    if (!iv_reserve(u, u->n + 1)) return; /* ensure_unmapped() reserved it */
    int32_t i = u->n;
    while (i > 0 && B(u->v[i - 1]).ptr > B(x).ptr) {
        u->v[i] = u->v[i - 1];
        i--;
    }
    u->v[i] = x;
    u->n++;
}
static void unmapped_erase(vp_alloc_sim *s, int32_t x) {
    ivec *u = &s->pool[B(x).large].unmapped;
    for (int32_t i = 0; i < u->n; i++) {
        if (u->v[i] == x) {
            memmove(u->v + i, u->v + i + 1, (size_t)(u->n - i - 1) * sizeof *u->v);
            u->n--;
            return;
        }
    }
}
static int ensure_unmapped(vp_alloc_sim *s, int extra) {
    return iv_reserve(&s->pool[0].unmapped, s->pool[0].unmapped.n + extra) &&
           iv_reserve(&s->pool[1].unmapped, s->pool[1].unmapped.n + extra);
}

/* ---- stats --------------------------------------------------------------------------------------- */
static void reserve_more(vp_alloc_sim *s, uint64_t n) {
    s->st.reserved = add_sat(s->st.reserved, n);
    if (s->st.reserved > s->st.peak_reserved) s->st.peak_reserved = s->st.reserved;
}
static void allocate_more(vp_alloc_sim *s, uint64_t n) {
    s->st.allocated = add_sat(s->st.allocated, n);
    if (s->st.allocated > s->st.peak_allocated) s->st.peak_allocated = s->st.allocated;
}

/* ---- construction ------------------------------------------------------------------------------- */
void vp_alloc_conf_default(vp_alloc_conf *c) {
    if (!c) return;
    memset(c, 0, sizeof *c);
    c->max_split_size = UINT64_MAX;              /* AllocatorConfig: max_split_size_(SIZE_MAX) */
    c->max_non_split_rounding_size = K_LARGE_BUFFER; /* max_non_split_rounding_size_(kLargeBuffer) */
}

void vp_alloc_sim_reset(vp_alloc_sim *s, uint64_t limit_bytes) {
    if (!s) return;
    s->limit = limit_bytes;
    s->nb = 0;
    s->free_slots.n = s->scratch.n = s->scratch2.n = 0;
    for (int i = 0; i < 2; i++) {
        memset(s->pool[i].nonempty, 0, sizeof s->pool[i].nonempty);
        s->pool[i].summary = 0;
        s->pool[i].gfb_count = 0;
        s->pool[i].unmapped.n = 0;
    }
    s->nes = 0;
    s->next_va = K_VA_TOP;
    s->nomem = 0;
    memset(&s->st, 0, sizeof s->st);
    s->oom_set = 0;
    memset(&s->oom, 0, sizeof s->oom);
}

vp_alloc_sim *vp_alloc_sim_new(const vp_alloc_conf *conf, uint64_t limit_bytes) {
    vp_alloc_sim *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (conf) s->conf = *conf;
    else vp_alloc_conf_default(&s->conf);
    s->intervals = has_intervals(&s->conf);
    s->plain_round = !s->intervals && s->conf.roundup_power2_divisions <= 1;
    vp_alloc_sim_reset(s, limit_bytes);
    return s;
}

void vp_alloc_sim_free(vp_alloc_sim *s) {
    if (!s) return;
    free(s->b);
    free(s->free_slots.v);
    free(s->scratch.v);
    free(s->scratch2.v);
    for (int i = 0; i < 2; i++) free(s->pool[i].unmapped.v);
    free(s->es);
    free(s);
}

/* cudaMalloc / cuMemAddressReserve: fresh addresses, 2 MiB aligned. They only break ties between
 * free blocks of equal size (BlockComparatorSize orders by address). CUDA hands out addresses
 * mostly downwards: in the H100 traces 300 of 325 segments start below the previous one, so a newer
 * segment gets a lower address here, and wins ties, as it does on the GPU. */
static uint64_t take_va(vp_alloc_sim *s, uint64_t size) {
    s->next_va -= round_up(size, K_ROUND_LARGE); /* wraps only after 2^62 B of segments: defined */
    return s->next_va;
}

/* ---- merging and splitting ---------------------------------------------------------------------- */
/* try_merge_blocks(dst, src): absorb a free neighbour in the same mapped state. dst is in no index. */
static uint64_t try_merge(vp_alloc_sim *s, int32_t dst, int32_t src) {
    if (src < 0 || B(src).allocated || B(src).mapped != B(dst).mapped) return 0;
    if (B(src).mapped) tree_erase(s, src);
    else unmapped_erase(s, src);
    if (B(dst).prev == src) { /* [src dst] */
        B(dst).ptr = B(src).ptr;
        B(dst).prev = B(src).prev;
        if (B(dst).prev >= 0) B(B(dst).prev).next = dst;
    } else { /* [dst src] */
        B(dst).next = B(src).next;
        if (B(dst).next >= 0) B(B(dst).next).prev = dst;
    }
    uint64_t sub = B(src).size;
    B(dst).size += sub;
    blk_drop(s, src);
    return sub;
}

/* Block::splice(before, after): put x between before and after */
static void splice(vp_alloc_sim *s, int32_t x, int32_t before, int32_t after) {
    if (before >= 0) B(before).next = x;
    B(x).prev = before;
    if (after >= 0) B(after).prev = x;
    B(x).next = after;
}

static int is_split(const vp_alloc_sim *s, int32_t x) { return s->b[x].prev >= 0 || s->b[x].next >= 0; }

/* free_block: merge with free neighbours (prev, then next) and return to the pool. try_merge for a
 * block that was allocated, so mapped: a neighbour it takes in is a free mapped block, in the index. */
static inline void free_block(vp_alloc_sim *s, int32_t x) {
    int32_t src = B(x).prev;
    if (src >= 0 && !B(src).allocated && B(src).mapped) { /* [src x] */
        tree_erase(s, src);
        blk_t *bx = &B(x), *bs = &B(src);
        bx->ptr = bs->ptr;
        bx->prev = bs->prev;
        bx->size += bs->size;
        if (bx->prev >= 0) B(bx->prev).next = x;
        blk_drop(s, src);
    }
    src = B(x).next;
    if (src >= 0 && !B(src).allocated && B(src).mapped) { /* [x src] */
        tree_erase(s, src);
        blk_t *bx = &B(x), *bs = &B(src);
        bx->next = bs->next;
        bx->size += bs->size;
        if (bx->next >= 0) B(bx->next).prev = x;
        blk_drop(s, src);
    }
    tree_insert(s, x);
}

/* ---- releasing memory ------------------------------------------------------------------------------ */
/* release_block: cudaFree of a whole, free cudaMalloc segment */
static void release_block(vp_alloc_sim *s, int32_t x) {
    tree_erase(s, x);
    s->st.reserved = sub_floor(s->st.reserved, B(x).size);
    if (s->st.n_segments) s->st.n_segments--;
    s->st.n_device_free++;
    blk_drop(s, x);
}
static int releasable(const vp_alloc_sim *s, int32_t x) { return s->b[x].es < 0 && !is_split(s, x); }

/* unmap_block: give back the whole pages inside a free expandable block; the partial pages at its
 * ends stay mapped as free blocks. */
static void unmap_block(vp_alloc_sim *s, int32_t x) {
    const eseg_t *e = &s->es[B(x).es];
    uint64_t off = B(x).ptr - e->base, end_off = off + B(x).size;
    uint64_t begin = (off + e->page - 1) / e->page, end = end_off / e->page; /* segmentRight, segmentLeft */
    if (begin >= end) return;
    if (!ensure_slots(s, 2) || !ensure_unmapped(s, 1)) return;
    uint64_t u_off = begin * e->page, u_size = (end - begin) * e->page;
    tree_erase(s, x);
    if (u_off > off) { /* prev? -> before_free -> block */
        int32_t bf = blk_new(s);
        B(bf).ptr = B(x).ptr;
        B(bf).size = u_off - off;
        B(bf).large = B(x).large;
        B(bf).es = B(x).es;
        splice(s, bf, B(x).prev, x);
        tree_insert(s, bf);
    }
    if (end_off > u_off + u_size) { /* block -> after_free -> next? */
        int32_t af = blk_new(s);
        B(af).ptr = e->base + u_off + u_size;
        B(af).size = end_off - (u_off + u_size);
        B(af).large = B(x).large;
        B(af).es = B(x).es;
        splice(s, af, x, B(x).next);
        tree_insert(s, af);
    }
    B(x).ptr = e->base + u_off;
    B(x).size = u_size;
    B(x).mapped = 0;
    try_merge(s, x, B(x).prev);
    try_merge(s, x, B(x).next);
    unmapped_insert(s, x);
    s->st.reserved = sub_floor(s->st.reserved, u_size);
    s->st.n_device_free++;
}

/* release_expandable_segment: the whole segment is unmapped */
static void release_expandable_segment(vp_alloc_sim *s, int32_t x) {
    unmapped_erase(s, x);
    s->es[B(x).es].live = 0;
    if (s->st.n_segments) s->st.n_segments--;
    blk_drop(s, x);
}

/* release_blocks(pool): cudaFree every free unsplit segment, unmap every free expandable block */
static void release_blocks(vp_alloc_sim *s, int large) {
    s->scratch.n = s->scratch2.n = 0;
    if (!tr_collect(s, &s->pool[large], &s->scratch)) return;
    for (int32_t i = 0; i < s->scratch.n; i++) {
        int32_t x = s->scratch.v[i];
        if (B(x).es >= 0) {
            if (!iv_push(&s->scratch2, x)) return;
        } else if (!is_split(s, x)) {
            release_block(s, x);
        }
    }
    for (int32_t i = 0; i < s->scratch2.n; i++) {
        int32_t x = s->scratch2.v[i];
        unmap_block(s, x);
        if (!B(x).mapped && !is_split(s, x)) release_expandable_segment(s, x);
    }
}

/* release_cached_blocks: large pool, then small pool */
static void release_cached_blocks(vp_alloc_sim *s) {
    release_blocks(s, 1);
    release_blocks(s, 0);
}

/* release_available_cached_blocks: with max_split_size set, free one oversize cached segment of at
 * least the request (or max_split_size), else free oversize segments from the largest down until
 * that much was freed. Returns whether the retry should be tried. */
static int release_available_cached_blocks(vp_alloc_sim *s, int large, uint64_t size) {
    const uint64_t msplit = s->conf.max_split_size;
    if (msplit == UINT64_MAX) return 0;
    pool_t *p = &s->pool[large];
    uint64_t key = size < msplit ? msplit : size;
    int32_t it = tr_lower_bound(s, p, key);
    if (it < 0) {
        /* No single block is large enough; free multiple oversize blocks, starting with the largest */
        it = tr_max(p);
        if (it < 0) return 0;
        uint64_t released = 0;
        while (released < key && B(it).size >= msplit) {
            int32_t cur = it;
            it = tr_pred(s, p, cur);
            if (!releasable(s, cur)) break; /* PyTorch asserts here; never seen in practice */
            released = add_sat(released, B(cur).size);
            release_block(s, cur);
            if (it < 0) break;
        }
        if (released < key) return 0;
    } else {
        if (!releasable(s, it)) return 0;
        release_block(s, it);
    }
    return 1;
}

/* garbage_collect_cached_blocks: under a memory limit, once reserved passes
 * garbage_collection_threshold × limit, cudaFree unsplit large-pool segments that waited at least
 * the mean number of get_free_block calls since they were cached, until the excess is freed. */
static void garbage_collect(vp_alloc_sim *s) {
    pool_t *p = &s->pool[1];
    uint64_t thr = (uint64_t)(s->conf.garbage_collection_threshold * (double)s->limit);
    if (s->st.reserved <= thr) return;
    uint64_t target = s->st.reserved - thr, reclaimed = 0;
    s->scratch.n = 0;
    if (!tr_collect(s, p, &s->scratch)) return;
    uint64_t total_age = 0;
    int64_t count = 0;
    for (int32_t i = 0; i < s->scratch.n; i++) {
        int32_t x = s->scratch.v[i];
        if (releasable(s, x)) {
            total_age += (uint64_t)(p->gfb_count - B(x).gc_base);
            count++;
        }
    }
    if (count == 0) return;
    int freed = 1;
    while (reclaimed < target && freed && count > 0) {
        double age_threshold = (double)total_age / (double)count;
        freed = 0;
        s->scratch.n = 0;
        if (!tr_collect(s, p, &s->scratch)) return;
        for (int32_t i = 0; i < s->scratch.n; i++) {
            int32_t x = s->scratch.v[i];
            uint64_t age = (uint64_t)(p->gfb_count - B(x).gc_base);
            if (releasable(s, x) && (double)age >= age_threshold) {
                freed = 1;
                reclaimed = add_sat(reclaimed, B(x).size);
                total_age -= age;
                count--;
                release_block(s, x);
            }
        }
    }
}

/* ---- finding and making blocks -------------------------------------------------------------------- */
/* expandable_size in get_free_block: a block followed by unmapped space can grow into it */
static uint64_t expandable_size(const vp_alloc_sim *s, int32_t x) {
    int32_t n = s->b[x].next;
    return add_sat(s->b[x].size, (n >= 0 && !s->b[n].mapped) ? s->b[n].size : 0);
}

/* get_free_block: best fit, with the max_split_size rules */
static int32_t get_free_block(vp_alloc_sim *s, int large, uint64_t size) {
    pool_t *p = &s->pool[large];
    /* Track block reuse interval only when garbage collection is enabled. */
    if (s->limit && s->conf.garbage_collection_threshold > 0.0) p->gfb_count++;
    int32_t it = tr_lower_bound(s, p, size);
    if (it < 0) return -1;
    if (B(it).es >= 0) {
        /* the part of a block that can expand counts as its size for best fit */
        int32_t nx = tr_succ(s, p, it);
        while (B(it).es >= 0 && nx >= 0 && expandable_size(s, nx) < expandable_size(s, it)) {
            it = nx;
            nx = tr_succ(s, p, nx);
        }
    }
    const uint64_t msplit = s->conf.max_split_size;
    /* Do not return an oversized block for a large request */
    if (size < msplit && B(it).size >= msplit) return -1;
    /* Allow oversized block size to be rounded up but within a limit (max_non_split_rounding_mb) */
    if (size >= msplit && B(it).size >= add_sat(size, s->conf.max_non_split_rounding_size)) return -1;
    tree_erase(s, it);
    return it;
}

/* should_split: small pool or expandable segments keep any 512 B remainder; the large pool keeps a
 * remainder over 1 MiB, and never splits for requests of max_split_size or more. */
static int should_split(const vp_alloc_sim *s, int32_t x, uint64_t size) {
    uint64_t remaining = s->b[x].size - size;
    if (!s->b[x].large || s->conf.expandable_segments) return remaining >= K_MIN_BLOCK;
    return size < s->conf.max_split_size && remaining > K_SMALL_SIZE;
}

/* map_block: map the pages that cover [ptr, ptr + size) of an unmapped block (ExpandableSegment::map
 * rounds out to whole pages), merge with free mapped neighbours. */
static int map_block(vp_alloc_sim *s, int32_t x, uint64_t size) {
    const eseg_t *e = &s->es[B(x).es];
    uint64_t off = B(x).ptr - e->base;
    uint64_t msize = round_up(off + size, e->page) - off;
    if (msize > B(x).size) msize = B(x).size;
    if (!ensure_slots(s, 1) || !ensure_unmapped(s, 1)) return 0;
    unmapped_erase(s, x);
    B(x).mapped = 1;
    if (msize < B(x).size) { /* to_map -> remaining -> to_map->next */
        int32_t r = blk_new(s);
        B(r).ptr = B(x).ptr + msize;
        B(r).size = B(x).size - msize;
        B(r).large = B(x).large;
        B(r).es = B(x).es;
        B(r).mapped = 0;
        splice(s, r, x, B(x).next);
        unmapped_insert(s, r);
        B(x).size = msize;
    }
    try_merge(s, x, B(x).prev);
    try_merge(s, x, B(x).next);
    tree_insert(s, x);
    reserve_more(s, msize);
    s->st.n_device_alloc++;
    return 1;
}

/* find_expandable_block: the lowest-addressed unmapped range (with the free block just before it)
 * that has `size` bytes of free address space, else a new segment. */
static int32_t find_expandable_block(vp_alloc_sim *s, int large, uint64_t size) {
    ivec *u = &s->pool[large].unmapped;
    for (int32_t i = 0; i < u->n; i++) {
        int32_t c = u->v[i];
        if (B(c).prev >= 0 && !B(B(c).prev).allocated) c = B(c).prev;
        uint64_t bytes = 0;
        for (int32_t y = c; bytes < size && y >= 0 && !B(y).allocated; y = B(y).next)
            bytes = add_sat(bytes, B(y).size);
        if (bytes >= size) return c;
    }
    /* a new segment: 2 MiB pages for the small pool, 20 MiB (kLargeBuffer) for the large one */
    uint64_t page = large ? K_LARGE_BUFFER : K_SMALL_BUFFER;
    uint64_t va = K_ES_VA / page * page;
    if (size > va) return -1;
    if (s->nes == s->capes) {
        int32_t cap = s->capes ? 2 * s->capes : 4;
        eseg_t *ne = realloc(s->es, (size_t)cap * sizeof *ne);
        if (!ne) return -1;
        s->es = ne;
        s->capes = cap;
    }
    if (!ensure_slots(s, 1) || !ensure_unmapped(s, 1)) return -1;
    int32_t ei = s->nes++;
    s->es[ei].base = take_va(s, va);
    s->es[ei].page = page;
    s->es[ei].live = 1;
    int32_t c = blk_new(s);
    B(c).ptr = s->es[ei].base;
    B(c).size = va;
    B(c).large = (uint8_t)large;
    B(c).es = ei;
    B(c).mapped = 0;
    unmapped_insert(s, c);
    s->st.n_segments++;
    return c;
}

/* try_allocate_expandable_block: map what is missing after the candidate, return a free mapped block
 * of at least `size` bytes, out of the pool. */
static int32_t try_allocate_expandable_block(vp_alloc_sim *s, int large, uint64_t size) {
    int32_t c = find_expandable_block(s, large, size);
    if (c < 0) return -1;
    if (!B(c).mapped && !map_block(s, c, B(c).size < size ? B(c).size : size)) return -1;
    while (B(c).size < size) {
        /* invariant: free -> unmapped -> *; map_block maps some of it and merges with c */
        uint64_t remaining = size - B(c).size;
        int32_t nc = B(c).next;
        if (nc < 0 || B(nc).mapped || B(nc).allocated) return -1;
        if (!map_block(s, nc, remaining < B(nc).size ? remaining : B(nc).size)) return -1;
        c = nc;
    }
    tree_erase(s, c);
    return c;
}

/* alloc_block: a new segment of alloc_size (cudaMalloc), or mapped pages of the expandable segment.
 * Fails when the memory limit would be passed (set_per_process_memory_fraction). */
static int32_t alloc_block(vp_alloc_sim *s, int large, uint64_t size, uint64_t alloc_size, int is_retry) {
    if (is_retry) s->st.n_alloc_retries++;
    if (s->limit && add_sat(s->st.reserved, alloc_size) > s->limit) return -1;
    if (s->conf.expandable_segments) return try_allocate_expandable_block(s, large, size);
    if (!ensure_slots(s, 1)) return -1;
    int32_t x = blk_new(s);
    B(x).ptr = take_va(s, alloc_size);
    B(x).size = alloc_size;
    B(x).large = (uint8_t)large;
    reserve_more(s, alloc_size);
    s->st.n_segments++;
    s->st.n_device_alloc++;
    return x;
}

static uint64_t largest_free(const vp_alloc_sim *s) {
    uint64_t m = 0;
    for (int i = 0; i < 2; i++) {
        int32_t x = tr_max(&s->pool[i]);
        if (x >= 0 && s->b[x].size > m) m = s->b[x].size;
    }
    return m;
}

static int64_t record_oom(vp_alloc_sim *s, uint64_t size, uint64_t rounded, uint64_t alloc_size) {
    s->st.n_ooms++;
    if (!s->oom_set) {
        s->oom_set = 1;
        s->oom.request = size;
        s->oom.rounded = rounded;
        s->oom.segment = alloc_size;
        s->oom.allocated = s->st.allocated;
        s->oom.reserved = s->st.reserved;
        s->oom.limit = s->limit;
        s->oom.cached_free = sub_floor(s->st.reserved, s->st.allocated);
        s->oom.largest_free_block = largest_free(s);
    }
    return -1;
}

/* DeviceCachingAllocator::malloc */
/* malloc when get_free_block found nothing: a new segment, else free cached ones and retry */
static NOINLINE int32_t malloc_new_block(vp_alloc_sim *s, int large, uint64_t rounded, uint64_t alloc_size) {
    if (s->limit && s->conf.garbage_collection_threshold > 0.0) garbage_collect(s);
    int32_t x = alloc_block(s, large, rounded, alloc_size, 0);
    /* Free enough available cached blocks to satisfy alloc and retry alloc. */
    if (x < 0 && release_available_cached_blocks(s, large, rounded)) x = alloc_block(s, large, rounded, alloc_size, 0);
    /* Free all non-split cached blocks and retry alloc. */
    if (x < 0) {
        release_cached_blocks(s);
        x = alloc_block(s, large, rounded, alloc_size, 1);
    }
    return x;
}

int64_t vp_alloc_sim_malloc(vp_alloc_sim *s, uint64_t size) {
    if (!s) return -1;
    if (size == 0) return VP_ALLOC_SIM_EMPTY; /* allocate(0) hands out nullptr */
    if (UNLIKELY(size >= K_ONE_EXA)) return record_oom(s, size, size, size);
    /* round_size without divisions: the next 512 B multiple, at least kMinBlockSize (no overflow
     * below 1 EB) */
    uint64_t rounded = LIKELY(s->plain_round) ? (size + K_MIN_BLOCK - 1) & ~(K_MIN_BLOCK - 1) /* 1..512 -> 512 */
                                              : round_size(&s->conf, s->intervals, size);
    int large = rounded > K_SMALL_SIZE; /* get_pool */
    if (UNLIKELY(!ensure_slots(s, 4))) return record_oom(s, size, rounded, vp_alloc_segment_size(rounded));
    int32_t x = get_free_block(s, large, rounded);
    if (UNLIKELY(x < 0)) {
        uint64_t alloc_size = vp_alloc_segment_size(rounded);
        x = malloc_new_block(s, large, rounded, alloc_size);
        if (x < 0) return record_oom(s, size, rounded, alloc_size);
    }
    /* alloc_found_block: split off the remainder, which goes back to the pool */
    if (should_split(s, x, rounded) && ensure_slots(s, 1)) {
        int32_t rem = x;
        x = blk_new(s);
        blk_t *bx = &B(x), *br = &B(rem);
        bx->ptr = br->ptr;
        bx->size = rounded;
        bx->large = br->large;
        bx->es = br->es;
        bx->prev = br->prev; /* splice(x, rem->prev, rem) */
        bx->next = rem;
        if (br->prev >= 0) B(br->prev).next = x;
        br->prev = x;
        br->ptr += rounded;
        br->size -= rounded;
        tree_insert(s, rem);
    }
    blk_t *bx = &B(x);
    bx->allocated = 1;
    uint32_t gen = (bx->gen + 1) & 0x7fffffffu;
    bx->gen = gen = gen ? gen : 1;
    allocate_more(s, bx->size); /* allocated_bytes counts the block, not the request */
    return (int64_t)(((uint64_t)gen << 32) | (uint32_t)x);
}

/* DeviceCachingAllocator::free -> free_block (no other streams, so no events to wait for) */
void vp_alloc_sim_release(vp_alloc_sim *s, int64_t handle) {
    if (!s || handle == VP_ALLOC_SIM_EMPTY) return;
    int64_t idx = handle & 0xffffffff;
    uint32_t gen = (uint32_t)((uint64_t)handle >> 32);
    if (handle < 0 || idx >= s->nb || !B(idx).allocated || B(idx).gen != gen) {
        s->st.n_bad_frees++;
        return;
    }
    int32_t x = (int32_t)idx;
    B(x).allocated = 0;
    s->st.allocated = sub_floor(s->st.allocated, B(x).size);
    free_block(s, x);
}

uint64_t vp_alloc_sim_address(const vp_alloc_sim *s, int64_t handle) {
    if (!s || handle < 0 || handle == VP_ALLOC_SIM_EMPTY) return 0;
    int64_t idx = handle & 0xffffffff;
    if (idx >= s->nb || !s->b[idx].allocated || s->b[idx].gen != (uint32_t)((uint64_t)handle >> 32)) return 0;
    return s->b[idx].ptr;
}

int vp_alloc_sim_check(const vp_alloc_sim *s) {
    if (!s) return 0;
    uint64_t mapped = 0, allocated = 0, in_index = 0, free_mapped = 0;
    int32_t live = 0;
    for (int32_t i = 0; i < s->nb; i++) {
        const blk_t *x = &s->b[i];
        if (x->size == 0) continue; /* a dropped slot */
        live++;
        if (x->mapped) mapped = add_sat(mapped, x->size);
        if (x->allocated) allocated = add_sat(allocated, x->size);
        if (!x->allocated && x->mapped) {
            free_mapped++;
            if (!x->in_tree) return 1;
        }
        if (x->in_tree && (x->allocated || !x->mapped)) return 2;
        if (x->next >= 0) {
            const blk_t *n = &s->b[x->next];
            if (n->prev != i || n->ptr != x->ptr + x->size) return 3;
            if (!x->allocated && !n->allocated && x->mapped == n->mapped) return 4;
        }
        if (x->prev >= 0 && s->b[x->prev].next != i) return 3;
        if (x->es >= s->nes) return 5;
    }
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < N_BINS; c++) {
            const pool_t *p = &s->pool[k];
            if (!bin_on(p, (unsigned)c)) continue;
            int32_t last = -1;
            for (int32_t y = p->bin[c].head; y >= 0; last = y, y = s->b[y].fnext) {
                if (y >= s->nb || in_index > (uint64_t)s->nb) return 6; /* a cycle */
                const blk_t *x = &s->b[y];
                if (!x->in_tree || x->bin != c || bin_of(x->size) != (unsigned)c || x->large != k || x->fprev != last) return 6;
                if (last >= 0 && !key_lt(s->b[last].size, s->b[last].ptr, x->size, x->ptr)) return 6;
                in_index++;
            }
            if (last < 0 || p->bin[c].tail != last) return 6;
        }
    if (in_index != free_mapped) return 7;
    if (s->st.reserved != UINT64_MAX && mapped != s->st.reserved) return 8;
    if (s->st.allocated != UINT64_MAX && allocated != s->st.allocated) return 9;
    if (live + s->free_slots.n != s->nb) return 10;
    return 0;
}

/* emptyCache -> release_cached_blocks */
void vp_alloc_sim_empty_cache(vp_alloc_sim *s) {
    if (s) release_cached_blocks(s);
}

void vp_alloc_sim_stats(const vp_alloc_sim *s, vp_alloc_stats *out) {
    if (!out) return;
    if (!s) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = s->st;
}

int vp_alloc_sim_oom(const vp_alloc_sim *s, vp_alloc_oom *out) {
    if (!s || !s->oom_set) {
        if (out) memset(out, 0, sizeof *out);
        return 0;
    }
    if (out) *out = s->oom;
    return 1;
}

/* resetPeakStats: peak = current */
void vp_alloc_sim_reset_peaks(vp_alloc_sim *s) {
    if (!s) return;
    s->st.peak_allocated = s->st.allocated;
    s->st.peak_reserved = s->st.reserved;
}
