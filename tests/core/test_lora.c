/* test_lora.c: LoRA adapter parameters and their memory (core/src/lora.c, weights.c).
 *
 * PEFT LoraLayer.update_layer: lora_A = Linear(in, r, bias=False), lora_B = Linear(r, out), so one
 * adapted Linear adds r·(in + out) parameters (memory-facts.md §4.1). Expected totals are the ones
 * of the §4.1 table and its check values. PEFT upcasts adapters to fp32 by default, so a LoRA
 * parameter costs 4 B of weight, 4 B of gradient and 8 B of AdamW state (16 B). */
#include <stdio.h>
#include <string.h>

#include "vp_test.h"

#define WL "{\"batch\":1,\"seq\":128}"
#define ALL7 "[\"q_proj\",\"k_proj\",\"v_proj\",\"o_proj\",\"gate_proj\",\"up_proj\",\"down_proj\"]"

static const cJSON *lora(const char *cfg, int r, const char *targets, const char *extra) {
    return t_estimate_json(t_plan1(
        WL, t_hf_instance(cfg, t_fmt("\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":%d,\"targets\":%s}}%s", r, targets,
                                     extra ? extra : ""))));
}

static uint64_t trainable(const char *cfg, int r, const char *targets) {
    return t_json_params_trainable(lora(cfg, r, targets, NULL), 0);
}

/* Llama-3.1-8B, r = 16, all 7 projections: per layer q 8192r + k 5120r + v 5120r + o 8192r
 * + gate, up, down 18432r each = 81920r = 1,310,720; × 32 layers = 41,943,040
 * (PEFT: "trainable params: 41,943,040 || all params: 8,072,204,288"). */
static void llama31_8b_r16_all(void **s) {
    (void)s;
    assert_u64_equal(trainable(CFG_LLAMA31_8B, 16, ALL7), 41943040ULL);
    /* "all-linear" is the same set (PEFT excludes the output head) */
    assert_u64_equal(trainable(CFG_LLAMA31_8B, 16, "[\"all-linear\"]"), 41943040ULL);
    /* the base model is unchanged */
    assert_u64_equal(t_json_params_total(lora(CFG_LLAMA31_8B, 16, ALL7, NULL), 0), 8030261248ULL);
}

/* Llama-2-7B, r = 8 on q and v: 2 × 8 × (4096 + 4096) × 32 = 4,194,304 (§4.1 check value). */
static void llama2_7b_r8_qv(void **s) {
    (void)s;
    assert_u64_equal(trainable(CFG_LLAMA2_7B, 8, "[\"q_proj\",\"v_proj\"]"), 4194304ULL);
}

/* Llama-2-7B, r = 16, all 7: (4 × 8192 + 3 × 15104) × 16 = 78080 × 16 = 1,249,280 per layer × 32
 * = 39,976,960. */
static void llama2_7b_r16_all(void **s) {
    (void)s;
    assert_u64_equal(trainable(CFG_LLAMA2_7B, 16, ALL7), 39976960ULL);
}

/* Qwen2.5-7B, r = 16, all 7: (7168 + 4096 + 4096 + 7168 + 3 × 22528) × 16 = 90112 × 16 = 1,441,792
 * per layer × 28 = 40,370,176. */
static void qwen25_7b_r16_all(void **s) {
    (void)s;
    assert_u64_equal(trainable(CFG_QWEN25_7B, 16, ALL7), 40370176ULL);
}

/* Llama-3.1-70B, r = 16, all 7: 161792 × 16 × 80 = 207,093,760. */
static void llama31_70b_r16_all(void **s) {
    (void)s;
    assert_u64_equal(trainable(CFG_LLAMA31_70B, 16, ALL7), 207093760ULL);
}

/* Mistral-7B has the layer shapes of Llama-3.1-8B: 41,943,040 at r = 16 on all 7 (§4.1 table). */
static void mistral_7b_r16_all(void **s) {
    (void)s;
    assert_u64_equal(trainable(CFG_MISTRAL_7B, 16, ALL7), 41943040ULL);
}

/* Phi-3-mini fuses q, k, v and gate, up (§4.1: "Phi-3 uses fused qkv_proj (out = 3h = 9216) and
 * gate_up_proj (out = 2f)"): qkv_proj r(3072 + 9216) + o_proj r(3072 + 3072) + gate_up_proj
 * r(3072 + 16384) + down_proj r(8192 + 3072) = 49152r; r = 16 × 32 layers = 25,165,824. */
