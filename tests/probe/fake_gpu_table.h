/*
 * fake_gpu_table.h - the GPUs the test doubles libfakecuda.so / libfakenvml.so pretend to have.
 *
 * Device 0 is the real H100 80GB HBM3 (SXM5, driver 580.159.04, CUDA 13.0, a pass-through VM)
 * measured for vramplan. The values come from two days on that machine type:
 *
 * 2026-11-22, /work/shared/groundtruth/probe/ (no CUDA process running):
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
 *
 * 2026-11-23, the real probe (tests/probe/fixtures/h100-sxm-probe-2026-11-23.json, `vramplan-probe
 * --pretty --redact`): when the probe reads NVML (after cuInit, before cuCtxCreate_v2) NVML already
 * counts 3,407,872 B as used: the probe's own process (no other process was listed). So NVML free is
 * 81079 MiB - 3,407,872 = 85,014,085,632 and used 3,407,872. cuMemGetInfo inside the probe's context
 * gives 84,465,090,560, the same as torch's mem_free the day before, so the context costs
 * 85,014,085,632 - 84,465,090,560 = 548,995,072 B: the 552,402,944 B a whole process's context costs
 * (torch, groundtruth context_bytes) less the 3,407,872 B that NVML already counted.
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
 *   FAKE_CUDA_DRIVER_VERSION what cuDriverGetVersion and nvmlSystemGetCudaDriverVersion_v2 say (default 13000)
 *   FAKE_NVML_INIT_RESULT    nvmlReturn_t nvmlInit_v2 returns (e.g. 9 DRIVER_NOT_LOADED, 4 NO_PERMISSION)
 *   FAKE_NVML_MEMORY_V2_RESULT  what nvmlDeviceGetMemoryInfo_v2 returns (e.g. 13, 25) -> v1 fallback
 *   FAKE_NVML_MIG            1: device 0 is in MIG mode with two SYNTHETIC 3g.40gb instances
 *   FAKE_GPU_HOSTILE         a broken or hostile driver; every GPU (and the driver strings) becomes:
 *     free_gt_total  free memory larger than total: cuMemGetInfo free > cuDeviceTotalMem; NVML free,
 *                    reserved and CUDA's total all larger than NVML's total; a MIG instance with
 *                    free > total
 *     huge           2^64-1-ish memory everywhere (cuDeviceTotalMem SIZE_MAX, NVML ~1.8e19, another
 *                    process with 2^64-2 B, MIG instances too), clocks 0xFFFFFFFF MHz / INT_MAX kHz,
 *                    bus width, L2 and SM count INT_MAX, power limit 0xFFFFFFFF mW
 *     strings        bytes that are not UTF-8 in the name (0xFF, an overlong form, a surrogate, a code
 *                    point above U+10FFFF, a cut-off sequence), a 300-byte name with a 3-byte
 *                    character across the planner's 95-byte limit, the same in the UUID, serial,
 *                    driver version and cuGetErrorName's answers; devices 1.. have an empty name
 *     negative       negative CUDA attributes (compute capability, SM count, L2, bus width, clocks,
 *                    ECC, integrated, compute mode), NVML clocks and bus width 0, NVML's CUDA version -1
 */
#ifndef VRAMPLAN_FAKE_GPU_TABLE_H
#define VRAMPLAN_FAKE_GPU_TABLE_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAX_GPUS 8
#define FAKE_MIB 1048576ULL

typedef struct {
    char name[320]; /* the bytes cuDeviceGetName gives, not necessarily UTF-8 */
    unsigned char uuid[16];
    char uuid_str[96];
    char serial[32];
    int pci_domain, pci_bus, pci_device;
    int cc_major, cc_minor, sm_count, bus_width_bits, mem_clock_khz, clock_khz, l2_bytes, ecc, compute_mode,
        integrated;
    unsigned long long cuda_total;    /* cuDeviceTotalMem */
    unsigned long long context_bytes; /* what creating a context costs */
    unsigned long long nvml_total, nvml_reserved, nvml_free, nvml_used;
    unsigned long long other_process_bytes; /* one other process, pid 4242 */
    unsigned long long mig_total, mig_free, mig_used; /* each MIG instance (FAKE_NVML_MIG=1) */
    unsigned int power_limit_mw, pcie_gen, pcie_width, max_mem_mhz, max_sm_mhz, max_graphics_mhz, max_video_mhz,
        nvml_bus_width;
} fake_gpu;

/* what NVML counts as used by the probe's own process when it reads memory (2026-11-23, see above) */
#define FAKE_PROBE_SELF_BYTES 3407872ULL
/* cuMemGetInfo free inside a context on the idle H100 (torch 2026-11-22 and the probe 2026-11-23) */
#define FAKE_CTX_FREE 84465090560ULL

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

/* FAKE_GPU_HOSTILE == variant */
static inline int fake_hostile(const char *variant)
{
    const char *s = getenv("FAKE_GPU_HOSTILE");
    return s && strcmp(s, variant) == 0;
}

static inline int fake_gpu_count(void)
{
    int n = fake_env_int("FAKE_CUDA_DEVICE_COUNT", 1);
    if (n < 0) n = 0;
    if (n > FAKE_MAX_GPUS) n = FAKE_MAX_GPUS;
    return n;
}

static inline int fake_cuda_driver_version(void) { return fake_env_int("FAKE_CUDA_DRIVER_VERSION", 13000); }

static inline const char *fake_driver_version(void)
{
    return fake_hostile("strings") ? "580.159.04\xff\xc0" : "580.159.04";
}

