/* vlm_images.c: the memory of images in a vision-language model (issue 13).
 *
 * An image enters the decoder as placeholder tokens that the processor expands and the model fills
 * with projected vision features (transformers 5.x models/<family>/processing_*.py and
 * modeling_*.py get_image_features). Those tokens are ordinary decoder positions: they run through
 * every block, get logits, and fill the KV cache in inference, so they join workload.seq
 * (vp_plan_apply_images). The tower itself runs once per image over its own patches before the
 * decoder: in training its blocks save their activations like a ViT (activations_vit.c) when the
 * tower trains, and only its output stays when it is frozen; in inference one block's temporaries
 * are alive at a time.
 *
 * Images are taken as square, side workload.image_size (or the family's default, below). */
#include <math.h>
#include <string.h>

#include "activations.h"
#include "util.h"
#include "vlm_images.h"

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* image_processing_utils.py select_best_resolution: the pinpoint that keeps the most of the image's
 * resolution after an aspect-preserving resize, then the one that wastes the least. */
static void best_resolution(const vp_arch *a, int64_t oh, int64_t ow, int64_t *bh, int64_t *bw) {
    double best_eff = 0, best_waste = INFINITY;
    *bh = a->vis_pin[0][0];
    *bw = a->vis_pin[0][1];
    for (int i = 0; i < a->vis_n_pin; i++) {
        double h = (double)a->vis_pin[i][0], w = (double)a->vis_pin[i][1];
        double sc = fmin(w / (double)ow, h / (double)oh);
        double dw = floor((double)ow * sc), dh = floor((double)oh * sc);
        double eff = fmin(dw * dh, (double)ow * (double)oh), waste = h * w - eff;
        if (eff > best_eff || (eff == best_eff && waste < best_waste)) {
            best_eff = eff;
            best_waste = waste;
            *bh = a->vis_pin[i][0];
            *bw = a->vis_pin[i][1];
        }
    }
}

