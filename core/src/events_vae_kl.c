/* events_vae_kl.c: the 2-D AutoencoderKL decode (the VAE of FLUX.1, SD3 / SD3.5 and SDXL) op by op, for the allocator
 * replay. diffusers at 58eb52c0: autoencoder_kl.py AutoencoderKL.decode / _decode / tiled_decode (lines 199-241,
 * 364-411), vae.py Decoder.forward, unet_2d_blocks.py UNetMidBlock2D and UpDecoderBlock2D, resnet.py
 * ResnetBlock2D.forward, upsampling.py Upsample2D.forward, attention_processor.py AttnProcessor2_0 (line 2696).
 *
 * vae.c's kl_call_peak gives the same decode's allocated peak as a sum of what is alive; the order in which these tensors
 * come and go is what decides the segments the caching allocator holds. The rules are those the H100 trace of the
 * CogVideoX decode showed (events_vae_cogvideox.c, which runs the same nn.Conv2d 3×3 in its upsamplers):
 *  - each tensor is freed when its last reference goes: a rebinding, or the function's return;
 *  - the decoder's `sample` holds each block's input until the block returns (Decoder.forward: `sample =
 *    up_block(sample)`), and the block's `hidden_states` its last resnet's output until the upsampler returns;
 *  - cuDNN's workspace of a 3×3 convolution is its input + its output + its weight, allocated after the output and
 *    freed inside the conv; none for a 1×1 conv; a non-contiguous input (a tile, a spatial slice of the latents) is
 *    copied first;
 *  - nn.SiLU is not in place (diffusers activations.py get_activation builds nn.SiLU()), so a resnet holds its input,
 *    the norm's output and SiLU's output at once, until the rebinding frees the norm's.
 * The mid block's attention is one head of block_out_channels[-1] (512 > 256: no flash kernel); SDPA takes the
 * memory-efficient kernel (no mask), whose 16-bit forward with a head dim above 128 accumulates its output in an fp32
 * buffer (PyTorch aten/src/ATen/native/transformers/cuda/attention.cu, kNeedsOutputAccumulatorBuffer). The 1×1
 * post_quant_conv of the SDXL VAE (none in FLUX's or SD3's) is left out: a latent-sized tensor. */
#include <math.h>

#include "alloc_events.h"
#include "diffusers.h"

typedef struct {
    vp_events *e;
    double elem; /* bytes per element of the decode */
    double b;    /* images decoded together */
} kl;

static int32_t t(const kl *x, double c, double px) { return vp_ev_alloc_bytes(x->e, x->b * c * px * x->elem); }
static void fr(const kl *x, int32_t id) {
    if (id >= 0) vp_ev_free(x->e, id);
}

/* nn.Conv2d (padding 1, stride 1): cin channels at px pixels in, cout out; kernel area kv (1: no workspace) */
static int32_t conv(const kl *x, double cin, double cout, double px, double kv, int contig_in) {
    int32_t cp = contig_in ? -1 : t(x, cin, px);
    int32_t o = t(x, cout, px);
    if (kv > 1) fr(x, vp_ev_alloc_bytes(x->e, x->b * (cin + cout) * px * x->elem + cin * cout * kv * x->elem));
    fr(x, cp);
    return o;
}

/* ResnetBlock2D.forward (no temb, output_scale_factor 1): returns its output; the input stays (the caller holds it) */
static int32_t resnet(const kl *x, double cin, double cout, double px) {
    int32_t n1 = t(x, cin, px); /* norm1 */
    int32_t s1 = t(x, cin, px); /* SiLU */
    fr(x, n1);
    int32_t c1 = conv(x, cin, cout, px, 9, 1);
    fr(x, s1);
    int32_t n2 = t(x, cout, px);
    fr(x, c1);
    int32_t s2 = t(x, cout, px); /* dropout: the same tensor in eval */
    fr(x, n2);
    int32_t c2 = conv(x, cout, cout, px, 9, 1);
    fr(x, s2);
    int32_t sc = cin != cout ? conv(x, cin, cout, px, 1, 1) : -1; /* conv_shortcut, 1×1 */
    int32_t sum = t(x, cout, px);                                   /* input_tensor + hidden_states */
    int32_t out = t(x, cout, px);                                   /* / output_scale_factor */
    fr(x, sum);
    fr(x, sc), fr(x, c2); /* the frame's slots: input_tensor, then hidden_states */
    return out;
}

/* Attention (AttnProcessor2_0) over the N latent pixels of c channels, residual_connection on: GroupNorm of the
 * transposed-back view (contiguous), to_q / to_k / to_v (F.linear; a batch of 1 folds the transposed view without a
 * copy), SDPA, to_out, the transpose-and-reshape back to (B, C, H, W) (a copy), + residual, / rescale_output_factor */
