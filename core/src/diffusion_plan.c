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
 *   sequential offload, or Wan's generate.py (Wan-Video/Wan2.1), whose VAE decoder is flat (vp_diff_apply_code),
 *   "text_tokens": the prompt's tokens (vp_diff_apply_text_tokens), "offload_8bit": under "model", whether a
 *   bitsandbytes 8-bit component (instances[].quant "int8") is offloaded like the others (vp_diff_resident)}. */
#include <stdio.h>

#include "diffusers.h"
#include "plan.h"
#include "terms.h"
#include "util.h"

static const char *const k_offload[] = {"none", "model", "sequential", NULL};
static const char *const k_diffusers[] = {"current", "0.30", "0.32", NULL}; /* order of VP_DIFFUSERS_* */
static const char *const k_code[] = {"diffusers", "official", NULL}; /* order of VP_DIFF_CODE_* */

vp_status vp_check_video_pixels(double pixels, vp_error *err) {
    if (pixels > VP_MAX_VIDEO_PIXELS)
        return vp_fail(err, VP_ERR_RANGE, "workload.frames",
                       "workload: batch × frames × height × width is above 2^36 pixels; not a plannable job");
    return VP_OK;
}

vp_status vp_parse_diffusion_workload(const cJSON *w, vp_plan *plan, vp_error *err) {
    static const char *const dkeys[] = {"cfg",        "offload",    "vae_tiling", "vae_slicing",  "offload_empty_cache",
                                        "diffusers",  "precompute", "code",       "text_tokens", "offload_8bit", NULL};
    vp_status st;
    const char *p = "workload";
    plan->frames = plan->height = plan->width = 0;
    plan->diff.cfg = 1;
    plan->diff.offload = VP_DIFF_OFFLOAD_NONE;
    plan->diff.vae_tiling = plan->diff.vae_slicing = 0;
    plan->diff.offload_empty_cache = 1;
    plan->diff.offload_8bit = 0;
    plan->diff.diffusers = VP_DIFFUSERS_CURRENT;
    plan->diff.precompute = 0;
    plan->diff.code = VP_DIFF_CODE_DIFFUSERS;
    plan->diff.text_tokens = 0;
    if ((st = vp_json_opt_int(w, p, "frames", 1, VP_MAX_FRAMES, &plan->frames, err))) return st;
    if ((st = vp_json_opt_int(w, p, "height", 8, 16384, &plan->height, err))) return st;
    if ((st = vp_json_opt_int(w, p, "width", 8, 16384, &plan->width, err))) return st;
    if ((plan->height == 0) != (plan->width == 0))
        return vp_fail(err, VP_ERR_FIELD, plan->height ? "workload.width" : "workload.height",
                       "workload.height and workload.width go together");
    /* height and width without frames: the pipeline's default frame count for a video DiT, one frame for an image
     * model; frames without height and width: the pipeline's default size (diffusion_workload.c vp_diffusion_size);
     * what is not given stays 0 here, where the model is not known yet */
    /* the video tensor itself must stay far inside int64 and plannable sizes: 2^36 pixels (what is not given counted
     * at the largest default: LTX-Video's 161 frames, HunyuanVideo's 720 x 1280) */
    if ((plan->frames || plan->height) &&
        (st = vp_check_video_pixels((double)(plan->frames > 0 ? plan->frames : 161) * (double)(plan->height ? plan->height : 720) *
                                        (double)(plan->width ? plan->width : 1280) * (double)plan->batch,
                                    err)))
        return st;
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
    if ((st = vp_json_opt_int(d, dp, "text_tokens", 1, 4096, &plan->diff.text_tokens, err))) return st;
    if ((st = vp_json_opt_bool(d, dp, "offload_8bit", &plan->diff.offload_8bit, err))) return st;
    if (plan->diff.code == VP_DIFF_CODE_OFFICIAL && plan->mode != VP_MODE_INFER)
        return vp_fail(err, VP_ERR_FIELD, "workload.diffusion.code",
                       "workload.diffusion.code \"official\" is HunyuanVideo's or Wan's own inference script "
                       "(sample_video.py, generate.py); training with it is not modelled");
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
        /* the official code modelled is HunyuanVideo's, with its bf16 transformer under autocast, and Wan's, whose
         * transformer is diffusers' WanTransformer3DModel's shapes and whose VAE decoder is flat (vp_diff_apply_code) */
        if (plan->diff.code == VP_DIFF_CODE_OFFICIAL && a->dclass != VP_DC_WAN &&
            (a->dclass != VP_DC_HUNYUAN || vp_dtype_bytes(vp_act_dtype(&plan->inst[i])) != 2))
            return vp_fail(err, VP_ERR_FIELD, "workload.diffusion.code",
                           "workload.diffusion.code \"official\" models HunyuanVideo's own code (bf16 transformer under "
                           "autocast) and Wan's; instance \"%s\" is not that", plan->inst[i].name);
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

/* workload.diffusion.text_tokens: the prompt's length in tokens, the pipeline's `max_sequence_length` (pipeline_flux.py
 * 512, pipeline_hunyuan_video.py 256, pipeline_wan.py 512, pipeline_ltx.py 128, pipeline_mochi.py 256, pipeline_cogvideox.py
 * 226) or what a training script encodes (the FLUX QLoRA blog's compute_embeddings.py: 77). It replaces the transformer's
 * text tokens (joined to the video tokens in CogVideoX, HunyuanVideo, Mochi, FLUX and SD3; the cross-attention keys of Wan
 * and LTX-Video) and sets what the T5 / Llama / UMT5 encoder runs; SD3's sequence keeps its 77 CLIP tokens in front of
 * the T5 ones (pipeline_stable_diffusion_3.py), and CLIP encoders keep their 77. */
/* workload.diffusion.code "official" on a Wan 2.1 VAE: Wan's own wan/modules/vae.py (Wan-Video/Wan2.1 f1f7c88) builds
 * Decoder3d.upsamples as one flat nn.Sequential of ResidualBlocks and Resamples and runs `x = layer(x, ...)` over it,
 * so a level's input is dropped once its first resnet returns, where diffusers' WanUpBlock keeps it to the block's end
 * (vae_wan.c vp_vae_wan21_decode_units). */
void vp_diff_apply_code(const vp_plan *plan, vp_instance *in) {
    if (plan->diff.code == VP_DIFF_CODE_OFFICIAL && in->arch.dclass == VP_DC_VAE_WAN && !in->arch.d.vae_residual)
        in->arch.d.vae_flat = 1;
}

void vp_diff_apply_text_tokens(const vp_plan *plan, vp_instance *in) {
    if (plan->diff.text_tokens <= 0 || !VP_DC_IS_DIT(in->arch.dclass)) return;
    in->arch.d.text_len = in->arch.dclass == VP_DC_SD3 ? 77 + plan->diff.text_tokens : plan->diff.text_tokens;
}

int vp_diff_resident(const vp_plan *plan, const vp_instance *in) {
    if (in->group_offload != VP_GROUP_OFFLOAD_NONE) return 0; /* on the CPU but while it runs (vp_diff_group_share) */
    if (plan->diff.offload == VP_DIFF_OFFLOAD_NONE || !in->arch.dclass) return 1;
    /* enable_model_cpu_offload places no hook on a bitsandbytes 8-bit component, which from_pretrained loaded onto the
     * GPU: it stays there through the whole pipeline (diffusers pipeline_utils.py at 58eb52c0, lines 1264-1272, "Skipping
     * the hook placement ... as it is loaded in `bitsandbytes` 8bit", since b821f006 of Oct 2024, for transformers <
     * 4.58 or bitsandbytes < 0.48; the HF blog "State of open video generation models in Diffusers": "8Bit models in
     * bitsandbytes cannot be moved to CPU from GPU, unlike the 4Bit ones") */
    if (plan->diff.offload == VP_DIFF_OFFLOAD_MODEL && in->quant == VP_QUANT_INT8 && !plan->diff.offload_8bit) return 1;
    return plan->diff.code == VP_DIFF_CODE_OFFICIAL && plan->diff.offload == VP_DIFF_OFFLOAD_SEQUENTIAL &&
           in->arch.dclass == VP_DC_HUNYUAN;
}

/* instances[].group_offload: diffusers' group offloading of one component (src/diffusers/hooks/group_offloading.py at
 * 58eb52c0; `pipeline.transformer.enable_group_offload(...)` / `apply_group_offloading(module, ...)`):
 *   {"type": "leaf_level" | "block_level", "num_blocks_per_group": N (block_level, default 1), "use_stream": bool}.
 * The component lives on the CPU and only the running group's weights are on the GPU while it runs
 * (ModuleGroup.onload_ / offload_ around each group's forward); inference pipelines only. */
vp_status vp_parse_group_offload(const cJSON *o, const char *p, int mode, vp_instance *in, vp_error *err) {
    static const char *const keys[] = {"type", "num_blocks_per_group", "use_stream", NULL};
    static const char *const k_type[] = {"none", "leaf_level", "block_level", NULL}; /* order of VP_GROUP_OFFLOAD_* */
    char path[128];
    vp_status st;
    in->group_offload = VP_GROUP_OFFLOAD_NONE;
    in->group_blocks = 1;
    in->group_stream = 0;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "group_offload");
    if (!g || cJSON_IsNull(g)) return VP_OK;
    vp_path_key(path, sizeof path, p, "group_offload");
    if (!cJSON_IsObject(g)) return vp_fail(err, VP_ERR_FIELD, path, "%s must be an object", path);
    if ((st = vp_json_only_keys(g, path, keys, err))) return st;
    char tpath[160];
    vp_path_key(tpath, sizeof tpath, path, "type");
    if (!cJSON_GetObjectItemCaseSensitive(g, "type"))
        return vp_fail(err, VP_ERR_FIELD, tpath, "missing required field %s (\"leaf_level\" or \"block_level\")", tpath);
    if ((st = vp_json_opt_enum(g, path, "type", k_type, &in->group_offload, err))) return st;
    if ((st = vp_json_opt_int(g, path, "num_blocks_per_group", 1, 4096, &in->group_blocks, err))) return st;
    if ((st = vp_json_opt_bool(g, path, "use_stream", &in->group_stream, err))) return st;
    if (in->group_offload == VP_GROUP_OFFLOAD_NONE) return VP_OK;
    if (mode != VP_MODE_INFER)
        return vp_fail(err, VP_ERR_FIELD, path,
                       "%s: group offloading is modelled for diffusion inference pipelines (workload.mode \"infer\")", path);
    if (!in->arch.dclass)
        return vp_fail(err, VP_ERR_FIELD, path,
                       "%s: group offloading is modelled for the components of a diffusion pipeline (a DiT, a VAE, a text "
                       "encoder)", path);
    /* _apply_group_offloading_block_level: "Using streams is only supported for num_blocks_per_group=1" (it warns
     * and sets 1) */
    if (in->group_offload == VP_GROUP_OFFLOAD_BLOCK && in->group_stream) in->group_blocks = 1;
    return VP_OK;
}

