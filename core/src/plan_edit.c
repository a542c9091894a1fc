/* plan_edit.c: the workload value that fit and sweep vary (batch, seq, new_tokens, frames) on a parsed
 * plan, with the plan format's checks, and the largest value a search may try. */
#include <stdio.h>
#include <string.h>

#include "diffusers.h"
#include "planning.h"
#include "util.h"

/* The ranges of workload.batch / seq / new_tokens in the plan format (docs/schema/plan.md; MAX_BATCH
 * and MAX_TOKENS in plan_parse.c; tests/core/test_fit.c checks that the parser takes these and refuses
 * one more). */
#define EDIT_MAX_BATCH 1048576LL
#define EDIT_MAX_TOKENS 16777216LL
/* plan_parse.c check_magnitudes: batch × (seq + new_tokens + dec_seq) <= 2^32 tokens per step */
#define EDIT_MAX_STEP_TOKENS 4294967296LL
/* diffusion_plan.c: workload.frames in [1, VP_MAX_FRAMES], batch × frames × height × width <= VP_MAX_VIDEO_PIXELS */
#define EDIT_MAX_FRAMES ((long long)VP_MAX_FRAMES)

static const char *const k_field_names[] = {"batch", "seq", "new_tokens", "frames"};
#define N_FIELDS 4

const char *vp_field_name(vp_field f) { return (unsigned)f < N_FIELDS ? k_field_names[f] : "?"; }

vp_status vp_field_from_name(const char *name, vp_field *out, vp_error *err) {
    if (name) {
        for (int i = 0; i < N_FIELDS; i++)
            if (!strcmp(name, k_field_names[i])) {
                *out = (vp_field)i;
                return VP_OK;
            }
        if (!strcmp(name, "new-tokens")) {
            *out = VP_FIELD_NEW_TOKENS;
            return VP_OK;
        }
    }
    char shown[32];
    vp_strlcpy(shown, name ? name : "(none)", sizeof shown);
    return vp_fail(err, VP_ERR_FIELD, "field", "\"%s\" is not a workload value to search: batch, seq, new_tokens or frames", shown);
}

static int64_t *slot(vp_plan *p, vp_field f) {
    return f == VP_FIELD_BATCH ? &p->batch : f == VP_FIELD_SEQ ? &p->seq : &p->new_tokens;
}

/* ---- frames: the video models of a diffusion plan ---------------------------------------------- */

/* The model whose frames the workload's frames are: the first video DiT, else the first video VAE (a
 * decode-only plan); NULL when no model of the plan compresses time (image DiTs, 2-D VAEs, LLMs). */
static const vp_arch *video_model(const vp_plan *plan) {
    const vp_arch *vae = NULL;
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_arch *a = &plan->inst[i].arch;
        if (a->d.temporal <= 1) continue;
        if (VP_DC_IS_DIT(a->dclass)) return a;
        if (!vae && VP_DC_IS_VAE(a->dclass)) vae = a;
    }
    return vae;
}

int64_t vp_plan_field_step(const vp_plan *plan, vp_field f) {
    const vp_arch *a = f == VP_FIELD_FRAMES ? video_model(plan) : NULL;
    return a ? a->d.temporal : 1;
}

int64_t vp_plan_field_get(const vp_plan *plan, vp_field f) {
    if (f == VP_FIELD_FRAMES) {
        const vp_arch *a = video_model(plan);
        int64_t fr = 1, h, w;
        if (a) vp_pipeline_size(plan, &fr, &h, &w);
        return fr;
    }
    /* seq is the text: a VLM's image tokens (vlm_images.c) ride inside plan->seq */
    return f == VP_FIELD_BATCH ? plan->batch : f == VP_FIELD_SEQ ? plan->seq - plan->image_tokens : plan->new_tokens;
}