int64_t vp_image_tokens(const vp_arch *a, int64_t side, int64_t *tower) {
    int64_t dummy;
    if (!tower) tower = &dummy;
    *tower = 0;
    if (a->vis_rule == VP_VIS_NONE || a->vis_patch <= 0 || a->vis_image <= 0) return 0;
    int64_t p = a->vis_patch, m = a->vis_merge > 0 ? a->vis_merge : 1;
    int64_t g = a->vis_image / p; /* patches per side of one tile */
    switch (a->vis_rule) {
    case VP_VIS_LLAVA:
        /* processing_llava.py: num_image_tokens = (crop/p)^2 + 1, minus 1 under "default"
         * (modeling_llava.py get_image_features drops the CLS feature: selected[:, 1:]); the image is
         * resized to the tower's crop, so its size does not matter */
        *tower = g * g + 1;
        return g * g + (a->vis_keep_cls ? 1 : 0);
    case VP_VIS_LLAVA_NEXT: {
        /* processing_llava_next.py _get_number_of_features: base tile (crop/p)^2 (+1, -1 under
         * "default") + the best-fit pinpoint's grid of tiles, unpadded back to the image's aspect
         * (_get_unpadded_features), + one image_newline per row. Default side: 672 (llava-v1.6's
         * largest square pinpoint) */
        int64_t s = side > 0 ? side : 672, bh, bw;
        if (a->vis_n_pin <= 0) return 0;
        best_resolution(a, s, s, &bh, &bw);
        int64_t sh = bh / a->vis_image, sw = bw / a->vis_image;
        if (sh < 1) sh = 1;
        if (sw < 1) sw = 1;
        int64_t ch = g * sh, cw = g * sw; /* current_height, current_width in features */
        /* the image is square: original aspect 1 against cw/ch */
        if (cw < ch) { /* original wider than the grid: pad rows */
            int64_t nh = (int64_t)llround((double)s * ((double)cw / (double)s));
            ch -= 2 * ((ch - nh) / 2);
        } else if (cw > ch) {
            int64_t nw = (int64_t)llround((double)s * ((double)ch / (double)s));
            cw -= 2 * ((cw - nw) / 2);
        }
        *tower = (1 + sh * sw) * (g * g + 1); /* the base tile and every grid tile through CLIP */
        return ch * cw + ch + g * g + (a->vis_keep_cls ? 1 : 0);
    }
    case VP_VIS_FIXED:
        /* gemma3: SigLIP over (S/p)^2 patches (no class token), Gemma3MultiModalProjector avg-pools
         * them to mm_tokens_per_image (processing_gemma3.py image_seq_length); fixed 896 input */
        *tower = g * g;
        return a->vis_tokens;
    case VP_VIS_QWEN: {
        /* image_processing_qwen2_vl.py smart_resize: each side rounded to a multiple of p·merge
         * (28), at least 56 px; the tower sees (H/p)(W/p) patches (the temporal patch of 2 repeats
         * the frame, so it adds no tokens), PatchMerger merges merge^2 = 4 of them into one token.
         * Default side 448 (our assumption; the processor's pixel bounds admit 56..3584, preprocessor_config
         * min_pixels 3136, max_pixels 12845056) */
        int64_t s = side > 0 ? side : 448, f = p * m;
        int64_t r = (int64_t)llround((double)s / (double)f) * f;
        if (r < 2 * f) r = 2 * f; /* min_pixels 56 × 56 */
        if (r > 3584) r = 3584 / f * f; /* max_pixels 12,845,056 = 3584^2 (floor(side / beta / f) · f) */
        *tower = (r / p) * (r / p);
        return *tower / (m * m);
    }
    case VP_VIS_PIXTRAL: {
        /* image_processing_pixtral.py get_resize_output_image_size: the longest side is at most the
         * tower's image_size, tokens per side = ceil(side / (p · spatial_merge_size)) (processing_
         * mistral3.py passes patch_size · merge); each row of image tokens ends with [IMG_BREAK],
         * the last with [IMG_END] (processing_pixtral.py): rows · (cols + 1). The tower runs over
         * the unmerged patches. Default side: the tower's image_size (1540) */
        int64_t s = side > 0 ? side : a->vis_image;
        if (s > a->vis_image) s = a->vis_image;
        int64_t n = cdiv(s, p * m);
        *tower = (n * m) * (n * m);
        return n * (n + 1);
    }
    case VP_VIS_LLAMA4: {
        /* image_processing_llama4_fast.py: tiles of the tower's image_size (336), at most
         * max_patches 16, plus a global tile when there is more than one; Llama4VisionModel runs each
         * tile over (336/14)^2 + 1 (class token) positions, pixel shuffle 0.5 keeps
         * 576 · 0.25 = 144 tokens per tile (vis_merge = 2: 1/ratio). processing_llama4.py
         * _prompt_split_image: <|image_start|>, per tile 144 <|patch|> + one x/y separator, then
         * <|image|> + 144 for the global tile + <|image_end|>. Default side 336: one tile */
        int64_t s = side > 0 ? side : a->vis_image;
        int64_t t = cdiv(s, a->vis_image);
        if (t > 4) t = 4; /* max_patches 16 = 4 × 4 for a square image */
        int64_t per = (g / m) * (g / m);
        int64_t tiles = t * t > 1 ? t * t + 1 : 1;
        *tower = tiles * (g * g + (a->vis_cls ? 1 : 0));
        return 3 + per + (t * t > 1 ? t * t * (per + 1) : 0);
    }
    default: return 0;
    }
}

vp_status vp_plan_apply_images(vp_plan *plan, vp_error *err) {
    plan->image_tokens = 0;
    if (plan->images <= 0) return VP_OK;
    const vp_instance *vlm = NULL;
    for (int i = 0; i < plan->n_instances && !vlm; i++)
        if (plan->inst[i].arch.vis_rule != VP_VIS_NONE) vlm = &plan->inst[i];
    if (!vlm)
        return vp_fail(err, VP_ERR_FIELD, "workload.images",
                       "workload.images needs a vision-language model (llava, llava_next, gemma3, qwen2_vl, qwen2_5_vl, "
                       "mistral3, llama4 with a vision_config); no instance has a vision tower");
    int64_t tower = 0;
    int64_t per = vp_image_tokens(&vlm->arch, plan->image_size, &tower);
    double add = (double)plan->images * (double)per;
    double vis = (double)plan->batch * (double)plan->images * (double)tower;
    /* the tower's saved bytes must stay far inside int64 as plan_parse.c's magnitudes do (64 B per
     * hidden and 16 B per intermediate element per layer bound every term here) */
    const vp_arch *a = &vlm->arch;
    double vis_bytes = vis * (double)a->vis_layers * (64.0 * (double)a->vis_hidden + 16.0 * (double)a->vis_inter);
    if ((double)plan->seq + add > 16777216.0 || vis > 4294967296.0 || vis_bytes > 2.3e18)
        return vp_fail(err, VP_ERR_RANGE, "workload.images",
                       "workload.images = %lld images of %lld tokens (%lld tower positions) each: too many tokens to plan",
                       (long long)plan->images, (long long)per, (long long)tower);
    plan->image_tokens = plan->images * per;
    plan->seq += plan->image_tokens;
    return VP_OK;
}

