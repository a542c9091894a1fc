/* events_vae_cogvideox.c: the CogVideoX VAE decode of today's diffusers, op by op, for the allocator replay
 * (AutoencoderKLCogVideoX._decode and tiled_decode, src/diffusers/models/autoencoders/autoencoder_kl_cogvideox.py at
 * 58eb52c0; CogVideoXUpsample3D in src/diffusers/models/upsampling.py lines 392-417).
 *
 * vae.c's cog_decode_units gives the same decode's allocated peak as a sum of what is alive; the order in which these
 * tensors come and go is what decides the segments the caching allocator holds (the H100 trace
 * tests/groundtruth/h100-2026-11-24-diffusion/traces/vae-cogvideox-2b-fp16-49-480-720-plain: 15.16 GiB allocated,
 * 22.74 GiB reserved). Each tensor below is the one the Python code makes, at the moment it makes it, and it is
 * freed when its last reference goes (a rebinding, or the function's return, which clears the frame's locals in
 * the order they first appear in the code). Read off the trace and checked against it (test_events_vae_cogvideox.c):
 *  - F.interpolate and GroupNorm of a non-contiguous view (a frame slice of the latents, the upsampler's permuted
 *    output) make a contiguous copy of their input beside their output (GroupNorm: the copy first; interpolate:
 *    after the output), freed when the op returns; so do Conv2d / Conv3d given a permuted view;
 *  - cuDNN's workspace of a 3×3(×3) convolution in these shapes is the padded input + the output + the weight (it
 *    runs the NHWC kernel on transposed copies): allocated and freed inside the conv; none for the 1×1×1 convs;
 *  - CogVideoXCausalConv3d: torch.cat of the cache (or the first frame twice) and the input (line 132), then the
 *    last 2 frames cloned as the next call's cache (line 141; the whole input for the kernel-1 conv_y / conv_b of a
 *    spatial norm); CogVideoXSafeConv3d splits inputs over 2 GiB (counted as 2 B per element) along time;
 *  - the call's cache dict lives until the next call returns (_decode's conv_cache). */
#include <math.h>

#include "alloc_events.h"
#include "diffusers.h"

typedef struct {
    vp_events *e;
    double elem; /* bytes per element of the decode */
    double b;    /* videos decoded together */
    double L;    /* latent channels (zq) */
    int tiled;   /* tiles are spatial slices of the latents: never contiguous */
    vp_tensors *cache; /* the running call's conv caches, in dict order */
} cg;

static int32_t t(const cg *x, double c, double f, double px) { return vp_ev_alloc_bytes(x->e, x->b * c * f * px * x->elem); }
static void fr(const cg *x, int32_t id) {
    if (id >= 0) vp_ev_free(x->e, id);
}
static void keep(const cg *x, int32_t id) { vp_tensors_push(x->cache, x->e, id); }
static int odd(double f) { return ((int64_t)f & 1) != 0; } /* a frame count's parity */

/* F.interpolate into c × f frames of px pixels from an input of c × fin × pxin: a non-contiguous input is copied
 * after the output is made */
static int32_t interp(const cg *x, double c, double f, double px, int contig_in, double fin, double pxin) {
    int32_t o = t(x, c, f, px);
    if (!contig_in) fr(x, t(x, c, fin, pxin));
    return o;
}

