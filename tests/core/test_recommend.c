/* test_recommend.c: the training setups that fit a global batch, fastest first (core/src/plan_recommend.c,
 * plan_recommend_json.c).
 *
 * GPT-2 (124,439,808 parameters, tied embeddings) at seq 1024 on an RTX 4090 with a global batch of 16:
 * micro-batches 1, 2, 4, 8, 16 (the divisors of 16) × checkpointing off / every 1, 2, 4, 8 blocks (12
 * blocks) × AdamW fused, foreach, 8-bit, paged 8-bit, paged 32-bit × amp_bf16 (the plan's), bf16
 * = 5 × 5 × 5 × 2 = 250 setups. Every one is estimated here on its own, through a plan JSON written
 * for it, and ranked with the documented order; recommend must list the same ten, in the same order.
 *
 * Optimizer-state bytes (key 4), N = 124,439,808:
 *   Adam m, v in fp32 (amp: fp32 gradients):   2 × 4 × N = 995,518,464
 *   Adam m, v in bf16 (pure bf16):              2 × 2 × N = 497,759,232
 *   8-bit AdamW: (2 + 8/256) B × N                        = 252,768,360
 *   paged ones count as their unpaged twin (the estimate counts paged state as 0 on the GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vp_test.h"

#define N_GPT2 124439808LL

static const char *const k_opts[][2] = {
    {"adamw", "fused"}, {"adamw", "foreach"}, {"adamw_8bit", "foreach"}, {"paged_adamw_8bit", "foreach"}, {"paged_adamw", "foreach"}};
static const int k_impl_rank[] = {0, 1, 3, 4, 5};
static const char *const k_precs[] = {"amp_bf16", "bf16"};
static const int k_prec_enum[] = {1, 3}; /* plan.h vp_precision order */
static const int64_t k_gcs[] = {0, 1, 2, 4, 8};
static const int64_t k_bs[] = {1, 2, 4, 8, 16};

static int64_t state_bytes(int opt, int prec) {
    if (opt == 2 || opt == 3) return 252768360LL;          /* 8-bit */
    return prec == 0 ? 8 * N_GPT2 : 4 * N_GPT2;           /* fp32 or bf16 m and v */
}

static const char *setup_plan(int64_t b, int64_t gc, int opt, int prec) {
    return t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":%lld,\"seq\":1024,\"grad_accum\":%lld},"
                 "\"instances\":[{\"model\":{\"preset\":\"gpt2\"},\"precision\":\"%s\",\"optimizer\":{\"name\":\"%s\",\"impl\":\"%s\"},"
                 "\"grad_ckpt\":{\"every\":%lld}}],\"hardware\":{\"gpu\":\"rtx-4090\"}}",
                 (long long)b, (long long)(16 / b), k_precs[prec], k_opts[opt][0], k_opts[opt][1], (long long)gc);
}

#define BASE_PLAN setup_plan(1, 0, 1, 0) /* batch 1 × accumulation 16, foreach AdamW, amp_bf16 */

typedef struct {
    int64_t b, gc;
    int opt, prec;
    uint64_t reserved;
} setup;

/* the documented order, written out again */
static int cmp_setup(const void *pa, const void *pb) {
    const setup *a = pa, *b = pb;
    if (a->b != b->b) return a->b > b->b ? -1 : 1;
    int64_t ka = a->gc ? a->gc : INT64_MAX, kb = b->gc ? b->gc : INT64_MAX;
    if (ka != kb) return ka > kb ? -1 : 1;
    if ((a->prec == 0) != (b->prec == 0)) return a->prec == 0 ? -1 : 1;
    int64_t sa = state_bytes(a->opt, a->prec), sb = state_bytes(b->opt, b->prec);
    if (sa != sb) return sa < sb ? -1 : 1;
    if (k_impl_rank[a->opt] != k_impl_rank[b->opt]) return k_impl_rank[a->opt] - k_impl_rank[b->opt];
    return k_prec_enum[a->prec] - k_prec_enum[b->prec];
}

