/* events_vae_wan.c: the Wan 2.1 VAE decode (AutoencoderKLWan, is_residual false), op by op, for the allocator replay
 * (src/diffusers/models/autoencoders/autoencoder_kl_wan.py at 58eb52c0: _decode lines 1187-1216, tiled_decode
 * 1331-1407 (enable_tiling), clear_cache 1123-1131, WanDecoder3d.forward 879-910, WanUpBlock 762-785,
 * WanResidualBlock 346-386, WanCausalConv3d 166-173, WanRMS_norm 198-206, WanResample 269-312,
 * WanAttentionBlock 406-431).
 *
 * vae_wan.c's vp_vae_wan21_decode_units gives the allocated peak as a sum; this gives the order, which decides the
 * segments (the H100: 9.26 GiB allocated, 12.58 GiB reserved for 81 × 480 × 832 in fp32). Read from the code with the
 * rules events_vae_cogvideox.c took from the CogVideoX decode's H100 trace (the same PyTorch ops):
 *  - a tensor goes when its last reference does: a rebinding, or the function's return (its locals in the order
 *    they first appear in the code); a list is freed from its end;
 *  - _decode calls the decoder once per latent frame; every causal conv keeps the last 2 frames of its input in
 *    _feat_map (cache_x, cloned before the conv, and catted with the old cache's last frame while it has one frame),
 *    which replaces the old cache after the conv; the first call's upsample3d marks its slot "Rep" and skips time_conv;
 *  - WanCausalConv3d.forward: torch.cat of the old cache and the input, then F.pad (the cat goes when x is rebound;
 *    F.pad with all-zero pads, as for the 1×1×1 convs and a time_conv with a 2-frame cache, is a clone), the conv;
 *  - WanRMS_norm: F.normalize (the norm over channels and its clamp, one channel each, then the division), * scale,
 *    * gamma, + 0.0 (bias=False is the float 0.0: one more tensor); 16-bit inputs are normalized in fp32 and cast back;
 *  - F.interpolate / nn.Upsample of a permuted view copies its input after making the output; the Conv2d of the
 *    resample gets the contiguous upsampled frames;
 *  - cuDNN's workspace of a 3×3(×3) or (3,1,1) conv: its (padded) input + output + weight; none for the 1×1×1 convs
 *    (the CogVideoX trace). */
#include <math.h>

#include "alloc_events.h"
#include "diffusers.h"

typedef struct {
    vp_events *e;
    double elem; /* the decode's dtype */
    double b;
    int flat;    /* Wan's own Decoder3d: a level's input goes after its first resnet (vae_wan.c, vae_flat) */
} wn;

static int32_t t(const wn *x, double c, double f, double px, double elem) { return vp_ev_alloc_bytes(x->e, x->b * c * f * px * elem); }
static int32_t ta(const wn *x, double c, double f, double px) { return t(x, c, f, px, x->elem); }
static void fr(const wn *x, int32_t id) {
    if (id >= 0) vp_ev_free(x->e, id);
}

/* one causal conv slot of _feat_map: its tensor and its frames (0: None, -1: "Rep") */
typedef struct {
    int32_t id;
    double frames;
} slot;

/* WanRMS_norm.forward of c channels × f frames × px pixels; returns the normalized tensor (the input stays) */
static int32_t rms(const wn *x, double c, double f, double px) {
    int32_t up = -1;
    double e32 = 4.0;
    if (x->elem < 4.0) up = t(x, c, f, px, e32); /* x.float() */
    double ne = x->elem < 4.0 ? e32 : x->elem;
    int32_t nrm = t(x, 1, f, px, ne), cl = t(x, 1, f, px, ne); /* norm(dim=1), clamp_min */
    fr(x, nrm);
    int32_t dv = t(x, c, f, px, ne); /* input / denom */
    fr(x, cl);
    int32_t normalized = dv;
    if (up >= 0) {
        normalized = ta(x, c, f, px); /* .to(x.dtype) */
        fr(x, dv);
        fr(x, up);
    }
    int32_t s1 = ta(x, c, f, px), s2 = ta(x, c, f, px); /* * scale, * gamma */
    fr(x, s1);
    int32_t s3 = ta(x, c, f, px); /* + 0.0 */
    fr(x, s2);
    fr(x, normalized);
    return s3;
}

/* cache_x for a slot before its conv: the last 2 frames of the input (f of them), catted with the old cache's last
 * frame while the clone has one and the slot holds a tensor ("Rep": zeros instead) */
