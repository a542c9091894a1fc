/* test_families.c: the families of core/src/families/, each on a real published config.json
 * (tests/fixtures/configs/hf, sources in its README.md) with an exact parameter count from an
 * independent source cited beside it, the per-block arithmetic written out, and the memory terms
 * specific to the family worked by hand.
 *
 * usage: test_families GROUP FIXTURE_DIR (tests/fixtures/configs/hf) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vp_test.h"

static const char *g_dir = "tests/fixtures/configs/hf";

static const char *config(const char *name) { return t_fixture_text(g_dir, name); }

#define TRAIN "{\"batch\":1,\"seq\":1024}"
/* counts only: short enough for the encoders' 512 learned positions */
#define COUNT_WL "{\"batch\":1,\"seq\":256}"
#define INFER "{\"mode\":\"infer\",\"batch\":1,\"seq\":1024,\"new_tokens\":1}"

/* Parameter count of a fixture, checking that it is read by its own family (no fallback warning). */
static uint64_t count(const char *file, const char *family) {
    const vp_estimate *e = t_estimate(t_plan1(COUNT_WL, t_hf_instance(config(file), "")));
    assert_string_equal(e->instances[0].model_type, family);
    for (int i = 0; i < e->n_warnings; i++)
        if (strstr(e->warnings[i], "unknown model_type")) fail_msg("%s: read by the fallback: %s", file, e->warnings[i]);
    return e->instances[0].params_total;
}

static uint64_t count_cfg(const char *cfg) {
    return t_estimate(t_plan1(COUNT_WL, t_hf_instance(cfg, "")))->instances[0].params_total;
}

/* "... × N B saved per block ..." from the activations component's explanation. */
static long per_block_bytes(const vp_estimate *e) {
    for (int d = 0; d < e->n_devices; d++)
        for (int i = 0; i < e->devices[d].n_components; i++)
            if (!strcmp(e->devices[d].components[i].id, "activations")) {
                const char *x = strstr(e->devices[d].components[i].explain, "tokens × ");
                if (x) return strtol(x + strlen("tokens × "), NULL, 10);
            }
    fail_msg("no activations component");
    return 0;
}

/* ---- Gemma 3 ------------------------------------------------------------------------------- */
/* gemma-3-1b-it (gemma3_text): h 1152, L 26, a 4, a_kv 1, d 256, f 6912, v 262144, tied.
 *   attention 1152·1024 + 2·1152·256 + 1024·1152 = 2,949,120; q_norm + k_norm 2·256 = 512
 *   MLP 3·1152·6912 = 23,887,872; 4 norms 4·1152 = 4,608 -> 26,842,112 × 26 = 697,894,912
 *   embed 262144·1152 = 301,989,888; final norm 1,152 -> 999,885,952
 * Independent: the Hub's safetensors.total for google/gemma-3-1b-it, 999,885,952 (HF Hub API as
 * listed in a public audit script, KNOWN_MODELS table, 2026-09-25). */
static void gemma3_text_1b(void **s) {
    (void)s;
    assert_u64_equal(count("gemma-3-1b-it.json", "gemma3_text"), 999885952ULL);
}

/* gemma-3-4b-it (gemma3): the published config is sparse; Gemma3TextConfig defaults give a 8,
 * a_kv 4, d 256, v 262208 (configuration_gemma3.py).
 *   text: attention 2560·2048 + 2·2560·1024 + 2048·2560 = 15,728,640 + q/k norms 512; MLP 3·2560·10240 =
 *   78,643,200; norms 4·2560 = 10,240 -> 94,382,592 × 34 = 3,209,008,128; embed 262208·2560 =
 *   671,252,480; final 2,560 -> 3,880,263,168
 *   SigLIP (e 1152, f 4304, 27 layers, 896/14 = 64² = 4096 patches, no head): patch conv 3·14·14·1152 +
 *   1152 = 678,528; positions 4096·1152 = 4,718,592; per layer 2·1152 + 4·(1152² + 1152) + 2·1152 +
 *   (1152·4304 + 4304) + (4304·1152 + 1152) = 15,239,504 × 27 = 411,466,608; post_layernorm 2,304
 *   -> 416,866,032
 *   projector 1152·2560 + 1152 (mm_soft_emb_norm) = 2,950,272
 *   total 4,300,079,472 = the Hub's safetensors.total for google/gemma-3-4b-it (same table). */
static void gemma3_4b_vision(void **s) {
    (void)s;
    assert_u64_equal(count("gemma-3-4b-it.json", "gemma3"), 4300079472ULL);
}

/* medgemma-27b-it (gemma3, full text_config): text h 5376, L 62, a 32, a_kv 16, d 128, f 21504,
 * v 262208: per layer 66,060,288 + 256 + 346,816,512 + 21,504 = 412,898,560 × 62 = 25,599,710,720;
 * embed 1,409,630,208 + 5,376 -> 27,009,346,304; SigLIP 416,866,032; projector 1152·5376 + 1152 =
 * 6,194,304 -> 27,432,406,640 = model.safetensors.index.json total_size 54,864,813,280 / 2 (bf16;
 * its "total_parameters" 28,842,036,848 also counts the tied lm_head, 262208·5376 = 1,409,630,208). */
static void gemma3_27b(void **s) {
    (void)s;
    assert_u64_equal(count("medgemma-27b-it.json", "gemma3"), 27432406640ULL);
}

