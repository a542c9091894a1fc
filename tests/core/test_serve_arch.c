/* test_serve_arch.c: the serving model comes from the family readers' vp_arch (serve_model.c ->
 * hf_config.c vp_arch_from_hf -> families/<name>.c). Each case is a config the old, separate serving
 * reader misread, worked by hand with the field it missed:
 *   falcon: multi_query / new_decoder_architecture num_kv_heads (vllm falcon.py FalconAttention);
 *   qwen (v1): the MLP is intermediate_size / 2 wide, c_attn has a bias (vllm qwen.py QWenMLP, QWenAttention);
 *   starcoder2: c_fc / c_proj GELU MLP, LayerNorm and use_bias (vllm starcoder2.py), tied embeddings;
 *   cohere2: sliding_window_pattern 4 (vllm commandr.py), tied embeddings;
 *   qwen2_vl: the tower is embed_dim wide, vision_config.hidden_size is the LM width it projects to;
 *   gemma3: Gemma3TextConfig defaults for the heads and context the published configs leave out;
 *   gpt2: learned positions (wpe), no rotary cache, n_positions is the derived max_model_len;
 *   phi (Phi-2): fc1/fc2, LayerNorm, biases, lm_head bias, partial_rotary_factor;
 *   qwen2 with layer_types: the explicit list is read for any family, as the old reader did;
 *   and configs the engines do not serve as decoders, refused by name.
 * vLLM page and block arithmetic: vllm/v1/kv_cache_interface.py, vllm/v1/core/kv_cache_utils.py. */
#include <math.h>
#include <string.h>

#include "vp_test.h"

#define H100_TOTAL 85017493504ULL /* cudaGetDeviceProperties total of an H100 80GB HBM3 (models/gpus) */

static const vp_estimate *estimate(const char *workload, const char *model, const char *parallel) {
    return t_estimate(t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":%s,\"instances\":[{\"model\":%s}],"
                            "\"hardware\":{\"capacity_bytes\":%llu},\"parallel\":%s}",
                            workload, model, (unsigned long long)H100_TOTAL, parallel));
}
static const vp_serving *serve(const char *workload, const char *model) {
    const vp_serving *v = &estimate(workload, model, "{}")->serving;
    assert_string_not_equal(v->engine, "");
    return v;
}
#define HF(cfg) t_fmt("{\"hf_config\":%s}", cfg)
#define VLLM(extra) "{\"mode\":\"serve\",\"engine\":\"vllm\",\"gpu_memory_utilization\":0.95" extra "}"
#define SERVE_ERR(model) t_fmt("{\"schema\":\"vramplan/plan@1\",\"workload\":{\"mode\":\"serve\",\"engine\":\"vllm\"}," \
                               "\"instances\":[{\"model\":%s}]}", model)

/* tiiuae/falcon-7b: multi_query -> one KV head of 4544 / 71 = 64: 2 · 1 · 64 · 2 B · 32 layers = 8192 B
 * per token (the old reader kept 71 heads: 581,632 B). Weights, per layer: input_layernorm 2 · 4544;
 * query_key_value 4544 × (71 + 2) · 64 = 4544 × 4672 = 21,229,568; dense 4544² = 20,647,936; MLP
 * 2 × 4544 × 18176 = 165,183,488 -> 207,070,080; × 32 = 6,626,242,560; + word_embeddings 65024 × 4544
 * = 295,469,056 (tied) + ln_f 9088 = 6,921,720,704 params (bf16) + the rotary cache 2048 × 64 × 2 B. */
#define CFG_FALCON_7B                                                                                              \
    "{\"model_type\":\"falcon\",\"hidden_size\":4544,\"num_hidden_layers\":32,\"num_attention_heads\":71,"         \
    "\"multi_query\":true,\"parallel_attn\":true,\"new_decoder_architecture\":false,\"bias\":false,\"alibi\":false," \
    "\"vocab_size\":65024,\"torch_dtype\":\"bfloat16\"}"
