/* lora.c: LoRA adapter parameters and the activations PEFT's lora.Linear saves.
 * Parameters: PEFT LoraLayer.update_layer (peft src/peft/tuners/lora/layer.py L255-264):
 *   lora_A = Linear(in, r, bias=False), lora_B = Linear(r, out)  ->  r·(in + out) per module.
 * Activations: lora.Linear.forward (same file, L1035-1075): x is cast to the adapter dtype
 * (_cast_input_dtype), passed through Dropout (bool mask saved when p > 0), lora_A saves its
 * input, lora_B saves lora_A's output (memory-facts.md §4.2, measured in §1.4). */
#include "terms.h"

typedef struct {
    unsigned bit;
    int64_t in, out;
} lora_mod;

/* The adaptable linears of one block, with their (in, out) widths. */
static int block_modules(const vp_instance *inst, lora_mod *m) {
    const vp_arch *a = &inst->arch;
    int64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    int64_t f = a->experts ? a->expert_inter * a->experts_per_tok : a->inter;
    int n = 0;
    if (a->kind == VP_KIND_DECODER && a->ssm && a->ssm_layers == a->layers) {
        /* mamba blocks hold only the mixer. MambaMixer (modeling_mamba.py): in_proj Linear(h, 2·inner),
         * x_proj Linear(inner, R + 2N), dt_proj Linear(R, inner), out_proj Linear(inner, h).
         * Mamba2Mixer (modeling_mamba2.py): in_proj Linear(h, inner + conv_dim + H) with
         * conv_dim = inner + 2·G·N, out_proj Linear(inner, h). */
        int64_t in = a->ssm_inner, N = a->ssm_state;
        if (a->ssm == 1) {
            m[n++] = (lora_mod){VP_T_SSM_IN, h, 2 * in};
            m[n++] = (lora_mod){VP_T_SSM_X, in, a->ssm_dt_rank + 2 * N};
            m[n++] = (lora_mod){VP_T_SSM_DT, a->ssm_dt_rank, in};
        } else {
            m[n++] = (lora_mod){VP_T_SSM_IN, h, 2 * in + 2 * a->ssm_groups * N + a->ssm_heads};
        }
        m[n++] = (lora_mod){VP_T_SSM_OUT, in, h};
        return n;
    }
    if (a->kind == VP_KIND_DECODER) {
        if (a->mla_kv_rank) {
            /* DeepseekV3Attention (modeling_deepseek_v3.py): q_a_proj Linear(h, q_rank) + q_b_proj
             * Linear(q_rank, a·(nope + rope)), or q_proj Linear(h, a·(nope + rope)); kv_a_proj_with_mqa
             * Linear(h, kv_rank + rope), kv_b_proj Linear(kv_rank, a·(nope + v)); o_proj Linear(a·v, h) */
            int64_t qk = a->heads * (a->mla_nope_dim + a->mla_rope_dim);
            if (a->mla_q_rank) {
                m[n++] = (lora_mod){VP_T_Q_A, h, a->mla_q_rank};
                m[n++] = (lora_mod){VP_T_Q_B, a->mla_q_rank, qk};
            } else {
                m[n++] = (lora_mod){VP_T_Q, h, qk};
            }
            m[n++] = (lora_mod){VP_T_KV_A, h, a->mla_kv_rank + a->mla_rope_dim};
            m[n++] = (lora_mod){VP_T_KV_B, a->mla_kv_rank, a->heads * (a->mla_nope_dim + a->mla_v_dim)};
            m[n++] = (lora_mod){VP_T_O, a->heads * a->mla_v_dim, h};
            if (a->experts) return n;
        } else if (a->fused_qkv) {
            m[n++] = (lora_mod){VP_T_QKV, h, q + 2 * kv};
        } else {
            m[n++] = (lora_mod){VP_T_Q, h, q};
            m[n++] = (lora_mod){VP_T_K, h, kv};
            m[n++] = (lora_mod){VP_T_V, h, kv};
        }
        if (!a->mla_kv_rank) m[n++] = (lora_mod){VP_T_O, q, h};
        if (a->experts) return n; /* expert linears are not adapted by name in PEFT's defaults */
        if (a->fused_gate_up) {
            m[n++] = (lora_mod){VP_T_GATE_UP, h, 2 * f};
        } else if (a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU) {
            m[n++] = (lora_mod){VP_T_GATE, h, f};
            m[n++] = (lora_mod){VP_T_UP, h, f};
        } else {
            m[n++] = (lora_mod){VP_T_FC1, h, f};
        }
        m[n++] = (lora_mod){(a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU) ? VP_T_DOWN : VP_T_FC2, f, h};
    } else if (a->kind == VP_KIND_T5) {
        m[n++] = (lora_mod){VP_T_Q, h, q};
        m[n++] = (lora_mod){VP_T_K, h, q};
        m[n++] = (lora_mod){VP_T_V, h, q};
        m[n++] = (lora_mod){VP_T_O, q, h};
        if (a->mlp == VP_MLP_GEGLU) { /* T5DenseGatedActDense: wi_0, wi_1 (modeling_t5.py) */
            m[n++] = (lora_mod){VP_T_GATE, h, f};
            m[n++] = (lora_mod){VP_T_UP, h, f};
        } else {
            m[n++] = (lora_mod){VP_T_FC1, h, f};
        }
        m[n++] = (lora_mod){VP_T_FC2, f, h};
    } else {
        /* gpt2 c_attn / vit qkv (fused), output projection, fc1, fc2; dit to_q/k/v/out, ff */
        if (a->kind == VP_KIND_DIT) {
            m[n++] = (lora_mod){VP_T_Q, h, h};
            m[n++] = (lora_mod){VP_T_K, h, h};
            m[n++] = (lora_mod){VP_T_V, h, h};
        } else {
            m[n++] = (lora_mod){VP_T_QKV, h, 3 * h};
        }
        m[n++] = (lora_mod){VP_T_O, h, h};
        m[n++] = (lora_mod){VP_T_FC1, h, f};
        m[n++] = (lora_mod){VP_T_FC2, f, h};
    }
    return n;
}