/* What a Gemma 3 block saves per token (activations_decoder.c with Gemma 3's flags), bf16 autocast
 * over fp32 weights, full fine-tune, flash attention, gemma-3-1b (h 1152, q 4·256 = 1024, kv 256,
 * f 6912):
 *   4 Gemma3RMSNorms in fp32: x.float() 4h + normalized fp32 4h + rsqrt 4, × 4 = 36,880
 *   q_norm/k_norm: fp32 q 4·1024 + fp32 k 4·256 + normalized q, k in bf16 2·1024 + 2·256 + rsqrt
 *     8·4 + 8·1 = 7,720
 *   q/k/v inputs cast by autocast 3 × 2h = 6,912
 *   flash: q 2048 + k 512 + v 512 + out 2048 + logsumexp 4·4 = 5,136
 *   gate/up inputs 2 × 2h = 4,608; GeGLU gate, act, up 3·2·6912 = 41,472; product 2·6912 = 13,824
 *   -> 116,552 B per token per block. */
static void gemma3_saved_per_block(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan1(TRAIN, t_hf_instance(config("gemma-3-1b-it.json"), "")));
    assert_int_equal(per_block_bytes(e), 116552);
}

/* ---- Qwen3-MoE ------------------------------------------------------------------------------ */
/* Qwen3-30B-A3B: h 2048, L 48, a 32, a_kv 4, d 128, 128 experts of 768, top-8, v 151936, untied.
 *   attention 2048·4096 + 2·2048·512 + 4096·2048 = 18,874,368 + q/k norms 256
 *   MoE: router 2048·128 = 262,144 + 128 × 3·2048·768 = 603,979,776; norms 4,096
 *   -> 623,120,640 × 48 = 29,909,790,720; embed + lm_head 2·151936·2048 = 622,329,856; + 2,048
 *   -> 30,532,122,624 = index total_size 61,064,245,248 / 2 (bf16), and the GGUF
 *   general.parameter_count of its conversions. */
static void qwen3_moe_30b(void **s) {
    (void)s;
    assert_u64_equal(count("qwen3-30b-a3b.json", "qwen3_moe"), 30532122624ULL);
}

/* The routed MLP saves per token what grouped_mm_experts_forward keeps (transformers 5.17
 * integrations/moe.py; core/src/activations_moe.c): under autocast the experts run in the fp32 master
 * weights' dtype (w = 4 B). Per token, for top-k with h = 2048, f = 768 (full fine-tune):
 *   router: int64 top-k indices 8k, top-k values + their sum 4k + 4; index backwards: 3 × 8k (int64)
 *   expert-sorted input w·h·k; gate_up_out 2·w·f·k; act(gate) w·f·k; act·up w·f·k; down output w·h·k;
 *   routing weights 4k  (the fp32 router softmax 4·E does not depend on k)
 *   -> per unit of k: 8 + 4 + 24 + 4·2048 + 2·4·768 + 4·768 + 4·768 + 4·2048 + 4 = 28,712 B.
 * Checked as the difference from the same model with num_experts_per_tok 1: 7 × 28,712 = 200,984 B.
 * SGD and a large batch keep the peak in backward, where the activations are listed. */
static void qwen3_moe_topk_terms(void **s) {
    (void)s;
    /* two layers, so the job fits and lists its activations (the per-block bytes do not depend on L) */
    const char *full = config("qwen3-30b-a3b.json");
    const char *l48 = strstr(full, "\"num_hidden_layers\": 48");
    assert_non_null(l48);
    const char *cfg = t_fmt("%.*s\"num_hidden_layers\": 2%s", (int)(l48 - full), full, l48 + strlen("\"num_hidden_layers\": 48"));
#define SGD_BIG "{\"batch\":4,\"seq\":4096}"
    const vp_estimate *e8 = t_estimate(t_plan1(SGD_BIG, t_hf_instance(cfg, "\"optimizer\":{\"name\":\"sgd\"}")));
    const char *k1 = strstr(cfg, "\"num_experts_per_tok\": 8");
    assert_non_null(k1);
    const char *cfg1 = t_fmt("%.*s\"num_experts_per_tok\": 1%s", (int)(k1 - cfg), cfg, k1 + strlen("\"num_experts_per_tok\": 8"));
    const vp_estimate *e1 = t_estimate(t_plan1(SGD_BIG, t_hf_instance(cfg1, "\"optimizer\":{\"name\":\"sgd\"}")));
    assert_int_equal(per_block_bytes(e8) - per_block_bytes(e1), 7 * 28712);
}

/* ---- gpt-oss -------------------------------------------------------------------------------- */
/* gpt-oss-20b: h 2880, L 24, a 64, a_kv 8, d 64, 32 experts of 2880, top-4, v 201088, untied.
 *   attention q 2880·4096 + 4096, k and v 2880·512 + 512 each, o 4096·2880 + 2880, sinks 64 = 26,550,144
 *   MLP router 2880·32 + 32 = 92,192; gate_up 32·2880·5760 + 32·5760 = 531,025,920; down 32·2880·2880 +
 *   32·2880 = 265,512,960 -> 796,631,072; norms 5,760 -> 823,186,976 × 24 = 19,756,487,424
 *   embed + lm_head 2·201088·2880 = 1,158,266,880; final 2,880 -> 20,914,757,184 = the Hub's
 *   safetensors.total for openai/gpt-oss-20b and the GGUF general.parameter_count (ollama show). */
