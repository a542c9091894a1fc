/* param_tensors.c: the parameter tensors of a model, one entry per nn.Parameter, in the order the
 * modules create them (each is one allocation when the model is built on the GPU). Shapes follow
 * params.c; the sums per block equal vp_param_counts (tests/core/test_alloc_events.c). */
#include <string.h>

#include "alloc_events.h"
#include "diffusers.h"

static void add(vp_tlist *t, int64_t elems, int matmul) {
    if (elems <= 0 || t->n >= VP_MAX_BLOCK_TENSORS) return;
    t->elems[t->n] = elems;
    t->matmul[t->n] = (unsigned char)matmul;
    t->n++;
}

/* nn.Linear: weight, then bias (torch/nn/modules/linear.py). */
static void linear(vp_tlist *t, int64_t in, int64_t out, int bias) {
    add(t, in * out, 1);
    if (bias) add(t, out, 0);
}

static void norm(vp_tlist *t, const vp_arch *a, int64_t w) {
    add(t, w, 0);
    if (a->norm == VP_NORM_LAYER) add(t, w, 0);
}

static void mlp(vp_tlist *t, const vp_arch *a, int64_t h, int64_t f) {
    int gated = a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU || a->mlp == VP_MLP_GATED_RELU;
    if (gated && a->fused_gate_up) {
        linear(t, h, 2 * f, a->mlp_bias); /* phi3 gate_up_proj */
    } else if (gated) {
        linear(t, h, f, a->mlp_bias); /* gate_proj */
        linear(t, h, f, a->mlp_bias); /* up_proj */
    } else {
        linear(t, h, f, a->mlp_bias);
    }
    linear(t, f, h, a->mlp_bias);
}

static void decoder_block(const vp_arch *a, vp_tlist *t) {
    int64_t h = a->hidden, d = a->head_dim, q = a->heads * d, kv = a->kv_heads * d;
    norm(t, a, h); /* input_layernorm */
    if (a->fused_qkv) {
        linear(t, h, q + 2 * kv, a->qkv_bias);
    } else {
        linear(t, h, q, a->qkv_bias);
        linear(t, h, kv, a->qkv_bias);
        linear(t, h, kv, a->qkv_bias);
    }
    linear(t, q, h, a->o_bias);
    if (a->qk_norm) {
        add(t, d, 0);
        add(t, d, 0);
    }
    for (int k = 1; k < a->norms_per_layer; k++) norm(t, a, h);
    if (a->experts) {
        /* transformers 5.x fused experts (MixtralExperts): router Linear(h, E), stacked
         * gate_up_proj (E, 2f, h) and down_proj (E, h, f) */
        add(t, h * a->experts, 1);
        add(t, a->experts * 2 * a->expert_inter * h, 1);
        add(t, a->experts * a->expert_inter * h, 1);
        if (a->shared_expert_inter) {
            mlp(t, a, h, a->shared_expert_inter);
            add(t, h, 1); /* shared_expert_gate Linear(h, 1) */
        }
    } else {
        mlp(t, a, h, a->inter);
    }
}

static void gpt2_block(const vp_arch *a, vp_tlist *t) {
    int64_t h = a->hidden;
    norm(t, a, h);                 /* ln_1 */
    linear(t, h, 3 * h, 1);        /* c_attn (Conv1D) */
    linear(t, h, h, 1);            /* c_proj */
    norm(t, a, h);                 /* ln_2 */
    mlp(t, a, h, a->inter);        /* c_fc, c_proj */
}

/* T5, ViT and DiT blocks: the block's attention as four square projections, its MLP and norms,
 * sized so the sums equal params.c's per-layer counts. */
