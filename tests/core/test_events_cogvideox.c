/* test_events_cogvideox.c: cogvideox-factory's checkpointed LoRA step op by op (core/src/events_cogvideox.c), checked
 * against the H100 allocator trace it was read from (tests/groundtruth/h100-2026-11-24-diffusion/traces/
 * train-cogvideox-2b-64-4-gc-trace.json.gz, as tests/fixtures/alloc_traces/cogvideox-2b-lora64-gc-b4-step.txt by
 * tools/groundtruth/replay_trace.py near: every allocation of the traced step in order, "f N" frees the N-th).
 *
 * The traced setup: CogVideoX-2b (hidden 1920, 30 heads, feed-forward 7680, 30 blocks, patch 2, 16 latent channels),
 * batch 4 of 49 × 480 × 720 (13 × 30 × 45 = 17,550 video tokens a sample, 226 text tokens), LoRA rank 64 on to_q /
 * to_k / to_v / to_out.0, bf16 weights and adapters under autocast, every block checkpointed.
 * usage: test_events_cogvideox GROUP FIXTURES_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_events.h"
#include "timeline.h"
#include "vp_test.h"
#include "t_seq.h"

static const char *g_fixtures = "tests/fixtures";

#define MIB 1048576.0

/* the trace's step: its allocation sizes and its events (size > 0: allocate; else free allocation `id`) */
typedef struct {
    uint64_t *size;     /* per allocation */
    int64_t *op;        /* per event: allocation index, or -(index + 1) for its free */
    size_t nalloc, nop;
} trace;

static void trace_load(trace *t) {
    const char *path = t_fmt("%s/alloc_traces/cogvideox-2b-lora64-gc-b4-step.txt", g_fixtures);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open %s", path);
    memset(t, 0, sizeof *t);
    size_t cap = 1 << 16;
    t->size = malloc(cap * sizeof *t->size);
    t->op = malloc(2 * cap * sizeof *t->op);
    assert_non_null(t->size);
    assert_non_null(t->op);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        unsigned long long v;
        if (sscanf(line, "a %llu", &v) == 1) {
            assert_true(t->nalloc < cap);
            t->size[t->nalloc] = v;
            t->op[t->nop++] = (int64_t)t->nalloc++;
        } else if (sscanf(line, "f %llu", &v) == 1) {
            assert_true(t->nop < 2 * cap && v < t->nalloc);
            t->op[t->nop++] = -(int64_t)v - 1;
        }
    }
    fclose(f);
    assert_int_equal(t->nalloc, 17825);
}

static void trace_free(trace *t) {
    free(t->size);
    free(t->op);
}

/* The trace's events from allocation `lo` up to allocation `hi` (not included), without allocations of `skip` bytes
(0: none). */
static void trace_seq_skip(const trace *t, size_t lo, size_t hi, uint64_t skip, t_seq *s) {
    s->n = 0;
    int32_t *num = malloc(t->nalloc * sizeof *num);
    assert_non_null(num);
    for (size_t k = 0; k < t->nalloc; k++) num[k] = -1;
    int32_t n = 0;
    size_t start = 0;
    while (start < t->nop && t->op[start] != (int64_t)lo) start++;
    for (size_t i = start; i < t->nop && t->op[i] != (int64_t)hi; i++) {
        int64_t o = t->op[i];
        if (o >= 0) {
            if ((double)t->size[o] >= MIB && t->size[o] != skip) num[o] = n++, t_seq_push(s, (double)t->size[o], -2);
        } else if ((double)t->size[-o - 1] >= MIB && t->size[-o - 1] != skip) {
            t_seq_push(s, 0, num[-o - 1]);
        }
    }
    free(num);
}

static void trace_seq(const trace *t, size_t lo, size_t hi, t_seq *s) { trace_seq_skip(t, lo, hi, 0, s); }

/* Same events in the same order, sizes within 512 B (the SDPA backward's workspace is 256 B above the dQ
 * accumulator plus the row sums events_cogvideox.c gives it). */
static void seq_equal(const t_seq *want, const t_seq *got, const char *what) {
    int n = want->n < got->n ? want->n : got->n;
    for (int i = 0; i < n; i++) {
        int ok = want->free_of[i] == got->free_of[i] && fabs(want->size[i] - got->size[i]) <= 512.0;
        if (!ok)
            fail_msg("%s: event %d: trace %s %.0f (of %d), vramplan %s %.0f (of %d)", what, i, want->free_of[i] == -2 ? "alloc" : "free",
                     want->size[i], want->free_of[i], got->free_of[i] == -2 ? "alloc" : "free", got->size[i], got->free_of[i]);
    }
    if (want->n != got->n) fail_msg("%s: %d events in the trace, %d from vramplan", what, want->n, got->n);
}