static vp_recommend *recommend(const char *plan_json, int64_t global, int top) {
    vp_error err;
    vp_plan *p = vp_plan_from_json(plan_json, t_registry(), &err);
    if (!p) fail_msg("plan refused: %s (%s)", err.message, err.path);
    vp_recommend *r = malloc(sizeof *r);
    vp_status st = vp_recommend_plan(p, global, top, r, &err);
    vp_plan_free(p);
    if (st) fail_msg("recommend failed: %s (%s)", err.message, err.path);
    return r;
}

static void ranking_matches_brute_force(void **s) {
    (void)s;
    setup *all = malloc(250 * sizeof *all);
    int n = 0;
    for (int bi = 0; bi < 5; bi++)
        for (int gi = 0; gi < 5; gi++)
            for (int o = 0; o < 5; o++)
                for (int q = 0; q < 2; q++) {
                    const cJSON *e = t_estimate_json(setup_plan(k_bs[bi], k_gcs[gi], o, q));
                    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "fits"))) continue;
                    const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "devices"), 0);
                    all[n++] = (setup){k_bs[bi], k_gcs[gi], o, q,
                                       (uint64_t)cJSON_GetObjectItemCaseSensitive(d, "peak_reserved_bytes")->valuedouble};
                }
    qsort(all, (size_t)n, sizeof *all, cmp_setup);
    print_message("%d of 250 setups fit; first: b%lld gc%lld %s %s\n", n, (long long)all[0].b, (long long)all[0].gc,
                  k_opts[all[0].opt][0], k_precs[all[0].prec]);
    vp_recommend *r = recommend(BASE_PLAN, 16, 10);
    assert_int_equal(r->global_batch, 16);
    /* 250, or 500 when a setup it estimated failed on fragmentation and the setups were ranked again with
     * expandable_segments:True; that ranking's winner is not faster here, so the default one stays */
    assert_true(r->n_setups == 250 || r->n_setups == 500);
    assert_string_equal(r->alloc_conf, "");
    assert_int_equal(r->n, n < 10 ? n : 10);
    assert_true(r->n_estimates < 250); /* combinations that cannot reach the top 10 were dropped */
    for (int i = 0; i < r->n; i++) {
        const vp_recommendation *x = &r->r[i];
        const setup *w = &all[i];
        if (x->micro_batch != w->b || x->gc_every != w->gc || strcmp(x->optimizer, k_opts[w->opt][0]) ||
            strcmp(x->optim_impl, k_opts[w->opt][1]) || strcmp(x->precision, k_precs[w->prec]))
            fail_msg("rank %d: recommend b%lld gc%lld %s/%s %s, brute force b%lld gc%lld %s/%s %s", i + 1, (long long)x->micro_batch,
                     (long long)x->gc_every, x->optimizer, x->optim_impl, x->precision, (long long)w->b, (long long)w->gc,
                     k_opts[w->opt][0], k_opts[w->opt][1], k_precs[w->prec]);
        assert_u64_equal(x->peak_reserved_bytes, w->reserved);
        assert_u64_equal(x->optimizer_state_bytes, state_bytes(w->opt, w->prec));
        assert_int_equal(x->micro_batch * x->grad_accum, 16);
        assert_true(x->peak_reserved_bytes <= x->usable_bytes);
        assert_true(x->recompute == (x->gc_every ? 1.0 / (double)x->gc_every : 0.0));
    }
    free(r);
    free(all);
}

/* The order on its own: entries never rise in micro-batch, and at equal micro-batch never in recompute */
static void order_keys(void **s) {
    (void)s;
    vp_recommend *r = recommend(BASE_PLAN, 16, 32);
    for (int i = 1; i < r->n; i++) {
        const vp_recommendation *a = &r->r[i - 1], *b = &r->r[i];
        assert_true(a->micro_batch >= b->micro_batch);
        if (a->micro_batch == b->micro_batch) assert_true(a->recompute <= b->recompute);
    }
    free(r);
}

