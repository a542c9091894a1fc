/* plan.h: the validated, internal form of a vramplan/plan@1 document (plan_parse.c). */
#ifndef VP_PLAN_H
#define VP_PLAN_H

#include "alloc_sim.h"
#include "arch.h"
#include "gpu.h"
#include "serve.h"

typedef enum { VP_MODE_TRAIN = 0, VP_MODE_INFER, VP_MODE_SERVE /* serving engines: serve.h */ } vp_mode;
typedef enum {
    VP_PREC_FP32 = 0, VP_PREC_AMP_BF16, VP_PREC_AMP_FP16, VP_PREC_BF16, VP_PREC_FP16, VP_PREC_FP8,
    VP_PREC_BF16_MASTER, /* bf16 weights and grads, fp32 master copy in the optimizer (DeepSpeed, Megatron, ZeRO paper) */
    VP_PREC_FP16_MASTER  /* the same in fp16 (DeepSpeed "fp16": {"enabled": true}, Megatron --fp16), with loss scaling */
} vp_precision;
/* VP_QUANT_FP8: layerwise casting, storage float8 / compute in the precision's dtype (diffusers
 * enable_layerwise_casting, finetrainers --layerwise_upcasting_modules; weights.c, timeline_train.c) */
typedef enum { VP_QUANT_NONE = 0, VP_QUANT_INT8, VP_QUANT_NF4, VP_QUANT_FP4, VP_QUANT_FP8 } vp_quant;
typedef enum { VP_FT_FULL = 0, VP_FT_LORA, VP_FT_QLORA, VP_FT_ADAPTER, VP_FT_FROZEN } vp_ft;
typedef enum {
    VP_OPT_ADAMW = 0, VP_OPT_ADAM, VP_OPT_SGD, VP_OPT_SGD_MOMENTUM, VP_OPT_ADAFACTOR, VP_OPT_LION,
    VP_OPT_ADAMW_8BIT, VP_OPT_PAGED_ADAMW, VP_OPT_PAGED_ADAMW_8BIT
} vp_optimizer;
typedef enum { VP_IMPL_FOREACH = 0, VP_IMPL_FUSED, VP_IMPL_FORLOOP } vp_opt_impl;
typedef enum { VP_ATTN_SDPA = 0, VP_ATTN_FLASH, VP_ATTN_EAGER } vp_attn;
typedef enum { VP_ACT_TRAIN = 0, VP_ACT_NO_GRAD, VP_ACT_KEEP_GRAPH, VP_ACT_NONE } vp_act;
typedef enum {
    VP_ROLE_TRAINED = 0, VP_ROLE_REFERENCE, VP_ROLE_TEACHER, VP_ROLE_EMA, VP_ROLE_REWARD, VP_ROLE_CRITIC,
    VP_ROLE_EDITOR, VP_ROLE_FUNCTIONAL_COPY, VP_ROLE_CUSTOM
} vp_role;
typedef enum { VP_DT_FP32 = 0, VP_DT_BF16, VP_DT_FP16, VP_DT_FP8, VP_DT_INT8 } vp_dtype;

/* LoRA target module bits (PEFT target_modules names). */
enum {
    VP_T_Q = 1 << 0, VP_T_K = 1 << 1, VP_T_V = 1 << 2, VP_T_O = 1 << 3,
    VP_T_GATE = 1 << 4, VP_T_UP = 1 << 5, VP_T_DOWN = 1 << 6,
    VP_T_QKV = 1 << 7,     /* phi3 qkv_proj, gpt2 c_attn, vit qkv */
    VP_T_GATE_UP = 1 << 8, /* phi3 gate_up_proj */
    VP_T_FC1 = 1 << 9, VP_T_FC2 = 1 << 10, VP_T_LM_HEAD = 1 << 11,
    /* deepseek MLA: q_a_proj, q_b_proj, kv_a_proj_with_mqa, kv_b_proj */
    VP_T_Q_A = 1 << 12, VP_T_Q_B = 1 << 13, VP_T_KV_A = 1 << 14, VP_T_KV_B = 1 << 15,
    /* mamba mixers: in_proj, x_proj, dt_proj, out_proj */
    VP_T_SSM_IN = 1 << 16, VP_T_SSM_X = 1 << 17, VP_T_SSM_DT = 1 << 18, VP_T_SSM_OUT = 1 << 19
};
#define VP_T_ALL_LINEAR (((1u << 20) - 1u) & ~(unsigned)VP_T_LM_HEAD) /* PEFT "all-linear": every linear but the head */

/* lora_targets.c: the bits a PEFT target name selects in a model of `arch` (NULL: any family);
 * 0 when the name is no module of that family. vp_lora_family_names: the family's names, for errors. */
unsigned vp_lora_target_bits(const vp_arch *arch, const char *name);
const char *vp_lora_family_names(const vp_arch *arch);
int vp_lora_target_known(const char *name);

