/* test_functional_copy.c: the edited functional model of MEND-style editors (core/src/functional_copy.c).
 *
 * MEND builds it with monkeypatch(model, in_place=True) (EasyEdit easyeditor/trainer/algs/patch.py, a
 * fork of higher/patch.py): on the model's device every parameter is the model's own tensor except the
 * edited ones, `p + updates[n]` (eric-mitchell/mend algs/mend.py MEND.edit), the MLP weights of the
 * last 3 blocks by default. The frozen parameters record no graph, so each pass keeps the graph from the
 * first edited block on.
 *
 * Model: a Llama-3.2-1B-shaped decoder (h 2048, 16 blocks, 32 heads, 8 KV heads × 64, f 8192, tied
 * vocab 128256), bf16, one sequence of 512 tokens, the copy sharing the base's weights, 4 passes. */
#include "vp_test.h"

#define L1B                                                                                                  \
    "{\"model_type\":\"llama\",\"hidden_size\":2048,\"intermediate_size\":8192,\"num_hidden_layers\":16,"   \
    "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"vocab_size\":128256,\"tie_word_embeddings\":true}"

static const char *plan(const char *edited_extra) {
    return t_plan("{\"batch\":1,\"seq\":512}",
                  t_fmt("{\"name\":\"base\",\"role\":\"custom\",\"model\":{\"hf_config\":" L1B "},\"precision\":\"bf16\","
                        "\"finetune\":{\"method\":\"frozen\"},\"activations\":\"keep_graph\"},"
                        "{\"name\":\"edited\",\"role\":\"functional_copy\",\"shares_weights_with\":\"base\","
                        "\"precision\":\"bf16\",\"activations\":\"keep_graph\",\"passes\":4%s}",
                        edited_extra),
                  NULL);
}

/* New tensors: the MLP of the last 3 blocks, 3 × 3·2048·8192 = 150,994,944 params × 2 B; no copy of
 * the rest (the base's weights are counted once, by the base). */
static void only_edited_weights_are_new(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(plan(""));
    assert_u64_equal(t_component(e, 0, "edited_weights", "edited"), 301989888ULL);
    assert_u64_equal(t_component(e, 0, "weights", "edited"), 0);
    assert_u64_equal(t_component(e, 0, "weights", "base"), 2ULL * 1235814400ULL);
}

/* Graph: 3 blocks × 4 passes. Per block and token (frozen bf16 Llama block, flash SDPA): two RMSNorms
 * 2·(4·2048 + 4) = 16,392; q 2·2048, k 2·512, v 2·512, out 2·2048, logsumexp 4·32 = 10,368; gate, act,
 * up 3·2·8192 = 49,152; the edited MLP's inputs (p + update trains): normed input 2·2048 and down_proj
 * input 2·8192 = 20,480 → 96,392. Outside, per pass: the final RMSNorm 4·2048 + 4 = 8,196.
 * 512 × (96,392 × 12 + 8,196 × 4) = 609,017,856. */
static void graph_from_first_edited_block(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(plan(""));
    assert_u64_equal(t_component(e, 0, "activations", "edited"), 609017856ULL);
    /* two more edited blocks: 2 × 4 passes × 512 × 96,392 more, and 2 × 3·2048·8192 × 2 B more weights */
    const vp_estimate *e5 = t_estimate(plan(",\"edited_layers\":5"));
    assert_u64_equal(t_component(e5, 0, "activations", "edited") - t_component(e, 0, "activations", "edited"),
                     8ULL * 512ULL * 96392ULL);
    assert_u64_equal(t_component(e5, 0, "edited_weights", "edited"), 5ULL * 3ULL * 2048ULL * 8192ULL * 2ULL);
}

/* Each pass keeps its own logits and log-softmax: 3 more passes × 512 × 128256 × (2 + 4) B. */
static void logits_of_every_pass(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(plan(""));
    assert_u64_equal(t_component(e, 0, "logits_passes", "edited"), 3ULL * 512ULL * 128256ULL * 6ULL);
}

static void edited_layers_checked(void **s) {
    (void)s;
    t_expect_error(plan(",\"edited_layers\":17"), VP_ERR_RANGE, "instances[1].edited_layers");
    t_expect_error(t_plan1("{\"batch\":1,\"seq\":512}", t_hf_instance(L1B, "\"edited_layers\":2")), VP_ERR_FIELD,
                   "instances[0].edited_layers");
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(only_edited_weights_are_new),
        cmocka_unit_test(graph_from_first_edited_block),
        cmocka_unit_test(logits_of_every_pass),
        cmocka_unit_test(edited_layers_checked),
    };
    return T_RUN("functional_copy", tests, argc, argv);
}
