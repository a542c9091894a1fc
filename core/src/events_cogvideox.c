/* events_cogvideox.c: cogvideox-factory's LoRA step on a CogVideoX transformer with gradient checkpointing, op by op
 * as the caching allocator sees it: diffusers' CogVideoXBlock (transformers/cogvideox_transformer_3d.py 121-158),
 * CogVideoXLayerNormZero (normalization.py 467-468), CogVideoXAttnProcessor2_0 (attention_processor.py 2297-2336),
 * PEFT 0.21 lora.Linear.forward on to_q / to_k / to_v / to_out.0, all under torch.autocast(bf16) on bf16 weights,
 * each block run by torch.utils.checkpoint (non-reentrant): a forward that keeps only the block's two inputs, then in
 * the backward the recompute of the block (stopped early once every saved tensor is back) and its backward.
 *
 * Every allocation and free of one block, and their order, was read off the H100 allocator trace of the 2b LoRA r64
 * batch-4 step (tests/groundtruth/h100-2026-11-24-diffusion/traces/train-cogvideox-2b-64-4-gc-trace.json.gz; all 30
 * blocks' forwards are the same sequence, and all 30 backwards): the tensors below 1 MiB (LayerNorm statistics, the
 * modulation vectors, the adapters' weight gradients), which go to the allocator's small pool, are left out. The
 * sizes are those of the model's tensors (below), so the same sequence serves the 5b and other batch sizes and ranks.
 * The moment timeline (timeline_train.c, activations_dit.c) counts the same saved tensors; what this adds is the
 * transients and the order, which decide how the caching allocator packs its segments: in that trace the step
 * reserves 21.77 GiB for 18.87 GiB allocated, the 1,042 MiB feed-forward tensors finding no hole among the
 * checkpointed 257 MiB inputs.
 *
 * A program is a string of tokens: a size class (table below) allocates the program's next tensor; "-N" frees its
 * N-th tensor (from 0); "-h" / "-e" free the block's video / text input; "rN" applies the rotary embedding to tensor
 * N (CogVideoX-5b, use_rotary_positional_embeddings), "bN" runs its backward on the gradient tensor N, which it
 * replaces, "iN" applies it at inference (16-bit, no autocast). */
#include <stdlib.h>
#include <string.h>

#include "alloc_events.h"

enum { C_V, C_T, C_J, C_VF, C_TF, C_JF, C_F, C_L, C_S, C_W, C_P, C_PF, C_N };
/* V / T / J: the video, text and joint (text + video) streams, (tokens, h) in bf16; Vf / Tf / Jf: the same in fp32
 * (autocast's layer_norm); F: the feed-forward's (joint, 4h) bf16; L: a LoRA adapter's rank-wide output; S: SDPA's
 * log-sum-exp, (batch, heads, joint) fp32; W: the SDPA backward's workspace (cuDNN / flash-attention: the fp32 dQ
 * accumulator, Jf, and the fp32 softmax row sums, S, as one buffer in the trace: 554,611,456 B = 2 × 273,039,360 +
 * 8,532,480 + 256); P / Pf: proj_out's output, (video tokens, p² × out_channels) in bf16 / fp32. */
static const char *const CLASS[C_N] = {"V", "T", "J", "Vf", "Tf", "Jf", "F", "L", "S", "W", "P", "Pf"};

static void class_bytes(const vp_cog_dims *d, double *sz) {
    double j = d->v + d->t;
    sz[C_V] = 2.0 * d->v * d->h, sz[C_T] = 2.0 * d->t * d->h, sz[C_J] = 2.0 * j * d->h;
    sz[C_VF] = 2.0 * sz[C_V], sz[C_TF] = 2.0 * sz[C_T], sz[C_JF] = 2.0 * sz[C_J];
    sz[C_F] = 2.0 * j * d->f, sz[C_L] = 2.0 * j * d->rank, sz[C_S] = 4.0 * j * d->heads;
    sz[C_W] = sz[C_JF] + sz[C_S];
    sz[C_P] = 2.0 * d->v * d->out_w, sz[C_PF] = 2.0 * sz[C_P];
}

#define MAX_SLOTS 160

typedef struct {
    vp_events *e;
    const vp_cog_dims *d;
    double sz[C_N];
    int32_t slot[MAX_SLOTS];
    int n;
} prog_state;

