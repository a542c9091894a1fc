/* vae.c: the video / image VAEs of diffusion pipelines: parameters counted module by module, and the
 * memory of encode / decode from the conv stack (diffusers commit 58eb52c0,
 * src/diffusers/models/autoencoders/):
 *   autoencoder_kl.py AutoencoderKL + vae.py Encoder/Decoder (2-D: FLUX, SD3),
 *   autoencoder_kl_cogvideox.py AutoencoderKLCogVideoX (causal 3-D convs, SpatialNorm3D decoder),
 *   autoencoder_kl_hunyuan_video.py AutoencoderKLHunyuanVideo (causal 3-D convs, causal-masked mid attention),
 *   autoencoder_kl_wan.py AutoencoderKLWan 2.1 (causal 3-D convs, RMS norms, one latent frame per call);
 *   AutoencoderKLLTXVideo, AutoencoderKLMochi and the Wan configs (with the Wan 2.2 VAE's decode and encode) are in
 *   vae_ltx.c, vae_mochi.c and vae_wan.c, dispatched from here. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diffusers.h"
#include "util.h"

static int64_t conv(int64_t in, int64_t out, int64_t kvol) { return in * out * kvol + out; }
static int64_t gn(int64_t c) { return 2 * c; } /* GroupNorm(affine): weight + bias */

/* ResnetBlock (GroupNorm, SiLU, conv, GroupNorm, SiLU, conv, 1×1 shortcut when channels change);
 * zq > 0: CogVideoXSpatialNorm3D instead of GroupNorm (GroupNorm + conv_y, conv_b 1×1×1 from zq) */
static int64_t resnet(int64_t in, int64_t out, int64_t kvol, int64_t zq) {
    int64_t n1 = gn(in) + (zq ? 2 * conv(zq, in, 1) : 0), n2 = gn(out) + (zq ? 2 * conv(zq, out, 1) : 0);
    return n1 + conv(in, out, kvol) + n2 + conv(out, out, kvol) + (in != out ? conv(in, out, 1) : 0);
}
/* attention over the mid block's pixels: GroupNorm + q/k/v/out Linears with biases */
static int64_t mid_attn(int64_t c) { return gn(c) + 4 * (c * c + c); }

/* AutoencoderKL / AutoencoderKLCogVideoX / AutoencoderKLHunyuanVideo share one layout:
 * encoder conv_in, levels × (layers_per_block resnets + down conv except the last), mid (resnet, [attn],
 * resnet), norm, conv_out -> 2·latent; decoder conv_in, mid, levels × (layers_per_block + 1 resnets + up conv
 * except the last), norm, conv_out -> 3. */
static int64_t kl_like(const vp_arch *a, int64_t kvol, int64_t updown_kvol, int64_t zq, int64_t enc_layers,
                       int64_t dec_layers, int quant, int64_t *enc_out, int64_t *dec_out) {
    const int64_t *ch = a->d.ch;
    int n = a->d.levels;
    int64_t L = a->d.latent_ch, cin = 3;
    int64_t e = conv(cin, ch[0], kvol), prev = ch[0];
    for (int i = 0; i < n; i++) {
        for (int64_t k = 0; k < enc_layers; k++) e += resnet(k ? ch[i] : prev, ch[i], kvol, 0);
        prev = ch[i];
        if (i != n - 1) e += conv(ch[i], ch[i], updown_kvol);
    }
    int64_t top = ch[n - 1];
    e += 2 * resnet(top, top, kvol, 0) + (a->d.mid_attn ? mid_attn(top) : 0);
    e += gn(top) + conv(top, 2 * L, kvol);
    int64_t d = conv(L, top, kvol) + 2 * resnet(top, top, kvol, zq) + (a->d.mid_attn ? mid_attn(top) : 0);
    prev = top;
    for (int i = n - 1; i >= 0; i--) {
        for (int64_t k = 0; k < dec_layers; k++) d += resnet(k ? ch[i] : prev, ch[i], kvol, zq);
        prev = ch[i];
        if (i != 0) d += conv(ch[i], ch[i], updown_kvol);
    }
    d += gn(ch[0]) + (zq ? 2 * conv(zq, ch[0], 1) : 0) + conv(ch[0], 3, kvol);
    int64_t q = quant ? conv(2 * L, 2 * L, 1) + conv(L, L, 1) : 0;
    *enc_out = e;
    *dec_out = d;
    return e + d + q;
}

static vp_status read_channels(const cJSON *c, const char *p, const char *key, vp_arch *a, vp_error *err) {
    const cJSON *bo = cJSON_GetObjectItemCaseSensitive(c, key);
    if (!bo) return VP_OK;
    char path[128];
    vp_path_key(path, sizeof path, p, key);
    int n = cJSON_IsArray(bo) ? cJSON_GetArraySize(bo) : 0;
    if (n < 1 || n > 5) return vp_fail(err, VP_ERR_FIELD, path, "%s must be a list of 1 to 5 channel counts", path);
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(bo, i);
        if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > 65536 || e->valuedouble != (double)(int64_t)e->valuedouble)
            return vp_fail(err, VP_ERR_RANGE, path, "%s entries must be integers in 1..65536", path);
        a->d.ch[i] = (int64_t)e->valuedouble;
    }
    a->d.levels = n;
    return VP_OK;
}