static void falcon_multi_query(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":2048"), HF(CFG_FALCON_7B));
    assert_int_equal(v->kv_bytes_per_token, 2 * 1 * 64 * 2 * 32);
    int64_t layer = 2 * 4544 + 4544LL * 4672 + 4544LL * 4544 + 2 * 4544LL * 18176;
    assert_int_equal(layer, 207070080);
    int64_t params = 32 * layer + 65024LL * 4544 + 2 * 4544;
    assert_int_equal(params, 6921720704LL);
    assert_u64_equal(v->weights_bytes_per_gpu, (uint64_t)params * 2 + 2048ULL * 64 * 2);
}

/* tiiuae/falcon-40b: new_decoder_architecture reads num_kv_heads = 8: 2 · 8 · 64 · 2 B · 60 = 122,880 B
 * per token (the old reader looked for num_key_value_heads and kept 128 heads: 1,966,080 B). */
static void falcon_new_architecture(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":2048"),
                                HF("{\"model_type\":\"falcon\",\"hidden_size\":8192,\"num_hidden_layers\":60,"
                                   "\"num_attention_heads\":128,\"num_kv_heads\":8,\"new_decoder_architecture\":true,"
                                   "\"bias\":false,\"vocab_size\":65024,\"torch_dtype\":\"bfloat16\"}"));
    assert_int_equal(v->kv_bytes_per_token, 2 * 8 * 64 * 2 * 60);
}

/* Qwen/Qwen-7B (v1): per layer c_attn 4096 × 12288 + bias 12288, c_proj 4096², w1 / w2 / c_proj of
 * intermediate_size / 2 = 11008: 3 × 4096 × 11008, ln_1 + ln_2 2 × 4096 -> 202,395,648; × 32 =
 * 6,476,660,736; + wte and lm_head 2 × 151936 × 4096 + ln_f 4096 = 7,721,324,544 (the old reader took
 * the MLP 22016 wide and no c_attn bias: 12,049,453,056). Rotary cache 8192 × 128 × 2 B. The forward
 * at 8192 tokens: 4 × [T, h] + the MLP's 3 × 11008 (wider than attention's 96 · 128 + 32 · 128). */
#define CFG_QWEN_7B                                                                                              \
    "{\"model_type\":\"qwen\",\"hidden_size\":4096,\"intermediate_size\":22016,\"num_hidden_layers\":32,"        \
    "\"num_attention_heads\":32,\"kv_channels\":128,\"vocab_size\":151936,\"max_position_embeddings\":8192,"      \
    "\"no_bias\":true,\"rotary_pct\":1.0,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\"}"
static void qwen_v1_half_mlp(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":8192"), HF(CFG_QWEN_7B));
    int64_t layer = 4096LL * 12288 + 12288 + 4096LL * 4096 + 3LL * 4096 * 11008 + 2 * 4096;
    assert_int_equal(layer, 202395648);
    int64_t params = 32 * layer + 2 * 151936LL * 4096 + 4096;
    assert_int_equal(params, 7721324544LL);
    assert_u64_equal(v->weights_bytes_per_gpu, (uint64_t)params * 2 + 8192ULL * 128 * 2);
    assert_u64_equal(v->forward_peak_bytes, 8192ULL * (4 * 4096 + 3 * 11008) * 2);
}

/* bigcode/starcoder2-7b: per layer qkv 4608 × (36 + 2 · 4) · 128 = 4608 × 5632 + bias 5632, o_proj
 * 4608² + bias 4608, c_fc and c_proj 2 × 4608 × 18432 + biases 18432 + 4608, two LayerNorms 2 × 2 ×
 * 4608 -> 217,106,944; × 32 = 6,947,422,208 + embed_tokens 49152 × 4608 = 226,492,416 (tied) + final
 * LayerNorm 9216 = 7,173,923,840 (the old reader: a gated MLP, RMSNorm, no biases, untied:
 * 10,116,960,768). */