/* DiTs with a cross-attention in every block (LTXVideoTransformerBlock.attn2, WanTransformerBlock.attn2): its
 * to_q, to_k, to_v, to_out.0 carry the same names, so PEFT adapts them too, all hidden × hidden (the text is
 * projected to the hidden width first: LTX caption_projection with cross_attention_dim = hidden, Wan
 * condition_embedder). finetrainers' LTX-Video LoRA r128 log: "trainable parameters": 117440512 =
 * 28 blocks × 8 modules × 128 × (2048 + 2048). Returns how many of the four the targets select. */
static int dit_cross_modules(const vp_instance *in) {
    if (in->arch.kind != VP_KIND_DIT || in->arch.d.attn_per_block < 2) return 0;
    const unsigned bits[] = {VP_T_Q, VP_T_K, VP_T_V, VP_T_O};
    int k = 0;
    for (int i = 0; i < 4; i++) k += (in->lora_targets & bits[i]) != 0;
    return k;
}

int64_t vp_lora_layers(const vp_instance *in) {
    const vp_arch *a = &in->arch;
    return a->kind == VP_KIND_T5 ? a->layers + a->dec_layers : a->layers;
}

int64_t vp_lora_params_per_layer(const vp_instance *in) {
    if (in->ft != VP_FT_LORA && in->ft != VP_FT_QLORA) return 0;
    lora_mod m[12];
    int n = block_modules(in, m);
    int64_t p = 0;
    for (int i = 0; i < n; i++)
        if (in->lora_targets & m[i].bit) p += in->lora_r * (m[i].in + m[i].out);
    p += in->lora_r * 2 * in->arch.hidden * dit_cross_modules(in);
    /* MoE blocks: every expert's linears when the expert names are targeted */
    return p;
}

/* Adapters on one MLP of intermediate f (0 when f is 0), the decoder MLP of block_modules. */
static int64_t mlp_params(const vp_instance *in, int64_t f) {
    const vp_arch *a = &in->arch;
    int64_t h = a->hidden, p = 0;
    unsigned t = in->lora_targets;
    int gated = a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU;
    if (f <= 0) return 0;
    if (a->fused_gate_up) {
        if (t & VP_T_GATE_UP) p += h + 2 * f;
    } else if (gated) {
        if (t & VP_T_GATE) p += h + f;
        if (t & VP_T_UP) p += h + f;
    } else if (t & VP_T_FC1) {
        p += h + f;
    }
    if (t & (gated ? VP_T_DOWN : VP_T_FC2)) p += f + h;
    return in->lora_r * p;
}

/* All adapter parameters. Hybrid state-space stacks (jamba) differ per block: JambaAttentionDecoderLayer
 * has q/k/v/o_proj, JambaMambaDecoderLayer a JambaMambaMixer (MambaMixer's in/x/dt/out_proj shapes);
 * blocks with one expert have JambaMLP gate/up/down_proj, the others JambaExperts, stacked
 * parameters (MixtralExperts) that PEFT does not adapt by name (modeling_jamba.py). */