/* Data parallelism: micro-batch × accumulation × dp = the global batch, on each of the 2 ranks */
static void data_parallel_global_batch(void **s) {
    (void)s;
    const char *plan = "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":2,\"seq\":1024,\"grad_accum\":4},"
                       "\"instances\":[{\"model\":{\"preset\":\"gpt2\"}}],\"hardware\":{\"gpu\":\"rtx-4090\",\"count\":2},"
                       "\"parallel\":{\"dp\":2}}";
    vp_recommend *r = recommend(plan, 0, 10); /* the plan's own: 2 × 4 × 2 = 16 */
    assert_int_equal(r->global_batch, 16);
    assert_int_equal(r->dp, 2);
    assert_true(r->n > 0);
    for (int i = 0; i < r->n; i++) assert_int_equal(r->r[i].micro_batch * r->r[i].grad_accum * 2, 16);
    free(r);
    vp_error err;
    vp_plan *p = vp_plan_from_json(plan, t_registry(), &err);
    r = malloc(sizeof *r);
    assert_int_equal(vp_recommend_plan(p, 15, 10, r, &err), VP_ERR_RANGE); /* 15 is not a multiple of dp = 2 */
    assert_string_equal(err.path, "global_batch");
    vp_plan_free(p);
    free(r);
}

/* Apply: each entry's plan, estimated on its own, is the setup the entry quotes */
static void entry_plans_apply(void **s) {
    (void)s;
    vp_error err;
    char *js = vp_recommend_json(BASE_PLAN, t_registry(), 16, 5, 0, &err);
    assert_non_null(js);
    cJSON *j = cJSON_Parse(js);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "schema")->valuestring, "vramplan/recommend@1");
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "entries")) {
        char *plan = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(e, "plan"));
        const cJSON *est = t_estimate_json(plan);
        const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(est, "devices"), 0);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(est, "fits")));
        assert_true(cJSON_GetObjectItemCaseSensitive(d, "peak_reserved_bytes")->valuedouble ==
                    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "estimate"), "peak_reserved_bytes")->valuedouble);
        free(plan);
        n++;
    }
    assert_int_equal(n, 5);
    /* the winner as TrainingArguments fields */
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "winner");
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "entries"), 0);
    const char *ta = cJSON_GetObjectItemCaseSensitive(w, "training_arguments")->valuestring;
    assert_contains(ta, t_fmt("per_device_train_batch_size=%.0f,", cJSON_GetObjectItemCaseSensitive(first, "micro_batch")->valuedouble));
    assert_contains(ta, t_fmt("gradient_accumulation_steps=%.0f,", cJSON_GetObjectItemCaseSensitive(first, "grad_accum")->valuedouble));
    assert_contains(ta, t_fmt("optim=\"%s\",", cJSON_GetObjectItemCaseSensitive(first, "hf_optim")->valuestring));
    assert_contains(ta, "bf16=True,");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(w, "env")->valuestring, ""); /* the plan sets no allocator conf */
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(w, "script_flags"))); /* not a diffusion transformer */
    cJSON_Delete(j);
    vp_free(js);
}

/* A diffusion transformer's winner is also the flags of diffusers' training scripts (train_cogvideox_lora.py:
 * --train_batch_size, --gradient_accumulation_steps, --gradient_checkpointing, --optimizer, --use_8bit_adam; accelerate's
 * --mixed_precision). CogVideoX-5b LoRA r128 (bf16 base under autocast, the scripts' way) at 49 x 480 x 720 on a 24 GB
 * card, global batch 2: whatever wins, the flags say its micro-batch, accumulation, checkpointing and optimizer. */
