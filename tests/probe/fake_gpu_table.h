/*
 * fake_gpu_table.h - the GPUs the test doubles libfakecuda.so / libfakenvml.so pretend to have.
 *
 * Device 0 is the real H100 80GB HBM3 (SXM5, driver 580.159.04, CUDA 13.0, a pass-through VM)
 * measured for vramplan. Every value comes from /work/shared/groundtruth/probe/:
 *   h100-query.csv         memory.total 81559 MiB, memory.reserved 480 MiB, memory.used 0 MiB,
 *                          memory.free 81079 MiB, compute_cap 9.0, clocks.max.memory 2619 MHz,
 *                          clocks.max.sm 1980 MHz, power.limit 700.00 W, ecc Enabled, mig Disabled,
 *                          pci.bus_id 00000000:00:06.0, driver 580.159.04
 *   h100-nvidia-smi-q.txt  serial 1652824024958, UUID GPU-f9f19e8f-205d-4509-0fc1-cd97e6572cf4,
 *                          PCIe gen max 5, width max 16x, Compute Mode Default, ECC pending Enabled,
 *                          CUDA Version 13.0, Max Clocks Video 1545 MHz, no processes
 *   h100-torch-props.json  total_memory 85017493504 (= cuDeviceTotalMem), mem_free 84465090560
 *                          (cudaMemGetInfo inside a context), multi_processor_count 132,
 *                          memory_bus_width 5120, memory_clock_rate 2619000 kHz, clock_rate 1980000 kHz,
 *                          L2_cache_size 52428800, pci domain/bus/device 0/0/6, major 9 minor 0
 *   h100-topo.txt          one GPU, no NVLink (NV#) connections
 * and vramplan memory-facts 9.4: ECCEnabled=1, integrated=0, cudaDevAttrComputeMode=0,
 * nvmlDeviceGetNvLinkState -> NVML_ERROR_NOT_SUPPORTED on all links in this VM,
 * nvmlMemory_v2.version = 33554472.
 * NVML free (81079 MiB = 85017493504) minus CUDA free inside a context (84465090560) gives the
 * context cost 552402944 B.
 *
 * Devices 1.. (FAKE_CUDA_DEVICE_COUNT >= 2) are SYNTHETIC copies of device 0 on the next PCI
 * buses, with made-up UUIDs/serials; device 1 additionally has another process holding 4608 MiB,
 * so that a probe which pairs CUDA and NVML devices wrongly shows different memory numbers.
 * With two or more GPUs the double behaves like an NVLink-connected HGX board: peer access on,
 * 18 active NVLinks per GPU, NVML lists the GPUs in the REVERSE of CUDA's order (to check the
 * probe matches them by PCI bus id), and the PCIe common ancestor is NVML_TOPOLOGY_NODE.
 *
 * Environment knobs (read by both libraries):
 *   FAKE_CUDA_DEVICE_COUNT   number of GPUs, 0..8 (default 1). 0: cuInit -> CUDA_ERROR_NO_DEVICE
 *   FAKE_CUDA_INIT_RESULT    CUresult cuInit returns (e.g. 100, 800, 36, 34, 999)
 *   FAKE_CUDA_CTX_RESULT     CUresult cuCtxCreate_v2 returns (e.g. 46 CUDA_ERROR_DEVICE_UNAVAILABLE)
 *   FAKE_NVML_INIT_RESULT    nvmlReturn_t nvmlInit_v2 returns (e.g. 9 DRIVER_NOT_LOADED, 4 NO_PERMISSION)
 *   FAKE_NVML_MEMORY_V2_RESULT  what nvmlDeviceGetMemoryInfo_v2 returns (e.g. 13, 25) -> v1 fallback
 *   FAKE_NVML_MIG            1: device 0 is in MIG mode with two SYNTHETIC 3g.40gb instances
 */