/* the traced dims: v = 4 × 17,550 video tokens, t = 4 × 226 text tokens, proj_out 2 × 2 × 16 wide */
static const vp_cog_dims DIMS_2B = {4.0 * 17550, 4.0 * 226, 1920, 7680, 30, 64, 64, 0};

/* Block 5's checkpointed forward is the trace's allocations 556 to 657 (block 0's starts after the patch embedding;
 * each block's forward makes 102 allocations, 71 of them in the large pool), and a block's recompute and backward
 * (block 21, the tenth the backward reaches) allocations 4,510 to 4,677: the same events, in the same order, freeing
 * the same tensors, as events_cogvideox.c's programs (the block's two inputs, made by the block before it, are the
 * backward's only frees of earlier tensors). */
static void block_matches_trace(void **st) {
    (void)st;
    trace t;
    trace_load(&t);
    t_seq want = {0}, got = {0};
    vp_events e;
    vp_events_init(&e);
    int32_t in_h = vp_ev_alloc(&e, (int64_t)(2.0 * DIMS_2B.v * DIMS_2B.h)), in_e = vp_ev_alloc(&e, (int64_t)(2.0 * DIMS_2B.t * DIMS_2B.h));
    int32_t h = in_h, enc = in_e, from = e.n;
    vp_ev_cog_block(&e, &DIMS_2B, &h, &enc);
    assert_false(e.failed);
    trace_seq(&t, 556, 658, &want);
    t_seq_of_events(&e, from, &got);
    assert_int_equal(want.n, 140); /* 71 allocations, 69 frees: the block's two outputs stay */
    seq_equal(&want, &got, "forward");
    /* the outputs: the video stream (4 × 17,550 × 1920 × 2 B) and the text stream (4 × 226 × 1920 × 2 B) */
    assert_int_equal(e.ev[h].size, 269568000);
    assert_int_equal(e.ev[enc].size, 3471360);
    from = e.n;
    vp_ev_cog_block_backward(&e, &DIMS_2B, in_h, in_e, 0);
    trace_seq(&t, 4510, 4678, &want);
    t_seq_of_events(&e, from, &got);
    assert_int_equal(want.n, 260);
    seq_equal(&want, &got, "recompute and backward");
    /* the last block's (the backward's first, allocations 3,167 to 3,333; the backward thread's 1 MiB allocation
     * there, never freed, is not the block's): the text stream's gradient is made, and stays */
    in_h = vp_ev_alloc(&e, 269568000), in_e = vp_ev_alloc(&e, 3471360), from = e.n;
    int32_t ge = vp_ev_cog_block_backward(&e, &DIMS_2B, in_h, in_e, 1);
    trace_seq_skip(&t, 3167, 3334, 1048576, &want);
    t_seq_of_events(&e, from, &got);
    assert_int_equal(want.n, 255);
    seq_equal(&want, &got, "the last block's recompute and backward");
    assert_true(ge >= 0);
    assert_int_equal(e.ev[ge].size, 3471360);
    t_seq_dispose(&want);
    t_seq_dispose(&got);
    vp_events_free(&e);
    trace_free(&t);
}

/* Around the blocks, against the same trace. The patch embedding is allocations 37 to 45 (text_proj's output, the
 * latents' permuted copy, the patch Conv2d's output and cuDNN's workspace for it, 278,799,507 B, which
 * events_cogvideox.c leaves out, the flattened copy, the concatenation, the sum with the sincos table): the
 * embedding's output stays. The head, its loss and their backward are allocations 3,106 to 3,166 (after the last
 * block's forward, up to its recompute): norm_final, norm_out, proj_out, unpatchify, the script's fp32 loss, the
 * backward thread's 32 MiB cuBLAS workspace, and the video stream's gradient, which stays with the two loss tensors the
 * script holds; the last block's outputs are the frees of earlier tensors. */
static void outside_blocks_match_trace(void **st) {
    (void)st;
    trace t;
    trace_load(&t);
    t_seq want = {0}, got = {0};
    vp_events e;
    vp_events_init(&e);
    int32_t emb = vp_ev_cog_embed(&e, &DIMS_2B);
    assert_int_equal(e.ev[emb].size, 273039360); /* 4 × 17,776 × 1920 × 2 B */
    trace_seq_skip(&t, 37, 46, 278799507, &want);
    t_seq_of_events(&e, 0, &got);
    seq_equal(&want, &got, "patch embedding");
    int32_t last_h = vp_ev_alloc(&e, 269568000), last_e = vp_ev_alloc(&e, 3471360), from = e.n;
    vp_cog_head head;
    vp_tensors kept = {0};
    int workspace = 0;
    vp_ev_cog_head(&e, &DIMS_2B, last_h, last_e, &head, &kept);
    int32_t g = vp_ev_cog_head_backward(&e, &DIMS_2B, &head, &workspace);
    assert_int_equal(workspace, 1);
    assert_int_equal(kept.n, 2);
    assert_int_equal(e.ev[g].size, 269568000);
    trace_seq(&t, 3106, 3167, &want);
    t_seq_of_events(&e, from, &got);
    seq_equal(&want, &got, "head, loss and their backward");
    vp_tensors_dispose(&kept);
    t_seq_dispose(&want);
    t_seq_dispose(&got);
    vp_events_free(&e);
    trace_free(&t);
}

