/* terms.h: per-instance memory terms. Each function computes one quantity from the plan and
 * the model's shapes; the timelines (timeline_train.c, timeline_infer.c) place them in time. */
#ifndef VP_TERMS_H
#define VP_TERMS_H

#include "moment.h"
#include "plan.h"

/* Bytes of one element of a dtype. */
int vp_dtype_bytes(vp_dtype dt);
/* Parameter (storage) dtype and activation dtype of an instance. */
vp_dtype vp_param_dtype(const vp_instance *in);
vp_dtype vp_act_dtype(const vp_instance *in);
int vp_is_amp(const vp_instance *in);
const char *vp_dtype_name(vp_dtype dt);

/* ---- weights.c ---- */
typedef struct {
    int64_t base_params;       /* parameters of the model itself */
    int64_t trainable;         /* parameters that get gradients and optimizer state */
    int64_t adapter_params;    /* LoRA / bottleneck adapter parameters (part of trainable) */
    int64_t base_bytes;        /* resident bytes of the model's own weights (quantized if asked) */
    int64_t quant_const_bytes; /* absmax / scale constants of quantized weights */
    int64_t mxfp4_params;      /* of base_params: gpt-oss experts kept in MXFP4 (17/32 B each), 0 if none */
    int64_t fp32_keep_params;  /* of base_params: kept in fp32 by transformers under float16 (T5 wo), 0 if none */
    int64_t adapter_bytes;     /* adapter weights */
    int64_t grad_bytes;        /* .grad tensors after backward */
    vp_dtype grad_dtype;
} vp_weights;
void vp_weights_compute(const vp_instance *in, vp_weights *w);
/* Layerwise casting ("quant": "fp8", weights.c): the float8-stored Linear params of every block (all = 1) or of
 * the block whose backward runs first (all = 0); 0 when the instance is not layerwise cast. */
int64_t vp_layerwise_cast_params(const vp_instance *in, int all);
/* LoRA: parameters added to one transformer block, and per-token activation bytes per block. */
int64_t vp_lora_params_per_layer(const vp_instance *in);
int64_t vp_lora_layers(const vp_instance *in);
int64_t vp_lora_params_total(const vp_instance *in); /* every block's adapters (hybrid stacks per block type) */
/* Modules of one block that carry an adapter (the targets this family has). */
int vp_lora_modules_per_layer(const vp_instance *in);
double vp_lora_act_per_token_layer(const vp_instance *in);

/* ---- optimizer.c ---- */
typedef struct {
    int64_t state_bytes;  /* persistent state (created at the first step) */
    int64_t temp_bytes;   /* transient during step() */
    char state_explain[160];
    char temp_explain[160];
} vp_optim;
void vp_optimizer_compute(const vp_instance *in, const vp_weights *w, vp_optim *o);

/* ---- activations.c ---- */
typedef struct {
    double layer;        /* bytes per token saved for backward by one block */
    double layer_repl;   /* part of layer that tensor parallelism replicates (hidden-width: norms, block inputs) */
    double layer_attn_s; /* part of layer that is the s×s attention terms (per token) */
    double ckpt_layer;   /* bytes per token kept per checkpointed block (its input) */
    double outside;      /* bytes per token saved outside the blocks (embeddings, final norm, lm_head input) */
    double step_mask;    /* bytes per token of one tensor the forward builds before the blocks and keeps to the end
                          * of backward (diffusers 0.32 HunyuanVideo's (B, N, N) bool attention mask) */
    double kv_extra;     /* per token per layer: KV-cache tensors HF keeps beyond what the graph saves */
    double kv_total;     /* per token per layer: the whole training-time KV cache (kept until `out` dies) */
    double bwd_temp;     /* per token: transient of one block's backward (gradients of its activations) */
    double fwd_temp;     /* per token: transient inside one block's forward above what it saves */
    double lora_bwd;     /* per token: the part of bwd_temp that is one adapter-dtype input gradient */
    int64_t tokens;      /* tokens through the blocks per micro-batch */
    int64_t layers;      /* blocks that save activations */
    const char *attn_kernel; /* what PyTorch runs: "flash", "mem-efficient", "math", "eager" */
    int megatron;        /* Megatron-LM accounting (Korthikanti et al. Table 2) instead of HF per-op */
    /* The saved tensors of one block one by one, per token, in forward order (families that list them;
     * their sum is layer - layer_attn_s). cache 1: the tensor is also a DynamicCache entry, kept by the
     * model output after backward frees the graph; cache 2: a forward transient, not saved, freed at
     * the next cache-3 item (a module's end, no tensor) or at the end of the block. */
    int n_items;
    int items_overflow; /* more tensors than items[] holds: the list is not used */
    struct {
        double bytes;
        int count;
        int cache;
    } items[128];
} vp_acts;
/* Record `count` saved tensors of `bytes` per token in r->items; returns bytes × count
 * (activations_common.c). */
double vp_act_item(vp_acts *r, double bytes, int count);
double vp_act_cache_item(vp_acts *r, double bytes);
double vp_act_transient_item(vp_acts *r, double bytes);
void vp_act_module_end(vp_acts *r);
/* LoRA's saved tensors of one block per token, recorded in r->items when r is not NULL (lora.c). */
double vp_lora_act_items(const vp_instance *in, vp_acts *r);
/* ... of the modules in `modules` (VP_T_* bits) only, so a family can list them where they run. */
double vp_lora_act_items_of(const vp_instance *in, vp_acts *r, unsigned modules);
void vp_activations_compute(const vp_plan *plan, const vp_instance *in, vp_acts *a);

/* ---- logits.c ---- */
typedef struct {
    int64_t elems;       /* b·s·v */
    int64_t held;        /* between forward and backward (logits in the output + saved log-softmax) */
    int64_t out;         /* the logits tensor in the model output (alive until the user drops it) */
    int64_t fwd_peak;    /* extra at the loss in forward, on top of everything held before */
    int64_t bwd_peak;    /* at the loss backward */
} vp_logits;
void vp_logits_compute(const vp_plan *plan, const vp_instance *in, vp_logits *l);

/* ---- runtime.c ---- */
int64_t vp_cublas_workspace_bytes(void);
int64_t vp_context_bytes(const vp_gpu *g);
int64_t vp_nonpytorch_bytes(const vp_gpu *g);
uint64_t vp_capacity_bytes(const vp_gpu *g);
int64_t vp_nccl_bytes(void);

/* ---- functional_copy.c (MEND-style edited functional model) ---- */
/* Resolves an instance's edited_layers (role default, range) once its model is known. */
vp_status vp_functional_copy_edits(vp_instance *in, const char *path, vp_error *err);
double vp_functional_copy_graph_frac(const vp_instance *in);
int64_t vp_functional_copy_edited_params(const vp_instance *in);
int64_t vp_functional_copy_edited_bytes(const vp_instance *in);

#endif
