/* arch.h: the shapes of one model, derived from a Hugging Face config.json (hf_config.c),
 * a preset (which is an HF config) or a custom description. Every field that changes a
 * tensor shape lives here; nothing else in the core reads config.json. */
#ifndef VP_ARCH_H
#define VP_ARCH_H

#include <stdint.h>
#include "vramplan.h"

typedef enum {
    VP_KIND_DECODER = 0, /* llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, phi3, gemma, gemma2, custom */
    VP_KIND_GPT2,        /* gpt2: learned positions, LayerNorm, GELU MLP with biases, Conv1D */
    VP_KIND_T5,          /* t5: encoder-decoder, relative attention bias */
    VP_KIND_VIT,         /* vit: patch embedding, LayerNorm, GELU MLP, classifier head */
    VP_KIND_DIT          /* cogvideox-style diffusion transformer over video tokens */
} vp_kind;

typedef enum { VP_MLP_SWIGLU = 0, VP_MLP_GEGLU, VP_MLP_GELU, VP_MLP_RELU, VP_MLP_GATED_RELU } vp_mlp;

/* One bit per decoder layer (families/layer_map.c): which layers attend locally, which are MoE. */
#define VP_ARCH_MAX_LAYERS 4096
typedef struct {
    uint64_t w[VP_ARCH_MAX_LAYERS / 64];
} vp_layer_map;

/* rope_scaling / rope_type of the config (families/rope.c); the engines size their cos/sin caches by it */
typedef enum { VP_ROPE_DEFAULT = 0, VP_ROPE_LINEAR, VP_ROPE_DYNAMIC, VP_ROPE_YARN, VP_ROPE_LLAMA3, VP_ROPE_OTHER } vp_rope_type;
typedef enum { VP_NORM_RMS = 0, VP_NORM_LAYER } vp_norm;

