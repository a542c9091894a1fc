/* dit_params.c: the diffusers DiT transformers of video and image pipelines, read from their
 * transformer/config.json and counted module by module as each modeling file builds them
 * (diffusers commit 58eb52c0, src/diffusers/models/transformers/):
 *   cogvideox_transformer_3d.py CogVideoXTransformer3DModel, transformer_wan.py WanTransformer3DModel,
 *   transformer_hunyuan_video.py HunyuanVideoTransformer3DModel, transformer_ltx.py
 *   LTXVideoTransformer3DModel, transformer_mochi.py MochiTransformer3DModel, transformer_flux.py
 *   FluxTransformer2DModel, transformer_sd3.py SD3Transformer2DModel.
 * Shared modules: TimestepEmbedding (embeddings.py: linear_1 in->D, linear_2 D->D, biases),
 * PixArtAlphaTextProjection (linear_1 in->D, linear_2 D->D), AdaLayerNormZero (Linear(D, 6D)),
 * AdaLayerNormZeroSingle (Linear(D, 3D)), AdaLayerNormContinuous (Linear(D, 2D), LayerNorm without
 * affine), FeedForward "gelu-approximate" (GELU proj D->4D, Linear 4D->D, biases).
 * Each total is checked against the released checkpoint's safetensors index total_size in
 * tests/core/test_diffusion_params.c. */
#include <string.h>

#include "diffusers.h"
#include "util.h"

#define MAXD 1048576LL

static int64_t lin(int64_t in, int64_t out, int bias) { return in * out + (bias ? out : 0); }
/* TimestepEmbedding(in, D) and PixArtAlphaTextProjection(in, D): two Linears with biases */
static int64_t mlp2(int64_t in, int64_t d) { return lin(in, d, 1) + lin(d, d, 1); }
/* FeedForward(D, inner) with a single-projection activation (GELU / LinearActivation) */
static int64_t ff(int64_t d, int64_t inner, int bias) { return lin(d, inner, bias) + lin(inner, d, bias); }

static vp_status get(const cJSON *c, const char *p, const char *k, int64_t lo, int64_t hi, int64_t *v, vp_error *err) {
    return vp_json_opt_int(c, p, k, lo, hi, v, err);
}

/* patch_size given as an int or a [t, h, w] list (Wan) */
static vp_status patch3(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(c, "patch_size");
    if (cJSON_IsArray(ps)) {
        char path[128];
        vp_path_key(path, sizeof path, p, "patch_size");
        if (cJSON_GetArraySize(ps) != 3) return vp_fail(err, VP_ERR_FIELD, path, "%s must be [t, h, w]", path);
        int64_t v[3];
        for (int i = 0; i < 3; i++) {
            const cJSON *e = cJSON_GetArrayItem(ps, i);
            if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > 64 || e->valuedouble != (double)(int64_t)e->valuedouble)
                return vp_fail(err, VP_ERR_RANGE, path, "%s entries must be integers in 1..64", path);
            v[i] = (int64_t)e->valuedouble;
        }
        if (v[1] != v[2]) return vp_fail(err, VP_ERR_UNSUPPORTED, path, "%s: non-square spatial patches are not modelled", path);
        a->d.patch_t = v[0];
        a->patch_size = v[1];
        return VP_OK;
    }
    return get(c, p, "patch_size", 1, 64, &a->patch_size, err);
}

static void finish(vp_arch *a, int64_t embed, int64_t other, int64_t per_block, int64_t n1, int64_t blocks_total,
                   int64_t linear, int64_t largest) {
    a->d.embed = embed;
    a->d.other = other;
    a->d.per_block = per_block;
    a->d.blocks_total = blocks_total;
    a->d.linear = linear;
    a->d.largest_tensor = largest;
    a->d.params = embed + other + blocks_total;
    (void)n1;
}

static vp_status heads_dims(const cJSON *c, const char *p, vp_arch *a, int64_t dh, int64_t dd, vp_error *err) {
    vp_status st;
    a->heads = dh;
    a->head_dim = dd;
    if ((st = get(c, p, "num_attention_heads", 1, 65536, &a->heads, err))) return st;
    if ((st = get(c, p, "attention_head_dim", 1, 65536, &a->head_dim, err))) return st;
    a->hidden = a->heads * a->head_dim;
    if (a->hidden > MAXD) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_attention_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s × attention_head_dim is above 2^20", path);
    }
    a->kv_heads = a->heads;
    return VP_OK;
}

