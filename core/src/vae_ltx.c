/* vae_ltx.c: diffusers AutoencoderKLLTXVideo (src/diffusers/models/autoencoders/autoencoder_kl_ltx.py at commit
 * 58eb52c0): exact parameters module by module, and the encode / decode peak of its conv stack at the full-resolution
 * level, tiled and sliced as the class runs them. Three generations of config are read:
 *   0.9.0 (Lightricks/LTX-Video vae/config.json): LTXVideoDownBlock3D, plain decoder; 419,193,649 parameters;
 *   0.9.1 (convert_ltx_to_diffusers.py "0.9.1"): a wider decoder (decoder_block_out_channels), noise injection in the
 *     up blocks (decoder_inject_noise), residual upsamplers that halve the channels (upsample_residual,
 *     upsample_factor), and a timestep-conditioned decoder (timestep_conditioning); 934,976,434;
 *   0.9.5 and later (the VAE of LTX-Video 0.9.5-0.9.8 and LTXV 13B): LTXVideo095DownBlock3D with LTXVideoDownsampler3d
 *     per downsample_type over a five-width encoder; 1,246,913,522.
 * The three counts are diffusers' own modules built with those configs under torch (test file
 * tests/core/test_diffusion_vae_ltx.c). */
#include <stdio.h>
#include <string.h>

#include "diffusers.h"
#include "util.h"

static int64_t conv(int64_t in, int64_t out, int64_t kvol) { return in * out * kvol + out; } /* nn.Conv3d with bias */

/* LTXVideoResnetBlock3d (lines 81-195): norm1/norm2 are RMSNorm(elementwise_affine=False), no parameters (line 120);
 * conv1 in->out and conv2 out->out, causal 3x3x3 Conv3d with bias; when the channels change norm3 =
 * LayerNorm(in, affine, bias) and conv_shortcut 1x1x1 (lines 131-137); inject_noise: per_channel_scale1/2, in each
 * (lines 139-143); timestep_conditioning: scale_shift_table (4, in) (lines 145-147) */
static int64_t res_x(int64_t in, int64_t out, int noise, int tc) {
    return conv(in, out, 27) + conv(out, out, 27) + (in != out ? 2 * in + conv(in, out, 1) : 0) + (noise ? 2 * in : 0) +
           (tc ? 4 * in : 0);
}
static int64_t res(int64_t in, int64_t out) { return res_x(in, out, 0, 0); }

/* PixArtAlphaCombinedTimestepSizeEmbeddings(d, 0) (embeddings.py): TimestepEmbedding(256, d), Linear(256, d) + Linear(d, d) */
static int64_t time_embedder(int64_t d) { return 256 * d + d + d * d + d; }

static vp_status refuse(const char *p, const char *key, const char *why, vp_error *err) {
    char path[128];
    vp_path_key(path, sizeof path, p, key);
    return vp_fail(err, VP_ERR_UNSUPPORTED, path, "%s: %s is not modelled", path, why);
}

enum { DOWN_CONV = 0, DOWN_SPATIAL, DOWN_TEMPORAL, DOWN_SPATIOTEMPORAL };