#ifndef VRAMPLAN_FAKE_GPU_TABLE_H
#define VRAMPLAN_FAKE_GPU_TABLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAX_GPUS 8
#define FAKE_MIB 1048576ULL

typedef struct {
    const char *name;
    unsigned char uuid[16];
    char uuid_str[48];
    char serial[32];
    int pci_domain, pci_bus, pci_device;
    int cc_major, cc_minor, sm_count, bus_width_bits, mem_clock_khz, clock_khz, l2_bytes, ecc, compute_mode,
        integrated;
    unsigned long long cuda_total;    /* cuDeviceTotalMem */
    unsigned long long context_bytes; /* what creating a context costs */
    unsigned long long nvml_total, nvml_reserved, nvml_free, nvml_used;
    unsigned long long other_process_bytes; /* one other process, pid 4242 */
    unsigned int power_limit_mw, pcie_gen, pcie_width, max_mem_mhz, max_sm_mhz, max_graphics_mhz, max_video_mhz;
} fake_gpu;

#define FAKE_DRIVER_VERSION "580.159.04"
#define FAKE_CUDA_DRIVER_VERSION 13000

static inline int fake_env_int(const char *name, int dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!end || *end) return dflt;
    if (v < -1000000 || v > 1000000) return dflt;
    return (int)v;
}

static inline int fake_gpu_count(void)
{
    int n = fake_env_int("FAKE_CUDA_DEVICE_COUNT", 1);
    if (n < 0) n = 0;
    if (n > FAKE_MAX_GPUS) n = FAKE_MAX_GPUS;
    return n;
}

static inline void fake_gpu_get(int i, fake_gpu *g)
{
    static const unsigned char h100_uuid[16] = {0xf9, 0xf1, 0x9e, 0x8f, 0x20, 0x5d, 0x45, 0x09,
                                                0x0f, 0xc1, 0xcd, 0x97, 0xe6, 0x57, 0x2c, 0xf4};
    memset(g, 0, sizeof *g);
    g->name = "NVIDIA H100 80GB HBM3";
    memcpy(g->uuid, h100_uuid, 16);
    snprintf(g->serial, sizeof g->serial, "1652824024958");
    g->pci_domain = 0;
    g->pci_bus = 0;
    g->pci_device = 6;
    g->cc_major = 9;
    g->cc_minor = 0;
    g->sm_count = 132;
    g->bus_width_bits = 5120;
    g->mem_clock_khz = 2619000;
    g->clock_khz = 1980000;
    g->l2_bytes = 52428800;
    g->ecc = 1;
    g->compute_mode = 0;
    g->integrated = 0;
    g->cuda_total = 85017493504ULL;          /* torch total_memory */
    g->nvml_total = 81559ULL * FAKE_MIB;     /* 85520809984 */
    g->nvml_reserved = 480ULL * FAKE_MIB;    /* 503316480 */
    g->nvml_used = 0;
    g->nvml_free = 81079ULL * FAKE_MIB;      /* 85017493504 */
    g->context_bytes = 85017493504ULL - 84465090560ULL; /* 552402944 */
    g->power_limit_mw = 700000;
    g->pcie_gen = 5;
    g->pcie_width = 16;
    g->max_mem_mhz = 2619;
    g->max_sm_mhz = 1980;
    g->max_graphics_mhz = 1980;
    g->max_video_mhz = 1545;
    if (i > 0) { /* synthetic extra GPUs */
        g->pci_device = 6 + i;
        g->uuid[15] = (unsigned char)(0xf4 ^ i);
        snprintf(g->serial, sizeof g->serial, "FAKE%09d", i);
        if (i == 1) {
            g->other_process_bytes = 4608ULL * FAKE_MIB;
            g->nvml_used = g->other_process_bytes;
            g->nvml_free -= g->other_process_bytes;
        }
    }
    const unsigned char *b = g->uuid;
    snprintf(g->uuid_str, sizeof g->uuid_str,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

#endif