vp_status vp_vae_parse(const cJSON *c, const char *p, int dclass, vp_arch *a, vp_error *err) {
    vp_status st;
    if (dclass == VP_DC_VAE_LTX) return vp_vae_ltx_parse(c, p, a, err);
    if (dclass == VP_DC_VAE_MOCHI) return vp_vae_mochi_parse(c, p, a, err);
    a->kind = VP_KIND_DIT;
    vp_strlcpy(a->model_type, dclass == VP_DC_VAE_KL ? "vae_kl" : dclass == VP_DC_VAE_WAN ? "vae_wan"
                              : dclass == VP_DC_VAE_HUNYUAN ? "vae_hunyuanvideo" : "vae_cogvideox", sizeof a->model_type);
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    if (dclass == VP_DC_VAE_WAN) {
        if ((st = vp_vae_wan_parse(c, p, a, err))) return st; /* vae_wan.c */
        a->layers = 1;
        a->hidden = a->d.ch[0];
        return VP_OK;
    }
    int64_t enc = 0, dec = 0;
    a->d.ch[0] = 128;
    a->d.ch[1] = 256;
    a->d.ch[2] = 512;
    a->d.ch[3] = 512;
    a->d.levels = 4;
    a->d.latent_ch = dclass == VP_DC_VAE_KL ? 4 : 16;
    int64_t lpb = dclass == VP_DC_VAE_COGVIDEOX ? 3 : 2;
    if (dclass == VP_DC_VAE_COGVIDEOX) a->d.ch[2] = 256;
    if ((st = read_channels(c, p, "block_out_channels", a, err))) return st;
    if ((st = vp_json_opt_int(c, p, "latent_channels", 1, 4096, &a->d.latent_ch, err))) return st;
    if ((st = vp_json_opt_int(c, p, "layers_per_block", 1, 64, &lpb, err))) return st;
    a->d.layers_per_block = (int)lpb;
    int mid = dclass != VP_DC_VAE_COGVIDEOX, quant = dclass != VP_DC_VAE_COGVIDEOX, pquant = quant;
    if (dclass != VP_DC_VAE_COGVIDEOX && (st = vp_json_opt_bool(c, p, "mid_block_add_attention", &mid, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "use_quant_conv", &quant, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "use_post_quant_conv", &pquant, err))) return st;
    a->d.mid_attn = mid;
    int64_t kvol = dclass == VP_DC_VAE_KL ? 9 : 27;
    /* down/up convs: Conv2d 3×3 (vae.py Downsample2D/Upsample2D; CogVideoXDownsample3D/Upsample3D);
     * HunyuanVideoDownsampleCausal3D / UpsampleCausal3D: causal Conv3d 3³ */
    int64_t ud = dclass == VP_DC_VAE_HUNYUAN ? 27 : 9;
    int64_t zq = dclass == VP_DC_VAE_COGVIDEOX ? a->d.latent_ch : 0;
    int64_t total = kl_like(a, kvol, ud, zq, lpb, lpb + 1, 0, &enc, &dec);
    int64_t L = a->d.latent_ch;
    if (quant) total += dclass == VP_DC_VAE_HUNYUAN ? conv(2 * L, 2 * L, 1) : conv(2 * L, 2 * L, 1);
    if (pquant) total += conv(L, L, 1);
    if (dclass == VP_DC_VAE_HUNYUAN) { /* quant_conv and post_quant_conv are unconditional there */
        if (!quant) total += conv(2 * L, 2 * L, 1);
        if (!pquant) total += conv(L, L, 1);
    }
    a->d.params = total;
    a->d.vae3d = dclass != VP_DC_VAE_KL;
    a->d.spatial = 1LL << (a->d.levels - 1);
    a->d.temporal = dclass == VP_DC_VAE_KL ? 1 : 4;
    int64_t tc = a->d.temporal;
    if (dclass != VP_DC_VAE_KL && (st = vp_json_opt_int(c, p, "temporal_compression_ratio", 1, 64, &tc, err))) return st;
    a->d.temporal = tc;
    if (dclass == VP_DC_VAE_COGVIDEOX) {
        int64_t sh = 480, sw = 720;
        if ((st = vp_json_opt_int(c, p, "sample_height", 1, 65536, &sh, err))) return st;
        if ((st = vp_json_opt_int(c, p, "sample_width", 1, 65536, &sw, err))) return st;
        a->d.frame_chunk = 2;            /* num_latent_frames_batch_size */
        a->d.tile_h = sh / 2;            /* tile_sample_min_height = sample_height // 2 */
        a->d.tile_w = sw / 2;
    } else if (dclass == VP_DC_VAE_HUNYUAN) {
        a->d.frame_chunk = 16 / 4 + 1;   /* framewise decoding: tile_sample_min_num_frames / 4 + 1 latent frames */
        a->d.tile_h = a->d.tile_w = 256;
        a->d.tile_frames = 16;
    } else {
        int64_t ss = 512;
        if ((st = vp_json_opt_int(c, p, "sample_size", 1, 65536, &ss, err))) return st;
        a->d.tile_h = a->d.tile_w = ss; /* tile_sample_min_size = config.sample_size */
        a->d.frame_chunk = 0;
    }
    a->d.embed = enc;      /* encoder */
    a->d.other = a->d.params - enc - dec;
    a->d.blocks_total = dec; /* decoder */
    a->d.per_block = dec;
    a->d.largest_tensor = a->d.ch[a->d.levels - 1] * a->d.ch[a->d.levels - 1] * kvol; /* the widest conv: 3×3 (2-D) or 3×3×3 */
    a->layers = 1;
    a->hidden = a->d.ch[0];
    return VP_OK;
}

