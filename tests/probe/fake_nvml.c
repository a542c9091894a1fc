/*
 * fake_nvml.c - test double of the NVIDIA driver's libnvidia-ml.so.1 (built as libfakenvml.so).
 *
 * Same GPUs as fake_cuda.c (fake_gpu_table.h), with NVML's rules and error codes:
 * NVML_ERROR_UNINITIALIZED before nvmlInit_v2; NVML_ERROR_INVALID_ARGUMENT for NULL pointers and
 * bad indices; NVML_ERROR_INSUFFICIENT_SIZE for short buffers; nvmlDeviceGetMemoryInfo_v2 checks
 * the version field (sizeof | 2 << 24 = 33554472, memory-facts 9.4) and otherwise answers
 * NVML_ERROR_ARGUMENT_VERSION_MISMATCH; nvmlDeviceGetNvLinkState answers NVML_ERROR_NOT_SUPPORTED
 * on a single GPU (as measured on the H100 VM) and NVML_ERROR_INVALID_ARGUMENT for link >= 18;
 * nvmlDeviceGetMigDeviceHandleByIndex answers NVML_ERROR_NOT_FOUND for empty slots.
 * With several GPUs, NVML index i is CUDA device (count - 1 - i). FAKE_GPU_HOSTILE (fake_gpu_table.h)
 * changes the numbers and strings it reports, never its calling rules.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "driver_api.h"
#include "fake_gpu_table.h"

#define EXPORT __attribute__((visibility("default")))

_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t layout");
_Static_assert(NVML_STRUCT_VERSION(sizeof(nvmlMemory_v2_t), 2) == 33554472U, "nvmlMemory_v2 version (memory-facts 9.4)");

static int g_init_count;
static char g_handles[FAKE_MAX_GPUS];  /* handle i = &g_handles[i]; i is the CUDA ordinal */
static char g_mig_handles[2];

#define MIG_MAX_DEVICES 7

static int is_mig(void) { return fake_env_int("FAKE_NVML_MIG", 0) == 1; }

/* handle -> CUDA ordinal, -1 if not a (full-GPU) handle of ours */
static int ordinal_of(nvmlDevice_t h)
{
    for (int i = 0; i < fake_gpu_count(); i++)
        if ((const void *)h == (const void *)&g_handles[i]) return i;
    return -1;
}

static int mig_of(nvmlDevice_t h)
{
    for (int i = 0; i < 2; i++)
        if (is_mig() && (const void *)h == (const void *)&g_mig_handles[i]) return i;
    return -1;
}

static nvmlReturn_t dev(nvmlDevice_t h, fake_gpu *g, int *ord)
{
    if (g_init_count <= 0) return NVML_ERROR_UNINITIALIZED;
    int o = ordinal_of(h);
    if (o < 0) return NVML_ERROR_INVALID_ARGUMENT;
    if (g) fake_gpu_get(o, g);
    if (ord) *ord = o;
    return NVML_SUCCESS;
}

static nvmlReturn_t copy_str(char *dst, unsigned int len, const char *src)
{
    if (!dst) return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(src) + 1 > len) return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(dst, src, strlen(src) + 1);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    int forced = fake_env_int("FAKE_NVML_INIT_RESULT", 0);
    if (forced != 0) return forced;
    g_init_count++;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
    if (g_init_count <= 0) return NVML_ERROR_UNINITIALIZED;
    g_init_count--;
    return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    default: return "Unknown Error";
    }
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    if (g_init_count <= 0) return NVML_ERROR_UNINITIALIZED;
    return copy_str(version, length, fake_driver_version());
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
    if (!cudaDriverVersion) return NVML_ERROR_INVALID_ARGUMENT;
    *cudaDriverVersion = fake_hostile("negative") ? -1 : fake_cuda_driver_version();
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    if (g_init_count <= 0) return NVML_ERROR_UNINITIALIZED;
    if (!deviceCount) return NVML_ERROR_INVALID_ARGUMENT;
    *deviceCount = (unsigned int)fake_gpu_count();
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    if (g_init_count <= 0) return NVML_ERROR_UNINITIALIZED;
    int n = fake_gpu_count();
    if (!device || index >= (unsigned int)n) return NVML_ERROR_INVALID_ARGUMENT;
    *device = (nvmlDevice_t)(void *)&g_handles[n - 1 - (int)index];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    int o = 0;
    nvmlReturn_t r = dev(device, NULL, &o);
    if (r != NVML_SUCCESS) return r;
    if (!index) return NVML_ERROR_INVALID_ARGUMENT;
    *index = (unsigned int)(fake_gpu_count() - 1 - o);
    return NVML_SUCCESS;
}

