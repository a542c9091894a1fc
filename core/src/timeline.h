/* timeline.h: place each instance's terms in the moments of one training or inference step. */
#ifndef VP_TIMELINE_H
#define VP_TIMELINE_H

#include "sharding.h"
#include "terms.h"

/* Receives the moments of a step one at a time: keeps the largest (the peak) and the largest
 * total of each phase (the timeline), so any number of instances fits in fixed memory. */
typedef struct {
    vp_moment best;
    int64_t best_total;
    int n_phases;
    vp_phase phases[VP_MAX_PHASES];
    vp_moment work[6]; /* scratch moments the timelines build in */
} vp_sink;

void vp_sink_init(vp_sink *s);
void vp_sink_push(vp_sink *s, const vp_moment *m);
/* Only the phase's largest total (a phase before the peak statistics are reset, as precompute.c's). */
void vp_sink_note_phase(vp_sink *s, const vp_moment *m);

/* Everything derived for one instance. */
typedef struct {
    const vp_instance *in;
    vp_owner owner;
    vp_weights w;
    vp_optim o;
    vp_acts a;
    vp_logits l;
    int owns_weights; /* 0 when it runs through another instance's weights */
    vp_devctx ctx;    /* where the device sits in the parallel layout */
    vp_devstate ds;   /* this device's share of the model states */
    double act_div_shard, act_div_repl; /* tensor-parallel divisors of block activations */
    double inflight;  /* pipeline micro-batches in flight on this stage */
    double logits_div;
    int on_head;      /* this device computes the output head and loss */
    int grads_resident; /* gradient buffers allocated up front (Megatron's contiguous main_grad buffer) */
} vp_inst_calc;

/* Derive every term of an instance as seen by GPU `rank`. */
void vp_inst_calc_init(const vp_plan *plan, const vp_instance *in, int64_t rank, vp_inst_calc *c);

/* Bytes per token of one block's saved activations on this device (include_s2: with the s×s
 * attention terms). */
double vp_block_bytes(const vp_inst_calc *c, int include_s2);
/* bf16 copies of the matmul weights autocast makes in forward (timeline_train.c). */
int64_t vp_amp_weight_copies(const vp_inst_calc *c);

/* Tensors resident for the whole step on a device: weights, adapters, optimizer state. */
void vp_add_resident(vp_moment *m, const vp_inst_calc *c, int with_state);
/* Moments of one device's step (train: forward/backward/step; infer: prefill/decode). */
void vp_timeline_train(const vp_plan *plan, vp_inst_calc *calcs, int n, vp_sink *out);
void vp_timeline_infer(const vp_plan *plan, vp_inst_calc *calcs, int n, vp_sink *out);
/* Bytes of torch.autocast's cached 16-bit weight copies for a DiT instance with fp32 weights run under autocast
 * (precision amp_bf16 / amp_fp16) whose instance keeps autocast_cache on; 0 otherwise (timeline_diffusion.c). */
double vp_dit_autocast_cache_bytes(const vp_instance *in);
/* The bytes of a group-offloaded component on the GPU while it runs (its weights and quantization constants × the
 * share vp_diff_group_share gives; timeline_diffusion.c), with that share's explanation in why; *total: all of them. */
int64_t vp_diff_group_bytes(const vp_inst_calc *c, char *why, size_t n, double *total);
/* A diffusers pipeline call: text encoders, denoising steps, VAE decode (timeline_diffusion.c). */
int vp_plan_is_diffusion(const vp_plan *plan);
void vp_timeline_diffusion(const vp_plan *plan, vp_inst_calc *calcs, int n, vp_sink *out);

#endif
