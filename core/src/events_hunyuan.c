/* events_hunyuan.c: one denoising step of HunyuanVideo's official inference code (workload.diffusion.code
 * "official": Tencent/HunyuanVideo at e965abb, the commit of the README's "GPU Peak Memory" table), tensor by
 * tensor in the order the allocator sees them, for the replay (alloc_sim.c) and for the step's allocated peak.
 *
 * What runs (sample_video.py -> hyvideo/inference.py -> hyvideo/diffusion/pipelines/pipeline_hunyuan_video.py):
 *  - HYVideoDiffusionTransformer (hyvideo/modules/models.py) built in bf16 (inference.py line 74, factor_kwargs)
 *    and called under torch.autocast(bf16) (pipeline_hunyuan_video.py lines 987-989), grad off
 *    (inference.py line 70 torch.set_grad_enabled(False)); no CFG (cfg_scale 1.0; embedded guidance);
 *  - autocast runs layer_norm in fp32 (PyTorch autocast_mode.cpp, the fp32 list): every nn.LayerNorm of a block
 *    (elementwise_affine=False) casts its bf16 input to an fp32 copy and returns fp32, so modulate()
 *    (modulate_layers.py line 49: x * (1 + scale) + shift) makes two fp32 tensors, and the Linear after it casts its
 *    fp32 input back to a bf16 copy;
 *  - RMSNorm (norm_layers.py: x.float(), pow(2).mean, rsqrt, x * rsqrt, type_as, * weight) on q and k;
 *  - apply_rotary_emb (posemb_layers.py, the (cos, sin) branch) on the image tokens only:
 *    cos/sin are on the CPU (inference.py get_rotary_pos_embed) and copied to the GPU in every call
 *    (`cos.to(xq.device)`), then (xq.float() * cos + rotate_half(xq.float()) * sin).type_as(xq), rotate_half
 *    making -x_imag and a torch.stack;
 *  - attention (attenion.py, mode "flash"): torch.cat of the image and text q, k, v (models.py lines 194-196,
 *    340-341), flash_attn_varlen_func (attenion.py line 104)
 *    (output + fp32 softmax_lse), views for the layouts;
 *  - Python frame lifetimes: named locals live to the end of a block's forward (img_modulated, img_qkv through
 *    the img_v view, q/k/v, attn; the single block's x_mod, linear1's output through the qkv/mlp views, the
 *    RMSNorm outputs through the txt_q/txt_k slices, `output`); the model's forward keeps the last
 *    double-stream block's input in `double_block_args` and its output in `img` through the single-stream
 *    blocks (models.py lines 622-653), and drops a block's input list when the next block's is built.
 * Units below: T tokens × width × bytes. */
#include <string.h>

#include "alloc_events.h"
#include "diffusers.h"

typedef struct {
    double h, f, heads, hd; /* hidden 3072, MLP 12288, heads 24, head_dim 128 */
} hy_dims;

static int32_t al(vp_events *e, double bytes) { return vp_ev_alloc(e, (int64_t)bytes); }

/* nn.LayerNorm under autocast on a bf16 (T, h) input: the fp32 cast of the input, the fp32 output and the
 * (T) fp32 mean / rstd native_layer_norm returns; the cast and the statistics go when it returns. `strided`: the
 * double-stream blocks' image stream is not contiguous (below), autocast's cast keeps its strides (`to` preserves
 * the layout) and the CUDA layer_norm makes a contiguous copy of it first (input.expect_contiguous()) */
static int32_t layer_norm_s(vp_events *e, const hy_dims *d, double T, int strided) {
    int32_t c = al(e, T * d->h * 4), cc = strided ? al(e, T * d->h * 4) : -1;
    int32_t o = al(e, T * d->h * 4), m = al(e, T * 4), r = al(e, T * 4);
    vp_ev_free(e, cc), vp_ev_free(e, c), vp_ev_free(e, m), vp_ev_free(e, r);
    return o;
}
static int32_t layer_norm(vp_events *e, const hy_dims *d, double T) { return layer_norm_s(e, d, T, 0); }

