/* weights.c: resident weights (plain or quantized), adapters, and gradient buffers. */
#include "terms.h"

/* bitsandbytes 4-bit storage (memory-facts.md §3, bitsandbytes functional.py quantize_4bit):
 * two values per byte + one fp32 absmax per 64-element block; with double quantization the
 * absmax are uint8 with one fp32 constant per 256 blocks. Bytes per parameter: */
static double nf4_bytes_per_param(int double_quant) {
    return double_quant ? 0.5 + 1.0 / 64.0 + 4.0 / (64.0 * 256.0) : 0.5 + 4.0 / 64.0;
}

static int64_t adapter_params_per_layer(const vp_instance *in) {
    /* bottleneck adapter after each block's attention: Linear(h, r) + Linear(r, h), with biases
     * (Houlsby et al. 2019; the CogVideoX unlearning adapters of shared/seeds/000) */
    int64_t h = in->arch.hidden, r = in->adapter_dim;
    return h * r + r + r * h + h;
}

int64_t vp_layerwise_cast_params(const vp_instance *in, int all) {
    if (in->quant != VP_QUANT_FP8) return 0;
    /* the blocks' Linears less their "norm"-named ones, as vp_weights_compute stores them in float8 */
    int64_t cast = in->pc.linear_in_layers - in->arch.d.norm_linear;
    if (all) return cast;
    /* the last block runs its backward first: FLUX / HunyuanVideo's last single-stream block (dit_params.c
     * d.last_linear); the other families' d.linear is layers × one block's (dit_params.c finish(); SD3's and Mochi's
     * smaller context_pre_only last block is counted like the others there too), so one block's is the total over
     * the blocks */
    if (in->arch.d.last_linear > 0) return in->arch.d.last_linear;
    int64_t blocks = in->arch.layers + in->arch.d.blocks2;
    return blocks > 0 ? cast / blocks : cast;
}

