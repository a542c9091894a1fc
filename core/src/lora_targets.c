/* lora_targets.c: the PEFT target_modules names of each family and the LoRA target bits (plan.h
 * VP_T_*) they select. PEFT matches a target name against the end of each module's dotted name
 * (peft src/peft/tuners/tuners_utils.py check_target_module_exists), so one name can select several
 * linears of a block (gpt2 "c_proj" is both attn.c_proj and mlp.c_proj; bert "dense" is
 * attention.output.dense, intermediate.dense and output.dense). lora.c gives each bit its (in, out).
 * Module names: the nn.Linear / Conv1D attributes of transformers 5.x modeling_<family>.py. */
#include <string.h>

#include "plan.h"

typedef struct {
    const char *name;
    unsigned bits;
} tname;

#define END {NULL, 0}
#define LLAMA_ATTN {"q_proj", VP_T_Q}, {"k_proj", VP_T_K}, {"v_proj", VP_T_V}, {"o_proj", VP_T_O}
#define LLAMA_MLP {"gate_proj", VP_T_GATE}, {"up_proj", VP_T_UP}, {"down_proj", VP_T_DOWN}
#define HEAD {"lm_head", VP_T_LM_HEAD}

/* Names known before families had their own lists; a plan for a custom model may use any of them. */
static const tname k_any[] = {
    LLAMA_ATTN, LLAMA_MLP, {"qkv_proj", VP_T_QKV}, {"gate_up_proj", VP_T_GATE_UP}, {"c_attn", VP_T_QKV},
    {"qkv", VP_T_QKV}, {"c_proj", VP_T_O}, {"proj", VP_T_O}, {"c_fc", VP_T_FC1}, {"fc1", VP_T_FC1}, {"fc2", VP_T_FC2},
    {"q", VP_T_Q}, {"k", VP_T_K}, {"v", VP_T_V}, {"o", VP_T_O}, {"wi", VP_T_FC1}, {"wo", VP_T_FC2},
    {"to_q", VP_T_Q}, {"to_k", VP_T_K}, {"to_v", VP_T_V}, {"to_out.0", VP_T_O}, {"dense", VP_T_O}, HEAD, END};

static const tname k_llama[] = {LLAMA_ATTN, LLAMA_MLP, HEAD, END};
/* Phi3Attention.qkv_proj, Phi3MLP.gate_up_proj (modeling_phi3.py) */
static const tname k_phi3[] = {{"qkv_proj", VP_T_QKV}, {"o_proj", VP_T_O}, {"gate_up_proj", VP_T_GATE_UP},
                               {"down_proj", VP_T_DOWN}, HEAD, END};
/* Glm4Attention q/k/v/o_proj, Glm4MLP gate_up_proj + down_proj (modeling_glm4.py) */
static const tname k_glm4[] = {LLAMA_ATTN, {"gate_up_proj", VP_T_GATE_UP}, {"down_proj", VP_T_DOWN}, HEAD, END};
/* MixtralAttention; the experts are stacked parameters, not linears (modeling_mixtral.py) */
static const tname k_attn_only[] = {LLAMA_ATTN, HEAD, END};
static const tname k_qwen2_vl[] = {LLAMA_ATTN, LLAMA_MLP, HEAD, {"qkv", VP_T_QKV}, {"proj", VP_T_O},
                                   {"fc1", VP_T_FC1}, {"fc2", VP_T_FC2}, END};
/* GPTNeoXAttention.query_key_value + dense, GPTNeoXMLP.dense_h_to_4h + dense_4h_to_h, embed_out
 * (modeling_gpt_neox.py); FalconAttention / FalconMLP and BloomAttention / BloomMLP use the same names */
#define NEOX {"query_key_value", VP_T_QKV}, {"dense", VP_T_O}, {"dense_h_to_4h", VP_T_FC1}, {"dense_4h_to_h", VP_T_FC2}
static const tname k_neox[] = {NEOX, {"embed_out", VP_T_LM_HEAD}, END};
static const tname k_falcon[] = {NEOX, HEAD, END};
/* QWenAttention.c_attn + c_proj, QWenMLP w1, w2 (h -> f/2 each) + c_proj (f/2 -> h): "c_proj" is
 * both (Qwen/Qwen-7B modeling_qwen.py) */
static const tname k_qwen[] = {{"c_attn", VP_T_QKV}, {"c_proj", VP_T_O | VP_T_DOWN}, {"w1", VP_T_UP},
                               {"w2", VP_T_GATE}, HEAD, END};
/* InternLM2Attention.wqkv + wo, InternLM2MLP w1 (gate), w3 (up), w2 (down), head "output"
 * (internlm/internlm2_5-7b modeling_internlm2.py) */
static const tname k_internlm2[] = {{"wqkv", VP_T_QKV}, {"wo", VP_T_O}, {"w1", VP_T_GATE}, {"w3", VP_T_UP},
                                    {"w2", VP_T_DOWN}, {"output", VP_T_LM_HEAD}, END};