static void starcoder2_gelu_layernorm_tied(void **s) {
    (void)s;
    const vp_serving *v =
        serve(VLLM(",\"max_model_len\":8192"),
              HF("{\"model_type\":\"starcoder2\",\"hidden_size\":4608,\"intermediate_size\":18432,"
                 "\"num_hidden_layers\":32,\"num_attention_heads\":36,\"num_key_value_heads\":4,\"vocab_size\":49152,"
                 "\"max_position_embeddings\":16384,\"sliding_window\":4096,\"use_bias\":true,\"torch_dtype\":\"bfloat16\"}"));
    int64_t layer = 4608LL * 5632 + 5632 + 4608LL * 4608 + 4608 + 2 * 4608LL * 18432 + 18432 + 4608 + 4 * 4608;
    assert_int_equal(layer, 217106944);
    int64_t params = 32 * layer + 49152LL * 4608 + 2 * 4608;
    assert_int_equal(params, 7173923840LL);
    assert_u64_equal(v->weights_bytes_per_gpu, (uint64_t)params * 2 + 16384ULL * 128 * 2);
    assert_int_equal(v->kv_cache_groups, 1); /* vLLM's Starcoder2Attention takes no sliding window */
}

/* CohereForAI/c4ai-command-r7b: sliding_window_pattern 4 -> layers 3, 7, ..., 31 global (8), 24 slide
 * over 4096. group_size 8 (24 ≥ 1.25 × 8), groups 1 + 24 / 8 = 4. Page 16 · 2 · 8 · 128 · 2 = 65536 B.
 * At 8192 tokens: full cdiv(8192, 16) = 512 blocks; sliding min(4095 + 8192, 8192) -> 512 + 1 = 513;
 * 512 + 3 × 513 = 2051 blocks per request. Weights: per layer q/k/v 4096 × 6144, o 4096², MLP 3 × 4096
 * × 14336, one CohereLayerNorm 4096 -> 218,107,904; × 32 + embed 256000 × 4096 (tied) + norm 4096. */
static void cohere2_sliding_pattern(void **s) {
    (void)s;
    const vp_serving *v =
        serve(VLLM(",\"max_model_len\":8192"),
              HF("{\"model_type\":\"cohere2\",\"hidden_size\":4096,\"intermediate_size\":14336,\"num_hidden_layers\":32,"
                 "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"vocab_size\":256000,"
                 "\"max_position_embeddings\":8192,\"sliding_window\":4096,\"sliding_window_pattern\":4,"
                 "\"torch_dtype\":\"bfloat16\"}"));
    assert_int_equal(v->kv_cache_groups, 4);
    int64_t blocks = (int64_t)(v->kv_cache_bytes_per_gpu / 65536) / 8;
    assert_int_equal(v->num_gpu_blocks, blocks);
    assert_int_equal(v->kv_cache_tokens, blocks / 4 * 16);
    assert_true(fabs(v->max_concurrency - (double)blocks / 2051.0) < 1e-9);
    int64_t layer = 4096LL * 6144 + 4096LL * 4096 + 3LL * 4096 * 14336 + 4096;
    int64_t params = 32 * layer + 256000LL * 4096 + 4096;
    assert_int_equal(params, 8028033024LL);
    assert_u64_equal(v->weights_bytes_per_gpu, (uint64_t)params * 2 + 8192ULL * 128 * 2);
}

/* Qwen2-VL-7B (preset): the tower is embed_dim 1280 wide (vision_config.hidden_size 3584 is the LM width
 * the merger projects to; the old reader built the tower 3584 wide: 12,565,489,664 params). Per block
 * 2 LayerNorms 2 · 2 · 1280, qkv 1280 × 3840 + 3840, proj 1280² + 1280, fc1 1280 × 5120 + 5120, fc2
 * 5120 × 1280 + 1280 = 19,677,440; Conv3d 3 · 2 · 14 · 14 · 1280; merger ln_q 2 · 1280, 5120² + 5120,
 * 5120 × 3584 + 3584: 675,759,104 with 32 blocks; + the Qwen2-7B decoder 7,615,616,512. */