/* modulate(x, shift, scale) = x * (1 + scale) + shift (modulate_layers.py) on the fp32 norm output: the
 * product, then the sum; the product goes, and the caller's norm output once modulate returns */
static int32_t modulate(vp_events *e, const hy_dims *d, double T, int32_t norm) {
    int32_t p = al(e, T * d->h * 4), q = al(e, T * d->h * 4);
    vp_ev_free(e, p);
    vp_ev_free(e, norm);
    return q;
}

/* nn.Linear under autocast on an fp32 input: its bf16 cast (freed when the Linear returns) and the output */
static int32_t linear_cast(vp_events *e, double T, double in, double out) {
    int32_t c = al(e, T * in * 2), o = al(e, T * out * 2);
    vp_ev_free(e, c);
    return o;
}

/* RMSNorm (norm_layers.py lines 32-59) on q or k, (T, h) bf16: x.float() (kept by the caller until _norm
 * returns), pow(2) (freed after mean), the (T, heads) mean and rsqrt, x * rsqrt, type_as, * weight */
static int32_t rms_norm(vp_events *e, const hy_dims *d, double T) {
    int32_t x32 = al(e, T * d->h * 4), sq = al(e, T * d->h * 4), mean = al(e, T * d->heads * 4);
    vp_ev_free(e, sq);
    int32_t rs = al(e, T * d->heads * 4);
    vp_ev_free(e, mean);
    int32_t y = al(e, T * d->h * 4);
    vp_ev_free(e, rs);
    vp_ev_free(e, x32);
    int32_t b = al(e, T * d->h * 2);
    vp_ev_free(e, y);
    int32_t w = al(e, T * d->h * 2);
    vp_ev_free(e, b);
    return w;
}

/* one of xq_out / xk_out in apply_rotary_emb (posemb_layers.py lines 167-171): xq.float() (a), a * cos (b),
 * xq.float() again (c), rotate_half's -x_imag (half width) and torch.stack (2 of them fp32), * sin, the sum,
 * type_as: at most b + c + -x_imag + stack = 7 bf16 units of the image tokens */
static int32_t rope_one(vp_events *e, const hy_dims *d, double N) {
    int32_t a = al(e, N * d->h * 4), b = al(e, N * d->h * 4);
    vp_ev_free(e, a);
    int32_t c = al(e, N * d->h * 4), ni = al(e, N * d->h * 2), st = al(e, N * d->h * 4);
    vp_ev_free(e, ni);
    vp_ev_free(e, c);
    int32_t s = al(e, N * d->h * 4);
    vp_ev_free(e, st);
    int32_t sum = al(e, N * d->h * 4);
    vp_ev_free(e, b), vp_ev_free(e, s);
    int32_t o = al(e, N * d->h * 2);
    vp_ev_free(e, sum);
    return o;
}

/* apply_rotary_emb on the image tokens: the GPU copies of cos and sin, (N, head_dim) fp32 each, then q and k */
static void rope(vp_events *e, const hy_dims *d, double N, int32_t *q, int32_t *k) {
    int32_t cs = al(e, N * d->hd * 4), sn = al(e, N * d->hd * 4);
    *q = rope_one(e, d, N);
    *k = rope_one(e, d, N);
    vp_ev_free(e, cs), vp_ev_free(e, sn);
}

/* flash_attn_varlen_func (flash-attn v2.5.9, the README's pin): the (T, heads, head_dim) bf16 output and the fp32
 * softmax_lse of (sequences, heads, max_seqlen), dropped on return; get_cu_seqlens (attenion.py) cuts each sample
 * into two sequences (valid tokens, text padding), so 2 per sample of T tokens: 2 × heads × T × 4 B */
static int32_t flash(vp_events *e, const hy_dims *d, double T) {
    int32_t o = al(e, T * d->h * 2), lse = al(e, 2.0 * T * d->heads * 4);
    vp_ev_free(e, lse);
    return o;
}

