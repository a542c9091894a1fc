/* test_diffusion_published.c: the published memory figures of diffusion and video models as the estimate scores
 * them (docs/diffusion.md "Published figures"; scripts/diffusion-figures.py prints them as a table).
 * Group diffusion_published: the figures within 10% and the fits claims; diffusion_published_bugs (an expected
 * failure): the figures the model does not reach yet, each with what was checked. */
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "t_diffusion_plans.h"
#include "vp_test.h"

/* ---- published memory figures (README "Diffusion pipelines" lists each with its source and kind) ----
 * kind: "reserved" = torch.cuda.max_memory_reserved, "allocated" = max_memory_allocated, "smi" = what nvidia-smi
 * shows (reserved + CUDA context). Units as published: GiB where the source divides by 1024³. */
typedef struct {
    const char *what, *workload, *instances, *kind;
    double published_gib;
    int fits_24gb, fits_80gb; /* the claims the figure supports: 1 fits, 0 does not, -1 not claimed */
} published;

static double predicted(const published *p, const char *gpu) {
    const vp_estimate *e = t_estimate(t_plan(p->workload, p->instances, t_fmt("{\"gpu\":\"%s\",\"count\":1}", gpu)));
    const vp_device *d = &e->devices[0];
    double b = !strcmp(p->kind, "allocated") ? (double)d->peak_alloc_bytes
               : !strcmp(p->kind, "reserved") ? (double)d->peak_reserved_bytes : (double)d->nvidia_smi_bytes;
    return b / 1073741824.0;
}

static void check_published(const published *ps, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const published *p = &ps[i];
        double got = predicted(p, "h100-sxm-80gb");
        print_message("%-70s published %6.2f GiB predicted %6.2f GiB (%+.1f%%)\n", p->what, p->published_gib, got,
                      100.0 * (got / p->published_gib - 1.0));
        if (got < 0.9 * p->published_gib || got > 1.1 * p->published_gib) bad++;
        if (p->fits_24gb >= 0) {
            const vp_estimate *e = t_estimate(t_plan(p->workload, p->instances, "{\"gpu\":\"rtx-4090\",\"count\":1}"));
            if (e->fits != p->fits_24gb) bad++, print_message("  24 GB claim not reproduced\n");
        }
        if (p->fits_80gb >= 0) {
            const vp_estimate *e = t_estimate(t_plan(p->workload, p->instances, "{\"gpu\":\"h100-sxm-80gb\",\"count\":1}"));
            if (e->fits != p->fits_80gb) bad++, print_message("  80 GB claim not reproduced\n");
        }
    }
    assert_int_equal(bad, 0);
}

/* SD3's three text encoders alone, as diffusers' SD3 LoRA Colab project computes its embeddings
 * (examples/research_projects/sd3_lora_colab, 600ef8a4, 3 Jul 2024: compute_embeddings.py loads
 * stable-diffusion-3-medium-diffusers' CLIP-L, CLIP-G and T5-XXL, the same encoders as SD3.5's, with transformer and VAE
 * None, encodes at max_sequence_length 77 and prints torch.cuda.max_memory_allocated() / 1024**3 as "GB"). */
#define SD3_TE(clip, t5, t5_extra)                                                                                            \
    REF("text_encoder", "sd3.5-large/text_encoder", clip, "") "," REF("text_encoder_2", "sd3.5-large/text_encoder_2", clip, \
                                                                      "") "," REF("text_encoder_3", "sd3.5-large/text_encoder_3", t5, t5_extra)
#define SD3_TE_WL "{\"mode\":\"infer\",\"batch\":1,\"height\":1024,\"width\":1024,\"diffusion\":{\"text_tokens\":77}}"

/* The HF blog "State of open video generation models in Diffusers" (huggingface/blog video_gen.md, 27 Jan 2025): bf16
 * pipelines on an 80 GB A100, num_frames 121 at 512 x 768, max_sequence_length 128, 50 steps, "Memory (GB)"; read as
 * max_memory_allocated in GiB, as its authors' scripts print it (the gist is not public here): every row the model
 * reaches agrees within 3% read so, and CogVideoX1.5-5B's reserved memory would be 25% above. diffusers of January 2025:
 * HunyuanVideo's mask already (B, 1, 1, N) (PR #10548; the 0.32 N x N mask puts the tiled rows 15-34% over). "8Bit" /
 * "4Bit": the transformer in bitsandbytes int8 / NF4; "CPU offloading": enable_model_cpu_offload, which leaves an 8-bit
 * component on the GPU (diffusion_plan.c vp_diff_resident; the blog: "8Bit models in bitsandbytes cannot be moved to
 * CPU from GPU, unlike the 4Bit ones"). */
/* The HF blog "Exploring Quantization Backends in Diffusers" (huggingface/blog diffusers-quantization.md): FLUX.1-dev with
 * the transformer and T5 (text_encoder_2) in bitsandbytes NF4 / int8 or left bf16, pipe.to("cuda"), 1024 x 1024,
 * max_sequence_length 512, 50 steps, one H100; its script prints torch.cuda.max_memory_reserved() / 1024**3 after loading
 * and after the call ("Memory after loading", "Peak memory"). */
#define FLUXQ(q)                                                                                                            \
    REF("transformer", "flux.1-dev", "bf16", q) "," REF("text_encoder", "flux.1-dev/text_encoder", "bf16", "") "," \
    REF("text_encoder_2", "flux.1-dev/text_encoder_2", "bf16", q) "," REF("vae", "flux.1-dev/vae", "bf16", "")
#define FLUXQ_WL "{\"mode\":\"infer\",\"batch\":1,\"height\":1024,\"width\":1024}"
#define BLOG_WL(extra) "{\"mode\":\"infer\",\"batch\":1,\"frames\":121,\"height\":512,\"width\":768,\"diffusion\":{\"text_tokens\":128" extra "}}"
#define BLOG_HY(quant) \
    REF("transformer", "hunyuanvideo", "bf16", quant) "," REF("text_encoder", "hunyuanvideo/text_encoder", "bf16", "") "," \
    REF("text_encoder_2", "hunyuanvideo/text_encoder_2", "bf16", "") "," REF("vae", "hunyuanvideo/vae", "bf16", "")
#define INT8 ",\"quant\":\"int8\""
#define NF4 ",\"quant\":\"nf4\""
#define OFFLOAD ",\"offload\":\"model\""
#define TILING ",\"vae_tiling\":true"

/* The quantization blog's "Memory after loading" (FLUXQ): the weights alone, the load phase of the estimate. BF16:
 * 11.90B + 123M + 4.76B + 84M params × 2 B = 31.455 GiB (31.447 published); NF4: the transformer's and T5's block
 * Linears in 4 bits with their constants, T5's wo in fp32 (bitsandbytes keeps _keep_in_fp32_modules: weights.c), the
 * rest bf16: 12.63 (12.584); int8 the same in 1 B: 18.95 (19.273). Before wo was kept fp32 the NF4 and int8 loads were
 * 3.3 GiB lower (-26% / -17%). */
static void flux_quantization_load(void **s) {
    (void)s;
    const struct {
        const char *what, *quant;
        double published_gib;
    } rows[] = {{"BF16", "", 31.447}, {"bitsandbytes NF4", ",\"quant\":\"nf4\"", 12.584}, {"bitsandbytes int8", ",\"quant\":\"int8\"", 19.273}};
    int bad = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const vp_estimate *e = t_estimate(t_plan(FLUXQ_WL, t_fmt(FLUXQ("%s"), rows[i].quant, rows[i].quant), "{\"gpu\":\"h100-sxm-80gb\",\"count\":1}"));
        double got = -1;
        for (int k = 0; k < e->devices[0].n_phases; k++)
            if (!strcmp(e->devices[0].phases[k].name, "load")) got = (double)e->devices[0].phases[k].alloc_bytes / 1073741824.0;
        print_message("FLUX.1-dev %-18s after loading: published %.3f GiB predicted %.3f GiB (%+.1f%%)\n", rows[i].what,
                      rows[i].published_gib, got, 100.0 * (got / rows[i].published_gib - 1.0));
        if (got < 0.97 * rows[i].published_gib || got > 1.03 * rows[i].published_gib) bad++;
    }
    assert_int_equal(bad, 0);
}