/* (vp_ev_alloc_bytes clamps a size past 2^62 B before the conversion: no plan reaches it) */
static int32_t al(vp_events *e, double bytes) { return vp_ev_alloc_bytes(e, bytes); }

/* embeddings.py apply_rotary_emb (use_real, unbind_dim -1) on x = the fp32 q or k of the video tokens, (B, heads,
 * video, head_dim) = Vf bytes, and `query[:, :, text_seq_length:] = ...` (attention_processor.py): -x_imag (half of
 * x), the stack (x_rotated, kept to the function's end), x * cos, x_rotated * sin, their sum; copied into the slice
 * in place. Nothing is saved: cos and sin are the only other operands. Read from the code: the traced 2b has no
 * rotary embedding. */
static void rope_forward(prog_state *p) {
    double vf = p->sz[C_VF];
    int32_t neg = al(p->e, vf / 2.0), st = al(p->e, vf);
    vp_ev_free(p->e, neg);
    int32_t xc = al(p->e, vf), xs = al(p->e, vf), sum = al(p->e, vf);
    vp_ev_free(p->e, xc);
    vp_ev_free(p->e, xs);
    vp_ev_free(p->e, st);
    vp_ev_free(p->e, sum);
}

/* Its backward from g, the fp32 gradient of the q (or k) the slice was copied into (Jf; freed): CopySlices (autograd
 * functions/tensor.cpp) clones g for the base and the slice for copy_'s source, and copy_'s backward makes zeros for
 * the overwritten part; then x_rotated * sin and x * cos give one Vf each, -x_imag's backward half of one, unbind's
 * backward stacks the two halves (Vf), added into x's gradient in place; x's slice backward writes it into a zero Jf,
 * which the engine adds into the clone in place. Returns the clone: the LayerNorm's output gradient. The forward and
 * this order, up to the in-place additions, are what torch 1.13 shows on the CPU (tools/groundtruth/rope_cpu_profile.py,
 * whose docstring says what that version does otherwise). */
static int32_t rope_backward(prog_state *p, int32_t g) {
    double vf = p->sz[C_VF], jf = p->sz[C_JF];
    int32_t res = al(p->e, jf), cl = al(p->e, vf), z = al(p->e, vf);
    vp_ev_free(p->e, z);
    vp_ev_free(p->e, g);
    int32_t gxr = al(p->e, vf), gxa = al(p->e, vf);
    vp_ev_free(p->e, cl);
    int32_t gn = al(p->e, vf / 2.0), gs = al(p->e, vf);
    vp_ev_free(p->e, gn);
    vp_ev_free(p->e, gxr);
    vp_ev_free(p->e, gs);
    int32_t gsl = al(p->e, jf);
    vp_ev_free(p->e, gxa);
    vp_ev_free(p->e, gsl);
    return res;
}

/* apply_rotary_emb at inference (embeddings.py lines 1223-1232, no autocast: x is the 16-bit q or k slice, V bytes):
 * -x_imag (half of V), the stack (x_rotated, kept to the function's end), x.float() (Vf, a temporary of the product),
 * x * cos, x_rotated.float(), * sin, the sum, .to(x.dtype) (V), which is copied into the slice in place and goes. */
static void rope_infer(prog_state *p) {
    double v = p->sz[C_V], vf = p->sz[C_VF];
    int32_t neg = al(p->e, v / 2.0), st = al(p->e, v);
    vp_ev_free(p->e, neg);
    int32_t xf = al(p->e, vf), xc = al(p->e, vf);
    vp_ev_free(p->e, xf);
    int32_t rf = al(p->e, vf), xs = al(p->e, vf);
    vp_ev_free(p->e, rf);
    int32_t sum = al(p->e, vf);
    vp_ev_free(p->e, xc);
    vp_ev_free(p->e, xs);
    int32_t out = al(p->e, v);
    vp_ev_free(p->e, sum);
    vp_ev_free(p->e, st);
    vp_ev_free(p->e, out);
}