static int32_t cache_clone(const wn *x, const slot *s, double c, double f, double px, double *cf) {
    double k = f < 2 ? f : 2;
    int32_t cl = ta(x, c, k, px);
    *cf = k;
    if (k < 2 && s->frames != 0) {
        int32_t z = s->frames < 0 ? ta(x, c, k, px) : -1; /* torch.zeros_like */
        int32_t cat = ta(x, c, k + 1, px);
        fr(x, z);
        fr(x, cl);
        cl = cat;
        *cf = k + 1;
    }
    return cl;
}

/* WanCausalConv3d.forward with kernel (kt, 3, 3) or (kt, 1, 1) (sp: spatial padding 1 or 0), the slot's old cache
 * (frames 0: none); returns the output */
static int32_t cconv(const wn *x, double cin, double cout, double f, double px, double hh, double ww, int kt, int sp,
                     double old_frames) {
    int32_t cat = -1;
    double tf = f;
    if (old_frames > 0 && kt > 1) cat = ta(x, cin, old_frames + f, px), tf = old_frames + f;
    double tpad = kt > 1 ? (double)(kt - 1) - (old_frames > 0 ? old_frames : 0) : 0;
    if (tpad < 0) tpad = 0;
    double ppx = sp ? (hh + 2.0) * (ww + 2.0) : px;
    int32_t pad = ta(x, cin, tf + tpad, ppx); /* F.pad (a clone when every pad is 0) */
    fr(x, cat);
    double fo = tf + tpad - (double)(kt - 1);
    int32_t o = ta(x, cout, fo, px);
    double kv = (double)kt * (sp ? 9.0 : 1.0);
    if (kv > 1) fr(x, vp_ev_alloc_bytes(x->e, x->b * (cin * (tf + tpad) * ppx + cout * fo * px) * x->elem + cin * cout * kv * x->elem));
    fr(x, pad);
    return o;
}

/* a cached 3×3×3 conv: clone, conv, then the slot takes the clone (the old cache goes) */
static int32_t cached3(const wn *x, slot *s, double cin, double cout, double f, double px, double hh, double ww) {
    double cf;
    int32_t cl = cache_clone(x, s, cin, f, px, &cf);
    int32_t o = cconv(x, cin, cout, f, px, hh, ww, 3, 1, s->frames > 0 ? s->frames : 0);
    fr(x, s->id);
    s->id = cl, s->frames = cf;
    return o;
}

/* WanResidualBlock.forward; the input stays (its caller holds it) */
static int32_t resblock(const wn *x, slot *sl, int *si, double cin, double cout, double f, double px, double hh, double ww) {
    int32_t h = cin != cout ? cconv(x, cin, cout, f, px, hh, ww, 1, 0, 0) : -1; /* conv_shortcut, 1×1×1 */
    int32_t n1 = rms(x, cin, f, px);
    int32_t s1 = ta(x, cin, f, px); /* SiLU */
    fr(x, n1);
    int32_t o1 = cached3(x, &sl[(*si)++], cin, cout, f, px, hh, ww);
    fr(x, s1);
    int32_t n2 = rms(x, cout, f, px);
    fr(x, o1);
    int32_t s2 = ta(x, cout, f, px);
    fr(x, n2);
    int32_t o2 = cached3(x, &sl[(*si)++], cout, cout, f, px, hh, ww);
    fr(x, s2);
    int32_t r = ta(x, cout, f, px); /* x + h */
    fr(x, o2);
    fr(x, h);
    return r;
}

/* WanAttentionBlock.forward at the latent level (f frames as a batch of images, one head over px positions) */
static int32_t attention(const wn *x, double c, double f, double px) {
    int32_t cp = f > 1 ? ta(x, c, f, px) : -1; /* permute + reshape */
    int32_t n = rms(x, c, f, px);
    fr(x, cp);
    int32_t qkv = ta(x, 3 * c, f, px);
    int32_t cont = ta(x, 3 * c, f, px); /* permute(0, 1, 3, 2).contiguous() */
    fr(x, qkv);
    int32_t o = ta(x, c, f, px);                                  /* memory-efficient SDPA (head_dim = c) */
    int32_t lse = t(x, 1, f, ceil(px / 32.0) * 32.0, 4.0);       /* its logsumexp */
    fr(x, lse);
    fr(x, n); /* x rebound to the attention's output */
    int32_t r = ta(x, c, f, px); /* squeeze, permute, reshape: a copy */
    fr(x, o);
    int32_t pj = ta(x, c, f, px); /* proj */
    fr(x, r);
    int32_t sum = ta(x, c, f, px); /* + identity */
    fr(x, pj);
    fr(x, cont);
    return sum;
}