static int32_t attention(const kl *x, double c, double N) {
    int32_t g = t(x, c, N);
    int32_t cp = x->b > 1 ? t(x, c, N) : -1; /* matmul's reshape of a strided batch */
    int32_t q = t(x, c, N), k = t(x, c, N), v = t(x, c, N);
    fr(x, cp);
    int32_t o = t(x, c, N);
    if (x->elem < 4) fr(x, vp_ev_alloc_bytes(x->e, x->b * c * N * 4.0)); /* the fp32 output accumulator */
    int32_t p = t(x, c, N);                                                  /* to_out[0] */
    fr(x, o);
    int32_t r = t(x, c, N); /* transpose(-1, -2).reshape */
    fr(x, p);
    int32_t s = t(x, c, N); /* + residual */
    fr(x, r);
    int32_t d = t(x, c, N); /* / rescale_output_factor */
    fr(x, s);
    fr(x, g), fr(x, q), fr(x, k), fr(x, v); /* encoder_hidden_states (an argument's slot), then the locals */
    return d;
}

/* UNetMidBlock2D over c channels at px: resnet, [attention], resnet; its input `in` (the caller's `sample`) goes when
 * the block returns (the caller's rebinding); returns its output */
static int32_t mid_block(const kl *x, const vp_arch *a, int32_t in, double c, double px) {
    int32_t h = resnet(x, c, c, px);
    if (a->d.mid_attn) {
        int32_t at = attention(x, c, px);
        fr(x, h);
        h = at;
    }
    int32_t h2 = resnet(x, c, c, px);
    fr(x, h);
    fr(x, in);
    return h2;
}

/* One Decoder call over a latent tile of pxl pixels (P = pxl × 4^(levels-1) out); contig: the latents are the whole
 * tensor (a tile is a slice); returns its output (3 channels) */
static int32_t decoder_call(const kl *x, const vp_arch *a, double pxl, int contig) {
    int n = a->d.levels;
    double ctop = (double)a->d.ch[n - 1], L = (double)a->d.latent_ch;
    int32_t sample = conv(x, L, ctop, pxl, 9, contig); /* conv_in */
    sample = mid_block(x, a, sample, ctop, pxl);
    double px = pxl, c = ctop;
    for (int j = 0; j < n; j++) { /* UpDecoderBlock2D: layers_per_block + 1 resnets, an Upsample2D but the last */
        double cout = (double)a->d.ch[n - 1 - j];
        int32_t cur = sample;
        for (int r = 0; r <= a->d.layers_per_block; r++) {
            int32_t nx = resnet(x, r == 0 ? c : cout, cout, px);
            if (r > 0) fr(x, cur); /* the block's input stays with the decoder's `sample` */
            cur = nx;
        }
        c = cout;
        if (j < n - 1) {
            int32_t up = t(x, c, 4.0 * px); /* F.interpolate(scale_factor=2.0, mode="nearest") */
            int32_t o = conv(x, c, c, 4.0 * px, 9, 1);
            fr(x, up);  /* Upsample2D's rebinding */
            fr(x, cur); /* the block's */
            cur = o;
            px *= 4.0;
        }
        fr(x, sample); /* the decoder's rebinding */
        sample = cur;
    }
    int32_t no = t(x, c, px); /* conv_norm_out */
    fr(x, sample);
    int32_t s = t(x, c, px); /* conv_act */
    fr(x, no);
    int32_t o = conv(x, c, 3, px, 9, 1);
    fr(x, s);
    return o;
}

/* AutoencoderKL's tiles: tile_latent_min_size = sample_size / 2^(levels-1) latents at strides of
 * int(tile_latent_min_size × 0.75); each kept tile's part is row_limit = tile_sample_min_size - int(tile_sample_min_size
 * × 0.25) pixels (tiled_decode lines 378-380) */
typedef struct {
    int64_t lh, lw, tl, ov, s, rl;
    int tiled;
} kl_grid;

static kl_grid grid_of(const vp_arch *a, int64_t height, int64_t width, int tiling) {
    kl_grid g;
    g.s = a->d.spatial > 0 ? a->d.spatial : 8;
    g.lh = height / g.s, g.lw = width / g.s;
    g.tl = a->d.tile_h / g.s;
    g.ov = (int64_t)((double)g.tl * 0.75);
    if (g.ov < 1) g.ov = 1;
    g.rl = a->d.tile_h - (int64_t)((double)a->d.tile_h * 0.25);
    /* _decode: tiled when use_tiling and the latents exceed the tile on either side (line 200) */
    g.tiled = tiling && g.tl >= 1 && (g.lw > g.tl || g.lh > g.tl);
    return g;
}

double vp_ev_kl_decode_calls(const vp_arch *a, int64_t height, int64_t width, int tiling) {
    kl_grid g = grid_of(a, height, width, tiling);
    if (!g.tiled) return 1.0;
    return ceil((double)g.lh / (double)g.ov) * ceil((double)g.lw / (double)g.ov);
}

