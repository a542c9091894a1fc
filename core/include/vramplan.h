/* vramplan: predict peak GPU memory of training and inference jobs.
 *
 * One public header. The library never prints, exits or aborts; every fallible call
 * returns NULL (or a nonzero status) and fills a vp_error with a code, the JSON path of
 * the bad field and a message.
 *
 * Ownership: every char* returned by this library is freed with vp_free(); every object
 * returned by a *_new / *_from_* / vp_estimate_plan call is freed with its *_free, and
 * every *_free accepts NULL.
 */
#ifndef VRAMPLAN_H
#define VRAMPLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VP_VERSION "0.1.0"
#define VP_PLAN_SCHEMA "vramplan/plan@1"
#define VP_ESTIMATE_SCHEMA "vramplan/estimate@1"
#define VP_PROBE_SCHEMA "vramplan/gpu-probe@1"

typedef enum {
    VP_OK = 0,
    VP_ERR_JSON = 1,        /* not parseable JSON */
    VP_ERR_SCHEMA = 2,      /* unknown or missing schema version */
    VP_ERR_FIELD = 3,       /* unknown field, missing field or wrong type */
    VP_ERR_RANGE = 4,       /* zero, negative, non-finite or absurd number */
    VP_ERR_UNSUPPORTED = 5, /* unknown model type, preset, optimizer... */
    VP_ERR_NOMEM = 6,
    VP_ERR_IO = 7
} vp_status;

typedef struct {
    vp_status code;
    char path[128];    /* JSON path of the offending field, e.g. "instances[0].model.hf_config.hidden_size" */
    char message[256]; /* one human sentence */
} vp_error;

const char *vp_status_name(vp_status code);
void vp_free(void *p);

/* Is text JSON the way every reader of this library reads it (plans, probe files, configs,
 * records)? Strict RFC 8259: UTF-8 only, no key given twice in any object, no \u0000 or unpaired
 * surrogate, nothing after the value. VP_OK, or VP_ERR_JSON / VP_ERR_FIELD with the line and
 * column (and the JSON path, when the problem is inside a field). The CLI checks each file it reads
 * with it, so an error names the file's own line. */
vp_status vp_json_check(const char *text, vp_error *err);

/* ---- presets (models/ and GPUs) ---------------------------------------------------- */
typedef struct vp_registry vp_registry;
/* The presets compiled into the library from models/ at build time. */
vp_registry *vp_registry_builtin(vp_error *err);
/* Presets from a JSON bundle {"models":[...], "gpus":[...]} (same format as models/). */
vp_registry *vp_registry_from_json(const char *json, vp_error *err);
void vp_registry_free(vp_registry *reg);
/* The builtin bundle's JSON text (static storage, do not free). */
const char *vp_builtin_presets_json(void);

/* ---- plans ------------------------------------------------------------------------- */
typedef struct vp_plan vp_plan;
/* Parse and validate a vramplan/plan@1 document. reg may be NULL (then presets are refused). */
vp_plan *vp_plan_from_json(const char *json, const vp_registry *reg, vp_error *err);
void vp_plan_free(vp_plan *plan);

/* ---- estimates ----------------------------------------------------------------------- */
#define VP_MAX_COMPONENTS 48
#define VP_MAX_PHASES 8
#define VP_MAX_GPUS 16     /* GPUs per node that an estimate lists */
#define VP_MAX_DEVICES 18  /* the node's GPUs, the last pipeline stage on another node, CPU RAM */
#define VP_MAX_INSTANCES 8
#define VP_MAX_WARNINGS 8

typedef struct {
    char id[32];        /* stable id: weights, grads, optimizer_state, activations, logits, ... */
    char instance[48];  /* which model instance it belongs to ("" for device-wide terms) */
    char role[24];
    char label[64];     /* short human label */
    uint64_t bytes;     /* bytes at the device's peak phase */
    char explain[192];  /* one line with the arithmetic */
} vp_component;

typedef struct {
    char name[24];
    uint64_t alloc_bytes;
} vp_phase;

