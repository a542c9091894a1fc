/* test_fit.c: the largest batch / sequence / generated-token count that fits (core/src/plan_fit.c,
 * plan_search.c, plan_edit.c, plan_sweep.c).
 *
 * The search is checked on hand-built predicates whose every call is traced below (memory that is not
 * monotone in the value), and on real plans against estimates made independently through the JSON API
 * (the plan text with that batch written in), with the KV-cache arithmetic of test_kv_cache.c. */
#include <stdlib.h>
#include <string.h>

#include "planning.h"
#include "vp_test.h"

/* ---- the search on hand-built predicates --------------------------------------------------------- */

typedef struct {
    int (*pred)(int64_t v);
    int n;
    int64_t seen[256];
} trace;

static int traced(void *ctx, int64_t v) {
    trace *t = ctx;
    if (t->n < 256) t->seen[t->n] = v;
    t->n++;
    return t->pred(v);
}

static int seen_at(const trace *t, int64_t v) {
    for (int i = 0; i < t->n && i < 256; i++)
        if (t->seen[i] == v) return i;
    return -1;
}

/* fits for 1..40 and again at 43: an island above the first boundary */
static int island(int64_t v) { return v <= 40 || v == 43; }

/* Exponential 1, 2, 4, 8, 16, 32 (fit), 64 (fails); binary between 32 and 64: 48 F, 40 T, 44 F, 42 F,
 * 41 F: the boundary 40/41 (12 calls). Neighbours above: 42 and 44 are known, 43 fits (13): restart
 * from 43. Exponential: 86 F (14); binary 43..86: 64 known F, 53 F (15), 48 known, 45 F (16), 44 known:
 * boundary 43/44. Neighbours above: 45 known, 46 F (17), 47 F (18). Below: 42, 41 known F, 40 known T.
 * Value 43 after 18 calls; gaps 42, 41. */
static void search_finds_island_above_boundary(void **s) {
    (void)s;
    trace t = {.pred = island};
    vp_search r;
    assert_int_equal(vp_search_largest(traced, &t, 0, 1000, 0, &r), 0);
    assert_int_equal(r.value, 43);
    assert_int_equal(r.n_calls, 18);
    assert_int_equal(t.n, 18); /* each value once */
    assert_int_equal(r.n_gaps, 2);
    assert_int_equal(r.gaps[0], 42);
    assert_int_equal(r.gaps[1], 41);
    /* 43 was found by the neighbour check, after the first boundary (41 failing) */
    assert_true(seen_at(&t, 43) > seen_at(&t, 41));
    assert_int_equal(seen_at(&t, 43), 12);
}

/* fits for 1..50 except 48 and 49: the binary search stops at 47; the neighbour 50 fits again */
static int dip(int64_t v) { return v <= 50 && v != 48 && v != 49; }

/* 1, 2, 4, 8, 16, 32 T, 64 F (7 calls); binary 32..64: 48 F, 40 T, 44 T, 46 T, 47 T: boundary 47/48
 * (12). Above: 49 F, 50 T, 51 F (15): restart from 50: 100 F (16); binary 50..100: 75, 62, 56, 53 F
 * (20), 51 known F: boundary 50/51. Above: 52 F (21), 53 known, 54 F (22). Below: 49, 48 known F,
 * 47 known T. Value 50 after 22 calls; gaps 49, 48. */
static void search_reports_gaps_below(void **s) {
    (void)s;
    trace t = {.pred = dip};
    vp_search r;
    assert_int_equal(vp_search_largest(traced, &t, 0, 1000, 0, &r), 0);
    assert_int_equal(r.value, 50);
    assert_int_equal(r.n_calls, 22);
    assert_int_equal(r.n_gaps, 2);
    assert_int_equal(r.gaps[0], 49);
    assert_int_equal(r.gaps[1], 48);
}

static int never(int64_t v) { return (void)v, 0; }
static int always(int64_t v) { return (void)v, 1; }
static int upto_4270(int64_t v) { return v <= 4270; }
static int fails_at_1_only(int64_t v) { return v >= 2 && v <= 9; }

