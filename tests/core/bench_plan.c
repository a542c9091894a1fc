/* bench_plan.c: what the planning layer costs (printed, not asserted; targets from issue 9):
 *   one `fit --max batch` and one `fit --max seq` on a parsed plan, and through JSON in/out (<= 2 ms)
 *   one recommend over about 10,000 setups (the WASM target is <= 100 ms: tests/web/bench.mjs)
 * Each line also gives the number of estimates made, and the cost of one bare estimate of the same
 * plan, so a change of the estimator's speed shows up apart from the search's.
 * usage: bench_plan [ITERATIONS]  (default 5) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vramplan.h"

#define L1B(batch, seq)                                                                                                  \
    "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":" #batch ",\"seq\":" #seq "},\"instances\":[{\"model\":{\"preset\":" \
    "\"llama-3.2-1b\"}}]}"
/* fp32 Llama-3.2-1B with a global batch of 110,880 = 2^5·3^2·5·7·11 (144 divisors): 144 micro-batches ×
 * checkpointing off/1/2/4/8/16 × 5 AdamW implementations × 3 precisions = 12,960 setups */
#define SWEEP_PLAN                                                                                                      \
    "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":1,\"seq\":1024},\"instances\":[{\"model\":{\"preset\":"   \
    "\"llama-3.2-1b\"},\"precision\":\"fp32\"}]}"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static vp_plan *parse(const vp_registry *reg, const char *json) {
    vp_error err;
    vp_plan *p = vp_plan_from_json(json, reg, &err);
    if (!p) fprintf(stderr, "bench_plan: %s (%s)\n", err.message, err.path);
    return p;
}

static double one_estimate_ms(const vp_plan *p, vp_estimate *e) {
    vp_error err;
    double t0 = now_ms();
    for (int i = 0; i < 5; i++) vp_estimate_plan(p, e, &err);
    return (now_ms() - t0) / 5;
}

int main(int argc, char **argv) {
    long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
    if (iters < 1) iters = 1;
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    vp_fit *fit = malloc(sizeof *fit);
    vp_recommend *rec = malloc(sizeof *rec);
    vp_estimate *e = malloc(sizeof *e);
    if (!reg || !fit || !rec || !e) return 1;
    static const struct {
        const char *name, *plan;
        vp_field field;
        const char *field_name;
    } fits[] = {
        {"fit --max batch  (Llama-3.2-1B s1024, H100)", L1B(1, 1024), VP_FIELD_BATCH, "batch"},
        {"fit --max seq    (Llama-3.2-1B b4, H100)", L1B(4, 2048), VP_FIELD_SEQ, "seq"},
    };
    printf("%-48s %10s %10s %10s %14s\n", "", "struct ms", "JSON ms", "estimates", "1 estimate ms");
    for (size_t k = 0; k < sizeof fits / sizeof fits[0]; k++) {
        vp_plan *p = parse(reg, fits[k].plan);
        if (!p) return 1;
        double t0 = now_ms();
        for (long i = 0; i < iters; i++) vp_fit_plan(p, fits[k].field, fit, &err);
        double t_struct = (now_ms() - t0) / (double)iters;
        t0 = now_ms();
        for (long i = 0; i < iters; i++) vp_free(vp_fit_json(fits[k].plan, reg, fits[k].field_name, 0, &err));
        double t_json = (now_ms() - t0) / (double)iters;
        printf("%-48s %10.3f %10.3f %10d %14.3f   [value %lld; target <= 2 ms]\n", fits[k].name, t_struct, t_json,
               fit->n_estimates, one_estimate_ms(p, e), (long long)fit->value);
        vp_plan_free(p);
    }
    vp_plan *p = parse(reg, SWEEP_PLAN);
    if (!p) return 1;
    double t0 = now_ms();
    vp_status st = vp_recommend_plan(p, 110880, 10, rec, &err);
    double t_rec = now_ms() - t0;
    if (st) {
        fprintf(stderr, "bench_plan: recommend: %s (%s)\n", err.message, err.path);
        return 1;
    }
    printf("%-48s %10.3f %10s %10d %14.3f   [%lld setups, %d listed; WASM target <= 100 ms]\n",
           "recommend (Llama-3.2-1B fp32, global batch 110880)", t_rec, "-", rec->n_estimates, one_estimate_ms(p, e),
           (long long)rec->n_setups, rec->n);
    vp_plan_free(p);
    free(fit);
    free(rec);
    free(e);
    vp_registry_free(reg);
    return 0;
}