/* Every model of the plan takes images or video (ViTs, DiTs and the components of their pipelines). */
static int only_image_or_video(const vp_plan *plan) {
    for (int i = 0; i < plan->n_instances; i++)
        if (plan->inst[i].arch.kind != VP_KIND_VIT && plan->inst[i].arch.kind != VP_KIND_DIT) return 0;
    return 1;
}

static vp_status applies(const vp_plan *plan, vp_field f, vp_error *err) {
    if (f == VP_FIELD_NEW_TOKENS && plan->mode != VP_MODE_INFER)
        return vp_fail(err, VP_ERR_FIELD, "workload.new_tokens",
                       "workload.new_tokens is the number of generated tokens of an inference plan (workload.mode "
                       "\"infer\"); this plan trains: search batch or seq");
    if (f == VP_FIELD_NEW_TOKENS && only_image_or_video(plan))
        return vp_fail(err, VP_ERR_FIELD, "workload.new_tokens",
                       "no model of this plan generates tokens (image or video models, diffusion pipelines), so "
                       "workload.new_tokens does not change its memory: search batch");
    if (f == VP_FIELD_SEQ && only_image_or_video(plan))
        return vp_fail(err, VP_ERR_FIELD, "workload.seq",
                       "every model of this plan takes images or video (patch tokens from image_size and frames), "
                       "so workload.seq does not change its memory: search batch");
    if (f == VP_FIELD_FRAMES && !video_model(plan))
        return vp_fail(err, VP_ERR_FIELD, "workload.frames",
                       "no model of this plan takes video (a video DiT or a video VAE: CogVideoX, Wan, HunyuanVideo, "
                       "LTX-Video, Mochi), so workload.frames does not change its memory: search batch");
    if (f == VP_FIELD_FRAMES && !plan->height && plan->seq > 0 && vp_plan_dit(plan))
        return vp_fail(err, VP_ERR_FIELD, "workload.frames",
                       "this plan gives the DiT's tokens as workload.seq; give workload.frames, height and width "
                       "instead to search frames");
    return VP_OK;
}

/* The frames a search may try: the plan format's 10,000 and 2^36 pixels per step, down to a count the
 * pipeline takes (1 + k × the VAE's temporal compression). */
static int64_t frames_limit(const vp_plan *plan, char *why, size_t n) {
    const vp_arch *a = video_model(plan);
    int64_t fr, h, w;
    vp_pipeline_size(plan, &fr, &h, &w);
    int64_t lim = EDIT_MAX_FRAMES;
    snprintf(why, n, "workload.frames can be at most %lld in a plan", (long long)lim);
    double px = VP_MAX_VIDEO_PIXELS / ((double)plan->batch * (double)h * (double)w);
    if (px < (double)lim) {
        lim = (int64_t)px;
        snprintf(why, n, "batch × frames × height × width can be at most 2^36 pixels in a plan");
    }
    int64_t t = a->d.temporal;
    return lim < 1 ? 0 : (lim - 1) / t * t + 1;
}

