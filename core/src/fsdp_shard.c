/* fsdp_shard.c: FSDP units and the size of each rank's parameter shards.
 *
 * FSDP2 (torch/distributed/fsdp/_fully_shard/_fsdp_param.py @ 010ae4a, FSDPParam._init_sharded_param):
 *   chunks = _chunk_with_empty(param_data, shard_world_size, dim=0)   # torch.chunk, then empty chunks
 *   sharded_param = chunks[shard_rank]
 *   padded_sharded_size = chunks[0].size()  # 0th always padded
 *   padded_sharded_param = param_data.new_zeros(padded_sharded_size)
 * so every rank allocates ceil(dim0 / world) rows of every parameter, and holds
 * min(max(dim0 - rank·ceil, 0), ceil) real rows (the DTensor's local tensor is a narrow of the
 * padded storage; optimizer states follow that local tensor through zeros_like).
 * The reduce-scatter of gradients pads the same way (_fsdp_collectives.py foreach_reduce:
 * _get_dim0_padded_size), so each rank's sharded gradients have the padded size too.
 *
 * FSDP1 (torch/distributed/fsdp/_flat_param.py, FlatParamHandle._get_shard): one FlatParameter per
 * unit, flattened, chunked into world pieces with torch.chunk and padded to chunk[0].numel() =
 * ceil(numel / world). */
#include <string.h>

#include "alloc_events.h"
#include "fsdp_shard.h"

int64_t vp_fsdp2_padded_rows(int64_t dim0, int64_t world) {
    if (dim0 <= 0 || world <= 0) return 0;
    return (dim0 + world - 1) / world;
}

int64_t vp_fsdp2_shard_rows(int64_t dim0, int64_t world, int64_t rank) {
    int64_t c = vp_fsdp2_padded_rows(dim0, world);
    int64_t left = dim0 - rank * c;
    return left <= 0 ? 0 : left < c ? left : c;
}

int64_t vp_fsdp1_shard_numel(int64_t flat_numel, int64_t world) { return vp_fsdp2_padded_rows(flat_numel, world); }

/* Parameter shapes as (dim 0, elements). */
typedef struct {
    int n;
    int64_t dim0[160], numel[160];
} shapes;

static void add(shapes *s, int64_t dim0, int64_t numel) {
    if (numel <= 0 || dim0 <= 0 || s->n >= 160) return;
    s->dim0[s->n] = dim0;
    s->numel[s->n] = numel;
    s->n++;
}

/* nn.Linear(in, out): weight (out, in), bias (out) (torch/nn/modules/linear.py). */
static void linear(shapes *s, int64_t in, int64_t out, int bias) {
    add(s, out, out * in);
    if (bias) add(s, out, out);
}

static void norm(shapes *s, const vp_arch *a, int64_t w) {
    add(s, w, w);
    if (a->norm == VP_NORM_LAYER) add(s, w, w);
}

static void mlp(shapes *s, const vp_arch *a, int64_t h, int64_t f) {
    int gated = a->mlp == VP_MLP_SWIGLU || a->mlp == VP_MLP_GEGLU || a->mlp == VP_MLP_GATED_RELU;
    if (gated && a->fused_gate_up) {
        linear(s, h, 2 * f, a->mlp_bias);
    } else if (gated) {
        linear(s, h, f, a->mlp_bias);
        linear(s, h, f, a->mlp_bias);
    } else {
        linear(s, h, f, a->mlp_bias);
    }
    linear(s, f, h, a->mlp_bias);
}

/* The same tensors as param_tensors.c decoder_block, with their dim 0. */
static void decoder_block(const vp_arch *a, shapes *s) {
    int64_t h = a->hidden, d = a->head_dim, q = a->heads * d, kv = a->kv_heads * d;
    norm(s, a, h);
    if (a->fused_qkv) {
        linear(s, h, q + 2 * kv, a->qkv_bias);
    } else {
        linear(s, h, q, a->qkv_bias);
        linear(s, h, kv, a->qkv_bias);
        linear(s, h, kv, a->qkv_bias);
    }
    linear(s, q, h, a->o_bias);
    if (a->qk_norm) {
        add(s, d, d);
        add(s, d, d);
    }
    for (int k = 1; k < a->norms_per_layer; k++) norm(s, a, h);
    if (a->experts) {
        /* router Linear(h, E); stacked experts (E, 2f, h) and (E, h, f): dim 0 is the expert index */
        add(s, a->experts, a->experts * h);
        add(s, a->experts, a->experts * 2 * a->expert_inter * h);
        add(s, a->experts, a->experts * a->expert_inter * h);
        if (a->shared_expert_inter) {
            mlp(s, a, h, a->shared_expert_inter);
            add(s, 1, h); /* shared_expert_gate Linear(h, 1) */
        }
    } else {
        mlp(s, a, h, a->inter);
    }
}

