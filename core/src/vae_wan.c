/* vae_wan.c: AutoencoderKLWan, the Wan VAEs (diffusers src/diffusers/models/autoencoders/autoencoder_kl_wan.py at
 * 58eb52c0): the config read, parameters counted module by module, and the Wan 2.2 VAE's encode / decode memory.
 *   Wan 2.1 (is_residual false, base_dim 96, z_dim 16): 126,892,531 parameters; 8x spatial, 4x temporal. Its
 *     decode peak is the shared conv-stack model of vae.c (vp_vae_decode_peak).
 *   Wan 2.2 (is_residual true: Wan2.2-TI2V-5B's VAE, base_dim 160, decoder_base_dim 256, z_dim 48, in/out_channels
 *     12, patch_size 2): 704,688,668 parameters; the video is patchified 2x2 into 12 channels before the encoder and
 *     unpatchified after the decoder, so the conv stack runs at half the pixels per side and the whole VAE
 *     compresses 16x spatially (scale_factor_spatial 16). Its down / up blocks are residual: each block clones its
 *     input (WanResidualDownBlock / WanResidualUpBlock.forward: `x_copy = x.clone()`) and adds it back through
 *     AvgDown3D / DupUp3D (reshapes, no parameters), and the decoder keeps the full channel counts (no halving). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diffusers.h"
#include "util.h"

static int64_t conv(int64_t in, int64_t out, int64_t kvol) { return in * out * kvol + out; }

/* WanResidualBlock: norm1 WanRMS_norm gamma (in), conv1 WanCausalConv3d 3³, norm2 gamma (out), conv2 3³, and a 1³
 * conv_shortcut when the channels change; WanAttentionBlock: RMS_norm gamma, to_qkv 1×1 C->3C, proj 1×1 */
static int64_t wan_res(int64_t in, int64_t out) { return in + conv(in, out, 27) + out + conv(out, out, 27) + (in != out ? conv(in, out, 1) : 0); }
static int64_t wan_attn(int64_t c) { return c + conv(c, 3 * c, 1) + conv(c, c, 1); }

/* dims = base × [1] + dim_mult (encoder), dec_base × [dim_mult[-1]] + reversed(dim_mult) (decoder).
 * Encoder: conv_in (in_channels -> dims[0]); per level num_res_blocks resnets, then except at the last level a
 * WanResample: Conv2d(C, C, 3, stride 2) (+ time_conv Conv3d(C, C, (3,1,1)) where temperal_downsample); mid
 * (resnet, attention, resnet); norm_out gamma; conv_out -> 2z. Decoder: conv_in z -> dims[0]; mid; up block i:
 * num_res_blocks + 1 resnets from its in_dim (2.1: halved after the first block, the upsamplers halving the
 * channels; 2.2: kept), then except at the last level a WanResample: Conv2d(C, C/2 in 2.1 | C in 2.2, 3) (+ time_conv
 * Conv3d(C, 2C, (3,1,1)) where temperal_upsample, the reversed temperal_downsample); norm_out gamma; conv_out ->
 * out_channels. quant_conv 2z -> 2z and post_quant_conv z -> z, 1³. */
