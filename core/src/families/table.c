/* table.c: config.json "model_type" -> family. One row per model_type; the family's file holds
 * everything about it (families/<name>.c). */
#include <string.h>

#include "family.h"

static const vp_family k_families[] = {
    {"llama", vp_read_llama, NULL},
    {"mistral", vp_read_mistral, NULL},
    {"mixtral", vp_read_mixtral, NULL},
    {"qwen2", vp_read_qwen2, NULL},
    {"qwen2_moe", vp_read_qwen2_moe, NULL},
    {"qwen3", vp_read_qwen3, NULL},
    {"phi3", vp_read_phi3, NULL},
    {"gemma", vp_read_gemma, NULL},
    {"gemma2", vp_read_gemma2, NULL},
    {"gpt2", vp_read_gpt2, vp_count_gpt2},
    {"t5", vp_read_t5, vp_count_t5},
    {"vit", vp_read_vit, vp_count_vit},
    {"cogvideox", vp_read_cogvideox, vp_count_cogvideox},
    {"qwen2_vl", vp_read_qwen2_vl, NULL},
    {"gemma3_text", vp_read_gemma3_text, NULL},
    {"gemma3", vp_read_gemma3, NULL},
    {"qwen3_moe", vp_read_qwen3_moe, NULL},
    {"gpt_oss", vp_read_gpt_oss, vp_count_gpt_oss},
    {"gpt_neox", vp_read_gpt_neox, NULL},
    {"bloom", vp_read_bloom, vp_count_bloom},
    {"falcon", vp_read_falcon, NULL},
    {"RefinedWeb", vp_read_refinedweb, NULL},
    {"RefinedWebModel", vp_read_refinedwebmodel, NULL},
    {"qwen", vp_read_qwen, NULL},
    {"olmo2", vp_read_olmo2, vp_count_olmo2},
    {"granite", vp_read_granite, NULL},
    {"granitemoe", vp_read_granitemoe, NULL},
    {"phimoe", vp_read_phimoe, vp_count_phimoe},
    {"phi", vp_read_phi, vp_count_phimoe}, /* the shared count + the lm_head bias, as phimoe */
    {"cohere", vp_read_cohere, vp_count_cohere},
    {"cohere2", vp_read_cohere2, vp_count_cohere},
    {"starcoder2", vp_read_starcoder2, NULL},
    {"internlm2", vp_read_internlm2, NULL},
    {"glm4", vp_read_glm4, NULL},
    {"smollm3", vp_read_smollm3, NULL},
    {"llava", vp_read_llava, NULL},
    {"llava_next", vp_read_llava_next, NULL},
    {"mistral3", vp_read_mistral3, NULL},
    {"qwen2_5_vl", vp_read_qwen2_5_vl, NULL},
    {"bert", vp_read_bert, vp_count_bert},
    {"roberta", vp_read_roberta, vp_count_bert},
    {"xlm-roberta", vp_read_roberta, vp_count_bert},
    {"llama4", vp_read_llama4, vp_count_llama4},
    {"clip", vp_read_clip, vp_count_dual},
    {"siglip", vp_read_siglip, vp_count_dual},
    {"whisper", vp_read_whisper, vp_count_whisper},
    {"deberta-v2", vp_read_deberta_v2, vp_count_bert},
    {"deepseek_v2", vp_read_deepseek_v2, vp_count_deepseek},
    {"deepseek_v3", vp_read_deepseek_v3, vp_count_deepseek},
    {"mamba2", vp_read_mamba2, vp_count_mamba2},
    {"jamba", vp_read_jamba, vp_count_jamba},
    {"mamba", vp_read_mamba, vp_count_mamba},
};

#define N_FAMILIES ((int)(sizeof k_families / sizeof k_families[0]))

const vp_family *vp_family_find(const char *model_type) {
    if (!model_type) return NULL;
    for (int i = 0; i < N_FAMILIES; i++)
        if (!strcmp(k_families[i].model_type, model_type)) return &k_families[i];
    return NULL;
}

const vp_family *vp_family_at(int i) { return i >= 0 && i < N_FAMILIES ? &k_families[i] : NULL; }