/* GPT2Attention.c_attn + c_proj, GPT2MLP.c_fc + c_proj (Conv1D, modeling_gpt2.py) */
static const tname k_gpt2[] = {{"c_attn", VP_T_QKV}, {"c_proj", VP_T_O | VP_T_FC2}, {"c_fc", VP_T_FC1}, HEAD, END};
/* Starcoder2Attention q/k/v/o_proj, Starcoder2MLP c_fc + c_proj (modeling_starcoder2.py) */
static const tname k_starcoder2[] = {LLAMA_ATTN, {"c_fc", VP_T_FC1}, {"c_proj", VP_T_FC2}, HEAD, END};
/* BertSelfAttention query/key/value; BertSelfOutput, BertIntermediate, BertOutput .dense (modeling_bert.py;
 * RoBERTa the same) */
static const tname k_bert[] = {{"query", VP_T_Q}, {"key", VP_T_K}, {"value", VP_T_V},
                               {"dense", VP_T_O | VP_T_FC1 | VP_T_FC2}, END};
/* DisentangledSelfAttention query_proj/key_proj/value_proj (modeling_deberta_v2.py) */
static const tname k_deberta[] = {{"query_proj", VP_T_Q}, {"key_proj", VP_T_K}, {"value_proj", VP_T_V},
                                  {"dense", VP_T_O | VP_T_FC1 | VP_T_FC2}, END};
/* T5Attention q/k/v/o, T5DenseActDense wi + wo, T5DenseGatedActDense wi_0 + wi_1 + wo (modeling_t5.py) */
static const tname k_t5[] = {{"q", VP_T_Q}, {"k", VP_T_K}, {"v", VP_T_V}, {"o", VP_T_O}, {"wi", VP_T_FC1},
                             {"wo", VP_T_FC2}, HEAD, END};
static const tname k_t5_gated[] = {{"q", VP_T_Q}, {"k", VP_T_K}, {"v", VP_T_V}, {"o", VP_T_O}, {"wi_0", VP_T_GATE},
                                   {"wi_1", VP_T_UP}, {"wo", VP_T_FC2}, HEAD, END};
/* WhisperAttention q/k/v_proj + out_proj (self and, in the decoder, encoder_attn), fc1, fc2, proj_out
 * head (modeling_whisper.py) */
static const tname k_whisper[] = {{"q_proj", VP_T_Q}, {"k_proj", VP_T_K}, {"v_proj", VP_T_V}, {"out_proj", VP_T_O},
                                  {"fc1", VP_T_FC1}, {"fc2", VP_T_FC2}, {"proj_out", VP_T_LM_HEAD}, END};
static const tname k_vit[] = {{"qkv", VP_T_QKV}, {"proj", VP_T_O}, {"fc1", VP_T_FC1}, {"fc2", VP_T_FC2},
                              {"dense", VP_T_O}, END};
static const tname k_dit[] = {{"to_q", VP_T_Q}, {"to_k", VP_T_K}, {"to_v", VP_T_V}, {"to_out.0", VP_T_O},
                              {"proj", VP_T_O}, END};
/* DeepseekV3Attention: q_a_proj + q_b_proj (or q_proj when q_lora_rank is null), kv_a_proj_with_mqa,
 * kv_b_proj, o_proj; dense and shared-expert MLPs gate/up/down_proj (modeling_deepseek_v3.py) */
static const tname k_deepseek[] = {{"q_proj", VP_T_Q}, {"q_a_proj", VP_T_Q_A}, {"q_b_proj", VP_T_Q_B},
                                   {"kv_a_proj_with_mqa", VP_T_KV_A}, {"kv_b_proj", VP_T_KV_B}, {"o_proj", VP_T_O},
                                   LLAMA_MLP, HEAD, END};
/* MambaMixer in_proj, x_proj, dt_proj, out_proj (modeling_mamba.py); Mamba2Mixer in_proj, out_proj */
static const tname k_mamba[] = {{"in_proj", VP_T_SSM_IN}, {"x_proj", VP_T_SSM_X}, {"dt_proj", VP_T_SSM_DT},
                                {"out_proj", VP_T_SSM_OUT}, HEAD, END};
static const tname k_mamba2[] = {{"in_proj", VP_T_SSM_IN}, {"out_proj", VP_T_SSM_OUT}, HEAD, END};
/* Jamba: attention blocks (q/k/v/o_proj), JambaMambaMixer blocks, JambaMLP (modeling_jamba.py) */
static const tname k_jamba[] = {LLAMA_ATTN, LLAMA_MLP, {"in_proj", VP_T_SSM_IN}, {"x_proj", VP_T_SSM_X},
                                {"dt_proj", VP_T_SSM_DT}, {"out_proj", VP_T_SSM_OUT}, HEAD, END};

