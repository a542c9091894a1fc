/* vae_ltx.c: diffusers AutoencoderKLLTXVideo (src/diffusers/models/autoencoders/autoencoder_kl_ltx.py at commit
 * 58eb52c0; LTX-Video 0.9.0, Lightricks/LTX-Video vae/config.json): exact parameters module by module, and the
 * encode / decode peak of its conv stack at the full-resolution level, tiled and sliced as the class runs them.
 * LTX 0.9.1+ features (timestep_conditioning, decoder_inject_noise, upsample_residual, upsample_factor,
 * LTXVideo095DownBlock3D) are refused: their modules are not counted here. */
#include <stdio.h>
#include <string.h>

#include "diffusers.h"
#include "util.h"

static int64_t conv(int64_t in, int64_t out, int64_t kvol) { return in * out * kvol + out; } /* nn.Conv3d with bias */

/* LTXVideoResnetBlock3d (lines 81-195): norm1/norm2 are RMSNorm(elementwise_affine=False), no parameters (line 120);
 * conv1 in->out and conv2 out->out, causal 3x3x3 Conv3d with bias; when the channels change norm3 =
 * LayerNorm(in, affine, bias) and conv_shortcut 1x1x1 (lines 131-137) */
static int64_t res(int64_t in, int64_t out) {
    return conv(in, out, 27) + conv(out, out, 27) + (in != out ? 2 * in + conv(in, out, 1) : 0);
}

static vp_status refuse(const char *p, const char *key, const char *why, vp_error *err) {
    char path[128];
    vp_path_key(path, sizeof path, p, key);
    return vp_fail(err, VP_ERR_UNSUPPORTED, path, "%s: %s is not modelled (LTX-Video 0.9.0's VAE is)", path, why);
}

