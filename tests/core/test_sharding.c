/* test_sharding.c: ZeRO sharding of model states across data-parallel ranks (core/src/sharding.c).
 *
 * ZeRO paper (Rajbhandari et al. 2020, §3.1 and Figure 1; memory-facts.md §2.1): mixed-precision Adam
 * holds 2Ψ 16-bit params + 2Ψ 16-bit grads + KΨ optimizer states, K = 12 (fp32 master 4 + m 4 + v 4);
 * over N_d ranks stage 1 (P_os) divides the K term, stage 2 (P_os+g) also the grads, stage 3
 * (P_os+g+p) also the params:
 *   stage 0: 2Ψ + 2Ψ + 12Ψ     stage 1: 2Ψ + 2Ψ + 12Ψ/N    stage 2: 2Ψ + 14Ψ/N    stage 3: 16Ψ/N
 * Model: GPT-2, Ψ = 124,439,808; N_d = 8 (Ψ/8 = 15,554,976). Precision "bf16_master" is this recipe
 * (bf16 params and grads, fp32 master weights and Adam states). */
#include <string.h>

#include "vp_test.h"

#define PSI 124439808ULL
#define N 8ULL

static const vp_estimate *zero(int stage, const char *precision) {
    const char *plan = t_fmt("{\"schema\":\"%s\",\"workload\":{\"batch\":1,\"seq\":256},\"instances\":[%s],"
                             "\"hardware\":{\"count\":8},\"parallel\":{\"dp\":8,\"zero\":%d,\"framework\":\"deepspeed\"}}",
                             VP_PLAN_SCHEMA, t_hf_instance(CFG_GPT2, t_fmt("\"precision\":\"%s\"", precision)), stage);
    return t_estimate(plan);
}

/* The resident states of rank 0 (weights, fp32 master, Adam m and v) follow the table. */
static void stages(void **s) {
    (void)s;
    /* stage 0: 2Ψ = 248,879,616 bf16 params; 4Ψ = 497,759,232 master; 8Ψ = 995,518,464 m, v */
    const vp_estimate *e = zero(0, "bf16_master");
    assert_u64_equal(t_component(e, 0, "weights", NULL), 2 * PSI);
    assert_u64_equal(t_component(e, 0, "master_weights", NULL), 4 * PSI);
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 8 * PSI);
    /* stage 1: the 12Ψ of master + states over 8 ranks: 62,219,904 + 124,439,808 */
    e = zero(1, "bf16_master");
    assert_u64_equal(t_component(e, 0, "weights", NULL), 2 * PSI);
    assert_u64_equal(t_component(e, 0, "master_weights", NULL), 4 * PSI / N);
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 8 * PSI / N);
    /* stage 2: grads sharded too (not resident: created in backward); params and states as stage 1 */
    e = zero(2, "bf16_master");
    assert_u64_equal(t_component(e, 0, "weights", NULL), 2 * PSI);
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 8 * PSI / N);
    /* stage 3: params sharded: 2Ψ/8 = 31,109,952 */
    e = zero(3, "bf16_master");
    assert_u64_equal(t_component(e, 0, "weights", NULL), 2 * PSI / N);
    assert_u64_equal(t_component(e, 0, "master_weights", NULL), 4 * PSI / N);
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 8 * PSI / N);
}

/* Model states per rank in the ZeRO paper's accounting, weights + master + states (+ grads), from
 * the resident components: stage 1 = 2Ψ + 12Ψ/N (+ 2Ψ grads) = 248,879,616 + 186,659,712. */
static void paper_totals(void **s) {
    (void)s;
    const vp_estimate *e = zero(1, "bf16_master");
    uint64_t states = t_component(e, 0, "weights", NULL) + t_component(e, 0, "master_weights", NULL) +
                      t_component(e, 0, "optimizer_state", NULL);
    assert_u64_equal(states, 2 * PSI + 12 * PSI / N);
    e = zero(3, "bf16_master");
    states = t_component(e, 0, "weights", NULL) + t_component(e, 0, "master_weights", NULL) +
             t_component(e, 0, "optimizer_state", NULL);
    assert_u64_equal(states, 14 * PSI / N);
}

