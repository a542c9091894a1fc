/* alloc_events.h: a step of training or inference as the ordered list of tensor allocations and
 * frees PyTorch's caching allocator sees (events_train.c, events_infer.c), and the replay of that
 * list through the allocator model (alloc_sim.c) that gives peak reserved memory and the verdict
 * (reserved.c). The moment timelines (timeline_*.c) give the breakdown of allocated bytes; these
 * lists give what the allocator does with the same tensors. */
#ifndef VP_ALLOC_EVENTS_H
#define VP_ALLOC_EVENTS_H

#include <stdint.h>

#include "alloc_sim.h"
#include "timeline.h"

enum { VP_PH_LOAD = 0, VP_PH_FORWARD, VP_PH_BACKWARD, VP_PH_STEP, VP_PH_PREFILL, VP_PH_DECODE, VP_PH_N };
extern const char *const vp_ev_phase_names[VP_PH_N];

/* size > 0: allocate `size` bytes (the event's index is the tensor's id); size == 0: free tensor
 * `id`. */
typedef struct {
    uint64_t size;
    int32_t id;
    uint8_t phase;
} vp_event;

typedef struct {
    vp_event *ev;
    int32_t n, cap;
    int failed; /* out of memory while building: the list is incomplete */
    uint8_t phase;
} vp_events;

void vp_events_init(vp_events *e);
void vp_events_free(vp_events *e);
/* Allocate a tensor of `bytes` (nothing when bytes <= 0: returns -1). */
int32_t vp_ev_alloc(vp_events *e, int64_t bytes);
/* The same from a size computed in doubles (shapes multiplied out): below 1 B (or NaN) nothing; clamped to 2^62. */
int32_t vp_ev_alloc_bytes(vp_events *e, double bytes);
void vp_ev_free(vp_events *e, int32_t id);
/* torch.cuda.empty_cache(): an event of size 0 with this id (the replay frees every cached segment). */
#define VP_EV_EMPTY_CACHE (-2)
void vp_ev_empty_cache(vp_events *e);

/* A group of tensors freed together (one block's saved activations, all .grad tensors...). */
typedef struct {
    int32_t *id;
    int32_t n, cap;
} vp_tensors;
void vp_tensors_push(vp_tensors *t, vp_events *e, int32_t id);
/* Free every tensor of the group, newest first, and empty it. */
void vp_tensors_release(vp_tensors *t, vp_events *e);
void vp_tensors_dispose(vp_tensors *t);

/* Parameter tensors in module-construction order, as element counts (param_tensors.c). */
#define VP_MAX_BLOCK_TENSORS 40
typedef struct {
    int n;
    int64_t elems[VP_MAX_BLOCK_TENSORS];
    unsigned char matmul[VP_MAX_BLOCK_TENSORS]; /* a matmul weight autocast casts */
} vp_tlist;
/* One transformer block's parameters (the first block for families whose blocks differ). */
void vp_block_param_tensors(const vp_instance *in, vp_tlist *t);
/* Parameters outside the blocks: created before the blocks (embeddings) and after them (final norm,
 * head, other modules). */
void vp_outer_param_tensors(const vp_instance *in, vp_tlist *pre, vp_tlist *post);
/* Blocks of an instance (t5: encoder + decoder). */
int64_t vp_block_count(const vp_instance *in);

/* A tied output head is built as its own nn.Linear and then replaced by the embedding matrix
 * (transformers PreTrainedModel.tie_weights after __init__): its first weight is allocated and freed
 * at load, leaving a cached block of vocab x hidden. */
void vp_untied_head(vp_events *e, const vp_inst_calc *c, double bytes_per_elem);
/* The model built on the GPU, one allocation per nn.Parameter in construction order (param_tensors.c):
 * the outer tensors before the blocks, `nblocks` blocks (each followed by its `n_adapter` LoRA tensors
 * of `adapter_bytes`), the outer tensors after them, at `scale` bytes per element; then the untied
 * head's first weight (vp_untied_head). */