/* instances[].autocast (default false): accelerate's Accelerator.prepare wraps the model's forward in
 * torch.autocast when mixed_precision is "bf16" / "fp16" (accelerator.py prepare_model: model.forward =
 * convert_outputs_to_fp32(autocast_context(model.forward))), whatever dtype the weights are in; diffusers' and
 * finetrainers' training scripts load the transformer in bf16 and prepare it that way (finetrainers trainer.py at
 * 0db7bf2 line 513, the legacy cogvideox scripts' --mixed_precision bf16). Only a training DiT with 16-bit weights
 * ("bf16" / "fp16": amp_* already means fp32 weights under autocast). */
vp_status vp_parse_dit_autocast(const cJSON *o, const char *p, int mode, vp_instance *in, vp_error *err) {
    vp_status st;
    in->autocast16 = 0;
    if ((st = vp_json_opt_bool(o, p, "autocast", &in->autocast16, err))) return st;
    if (!in->autocast16) return VP_OK;
    char path[128];
    vp_path_key(path, sizeof path, p, "autocast");
    if (mode != VP_MODE_TRAIN || !VP_DC_IS_DIT(in->arch.dclass))
        return vp_fail(err, VP_ERR_FIELD, path,
                       "%s: autocast over 16-bit weights is modelled for training diffusion transformers", path);
    if (in->precision != VP_PREC_BF16 && in->precision != VP_PREC_FP16)
        return vp_fail(err, VP_ERR_FIELD, path,
                       "%s: needs precision \"bf16\" or \"fp16\" (16-bit weights); amp_bf16 / amp_fp16 already run fp32 "
                       "weights under autocast", path);
    return VP_OK;
}