static vp_status cogvideox(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = heads_dims(c, p, a, 30, 64, err))) return st;
    a->layers = 30;
    a->in_channels = a->out_channels = 16;
    a->patch_size = 2;
    a->text_embed_dim = 4096;
    a->time_embed_dim = 512;
    a->text_tokens = 226;
    a->temporal_compression = 4;
    a->sample_frames = 49;
    a->sample_height = 60;
    a->sample_width = 90;
    if ((st = get(c, p, "num_layers", 1, 4096, &a->layers, err))) return st;
    if ((st = get(c, p, "in_channels", 1, 4096, &a->in_channels, err))) return st;
    if ((st = get(c, p, "out_channels", 1, 4096, &a->out_channels, err))) return st;
    if ((st = get(c, p, "patch_size", 1, 64, &a->patch_size, err))) return st;
    if ((st = get(c, p, "text_embed_dim", 1, MAXD, &a->text_embed_dim, err))) return st;
    if ((st = get(c, p, "time_embed_dim", 1, MAXD, &a->time_embed_dim, err))) return st;
    if ((st = get(c, p, "max_text_seq_length", 0, 1000000, &a->text_tokens, err))) return st;
    if ((st = get(c, p, "sample_frames", 1, 100000, &a->sample_frames, err))) return st;
    if ((st = get(c, p, "sample_height", 1, 100000, &a->sample_height, err))) return st;
    if ((st = get(c, p, "sample_width", 1, 100000, &a->sample_width, err))) return st;
    if ((st = get(c, p, "temporal_compression_ratio", 1, 64, &a->temporal_compression, err))) return st;
    /* CogVideoX 1.5 (convert_cogvideox_to_diffusers.py get_transformer_init_kwargs "1.5": patch_size_t 2, patch_bias
     * false; the 1.5 I2V model adds ofs_embed_dim 512): null / absent in the 1.0 checkpoints */
    int64_t pt = 0, ofs = 0;
    int patch_bias = 1;
    if ((st = get(c, p, "patch_size_t", 1, 64, &pt, err))) return st;
    if ((st = get(c, p, "ofs_embed_dim", 1, MAXD, &ofs, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "patch_bias", &patch_bias, err))) return st;
    if (ofs && ofs != a->time_embed_dim) {
        char path[128];
        vp_path_key(path, sizeof path, p, "ofs_embed_dim");
        /* CogVideoXTransformer3DModel.forward: `emb = emb + ofs_emb` */
        return vp_fail(err, VP_ERR_RANGE, path, "%s must equal time_embed_dim (the ofs embedding is added to the time embedding)", path);
    }
    int64_t h = a->hidden, t = a->time_embed_dim, pp = a->patch_size;
    a->inter = 4 * h;
    /* CogVideoXBlock: two CogVideoXLayerNormZero (Linear(t, 6h) + LayerNorm(h)), CogVideoX attention
     * q/k/v/out with bias + LayerNorm(head_dim) on q and k, FeedForward h -> 4h -> h (gelu-approximate) */
    int64_t nz = lin(t, 6 * h, 1) + 2 * h;
    int64_t blk = 2 * nz + 4 * lin(h, h, 1) + 4 * a->head_dim + ff(h, 4 * h, 1);
    /* patch_embed (below) + text_proj Linear(text, h); time_embedding TimestepEmbedding(h, t):
     * h->t->t; norm_final LayerNorm(h); norm_out AdaLayerNorm Linear(t, 2h) + LayerNorm(h); proj_out. The
     * 2b's sincos positional table is a non-persistent buffer (CogVideoXPatchEmbed). */
    /* CogVideoXPatchEmbed (embeddings.py): 1.0 a Conv2d(in, h, p) with bias=patch_bias; 1.5 (patch_size_t) a
     * Linear(in × p × p × p_t, h), always with a bias. ofs_embedding (1.5 I2V): TimestepEmbedding(ofs, ofs), two
     * Linears. proj_out: h -> p × p (× p_t) × out. */
    int64_t embed = (pt ? lin(a->in_channels * pp * pp * pt, h, 1) : a->in_channels * pp * pp * h + (patch_bias ? h : 0)) +
                    lin(a->text_embed_dim, h, 1);
    int64_t other = lin(h, t, 1) + lin(t, t, 1) + 2 * h + lin(t, 2 * h, 1) + 2 * h +
                    lin(h, pp * pp * (pt ? pt : 1) * a->out_channels, 1) + (ofs ? mlp2(ofs, ofs) : 0);
    finish(a, embed, other, blk, a->layers, a->layers * blk,
           a->layers * (4 * lin(h, h, 1) + ff(h, 4 * h, 1) + 2 * lin(t, 6 * h, 1)), h * 4 * h);
    a->d.norm_linear = a->layers * 2 * lin(t, 6 * h, 1); /* norm1.linear, norm2.linear */
    /* CogVideoXPatchEmbed's position table (embeddings.py; the transformer passes use_positional_embeddings = not
     * use_rotary_positional_embeddings): a (1, max_text_seq_length + num_patches, h) buffer over the config's sample
     * size, num_patches = (sample_height / p) × (sample_width / p) × ((sample_frames - 1) / temporal_compression + 1);
     * non-persistent sincos in CogVideoX-2b (rotary off), persistent and learned in CogVideoX-5b-I2V
     * (use_learned_positional_embeddings): 17,776 × 1920 = 34,129,920 and 17,776 × 3072 = 54,607,872 elements */
    int rotary = 0, learned = 0;
    if ((st = vp_json_opt_bool(c, p, "use_rotary_positional_embeddings", &rotary, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "use_learned_positional_embeddings", &learned, err))) return st;
    if (!rotary || learned) {
        int64_t lf = (a->sample_frames - 1) / a->temporal_compression + 1;
        a->d.buffers = (a->text_tokens + (a->sample_height / pp) * (a->sample_width / pp) * lf) * h;
    }
    /* 1.5: the pipeline pads the latent frames to a multiple of p_t (pipeline_cogvideox.py `additional_frames`) and
     * each token takes p_t of them (diffusion_workload.c rounds up the same way) */
    a->d.patch_t = pt ? pt : 1;
    a->d.spatial = 8;
    a->d.temporal = a->temporal_compression;
    a->d.text_len = a->text_tokens;
    a->d.text_dim = a->text_embed_dim;
    a->d.joint = 1;     /* text and video tokens in one sequence (CogVideoXAttnProcessor2_0) */
    a->d.rotary = rotary;
    a->d.cfg_batch = 1; /* pipeline_cogvideox.py: torch.cat([latents] * 2) */
    a->d.attn_per_block = 1;
    return VP_OK;
}

