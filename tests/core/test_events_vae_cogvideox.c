/* test_events_vae_cogvideox.c: the CogVideoX VAE decode op by op (core/src/events_vae_cogvideox.c), checked against
 * the H100 allocator trace it was read from (tests/groundtruth/h100-2026-11-24-diffusion/traces/
 * vae-cogvideox-2b-fp16-49-480-720-plain-trace.json.gz, as tests/fixtures/alloc_traces/
 * cogvideox-vae-decode-fp16-49x480x720.txt by tools/groundtruth/replay_trace.py near: every allocation of
 * `vae.decode(z)` in order, "f N" frees the N-th).
 *
 * The traced setup: CogVideoX-2b's AutoencoderKLCogVideoX in fp16 (block_out_channels 128, 256, 256, 512, 3 resnets
 * per up block, 16 latent channels), one video of 13 latent frames of 60 × 90 decoded to 49 × 480 × 720, untiled,
 * diffusers 58eb52c0, PyTorch 2.11, cuDNN on an H100.
 * usage: test_events_vae_cogvideox GROUP FIXTURES_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_events.h"
#include "plan.h"
#include "vp_test.h"
#include "t_arch.h"
#include "t_seq.h"

static const char *g_fixtures = "tests/fixtures";

#define MIB 1048576.0

/* the fixture: its large-pool sequence, and the trace's own segments at their most (`expect 0 BYTES N`) */
static void trace_seq(t_seq *s, double *segments) {
    const char *path = t_fmt("%s/alloc_traces/cogvideox-vae-decode-fp16-49x480x720.txt", g_fixtures);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open %s", path);
    memset(s, 0, sizeof *s);
    size_t cap = 8192, na = 0;
    double *size = malloc(cap * sizeof *size);
    int32_t *num = malloc(cap * sizeof *num);
    assert_non_null(size);
    assert_non_null(num);
    int32_t n = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        unsigned long long v, c;
        if (sscanf(line, "expect 0 %llu %llu", &v, &c) == 2) *segments = (double)v;
        else if (sscanf(line, "a %llu", &v) == 1) {
            assert_true(na < cap);
            size[na] = (double)v;
            num[na] = -1;
            if ((double)v >= MIB) num[na] = n++, t_seq_push(s, (double)v, -2);
            na++;
        } else if (sscanf(line, "f %llu", &v) == 1) {
            assert_true(v < na);
            if (size[v] >= MIB) t_seq_push(s, 0, num[v]);
        }
    }
    fclose(f);
    free(size);
    free(num);
    assert_int_equal(na, 4694);
}

static void decode_2b(vp_events *e, int tiling) {
    vp_arch a = t_arch_of("cogvideox-2b/vae");
    vp_events_init(e);
    assert_true(vp_ev_cogvideox_decode(e, &a, 1, 49, 480, 720, 2.0, tiling) >= 0);
    assert_false(e->failed);
}

/* The whole untiled decode: the same 5,909 large-pool events as the trace, in the same order, freeing the same
 * tensors; every size equal within 512 B but cuDNN's workspaces (an allocation freed by the next event inside a
 * Conv2d / Conv3d), which are the padded input + the output + the weight within 17 MiB: the trace's conv_in is
 * 864,000 + 16,588,800 + 442,368 (16 × 512 × 27 × 2) + 147 B; a full-resolution 128 -> 128 conv1 of 8 frames
 * 843.75 + 675 + 0.84 MiB + 3.07 MiB; the algorithms' extra bytes (0 to 16.01 MiB) depend on the shape, not the size. */