/* Sharding only ever lowers a rank's peak: stage 3 <= 2 <= 1 <= 0. */
static void monotone(void **s) {
    (void)s;
    uint64_t p0 = zero(0, "bf16_master")->devices[0].peak_alloc_bytes;
    uint64_t p1 = zero(1, "bf16_master")->devices[0].peak_alloc_bytes;
    uint64_t p2 = zero(2, "bf16_master")->devices[0].peak_alloc_bytes;
    uint64_t p3 = zero(3, "bf16_master")->devices[0].peak_alloc_bytes;
    assert_true(p1 <= p0);
    assert_true(p2 <= p1);
    assert_true(p3 <= p2);
}

/* Under autocast the fp32 params are the master copy: no separate master, states 8Ψ/N at stage 1. */
static void amp_has_no_separate_master(void **s) {
    (void)s;
    const vp_estimate *e = zero(1, "amp_bf16");
    assert_u64_equal(t_component(e, 0, "master_weights", NULL), 0);
    assert_u64_equal(t_component(e, 0, "weights", NULL), 4 * PSI);
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 8 * PSI / N);
}

/* A layout larger than the hardware is refused. */
static void layout_must_fit_the_hardware(void **s) {
    (void)s;
    t_expect_error(t_fmt("{\"schema\":\"%s\",\"workload\":{\"batch\":1,\"seq\":256},\"instances\":[%s],"
                         "\"hardware\":{\"count\":4},\"parallel\":{\"dp\":8,\"zero\":3}}",
                         VP_PLAN_SCHEMA, t_hf_instance(CFG_GPT2, "")),
                   VP_ERR_RANGE, "parallel");
    t_expect_error(t_fmt("{\"schema\":\"%s\",\"workload\":{\"batch\":1,\"seq\":256},\"instances\":[%s],"
                         "\"hardware\":{\"count\":8},\"parallel\":{\"dp\":8,\"zero\":4}}",
                         VP_PLAN_SCHEMA, t_hf_instance(CFG_GPT2, "")),
                   VP_ERR_RANGE, "parallel.zero");
}

/* ---- known bugs ------------------------------------------------------------------------------- */

/* hardware.count accepts up to VP_MAX_DEVICES = 16 GPUs, but estimate.c fills GPU devices only while
 * n_devices < VP_MAX_DEVICES - 2 (two slots kept for the CPU and a remote last pipeline stage), so in a
 * job that uses all 16 GPUs GPUs 14 and 15 are never estimated. With pp = 16 GPU 15 is the last
 * pipeline stage, the one that holds the output head and the loss. */
static void bug_gpus_14_and_15_dropped(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_fmt("{\"schema\":\"%s\",\"workload\":{\"batch\":1,\"seq\":4096,\"grad_accum\":32},"
                                            "\"instances\":[{\"model\":{\"preset\":\"llama-3.1-8b\"},\"precision\":\"bf16\"}],"
                                            "\"hardware\":{\"count\":16},\"parallel\":{\"pp\":16,\"framework\":\"megatron\"}}",
                                            VP_PLAN_SCHEMA));
    int last = 0;
    for (int i = 0; i < e->n_devices; i++) last |= e->devices[i].index == 15;
    assert_true(last);
    /* plain data parallelism over 16 GPUs: every GPU reported */
    e = t_estimate(t_fmt("{\"schema\":\"%s\",\"workload\":{\"batch\":1,\"seq\":256},\"instances\":[%s],"
                         "\"hardware\":{\"count\":16},\"parallel\":{\"dp\":16}}",
                         VP_PLAN_SCHEMA, t_hf_instance(CFG_GPT2, "")));
    int gpus = 0;
    for (int i = 0; i < e->n_devices; i++) gpus += e->devices[i].index >= 0;
    assert_int_equal(gpus, 16);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stages),
        cmocka_unit_test(paper_totals),
        cmocka_unit_test(monotone),
        cmocka_unit_test(amp_has_no_separate_master),
        cmocka_unit_test(layout_must_fit_the_hardware),
    };
    const struct CMUnitTest bugs[] = {
        cmocka_unit_test(bug_gpus_14_and_15_dropped),
    };
    int rc = T_RUN("sharding", tests, argc, argv);
    rc += T_RUN("sharding_bugs", bugs, argc, argv);
    return rc;
}