static vp_status wan(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = heads_dims(c, p, a, 40, 128, err))) return st;
    a->layers = 40;
    a->inter = 13824;
    a->in_channels = a->out_channels = 16;
    a->patch_size = 2;
    a->d.patch_t = 1;
    a->text_embed_dim = 4096;
    int64_t freq = 256;
    if ((st = get(c, p, "num_layers", 1, 4096, &a->layers, err))) return st;
    if ((st = get(c, p, "ffn_dim", 1, MAXD, &a->inter, err))) return st;
    if ((st = get(c, p, "in_channels", 1, 4096, &a->in_channels, err))) return st;
    if ((st = get(c, p, "out_channels", 1, 4096, &a->out_channels, err))) return st;
    if ((st = get(c, p, "text_dim", 1, MAXD, &a->text_embed_dim, err))) return st;
    if ((st = get(c, p, "freq_dim", 1, MAXD, &freq, err))) return st;
    if ((st = patch3(c, p, a, err))) return st;
    int cross_norm = 1;
    if ((st = vp_json_opt_bool(c, p, "cross_attn_norm", &cross_norm, err))) return st;
    /* the image-to-video models (Wan2.1-I2V, FLF2V): image_dim 1280 (the CLIP ViT-H/14 image encoder's width),
     * added_kv_proj_dim = h, pos_embed_seq_len 514 for first-last-frame (two images' 257 tokens); null in T2V */
    int64_t img = 0, added_kv = 0, img_pos = 0;
    if ((st = get(c, p, "image_dim", 1, MAXD, &img, err))) return st;
    if ((st = get(c, p, "added_kv_proj_dim", 1, MAXD, &added_kv, err))) return st;
    if ((st = get(c, p, "pos_embed_seq_len", 1, 1000000, &img_pos, err))) return st;
    if ((img != 0) != (added_kv != 0)) {
        char path[128];
        vp_path_key(path, sizeof path, p, img ? "added_kv_proj_dim" : "image_dim");
        /* WanTransformer3DModel: the image embedding is read by the blocks' add_k_proj / add_v_proj */
        return vp_fail(err, VP_ERR_FIELD, path, "%s: image_dim and added_kv_proj_dim go together (image-to-video)", path);
    }
    int64_t h = a->hidden, f = a->inter, pt = a->d.patch_t, pp = a->patch_size;
    /* WanTransformerBlock: norm1 (no affine), attn1 and attn2 = WanAttention q/k/v/out with biases and
     * RMSNorm(h) on q and k ("rms_norm_across_heads"), norm2 LayerNorm(h) affine when cross_attn_norm,
     * FeedForward h -> ffn_dim -> h (gelu-approximate), scale_shift_table (1, 6, h) */
    int64_t attn = 4 * lin(h, h, 1) + 2 * h;
    /* I2V: attn2 adds add_k_proj and add_v_proj Linear(added_kv, h) with biases and norm_added_k RMSNorm(h)
     * (transformer_wan.py WanAttention, lines 211-215) */
    int64_t img_kv = added_kv ? 2 * lin(added_kv, h, 1) + h : 0;
    int64_t blk = 2 * attn + img_kv + (cross_norm ? 2 * h : 0) + ff(h, f, 1) + 6 * h;
    /* patch_embedding Conv3d(in, h, patch); condition_embedder: time_embedder 256->h->h, time_proj
     * Linear(h, 6h), text_embedder 4096->h->h; proj_out Linear(h, out·prod(patch)); scale_shift_table 2h;
     * I2V's image_embedder WanImageEmbedding (lines 284-305): FP32LayerNorm(image_dim) and FP32LayerNorm(h), both
     * affine, FeedForward(image_dim, h, mult=1, "gelu") = Linear(image_dim, image_dim) + Linear(image_dim, h), and
     * with pos_embed_seq_len a (1, seq, image_dim) position table */
    int64_t embed = a->in_channels * pt * pp * pp * h + h + mlp2(a->text_embed_dim, h);
    int64_t other = mlp2(freq, h) + lin(h, 6 * h, 1) + lin(h, a->out_channels * pt * pp * pp, 1) + 2 * h;
    if (img) other += 2 * img + lin(img, img, 1) + lin(img, h, 1) + 2 * h + img_pos * img;
    finish(a, embed, other, blk, a->layers, a->layers * blk,
           a->layers * (8 * lin(h, h, 1) + (added_kv ? 2 * lin(added_kv, h, 1) : 0) + ff(h, f, 1)), h * f);
    /* the image tokens the cross-attentions read: CLIP ViT-H/14 at 224 px gives 16 × 16 + 1 = 257 per image
     * (pipeline_wan_i2v.py encode_image: the penultimate hidden state), two images for first-last-frame */
    a->d.image_len = img ? (img_pos ? img_pos : 257) : 0;
    a->time_embed_dim = h;
    /* The VAE the transformer's latents come from: WanPipeline reads vae_scale_factor_spatial from the VAE
     * (pipeline_wan.py __init__), and the DiT's out_channels are that VAE's z_dim: 16, the Wan 2.1 VAE (8x spatial),
     * or 48, the Wan 2.2 VAE of Wan2.2-TI2V-5B (16x: 8x of its conv stack on 2x2-patchified pixels; vae_wan.c). */
    int wan22_vae = a->out_channels == 48;
    a->d.spatial = wan22_vae ? 16 : 8;
    a->d.temporal = 4;
    /* expand_timesteps (the TI2V-5B pipeline's model_index.json: true): pipeline_wan.py passes one timestep per
     * token, (batch, seq_len), so the condition embedder's temb and timestep_proj and each block's modulation are
     * per token (transformer_wan.py WanTransformer3DModel.forward, `timestep.ndim == 2`). A config may say so with
     * the pipeline's key; without it, the Wan 2.2 VAE's latents mean the TI2V pipeline. */
    int ts = wan22_vae;
    if ((st = vp_json_opt_bool(c, p, "expand_timesteps", &ts, err))) return st;
    a->d.ts_tokens = ts;
    a->d.text_len = 512; /* pipeline_wan.py max_sequence_length 512 */
    a->d.text_dim = a->text_embed_dim;
    a->d.joint = 0;      /* text through cross-attention (attn2) */
    a->d.cfg_batch = 0;  /* pipeline_wan.py: a second transformer call for the unconditional pass */
    a->d.attn_per_block = 2;
    return VP_OK;
}

