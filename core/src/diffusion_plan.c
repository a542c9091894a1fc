/* diffusion_plan.c: the workload fields of a diffusion job (docs/schema/plan.md):
 *   "frames", "height", "width": the video (or image: frames 1) in pixels, which replace a hand-computed
 *   "seq" for DiT transformers (diffusion_workload.c turns them into tokens);
 *   "diffusion": {"cfg": classifier-free guidance (default true), "offload": "none" | "model"
 *   (pipe.enable_model_cpu_offload()) | "sequential" (pipe.enable_sequential_cpu_offload()),
 *   "vae_tiling": pipe.vae.enable_tiling(), "vae_slicing": pipe.vae.enable_slicing(),
 *   "offload_empty_cache": under "model", whether the hook that offloads the previous component empties the
 *   allocator cache (accelerate >= 0.34, hooks.py CpuOffload.pre_forward clear_device_cache(); default true;
 *   false for accelerate <= 0.33), "diffusers": "current" (default) | "0.30" | "0.32", the release whose code ran
 *   (vae.c: v0.30.1-v0.30.3 kept the causal conv caches as module attributes; diffusion_workload.c: v0.32.0-v0.32.1
 *   gave HunyuanVideo's attention a (B, N, N) bool mask), "precompute": training only,
 *   the text encoders and VAEs run once before training and are freed into the allocator's cache, as
 *   finetrainers' prepare_precomputations does (precompute.c), "code": "diffusers" (default) | "official", the
 *   model's own repository code instead of diffusers' pipeline: HunyuanVideo's sample_video.py (Tencent/HunyuanVideo
 *   at e965abb), whose transformer step is events_hunyuan.c and whose transformer stays on the GPU under
 *   sequential offload}. */
#include "diffusers.h"
#include "plan.h"
#include "terms.h"
#include "util.h"

static const char *const k_offload[] = {"none", "model", "sequential", NULL};
static const char *const k_diffusers[] = {"current", "0.30", "0.32", NULL}; /* order of VP_DIFFUSERS_* */
static const char *const k_code[] = {"diffusers", "official", NULL}; /* order of VP_DIFF_CODE_* */

vp_status vp_parse_diffusion_workload(const cJSON *w, vp_plan *plan, vp_error *err) {
    static const char *const dkeys[] = {"cfg", "offload", "vae_tiling", "vae_slicing", "offload_empty_cache", "diffusers", "precompute", "code", NULL};
    vp_status st;
    const char *p = "workload";
    plan->frames = plan->height = plan->width = 0;
    plan->diff.cfg = 1;
    plan->diff.offload = VP_DIFF_OFFLOAD_NONE;
    plan->diff.vae_tiling = plan->diff.vae_slicing = 0;
    plan->diff.offload_empty_cache = 1;
    plan->diff.diffusers = VP_DIFFUSERS_CURRENT;
    plan->diff.precompute = 0;
    plan->diff.code = VP_DIFF_CODE_DIFFUSERS;
    if ((st = vp_json_opt_int(w, p, "frames", 1, 10000, &plan->frames, err))) return st;
    if ((st = vp_json_opt_int(w, p, "height", 8, 16384, &plan->height, err))) return st;
    if ((st = vp_json_opt_int(w, p, "width", 8, 16384, &plan->width, err))) return st;
    if ((plan->height == 0) != (plan->width == 0))
        return vp_fail(err, VP_ERR_FIELD, plan->height ? "workload.width" : "workload.height",
                       "workload.height and workload.width go together");
    if (plan->frames && !plan->height)
        return vp_fail(err, VP_ERR_FIELD, "workload.height", "workload.frames needs workload.height and workload.width");
    if (plan->height && !plan->frames) plan->frames = 1; /* an image */
    /* the video tensor itself must stay far inside int64 and plannable sizes: 2^36 pixels */
    if ((double)plan->frames * (double)plan->height * (double)plan->width * (double)plan->batch > 68719476736.0)
        return vp_fail(err, VP_ERR_RANGE, "workload.frames",
                       "workload: batch × frames × height × width is above 2^36 pixels; not a plannable job");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(w, "diffusion");
    if (!d) return VP_OK;
    const char *dp = "workload.diffusion";
    if (!cJSON_IsObject(d)) return vp_fail(err, VP_ERR_FIELD, dp, "%s must be an object", dp);
    if ((st = vp_json_only_keys(d, dp, dkeys, err))) return st;
    if ((st = vp_json_opt_bool(d, dp, "cfg", &plan->diff.cfg, err))) return st;
    if ((st = vp_json_opt_enum(d, dp, "offload", k_offload, &plan->diff.offload, err))) return st;
    if ((st = vp_json_opt_bool(d, dp, "vae_tiling", &plan->diff.vae_tiling, err))) return st;
    if ((st = vp_json_opt_bool(d, dp, "vae_slicing", &plan->diff.vae_slicing, err))) return st;
    if ((st = vp_json_opt_bool(d, dp, "offload_empty_cache", &plan->diff.offload_empty_cache, err))) return st;
    if ((st = vp_json_opt_enum(d, dp, "diffusers", k_diffusers, &plan->diff.diffusers, err))) return st;
    if ((st = vp_json_opt_bool(d, dp, "precompute", &plan->diff.precompute, err))) return st;
    if ((st = vp_json_opt_enum(d, dp, "code", k_code, &plan->diff.code, err))) return st;
    if (plan->diff.code == VP_DIFF_CODE_OFFICIAL && plan->mode != VP_MODE_INFER)
        return vp_fail(err, VP_ERR_FIELD, "workload.diffusion.code",
                       "workload.diffusion.code \"official\" is HunyuanVideo's own inference script (sample_video.py); "
                       "training with it is not modelled");
    if (plan->diff.precompute && plan->mode != VP_MODE_TRAIN)
        return vp_fail(err, VP_ERR_FIELD, "workload.diffusion.precompute",
                       "workload.diffusion.precompute is a training setup (conditions and latents computed before training)");
    return VP_OK;
}

