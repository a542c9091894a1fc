/* test_logits.c: the output logits and the cross-entropy loss (core/src/logits.c).
 *
 * transformers ForCausalLMLoss upcasts the logits (logits.float()) and runs cross_entropy =
 * log_softmax (fp32 output saved) + nll_loss. Measured per element of the b·s·v logits
 * (memory-facts.md §5.1, LlamaForCausalLM with one tiny layer, h = 1024, bf16, b = 1, s = 4096):
 *   held after forward 6 B (bf16 logits 2 + log-softmax 4), forward peak 10 B (+ the fp32 upcast 4),
 *   backward peak 14 B (held 6 + grad of the log-softmax output 4 + grad of the fp32 logits 4).
 * In an fp32 model .float() aliases: held 4 + 4 = 8 B, backward 8 + 4 + 4 = 16 B. */
#include <string.h>

#include "vp_test.h"

/* the §5.1 setup: one layer, h = 1024, v = 128256 */
#define TINY_LLAMA                                                                                          \
    "{\"model_type\":\"llama\",\"hidden_size\":1024,\"intermediate_size\":4096,\"num_hidden_layers\":1,"   \
    "\"num_attention_heads\":8,\"num_key_value_heads\":8,\"vocab_size\":128256,\"tie_word_embeddings\":false}"
/* b·s·v = 1 × 4096 × 128256 */
#define ELEMS 525336576ULL

static const vp_estimate *train(const char *precision, int batch, int seq) {
    return t_estimate(t_plan1(t_fmt("{\"batch\":%d,\"seq\":%d}", batch, seq),
                              t_hf_instance(TINY_LLAMA, t_fmt("\"precision\":\"%s\",\"optimizer\":{\"name\":\"sgd\"}", precision))));
}

/* bf16 model: the peak is the loss backward, where the logits hold 14 B per element:
 * 14 × 525,336,576 = 7,354,712,064 B (≈ 7.4 GB, §5.1). */
static void bf16_backward_14_bytes(void **s) {
    (void)s;
    const vp_estimate *e = train("bf16", 1, 4096);
    assert_string_equal(e->devices[0].peak_phase, "backward");
    assert_u64_equal(t_component(e, 0, "logits", NULL), 14 * ELEMS);
    assert_u64_equal(t_component(e, 0, "logits", NULL), 7354712064ULL);
}

/* fp32 model: 16 B per element at the loss backward: 8,405,385,216 B. */
static void fp32_backward_16_bytes(void **s) {
    (void)s;
    const vp_estimate *e = train("fp32", 1, 4096);
    assert_string_equal(e->devices[0].peak_phase, "backward");
    assert_u64_equal(t_component(e, 0, "logits", NULL), 16 * ELEMS);
}

/* Autocast produces bf16 logits, so amp_bf16 is the bf16 case: 14 B per element. */
static void amp_backward_14_bytes(void **s) {
    (void)s;
    const vp_estimate *e = train("amp_bf16", 1, 4096);
    assert_string_equal(e->devices[0].peak_phase, "backward");
    assert_u64_equal(t_component(e, 0, "logits", NULL), 14 * ELEMS);
}

/* The logits scale with b·s: batch 2 × seq 2048 has the same b·s·v as 1 × 4096. */
static void scales_with_tokens(void **s) {
    (void)s;
    assert_u64_equal(t_component(train("bf16", 2, 2048), 0, "logits", NULL), 14 * ELEMS);
    assert_u64_equal(t_component(train("bf16", 4, 4096), 0, "logits", NULL), 4 * 14 * ELEMS);
}

/* The forward phase peaks at the loss with 10 B per element in the bf16 model: the forward phase
 * total minus everything else at that moment. The backward moment of the loss drops the 4 B upcast
 * (freed after log_softmax) and adds 8 B of gradients, so backward − forward = (14 − 10) B per element,
 * everything else unchanged. */
static void forward_10_bytes(void **s) {
    (void)s;
    const vp_estimate *e = train("bf16", 1, 4096);
    uint64_t fwd = t_phase(e, 0, "forward"), bwd = t_phase(e, 0, "backward");
    assert_u64_equal(bwd - fwd, 4 * ELEMS);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bf16_backward_14_bytes),
        cmocka_unit_test(fp32_backward_16_bytes),
        cmocka_unit_test(amp_backward_14_bytes),
        cmocka_unit_test(scales_with_tokens),
        cmocka_unit_test(forward_10_bytes),
    };
    return T_RUN("logits", tests, argc, argv);
}