static vp_status flux(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = heads_dims(c, p, a, 24, 128, err))) return st;
    a->layers = 19;
    a->d.blocks2 = 38;
    a->in_channels = 64;
    a->patch_size = 1;
    int64_t joint = 4096, pooled = 768;
    int guidance = 0;
    if ((st = get(c, p, "num_layers", 0, 4096, &a->layers, err))) return st;
    if ((st = get(c, p, "num_single_layers", 0, 4096, &a->d.blocks2, err))) return st;
    if ((st = get(c, p, "in_channels", 1, 4096, &a->in_channels, err))) return st;
    a->out_channels = a->in_channels;
    const cJSON *oc = cJSON_GetObjectItemCaseSensitive(c, "out_channels");
    if (oc && !cJSON_IsNull(oc) && (st = get(c, p, "out_channels", 1, 4096, &a->out_channels, err))) return st;
    if ((st = get(c, p, "patch_size", 1, 64, &a->patch_size, err))) return st;
    if ((st = get(c, p, "joint_attention_dim", 1, MAXD, &joint, err))) return st;
    if ((st = get(c, p, "pooled_projection_dim", 1, MAXD, &pooled, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "guidance_embeds", &guidance, err))) return st;
    if (a->layers + a->d.blocks2 < 1) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_layers");
        return vp_fail(err, VP_ERR_RANGE, path, "%s + num_single_layers must be at least 1", path);
    }
    int64_t h = a->hidden, d = a->head_dim, pp = a->patch_size;
    a->inter = 4 * h;
    /* FluxTransformerBlock: norm1, norm1_context = AdaLayerNormZero Linear(h, 6h); FluxAttention q/k/v/out
     * and add_q/k/v/to_add_out (biases), RMSNorm(head_dim) on q, k, added q, added k; ff, ff_context */
    int64_t dbl = 2 * lin(h, 6 * h, 1) + 8 * lin(h, h, 1) + 4 * d + 2 * ff(h, 4 * h, 1);
    /* FluxSingleTransformerBlock: AdaLayerNormZeroSingle Linear(h, 3h), proj_mlp h->4h, proj_out 5h->h,
     * attention q/k/v (pre_only: no to_out) + q/k RMSNorm */
    int64_t sgl = lin(h, 3 * h, 1) + lin(h, 4 * h, 1) + lin(5 * h, h, 1) + 3 * lin(h, h, 1) + 2 * d;
    /* x_embedder Linear(in, h), context_embedder Linear(joint, h); time_text_embed: timestep (256->h->h),
     * guidance (same, FLUX.1-dev), text PixArtAlphaTextProjection(pooled, h); norm_out Linear(h, 2h);
     * proj_out Linear(h, p²·out) */
    int64_t embed = lin(a->in_channels, h, 1) + lin(joint, h, 1);
    int64_t other = mlp2(256, h) * (guidance ? 2 : 1) + mlp2(pooled, h) + lin(h, 2 * h, 1) + lin(h, pp * pp * a->out_channels, 1);
    int64_t linear = a->layers * (dbl - 4 * d) + a->d.blocks2 * (sgl - 2 * d);
    finish(a, embed, other, dbl, a->layers, a->layers * dbl + a->d.blocks2 * sgl, linear, 5 * h * h);
    a->d.norm_linear = a->layers * 2 * lin(h, 6 * h, 1) + a->d.blocks2 * lin(h, 3 * h, 1); /* norm1, norm1_context; norm */
    /* the single block's q/k/v, proj_mlp, proj_out (its norm.linear matches "norm") */
    if (a->d.blocks2 > 0) a->d.last_linear = sgl - 2 * d - lin(h, 3 * h, 1);
    a->d.per_block = dbl;
    a->time_embed_dim = h;
    a->text_embed_dim = joint;
    a->d.patch_t = 1;
    a->d.spatial = 8 * 2; /* VAE ÷8, then the pipeline packs 2×2 latent patches (pipeline_flux.py _pack_latents) */
    a->d.temporal = 1;
    a->d.text_len = 512;  /* pipeline_flux.py max_sequence_length 512 */
    a->d.text_dim = joint;
    a->d.joint = 1;
    a->d.cfg_batch = 0;   /* FLUX.1-dev: guidance distilled into guidance_embeds, one pass */
    a->d.attn_per_block = 1;
    return VP_OK;
}