vp_status vp_group_offload_check(const vp_plan *plan, const vp_instance *in, const char *p, vp_error *err) {
    if (in->group_offload == VP_GROUP_OFFLOAD_NONE) return VP_OK;
    char path[128];
    if (plan->diff.offload != VP_DIFF_OFFLOAD_NONE) {
        vp_path_key(path, sizeof path, p, "group_offload");
        return vp_fail(err, VP_ERR_FIELD, path,
                       "%s: diffusers refuses enable_model_cpu_offload / enable_sequential_cpu_offload on a pipeline with a "
                       "group-offloaded component (pipeline_utils.py _maybe_raise_error_if_group_offload_active); set "
                       "workload.diffusion.offload to \"none\" or drop the group offloading", path);
    }
    if (in->after_use != VP_AFTER_USE_STAY) {
        vp_path_key(path, sizeof path, p, "after_use");
        return vp_fail(err, VP_ERR_FIELD, path,
                       "%s: a group-offloaded component is already back on the CPU when its phase is over; leave after_use "
                       "out", path);
    }
    return VP_OK;
}

/* What of a group-offloaded component is on the GPU while it runs, as a share of its parameters:
 *   leaf_level (_apply_group_offloading_leaf_level): one group per Conv / Linear leaf (and the parameters of each
 *     other module with its module), onloaded at that module's forward and offloaded after it: the largest leaf;
 *     with use_stream the LazyPrefetchGroupOffloadingHook onloads the next group while one runs, so two;
 *   block_level (_apply_group_offloading_block_level): groups of num_blocks_per_group blocks of each top-level
 *     ModuleList (a DiT's transformer_blocks, a LlamaModel's layers), plus one group of every other top-level module
 *     and parameter, onloaded for the whole forward (the "unmatched" group: embeddings, norm_out, proj_out); with
 *     use_stream one block per group and the next group prefetched. A model with no ModuleList among its top-level
 *     children (T5EncoderModel / UMT5EncoderModel: shared, encoder; CLIPTextModel: text_model; the VAEs: encoder,
 *     decoder) is a single unmatched group: all of it is on the GPU while it runs, and none of it after. */