/* Bytes allocated over the events from `from` on (every allocation, freed or not), and those still live at the end. */
static void volume(const vp_events *e, int32_t from, double *made, double *left) {
    *made = *left = 0;
    for (int32_t i = from; i < e->n; i++) {
        if (e->ev[i].size > 0) {
            *made += (double)e->ev[i].size;
            *left += (double)e->ev[i].size;
        } else if (e->ev[i].id >= 0) {
            *left -= (double)e->ev[e->ev[i].id].size;
        }
    }
}

/* The rotary embedding (CogVideoX-5b, read from embeddings.py apply_rotary_emb: the traced 2b has none) adds only
 * transients. By hand, with Vf = B × video × h × 4 B and Jf = B × joint × h × 4 B: each of q and k in the forward
 * allocates -x_imag (Vf / 2), the stack, x * cos, x_rotated * sin and the sum (Vf each), 4.5 Vf; in the backward
 * CopySlices' clone of the gradient (Jf) and of its slice (Vf), copy_'s zeros (Vf), the two products' gradients (Vf
 * each), -x_imag's (Vf / 2), unbind's stack (Vf) and the slice's zero-filled Jf: 2 Jf + 5.5 Vf. The recompute repeats
 * the forward's. What each leaves is unchanged: the forward its two outputs, the backward nothing (it frees the
 * block's inputs too). */
static void rotary_adds_transients(void **st) {
    (void)st;
    const double vf = 4.0 * DIMS_2B.v * DIMS_2B.h, jf = 4.0 * (DIMS_2B.v + DIMS_2B.t) * DIMS_2B.h;
    double fwd[2], bwd[2];
    for (int rot = 0; rot < 2; rot++) {
        vp_cog_dims d = DIMS_2B;
        d.rotary = rot;
        vp_events e;
        vp_events_init(&e);
        int32_t in_h = vp_ev_alloc(&e, (int64_t)(2.0 * d.v * d.h)), in_e = vp_ev_alloc(&e, (int64_t)(2.0 * d.t * d.h));
        int32_t h = in_h, enc = in_e, from = e.n;
        double left;
        vp_ev_cog_block(&e, &d, &h, &enc);
        volume(&e, from, &fwd[rot], &left);
        assert_true(fabs(left - (269568000.0 + 3471360.0)) < 1.0); /* the outputs */
        from = e.n;
        vp_ev_cog_block_backward(&e, &d, in_h, in_e, 0);
        volume(&e, from, &bwd[rot], &left);
        assert_true(fabs(left + 269568000.0 + 3471360.0) < 1.0); /* everything it made, and the inputs, freed */
        vp_events_free(&e);
    }
    assert_true(fabs(fwd[1] - fwd[0] - 2.0 * 4.5 * vf) < 16.0);
    assert_true(fabs(bwd[1] - bwd[0] - 2.0 * 4.5 * vf - 2.0 * (2.0 * jf + 5.5 * vf)) < 64.0);
}

/* The whole step (vp_events_train on the traced setup), its model load left out, replayed from an empty allocator:
 * 18.06 GiB reserved against the 17.92 GiB the trace's own step replays to (test_alloc_sim.c replay_cogvideox_lora_step
 * checks that replay against the segments the trace allocated, 17.80 GiB). Within 3 %: the op-level step fragments
 * the cache as the real one does (the event list the moment terms give, which the step had before events_cogvideox.c,
 * replays to 16.39 GiB from the same start: -8.6 %). */