/* ---- encode / decode memory ----
 * Tensors alive inside one decoder call at its full-resolution levels (the largest: channels halve
 * when the pixels quadruple), per pixel of the call's frames, in channel-tensors:
 *  - the upsampler that ends the second-to-last up block: its nearest-neighbour interpolation output
 *    (c1 channels), the conv's output (c1), its input at half resolution (c1/4), and for causal 3-D convs
 *    the F.pad copy of the input (c1) (CogVideoXCausalConv3d.fake_context_parallel_forward,
 *    HunyuanVideoCausalConv3d.forward, WanCausalConv3d.forward all pad with a new tensor);
 *  - the first resnet of the last up block (c1 -> c0): its input kept for the residual, the norm's output
 *    and SiLU's output (GroupNorm: 3 tensors; CogVideoXSpatialNorm3D: the input, GroupNorm output,
 *    conv_y(zq), conv_b(zq) and their product, 5), then at conv1: input, SiLU output, the pad copy, c0 out.
 * CogVideoX and Wan keep a causal conv cache: the last 2 frames of every 3-D conv's input (conv_cache /
 * feat_cache, CACHE_T = 2) across calls. */
static double resnet_live(int64_t cin, int64_t cout, int spatial_norm, int pad) {
    /* CogVideoXSpatialNorm3D.forward of diffusers 0.30 (v0.30.1 lines 192-193): norm_f = norm_layer(f);
     * new_f = norm_f * conv_y(zq) + conv_b(zq): conv_y's output is freed once multiplied, so f, norm_f, the product,
     * conv_b(zq) and the sum: 5 tensors (today's keeps 6: cog_call_peak); a GroupNorm: 3 */
    double norm = spatial_norm ? 5.0 * (double)cin : 3.0 * (double)cin;
    double conv1 = (2.0 + pad) * (double)cin + (double)cout;
    return norm > conv1 ? norm : conv1;
}

/* frames at the input of up block j of the CogVideoX decoder for a call of lc latent frames: each of the first
 * log2(temporal) up blocks ends in a CogVideoXUpsample3D(compress_time=True), which keeps the first frame of an odd
 * count and doubles the rest (2 -> 4, 3 -> 5 -> 9) */
static double cog_frames(const vp_arch *a, int64_t lc, int j) {
    int tu = 0;
    for (int64_t t = a->d.temporal; t > 1; t /= 2) tu++;
    int k = j < tu ? j : tu;
    double m = (double)(1LL << k);
    return lc > 1 && lc % 2 ? 1.0 + m * (double)(lc - 1) : m * (double)lc;
}

/* The CogVideoX decoder's conv caches in diffusers 0.30.1-0.30.3 (autoencoder_kl_cogvideox.py at v0.30.1; today's
 * decode is cog_call_peak below):
 *  - every CogVideoXCausalConv3d keeps conv_cache = inputs[:, :, -time_kernel_size + 1:].clone(): the last 2 frames of
 *    the input of each 3x3x3 conv, but for the kernel-1 conv_y / conv_b of every CogVideoXSpatialNorm3D the slice
 *    [-0:] is the whole input: a full copy of zq interpolated to that level (latent_channels wide, every frame of the
 *    call);
 *  - the cache is a module attribute, and forward calls _clear_fake_context_parallel_cache() (del self.conv_cache)
 *    before it clones the new one (lines 133-139), so during call 2 each conv holds one cache: call 2's for the convs
 *    that have run (the part below the last up block and norm1 of its first resnet), call 1's for the rest of the
 *    last up block and norm_out; the 3x3x3 caches are 2 frames in either call.
 * The peak is taken inside the first resnet of the last up block, in the first call or the second. Returns the cache
 * bytes at the peak call and sets *acts to that call's activations. */