/* CogVideoXSafeConv3d / nn.Conv2d: cin × fin frames in, cout × fout out, kernel volume kv (1: no workspace) */
static int32_t conv(const cg *x, double cin, double cout, double fin, double fout, double px, double kv, int contig_in) {
    /* CogVideoXSafeConv3d.forward (lines 41-64): memory_count = numel * 2 / 1024**3 */
    double mc = x->b * cin * fin * px * 2.0 / 1073741824.0;
    if (mc > 2.0 && fin > 1) {
        double parts = floor(mc / 2.0) + 1.0; /* int(memory_count / 2) + 1; torch.chunk makes at most fin of them */
        if (parts > fin) parts = fin;
        double cs = ceil(fin / parts); /* torch.chunk along time */
        int n = (int)ceil(fin / cs);
        int32_t in[64], out[64];
        if (n > 64) n = 64;
        double halo = kv > 1 ? 2.0 : 0.0; /* kernel_size - 1 frames of the previous chunk */
        for (int i = 0; i < n; i++) {
            double len = i < n - 1 ? cs : fin - cs * (n - 1);
            in[i] = i > 0 && halo > 0 ? t(x, cin, len + halo, px) : -1; /* torch.cat((prev[-2:], chunk)) */
        }
        double total = 0;
        for (int i = 0; i < n; i++) {
            double len = (i < n - 1 ? cs : fin - cs * (n - 1)) + (i > 0 ? halo : 0.0), fo = len - halo;
            out[i] = t(x, cout, fo, px);
            if (kv > 1) fr(x, vp_ev_alloc_bytes(x->e, x->b * (cin * len + cout * fo) * px * x->elem + cin * cout * kv * x->elem));
            total += fo;
        }
        int32_t o = t(x, cout, total, px); /* torch.cat(output_chunks) */
        for (int i = n - 1; i >= 0; i--) fr(x, in[i]); /* the lists, from their ends */
        for (int i = n - 1; i >= 0; i--) fr(x, out[i]);
        (void)fout;
        return o;
    }
    int32_t cp = contig_in ? -1 : t(x, cin, fin, px);
    int32_t o = t(x, cout, fout, px);
    /* cuDNN's workspace: transposed input and output, and the weight (trace: 17,452,800 + 442,368 B for conv_in) */
    if (kv > 1) fr(x, vp_ev_alloc_bytes(x->e, x->b * (cin * fin + cout * fout) * px * x->elem + cin * cout * kv * x->elem));
    fr(x, cp);
    return o;
}

/* CogVideoXCausalConv3d, kernel 3 (lines 128-145): the cat of cache + input, the clone of its last 2 frames, the conv */
static int32_t causal3(const cg *x, double cin, double cout, double f, double px) {
    int32_t pad = t(x, cin, f + 2.0, px);
    keep(x, t(x, cin, 2.0, px));
    int32_t o = conv(x, cin, cout, f + 2.0, f, px, 27, 1);
    fr(x, pad);
    return o;
}

/* CogVideoXSpatialNorm3D.forward (lines 174-195) over f (c × fr frames, px pixels; contiguous or a view); zq is the
 * call's latents (lc frames of pxl pixels, a frame slice: contiguous only when it is the whole video) */
static int32_t spatial_norm(const cg *x, int f_contig, double c, double F, double px, double lc, double pxl, int z_contig) {
    int32_t zf = -1, zr = -1, zq;
    if (F > 1 && odd(F)) { /* the first frame apart (lines 180-186) */
        zf = interp(x, x->L, 1, px, 0, 1, pxl);
        zr = interp(x, x->L, F - 1, px, 0, lc - 1, pxl);
        zq = t(x, x->L, F, px);
    } else {
        zq = interp(x, x->L, F, px, z_contig, lc, pxl);
    }
    /* conv_y, conv_b: kernel 1, the cache is the whole input (inputs[:, :, 0:].clone()) */
    keep(x, t(x, x->L, F, px));
    int32_t y = conv(x, x->L, c, F, F, px, 1, 1);
    keep(x, t(x, x->L, F, px));
    int32_t bb = conv(x, x->L, c, F, F, px, 1, 1);
    int32_t cp = f_contig ? -1 : t(x, c, F, px); /* GroupNorm's contiguous input */
    int32_t norm = t(x, c, F, px);
    fr(x, cp);
    int32_t prod = t(x, c, F, px), sum = t(x, c, F, px); /* norm_f * conv_y + conv_b */
    fr(x, prod);
    fr(x, zq), fr(x, zf), fr(x, zr), fr(x, y), fr(x, bb), fr(x, norm); /* the locals, in slot order */
    return sum;
}