static void gpt_oss_20b(void **s) {
    (void)s;
    assert_u64_equal(count("gpt-oss-20b.json", "gpt_oss"), 20914757184ULL);
}

/* MXFP4: in inference the experts stay 4-bit. Expert weights 24·32·3·2880·2880 = 19,110,297,600 at
 * 17/32 B = 10,152,345,600 B; the other 1,804,459,584 params at 2 B = 3,608,919,168 B; sum
 * 13,761,264,768 B = the checkpoint's model.safetensors.index.json total_size. Training dequantizes
 * (Mxfp4Config(dequantize=True)): 20,914,757,184 × 4 B fp32 master weights under autocast. */
static void gpt_oss_mxfp4_weights(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan1(INFER, t_hf_instance(config("gpt-oss-20b.json"), "")));
    assert_u64_equal(t_component(e, 0, "weights", NULL), 13761264768ULL);
    /* the explanation names the MXFP4 bytes, not "× 2 B bf16" for every parameter */
    const char *how = NULL;
    for (int i = 0; i < e->devices[0].n_components; i++)
        if (!strcmp(e->devices[0].components[i].id, "weights")) how = e->devices[0].components[i].explain;
    assert_non_null(how);
    assert_contains(how, "MXFP4 expert params × 17/32 B");
    assert_contains(how, "4.25 bits");
    e = t_estimate(t_plan1(TRAIN, t_hf_instance(config("gpt-oss-20b.json"), "")));
    assert_u64_equal(t_component(e, 0, "weights", NULL), 20914757184ULL * 4);
}

/* ---- GPT-NeoX, BLOOM, Qwen v1, Granite-MoE -------------------------------------------------- */
/* GPT-NeoX-20B: per layer 12h² + 13h with h 6144 = 453,064,704 × 44 = 19,934,846,976; embed_in +
 * embed_out 2·50432·6144 = 619,708,416; final LayerNorm 12,288 -> 20,554,567,680, the n_parameters of
 * the GPT-NeoX-20B model card's hyperparameter table. */
static void gpt_neox_20b(void **s) {
    (void)s;
    assert_u64_equal(count("gpt-neox-20b.json", "gpt_neox"), 20554567680ULL);
}

/* BLOOM-176B: per block 12h² + 13h with h 14336 = 2,466,437,120 × 70 = 172,650,598,400; word
 * embeddings 250880·14336 = 3,596,615,680 (tied) + word_embeddings_layernorm 28,672 + ln_f 28,672
 * -> 176,247,271,424 = model.safetensors.index.json total_size 352,494,542,848 / 2. */
static void bloom_176b(void **s) {
    (void)s;
    assert_u64_equal(count("bloom-176b.json", "bloom"), 176247271424ULL);
}

/* Qwen-7B (v1): c_attn 4096·12288 + 12288, c_proj 4096² (no_bias) = 67,121,152; MLP w1, w2, c_proj at
 * 22016/2 = 11008: 3·4096·11008 = 135,266,304; RMSNorms 8,192 -> 202,395,648 × 32 = 6,476,660,736;
 * wte + lm_head 2·151936·4096 = 1,244,659,712; ln_f 4,096 -> 7,721,324,544 = index total_size
 * 15,442,649,088 / 2 (fp16). */
static void qwen_v1_7b(void **s) {
    (void)s;
    assert_u64_equal(count("qwen-7b-chat.json", "qwen"), 7721324544ULL);
}

/* granite-3.1-1b-a400m-instruct: attention 2·1024² + 2·1024·512 = 3,145,728; MoE router 1024·32 +
 * input_linear 32·1024·1024 + output_linear 32·1024·512 = 50,364,416; norms 2,048 -> 53,512,192 × 24 =
 * 1,284,292,608; embed (tied) 49155·1024 = 50,334,720; final 1,024 -> 1,334,628,352 = index total_size
 * 5,338,513,408 / 4 (fp32). */
static void granitemoe_1b(void **s) {
    (void)s;
    assert_u64_equal(count("granite-3.1-1b-a400m-instruct.json", "granitemoe"), 1334628352ULL);
}

/* ---- Granite, OLMo 2, SmolLM3, Falcon -------------------------------------------------------- */
/* granite-3.3-2b-instruct: attention 2·2048² + 2·2048·512 = 10,485,760; MLP 3·2048·8192 = 50,331,648;
 * norms 4,096 -> 60,821,504 × 40 = 2,432,860,160; embed (tied) 49159·2048 = 100,677,632; final 2,048
 * -> 2,533,539,840 = the Hub's safetensors.total for ibm-granite/granite-3.3-2b-instruct (audit table). */
static void granite_33_2b(void **s) {
    (void)s;
    assert_u64_equal(count("granite-3.3-2b-instruct.json", "granite"), 2533539840ULL);
}

/* OLMo-2-1124-7B: attention 4·4096² = 67,108,864; q_norm and k_norm span the whole projections,
 * 4096 + 4096 = 8,192 (a per-head norm would be 2·128 = 256); MLP 3·4096·11008 = 135,266,304; two
 * post-norms 8,192 -> 202,391,552 × 32 = 6,476,529,664; embed + lm_head 2·100352·4096 = 822,083,584;
 * final 4,096 -> 7,298,617,344 = safetensors.total of allenai/OLMo-2-1124-7B (HF API, 2026-10-01,
 * listed in a public scaling-law script). */