static void diffusion_script_flags(void **s) {
    (void)s;
    const char *plan = "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":1,\"grad_accum\":2,\"frames\":49,\"height\":480,"
                       "\"width\":720},\"instances\":[{\"model\":{\"preset\":\"cogvideox-5b\"},\"precision\":\"bf16\",\"autocast\":true,"
                       "\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":128,\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}}}],"
                       "\"hardware\":{\"gpu\":\"rtx-4090\"}}";
    vp_error err;
    char *js = vp_recommend_json(plan, t_registry(), 0, 3, 0, &err);
    if (!js) fail_msg("%s (%s)", err.message, err.path);
    cJSON *j = cJSON_Parse(js);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "entries"), 0);
    assert_non_null(first);
    const char *f = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "winner"), "script_flags")->valuestring;
    double mb = cJSON_GetObjectItemCaseSensitive(first, "micro_batch")->valuedouble;
    double ga = cJSON_GetObjectItemCaseSensitive(first, "grad_accum")->valuedouble;
    double k = cJSON_GetObjectItemCaseSensitive(first, "grad_ckpt_every")->valuedouble;
    const char *opt = cJSON_GetObjectItemCaseSensitive(first, "optimizer")->valuestring;
    const char *prec = cJSON_GetObjectItemCaseSensitive(first, "precision")->valuestring;
    assert_true(mb * ga == 2);
    assert_contains(f, t_fmt("--train_batch_size %.0f --gradient_accumulation_steps %.0f", mb, ga));
    assert_true((strstr(f, "--gradient_checkpointing") != NULL) == (k == 1));
    assert_true((strstr(f, "--use_8bit_adam") != NULL) == !strcmp(opt, "adamw_8bit"));
    if (!strcmp(opt, "adamw") || !strcmp(opt, "adamw_8bit")) assert_contains(f, "--optimizer adamw");
    assert_contains(f, "--mixed_precision bf16");
    if (!strcmp(prec, "bf16")) assert_contains(f, "# the transformer loaded in bf16, under autocast");
    print_message("%s\n", f);
    cJSON_Delete(j);
    vp_free(js);
}

/* The plan's PYTORCH_CUDA_ALLOC_CONF is the winner's, and every entry's plan keeps it */
static void alloc_conf_from_plan(void **s) {
    (void)s;
    const char *plan = "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":4,\"seq\":1024,\"grad_accum\":4},"
                       "\"instances\":[{\"model\":{\"preset\":\"gpt2\"}}],\"hardware\":{\"gpu\":\"rtx-4090\"},"
                       "\"runtime\":{\"pytorch_cuda_alloc_conf\":\"expandable_segments:True\"}}";
    vp_error err;
    char *js = vp_recommend_json(plan, t_registry(), 0, 3, 0, &err);
    if (!js) fail_msg("%s (%s)", err.message, err.path);
    cJSON *j = cJSON_Parse(js);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "winner");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(w, "env")->valuestring, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
    const cJSON *p0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "entries"), 0), "plan");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p0, "runtime"), "pytorch_cuda_alloc_conf")->valuestring,
                        "expandable_segments:True");
    cJSON_Delete(j);
    vp_free(js);
}

/* Qwen2.5-0.5B (the measured fragmentation case of test_alloc_events.c: 24 blocks, amp, seq 512 on an
 * H100 limited to 17,807,559,884 B) with SGD + momentum and a global batch of 8: micro-batches 1, 2, 4,
 * 8 × checkpointing off/1/2/4/8/16 × SGD as it is × amp_bf16, bf16 = 48 setups. Micro-batch 8 in pure
 * bf16 without checkpointing fails only on fragmentation (its allocated peak is under the usable memory,
 * a request finds no free block) and fits with expandable_segments:True, so the setups are ranked a
 * second time with it (96 setups in all) and that winner, faster, is kept with its allocator line. */
