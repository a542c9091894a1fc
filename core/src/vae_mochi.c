/* vae_mochi.c: diffusers AutoencoderKLMochi (src/diffusers/models/autoencoders/autoencoder_kl_mochi.py at commit
 * 58eb52c0; genmo/mochi-1-preview vae/config.json): exact parameters module by module, and the encode / decode peak
 * of its conv stack at full resolution (the Mochi VAE does not patchify: its decoder ends at 128 channels per pixel),
 * tiled and sliced as the class runs them. Its 3-D convs are CogVideoXCausalConv3d(pad_mode="replicate") over
 * CogVideoXSafeConv3d (autoencoder_kl_cogvideox.py:36-64, 120-133). */
#include <stdio.h>
#include <string.h>

#include "diffusers.h"
#include "util.h"

static int64_t lin(int64_t in, int64_t out, int bias) { return in * out + (bias ? out : 0); }
static int64_t gn(int64_t c) { return 2 * c; } /* MochiChunkedGroupNorm3D: nn.GroupNorm(32, c, affine) (lines 48-57) */
/* MochiResnetBlock3D (lines 69-124): norm1, conv1, norm2, conv2 at c channels, 3x3x3 convs with bias */
static int64_t res(int64_t c) { return 2 * gn(c) + 2 * lin(27 * c, c, 1); }
/* Attention(query_dim c, heads c/32, dim_head 32, qk_norm "l2" (LpNorm, no parameters)): to_q/k/v without bias
 * (attention_processor.py Attention bias=False), to_out.0 with bias; and the GroupNorm before it (lines 170-184) */
static int64_t attn(int64_t c) { return gn(c) + 3 * c * c + lin(c, c, 1); }
/* MochiMidBlock3D (lines 245-326) / the resnets of MochiDownBlock3D: layers × (resnet [+ norm + attention]) */
static int64_t mid(int64_t c, int64_t layers, int64_t add) { return layers * (res(c) + (add ? attn(c) : 0)); }