/* x + apply_gate(y, gate): y * gate, then the sum; y goes once the gate's product exists */
static int32_t gated_add(vp_events *e, const hy_dims *d, double T, int32_t y) {
    int32_t g = al(e, T * d->h * 2);
    vp_ev_free(e, y);
    int32_t r = al(e, T * d->h * 2);
    vp_ev_free(e, g);
    return r;
}

/* a stream's MLP branch of MMDoubleStreamBlock (models.py lines 215-222): norm2, modulate, MLP (fc1, GELU-tanh,
 * fc2; mlp_layers.py) on the fp32 modulated input (alive until the MLP returns), gate, residual */
static int32_t mlp_branch(vp_events *e, const hy_dims *d, double T, int strided) {
    int32_t m = modulate(e, d, T, layer_norm_s(e, d, T, strided));
    int32_t f1 = linear_cast(e, T, d->h, d->f), g = al(e, T * d->f * 2);
    vp_ev_free(e, f1);
    int32_t f2 = al(e, T * d->h * 2);
    vp_ev_free(e, g);
    vp_ev_free(e, m);
    return gated_add(e, d, T, f2);
}

/* a stream's attention input in MMDoubleStreamBlock (lines 160-191): norm1, modulate (kept: img_modulated),
 * the qkv Linear (kept through the v view), the q and k RMSNorms */
static void stream_qkv(vp_events *e, const hy_dims *d, double T, int strided, int32_t *mod, int32_t *qkv, int32_t *qn,
                       int32_t *kn) {
    *mod = modulate(e, d, T, layer_norm_s(e, d, T, strided));
    *qkv = linear_cast(e, T, d->h, 3 * d->h);
    *qn = rms_norm(e, d, T);
    *kn = rms_norm(e, d, T);
}

/* MMDoubleStreamBlock.forward (models.py lines 131-235): N image, S text tokens; returns img and txt.
 * The image stream is never contiguous here: PatchEmbed returns x.flatten(2).transpose(1, 2) of the Conv3d output
 * (embed_layers.py line 57), and `img + apply_gate(...)` keeps the layout of its first operand (TensorIterator's
 * reorder_dimensions lets the first input with unequal strides decide), block after block; torch.cat((img, txt), 1)
 * before the single-stream blocks is contiguous. */
static void double_block(vp_events *e, const hy_dims *d, double N, double S, int32_t *img, int32_t *txt) {
    int32_t imod, iqkv, iqn, ikn, iq, ik, tmod, tqkv, tqn, tkn;
    stream_qkv(e, d, N, 1, &imod, &iqkv, &iqn, &ikn);
    rope(e, d, N, &iq, &ik);
    vp_ev_free(e, iqn), vp_ev_free(e, ikn); /* img_q, img_k = img_qq, img_kk */
    stream_qkv(e, d, S, 0, &tmod, &tqkv, &tqn, &tkn);
    int32_t q = al(e, (N + S) * d->h * 2), k = al(e, (N + S) * d->h * 2), v = al(e, (N + S) * d->h * 2);
    int32_t at = flash(e, d, N + S);
    int32_t r1 = gated_add(e, d, N, al(e, N * d->h * 2)); /* img_attn_proj */
    int32_t r2 = mlp_branch(e, d, N, 1);
    vp_ev_free(e, r1);
    int32_t t1 = gated_add(e, d, S, al(e, S * d->h * 2));
    int32_t t2 = mlp_branch(e, d, S, 0);
    vp_ev_free(e, t1);
    /* the frame's locals at return */
    vp_ev_free(e, imod), vp_ev_free(e, iqkv), vp_ev_free(e, iq), vp_ev_free(e, ik);
    vp_ev_free(e, tmod), vp_ev_free(e, tqkv), vp_ev_free(e, tqn), vp_ev_free(e, tkn);
    vp_ev_free(e, q), vp_ev_free(e, k), vp_ev_free(e, v), vp_ev_free(e, at);
    *img = r2, *txt = t2;
}