/* CogVideoXResnetBlock3D.forward (lines 285-326); the input stays (the caller holds it) */
static int32_t resnet(const cg *x, int in_contig, double cin, double cout, double F, double px, double lc, double pxl, int zc) {
    int32_t n1 = spatial_norm(x, in_contig, cin, F, px, lc, pxl, zc);
    int32_t s1 = t(x, cin, F, px); /* SiLU */
    fr(x, n1);
    int32_t o1 = causal3(x, cin, cout, F, px);
    fr(x, s1);
    int32_t n2 = spatial_norm(x, 1, cout, F, px, lc, pxl, zc);
    fr(x, o1);
    int32_t s2 = t(x, cout, F, px);
    fr(x, n2);
    int32_t o2 = causal3(x, cout, cout, F, px);
    fr(x, s2);
    int32_t sc = cin != cout ? conv(x, cin, cout, F, F, px, 1, in_contig) : -1; /* conv_shortcut, 1×1×1 */
    int32_t r = t(x, cout, F, px);
    fr(x, o2);
    fr(x, sc);
    return r;
}

/* CogVideoXUpsample3D.forward: c channels of F frames at px pixels in (contiguous), 4 px out; *Fo its frames */
static int32_t upsample(const cg *x, double c, double F, double px, int compress, double *Fo) {
    int32_t xf = -1, xr = -1, in2, o;
    double f2 = F;
    if (compress && F > 1 && odd(F)) { /* x_first, x_rest: slices, copied by interpolate (lines 394-399) */
        xf = interp(x, c, 1, 4 * px, 0, 1, px);
        xr = interp(x, c, 2 * (F - 1), 4 * px, 0, F - 1, px);
        f2 = 1 + 2 * (F - 1);
        in2 = t(x, c, f2, 4 * px); /* torch.cat */
    } else if (compress && F > 1) {
        f2 = 2 * F;
        in2 = interp(x, c, f2, 4 * px, 1, F, px); /* trilinear-shaped nearest: frames double too (line 401) */
    } else {
        /* one frame (squeezed, contiguous) or 2-D only over a permuted view (lines 409-410): interpolate copies it */
        in2 = interp(x, c, F, 4 * px, compress, F, px);
    }
    /* line 414: permute back and reshape; the compressed paths hand the Conv2d a permuted view */
    o = conv(x, c, c, f2, f2, 4 * px, 9, !compress || F == 1 ? 1 : 0);
    fr(x, in2);
    fr(x, xf), fr(x, xr);
    *Fo = f2;
    return o;
}

/* one CogVideoXDecoder3D call over lc latent frames of pxl pixels (lines 900-953); returns its output (3 channels) */
static int32_t decoder_call(const cg *x, const vp_arch *a, double lc, double pxl, int zc, double *frames_out) {
    int n = a->d.levels;
    double ctop = (double)a->d.ch[n - 1];
    /* conv_in: the cat (the cache or the first frame twice), the clone, the conv */
    int32_t h = causal3(x, x->L, ctop, lc, pxl);
    double F = lc, px = pxl, c = ctop;
    int contig = 1;
    int32_t cur = h;
    for (int r = 0; r < 2; r++) { /* the mid block: its input stays with the decoder's hidden_states */
        int32_t nx = resnet(x, 1, c, c, F, px, lc, pxl, zc);
        if (r > 0) fr(x, cur);
        cur = nx;
    }
    fr(x, h);
    h = cur;
    int tu = 0; /* up blocks with compress_time: log2 of the temporal compression */
    for (int64_t tt = a->d.temporal; tt > 1; tt /= 2) tu++;
    for (int j = 0; j < n; j++) {
        double cout = (double)a->d.ch[n - 1 - j];
        int32_t bin = h;
        cur = h;
        for (int r = 0; r <= a->d.layers_per_block; r++) {
            int32_t nx = resnet(x, r == 0 ? contig : 1, r == 0 ? c : cout, cout, F, px, lc, pxl, zc);
            if (r > 0) fr(x, cur); /* the block input stays with the decoder's hidden_states */
            cur = nx;
        }
        c = cout;
        contig = 1;
        if (j < n - 1) {
            double f2;
            int32_t u = upsample(x, c, F, px, j < tu, &f2);
            fr(x, cur);
            cur = u;
            F = f2, px *= 4;
            contig = 0; /* a permuted view of the Conv2d's output */
        }
        fr(x, bin); /* the decoder's rebinding */
        h = cur;
    }
    int32_t no = spatial_norm(x, contig, c, F, px, lc, pxl, zc);
    fr(x, h);
    int32_t s = t(x, c, F, px);
    fr(x, no);
    int32_t o = causal3(x, c, 3, F, px);
    fr(x, s);
    *frames_out = F;
    return o;
}