static int64_t wan_count(const vp_arch *a, const int *tdown, int64_t cin, int64_t cout, int64_t *enc_out, int64_t *dec_out) {
    int n = a->d.levels; /* len(dim_mult) */
    int res = a->d.vae_residual;
    int64_t z = a->d.latent_ch, nrb = a->d.layers_per_block;
    int64_t dims[8] = {0};
    for (int i = 0; i <= n; i++) dims[i] = a->d.ch[i];
    int64_t e = conv(cin, dims[0], 27);
    for (int i = 0; i < n; i++) {
        int64_t in = dims[i], out = dims[i + 1];
        for (int64_t k = 0; k < nrb; k++) e += wan_res(k ? out : in, out);
        if (i != n - 1) e += conv(out, out, 9) + (tdown[i] ? conv(out, out, 3) : 0);
    }
    int64_t top = dims[n];
    e += 2 * wan_res(top, top) + wan_attn(top) + top + conv(top, 2 * z, 27);
    int64_t dd[8] = {0};
    vp_vae_wan_dec_dims(a, dd);
    int64_t d = conv(z, dd[0], 27) + 2 * wan_res(dd[0], dd[0]) + wan_attn(dd[0]);
    for (int i = 0; i < n; i++) {
        int64_t in = dd[i], out = dd[i + 1];
        if (i > 0 && !res) in /= 2;
        for (int64_t k = 0; k <= nrb; k++) d += wan_res(k ? out : in, out);
        if (i != n - 1) {
            int temporal = tdown[n - 2 - i]; /* temperal_upsample = temperal_downsample reversed */
            d += conv(out, res ? out : out / 2, 9) + (temporal ? conv(out, 2 * out, 3) : 0);
        }
    }
    d += dd[n] + conv(dd[n], cout, 27);
    *enc_out = e;
    *dec_out = d;
    return e + d + conv(2 * z, 2 * z, 1) + conv(z, z, 1);
}

/* the decoder's channels: dd[0] the mid block's, dd[i + 1] up block i's output (WanDecoder3d: dims = dim ×
 * [dim_mult[-1]] + dim_mult[::-1], dim = decoder_base_dim or base_dim) */
void vp_vae_wan_dec_dims(const vp_arch *a, int64_t *dd) {
    int n = a->d.levels;
    int64_t base = a->d.ch[0], dbase = a->d.dec_base > 0 ? a->d.dec_base : base;
    dd[0] = dbase * (a->d.ch[n] / base);
    for (int i = 0; i < n; i++) dd[i + 1] = dbase * (a->d.ch[n - i] / base);
}

vp_status vp_vae_wan_parse(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    int64_t base = 96, dbase = 0, mult[4] = {1, 2, 4, 4}, nrb = 2, cin = 3, cout = 3, patch = 1;
    int nm = 4;
    int tdown[4] = {0, 1, 1, 0};
    a->d.latent_ch = 16;
    if ((st = vp_json_opt_int(c, p, "base_dim", 1, 65536, &base, err))) return st;
    if ((st = vp_json_opt_int(c, p, "decoder_base_dim", 1, 65536, &dbase, err))) return st;
    if ((st = vp_json_opt_int(c, p, "z_dim", 1, 4096, &a->d.latent_ch, err))) return st;
    if ((st = vp_json_opt_int(c, p, "num_res_blocks", 1, 64, &nrb, err))) return st;
    if ((st = vp_json_opt_int(c, p, "in_channels", 1, 4096, &cin, err))) return st;
    if ((st = vp_json_opt_int(c, p, "out_channels", 1, 4096, &cout, err))) return st;
    if ((st = vp_json_opt_int(c, p, "patch_size", 1, 16, &patch, err))) return st;
    if ((st = vp_vae_list(c, p, "dim_mult", 0, 1, 64, mult, 4, &nm, err))) return st;
    const cJSON *td = cJSON_GetObjectItemCaseSensitive(c, "temperal_downsample");
    if (cJSON_IsArray(td)) {
        int n = cJSON_GetArraySize(td);
        for (int i = 0; i < n && i < 4; i++) tdown[i] = cJSON_IsTrue(cJSON_GetArrayItem(td, i));
    }
    const cJSON *attn = cJSON_GetObjectItemCaseSensitive(c, "attn_scales");
    if (cJSON_IsArray(attn) && cJSON_GetArraySize(attn) > 0) {
        char path[128];
        vp_path_key(path, sizeof path, p, "attn_scales");
        return vp_fail(err, VP_ERR_UNSUPPORTED, path, "%s: attention in the down/up blocks is not modelled", path);
    }
    int residual = 0;
    if ((st = vp_json_opt_bool(c, p, "is_residual", &residual, err))) return st;
    /* the patchified video has in_channels = 3 · patch² (patchify in _encode; unpatchify after _decode) */
    if (cin != 3 * patch * patch || cout != cin) {
        char path[128];
        vp_path_key(path, sizeof path, p, cin != 3 * patch * patch ? "in_channels" : "out_channels");
        return vp_fail(err, VP_ERR_FIELD, path, "%s: expected 3 × patch_size² = %lld channels (RGB, patchified)", path,
                       (long long)(3 * patch * patch));
    }
    a->d.layers_per_block = (int)nrb;
    a->d.levels = nm;
    a->d.ch[0] = base;
    for (int i = 0; i < nm; i++) a->d.ch[i + 1] = base * mult[i];
    a->d.dec_base = dbase;
    a->d.vae_residual = residual;
    a->d.vae_patch = patch;
    int64_t enc = 0, dec = 0;
    a->d.params = wan_count(a, tdown, cin, cout, &enc, &dec);
    a->d.embed = enc; /* encoder */
    a->d.other = a->d.params - enc - dec;
    a->d.blocks_total = dec; /* decoder */
    a->d.per_block = dec;
    int64_t dd[8] = {0};
    vp_vae_wan_dec_dims(a, dd);
    a->d.largest_tensor = dd[0] * dd[0] * 27;
    a->d.vae3d = 1;
    a->d.frame_chunk = 1; /* _decode: one latent frame per decoder call (causal feature cache) */
    a->d.spatial = (1LL << (nm - 1)) * patch;
    a->d.temporal = 1;
    for (int i = 0; i < nm - 1; i++) a->d.temporal *= tdown[i] ? 2 : 1;
    a->d.vae_tup = 0;
    for (int i = 0; i < nm - 1; i++)
        if (tdown[nm - 2 - i]) a->d.vae_tup |= 1 << i;
    a->d.tile_h = a->d.tile_w = 256; /* tile_sample_min_height/width; stride 192 */
    a->d.tile_frames = 0;
    return VP_OK;
}