static void step_fragments_as_traced(void **st) {
    (void)st;
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    const char *json =
        "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"train\",\"batch\":4,\"frames\":49,\"height\":480,\"width\":720},"
        "\"instances\":[{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-2b\"},\"precision\":\"bf16\",\"autocast\":true,"
        "\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":64,\"alpha\":64,\"dropout\":0,\"dtype\":\"bf16\","
        "\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}},\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"}}],"
        "\"hardware\":{\"gpu\":\"h100-sxm-80gb\"}}";
    vp_plan *p = vp_plan_from_json(json, reg, &err);
    if (!p) fail_msg("%s: %s", err.path, err.message);
    vp_inst_calc c;
    vp_inst_calc_init(p, &p->inst[0], 0, &c);
    vp_events e;
    vp_events_init(&e);
    vp_events_train(p, &c, 1, &e);
    assert_false(e.failed);
    vp_alloc_conf conf;
    vp_alloc_conf_default(&conf);
    vp_alloc_sim *sim = vp_alloc_sim_new(&conf, 0);
    int64_t *handle = malloc((size_t)e.n * sizeof *handle);
    assert_non_null(handle);
    for (int32_t i = 0; i < e.n; i++) {
        handle[i] = -1;
        if (e.ev[i].phase == VP_PH_LOAD) continue;
        if (e.ev[i].size > 0) handle[i] = vp_alloc_sim_malloc(sim, e.ev[i].size);
        else if (e.ev[i].id >= 0 && handle[e.ev[i].id] >= 0) vp_alloc_sim_release(sim, handle[e.ev[i].id]);
    }
    vp_alloc_stats ours;
    vp_alloc_sim_stats(sim, &ours);
    /* the trace's step through the same allocator model */
    trace t;
    trace_load(&t);
    vp_alloc_sim_reset(sim, 0);
    int64_t *th = malloc(t.nalloc * sizeof *th);
    assert_non_null(th);
    for (size_t i = 0; i < t.nop; i++) {
        int64_t o = t.op[i];
        if (o >= 0) th[o] = vp_alloc_sim_malloc(sim, t.size[o]);
        else vp_alloc_sim_release(sim, th[-o - 1]);
    }
    vp_alloc_stats theirs;
    vp_alloc_sim_stats(sim, &theirs);
    double r = (double)ours.peak_reserved / (double)theirs.peak_reserved;
    print_message("step from an empty cache: vramplan %.2f GiB reserved (%.2f allocated), the trace %.2f (%.2f): %+.1f%%\n",
                  (double)ours.peak_reserved / 1073741824.0, (double)ours.peak_allocated / 1073741824.0,
                  (double)theirs.peak_reserved / 1073741824.0, (double)theirs.peak_allocated / 1073741824.0, 100.0 * (r - 1.0));
    assert_true(fabs(r - 1.0) <= 0.03);
    free(th);
    trace_free(&t);
    free(handle);
    vp_alloc_sim_free(sim);
    vp_events_free(&e);
    vp_plan_free(p);
    vp_registry_free(reg);
}

/* The denoising step's transformer forward at inference (COG_INFER): CogVideoX-2b under classifier-free guidance at
 * 49 × 480 × 720 (batch 2: V = 2 × 17,550 × 1920 × 2 = 134,784,000 B, T = 2 × 226 × 1920 × 2 = 1,735,680,
 * J = V + T = 136,519,680, F = 2 × 17,776 × 7680 × 2 = 546,078,720). The most a block holds is at the feed-forward's
 * gelu: the block's inputs (the embedding, J), the attention's gated sums (V, T), to_out's output (J, its two views
 * kept to the block's return), norm2's text output (T), the feed-forward's cat (J), proj's output and gelu's (2 F):
 * 3 J + V + 2 T + 2 F = 1,639,971,840 B; the embedding, the other 29 blocks and the head hold less. With the rotary
 * embedding (5b) the same block adds its fp32 transients, below that peak there. */
static void infer_block_peak(void **st) {
    (void)st;
    const vp_cog_dims d = {2.0 * 17550, 2.0 * 226, 1920, 7680, 30, 0, 64, 0};
    vp_events e;
    vp_events_init(&e);
    vp_ev_cog_transformer_infer(&e, &d, 30);
    assert_false(e.failed);
    /* the bytes the program holds at its most (the tensors' own sizes, before the allocator's rounding), and every
     * tensor it makes freed by its end */
    int64_t live = 0, peak = 0;
    for (int32_t i = 0; i < e.n; i++) {
        live += e.ev[i].size > 0 ? (int64_t)e.ev[i].size : e.ev[i].id >= 0 ? -(int64_t)e.ev[e.ev[i].id].size : 0;
        if (live > peak) peak = live;
    }
    assert_int_equal(peak, 1639971840LL);
    assert_int_equal(live, 0);
    vp_events_free(&e);
}

int main(int argc, char **argv) {
    if (argc > 2) g_fixtures = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(block_matches_trace),
        cmocka_unit_test(outside_blocks_match_trace),
        cmocka_unit_test(rotary_adds_transients),
        cmocka_unit_test(step_fragments_as_traced),
        cmocka_unit_test(infer_block_peak),
    };
    return T_RUN("events_cogvideox", tests, argc, argv);
}