/* _decode over one tile (or the whole frame) of pxl latent pixels: the calls of 2 latent frames (the first with the
 * odd one), each call's cache dict freed when the next returns; returns the tile's video (torch.cat of the calls),
 * with the last call's cache and output still alive, pushed to *left in that order (the caller frees them where the
 * code does: _decode's locals conv_cache, then z_intermediate) */
static int32_t decode_frames(cg *x, const vp_arch *a, double lat, double pxl, int64_t *frames_px, vp_tensors *left) {
    int64_t nb = (int64_t)lat / 2 > 1 ? (int64_t)lat / 2 : 1;
    double rem = odd(lat) ? 1.0 : 0.0;
    vp_tensors prev = {0}, dec = {0};
    double total = 0;
    for (int64_t i = 0; i < nb; i++) {
        double lc = nb == 1 ? lat : i == 0 ? 2.0 + rem : 2.0;
        vp_tensors cur = {0};
        x->cache = &cur;
        double fo;
        int32_t o = decoder_call(x, a, lc, pxl, nb == 1 && !x->tiled, &fo);
        vp_tensors_push(&dec, x->e, o);
        total += fo;
        for (int32_t k = 0; k < prev.n; k++) vp_ev_free(x->e, prev.id[k]); /* the old dict, in insertion order */
        prev.n = 0;
        vp_tensors_dispose(&prev);
        prev = cur;
    }
    int32_t v = t(x, 3, total, pxl * pow(4.0, (double)(a->d.levels - 1))); /* torch.cat(dec, dim=2) */
    /* a list is freed from its end (CPython list_dealloc), a dict from its start; the last call's output is also
     * z_intermediate's (tiled_decode's `tile`). _decode rebinds `dec` to the cat at once; tiled_decode keeps its
     * `time` list until the next tile starts (conv_cache = None; time = []), so its items go after the cache */
    if (!x->tiled)
        for (int32_t k = dec.n - 2; k >= 0; k--) vp_ev_free(x->e, dec.id[k]);
    for (int32_t k = 0; k < prev.n; k++) vp_tensors_push(left, x->e, prev.id[k]);
    if (x->tiled)
        for (int32_t k = dec.n - 2; k >= 0; k--) vp_tensors_push(left, x->e, dec.id[k]);
    if (dec.n > 0) vp_tensors_push(left, x->e, dec.id[dec.n - 1]);
    vp_tensors_dispose(&prev);
    vp_tensors_dispose(&dec);
    *frames_px = (int64_t)total;
    x->cache = NULL;
    return v;
}

/* the latent grid and _decode's choice: tiled_decode when tiling is on and the latents exceed one tile (lines
 * 1182-1183); its tiles of tile_latent_min start at strides of int(tile * (1 - overlap)), the overlap factors 1/6
 * (height) and 1/5 (width) */
typedef struct {
    int64_t lh, lw, tlh, tlw, oh, ow;
    int tiled;
} grid;

static grid cog_grid(const vp_arch *a, int64_t height, int64_t width, int tiling) {
    int64_t s = a->d.spatial > 0 ? a->d.spatial : 8;
    grid g = {height / s, width / s, a->d.tile_h / s, a->d.tile_w / s, 1, 1, 0};
    g.tiled = tiling && g.tlh >= 1 && g.tlw >= 1 && (g.lw > g.tlw || g.lh > g.tlh);
    g.oh = (int64_t)((double)g.tlh * (1.0 - 1.0 / 6.0)), g.ow = (int64_t)((double)g.tlw * (1.0 - 1.0 / 5.0));
    if (g.oh < 1) g.oh = 1;
    if (g.ow < 1) g.ow = 1;
    return g;
}

