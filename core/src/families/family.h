/* family.h: the table of model families (families/table.c) and the readers they share.
 * Each family's file (families/<name>.c) holds its config.json reading (field names and defaults
 * of its configuration_*.py in transformers 5.x), its shapes and, where the shared decoder count
 * (params.c vp_count_decoder) does not fit it, its parameter count. Adding a family is one file
 * and one row of table.c. The shared pieces (attention, MLP, norms, MoE, logits) stay shared:
 * a family sets vp_arch flags and the shared code reads them. */
#ifndef VP_FAMILY_H
#define VP_FAMILY_H

#include <cjson/cJSON.h>

#include "arch.h"
#include "util.h"

#define VP_MAXDIM 1048576LL /* no real model has a hidden or intermediate size above 2^20 */
#define VP_MAXLAYERS 4096LL
#define VP_MAXVOCAB 100000000LL

typedef vp_status (*vp_family_read)(const cJSON *cfg, const char *path, vp_arch *a, vp_error *err);
typedef void (*vp_family_count)(const vp_arch *a, vp_param_counts *c);

typedef struct {
    const char *model_type;  /* config.json "model_type" */
    vp_family_read read;     /* fills vp_arch (model_type and memset done by the caller) */
    vp_family_count count;   /* NULL: the shared decoder count (params.c vp_count_decoder) */
} vp_family;

/* The family of a model_type, or NULL (families/table.c). */
const vp_family *vp_family_find(const char *model_type);
/* The i-th family (NULL past the end), for listing. */
const vp_family *vp_family_at(int i);

/* ---- shared readers (families/decoder_read.c) ---------------------------------------------- */
/* hidden_size, num_hidden_layers, num_attention_heads, vocab_size, num_key_value_heads, head_dim,
 * tie_word_embeddings (default tie_default), intermediate_size (optional here), attention_bias,
 * mlp_bias, attention_dropout; SwiGLU, RMSNorm, 2 norms per block (LlamaConfig / LlamaDecoderLayer). */
vp_status vp_read_decoder_common(const cJSON *c, const char *p, vp_arch *a, int tie_default, vp_error *err);
/* The defaults of a family's configuration class, for configs that leave fields out (0: required). */
typedef struct {
    int64_t hidden, layers, heads, kv_heads, head_dim, inter, vocab;
    int tie;
    int64_t max_positions; /* max_position_embeddings (0: LlamaConfig's 2048) */
} vp_decoder_defaults;
vp_status vp_read_decoder_defaults(const cJSON *c, const char *p, vp_arch *a, const vp_decoder_defaults *d,
                                   vp_error *err);
/* max_position_embeddings (default: a->max_positions when set, else 2048), the rotated fraction (partial_key, e.g. "partial_rotary_factor"; NULL: none,
 * partial_default) and rope_scaling / rope_parameters (families/rope.c). decoder_defaults calls it. */
vp_status vp_read_rope(const cJSON *c, const char *p, vp_arch *a, const char *partial_key, double partial_default,
                       vp_error *err);
/* intermediate_size must be present (and > 0). */
vp_status vp_read_need_inter(const char *p, const vp_arch *a, vp_error *err);
/* n_key experts, num_experts_per_tok, inter_key per-expert size (NULL: intermediate_size); all layers sparse. */
vp_status vp_read_moe(const cJSON *c, const char *p, vp_arch *a, const char *n_key, const char *inter_key,
                      vp_error *err);
/* decoder_sparse_step and mlp_only_layers (qwen2_moe, qwen3_moe) -> a->moe_layers. */
vp_status vp_read_sparse_layers(const cJSON *c, const char *p, vp_arch *a, vp_error *err);
/* A key present in the config and not null. */
int vp_has_key(const cJSON *c, const char *key);
/* Sliding-window / chunked layers and their window (families/attn_local.c): layer_types, else the
 * configuration class's default rule. */
/* VP_LOCAL_NONE: only an explicit layer_types (decoder_read.c, generic.c: any family). */
typedef enum { VP_LOCAL_NONE = 0, VP_LOCAL_ALTERNATE, VP_LOCAL_PATTERN, VP_LOCAL_CHUNKED } vp_local_rule;
vp_status vp_read_local_attn(const cJSON *c, const char *p, vp_arch *a, vp_local_rule rule, int64_t window_default,
                             int64_t pattern_default, vp_error *err);