vp_status vp_vae_mochi_parse(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    /* class defaults (AutoencoderKLMochi.__init__, lines 682-716) */
    int64_t eb[5] = {64, 128, 256, 384}, db[5] = {128, 256, 512, 768}, lpb[6] = {3, 3, 4, 6, 3}, te[4] = {1, 2, 3},
            se[4] = {2, 2, 2}, aab[6] = {0, 1, 1, 1, 1};
    int n = 4, dn = 4, nl = 5, nt = 3, ns = 3, na = 5;
    int64_t cin = 15, cout = 3, L = 12;
    if ((st = vp_json_opt_int(c, p, "in_channels", 1, 256, &cin, err)) ||
        (st = vp_json_opt_int(c, p, "out_channels", 1, 64, &cout, err)) ||
        (st = vp_json_opt_int(c, p, "latent_channels", 1, 4096, &L, err)) ||
        (st = vp_vae_list(c, p, "encoder_block_out_channels", 0, 32, 65536, eb, 5, &n, err)) ||
        (st = vp_vae_list(c, p, "decoder_block_out_channels", 0, 1, 65536, db, 5, &dn, err)) ||
        (st = vp_vae_list(c, p, "layers_per_block", 0, 0, 64, lpb, 6, &nl, err)) ||
        (st = vp_vae_list(c, p, "temporal_expansions", 0, 1, 16, te, 4, &nt, err)) ||
        (st = vp_vae_list(c, p, "spatial_expansions", 0, 1, 16, se, 4, &ns, err)) ||
        (st = vp_vae_list(c, p, "add_attention_block", 1, 0, 1, aab, 6, &na, err)))
        return st;
    if (dn != n || nl != n + 1 || na != n + 1 || nt != n - 1 || ns != n - 1) {
        char path[128];
        vp_path_key(path, sizeof path, p, "layers_per_block");
        return vp_fail(err, VP_ERR_FIELD, path,
                       "%s: with n encoder and decoder block widths, layers_per_block and add_attention_block need n + 1 "
                       "entries, temporal_expansions and spatial_expansions n - 1", path);
    }
    /* encoder (MochiEncoder3D, lines 437-546): FourierFeatures (no parameters), proj_in Linear(in_channels, eb[0]),
     * block_in, down block i: conv_in CogVideoXCausalConv3d kernel = stride = (te, se, se) eb[i] -> eb[i+1]
     * (lines 157-163) and lpb[i+1] × (resnet [+ attention]) at eb[i+1]; block_out at eb[-1]; norm_out; proj_out
     * Linear(eb[-1], 2·latent) without bias (line 497) */
    int64_t e = lin(cin, eb[0], 1) + mid(eb[0], lpb[0], aab[0]), big = 0;
    for (int i = 0; i + 1 < n; i++)
        e += lin(te[i] * se[i] * se[i] * eb[i], eb[i + 1], 1) + mid(eb[i + 1], lpb[i + 1], aab[i + 1]);
    e += mid(eb[n - 1], lpb[n], aab[n]) + gn(eb[n - 1]) + lin(eb[n - 1], 2 * L, 0);
    /* decoder (MochiDecoder3D, lines 548-653): conv_in Conv3d 1x1x1 latent -> db[-1] (line 584); block_in lpb[-1]
     * resnets, no attention; up block i: lpb[-i-2] resnets at db[-i-1], then proj Linear(db[-i-1], db[-i-2] · te · se²)
     * (line 363, te/se of that block: the lists reversed); block_out lpb[0] resnets at db[0]; proj_out
     * Linear(db[0], out_channels) (line 608) */
    int64_t d = lin(L, db[n - 1], 1) + mid(db[n - 1], lpb[n], 0);
    for (int i = 0; i + 1 < n; i++) {
        int64_t in = db[n - 1 - i], out = db[n - 2 - i] * te[n - 2 - i] * se[n - 2 - i] * se[n - 2 - i];
        d += mid(in, lpb[n - 1 - i], 0) + lin(in, out, 1);
        if (in * out > big) big = in * out;
    }
    d += mid(db[0], lpb[0], 0) + lin(db[0], cout, 1);
    if (27 * db[n - 1] * db[n - 1] > big) big = 27 * db[n - 1] * db[n - 1];
    a->kind = VP_KIND_DIT;
    vp_strlcpy(a->model_type, "vae_mochi", sizeof a->model_type);
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->d.params = e + d; /* latents_mean / latents_std are config values here, not buffers */
    a->d.embed = e;
    a->d.other = 0;
    a->d.blocks_total = a->d.per_block = d;
    a->d.largest_tensor = big;
    for (int i = 0; i < n; i++) a->d.ch[i] = eb[i];
    a->d.levels = n;
    a->d.latent_ch = L;
    a->d.dec_ch0 = db[0];
    a->d.vae_patch = 1;
    a->d.vae3d = 1;
    /* spatial / temporal_compression_ratio: the products of the expansions (lines 746-747) */
    a->d.spatial = a->d.temporal = 1;
    for (int i = 0; i + 1 < n; i++) a->d.spatial *= se[i], a->d.temporal *= te[i];
    a->d.tile_h = a->d.tile_w = 256; /* tile_sample_min_height / width (line 779), stride 192 (line 783) */
    a->d.frame_chunk = 0;           /* every frame in one call: framewise decoding is a private switch */
    a->layers = 1;
    a->hidden = eb[0];
    return VP_OK;
}

/* Bytes at the peak of a MochiResnetBlock3D of c channels over b × T frames × h × w pixels (forward, lines 105-124):
 *  - norm2 (MochiChunkedGroupNorm3D.forward, lines 59-66): the input kept for the residual, conv1's output, the list of
 *    the 8-frame chunks' GroupNorm outputs and their torch.cat: 4 tensors (for b > 1 the flatten(0, 1) of the permuted
 *    input is a copy: 5);
 *  - conv1 / conv2: the input kept, SiLU's output, F.pad(replicate) of it over (T + 2) × (h + 2) × (w + 2)
 *    (autoencoder_kl_cogvideox.py:127), the conv's output and cuDNN's workspace (padded input + output + weight). CogVideoXSafeConv3d (lines 41-64) splits an input of
 *    more than 2^30 elements (its "memory_count > 2", counted at 2 B) into int(elements / 2^30) + 1 chunks along time,
 *    builds every chunk after the first as a new tensor with the previous chunk's last 2 frames in front, keeps the
 *    outputs in a list and concatenates them: the copies, the output chunks and the concatenation are alive together. */
static double res_bytes(int64_t c, int64_t b, int64_t T, int64_t h, int64_t w, double elem) {
    double N = (double)c * (double)b * (double)T * (double)h * (double)w;
    double plane = (double)c * (double)b * (double)(h + 2) * (double)(w + 2);
    double pad = plane * (double)(T + 2);
    double norm = (b > 1 ? 5.0 : 4.0) * N;
    /* the conv also takes cuDNN's workspace, its padded input + output + weight (the H100 trace's rule for this very
     * CogVideoXCausalConv3d: events_vae_cogvideox.c); above 2^30 the last chunk's is smaller than the concatenation
     * that follows it, so the split path keeps its peak */
    double cv = 3.0 * N + pad + (pad + N + (double)c * (double)c * 27.0);
    if (pad > 1073741824.0) {
        int64_t parts = (int64_t)(pad / 1073741824.0) + 1, Tp = T + 2;
        int64_t cs = (Tp + parts - 1) / parts, nch = (Tp + cs - 1) / cs; /* torch.chunk sizes */
        double copies = plane * (double)(Tp - cs + 2 * (nch - 1));
        cv = 4.0 * N + pad + copies; /* input, SiLU, pad, copies, output chunks, their concatenation */
    }
    return elem * (norm > cv ? norm : cv);
}

