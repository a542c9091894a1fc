/* bench_estimate.c: what one estimate costs (printed, not asserted; target well under 20 µs).
 *   struct:      vp_estimate_plan on an already parsed plan
 *   JSON in/out: vp_estimate_json (parse + validate the plan, estimate, print the estimate JSON)
 * The headline is the mean over plans that fit (vp_estimate_plan, the bare estimate). The plan that
 * does not fit is timed with vp_estimate_with_suggestions / vp_estimate_with_suggestions_json (what
 * `vramplan estimate` runs): each suggestion is one more estimate of a changed plan, so it is printed
 * on its own line.
 * usage: bench_estimate [ITERATIONS]  (default 50: an estimate replays the step through the allocator
 * model, about 0.2-5 ms each) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vramplan.h"

static const char *const k_plans[][2] = {
    {"Llama-3.1-8B LoRA r16, bf16, b1 s1024",
     "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":1,\"seq\":1024},\"instances\":[{\"model\":{\"preset\":"
     "\"llama-3.1-8b\"},\"precision\":\"bf16\",\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16}}}]}"},
    {"Llama-3.1-8B generate, b8 p1024 +256",
     "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"infer\",\"batch\":8,\"seq\":1024,\"new_tokens\":256},"
     "\"instances\":[{\"model\":{\"preset\":\"llama-3.1-8b\"}}]}"},
    {"Qwen2.5-0.5B full + DPO reference (hf_config)",
     "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":4,\"seq\":1024},\"instances\":[{\"name\":\"policy\","
     "\"model\":{\"hf_config\":{\"model_type\":\"qwen2\",\"hidden_size\":896,\"intermediate_size\":4864,"
     "\"num_hidden_layers\":24,\"num_attention_heads\":14,\"num_key_value_heads\":2,\"vocab_size\":151936,"
     "\"tie_word_embeddings\":true}}},{\"name\":\"ref\",\"role\":\"reference\",\"precision\":\"bf16\","
     "\"shares_weights_with\":\"policy\",\"activations\":\"no_grad\",\"logprobs_fp32\":true}]}"},
    /* last: does not fit (timed, not in the headline mean) */
    {"does not fit: Llama-3.1-8B LoRA amp b4 s2048",
     "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"batch\":4,\"seq\":2048},\"instances\":[{\"model\":{\"preset\":"
     "\"llama-3.1-8b\"},\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16}}}]}"},
};

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 50;
    if (iters < 1) iters = 1;
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    if (!reg) {
        fprintf(stderr, "registry: %s\n", err.message);
        return 1;
    }
    vp_estimate *e = malloc(sizeof *e);
    size_t np = sizeof k_plans / sizeof k_plans[0];
    double tot_struct = 0, tot_json = 0;
    volatile uint64_t sink = 0;
    printf("%-48s %14s %14s\n", "plan", "struct (µs)", "JSON (µs)");
    for (size_t k = 0; k < np; k++) {
        vp_plan *plan = vp_plan_from_json(k_plans[k][1], reg, &err);
        if (!plan) {
            fprintf(stderr, "%s: %s (%s)\n", k_plans[k][0], err.message, err.path);
            return 1;
        }
        /* warm up */
        int last = k + 1 == np; /* the plan that does not fit: with suggestions */
        for (int i = 0; i < 100; i++) last ? vp_estimate_with_suggestions(plan, e, &err) : vp_estimate_plan(plan, e, &err);
        double t0 = now_us();
        for (long i = 0; i < iters; i++) {
            last ? vp_estimate_with_suggestions(plan, e, &err) : vp_estimate_plan(plan, e, &err);
            sink += e->devices[0].peak_alloc_bytes;
        }
        double t_struct = (now_us() - t0) / (double)iters;
        vp_plan_free(plan);
        long jiters = iters / 4 > 0 ? iters / 4 : 1;
        t0 = now_us();
        for (long i = 0; i < jiters; i++) {
            char *out = last ? vp_estimate_with_suggestions_json(k_plans[k][1], reg, 0, &err)
                             : vp_estimate_json(k_plans[k][1], reg, 0, &err);
            sink += out ? (uint64_t)out[0] : 0;
            vp_free(out);
        }
        double t_json = (now_us() - t0) / (double)jiters;
        printf("%-48s %14.2f %14.2f%s\n", k_plans[k][0], t_struct, t_json, e->fits ? "" : "  (+ suggestions)");
        if (k + 1 < np) {
            tot_struct += t_struct;
            tot_json += t_json;
        }
    }
    printf("one estimate: %.2f µs (struct), %.2f µs (JSON in/out)  [mean of the %zu plans that fit, %ld iterations; "
           "target < 20 µs]\n",
           tot_struct / (double)(np - 1), tot_json / (double)(np - 1), np - 1, iters);
    free(e);
    vp_registry_free(reg);
    return sink == 42 ? 1 : 0;
}