static void expandable_segments_when_fragmentation_decides(void **s) {
    (void)s;
    char *t = NULL;
    {
        FILE *f = fopen(VP_FIXTURES "/bisect/qwen05-amp-s512-f020.json", "rb");
        assert_non_null(f);
        t = calloc(1, 1 << 16);
        size_t n = fread(t, 1, (1 << 16) - 1, f);
        fclose(f);
        assert_true(n > 0);
    }
    cJSON *j = cJSON_Parse(t);
    free(t);
    cJSON *in0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "instances"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(in0, "optimizer"), "name", cJSON_CreateString("sgd_momentum"));
    char *plan = cJSON_PrintUnformatted(j);
    /* the setup on its own: b8, bf16, no checkpointing */
    cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "workload");
    cJSON_ReplaceItemInObjectCaseSensitive(w, "batch", cJSON_CreateNumber(8));
    cJSON_ReplaceItemInObjectCaseSensitive(in0, "precision", cJSON_CreateString("bf16"));
    char *b8 = cJSON_PrintUnformatted(j);
    cJSON_AddItemToObject(j, "runtime", cJSON_CreateObject());
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(j, "runtime"), "pytorch_cuda_alloc_conf", "expandable_segments:True");
    char *b8x = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    const vp_estimate *e = t_estimate(b8);
    assert_false(e->fits);
    assert_true(e->devices[0].fragmentation);
    assert_true(e->devices[0].peak_alloc_bytes < e->devices[0].usable_bytes);
    assert_true(t_estimate(b8x)->fits);

    vp_recommend *r = recommend(plan, 8, 10);
    assert_int_equal(r->n_setups, 96);
    assert_string_equal(r->alloc_conf, "expandable_segments:True");
    assert_int_equal(r->r[0].micro_batch, 8);
    assert_int_equal(r->r[0].gc_every, 0);
    assert_string_equal(r->r[0].precision, "bf16");
    free(r);
    vp_error err;
    char *js = vp_recommend_json(plan, t_registry(), 8, 1, 0, &err);
    cJSON *rj = cJSON_Parse(js);
    const cJSON *win = cJSON_GetObjectItemCaseSensitive(rj, "winner");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(win, "env")->valuestring, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
    const cJSON *p0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rj, "entries"), 0), "plan");
    char *applied = cJSON_PrintUnformatted(p0);
    assert_true(t_estimate(applied)->fits); /* Apply loads the allocator setting too */
    free(applied);
    cJSON_Delete(rj);
    vp_free(js);
    free(plan);
    free(b8);
    free(b8x);
}

static void refusals(void **s) {
    (void)s;
    vp_error err;
    vp_recommend *r = malloc(sizeof *r);
    vp_plan *p = vp_plan_from_json("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"infer\",\"batch\":1,\"seq\":128},"
                                   "\"instances\":[{\"model\":{\"preset\":\"gpt2\"}}]}",
                                   t_registry(), &err);
    assert_int_equal(vp_recommend_plan(p, 0, 10, r, &err), VP_ERR_FIELD);
    assert_string_equal(err.path, "workload.mode");
    vp_plan_free(p);
    /* Llama-3.1-70B in fp32 on one H100: weights alone are 282 GB, no setup fits */
    p = vp_plan_from_json("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":1,\"seq\":1024},\"instances\":[{\"model\":"
                          "{\"preset\":\"llama-3.1-70b\"},\"precision\":\"fp32\"}]}",
                          t_registry(), &err);
    assert_int_equal(vp_recommend_plan(p, 8, 10, r, &err), VP_OK);
    assert_int_equal(r->n, 0);
    char *js = vp_recommend_to_json(r, NULL, 0);
    cJSON *j = cJSON_Parse(js);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "winner")));
    cJSON_Delete(j);
    vp_free(js);
    vp_plan_free(p);
    free(r);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ranking_matches_brute_force),
        cmocka_unit_test(order_keys),
        cmocka_unit_test(data_parallel_global_batch),
        cmocka_unit_test(entry_plans_apply),
        cmocka_unit_test(alloc_conf_from_plan),
        cmocka_unit_test(diffusion_script_flags),
        cmocka_unit_test(expandable_segments_when_fragmentation_decides),
        cmocka_unit_test(refusals),
    };
    return T_RUN("recommend", tests, argc, argv);
}