typedef struct {
    int index;          /* GPU index, or -1 for the CPU */
    char kind[8];       /* "gpu" | "cpu" */
    char name[96];
    uint64_t capacity_bytes;
    uint64_t usable_bytes;
    uint64_t context_bytes;
    uint64_t peak_alloc_bytes;
    uint64_t peak_reserved_bytes;
    uint64_t nvidia_smi_bytes;
    int64_t headroom_bytes;
    int fits;
    /* PyTorch's caching allocator, replayed over the step's tensors (alloc_sim.c): */
    int fragmentation;          /* 1: the allocated peak fits, but a request finds no block or segment */
    uint64_t failed_request_bytes; /* the request that fails (0 when it fits) */
    uint64_t cached_unusable_bytes; /* reserved but free at that failure: no block large enough */
    int alloc_retries;          /* cudaMalloc failures recovered by freeing the cache (slow, but no OOM) */
    char allocator_note[256];   /* the allocator's verdict in words */
    char peak_phase[24];
    int n_phases;
    vp_phase phases[VP_MAX_PHASES];
    int n_components;
    vp_component components[VP_MAX_COMPONENTS];
} vp_device;

typedef struct {
    char name[48];
    char role[24];
    char model_type[24];
    uint64_t params_total;
    uint64_t params_trainable;
} vp_instance_info;

#define VP_MAX_SUGGESTIONS 8

/* One change to the plan and what it does to the tightest device. */
typedef struct {
    char id[32];             /* stable id: grad_ckpt, halve_batch, adamw_8bit, lora, qlora, ..., or combined */
    char ids[160];           /* combined: the ids applied together, comma-separated */
    char change[160];        /* what to change, in words */
    uint64_t peak_reserved_bytes; /* the tightest GPU's predicted reserved memory after the change */
    int64_t saves_bytes;     /* reduction of that GPU's reserved memory */
    int fits;
} vp_suggestion;

/* Serving engines (workload.mode "serve"; core/src/serve_*.c): what the engine prints at startup,
 * per GPU (rank 0 of the first pipeline stage). Zero / "" for the other modes. */
#define VP_SERVING_MAX_LINES 12
typedef struct {
    char engine[16];                 /* "vllm" | "sglang" | "llamacpp"; "" = not a serve plan */
    int64_t tp, pp, gpus;
    int64_t max_model_len;
    uint64_t gpu_total_bytes;        /* CUDA total of one GPU */
    uint64_t budget_bytes;           /* vllm: total × gpu_memory_utilization; sglang: free × mem_fraction_static */
    uint64_t weights_bytes_per_gpu;
    uint64_t kv_cache_bytes_per_gpu;
    int64_t kv_cache_tokens;
    double max_concurrency;          /* requests of max_model_len the cache holds at once */
    /* vLLM's profile terms (gpu_worker.py determine_available_memory) */
    uint64_t activation_peak_bytes, forward_peak_bytes, sampler_peak_bytes, non_torch_bytes, cuda_graph_bytes;
    int64_t num_gpu_blocks, block_size, kv_cache_groups, kv_bytes_per_token;
    /* llama.cpp */
    int64_t n_gpu_layers, ctx_cells;
    uint64_t model_buffer_gpu_bytes, model_buffer_cpu_bytes, compute_buffer_bytes, kv_k_bytes, kv_v_bytes;
    char launch[512];                /* the command that starts this deployment */
    char note[256];
    int n_lines;                     /* the arithmetic, one line per figure (CLI table, page) */
    char lines[VP_SERVING_MAX_LINES][192];
    /* planning answers, each re-estimated (vp_estimate_with_suggestions; core/src/plan_serve.c) */
    int has_answers;
    int n_at;                        /* maximum concurrency at other context lengths */
    int64_t at_len[6];
    double at_concurrency[6];
    int64_t longest_max_model_len;   /* the longest max_model_len (llama.cpp: ctx_size) that starts */
    char longest_launch[512];
    double target_concurrency;       /* workload.target_concurrency (default 1) */
    int64_t fewest_tp;               /* fewest GPUs (TP degree) reaching it at max_model_len; 0 = none up to 16 */
    double fewest_tp_concurrency;
    char fewest_launch[512];
    int64_t best_n_gpu_layers;       /* llama.cpp: the most layers that fit the card (-1 = not llama.cpp) */
    char ngl_launch[512];
} vp_serving;

typedef struct {
    int fits;
    char summary[512];
    int n_instances;
    vp_instance_info instances[VP_MAX_INSTANCES];
    int n_devices;
    vp_device devices[VP_MAX_DEVICES];
    int n_warnings;
    char warnings[VP_MAX_WARNINGS][256];
    int n_suggestions;       /* vp_estimate_with_suggestions: when the plan does not fit or has under 10% headroom; vp_estimate_plan: 0 */
    vp_suggestion suggestions[VP_MAX_SUGGESTIONS];
    vp_serving serving;      /* workload.mode "serve" only (engine[0] != 0) */
} vp_estimate;