static vp_status sd3(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = heads_dims(c, p, a, 18, 64, err))) return st;
    a->layers = 18;
    a->in_channels = a->out_channels = 16;
    a->patch_size = 2;
    int64_t joint = 4096, cap = 1152, pooled = 2048, posmax = 96, sample = 128;
    if ((st = get(c, p, "num_layers", 1, 4096, &a->layers, err))) return st;
    if ((st = get(c, p, "in_channels", 1, 4096, &a->in_channels, err))) return st;
    if ((st = get(c, p, "out_channels", 1, 4096, &a->out_channels, err))) return st;
    if ((st = get(c, p, "patch_size", 1, 64, &a->patch_size, err))) return st;
    if ((st = get(c, p, "joint_attention_dim", 1, MAXD, &joint, err))) return st;
    if ((st = get(c, p, "caption_projection_dim", 1, MAXD, &cap, err))) return st;
    if ((st = get(c, p, "pooled_projection_dim", 1, MAXD, &pooled, err))) return st;
    if ((st = get(c, p, "pos_embed_max_size", 1, 4096, &posmax, err))) return st;
    if ((st = get(c, p, "sample_size", 1, 65536, &sample, err))) return st;
    char qk[24] = "";
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(c, "qk_norm");
    if (q && !cJSON_IsNull(q) && (st = vp_json_opt_str(c, p, "qk_norm", qk, sizeof qk, err))) return st;
    const cJSON *dual = cJSON_GetObjectItemCaseSensitive(c, "dual_attention_layers");
    int64_t ndual = cJSON_IsArray(dual) ? cJSON_GetArraySize(dual) : 0;
    int64_t h = a->hidden, d = a->head_dim, pp = a->patch_size;
    if (cap != h) {
        char path[128];
        vp_path_key(path, sizeof path, p, "caption_projection_dim");
        return vp_fail(err, VP_ERR_UNSUPPORTED, path, "%s must equal heads × head_dim (as in every released SD3)", path);
    }
    a->inter = 4 * h;
    int64_t qkn = qk[0] ? 2 * d : 0; /* RMSNorm(head_dim) pairs when qk_norm = "rms_norm" */
    /* JointTransformerBlock (attention.py): norm1 AdaLayerNormZero Linear(h, 6h); norm1_context the same,
     * or AdaLayerNormContinuous Linear(h, 2h) in the last (context_pre_only) block; Attention q/k/v/out,
     * add_q/k/v (+ to_add_out except the last block), q/k and added q/k norms; ff (+ ff_context except last).
     * SD3.5-medium's dual-attention layers (SD35AdaLayerNormZeroX Linear(h, 9h), attn2) add 3h² + ... */
    int64_t full = 2 * lin(h, 6 * h, 1) + 8 * lin(h, h, 1) + 2 * qkn + 2 * ff(h, 4 * h, 1);
    int64_t last = lin(h, 6 * h, 1) + lin(h, 2 * h, 1) + 7 * lin(h, h, 1) + 2 * qkn + ff(h, 4 * h, 1);
    int64_t dual_extra = lin(h, 9 * h, 1) - lin(h, 6 * h, 1) + 4 * lin(h, h, 1) + qkn;
    int64_t blocks = (a->layers - 1) * full + last + ndual * dual_extra;
    /* pos_embed: PatchEmbed Conv2d(in, h, p) (+ the persistent sincos table, pos_embed_max_size² × h, a
     * buffer); time_text_embed: timestep 256->h->h, text PixArtAlphaTextProjection(pooled, h);
     * context_embedder Linear(joint, caption); norm_out Linear(h, 2h); proj_out Linear(h, p²·out) */
    int64_t embed = a->in_channels * pp * pp * h + h + lin(joint, cap, 1);
    int64_t other = mlp2(256, h) + mlp2(pooled, h) + lin(h, 2 * h, 1) + lin(h, pp * pp * a->out_channels, 1);
    finish(a, embed, other, full, a->layers, blocks, a->layers * (8 * lin(h, h, 1) + 2 * ff(h, 4 * h, 1)), 4 * h * h);
    a->d.buffers = posmax * posmax * h;
    a->d.dual_layers = ndual; /* SD3.5-medium's MMDiT-X blocks: attn2 over the image tokens (attention.py JointTransformerBlock) */
    a->time_embed_dim = h;
    a->text_embed_dim = joint;
    a->d.patch_t = 1;
    a->d.spatial = 8;
    a->d.temporal = 1;
    a->d.text_len = 77 + 256; /* pipeline_stable_diffusion_3.py: CLIP 77 tokens + T5 max_sequence_length 256 */
    a->d.text_dim = joint;
    a->d.joint = 1;
    a->d.cfg_batch = 1;       /* torch.cat([latents] * 2) */
    a->d.attn_per_block = 1;
    (void)sample;
    return VP_OK;
}