/* MMSingleStreamBlock.forward (models.py lines 308-360) on L = N + S tokens: returns x + gate * output */
static int32_t single_block(vp_events *e, const hy_dims *d, double N, double S) {
    double L = N + S;
    int32_t xm = modulate(e, d, L, layer_norm(e, d, L));
    int32_t y = linear_cast(e, L, d->h, 3 * d->h + d->f); /* linear1: qkv and mlp in one output */
    int32_t qn = rms_norm(e, d, L), kn = rms_norm(e, d, L);
    int32_t iq, ik;
    rope(e, d, N, &iq, &ik);
    int32_t q = al(e, L * d->h * 2), k = al(e, L * d->h * 2);
    int32_t at = flash(e, d, L);
    int32_t g = al(e, L * d->f * 2);                /* mlp_act(mlp) */
    int32_t c = al(e, L * (d->h + d->f) * 2);       /* torch.cat((attn, mlp_act(mlp)), 2) */
    vp_ev_free(e, g);
    int32_t out = al(e, L * d->h * 2);              /* linear2 (`output`, kept to the return) */
    vp_ev_free(e, c);
    int32_t ga = al(e, L * d->h * 2), x = al(e, L * d->h * 2);
    vp_ev_free(e, ga);
    vp_ev_free(e, xm), vp_ev_free(e, y), vp_ev_free(e, qn), vp_ev_free(e, kn), vp_ev_free(e, iq), vp_ev_free(e, ik);
    vp_ev_free(e, q), vp_ev_free(e, k), vp_ev_free(e, at), vp_ev_free(e, out);
    return x;
}

void vp_ev_hunyuan_official_step(vp_events *e, const vp_arch *a, double img_tokens, double text_tokens) {
    hy_dims d = {(double)a->hidden, (double)a->inter, (double)a->heads,
                 a->heads > 0 ? (double)a->hidden / (double)a->heads : (double)a->hidden};
    double N = img_tokens, S = text_tokens;
    /* img_in (PatchEmbed Conv3d) and txt_in (the token refiner's output) */
    int32_t img = al(e, N * d.h * 2), txt = al(e, S * d.h * 2), pimg = -1, ptxt = -1;
    for (int64_t b = 0; b < a->layers; b++) {
        /* double_block_args = [img, txt, ...] drops the previous block's input list */
        vp_ev_free(e, pimg), vp_ev_free(e, ptxt);
        pimg = img, ptxt = txt;
        double_block(e, &d, N, S, &img, &txt);
    }
    /* x = torch.cat((img, txt), 1); img, txt and the last double block's input stay bound */
    int32_t x = al(e, (N + S) * d.h * 2), px = -1;
    for (int64_t b = 0; b < a->d.blocks2; b++) {
        vp_ev_free(e, px);
        px = x;
        x = single_block(e, &d, N, S);
    }
    vp_ev_free(e, px);
    /* final_layer on x[:, :img_seq_len]: norm_final (fp32), modulate, linear to patch × channels; unpatchify's
     * einsum copy */
    double pc = (double)a->patch_size * (double)a->patch_size * (double)(a->out_channels > 0 ? a->out_channels : 16);
    int32_t m = modulate(e, &d, N, layer_norm(e, &d, N));
    int32_t o = linear_cast(e, N, d.h, pc);
    vp_ev_free(e, m);
    vp_ev_free(e, x), vp_ev_free(e, pimg), vp_ev_free(e, ptxt), vp_ev_free(e, img), vp_ev_free(e, txt);
    int32_t u = al(e, N * pc * 2);
    vp_ev_free(e, o);
    vp_ev_free(e, u);
}

double vp_hunyuan_official_step_peak(const vp_arch *a, double img_tokens, double text_tokens) {
    vp_events e;
    vp_events_init(&e);
    vp_ev_hunyuan_official_step(&e, a, img_tokens, text_tokens);
    double live = 0, peak = 0;
    for (int32_t i = 0; i < e.n && !e.failed; i++) {
        if (e.ev[i].size) live += (double)e.ev[i].size;
        else if (e.ev[i].id >= 0 && e.ev[i].id < i) live -= (double)e.ev[e.ev[i].id].size;
        if (live > peak) peak = live;
    }
    vp_events_free(&e);
    return peak;
}