void vp_ev_place_weights(vp_events *e, const vp_inst_calc *c, const vp_tlist *pre, const vp_tlist *blk, const vp_tlist *post,
                         int64_t nblocks, double scale, int n_adapter, double adapter_bytes);

/* One decoder block without its graph (events_block.c): widths in elements per token, dtypes in
 * bytes; `in` is the block input (not freed); returns the block output. Cache entries are
 * allocated into *cache_k / *cache_v when given. */
typedef struct {
    double T, h, qd, kvd, f;  /* tokens; hidden, query, key/value and MLP widths */
    double adt, in_b, kvh;    /* activation bytes, projection output bytes, KV cache bytes per token */
    double res;               /* bytes per element of the residual stream */
    /* LoRA adapters (peft lora.Linear) on the projections in `lora_targets` (VP_T_* bits; 0: none):
     * adapter bytes per element, rank, and whether lora_dropout > 0 */
    unsigned lora_targets;
    double ldt, rank;
    int lora_dropout;
    /* autocast (bf16) over an fp32 residual stream: each matmul's weight cast, in bytes, for q, k, v,
     * o, gate, up, down, pushed onto *casts as the matmul runs (NULL: the caller places them) */
    vp_tensors *casts;
    double cast_bytes[7];
} vp_block_dims;
int32_t vp_ev_block_nograd(vp_events *e, const vp_block_dims *d, int32_t in, int32_t *cache_k, int32_t *cache_v);
/* LlamaRMSNorm without its graph: returns its output. */
int32_t vp_ev_norm_nograd(vp_events *e, double T, double h, double adt, double res);

/* One Llama-style decoder block's forward with its graph, LoRA on frozen half-precision weights
 * (events_lora.c): widths in elements per token, dtypes in bytes. Saved tensors go to *saved, the
 * DynamicCache K and V to *cache (NULL: to *saved); h_in (the block input) is freed at the block's end;
 * `first`: the block input needs no gradient (it comes from the frozen embedding);
 * returns the block output. */
typedef struct {
    double T, h, qd, kvd, f, heads; /* tokens; hidden, query, key/value, MLP widths; attention heads */
    double adt, ldt, rank;          /* activation and adapter bytes, LoRA rank */
    unsigned targets;               /* VP_T_* bits adapted */
} vp_lora_block_dims;
int32_t vp_ev_block_lora(vp_events *e, const vp_lora_block_dims *d, int32_t h_in, int first, vp_tensors *saved, vp_tensors *cache);
/* LlamaRMSNorm with its graph on a half-precision input, frozen weight: returns its output. */
int32_t vp_ev_norm_train(vp_events *e, const vp_lora_block_dims *d, vp_tensors *saved);
/* Each saved tensor of one block's forward by name (vp_ev_block_lora_saved fills it; -1: none), so
 * that the backward frees each at the op that last reads it. Modules: q, k, v, o, gate, up, down. */
typedef struct {
    int32_t drop, mask, a; /* dropout output, its bool mask, lora_A's output */
} vp_lora_mod_saved;
typedef struct {
    vp_lora_mod_saved m[7];
    int32_t x1, r1, x2, r2;     /* the two norms' fp32 input and rsqrt */
    int32_t qr, lse, o, k, v;   /* SDPA's saved q, logsumexp, output; K and V when the cache does not keep them */
    int32_t g, act, u;          /* the MLP's gate output, act(gate), up output */
} vp_lora_block_saved;
int32_t vp_ev_block_lora_saved(vp_events *e, const vp_lora_block_dims *d, int32_t h_in, int first, vp_tensors *saved,
                               vp_tensors *cache, vp_lora_block_saved *ls);
/* Whether vp_ev_block_lora_backward covers these dims (what the trace it was read from shows: every
 * projection adapted, adapters wider than the activations). */