static int64_t tiles_span(int64_t n, int64_t tile, int64_t stride) {
    int64_t s = 0;
    if (tile < 1) tile = 1; /* a compression wider than the tile (odd configs): one latent per tile */
    if (stride < 1) stride = 1;
    for (int64_t i = 0; i < n; i += stride) s += n - i < tile ? n - i : tile;
    return s;
}

/* Decode (_decode, lines 883-909; tiled_decode, lines 1011-1087): the peak is a resnet of block_out, at db[0] channels
 * over every pixel of T = latent frames × temporal frames (the first temporal - 1 are dropped afterwards as a view,
 * line 904-905). Tiling: 256 x 256-pixel tiles (32 latents, stride 24) when the latents are wider or taller than
 * 32; every tile's output is kept in `rows` until the concatenations at the end. Slicing: one sample per call.
 * (Down the decoder the widths grow slower than the pixels shrink: up block 2's resnets at 256 channels over a
 * quarter of the pixels hold half as much.) */
void vp_vae_mochi_decode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width,
                              double elem, int tiling, int slicing, vp_vae_peak *o) {
    memset(o, 0, sizeof *o);
    if (frames < 1) frames = 1;
    int64_t b = slicing ? 1 : batch, th, tw, tc = a->d.temporal;
    int64_t T = ((frames - 1) / tc + 1) * tc, kept = T - tc + 1;
    vp_vae_tile(a, height, width, tiling, &th, &tw);
    o->bytes = res_bytes(a->d.dec_ch0, b, T, th, tw, elem);
    o->tensor_bytes = (double)a->d.dec_ch0 * (double)b * (double)T * (double)th * (double)tw * elem;
    double video = 3.0 * (double)batch * (double)kept * (double)height * (double)width * elem;
    if (th != height || tw != width) {
        int64_t s = a->d.spatial;
        double span = (double)tiles_span(height / s, a->d.tile_h / s, 192 / s) * (double)s *
                      (double)tiles_span(width / s, a->d.tile_w / s, 192 / s) * (double)s;
        o->out_bytes = 3.0 * (double)batch * (double)T * span * elem + 2.0 * video;
    } else {
        o->out_bytes = video; /* proj_out's output; the dropped frames are a view of it */
    }
    o->chunk_frames = T;
    o->tile_h = th;
    o->tile_w = tw;
    snprintf(o->where, sizeof o->where, "resnet of block_out: %lld ch at %lld×%lld px × %lld frames",
             (long long)a->d.dec_ch0, (long long)th, (long long)tw, (long long)T);
}

/* Encode (_encode, lines 839-853; tiled_encode, lines 954-1009): the peak is a resnet of block_in, at eb[0] channels
 * over every pixel and frame (the encoder has no framewise path: it raises). FourierFeatures before it hold
 * 3 + 6 + 6 + 6 + 15 fp32 channels at their concatenation (lines 416-434): 144 B per pixel, less than one 64-channel
 * resnet; down block 0's time attention at half resolution holds 128 channels over a quarter of the pixels. Tiling:
 * 256 x 256-pixel tiles when the video is wider or taller. out_bytes: the input video. */
void vp_vae_mochi_encode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width,
                              double elem, int tiling, int slicing, vp_vae_peak *o) {
    memset(o, 0, sizeof *o);
    if (frames < 1) frames = 1;
    int64_t b = slicing ? 1 : batch, th, tw;
    vp_vae_tile(a, height, width, tiling, &th, &tw);
    o->bytes = res_bytes(a->d.ch[0], b, frames, th, tw, elem);
    o->tensor_bytes = (double)a->d.ch[0] * (double)b * (double)frames * (double)th * (double)tw * elem;
    o->out_bytes = 3.0 * (double)batch * (double)frames * (double)height * (double)width * elem;
    o->chunk_frames = frames;
    o->tile_h = th;
    o->tile_w = tw;
    snprintf(o->where, sizeof o->where, "resnet of block_in: %lld ch at %lld×%lld px × %lld frames",
             (long long)a->d.ch[0], (long long)th, (long long)tw, (long long)frames);
}