/* cuDNN's conv3d workspace, allocated through PyTorch's caching allocator right after the conv's output and freed
 * when the conv returns: 1,596,621,175 B beside a 707,788,800 B output for the CogVideoX decoder's 3×3×3 conv at 128
 * channels × 8 frames (the h100 session's decode trace, tests/groundtruth/h100-2026-11-24-diffusion/traces; the
 * largest conv there, the smaller ones 2.3-3.5 ×). Its size is the algorithm cuDNN picks, not the model's: this is
 * the measured ratio, used where a decode's peak falls inside a 3-D conv. */
#define CUDNN_CONV3D_WS_PER_OUTPUT (1596621175.0 / 707788800.0)

/* Wan 2.1 decode (is_residual false), the last decoder call (one latent frame in, px pixel frames out) at its peak, in
 * channel × pixel-frame units of one th × tw tile (autoencoder_kl_wan.py at 58eb52c0). The peak is conv1 of the
 * last up block's second (or third) resnet. Alive there: the up block's input (the upsampler's output, which the
 * decoder's `x` holds until the block returns: WanDecoder3d.forward, WanUpBlock), the resnet's input (`h`, its
 * residual) and the SiLU's output; inside WanCausalConv3d.forward, torch.cat of the two cached frames with it (px + 2
 * frames), then F.pad of that (+1 pixel each side) while the cat is still bound, which the rebinding then frees
 * before the conv: so either the cat and the padded copy, or the padded copy, the conv's output and cuDNN's workspace
 * (the larger: the second on CUDA). And the causal caches, two frames of every 3-D conv's input in _feat_map: the
 * last up block's six and conv_out's at full resolution, plus the running conv's new cache_x (its clone, made before
 * the old one is replaced); each up block's convs (the first resnet's conv1 at the block's input width), the
 * upsample3d levels' time_conv, the mid block's four and conv_in's, each at 4^-k of the pixels k levels below full
 * resolution. The tensors (the first moment) were checked on the CPU, where no workspace comes through the
 * allocator (tools/groundtruth/wan_vae_cpu_live.py): 130.9 MB alive at 9 × 64 × 104 fp32, 130.6 from these terms.
 * One frame (an image through the Qwen-Image VAE, the same network): one cached frame per conv, as events_vae_wan.c
 * replays it. */