static double cogvideox_caches(const vp_arch *a, int64_t b, int64_t frames, int64_t th, int64_t tw, double elem,
                               double chans, double *acts) {
    int n = a->d.levels;
    int64_t T = a->d.temporal > 0 ? a->d.temporal : 1;
    int64_t lat = (frames - 1) / T + 1;
    int64_t calls = lat / 2 > 1 ? lat / 2 : 1;
    int64_t lc1 = calls == 1 ? lat : 2 + lat % 2, lc2 = 2;
    double px = (double)b * (double)th * (double)tw, L = (double)a->d.latent_ch;
    double norms_up = 2.0 * (double)(a->d.layers_per_block + 1);
    /* kernel-3 caches, 2 frames of each conv input: level i (0 = full resolution) has ch[i] channels and 4^-i of
     * the pixels; full: every up block; partial: the up blocks below the last one */
    double k3_full = 0, k3_part = 0;
    for (int i = 0; i < n; i++) {
        double v = 2.0 * norms_up * (double)a->d.ch[i] / pow(4.0, (double)i);
        k3_full += v;
        if (i > 0) k3_part += v;
    }
    k3_full *= px * elem, k3_part *= px * elem;
    /* kernel-1 caches of a call of lc latent frames: 2 × L × frames × pixels per spatial norm; the mid block's 4
     * at the latent level, norms_up per up block j at level n-1-j, norm_out at full resolution */
    double k1_full[2], k1_part[2];
    int64_t lcs[2] = {lc1, lc2};
    for (int c = 0; c < 2; c++) {
        double part = 4.0 * cog_frames(a, lcs[c], 0) / pow(4.0, (double)(n - 1));
        for (int j = 0; j < n - 1; j++) part += norms_up * cog_frames(a, lcs[c], j) / pow(4.0, (double)(n - 1 - j));
        double last = cog_frames(a, lcs[c], n - 1);
        k1_full[c] = 2.0 * L * px * elem * (part + (norms_up + 1.0) * last);
        k1_part[c] = 2.0 * L * px * elem * (part + last);
    }
    double px1 = cog_frames(a, lc1, n - 1), px2 = cog_frames(a, lc2, n - 1);
    double call1 = chans * px * px1 * elem + k1_part[0] + k3_part;
    double call2 = calls > 1 ? chans * px * px2 * elem + k1_part[1] + (k1_full[0] - k1_part[0]) + k3_full : 0;
    if (call2 > call1) {
        *acts = chans * px * px2 * elem;
        return call2 - *acts;
    }
    *acts = chans * px * px1 * elem;
    return call1 - *acts;
}

/* The CogVideoX decoder of today's diffusers (autoencoder_kl_cogvideox.py at 58eb52c0), walked conv by conv through
 * one decoder call of lc latent frames over px pixels, in channel × frame units of one pixel:
 *  - caches (CogVideoXCausalConv3d line 141, `inputs[:, :, -time_kernel_size + 1:].clone()`): 2 frames of the input of
 *    every 3×3×3 conv (conv_in: the 16-channel latents; conv1: the resnet's input channels; conv2 and conv_out: its
 *    output channels) and, for the kernel-1 conv_y / conv_b of every CogVideoXSpatialNorm3D, the whole zq it was given
 *    (latent_channels × every frame at that level), two per norm; they accumulate through the call in module order;
 *  - what is alive at each spatial norm, where the call peaks (lines 188-194): its input f, the interpolated zq (L
 *    channels), conv_y(zq), conv_b(zq), norm_f, the product and the sum (f + 5 tensors of f's channels); at norm2 also the
 *    resnet's input, kept for the residual (line 325); from the second resnet of a block on, the block's own input,
 *    which the caller's `hidden_states` holds until the block returns (CogVideoXDecoder3D.forward lines 939-943).
 * Measured on the H100 (tests/groundtruth/h100-2026-11-24-diffusion, trace vae-cogvideox-2b-fp16-49-480-720-plain):
 * the peak is norm2 of the last resnet of the last up block in the second call, with 7 × 128 + 256 channels of 8 frames
 * alive and 8.70 GiB of caches. Returns the call's peak (activations + its caches so far + `old`, the previous call's
 * cache dict, which _decode keeps alive until the call returns, lines 1190-1198); *dict gets the call's whole cache. */
static double cog_call_peak(const vp_arch *a, double lc, double P0, double old, double *dict) {
    int n = a->d.levels;
    double L = (double)a->d.latent_ch, cache = 0, best = 0;
#define COG_AT(lev, units, F) do { double v_ = (units) * (F) * P0 / pow(4.0, (double)(lev)) + cache; if (v_ > best) best = v_; } while (0)
#define COG_CACHE(lev, units) (cache += (units) * P0 / pow(4.0, (double)(lev)))
    COG_CACHE(n - 1, 2.0 * L); /* conv_in: 2 frames of the latents */
    for (int r = 0; r < 2; r++) { /* the mid block's two resnets at the widest channels, latent frames */
        double c = (double)a->d.ch[n - 1];
        COG_CACHE(n - 1, 2.0 * L * lc);
        COG_AT(n - 1, (r ? c : 0) + 6.0 * c + L, lc);
        COG_CACHE(n - 1, 2.0 * c);
        COG_CACHE(n - 1, 2.0 * L * lc);
        COG_AT(n - 1, (r ? 2.0 * c : c) + 6.0 * c + L, lc);
        COG_CACHE(n - 1, 2.0 * c);
    }
    double F = lc;
    for (int j = 0; j < n; j++) {
        int lev = n - 1 - j;
        F = cog_frames(a, (int64_t)lc, j);
        double cinb = (double)a->d.ch[j == 0 ? n - 1 : n - j], cout = (double)a->d.ch[lev];
        for (int64_t r = 0; r <= a->d.layers_per_block; r++) {
            double cin = r == 0 ? cinb : cout;
            COG_CACHE(lev, 2.0 * L * F);                             /* norm1's zq copies */
            COG_AT(lev, (r ? cinb : 0) + 6.0 * cin + L, F);          /* norm1's sum */
            COG_CACHE(lev, 2.0 * cin);                               /* conv1 */
            COG_CACHE(lev, 2.0 * L * F);                             /* norm2's zq copies */
            COG_AT(lev, (r ? cinb + cin : cin) + 6.0 * cout + L, F); /* norm2's sum */
            COG_CACHE(lev, 2.0 * cout);                              /* conv2 */
        }
    }
    COG_CACHE(0, 2.0 * L * F); /* norm_out, then conv_out */
    COG_AT(0, 6.0 * (double)a->d.ch[0] + L, F);
    COG_CACHE(0, 2.0 * (double)a->d.ch[0]);
#undef COG_AT
#undef COG_CACHE
    *dict = cache;
    return best + old;
}

