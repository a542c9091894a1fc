/* diffusers.h: diffusion pipelines' components read from diffusers (and transformers) config.json
 * files: the DiT transformers, the VAEs and the text encoders (diffusers_config.c dispatches on
 * `_class_name`; dit_params.c, vae.c, text_encoder.c count each class's modules), a pipeline's
 * model_index.json, and the workload terms of a diffusion job (diffusion_workload.c). */
#ifndef VP_DIFFUSERS_H
#define VP_DIFFUSERS_H

#include "arch.h"
#include "plan.h"

typedef enum {
    VP_DC_NONE = 0,
    /* transformers */
    VP_DC_COGVIDEOX, VP_DC_WAN, VP_DC_HUNYUAN, VP_DC_LTX, VP_DC_MOCHI, VP_DC_FLUX, VP_DC_SD3,
    /* VAEs */
    VP_DC_VAE_COGVIDEOX, VP_DC_VAE_WAN, VP_DC_VAE_HUNYUAN, VP_DC_VAE_LTX, VP_DC_VAE_MOCHI, VP_DC_VAE_KL,
    /* text encoders, and the image encoder of image-to-video pipelines (run in the same phase, before the steps) */
    VP_DC_T5_ENC, VP_DC_UMT5_ENC, VP_DC_CLIP_TEXT, VP_DC_LLAMA_ENC, VP_DC_CLIP_VISION
} vp_dclass;

#define VP_DC_IS_DIT(c) ((c) >= VP_DC_COGVIDEOX && (c) <= VP_DC_SD3)
#define VP_DC_IS_VAE(c) ((c) >= VP_DC_VAE_COGVIDEOX && (c) <= VP_DC_VAE_KL)
#define VP_DC_IS_TEXT(c) ((c) >= VP_DC_T5_ENC && (c) <= VP_DC_CLIP_VISION)

struct cJSON;
/* Is this config.json a diffusion-pipeline component this file reads (a diffusers `_class_name`, or a
 * text encoder: T5EncoderModel, UMT5EncoderModel, CLIPTextModel[WithProjection], LlamaModel)? */
int vp_diffusers_is_component(const struct cJSON *cfg);
/* Read it into arch (kind VP_KIND_DIT, dclass set, exact parameter groups in arch->d). */
vp_status vp_arch_from_diffusers(const struct cJSON *cfg, const char *path, vp_arch *a, vp_error *err);
/* The parameter groups of a component (the hook in params.c). */
void vp_diffusers_counts(const vp_arch *a, vp_param_counts *c);

/* Per class (dit_params.c, vae.c, text_encoder.c). */
vp_status vp_dit_parse(const struct cJSON *c, const char *p, int dclass, vp_arch *a, vp_error *err);
vp_status vp_vae_parse(const struct cJSON *c, const char *p, int dclass, vp_arch *a, vp_error *err);
vp_status vp_vae_ltx_parse(const struct cJSON *c, const char *p, vp_arch *a, vp_error *err);   /* vae_ltx.c */
vp_status vp_vae_mochi_parse(const struct cJSON *c, const char *p, vp_arch *a, vp_error *err); /* vae_mochi.c */
vp_status vp_vae_wan_parse(const struct cJSON *c, const char *p, vp_arch *a, vp_error *err);   /* vae_wan.c */
/* the pixels one VAE call covers: the frame, or one tile of it with tiling (vae_config.c) */
void vp_vae_tile(const vp_arch *a, int64_t h, int64_t w, int tiling, int64_t *th, int64_t *tw);
/* the Wan decoder's channels: dd[0] the mid block's, dd[i + 1] up block i's output (vae_wan.c) */
void vp_vae_wan_dec_dims(const vp_arch *a, int64_t *dd);
/* Wan 2.1's decode peak in channel × pixel-frame units of one th × tw tile: the last call's px frames (multi: not
 * the first call, so the causal cache is concatenated) (vae_wan.c) */
double vp_vae_wan21_decode_units(const vp_arch *a, int64_t px, int multi, double th, double tw);
/* the Wan 2.1 encode's peak in elements of one tile (vae_wan.c); *weights: the running conv's weight copy */
double vp_vae_wan21_encode_units(const vp_arch *a, int64_t frames, double th, double tw, double *weights);
/* A list field of a VAE config (vae_config.c): up to max integers in lo..hi (boolean: true/false as 1/0) into out,
 * their number into *n; absent or null leaves both unchanged. */