double vp_vae_wan21_decode_units(const vp_arch *a, int64_t px, int multi, double th, double tw) {
    int n = a->d.levels;
    if (n < 1 || n > 6) return 0;
    int64_t dd[8] = {0};
    vp_vae_wan_dec_dims(a, dd);
    double lpb = (double)a->d.layers_per_block, P = th * tw;
    double c = (double)dd[n], cin = n > 1 ? (double)dd[n - 1] / 2.0 : (double)dd[0];
    double f = (double)px, cat = multi ? f + 2.0 : 0.0, pad = (f + 2.0) * (th + 2.0) * (tw + 2.0) / P;
    if (a->d.vae_flat) cin = 0; /* Wan's own flat Decoder3d: the level's input is gone after its first resnet */
    double held = (cin + 2.0 * c) * f;                                  /* block input, h, SiLU */
    double at_pad = held + c * (cat + pad);                             /* F.pad with the cat bound */
    double in_conv = held + c * pad + c * f * (1.0 + CUDNN_CONV3D_WS_PER_OUTPUT); /* the conv, its workspace */
    double acts = at_pad > in_conv ? at_pad : in_conv;
    double cache = 0;
    for (int i = 0; i < n; i++) {
        double out = (double)dd[i + 1], in = i > 0 ? (double)dd[i] / 2.0 : (double)dd[i];
        double convs = in + out + 2.0 * lpb * out;           /* resnet 0's conv1, conv2; the others' two */
        if (i < n - 1 && (a->d.vae_tup >> i & 1)) convs += out; /* the upsampler's time_conv */
        if (i == n - 1) convs += out + out;                  /* conv_out; the running conv's new clone */
        cache += convs / pow(4.0, (double)(n - 1 - i));
    }
    cache += (4.0 * (double)dd[0] + (double)a->d.latent_ch) / pow(4.0, (double)(n - 1)); /* mid block, conv_in */
    /* x[:, :, -CACHE_T:].clone() of a one-frame input is one frame: a single-frame decode (an image) caches one */
    return acts + (px >= 2 ? 2.0 : 1.0) * cache;
}

/* Wan 2.1 encode (is_residual false), untiled, in elements of one th × tw tile (times the batch): the encoder's peak is
 * the last 3×3×3 conv of its full-resolution level (WanEncoder3d.forward, the flat down_blocks list, at 58eb52c0), in
 * the last encoder call (_encode: the first frame alone, then 4 frames per call). Alive there, in channels × frames of
 * the full-resolution pixels: the resnet's input (the encoder's `x` holds it; with a conv_shortcut its output `h` too),
 * SiLU's output, the new cache_x (the last 2 frames, cloned before the conv), WanCausalConv3d's F.pad copy (the cat of
 * the 2 cached frames and the input, or 2 zero frames in front of the first call's one, and a pixel each side), the
 * conv's output and cuDNN's workspace (padded input + output + weight: events_vae_wan.c's rule). And the caches: every
 * conv of that level (its input's channels, 2 frames; the first call's 1), conv_in's 3-channel one and, once a call has
 * run before, every deeper level's (2 frames from the third call on, 1 in the second; a downsample3d slot keeps one
 * frame of its output) at 4^-k of the pixels. events_vae_wan.c vp_ev_wan21_encode replays the same op by op; test
 * qwen_image_encode checks both against InvokeAI's measured single-frame encodes. *weights: cuDNN's copy of the
 * running conv's weight, in elements (not per image). */