/* WanResample.forward, upsample3d (temporal) or upsample2d; c channels in, c / 2 out at 4 px; *f doubles when the
 * time conv runs */
static int32_t resample(const wn *x, slot *s, double c, double *f, double px, double hh, double ww, int temporal) {
    int32_t xt = -1;
    if (temporal) {
        if (s->frames == 0) {
            s->frames = -1; /* "Rep" */
        } else {
            double cf;
            int32_t cl = cache_clone(x, s, c, *f, px, &cf);
            /* time_conv (3, 1, 1): "Rep" pads 2 zero frames; a cache of 2 frames leaves every pad 0 (F.pad clones) */
            int32_t o = cconv(x, c, 2 * c, *f, px, hh, ww, 3, 0, s->frames > 0 ? s->frames : 0);
            fr(x, s->frames > 0 ? s->id : -1);
            s->id = cl, s->frames = cf;
            xt = ta(x, 2 * c, *f, px); /* torch.stack of the two halves */
            fr(x, o);
            *f *= 2;
        }
    }
    /* permute + reshape to (b t, c, h, w): a view for one video; nn.Upsample of it (fp32 first for 16-bit) */
    int32_t up32 = x->elem < 4.0 ? t(x, c, *f, px, 4.0) : -1;
    int32_t it = t(x, c, *f, 4 * px, 4.0);
    if (*f > 1 || x->b > 1) fr(x, t(x, c, *f, px, 4.0)); /* the non-contiguous input's copy */
    fr(x, up32);
    if (x->elem < 4.0) {
        int32_t back = ta(x, c, *f, 4 * px); /* .type_as(x) */
        fr(x, it);
        it = back;
    }
    int32_t o = ta(x, c / 2, *f, 4 * px);
    fr(x, vp_ev_alloc_bytes(x->e, x->b * (c + c / 2) * *f * 4 * px * x->elem + c * (c / 2) * 9 * x->elem));
    fr(x, it);
    fr(x, xt);
    (void)hh, (void)ww;
    return o;
}

/* one WanDecoder3d call over one latent frame; returns its output (3 channels, f frames at full resolution) */
static int32_t decoder_call(const wn *x, const vp_arch *a, slot *sl, double lh, double lw, double *f_out) {
    int n = a->d.levels;
    int64_t dd[8] = {0};
    vp_vae_wan_dec_dims(a, dd);
    int si = 0;
    double L = (double)a->d.latent_ch, f = 1, hh = lh, ww = lw, px = lh * lw;
    int32_t h = cached3(x, &sl[si++], L, (double)dd[0], f, px, hh, ww); /* conv_in (the slice's view stays z's) */
    /* the mid block: resnet, attention, resnet */
    int32_t r0 = resblock(x, sl, &si, (double)dd[0], (double)dd[0], f, px, hh, ww);
    int32_t at = attention(x, (double)dd[0], f, px);
    fr(x, r0);
    int32_t r1 = resblock(x, sl, &si, (double)dd[0], (double)dd[0], f, px, hh, ww);
    fr(x, at);
    fr(x, h); /* the decoder's x, rebound when the mid block returns */
    h = r1;
    for (int i = 0; i < n; i++) {
        double cin = (double)dd[i] / (i > 0 ? 2.0 : 1.0), cout = (double)dd[i + 1];
        int32_t bin = h, cur = h;
        for (int r = 0; r <= a->d.layers_per_block; r++) {
            int32_t nx = resblock(x, sl, &si, r == 0 ? cin : cout, cout, f, px, hh, ww);
            if (r > 0 || x->flat) fr(x, cur); /* diffusers: the block input stays with the decoder's x */
            cur = nx;
        }
        if (i < n - 1) {
            int32_t u = resample(x, &sl[si++], cout, &f, px, hh, ww, a->d.vae_tup >> i & 1);
            fr(x, cur);
            cur = u;
            px *= 4, hh *= 2, ww *= 2;
        }
        if (!x->flat) fr(x, bin);
        h = cur;
    }
    double c0 = (double)dd[n];
    int32_t no = rms(x, c0, f, px);
    fr(x, h);
    int32_t s = ta(x, c0, f, px);
    fr(x, no);
    int32_t o = cached3(x, &sl[si++], c0, 3, f, px, hh, ww);
    fr(x, s);
    *f_out = f;
    return o;
}