vp_status vp_vae_list(const struct cJSON *c, const char *p, const char *key, int boolean, int64_t lo, int64_t hi,
                      int64_t *out, int max, int *n, vp_error *err);
/* a list of names, each one of `allowed` (its index into out); absent or null: the defaults stay (vae_config.c) */
vp_status vp_vae_names(const struct cJSON *c, const char *p, const char *key, const char *const *allowed, int n_allowed,
                       int *out, int max, int *n, vp_error *err);
vp_status vp_text_encoder_parse(const struct cJSON *c, const char *p, int dclass, vp_arch *a, vp_error *err);

/* A pipeline's model_index.json: its class and, per component, the class it names. */
typedef struct {
    char pipeline[48];
    int n;
    struct {
        char name[24];   /* "transformer", "text_encoder", "text_encoder_2", "vae", ... */
        char library[16];
        char cls[48];
    } comp[8];
} vp_model_index;
vp_status vp_model_index_read(const struct cJSON *mi, const char *path, vp_model_index *out, vp_error *err);

/* ---- workload (diffusion_workload.c) ---- */
/* Latent frames, and tokens per sample through the transformer for frames × height × width pixels
 * (frames 1 for images); text tokens are included when they join the attention sequence. */
int64_t vp_dit_latent_frames(const vp_arch *a, int64_t frames);
int64_t vp_dit_video_tokens(const vp_arch *a, int64_t frames, int64_t height, int64_t width);
int64_t vp_dit_seq_tokens(const vp_arch *a, int64_t frames, int64_t height, int64_t width);
/* Batch the transformer sees per denoising call: × 2 when classifier-free guidance concatenates the
 * conditional and unconditional inputs (CogVideoX, SD3, LTX, Mochi pipelines). */
int64_t vp_dit_cfg_batch(const vp_arch *a, int64_t batch, int cfg);
/* The pipeline's default frames × height × width; the plan's size (or that default); tokens per sample
 * through the transformer for a plan (workload.seq when given without a size). */
struct vp_plan;
void vp_dit_default_size(const vp_arch *a, int64_t *f, int64_t *h, int64_t *w);
/* bytes per token the int8 matmul of a bitsandbytes 8-bit DiT holds over a 16-bit one, at its widest Linear */
double vp_dit_int8_matmul_per_token(const vp_arch *a);
/* the frames the pipeline runs for a requested count (Wan rounds to 1 + 4k, the others decode 1 + t × (latent - 1)) */
int64_t vp_dit_run_frames(const vp_arch *a, int64_t frames);
void vp_diffusion_size(const struct vp_plan *plan, const vp_arch *a, int64_t *f, int64_t *h, int64_t *w);
/* the plan's first diffusion transformer (DiT) instance, NULL when it has none */
const vp_instance *vp_plan_dit(const struct vp_plan *plan);
/* The size every component of a pipeline runs at: its (first) DiT's, vp_diffusion_size; without a DiT (a VAE or a
 * text encoder alone) the plan's, one 512 x 512 frame for what it does not give. */
void vp_pipeline_size(const struct vp_plan *plan, int64_t *f, int64_t *h, int64_t *w);
int64_t vp_dit_plan_tokens(const struct vp_plan *plan, const vp_arch *a);

/* VAE decode / encode peak (bytes above the weights) for frames × height × width pixels, from the
 * conv stack at its largest level; tiling and slicing as diffusers runs them (vae.c). */
typedef struct {
    double bytes;       /* peak of temporaries */
    double out_bytes;   /* the decoded video / image itself */
    int64_t chunk_frames; /* pixel frames one decoder call holds */
    int64_t tile_h, tile_w; /* pixels of one tile (= full size without tiling) */
    int level;          /* decoder level where the peak sits (0 = full resolution) */
    double tensor_bytes; /* one feature map at the peak (the size of the temporaries; 0: not given) */
    char where[96];
} vp_vae_peak;
/* workload.diffusion.diffusers: "current" (commit 58eb52c0), "0.30" (v0.30.1-v0.30.3 and main from PR #9150,
 * Aug 2024: module-attribute conv caches, an F.pad copy per causal conv) or "0.32" (v0.32.0-v0.32.1 and main from
 * PR #10136, 16 Dec 2024, to PR #10548, 14 Jan 2025: HunyuanVideo's (B, N, N) attention mask; the VAE decodes
 * are today's) */