static void decode_matches_trace(void **st) {
    (void)st;
    t_seq want = {0}, got = {0};
    double segments = 0;
    trace_seq(&want, &segments);
    vp_events e;
    decode_2b(&e, 0);
    t_seq_of_events(&e, 0, &got);
    int n = want.n < got.n ? want.n : got.n, ws = 0;
    for (int i = 0; i < n; i++) {
        /* a workspace: allocated, then freed by the next event */
        int wsp = want.free_of[i] == -2 && i + 1 < n && want.free_of[i + 1] >= 0 && got.free_of[i + 1] >= 0 &&
                  fabs(want.size[i] - got.size[i]) > 512.0;
        if (wsp) {
            /* the next event frees this very allocation (its number is the count of allocations before it) */
            int32_t k = 0;
            for (int j = 0; j < i; j++) k += want.free_of[j] == -2;
            wsp = want.free_of[i + 1] == k;
        }
        double tol = wsp ? 17.0 * MIB : 512.0;
        ws += wsp;
        if (want.free_of[i] != got.free_of[i] || fabs(want.size[i] - got.size[i]) > tol)
            fail_msg("event %d: trace %s %.0f (of %d), vramplan %s %.0f (of %d)", i, want.free_of[i] == -2 ? "alloc" : "free",
                     want.size[i], want.free_of[i], got.free_of[i] == -2 ? "alloc" : "free", got.size[i], got.free_of[i]);
    }
    assert_int_equal(want.n, 5909);
    assert_int_equal(got.n, want.n);
    assert_true(ws > 0 && ws < 300); /* the 3×3×3 convs whose algorithm asks a few MiB more */
    /* replayed through the allocator model from an empty cache: the trace's own segments peak at 23,836,229,632 B
     * (22.20 GiB); the decode reaches 23.22 GiB (+4.6%), 22.27 (+0.3%) when the workspaces are given the trace's
     * exact sizes, so the rest is theirs. Allocated: 14.74 GiB above the weights (the trace: 15.16 - 0.40) */
    vp_alloc_conf conf;
    vp_alloc_conf_default(&conf);
    vp_reserved r;
    vp_replay(&e, &conf, 0, &r);
    print_message("decode: reserved %.2f GiB (trace %.2f), allocated %.2f GiB\n", (double)r.peak_reserved / 1073741824.0,
                  segments / 1073741824.0, (double)r.peak_alloc / 1073741824.0);
    assert_true(fabs((double)r.peak_reserved / segments - 1.0) < 0.06);
    assert_true(fabs((double)r.peak_alloc / 1073741824.0 - 14.74) < 0.01);
    t_seq_dispose(&want);
    t_seq_dispose(&got);
    vp_events_free(&e);
}

/* CogVideoXSafeConv3d splits an input over 2 GiB (numel × 2 / 1024³, line 45) into int(count / 2) + 1 chunks along
 * time, each after the first with the 2 frames before it: CogVideoX1.5's 768 × 1360 decode (the last up block's
 * conv1, 256 channels × 11 frames × 1,044,480 px = 5.48 GiB as counted: 3 parts of 4, 4 and 3 frames, the 2nd and
 * 3rd cat with 2 more: 6 and 5 frames) */
static void safe_conv_chunks(void **st) {
    (void)st;
    vp_arch a = t_arch_of("cogvideox-2b/vae");
    vp_events e;
    vp_events_init(&e);
    int32_t v = vp_ev_cogvideox_decode(&e, &a, 1, 49, 768, 1360, 2.0, 0);
    assert_true(v >= 0);
    double px = 768.0 * 1360.0, six = 256.0 * 6.0 * px * 2.0, five = 256.0 * 5.0 * px * 2.0;
    int found = 0;
    for (int32_t i = 0; i + 1 < e.n; i++)
        if ((double)e.ev[i].size == six && (double)e.ev[i + 1].size == five) found++;
    assert_true(found > 0);
    vp_events_free(&e);
}

/* The tiled decode (enable_tiling: tiles of 240 × 360 px at strides of 25 × 36 latent px): 9 tiles, each its own
 * _decode; allocated 3.77 GiB above the weights (the H100's 4.19 GiB less 0.40 of weights, test_diffusion_h100.c),
 * where the peak is the last full tile's decode beside the tiles kept for the blend */