/* Runs a program; in_h / in_e: the block's inputs (-1: none, or views that are not freed). */
static void run(prog_state *p, const char *prog, int32_t in_h, int32_t in_e) {
    const char *s = prog;
    while (*s) {
        while (*s == ' ') s++;
        if (!*s) break;
        const char *t = s;
        while (*s && *s != ' ') s++;
        size_t len = (size_t)(s - t);
        if (t[0] == '-' && len == 2 && (t[1] == 'h' || t[1] == 'e')) {
            vp_ev_free(p->e, t[1] == 'h' ? in_h : in_e);
        } else if (t[0] == '-' || t[0] == 'r' || t[0] == 'b' || t[0] == 'i') {
            int k = atoi(t + 1);
            if (k < 0 || k >= p->n) continue; /* a program's own numbering: cannot happen with the tables below */
            if (t[0] == '-') {
                vp_ev_free(p->e, p->slot[k]);
                p->slot[k] = -1;
            } else if (p->d->rotary && t[0] == 'r') {
                rope_forward(p);
            } else if (p->d->rotary && t[0] == 'i') {
                rope_infer(p);
            } else if (p->d->rotary) {
                p->slot[k] = rope_backward(p, p->slot[k]);
            }
        } else {
            for (int c = 0; c < C_N; c++)
                if (strlen(CLASS[c]) == len && !strncmp(CLASS[c], t, len)) {
                    if (p->n < MAX_SLOTS) p->slot[p->n++] = al(p->e, p->sz[c]);
                    break;
                }
        }
    }
}

static void start(prog_state *p, vp_events *e, const vp_cog_dims *d) {
    p->e = e;
    p->d = d;
    p->n = 0;
    class_bytes(d, p->sz);
}

/* The block's forward, as its tokens run (numbers: the program's tensors). */
#define COG_FORWARD                                                                                                   \
    /* 0-7 norm1 (CogVideoXLayerNormZero): layer_norm in fp32 under autocast (its input's fp32 copy, its output),  \
     * * (1 + scale), + shift; video then text */                                                                     \
    "Vf Vf -0 Vf -1 Vf -2 Tf Tf -4 Tf -5 Tf -6 "                                                                      \
    /* 8 the processor's torch.cat([text, video]) (fp32); 9-15 to_q: autocast's bf16 copy of it for the base Linear, \
     * the base output, PEFT's _cast_input_dtype copy for lora_A, lora_A's output (L), lora_B's, * scaling, the sum; \
     * 16-22 to_k, 23-29 to_v the same */                                                                             \
    "Jf J J -9 J L J -12 J -13 J -14 -10 -11 J J -16 J L J -19 J -20 J -21 -17 -18 J J -23 J L J -26 J -27 J -28 -24 -25 " \
    /* 30-34 norm_q (LayerNorm(head_dim)): the fp32 copy of the transposed q, its contiguous copy, the output;      \
     * 35-39 norm_k; q and k rotated (5b) */                                                                          \
    "Jf Jf Jf S S -31 -33 -34 -30 -15 Jf Jf Jf S S -36 -38 -39 -35 -22 r32 r37 "                                      \
    /* 40-43 SDPA under autocast: bf16 copies of q and k, the output, the log-sum-exp; 44 transpose + reshape;     \
     * 45-49 to_out.0 with its adapter */                                                                             \
    "J J J S -43 -41 -40 -8 J -42 J L J -46 J -47 J -48 -45 -44 -32 -37 -29 "                                        \
    /* 50-53 hidden + gate_msa * attn (line 142), the text stream's the same (143) */                                 \
    "V V -50 T T -52 "                                                                                                \
    /* 54-61 norm2; 62 the feed-forward's fp32 torch.cat (line 151); 63-66 FeedForward: the bf16 copy, proj, gelu, \
     * the output; 67-70 the two residual sums (lines 154-155): 68 and 70 are the block's outputs */                  \
    "Vf Vf -54 Vf -55 Vf -56 Tf Tf -58 Tf -59 Tf -60 -3 -7 Jf -57 J F -63 F -64 J -65 V V -67 -51 T T -69 -53 -62 -61 -49 -66 "

/* The checkpoint's recompute: the forward's tokens with the saved tensors kept, stopped after the last residual sum
 * of the video stream. */