double vp_ev_cogvideox_decode_calls(const vp_arch *a, int64_t frames, int64_t height, int64_t width, int tiling) {
    int64_t T = a->d.temporal > 0 ? a->d.temporal : 1;
    double lat = (double)((frames - 1) / T + 1), calls = floor(lat / 2.0) > 1 ? floor(lat / 2.0) : 1;
    grid g = cog_grid(a, height, width, tiling);
    if (!g.tiled) return calls;
    return calls * ceil((double)g.lh / (double)g.oh) * ceil((double)g.lw / (double)g.ow);
}

int32_t vp_ev_cogvideox_decode(vp_events *e, const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width,
                               double elem, int tiling) {
    cg x = {e, elem, (double)(batch > 0 ? batch : 1), (double)a->d.latent_ch, 0, NULL};
    int64_t T = a->d.temporal > 0 ? a->d.temporal : 1, s = a->d.spatial > 0 ? a->d.spatial : 8;
    double lat = (double)((frames - 1) / T + 1);
    grid g = cog_grid(a, height, width, tiling);
    int64_t lh = g.lh, lw = g.lw, tlh = g.tlh, tlw = g.tlw, oh = g.oh, ow = g.ow;
    int64_t fpx = frames;
    vp_tensors left = {0};
    if (!g.tiled) {
        int32_t v = decode_frames(&x, a, lat, (double)(lh * lw), &fpx, &left);
        for (int32_t k = 0; k < left.n; k++) vp_ev_free(e, left.id[k]); /* z_intermediate, then conv_cache */
        vp_tensors_dispose(&left);
        return v;
    }
    /* tiled_decode (lines 1322-1403): each tile's video is kept in `rows` until the blend */
    int64_t rlh = a->d.tile_h - (int64_t)((double)a->d.tile_h / 6.0), rlw = a->d.tile_w - (int64_t)((double)a->d.tile_w / 5.0);
    vp_tensors tiles = {0}, rows_out = {0};
    x.tiled = 1;
    for (int64_t i = 0; i < lh; i += oh)
        for (int64_t j = 0; j < lw; j += ow) {
            /* conv_cache = None; time = []: the previous tile's last cache and call outputs go */
            for (int32_t k = 0; k < left.n; k++) vp_ev_free(e, left.id[k]);
            left.n = 0;
            int64_t ph = (lh - i < tlh ? lh - i : tlh), pw = (lw - j < tlw ? lw - j : tlw);
            vp_tensors_push(&tiles, e, decode_frames(&x, a, lat, (double)(ph * pw), &fpx, &left));
        }
    /* the blend works in place; each row is torch.cat of its tiles' kept parts, then the rows are */
    for (int64_t i = 0; i < lh; i += oh) {
        int64_t ph = (lh - i < tlh ? lh - i : tlh) * s;
        if (ph > rlh) ph = rlh;
        double wsum = 0;
        for (int64_t j = 0; j < lw; j += ow) {
            int64_t pw = (lw - j < tlw ? lw - j : tlw) * s;
            wsum += (double)(pw > rlw ? rlw : pw);
        }
        vp_tensors_push(&rows_out, e, t(&x, 3, (double)fpx, (double)ph * wsum));
    }
    int32_t v = vp_ev_alloc_bytes(e, x.b * 3.0 * (double)fpx * (double)height * (double)width * elem);
    for (int32_t k = 0; k < tiles.n; k++) vp_ev_free(e, tiles.id[k]);
    for (int32_t k = 0; k < left.n; k++) vp_ev_free(e, left.id[k]);
    for (int32_t k = 0; k < rows_out.n; k++) vp_ev_free(e, rows_out.id[k]);
    vp_tensors_dispose(&tiles);
    vp_tensors_dispose(&rows_out);
    vp_tensors_dispose(&left);
    return v;
}