vp_status vp_vae_ltx_parse(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    /* class defaults (AutoencoderKLLTXVideo.__init__, lines 1078-1106) */
    int64_t boc[5] = {128, 256, 512, 512}, dboc[5] = {128, 256, 512, 512}, lpb[6] = {4, 3, 3, 3, 4},
            dlpb[6] = {4, 3, 3, 3, 4}, sts[5] = {1, 1, 1, 0}, dsts[5] = {1, 1, 1, 0}, noise[6] = {0, 0, 0, 0, 0, 0},
            ures[5] = {0, 0, 0, 0, 0}, ufac[5] = {1, 1, 1, 1, 1}, tmp[6];
    int n = 4, dn = 4, nl = 5, dnl = 5, ns = 4, dns = 4, nn = 0, nr = 0, nf = 0, nt = 0, nd = 0;
    int btype[5] = {0, 0, 0, 0, 0}, dtype[5] = {DOWN_CONV, DOWN_CONV, DOWN_CONV, DOWN_CONV, DOWN_CONV};
    int64_t cin = 3, cout = 3, L = 128, P = 4, Pt = 1;
    int tc = 0;
    static const char *const blocks[] = {"LTXVideoDownBlock3D", "LTXVideo095DownBlock3D"};
    static const char *const downs[] = {"conv", "spatial", "temporal", "spatiotemporal"};
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
        (st = vp_vae_list(c, p, "decoder_spatio_temporal_scaling", 1, 0, 1, dsts, 5, &dns, err)) ||
        (st = vp_vae_list(c, p, "decoder_inject_noise", 1, 0, 1, noise, 6, &nn, err)) ||
        (st = vp_vae_list(c, p, "upsample_residual", 1, 0, 1, ures, 5, &nr, err)) ||
        (st = vp_vae_list(c, p, "upsample_factor", 0, 1, 8, ufac, 5, &nf, err)) ||
        (st = vp_vae_names(c, p, "down_block_types", blocks, 2, btype, 5, &nt, err)) ||
        (st = vp_vae_names(c, p, "downsample_type", downs, 4, dtype, 5, &nd, err)) ||
        (st = vp_json_opt_bool(c, p, "timestep_conditioning", &tc, err)))
        return st;
    /* LTXVideoEncoder3d (lines 780-800): the 0.9.5 layout (the last down block type LTXVideo095DownBlock3D) takes one
     * block per width step, len(block_out_channels) - 1 of them; the 0.9.0 one a block per width */
    int is095 = nt > 0 && btype[nt - 1] == 1;
    int nb = n - (is095 ? 1 : 0);
    if (nb < 1 || nl != nb + 1 || dnl != dn + 1 || ns < nb || dns < dn || (nt > 0 && nt < nb) || (nd > 0 && nd < nb) ||
        (nn > 0 && nn < dn + 1) || (nr > 0 && nr < dn) || (nf > 0 && nf < dn)) {
        char path[128];
        vp_path_key(path, sizeof path, p, "layers_per_block");
        return vp_fail(err, VP_ERR_FIELD, path,
                       "%s: layers_per_block needs one entry per down block plus the mid block (encoder and decoder), "
                       "spatio_temporal_scaling / down_block_types / downsample_type one per down block, "
                       "decoder_inject_noise one per up block plus the mid block, upsample_residual / upsample_factor one "
                       "per up block", path);
    }
    if (Pt != 1) return refuse(p, "patch_size_t", "a temporal patch", err);
    /* encoder: conv_in 3·p² -> boc[0] (line 779); 0.9.0 down block i (lines 324-377): lpb[i] resnets at its input width,
     * a stride-2 causal conv when sts[i], conv_out resnet in -> out when they differ, out = boc[i+1] (boc[i] for the
     * last); 0.9.5 block (LTXVideo095DownBlock3D, lines 430-496): lpb[i] resnets at its input width, then when sts[i]
     * a stride-2 conv ("conv") or an LTXVideoDownsampler3d whose conv makes out / prod(stride) channels that its
     * space-to-depth reshape turns into out (lines 197-243); mid block lpb[nb] resnets; conv_out -> latent + 1 */
    int64_t e = conv(cin * P * P, boc[0], 27), out = boc[0], enc_big = 0;
    int ks = 0, kt = 0; /* the encoder's spatial and temporal halvings */
    for (int i = 0; i < nb; i++) {
        int64_t in = out;
        out = is095 ? boc[i + 1] : (i + 1 < nb ? boc[i + 1] : boc[i]);
        e += lpb[i] * res(in, in);
        if (in * in * 27 > enc_big && lpb[i] > 0) enc_big = in * in * 27;
        if (btype[i] == 1 && sts[i]) {
            int d = dtype[i];
            int64_t prod = d == DOWN_CONV ? 1 : d == DOWN_SPATIAL ? 4 : d == DOWN_TEMPORAL ? 2 : 8;
            if (out % prod) return refuse(p, "downsample_type", "a downsampler whose width does not divide", err);
            e += d == DOWN_CONV ? conv(in, in, 27) : conv(in, out / prod, 27);
            ks += d != DOWN_TEMPORAL;
            kt += d != DOWN_SPATIAL;
        } else if (btype[i] == 0) {
            e += (sts[i] ? conv(in, in, 27) : 0) + (in != out ? res(in, out) : 0);
            ks += (int)sts[i];
            kt += (int)sts[i];
        }
    }
    e += lpb[nb] * res(out, out) + conv(out, L + 1, 27);
    if (out * out * 27 > enc_big) enc_big = out * out * 27;
    /* decoder (LTXVideoDecoder3d, lines 879-1032), lists reversed: conv_in latent -> dboc[-1]; mid block dlpb[-1]
     * resnets (with noise[-1] and the timestep conditioning: a time_embedder of 4 × its width); up block i
     * (LTXVideoUpBlock3d, lines 626-700) takes in = previous width / ufac, out = its width / ufac: a time_embedder of
     * 4 × in when conditioned, a conv_in resnet when in != out, an LTXVideoUpsampler3d(out × ufac, stride 2) whose conv
     * makes 8 × out channels, then dlpb resnets at out; conv_out -> 3·p²; the conditioned decoder also holds
     * timestep_scale_multiplier, a time_embedder of 2 × its last width and a (2, width) scale_shift_table */
    for (int i = 0; i < dn; i++) tmp[i] = dboc[dn - 1 - i];
    int64_t width = tmp[0];
    int64_t d = conv(L, width, 27) + dlpb[dn] * res_x(width, width, (int)noise[dn], tc) + (tc ? time_embedder(4 * width) : 0);
    int64_t big = width * width * 27;
    int tdec = 0;
    for (int i = 0; i < dn; i++) {
        int j = dn - 1 - i; /* this block's entry in the configs' (unreversed) lists */
        int64_t f = ufac[j];
        if (width % f || tmp[i] % f) return refuse(p, "upsample_factor", "a factor that does not divide the widths", err);
        int64_t in = width / f, bout = tmp[i] / f;
        int up = (int)dsts[j];
        d += (tc ? time_embedder(4 * in) : 0) + (in != bout ? res_x(in, bout, (int)noise[j], tc) : 0) +
             (up ? conv(bout * f, 8 * bout, 27) : 0) + dlpb[j] * res_x(bout, bout, (int)noise[j], tc);
        if (up && bout * f * 8 * bout * 27 > big) big = bout * f * 8 * bout * 27;
        tdec += up;
        width = bout;
    }
    d += conv(width, cout * P * P, 27) + (tc ? 1 + time_embedder(2 * width) + 2 * width : 0);
    a->kind = VP_KIND_DIT;
    vp_strlcpy(a->model_type, "vae_ltx", sizeof a->model_type);
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->d.params = e + d;
    a->d.buffers = 2 * L; /* latents_mean, latents_std: persistent buffers (lines 1140-1143), saved with the weights */
    a->d.embed = e;
    a->d.other = 0;
    a->d.blocks_total = a->d.per_block = d;
    a->d.largest_tensor = big > enc_big ? big : enc_big;
    for (int i = 0; i < n; i++) a->d.ch[i] = boc[i];
    a->d.levels = n;
    a->d.latent_ch = L;
    a->d.dec_ch0 = width; /* the last up block's width: the full-resolution level before conv_out */
    a->d.vae_patch = P;
    a->d.vae3d = 1;
    /* spatial_compression_ratio = patch_size · 2^(spatial halvings), temporal = patch_size_t · 2^(temporal ones)
     * (lines 1145-1154; the 0.9.5 configs state them: 32 and 8) */
    a->d.spatial = P << ks;
    a->d.temporal = Pt << kt;
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
 *    ((T + 2) / T), the conv's output, and cuDNN's workspace, the conv's input + output ((T + 2) / T + 1; the H100
 *    traces' rule for Conv3d, events_vae_cogvideox.c and the Wan decode's fp32 record; the weight, 0.9 MB, left out of
 *    this per-position sum): elem · (6 + 6 / T). */
static double res_peak(double elem, double T) {
    double norm = 2.0 * elem + (elem < 4.0 ? 4.0 : 0.0) + 4.0;
    double cv = elem * (6.0 + 6.0 / T);
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
    vp_vae_tile(a, height, width, tiling, &th, &tw);
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
    vp_vae_tile(a, height, width, tiling, &th, &tw);
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