static void olmo2_7b(void **s) {
    (void)s;
    assert_u64_equal(count("olmo-2-1124-7b.json", "olmo2"), 7298617344ULL);
}

/* SmolLM3-3B: attention 2·2048² + 2·2048·512 = 10,485,760; MLP 3·2048·11008 = 67,633,152; norms 4,096
 * -> 78,123,008 × 36 = 2,812,428,288; embed (tied) 128256·2048 = 262,668,288; final 2,048 ->
 * 3,075,098,624 = safetensors.total of HuggingFaceTB/SmolLM3-3B (both tables above). */
static void smollm3_3b(void **s) {
    (void)s;
    assert_u64_equal(count("smollm3-3b.json", "smollm3"), 3075098624ULL);
}

/* Falcon-7B (multi_query, parallel_attn, no biases): query_key_value 4544·(4544 + 2·64) = 21,229,568;
 * dense 4544² = 20,647,936; MLP 2·4544·18176 = 165,183,488; one LayerNorm (parallel_attn) 9,088
 * -> 207,070,080 × 32 = 6,626,242,560; word embeddings (tied) 65024·4544 = 295,469,056; ln_f 9,088
 * -> 6,921,720,704. No exact published figure was at hand offline: this is the hand count of
 * modeling_falcon.py's modules. The KV cache is multi-query: one K and one V head of 64 per layer,
 * 2·64·2 B = 256 B per token per layer in bf16 inference (1024 prompt tokens + 1: 1025·256·32 B). */
static void falcon_7b(void **s) {
    (void)s;
    assert_u64_equal(count("falcon-7b.json", "falcon"), 6921720704ULL);
    const vp_estimate *e = t_estimate(t_plan1(INFER, t_hf_instance(config("falcon-7b.json"), "")));
    uint64_t kv = t_component(e, 0, "kv_cache", NULL);
    assert_true(kv >= 1024ULL * 256 * 32 && kv <= 1025ULL * 256 * 32);
}

/* ---- DeepSeek (MLA + shared/routed experts) --------------------------------------------------- */
/* DeepSeek-V3 (and R1, same config): h 7168, 61 layers, 128 heads, q_lora 1536, kv_lora 512,
 * nope 128 + rope 64, v 128; 3 dense layers (f 18432) then 58 MoE layers (256 routed + 1 shared of
 * 2048, top-8); v 129280, untied.
 *   MLA: q_a 7168·1536 + q_a_norm 1536 + q_b 1536·128·192 = 48,760,320; kv_a 7168·576 + kv_a_norm 512 +
 *   kv_b 512·128·256 = 20,906,496; o 128·128·7168 = 117,440,512 -> 187,107,328; norms 14,336
 *   dense MLP 3·7168·18432 = 396,361,728; MoE: gate 256·7168 + e_score_correction_bias 256 = 1,835,264,
 *   routed 256·3·7168·2048 = 11,274,289,152, shared 3·7168·2048 = 44,040,192 -> 11,320,164,608
 *   3·(187,107,328 + 14,336 + 396,361,728) + 58·(187,107,328 + 14,336 + 11,320,164,608) = 669,173,053,952
 *   + embed and lm_head 2·129280·7168 = 1,853,358,080 + final norm 7,168 -> 671,026,419,200, the main
 *   model's parameter elements counted tensor by tensor from the checkpoint headers (FP8 scale_inv
 *   tensors and the MTP layer 61 excluded) by two public audits.
 * The MTP layer (num_nextn_predict_layers 1) is not built by transformers and is not counted. */
static void deepseek_v3(void **s) {
    (void)s;
    assert_u64_equal(count("deepseek-v3.json", "deepseek_v3"), 671026419200ULL);
}

/* DeepSeek-V2-Lite: no q LoRA (q_proj 2048·16·192 = 6,291,456), kv_a 2048·576 + 512 + kv_b
 * 512·16·256 + o 16·128·2048 = 7,474,688 -> 13,766,144 attention; layer 0 dense (f 10944:
 * 67,239,936); 26 MoE layers: gate 64·2048 (greedy: no score bias) + 64 experts and 2 shared of 1408:
 * 66·3·2048·1408 = 570,949,632 + 131,072; norms 4,096. Total 15,706,484,224, the published exact count
 * ("with 15706484224 (2.7B effect.) parameters" and a model-registry table of deepseek-ai/DeepSeek-V2-Lite).
 * KV cache as transformers keeps it (decompressed): 16 heads × (192 + 128) × 2 B = 10,240 B per token
 * per layer: 1024 prompt tokens × 10,240 × 27 layers = 283,115,520 B (the one generated token adds
 * at most one more position). */
static void deepseek_v2_lite(void **s) {
    (void)s;
    assert_u64_equal(count("deepseek-v2-lite.json", "deepseek_v2"), 15706484224ULL);
    const vp_estimate *e = t_estimate(t_plan1(INFER, t_hf_instance(config("deepseek-v2-lite.json"), "")));
    uint64_t kv = t_component(e, 0, "kv_cache", NULL);
    assert_true(kv >= 283115520ULL && kv <= 1025ULL * 10240 * 27);
}