vp_status vp_plan_field_limit(const vp_plan *plan, vp_field f, int64_t *limit, char *why, size_t n, vp_error *err) {
    if (plan->mode == VP_MODE_SERVE) /* a serve plan's limits are its answers (plan_serve.c) */
        return vp_fail(err, VP_ERR_FIELD, "workload.mode",
                       "a serve plan has no batch, seq or new_tokens: `vramplan estimate` answers its longest "
                       "max_model_len, fewest GPUs and -ngl");
    vp_status st = applies(plan, f, err);
    if (st) return st;
    if (f == VP_FIELD_FRAMES) {
        *limit = frames_limit(plan, why, n);
        return VP_OK;
    }
    const char *name = vp_field_name(f);
    int64_t lim = f == VP_FIELD_BATCH ? EDIT_MAX_BATCH : EDIT_MAX_TOKENS;
    snprintf(why, n, "workload.%s can be at most %lld in a plan", name, (long long)lim);
    /* tokens per step, the other two values fixed */
    int64_t others = f == VP_FIELD_BATCH ? plan->seq + plan->new_tokens + plan->dec_seq : 0;
    int64_t tok_lim = f == VP_FIELD_BATCH
                          ? EDIT_MAX_STEP_TOKENS / (others > 0 ? others : 1)
                          : EDIT_MAX_STEP_TOKENS / plan->batch - plan->dec_seq -
                                (f == VP_FIELD_SEQ ? plan->new_tokens : plan->seq);
    if (tok_lim < lim) {
        lim = tok_lim;
        snprintf(why, n, "batch × (seq + new_tokens + dec_seq) can be at most 2^32 tokens per step in a plan");
    }
    /* learned absolute positions (gpt2 n_positions): the prompt and the generated tokens share them */
    if (f != VP_FIELD_BATCH)
        for (int i = 0; i < plan->n_instances; i++) {
            const vp_instance *in = &plan->inst[i];
            int64_t pos = in->arch.positions;
            if (pos <= 0) continue;
            int64_t p_lim = f == VP_FIELD_SEQ ? pos - (plan->mode == VP_MODE_INFER ? plan->new_tokens : 0) : pos - plan->seq;
            if (p_lim < lim) {
                lim = p_lim;
                snprintf(why, n, "instance \"%s\" (%s) has %lld learned positions for %s", in->name, in->arch.model_type,
                         (long long)pos, plan->mode == VP_MODE_INFER ? "seq + new_tokens" : "seq");
            }
        }
    if (f == VP_FIELD_SEQ) lim -= plan->image_tokens; /* the text beside the images (vlm_images.c) */
    if (lim < 1) lim = 0; /* no value fits the limits (e.g. the prompt already fills the positions) */
    *limit = lim;
    return VP_OK;
}

/* frames = v at the size the plan runs at (given, or the pipeline's default: diffusion_workload.c) */
static vp_status set_frames(vp_plan *plan, int64_t v, vp_error *err) {
    if (!video_model(plan)) return applies(plan, VP_FIELD_FRAMES, err);
    if (v < 1 || v > EDIT_MAX_FRAMES)
        return vp_fail(err, VP_ERR_RANGE, "workload.frames", "workload.frames = %lld is out of range [1, %lld]", (long long)v,
                       EDIT_MAX_FRAMES);
    int64_t fr, h, w;
    vp_pipeline_size(plan, &fr, &h, &w);
    vp_status pst = vp_check_video_pixels((double)v * (double)h * (double)w * (double)plan->batch, err);
    if (pst) return pst;
    int64_t old = plan->frames;
    plan->frames = v;
    vp_status st = vp_plan_check_magnitudes(plan, err);
    if (st) {
        plan->frames = old;
        if (err) vp_strlcpy(err->path, "workload.frames", sizeof err->path);
    }
    return st;
}

vp_status vp_plan_field_set(vp_plan *plan, vp_field f, int64_t v, vp_error *err) {
    if (f == VP_FIELD_FRAMES) return set_frames(plan, v, err);
    char path[40];
    snprintf(path, sizeof path, "workload.%s", vp_field_name(f));
    int64_t lo = f == VP_FIELD_NEW_TOKENS ? 0 : 1, hi = f == VP_FIELD_BATCH ? EDIT_MAX_BATCH : EDIT_MAX_TOKENS;
    if (v < lo || v > hi)
        return vp_fail(err, VP_ERR_RANGE, path, "%s = %lld is out of range [%lld, %lld]", path, (long long)v, (long long)lo,
                       (long long)hi);
    int64_t *s = slot(plan, f), old = *s;
    *s = v + (f == VP_FIELD_SEQ ? plan->image_tokens : 0); /* text + a VLM's image tokens (vlm_images.c) */
    vp_status st = vp_plan_check_magnitudes(plan, err);
    if (st) {
        *s = old;
        if (err) vp_strlcpy(err->path, path, sizeof err->path);
    }
    return st;
}
