/* sharding.h: what one device holds of an instance under tensor, pipeline, expert and data
 * parallelism with ZeRO / FSDP sharding and CPU offload (sharding.c). */
#ifndef VP_SHARDING_H
#define VP_SHARDING_H

#include "terms.h"

typedef struct {
    int64_t bytes;
    char explain[192];
} vp_term;

/* Where a device sits in the job. */
typedef struct {
    int64_t rank;       /* global rank of the device */
    int64_t stage;      /* pipeline stage */
    int64_t tp, pp, ep; /* degrees that apply to this instance (1 when it is not sharded) */
    int64_t shard;      /* ZeRO / FSDP sharding degree of model states */
    int zero;           /* effective ZeRO stage (FSDP mapped: full_shard 3, shard_grad_op 2) */
    int first, last;    /* first / last pipeline stage */
} vp_devctx;

typedef struct {
    int quiet;              /* numbers only (see vp_plan.quiet) */
    vp_term weights, quant, adapters, master, grads, grad_fp32, states, opt_temp, gathered, buckets;
    vp_term cpu_states, cpu_weights;
    double layer_frac;      /* fraction of the blocks on this device */
    double act_tp;          /* divisor of per-block activations (TP, with SP for the replicated part) */
    double act_tp_repl;     /* divisor of the replicated (hidden-width) activation terms */
    double inflight;        /* micro-batches whose activations this stage holds (1F1B / interleaved) */
    double logits_div;      /* vocab-parallel logits divisor */
    int has_embed, has_head;
    int64_t head_grad_bytes;
    /* what sharding does to the rest of the step (sharding.c, sharding_fsdp.c) */
    vp_term gathered_bwd;   /* extra in backward: a unit's unsharded grads and reduce-scatter buffers (FSDP) */
    vp_term fp8_weights;    /* Transformer Engine fp8 weight workspaces (row-wise + transpose) */
    vp_term fp8_meta;       /* Transformer Engine amax histories and scales */
    int grads_resident;     /* the gradient partition is allocated once, at init (DeepSpeed ZeRO-3) */
    int no_casts;           /* weights reach the matmuls already in the compute dtype: no autocast copies */
    int casts_cached;       /* autocast's cache keeps each cast weight until the forward ends */
    /* FSDP full_shard's units as the replay allocates them (events_train.c): the root unit, gathered
     * from the model's pre-forward to its post-backward, and one block's unit (0: one gathered term) */
    int64_t gather_root_bytes, gather_block_bytes;
} vp_devstate;

/* The device context of GPU `rank` for an instance (sharded instances follow plan->par). */
void vp_devctx_for(const vp_plan *plan, const vp_instance *in, int64_t rank, vp_devctx *ctx);
/* Device-level bytes of weights, gradients, optimizer state and communication buffers. */
void vp_shard_compute(const vp_plan *plan, const vp_instance *in, const vp_weights *w, const vp_optim *o,
                      const vp_devctx *ctx, vp_devstate *ds);
/* The FSDP part (sharding_fsdp.c): model states of a framework "fsdp" instance with ZeRO-like sharding. */
void vp_shard_fsdp(const vp_plan *plan, const vp_instance *in, const vp_weights *w, const vp_optim *o,
                   const vp_devctx *ctx, double frac, vp_devstate *ds);
/* Set a term's bytes and explanation (no explanation when ds->quiet). */
void vp_term_set(const vp_devstate *ds, vp_term *t, int64_t bytes, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