/* Module groups a full fine-tune can freeze. */
enum { VP_FREEZE_EMBED = 1, VP_FREEZE_LM_HEAD = 2, VP_FREEZE_ATTN = 4, VP_FREEZE_MLP = 8, VP_FREEZE_NORMS = 16 };

extern const char *const vp_role_names[];
extern const char *const vp_precision_names[];

typedef struct {
    char name[48];
    vp_role role;
    vp_arch arch;
    vp_param_counts pc;
    vp_precision precision;
    vp_quant quant;
    int double_quant;
    vp_ft ft;
    int64_t lora_r;
    double lora_alpha, lora_dropout;
    vp_dtype lora_dtype;
    unsigned lora_targets;
    int64_t adapter_dim;
    unsigned freeze;
    vp_optimizer optimizer;
    vp_opt_impl impl;
    int64_t gc_every;
    vp_attn attn;
    vp_act activations;
    int64_t passes;
    int device;          /* GPU index, or -1 = CPU */
    int pinned;
    int sharded;         /* follows the parallel layout (every GPU of the job) */
    int stream_from_cpu; /* CPU-placed model whose blocks stream through GPU (stream_from_cpu - 1); 0 = no */
    int shares_weights_with; /* index of another instance whose weights this one runs through, or -1 */
    int logprobs_fp32;   /* the instance's logits are upcast to fp32 for a log-softmax (DPO reference) */
    int64_t edited_layers; /* functional_copy: the last blocks whose MLP weights the edit replaces (MEND: 3) */
    int precision_set;   /* "precision" was given (otherwise a framework may choose its own: precision.c) */
    int autocast_cache;  /* torch.autocast(cache_enabled=...): casts of fp32 weights kept until autocast exits */
    int after_use;       /* VP_AFTER_USE_*: a diffusion component the script moves to the CPU after its phase (offload none) */
    int group_offload;   /* VP_GROUP_OFFLOAD_*: diffusers group offloading of this component (inference pipelines) */
    int64_t group_blocks; /* block_level: num_blocks_per_group */
    int group_stream;    /* use_stream: the next group is onloaded while the current one runs */
    int autocast16;      /* "autocast": a 16-bit DiT trained under torch.autocast (accelerate mixed_precision) */
    int impl_set;        /* "optimizer.impl" was given (otherwise a framework may choose its own) */
} vp_instance;

/* instances[].after_use (diffusion inference with offload "none"): what the script does with the component once its
 * phase is over: keep it on the GPU, model.cpu() (its weights freed into the allocator's cache), or model.cpu() then
 * torch.cuda.empty_cache() (Wan's own wan/text2video.py: T5 lines 178-179, the DiT lines 257-259). */
enum { VP_AFTER_USE_STAY = 0, VP_AFTER_USE_CPU, VP_AFTER_USE_CPU_EMPTY_CACHE };
/* instances[].group_offload (diffusion inference): diffusers' apply_group_offloading / enable_group_offload
 * (src/diffusers/hooks/group_offloading.py), what is on the GPU of that component while it runs (diffusion_plan.c). */
enum { VP_GROUP_OFFLOAD_NONE = 0, VP_GROUP_OFFLOAD_LEAF, VP_GROUP_OFFLOAD_BLOCK };
typedef enum { VP_FW_TORCH = 0, VP_FW_DEEPSPEED, VP_FW_FSDP, VP_FW_MEGATRON } vp_framework;
typedef enum { VP_FSDP_FULL_SHARD = 0, VP_FSDP_SHARD_GRAD_OP, VP_FSDP_HYBRID_SHARD, VP_FSDP_NO_SHARD } vp_fsdp;

/* Data / tensor / pipeline / sequence / expert parallelism and sharding (plan "parallel"). */
typedef struct {
    int64_t dp, tp, pp, vpp, ep, microbatches;
    int sp;                    /* sequence parallelism (Megatron, with TP) */
    int zero;                  /* DeepSpeed ZeRO stage 0-3 */
    vp_framework framework;
    vp_fsdp fsdp;
    int offload_optimizer, offload_params, activation_offload;
    int distributed_optimizer; /* Megatron --use-distributed-optimizer */
    int selective_recompute;   /* Megatron --recompute-granularity selective */
    int grad_as_bucket_view;   /* DDP gradient_as_bucket_view */
    int64_t reduce_bucket, allgather_bucket; /* DeepSpeed bucket sizes, in elements */
    int64_t ddp_bucket_mb;
    /* PyTorch FSDP and DeepSpeed precision details (plan_parallel_precision.c) */
    int fsdp_version;          /* 1 = FullyShardedDataParallel, 2 = fully_shard (default) */
    int fsdp_param_dtype;      /* vp_dtype of MixedPrecision(Policy).param_dtype, -1 = from the precision */
    int fsdp_reduce_dtype;     /* ... reduce_dtype, -1 = from the precision */
    int64_t sub_group_size;    /* DeepSpeed ZeRO-3 sub_group_size (elements), default 1e9 */
    int grad_accum_dtype;      /* DeepSpeed data_types.grad_accum_dtype (vp_dtype), -1 = the model dtype */
    int torch_autocast;        /* DeepSpeed config "torch_autocast": {"enabled": true} (fp32 params, torch.autocast) */
} vp_parallel;