/* Compute an estimate (without suggestions). out is filled completely; returns VP_OK or an error code. */
vp_status vp_estimate_plan(const vp_plan *plan, vp_estimate *out, vp_error *err);
/* The estimate as vramplan/estimate@1 JSON (free with vp_free). */
char *vp_estimate_to_json(const vp_estimate *est, int pretty);

/* One call: plan JSON in, estimate JSON (without suggestions) out (free with vp_free). NULL on error. */
char *vp_estimate_json(const char *plan_json, const vp_registry *reg, int pretty, vp_error *err);

/* A diffusion pipeline preset picked for instances[index] (a preset with pipeline.components): the plan
 * with the pipeline's other components added as instances (inference: text encoders and VAE, frozen and
 * no-grad; training: none unless workload.diffusion.precompute), and workload.seq dropped unless keep_seq.
 * Expanding twice adds nothing. *added (may be NULL): how many instances were added. Free with vp_free;
 * NULL on error (the plan is not JSON, or index names no instance). core/src/pipeline_expand.c */
char *vp_plan_expand_pipeline_json(const char *plan_json, const vp_registry *reg, int index, int keep_seq,
                                   int *added, vp_error *err);

/* A measured run in the format of shared/groundtruth/calibration.jsonl -> an equivalent plan JSON
 * (free with vp_free). Used by `vramplan calibrate`. */
char *vp_record_to_plan_json(const char *record_json, vp_error *err);

/* ==== planning: suggestions, fit, recommend (core/src/plan_*.c) ======================================
 * A layer above the estimator. It changes copies of a parsed plan and estimates them with
 * vp_estimate_plan (the bare estimate: n_suggestions = 0), which never calls back into this layer. */

/* vp_estimate_plan, then quantified suggestions when memory is tight (a device does not fit or has
 * under 10% headroom): each suggestion is one change to the plan, estimated again. This is what
 * `vramplan estimate` and the page show. */
vp_status vp_estimate_with_suggestions(const vp_plan *plan, vp_estimate *out, vp_error *err);
/* One call: plan JSON in, estimate@1 JSON with suggestions out (free with vp_free). NULL on error.
 * (vp_estimate_json above prints the bare estimate.) */
char *vp_estimate_with_suggestions_json(const char *plan_json, const vp_registry *reg, int pretty, vp_error *err);

#define VP_FIT_SCHEMA "vramplan/fit@1"
#define VP_SWEEP_SCHEMA "vramplan/sweep@1"
#define VP_RECOMMEND_SCHEMA "vramplan/recommend@1"

/* The workload value fit and sweep vary; the rest of the plan is kept. */
typedef enum { VP_FIELD_BATCH = 0, VP_FIELD_SEQ, VP_FIELD_NEW_TOKENS, VP_FIELD_FRAMES } vp_field;
/* "batch" | "seq" | "new_tokens" | "frames" (the workload key) */
const char *vp_field_name(vp_field f);
/* "batch", "seq", "new_tokens", "new-tokens" or "frames" -> *out; VP_ERR_FIELD otherwise. */
vp_status vp_field_from_name(const char *name, vp_field *out, vp_error *err);

#define VP_FIT_MAX_GAPS 8

/* The largest value of one workload field that fits (docs/schema/fit.md). Memory is not assumed to be
 * monotone in the value: after the exponential + binary search the neighbours are estimated too. */
typedef struct {
    vp_field field;
    int64_t step;            /* the values searched are 1, 1 + step, 1 + 2 step, ...: 1, except frames, which go
                                by the video VAE's temporal compression (4k + 1 frames for a 4x VAE) */
    int64_t value;           /* largest value that fits; 0 when not even 1 fits */
    int64_t limit;           /* the largest value the search may try (plan format, tokens per step, model positions) */
    char limit_reason[160];  /* why limit is the limit, in words */
    int limited;             /* value == limit: value + step is not a valid plan, `next` is not estimated */
    int n_estimates;         /* estimates the search made */
    int n_gaps;              /* values below `value` that were estimated and do not fit */
    int64_t gaps[VP_FIT_MAX_GAPS];
    vp_estimate estimate;    /* at value (when value >= 1), without suggestions */
    vp_estimate next;        /* at value + step (when !limited) */
    char next_reason[640];   /* why value + step fails, in words */
} vp_fit;

/* out is about 0.7 MB: allocate it. VP_ERR_FIELD naming workload.<field> when the field does not apply
 * (new_tokens of a training plan, seq of image-only models, frames of a plan with no video model). */