int64_t vp_lora_params_total(const vp_instance *in) {
    const vp_arch *a = &in->arch;
    if (in->ft != VP_FT_LORA && in->ft != VP_FT_QLORA) return 0;
    if (a->kind == VP_KIND_T5) {
        /* T5 decoder blocks also hold the cross-attention T5Attention (layer[1].EncDecAttention), whose
         * q, k, v, o the same names select (modeling_t5.py T5LayerCrossAttention) */
        int64_t h = a->hidden, q = a->heads * a->head_dim, cross = 0;
        if (in->lora_targets & VP_T_Q) cross += h + q;
        if (in->lora_targets & VP_T_K) cross += h + q;
        if (in->lora_targets & VP_T_V) cross += h + q;
        if (in->lora_targets & VP_T_O) cross += q + h;
        return vp_lora_params_per_layer(in) * vp_lora_layers(in) + in->lora_r * cross * a->dec_layers;
    }
    if (a->kind == VP_KIND_DECODER && a->experts && !a->ssm) {
        /* MoE decoders: the routed experts are stacked parameters PEFT does not adapt by name, but the
         * MLP names select the dense blocks' MLP (deepseek first_k_dense_replace, llama4
         * intermediate_size_mlp, qwen3_moe mlp_only_layers) and the shared expert MLP of the sparse
         * blocks (DeepseekV3MoE.shared_experts = MLP(moe_intermediate_size · n_shared_experts),
         * Qwen2MoeSparseMoeBlock.shared_expert, Llama4TextMoe.shared_expert) */
        int64_t n_moe = a->moe_layers, n_dense = a->layers - n_moe;
        int64_t fs = a->shared_expert_inter ? a->shared_expert_inter : a->expert_inter * a->shared_experts;
        return vp_lora_params_per_layer(in) * a->layers + mlp_params(in, a->inter) * n_dense + mlp_params(in, fs) * n_moe;
    }
    if (a->kind == VP_KIND_DIT && a->d.blocks2 > 0) {
        /* single-stream blocks (FluxSingleTransformerBlock, HunyuanVideoSingleTransformerBlock): an Attention with
         * pre_only=True, so to_q, to_k, to_v (hidden × hidden) and no to_out (transformer_flux.py
         * FluxSingleTransformerBlock, transformer_hunyuan_video.py HunyuanVideoSingleTransformerBlock; diffusers
         * attention_processor.py Attention: `if not self.pre_only: self.to_out = ...`). The FLUX QLoRA blog's r4 count on
         * to_q/k/v/to_out.0: 4,669,440 = (19 × 4 + 38 × 3) × 4 × (3072 + 3072). */
        int single = 0, four = 0;
        const unsigned bits[] = {VP_T_Q, VP_T_K, VP_T_V, VP_T_O};
        for (int i = 0; i < 4; i++) four += (in->lora_targets & bits[i]) != 0, single += i < 3 && (in->lora_targets & bits[i]);
        /* HunyuanVideo's token refiner blocks (HunyuanVideoIndividualTokenRefinerBlock.attn: to_q/k/v/out.0, h × h):
         * finetrainers' HunyuanVideo LoRA r128 log, "trainable parameters": 163,577,856 =
         * (20 × 4 + 40 × 3 + 2 × 4) × 128 × (3072 + 3072) */
        return vp_lora_params_per_layer(in) * vp_lora_layers(in) + in->lora_r * 2 * a->hidden * single * a->d.blocks2 +
               in->lora_r * 2 * a->hidden * four * a->d.attn_extra;
    }
    if (a->kind == VP_KIND_DIT && a->d.dual_layers > 0) {
        /* SD3.5-medium's dual-attention blocks (attention.py JointTransformerBlock, use_dual_attention): attn2 is an
         * Attention over the image tokens with its own to_q, to_k, to_v, to_out.0 (h × h), which the same names
         * select */
        int four = 0;
        const unsigned bits[] = {VP_T_Q, VP_T_K, VP_T_V, VP_T_O};
        for (int i = 0; i < 4; i++) four += (in->lora_targets & bits[i]) != 0;
        return vp_lora_params_per_layer(in) * vp_lora_layers(in) + in->lora_r * 2 * a->hidden * four * a->d.dual_layers;
    }
    if (a->head_denses && (in->lora_targets & VP_T_O)) /* bert "dense" outside the blocks, Linear(h, h) each */
        return vp_lora_params_per_layer(in) * vp_lora_layers(in) + in->lora_r * 2 * a->hidden * a->head_denses;
    if (!(a->kind == VP_KIND_DECODER && a->ssm == 1 && a->ssm_layers < a->layers))
        return vp_lora_params_per_layer(in) * vp_lora_layers(in);
    int64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim, in_ = a->ssm_inner;
    int64_t R = a->ssm_dt_rank, N = a->ssm_state, f = a->inter;
    int64_t n_attn = a->layers - a->ssm_layers, n_dense = a->layers - (a->experts ? a->moe_layers : 0);
    const struct { unsigned bit; int64_t in, out, blocks; } m[] = {
        {VP_T_Q, h, q, n_attn}, {VP_T_K, h, kv, n_attn}, {VP_T_V, h, kv, n_attn}, {VP_T_O, q, h, n_attn},
        {VP_T_SSM_IN, h, 2 * in_, a->ssm_layers}, {VP_T_SSM_X, in_, R + 2 * N, a->ssm_layers},
        {VP_T_SSM_DT, R, in_, a->ssm_layers}, {VP_T_SSM_OUT, in_, h, a->ssm_layers},
        {VP_T_GATE, h, f, n_dense}, {VP_T_UP, h, f, n_dense}, {VP_T_DOWN, f, h, n_dense}};
    int64_t p = 0;
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (in->lora_targets & m[i].bit) p += in->lora_r * (m[i].in + m[i].out) * m[i].blocks;
    return p;
}