typedef struct vp_plan {
    vp_mode mode;
    int64_t batch, seq, grad_accum, new_tokens, dec_seq, image_size;
    int64_t steps;           /* workload.steps: training steps the allocator replay walks (events_train.c), 0 = the
                              * steady state (3: every later step repeats step 3) */
    int64_t images;          /* workload.images: images per sample for a vision-language model (vlm_images.c), 0 = none */
    int64_t image_tokens;    /* tokens those images add to each sample, already inside seq (0 when images = 0) */
    vp_dtype kv_dtype;
    int n_instances;
    vp_instance inst[VP_MAX_INSTANCES];
    vp_gpu gpu;
    int64_t gpu_count;       /* GPUs per node */
    int64_t nodes;
    uint64_t cpu_ram_bytes;  /* per node, 0 = unknown */
    vp_parallel par;
    int n_warnings;
    char warnings[4][200];   /* explained warnings found while validating */
    int quiet;               /* numbers only, no explanation strings (re-estimates behind suggestions) */
    int verdict_only;        /* only `fits` is read (plan_fit.c's search): a device whose tensors alone
                                pass its usable memory is not replayed through the allocator */
    char alloc_conf_text[256]; /* runtime.pytorch_cuda_alloc_conf as given ("" = PyTorch's defaults) */
    vp_alloc_conf alloc_conf;  /* ... as PyTorch reads it */
    /* ---- diffusion pipelines (i12: diffusion_plan.c; 0 = not given) ---- */
    int64_t frames, height, width;   /* workload.frames / height / width: the video or image in pixels */
    struct {
        int cfg;          /* classifier-free guidance on (default) */
        int offload;      /* VP_DIFF_OFFLOAD_*: none, enable_model_cpu_offload, enable_sequential_cpu_offload */
        int vae_tiling, vae_slicing;
        int offload_empty_cache; /* accelerate >= 0.34 empties the cache when a hook offloads a component (default) */
        int offload_8bit;        /* model offload moves a bitsandbytes 8-bit component too (transformers >= 4.58 and
                                    bitsandbytes >= 0.48); default 0: diffusers skips its hook and it stays on the GPU */
        int precompute;   /* training: conditions and latents precomputed first, encoders freed into the cache (precompute.c) */
        int diffusers;    /* VP_DIFFUSERS_* (diffusers.h): the diffusers release whose VAE decode code ran (default: current) */
        int code;         /* VP_DIFF_CODE_*: diffusers' pipeline (default) or the model's own repository code ("official") */
        int64_t text_tokens; /* the prompt's tokens (the pipeline's / script's max_sequence_length); 0: the model's default */
    } diff;
    vp_plan_serve serve;       /* workload.mode "serve": the engine, its settings and the model (plan_serve_parse.c) */
} vp_plan;
enum { VP_DIFF_OFFLOAD_NONE = 0, VP_DIFF_OFFLOAD_MODEL, VP_DIFF_OFFLOAD_SEQUENTIAL };
/* workload.diffusion.code: "diffusers" or "official" (HunyuanVideo only: Tencent/HunyuanVideo's sample_video.py at
 * e965abb, events_hunyuan.c) */
enum { VP_DIFF_CODE_DIFFUSERS = 0, VP_DIFF_CODE_OFFICIAL };
/* The official HunyuanVideo pipeline declares _exclude_from_cpu_offload = ["transformer"]
 * (hyvideo/diffusion/pipelines/pipeline_hunyuan_video.py line 165): under enable_sequential_cpu_offload its
 * transformer is moved to the GPU and stays there (diffusion_plan.c). */
int vp_diff_resident(const vp_plan *plan, const vp_instance *in);
/* workload.frames/height/width/diffusion (diffusion_plan.c; called by parse_workload). */
struct cJSON;
vp_status vp_parse_diffusion_workload(const struct cJSON *w, vp_plan *plan, vp_error *err);
vp_status vp_diffusion_check_magnitudes(const vp_plan *plan, vp_error *err);

/* Refuses workloads whose tokens or bytes no machine could hold (plan_parse.c); the planning layer
 * (plan_edit.c) runs it again after changing batch, seq or new_tokens of a parsed plan. */
vp_status vp_plan_check_magnitudes(const vp_plan *plan, vp_error *err);

#endif