vp_status vp_vae_ltx_parse(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    /* class defaults (AutoencoderKLLTXVideo.__init__, lines 1078-1106) */
    int64_t boc[5] = {128, 256, 512, 512}, dboc[5] = {128, 256, 512, 512}, lpb[6] = {4, 3, 3, 3, 4},
            dlpb[6] = {4, 3, 3, 3, 4}, sts[5] = {1, 1, 1, 0}, dsts[5] = {1, 1, 1, 0}, tmp[6];
    int n = 4, dn = 4, nl = 5, dnl = 5, ns = 4, dns = 4, k = 0;
    int64_t cin = 3, cout = 3, L = 128, P = 4, Pt = 1;
    if ((st = vp_json_opt_int(c, p, "in_channels", 1, 64, &cin, err)) ||
        (st = vp_json_opt_int(c, p, "out_channels", 1, 64, &cout, err)) ||
        (st = vp_json_opt_int(c, p, "latent_channels", 1, 4096, &L, err)) ||
        (st = vp_json_opt_int(c, p, "patch_size", 1, 64, &P, err)) ||
        (st = vp_json_opt_int(c, p, "patch_size_t", 1, 64, &Pt, err)) ||
        (st = vp_vae_list(c, p, "block_out_channels", 0, 1, 65536, boc, 5, &n, err)) ||
        (st = vp_vae_list(c, p, "decoder_block_out_channels", 0, 1, 65536, dboc, 5, &dn, err)) ||
        (st = vp_vae_list(c, p, "layers_per_block", 0, 0, 64, lpb, 6, &nl, err)) ||
        (st = vp_vae_list(c, p, "decoder_layers_per_block", 0, 0, 64, dlpb, 6, &dnl, err)) ||
        (st = vp_vae_list(c, p, "spatio_temporal_scaling", 1, 0, 1, sts, 5, &ns, err)) ||
        (st = vp_vae_list(c, p, "decoder_spatio_temporal_scaling", 1, 0, 1, dsts, 5, &dns, err)))
        return st;
    if (nl != n + 1 || dnl != dn + 1 || ns < n || dns < dn) {
        char path[128];
        vp_path_key(path, sizeof path, p, "layers_per_block");
        return vp_fail(err, VP_ERR_FIELD, path,
                       "%s: layers_per_block needs one entry per block plus the mid block, spatio_temporal_scaling one "
                       "per block (encoder and decoder)", path);
    }
    if (Pt != 1) return refuse(p, "patch_size_t", "a temporal patch", err);
    int on = 0;
    if ((st = vp_json_opt_bool(c, p, "timestep_conditioning", &on, err))) return st;
    if (on) return refuse(p, "timestep_conditioning", "the timestep-conditioned decoder (0.9.1+)", err);
    const char *lists[] = {"decoder_inject_noise", "upsample_residual", "upsample_factor", "down_block_types"};
    for (int i = 0; i < 4; i++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(c, lists[i]), *e;
        cJSON_ArrayForEach(e, it) {
            int odd = i == 2 ? !(cJSON_IsNumber(e) && e->valuedouble == 1.0)
                      : i == 3 ? !(cJSON_IsString(e) && !strcmp(e->valuestring, "LTXVideoDownBlock3D"))
                               : !cJSON_IsFalse(e);
            if (odd) return refuse(p, lists[i], "a 0.9.1+ block option", err);
        }
    }
    /* encoder (LTXVideoEncoder3d, lines 726-877): conv_in 3·p² -> boc[0] (line 779); down block i: lpb[i] resnets at its
     * input width, a stride-2 causal conv when sts[i] (lines 353-365), conv_out resnet in -> out when they differ
     * (lines 367-377), out = boc[i+1] (boc[i] for the last, line 794); mid block lpb[n] resnets; norm_out RMSNorm without
     * parameters; conv_out -> latent + 1 channels (line 833) */
    int64_t e = conv(cin * P * P, boc[0], 27), out = boc[0];
    for (int i = 0; i < n; i++) {
        int64_t in = out;
        out = i + 1 < n ? boc[i + 1] : boc[i];
        e += lpb[i] * res(in, in) + (sts[i] ? conv(in, in, 27) : 0) + (in != out ? res(in, out) : 0);
    }
    e += lpb[n] * res(out, out) + conv(out, L + 1, 27);
    /* decoder (LTXVideoDecoder3d, lines 879-1032), lists reversed: conv_in latent -> dboc[-1]; mid block dlpb[-1]
     * resnets; up block i: conv_in resnet when the width changes (lines 649-660), LTXVideoUpsampler3d(out, stride 2)
     * when its scaling is set: one conv out -> 8·out (line 262), then dlpb[dn-1-i] resnets; conv_out -> 3·p² */
    for (int i = 0; i < dn; i++) tmp[i] = dboc[dn - 1 - i];
    int64_t d = conv(L, tmp[0], 27) + dlpb[dn] * res(tmp[0], tmp[0]), big = 0;
    out = tmp[0];
    int tdec = 0;
    for (int i = 0; i < dn; i++) {
        int64_t in = out;
        out = tmp[i];
        int up = (int)dsts[dn - 1 - i];
        d += (in != out ? res(in, out) : 0) + (up ? conv(out, 8 * out, 27) : 0) + dlpb[dn - 1 - i] * res(out, out);
        if (up && out * 8 * out * 27 > big) big = out * 8 * out * 27;
        tdec += up;
    }
    d += conv(out, cout * P * P, 27);
    for (int i = 0; i < n; i++) k += (int)sts[i];
    a->kind = VP_KIND_DIT;
    vp_strlcpy(a->model_type, "vae_ltx", sizeof a->model_type);
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->d.params = e + d;
    a->d.buffers = 2 * L; /* latents_mean, latents_std: persistent buffers (lines 1140-1143), saved with the weights */
    a->d.embed = e;
    a->d.other = 0;
    a->d.blocks_total = a->d.per_block = d;
    a->d.largest_tensor = big > boc[n - 1] * boc[n - 1] * 27 ? big : boc[n - 1] * boc[n - 1] * 27;
    for (int i = 0; i < n; i++) a->d.ch[i] = boc[i];
    a->d.levels = n;
    a->d.latent_ch = L;
    a->d.dec_ch0 = out; /* the last up block's width: the full-resolution level before conv_out */
    a->d.vae_patch = P;
    a->d.vae3d = 1;
    /* spatial_compression_ratio = patch_size · 2^sum(scaling), temporal = patch_size_t · 2^sum (lines 1145-1154) */
    a->d.spatial = P << k;
    a->d.temporal = Pt << k;
    a->d.layers_per_block = tdec; /* here: the decoder's temporal upsamplers */
    a->d.tile_h = a->d.tile_w = 512; /* tile_sample_min_height / width (line 1177), stride 448 (line 1182) */
    a->d.frame_chunk = 0;           /* every frame in one call: framewise decoding is off unless set by hand */
    a->layers = 1;
    a->hidden = boc[0];
    return VP_OK;
}

/* Bytes per channel per position at the peak of an LTXVideoResnetBlock3d of c -> c channels over T frames
 * (forward, lines 149-195), elem the activation dtype's size:
 *  - norm2 (RMSNorm, normalization.py:554-565): the block's input kept for the residual, conv1's output, and inside
 *    the norm hidden_states.to(float32) (a copy unless the activations are fp32) and its .pow(2), both fp32:
 *    2·elem + 4 + 4 (bf16: 12 B; fp32: 2·4 + 4 = 12 B, the cast being a no-op);
 *  - conv1 / conv2 (LTXVideoCausalConv3d.forward, lines 66-78): the input kept, SiLU's output, the 2 padding frames
 *    (pad_left, or pad_left + pad_right in the non-causal decoder) and their torch.concatenate with the input
 *    ((T + 2) / T), and the conv's output: elem · (4 + 4 / T). */