int vp_lora_backward_opwise(const vp_lora_block_dims *d);
/* The backward of one block (events_lora.c): `g` the gradient of its output (the residual stream,
 * kept: the block adds its branches' input gradients into it in place; freed in the first block,
 * whose input needs none). Adapter .grad tensors go to *grads. Frees every tensor of *s. */
void vp_ev_block_lora_backward(vp_events *e, const vp_lora_block_dims *d, const vp_lora_block_saved *s, int32_t g, int first,
                               vp_tensors *grads);
/* LlamaRMSNorm's backward (frozen weight): frees g, x and rsqrt, returns the input's gradient. */
int32_t vp_ev_norm_train_backward(vp_events *e, const vp_lora_block_dims *d, int32_t g, int32_t x, int32_t rsqrt);

/* apply_rotary_pos_emb on q or k (width w bytes per token) and its backward (events_lora.c): the
 * rotated tensor; the pre-rotation gradient (g freed). */
int32_t vp_ev_rope(vp_events *e, double T, double w);
int32_t vp_ev_rope_backward(vp_events *e, double T, double w, int32_t g);

/* A Llama-style decoder block trained in full in fp32, with SDPA's math kernel (events_fp32_block.c,
 * read off the H100 trace qwen05-fp32-b4s1024): widths in elements per token, every tensor fp32. */
typedef struct {
    double T, b, s;               /* tokens = batch x sequence */
    double h, qd, kvd, f, heads;  /* hidden, query, key/value, MLP widths; attention heads */
    int qkv_bias;                 /* q, k, v projections have biases (qwen2) */
} vp_fp32_block_dims;
/* LlamaRMSNorm's saved tensors: its input, rsqrt, x * rsqrt */
typedef struct {
    int32_t x, r, y;
} vp_fp32_norm_saved;
typedef struct {
    vp_fp32_norm_saved n1, n2;   /* the two norms (n1.x: the block input; n2.x: the residual after attention) */
    int32_t o1;                  /* input_layernorm's output (saved by q, k, v) */
    int32_t o2;                  /* post_attention_layernorm's output (saved by gate, up) */
    int32_t kt, vx, qc, pr, oc;  /* SDPA math: K^T x scale, repeated V, q's fold copy, probabilities; the contiguous output */
    int32_t g, act, u, p;        /* MLP: gate output, act(gate), up output, their product */
} vp_fp32_block_saved;
/* LlamaRMSNorm forward with a trained weight on an fp32 input x (kept, saved): returns its output. */
int32_t vp_ev_norm_fp32(vp_events *e, const vp_fp32_block_dims *d, int32_t x, vp_fp32_norm_saved *s);
/* Its backward from output gradient g (freed); s's tensors freed; the weight's gradient goes to
 * *grads. resid >= 0: the input's gradient is added into resid in place (returns resid); else the
 * new gradient of the input is returned. */
int32_t vp_ev_norm_fp32_backward(vp_events *e, const vp_fp32_block_dims *d, const vp_fp32_norm_saved *s, int32_t g,
                                 int32_t resid, vp_tensors *grads);
/* One block's forward: `in` (the block input) is saved, K and V go to *cache; returns the output. */
int32_t vp_ev_block_fp32(vp_events *e, const vp_fp32_block_dims *d, int32_t in, vp_tensors *cache, vp_fp32_block_saved *s);
/* Its backward: g the residual stream's gradient (kept: the block adds into it in place); weight
 * gradients go to *grads; every tensor of *s (the block input included) is freed. */
void vp_ev_block_fp32_backward(vp_events *e, const vp_fp32_block_dims *d, const vp_fp32_block_saved *s, int32_t g,
                               vp_tensors *grads);
/* The CUDA sum over T rows of a (T, w) fp32 tensor (a weight's or bias's gradient over the tokens):
 * allocates the w x 4 B result into *grads and frees the kernel's global-memory buffer and semaphores. */