/* ---- InternLM2, Cohere, GLM-4, Phi-3.5-MoE, StarCoder2 --------------------------------------- */
/* The Hub's safetensors parameter counts below are those of a public benchmark's model table
 * (HfApi.get_safetensors_metadata, "BF16" count).
 * internlm2_5-7b-chat: wqkv 4096·(32 + 2·8)·128 = 25,165,824, wo 4096² = 16,777,216; w1/w3/w2
 * 3·4096·14336 = 176,160,768; norms 8,192 -> 218,112,000 × 32 = 6,979,584,000; tok_embeddings + output
 * 2·92544·4096 = 758,120,448; norm 4,096 -> 7,737,708,544 (the table: 7737708544). */
static void internlm2_5_7b(void **s) {
    (void)s;
    assert_u64_equal(count("internlm2_5-7b-chat.json", "internlm2"), 7737708544ULL);
}

/* aya-expanse-8b (cohere): attention 2·4096² + 2·4096·1024 = 41,943,040; MLP 3·4096·14336 =
 * 176,160,768; one CohereLayerNorm(h) without bias 4,096 -> 218,107,904 × 32 = 6,979,452,928; tied
 * embed 256000·4096 = 1,048,576,000; final norm 4,096 -> 8,028,033,024 (the table: 8028033024).
 * A LayerNorm with a bias would add 4,096 per layer and at the end (+135,168): the count pins
 * CohereLayerNorm's missing bias. c4ai-command-r7b-12-2024 (cohere2) has the same shapes and count. */
static void cohere_aya_8b(void **s) {
    (void)s;
    assert_u64_equal(count("aya-expanse-8b.json", "cohere"), 8028033024ULL);
    assert_u64_equal(count("c4ai-command-r7b-12-2024.json", "cohere2"), 8028033024ULL);
}

/* GLM-4-9B-0414: q 4096·4096 + 4096, k and v 4096·256 + 256 each (attention_bias), o 4096² (no bias)
 * = 35,655,680; gate_up 4096·27392 + down 13696·4096 = 168,296,448; four RMSNorms 16,384 -> 203,968,512
 * × 40 = 8,158,740,480; embed + output 2·151552·4096 = 1,241,513,984; final 4,096 -> 9,400,279,040 =
 * the n-params llama.cpp reports for GLM-4-9B (n-vocab 151552, n-embd 4096). */
static void glm4_9b(void **s) {
    (void)s;
    assert_u64_equal(count("glm-4-9b-0414.json", "glm4"), 9400279040ULL);
}

/* Phi-3.5-MoE: attention with biases 2·(4096² + 4096) + 2·(4096·1024 + 1024) = 41,953,280; router
 * 4096·16 + 16 experts × 3·4096·6400 = 1,258,356,736; two LayerNorms with bias 16,384 -> 1,300,326,400 ×
 * 32 = 41,610,444,800; embed 131,334,144 + lm_head 131,334,144 + its bias 32,064; final LayerNorm 8,192
 * -> 41,873,153,344. No exact published figure was at hand offline (model card: 41.9B total): a hand
 * count of modeling_phimoe.py's modules. */
static void phimoe_moe(void **s) {
    (void)s;
    assert_u64_equal(count("phi-3.5-moe-instruct.json", "phimoe"), 41873153344ULL);
}

/* StarCoder2-7B: q 4608² + 4608, k and v 4608·512 + 512 each, o 4608² + 4608 = 47,199,744; c_fc
 * 4608·18432 + 18432 and c_proj 18432·4608 + 4608 = 169,893,888; two LayerNorms 18,432 -> 217,112,064 ×
 * 32 = 6,947,586,048; tied embed 49152·4608 = 226,492,416; final 9,216 -> 7,173,923,840 (hand count;
 * model card: 7B). Its config sets residual, embedding and attention dropout 0.1, so training keeps
 * dropout masks: two residual masks of h bytes per token per block (activations_decoder.c). */
static void starcoder2_7b(void **s) {
    (void)s;
    assert_u64_equal(count("starcoder2-7b.json", "starcoder2"), 7173923840ULL);
}

/* ---- vision-language: llava, qwen2_5_vl, mistral3 ------------------------------------------- */
/* llava-1.5-7b-hf: the sparse text_config takes LlamaConfig's defaults (h 4096, f 11008, 32 layers,
 * 32 heads) with vocab 32064: Llama-2-7B's 6,738,415,616 + 2·64·4096 = 6,738,939,904.
 * CLIP ViT-L/14 at 336 (e 1024, f 4096, 24 layers, 24² = 576 patches): class 1,024 + patch conv
 * 3·14·14·1024 = 602,112 + positions 577·1024 = 590,848 + pre_layrnorm 2,048 + 24 × 12,596,224 =
 * 302,309,376 + post_layernorm 2,048 = 303,507,456. Projector 1024·4096 + 4096 + 4096² + 4096 =
 * 20,979,712. Total 7,063,427,072 = sum(p.numel()) of LlavaForConditionalGeneration for this config in
 * two public scripts. */
static void llava_15_7b(void **s) {
    (void)s;
    assert_u64_equal(count("llava-1.5-7b-hf.json", "llava"), 7063427072ULL);
}

