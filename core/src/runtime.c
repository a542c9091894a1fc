/* runtime.c: what the CUDA runtime, cuBLAS and PyTorch's caching allocator add.
 * Values measured on H100 80GB HBM3, driver 580.159.04, CUDA 13.0, PyTorch 2.11 (memory-facts.md
 * §6.5 and shared/groundtruth records: context_bytes, nonpytorch_bytes). */
#include "terms.h"
#include "util.h"

/* The first bf16 GEMM allocates a 32 MiB cuBLAS workspace through the caching allocator, so it is
 * counted in memory_allocated() (memory-facts §6.5). */
int64_t vp_cublas_workspace_bytes(void) { return 32LL << 20; }

/* CUDA context of a PyTorch process before any allocation: 552,402,944 B measured on H100 / CUDA 13
 * (groundtruth context_bytes). A probe file carries the real value of its node. */
int64_t vp_context_bytes(const vp_gpu *g) {
    if (g->from_probe && g->context_bytes) return (int64_t)g->context_bytes;
    return 552402944LL;
}

/* Memory the process holds outside PyTorch's allocator once cuBLAS/cuDNN are initialised:
 * nonpytorch_bytes = (total − free) − reserved = 787–806 MB in every groundtruth record; the part
 * above the context is library handles and lazily loaded kernels (~+66 MiB cuBLAS, +8 MiB cuDNN,
 * §6.5). We use context + 251,658,240 B (= 804,061,184 measured − 552,402,944). */
int64_t vp_nonpytorch_bytes(const vp_gpu *g) { return vp_context_bytes(g) + 251658240LL; }

/* What CUDA offers the process: measured total when known (probe or preset cuda_total_bytes), else
 * the datasheet capacity less the driver reservation seen on H100 (85,017,493,504 of 85,899,345,920,
 * i.e. 1.03% kept by the driver). A probe's free memory (other processes included) wins. */
uint64_t vp_capacity_bytes(const vp_gpu *g) {
    if (g->from_probe && g->free_bytes) return g->free_bytes + (uint64_t)vp_context_bytes(g);
    if (g->cuda_total_bytes) return g->cuda_total_bytes;
    return (uint64_t)((double)g->memory_bytes * (85017493504.0 / 85899345920.0));
}

/* Reserved memory (the caching allocator's segments) is no longer a ratio of allocated memory: the
 * step's tensors are replayed through a model of CUDACachingAllocator (alloc_sim.c, reserved.c). */

/* NCCL's own device buffers (cudaMalloc, outside PyTorch's allocator): NCCL_BUFFSIZE defaults to
 * 4 MiB per channel and connection (NCCL environment-variable docs); with ring and tree over up to
 * 32 channels a rank holds a few hundred MiB. We plan with 2 × 32 × 4 MiB = 256 MiB per rank. */
int64_t vp_nccl_bytes(void) { return 2LL * 32 * (4LL << 20); }