void vp_ev_token_sum(vp_events *e, double T, double w, vp_tensors *grads);

/* cogvideox-factory's checkpointed LoRA step on a CogVideoX transformer, op by op (events_cogvideox.c). */
typedef struct {
    double v, t;          /* video and text tokens of the batch */
    double h, f, heads;   /* hidden width, feed-forward width, attention heads */
    double rank;          /* the adapters' rank (to_q, to_k, to_v, to_out.0) */
    double out_w;         /* proj_out's width: p × p × out_channels */
    int rotary;           /* use_rotary_positional_embeddings (5b) */
} vp_cog_dims;
typedef struct {
    int32_t cast, normed, loss; /* norm_final's saved fp32 input and output; the loss's fp32 tensor freed by its backward */
} vp_cog_head;
/* One transformer forward at inference, op by op (the pipeline's denoising step; d's tokens include classifier-free
 * guidance's doubled batch, rank 0); every tensor it makes is freed by its end. */
void vp_ev_cog_transformer_infer(vp_events *e, const vp_cog_dims *d, int64_t blocks);
/* The patch embedding's output (the first block's inputs are its views), kept to the end of the backward. */
int32_t vp_ev_cog_embed(vp_events *e, const vp_cog_dims *d);
/* One checkpointed block's forward: *h and *enc are its video and text inputs (not freed: the checkpoint keeps them),
 * replaced by its outputs. */
void vp_ev_cog_block(vp_events *e, const vp_cog_dims *d, int32_t *h, int32_t *enc);
/* Its recompute and backward; frees its inputs (-1: views of the embedding). `last`: the last block of a model whose
 * text output feeds nothing (no rotary embedding: norm_final reads the video stream only), whose backward makes the
 * text stream's gradient: returned (else -1). */
int32_t vp_ev_cog_block_backward(vp_events *e, const vp_cog_dims *d, int32_t in_h, int32_t in_e, int last);
/* norm_final, norm_out, proj_out and the loss: the last block's outputs freed, two loss tensors into *kept. */
void vp_ev_cog_head(vp_events *e, const vp_cog_dims *d, int32_t last_h, int32_t last_e, vp_cog_head *s, vp_tensors *kept);
/* Its backward (the backward thread's cuBLAS workspace where *workspace is 0); returns the residual stream's gradient
 * (video; joint where rotary). */
int32_t vp_ev_cog_head_backward(vp_events *e, const vp_cog_dims *d, vp_cog_head *s, int *workspace);

/* The events of one device's job: three training steps, or one generate call. */
void vp_events_train(const vp_plan *plan, const vp_inst_calc *cs, int n, vp_events *out);
void vp_events_infer(const vp_plan *plan, const vp_inst_calc *cs, int n, vp_events *out);
/* A diffusers pipeline call (events_diffusion.c; i12). */
void vp_events_diffusion(const vp_plan *plan, const vp_inst_calc *cs, int n, vp_events *out);
/* The CogVideoX VAE decode of today's diffusers, op by op (events_vae_cogvideox.c): a batch of `frames` × height ×
 * width videos at `elem` bytes per element, untiled or with enable_tiling(); returns the decoded video, still
 * allocated (every other tensor it makes is freed by its end). */
int32_t vp_ev_cogvideox_decode(vp_events *e, const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width,
                               double elem, int tiling);
/* Decoder calls that decode makes (calls per tile × tiles): the op-by-op programs run up to VP_EV_DECODE_CALLS of them
 * (a few hundred events each), beyond which the caller replays the decode in pieces. */
#define VP_EV_DECODE_CALLS 400
double vp_ev_cogvideox_decode_calls(const vp_arch *a, int64_t frames, int64_t height, int64_t width, int tiling);
/* The Wan 2.1 VAE decode (diffusers' AutoencoderKLWan, or Wan's own flat Decoder3d where arch.d.vae_flat), untiled
 * or tiled, op by op (events_vae_wan.c); returns the decoded (clamped) video, still allocated. Its decoder calls
 * (latent frames × tiles) as vp_ev_cogvideox_decode_calls counts them. */