static vp_status hunyuan(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = heads_dims(c, p, a, 24, 128, err))) return st;
    a->layers = 20;
    a->d.blocks2 = 40;
    a->in_channels = a->out_channels = 16;
    a->patch_size = 2;
    a->d.patch_t = 1;
    int64_t refiner = 2, text = 4096, pooled = 768;
    double ratio = 4.0;
    int guidance = 1;
    if ((st = get(c, p, "num_layers", 0, 4096, &a->layers, err))) return st;
    if ((st = get(c, p, "num_single_layers", 0, 4096, &a->d.blocks2, err))) return st;
    if ((st = get(c, p, "num_refiner_layers", 0, 4096, &refiner, err))) return st;
    if ((st = get(c, p, "in_channels", 1, 4096, &a->in_channels, err))) return st;
    if ((st = get(c, p, "out_channels", 1, 4096, &a->out_channels, err))) return st;
    if ((st = get(c, p, "patch_size", 1, 64, &a->patch_size, err))) return st;
    if ((st = get(c, p, "patch_size_t", 1, 64, &a->d.patch_t, err))) return st;
    if ((st = get(c, p, "text_embed_dim", 1, MAXD, &text, err))) return st;
    if ((st = get(c, p, "pooled_projection_dim", 1, MAXD, &pooled, err))) return st;
    if ((st = vp_json_opt_num(c, p, "mlp_ratio", 0.25, 64, &ratio, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "guidance_embeds", &guidance, err))) return st;
    if (a->layers + a->d.blocks2 < 1) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_layers");
        return vp_fail(err, VP_ERR_RANGE, path, "%s + num_single_layers must be at least 1", path);
    }
    int64_t h = a->hidden, d = a->head_dim, pp = a->patch_size, pt = a->d.patch_t;
    int64_t m = (int64_t)((double)h * ratio);
    a->inter = m;
    /* HunyuanVideoTransformerBlock: norm1, norm1_context AdaLayerNormZero Linear(h, 6h); Attention with
     * added_kv_proj_dim: q/k/v/out + add_q/k/v/to_add_out (biases), RMSNorm(head_dim) q, k, added q, k;
     * ff and ff_context h -> m -> h (gelu-approximate) */
    int64_t dbl = 2 * lin(h, 6 * h, 1) + 8 * lin(h, h, 1) + 4 * d + 2 * ff(h, m, 1);
    /* HunyuanVideoSingleTransformerBlock: q/k/v (pre_only) + q/k norms, AdaLayerNormZeroSingle Linear(h, 3h),
     * proj_mlp h->m, proj_out (h+m)->h */
    int64_t sgl = 3 * lin(h, h, 1) + 2 * d + lin(h, 3 * h, 1) + lin(h, m, 1) + lin(h + m, h, 1);
    /* context_embedder = HunyuanVideoTokenRefiner(text): time_text_embed (timestep 256->h->h, text
     * PixArtAlphaTextProjection(text, h)), proj_in Linear(text, h), refiner blocks (LayerNorm h ×2 affine,
     * Attention q/k/v/out with biases, FeedForward "linear-silu" h->4h->h, HunyuanVideoAdaNorm Linear(h, 2h)) */
    int64_t ref_blk = 2 * (2 * h) + 4 * lin(h, h, 1) + ff(h, 4 * h, 1) + lin(h, 2 * h, 1);
    int64_t refiner_p = mlp2(256, h) + mlp2(text, h) + lin(text, h, 1) + refiner * ref_blk;
    a->d.attn_extra = refiner; /* their to_q/k/v/out.0 are LoRA targets too (lora.c) */
    /* x_embedder Conv3d(in, h, (pt, p, p)); time_text_embed: timestep 256->h->h, text (pooled 768)->h->h,
     * guidance 256->h->h; norm_out Linear(h, 2h); proj_out Linear(h, pt·p²·out) */
    int64_t embed = a->in_channels * pt * pp * pp * h + h + refiner_p;
    int64_t other = mlp2(256, h) * (guidance ? 2 : 1) + mlp2(pooled, h) + lin(h, 2 * h, 1) + lin(h, pt * pp * pp * a->out_channels, 1);
    int64_t linear = a->layers * (dbl - 4 * d) + a->d.blocks2 * (sgl - 2 * d);
    finish(a, embed, other, dbl, a->layers, a->layers * dbl + a->d.blocks2 * sgl, linear, (h + m) * h);
    a->d.norm_linear = a->layers * 2 * lin(h, 6 * h, 1) + a->d.blocks2 * lin(h, 3 * h, 1); /* norm1, norm1_context; norm */
    /* the single block's q/k/v, proj_mlp, proj_out (its norm.linear matches "norm") */
    if (a->d.blocks2 > 0) a->d.last_linear = sgl - 2 * d - lin(h, 3 * h, 1);
    a->time_embed_dim = h;
    a->text_embed_dim = text;
    a->d.spatial = 8;
    a->d.temporal = 4;
    a->d.text_len = 256; /* pipeline_hunyuan_video.py max_sequence_length 256 (after the 95-token template crop) */
    a->d.text_dim = text;
    a->d.joint = 1;
    a->d.cfg_batch = 0;  /* embedded guidance (guidance_embeds); true CFG is off by default */
    a->d.attn_per_block = 1;
    return VP_OK;
}