/* The hostile name: "NVIDIA H100 80GB HBM3 ", then ill-formed UTF-8 (each maximal ill-formed subpart
 * becomes one U+FFFD, 3 bytes): 0xFF (1 replacement), "ü", the overlong C0 AF (2), the surrogate
 * ED A0 80 (3), F4 90 80 80 above U+10FFFF (4), E2 82 cut off by "x" (1); then 35 "A", so that "€"
 * (E2 82 AC) would take bytes 93..95 of the repaired name, one past the planner's 95-byte limit; then
 * more 0xFF and "B" up to 300 bytes. tests/probe/test_probe_cli.c spells out the expected result. */
static inline void fake_hostile_name(char *out, size_t outsz)
{
    static const char head[] = "NVIDIA H100 80GB HBM3 \xff\xc3\xbc\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82x";
    size_t n = 0;
    memcpy(out, head, sizeof head - 1);
    n = sizeof head - 1;
    for (int i = 0; i < 35; i++) out[n++] = 'A';
    memcpy(out + n, "\xe2\x82\xac", 3);
    n += 3;
    for (; n < 300 && n + 1 < outsz; n++) out[n] = (n % 7 == 0) ? '\xff' : 'B';
    out[n] = '\0';
}

static inline void fake_gpu_get(int i, fake_gpu *g)
{
    static const unsigned char h100_uuid[16] = {0xf9, 0xf1, 0x9e, 0x8f, 0x20, 0x5d, 0x45, 0x09,
                                                0x0f, 0xc1, 0xcd, 0x97, 0xe6, 0x57, 0x2c, 0xf4};
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "NVIDIA H100 80GB HBM3");
    memcpy(g->uuid, h100_uuid, 16);
    snprintf(g->serial, sizeof g->serial, "1652824024958");
    g->pci_domain = 0;
    g->pci_bus = 0;
    g->pci_device = 6;
    g->cc_major = 9;
    g->cc_minor = 0;
    g->sm_count = 132;
    g->bus_width_bits = 5120;
    g->nvml_bus_width = 5120;
    g->mem_clock_khz = 2619000;
    g->clock_khz = 1980000;
    g->l2_bytes = 52428800;
    g->ecc = 1;
    g->compute_mode = 0;
    g->integrated = 0;
    g->cuda_total = 85017493504ULL;          /* torch total_memory */
    g->nvml_total = 81559ULL * FAKE_MIB;     /* 85520809984 */
    g->nvml_reserved = 480ULL * FAKE_MIB;    /* 503316480 */
    g->nvml_used = FAKE_PROBE_SELF_BYTES;    /* 3407872: the probe's own process */
    g->nvml_free = 81079ULL * FAKE_MIB - FAKE_PROBE_SELF_BYTES; /* 85017493504 - 3407872 = 85014085632 */
    g->context_bytes = g->nvml_free - FAKE_CTX_FREE;           /* 548995072 */
    g->mig_total = 40448ULL * FAKE_MIB; /* synthetic 3g.40gb instance */
    g->mig_used = 38ULL * FAKE_MIB;
    g->mig_free = g->mig_total - g->mig_used;
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
            g->nvml_used += g->other_process_bytes;
            g->nvml_free -= g->other_process_bytes;
        }
    }
    const unsigned char *b = g->uuid;
    snprintf(g->uuid_str, sizeof g->uuid_str,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);

    if (fake_hostile("free_gt_total")) {
        g->nvml_total = 40ULL << 30;
        g->nvml_reserved = 48ULL << 30;
        g->nvml_used = 0;
        g->nvml_free = 100ULL << 30; /* cuMemGetInfo: 100 GiB - context > cuDeviceTotalMem */
        g->mig_total = 1ULL << 30;
        g->mig_used = 0;
        g->mig_free = 2ULL << 30;
    } else if (fake_hostile("huge")) {
        g->cuda_total = (unsigned long long)SIZE_MAX;
        g->nvml_total = ~0ULL - 255;
        g->nvml_free = ~0ULL - 4095; /* 1.8446744073709548e19 */
        g->nvml_used = 1ULL << 20;
        g->other_process_bytes = ~0ULL - 1; /* not NVML_VALUE_NOT_AVAILABLE (2^64 - 1) */
        g->mig_total = ~0ULL - 1;
        g->mig_used = 1;
        g->mig_free = ~0ULL - 2;
        g->max_mem_mhz = g->max_sm_mhz = g->max_graphics_mhz = g->max_video_mhz = 0xFFFFFFFFU;
        g->mem_clock_khz = g->clock_khz = INT_MAX;
        g->bus_width_bits = g->l2_bytes = g->sm_count = INT_MAX;
        g->nvml_bus_width = 0xFFFFFFFFU;
        g->power_limit_mw = 0xFFFFFFFFU;
        g->pcie_gen = g->pcie_width = 0xFFFFFFFFU;
    } else if (fake_hostile("strings")) {
        if (i == 0) fake_hostile_name(g->name, sizeof g->name);
        else g->name[0] = '\0';
        snprintf(g->uuid_str, sizeof g->uuid_str, "GPU-\xff\xfe%s", "f9f19e8f-205d-4509-0fc1-cd97e6572cf4");
        snprintf(g->serial, sizeof g->serial, "16528\xff" "24958");
    } else if (fake_hostile("negative")) {
        g->cc_major = g->cc_minor = g->sm_count = g->l2_bytes = g->bus_width_bits = -1;
        g->mem_clock_khz = g->clock_khz = -1;
        g->ecc = g->integrated = g->compute_mode = -1;
        g->max_mem_mhz = g->max_sm_mhz = g->max_graphics_mhz = g->max_video_mhz = 0;
        g->nvml_bus_width = 0;
    }
}

#endif