/* accepts "0000:00:06.0" and "00000000:00:06.0", any hex case */
EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
    if (g_init_count <= 0) return NVML_ERROR_UNINITIALIZED;
    if (!pciBusId || !device) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned int d = 0, b = 0, s = 0, f = 0;
    char tail = 0;
    if (sscanf(pciBusId, "%x:%x:%x.%x%c", &d, &b, &s, &f, &tail) != 4) return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < fake_gpu_count(); i++) {
        fake_gpu g;
        fake_gpu_get(i, &g);
        if (d == (unsigned)g.pci_domain && b == (unsigned)g.pci_bus && s == (unsigned)g.pci_device && f == 0) {
            *device = (nvmlDevice_t)(void *)&g_handles[i];
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    fake_gpu g;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!pci) return NVML_ERROR_INVALID_ARGUMENT;
    memset(pci, 0, sizeof *pci);
    pci->domain = (unsigned)g.pci_domain;
    pci->bus = (unsigned)g.pci_bus;
    pci->device = (unsigned)g.pci_device;
    pci->pciDeviceId = 0x233010DEU;     /* nvidia-smi -q: Device Id */
    pci->pciSubSystemId = 0x16C110DEU;  /* Sub System Id */
    snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", pci->domain, pci->bus, pci->device);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", pci->domain & 0xffffU, pci->bus & 0xffU,
             pci->device & 0xffU);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    fake_gpu g;
    int forced = fake_env_int("FAKE_NVML_MEMORY_V2_RESULT", 0);
    if (forced != 0) return forced;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
    if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    memory->total = g.nvml_total;
    memory->reserved = g.nvml_reserved;
    memory->free = g.nvml_free;
    memory->used = g.nvml_used;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    fake_gpu g;
    if (g_init_count <= 0) return NVML_ERROR_UNINITIALIZED;
    if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
    if (mig_of(device) >= 0) {
        fake_gpu_get(0, &g); /* the MIG instances are on device 0 */
        memory->total = g.mig_total;
        memory->used = g.mig_used;
        memory->free = g.mig_free;
        return NVML_SUCCESS;
    }
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    memory->total = g.nvml_total;
    memory->free = g.nvml_free;
    memory->used = g.nvml_used + g.nvml_reserved; /* v1: "Sum of Reserved and Allocated device memory" */
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    fake_gpu g;
    if (g_init_count <= 0) return NVML_ERROR_UNINITIALIZED;
    int m = mig_of(device);
    if (m >= 0) {
        char buf[64];
        snprintf(buf, sizeof buf, "MIG-00000000-0000-4000-8000-00000000000%d", m + 1);
        return copy_str(uuid, length, buf);
    }
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    return copy_str(uuid, length, g.uuid_str);
}

EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
    fake_gpu g;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    return copy_str(serial, length, g.serial);
}

EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending)
{
    fake_gpu g;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
    *current = g.ecc ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    *pending = *current;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode)
{
    int o = 0;
    nvmlReturn_t r = dev(device, NULL, &o);
    if (r != NVML_SUCCESS) return r;
    if (!currentMode || !pendingMode) return NVML_ERROR_INVALID_ARGUMENT;
    *currentMode = (o == 0 && is_mig()) ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    *pendingMode = *currentMode;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    int o = 0;
    nvmlReturn_t r = dev(device, NULL, &o);
    if (r != NVML_SUCCESS) return r;
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    *count = MIG_MAX_DEVICES;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice)
{
    int o = 0;
    nvmlReturn_t r = dev(device, NULL, &o);
    if (r != NVML_SUCCESS) return r;
    if (!migDevice || index >= MIG_MAX_DEVICES) return NVML_ERROR_INVALID_ARGUMENT;
    if (o != 0 || !is_mig()) return NVML_ERROR_INVALID_ARGUMENT; /* not in MIG mode */
    if (index >= 2) return NVML_ERROR_NOT_FOUND;
    *migDevice = (nvmlDevice_t)(void *)&g_mig_handles[index];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    if (g_init_count <= 0) return NVML_ERROR_UNINITIALIZED;
    int m = mig_of(device);
    if (m < 0 || !id) return NVML_ERROR_INVALID_ARGUMENT;
    *id = m == 0 ? 1U : 2U;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    if (g_init_count <= 0) return NVML_ERROR_UNINITIALIZED;
    if (mig_of(device) < 0 || !id) return NVML_ERROR_INVALID_ARGUMENT;
    *id = 0;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    fake_gpu g;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!mode) return NVML_ERROR_INVALID_ARGUMENT;
    *mode = g.compute_mode;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    fake_gpu g;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!clock) return NVML_ERROR_INVALID_ARGUMENT;
    switch (type) {
    case NVML_CLOCK_GRAPHICS: *clock = g.max_graphics_mhz; break;
    case NVML_CLOCK_SM: *clock = g.max_sm_mhz; break;
    case NVML_CLOCK_MEM: *clock = g.max_mem_mhz; break;
    case NVML_CLOCK_VIDEO: *clock = g.max_video_mhz; break;
    default: return NVML_ERROR_INVALID_ARGUMENT;
    }
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t device, unsigned int *busWidth)
{
    fake_gpu g;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!busWidth) return NVML_ERROR_INVALID_ARGUMENT;
    *busWidth = g.nvml_bus_width;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
    fake_gpu g;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!limit) return NVML_ERROR_INVALID_ARGUMENT;
    *limit = g.power_limit_mw;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *gen)
{
    fake_gpu g;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!gen) return NVML_ERROR_INVALID_ARGUMENT;
    *gen = g.pcie_gen;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *width)
{
    fake_gpu g;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!width) return NVML_ERROR_INVALID_ARGUMENT;
    *width = g.pcie_width;
    return NVML_SUCCESS;
}

/* NVML's protocol: *infoCount in = capacity, out = number of processes;
 * NVML_ERROR_INSUFFICIENT_SIZE when the capacity is too small. */
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                            nvmlProcessInfo_t *infos)
{
    fake_gpu g;
    nvmlReturn_t r = dev(device, &g, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!infoCount) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned int n = g.other_process_bytes ? 1U : 0U;
    if (*infoCount < n) {
        *infoCount = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (n && !infos) return NVML_ERROR_INVALID_ARGUMENT;
    if (n) {
        infos[0].pid = 4242;
        infos[0].usedGpuMemory = g.other_process_bytes;
        infos[0].gpuInstanceId = 0xFFFFFFFFU;
        infos[0].computeInstanceId = 0xFFFFFFFFU;
    }
    *infoCount = n;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive)
{
    nvmlReturn_t r = dev(device, NULL, NULL);
    if (r != NVML_SUCCESS) return r;
    if (!isActive || link >= NVML_NVLINK_MAX_LINKS) return NVML_ERROR_INVALID_ARGUMENT;
    if (fake_gpu_count() < 2) return NVML_ERROR_NOT_SUPPORTED; /* measured on the H100 VM */
    *isActive = NVML_FEATURE_ENABLED;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
                                                        nvmlGpuTopologyLevel_t *pathInfo)
{
    int a = 0, b = 0;
    nvmlReturn_t r = dev(device1, NULL, &a);
    if (r == NVML_SUCCESS) r = dev(device2, NULL, &b);
    if (r != NVML_SUCCESS) return r;
    if (!pathInfo) return NVML_ERROR_INVALID_ARGUMENT;
    *pathInfo = a == b ? NVML_TOPOLOGY_INTERNAL : NVML_TOPOLOGY_NODE;
    return NVML_SUCCESS;
}