static vp_status ltx(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = heads_dims(c, p, a, 32, 64, err))) return st;
    a->layers = 28;
    a->in_channels = a->out_channels = 128;
    a->patch_size = 1;
    a->d.patch_t = 1;
    int64_t cross = 2048, caption = 4096;
    int affine = 0, bias = 1, obias = 1;
    if ((st = get(c, p, "num_layers", 1, 4096, &a->layers, err))) return st;
    if ((st = get(c, p, "in_channels", 1, 4096, &a->in_channels, err))) return st;
    if ((st = get(c, p, "out_channels", 1, 4096, &a->out_channels, err))) return st;
    if ((st = get(c, p, "patch_size", 1, 64, &a->patch_size, err))) return st;
    if ((st = get(c, p, "patch_size_t", 1, 64, &a->d.patch_t, err))) return st;
    if ((st = get(c, p, "cross_attention_dim", 1, MAXD, &cross, err))) return st;
    if ((st = get(c, p, "caption_channels", 1, MAXD, &caption, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "norm_elementwise_affine", &affine, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "attention_bias", &bias, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "attention_out_bias", &obias, err))) return st;
    int64_t h = a->hidden;
    a->inter = 4 * h;
    /* LTXVideoTransformerBlock: norm1, norm2 RMSNorm(h) (affine per config); attn1 LTXAttention q/k/v/out +
     * RMSNorm(h) on q and k (always affine); attn2: q from h, k/v from cross_attention_dim; ff h->4h->h;
     * scale_shift_table (6, h) */
    int64_t attn1 = 3 * lin(h, h, bias) + lin(h, h, obias) + 2 * h;
    int64_t attn2 = lin(h, h, bias) + 2 * lin(cross, h, bias) + lin(h, h, obias) + 2 * h;
    int64_t blk = (affine ? 2 * h : 0) + attn1 + attn2 + ff(h, 4 * h, 1) + 6 * h;
    /* proj_in Linear(in, h); caption_projection PixArtAlphaTextProjection(caption, h); time_embed
     * AdaLayerNormSingle: timestep 256->h->h + Linear(h, 6h); scale_shift_table (2, h); proj_out */
    int64_t embed = lin(a->in_channels, h, 1) + mlp2(caption, h);
    int64_t other = mlp2(256, h) + lin(h, 6 * h, 1) + 2 * h + lin(h, a->out_channels, 1);
    finish(a, embed, other, blk, a->layers, a->layers * blk, a->layers * (attn1 + attn2 - 4 * h + ff(h, 4 * h, 1)), 4 * h * h);
    if (cross != h) a->d.linear = a->layers * (blk - 6 * h);
    a->time_embed_dim = h;
    a->text_embed_dim = caption;
    a->d.spatial = 32;  /* AutoencoderKLLTXVideo: 32× spatial, 8× temporal compression */
    a->d.temporal = 8;
    a->d.text_len = 128; /* pipeline_ltx.py max_sequence_length 128 */
    a->d.text_dim = caption;
    a->d.joint = 0;
    a->d.cfg_batch = 1;  /* torch.cat([latents] * 2) */
    a->d.attn_per_block = 2;
    return VP_OK;
}

