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
} vp_estimate;

/* Compute an estimate (without suggestions). out is filled completely; returns VP_OK or an error code. */
vp_status vp_estimate_plan(const vp_plan *plan, vp_estimate *out, vp_error *err);
/* The estimate as vramplan/estimate@1 JSON (free with vp_free). */
char *vp_estimate_to_json(const vp_estimate *est, int pretty);

/* One call: plan JSON in, estimate JSON (without suggestions) out (free with vp_free). NULL on error. */
char *vp_estimate_json(const char *plan_json, const vp_registry *reg, int pretty, vp_error *err);

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

#ifdef __cplusplus
}
#endif
#endif