/* The whole CogVideoX decode (today's diffusers) in bytes per element: the first call (3 latent frames when the count
 * is odd) alone, or the second with the first's cache dict and output alive; with tiling (tiled_decode lines 1358-1383),
 * every tile decoded before the last full-size one is kept (rows of tiles, 3 channels × all frames) until the blend. */
static double cog_decode_units(const vp_arch *a, int64_t b, int64_t frames, int64_t h, int64_t w, int64_t th, int64_t tw,
                               int tiling, int64_t *px_at_peak) {
    int64_t T = a->d.temporal > 0 ? a->d.temporal : 1;
    int64_t lat = (frames - 1) / T + 1;
    int64_t calls = lat / 2 > 1 ? lat / 2 : 1;
    double lc1 = calls == 1 ? (double)lat : 2.0 + (double)(lat % 2);
    double P0 = (double)b * (double)th * (double)tw, d1 = 0, d2 = 0;
    double px1 = cog_frames(a, (int64_t)lc1, a->d.levels - 1);
    double best = cog_call_peak(a, lc1, P0, 0, &d1);
    *px_at_peak = (int64_t)px1;
    if (calls > 1) {
        double c2 = cog_call_peak(a, 2.0, P0, d1, &d2) + 3.0 * px1 * P0; /* _decode's `dec` list holds call 1's frames */
        if (c2 > best) best = c2, *px_at_peak = (int64_t)cog_frames(a, 2, a->d.levels - 1);
    }
    if (tiling && (th < h || tw < w) && th >= (a->d.spatial > 0 ? a->d.spatial : 8) && tw >= (a->d.spatial > 0 ? a->d.spatial : 8)) {
        /* tiles in raster order over the latents, strides of the tile less its overlap (tile_overlap_factor 1/6 and
         * 1/5, lines 1086-1087); the peak is at the last full-size tile */
        int64_t s = a->d.spatial > 0 ? a->d.spatial : 8;
        int64_t lh = h / s, lw = w / s, tlh = th / s, tlw = tw / s;
        int64_t oh = (int64_t)((double)tlh * (1.0 - 1.0 / 6.0)), ow = (int64_t)((double)tlw * (1.0 - 1.0 / 5.0));
        if (oh < 1) oh = 1;
        if (ow < 1) ow = 1;
        double before = 0, kept = 0;
        for (int64_t i = 0; i < lh; i += oh)
            for (int64_t j = 0; j < lw; j += ow) {
                int64_t ph = (lh - i < tlh ? lh - i : tlh) * s, pw = (lw - j < tlw ? lw - j : tlw) * s;
                if (ph == th && pw == tw) kept = before;
                before += 3.0 * (double)b * (double)frames * (double)ph * (double)pw;
            }
        best += kept;
    }
    return best;
}

static void chunk_shape(const vp_arch *a, int64_t frames, int64_t *lat_chunk, int64_t *px_chunk) {
    int64_t T = a->d.temporal > 0 ? a->d.temporal : 1;
    int64_t lat = a->d.vae3d ? (frames - 1) / T + 1 : 1;
    int64_t lc = a->d.frame_chunk > 0 ? a->d.frame_chunk : lat;
    if (a->dclass == VP_DC_VAE_COGVIDEOX && lat % 2 == 1 && lat > 1) lc = 3; /* the first batch takes the odd frame */
    if (lc > lat) lc = lat;
    *lat_chunk = lc;
    /* pixel frames out of lc latent frames: the causal first frame stays one frame */
    int64_t px = a->d.vae3d ? (lc == lat ? frames : lc * T) : 1;
    if (a->dclass == VP_DC_VAE_COGVIDEOX) px = lc == 3 ? 9 : 8; /* autoencoder_kl_cogvideox.py: X + 6 frames */
    /* AutoencoderKLHunyuanVideo._temporal_tiled_decode: each temporal tile's decoder call keeps its first latent frame
     * causal, 1 + T (lc - 1) frames out (5 latent -> 17) */
    if (a->dclass == VP_DC_VAE_HUNYUAN && a->d.vae3d) px = 1 + T * (lc - 1);
    if (px > frames && a->d.vae3d) px = frames;
    *px_chunk = px;
}

/* where a decode's peak is: the frames of the call and the tile it was reached in */
static void peak_place(vp_vae_peak *o, int64_t px, int64_t th, int64_t tw) {
    o->chunk_frames = px;
    o->tile_h = th;
    o->tile_w = tw;
}