double vp_diff_group_share(const vp_instance *in, char *why, size_t n) {
    const vp_arch *a = &in->arch;
    double params = (double)a->d.params;
    if (in->group_offload == VP_GROUP_OFFLOAD_NONE || params <= 0) return 1.0;
    double share = 1.0;
    int w = 0;
    if (in->group_offload == VP_GROUP_OFFLOAD_LEAF) {
        double k = in->group_stream ? 2.0 : 1.0;
        share = k * (double)a->d.largest_tensor / params;
        w = snprintf(why, n, "group offloading, leaf_level: the running Linear / Conv leaf%s (the largest %lld parameters)",
                     in->group_stream ? " and the next one (use_stream prefetch)" : "", (long long)a->d.largest_tensor);
    } else {
        int listed = VP_DC_IS_DIT(a->dclass) || a->dclass == VP_DC_LLAMA_ENC;
        int64_t blocks = VP_DC_IS_DIT(a->dclass) ? a->layers + a->d.blocks2 : a->layers;
        if (listed && blocks > 0 && a->d.blocks_total > 0) {
            int64_t k = in->group_stream ? 2 : (in->group_blocks < blocks ? in->group_blocks : blocks);
            double rest = params - (double)a->d.blocks_total;
            share = (rest + (double)k * (double)a->d.blocks_total / (double)blocks) / params;
            w = snprintf(why, n, "group offloading, block_level: %lld of %lld blocks%s and the modules outside the block list",
                         (long long)k, (long long)blocks, in->group_stream ? " (one group and the prefetched next)" : "");
        } else {
            w = snprintf(why, n, "group offloading, block_level: no block list among its top-level modules, so the "
                                 "whole model is one group, on the GPU while it runs");
        }
    }
    if (w < 0 && n) why[0] = '\0';
    return share < 1.0 ? share : 1.0;
}