static void search_edges(void **s) {
    (void)s;
    vp_search r;
    /* nothing fits: 1, 2, 3, 4 are tried (1 + VP_SEARCH_UP), value 0 */
    trace t = {.pred = never};
    assert_int_equal(vp_search_largest(traced, &t, 0, 1000, 0, &r), 0);
    assert_int_equal(r.value, 0);
    assert_int_equal(r.n_calls, 1 + VP_SEARCH_UP);
    /* everything fits: the cap, reached by doubling: 1, 2, 4, ..., 512, 1000 (11 calls), then 999..997 */
    trace t2 = {.pred = always};
    assert_int_equal(vp_search_largest(traced, &t2, 0, 1000, 0, &r), 0);
    assert_int_equal(r.value, 1000);
    assert_int_equal(r.n_calls, 11 + VP_SEARCH_DOWN);
    /* cap 0: no value to try */
    trace t3 = {.pred = always};
    assert_int_equal(vp_search_largest(traced, &t3, 0, 0, 0, &r), 0);
    assert_int_equal(r.value, 0);
    assert_int_equal(t3.n, 0);
    /* 1 fails but 2..9 fit: the probe of 1..4 finds 2 and the search goes on from there */
    trace t4 = {.pred = fails_at_1_only};
    assert_int_equal(vp_search_largest(traced, &t4, 0, 1000, 0, &r), 0);
    assert_int_equal(r.value, 9);
    assert_int_equal(r.n_gaps, 1);
    assert_int_equal(r.gaps[0], 1);
    /* VP_SEARCH_ABOVE_HINT: the hint fails, nothing else is tried */
    trace t5 = {.pred = upto_4270};
    assert_int_equal(vp_search_largest(traced, &t5, 5000, 100000, VP_SEARCH_ABOVE_HINT, &r), 0);
    assert_int_equal(r.value, 0);
    assert_int_equal(t5.n, 1);
}

/* A sequence-length search from the plan's 2048 up to 4270 in steps of one token: 2048, 4096 fit,
 * 8192 fails (3 calls); binary between 4096 and 8192 halves 4096 down to 1 in 12 calls: 6144 F,
 * 5120 F, 4608 F, 4352 F, 4224 T, 4288 F, 4256 T, 4272 F, 4264 T, 4268 T, 4270 T, 4271 F (15).
 * Neighbours above: 4272 known, 4273, 4274 (17); below: 4269 (18), 4268 known, 4267 (19). */
static void search_seq_cost(void **s) {
    (void)s;
    trace t = {.pred = upto_4270};
    vp_search r;
    assert_int_equal(vp_search_largest(traced, &t, 2048, 16777216, 0, &r), 0);
    assert_int_equal(r.value, 4270);
    assert_int_equal(r.n_calls, 19);
    assert_int_equal(r.n_gaps, 0);
}

/* ---- fit on real plans -------------------------------------------------------------------------- */

#define L1B_TRAIN(batch) \
    t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":%d,\"seq\":1024},\"instances\":[{\"model\":{\"preset\":\"llama-3.2-1b\"}}]}", (batch))

static vp_fit *fit_of(const char *plan_json, vp_field f) {
    vp_error err;
    vp_plan *p = vp_plan_from_json(plan_json, t_registry(), &err);
    if (!p) fail_msg("plan refused: %s (%s)", err.message, err.path);
    vp_fit *fit = malloc(sizeof *fit);
    vp_status st = vp_fit_plan(p, f, fit, &err);
    vp_plan_free(p);
    if (st) fail_msg("fit failed: %s (%s)", err.message, err.path);
    return fit;
}

static const cJSON *dev0(const cJSON *est) { return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(est, "devices"), 0); }
static double jnum(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k)->valuedouble; }

/* Llama-3.2-1B, amp bf16, AdamW, seq 1024 on an H100: the largest micro-batch V fits because its peak
 * reserved memory is at most the usable memory, and V + 1 does not because its peak is above it. Both
 * numbers are those of the plan with batch V (V + 1) written into the JSON and estimated on their own;
 * every batch 1..V + 4 estimated that way fits exactly when it is <= V (or a reported gap). */