/* clear_cache(): the old _feat_map list goes, from its end */
static void clear_cache(const wn *x, slot *sl) {
    for (int i = 159; i >= 0; i--) {
        if (sl[i].frames > 0) fr(x, sl[i].id);
        sl[i].id = -1, sl[i].frames = 0;
    }
}

/* tiled_decode (lines 1331-1407): tiles of tile_sample_min (256 px) at strides of tile_sample_stride (192 px), each
 * decoded frame by frame from a cleared cache (post_quant_conv per frame), its calls' outputs kept in `time` until the
 * next tile starts and torch.cat into the tile's video, kept in `rows` to the blend; the rows' cats of their tiles'
 * stride-sized parts, their cat, the clamp */
static int32_t tiled(const wn *x, const vp_arch *a, slot *sl, int64_t lat, int64_t height, int64_t width) {
    int64_t s = a->d.spatial > 0 ? a->d.spatial : 8, lh = height / s, lw = width / s;
    int64_t tmin = a->d.tile_h > 0 ? a->d.tile_h : 256, tstride = tmin * 3 / 4; /* 256 and 192 px */
    int64_t tl = tmin / s, ts = tstride / s > 0 ? tstride / s : 1;
    double L = (double)a->d.latent_ch, rows_h = 0, row_w = 0;
    vp_tensors tiles = {0}, time = {0};
    int32_t last = -1;
    for (int64_t i = 0; i < lh; i += ts) {
        double th = (double)(lh - i < tl ? lh - i : tl);
        rows_h += fmin(th * (double)s, (double)tstride);
        row_w = 0;
        for (int64_t j = 0; j < lw; j += ts) {
            double tw = (double)(lw - j < tl ? lw - j : tl);
            row_w += fmin(tw * (double)s, (double)tstride);
            clear_cache(x, sl);
            for (int32_t k = time.n - 2; k >= 0; k--) fr(x, time.id[k]); /* time = []: from its end; `decoded` holds the last */
            int32_t held = time.n > 0 ? time.id[time.n - 1] : -1;
            time.n = 0;
            double total = 0;
            for (int64_t k = 0; k < lat; k++) {
                fr(x, last); /* `tile` rebound to the next slice */
                int32_t pc = ta(x, L, 1, th * tw), q = ta(x, L, 1, th * tw); /* post_quant_conv: F.pad's clone, the conv */
                fr(x, pc);
                last = q;
                double fo;
                int32_t d = decoder_call(x, a, sl, th, tw, &fo);
                if (k == 0) fr(x, held); /* `decoded` rebound */
                vp_tensors_push(&time, x->e, d);
                total += fo;
            }
            vp_tensors_push(&tiles, x->e, t(x, 3, total, th * tw * (double)(s * s), x->elem)); /* torch.cat(time) */
        }
    }
    clear_cache(x, sl);
    double frames = 0;
    for (int64_t k = 0; k < lat; k++) frames += k == 0 ? 1.0 : (double)(a->d.temporal > 0 ? a->d.temporal : 1);
    /* the rows' cats (at most stride-sized parts), their cat, the clamp of its sample-sized slice */
    vp_tensors rows = {0};
    for (int64_t i = 0; i < lh; i += ts) {
        double th = (double)(lh - i < tl ? lh - i : tl) * (double)s;
        vp_tensors_push(&rows, x->e, t(x, 3, frames, fmin(th, (double)tstride) * row_w, x->elem));
    }
    int32_t all = t(x, 3, frames, rows_h * row_w, x->elem);
    int32_t cl = t(x, 3, frames, (double)height * (double)width, x->elem);
    fr(x, all);
    for (int32_t k = tiles.n - 1; k >= 0; k--) fr(x, tiles.id[k]);
    for (int32_t k = time.n - 1; k >= 0; k--) fr(x, time.id[k]);
    for (int32_t k = rows.n - 1; k >= 0; k--) fr(x, rows.id[k]);
    fr(x, last);
    vp_tensors_dispose(&tiles);
    vp_tensors_dispose(&time);
    vp_tensors_dispose(&rows);
    return cl;
}