static void qwen2_vl_tower_width(void **s) {
    (void)s;
    const vp_estimate *e = estimate(VLLM(",\"max_model_len\":8192"), "{\"preset\":\"qwen2-vl-7b\"}", "{}");
    int64_t block = 4 * 1280 + 1280LL * 3840 + 3840 + 1280LL * 1280 + 1280 + 1280LL * 5120 + 5120 + 5120LL * 1280 + 1280;
    assert_int_equal(block, 19677440);
    int64_t tower = 3LL * 2 * 14 * 14 * 1280 + 32 * block + 2 * 1280 + 5120LL * 5120 + 5120 + 5120LL * 3584 + 3584;
    assert_int_equal(tower, 675759104);
    assert_u64_equal(e->instances[0].params_total, 7615616512ULL + (uint64_t)tower);
}

/* google/gemma-3-4b-it as published: text_config leaves num_attention_heads (8), num_key_value_heads (4),
 * head_dim (256) and vocab_size (262208) to Gemma3TextConfig; the old reader stopped at the missing
 * num_attention_heads. KV: 2 · 4 · 256 · 2 B · 34 layers = 139,264 B per token; 29 sliding + 5 full
 * layers -> 7 groups (as test_serve.c vllm_gemma3_pattern). */
static void gemma3_published_defaults(void **s) {
    (void)s;
    const vp_serving *v = serve(VLLM(",\"max_model_len\":32768"), "{\"preset\":\"gemma-3-4b\"}");
    assert_int_equal(v->kv_bytes_per_token, 2 * 4 * 256 * 2 * 34);
    assert_int_equal(v->kv_cache_groups, 7);
    /* max_position_embeddings is left out too: Gemma3TextConfig's 131072 is vLLM's derived max_model_len */
    v = serve("{\"mode\":\"serve\",\"engine\":\"vllm\"}", "{\"preset\":\"gemma-3-4b\"}");
    assert_int_equal(v->max_model_len, 131072);
}

/* gpt2 (preset): GPT2Model.wpe is 1024 × 768 learned positions, no rotary cache; vLLM derives
 * max_model_len from n_positions = 1024 (model.py _get_and_verify_max_len). Params: 124,439,808 with
 * wte padded 50257 -> 50304 rows (+ 47 × 768 = 36,096). */
static void gpt2_learned_positions(void **s) {
    (void)s;
    const vp_serving *v = serve("{\"mode\":\"serve\",\"engine\":\"vllm\"}", "{\"preset\":\"gpt2\"}");
    assert_int_equal(v->max_model_len, 1024);
    assert_u64_equal(v->weights_bytes_per_gpu, (124439808ULL + 47 * 768) * 2);
    const vp_estimate *e = estimate(VLLM(",\"max_model_len\":2048"), "{\"preset\":\"gpt2\"}", "{}");
    assert_false(e->fits); /* vLLM refuses a max_model_len over the derived 1024 */
    t_assert_contains(e->serving.note, "max_position_embeddings=1024", __FILE__, __LINE__);
}

/* microsoft/phi-2: per layer input_layernorm 2 · 2560, q/k/v/dense 4 × (2560² + 2560), fc1 / fc2
 * 2 × 2560 × 10240 + 10240 + 2560 -> 78,671,360; × 32 + embed_tokens and lm_head 2 × 51200 × 2560 +
 * lm_head bias 51200 + final_layernorm 2 · 2560 = 2,779,683,840. Rotary cache: 2048 positions ×
 * 2560 / 32 · 0.4 = 32 dims, fp16. */
static void phi2_layernorm_biases(void **s) {
    (void)s;
    const vp_serving *v =
        serve(VLLM(",\"max_model_len\":2048"),
              HF("{\"model_type\":\"phi\",\"hidden_size\":2560,\"intermediate_size\":10240,\"num_hidden_layers\":32,"
                 "\"num_attention_heads\":32,\"vocab_size\":51200,\"max_position_embeddings\":2048,"
                 "\"partial_rotary_factor\":0.4,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\"}"));
    int64_t layer = 2 * 2560 + 4 * (2560LL * 2560 + 2560) + 2 * 2560LL * 10240 + 10240 + 2560;
    assert_int_equal(layer, 78671360);
    int64_t params = 32 * layer + 2 * 51200LL * 2560 + 51200 + 2 * 2560;
    assert_int_equal(params, 2779683840LL);
    assert_u64_equal(v->weights_bytes_per_gpu, (uint64_t)params * 2 + 2048ULL * 32 * 2);
}