/* One HunyuanVideoDecoder3D call of px frames over a th x tw tile, from autoencoder_kl_hunyuan_video.py (at
 * 58eb52c0), in elements (times the batch): the most that is alive at once, at one of
 *  - the conv of the upsampler ending the second-to-last up block (HunyuanVideoUpsampleCausal3D.forward, lines 96-118):
 *    its input (c1 channels at half size and (px - 1) / 2 + 1 frames, still held by the up block), first_frame
 *    interpolated (one frame), other_frames interpolated (px - 1 frames), their torch.cat (px), then
 *    HunyuanVideoCausalConv3d's F.pad copy (px + 2 frames, h + 2, w + 2: replicate padding of 2 frames in front and 1
 *    pixel around, lines 62-77) and the conv's output (c1);
 *  - conv1 of the last up block's first resnet (HunyuanVideoResnetBlockCausal3D.forward, lines 167-184): the input kept
 *    as the residual, SiLU's output (GroupNorm's is freed by the rebinding), its F.pad copy, the output (c0 channels);
 *  - the mid block's attention over N = latent frames x latent pixels, whose causal mask prepare_causal_attention_mask
 *    makes (N x N in the activation dtype), with the scores and their softmax of SDPA's math kernel (one head of 512:
 *    no fused kernel takes a float mask at that width).
 * Each 3x3x3 conv also takes cuDNN's workspace, its padded input + its output, as the H100 trace of the CogVideoX decode
 * shows for the same Conv3d (events_vae_cogvideox.c). */
static double hunyuan_call_peak(const vp_arch *a, int64_t px, int64_t th, int64_t tw, int64_t lat_chunk, int *at_ups) {
    int n = a->d.levels;
    double c0 = (double)a->d.ch[0], c1 = (double)a->d.ch[n > 1 ? 1 : 0];
    double hw = (double)th * (double)tw, out = (double)px * hw;
    double pad = (double)(px + 2) * (double)(th + 2) * (double)(tw + 2);
    double in = (double)((px - 1) / 2 + 1) * (double)(th / 2) * (double)(tw / 2);
    double ups = c1 * (in + (px > 1 ? hw + (double)(px - 1) * hw + out : hw) + pad + out + (pad + out));
    double res1 = c1 * out + c1 * out + c1 * pad + c0 * out + (c1 * pad + c0 * out);
    double N = (double)lat_chunk * (double)(th / a->d.spatial) * (double)(tw / a->d.spatial);
    double mid = a->d.mid_attn ? 3.0 * N * N : 0.0;
    *at_ups = ups >= res1;
    double full = ups > res1 ? ups : res1;
    return full > mid ? full : mid;
}

/* One AutoencoderKL Decoder call (vae.py Decoder.forward, UpDecoderBlock2D, ResnetBlock2D, Upsample2D at 58eb52c0) over
 * P output pixels of b images, in bytes: the most alive at one of
 *  - the conv of the upsampler ending the second-to-last up block: that block's input (c2 channels at P/4, which the
 *    decoder's `sample` holds until the block returns), its last resnet's output (c1 at P/4, the block's
 *    `hidden_states`), F.interpolate's output (c1 at P), the conv's output (c1) and cuDNN's workspace, the conv's input
 *    + output + weight (the rule the H100 trace of the CogVideoX decode shows for the same nn.Conv2d 3×3:
 *    events_vae_cogvideox.c);
 *  - conv1 of the last up block's first resnet: its input (c1), SiLU's output (c1; GroupNorm's is freed by the
 *    rebinding), the output (c0) and the workspace (c1 + c0 + weight);
 *  - conv1 of its second resnet: the block's input (c1), the resnet's input, SiLU's output and the output (c0 each),
 *    the workspace (2 c0 + weight).
 * events_vae_kl.c replays the same call op by op. */
static double kl_call_peak(const vp_arch *a, double b, double P, double elem, int *at) {
    int n = a->d.levels;
    double c0 = (double)a->d.ch[0], c1 = (double)a->d.ch[n > 1 ? 1 : 0], c2 = (double)a->d.ch[n > 2 ? 2 : n - 1];
    double ups = n > 1 ? b * (c2 / 4.0 + c1 / 4.0 + 2.0 * c1 + 2.0 * c1) * P * elem + c1 * c1 * 9.0 * elem : 0.0;
    double res1 = b * (c1 + c1 + c0 + c1 + c0) * P * elem + c1 * c0 * 9.0 * elem;
    double res2 = b * (c1 + 3.0 * c0 + 2.0 * c0) * P * elem + c0 * c0 * 9.0 * elem;
    double best = ups;
    *at = 0;
    if (res1 > best) best = res1, *at = 1;
    if (res2 > best) best = res2, *at = 2;
    return best;
}