/* GPT-2's Conv1D stores its weight as (in, out) (transformers pytorch_utils.Conv1D). */
static void gpt2_block(const vp_arch *a, shapes *s) {
    int64_t h = a->hidden, f = a->inter;
    norm(s, a, h);
    add(s, h, h * 3 * h);
    add(s, 3 * h, 3 * h);
    add(s, h, h * h);
    add(s, h, h);
    norm(s, a, h);
    add(s, h, h * f);
    add(s, f, f);
    add(s, f, f * h);
    add(s, h, h);
}

/* Other families: the tensors of param_tensors.c, each taken as rows of `hidden` elements. */
static void generic_block(const vp_instance *in, shapes *s) {
    vp_tlist t;
    vp_block_param_tensors(in, &t);
    int64_t h = in->arch.hidden > 0 ? in->arch.hidden : 1;
    for (int k = 0; k < t.n; k++) add(s, t.elems[k] % h ? t.elems[k] : t.elems[k] / h, t.elems[k]);
}

static void root_unit(const vp_instance *in, int64_t block_sum, shapes *s, shapes *extra) {
    const vp_arch *a = &in->arch;
    const vp_param_counts *pc = &in->pc;
    int64_t h = a->hidden > 0 ? a->hidden : 1;
    if (a->kind == VP_KIND_GPT2 && a->positions) {
        add(s, a->vocab, a->vocab * h);
        add(s, a->positions, a->positions * h);
    } else if (pc->embed) {
        add(s, pc->embed % h ? pc->embed : pc->embed / h, pc->embed);
    }
    /* blocks that differ from the first (t5 cross-attention, dense layers among MoE ones) */
    int64_t diff = pc->layers_total - block_sum * vp_block_count(in);
    if (diff > 0) add(extra, diff % h ? diff : diff / h, diff);
    if (pc->final_norm) {
        if (a->norm == VP_NORM_LAYER && pc->final_norm == 2 * h) norm(s, a, h);
        else add(s, pc->final_norm, pc->final_norm);
    }
    if (pc->lm_head) add(s, pc->lm_head % h ? pc->lm_head : pc->lm_head / h, pc->lm_head);
    if (pc->other) add(s, pc->other % h ? pc->other : pc->other / h, pc->other);
}

static void shard_of(const shapes *s, int version, int64_t world, int64_t rank, int64_t copies, vp_fsdp_units *u) {
    if (version == 1) {
        int64_t flat = 0;
        for (int k = 0; k < s->n; k++) flat += s->numel[k];
        int64_t c = vp_fsdp1_shard_numel(flat, world);
        int64_t left = flat - rank * c;
        u->shard += copies * c;
        u->shard_unpadded += copies * (left <= 0 ? 0 : left < c ? left : c);
        return;
    }
    for (int k = 0; k < s->n; k++) {
        int64_t rest = s->numel[k] / s->dim0[k];
        u->shard += copies * vp_fsdp2_padded_rows(s->dim0[k], world) * rest;
        u->shard_unpadded += copies * vp_fsdp2_shard_rows(s->dim0[k], world, rank) * rest;
    }
}

void vp_fsdp_units_compute(const vp_instance *in, int version, int64_t world, int64_t rank, vp_fsdp_units *u) {
    memset(u, 0, sizeof *u);
    if (world < 1) world = 1;
    shapes blk = {0}, root = {0}, extra = {0};
    switch (in->arch.kind) {
    case VP_KIND_DECODER: decoder_block(&in->arch, &blk); u->exact = 1; break;
    case VP_KIND_GPT2: gpt2_block(&in->arch, &blk); u->exact = 1; break;
    default: generic_block(in, &blk); break;
    }
    for (int k = 0; k < blk.n; k++) u->block += blk.numel[k];
    u->blocks = vp_block_count(in);
    root_unit(in, u->block, &root, &extra);
    for (int k = 0; k < root.n; k++) u->root += root.numel[k];
    shard_of(&blk, version, world, rank, u->blocks, u);
    shard_of(&extra, version, world, rank, 1, u);
    shard_of(&root, version, world, rank, 1, u);
}