static void generic_block(const vp_instance *in, vp_tlist *t) {
    const vp_param_counts *pc = &in->pc;
    const vp_arch *a = &in->arch;
    int64_t attn = pc->per_layer_attn / 4;
    /* CogVideoX from a diffusers config (dit_params.c counts its blocks as one group, no per_layer_attn): its attention
     * Linears are what the blocks' Linears (d.linear) leave after the MLP and the two adaptive-norm Linears below, as
     * to_q, to_k, to_v, to_out.0, each h × h + h. A 1.0 CogVideoX-5b block is 4 × 9,440,256 + the feed-forward's
     * 75,510,528 + 2 × 9,455,616 (Linear(512, 6h)); before, its attention went into one tensor after the blocks
     * (3.17 GB at 5b), which no freed segment of a precompute phase could take. */
    int64_t nlin = a->kind == VP_KIND_DIT ? a->time_embed_dim * 6 * a->hidden + 6 * a->hidden : 0;
    if (a->dclass == VP_DC_COGVIDEOX && attn == 0 && a->layers > 0) {
        int64_t mlp_elems = 2 * a->hidden * a->inter + a->hidden + a->inter;
        int64_t left = a->d.linear / a->layers - mlp_elems - 2 * nlin;
        attn = left > 0 ? left / 4 : 0;
    }
    for (int k = 0; k < 4; k++) add(t, attn, 1);
    mlp(t, a, a->hidden, a->inter);
    int64_t rest = pc->per_layer_norm;
    if (a->kind == VP_KIND_DIT) {
        /* CogVideoXLayerNormZero: Linear(t, 6h) twice, then LayerNorms */
        add(t, nlin, 1);
        add(t, nlin, 1);
        rest -= 2 * nlin;
    }
    if (rest > 0) {
        add(t, rest / 2, 0);
        add(t, rest - rest / 2, 0);
    }
}

void vp_block_param_tensors(const vp_instance *in, vp_tlist *t) {
    memset(t, 0, sizeof *t);
    switch (in->arch.kind) {
    case VP_KIND_DECODER: decoder_block(&in->arch, t); break;
    case VP_KIND_GPT2: gpt2_block(&in->arch, t); break;
    default: generic_block(in, t); break;
    }
}

int64_t vp_block_count(const vp_instance *in) {
    return in->arch.layers + (in->arch.kind == VP_KIND_T5 ? in->arch.dec_layers : 0);
}

void vp_outer_param_tensors(const vp_instance *in, vp_tlist *pre, vp_tlist *post) {
    memset(pre, 0, sizeof *pre);
    memset(post, 0, sizeof *post);
    const vp_arch *a = &in->arch;
    const vp_param_counts *pc = &in->pc;
    if (a->kind == VP_KIND_GPT2 && a->positions) {
        add(pre, a->vocab * a->hidden, 0);     /* wte */
        add(pre, a->positions * a->hidden, 0); /* wpe */
    } else {
        add(pre, pc->embed, 0);
    }
    /* blocks whose parameters differ from the first block's (t5 decoder cross-attention, MoE layers
     * mixed with dense ones): the difference, as one tensor after the blocks */
    vp_tlist b;
    vp_block_param_tensors(in, &b);
    int64_t one = 0;
    for (int k = 0; k < b.n; k++) one += b.elems[k];
    int64_t diff = pc->layers_total - one * vp_block_count(in);
    if (diff > 0) add(post, diff, 1);
    if (pc->final_norm) add(post, pc->final_norm, 0);
    if (pc->lm_head) add(post, pc->lm_head, 1);
    if (pc->other) add(post, pc->other, 1);
}

void vp_untied_head(vp_events *e, const vp_inst_calc *c, double bytes_per_elem) {
    const vp_arch *a = &c->in->arch;
    if (!a->tie || a->kind == VP_KIND_VIT || a->kind == VP_KIND_DIT || !c->ds.has_head) return;
    vp_ev_free(e, vp_ev_alloc(e, (int64_t)((double)(a->vocab * a->hidden) * bytes_per_elem / c->act_div_shard)));
}

void vp_ev_place_weights(vp_events *e, const vp_inst_calc *c, const vp_tlist *pre, const vp_tlist *blk, const vp_tlist *post,
                         int64_t nblocks, double scale, int n_adapter, double adapter_bytes) {
    for (int k = 0; k < pre->n; k++) vp_ev_alloc(e, (int64_t)((double)pre->elems[k] * scale));
    for (int64_t b = 0; b < nblocks; b++) {
        for (int k = 0; k < blk->n; k++) vp_ev_alloc(e, (int64_t)((double)blk->elems[k] * scale));
        for (int k = 0; k < n_adapter; k++) vp_ev_alloc(e, (int64_t)adapter_bytes);
    }
    for (int k = 0; k < post->n; k++) vp_ev_alloc(e, (int64_t)((double)post->elems[k] * scale));
    vp_untied_head(e, c, scale);
}