static void published_within_10(void **s) {
    (void)s;
    const published ps[] = {
        /* diffusers docs api/pipelines/hunyuan_video.md (c9347206, 2 Jun 2025): "The quantized HunyuanVideo model below
         * requires ~14GB of VRAM": hunyuanvideo-community/HunyuanVideo in bf16 with the transformer in bitsandbytes NF4
         * (PipelineQuantizationConfig), enable_model_cpu_offload, vae.enable_tiling, num_frames 61 at the default 720 x
         * 1280, 30 steps. Read as max_memory_allocated GiB (the docs' convention). The peak is the text encoders' phase:
         * the bf16 Llama-3-8B encoder (7.5B params, 13.98 GiB) beside nothing else: 14.04 GiB (+0.3%); the NF4
         * transformer's step is 13.54 */
        {"HunyuanVideo NF4 transformer + model offload + VAE tiling 61x720x1280 (diffusers docs: ~14 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":61,\"height\":720,\"width\":1280,\"diffusion\":{\"offload\":\"model\",\"vae_tiling\":true}}",
         BLOG_HY(NF4), "allocated", 14.0, 1, 1},
        /* the quantization blog's peaks (FLUXQ, max_memory_reserved GiB), each at the AutoencoderKL decode of 1024 x 1024
         * replayed op by op (events_vae_kl.c: 2.38 GiB allocated with cuDNN's workspaces, 4.17 reserved from an empty
         * cache, InvokeAI's measured 2185 B per pixel-byte within 3%): BF16 35.83 (-0.9%), NF4 17.00 (-1.6%), int8 22.94
         * (-6.1%). With the decode as one resnet's tensors summed (1.5 GiB, no workspace) they were 33.55 (-7.2%), 14.73
         * (-14.8%) and 21.43 (-12.3%) */
        {"FLUX.1-dev BF16 all on GPU 1024x1024 (HF quantization blog: 36.166 GB reserved)", FLUXQ_WL, FLUXQ(""), "reserved", 36.166, -1, 1},
        {"FLUX.1-dev NF4 transformer + T5 1024x1024 (HF quantization blog: 17.281 GB reserved)", FLUXQ_WL, FLUXQ(NF4), "reserved",
         17.281, 1, 1},
        {"FLUX.1-dev int8 transformer + T5 1024x1024 (HF quantization blog: 24.432 GB reserved)", FLUXQ_WL, FLUXQ(INT8), "reserved",
         24.432, -1, 1},
        /* diffusers docs optimization/speed-memory-optims.md (58eb52c0): FLUX.1-dev with the transformer and text_encoder_2
         * in bitsandbytes NF4 (PipelineQuantizationConfig, bnb_4bit_compute_dtype bf16), the rest bf16, .to("cuda"), the
         * default 1024 x 1024, an RTX 4090: "quantization | 32.602 s | 14.9453" GB, read as max_memory_allocated GiB (the
         * diffusers benchmark scripts' print, as for the HF blogs above; the gist is not public here). The peak is the
         * AutoencoderKL decode (events_vae_kl.c): 15.02 GiB (+0.5%); with the decode as one resnet's tensors, 14.1. The
         * table's third row, torch.compile(mode="max-autotune") with model CPU offloading, 12.2369, is not used: a compiled
         * graph's memory is not modelled (the offloaded pipeline alone is 6.86) */
        {"FLUX.1-dev NF4 transformer + T5 1024x1024 (diffusers docs speed-memory-optims: 14.9453 GB)", FLUXQ_WL, FLUXQ(NF4),
         "allocated", 14.9453, 1, 1},
        /* the project's README: "If we run them in FP32, it will take about 20GB of VRAM. With FP16, we are down to 12GB"
         * and "We use an 8bit ... T5 to reduce memory requirements to ~10.5GB" (the script's own setting: the pipeline
         * loaded without a torch_dtype, so both CLIPs fp32, and T5 load_in_8bit=True, whose other modules bitsandbytes
         * leaves fp16 and whose wo it keeps fp32 and unquantized: use_keep_in_fp32_modules, weights.c). Read as GiB, as the
         * script prints. fp32: (123,650,304 + 694,659,841 + 4,762,310,656) × 4 B = 20.79 GiB + the 77-token forward:
         * 20.84 (+4.2%); fp16: the same in 2 B with T5's 1,006,632,960 wo params at 4 B: 12.31 (+2.6%); 8-bit: the CLIPs'
         * 3.05 GiB + T5's 3.62B block Linears in int8 + 131.8M others in fp16 + wo in fp32, 7.37 GiB: 10.47 (-0.3%; the
         * T5 wo counted as int8 gave 7.70, -26.7%) */
        /* the HF video blog (BLOG_WL): the models "with reasonable defaults" (LTX-Video 18.05 GiB, +1.7%; CogVideoX1.5-5B
         * 36.46, -0.1%, its peak today's untiled decode, op by op in events_vae_cogvideox.c), and the HunyuanVideo rows
         * whose peak is the transformer step or the text encoder (VAE tiling on, or model offload) */
        {"LTX-Video bf16 121x512x768 (HF video blog: 17.75 GB)", BLOG_WL(""),
         REF("transformer", "ltx-video", "bf16", "") "," REF("text_encoder", "ltx-video/text_encoder", "bf16", "") "," REF("vae", "ltx-video/vae", "bf16", ""),
         "allocated", 17.75, 1, 1},
        {"CogVideoX1.5-5B bf16 121x512x768 (HF video blog: 36.51 GB)", BLOG_WL(""),
         "{\"name\":\"transformer\",\"role\":\"reference\",\"model\":{\"hf_config\":" COG15_CONFIG "},\"precision\":\"bf16\","
         "\"activations\":\"no_grad\"}," REF("text_encoder", "cogvideox-5b/text_encoder", "bf16", "") "," REF("vae", "cogvideox-5b/vae", "bf16", ""),
         "allocated", 36.51, 0, 1},
        {"HunyuanVideo bf16 121x512x768 + VAE tiling (HF video blog: 43.58 GB)", BLOG_WL(TILING), BLOG_HY(""), "allocated", 43.58, 0, 1},
        {"HunyuanVideo bf16 121x512x768 + model offload (HF video blog: 28.87 GB)", BLOG_WL(OFFLOAD), BLOG_HY(""), "allocated", 28.87, 0, 1},
        {"HunyuanVideo 8-bit + model offload + VAE tiling (HF video blog: 26.18 GB)", BLOG_WL(OFFLOAD TILING), BLOG_HY(INT8),
         "allocated", 26.18, 0, 1},
        {"HunyuanVideo 4-bit + VAE tiling (HF video blog: 26.42 GB)", BLOG_WL(TILING), BLOG_HY(NF4), "allocated", 26.42, 0, 1},
        {"HunyuanVideo 4-bit + model offload + VAE tiling (HF video blog: 14.15 GB)", BLOG_WL(OFFLOAD TILING), BLOG_HY(NF4),
         "allocated", 14.15, 1, 1},
        /* the rows whose peak is HunyuanVideo's untiled decode (vae.c hunyuan_call_peak: the last upsampler's conv over a
         * 17-frame temporal tile at full resolution with cuDNN's workspace, 20.34 GiB at this size; vae_decode_peak in
         * test_diffusion.c works it out). The 4-bit + model offload row has the decode alone on the GPU: 21.38 GiB
         * (-2.8%); before, the equal-piece formula (the upsampler as interpolation + pad + output, no workspace, 20
         * frames, the mid block's mask added on top) gave 15.92 (-27.6%) and the five rows were -10% to -28% */
        {"HunyuanVideo bf16 121x512x768, all on the GPU (HF video blog: 60.10 GB)", BLOG_WL(""), BLOG_HY(""), "allocated", 60.10, 0, 1},
        {"HunyuanVideo 8-bit (HF video blog: 49.9 GB)", BLOG_WL(""), BLOG_HY(INT8), "allocated", 49.9, 0, 1},
        {"HunyuanVideo 8-bit + model offload (HF video blog: 35.66 GB)", BLOG_WL(OFFLOAD), BLOG_HY(INT8), "allocated", 35.66, 0, 1},
        {"HunyuanVideo 4-bit (HF video blog: 42.96 GB)", BLOG_WL(""), BLOG_HY(NF4), "allocated", 42.96, 0, 1},
        {"HunyuanVideo 4-bit + model offload (HF video blog: 21.99 GB)", BLOG_WL(OFFLOAD), BLOG_HY(NF4), "allocated", 21.99, 1, 1},
        /* 8-bit with tiling, whose peak is the transformer step: bitsandbytes' int8 matmul (MatMul8bitLt) holds the
         * input's int8 copy and an int32 output at the single-stream blocks' linear1, 89,088 B per token over a 16-bit
         * Linear (diffusion_workload.c vp_dit_int8_matmul_per_token): 36.16 GiB (-2.1%; 32.19, -12.8%, without them) */
        {"HunyuanVideo 8-bit + VAE tiling (HF video blog: 36.92 GB)", BLOG_WL(TILING), BLOG_HY(INT8), "allocated", 36.92, 0, 1},
        {"SD3 text encoders fp32, 77 tokens (diffusers SD3 LoRA Colab: about 20 GB)", SD3_TE_WL, SD3_TE("fp32", "fp32", ""),
         "allocated", 20.0, -1, 1},
        {"SD3 text encoders fp16, 77 tokens (diffusers SD3 LoRA Colab: 12 GB)", SD3_TE_WL, SD3_TE("fp16", "fp16", ""),
         "allocated", 12.0, 1, 1},
        {"SD3 text encoders, CLIPs fp32 + 8-bit T5 (diffusers SD3 LoRA Colab: ~10.5 GB)", SD3_TE_WL,
         SD3_TE("fp32", "fp16", ",\"quant\":\"int8\""), "allocated", 10.5, 1, 1},
        /* finetrainers docs/models/cogvideox.md (1f81197): LoRA r128, batch 1, gradient checkpointing, AdamW (torch, see
         * LORA128), 49x480x720, precomputed conditions and latents (T5-XXL and the VAE freed into the cache, see above);
         * max_memory_reserved 20.701 GiB; fits a 24 GB card. 22.77 GiB (+10.0%, at the line): 22.14 (+7.0%) with the
         * moment terms' tensors, 23.32 (+12.7%) with the blocks op by op (events_cogvideox.c), 22.77 since the 5b's
         * attention Linears are their own tensors (param_tensors.c), which T5's freed segments now take. The allocated
         * peak is 18.63 GiB; the step grows about 10 GiB above the reserved it starts on, as the published run's must
         * have (20.70 over the 5b's 10.4 GiB of weights), and what is over is the 2.5 GiB the modelled precompute leaves
         * cached and free at the step's start (the VAE encode's 3 GiB block among them), which the step's long-lived
         * tensors split before its large ones arrive */
        {"CogVideoX-5b LoRA r128 GC AdamW 49x480x720 (finetrainers)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"precompute\":true}}",
         PRECOMPUTE("cogvideox-5b", PRE_VAE("cogvideox-5b")),
         "reserved", 20.701, 1, 1},
        /* tencent/HunyuanVideo README (e965abb): batch 1, 544px960px129f, 30 steps, GPU peak memory 45G (read as
         * nvidia-smi GiB); fits 80 GB, not 24 GB. The README's own code (HY_OFFICIAL): sample_video.py --use-cpu-offload,
         * i.e. enable_sequential_cpu_offload with the transformer kept on the GPU (_exclude_from_cpu_offload), the official
         * blocks under autocast replayed tensor by tensor (events_hunyuan.c, hunyuan_official): 23.88 GiB of weights +
         * 10.82 GiB of step (34.76 GiB allocated), 42.43 GiB reserved (the step's 0.4-2.9 GB tensors of ~20 distinct
         * sizes strand cached blocks), 43.18 GiB smi (-4.0%). Before (diffusers' pipeline, every component resident, the
         * LLaVA-Llama encoder's 14 GiB standing in for the step): 46.91 GiB (+4.2%). The official VAE decode (tiles of
         * 65 x 256 x 256 px, fp32 GroupNorm under autocast(fp16)) is not modelled: read by hand it would hold ~13.5 GiB
         * beside the resident transformer (docs/diffusion.md) */
        {"HunyuanVideo 544x960x129f inference (official README: 45G)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":129,\"height\":544,\"width\":960,\"diffusion\":{\"vae_tiling\":true,\"offload\":\"sequential\",\"code\":\"official\"}}",
         HY_OFFICIAL, "smi", 45.0, 0, 1},
        /* the same table, 720px1280px129f: 60G. 23.88 + 19.07 GiB of step = 43.02 GiB allocated, 55.71 GiB reserved,
         * 56.46 GiB smi (-5.9%). Before: 52.52 GiB (-12.5%, diffusers' pipeline), a known miss */
        {"HunyuanVideo 720x1280x129f inference (official README: 60G)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":129,\"height\":720,\"width\":1280,\"diffusion\":{\"vae_tiling\":true,\"offload\":\"sequential\",\"code\":\"official\"}}",
         HY_OFFICIAL, "smi", 60.0, 0, 1},
        /* THUDM CogVideoX README of 27 Aug 2024 (commit 6d7f6e8; diffusers 0.30.1 / accelerate 0.33): CogVideoX-5b BF16 with
         * enable_model_cpu_offload and vae.enable_tiling, "20.7GB" as nvidia-smi reads it; accelerate < 0.34 does not
         * empty the cache when the next component's hook offloads the previous one (hooks.py CpuOffload.pre_forward
         * gained clear_device_cache() in accelerate PR #2994, v0.34.0), so T5's freed segments stay reserved (offload_empty_cache false). With the 0.30.1 decode the
         * prediction is 17.04 GiB (-11.6%; today's decode gives 17.79, -7.7%): the tiles' decode is the reserved peak
         * above T5's cached segments, and the same decode reaches the sequential-offload figure within 10%. 17.97 GiB (-6.8%)
         * since each step's transformer forward runs op by op in the allocator replay (events_cogvideox.c, as the H100
         * measured the same pipeline under today's diffusers: 15.13 GiB reserved for 13.07 allocated, modelled +1.8%):
         * the step's 0.2-0.9 GB tensors leave holes the tiles' decode does not fill */
        {"CogVideoX-5b BF16 model offload + VAE tiling (THUDM README: 20.7 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"diffusers\":\"0.30\",\"offload\":\"model\",\"offload_empty_cache\":false,\"vae_tiling\":true}}",
         pipeline_instances("cogvideox-5b", "bf16", 1, 0, 0), "smi", 20.7e9 / 1073741824.0, 1, 1},
        /* THUDM CogVideoX README of 29 Aug 2024 (commit 29642ad, "update readme with gpu memory cost"; diffusers 0.30.1,
         * whose VAE decode is modelled by "diffusers": "0.30"): CogVideoX-5b with all optimizations
         * (enable_sequential_cpu_offload, vae slicing and tiling), "diffusers BF16: starting from 5GB" (nvidia-smi, GB);
         * fits a 24 GB card */
        {"CogVideoX-5b BF16 sequential offload + slicing + tiling (THUDM README: from 5 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"diffusers\":\"0.30\",\"offload\":\"sequential\",\"vae_tiling\":true,\"vae_slicing\":true}}",
         pipeline_instances("cogvideox-5b", "bf16", 1, 0, 0), "smi", 5e9 / 1073741824.0, 1, 1},
        /* finetrainers full fine-tunes (docs/models/cogvideox.md and ltx_video.md before d27f1ec): one GPU, bf16 weights,
         * gradient checkpointing, torch AdamW (see LORA128); max_memory_reserved 52.939 / 20.357 GiB at the first
         * step, which holds the weights, the bf16 gradients, m and v and foreach AdamW's sqrt(v) list (10 B per
         * parameter). Both logs are of one sample ("total samples": 1, "total batches observed per epoch": 1), so
         * "after epoch 1" (finetrainers/trainer.py at e5df80c line 872, `Memory after epoch {epoch + 1}`, no
         * reset_peak_memory_stats before it) is the first optimizer step's figure: workload.steps 1. The allocated
         * peak is that step's AdamW in both (CogVideoX-5b: 51.94 GiB; memory_allocated after it, 31.160 GiB logged,
         * 31.26 modelled). CogVideoX-5b: 54.94 GiB (+3.8%); read as the steady state (3 steps) 59.24 GiB (+11.9%): the
         * replay's step 2 finds only the 18 and 72 MiB segments the freed foreach temporaries left for its
         * activations, which the log does not show either way. The full fine-tuning backward is the moment terms
         * cut into tensors (not op by op). LTX-Video: the same in 1 or 3 steps */
        {"CogVideoX-5b full fine-tune GC AdamW, first step (finetrainers: 52.939 GiB reserved)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"steps\":1}",
         one("cogvideox-5b", ",\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"},\"autocast\":true"), "reserved", 52.939, -1, 1},
        {"LTX-Video full fine-tune GC AdamW 49x512x768 (finetrainers: 20.357 GiB reserved)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768,\"steps\":1}",
         one("ltx-video", ",\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"},\"autocast\":true"), "reserved", 20.357, 1, 1},
        /* finetrainers docs/models/ltx_video.md (LoRA log of 2da8cb5, 21 Dec 2024): LoRA r128 on attn1 and attn2, batch 1,
         * GC, AdamW, 49x512x768, --enable_slicing --enable_tiling, precomputed: after precomputing latents 9.684 allocated /
         * 9.807 reserved (T5 + the VAE still held by prepare_precomputations' locals), before training start 3.809
         * allocated / 10.010 reserved (the transformer loaded into the freed T5 and VAE segments), after epoch 1 10.916
         * reserved. The VAE is AutoencoderKLLTXVideo (vae_ltx.c): 419,193,649 × 2 B = 0.781 GiB of weights (the log's
         * 9.684 - 8.880 = 0.804), whose segments stay cached beside T5's (its encode's temporaries go with free_memory);
         * without it the prediction was 9.97 GiB (-8.7%). The latents are precomputed, so no encode runs in the step
         * (test_diffusion_vae_ltx.c checks the encode stage against the log's 11.155 GiB). Predicted 10.97 GiB (+0.5%); 10.75
         * (-1.5%) while the replay's peaks started after the precompute stage, which the verdict now counts */
        {"LTX-Video LoRA r128 GC 49x512x768 (finetrainers: 10.916 GiB reserved)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768,\"diffusion\":{\"precompute\":true,\"vae_tiling\":true,\"vae_slicing\":true}}",
         PRECOMPUTE("ltx-video", PRE_VAE("ltx-video")), "reserved", 10.916, 1, 1},
        /* diffusers docs cogvideox.md (PR #9150, see published_misses for the source and the GiB reading): CogVideoX-2b
         * fp16 with enable_model_cpu_offload and vae.enable_tiling, "11 GB" max_memory_allocated; fits 24 GB. The peak is
         * the text encoder's phase: T5-XXL loaded in float16 keeps wo in fp32 (t5_wo_fp32) = 11,537,887,232 B = 10.75 GiB,
         * plus its forward at 226 tokens and the cuBLAS workspace (the tiles' decode and the transformer step are below
         * it). Before the wo mechanism: 8.96 GiB (-18.5% of 11 GiB) */
        {"CogVideoX-2b FP16 model offload + tiling (diffusers docs: 11 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"diffusers\":\"0.30\",\"offload\":\"model\",\"offload_empty_cache\":false,\"vae_tiling\":true}}",
         pipeline_instances("cogvideox-2b", "fp16", 1, 0, 0), "allocated", 11.0, 1, 1},
        /* diffusers docs api/pipelines/wan.md as written in PR #11089 (617c208b, 28 Mar 2025): Wan2.1-T2V-1.3B-Diffusers in
         * bf16 with enable_model_cpu_offload, num_frames 33 at the pipeline's default 480x832, "requires 11GB VRAM".
         * Read as max_memory_allocated in GiB, the diffusers docs' convention (docs/source/en/optimization/memory.md prints
         * torch.cuda.max_memory_allocated() / 1024**3 labelled "GB"; PR #9150's CogVideoX script the same). The peak is
         * UMT5-XXL's phase: 5,680,910,336 × 2 B = 10.58 GiB and its forward at 512 tokens. Fits 24 GB */
        {"Wan2.1-T2V-1.3B bf16 model offload 33x480x832 (diffusers docs: 11 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":33,\"height\":480,\"width\":832,\"diffusion\":{\"offload\":\"model\"}}",
         pipeline_instances("wan2.1-t2v-1.3b", "bf16", 1, 0, 0), "allocated", 11.0, 1, 1},
        /* diffusers docs api/pipelines/mochi.md (PR #9934, e12d610f, 20 Dec 2024): the bf16 variant
         * (variant="bf16", torch_dtype bfloat16) with enable_model_cpu_offload and vae.enable_tiling, num_frames 85 at the
         * default 480x848, "requires 22GB VRAM" (allocated GiB, as above): the transformer's 10,027,677,744 × 2 B and its
         * step (CFG doubles the batch: 2 × 24,106 tokens). Fits 24 GB */
        {"Mochi 1 bf16 variant model offload + tiling 85x480x848 (diffusers docs: 22 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":85,\"height\":480,\"width\":848,\"diffusion\":{\"offload\":\"model\",\"vae_tiling\":true}}",
         pipeline_instances("mochi-1", "bf16", 1, 0, 0), "allocated", 22.0, 1, 1},
        /* the same doc: the fp32 checkpoint (no torch_dtype) under torch.autocast("cuda", torch.bfloat16,
         * cache_enabled=False), model offload and tiling, 85 frames: "at least 42GB VRAM". fp32 weights, bf16 compute, no
         * cast cache (autocast_cache false); T5 and the VAE are fp32 too. Fits 80 GB */
        {"Mochi 1 fp32 under autocast(cache off) model offload + tiling 85 frames (diffusers docs: 42 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":85,\"height\":480,\"width\":848,\"diffusion\":{\"offload\":\"model\",\"vae_tiling\":true}}",
         REF("transformer", "mochi-1", "amp_bf16", ",\"autocast_cache\":false") "," REF("text_encoder", "mochi-1/text_encoder", "amp_bf16", "")
             "," REF("vae", "mochi-1/vae", "amp_bf16", ""),
         "allocated", 42.0, 0, 1},
        /* diffusers docs optimization/pruna.md (9b834f87, 16 Jun 2025): FLUX.1-dev, FluxPipeline.from_pretrained(dtype
         * bfloat16).to("cuda"), the pipeline's default 1024x1024, "peak GPU memory usage from 34.7GB" before Pruna's
         * optimizations (allocated GiB, as above): every component resident, the peak at the VAE decode (2.38 GiB at the
         * last upsampler's conv with cuDNN's workspace, events_vae_kl.c) beside T5-XXL's 8.87 GiB and the transformer's
         * 22.17 GiB: 33.84 GiB (-2.5%; -5.0% before the workspace and the held block input were counted). Fits 80 GB */
        {"FLUX.1-dev bf16 all on GPU 1024x1024 (diffusers docs pruna.md: 34.7 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":1,\"height\":1024,\"width\":1024}",
         pipeline_instances("flux.1-dev", "bf16", 1, 1, 0), "allocated", 34.7, -1, 1},
        /* HF blog "(LoRA) Fine-Tuning FLUX.1-dev on Consumer Hardware" (huggingface/blog flux-qlora.md): QLoRA r4 on
         * to_k/q/v/out.0 (4,669,440 trainable: lora_single_stream), NF4 base, mixed_precision bf16, 8-bit AdamW, gradient
         * checkpointing, batch 1, 512x768, latents cached (the VAE deleted) and the prompt embedded beforehand by
         * compute_embeddings.py at its MAX_SEQ_LENGTH = 77 tokens (workload.diffusion.text_tokens): "Peak VRAM usage for
         * QLoRA fine-tuning was approximately 9GB" on an RTX 4090. The training script prints no memory figure and runs
         * with --report_to="wandb", whose system charts read NVML, so the figure is read as nvidia-smi in 10^9 B (the
         * stream session; it was read as max_memory_allocated GiB before, from compute_embeddings.py's print, which is the
         * embedding script's). Predicted 9.59 GB (+6.6%; 8.93 GiB, -0.8%, were it GiB). Before the diffwide session:
         * 29.94 GiB, autocast copies of the 4-bit base (none exist: bitsandbytes' MatMul4Bit dequantizes per call) and the
         * single-stream blocks' adapters missing. Fits 24 GB */
        {"FLUX.1-dev QLoRA r4 GC 8-bit AdamW 512x768 (HF blog: ~9 GB)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":1,\"height\":768,\"width\":512,\"diffusion\":{\"text_tokens\":77}}",
         FLUX_LORA4("qlora", "amp_bf16", ""), "smi", 9e9 / 1073741824.0, 1, 1},
        /* the same blog: "Running standard LoRA (with the base FLUX.1-dev in FP16) on the same setup consumed 26 GB VRAM"
         * (nvidia-smi in 10^9 B, as the QLoRA row). The blog's script is QLoRA-only, so the run is modelled as that script
         * without the quantization: the 16-bit transformer under accelerate's autocast ("autocast"), the same adapters,
         * checkpointing, 8-bit AdamW and 77 text tokens. Predicted 25.75 GB (-1.0%; 23.98 GiB, -7.8%, as GiB); read as
         * allocated GiB it was -10.2% (a miss until the stream session). 26 GB exceeds the blog's RTX 4090, so it ran on a
         * larger card: no 24 GB claim */
        {"FLUX.1-dev bf16 LoRA r4 GC 8-bit AdamW 512x768 (HF blog: 26 GB)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":1,\"height\":768,\"width\":512,\"diffusion\":{\"text_tokens\":77}}",
         FLUX_LORA4("lora", "bf16", ",\"autocast\":true"), "smi", 26e9 / 1073741824.0, -1, 1},
        /* finetrainers docs/training/hunyuan_video.md (e5df80c; the LoRA logs of 0db7bf2, 21 Dec 2024): LoRA r128 on
         * to_q/k/v/out.0 (163,577,856 trainable, lora_single_stream), batch 1, GC, AdamW, 49x512x768, with precomputation:
         * "after epoch 1" max_memory_reserved 42.387 GiB. The Llama and CLIP encoders and the VAE are freed into the cache
         * after precomputing (precompute.c; the log's "after precomputing conditions" 14.232 GiB allocated is the two
         * encoders, modelled 14.27). Fits 80 GB */
        {"HunyuanVideo LoRA r128 GC AdamW 49x512x768 precomputed (finetrainers: 42.387 GiB reserved)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768,\"diffusion\":{\"precompute\":true,\"vae_tiling\":true,\"vae_slicing\":true,\"diffusers\":\"0.32\"}}",
         HY_LORA, "reserved", 42.387, 0, 1},
        /* finetrainers README support matrix (d220aac, 15 Jan 2025), "Min. LoRA VRAM": "training-only, no validation, at
         * resolution 49x512x768, rank 128, with pre-computation, using FP8 weights & gradient checkpointing"
         * (--layerwise_upcasting_modules transformer, quant "fp8"; bf16 compute, AdamW). The same table's full fine-tune
         * column (21 GB LTX, 53 GB CogVideoX-5b) is the docs' max_memory_reserved (20.357, 52.939 GiB) rounded up, so these
         * are read as reserved GiB, rounded up. Nothing is left cached by the precomputation (as in the full fine-tune
         * logs of e5df80c). The trainer of d220aac casts the LoRA parameters to fp32 (trainer.py prepare_optimizer, lines
         * 452-454: cast_training_params([self.transformer], dtype=torch.float32) for every LoRA run; the trainer of the
         * bf16 LoRA logs, 0db7bf2, did it under fp16 only) and keeps PEFT from giving them the float8 dtype (patches.py
         * _perform_patch_move_adapter_to_device_of_base_layer): fp32 adapters, gradients and AdamW states, and PEFT's fp32
         * cast of each adapted Linear's input. Layerwise casting's bf16 copies (fp8_layerwise, timeline_train.c): the
         * recomputed block's float8 Linears at its backward; accelerate's autocast (LORA128_FP32 sets "autocast"). 4.90 GiB (-1.9%)
         * and 17.36 GiB (-3.6%; 16.65 without autocast). Before: bf16 adapters
         * and one Linear upcast at a time, 3.66 / 15.68 (-26.8% / -12.9%); with the copies alone 3.76 / 15.82 */
        {"LTX-Video LoRA r128 FP8 layerwise GC 49x512x768 (finetrainers README: min 5 GB)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768}",
         one("ltx-video", ",\"quant\":\"fp8\"" LORA128_FP32), "reserved", 5.0, 1, 1},
        {"CogVideoX-5b LoRA r128 FP8 layerwise GC 49x512x768 (finetrainers README: min 18 GB)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768}",
         one("cogvideox-5b", ",\"quant\":\"fp8\"" LORA128_FP32), "reserved", 18.0, 1, 1},
        /* finetrainers docs/training/hunyuan_video.md (see the precomputed row), **without precomputation**: the encoders
         * and the VAE on the GPU, encoding every step; the training steps' max_memory_reserved is the "before validation
         * start" 56.266 GiB (39.747 allocated; the peaks are reset after validation, so "after epoch 1" reads 40.910).
         * The run's diffusers is 0.32's HunyuanVideo (finetrainers 0db7bf2, 21 Dec 2024, between PR #10136 of 16 Dec and
         * PR #10548 of 14 Jan 2025): a (1, N, N) bool attention mask over the 20,224 joint tokens (0.38 GiB, held by every
         * checkpointed block until its backward) and, in the recomputed block, SDPA's bf16 additive bias of it (0.76 GiB,
         * saved by the memory-efficient kernel, which runs because flash takes no mask): diffusion_workload.c,
         * activations_dit.c. Predicted 51.93 GiB reserved (-7.7%) with accelerate's autocast (HY_LORA's LORA128 sets it); with the mask
         * alone 51.25 (-8.9%); before the mask, 50.10 (-11.0%) */
        {"HunyuanVideo LoRA r128 GC AdamW 49x512x768 no precompute (finetrainers: 56.266 GiB reserved)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768,\"diffusion\":{\"vae_tiling\":true,\"vae_slicing\":true,\"diffusers\":\"0.32\"}}",
         HY_LORA, "reserved", 56.266, 0, 1},
        /* finetrainers README at 66189c8 (20 Dec 2024; moved to docs/models/ltx_video.md, still there at 9bb9aff): LTX-Video
         * LoRA r128 / alpha 128 on to_q/k/v/out.0, batch 1, --gradient_checkpointing, AdamW, --mixed_precision bf16,
         * --enable_slicing --enable_tiling, 49x512x768, **without precomputation**: T5 and the VAE stay on the GPU and
         * encode every step. "before training start" 13.486 GiB allocated (T5 8.87 + the transformer 3.58 + the VAE 0.78 +
         * bf16 adapters 0.22 + the cuBLAS workspace: 13.48 modelled); the steps' peaks at "before validation start" (the
         * first validation, after 100 steps): max_memory_allocated 15.527, max_memory_reserved 17.623. Predicted 15.21
         * allocated (-2.0%) and 15.93 reserved (-9.6%), the peak in the VAE's tiled encode of the step's video */
        {"LTX-Video LoRA r128 GC AdamW 49x512x768 no precompute (finetrainers: 17.623 GiB reserved)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768,\"diffusion\":{\"vae_tiling\":true,\"vae_slicing\":true}}",
         "{\"name\":\"transformer\",\"model\":{\"preset\":\"ltx-video\"},\"precision\":\"bf16\"" LORA128 "}," REF("text_encoder", "ltx-video/text_encoder", "bf16", "") "," REF("vae", "ltx-video/vae", "bf16", ""),
         "reserved", 17.623, 1, 1}, /* the docs: "requires about `18` GB of VRAM without precomputation" */
        /* finetrainers README support matrix (d220aac, 15 Jan 2025), "Min. LoRA VRAM": "training-only, no validation, at
         * resolution 49x512x768, rank 128, with pre-computation, using FP8 weights & gradient checkpointing"
         * (--layerwise_upcasting_modules transformer, quant "fp8"; bf16 compute, AdamW), read as reserved GiB rounded up
         * (see the LTX-Video and CogVideoX-5b FP8 rows above, the same plan). requirements.txt at d220aac:
         * diffusers>=0.32.1, whose newest release until 15 Jan 2025 was 0.32.1 (the (B, N, N) HunyuanVideo mask; v0.32.2
         * of 15 Jan has the (B, 1, 1, N) one): "diffusers": "0.32". Predicted 30.22 GiB (-5.6%) with autocast, 29.75 (-7.0%) without; before the mask 28.60
         * (-10.6%); before fp32 adapters and layerwise casting's saved copies 26.52 (-17.1%) */
        {"HunyuanVideo LoRA r128 FP8 layerwise GC 49x512x768 (finetrainers README: min 32 GB)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768,\"diffusion\":{\"diffusers\":\"0.32\"}}",
         one("hunyuanvideo", ",\"quant\":\"fp8\"" LORA128_FP32), "reserved", 32.0, -1, 1},
        /* cogvideox-factory legacy LoRA tables (LEGACY above), AdamW, "memory_before_validation" as reserved GiB: without
         * checkpointing, batch 1, 43.764 / 44.314 / 45.826 at ranks 16 / 64 / 256 (the allocated reading is within 4%
         * too); accelerate's autocast is what these need: without it 30.84 / 31.15 / 32.41 GiB allocated (-30%) */
        {"CogVideoX-2b LoRA r16 no GC bs1 (cogvideox-factory: 43.764)", LEGACY_WL(1), LEGACY("cogvideox-2b", 16, false), "reserved", 43.764, 0, 1},
        {"CogVideoX-2b LoRA r64 no GC bs1 (cogvideox-factory: 44.314)", LEGACY_WL(1), LEGACY("cogvideox-2b", 64, false), "reserved", 44.314, 0, 1},
        {"CogVideoX-2b LoRA r256 no GC bs1 (cogvideox-factory: 45.826)", LEGACY_WL(1), LEGACY("cogvideox-2b", 256, false), "reserved", 45.826, 0, 1},
        /* with checkpointing: every block runs op by op as the H100 trace of the 2b r64 batch-4 step shows
         * (events_cogvideox.c), and the reserved memory is the caching allocator's replay of that: 2b r16 / r64 / r256
         * batch 4 -6.4% / -7.3% / +2.3%, 5b r64 / r256 batch 1 -4.8% / -8.1%, 5b r16 / r64 / r256 batch 4 -0.9% / -2.6% /
         * -2.2%. Before (the moment terms cut into equal tensors, which pack without the real step's fragmentation):
         * -11.4%, -12.1%, -6.7%; -9.2%, -10.4%; -11.8%, -13.2%, -11.0%. The H100 measured the 2b r64 batch-4 step at
         * 21.77 GiB reserved (the A100 table: 22.254) and the 5b r64 batch-4 step at 43.22 (47.805): test_diffusion_h100.c */
        {"CogVideoX-2b LoRA r16 GC bs4 (cogvideox-factory: 21.803)", LEGACY_WL(4), LEGACY("cogvideox-2b", 16, true), "reserved", 21.803, -1, 1},
        {"CogVideoX-2b LoRA r64 GC bs4 (cogvideox-factory: 22.254)", LEGACY_WL(4), LEGACY("cogvideox-2b", 64, true), "reserved", 22.254, -1, 1},
        {"CogVideoX-2b LoRA r256 GC bs4 (cogvideox-factory: 22.020)", LEGACY_WL(4), LEGACY("cogvideox-2b", 256, true), "reserved", 22.020, -1, 1},
        {"CogVideoX-5b LoRA r64 GC bs1 (cogvideox-factory: 20.818)", LEGACY_WL(1), LEGACY("cogvideox-5b", 64, true), "reserved", 20.818, -1, 1},
        {"CogVideoX-5b LoRA r256 GC bs1 (cogvideox-factory: 22.119)", LEGACY_WL(1), LEGACY("cogvideox-5b", 256, true), "reserved", 22.119, -1, 1},
        {"CogVideoX-5b LoRA r16 GC bs4 (cogvideox-factory: 46.492)", LEGACY_WL(4), LEGACY("cogvideox-5b", 16, true), "reserved", 46.492, 0, 1},
        {"CogVideoX-5b LoRA r64 GC bs4 (cogvideox-factory: 47.805)", LEGACY_WL(4), LEGACY("cogvideox-5b", 64, true), "reserved", 47.805, 0, 1},
        {"CogVideoX-5b LoRA r256 GC bs4 (cogvideox-factory: 47.268)", LEGACY_WL(4), LEGACY("cogvideox-5b", 256, true), "reserved", 47.268, 0, 1},
        /* cogvideox-factory legacy full fine-tuning tables (LEGACY_SFT). Before the DiT's 16-bit residual stream under
         * autocast (this revision) the batch-4 rows were 14-31% high (fp32 checkpoints of every block's input); then:
         * 2b AdamW -1.6% / -0.7%, 2b 8-bit +4.2% / +3.9%, 5b 8-bit +6.0% / +5.5%; since each block's attention Linears
         * are their own tensors (param_tensors.c): -0.5% / +9.4%, +5.9% / +10.8% (2b 8-bit batch 4 in published_misses),
         * +6.8% / +6.6%. The 5b 8-bit batch-4 row's
         * "before training" (16.396) is the 2b's, a copy error of the table; its 66.648 is used. */
        {"CogVideoX-2b full GC AdamW bs1 (cogvideox-factory: 33.934)", LEGACY_WL(1), LEGACY_SFT("cogvideox-2b", "adamw"), "reserved", 33.934, 0, 1},
        {"CogVideoX-2b full GC AdamW bs4 (cogvideox-factory: 38.281)", LEGACY_WL(4), LEGACY_SFT("cogvideox-2b", "adamw"), "reserved", 38.281, 0, 1},
        {"CogVideoX-2b full GC 8-bit AdamW bs1 (cogvideox-factory: 16.447)", LEGACY_WL(1), LEGACY_SFT("cogvideox-2b", "adamw_8bit"), "reserved", 16.447, 1, 1},
        {"CogVideoX-5b full GC 8-bit AdamW bs1 (cogvideox-factory: 52.826)", LEGACY_WL(1), LEGACY_SFT("cogvideox-5b", "adamw_8bit"), "reserved", 52.826, 0, 1},
        {"CogVideoX-5b full GC 8-bit AdamW bs4 (cogvideox-factory: 66.648)", LEGACY_WL(4), LEGACY_SFT("cogvideox-5b", "adamw_8bit"), "reserved", 66.648, 0, 1},
        /* THUDM finetune README (THUDM_LORA above): CogVideoX1.5-5B LoRA at 81x768x1360, "35GB VRAM (NVIDIA A100)":
         * 36.05 GB as nvidia-smi (+3.0%); 44,880 + 226 tokens (cogvideox_1_5), the bf16 base, fp32 adapters */
        {"CogVideoX1.5-5B LoRA r128 81x768x1360 (THUDM finetune README: 35 GB)",
         "{\"mode\":\"train\",\"batch\":1,\"frames\":81,\"height\":768,\"width\":1360}",
         "{\"name\":\"transformer\",\"model\":{\"hf_config\":" COG15_CONFIG "}," THUDM_LORA("bf16") "}", "smi", 35e9 / 1073741824.0, 0, 1},
        /* the same table: CogVideoX-2b SFT with DDP in fp16 at 49x480x720, "36GB VRAM (NVIDIA A100)": the fp32 transformer
         * under autocast, 37.04 GB as nvidia-smi (+2.9%; +1.8% before the attention Linears were their own tensors) */
        {"CogVideoX-2b SFT DDP fp16 49x480x720 (THUDM finetune README: 36 GB)", LEGACY_WL(1),
         "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-2b\"},\"precision\":\"amp_fp16\",\"finetune\":{\"method\":\"full\"},"
         "\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"}}", "smi", 36e9 / 1073741824.0, 0, 1},
    };
    check_published(ps, sizeof ps / sizeof ps[0]);
}

