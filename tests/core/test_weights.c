/* test_weights.c: resident weights, plain and quantized (core/src/weights.c).
 *
 * Plain weights: params × bytes of the storage dtype (fp32 4, bf16 2; autocast keeps fp32 masters).
 * 4-bit (QLoRA, memory-facts.md §3, bitsandbytes quantize_4bit): two values per byte + one fp32
 * absmax per 64-element block = 4 + 32/64 = 4.5 bits/param; with double quantization the absmax
 * are 8-bit with one fp32 constant per 256 blocks: 4 + 8/64 + 32/(64·256) = 4.127 bits/param.
 * Only the linears inside the blocks are quantized; embeddings, norms and the head stay in the
 * compute dtype (transformers quantizers/base.py modules_to_not_convert).
 *
 * Llama-3.1-8B: linears in the blocks = 32 × (41,943,040 + 176,160,768) = 6,979,321,856 params;
 * the rest = 8,030,261,248 − 6,979,321,856 = 1,050,939,392 (2 × 525,336,576 embeddings/head +
 * 32 × 8,192 + 4,096 norms). */
#include <math.h>
#include <string.h>

#include "vp_test.h"

#define WL "{\"batch\":1,\"seq\":128}"
#define LINEAR 6979321856ULL
#define REST 1050939392ULL

static const vp_estimate *qlora(int double_quant) {
    return t_estimate(t_plan1(WL, t_hf_instance(CFG_LLAMA31_8B, t_fmt("\"precision\":\"bf16\",\"double_quant\":%s,"
                                                                      "\"finetune\":{\"method\":\"qlora\",\"lora\":{\"r\":16}}",
                                                                      double_quant ? "true" : "false"))));
}

/* NF4 without double quantization: constants 4 B per 64 params = 6,979,321,856 / 16 = 436,207,616 B
 * (0.5 bit/param); weights: 1,050,939,392 × 2 B + 6,979,321,856 × 0.5 B = 2,101,878,784 + 3,489,660,928
 * = 5,591,539,712 B. */
static void nf4(void **s) {
    (void)s;
    const vp_estimate *e = qlora(0);
    assert_u64_equal(t_component(e, 0, "quant_constants", NULL), 436207616ULL);
    assert_u64_equal(t_component(e, 0, "weights", NULL), 5591539712ULL);
    /* 4.5 bits per quantized parameter */
    double bits = 8.0 * (0.5 * (double)LINEAR + (double)t_component(e, 0, "quant_constants", NULL)) / (double)LINEAR;
    assert_close(bits, 4.5, 1e-9);
}

/* Double quantization: 6,979,321,856 × (1/64 + 4/(64·256)) = 109,051,904 + 1,703,936 = 110,755,840 B
 * (0.127 bit/param), saving 0.373 bit/param (QLoRA §3). */
static void nf4_double_quant(void **s) {
    (void)s;
    const vp_estimate *e = qlora(1);
    assert_u64_equal(t_component(e, 0, "quant_constants", NULL), 110755840ULL);
    assert_u64_equal(t_component(e, 0, "weights", NULL), 5591539712ULL);
    double bits = 8.0 * (0.5 * (double)LINEAR + (double)t_component(e, 0, "quant_constants", NULL)) / (double)LINEAR;
    assert_close(bits, 4.127, 1e-3);
    double saved = 8.0 * (double)(t_component(qlora(0), 0, "quant_constants", NULL) - 110755840ULL) / (double)LINEAR;
    assert_close(saved, 0.373, 1e-3);
}

/* The QLoRA adapters are the LoRA ones: r = 16 all 7 on Llama-3.1-8B = 41,943,040 fp32 params. */
static void qlora_adapters(void **s) {
    (void)s;
    const vp_estimate *e = qlora(1);
    assert_u64_equal(e->instances[0].params_trainable, 41943040ULL);
    assert_u64_equal(t_component(e, 0, "adapters", NULL), 4 * 41943040ULL);
}

/* fp4 uses the same storage as nf4. */
static void fp4_same_storage(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan1(
        WL, t_hf_instance(CFG_LLAMA31_8B, "\"precision\":\"bf16\",\"quant\":\"fp4\",\"finetune\":{\"method\":\"lora\"}")));
    assert_u64_equal(t_component(e, 0, "weights", NULL), 5591539712ULL);
    assert_u64_equal(t_component(e, 0, "quant_constants", NULL), 436207616ULL);
}

/* int8 (LLM.int8 Int8Params): the block linears at 1 B: 1,050,939,392 × 2 + 6,979,321,856 × 1
 * = 9,081,200,640 B, plus a small fp32 scale per output row. */
static void int8(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan1(
        WL, t_hf_instance(CFG_LLAMA31_8B, "\"precision\":\"bf16\",\"quant\":\"int8\",\"finetune\":{\"method\":\"lora\"}")));
    assert_u64_equal(t_component(e, 0, "weights", NULL), 9081200640ULL);
    uint64_t qc = t_component(e, 0, "quant_constants", NULL);
    assert_true(qc > 0 && qc < LINEAR / 100);
}

/* Plain weights by precision, Llama-3.1-8B frozen for inference: bf16 2 B = 16,060,522,496 B;
 * fp32 4 B = 32,121,044,992 B. */
static void plain_weights(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"infer\",\"batch\":1,\"seq\":16}";
    const vp_estimate *e = t_estimate(t_plan1(wl, t_hf_instance(CFG_LLAMA31_8B, "\"precision\":\"bf16\"")));
    assert_u64_equal(t_component(e, 0, "weights", NULL), 16060522496ULL);
    e = t_estimate(t_plan1(wl, t_hf_instance(CFG_LLAMA31_8B, "\"precision\":\"fp32\"")));
    assert_u64_equal(t_component(e, 0, "weights", NULL), 32121044992ULL);
    assert_false(t_has_component(e, 0, "quant_constants"));
}

/* A model on the GPU must not fit on a GPU smaller than its weights: Llama-3.1-70B in bf16 is
 * 141,107,412,992 B > 80 GB. */
static void weights_alone_do_not_fit(void **s) {
    (void)s;
    const vp_estimate *e =
        t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":1,\"seq\":16}", t_hf_instance(CFG_LLAMA31_70B, "\"precision\":\"bf16\"")));
    assert_u64_equal(t_component(e, 0, "weights", NULL), 141107412992ULL);
    assert_false(e->fits);
    assert_false(e->devices[0].fits);
    assert_true(e->devices[0].headroom_bytes < 0);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nf4),
        cmocka_unit_test(nf4_double_quant),
        cmocka_unit_test(qlora_adapters),
        cmocka_unit_test(fp4_same_storage),
        cmocka_unit_test(int8),
        cmocka_unit_test(plain_weights),
        cmocka_unit_test(weights_alone_do_not_fit),
    };
    return T_RUN("weights", tests, argc, argv);
}