/* Sizes can each be in range while the tokens they give are absurd; refuse a diffusion workload whose
 * activations (with an s² attention term, were it eager) no machine could hold, so that every later
 * product stays far inside int64 (bounds computed in floating point, as vp_plan_check_magnitudes). */
vp_status vp_diffusion_check_magnitudes(const vp_plan *plan, vp_error *err) {
    for (int i = 0; i < plan->n_instances; i++) {
        const vp_arch *a = &plan->inst[i].arch;
        if (!VP_DC_IS_DIT(a->dclass)) continue;
        /* the official code modelled is HunyuanVideo's, with its bf16 transformer under autocast */
        if (plan->diff.code == VP_DIFF_CODE_OFFICIAL &&
            (a->dclass != VP_DC_HUNYUAN || vp_dtype_bytes(vp_act_dtype(&plan->inst[i])) != 2))
            return vp_fail(err, VP_ERR_FIELD, "workload.diffusion.code",
                           "workload.diffusion.code \"official\" models HunyuanVideo's own code (bf16 transformer under "
                           "autocast); instance \"%s\" is not that", plan->inst[i].name);
        double T = (double)vp_dit_plan_tokens(plan, a) * (double)plan->batch * 2.0;
        double L = (double)(a->layers + a->d.blocks2) * 4.0; /* passes */
        double per = 64.0 * (double)a->hidden + 16.0 * (double)a->inter + 16.0 * (double)a->heads * T;
        if (T * per * L > 2.3e18)
            return vp_fail(err, VP_ERR_RANGE, "workload.frames",
                           "workload: %.3g tokens through instance \"%s\" would need about %.3g bytes; not a plannable job", T,
                           plan->inst[i].name, T * per * L);
    }
    return VP_OK;
}

int vp_diff_resident(const vp_plan *plan, const vp_instance *in) {
    if (plan->diff.offload == VP_DIFF_OFFLOAD_NONE || !in->arch.dclass) return 1;
    return plan->diff.code == VP_DIFF_CODE_OFFICIAL && plan->diff.offload == VP_DIFF_OFFLOAD_SEQUENTIAL &&
           VP_DC_IS_DIT(in->arch.dclass);
}