static void fit_batch_boundary(void **s) {
    (void)s;
    vp_fit *fit = fit_of(L1B_TRAIN(1), VP_FIELD_BATCH);
    int64_t v = fit->value;
    assert_true(v >= 1);
    assert_false(fit->limited);
    const vp_device *at = &fit->estimate.devices[0], *nx = &fit->next.devices[0];
    assert_true(fit->estimate.fits);
    assert_true(at->peak_reserved_bytes <= at->usable_bytes);
    assert_false(fit->next.fits);
    assert_true(nx->peak_reserved_bytes > nx->usable_bytes);
    assert_int_equal(fit->estimate.n_suggestions, 0); /* the bare estimate */
    const cJSON *a = dev0(t_estimate_json(L1B_TRAIN((int)v))), *b = dev0(t_estimate_json(L1B_TRAIN((int)v + 1)));
    assert_u64_equal(jnum(a, "peak_reserved_bytes"), at->peak_reserved_bytes);
    assert_u64_equal(jnum(a, "peak_alloc_bytes"), at->peak_alloc_bytes);
    assert_u64_equal(jnum(b, "peak_reserved_bytes"), nx->peak_reserved_bytes);
    assert_u64_equal(jnum(b, "usable_bytes"), nx->usable_bytes);
    print_message("batch %lld: reserved %llu <= usable %llu; batch %lld: reserved %llu > usable %llu (%d estimates)\n",
                  (long long)v, (unsigned long long)at->peak_reserved_bytes, (unsigned long long)at->usable_bytes,
                  (long long)v + 1, (unsigned long long)nx->peak_reserved_bytes, (unsigned long long)nx->usable_bytes,
                  fit->n_estimates);
    for (int64_t b2 = 1; b2 <= v + 4; b2++) {
        int gap = 0;
        for (int k = 0; k < fit->n_gaps; k++) gap |= fit->gaps[k] == b2;
        const cJSON *e = t_estimate_json(L1B_TRAIN((int)b2));
        int fits = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "fits"));
        if (fits != (b2 <= v && !gap)) fail_msg("batch %lld: fits %d, but fit says the largest is %lld", (long long)b2, fits, (long long)v);
    }
    /* batch 16 is decided by the caching allocator: the tensors fit, a 7.83 GiB logits request does not
     * find a block (estimate.c says so in words) */
    assert_contains(fit->next_reason, t_fmt("workload.batch = %lld does not fit: GPU 0", (long long)v + 1));
    if (!strstr(fit->next_reason, "needs") && !strstr(fit->next_reason, "caching allocator runs out"))
        fail_msg("next_reason says neither what is needed nor that the allocator runs out: %s", fit->next_reason);
    free(fit);
}

/* Llama-3.1-8B generating after a 1024-token prompt at batch 8 on a GPU that offers 20 GB (hardware.
 * capacity_bytes; the 16.06 GB of bf16 weights leave room for a few thousand tokens): at the largest
 * new_tokens V the last decode step holds 8 · (1024 + V) tokens of KV cache × 131,072 B (2 · 32 layers
 * · 8 KV heads · 128 · 2 B, test_kv_cache.c), and V + 1 holds exactly 8 · 131,072 = 1,048,576 B more. */
static void fit_new_tokens_kv_cache(void **s) {
    (void)s;
    const char *plan = "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"infer\",\"batch\":8,\"seq\":1024,\"new_tokens\":256},"
                       "\"instances\":[{\"model\":{\"preset\":\"llama-3.1-8b\"}}],"
                       "\"hardware\":{\"gpu\":\"h100-sxm-80gb\",\"capacity_bytes\":20000000000}}";
    vp_fit *fit = fit_of(plan, VP_FIELD_NEW_TOKENS);
    uint64_t v = (uint64_t)fit->value;
    assert_true(v > 256);
    assert_u64_equal(fit->estimate.devices[0].capacity_bytes, 20000000000ULL);
    assert_u64_equal(t_component(&fit->estimate, 0, "kv_cache", NULL), 8ULL * (1024ULL + v) * 131072ULL);
    assert_u64_equal(t_component(&fit->next, 0, "kv_cache", NULL), 8ULL * (1024ULL + v + 1) * 131072ULL);
    assert_string_equal(fit->estimate.devices[0].peak_phase, "decode");
    assert_true(fit->estimate.fits);
    assert_false(fit->next.fits);
    free(fit);
}