void vp_weights_compute(const vp_instance *in, vp_weights *w) {
    const vp_param_counts *pc = &in->pc;
    int pb = vp_dtype_bytes(vp_param_dtype(in));
    w->base_params = pc->total;
    w->adapter_params = 0;
    if (in->ft == VP_FT_LORA || in->ft == VP_FT_QLORA)
        w->adapter_params = vp_lora_params_total(in);
    else if (in->ft == VP_FT_ADAPTER)
        w->adapter_params = adapter_params_per_layer(in) * in->arch.layers;

    /* quantization applies to the linears inside the blocks; embeddings, norms and the output
     * head stay in the compute dtype (transformers quantizers/base.py modules_to_not_convert) */
    int64_t quantized = in->quant == VP_QUANT_NONE ? 0 : pc->linear_in_layers;
    double qb = 0, qconst = 0;
    if (in->quant == VP_QUANT_INT8) {
        qb = 1.0;                                            /* int8 weight */
        qconst = 4.0 / (double)(in->arch.hidden > 0 ? in->arch.hidden : 1); /* fp32 row scale per output row (SCB) */
    } else if (in->quant == VP_QUANT_NF4 || in->quant == VP_QUANT_FP4) {
        qb = 0.5;
        qconst = nf4_bytes_per_param(in->double_quant) - 0.5;
    } else if (in->quant == VP_QUANT_FP8) {
        /* layerwise casting (diffusers hooks/layerwise_casting.py apply_layerwise_casting, at 58eb52c0): the weights of the
         * supported leaf layers (Linear, Conv) are stored as torch.float8_e4m3fn / e5m2, 1 B, with no scales;
         * modules whose qualified name matches a skip pattern (re.search, line 178; DEFAULT_SKIP_MODULES_PATTERN line 31:
         * pos_embed, patch_embed, norm, ^proj_in$, ^proj_out$; each model's _skip_layerwise_casting_patterns, e.g.
         * CogVideoX ["patch_embed", "norm"]) keep the compute dtype: the blocks' linears are stored in fp8, the rest in
         * the compute dtype */
        qb = 1.0;
        /* the adaptive-norm Linears inside the blocks (norm1.linear, norm1_context.linear, ...) match "norm" and
         * keep the compute dtype (SD3's linear count already leaves them out; LTX and Wan have none) */
        quantized -= in->arch.d.norm_linear;
    }
    /* transformers' from_pretrained(torch_dtype=torch.float16) keeps the modules a class lists in
     * _keep_in_fp32_modules in fp32 (modeling_utils.py, 4.3x-4.4x: use_keep_in_fp32_modules =
     * (cls._keep_in_fp32_modules is not None) and ((torch_dtype == torch.float16) or hasattr(hf_quantizer,
     * "use_keep_in_fp32_modules"))): T5PreTrainedModel and UMT5PreTrainedModel list ["wo"], the FFN output
     * Linear of every block, so a T5-XXL encoder loaded in fp16 holds its 24 × 10240 × 4096 wo weights at 4 B
     * (bf16 loads leave them bf16). Pure fp16 only: the fp16_master recipes (DeepSpeed's fp16 engine, Megatron --fp16)
     * convert the whole module with .half(). bitsandbytes' quantizers ask for it whatever the dtype
     * (quantizer_bnb_8bit.py / quantizer_bnb_4bit.py: use_keep_in_fp32_modules = True) and leave those modules
     * unquantized (_process_model_before_weight_loading: modules_to_not_convert.extend(keep_in_fp32_modules)): an 8-bit
     * or 4-bit T5 keeps wo in fp32 (the diffusers SD3 LoRA project's compute_embeddings.py: 8-bit T5 "~10.5GB") */
    int bnb = in->quant == VP_QUANT_INT8 || in->quant == VP_QUANT_NF4 || in->quant == VP_QUANT_FP4;
    int64_t keep = in->arch.d.fp32_keep > 0 && ((in->precision == VP_PREC_FP16 && in->quant == VP_QUANT_NONE) || bnb)
                       ? in->arch.d.fp32_keep
                       : 0;
    if (bnb) quantized -= keep;
    int64_t unq = pc->total - quantized;
    w->base_bytes = unq * pb + (int64_t)((double)quantized * qb) + keep * (4 - pb);
    /* a diffusion component's floating buffers (dit_params.c / vae*.c d.buffers: SD3's persistent sincos pos_embed,
     * CogVideoX-2b's non-persistent sincos table, CogVideoX-5b-I2V's learned one, LTX's latent statistics) go to the
     * GPU with the module and in its dtype: diffusers' ModelMixin.from_pretrained(torch_dtype=...) builds the model
     * under torch.set_default_dtype(torch_dtype) (modeling_utils.py _set_default_torch_dtype, at 58eb52c0), so a
     * buffer made in __init__ takes that dtype, and loads the persistent ones from the checkpoint cast to it */
    w->base_bytes += in->arch.d.buffers * pb;
    /* gpt-oss experts kept in MXFP4 by transformers' Mxfp4HfQuantizer (integrations/mxfp4.py: uint8
     * blocks of two 4-bit values + one uint8 scale per 32) when the model only runs; training
     * dequantizes them (Mxfp4Config(dequantize=True)) */
    int learns_full = in->ft == VP_FT_FULL && (in->activations == VP_ACT_TRAIN || in->activations == VP_ACT_KEEP_GRAPH);
    w->mxfp4_params = 0;
    if (in->arch.mxfp4_params > 0 && in->quant == VP_QUANT_NONE && !learns_full) {
        w->mxfp4_params = in->arch.mxfp4_params;
        w->base_bytes -= in->arch.mxfp4_params * pb - in->arch.mxfp4_params * 17 / 32;
    }
    w->fp32_keep_params = keep; /* (above, with the quantized count) */
    w->quant_const_bytes = (int64_t)((double)quantized * qconst);
    w->adapter_bytes = w->adapter_params * vp_dtype_bytes(in->lora_dtype);
    if (in->ft == VP_FT_ADAPTER) w->adapter_bytes = w->adapter_params * pb;

    /* trainable parameters */
    int learns = in->activations == VP_ACT_TRAIN || in->activations == VP_ACT_KEEP_GRAPH;
    if (in->ft == VP_FT_FULL && learns) {
        int64_t frozen = 0;
        if (in->freeze & VP_FREEZE_EMBED) frozen += pc->embed;
        if (in->freeze & VP_FREEZE_LM_HEAD) frozen += pc->lm_head;
        if (in->freeze & VP_FREEZE_ATTN) frozen += pc->per_layer_attn * in->arch.layers;
        if (in->freeze & VP_FREEZE_MLP) frozen += pc->layers_total - (pc->per_layer_attn + pc->per_layer_norm) * in->arch.layers;
        if (in->freeze & VP_FREEZE_NORMS) frozen += pc->per_layer_norm * in->arch.layers + pc->final_norm;
        w->trainable = pc->total - frozen;
        w->grad_dtype = vp_param_dtype(in);
        w->grad_bytes = w->trainable * pb;
    } else if (learns && (in->ft == VP_FT_LORA || in->ft == VP_FT_QLORA || in->ft == VP_FT_ADAPTER)) {
        w->trainable = w->adapter_params;
        w->grad_dtype = in->ft == VP_FT_ADAPTER ? vp_param_dtype(in) : in->lora_dtype;
        w->grad_bytes = w->trainable * vp_dtype_bytes(w->grad_dtype);
    } else {
        w->trainable = 0;
        w->grad_dtype = vp_param_dtype(in);
        w->grad_bytes = 0;
    }
}