double vp_vae_wan21_encode_units(const vp_arch *a, int64_t frames, double th, double tw, double *weights) {
    int n = a->d.levels;
    *weights = 0;
    if (n < 1 || n > 6) return 0;
    const int64_t *e = a->d.ch; /* encoder dims: e[0] = base_dim, e[i + 1] = base_dim × dim_mult[i] */
    int64_t nrb = a->d.layers_per_block > 0 ? a->d.layers_per_block : 1;
    int64_t calls = 1 + (frames - 1) / 4;
    double f = calls > 1 ? 4.0 : 1.0, kc = calls > 1 ? 2.0 : 1.0;
    double rho = (th + 2.0) * (tw + 2.0) / (th * tw);
    double cin = (double)(nrb > 1 ? e[1] : e[0]), c = (double)e[1];
    double h = cin != c ? c * f : 0.0; /* conv_shortcut's output */
    /* conv1 (cin in) and conv2 (c in) of the level's last resnet: input, h, SiLU out, clone, pad, out, workspace */
    double conv1 = cin * f + h + cin * f + cin * kc + 2.0 * cin * (f + 2.0) * rho + 2.0 * c * f;
    double conv2 = cin * f + h + c * f + c * kc + 2.0 * c * (f + 2.0) * rho + 2.0 * c * f;
    double acts = conv1 > conv2 ? conv1 : conv2;
    *weights = (conv1 > conv2 ? cin : c) * c * 27.0;
    /* the level-0 caches but the running conv's new clone (counted above): conv_in's, every resnet's two */
    double run_old = calls > 2 ? 2.0 : 1.0; /* the running conv's previous cache: the second call holds the first's one frame */
    double lvl0 = 3.0 * kc;
    for (int64_t k = 0; k < nrb; k++) lvl0 += ((double)(k ? e[1] : e[0]) + c) * kc;
    lvl0 -= c * kc; /* the running conv2's new clone is in acts */
    if (calls > 1) lvl0 += c * run_old;
    double deep = 0;
    if (calls > 1) {
        double df = calls > 2 ? 2.0 : 1.0;
        for (int i = 1; i < n; i++) {
            double ci = 0;
            for (int64_t k = 0; k < nrb; k++) ci += (double)(k ? e[i + 1] : e[i]) + (double)e[i + 1];
            deep += ci * df / pow(4.0, (double)i);
            if (a->d.vae_tup >> (n - 1 - i) & 1) deep += (double)e[i] / pow(4.0, (double)i); /* downsample3d's slot */
        }
        /* the mid block's two resnets and conv_out, at the last level */
        deep += (4.0 * (double)e[n] + (double)e[n]) * df / pow(4.0, (double)(n - 1));
    }
    return (acts + lvl0 + deep) * th * tw;
}

/* Wan 2.2 decode, one decoder call (one latent frame in, 4 pixel frames out after the first call's 1), at the
 * decoder's full-resolution level: (height / patch) × (width / patch) positions, dd[n] channels, the last up block's.
 * Alive together, in channel-tensors of that level (a level up holds a quarter per channel):
 *  - the last upsampler (up block n-2, Conv2d at full resolution): its input and WanResample's permute/reshape copy
 *    of it (dd[n-1] at a quarter each), the nearest-exact interpolation (dd[n-1]), the conv's output (dd[n-1]), and
 *    the block's x_copy (its input, dd[n-2] at a quarter); then DupUp3D's shortcut of x_copy: repeat_interleave and
 *    the permuted .contiguous() copy (dd[n-1] each) beside the upsampled x (dd[n-1]);
 *  - the first resnet of the last up block (dd[n-1] -> dd[n]), at conv1: the resnet's input and the up block's
 *    x_copy clone of it (dd[n-1] each), conv_shortcut's output h (dd[n], alive to the resnet's `x + h`), the SiLU
 *    output, WanCausalConv3d.forward's torch.cat of the 2 cached frames before it and the F.pad copy of that cat
 *    (dd[n-1] over px + 2 frames each), and conv1's output (dd[n]) with cuDNN's workspace (the padded input + the
 *    output; the cat is freed by then, so the sum is the cat's moment plus one output) (vae.c's Wan 2.1 model counts the
 *    same conv1, whose resnet there keeps its width, so h is its input).
 * The causal feature caches: two frames of every causal conv's input (CACHE_T = 2), num_res_blocks + 1 resnets × 2
 * convs per up block at that block's channels and pixels. */