vp_status vp_fit_plan(const vp_plan *plan, vp_field field, vp_fit *out, vp_error *err);
/* vramplan/fit@1 JSON (free with vp_free). */
char *vp_fit_to_json(const vp_fit *fit, int pretty);
/* One call: plan JSON + field name in, fit@1 JSON out (free with vp_free). NULL on error. */
char *vp_fit_json(const char *plan_json, const vp_registry *reg, const char *field, int pretty, vp_error *err);

#define VP_SWEEP_MAX_POINTS 128

typedef struct {
    int64_t value;
    uint64_t peak_reserved_bytes; /* of the GPU with the least headroom */
    uint64_t peak_alloc_bytes;
    int fits;                     /* the estimate's verdict (every device) */
} vp_sweep_point;

/* Peak memory against one workload value, for a chart (docs/schema/sweep.md). */
typedef struct {
    vp_field field;
    uint64_t usable_bytes;   /* usable memory of the GPU with the least headroom at `largest` (or at 1) */
    int64_t largest;         /* the fit value (0: not even 1 fits) */
    int n_points;
    vp_sweep_point points[VP_SWEEP_MAX_POINTS];
} vp_sweep;

/* n_points evenly spaced values up to about 2 × the largest that fits, plus 1, largest and largest + 1
 * (at most VP_SWEEP_MAX_POINTS in all). */
vp_status vp_sweep_plan(const vp_plan *plan, vp_field field, int n_points, vp_sweep *out, vp_error *err);
char *vp_sweep_to_json(const vp_sweep *sweep);
char *vp_sweep_json(const char *plan_json, const vp_registry *reg, const char *field, int n_points, vp_error *err);

#define VP_RECOMMEND_MAX 32

/* One training setup that fits (docs/schema/recommend.md). */
typedef struct {
    int64_t micro_batch, grad_accum;
    int64_t gc_every;          /* checkpoint every k-th block; 0 = off */
    double recompute;          /* share of blocks whose forward is recomputed in backward: 1/k, 0 when off */
    char precision[16];        /* plan names: amp_bf16, bf16, ... */
    char optimizer[24];        /* plan names: adamw, adamw_8bit, ... */
    char optim_impl[12];       /* foreach | fused | forloop */
    char hf_optim[32];         /* TrainingArguments(optim=...) */
    uint64_t optimizer_state_bytes; /* on the GPU with the least headroom */
    int device;                /* that GPU */
    uint64_t peak_alloc_bytes, peak_reserved_bytes, usable_bytes;
    int64_t headroom_bytes;
    char peak_phase[24];
    char summary[512];
} vp_recommendation;

typedef struct {
    int64_t global_batch;      /* micro_batch × grad_accum × data-parallel ranks, kept by every entry */
    int64_t dp;
    int64_t n_setups;          /* setups enumerated */
    int n_estimates;           /* estimates made */
    int n;                     /* entries, fastest first */
    vp_recommendation r[VP_RECOMMEND_MAX];
    char alloc_conf[128];      /* PYTORCH_CUDA_ALLOC_CONF for the winner ("" = PyTorch's default) */
    /* bit i set: the entries' setting applies to instances[i] of the plan */
    unsigned ckpt_instances;   /* grad_ckpt (instances that keep a graph for backward) */
    unsigned precision_instances; /* precision (trained instances) */
    unsigned optim_instances;  /* optimizer (trained instances of the first one's optimizer family) */
    int diffusion;             /* the first trained instance is a diffusion transformer: the winner is also written
                                  as the flags of diffusers' / finetrainers' training scripts */
    int autocast;              /* ... its 16-bit weights trained under torch.autocast (instances[].autocast) */
} vp_recommend;

/* The training setups that fit for a global batch (0 = the plan's batch × grad_accum × dp), fastest
 * first; at most top_n (<= VP_RECOMMEND_MAX) entries. VP_ERR_FIELD naming workload.mode for
 * inference plans. */
vp_status vp_recommend_plan(const vp_plan *plan, int64_t global_batch, int top_n, vp_recommend *out, vp_error *err);
/* vramplan/recommend@1 JSON; plan_json (the plan recommended for) gives each entry the plan to apply. */
char *vp_recommend_to_json(const vp_recommend *rec, const char *plan_json, int pretty);
char *vp_recommend_json(const char *plan_json, const vp_registry *reg, int64_t global_batch, int top_n, int pretty,
                        vp_error *err);

#ifdef __cplusplus
}
#endif
#endif