static double res_peak(double elem, double T) {
    double norm = 2.0 * elem + (elem < 4.0 ? 4.0 : 0.0) + 4.0;
    double cv = elem * (4.0 + 4.0 / T);
    return norm > cv ? norm : cv;
}

/* pixels covered by the tiles of one axis: tiles of `tile` every `stride` over n (tiled_decode, lines 1420-1424) */
static int64_t tiles_span(int64_t n, int64_t tile, int64_t stride) {
    int64_t s = 0;
    if (tile < 1) tile = 1; /* a compression wider than the tile (odd configs): one latent per tile */
    if (stride < 1) stride = 1;
    for (int64_t i = 0; i < n; i += stride) s += n - i < tile ? n - i : tile;
    return s;
}

static void tile_of(const vp_arch *a, int64_t h, int64_t w, int tiling, int64_t *th, int64_t *tw) {
    *th = h, *tw = w;
    if (tiling && (h > a->d.tile_h || w > a->d.tile_w)) {
        *th = h < a->d.tile_h ? h : a->d.tile_h;
        *tw = w < a->d.tile_w ? w : a->d.tile_w;
    }
}

/* Decode (_decode, lines 1260-1280; tiled_decode, lines 1389-1441): the peak is a resnet of the last up block, at
 * dec_ch0 channels over (frames, height / p, width / p) positions of one decoder call (the last upsampler slices its
 * output to 8(F_lat - 1) + 1 frames, line 294). Tiling: 512 x 512-pixel tiles (16 latents, stride 14) when the latents
 * are wider or taller than 16; the tiles' outputs are all kept in `rows` and concatenated at the end (tiles + the
 * row concatenations + the final one); untiled, conv_out's 3·p²-channel output and its unpatchified copy are the end
 * (lines 1024-1030). Slicing: one sample per call. */
void vp_vae_ltx_decode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                            int tiling, int slicing, vp_vae_peak *o) {
    memset(o, 0, sizeof *o);
    if (frames < 1) frames = 1;
    int64_t b = slicing ? 1 : batch, th, tw, P = a->d.vae_patch > 0 ? a->d.vae_patch : 1;
    int64_t lat = (frames - 1) / a->d.temporal + 1, T = ((lat - 1) << a->d.layers_per_block) + 1;
    tile_of(a, height, width, tiling, &th, &tw);
    double N = (double)b * (double)T * (double)(th / P) * (double)(tw / P);
    double c = (double)a->d.dec_ch0;
    o->tensor_bytes = c * N * elem;
    o->bytes = res_peak(elem, (double)T) * c * N;
    double video = 3.0 * (double)batch * (double)T * (double)height * (double)width * elem;
    if (th != height || tw != width) {
        int64_t s = a->d.spatial;
        double span = (double)tiles_span(height / s, a->d.tile_h / s, 448 / s) * (double)s *
                      (double)tiles_span(width / s, a->d.tile_w / s, 448 / s) * (double)s;
        o->out_bytes = 3.0 * (double)batch * (double)T * span * elem + 2.0 * video;
    } else {
        o->out_bytes = 2.0 * video;
    }
    o->chunk_frames = T;
    o->tile_h = th;
    o->tile_w = tw;
    snprintf(o->where, sizeof o->where, "resnet of the last up block: %lld ch at %lld×%lld × %lld frames",
             (long long)a->d.dec_ch0, (long long)(th / P), (long long)(tw / P), (long long)T);
}

/* Encode (_encode, lines 1220-1230; tiled_encode, lines 1338-1387): the encoder patchifies 4 x 4 pixels into channels
 * (lines 839-856), so its widest level is the first down block's resnets at ch[0] channels over (frames, height / p,
 * width / p) positions, every frame in one call (framewise encoding is off unless set by hand). Tiling: 512 x 512-pixel
 * tiles when the video is wider or taller (the encoded tiles are latents, negligible). out_bytes: the input video. */
void vp_vae_ltx_encode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                            int tiling, int slicing, vp_vae_peak *o) {
    memset(o, 0, sizeof *o);
    if (frames < 1) frames = 1;
    int64_t b = slicing ? 1 : batch, th, tw, P = a->d.vae_patch > 0 ? a->d.vae_patch : 1;
    tile_of(a, height, width, tiling, &th, &tw);
    double N = (double)b * (double)frames * (double)(th / P) * (double)(tw / P);
    double c = (double)a->d.ch[0];
    o->tensor_bytes = c * N * elem;
    o->bytes = res_peak(elem, (double)frames) * c * N;
    o->out_bytes = 3.0 * (double)batch * (double)frames * (double)height * (double)width * elem;
    o->chunk_frames = frames;
    o->tile_h = th;
    o->tile_w = tw;
    snprintf(o->where, sizeof o->where, "first down block: %lld ch at %lld×%lld × %lld frames", (long long)a->d.ch[0],
             (long long)(th / P), (long long)(tw / P), (long long)frames);
}