/* Claims without a figure. finetrainers README support matrix (d220aac, 15 Jan 2025) and docs/training/hunyuan_video.md
 * (e5df80c): HunyuanVideo full fine-tuning "goes out of memory (OOM) for 49x512x768" on one 80 GB GPU (bf16 weights,
 * gradient checkpointing, precomputed, training only): 12,821,012,544 params × (2 B weights + 2 B gradients + 4 B AdamW
 * m, v) alone are 95.5 GiB. */
static void published_claims(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(t_plan("{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":512,\"width\":768}",
                                             one("hunyuanvideo", ",\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"}"),
                                             "{\"gpu\":\"h100-sxm-80gb\",\"count\":1}"));
    assert_false(e->fits);
    /* cogvideox-factory's legacy README (LEGACY, LEGACY_SFT): CogVideoX-5b full fine-tuning with AdamW is "OOM" at batch 1
     * and 4 (fp32 weights, gradients and moments: 5,570,283,072 × 16 B = 83.0 GiB alone); "Trying to run full finetuning
     * without gradient checkpointing OOMs even on an A100 (80 GB)" (CogVideoX-2b, AdamW: 80.4 GiB allocated); "Trying to
     * run CogVideoX-5b without gradient checkpointing OOMs even on an A100 (80 GB)" (LoRA r16: 97.9 GiB) */
    const char *a100 = "{\"gpu\":\"a100-sxm-80gb\",\"count\":1}";
    assert_false(t_estimate(t_plan(LEGACY_WL(1), LEGACY_SFT("cogvideox-5b", "adamw"), a100))->fits);
    assert_false(t_estimate(t_plan(LEGACY_WL(1), "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-2b\"},"
                                                 "\"precision\":\"amp_bf16\",\"finetune\":{\"method\":\"full\"},"
                                                 "\"optimizer\":{\"name\":\"adamw\"}}", a100))->fits);
    assert_false(t_estimate(t_plan(LEGACY_WL(1), LEGACY("cogvideox-5b", 16, false), a100))->fits);
    /* THUDM finetune README (THUDM_LORA): CogVideoX-2b LoRA in fp16 on a 16 GB card ("16GB VRAM (NVIDIA 4080)": 10.37 GB
     * as nvidia-smi), CogVideoX-5b LoRA in bf16 on a 24 GB card ("24GB VRAM (NVIDIA 4090)": 22.75 GB) */
    const char *l2 = "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-2b\"}," THUDM_LORA("fp16") "}";
    const char *l5 = "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-5b\"}," THUDM_LORA("bf16") "}";
    assert_true(t_estimate(t_plan(LEGACY_WL(1), l2, "{\"gpu\":\"rtx-4080\",\"count\":1}"))->fits);
    assert_true(t_estimate(t_plan(LEGACY_WL(1), l5, "{\"gpu\":\"rtx-4090\",\"count\":1}"))->fits);
    assert_false(t_estimate(t_plan(LEGACY_WL(1), l5, "{\"gpu\":\"rtx-4080\",\"count\":1}"))->fits);
    /* finetrainers examples/_legacy/training/mochi-1 (README: "without validation enabled, this script should run under
     * 40GBs of GPU VRAM"; train.sh: batch 1, --gradient_checkpointing, AdamW, --cast_dit; text_to_video_lora.py: LoRA
     * rank 16 on to_k/to_q/to_v/to_out.0 upcast to fp32 by cast_training_params, the forward under
     * torch.autocast(bf16); embed.py's latents and T5 embeddings precomputed; prepare_dataset.sh: 37 frames at
     * 480x848). cast_dit moves the Linears to bf16 and leaves the norms' few weights fp32 (modelled as bf16). 26.24 GiB
     * as nvidia-smi: under 40 GB, and not on a 24 GB card */
    const char *mochi = "{\"name\":\"transformer\",\"model\":{\"preset\":\"mochi-1\"},\"precision\":\"bf16\",\"autocast\":true,"
                        "\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"},\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":16,"
                        "\"alpha\":16,\"dropout\":0,\"dtype\":\"fp32\",\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}}}";
    const char *wl37 = "{\"mode\":\"train\",\"batch\":1,\"frames\":37,\"height\":480,\"width\":848}";
    const vp_estimate *m = t_estimate(t_plan(wl37, mochi, a100));
    assert_true(m->devices[0].nvidia_smi_bytes < 40e9);
    assert_true(m->devices[0].nvidia_smi_bytes > 20e9); /* the bf16 weights alone are 10,027,677,744 x 2 B = 20.06 GB */
    assert_false(t_estimate(t_plan(wl37, mochi, "{\"gpu\":\"rtx-4090\",\"count\":1}"))->fits);
    /* diffusers' SD3 LoRA Colab project (sd3_lora_colab, README: "DreamBooth LoRA training ... under 16GB GPU VRAM", a
     * free-tier Colab T4): the notebook's accelerate launch of train_dreambooth_lora_sd3_miniature.py on
     * stable-diffusion-3-medium-diffusers, --mixed_precision fp16 (the transformer cast to fp16, the rank-4 adapters on
     * to_k/to_q/to_v/to_out.0 upcast to fp32 by cast_training_params), --resolution 1024, batch 1, --gradient_checkpointing,
     * --use_8bit_adam, the prompt embeddings precomputed, the VAE in fp32 on the GPU encoding each image (line 716).
     * SD3-medium's transformer as scripts/convert_sd3_to_diffusers.py builds it: 24 layers, 24 heads of 64,
     * caption_projection_dim 1536, pos_embed_max_size 192. Fits the T4 (6.59 GiB reserved) */
    const char *sd3m = "{\"name\":\"transformer\",\"model\":{\"hf_config\":{\"_class_name\":\"SD3Transformer2DModel\",\"sample_size\":128,"
                       "\"patch_size\":2,\"in_channels\":16,\"joint_attention_dim\":4096,\"num_layers\":24,\"caption_projection_dim\":1536,"
                       "\"num_attention_heads\":24,\"attention_head_dim\":64,\"pos_embed_max_size\":192,\"out_channels\":16,"
                       "\"pooled_projection_dim\":2048}},\"precision\":\"fp16\",\"autocast\":true,\"grad_ckpt\":true,"
                       "\"optimizer\":{\"name\":\"adamw_8bit\"},\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":4,\"alpha\":4,"
                       "\"dropout\":0,\"dtype\":\"fp32\",\"targets\":[\"to_k\",\"to_q\",\"to_v\",\"to_out.0\"]}}},"
                       "{\"name\":\"vae\",\"role\":\"reference\",\"model\":{\"preset\":\"sd3.5-large/vae\"},\"precision\":\"fp32\","
                       "\"activations\":\"no_grad\"}";
    const char *wl1024 = "{\"mode\":\"train\",\"batch\":1,\"grad_accum\":4,\"height\":1024,\"width\":1024}";
    assert_true(t_estimate(t_plan(wl1024, sd3m, "{\"gpu\":\"t4\",\"count\":1}"))->fits);
}