double vp_ev_wan21_decode_calls(const vp_arch *a, int64_t frames, int64_t height, int64_t width, int tiling) {
    int64_t T = a->d.temporal > 0 ? a->d.temporal : 1, s = a->d.spatial > 0 ? a->d.spatial : 8;
    double lat = (double)((frames - 1) / T + 1);
    int64_t tmin = a->d.tile_h > 0 ? a->d.tile_h : 256, tl = tmin / s, ts = (tmin * 3 / 4) / s > 0 ? (tmin * 3 / 4) / s : 1;
    int64_t lh = height / s, lw = width / s;
    if (!tiling || (lh <= tl && lw <= tl)) return lat;
    return lat * ceil((double)lh / (double)ts) * ceil((double)lw / (double)ts);
}

int32_t vp_ev_wan21_decode(vp_events *e, const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width,
                           double elem, int tiling) {
    wn x = {e, elem, (double)(batch > 0 ? batch : 1), a->d.vae_flat};
    int64_t T = a->d.temporal > 0 ? a->d.temporal : 1, s = a->d.spatial > 0 ? a->d.spatial : 8;
    int64_t lat = (frames - 1) / T + 1;
    double lh = (double)(height / s), lw = (double)(width / s), L = (double)a->d.latent_ch;
    int64_t tl = (a->d.tile_h > 0 ? a->d.tile_h : 256) / s;
    slot sl[160];
    for (int i = 0; i < 160; i++) sl[i].id = -1, sl[i].frames = 0;
    /* _decode goes to tiled_decode when the latents are wider or taller than a tile */
    if (tiling && (lh > (double)tl || lw > (double)tl)) return tiled(&x, a, sl, lat, height, width);
    /* post_quant_conv, 1×1×1: F.pad's clone, the conv */
    int32_t pc = ta(&x, L, (double)lat, lh * lw);
    int32_t z = ta(&x, L, (double)lat, lh * lw);
    fr(&x, pc);
    int32_t out = -1, out_ = -1;
    double total = 0;
    for (int64_t i = 0; i < lat && i < 4096; i++) {
        double fo;
        int32_t o = decoder_call(&x, a, sl, lh, lw, &fo);
        if (i == 0) {
            out = o;
        } else {
            fr(&x, out_); /* the previous call's out_ goes when the name is rebound */
            out_ = o;
            int32_t cat = t(&x, 3, total + fo, (double)height * (double)width, elem); /* torch.cat([out, out_], 2) */
            fr(&x, out);
            out = cat;
        }
        total += fo;
    }
    int32_t cl = t(&x, 3, total, (double)height * (double)width, elem); /* torch.clamp */
    fr(&x, out);
    clear_cache(&x, sl);
    fr(&x, z); /* the locals at return: x (post_quant_conv's), then out_ */
    fr(&x, out_);
    return cl;
}

/* ---- the encode (AutoencoderKLWan._encode lines 1133-1159, WanEncoder3d.forward 590-628, WanResample 269-312) ----
 * The same rules; an nn.Module's input stays alive through its forward (Module._call_impl holds it in `args`), so a
 * time_conv's torch.cat input lives beside its F.pad clone. */

/* WanResample.forward, downsample2d / downsample3d: c channels of *f frames at px (hh × ww) in, px / 4 out. The
 * permute + reshape to (b t, c, h, w) copies unless it is one frame of one video; nn.ZeroPad2d((0, 1, 0, 1)); the
 * Conv2d(c, c, 3, stride 2) with cuDNN's workspace (padded input + output + weight). downsample3d: the first call's
 * slot takes x.clone(); later calls clone x's last frame, then time_conv (kernel (3, 1, 1), stride 2 in time, no
 * padding: F.pad clones) over torch.cat of the old cache's last frame and x, halving *f */