void vp_vae_decode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                        int tiling, int slicing, int version, vp_vae_peak *o) {
    if (a->dclass == VP_DC_VAE_LTX) {
        vp_vae_ltx_decode_peak(a, batch, frames, height, width, elem, tiling, slicing, o);
        return;
    }
    if (a->dclass == VP_DC_VAE_MOCHI) {
        vp_vae_mochi_decode_peak(a, batch, frames, height, width, elem, tiling, slicing, o);
        return;
    }
    if (a->dclass == VP_DC_VAE_WAN && a->d.vae_residual) {
        vp_vae_wan22_decode_peak(a, batch, frames, height, width, elem, tiling, slicing, o);
        return;
    }
    memset(o, 0, sizeof *o);
    if (frames < 1) frames = 1;
    int64_t b = slicing ? 1 : batch;
    int64_t th, tw;
    vp_vae_tile(a, height, width, tiling, &th, &tw);
    int64_t lat_chunk, px;
    chunk_shape(a, frames, &lat_chunk, &px);
    if (a->dclass == VP_DC_VAE_COGVIDEOX && version != VP_DIFFUSERS_0_30) { /* today's diffusers: cog_call_peak */
        int64_t pxp = px;
        o->bytes = cog_decode_units(a, b, frames, height, width, th, tw, tiling, &pxp) * elem;
        /* the decoded frames are inside: the calls' outputs so far (and the tiles'); what torch.cat makes at the end
         * (the pieces and the result, 2 × the video) meets caches of one call only and is below the conv peak */
        double cat = 2.0 * 3.0 * (double)b * (double)frames * (double)height * (double)width * elem;
        if (cat > o->bytes) o->bytes = cat;
        peak_place(o, pxp, th, tw);
        snprintf(o->where, sizeof o->where, "last up block, last resnet's norm2, %lld×%lld px × %lld frames, with the caches so far",
                 (long long)th, (long long)tw, (long long)pxp);
        return;
    }
    if (a->dclass == VP_DC_VAE_HUNYUAN) {
        int at_ups;
        o->bytes = hunyuan_call_peak(a, px, th, tw, lat_chunk, &at_ups) * (double)b * elem;
        o->out_bytes = 2.0 * 3.0 * (double)batch * (double)frames * (double)height * (double)width * elem;
        peak_place(o, px, th, tw);
        snprintf(o->where, sizeof o->where, "%s at %lld×%lld px × %lld frames",
                 at_ups ? "conv of the last upsampler" : "conv1 of the last up block's first resnet", (long long)th,
                 (long long)tw, (long long)px);
        return;
    }
    if (a->dclass == VP_DC_VAE_WAN) { /* Wan 2.1: vae_wan.c walks the last call's peak */
        int64_t T = a->d.temporal > 0 ? a->d.temporal : 1, lat = (frames - 1) / T + 1;
        o->bytes = vp_vae_wan21_decode_units(a, px, lat > 1, (double)th, (double)tw) * (double)b * (double)th * (double)tw * elem;
        o->out_bytes = 2.0 * 3.0 * (double)batch * (double)frames * (double)height * (double)width * elem;
        peak_place(o, px, th, tw);
        snprintf(o->where, sizeof o->where, "conv1 of the last up block's second resnet at %lld×%lld px × %lld frames, with the caches",
                 (long long)th, (long long)tw, (long long)px);
        return;
    }
    if (a->dclass == VP_DC_VAE_KL) {
        int at;
        o->bytes = kl_call_peak(a, (double)b, (double)th * (double)tw, elem, &at);
        /* the decoded image, 3 channels, counted twice as for the other VAEs (tiled_decode's rows and their torch.cat;
         * events_vae_kl.c replays the tiles themselves) */
        o->out_bytes = 2.0 * 3.0 * (double)batch * (double)height * (double)width * elem;
        peak_place(o, 1, th, tw);
        static const char *const where[] = {"conv of the last upsampler", "conv1 of the last up block's first resnet",
                                            "conv1 of the last up block's second resnet"};
        snprintf(o->where, sizeof o->where, "%s at %lld×%lld px, with cuDNN's workspace", where[at], (long long)th,
                 (long long)tw);
        return;
    }
    int n = a->d.levels;
    int64_t c0 = a->d.ch[0];                  /* last up block's channels */
    int64_t c1 = a->d.ch[n > 1 ? 1 : 0];      /* what the last upsampler hands it */
    int64_t up_c = c1;                        /* the upsampler's own channels */
    int pad = a->d.vae3d;
    double ups = (double)c1 + (double)up_c / 4.0 + (pad ? (double)c1 : 0.0) + (double)c1;
    int cog = a->dclass == VP_DC_VAE_COGVIDEOX;
    double res1 = resnet_live(c1, c0, cog, pad); /* CogVideoX here is diffusers 0.30's (today's returned above) */
    if (cog) {
        /* conv1 at v0.30.1 (lines 133-145): the input f and SiLU's output h, then torch.cat(cache + h) over px + 2
         * frames, and F.pad of that (a new tensor) while the cat is still bound: f, h, cat, pad (Wan's
         * WanCausalConv3d does the same: vae_wan.c) */
        double conv1 = 2.0 * (double)c1 + 2.0 * (double)c1 * (double)(px + 2) / (double)px;
        if (conv1 > res1) res1 = conv1;
    }
    double chans = ups > res1 ? ups : res1;
    double pix = (double)b * (double)px * (double)th * (double)tw;
    double acts = chans * pix * elem;
    /* causal conv caches (diffusers 0.30's CogVideoX; Wan's: vae_wan.c) */
    double cache = 0;
    if (a->dclass == VP_DC_VAE_COGVIDEOX) cache = cogvideox_caches(a, b, frames, th, tw, elem, chans, &acts);
    o->bytes = acts + cache;
    /* the decoded video: 3 channels for every frame and pixel, collected chunk by chunk and concatenated
     * (torch.cat: the pieces and the result exist together at the end) */
    o->out_bytes = 2.0 * 3.0 * (double)batch * (double)frames * (double)height * (double)width * elem;
    peak_place(o, px, th, tw);
    snprintf(o->where, sizeof o->where, "%s at %lld×%lld px × %lld frames",
             ups > res1 ? "last upsampler" : "first resnet of the last up block", (long long)th, (long long)tw,
             (long long)px);
}