#define COG_RECOMPUTE                                                                                                 \
    "Vf Vf Vf -1 Vf -2 Tf Tf Tf -5 Tf -6 "                                                                            \
    "Jf J J -9 J L J J -13 J -14 -10 J J -16 J L J J -20 J -21 -17 J J -23 J L J J -27 J -28 -24 "                 \
    "Jf Jf Jf S S -31 -15 Jf Jf Jf S S -36 -22 r32 r37 "                                                              \
    "J J J S -8 J J L J J -47 J -48 -45 -32 -37 "                                                                     \
    "V V -50 T T -52 "                                                                                                \
    "Vf Vf Vf -55 Vf -56 Tf Tf Tf -59 Tf -60 -3 -7 Jf -57 J F -63 F J -65 V V -67 -51 -68 -53 -62 -61 -49 -66 "

/* The block's backward, after its recompute (numbers go on from it). */
#define COG_BACKWARD                                                                                                  \
    /* 69-75 backward of lines 155, 154 (the gated slices' gradients written into one J), FeedForward's second     \
     * Linear, gelu, proj (input gradient J), autocast's cast back to the fp32 concatenation (Jf) */                  \
    "T J -69 V J -71 -72 F -70 F -64 -73 J -74 Jf -75 "                                                               \
    /* 77-82 norm2's backward, text then video: * (1 + scale), layer_norm (fp32), the cast back to bf16, added into \
     * the residual gradient in place */                                                                              \
    "Tf Tf -58 -77 T -78 -79 Vf -76 Vf -54 -80 V -81 -82 "                                                            \
    /* 83-90 lines 143 and 142, the split's backward (J), to_out.0 and its adapter */                                 \
    "T V J -83 -84 J L -46 -86 J -44 -87 J -85 J -88 -89 "                                                            \
    /* 91-94 SDPA's backward: dq, dk, dv and its workspace; 95-96 autocast's casts of dq and dk back to fp32, their \
     * rotary embeddings' backward (5b); 97-102 norm_k's and norm_q's backward, cast back to bf16 */                  \
    "J J J W -94 -42 -43 -29 -41 -40 -90 Jf -91 Jf -92 b96 b95 Jf Jf -97 -39 -38 -35 -96 J -98 Jf Jf -100 -34 -33 -30 -95 J -101 " \
    /* 103-122 to_v, to_k, to_q with their adapters; each input gradient cast to fp32 and added into the          \
     * concatenation's (108) */                                                                                       \
    "J -99 J -102 J L -26 -105 J -25 -106 Jf -107 J -93 Jf -109 -110 J L -19 -111 J -18 -112 Jf -113 -114 J -103 "   \
    "Jf -115 -116 J L -12 -117 J -11 -118 Jf -119 -120 J -104 Jf -121 -122 "                                         \
    /* 123-128 norm1's backward, text then video; the block's inputs go with the last node that saved them */         \
    "Tf Tf -4 -123 T -124 -125 Vf -108 Vf -0 -126 -h -e V -127 -128 "

/* The last block's backward (the trace's first): its text output feeds nothing, so no gradient comes down the text
 * stream and line 155's backward is not run (69-71: line 154's, the feed-forward's gradient is its slice's zero-filled
 * J); norm2's text gradient, cast to bf16 (77), is not added into anything: it stays, the text stream's gradient
 * the blocks below add into. The rest as COG_BACKWARD, one tensor fewer. */
#define COG_BACKWARD_LAST                                                                                             \
    "V J -69 F -70 F -64 -71 J -72 Jf -73 Tf Tf -58 -75 T -76 Vf -74 Vf -54 -78 V -79 -80 "                            \
    "T V J -81 -82 J L -46 -84 J -44 -85 J -83 J -86 -87 "                                                            \
    "J J J W -92 -42 -43 -29 -41 -40 -88 Jf -89 Jf -90 b94 b93 Jf Jf -95 -39 -38 -35 -94 J -96 Jf Jf -98 -34 -33 -30 -93 J -99 " \
    "J -97 J -100 J L -26 -103 J -25 -104 Jf -105 J -91 Jf -107 -108 J L -19 -109 J -18 -110 Jf -111 -112 J -101 "    \
    "Jf -113 -114 J L -12 -115 J -11 -116 Jf -117 -118 J -102 Jf -119 -120 "                                          \
    "Tf Tf -4 -121 T -122 -123 Vf -106 Vf -0 -124 -h -e V -125 -126 "

/* The block at inference (the pipeline's denoising step: no autocast, 16-bit weights, no graph), read from the same
 * code as COG_FORWARD with the trace's rules for the ops it shares (events_vae_cogvideox.c states them): the locals go
 * at the function's return in the order they first appear, a rebinding frees what only it held. */