void vp_vae_wan22_decode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                              int tiling, int slicing, vp_vae_peak *o) {
    memset(o, 0, sizeof *o);
    if (frames < 1) frames = 1;
    int64_t b = slicing ? 1 : batch, P = a->d.vae_patch > 0 ? a->d.vae_patch : 1;
    int64_t th, tw;
    vp_vae_tile(a, height, width, tiling, &th, &tw);
    int n = a->d.levels;
    int64_t dd[8] = {0};
    vp_vae_wan_dec_dims(a, dd);
    double c0 = (double)dd[n], c1 = (double)dd[n - 1], cin2 = n >= 2 ? (double)dd[n - 2] : c1;
    int64_t T = a->d.temporal > 0 ? a->d.temporal : 1;
    int64_t px = T < frames ? T : frames;
    double cat = (double)(px + 2) / (double)px;          /* the cached frames joined in front */
    double ups = c1 / 2.0 + c1 + c1 + cin2 / 4.0;        /* upsampler: input + reshape copy, interpolation, conv out, x_copy */
    double dup = c1 + c1 + c1 + cin2 / 4.0;              /* x, repeat_interleave, .contiguous(), x_copy */
    /* input, x_copy, h, SiLU out, the padded cat (the cat itself goes with the rebinding), conv1's out and cuDNN's
     * workspace: the padded input + the output (the H100 traces' rule for Conv3d; the weight, a few MB, left out) */
    double res1 = 2.0 * c1 + c0 + c1 + 2.0 * cat * c1 + 2.0 * c0;
    double chans = ups > dup ? ups : dup;
    if (res1 > chans) chans = res1;
    double pos = (double)b * (double)(th / P) * (double)(tw / P);
    double acts = chans * pos * (double)px * elem;
    double per_px = 0;
    for (int i = 0; i < n; i++)
        per_px += 2.0 * (double)(a->d.layers_per_block + 1) * (double)dd[n - i] / pow(4.0, (double)i);
    double cache = 2.0 * pos * per_px * elem;
    o->bytes = acts + cache;
    /* the decoded frames: the calls' outputs concatenated (pieces and result), then unpatchify's and clamp's copies
     * of 3 channels per pixel: two videos' worth alive at once */
    o->out_bytes = 2.0 * 3.0 * (double)batch * (double)frames * (double)height * (double)width * elem;
    o->chunk_frames = px;
    o->tile_h = th;
    o->tile_w = tw;
    o->tensor_bytes = c1 * pos * (double)px * elem;
    snprintf(o->where, sizeof o->where, "%s at %lld×%lld positions (patch %lld) × %lld frames",
             res1 >= chans ? "first resnet of the last up block" : "last upsampler and its DupUp3D shortcut",
             (long long)(th / P), (long long)(tw / P), (long long)P, (long long)px);
}

/* Wan 2.2 encode: _encode patchifies the video (a copy, 12 channels at half the pixels per side) and runs the
 * encoder on frame 1, then 4 frames per call; the first down block at full resolution holds its x_copy clone beside a
 * resnet's input, norm / SiLU outputs, F.pad copy and conv output (dd: the encoder's dims[1] channels). */
void vp_vae_wan22_encode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                              int tiling, int slicing, vp_vae_peak *o) {
    memset(o, 0, sizeof *o);
    if (frames < 1) frames = 1;
    int64_t b = slicing ? 1 : batch, P = a->d.vae_patch > 0 ? a->d.vae_patch : 1;
    int64_t th, tw;
    vp_vae_tile(a, height, width, tiling, &th, &tw);
    int64_t px = frames < 4 ? frames : 4;
    double c = (double)a->d.ch[1];
    double chans = 3.0 * c + c + c + 2.0 * c;          /* input, SiLU output, pad copy, conv output, x_copy, workspace */
    double pos = (double)b * (double)(th / P) * (double)(tw / P);
    o->bytes = chans * pos * (double)px * elem;
    /* the input video and its patchified copy */
    o->out_bytes = 2.0 * 3.0 * (double)batch * (double)frames * (double)height * (double)width * elem;
    o->chunk_frames = px;
    o->tile_h = th;
    o->tile_w = tw;
    snprintf(o->where, sizeof o->where, "first down block at %lld×%lld positions (patch %lld) × %lld frames",
             (long long)(th / P), (long long)(tw / P), (long long)P, (long long)px);
}
