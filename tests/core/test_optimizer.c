/* test_optimizer.c: optimizer state and step temporaries (core/src/optimizer.c).
 *
 * Bytes per trainable parameter, memory-facts.md §2.2 and the measurements of §2.4 (PyTorch 2.11):
 *   AdamW / Adam: m and v in the parameter dtype (zeros_like): 8 B fp32, 4 B bf16
 *   SGD momentum 0.9: one momentum buffer (clone(grad) at step 1): 4 B fp32; plain SGD: 0
 *   Lion: one momentum: 4 B fp32
 *   bitsandbytes AdamW8bit: uint8 m, v + one fp32 absmax per 256-element block each: 2 + 8/256 = 2.03125 B
 *   paged optimizers: CUDA unified memory, invisible to torch.cuda.memory_allocated(): 0
 * Step transients (§2.3/2.4): foreach = 1 × sizeof(params), fused = 0, for-loop ≈ 3 × the largest tensor.
 *
 * Model: GPT-2 124M, P = 124,439,808 parameters (memory-facts §10), every one trainable. */
#include <string.h>

#include "vp_test.h"

#define P 124439808ULL
#define WL "{\"batch\":1,\"seq\":64}"

static const vp_estimate *run(const char *precision, const char *optimizer) {
    return t_estimate(t_plan1(WL, t_hf_instance(CFG_GPT2, t_fmt("\"precision\":\"%s\",\"optimizer\":%s", precision, optimizer))));
}

/* fp32 AdamW: 8 B/param = 995,518,464 B (torch.optim.AdamW exp_avg, exp_avg_sq = zeros_like(p)) */
static void adamw_fp32(void **s) {
    (void)s;
    const vp_estimate *e = run("fp32", "{\"name\":\"adamw\"}");
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 8 * P);
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 995518464ULL);
    /* Adam (no weight decay) keeps the same two moments */
    e = run("fp32", "{\"name\":\"adam\"}");
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 8 * P);
}

/* Autocast keeps fp32 master parameters, so the states are fp32 too: 8 B/param. */
static void adamw_amp(void **s) {
    (void)s;
    const vp_estimate *e = run("amp_bf16", "{\"name\":\"adamw\"}");
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 8 * P);
}

/* Pure bf16 parameters: states are bf16, 4 B/param = 497,759,232 B (measured §2.4: "8 / 4"). */
static void adamw_bf16(void **s) {
    (void)s;
    const vp_estimate *e = run("bf16", "{\"name\":\"adamw\"}");
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 4 * P);
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 497759232ULL);
}

/* SGD with momentum: 4 B/param fp32 = 497,759,232 B; plain SGD keeps nothing. */
static void sgd(void **s) {
    (void)s;
    const vp_estimate *e = run("fp32", "{\"name\":\"sgd_momentum\"}");
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 4 * P);
    e = run("fp32", "{\"name\":\"sgd\"}");
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 0);
    assert_false(t_has_component(e, 0, "optimizer_state"));
}

/* Lion: one momentum buffer, 4 B/param fp32. */
static void lion(void **s) {
    (void)s;
    const vp_estimate *e = run("fp32", "{\"name\":\"lion\"}");
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 4 * P);
}

/* bitsandbytes 8-bit AdamW: P × (2 + 8/256) = 124,439,808 × 2.03125 = 248,879,616 + 3,888,744
 * = 252,768,360 B (bitsandbytes optim/optimizer.py Optimizer2State, blocksize 256). */
static void adamw_8bit(void **s) {
    (void)s;
    const vp_estimate *e = run("fp32", "{\"name\":\"adamw_8bit\"}");
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 252768360ULL);
}

/* Paged optimizers live in unified memory: nothing counted on the GPU's allocator. */
static void paged(void **s) {
    (void)s;
    const vp_estimate *e = run("fp32", "{\"name\":\"paged_adamw\"}");
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 0);
    e = run("fp32", "{\"name\":\"paged_adamw_8bit\"}");
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 0);
}