int32_t vp_ev_wan21_decode(vp_events *e, const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width,
                           double elem, int tiling);
double vp_ev_wan21_decode_calls(const vp_arch *a, int64_t frames, int64_t height, int64_t width, int tiling);
/* The Wan 2.1 VAE encode (AutoencoderKLWan._encode, untiled: the first frame, then 4 frames per encoder call), op by op
 * (events_vae_wan.c); returns the latent moments (2 z channels), still allocated. */
int32_t vp_ev_wan21_encode(vp_events *e, const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width,
                           double elem);
/* The 2-D AutoencoderKL decode (FLUX.1, SD3, SDXL), untiled or tiled, op by op (events_vae_kl.c); returns the decoded
 * image, still allocated. Its decoder calls: the tiles (1 untiled). */
int32_t vp_ev_kl_decode(vp_events *e, const vp_arch *a, int64_t batch, int64_t height, int64_t width, double elem, int tiling);
double vp_ev_kl_decode_calls(const vp_arch *a, int64_t height, int64_t width, int tiling);
/* its encode, untiled: returns the moments (2 latent channels), still allocated */
int32_t vp_ev_kl_encode(vp_events *e, const vp_arch *a, int64_t batch, int64_t height, int64_t width, double elem);
/* One denoising step of HunyuanVideo's official HYVideoDiffusionTransformer under autocast (events_hunyuan.c):
 * img_tokens and text_tokens over the batch; every tensor it allocates is freed by its end. */
void vp_ev_hunyuan_official_step(vp_events *e, const vp_arch *a, double img_tokens, double text_tokens);
/* The most bytes that step holds at once above its input (the same tensors, summed as they live). */
double vp_hunyuan_official_step_peak(const vp_arch *a, double img_tokens, double text_tokens);
/* A diffusers component's weight tensors, allocated into *t (events_diffusion.c). */
void vp_ev_component_weights(const vp_inst_calc *c, vp_events *e, vp_tensors *t);
/* Diffusion training with workload.diffusion.precompute (precompute.c): whether it applies; the precompute
 * phase's moments and events (text encoders and VAEs loaded, run once, freed into the allocator's cache); the
 * instances that train after it (a copy the caller frees, *n updated; NULL when precompute is off). */
int vp_precompute_on(const vp_plan *plan);
void vp_timeline_precompute(const vp_plan *plan, const vp_inst_calc *cs, int n, vp_sink *out);
void vp_events_precompute(const vp_plan *plan, const vp_inst_calc *cs, int n, vp_events *out);
vp_inst_calc *vp_precompute_training(const vp_plan *plan, const vp_inst_calc *cs, int *n);

/* ---- reserved.c ---- */
typedef struct {
    uint64_t peak_alloc;      /* max allocated bytes over the replay */
    uint64_t peak_reserved;   /* max reserved (segments) over the replay, without a memory limit */
    int fits;                 /* replayed under the usable memory without an out-of-memory error */
    int retries;              /* cudaMalloc failures PyTorch recovered from by freeing its cache */
    int oom_phase;            /* VP_PH_* of the failing request when !fits */
    vp_alloc_oom oom;         /* the failing request when !fits */
    int32_t n_events;
} vp_reserved;

/* Replay `ev` through the allocator model under `conf`; `usable` is what the allocator may take
 * (0 = unlimited). */
void vp_replay(const vp_events *ev, const vp_alloc_conf *conf, uint64_t usable, vp_reserved *out);
/* The least allocator limit in (lo, hi] under which the replay runs without an out-of-memory error,
 * to 1 % (hi must be one under which it runs). */
uint64_t vp_replay_min_limit(const vp_events *ev, const vp_alloc_conf *conf, uint64_t lo, uint64_t hi);

#endif