/* GPT-2 has n_positions = 1024 learned positions: --max seq stops there (limited), not at memory. */
static void fit_seq_positions(void **s) {
    (void)s;
    vp_fit *fit = fit_of(t_plan1("{\"batch\":1,\"seq\":512}", "{\"model\":{\"preset\":\"gpt2\"}}"), VP_FIELD_SEQ);
    assert_int_equal(fit->value, 1024);
    assert_int_equal(fit->limit, 1024);
    assert_true(fit->limited);
    assert_contains(fit->limit_reason, "1024 learned positions");
    assert_true(fit->estimate.fits);
    char *js = vp_fit_to_json(fit, 0);
    cJSON *j = cJSON_Parse(js);
    const cJSON *next = cJSON_GetObjectItemCaseSensitive(j, "next");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(next, "limited_by")->valuestring, "limit");
    assert_int_equal(jnum(next, "value"), 1025);
    assert_null(cJSON_GetObjectItemCaseSensitive(next, "device"));
    cJSON_Delete(j);
    vp_free(js);
    free(fit);
}

/* --max frames: Wan2.1-T2V-1.3B's transformer at inference (bf16, CFG) at 480 x 832 on a GPU that offers 8 GB.
 * The Wan VAE compresses time 4x (AutoencoderKLWan temperal_downsample [false, true, true]), so the pipeline takes
 * 1 + 4k frames (pipeline_wan.py rounds any other count to num_frames // 4 * 4 + 1): step 4, and the answer V is
 * such a count. V fits and V + 4 does not, both as the plan with that frame count written into the JSON and
 * estimated on its own; V + 2 runs as V (46 -> 45) and V + 3 as V + 4 (48 -> 49), so their estimates are those. */
#define WAN_FRAMES(f) \
    t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"infer\",\"batch\":1,\"frames\":%d,\"height\":480,"   \
          "\"width\":832},\"instances\":[{\"model\":{\"preset\":\"wan2.1-t2v-1.3b\"},\"precision\":\"bf16\",\"role\":"   \
          "\"reference\",\"activations\":\"no_grad\"}],\"hardware\":{\"gpu\":\"h100-sxm-80gb\",\"capacity_bytes\":8000000000}}", \
          (f))