/* The tower as a ViT instance (activations_vit.c accounts its block per token). */
static void tower_acts(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    vp_instance t = *in;
    vp_arch *a = &t.arch;
    const vp_arch *s = &in->arch;
    memset(a, 0, sizeof *a);
    a->kind = VP_KIND_VIT;
    a->hidden = s->vis_hidden;
    a->inter = s->vis_inter;
    a->layers = s->vis_layers;
    a->heads = a->kv_heads = s->vis_heads > 0 ? s->vis_heads : 1;
    a->head_dim = a->hidden / a->heads;
    a->channels = 3;
    a->patch_size = s->vis_patch;
    a->image_size = s->vis_image;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 2;
    /* vp_acts_vit reads plan->image_size and batch only for its own token count, which this file
     * replaces with the tower's; the per-token terms are what is used */
    memset(r, 0, sizeof *r);
    vp_acts_vit(plan, &t, r);
}

void vp_acts_vision(const vp_plan *plan, const vp_instance *in, vp_acts *r) {
    if (plan->images <= 0 || in->arch.vis_rule == VP_VIS_NONE || r->tokens <= 0) return;
    if (in->activations != VP_ACT_TRAIN && in->activations != VP_ACT_KEEP_GRAPH) return;
    int64_t tower = 0;
    vp_image_tokens(&in->arch, plan->image_size, &tower);
    double T = (double)plan->batch * (double)plan->images * (double)tower; /* tower positions per micro-batch */
    vp_acts v;
    tower_acts(plan, in, &v);
    const vp_act_dtypes dt = vp_act_dtypes_of(in);
    /* frozen tower (LoRA, or a frozen base): nothing in it or in the projector needs a gradient, so
     * autograd saves nothing there; the projected features are copied into inputs_embeds
     * (masked_scatter), which the decoder's own accounting already holds as its first input */
    if (!dt.full) return;
    /* a trained tower saves each block's tensors (activations_vit.c per token; the s×s terms of eager
     * attention are left out: the towers run SDPA by default), or only each block's input under
     * gradient checkpointing (gradient_checkpointing_enable reaches the tower's encoder layers too);
     * plus the projector's inputs, approximated as one tower-width input per merged image token and
     * two decoder-width tensors (GELU input, linear_2 input: LlavaMultiModalProjector) */
    double blk = in->gc_every > 0 ? v.ckpt_layer : v.layer - v.layer_attn_s;
    /* a gated MLP (Pixtral, Qwen2.5-VL towers) saves gate and up outputs and act(gate) besides the
     * down input, where fc1/GELU/fc2 saves two f-wide tensors: two more */
    if (in->arch.vis_gated && in->gc_every <= 0) blk += 2.0 * dt.adt * (double)in->arch.vis_inter;
    double img = (double)plan->batch * (double)plan->image_tokens;
    double bytes = T * ((double)in->arch.vis_layers * blk + v.outside) +
                   img * dt.adt * ((double)in->arch.vis_hidden + 2.0 * (double)in->arch.hidden);
    r->outside += bytes / (double)r->tokens;
}

double vp_vision_infer_peak(const vp_plan *plan, const vp_instance *in, double *tokens) {
    *tokens = 0;
    if (plan->images <= 0 || in->arch.vis_rule == VP_VIS_NONE) return 0;
    int64_t tower = 0;
    vp_image_tokens(&in->arch, plan->image_size, &tower);
    double T = (double)plan->batch * (double)plan->images * (double)tower;
    *tokens = T;
    /* one encoder block at a time under no_grad, its largest moment inside the MLP: fc1's output and
     * the activation's (2 × f) beside the residual stream, the normed input and the attention sum
     * (3 × e), as the decoder's prefill (timeline_infer.c); the tower's output lives alongside */
    double adt = vp_dtype_bytes(vp_act_dtype(in));
    double e = (double)in->arch.vis_hidden, f = (double)in->arch.vis_inter;
    /* gated towers: act(gate), up and their product (the decoder's 3 × f) */
    return T * adt * ((in->arch.vis_gated ? 3.0 : 2.0) * f + 3.0 * e + e);
}