/* Qwen2.5-VL-7B: the Qwen2 text model 7,615,616,512 + the vision tower 676,550,144: patch Conv3d
 * 3·2·14·14·1280 = 1,505,280; 32 blocks × (2 RMSNorms 2,560 + qkv 1280·3840 + 3840 = 4,919,040 + proj
 * 1280² + 1280 = 1,639,680 + gate/up 2·(1280·3420 + 3420) = 8,762,040 + down 3420·1280 + 1280 = 4,378,880)
 * = 32 × 19,702,200 = 630,470,400; merger ln_q 1,280 + 5120² + 5120 + 5120·3584 + 3584 = 44,574,464. Total 8,292,166,656 = the parameter count several public runs print
 * for Qwen/Qwen2.5-VL-7B-Instruct (one also prints visual = 676,550,144 and text = 7,615,616,512). */
static void qwen2_5_vl_7b(void **s) {
    (void)s;
    assert_u64_equal(count("qwen2.5-vl-7b-instruct.json", "qwen2_5_vl"), 8292166656ULL);
    const char *text_only = "{\"model_type\":\"qwen2\",\"hidden_size\":3584,\"intermediate_size\":18944,\"num_hidden_layers\":28,"
                            "\"num_attention_heads\":28,\"num_key_value_heads\":4,\"vocab_size\":152064,\"tie_word_embeddings\":false}";
    assert_u64_equal(count("qwen2.5-vl-7b-instruct.json", "qwen2_5_vl") - count_cfg(text_only), 676550144ULL);
}

/* Mistral-Small-3.1-24B-Instruct-2503 (mistral3): text h 5120, 40 layers, 32 heads of 128, 8 kv, f 32768,
 * v 131072, untied -> 23,572,403,200 (the Mistral Small 3 count); Pixtral tower (e 1024, f 4096, 24
 * layers, patch 14): 3·14·14·1024 = 602,112 + ln_pre 1,024 + 24 × (2·1024 + 4·1024² + 3·1024·4096) =
 * 402,702,336 -> 403,305,472; projector norm 1,024 + merging 4096·1024 + 1024·5120 + 5120² = 35,652,608
 * (no biases). Total 24,011,361,280 =
 * the published total of Mistral-Small-3.1/3.2-24B (model registries and budget audits). */
static void mistral3_24b(void **s) {
    (void)s;
    assert_u64_equal(count("mistral-small-3.1-24b-instruct-2503.json", "mistral3"), 24011361280ULL);
}

/* ---- BERT, RoBERTa ---------------------------------------------------------------------------- */
/* bert-base-uncased as BertForMaskedLM (its architectures[0], what AutoModelForMaskedLM builds):
 *   embeddings 30522·768 + 512·768 + 2·768 + LayerNorm 1,536 = 23,837,184
 *   12 layers × (4·(768² + 768) + 2·1,536 + 768·3072 + 3072 + 3072·768 + 768) = 12 × 7,087,872 = 85,054,464
 *   MLM head: transform 768² + 768 + LayerNorm 1,536 + decoder bias 30,522 (weight tied) = 622,650
 *   -> 109,514,298 = "AutoModelForMaskedLM.from_pretrained('bert-base-uncased') ... trainable_params:
 *   109514298" (a public benchmark log). The checkpoint also holds the pooler (590,592) and the NSP head
 *   (1,538) that BertForMaskedLM drops: BertForPreTraining counts 110,106,428, the checkpoint's
 *   safetensors total (huggingface.js tests), and BertModel (with pooler) 109,482,240. */
static void bert_base(void **s) {
    (void)s;
    assert_u64_equal(count("bert-base-uncased.json", "bert"), 109514298ULL);
    const char *cfg = config("bert-base-uncased.json");
    const char *at = strstr(cfg, "BertForMaskedLM");
    assert_non_null(at);
    assert_u64_equal(count_cfg(t_fmt("%.*sBertForPreTraining%s", (int)(at - cfg), cfg, at + strlen("BertForMaskedLM"))),
                     110106428ULL);
    assert_u64_equal(count_cfg(t_fmt("%.*sBertModel%s", (int)(at - cfg), cfg, at + strlen("BertForMaskedLM"))), 109482240ULL);
}

/* roberta-base (RobertaForMaskedLM): embeddings 50265·768 + 514·768 + 1·768 + 1,536 = 39,000,576;
 * layers 85,054,464 as BERT's; lm_head dense 590,592 + LayerNorm 1,536 + bias 50,265 -> 124,697,433 = the
 * F32 count of roberta-base's model.safetensors (plus a 514-element int64 position_ids buffer, not a
 * parameter). xlm-roberta-base (v 250002) counts 278,295,186: its checkpoint's 278,885,778
 * (safetensors.total) adds the 590,592-parameter pooler that XLMRobertaForMaskedLM does not build. */
static void roberta_base(void **s) {
    (void)s;
    assert_u64_equal(count("roberta-base.json", "roberta"), 124697433ULL);
    assert_u64_equal(count("xlm-roberta-base.json", "xlm-roberta"), 278885778ULL - 590592ULL);
}