/* The same README's DeepSpeed full fine-tuning table ("AdamW + CPU/Parameter offloading", gradient checkpointing, 2x A100;
 * accelerate_configs/deepspeed.yaml of be9d99a: ZeRO stage 2, offload_optimizer_device cpu, bf16, 2 processes; the
 * script then casts the transformer to DeepSpeed's bf16 and accelerate puts no autocast around it). "memory_before_
 * validation" as reserved GiB: CogVideoX-2b batch 4 21.188, CogVideoX-5b batch 1 19.998 and batch 4 43.465 (the 2b's
 * batch-1 value is its "before training" 13.111, the encoders' load, so it does not show the step). Predicted -2.1%,
 * -2.0%, -2.2% (-3.6%, -3.6%, -2.9% before a CogVideoX block's attention Linears were their own tensors). */
static void legacy_deepspeed(void **s) {
    (void)s;
    const struct {
        const char *id;
        int batch;
        double published_gib;
    } rows[] = {{"cogvideox-2b", 4, 21.188}, {"cogvideox-5b", 1, 19.998}, {"cogvideox-5b", 4, 43.465}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *plan = t_fmt("{\"schema\":\"%s\",\"workload\":{\"mode\":\"train\",\"batch\":%d,\"frames\":49,\"height\":480,"
                                 "\"width\":720},\"hardware\":{\"gpu\":\"a100-sxm-80gb\",\"count\":2},\"parallel\":{\"dp\":2,\"zero\":2,"
                                 "\"offload_optimizer\":true},\"instances\":[{\"name\":\"transformer\",\"model\":{\"preset\":\"%s\"},"
                                 "\"precision\":\"amp_bf16\",\"finetune\":{\"method\":\"full\"},\"grad_ckpt\":true,"
                                 "\"optimizer\":{\"name\":\"adamw\"}}]}",
                                 VP_PLAN_SCHEMA, rows[i].batch, rows[i].id);
        double got = (double)t_estimate(plan)->devices[0].peak_reserved_bytes / 1073741824.0;
        print_message("%s DeepSpeed ZeRO-2 offload bs%d: published %.3f GiB predicted %.3f GiB (%+.1f%%)\n", rows[i].id,
                      rows[i].batch, rows[i].published_gib, got, 100.0 * (got / rows[i].published_gib - 1.0));
        assert_true(got > 0.9 * rows[i].published_gib && got < 1.1 * rows[i].published_gib);
    }
}

