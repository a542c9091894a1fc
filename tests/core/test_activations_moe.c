/* test_activations_moe.c: a routed MoE block of transformers 5.x (core/src/activations_moe.c).
 *
 * The experts run through integrations/moe.py grouped_mm_experts_forward (the default
 * experts_implementation, modeling_utils.py get_correct_experts_implementation), whose _grouped_mm
 * casts its input to the weight dtype: under autocast with fp32 master weights the experts compute in
 * fp32 and their stacked weights get no bf16 autocast copy.
 *
 * Shapes: the measure.py "mixtral-tiny" (h 1024, 16 heads × 64, 8 KV heads, 8 experts × f 3584, top-2,
 * vocab 32000, 8 layers), batch 4 × 1024 tokens = 4096 tokens, autocast bf16 over fp32 weights. */
#include "vp_test.h"

#define MIXTRAL(layers)                                                                                              \
    t_fmt("{\"model_type\":\"mixtral\",\"hidden_size\":1024,\"intermediate_size\":3584,\"num_hidden_layers\":%d,"   \
          "\"num_attention_heads\":16,\"num_key_value_heads\":8,\"vocab_size\":32000,\"num_local_experts\":8,"      \
          "\"num_experts_per_tok\":2,\"tie_word_embeddings\":false}",                                               \
          layers)
#define MISTRAL(layers)                                                                                              \
    t_fmt("{\"model_type\":\"mistral\",\"hidden_size\":1024,\"intermediate_size\":3584,\"num_hidden_layers\":%d,"   \
          "\"num_attention_heads\":16,\"num_key_value_heads\":8,\"vocab_size\":32000,\"tie_word_embeddings\":false}", \
          layers)

static const vp_estimate *est(const char *cfg) {
    return t_estimate(t_plan1("{\"batch\":4,\"seq\":1024}", t_hf_instance(cfg, "\"precision\":\"amp_bf16\"")));
}

static double per_layer(const char *two, const char *one) {
    return (double)t_component(est(two), 0, "activations", NULL) - (double)t_component(est(one), 0, "activations", NULL);
}

/* Per token, the MoE block minus the dense Mistral MLP of the same width (attention is identical):
 *   MoE: router input cast 2·1024 = 2,048; router softmax fp32 4·8 = 32, top-k int64 indices 8·2 = 16,
 *   top-k values and sum 4·2 + 4 = 12; token_idx, perm, inv_perm int64 3·8·2 = 48; per routed pair
 *   (×2) in fp32: sorted input 4·1024, gate_up_out 2·4·3584, act 4·3584, act·up 4·3584, down output
 *   4·1024 = 8·1024 + 16·3584 = 65,536 → 131,072, + routing weights 4·2 = 8 → 133,236
 *   dense: gate and up input casts 2·2·1024 = 4,096; gate, act, up, product 4·2·3584 = 28,672 → 32,768
 *   difference 100,468 B × 4096 tokens = 411,516,928 per layer. */
static void moe_minus_dense_layer(void **s) {
    (void)s;
    double moe = per_layer(MIXTRAL(2), MIXTRAL(1));
    double dense = per_layer(MISTRAL(2), MISTRAL(1));
    assert_close(moe - dense, 411516928.0, 1e-6);
}

/* Autocast copies: only nn.Linear weights. Per layer q, o 1024² each, k, v 1024·512 each, router 8·1024
 * = 3,153,920; × 8 layers + lm_head 32000·1024 = 57,999,360 params × 2 B = 115,998,720 (the 8 × 8 ×
 * 3·1024·3584 = 704,643,072 expert params are not cast). */
static void no_autocast_copy_of_experts(void **s) {
    (void)s;
    assert_close((double)t_component(est(MIXTRAL(8)), 0, "weights_lowp_copy", NULL), 115998720.0, 1e-9);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(moe_minus_dense_layer),
        cmocka_unit_test(no_autocast_copy_of_experts),
    };
    return T_RUN("activations_moe", tests, argc, argv);
}