enum { VP_DIFFUSERS_CURRENT = 0, VP_DIFFUSERS_0_30, VP_DIFFUSERS_0_32 };
/* The plan's bounds on a diffusion workload (diffusion_plan.c, which plan_edit.c's searches keep to): workload.frames in
 * [1, VP_MAX_FRAMES], and batch × frames × height × width at most VP_MAX_VIDEO_PIXELS (2^36), so the video tensor stays
 * far inside int64 and plannable sizes. vp_check_video_pixels fails on more, naming workload.frames. */
#define VP_MAX_FRAMES 10000
#define VP_MAX_VIDEO_PIXELS 68719476736.0
vp_status vp_check_video_pixels(double pixels, vp_error *err);
/* instances[].group_offload: {"type": "leaf_level" | "block_level", "num_blocks_per_group": N, "use_stream": bool},
 * diffusers' group offloading of one pipeline component (inference only; diffusion_plan.c). */
vp_status vp_parse_group_offload(const struct cJSON *o, const char *p, int mode, vp_instance *in, vp_error *err);
/* instances[].autocast: a DiT whose 16-bit weights train under torch.autocast, as accelerate runs a model prepared
 * with mixed_precision "bf16" / "fp16" (diffusion_plan.c; the activations it changes: activations_dit.c). */
vp_status vp_parse_dit_autocast(const struct cJSON *o, const char *p, int mode, vp_instance *in, vp_error *err);
/* What diffusers refuses with group offloading: a pipeline-wide model / sequential CPU offload (pipeline_utils.py
 * _maybe_raise_error_if_group_offload_active), and after_use on the same component (diffusion_plan.c). */
vp_status vp_group_offload_check(const vp_plan *plan, const vp_instance *in, const char *p, vp_error *err);
/* workload.diffusion.text_tokens onto a DiT instance's text length (diffusion_plan.c) */
void vp_diff_apply_text_tokens(const vp_plan *plan, vp_instance *in);
/* workload.diffusion.code "official" on the instance's arch (diffusion_plan.c: Wan's flat VAE decoder) */
void vp_diff_apply_code(const vp_plan *plan, vp_instance *in);
/* The share of a group-offloaded component's parameters on the GPU while it runs (0..1), and a line saying which
 * (diffusion_plan.c). */
double vp_diff_group_share(const vp_instance *in, char *why, size_t n);
/* Bytes per token of the (batch, N, N) bool attention mask diffusers 0.32's HunyuanVideoTransformer3DModel
 * builds over its N joint tokens and hands every block's SDPA (0 for every other model, version and code;
 * diffusion_workload.c). */
double vp_dit_dense_mask_per_token(const struct vp_plan *plan, const vp_arch *a);
/* version: VP_DIFFUSERS_*, the diffusers release whose decode code runs */
void vp_vae_decode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                        int tiling, int slicing, int version, vp_vae_peak *out);
void vp_vae_encode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                        int tiling, int slicing, vp_vae_peak *out);
/* the same for AutoencoderKLLTXVideo (vae_ltx.c) and AutoencoderKLMochi (vae_mochi.c), which vp_vae_*_peak call */
void vp_vae_ltx_decode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                            int tiling, int slicing, vp_vae_peak *out);
void vp_vae_ltx_encode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                            int tiling, int slicing, vp_vae_peak *out);
void vp_vae_mochi_decode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width,
                              double elem, int tiling, int slicing, vp_vae_peak *out);
void vp_vae_mochi_encode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width,
                              double elem, int tiling, int slicing, vp_vae_peak *out);
/* the Wan 2.2 VAE's (is_residual; vae_wan.c) */
void vp_vae_wan22_decode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                              int tiling, int slicing, vp_vae_peak *out);
void vp_vae_wan22_encode_peak(const vp_arch *a, int64_t batch, int64_t frames, int64_t height, int64_t width, double elem,
                              int tiling, int slicing, vp_vae_peak *out);

#endif