static int32_t downsample(const wn *x, slot *s, double c, double *f, double px, double hh, double ww, int temporal) {
    int32_t cp = (*f > 1 || x->b > 1) ? ta(x, c, *f, px) : -1;
    double pp = (hh + 1.0) * (ww + 1.0), po = px / 4.0;
    int32_t zp = ta(x, c, *f, pp);
    int32_t o = ta(x, c, *f, po);
    fr(x, vp_ev_alloc_bytes(x->e, x->b * c * *f * (pp + po) * x->elem + c * c * 9.0 * x->elem));
    fr(x, zp); /* nn.Sequential's rebinding */
    fr(x, cp); /* WanResample's x, rebound to the resample's output */
    if (!temporal) return o;
    if (s->frames == 0) { /* feat_cache[idx] = x.clone() */
        s->id = ta(x, c, *f, po);
        s->frames = *f;
        return o;
    }
    int32_t cl = ta(x, c, 1, po);        /* x[:, :, -1:].clone() */
    int32_t cat = ta(x, c, *f + 1, po);  /* torch.cat([feat_cache[idx][:, :, -1:], x], 2) */
    int32_t pad = ta(x, c, *f + 1, po);  /* F.pad with no padding */
    double fo = floor((*f + 1.0 - 3.0) / 2.0) + 1.0;
    if (fo < 1) fo = 1;
    int32_t o2 = ta(x, c, fo, po);
    fr(x, vp_ev_alloc_bytes(x->e, x->b * c * (*f + 1.0 + fo) * po * x->elem + c * c * 3.0 * x->elem));
    fr(x, pad);
    fr(x, cat);
    fr(x, o);
    fr(x, s->id);
    s->id = cl, s->frames = 1;
    *f = fo;
    return o2;
}

/* one WanEncoder3d call over f frames of hh × ww pixels (its input, the video's slice, held by the caller); returns its
 * output, 2 z channels at the latent level */
static int32_t encoder_call(const wn *x, const vp_arch *a, slot *sl, double f, double hh, double ww) {
    int n = a->d.levels, si = 0;
    double px = hh * ww, c = (double)a->d.ch[0];
    int32_t h = cached3(x, &sl[si++], 3.0, c, f, px, hh, ww); /* conv_in */
    for (int i = 0; i < n; i++) {
        double out = (double)a->d.ch[i + 1];
        for (int k = 0; k < a->d.layers_per_block; k++) { /* the flat down_blocks list: x = layer(x) */
            int32_t nx = resblock(x, sl, &si, c, out, f, px, hh, ww);
            fr(x, h);
            h = nx, c = out;
        }
        if (i != n - 1) {
            int temporal = n >= 2 && (a->d.vae_tup >> (n - 2 - i) & 1); /* temperal_downsample[i] */
            int32_t nx = downsample(x, &sl[si], c, &f, px, hh, ww, temporal);
            if (temporal) si++;
            fr(x, h);
            h = nx;
            px /= 4.0, hh /= 2.0, ww /= 2.0;
        }
    }
    /* WanMidBlock: resnet, attention, resnet; its input stays with the encoder's x */
    int32_t m = resblock(x, sl, &si, c, c, f, px, hh, ww);
    int32_t at = attention(x, c, f, px);
    fr(x, m);
    m = resblock(x, sl, &si, c, c, f, px, hh, ww);
    fr(x, at);
    fr(x, h);
    int32_t nn = rms(x, c, f, px); /* norm_out */
    fr(x, m);
    int32_t s = ta(x, c, f, px); /* SiLU */
    fr(x, nn);
    int32_t o = cached3(x, &sl[si++], c, 2.0 * (double)a->d.latent_ch, f, px, hh, ww); /* conv_out */
    fr(x, s);
    return o;
}

int32_t vp_ev_wan21_encode(vp_events *e, const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width,
                           double elem) {
    wn x = {e, elem, (double)(batch > 0 ? batch : 1), 0};
    int64_t s = a->d.spatial > 0 ? a->d.spatial : 8;
    double lpx = (double)(height / s) * (double)(width / s), Z = 2.0 * (double)a->d.latent_ch;
    slot sl[160];
    for (int i = 0; i < 160; i++) sl[i].id = -1, sl[i].frames = 0;
    int64_t iters = 1 + (frames - 1) / 4;
    int32_t out = -1, out_ = -1;
    for (int64_t i = 0; i < iters && i < 4096; i++) {
        int32_t o = encoder_call(&x, a, sl, i == 0 ? 1.0 : 4.0, (double)height, (double)width);
        if (i == 0) {
            out = o;
        } else {
            fr(&x, out_);
            out_ = o;
            int32_t cat = ta(&x, Z, (double)(i + 1), lpx); /* torch.cat([out, out_], 2) */
            fr(&x, out);
            out = cat;
        }
    }
    /* quant_conv, 1×1×1: F.pad's clone, the conv */
    int32_t pc = ta(&x, Z, (double)iters, lpx);
    int32_t enc = ta(&x, Z, (double)iters, lpx);
    fr(&x, pc);
    clear_cache(&x, sl);
    fr(&x, out); /* the locals at return */
    fr(&x, out_);
    return enc;
}