static void fit_frames_video(void **s) {
    (void)s;
    vp_fit *fit = fit_of(WAN_FRAMES(81), VP_FIELD_FRAMES);
    int64_t v = fit->value;
    assert_int_equal(fit->step, 4);
    assert_true(v >= 5);
    assert_int_equal(v % 4, 1);
    assert_false(fit->limited);
    assert_true(fit->estimate.fits);
    assert_false(fit->next.fits);
    const cJSON *a = t_estimate_json(WAN_FRAMES((int)v)), *b = t_estimate_json(WAN_FRAMES((int)v + 4));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "fits")));
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(b, "fits")));
    assert_u64_equal(jnum(dev0(a), "peak_alloc_bytes"), fit->estimate.devices[0].peak_alloc_bytes);
    assert_u64_equal(jnum(dev0(b), "peak_alloc_bytes"), fit->next.devices[0].peak_alloc_bytes);
    assert_u64_equal(jnum(dev0(t_estimate_json(WAN_FRAMES((int)v + 2))), "peak_alloc_bytes"), fit->estimate.devices[0].peak_alloc_bytes);
    assert_u64_equal(jnum(dev0(t_estimate_json(WAN_FRAMES((int)v + 3))), "peak_alloc_bytes"), fit->next.devices[0].peak_alloc_bytes);
    assert_contains(fit->next_reason, t_fmt("workload.frames = %lld does not fit", (long long)v + 4));
    print_message("Wan2.1-1.3B at 480x832 in 8 GB: %lld frames fit, %lld do not (%d estimates)\n", (long long)v, (long long)v + 4,
                  fit->n_estimates);
    char *js = vp_fit_to_json(fit, 0);
    cJSON *j = cJSON_Parse(js);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "field")->valuestring, "frames");
    assert_int_equal(jnum(j, "step"), 4);
    assert_int_equal(jnum(cJSON_GetObjectItemCaseSensitive(j, "next"), "value"), v + 4);
    cJSON_Delete(j);
    vp_free(js);
    free(fit);
    /* the limit: 2^36 pixels at batch 64: 68,719,476,736 / (64 × 480 × 832) = 2,688.8 frames, down to 1 + 4k: 2,685 */
    vp_error err;
    vp_plan *p = vp_plan_from_json(t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"infer\",\"batch\":64,\"height\":480,"
                                         "\"width\":832},\"instances\":[{\"model\":{\"preset\":\"wan2.1-t2v-1.3b\"},\"precision\":\"bf16\"}]}"),
                                   t_registry(), &err);
    if (!p) fail_msg("%s (%s)", err.message, err.path);
    int64_t lim;
    char why[160];
    assert_int_equal(vp_plan_field_limit(p, VP_FIELD_FRAMES, &lim, why, sizeof why, &err), VP_OK);
    assert_int_equal(lim, 2685);
    assert_contains(why, "2^36 pixels");
    assert_int_equal(vp_plan_field_get(p, VP_FIELD_FRAMES), 81); /* pipeline_wan.py's default num_frames */
    assert_int_equal(vp_plan_field_set(p, VP_FIELD_FRAMES, 2689, &err), VP_ERR_RANGE);
    assert_string_equal(err.path, "workload.frames");
    assert_int_equal(vp_plan_field_get(p, VP_FIELD_FRAMES), 81); /* unchanged */
    /* 2,685 frames pass the pixel limit and meet the bytes-per-step one (plan_parse.c vp_plan_check_magnitudes) */
    assert_int_equal(vp_plan_field_set(p, VP_FIELD_FRAMES, 2685, &err), VP_ERR_RANGE);
    assert_contains(err.message, "not a plannable job");
    assert_string_equal(err.path, "workload.frames");
    assert_int_equal(vp_plan_field_set(p, VP_FIELD_FRAMES, 161, &err), VP_OK);
    assert_int_equal(vp_plan_field_get(p, VP_FIELD_FRAMES), 161);
    vp_plan_free(p);
    /* the sweep of frames: every point a count the pipeline takes, each the estimate of its own plan, with V and V + 4 */
    p = vp_plan_from_json(WAN_FRAMES(81), t_registry(), &err);
    vp_sweep *sw = malloc(sizeof *sw);
    assert_int_equal(vp_sweep_plan(p, VP_FIELD_FRAMES, 8, sw, &err), VP_OK);
    vp_plan_free(p);
    assert_int_equal(sw->largest, v);
    int seen_v = 0, seen_next = 0;
    for (int i = 0; i < sw->n_points; i++) {
        const vp_sweep_point *pt = &sw->points[i];
        assert_int_equal(pt->value % 4, 1);
        const cJSON *e = t_estimate_json(WAN_FRAMES((int)pt->value));
        assert_u64_equal(jnum(dev0(e), "peak_reserved_bytes"), pt->peak_reserved_bytes);
        seen_v |= pt->value == v && pt->fits;
        seen_next |= pt->value == v + 4 && !pt->fits;
    }
    assert_true(seen_v && seen_next);
    free(sw);
    /* a plan with no size runs at the pipeline's default one, and keeps it with other frames */
    p = vp_plan_from_json(t_plan1("{\"mode\":\"infer\",\"batch\":1}", "{\"model\":{\"preset\":\"cogvideox-2b\"},\"precision\":\"fp16\"}"),
                          t_registry(), &err);
    if (!p) fail_msg("%s (%s)", err.message, err.path);
    assert_int_equal(vp_plan_field_get(p, VP_FIELD_FRAMES), 49);
    assert_int_equal(vp_plan_field_set(p, VP_FIELD_FRAMES, 25, &err), VP_OK);
    assert_int_equal(p->height, 0);
    assert_int_equal(vp_plan_field_get(p, VP_FIELD_FRAMES), 25);
    vp_plan_free(p);
}