/* torch.optim.Adafactor factors the second moment of matrices (row + column vectors) and keeps a full
 * one for 1-D parameters; it has no first moment. For GPT-2 the state must hold at least the 1-D
 * LayerNorm weights and biases (12 × 2 × 2 × 768 + 2 × 768 = 38,400 params × 4 B = 153,600 B) and be
 * far below AdamW's 8 B/param (< 1 %). */
static void adafactor(void **s) {
    (void)s;
    const vp_estimate *e = run("fp32", "{\"name\":\"adafactor\"}");
    uint64_t st = t_component(e, 0, "optimizer_state", NULL);
    assert_true(st >= 38400ULL * 4);
    assert_true(st < 8 * P / 100);
}

/* Step temporaries: the optimizer_step phase differs only by them.
 * foreach − fused = 1 × sizeof(params) = 4 B × P = 497,759,232 B (torch.optim.AdamW docs, §2.3).
 * forloop − fused = 3 × the largest tensor: GPT-2's wte 50257 × 768 = 38,597,376 elements × 4 B × 3
 * = 463,168,512 B (§2.4: "~3× the largest single tensor"). */
static void step_temporaries(void **s) {
    (void)s;
    const vp_estimate *fe = run("fp32", "{\"name\":\"adamw\",\"impl\":\"foreach\"}");
    const vp_estimate *fu = run("fp32", "{\"name\":\"adamw\",\"impl\":\"fused\"}");
    const vp_estimate *fl = run("fp32", "{\"name\":\"adamw\",\"impl\":\"forloop\"}");
    uint64_t step_fe = t_phase(fe, 0, "optimizer_step"), step_fu = t_phase(fu, 0, "optimizer_step"),
             step_fl = t_phase(fl, 0, "optimizer_step");
    assert_u64_equal(step_fe - step_fu, 4 * P);
    assert_u64_equal(step_fl - step_fu, 463168512ULL);
    /* the states are the same whatever the implementation */
    assert_u64_equal(t_component(fe, 0, "optimizer_state", NULL), t_component(fu, 0, "optimizer_state", NULL));
    /* and the default implementation is foreach (PyTorch's default on CUDA) */
    const vp_estimate *def = run("fp32", "{\"name\":\"adamw\"}");
    assert_u64_equal(t_phase(def, 0, "optimizer_step"), step_fe);
}

/* Frozen and inference instances have no optimizer at all. */
static void no_optimizer_without_training(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"seq\":64}", t_hf_instance(CFG_GPT2, "")));
    assert_false(t_has_component(e, 0, "optimizer_state"));
    e = t_estimate(t_plan1(WL, t_hf_instance(CFG_GPT2, "\"finetune\":{\"method\":\"frozen\"}")));
    assert_false(t_has_component(e, 0, "optimizer_state"));
}

/* The optimizer only sees trainable parameters: freezing the embeddings (wte 38,597,376 + wpe 786,432
 * = 39,383,808) removes 8 B each from the AdamW state: 8 × (124,439,808 − 39,383,808) = 680,448,000. */
static void only_trainable_params(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan1(
        WL, t_hf_instance(CFG_GPT2, "\"precision\":\"fp32\",\"finetune\":{\"method\":\"full\",\"freeze\":[\"embeddings\"]}")));
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 680448000ULL);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(adamw_fp32),
        cmocka_unit_test(adamw_amp),
        cmocka_unit_test(adamw_bf16),
        cmocka_unit_test(sgd),
        cmocka_unit_test(lion),
        cmocka_unit_test(adamw_8bit),
        cmocka_unit_test(paged),
        cmocka_unit_test(adafactor),
        cmocka_unit_test(step_temporaries),
        cmocka_unit_test(no_optimizer_without_training),
        cmocka_unit_test(only_trainable_params),
    };
    return T_RUN("optimizer", tests, argc, argv);
}