static void phi3_fused(void **s) {
    (void)s;
    assert_u64_equal(trainable(CFG_PHI3_MINI, 16, "[\"qkv_proj\",\"o_proj\",\"gate_up_proj\",\"down_proj\"]"), 25165824ULL);
}

/* Rank scales linearly: r = 64 on Llama-3.1-8B all 7 = 4 × 41,943,040. */
static void rank_is_linear(void **s) {
    (void)s;
    assert_u64_equal(trainable(CFG_LLAMA31_8B, 64, ALL7), 4 * 41943040ULL);
    assert_u64_equal(trainable(CFG_LLAMA31_8B, 1, ALL7), 41943040ULL / 16);
}

/* Memory of the adapters, at the peak of a LoRA step (bf16 base so the base is 2 B/param):
 * adapters 4 B × 41,943,040 = 167,772,160 (fp32); AdamW state 8 B × 41,943,040 = 335,544,320;
 * the frozen base has no gradient and no optimizer state. */
static void adapter_bytes(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan1(
        WL, t_hf_instance(CFG_LLAMA31_8B, "\"precision\":\"bf16\",\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16,"
                                          "\"targets\":" ALL7 "}}")));
    assert_u64_equal(t_component(e, 0, "adapters", NULL), 4 * 41943040ULL);
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 8 * 41943040ULL);
    assert_u64_equal(t_component(e, 0, "weights", NULL), 2 * 8030261248ULL);
    /* gradients of the adapters only (fp32): at most 4 B × 41,943,040 at any moment */
    assert_true(t_component(e, 0, "grads", NULL) <= 4 * 41943040ULL);
    /* with dtype bf16 adapters cost 2 B */
    e = t_estimate(t_plan1(WL, t_hf_instance(CFG_LLAMA31_8B, "\"precision\":\"bf16\",\"finetune\":{\"method\":\"lora\","
                                                             "\"lora\":{\"r\":16,\"dtype\":\"bf16\",\"targets\":" ALL7 "}}")));
    assert_u64_equal(t_component(e, 0, "adapters", NULL), 2 * 41943040ULL);
}

/* Bottleneck adapters (finetune.method adapter, dim r): Linear(h, r) + Linear(r, h) with biases per
 * block: GPT-2, r = 64: 768·64 + 64 + 64·768 + 768 = 99,136 × 12 blocks = 1,189,632. */
static void bottleneck_adapter(void **s) {
    (void)s;
    const cJSON *e = t_estimate_json(
        t_plan1(WL, t_hf_instance(CFG_GPT2, "\"finetune\":{\"method\":\"adapter\",\"adapter\":{\"dim\":64}}")));
    assert_u64_equal(t_json_params_trainable(e, 0), 1189632ULL);
}

/* LoRA activations: a frozen base Linear saves nothing, but PEFT saves an fp32 copy of each adapted
 * module's input (fp32 adapters on a bf16 model), so LoRA on all 7 modules keeps more activations
 * than LoRA on q, v only (memory-facts §1.4: 72.1·sbh vs the q,v case). */
static void more_targets_more_activations(void **s) {
    (void)s;
    const char *two = t_plan1(WL, t_hf_instance(CFG_LLAMA31_8B, "\"precision\":\"bf16\",\"finetune\":{\"method\":\"lora\","
                                                               "\"lora\":{\"r\":16,\"targets\":[\"q_proj\",\"v_proj\"]}}"));
    const char *seven = t_plan1(WL, t_hf_instance(CFG_LLAMA31_8B, "\"precision\":\"bf16\",\"finetune\":{\"method\":\"lora\","
                                                                 "\"lora\":{\"r\":16,\"targets\":" ALL7 "}}"));
    assert_true(t_component(t_estimate(seven), 0, "activations", NULL) > t_component(t_estimate(two), 0, "activations", NULL));
}

/* ---- the module names of the other families (core/src/lora_targets.c) ---- */
static const char *g_dir = "tests/fixtures/configs/hf";