/* THUDM finetune README's DeepSpeed SFT rows (THUDM_LORA above; finetune/configs/zero2.yaml, zero2_offload.yaml,
 * zero3.yaml, zero3_offload.yaml: bf16, reduce_bucket_size 5e8, allgather_bucket_size 2e8, micro-batch 1), read as
 * nvidia-smi GB. The model is 30-60% under every one of them, most under ZeRO-3 with offload (CogVideoX-5b: 10.97 GB
 * for "28GB VRAM (NVIDIA 5090)"); the table also names a 24 GB RTX 4090 for the 5b's "42GB" 8-GPU ZeRO-2 row. The
 * figures barely move with the ZeRO stage or the optimizer offload (5b: 42 / 42 / 43 GB for 1-GPU ZeRO-2 + offload,
 * 8-GPU ZeRO-2, 8-GPU ZeRO-3) and track fp32 weights plus fp32 gradients resident on each GPU (5,570,283,072 × 8 B =
 * 44.6 GB; 2b 13.6 GB + activations for "17GB"; 1.5 44.6 GB + its 45,106-token activations for "56GB"), a layout no
 * DeepSpeed stage gives a bf16 config; not modelled. Expected to fail. */
static void thudm_deepspeed_sft(void **s) {
    (void)s;
    const struct {
        const char *what, *instance, *workload, *parallel;
        int gpus;
        double published_gb;
    } rows[] = {
#define T2B "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-2b\"},\"precision\":\"amp_fp16\",\"finetune\":{\"method\":\"full\"},\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"}}"
#define T2B_BF "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-2b\"},\"precision\":\"amp_bf16\",\"finetune\":{\"method\":\"full\"},\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"}}"
#define T5B "{\"name\":\"transformer\",\"model\":{\"preset\":\"cogvideox-5b\"},\"precision\":\"amp_bf16\",\"finetune\":{\"method\":\"full\"},\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"}}"
#define T15 "{\"name\":\"transformer\",\"model\":{\"hf_config\":" COG15_CONFIG "},\"precision\":\"amp_bf16\",\"finetune\":{\"method\":\"full\"},\"grad_ckpt\":true,\"optimizer\":{\"name\":\"adamw\"}}"
#define W49 "{\"mode\":\"train\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720}"
#define W81 "{\"mode\":\"train\",\"batch\":1,\"frames\":81,\"height\":768,\"width\":1360}"
#define Z2OFF "{\"zero\":2,\"offload_optimizer\":true,\"reduce_bucket_size\":500000000,\"allgather_bucket_size\":200000000}"
#define Z2 "{\"dp\":8,\"zero\":2,\"reduce_bucket_size\":500000000,\"allgather_bucket_size\":200000000}"
#define Z3 "{\"dp\":8,\"zero\":3,\"reduce_bucket_size\":500000000}"
#define Z3OFF "{\"dp\":8,\"zero\":3,\"offload_optimizer\":true,\"offload_params\":true,\"reduce_bucket_size\":500000000}"
        {"2b 1-GPU ZeRO-2 + optimizer offload (17GB)", T2B, W49, Z2OFF, 1, 17},
        {"2b 8-GPU ZeRO-2 (17GB)", T2B, W49, Z2, 8, 17},
        {"2b 8-GPU ZeRO-3 (19GB)", T2B, W49, Z3, 8, 19},
        {"2b 8-GPU ZeRO-3 + optimizer and parameter offload, bf16 (14GB)", T2B_BF, W49, Z3OFF, 8, 14},
        {"5b 1-GPU ZeRO-2 + optimizer offload (42GB)", T5B, W49, Z2OFF, 1, 42},
        {"5b 8-GPU ZeRO-2 (42GB)", T5B, W49, Z2, 8, 42},
        {"5b 8-GPU ZeRO-3 (43GB)", T5B, W49, Z3, 8, 43},
        {"5b 8-GPU ZeRO-3 + offload (28GB)", T5B, W49, Z3OFF, 8, 28},
        {"1.5-5b 1-GPU ZeRO-2 + optimizer offload (56GB)", T15, W81, Z2OFF, 1, 56},
        {"1.5-5b 8-GPU ZeRO-2 (55GB)", T15, W81, Z2, 8, 55},
        {"1.5-5b 8-GPU ZeRO-3 (55GB)", T15, W81, Z3, 8, 55},
        {"1.5-5b 8-GPU ZeRO-3 + offload (40GB)", T15, W81, Z3OFF, 8, 40},
#undef T2B
#undef T2B_BF
#undef T5B
#undef T15
#undef W49
#undef W81
#undef Z2OFF
#undef Z2
#undef Z3
#undef Z3OFF
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *plan = t_fmt("{\"schema\":\"%s\",\"workload\":%s,\"hardware\":{\"gpu\":\"a100-sxm-80gb\",\"count\":%d},"
                                 "\"parallel\":%s,\"instances\":[%s]}",
                                 VP_PLAN_SCHEMA, rows[i].workload, rows[i].gpus, rows[i].parallel, rows[i].instance);
        double got = (double)t_estimate(plan)->devices[0].nvidia_smi_bytes / 1e9;
        print_message("THUDM SFT %-62s published %5.1f GB predicted %5.2f GB (%+.1f%%)\n", rows[i].what, rows[i].published_gb, got,
                      100.0 * (got / rows[i].published_gb - 1.0));
        if (got < 0.9 * rows[i].published_gb || got > 1.1 * rows[i].published_gb) bad++;
    }
    assert_int_equal(bad, 0);
}

