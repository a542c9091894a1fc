/* fsdp_shard.h: how PyTorch FSDP splits a model into units and shards each unit's parameters
 * (fsdp_shard.c). */
#ifndef VP_FSDP_SHARD_H
#define VP_FSDP_SHARD_H

#include "plan.h"

/* FSDP2 (torch.distributed.fsdp.fully_shard): rows of dim 0 that rank `rank` of `world` holds of a
 * parameter with `dim0` rows (torch.chunk + empty chunks), and the rows every rank allocates
 * (the 0th chunk's size: the padded shard). */
int64_t vp_fsdp2_shard_rows(int64_t dim0, int64_t world, int64_t rank);
int64_t vp_fsdp2_padded_rows(int64_t dim0, int64_t world);
/* FSDP1 (FullyShardedDataParallel): elements of one unit's FlatParameter shard (the flat
 * parameter padded to a multiple of world, then split evenly). */
int64_t vp_fsdp1_shard_numel(int64_t flat_numel, int64_t world);

/* One instance's FSDP units with transformer-layer wrapping: every block is one unit
 * (fully_shard(layer)); the root unit (fully_shard(model)) holds the rest: embeddings, final
 * norm, output head. Element counts. */
typedef struct {
    int64_t block;         /* parameters of one block unit (the largest block) */
    int64_t root;          /* parameters of the root unit */
    int64_t blocks;        /* block units */
    int64_t shard;         /* elements this rank allocates for the sharded parameters of all units
                              (FSDP2: per-parameter padded dim-0 chunks; FSDP1: padded flat shards) */
    int64_t shard_unpadded;/* elements of those shards without the padding (the optimizer's view) */
    int exact;             /* 1 when every parameter's dim 0 is known (decoder and GPT-2 families) */
} vp_fsdp_units;

/* version: 1 or 2; world: the sharding degree; rank: the rank within it. */
void vp_fsdp_units_compute(const vp_instance *in, int version, int64_t world, int64_t rank, vp_fsdp_units *u);

#endif
