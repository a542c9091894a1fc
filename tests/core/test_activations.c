/* test_activations.c: activations saved for backward (core/src/activations.c), per layer.
 *
 * memory-facts.md §1.4 measured them on an H100 with transformers 5.17 as (2-layer model) − (1-layer
 * model), Llama-3.1-8B layer shapes (h 4096, a 32, a_kv 8, d 128, f 14336), bf16, b = 1, s = 2048,
 * no dropout, sbh = 8,388,608:
 *   full fine-tune, SDPA (flash)                     411,320,336 B  (49.0 sbh)
 *   full fine-tune, eager attention                1,241,530,368 B  (148.0 sbh)
 *   full fine-tune + gradient checkpointing           16,777,216 B  (2.0 sbh: the layer input)
 *   LoRA r 16 on all 7, dropout 0, fp32 adapters     605,175,824 B  (72.1 sbh)
 *   same with lora_dropout 0.05                      684,867,600 B  (81.6 sbh)
 * The tests take the same difference of the predicted "activations" (+ "attention_scores")
 * components. They run at batch 4 (four times the measured bytes) so that the saved activations, not
 * the gradients, make the peak and the components are reported. */
#include <string.h>

#include "vp_test.h"

#define B 4

static const char *llama_layers(int layers) {
    return t_fmt("{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":14336,\"num_hidden_layers\":%d,"
                 "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"vocab_size\":32000}",
                 layers);
}

static uint64_t saved(int layers, const char *extra) {
    const vp_estimate *e = t_estimate(t_plan1(t_fmt("{\"batch\":%d,\"seq\":2048}", B),
                                              t_hf_instance(llama_layers(layers), t_fmt("\"precision\":\"bf16\","
                                                                                        "\"optimizer\":{\"name\":\"sgd\"}%s",
                                                                                        extra))));
    const char *ph = e->devices[0].peak_phase;
    if (strcmp(ph, "forward") != 0 && strcmp(ph, "backward") != 0)
        fail_msg("peak in %s: the saved activations are not at the peak", ph);
    return t_component(e, 0, "activations", NULL) + t_component(e, 0, "attention_scores", NULL);
}

static double per_layer(const char *extra) { return (double)(saved(2, extra) - saved(1, extra)) / B; }

static void full_sdpa(void **s) {
    (void)s;
    assert_close(per_layer(""), 411320336.0, 0.005);
}

static void full_eager(void **s) {
    (void)s;
    assert_close(per_layer(",\"attn\":\"eager\""), 1241530368.0, 0.005);
}

static void full_grad_ckpt(void **s) {
    (void)s;
    /* exactly the bf16 layer input: 2 B × s·b·h = 2 × 2048 × 4096 = 16,777,216 */
    assert_close(per_layer(",\"grad_ckpt\":{\"every\":1}"), 16777216.0, 0.005);
}

#define LORA7 "\"targets\":[\"q_proj\",\"k_proj\",\"v_proj\",\"o_proj\",\"gate_proj\",\"up_proj\",\"down_proj\"]"

static void lora_all7(void **s) {
    (void)s;
    assert_close(per_layer(",\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16,\"dropout\":0," LORA7 "}}"), 605175824.0,
                 0.005);
}

static void lora_all7_dropout(void **s) {
    (void)s;
    assert_close(per_layer(",\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16,\"dropout\":0.05," LORA7 "}}"),
                 684867600.0, 0.005);
}

/* Activations are linear in the batch: batch 8 saves twice what batch 4 saves (same phase). */
static void linear_in_batch(void **s) {
    (void)s;
    const vp_estimate *a = t_estimate(t_plan1("{\"batch\":4,\"seq\":1024}", t_hf_instance(llama_layers(2), "\"precision\":\"bf16\"")));
    const vp_estimate *b = t_estimate(t_plan1("{\"batch\":8,\"seq\":1024}", t_hf_instance(llama_layers(2), "\"precision\":\"bf16\"")));
    assert_string_equal(a->devices[0].peak_phase, b->devices[0].peak_phase);
    assert_close(t_component(b, 0, "activations", NULL), 2.0 * (double)t_component(a, 0, "activations", NULL), 1e-6);
}

/* No activations are saved by a frozen model's no-grad forward beyond one block at a time: a
 * reference model's activations do not grow with its depth the way a trained model's do. */
static void nograd_does_not_accumulate(void **s) {
    (void)s;
    const char *wl = "{\"mode\":\"infer\",\"batch\":4,\"seq\":2048}";
    const vp_estimate *one = t_estimate(t_plan1(wl, t_hf_instance(llama_layers(1), "")));
    const vp_estimate *eight = t_estimate(t_plan1(wl, t_hf_instance(llama_layers(8), "")));
    /* the prefill temporaries are one block's: the same for 1 and 8 layers */
    assert_u64_equal(t_component(one, 0, "inference_temp", NULL), t_component(eight, 0, "inference_temp", NULL));
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(full_sdpa),
        cmocka_unit_test(full_eager),
        cmocka_unit_test(full_grad_ckpt),
        cmocka_unit_test(lora_all7),
        cmocka_unit_test(lora_all7_dropout),
        cmocka_unit_test(linear_in_batch),
        cmocka_unit_test(nograd_does_not_accumulate),
    };
    return T_RUN("activations", tests, argc, argv);
}