static const tname *family_names(const vp_arch *a) {
    if (!a || !a->model_type[0] || !strcmp(a->model_type, "custom")) return NULL;
    switch (a->kind) {
    case VP_KIND_GPT2: return k_gpt2;
    case VP_KIND_T5:
        if (!strcmp(a->model_type, "whisper")) return k_whisper;
        return a->mlp == VP_MLP_GEGLU ? k_t5_gated : k_t5;
    case VP_KIND_VIT: return k_vit;
    case VP_KIND_DIT: return k_dit;
    case VP_KIND_DECODER: break;
    }
    static const struct { const char *type; const tname *names; } k_by_type[] = {
        {"gpt_neox", k_neox}, {"falcon", k_falcon}, {"RefinedWeb", k_falcon}, {"RefinedWebModel", k_falcon},
        {"bloom", k_falcon}, {"qwen", k_qwen}, {"internlm2", k_internlm2}, {"glm4", k_glm4},
        {"starcoder2", k_starcoder2}, {"bert", k_bert}, {"roberta", k_bert}, {"xlm-roberta", k_bert},
        {"deberta-v2", k_deberta}, {"deepseek_v2", k_deepseek}, {"deepseek_v3", k_deepseek},
        {"mamba", k_mamba}, {"mamba2", k_mamba2}, {"jamba", k_jamba}, {"mixtral", k_attn_only}, {"qwen2_vl", k_qwen2_vl}};
    for (size_t i = 0; i < sizeof k_by_type / sizeof k_by_type[0]; i++)
        if (!strcmp(a->model_type, k_by_type[i].type)) return k_by_type[i].names;
    if (a->fused_qkv && a->fused_gate_up) return k_phi3;
    return k_llama;
}

static unsigned lookup(const tname *t, const char *name) {
    for (; t->name; t++)
        if (!strcmp(t->name, name)) return t->bits;
    return 0;
}

unsigned vp_lora_target_bits(const vp_arch *arch, const char *name) {
    if (!strcmp(name, "all-linear")) return VP_T_ALL_LINEAR;
    const tname *t = family_names(arch);
    return lookup(t ? t : k_any, name);
}

/* A name some family knows (so a plan naming it for another family is a mismatch, not a typo). */
int vp_lora_target_known(const char *name) {
    static const tname *const all[] = {k_any, k_phi3, k_glm4, k_qwen2_vl, k_neox, k_falcon, k_qwen, k_internlm2,
                                       k_gpt2, k_starcoder2, k_bert, k_deberta, k_t5, k_t5_gated, k_vit, k_dit,
                                       k_deepseek, k_mamba, k_mamba2, k_jamba, k_whisper};
    if (!strcmp(name, "all-linear")) return 1;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (lookup(all[i], name)) return 1;
    return 0;
}

const char *vp_lora_family_names(const vp_arch *arch) {
    const tname *t = family_names(arch);
    if (!t) return NULL;
    /* one static string per table, built at compile time */
#define L(tab, s) if (t == tab) return s
    L(k_llama, "q_proj k_proj v_proj o_proj gate_proj up_proj down_proj lm_head");
    L(k_phi3, "qkv_proj o_proj gate_up_proj down_proj lm_head");
    L(k_glm4, "q_proj k_proj v_proj o_proj gate_up_proj down_proj lm_head");
    L(k_attn_only, "q_proj k_proj v_proj o_proj lm_head");
    L(k_qwen2_vl, "q_proj k_proj v_proj o_proj gate_proj up_proj down_proj lm_head qkv proj fc1 fc2");
    L(k_neox, "query_key_value dense dense_h_to_4h dense_4h_to_h embed_out");
    L(k_falcon, "query_key_value dense dense_h_to_4h dense_4h_to_h lm_head");
    L(k_qwen, "c_attn c_proj w1 w2 lm_head");
    L(k_internlm2, "wqkv wo w1 w2 w3 output");
    L(k_gpt2, "c_attn c_proj c_fc lm_head");
    L(k_starcoder2, "q_proj k_proj v_proj o_proj c_fc c_proj lm_head");
    L(k_bert, "query key value dense");
    L(k_deberta, "query_proj key_proj value_proj dense");
    L(k_t5, "q k v o wi wo lm_head");
    L(k_t5_gated, "q k v o wi_0 wi_1 wo lm_head");
    L(k_whisper, "q_proj k_proj v_proj out_proj fc1 fc2 proj_out");
    L(k_vit, "qkv proj fc1 fc2 dense");
    L(k_dit, "to_q to_k to_v to_out.0 proj");
    L(k_deepseek, "q_proj q_a_proj q_b_proj kv_a_proj_with_mqa kv_b_proj o_proj gate_proj up_proj down_proj lm_head");
    L(k_mamba, "in_proj x_proj dt_proj out_proj lm_head");
    L(k_mamba2, "in_proj out_proj lm_head");
    L(k_jamba, "q_proj k_proj v_proj o_proj gate_proj up_proj down_proj in_proj x_proj dt_proj out_proj lm_head");
#undef L
    return NULL;
}
