/* gpu.h: one GPU as the planner sees it: from a preset in models/gpus/ or a probe file. */
#ifndef VP_GPU_H
#define VP_GPU_H

#include <stdint.h>
#include "vramplan.h"

typedef struct {
    char id[48];
    char name[96];
    char node[64];           /* hostname from a probe file, if any */
    int from_probe;
    uint64_t memory_bytes;   /* datasheet capacity */
    uint64_t cuda_total_bytes; /* what CUDA reports as total (0 = unknown) */
    uint64_t free_bytes;     /* probe: free memory seen by CUDA (0 = unknown) */
    uint64_t context_bytes;  /* probe: measured CUDA context (0 = unknown) */
    double bandwidth_gbs;
    int bf16, fp8;
    int mig_instance;        /* probe with MIG on: the index of the MIG instance planned against, else -1 */
    int mig_count;           /* ... and how many instances the probe lists (0 = MIG off) */
} vp_gpu;

struct cJSON;
/* A GPU preset object (the format of models/gpus/). */
vp_status vp_gpu_from_preset(const struct cJSON *obj, const char *path, vp_gpu *out, vp_error *err);
/* One device of a vramplan/gpu-probe@1 document. When that GPU has MIG enabled, CUDA can only use a
 * MIG instance, so the GPU planned against is one instance (docs/schema/gpu-probe.md): mig_instance
 * (an index into devices[device].mig.instances; the plan's hardware.mig_instance) or, when it is -1,
 * the smallest instance. */
vp_status vp_gpu_from_probe(const struct cJSON *probe, const char *path, int device, int mig_instance, vp_gpu *out,
                            int *n_devices, vp_error *err);

#endif