#define COG_INFER                                                                                                     \
    /* 0-5 norm1: layer_norm, * (1 + scale), + shift; video then text */                                             \
    "V V -0 V -1 T T -3 T -4 "                                                                                        \
    /* 6 the processor's torch.cat([text, video]); 7-9 to_q, to_k, to_v; 10-13 norm_q on the transposed view: its   \
     * contiguous copy, the output, mean and rstd (to_q's output goes with the rebinding); 14-17 norm_k */          \
    "J J J J J J S S -10 -12 -13 -7 J J S S -14 -16 -17 -8 "                                                          \
    /* the rotary embedding (5b) on the video slices of q and k, in place */                                         \
    "i11 i15 "                                                                                                        \
    /* 18-19 SDPA's output and log-sum-exp (the cat goes with the rebinding); 20 transpose + reshape; 21 to_out.0;   \
     * query, key and value go at the processor's return */                                                           \
    "J S -19 -6 J -18 J -20 -11 -15 -9 "                                                                              \
    /* 22-25 the gated residual sums (cogvideox_transformer_3d.py 142-143) */                                        \
    "V V -22 T T -24 "                                                                                                \
    /* 26-31 norm2, whose outputs rebind norm1's; 32 the feed-forward's torch.cat (norm2's video goes); 33-35        \
     * FeedForward: proj, gelu, the second Linear; 36-39 the residual sums (lines 154-155), the attention's sums go;  \
     * at the block's return the cat, norm2's text, to_out's output and ff_output; then the caller's inputs */       \
    "V V -26 V -27 T T -29 T -30 -2 -5 J -28 F F -33 J -34 V V -36 -23 T T -38 -25 -32 -31 -21 -35 -h -e"

/* One CogVideoXTransformer3DModel forward at inference (cogvideox_transformer_3d.py forward: patch_embed, the blocks,
 * norm_final, norm_out, proj_out, the unpatchify copy), then the pipeline's noise_pred.float(); every tensor it makes
 * is freed by its end. */
void vp_ev_cog_transformer_infer(vp_events *e, const vp_cog_dims *d, int64_t blocks) {
    prog_state p;
    start(&p, e, d);
    /* CogVideoXPatchEmbed: text_proj, the patch Conv2d, its flatten copy, the cat (+ the sincos positions: 2b) */
    run(&p, d->rotary ? "T V V -1 J -0 -2" : "T V V -1 J J -3 -0 -2", -1, -1);
    int32_t h = p.slot[p.n - 1], enc = -1; /* the first block's inputs are views of the embedding */
    for (int64_t b = 0; b < blocks && b < 4096; b++) {
        start(&p, e, d);
        run(&p, COG_INFER, h, enc);
        h = p.n > 37 ? p.slot[37] : -1;
        enc = p.n > 39 ? p.slot[39] : -1;
    }
    start(&p, e, d);
    /* 0 norm_final (the last block's video output goes), 1-3 norm_out, 4 proj_out, 5 the unpatchify copy; at the
     * return proj_out's output and the text stream; 6 the pipeline's .float() */
    run(&p, "V -h V V -1 V -2 -0 P -3 P -4 -e Pf -5 -6", h, enc);
}

void vp_ev_cog_block(vp_events *e, const vp_cog_dims *d, int32_t *h, int32_t *enc) {
    prog_state p;
    start(&p, e, d);
    run(&p, COG_FORWARD, -1, -1);
    *h = p.n > 68 ? p.slot[68] : -1;
    *enc = p.n > 70 ? p.slot[70] : -1;
}

int32_t vp_ev_cog_block_backward(vp_events *e, const vp_cog_dims *d, int32_t in_h, int32_t in_e, int last) {
    prog_state p;
    start(&p, e, d);
    run(&p, COG_RECOMPUTE, in_h, in_e);
    run(&p, last ? COG_BACKWARD_LAST : COG_BACKWARD, in_h, in_e);
    return last && p.n > 77 ? p.slot[77] : -1;
}

/* CogVideoXPatchEmbed (embeddings.py 729-770): text_proj's output (T), the latents' permuted copy (P), the patch
 * Conv2d's output (V; cuDNN's workspace for it, 266 MiB in the trace, is not modelled) and its flattened copy, the
 * concatenation [text, video] (J) and, where the positions are a sincos table (2b, no rotary embedding), its sum with
 * it. Returns the embedding, whose views are the first block's inputs, kept to the end of the backward. */