typedef struct {
    char model_type[24];
    vp_kind kind;
    char note[200];      /* a warning from the config reader (the generic fallback), shown with the estimate; "" if none */
    int64_t hidden;      /* h */
    int64_t layers;      /* L (encoder layers for t5) */
    int64_t heads;       /* a */
    int64_t kv_heads;    /* a_kv */
    int64_t head_dim;    /* d */
    int64_t inter;       /* f: MLP intermediate (dense layers) */
    int64_t vocab;       /* v */
    int tie;             /* lm_head shares the embedding matrix */
    int qkv_bias;        /* q,k,v projections have biases (qwen2, gpt2, vit) */
    int o_bias;          /* output projection has a bias */
    int mlp_bias;        /* MLP linears have biases */
    vp_mlp mlp;
    vp_norm norm;
    int norms_per_layer; /* 2; gemma2 has 4 (pre and post norms) */
    int qk_norm;         /* qwen3: RMSNorm(head_dim) on q and k */
    int norm_fp32;       /* gemma: RMSNorm computes x·(1 + w) in fp32 and casts back */
    int fused_qkv;       /* phi3: one qkv_proj; gpt2 c_attn; vit qkv */
    int fused_gate_up;   /* phi3 gate_up_proj */
    int64_t positions;   /* learned absolute position embeddings (gpt2 n_positions), 0 if none */
    /* family specifics (core/src/families/<name>.c) */
    int norm_no_bias;    /* LayerNorm without a bias (cohere CohereLayerNorm) */
    int lm_head_bias;    /* lm_head Linear has a bias (phimoe) */
    int attn_sinks;      /* gpt_oss: one learned sink logit per head (GptOssAttention.sinks) */
    int router_bias;     /* gpt_oss: the router Linear has a bias */
    int expert_bias;     /* gpt_oss: the experts' gate_up and down projections have biases */
    int64_t mla_q_rank;  /* deepseek MLA q_lora_rank (0: a plain q_proj) */
    int64_t mla_kv_rank; /* deepseek MLA kv_lora_rank (0: not MLA) */
    int64_t mla_nope_dim, mla_rope_dim, mla_v_dim; /* qk_nope_head_dim, qk_rope_head_dim, v_head_dim */
    int64_t shared_experts; /* deepseek/llama4: shared experts of expert_inter each (no gate) */
    int router_score_bias;  /* deepseek_v3 noaux_tc: e_score_correction_bias (E) */
    int64_t mtp_layers;     /* deepseek_v3 num_nextn_predict_layers kept in the checkpoint (counted, not run) */
    int64_t mxfp4_params;   /* gpt_oss: expert weights stored as MXFP4 (17/32 B each) when the model runs frozen */
    /* mixture of experts */
    int64_t experts;           /* 0 = dense */
    int64_t experts_per_tok;   /* top-k */
    int64_t expert_inter;      /* per-expert intermediate size */
    int64_t shared_expert_inter; /* qwen2_moe shared expert (0 = none) */
    int64_t moe_layers;        /* number of sparse layers (qwen2_moe decoder_sparse_step) */
    /* t5 */
    int64_t dec_layers;
    int64_t rel_buckets;
    /* vision */
    int64_t image_size, patch_size, channels, labels;
    /* diffusion transformer (cogvideox) */
    int64_t text_embed_dim, time_embed_dim, in_channels, out_channels, text_tokens;
    int64_t sample_frames, sample_height, sample_width, temporal_compression;
    /* training-time dropout probabilities that create saved masks */
    double attn_dropout, resid_dropout, embd_dropout;
    int gelu_python;     /* gpt2 "gelu_new": NewGELUActivation written as Python ops */
    double final_logit_softcap; /* gemma2: extra elementwise ops over the logits */
    int64_t vision_params;      /* VLMs: parameters of the vision tower + projector (their activations: vlm_images.c) */
    /* ---- state-space models (i13b: families/mamba2.c, families/jamba.c; ssm_state.c) ---- */
    int ssm;                  /* mixer: 0 none, 1 Mamba v1 (MambaMixer / JambaMambaMixer), 2 Mamba2Mixer */
    int64_t ssm_layers;       /* blocks with a Mamba mixer (the rest attend and keep a KV cache) */
    int64_t ssm_inner;        /* intermediate_size = expand · hidden */
    int64_t ssm_state;        /* state_size / mamba_d_state (N) */
    int64_t ssm_heads;        /* mamba2 num_heads (H) */
    int64_t ssm_head_dim;     /* mamba2 head_dim (P) */
    int64_t ssm_groups;       /* mamba2 n_groups (G) */
    int64_t ssm_conv_kernel;  /* conv_kernel / mamba_d_conv (K) */
    int64_t ssm_dt_rank;      /* mamba v1 time_step_rank / mamba_dt_rank (R) */
    int ssm_conv_bias, ssm_proj_bias; /* use_conv_bias, use_bias (mamba_conv_bias, mamba_proj_bias) */
    int ssm_bcdt_norms;       /* jamba: dt_layernorm (R), b_layernorm (N), c_layernorm (N) */
    /* ---- end state-space models ---- */
    /* ---- diffusion pipelines' components (i12: diffusers_config.c; struct in diffusers.h) ---- */
    int dclass;                 /* vp_dclass of diffusers.h; 0 = not a diffusion-pipeline component */
    struct vp_diff_shape {
        int64_t params, buffers;            /* exact parameters; persistent buffers saved with them */
        int64_t embed, other, blocks_total, per_block, final_norm, linear, largest_tensor;
        int64_t blocks2;                    /* second stack (flux / hunyuan single-stream blocks) */
        int64_t fp32_keep;                  /* params transformers keeps in fp32 under torch_dtype=float16
                                             * (_keep_in_fp32_modules: T5 / UMT5 "wo") */
        int64_t patch_t, spatial, temporal; /* temporal patch; the pipeline VAE's compression */
        int64_t text_len, text_dim;         /* text tokens the pipeline encodes; their width */
        int64_t image_len;                  /* image-embedding tokens a cross-attention also reads (Wan I2V: 257) */
        int joint;                          /* text tokens join the attention sequence */
        int cfg_batch;                      /* CFG concatenates cond + uncond into one batch */
        int attn_per_block;                 /* attention modules per block (self + cross) */
        int64_t ch[6];                      /* vae: block_out_channels */
        int levels, layers_per_block, vae3d, frame_chunk, mid_attn;
        int vae_residual;                   /* vae: Wan 2.2's residual down / up blocks (is_residual) */
        int vae_tup;                        /* vae: Wan up blocks with a temporal upsampler (bit i: up block i's
                                             * WanResample is upsample3d, temperal_upsample = temperal_downsample reversed) */
        int vae_flat;                       /* vae: Wan's own Decoder3d (workload.diffusion.code "official"): its resnets
                                             * are one flat nn.Sequential, so no up block's input is held past its first */
        int64_t dec_base;                   /* vae: Wan decoder_base_dim (0: base_dim) */
        int ts_tokens;                      /* DiT: one timestep per token (Wan 2.2 TI2V expand_timesteps) */
        int rotary;                         /* DiT: rotary positions on q and k (CogVideoX use_rotary_positional_embeddings) */
        int64_t dual_layers;                /* DiT: blocks with a second self-attention attn2 (SD3.5 dual_attention_layers) */
        int64_t latent_ch, tile_h, tile_w, tile_frames;
        int64_t dec_ch0, vae_patch;         /* vae: decoder's full-resolution channels; pixel patch (LTX: 4) */
        int64_t attn_extra;                 /* blocks outside the stacks with a to_q/k/v/out.0 attention (hunyuan refiner) */
        int64_t norm_linear;                /* params of the blocks' "norm"-named Linears (adaptive-norm modulation) */
        int64_t last_linear;                /* two-stack models: the last (single-stream) block's Linears minus its
                                             * "norm"-named one (0: every block alike, d.linear / blocks) */
    } d;
    /* ---- vision-language models (families/vlm.c, gemma3.c, llama4.c, qwen2_vl.c; vlm_images.c):
     * the vision tower's blocks and how one image becomes decoder tokens; vis_rule 0 = none ---- */
    int vis_rule;               /* VP_VIS_* (vlm_images.h) */
    int64_t vis_hidden, vis_inter, vis_layers, vis_heads; /* the tower's encoder blocks */
    int64_t vis_image, vis_patch, vis_merge; /* tile / default image side, patch, spatial merge */
    int64_t vis_tokens;         /* fixed tokens per image (gemma3 mm_tokens_per_image), 0 = from the rule */
    int vis_cls;                /* the tower prepends a class token (CLIP, Llama 4) */
    int vis_keep_cls;           /* llava vision_feature_select_strategy "full": the class token is kept */
    int vis_gated;              /* the tower's MLP is gated (SwiGLU: Pixtral, Qwen2.5-VL), else GELU fc1/fc2 */
    int vis_n_pin;              /* llava_next image_grid_pinpoints (at most 16) */
    int64_t vis_pin[16][2];     /* (height, width) */
    /* ---- bidirectional encoders (families/bert.c, deberta_v2.c): one forward, no KV cache ---- */
    int encoder_only;           /* BERT, RoBERTa, XLM-R, DeBERTa-v2: inference is a single forward */
    int encoder_mlm;            /* the class (architectures[0]) carries the masked-LM head over every token */
    int head_denses;            /* Linear(h, h) named "dense" outside the blocks: pooler, MLM transform, RoBERTa classifier (LoRA "dense") */
    /* ---- local attention in generate (swa: families/attn_local.c; kv_local.c): the layers whose
     * DynamicCache layer is a DynamicSlidingWindowLayer (transformers cache_utils.py); 0 = none ---- */
    int64_t sliding_layers;     /* layer_types "sliding_attention" (gemma2, gemma3, gpt_oss, cohere2) */
    int64_t sliding_window;     /* config sliding_window (0: none) */
    int64_t chunked_layers;     /* layer_types "chunked_attention" (llama4: the RoPE layers) */
    int64_t chunk_size;         /* attention_chunk_size (0: none) */
    vp_layer_map sliding_map;   /* layer i slides (the sliding_layers above, by position) */
    vp_layer_map chunked_map;   /* layer i attends in chunks */
    /* ---- end local attention ---- */
    vp_layer_map moe_map;       /* layer i is a sparse MoE layer (moe_layers of them; deepseek first_k_dense_replace,
                                 * qwen2_moe decoder_sparse_step / mlp_only_layers, llama4 interleave_moe_layer_step) */
    int qk_norm_full;           /* the q/k norms span all heads (else per head: RMSNorm(head_dim), qwen3 / gemma3):
                                 * 1 olmo2 RMSNorm(a·d) and RMSNorm(a_kv·d); 2 cohere LayerNorm((a, d)) and
                                 * ((a_kv, d)), whose rows a tensor-parallel engine splits with the heads */
    int embed_norm;             /* bloom: word_embeddings_layernorm (LayerNorm(h) after the embedding) */
    /* ---- positions (families/rope.c), for the serving engines' rotary caches ---- */
    int64_t max_positions;      /* max_position_embeddings (gpt2 n_positions); the longest context the model declares */
    int rope;                   /* rotary embeddings (0: learned positions gpt2, ALiBi bloom / falcon alibi) */
    double rope_partial;        /* partial_rotary_factor / rotary_pct: rotary_dim = head_dim × this (1 = all) */
    vp_rope_type rope_type;     /* rope_scaling.rope_type (or .type) */
    double rope_factor;         /* rope_scaling.factor (1 = none) */
    int64_t rope_orig_positions;/* rope_scaling.original_max_position_embeddings (yarn; 0 = not given) */
    int rope_local;             /* gemma3: a second, unscaled RoPE for the sliding layers (rope_local_base_freq) */
    /* ---- end positions ---- */
} vp_arch;