static void tiled_decode(void **st) {
    (void)st;
    vp_events e;
    decode_2b(&e, 1);
    vp_alloc_conf conf;
    vp_alloc_conf_default(&conf);
    vp_reserved r;
    vp_replay(&e, &conf, 0, &r);
    print_message("tiled decode: reserved %.2f GiB, allocated %.2f GiB\n", (double)r.peak_reserved / 1073741824.0,
                  (double)r.peak_alloc / 1073741824.0);
    assert_true(fabs((double)r.peak_alloc / 1073741824.0 - 3.77) < 0.01);
    vp_events_free(&e);
}

/* The largest plans the workload takes (batch × frames × height × width up to 2^36 pixels), fp32: 10,000 frames of
 * 2,560² and 256 frames of 16,384², tiled or not. The op-by-op decode runs up to VP_EV_DECODE_CALLS decoder calls
 * (400; 2,500 latent frames make 1,250 calls; tiled, × 13 × 9 tiles of 30 × 45 latents at strides of 25 × 36), beyond which
 * the decode is replayed in pieces; the sizes stay below 2^62 B. Each estimate returns, and says it does not fit. */
static void largest_plans(void **st) {
    (void)st;
    vp_arch a = t_arch_of("cogvideox-2b/vae");
    assert_true(vp_ev_cogvideox_decode_calls(&a, 10000, 2560, 2560, 0) == 1250.0);
    assert_true(vp_ev_cogvideox_decode_calls(&a, 10000, 2560, 2560, 1) == 1250.0 * 13 * 9);
    assert_true(vp_ev_cogvideox_decode_calls(&a, 256, 16384, 16384, 1) == 32.0 * 82 * 57);
    assert_true(vp_ev_cogvideox_decode_calls(&a, 49, 480, 720, 1) == 6.0 * 9);
    const char *sizes[] = {"\"frames\":10000,\"height\":2560,\"width\":2560", "\"frames\":256,\"height\":16384,\"width\":16384"};
    for (int k = 0; k < 2; k++)
        for (int tiling = 0; tiling < 2; tiling++) {
            const char *wl = t_fmt("{\"mode\":\"infer\",\"batch\":1,%s,\"diffusion\":{\"vae_tiling\":%s}}", sizes[k],
                                   tiling ? "true" : "false");
            const vp_estimate *e = t_estimate(t_plan1(wl, "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":"
                                                          "\"cogvideox-2b/vae\"},\"precision\":\"fp32\",\"activations\":\"no_grad\"}"));
            assert_false(e->devices[0].fits);
        }
}

/* enable_slicing over a batch of 2 (AutoencoderKLCogVideoX.decode: one video at a time, then torch.cat of the two):
 * about what one video alone reserves (the second decode reuses the first's cached segments; the first video, 97 MiB,
 * waits beside it), where decoding both together reserves nearly twice as much */
static void sliced_batch(void **st) {
    (void)st;
    const char *inst = "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"cogvideox-2b/vae\"},"
                       "\"precision\":\"fp16\",\"activations\":\"no_grad\"}";
    const char *wl = "{\"mode\":\"infer\",\"batch\":%d,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"vae_slicing\":%s}}";
    double one = (double)t_estimate(t_plan1(t_fmt(wl, 1, "false"), inst))->devices[0].peak_reserved_bytes;
    double both = (double)t_estimate(t_plan1(t_fmt(wl, 2, "false"), inst))->devices[0].peak_reserved_bytes;
    double sliced = (double)t_estimate(t_plan1(t_fmt(wl, 2, "true"), inst))->devices[0].peak_reserved_bytes;
    print_message("reserved: one %.2f GiB, two %.2f, two sliced %.2f\n", one / 1073741824.0, both / 1073741824.0,
                  sliced / 1073741824.0);
    assert_true(both > 1.8 * one);
    assert_true(fabs(sliced / one - 1.0) < 0.02);
}

int main(int argc, char **argv) {
    if (argc > 2) g_fixtures = argv[2];
    const struct CMUnitTest tests[] = {cmocka_unit_test(decode_matches_trace), cmocka_unit_test(safe_conv_chunks),
                                       cmocka_unit_test(tiled_decode), cmocka_unit_test(largest_plans),
                                       cmocka_unit_test(sliced_batch)};
    return T_RUN("events_vae_cogvideox", tests, argc, argv);
}