int32_t vp_ev_cog_embed(vp_events *e, const vp_cog_dims *d) {
    prog_state p;
    start(&p, e, d);
    run(&p, d->rotary ? "T P V -1 V -2 J -0 -3" : "T P V -1 V -2 J J -4 -0 -3", -1, -1);
    return p.slot[p.n - 1];
}

/* After the blocks (cogvideox_transformer_3d.py 440-470 and cogvideox-factory's loss): norm_final in fp32 (over the
 * joint stream where the model is rotary: torch.cat, then the video slice, which norm_out's layer_norm copies
 * contiguous), norm_out (AdaLayerNorm: layer_norm, * (1 + scale), + shift), proj_out on autocast's bf16 copy, the
 * unpatchify copy; the last block's outputs go; then the loss in fp32 (the prediction's .float(), the scheduler's
 * get_velocity, the weighted MSE), two of whose tensors the script keeps to the step's end (`kept`). */
void vp_ev_cog_head(vp_events *e, const vp_cog_dims *d, int32_t last_h, int32_t last_e, vp_cog_head *s, vp_tensors *kept) {
    prog_state p;
    start(&p, e, d);
    if (d->rotary) {
        /* 0 the bf16 concatenation, 1-2 norm_final's fp32 copy and output, 3 the contiguous video slice, 4-6
         * norm_out; 7-9 proj_out's bf16 copy and output, unpatchify; 10-17 the loss */
        run(&p, "J Jf Jf -0 -h -e Vf Vf -3 Vf -4 Vf -5 V P -7 -6 P -8 Pf -9 Pf Pf Pf -11 -12 Pf Pf Pf -15 Pf -16 -17", last_h, last_e);
        s->cast = p.slot[1], s->normed = p.slot[2], s->loss = p.slot[14];
        vp_tensors_push(kept, e, p.slot[10]);
        vp_tensors_push(kept, e, p.slot[13]);
    } else {
        /* 0-1 norm_final's fp32 copy and output, 2-4 norm_out; 5-7 proj_out's bf16 copy and output, unpatchify
         * (the text stream goes); 8-15 the loss */
        run(&p, "Vf Vf -h Vf Vf -2 Vf -3 V P -5 -4 P -6 -e Pf -7 Pf Pf Pf -9 -10 Pf Pf Pf -13 Pf -14 -15", last_h, last_e);
        s->cast = p.slot[0], s->normed = p.slot[1], s->loss = p.slot[12];
        vp_tensors_push(kept, e, p.slot[8]);
        vp_tensors_push(kept, e, p.slot[11]);
    }
}

/* The backward of the head (the trace's order): the loss's fp32 gradients, proj_out's (P, then its input's bf16
 * gradient V; the backward thread's cuBLAS workspace at its first GEMM, by the caller), the cast back to fp32,
 * norm_out's * (1 + scale) and layer_norm backward, norm_final's layer_norm backward and its saved tensors, the cast
 * to bf16: the video stream's gradient, returned (the blocks add into it in place). */
int32_t vp_ev_cog_head_backward(vp_events *e, const vp_cog_dims *d, vp_cog_head *s, int *workspace) {
    prog_state p;
    start(&p, e, d);
    run(&p, "Pf Pf -0 Pf Pf Pf -3 -2 -1", -1, -1);
    vp_ev_free(e, s->loss);
    run(&p, "Pf -4 Pf -5 P -6 P -7 V", -1, -1);
    if (!*workspace) vp_ev_alloc(e, vp_cublas_workspace_bytes());
    *workspace = 1;
    run(&p, "-8 Vf -9 Vf -10 Vf -11", -1, -1);
    vp_ev_free(e, s->normed);
    if (d->rotary) { /* the joint stream's gradient: the slice's zeros, then the layer_norm's */
        run(&p, "Jf -12 Jf -13", -1, -1);
        vp_ev_free(e, s->cast);
        run(&p, "J -14", -1, -1);
    } else {
        run(&p, "Vf -12", -1, -1);
        vp_ev_free(e, s->cast);
        run(&p, "V -13", -1, -1);
    }
    return p.slot[p.n - 1];
}