void vp_vae_encode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                        int tiling, int slicing, vp_vae_peak *o) {
    if (a->dclass == VP_DC_VAE_LTX) {
        vp_vae_ltx_encode_peak(a, batch, frames, height, width, elem, tiling, slicing, o);
        return;
    }
    if (a->dclass == VP_DC_VAE_MOCHI) {
        vp_vae_mochi_encode_peak(a, batch, frames, height, width, elem, tiling, slicing, o);
        return;
    }
    if (a->dclass == VP_DC_VAE_WAN && a->d.vae_residual) {
        vp_vae_wan22_encode_peak(a, batch, frames, height, width, elem, tiling, slicing, o);
        return;
    }
    memset(o, 0, sizeof *o);
    if (frames < 1) frames = 1;
    int64_t b = slicing ? 1 : batch;
    int64_t th, tw;
    vp_vae_tile(a, height, width, tiling, &th, &tw);
    /* frames per encoder call: CogVideoX num_sample_frames_batch_size 8 (+1 for the odd first frame),
     * HunyuanVideo tile_sample_min_num_frames 16 (+1), 2-D: one image (Wan: vae_wan.c below) */
    int64_t px = 1;
    if (a->dclass == VP_DC_VAE_COGVIDEOX) px = frames % 8 == 1 ? 9 : 8;
    else if (a->dclass == VP_DC_VAE_HUNYUAN) px = 17;
    if (px > frames) px = frames;
    if (a->dclass == VP_DC_VAE_KL) {
        /* the Encoder (vae.py Encoder.forward, DownEncoderBlock2D, ResnetBlock2D at 58eb52c0) peaks at a conv of the
         * first down block's second resnet, at full resolution: the block's input (c0 channels, which the encoder's
         * `sample` holds until the block returns), the resnet's input, SiLU's output (conv1) or the norm's freed and
         * conv1's output in its place (conv2), the conv's output, and cuDNN's workspace, the conv's input + output +
         * weight (as in the decode, kl_call_peak): 6 c0 per pixel and the weight */
        double c0 = (double)a->d.ch[0], P = (double)th * (double)tw;
        o->bytes = (double)b * 6.0 * c0 * P * elem + c0 * c0 * 9.0 * elem;
        o->out_bytes = 3.0 * (double)batch * (double)height * (double)width * elem; /* the input images */
        peak_place(o, 1, th, tw);
        snprintf(o->where, sizeof o->where, "first down block's second resnet at %lld×%lld px, with cuDNN's workspace",
                 (long long)th, (long long)tw);
        return;
    }
    if (a->dclass == VP_DC_VAE_WAN) { /* Wan 2.1: vae_wan.c walks the last encoder call's peak */
        double w;
        o->bytes = vp_vae_wan21_encode_units(a, frames, (double)th, (double)tw, &w) * (double)b * elem + w * elem;
        o->out_bytes = 3.0 * (double)batch * (double)frames * (double)height * (double)width * elem; /* the input video */
        peak_place(o, frames > 1 ? 4 : 1, th, tw);
        o->tensor_bytes = (double)a->d.ch[1] * (double)o->chunk_frames * (double)th * (double)tw * (double)b * elem;
        snprintf(o->where, sizeof o->where, "last conv of the full-resolution level at %lld×%lld px × %lld frames, with the caches",
                 (long long)th, (long long)tw, (long long)o->chunk_frames);
        return;
    }
    /* CogVideoX / HunyuanVideo: a conv of the first down block's second resnet, at full resolution (CogVideoXEncoder3D /
     * HunyuanVideoEncoder3D.forward and their down blocks at 58eb52c0): the block's input (the encoder's hidden_states
     * holds it until the block returns), the resnet's input, SiLU's output, the causal conv's padded copy (2 frames in
     * front, a pixel each side), the output and cuDNN's workspace, the padded copy + the output (the H100 trace's rule
     * for this Conv3d: events_vae_cogvideox.c). CogVideoX's 2-frame conv caches (a few c0 × 2 frames) are left out. */
    double c0 = (double)a->d.ch[0];
    double padded = c0 * (double)(px + 2) / (double)px * ((double)th + 2.0) * ((double)tw + 2.0) / ((double)th * (double)tw);
    double chans = 4.0 * c0 + 2.0 * padded;
    double pix = (double)b * (double)px * (double)th * (double)tw;
    o->bytes = chans * pix * elem;
    o->out_bytes = 3.0 * (double)batch * (double)frames * (double)height * (double)width * elem; /* the input video */
    o->chunk_frames = px;
    o->tile_h = th;
    o->tile_w = tw;
    snprintf(o->where, sizeof o->where, "first down block at %lld×%lld px × %lld frames", (long long)th, (long long)tw,
             (long long)px);
}