/* Layer maps (families/layer_map.c). Indices at or past VP_ARCH_MAX_LAYERS are ignored / read as 0. */
void vp_layer_map_set(vp_layer_map *m, int64_t i);
int vp_layer_map_has(const vp_layer_map *m, int64_t i);
int64_t vp_layer_map_count(const vp_layer_map *m, int64_t n_layers);
/* Layers 0..n-1 all set (every layer MoE, vp_read_moe). */
void vp_layer_map_fill(vp_layer_map *m, int64_t n_layers);

/* Parse a Hugging Face config.json object (cJSON *) into arch. path names the object in errors. */
struct cJSON;
vp_status vp_arch_from_hf(const struct cJSON *cfg, const char *path, vp_arch *out, vp_error *err);
vp_status vp_arch_from_custom(const struct cJSON *cfg, const char *path, vp_arch *out, vp_error *err);

/* Parameter counts by module group (params.c). */
typedef struct {
    int64_t embed;      /* token (+ position) embeddings, patch embedding, cls/pos tokens */
    int64_t lm_head;    /* 0 when tied */
    int64_t per_layer_attn;
    int64_t per_layer_mlp;   /* dense layer MLP, or one MoE layer's experts + router + shared */
    int64_t per_layer_norm;
    int64_t layers_total;    /* all transformer blocks (t5: encoder + decoder) */
    int64_t final_norm;
    int64_t other;           /* t5 relative biases, vit head, dit embedders */
    int64_t linear_in_layers;/* parameters of matmul weights inside the blocks (autocast casts them) */
    int64_t total;
    int64_t largest_layer;   /* largest single block or embedding, for ZeRO-3 gathers */
    int64_t largest_tensor;  /* largest single parameter tensor (for-loop optimizer temporaries) */
} vp_param_counts;

vp_status vp_count_params(const vp_arch *a, vp_param_counts *out, vp_error *err);

#endif