/* ---- Llama 4 ---------------------------------------------------------------------------------- */
/* Llama-4-Scout-17B-16E-Instruct: text h 5120, 48 layers all MoE (interleave_moe_layer_step 1), 40 heads,
 * 8 kv, d 128, 16 experts of 8192 + a shared expert of 8192, top-1, v 202048, untied:
 *   attention 2·5120² + 2·5120·1024 = 62,914,560; router 5120·16 = 81,920; experts 16·3·5120·8192 =
 *   2,013,265,920; shared 3·5120·8192 = 125,829,120; norms 10,240 -> 2,202,101,760 × 48 = 105,700,884,480;
 *   embed + lm_head 2·202048·5120 = 2,068,971,520; final 5,120 -> text 107,769,861,120
 *   vision (e 1408, f 5632, 34 layers, 336/14 = 24² patches): unfold linear 588·1408 = 827,904 + class
 *   1,408 + positions 577·1408 = 812,416 + layernorm_pre/post 5,632 + 34 × 23,807,872 = 809,467,648 +
 *   adapter 5632·4096 + 4096² = 39,845,888 -> 850,960,896; projector 4096·5120 = 20,971,520
 *   total 108,641,793,536 = the Hub's safetensors.total for meta-llama/Llama-4-Scout-17B-16E-Instruct
 *   (audit table). Maverick (128 experts, every second layer MoE, the rest 3·5120·16384 dense) counts
 *   401,583,781,376, the parameter count a hosting provider's billing export lists for it. */
static void llama4_scout(void **s) {
    (void)s;
    assert_u64_equal(count("llama-4-scout-17b-16e-instruct.json", "llama4"), 108641793536ULL);
    const char *cfg = config("llama-4-scout-17b-16e-instruct.json");
    const char *st = strstr(cfg, "\"interleave_moe_layer_step\": 1");
    const char *ex = strstr(cfg, "\"num_local_experts\": 16");
    assert_true(st && ex && st < ex);
    const char *mav = t_fmt("%.*s\"interleave_moe_layer_step\": 2%.*s\"num_local_experts\": 128%s", (int)(st - cfg), cfg,
                            (int)(ex - st - (int)strlen("\"interleave_moe_layer_step\": 1")), st + strlen("\"interleave_moe_layer_step\": 1"),
                            ex + strlen("\"num_local_experts\": 16"));
    assert_u64_equal(count_cfg(mav), 401583781376ULL);
}

/* Untrusted shapes: sizes whose products would overflow are refused by name, and vision-language
 * wrappers nested in text_config are refused instead of recursed into. */
static void hostile_configs_refused(void **s) {
    (void)s;
    t_expect_error(t_plan1(COUNT_WL, t_hf_instance("{\"model_type\":\"gpt_oss\",\"quantization_config\":{\"quant_method\":"
                                                   "\"mxfp4\"},\"num_hidden_layers\":4096,\"num_local_experts\":4096,"
                                                   "\"intermediate_size\":1048576,\"hidden_size\":1048576}", "")),
                   VP_ERR_RANGE, "instances[0].model");
    t_expect_error(t_plan1(COUNT_WL, t_hf_instance("{\"model_type\":\"qwen2_vl\",\"hidden_size\":64,\"num_hidden_layers\":1,"
                                                   "\"num_attention_heads\":1,\"vocab_size\":9,\"intermediate_size\":4,"
                                                   "\"vision_config\":{\"embed_dim\":1048576,\"spatial_merge_size\":64}}", "")),
                   VP_ERR_RANGE, "instances[0].model.hf_config.vision_config.embed_dim");
    t_expect_error(t_plan1(COUNT_WL, t_hf_instance("{\"model_type\":\"llava\",\"text_config\":{\"model_type\":\"llava\","
                                                   "\"text_config\":{}},\"vision_config\":{}}", "")),
                   VP_ERR_UNSUPPORTED, "instances[0].model.hf_config.text_config");
    t_expect_error(t_plan1(COUNT_WL, t_hf_instance("{\"model_type\":\"gemma3\",\"text_config\":[]}", "")), VP_ERR_FIELD,
                   "instances[0].model.hf_config.text_config");
}

/* ---- CLIP, SigLIP ----------------------------------------------------------------------------- */
/* clip-vit-large-patch14: text (h 768, 12 layers, v 49408, 77 positions) 37,945,344 + 59,136 +
 * 12 × 7,087,872 + 1,536 = 123,060,480; vision ViT-L/14 at 224 (256 patches): 1,024 + 602,112 +
 * 257·1024 + 2,048 + 24 × 12,596,224 + 2,048 = 303,179,776; projections 1024·768 + 768·768 = 1,376,256;
 * logit_scale 1 -> 427,616,513 = the n_parameters of openai/clip-vit-large-patch14 in public model
 * registries (MTEB model meta, keras-hub presets).
 * siglip-base-patch16-224 (the official config is empty: SiglipTextConfig/SiglipVisionConfig
 * defaults): text 32000·768 + 64·768 + 85,054,464 + 1,536 + head 768² + 768 = 110,271,744; vision patch
 * conv 590,592 + positions 196·768 + 85,054,464 + 1,536 + pooling head 7,087,104 = 92,884,224;
 * logit_scale and logit_bias 2 -> 203,155,970 (MTEB model meta n_parameters). */
static void clip_siglip(void **s) {
    (void)s;
    assert_u64_equal(count("clip-vit-large-patch14.json", "clip"), 427616513ULL);
    assert_u64_equal(count("siglip-base-patch16-224.json", "siglip"), 203155970ULL);
}