static void fit_errors(void **s) {
    (void)s;
    vp_error err;
    vp_plan *p = vp_plan_from_json(L1B_TRAIN(1), t_registry(), &err);
    vp_fit *fit = malloc(sizeof *fit);
    assert_int_equal(vp_fit_plan(p, VP_FIELD_NEW_TOKENS, fit, &err), VP_ERR_FIELD);
    assert_string_equal(err.path, "workload.new_tokens");
    assert_int_equal(vp_fit_plan(NULL, VP_FIELD_BATCH, fit, &err), VP_ERR_FIELD);
    vp_plan_free(p);
    /* a ViT takes image_size, not seq */
    p = vp_plan_from_json(t_plan1("{\"batch\":8}", "{\"model\":{\"preset\":\"vit-base-patch16-224\"}}"), t_registry(), &err);
    if (!p) fail_msg("%s (%s)", err.message, err.path);
    assert_int_equal(vp_fit_plan(p, VP_FIELD_SEQ, fit, &err), VP_ERR_FIELD);
    assert_string_equal(err.path, "workload.seq");
    vp_plan_free(p);
    /* a diffusion pipeline in inference generates no tokens: new_tokens changes nothing, the search says so */
    p = vp_plan_from_json(t_plan1("{\"mode\":\"infer\",\"batch\":1}",
                                  "{\"model\":{\"preset\":\"wan2.1-t2v-1.3b\"},\"precision\":\"bf16\",\"role\":\"reference\","
                                  "\"activations\":\"no_grad\"}"),
                          t_registry(), &err);
    if (!p) fail_msg("%s (%s)", err.message, err.path);
    assert_int_equal(vp_fit_plan(p, VP_FIELD_NEW_TOKENS, fit, &err), VP_ERR_FIELD);
    assert_string_equal(err.path, "workload.new_tokens");
    assert_int_equal(vp_fit_plan(p, VP_FIELD_SEQ, fit, &err), VP_ERR_FIELD);
    vp_plan_free(p);
    /* frames: an image DiT (FLUX.1-dev compresses no time) and an LLM take none */
    p = vp_plan_from_json(t_plan1("{\"mode\":\"infer\",\"batch\":1}", "{\"model\":{\"preset\":\"flux.1-dev\"},\"precision\":\"bf16\"}"),
                          t_registry(), &err);
    if (!p) fail_msg("%s (%s)", err.message, err.path);
    assert_int_equal(vp_fit_plan(p, VP_FIELD_FRAMES, fit, &err), VP_ERR_FIELD);
    assert_string_equal(err.path, "workload.frames");
    assert_contains(err.message, "takes video");
    vp_plan_free(p);
    p = vp_plan_from_json(L1B_TRAIN(1), t_registry(), &err);
    assert_int_equal(vp_fit_plan(p, VP_FIELD_FRAMES, fit, &err), VP_ERR_FIELD);
    assert_string_equal(err.path, "workload.frames");
    vp_plan_free(p);
    /* a DiT whose tokens are given as workload.seq: frames would not change them */
    p = vp_plan_from_json(t_plan1("{\"batch\":1,\"seq\":4096}", "{\"model\":{\"preset\":\"cogvideox-2b\"},\"precision\":\"bf16\"}"),
                          t_registry(), &err);
    if (!p) fail_msg("%s (%s)", err.message, err.path);
    assert_int_equal(vp_fit_plan(p, VP_FIELD_FRAMES, fit, &err), VP_ERR_FIELD);
    assert_string_equal(err.path, "workload.frames");
    assert_contains(err.message, "workload.seq");
    vp_plan_free(p);
    free(fit);
    assert_null(vp_fit_json(L1B_TRAIN(1), t_registry(), "microbatch", 0, &err));
    assert_int_equal(err.code, VP_ERR_FIELD);
    assert_string_equal(err.path, "field");
    assert_null(vp_fit_json("{", t_registry(), "batch", 0, &err));
    assert_int_equal(err.code, VP_ERR_JSON);
}