int vp_lora_modules_per_layer(const vp_instance *in) {
    if (in->ft != VP_FT_LORA && in->ft != VP_FT_QLORA) return 0;
    lora_mod m[12];
    int n = block_modules(in, m), k = 0;
    for (int i = 0; i < n; i++) k += (in->lora_targets & m[i].bit) != 0;
    return k + dit_cross_modules(in);
}

/* One saved tensor of `bytes` per token (recorded in r->items when r is given). */
static double it(vp_acts *r, double bytes) { return r ? vp_act_item(r, bytes, 1) : bytes; }

double vp_lora_act_per_token_layer(const vp_instance *in) { return vp_lora_act_items(in, NULL); }

double vp_lora_act_items(const vp_instance *in, vp_acts *r) { return vp_lora_act_items_of(in, r, ~0u); }

double vp_lora_act_items_of(const vp_instance *in, vp_acts *r, unsigned modules) {
    if (in->ft != VP_FT_LORA && in->ft != VP_FT_QLORA) return 0;
    lora_mod m[12];
    int n = block_modules(in, m);
    double adt = vp_dtype_bytes(vp_act_dtype(in));
    double ldt = vp_dtype_bytes(in->lora_dtype);
    int cast = ldt != adt;
    if (vp_is_amp(in)) {
        /* under autocast lora_A casts its input to bf16 and saves that copy (the fp32 dropout output
         * is not kept); lora_B saves lora_A's bf16 output */
        ldt = adt;
        cast = 1;
    }
    double bytes = 0;
    int shared_input_saved[3] = {0, 0, 0}; /* without cast or dropout, modules sharing x save it once */
    for (int i = 0; i < n; i++) {
        if (!(in->lora_targets & m[i].bit & modules)) continue;
        double w = (double)m[i].in;
        if (in->lora_dropout > 0) {
            /* peft LoraLayer: x cast to the adapter dtype (a transient copy when the dtypes differ), then
             * Dropout: its output (saved by lora_A) + bool mask */
            if (cast && r) vp_act_transient_item(r, ldt * w);
            bytes += it(r, ldt * w) + it(r, 1.0 * w);
        } else if (cast) {
            bytes += it(r, ldt * w);    /* x.to(adapter dtype): a fresh copy per module */
        } else {
            int g = (m[i].bit & (VP_T_Q | VP_T_K | VP_T_V | VP_T_QKV | VP_T_Q_A | VP_T_KV_A)) ? 0 : (m[i].bit & (VP_T_GATE | VP_T_UP | VP_T_GATE_UP | VP_T_FC1)) ? 1 : 2;
            if (g == 2 || !shared_input_saved[g]) bytes += it(r, adt * w); /* lora_A saves x itself */
            shared_input_saved[g] = 1;
        }
        bytes += it(r, ldt * (double)in->lora_r); /* lora_A output, saved by lora_B */
        if (r) {
            /* peft Linear.forward: result = result + lora_B(...) * scaling: lora_B's output, its scaled
             * copy and the sum are each a new output-wide tensor in the adapter dtype (the sum promotes
             * to it), freed when the module returns its cast back (H100 trace qwen05-lora16all) */
            double o = (double)m[i].out;
            for (int k = 0; k < 3; k++) vp_act_transient_item(r, ldt * o);
            vp_act_module_end(r);
        }
    }
    return bytes;
}
