/* test_activations_t5.c: what T5 saves for backward (core/src/activations_t5.c), against the H100
 * allocator trace of t5base-amp-b8s512 (tests/groundtruth/h100-2026-11-23/run3/traces; transformers
 * 5.17, PyTorch 2.11): the tensors alive at the step-2 peak, summed per layer between two identical
 * points of consecutive layers, the autocast weight copies taken out.
 *
 * T5-base: h 768, 12 heads × 64 = 768 inner, f 3072 (relu), dropout 0.1; batch 8, 512 encoder and
 * 128 decoder tokens. Encoder tokens 4096, decoder tokens 1024, encoder scores 8·12·512² = 25,165,824.
 *
 * Encoder layer, autocast, per token (trace events 15157-15278, 415,268,864 B):
 *   self-attention: T5LayerNorm 4h residual + 4h normalized + 4 rsqrt = 6,148; q, k, v bf16 input casts
 *   3·2h = 4,608; math SDPA's fp32 q, k, v copies 3·4·768 = 9,216; o input 2·768 = 1,536; dropout mask
 *   768 → 22,276
 *   feed-forward: norm 6,148; wi cast 1,536; relu out 2·3072 = 6,144; dropout mask 3,072; wo cast
 *   6,144; dropout mask 768 → 23,812
 *   (22,276 + 23,812) × 4096 = 188,776,448, + 9 B per score (fp32 softmax out, bool mask, fp32 dropout
 *   out) × 25,165,824 = 226,492,416 → 415,268,864.
 * Decoder layer, autocast (trace events 16738-16916 + the next q projection, 101,527,568 B):
 *   self-attention 22,276 + DynamicCache K, V copies 2·2·768 = 3,072 → 25,348 per token
 *   cross-attention: norm 6,148 + q cast 1,536 + q and the fused kernel's output 2·2·768 = 3,072 +
 *   fp32 logsumexp 12·4 = 48 + mask 768 → 11,572 per token; feed-forward 23,812
 *   60,732 × 1024 = 62,189,568; scores 9 × 8·12·128² = 14,155,776; per encoder token k, v casts 2·2h
 *   and cached K, V 2·2·768 = 6,144 × 4096 = 25,165,824; once per layer a bool 128² tensor and the
 *   two 8 B dropout seeds: 16,400 → 101,527,568.
 * Whole model at the peak: 6,258,864,328 B of activations in the trace. */
#include "vp_test.h"

static const char *t5(int enc, int dec) {
    return t_fmt("{\"model_type\":\"t5\",\"d_model\":768,\"d_ff\":3072,\"d_kv\":64,\"num_layers\":%d,"
                 "\"num_decoder_layers\":%d,\"num_heads\":12,\"vocab_size\":32128,\"feed_forward_proj\":\"relu\"}",
                 enc, dec);
}

static uint64_t acts(int enc, int dec, const char *precision) {
    const vp_estimate *e = t_estimate(t_plan1("{\"batch\":8,\"seq\":512,\"dec_seq\":128}",
                                              t_hf_instance(t5(enc, dec), t_fmt("\"precision\":\"%s\"", precision))));
    return t_component(e, 0, "activations", NULL);
}

static void encoder_layer_amp(void **s) {
    (void)s;
    assert_close((double)(acts(2, 1, "amp_bf16") - acts(1, 1, "amp_bf16")), 415268864.0, 1e-6);
}

static void decoder_layer_amp(void **s) {
    (void)s;
    assert_close((double)(acts(1, 2, "amp_bf16") - acts(1, 1, "amp_bf16")), 101527568.0, 1e-6);
}

static void whole_model_amp(void **s) {
    (void)s;
    assert_close((double)acts(12, 12, "amp_bf16"), 6258864328.0, 0.001);
}

/* fp32 (no autocast), by hand from the same ops: the linears share the one fp32 norm output, and the
 * math SDPA does not upcast (q, k, v are fp32 already, still copied by the scale and bmm's fold).
 * Encoder layer per token: attention 6,148 + 3,072 (shared input) + 9,216 + 4·768 o input + 768 =
 * 22,276; feed-forward 6,148 + 3,072 + 4·3072 relu + 3,072 mask + 4·3072 wo input + 768 = 37,636;
 * (22,276 + 37,636) × 4096 = 245,399,552 + 9 × 25,165,824 = 471,891,968. Cross-attention then keeps
 * no per-layer copy of the encoder output (k and v read the one fp32 tensor), only the cached K, V. */
static void encoder_layer_fp32(void **s) {
    (void)s;
    assert_close((double)(acts(2, 1, "fp32") - acts(1, 1, "fp32")), 471891968.0, 1e-6);
}

/* decoder layer fp32: self 22,276 + 2·4·768 cache = 28,420; cross 6,148 + 3,072 + 2·4·768 + 48 + 768 =
 * 16,180; ff 37,636 → 82,236 × 1024 = 84,209,664; scores 14,155,776; cached K, V 2·4·768 × 4096 =
 * 25,165,824; 16,400 → 123,547,664 */
static void decoder_layer_fp32(void **s) {
    (void)s;
    assert_close((double)(acts(1, 2, "fp32") - acts(1, 1, "fp32")), 123547664.0, 1e-6);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encoder_layer_amp),  cmocka_unit_test(decoder_layer_amp),  cmocka_unit_test(whole_model_amp),
        cmocka_unit_test(encoder_layer_fp32), cmocka_unit_test(decoder_layer_fp32),
    };
    return T_RUN("activations_t5", tests, argc, argv);
}