/* fit@1: every field of docs/schema/fit.md, and the numbers of `next` from the estimate at value + 1 */
static void fit_json_schema(void **s) {
    (void)s;
    vp_error err;
    char *js = vp_fit_json(L1B_TRAIN(2), t_registry(), "batch", 0, &err);
    assert_non_null(js);
    cJSON *j = cJSON_Parse(js);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "schema")->valuestring, "vramplan/fit@1");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "field")->valuestring, "batch");
    double v = jnum(j, "value");
    assert_true(v >= 1);
    assert_int_equal(jnum(j, "limit"), 1048576);
    assert_true(jnum(j, "estimates") >= 5);
    assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "gaps")));
    const cJSON *est = cJSON_GetObjectItemCaseSensitive(j, "estimate");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(est, "schema")->valuestring, "vramplan/estimate@1");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(est, "fits")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(est, "suggestions")), 0);
    const cJSON *next = cJSON_GetObjectItemCaseSensitive(j, "next");
    assert_int_equal(jnum(next, "value"), v + 1);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(next, "limited_by")->valuestring, "memory");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(next, "fits")));
    const cJSON *d = dev0(t_estimate_json(L1B_TRAIN((int)v + 1)));
    assert_int_equal(jnum(next, "device"), 0);
    assert_u64_equal(jnum(next, "peak_reserved_bytes"), jnum(d, "peak_reserved_bytes"));
    assert_u64_equal(jnum(next, "usable_bytes"), jnum(d, "usable_bytes"));
    assert_true(jnum(next, "over_bytes") == jnum(d, "peak_reserved_bytes") - jnum(d, "usable_bytes"));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(next, "peak_phase")->valuestring,
                        cJSON_GetObjectItemCaseSensitive(d, "peak_phase")->valuestring);
    const cJSON *top = cJSON_GetObjectItemCaseSensitive(next, "top_component");
    const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "components"), 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(top, "id")->valuestring, cJSON_GetObjectItemCaseSensitive(c0, "id")->valuestring);
    assert_u64_equal(jnum(top, "bytes"), jnum(c0, "bytes"));
    assert_contains(cJSON_GetObjectItemCaseSensitive(next, "reason")->valuestring, "does not fit");
    cJSON_Delete(j);
    vp_free(js);
    /* not even batch 1: value 0, estimate null, next explains batch 1 */
    js = vp_fit_json("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":1,\"seq\":1024},\"instances\":[{\"model\":{\"preset\":"
                     "\"llama-3.1-70b\"},\"precision\":\"fp32\"}]}",
                     t_registry(), "batch", 0, &err);
    assert_non_null(js);
    j = cJSON_Parse(js);
    assert_int_equal(jnum(j, "value"), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "estimate")));
    assert_int_equal(jnum(cJSON_GetObjectItemCaseSensitive(j, "next"), "value"), 1);
    cJSON_Delete(j);
    vp_free(js);
}

/* plan_edit.c's ranges are the parser's: the largest batch and seq parse, one more is refused by both */
#define TINY "{\"model_type\":\"llama\",\"hidden_size\":64,\"intermediate_size\":128,\"num_hidden_layers\":1,\"num_attention_heads\":2,\"vocab_size\":100}"
static void edit_limits_match_parser(void **s) {
    (void)s;
    vp_error err;
    vp_plan *p = vp_plan_from_json(t_plan1("{\"batch\":1048576,\"seq\":1}", t_hf_instance(TINY, "")), t_registry(), &err);
    if (!p) fail_msg("%s (%s)", err.message, err.path);
    t_expect_error(t_plan1("{\"batch\":1048577,\"seq\":1}", t_hf_instance(TINY, "")), VP_ERR_RANGE, "workload.batch");
    assert_int_equal(vp_plan_field_set(p, VP_FIELD_BATCH, 1048577, &err), VP_ERR_RANGE);
    assert_string_equal(err.path, "workload.batch");
    assert_int_equal(vp_plan_field_get(p, VP_FIELD_BATCH), 1048576); /* unchanged */
    assert_int_equal(vp_plan_field_set(p, VP_FIELD_BATCH, 1, &err), VP_OK);
    vp_plan_free(p);
    p = vp_plan_from_json(t_plan1("{\"batch\":1,\"seq\":16777216}", t_hf_instance(TINY, "")), t_registry(), &err);
    if (!p) fail_msg("%s (%s)", err.message, err.path);
    t_expect_error(t_plan1("{\"batch\":1,\"seq\":16777217}", t_hf_instance(TINY, "")), VP_ERR_RANGE, "workload.seq");
    assert_int_equal(vp_plan_field_set(p, VP_FIELD_SEQ, 16777217, &err), VP_ERR_RANGE);
    assert_string_equal(err.path, "workload.seq");
    /* tokens per step: batch 257 × (16,777,216 + 128 dec_seq) > 2^32 = 4,294,967,296 */
    assert_int_equal(vp_plan_field_set(p, VP_FIELD_BATCH, 257, &err), VP_ERR_RANGE);
    assert_string_equal(err.path, "workload.batch");
    int64_t lim;
    char why[160];
    /* the batch limit: floor(2^32 / (16,777,216 + 128)) = 255 */
    assert_int_equal(vp_plan_field_limit(p, VP_FIELD_BATCH, &lim, why, sizeof why, &err), VP_OK);
    assert_int_equal(lim, 255);
    assert_int_equal(vp_plan_field_set(p, VP_FIELD_BATCH, 255, &err), VP_OK);
    vp_plan_free(p);
}