/* ---- shared counts (params.c) ---------------------------------------------------------------- */
int64_t vp_lin_params(int64_t in, int64_t out, int bias);
int64_t vp_norm_params(const vp_arch *a, int64_t dim);
int64_t vp_mlp_params(const vp_arch *a, int64_t h, int64_t f);
void vp_count_decoder(const vp_arch *a, vp_param_counts *c);
/* A family's extra parameters per block (attention, MLP, norms) over n_layers blocks, of which
 * `linear` per block are matmul weights. */
void vp_count_add(vp_param_counts *c, int64_t attn, int64_t mlp, int64_t norm, int64_t n_layers, int64_t linear);

/* ---- vision towers (families/vision_towers.c): parameters of a vision_config object, its width in
 * *hidden; on a bad field *st is set and err names it. */
int64_t vp_siglip_vision_params(const cJSON *v, const char *vp, int64_t *hidden, vp_status *st, vp_error *err);
int64_t vp_clip_vision_params(const cJSON *v, const char *vp, int64_t *hidden, vp_status *st, vp_error *err);
/* ... of a multimodal config no family claims: a SigLIP-shaped ViT + a linear projector. */
int64_t vp_generic_vision_params(const cJSON *v, const char *vp, int64_t text_hidden, vp_status *st, vp_error *err);
vp_status vp_read_vit_tower(const cJSON *v, const char *vp, int siglip, vp_arch *a, vp_error *err);
/* ... and its block shapes into a->vis_* (vlm_images.c). */
vp_status vp_read_vis_shape(const cJSON *v, const char *vp, int siglip, vp_arch *a, vp_error *err);
/* ... the Qwen2-VL / Qwen2.5-VL tower's (e wide, f MLP, depth blocks, patch, merge, gated MLP). */
vp_status vp_read_vis_qwen(const cJSON *v, const char *vp, int64_t e, int64_t f, int64_t depth, int64_t patch,
                           int64_t merge, int gated, vp_arch *a, vp_error *err);

/* ---- family readers and counts (one file each) ---------------------------------------------- */
vp_status vp_read_llama(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_mistral(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_mixtral(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_qwen2(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_qwen2_moe(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_qwen2_vl(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_qwen3(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_phi3(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_gemma(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_gemma2(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_gpt2(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_gpt2(const vp_arch *, vp_param_counts *);
vp_status vp_read_t5(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_t5(const vp_arch *, vp_param_counts *);
vp_status vp_read_vit(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_vit(const vp_arch *, vp_param_counts *);
vp_status vp_read_cogvideox(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_cogvideox(const vp_arch *, vp_param_counts *);
vp_status vp_read_gemma3_text(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_gemma3(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_qwen3_moe(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_granite(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_granitemoe(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_olmo2(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_olmo2(const vp_arch *, vp_param_counts *);
vp_status vp_read_gpt_neox(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_bloom(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_bloom(const vp_arch *, vp_param_counts *);
vp_status vp_read_falcon(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_refinedweb(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_refinedwebmodel(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_qwen(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_starcoder2(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_internlm2(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_glm4(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_cohere(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_cohere2(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_cohere(const vp_arch *, vp_param_counts *);
vp_status vp_read_phi(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_phimoe(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_phimoe(const vp_arch *, vp_param_counts *);
vp_status vp_read_gpt_oss(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_gpt_oss(const vp_arch *, vp_param_counts *);
vp_status vp_read_smollm3(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_deepseek_v2(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_deepseek_v3(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_deepseek(const vp_arch *, vp_param_counts *);
vp_status vp_read_llava(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_llava_next(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_mistral3(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_qwen2_5_vl(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_bert(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_roberta(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_bert(const vp_arch *, vp_param_counts *);
vp_status vp_read_llama4(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_llama4(const vp_arch *, vp_param_counts *);
vp_status vp_read_clip(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_siglip(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_dual(const vp_arch *, vp_param_counts *);
vp_status vp_read_whisper(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_whisper(const vp_arch *, vp_param_counts *);
vp_status vp_read_deberta_v2(const cJSON *, const char *, vp_arch *, vp_error *);
vp_status vp_read_mamba2(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_mamba2(const vp_arch *, vp_param_counts *);
int64_t vp_mamba2_mixer_params(const vp_arch *a);
vp_status vp_read_jamba(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_jamba(const vp_arch *, vp_param_counts *);
int64_t vp_mamba_mixer_params(const vp_arch *a);
vp_status vp_read_mamba(const cJSON *, const char *, vp_arch *, vp_error *);
void vp_count_mamba(const vp_arch *, vp_param_counts *);
/* The generic decoder for a model_type no family claims (families/generic.c). */
vp_status vp_read_generic(const cJSON *, const char *, vp_arch *, vp_error *);

#endif