/* Published figures the model does not reach within 10% yet (known_bug group: expected to fail); the gaps are
 * discussed in docs/diffusion.md (finetrainers' tables include what precomputation left in the allocator's
 * cache and, for full fine-tunes, the DeepSpeed launcher's buffers). */
static void published_misses(void **s) {
    (void)s;
    const published ps[] = {
        /* THUDM README of 27 Aug 2024 (6d7f6e8, diffusers 0.30.1): CogVideoX-2b FP16 with enable_model_cpu_offload and
         * vae.enable_tiling, "12.5GB*" (nvidia-smi). 14.48 GiB (+24.3%) with accelerate 0.33 and T5's fp32 wo (t5_wo_fp32):
         * T5's 10.75 GiB of freed segments stay cached and the transformer step's 130-521 MiB temporaries and the tiles'
         * tensors fit few of T5's blocks (32-160 MiB, one 251 MiB embedding), so they take new segments. With the cache emptied at the hooks
         * (accelerate main after PR #2994, which the README's requirements.txt "suggests") the peak is T5's own phase:
         * 10.85 GiB reserved, 11.60 GiB smi (-0.3%); but the 5b row of the same table then falls to -27%, so the setting is
         * not chosen per row and the pair stays unexplained (docs/diffusion.md). Before the wo mechanism: 13.24 GiB
         * (+13.8%); cli_demo.py's default dtype is bfloat16, which would leave wo in bf16 */
        {"CogVideoX-2b FP16 model offload + VAE tiling (THUDM README: 12.5 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"diffusers\":\"0.30\",\"offload\":\"model\",\"offload_empty_cache\":false,\"vae_tiling\":true}}",
         pipeline_instances("cogvideox-2b", "fp16", 1, 0, 0), "smi", 12.5e9 / 1073741824.0, 1, 1},
        /* diffusers docs/source/en/api/pipelines/cogvideox.md (written in PR #9150, a85b34e7, 14 Aug 2024; CogVideoX-2b fp16,
         * 49 frames 720x480, a-r-r-o-w's replication script): "Without enabling cpu offloading, memory usage is 33 GB",
         * "With enabling cpu offloading ... 19 GB" (the model-offload figure, not the no-offload one). The script in the PR's
         * description prints round(torch.cuda.max_memory_allocated() / 1024**3, 2) labelled "GB", so the figures are read
         * as GiB (until this revision they were read as 10^9 B). The PR's autoencoder_kl_cogvideox.py is v0.30.1's
         * ("diffusers": "0.30"), with accelerate 0.33 (no empty_cache at the offload hooks: offload_empty_cache false).
         * T5-XXL in fp16 keeps its wo in fp32 (t5_wo_fp32): 10.75 GiB. The two figures agree with each other: 33 - 19 =
         * 14 GiB is T5 + the transformer resident (10.75 + 3.15 = 13.90 GiB), so the decode alone is ~18.6 GiB (the docs:
         * "about 19 GB of GPU memory to decode"), where the 0.30.1 conv stack modelled here holds 10.84 GiB + 0.19 GiB of
         * frames: ~7.6 GiB at full resolution is not located (docs/diffusion.md lists what was checked). */
        {"CogVideoX-2b FP16 no offload (diffusers docs: 33 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"diffusers\":\"0.30\"}}",
         pipeline_instances("cogvideox-2b", "fp16", 1, 0, 0), "allocated", 33.0, -1, 1},
        {"CogVideoX-2b FP16 model offload (diffusers docs: 19 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"diffusers\":\"0.30\",\"offload\":\"model\",\"offload_empty_cache\":false}}",
         pipeline_instances("cogvideox-2b", "fp16", 1, 0, 0), "allocated", 19.0, -1, 1},
        /* THUDM README of 29 Aug 2024 (29642ad), CogVideoX-2b: "diffusers BF16: starting from 4GB*" with all optimizations
         * (sequential offload, slicing, tiling). Predicted 4.68 GiB (+25.6%): the 0.30.1 tile decode (2.95 GiB allocated,
         * the same VAE as the 5b's) is the peak for both models, so the README's 1 GB between the 2b and the 5b is not
         * reproduced; "starting from" may mean fewer frames than the 49 assumed here */
        {"CogVideoX-2b BF16 sequential offload + slicing + tiling (THUDM README: from 4 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720,\"diffusion\":{\"diffusers\":\"0.30\",\"offload\":\"sequential\",\"vae_tiling\":true,\"vae_slicing\":true}}",
         pipeline_instances("cogvideox-2b", "bf16", 1, 0, 0), "smi", 4e9 / 1073741824.0, 1, 1},
        /* diffusers docs api/pipelines/mochi.md (e12d610f): "Reproducing the results from the Genmo Mochi repo", the fp32
         * checkpoint, model offload, vae.enable_tiling(), the prompt encoded outside autocast (fp32 T5), the pipeline under
         * torch.autocast("cuda", torch.bfloat16) with the default cache_enabled, 163x480x848, output_type="latent", then
         * vae.decode in fp32 outside autocast: "You will need at least 70GB VRAM". The autocast cache keeps a bf16 copy
         * of all 10.03B transformer weights beside the fp32 ones through the steps (autocast_cache): 61.87 GiB allocated
         * (-11.6% of 70 GiB; -3.8% as nvidia-smi in 10^9 B). Before the cache was modelled: 43.21 GiB (-38.3%). The fp32
         * tiled decode of the 163 frames is 33.65 GiB, below the steps. Not located: ~8 GiB if the figure is allocated GiB */
        {"Mochi 1 fp32 autocast (cache on) 163 frames + fp32 tiled decode (diffusers docs: at least 70 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":163,\"height\":480,\"width\":848,\"diffusion\":{\"offload\":\"model\",\"vae_tiling\":true}}",
         REF("transformer", "mochi-1", "amp_bf16", "") "," REF("text_encoder", "mochi-1/text_encoder", "fp32", "")
             "," REF("vae", "mochi-1/vae", "fp32", ""),
         "allocated", 70.0, 0, 1},
        /* Wan-Video/Wan2.1 README, "Computational Efficiency" table (assets/comp_effic.png, README at 9737cba), "peak GPU
         * memory (GB)", read as nvidia-smi in 10^9 B (the README convention here). Wan's own generate.py
         * (wan/text2video.py at 9737cba): the fp32 WanVAE on the GPU from __init__ (line 82), WanModel.from_pretrained of the
         * fp32 checkpoint moved to the GPU in __init__ (lines 87-110) with requires_grad_(False) (line 88: autocast caches
         * nothing), T5 (bf16) moved to the GPU for the prompts and back with no empty_cache (lines 174-179, skipped with
         * --t5_cpu), the steps under amp.autocast(bf16) (line 204) with cond and uncond as two calls (lines 240-243), then
         * with offload_model the model to the CPU and torch.cuda.empty_cache() (lines 257-259) before the decode: offload
         * "none" with instances[].after_use. T2V-1.3B, 480P (832x480, frame_num 81), one RTX 4090, `--offload_model True
         * --t5_cpu`: "8.19". The transformer's phase: 1,418,996,800 × 4 B, the VAE's 0.47 GiB, the step: 7.46 GiB
         * allocated, 8.55 GiB smi (+12.1%; -2.2% if the table is max_memory_allocated in 10^9 B); since the Wan 2.1 decode
         * is walked (vae_wan.c, the H100's diffusers decode within 3%) 10.24 GiB (+34.2%) with diffusers' decoder, which
         * holds each up block's input through its resnets, and 9.67 GiB (+26.7%) with Wan's own flat Decoder3d ("code":
         * "official", which this row sets); 12.71 GiB (+66.7%) since the decode runs op by op in the allocator replay
         * (events_vae_wan.c: the H100's diffusers decode of this very size reserves 12.58 GiB, modelled within 1.1%,
         * above the table's 8.19 GB for the whole run; what the table measured at the decode is not known).
         * Before the schedule
         * (model offload, the VAE's weights left out): 8.06 GiB (+5.7%). Fits 24 GB */
        {"Wan2.1-T2V-1.3B official generate.py 81x480x832 offload_model t5_cpu (README: 8.19 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832,\"diffusion\":{\"code\":\"official\"}}",
         REF("vae", "wan2.1-t2v-1.3b/vae", "fp32", "") "," REF("transformer", "wan2.1-t2v-1.3b", "amp_bf16", ",\"autocast_cache\":false,\"after_use\":\"cpu_empty_cache\""),
         "smi", 8.19e9 / 1073741824.0, 1, 1},
        /* the same table: T2V-14B, 720P (1280x720, 81 frames), one H800/H100/A800/A100/H20, `--offload_model True`: "69.1"
         * (64.35 GiB). The allocated peak is T5's phase: 14,288,491,584 × 4 B = 53.23 GiB + the VAE's 0.47 + T5's 10.58 +
         * its forward = 64.52 GiB (+0.3% as max_memory_allocated in 10^9 B); reserved keeps T5's freed 33-84 MB segments,
         * which the step's 0.77-2.1 GB tensors cannot reuse: 71.33 GiB reserved, 72.08 smi (+12.0%). Fits 80 GB, as the
         * table says. Before the schedule (offload "none", T5 and the transformer resident through the decode):
         * 84.76 GiB (+31.7%, did not fit 80 GB) */
        {"Wan2.1-T2V-14B official generate.py 81x720x1280 offload_model (README: 69.1 GB)",
         "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":720,\"width\":1280,\"diffusion\":{\"code\":\"official\"}}",
         REF("vae", "wan2.1-t2v-14b/vae", "fp32", "") "," REF("transformer", "wan2.1-t2v-14b", "amp_bf16", ",\"autocast_cache\":false,\"after_use\":\"cpu_empty_cache\"")
             "," REF("text_encoder", "wan2.1-t2v-14b/text_encoder", "bf16", ",\"after_use\":\"cpu\""),
         "smi", 69.1e9 / 1073741824.0, -1, 1},
        /* cogvideox-factory's CogVideoX-2b full fine-tune, 8-bit AdamW, batch 4 (LEGACY_SFT, the comment in
         * published_within_10): +10.8% since the attention Linears are their own tensors (+3.8% before, with them one
         * tensor after the blocks); the .grad, state and temporary tensors now have the module's sizes, and the
         * reserved memory above the allocated peak is the step-2 forward's, as for the 5b full fine-tune above */
        {"CogVideoX-2b full GC 8-bit AdamW bs4 (cogvideox-factory: 27.930)", LEGACY_WL(4), LEGACY_SFT("cogvideox-2b", "adamw_8bit"), "reserved", 27.930, 0, 1},
    };
    check_published(ps, sizeof ps / sizeof ps[0]);
}

int main(int argc, char **argv) {
    const struct CMUnitTest pub[] = {cmocka_unit_test(published_within_10), cmocka_unit_test(published_claims), cmocka_unit_test(legacy_deepspeed),
                                     cmocka_unit_test(flux_quantization_load)};
    const struct CMUnitTest pub_bugs[] = {cmocka_unit_test(published_misses), cmocka_unit_test(thudm_deepspeed_sft)};
    int rc = 0;
    rc |= T_RUN("diffusion_published", pub, argc, argv);
    rc |= T_RUN("diffusion_published_bugs", pub_bugs, argc, argv);
    return rc;
}