int32_t vp_ev_kl_decode(vp_events *e, const vp_arch *a, int64_t batch, int64_t height, int64_t width, double elem, int tiling) {
    kl x = {e, elem, (double)(batch > 0 ? batch : 1)};
    kl_grid g = grid_of(a, height, width, tiling);
    if (!g.tiled) return decoder_call(&x, a, (double)(g.lh * g.lw), 1);
    /* tiled_decode: every tile's decoded image kept in `rows`; each row's parts (up to row_limit) concatenated, then
     * the rows; the blends write in place */
    vp_tensors tiles = {0}, rows = {0};
    for (int64_t i = 0; i < g.lh; i += g.ov)
        for (int64_t j = 0; j < g.lw; j += g.ov) {
            int64_t ph = g.lh - i < g.tl ? g.lh - i : g.tl, pw = g.lw - j < g.tl ? g.lw - j : g.tl;
            vp_tensors_push(&tiles, e, decoder_call(&x, a, (double)(ph * pw), 0));
        }
    for (int64_t i = 0; i < g.lh; i += g.ov) {
        int64_t ph = (g.lh - i < g.tl ? g.lh - i : g.tl) * g.s;
        double wsum = 0;
        for (int64_t j = 0; j < g.lw; j += g.ov) {
            int64_t pw = (g.lw - j < g.tl ? g.lw - j : g.tl) * g.s;
            wsum += (double)(pw < g.rl ? pw : g.rl);
        }
        vp_tensors_push(&rows, e, t(&x, 3, (double)(ph < g.rl ? ph : g.rl) * wsum));
    }
    int32_t v = t(&x, 3, (double)height * (double)width); /* torch.cat(result_rows, dim=2) */
    vp_tensors_release(&tiles, e);
    vp_tensors_release(&rows, e);
    vp_tensors_dispose(&tiles);
    vp_tensors_dispose(&rows);
    return v;
}

/* ---- the encode (AutoencoderKL.encode / _encode lines 158-197; vae.py Encoder.forward; DownEncoderBlock2D;
 * Downsample2D.forward of upsampling's sibling downsampling.py: F.pad (0, 1, 0, 1), then Conv2d(c, c, 3, stride 2)) --- */

/* Downsample2D (padding 0): c channels at px (hh × ww) in, px / 4 out: the zero-padded copy, the strided conv and its
 * workspace (padded input + output + weight) */
static int32_t downsample(const kl *x, double c, double px, double hh, double ww) {
    double pp = (hh + 1.0) * (ww + 1.0);
    int32_t pad = t(x, c, pp);
    int32_t o = t(x, c, px / 4.0);
    fr(x, vp_ev_alloc_bytes(x->e, x->b * c * (pp + px / 4.0) * x->elem + c * c * 9.0 * x->elem));
    fr(x, pad);
    return o;
}

/* one Encoder call over hh × ww pixels (its input, the images, held by the caller); returns its output (2 latent
 * channels each) */
static int32_t encoder_call(const kl *x, const vp_arch *a, double hh, double ww) {
    int n = a->d.levels;
    double px = hh * ww, c = (double)a->d.ch[0];
    int32_t sample = conv(x, 3.0, c, px, 9, 1); /* conv_in */
    for (int i = 0; i < n; i++) { /* DownEncoderBlock2D: layers_per_block resnets, a Downsample2D but the last */
        double cout = (double)a->d.ch[i];
        int32_t cur = sample;
        for (int r = 0; r < a->d.layers_per_block; r++) {
            int32_t nx = resnet(x, r == 0 ? c : cout, cout, px);
            if (r > 0) fr(x, cur); /* the block's input stays with the encoder's `sample` */
            cur = nx;
        }
        c = cout;
        if (i < n - 1) {
            int32_t o = downsample(x, c, px, hh, ww);
            if (cur != sample) fr(x, cur); /* the block's rebinding */
            cur = o;
            px /= 4.0, hh /= 2.0, ww /= 2.0;
        }
        fr(x, sample); /* the encoder's rebinding */
        sample = cur;
    }
    /* UNetMidBlock2D, norm, SiLU, conv_out at the latent level */
    int32_t h2 = mid_block(x, a, sample, c, px);
    int32_t no = t(x, c, px);
    fr(x, h2);
    int32_t s = t(x, c, px);
    fr(x, no);
    int32_t o = conv(x, c, 2.0 * (double)a->d.latent_ch, px, 9, 1);
    fr(x, s);
    return o;
}

int32_t vp_ev_kl_encode(vp_events *e, const vp_arch *a, int64_t batch, int64_t height, int64_t width, double elem) {
    kl x = {e, elem, (double)(batch > 0 ? batch : 1)};
    return encoder_call(&x, a, (double)height, (double)width);
}
