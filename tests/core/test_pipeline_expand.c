/* test_pipeline_expand.c: a diffusion pipeline preset picked for an instance becomes the pipeline's
 * instances (core/src/pipeline_expand.c), as the CLI's --model and the page's model picker use it.
 * The components and their order come from the released model_index.json of each pipeline
 * (THUDM/CogVideoX-5b: text_encoder T5EncoderModel, transformer, vae AutoencoderKLCogVideoX;
 * the tokenizer and scheduler hold no GPU tensors). */
#include <stdlib.h>
#include <string.h>

#include "vp_test.h"

#define HW ",\"hardware\":{\"gpu\":\"h100-sxm-80gb\"}"

/* Expands instances[index] of plan; returns the parsed result (arena-free: the caller deletes). */
static cJSON *expand(const char *plan, int index, int keep_seq, int *added) {
    vp_error err;
    char *out = vp_plan_expand_pipeline_json(plan, t_registry(), index, keep_seq, added, &err);
    if (!out) fail_msg("refused: %s: %s", err.path, err.message);
    cJSON *j = cJSON_Parse(out);
    vp_free(out);
    assert_non_null(j);
    return j;
}

static const char *inst_str(const cJSON *plan, int i, const char *key) {
    const cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(plan, "instances"), i);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, key);
    if (!strcmp(key, "preset")) v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(x, "model"), key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Inference: the transformer plus the text encoder (first) and the VAE (last), all frozen, no-grad, in
 * the transformer's dtype; seq is dropped (tokens from the video size), and the plan estimates with the
 * peak named by its component. */
static void inference_adds_components(void **s) {
    (void)s;
    const char *plan = "{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"infer\",\"batch\":1,\"seq\":2048},"
                       "\"instances\":[{\"model\":{\"preset\":\"cogvideox-5b\"}}]" HW "}";
    int added = -1;
    cJSON *j = expand(plan, 0, 0, &added);
    assert_int_equal(added, 2);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "instances")), 3);
    assert_string_equal(inst_str(j, 0, "name"), "transformer");
    assert_string_equal(inst_str(j, 0, "role"), "reference");
    assert_string_equal(inst_str(j, 0, "activations"), "no_grad");
    assert_string_equal(inst_str(j, 0, "precision"), "bf16");
    assert_string_equal(inst_str(j, 1, "preset"), "cogvideox-5b/text_encoder");
    assert_string_equal(inst_str(j, 2, "preset"), "cogvideox-5b/vae");
    assert_string_equal(inst_str(j, 2, "name"), "vae");
    assert_string_equal(inst_str(j, 2, "activations"), "no_grad");
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "workload"), "seq"));
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    /* expanding again adds nothing */
    cJSON *again = expand(text, 0, 0, &added);
    assert_int_equal(added, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(again, "instances")), 3);
    cJSON_Delete(again);
    /* the estimate names the step of the peak; T5-XXL's 4,762,310,656 bf16 weights alone are 8.87 GiB */
    const cJSON *e = t_estimate_json(t_fmt("%s", text));
    cJSON_free(text);
    const cJSON *dev = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "devices"), 0);
    const cJSON *phase = cJSON_GetObjectItemCaseSensitive(dev, "peak_phase");
    assert_true(cJSON_IsString(phase));
    /* no offload and no tiling: all three stay on the GPU (8.87 + 10.38 + 0.40 GiB of weights) and the
     * untiled decode of 49×480×720 (13 latent frames) is the largest single step (vae.c, test_diffusion.c
     * vae_decode_peak), so the peak is the VAE's decode, named as such */
    assert_string_equal(phase->valuestring, "vae_decode");
    assert_non_null(strstr(cJSON_GetObjectItemCaseSensitive(e, "summary")->valuestring, "Peak in vae_decode"));
    assert_u64_equal(t_json_params_total(e, 1), 4762310656ULL);
}

/* Training: the transformer alone (latents precomputed), its seq kept when asked; with precompute the
 * encoders join; a second pipeline's components take "ID/<component>" names (instance names are unique). */
static void training_and_names(void **s) {
    (void)s;
    int added = -1;
    cJSON *j = expand("{\"workload\":{\"mode\":\"train\",\"batch\":1,\"seq\":4096},"
                      "\"instances\":[{\"model\":{\"preset\":\"wan2.1-t2v-1.3b\"}}]}",
                      0, 1, &added);
    assert_int_equal(added, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "instances")), 1);
    assert_string_equal(inst_str(j, 0, "name"), "transformer");
    assert_string_equal(inst_str(j, 0, "role"), ""); /* stays the trained model */
    assert_non_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "workload"), "seq"));
    cJSON_Delete(j);
    j = expand("{\"workload\":{\"mode\":\"train\",\"batch\":1,\"diffusion\":{\"precompute\":true}},"
               "\"instances\":[{\"name\":\"orig\",\"model\":{\"preset\":\"cogvideox-5b\"}},"
               "{\"name\":\"vae\",\"model\":{\"preset\":\"cogvideox-2b/vae\"}}]}",
               0, 0, &added);
    assert_int_equal(added, 2);
    assert_string_equal(inst_str(j, 0, "name"), "orig");
    assert_string_equal(inst_str(j, 2, "name"), "text_encoder");
    assert_string_equal(inst_str(j, 3, "name"), "cogvideox-5b/vae"); /* "vae" was taken */
    cJSON_Delete(j);
    /* not a pipeline: unchanged */
    j = expand("{\"workload\":{\"mode\":\"infer\",\"batch\":1},\"instances\":[{\"model\":{\"preset\":\"gpt2\"}}]}", 0, 0, &added);
    assert_int_equal(added, 0);
    assert_string_equal(inst_str(j, 0, "name"), "");
    cJSON_Delete(j);
}

/* Untrusted text: clear errors naming the field, never a crash. */
static void bad_input(void **s) {
    (void)s;
    vp_error err;
    int added = 7;
    const char *bad[][2] = {
        {"{\"workload\":{\"mode\":\"infer\"},\"instances\":[]}", "instances"},
        {"{\"workload\":{\"mode\":\"infer\"},\"instances\":[3]}", "instances"},
        {"{\"workload\":5,\"instances\":[{\"model\":{\"preset\":\"cogvideox-5b\"}}]}", "workload"},
        {"[1,2]", "plan"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out = vp_plan_expand_pipeline_json(bad[i][0], t_registry(), 0, 0, &added, &err);
        assert_null(out);
        assert_string_equal(err.path, bad[i][1]);
        assert_int_equal(added, 0);
    }
    assert_null(vp_plan_expand_pipeline_json("{\"a\":", t_registry(), 0, 0, NULL, &err));
    assert_int_equal(err.code, VP_ERR_JSON);
    assert_null(vp_plan_expand_pipeline_json("{\"workload\":{},\"instances\":[{}]}", t_registry(), -1, 0, NULL, &err));
    /* a model that is not an object, a preset that is a number: nothing to expand, no crash */
    char *out = vp_plan_expand_pipeline_json("{\"workload\":{},\"instances\":[{\"model\":{\"preset\":5}}]}", t_registry(), 0, 0,
                                             &added, &err);
    assert_non_null(out);
    assert_int_equal(added, 0);
    vp_free(out);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inference_adds_components),
        cmocka_unit_test(training_and_names),
        cmocka_unit_test(bad_input),
    };
    return T_RUN("pipeline_expand", tests, argc, argv);
}