/* The sweep's values for largest 16 from batch 1, 8 points: up to 2 × 16 = 32 with the power-of-two step
 * 4 (32 / 8), plus 1, 16 and 17: 1 4 8 12 16 17 20 24 28 32. */
static void sweep_values(void **s) {
    (void)s;
    int64_t v[VP_SWEEP_MAX_POINTS];
    static const int64_t want[] = {1, 4, 8, 12, 16, 17, 20, 24, 28, 32};
    int n = vp_sweep_values(16, 1, 1048576, 8, v, VP_SWEEP_MAX_POINTS);
    assert_int_equal(n, 10);
    for (int i = 0; i < n; i++) assert_int_equal(v[i], want[i]);
    /* nothing fits, plan at batch 4: up to 4, step 1: 1 2 3 4 (and largest + 1 = 1) */
    n = vp_sweep_values(0, 4, 1048576, 8, v, VP_SWEEP_MAX_POINTS);
    assert_int_equal(n, 4);
    assert_int_equal(v[3], 4);
    /* the cap: GPT-2 seq up to its 1024 positions */
    n = vp_sweep_values(1024, 512, 1024, 24, v, VP_SWEEP_MAX_POINTS);
    assert_int_equal(v[n - 1], 1024);
}

/* The sweep agrees with fit and with single estimates: largest fits, largest + 1 does not, and each
 * point's peak reserved is that of the plan estimated with the value written in. */
static void sweep_matches_estimates(void **s) {
    (void)s;
    vp_error err;
    vp_plan *p = vp_plan_from_json(L1B_TRAIN(1), t_registry(), &err);
    vp_sweep *sw = malloc(sizeof *sw);
    assert_int_equal(vp_sweep_plan(p, VP_FIELD_BATCH, 8, sw, &err), VP_OK);
    vp_plan_free(p);
    assert_true(sw->largest >= 1);
    int seen_l = 0, seen_l1 = 0;
    for (int i = 0; i < sw->n_points; i++) {
        const vp_sweep_point *pt = &sw->points[i];
        const cJSON *e = t_estimate_json(L1B_TRAIN((int)pt->value));
        assert_u64_equal(jnum(dev0(e), "peak_reserved_bytes"), pt->peak_reserved_bytes);
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "fits")), pt->fits);
        if (pt->value == sw->largest) seen_l = pt->fits;
        if (pt->value == sw->largest + 1) seen_l1 = !pt->fits;
        if (i) assert_true(pt->value > sw->points[i - 1].value);
    }
    assert_true(seen_l && seen_l1);
    assert_u64_equal(sw->usable_bytes, jnum(dev0(t_estimate_json(L1B_TRAIN(1))), "usable_bytes"));
    char *js = vp_sweep_to_json(sw);
    cJSON *j = cJSON_Parse(js);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "schema")->valuestring, "vramplan/sweep@1");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "points")), sw->n_points);
    cJSON_Delete(j);
    vp_free(js);
    free(sw);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(search_finds_island_above_boundary),
        cmocka_unit_test(search_reports_gaps_below),
        cmocka_unit_test(search_edges),
        cmocka_unit_test(search_seq_cost),
        cmocka_unit_test(fit_batch_boundary),
        cmocka_unit_test(fit_new_tokens_kv_cache),
        cmocka_unit_test(fit_seq_positions), cmocka_unit_test(fit_frames_video),
        cmocka_unit_test(fit_errors),
        cmocka_unit_test(fit_json_schema),
        cmocka_unit_test(edit_limits_match_parser),
        cmocka_unit_test(sweep_values),
        cmocka_unit_test(sweep_matches_estimates),
    };
    return T_RUN("fit", tests, argc, argv);
}