static const char *fixture(const char *name) {
    const char *path = t_fmt("%s/%s", g_dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open fixture %s", path);
    char *buf = t_fmt("%*s", 1 << 16, "");
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* GPT-NeoX-20B (h 6144, 44 layers, f 24576), r = 8 on GPTNeoXAttention.query_key_value (6144 -> 3·6144)
 * and dense (6144 -> 6144), GPTNeoXMLP.dense_h_to_4h (6144 -> 24576) and dense_4h_to_h:
 * 8·(6144 + 18432) = 196,608 + 8·12288 = 98,304 + 2 × 8·30720 = 491,520 -> 786,432 per layer
 * × 44 = 34,603,008. "all-linear" selects the same four (not the embed_out head). */
static void gpt_neox_names(void **s) {
    (void)s;
    const char *cfg = fixture("gpt-neox-20b.json");
    assert_u64_equal(trainable(cfg, 8, "[\"query_key_value\",\"dense\",\"dense_h_to_4h\",\"dense_4h_to_h\"]"), 34603008ULL);
    assert_u64_equal(trainable(cfg, 8, "[\"all-linear\"]"), 34603008ULL);
    /* the fused attention input alone: 196,608 × 44 = 8,650,752 */
    assert_u64_equal(trainable(cfg, 8, "[\"query_key_value\"]"), 8650752ULL);
}

/* Qwen-7B (v1: h 4096, 32 layers, intermediate_size 22016 so w1, w2 are 4096 -> 11008), r = 16:
 * c_attn 16·(4096 + 12288) = 262,144; "c_proj" is QWenAttention.c_proj 16·8192 = 131,072 and
 * QWenMLP.c_proj 16·(11008 + 4096) = 241,664; w1, w2 241,664 each -> 1,118,208 per layer
 * × 32 = 35,782,656. */
static void qwen_v1_names(void **s) {
    (void)s;
    const char *cfg = fixture("qwen-7b-chat.json");
    assert_u64_equal(trainable(cfg, 16, "[\"c_attn\",\"c_proj\",\"w1\",\"w2\"]"), 35782656ULL);
    assert_u64_equal(trainable(cfg, 16, "[\"all-linear\"]"), 35782656ULL);
}

/* InternLM2.5-7B (h 4096, 32 q heads + 8 kv heads of 128, f 14336, 32 layers), r = 16: wqkv
 * 16·(4096 + 6144) = 163,840; wo 16·8192 = 131,072; w1, w3, w2 16·18432 = 294,912 each ->
 * 1,179,648 per layer × 32 = 37,748,736 (Llama-3.1-8B's 41,943,040 less the r·h twice that
 * fusing q, k, v saves: 32 × 2 × 16 × 4096 = 4,194,304). */
static void internlm2_names(void **s) {
    (void)s;
    const char *cfg = fixture("internlm2_5-7b-chat.json");
    assert_u64_equal(trainable(cfg, 16, "[\"wqkv\",\"wo\",\"w1\",\"w2\",\"w3\"]"), 37748736ULL);
    assert_u64_equal(trainable(cfg, 16, "[\"all-linear\"]"), 37748736ULL);
}

/* DeepSeek-V2-Lite MLA (h 2048, 16 heads, q_lora_rank null, kv_lora_rank 512, nope 128, rope 64,
 * v 128, 27 layers), r = 8: q_proj 2048 -> 16·192: 8·5120 = 40,960; kv_a_proj_with_mqa 2048 -> 576:
 * 8·2624 = 20,992; kv_b_proj 512 -> 16·256: 8·4608 = 36,864; o_proj 2048 -> 2048: 32,768 ->
 * 131,584 per layer × 27 = 3,552,768. */
static void deepseek_mla_names(void **s) {
    (void)s;
    const char *cfg = fixture("deepseek-v2-lite.json");
    assert_u64_equal(trainable(cfg, 8, "[\"q_proj\",\"kv_a_proj_with_mqa\",\"kv_b_proj\",\"o_proj\"]"), 3552768ULL);
    assert_u64_equal(trainable(cfg, 8, "[\"kv_b_proj\"]"), 36864ULL * 27);
    /* gate/up/down_proj: the first_k_dense_replace = 1 dense block's MLP (intermediate 10944):
     * 3 × 8·(2048 + 10944) = 311,808, and the shared experts' MLP of the 26 MoE blocks
     * (moe_intermediate_size 1408 × n_shared_experts 2 = 2816): 3 × 8·(2048 + 2816) = 116,736 × 26
     * = 3,035,136; the 64 routed experts are stacked parameters -> 3,346,944 */
    assert_u64_equal(trainable(cfg, 8, "[\"gate_proj\",\"up_proj\",\"down_proj\"]"), 3346944ULL);
}

/* Mamba-Codestral-7B (mamba2: h 4096, inner 8192, 8 groups, state 128, 128 heads, 64 layers), r = 8:
 * in_proj 4096 -> 2·8192 + 2·8·128 + 128 = 18560: 8·22656 = 181,248; out_proj 8192 -> 4096:
 * 8·12288 = 98,304 -> 279,552 per layer × 64 = 17,891,328. */
static void mamba2_names(void **s) {
    (void)s;
    const char *cfg = fixture("mamba-codestral-7b-v0.1.json");
    assert_u64_equal(trainable(cfg, 8, "[\"in_proj\",\"out_proj\"]"), 17891328ULL);
}

/* mamba-130m (MambaMixer: h 768, inner 1536, state 16, time_step_rank 48, 24 layers), r = 8: in_proj
 * 768 -> 3072: 8·3840 = 30,720; x_proj 1536 -> 48 + 32: 8·1616 = 12,928; dt_proj 48 -> 1536:
 * 8·1584 = 12,672; out_proj 1536 -> 768: 8·2304 = 18,432 -> 74,752 per layer × 24 = 1,794,048. */
static void mamba_names(void **s) {
    (void)s;
    const char *cfg = fixture("mamba-130m-hf.json");
    assert_u64_equal(trainable(cfg, 8, "[\"in_proj\",\"x_proj\",\"dt_proj\",\"out_proj\"]"), 1794048ULL);
    assert_u64_equal(trainable(cfg, 8, "[\"all-linear\"]"), 1794048ULL);
}

/* Jamba-1.5-Mini (32 blocks: attention where i % 8 == 4 -> 4 blocks, Mamba in the other 28; one expert
 * (JambaMLP) where i % 2 == 0 -> 16 blocks, JambaExperts, stacked parameters, in the other 16), r = 8:
 * attention q 8·8192 = 65,536, k, v 8·(4096 + 1024) = 40,960 each, o 65,536 -> 212,992 × 4 = 851,968;
 * mixer in_proj 8·(4096 + 16384) = 163,840, x_proj 8·(8192 + 256 + 32) = 67,840, dt_proj
 * 8·(256 + 8192) = 67,584, out_proj 8·(8192 + 4096) = 98,304 -> 397,568 × 28 = 11,131,904;
 * MLP gate, up, down 8·(4096 + 14336) = 147,456 each -> 442,368 × 16 = 7,077,888. Sum 19,061,760. */
static void jamba_names(void **s) {
    (void)s;
    const char *cfg = fixture("ai21-jamba-1.5-mini.json");
    assert_u64_equal(trainable(cfg, 8, "[\"q_proj\",\"k_proj\",\"v_proj\",\"o_proj\",\"in_proj\",\"x_proj\",\"dt_proj\","
                                       "\"out_proj\",\"gate_proj\",\"up_proj\",\"down_proj\"]"),
                     19061760ULL);
    assert_u64_equal(trainable(cfg, 8, "[\"in_proj\"]"), 163840ULL * 28);
}

/* T5-base (d_model 768, 12 heads × d_kv 64, 12 encoder + 12 decoder blocks), r = 16 on q, v: "q" and
 * "v" select the encoder self-attention, the decoder self-attention and the decoder cross-attention
 * (EncDecAttention): 36 attention modules × 2 × 16·(768 + 768) = 1,769,472, the figure PEFT prints for
 * flan-t5-base (same attention shapes) with r = 16 on q, v ("trainable params: 1769472"). */
static void t5_cross_attention(void **s) {
    (void)s;
    assert_u64_equal(trainable(CFG_T5_BASE, 16, "[\"q\",\"v\"]"), 1769472ULL);
}

/* Falcon-7B (h 4544, 71 query heads of 64 and one K,V head: query_key_value 4544 -> 4544 + 2·64 =
 * 4672; 32 layers), r = 16 on query_key_value: 16·(4544 + 4672) = 147,456 × 32 = 4,718,592 (hand count;
 * the fused output is 4672, not 3·4544, because of multi-query attention). */
static void falcon_names(void **s) {
    (void)s;
    assert_u64_equal(trainable(fixture("falcon-7b.json"), 16, "[\"query_key_value\"]"), 4718592ULL);
}

/* GPT-2 (h 768, 12 layers): r = 8 on c_attn 8·(768 + 2304) = 24,576 × 12 = 294,912; "c_proj" is
 * attn.c_proj 8·1536 = 12,288 and mlp.c_proj 8·(3072 + 768) = 30,720 -> with c_attn 67,584 × 12 = 811,008. */
static void gpt2_names(void **s) {
    (void)s;
    assert_u64_equal(trainable(CFG_GPT2, 8, "[\"c_attn\"]"), 294912ULL);
    assert_u64_equal(trainable(CFG_GPT2, 8, "[\"c_attn\",\"c_proj\"]"), 811008ULL);
}

/* Whisper-large-v3 (d_model 1280, 32 encoder + 32 decoder layers): r = 8 on q_proj, v_proj select the
 * encoder self-attention, decoder self-attention and decoder encoder_attn: 96 modules × 2 × 8·2560
 * = 3,932,160. */
static void whisper_names(void **s) {
    (void)s;
    assert_u64_equal(trainable(fixture("whisper-large-v3.json"), 8, "[\"q_proj\",\"v_proj\"]"), 3932160ULL);
}

/* bert-base-uncased, r = 8 on query and value: 2 × 8·(768 + 768) × 12 = 294,912 (hand count). */
static void bert_names(void **s) {
    (void)s;
    const char *cfg = fixture("bert-base-uncased.json");
    assert_u64_equal(trainable(cfg, 8, "[\"query\",\"value\"]"), 294912ULL);
    /* "dense": attention.output.dense 8·1536 = 12,288, intermediate.dense and output.dense 8·3840 = 30,720
     * each -> 73,728 × 12 = 884,736, plus the BertForMaskedLM head's cls.predictions.transform.dense
     * 8·1536 = 12,288 (no pooler in this class) -> 897,024 */
    assert_u64_equal(trainable(cfg, 8, "[\"dense\"]"), 897024ULL);
    /* all-linear adds query, key, value (3 × 12,288 × 12 = 442,368); the tied decoder is the output layer */
    assert_u64_equal(trainable(cfg, 8, "[\"all-linear\"]"), 897024ULL + 442368ULL);
}

/* A name no family has is an error naming the entry; a name of another family alone is PEFT's "not
 * found" error, listing this model's names. */
static void wrong_names(void **s) {
    (void)s;
    const char *cfg = fixture("gpt-neox-20b.json");
    const char *msg = t_expect_error(
        t_plan1(WL, t_hf_instance(cfg, "\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":[\"dense\",\"qeury\"]}}")),
        VP_ERR_UNSUPPORTED, "instances[0].finetune.lora.targets[1]");
    assert_non_null(strstr(msg, "query_key_value dense dense_h_to_4h dense_4h_to_h"));
    msg = t_expect_error(t_plan1(WL, t_hf_instance(cfg, "\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":[\"q_proj\"]}}")),
                         VP_ERR_FIELD, "instances[0].finetune.lora.targets");
    assert_non_null(strstr(msg, "not found in the base model"));
    assert_non_null(strstr(msg, "gpt_neox"));
}

int main(int argc, char **argv) {
    if (argc > 2) g_dir = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llama31_8b_r16_all),
        cmocka_unit_test(llama2_7b_r8_qv),
        cmocka_unit_test(llama2_7b_r16_all),
        cmocka_unit_test(qwen25_7b_r16_all),
        cmocka_unit_test(llama31_70b_r16_all),
        cmocka_unit_test(mistral_7b_r16_all),
        cmocka_unit_test(phi3_fused),
        cmocka_unit_test(rank_is_linear),
        cmocka_unit_test(adapter_bytes),
        cmocka_unit_test(bottleneck_adapter),
        cmocka_unit_test(more_targets_more_activations),
        cmocka_unit_test(gpt_neox_names),
        cmocka_unit_test(qwen_v1_names),
        cmocka_unit_test(internlm2_names),
        cmocka_unit_test(deepseek_mla_names),
        cmocka_unit_test(mamba2_names),
        cmocka_unit_test(mamba_names),
        cmocka_unit_test(jamba_names),
        cmocka_unit_test(t5_cross_attention),
        cmocka_unit_test(falcon_names),
        cmocka_unit_test(gpt2_names),
        cmocka_unit_test(whisper_names),
        cmocka_unit_test(bert_names),
        cmocka_unit_test(wrong_names),
    };
    return T_RUN("lora", tests, argc, argv);
}