static vp_status mochi(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = heads_dims(c, p, a, 24, 128, err))) return st;
    a->layers = 48;
    a->in_channels = 12;
    a->patch_size = 2;
    a->d.patch_t = 1;
    int64_t pooled = 1536, text = 4096, temb = 256;
    if ((st = get(c, p, "num_layers", 1, 4096, &a->layers, err))) return st;
    if ((st = get(c, p, "in_channels", 1, 4096, &a->in_channels, err))) return st;
    a->out_channels = a->in_channels;
    const cJSON *oc = cJSON_GetObjectItemCaseSensitive(c, "out_channels");
    if (oc && !cJSON_IsNull(oc) && (st = get(c, p, "out_channels", 1, 4096, &a->out_channels, err))) return st;
    if ((st = get(c, p, "patch_size", 1, 64, &a->patch_size, err))) return st;
    if ((st = get(c, p, "pooled_projection_dim", 1, MAXD, &pooled, err))) return st;
    if ((st = get(c, p, "text_embed_dim", 1, MAXD, &text, err))) return st;
    if ((st = get(c, p, "time_embed_dim", 1, MAXD, &temb, err))) return st;
    int64_t h = a->hidden, d = a->head_dim, pp = a->patch_size, P = pooled;
    int64_t fi = (4 * h * 2) / 3, fc = (4 * P * 2) / 3;
    a->inter = fi;
    /* MochiTransformerBlock: norm1 MochiRMSNormZero Linear(h, 4h); norm1_context Linear(h, 4P)
     * (last block: MochiLayerNormContinuous Linear(h, P)); MochiAttention q/k/v (no bias), add_q/k/v
     * (P -> h, no bias), to_out (bias), to_add_out h -> P (bias, not in the last block), four
     * RMSNorm(head_dim); ff SwiGLU h -> 2·fi, fi -> h (no bias); ff_context P -> 2·fc, fc -> P (not last) */
    int64_t attn_core = 3 * h * h + 3 * P * h + lin(h, h, 1) + 4 * d;
    int64_t full = lin(h, 4 * h, 1) + lin(h, 4 * P, 1) + attn_core + lin(h, P, 1) + (h * 2 * fi + fi * h) + (P * 2 * fc + fc * P);
    int64_t last = lin(h, 4 * h, 1) + lin(h, P, 1) + attn_core + (h * 2 * fi + fi * h);
    /* patch_embed Conv2d(in, h, p); time_embed: timestep (256->h->h), MochiAttentionPool (to_kv text->2·text,
     * to_q text->text, to_out text->h), caption_proj Linear(text, P); pos_frequencies (3, heads, d/2);
     * norm_out Linear(h, 2h); proj_out Linear(h, p²·out) */
    int64_t embed = a->in_channels * pp * pp * h + h + lin(text, P, 1);
    int64_t other = mlp2(temb, h) + lin(text, 2 * text, 1) + lin(text, text, 1) + lin(text, h, 1) + 3 * a->heads * (d / 2) +
                    lin(h, 2 * h, 1) + lin(h, pp * pp * a->out_channels, 1);
    finish(a, embed, other, full, a->layers, (a->layers - 1) * full + last, a->layers * (full - 4 * d), 3 * h * h);
    /* norm1 and norm1_context (the last block's MochiLayerNormContinuous Linear(h, P)) */
    a->d.norm_linear = a->layers * lin(h, 4 * h, 1) + (a->layers - 1) * lin(h, 4 * P, 1) + lin(h, P, 1);
    a->time_embed_dim = h;
    a->text_embed_dim = text;
    a->d.spatial = 8;   /* AutoencoderKLMochi: 8× spatial, 6× temporal */
    a->d.temporal = 6;
    a->d.text_len = 256; /* max_sequence_length 256 */
    a->d.text_dim = text;
    a->d.joint = 1;
    a->d.cfg_batch = 1;  /* pipeline_mochi.py: torch.cat([latents] * 2) */
    a->d.attn_per_block = 1;
    return VP_OK;
}

vp_status vp_dit_parse(const cJSON *c, const char *p, int dclass, vp_arch *a, vp_error *err) {
    a->kind = VP_KIND_DIT;
    a->qkv_bias = a->o_bias = a->mlp_bias = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 2;
    a->qk_norm = 1;
    a->vocab = 0;
    static const char *const names[] = {"", "cogvideox", "wan", "hunyuanvideo", "ltx", "mochi", "flux", "sd3"};
    vp_strlcpy(a->model_type, names[dclass], sizeof a->model_type);
    switch (dclass) {
    case VP_DC_COGVIDEOX: return cogvideox(c, p, a, err);
    case VP_DC_WAN: return wan(c, p, a, err);
    case VP_DC_HUNYUAN: return hunyuan(c, p, a, err);
    case VP_DC_LTX: return ltx(c, p, a, err);
    case VP_DC_MOCHI: return mochi(c, p, a, err);
    case VP_DC_FLUX: return flux(c, p, a, err);
    case VP_DC_SD3: return sd3(c, p, a, err);
    default: break;
    }
    return vp_fail(err, VP_ERR_UNSUPPORTED, p, "%s: not a diffusers transformer class", p);
}
