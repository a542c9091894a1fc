/* diffusion_workload.c: tokens of a video / image DiT from the pixels.
 * The pipelines' prepare_latents: latent frames = (frames - 1) / temporal_compression + 1 (causal video
 * VAEs keep the first frame alone; pipeline_cogvideox.py, pipeline_wan.py, pipeline_hunyuan_video.py,
 * pipeline_ltx.py, pipeline_mochi.py), latent height = height / spatial_compression; the transformer's
 * patch embedding then takes patch_t × patch × patch latent pixels per token. FLUX packs 2×2 latent
 * pixels per token in the pipeline (_pack_latents), written here as a spatial factor of 16. Text tokens
 * join the sequence in joint-attention models (CogVideoX, HunyuanVideo, Mochi, FLUX, SD3); Wan and LTX
 * read them through cross-attention. */
#include "diffusers.h"
#include "plan.h"

int64_t vp_dit_latent_frames(const vp_arch *a, int64_t frames) {
    int64_t t = a->d.temporal > 0 ? a->d.temporal : 1;
    if (frames < 1) frames = 1;
    return t == 1 ? frames : (frames - 1) / t + 1;
}

int64_t vp_dit_video_tokens(const vp_arch *a, int64_t frames, int64_t height, int64_t width) {
    int64_t s = a->d.spatial > 0 ? a->d.spatial : 8;
    int64_t pt = a->d.patch_t > 0 ? a->d.patch_t : 1;
    int64_t p = a->dclass == VP_DC_FLUX ? 1 : (a->patch_size > 0 ? a->patch_size : 1);
    int64_t lf = vp_dit_latent_frames(a, frames);
    if (a->d.temporal <= 1) lf = 1; /* image models: one frame per sample */
    int64_t lt = (lf + pt - 1) / pt;
    int64_t lh = height / s, lw = width / s;
    return lt * (lh / p) * (lw / p);
}

int64_t vp_dit_seq_tokens(const vp_arch *a, int64_t frames, int64_t height, int64_t width) {
    return vp_dit_video_tokens(a, frames, height, width) + (a->d.joint ? a->d.text_len : 0);
}

/* HunyuanVideoTransformer3DModel.forward in diffusers v0.32.0-v0.32.1 (transformer_hunyuan_video.py at v0.32.0,
 * lines 713-723; main from PR #10136 of 16 Dec 2024): `attention_mask = torch.zeros(batch_size, sequence_length,
 * sequence_length, dtype=torch.bool)` over the N = video + text tokens, True up to each sample's effective length,
 * passed to every block (and held as an input by every checkpointed block until its backward). PR #10454
 * (7 Jan 2025) only unsqueezed it to (B, 1, N, N); PR #10548 (14 Jan 2025, v0.32.2) made it (B, 1, 1, N). One byte
 * per (query, key) pair: N bytes per token of the batch. The official code (flash_attn varlen) has no such mask. */
double vp_dit_dense_mask_per_token(const vp_plan *plan, const vp_arch *a) {
    if (a->dclass != VP_DC_HUNYUAN || plan->diff.diffusers != VP_DIFFUSERS_0_32 || plan->diff.code != VP_DIFF_CODE_DIFFUSERS)
        return 0;
    return (double)vp_dit_plan_tokens(plan, a);
}

/* bitsandbytes' LLM.int8 matmul of an 8-bit Linear at inference (bitsandbytes autograd/_functions.py MatMul8bitLt.forward
 * and torch.ops.bitsandbytes.int8_mixed_scaled_mm, 0.45 and later): the input is quantized to an int8 copy (N × K × 1 B,
 * made from a float16 copy, N × K × 2 B, freed once quantized), the int8 GEMM writes an int32 output (N × M × 4 B), which
 * is dequantized to a float16 one (N × M × 2 B) that the caller casts to its dtype. Over a 16-bit Linear, whose output
 * the step already counts, that is K + 4M bytes per token while the int32 output lives; the block's widest Linear sets
 * it: the FF's up projection (K = h, M = f), its down projection (K = f, M = h), a single-stream block's linear1
 * (K = h, M = 3h + f) and linear2 (K = h + f, M = h). */
double vp_dit_int8_matmul_per_token(const vp_arch *a) {
    double h = (double)a->hidden, f = (double)a->inter;
    double best = h + 4.0 * f;
    if (f + 4.0 * h > best) best = f + 4.0 * h;
    if (a->d.blocks2 > 0) {
        if (h + 4.0 * (3.0 * h + f) > best) best = h + 4.0 * (3.0 * h + f);
        if ((h + f) + 4.0 * h > best) best = (h + f) + 4.0 * h;
    }
    return best;
}