/* Qwen2.5-7B shapes with use_sliding_window: transformers (>= 4.53) writes layer_types, sliding from
 * max_window_layers = 21 on: 21 full, 7 sliding (4096) layers, read for any family (decoder_read.c).
 * group_size 7 (21 ≥ 1.25 × 7), groups 21 / 7 + 1 = 4; page 16 · 2 · 4 · 128 · 2 = 32768 B. At 32768
 * tokens: full 2048 blocks, sliding cdiv(min(4095 + 8192, 32768), 16) + 1 = 769: 3 × 2048 + 769 = 6913. */
static void qwen2_layer_types(void **s) {
    (void)s;
    char types[1024] = "";
    for (int i = 0; i < 28; i++)
        strcat(types, i < 21 ? "\"full_attention\"," : i < 27 ? "\"sliding_attention\"," : "\"sliding_attention\"");
    const vp_serving *v =
        serve(VLLM(",\"max_model_len\":32768"),
              HF(t_fmt("{\"model_type\":\"qwen2\",\"hidden_size\":3584,\"intermediate_size\":18944,"
                       "\"num_hidden_layers\":28,\"num_attention_heads\":28,\"num_key_value_heads\":4,"
                       "\"vocab_size\":152064,\"max_position_embeddings\":32768,\"use_sliding_window\":true,"
                       "\"sliding_window\":4096,\"max_window_layers\":21,\"layer_types\":[%s],"
                       "\"torch_dtype\":\"bfloat16\"}", types)));
    assert_int_equal(v->kv_cache_groups, 4);
    int64_t blocks = (int64_t)(v->kv_cache_bytes_per_gpu / 32768) / 7;
    assert_int_equal(v->num_gpu_blocks, blocks);
    assert_true(fabs(v->max_concurrency - (double)blocks / 6913.0) < 1e-9);
}

/* Not served as decoders: refused with the model_type / class named. */
static void refused_by_name(void **s) {
    (void)s;
    const char *msg = t_expect_error(SERVE_ERR("{\"preset\":\"t5-base\"}"), VP_ERR_UNSUPPORTED,
                                     "instances[0].model.preset(t5-base).config.model_type");
    assert_non_null(strstr(msg, "encoder-decoder"));
    msg = t_expect_error(SERVE_ERR(HF("{\"architectures\":[\"BertForMaskedLM\"],\"model_type\":\"bert\",\"hidden_size\":768,"
                                      "\"intermediate_size\":3072,\"num_hidden_layers\":12,\"num_attention_heads\":12,"
                                      "\"vocab_size\":30522}")),
                         VP_ERR_UNSUPPORTED, "instances[0].model.hf_config.model_type");
    assert_non_null(strstr(msg, "BertForMaskedLM"));
    msg = t_expect_error(SERVE_ERR("{\"preset\":\"flux.1-dev\"}"), VP_ERR_UNSUPPORTED,
                         "instances[0].model.preset(flux.1-dev).config._class_name");
    assert_non_null(strstr(msg, "FluxTransformer2DModel"));
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(falcon_multi_query),        cmocka_unit_test(falcon_new_architecture),
        cmocka_unit_test(qwen_v1_half_mlp),          cmocka_unit_test(starcoder2_gelu_layernorm_tied),
        cmocka_unit_test(cohere2_sliding_pattern),   cmocka_unit_test(qwen2_vl_tower_width),
        cmocka_unit_test(gemma3_published_defaults), cmocka_unit_test(gpt2_learned_positions),
        cmocka_unit_test(phi2_layernorm_biases),     cmocka_unit_test(qwen2_layer_types),
        cmocka_unit_test(refused_by_name),
    };
    return T_RUN("serve_arch", tests, argc, argv);
}