/* ---- Whisper ---------------------------------------------------------------------------------- */
/* whisper-large-v3: d 1280, 32 + 32 layers, ffn 5120, 128 mel bins, v 51866.
 *   encoder: conv1 128·1280·3 + 1280 = 492,800; conv2 1280·1280·3 + 1280 = 4,916,480; positions
 *   1500·1280 = 1,920,000; per layer attention 4·1280² + 3·1280 (k_proj has no bias) = 6,557,440 + 2
 *   LayerNorms 5,120 + fc1/fc2 1280·5120 + 5120 + 5120·1280 + 1280 = 13,113,600 -> 19,676,160 × 32 =
 *   629,637,120; layer_norm 2,560
 *   decoder: embed_tokens 51866·1280 = 66,388,480 (proj_out tied) + positions 448·1280 = 573,440; per
 *   layer 2 × 6,557,440 + 3 LayerNorms 7,680 + 13,113,600 = 26,236,160 × 32 = 839,557,120; layer_norm 2,560
 *   -> 1,543,490,560 = the Hub's safetensors.total for openai/whisper-large-v3; with 4 decoder layers
 *   (large-v3-turbo) 808,878,080, also the Hub's figure (audit table). */
static void whisper_large_v3(void **s) {
    (void)s;
    assert_u64_equal(count("whisper-large-v3.json", "whisper"), 1543490560ULL);
    const char *cfg = config("whisper-large-v3.json");
    const char *dl = strstr(cfg, "\"decoder_layers\": 32");
    assert_non_null(dl);
    assert_u64_equal(count_cfg(t_fmt("%.*s\"decoder_layers\": 4%s", (int)(dl - cfg), cfg, dl + strlen("\"decoder_layers\": 32"))),
                     808878080ULL);
}

/* ---- DeBERTa-v3 --------------------------------------------------------------------------------- */
/* deberta-v3-base (DebertaV2Model): word embeddings 128100·768 = 98,380,800 + LayerNorm 1,536 (no
 * absolute positions: position_biased_input false; no token types); rel_embeddings 2·256·768 =
 * 393,216 + LayerNorm 1,536; 12 layers × 7,087,872 = 85,054,464 -> 183,831,552 = the published
 * count of microsoft/deberta-v3-base (keras-hub presets "params": 183831552). */
static void deberta_v3_base(void **s) {
    (void)s;
    assert_u64_equal(count("deberta-v3-base.json", "deberta-v2"), 183831552ULL);
}

/* Encoders in inference (core/src/timeline_infer.c, events_infer.c): one forward, no KV cache, no
 * rotary tables, no decode. bert-base-uncased (BertForMaskedLM: the MLM head scores every token),
 * bf16, batch 32 × 512 tokens = 16,384 tokens:
 *   head moment: the encoder output 16,384 × 768 × 2 B + the head's transform (dense, GELU,
 *   LayerNorm) 16,384 × 768 × 2 B + the logits 16,384 × 30,522 × 2 B = 16,384 × 32,058 × 2
 *   = 1,050,476,544 B (modeling_bert.py BertOnlyMLMHead / BertLMPredictionHead);
 *   the embedding output stays referenced through the encoder call: 16,384 × 768 × 2 = 25,165,824 B;
 *   weights 109,514,298 × 2 = 219,028,596 B; cuBLAS workspace 33,554,432 B
 *   -> peak allocated 219,028,596 + 33,554,432 + 25,165,824 + 1,050,476,544 = 1,328,225,396 B. */
static void bert_encoder_inference(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan1("{\"mode\":\"infer\",\"batch\":32,\"seq\":512}",
                                              t_hf_instance(config("bert-base-uncased.json"), NULL)));
    assert_int_equal(t_component(e, 0, "kv_cache", NULL), 0);
    assert_int_equal(t_component(e, 0, "logits", NULL), 1050476544);
    assert_int_equal(t_component(e, 0, "prefill_inputs", NULL), 25165824);
    assert_int_equal(e->devices[0].peak_alloc_bytes, 1328225396ULL);
}

int main(int argc, char **argv) {
    if (argc > 2) g_dir = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemma3_text_1b),     cmocka_unit_test(gemma3_4b_vision),     cmocka_unit_test(gemma3_27b),
        cmocka_unit_test(gemma3_saved_per_block), cmocka_unit_test(qwen3_moe_30b),    cmocka_unit_test(qwen3_moe_topk_terms),
        cmocka_unit_test(gpt_oss_20b),        cmocka_unit_test(gpt_oss_mxfp4_weights), cmocka_unit_test(gpt_neox_20b),
        cmocka_unit_test(bloom_176b),         cmocka_unit_test(qwen_v1_7b),           cmocka_unit_test(granitemoe_1b),
        cmocka_unit_test(granite_33_2b),      cmocka_unit_test(olmo2_7b),             cmocka_unit_test(smollm3_3b),
        cmocka_unit_test(falcon_7b),          cmocka_unit_test(deepseek_v3),          cmocka_unit_test(deepseek_v2_lite),
        cmocka_unit_test(internlm2_5_7b),     cmocka_unit_test(cohere_aya_8b),        cmocka_unit_test(glm4_9b),
        cmocka_unit_test(phimoe_moe),         cmocka_unit_test(starcoder2_7b),
        cmocka_unit_test(llava_15_7b),        cmocka_unit_test(qwen2_5_vl_7b),        cmocka_unit_test(mistral3_24b),
        cmocka_unit_test(bert_base),          cmocka_unit_test(roberta_base),         cmocka_unit_test(llama4_scout),
        cmocka_unit_test(hostile_configs_refused), cmocka_unit_test(clip_siglip),
        cmocka_unit_test(whisper_large_v3),   cmocka_unit_test(deberta_v3_base),
        cmocka_unit_test(bert_encoder_inference),
    };
    return T_RUN("families", tests, argc, argv);
}