int64_t vp_dit_cfg_batch(const vp_arch *a, int64_t batch, int cfg) { return cfg && a->d.cfg_batch ? 2 * batch : batch; }

/* The pipelines' default sizes (their __call__ defaults / the released model's native resolution). */
void vp_dit_default_size(const vp_arch *a, int64_t *f, int64_t *h, int64_t *w) {
    switch (a->dclass) {
    case VP_DC_WAN: *f = 81, *h = 480, *w = 832; break;          /* pipeline_wan.py */
    case VP_DC_HUNYUAN: *f = 129, *h = 720, *w = 1280; break;    /* pipeline_hunyuan_video.py */
    case VP_DC_LTX: *f = 161, *h = 512, *w = 704; break;         /* pipeline_ltx.py */
    case VP_DC_MOCHI: *f = 19, *h = 480, *w = 848; break;        /* pipeline_mochi.py */
    case VP_DC_FLUX: *f = 1, *h = 1024, *w = 1024; break;
    case VP_DC_SD3: *f = 1, *h = 1024, *w = 1024; break;
    default: /* CogVideoX: sample_frames × (sample_height, sample_width) latents × 8 */
        *f = a->sample_frames > 0 ? a->sample_frames : 49;
        *h = a->sample_height > 0 ? a->sample_height * 8 : 480;
        *w = a->sample_width > 0 ? a->sample_width * 8 : 720;
        break;
    }
}

/* The frames a video pipeline runs for num_frames = frames: pipeline_wan.py (__call__, lines 493-497) rounds a
 * count that is not 1 + 4k to num_frames // 4 * 4 + 1 (48 -> 49); the others' prepare_latents take (frames - 1) //
 * t + 1 latent frames (pipeline_cogvideox.py line 680, pipeline_hunyuan_video.py 405, pipeline_ltx.py 491,
 * pipeline_mochi.py 404), which decode to 1 + (latent frames - 1) × t (48 -> 45 with t = 4). An image pipeline
 * (FluxPipeline, StableDiffusion3Pipeline) has no num_frames: one image per sample. */
int64_t vp_dit_run_frames(const vp_arch *a, int64_t frames) {
    int64_t t = a->d.temporal;
    if (t <= 1 || frames < 1) return 1; /* an image model (FLUX, SD3) makes one frame per sample */
    if (a->dclass == VP_DC_WAN && frames % t != 1) return frames / t * t + 1;
    return (vp_dit_latent_frames(a, frames) - 1) * t + 1;
}

void vp_diffusion_size(const vp_plan *plan, const vp_arch *a, int64_t *f, int64_t *h, int64_t *w) {
    /* what the plan does not give is the pipeline's default, as its __call__ (num_frames, height, width) takes it */
    int64_t df = 1, dh = 512, dw = 512;
    if (VP_DC_IS_DIT(a->dclass)) vp_dit_default_size(a, &df, &dh, &dw);
    *f = plan->frames > 0 ? plan->frames : df;
    if (VP_DC_IS_DIT(a->dclass)) *f = vp_dit_run_frames(a, *f);
    *h = plan->height ? plan->height : dh;
    *w = plan->height ? plan->width : dw;
}

const vp_instance *vp_plan_dit(const vp_plan *plan) {
    for (int i = 0; i < plan->n_instances; i++)
        if (VP_DC_IS_DIT(plan->inst[i].arch.dclass)) return &plan->inst[i];
    return NULL;
}

void vp_pipeline_size(const vp_plan *plan, int64_t *f, int64_t *h, int64_t *w) {
    const vp_instance *dit = vp_plan_dit(plan);
    if (dit) {
        vp_diffusion_size(plan, &dit->arch, f, h, w);
        return;
    }
    *f = plan->frames > 0 ? plan->frames : 1;
    *h = plan->height ? plan->height : 512;
    *w = plan->height ? plan->width : 512;
}

int64_t vp_dit_plan_tokens(const vp_plan *plan, const vp_arch *a) {
    if (!plan->height && plan->seq) return plan->seq; /* a hand-computed sequence still works */
    int64_t f, h, w;
    vp_diffusion_size(plan, a, &f, &h, &w);
    return vp_dit_seq_tokens(a, f, h, w);
}
