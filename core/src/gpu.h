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
} vp_gpu;

struct cJSON;
/* A GPU preset object (the format of models/gpus/). */
vp_status vp_gpu_from_preset(const struct cJSON *obj, const char *path, vp_gpu *out, vp_error *err);
/* One device of a vramplan/gpu-probe@1 document. */
vp_status vp_gpu_from_probe(const struct cJSON *probe, const char *path, int device, vp_gpu *out, int *n_devices,
                            vp_error *err);

#endif
