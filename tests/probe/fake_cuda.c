/*
 * fake_cuda.c - test double of the NVIDIA driver's libcuda.so.1 (built as libfakecuda.so).
 *
 * Reproduces the H100 of fake_gpu_table.h and the driver's calling rules and error codes:
 * everything except cuDriverGetVersion/cuGetErrorName answers CUDA_ERROR_NOT_INITIALIZED before
 * cuInit; a bad ordinal gives CUDA_ERROR_INVALID_DEVICE; cuMemGetInfo without a current context
 * gives CUDA_ERROR_INVALID_CONTEXT; no GPU gives CUDA_ERROR_NO_DEVICE from cuInit. A context
 * still alive when the process exits is reported and turns the exit status into 70.
 * Built with -DFAKE_CUDA_OLD it leaves out cuDeviceTotalMem_v2, like a very old driver.
 * With FAKE_GPU_HOSTILE=strings, cuGetErrorName answers with bytes that are not UTF-8.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "driver_api.h"
#include "fake_gpu_table.h"

#define EXPORT __attribute__((visibility("default")))

struct CUctx_st {
    int device;
    int alive;
};

static int g_initialized;
static struct CUctx_st g_ctx[FAKE_MAX_GPUS];
static CUcontext g_current;
static int g_live_contexts;

static CUresult check_dev(CUdevice dev, fake_gpu *g)
{
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (dev < 0 || dev >= fake_gpu_count()) return CUDA_ERROR_INVALID_DEVICE;
    if (g) fake_gpu_get(dev, g);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuInit(unsigned int flags)
{
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    int forced = fake_env_int("FAKE_CUDA_INIT_RESULT", 0);
    if (forced != 0) return forced;
    if (fake_gpu_count() == 0) return CUDA_ERROR_NO_DEVICE;
    g_initialized = 1;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *version)
{
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = fake_cuda_driver_version();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    *count = fake_gpu_count();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_dev(ordinal, NULL);
    if (r != CUDA_SUCCESS) return r;
    *device = ordinal;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    fake_gpu g;
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_dev(dev, &g);
    if (r != CUDA_SUCCESS) return r;
    snprintf(name, (size_t)len, "%s", g.name);
    return CUDA_SUCCESS;
}

static CUresult get_uuid(CUuuid *uuid, CUdevice dev)
{
    fake_gpu g;
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_dev(dev, &g);
    if (r != CUDA_SUCCESS) return r;
    memcpy(uuid->bytes, g.uuid, 16);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) { return get_uuid(uuid, dev); }
EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) { return get_uuid(uuid, dev); }

#ifndef FAKE_CUDA_OLD
EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    fake_gpu g;
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_dev(dev, &g);
    if (r != CUDA_SUCCESS) return r;
    *bytes = (size_t)g.cuda_total;
    return CUDA_SUCCESS;
}
#endif

EXPORT CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev)
{
    fake_gpu g;
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_dev(dev, &g);
    if (r != CUDA_SUCCESS) return r;
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *pi = g.clock_khz; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = g.sm_count; break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: *pi = g.integrated; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: *pi = g.compute_mode; break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: *pi = g.ecc; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *pi = g.pci_bus; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *pi = g.pci_device; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *pi = g.mem_clock_khz; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *pi = g.bus_width_bits; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *pi = g.l2_bytes; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *pi = g.pci_domain; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = g.cc_major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = g.cc_minor; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    fake_gpu g;
    if (!pciBusId || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_dev(dev, &g);
    if (r != CUDA_SUCCESS) return r;
    snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.0", (unsigned)g.pci_domain, (unsigned)g.pci_bus,
             (unsigned)g.pci_device);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_dev(dev, NULL);
    if (r != CUDA_SUCCESS) return r;
    if (flags > 0x1f) return CUDA_ERROR_INVALID_VALUE;
    int forced = fake_env_int("FAKE_CUDA_CTX_RESULT", 0);
    if (forced != 0) return forced;
    if (g_ctx[dev].alive) return CUDA_ERROR_UNKNOWN; /* the double supports one context per device */
    g_ctx[dev].device = dev;
    g_ctx[dev].alive = 1;
    g_live_contexts++;
    g_current = &g_ctx[dev];
    *pctx = &g_ctx[dev];
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    int known = 0;
    for (int i = 0; i < FAKE_MAX_GPUS; i++) known |= (ctx == &g_ctx[i]);
    if (!ctx || !known || !ctx->alive) return CUDA_ERROR_INVALID_CONTEXT;
    ctx->alive = 0;
    g_live_contexts--;
    if (g_current == ctx) g_current = NULL;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
    fake_gpu g;
    if (!free_bytes || !total_bytes) return CUDA_ERROR_INVALID_VALUE;
    if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (!g_current || !g_current->alive) return CUDA_ERROR_INVALID_CONTEXT;
    fake_gpu_get(g_current->device, &g);
    *free_bytes = (size_t)(g.nvml_free - g.context_bytes);
    *total_bytes = (size_t)g.cuda_total;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    if (!canAccessPeer) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_dev(dev, NULL);
    if (r == CUDA_SUCCESS) r = check_dev(peerDev, NULL);
    if (r != CUDA_SUCCESS) return r;
    *canAccessPeer = (dev != peerDev && fake_gpu_count() > 1) ? 1 : 0;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **pstr)
{
    if (!pstr) return CUDA_ERROR_INVALID_VALUE;
    switch (error) {
    case CUDA_SUCCESS: *pstr = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_INVALID_VALUE: *pstr = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_NOT_INITIALIZED: *pstr = "CUDA_ERROR_NOT_INITIALIZED"; break;
    case CUDA_ERROR_STUB_LIBRARY: *pstr = "CUDA_ERROR_STUB_LIBRARY"; break;
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER: *pstr = "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"; break;
    case CUDA_ERROR_DEVICE_UNAVAILABLE: *pstr = "CUDA_ERROR_DEVICE_UNAVAILABLE"; break;
    case CUDA_ERROR_NO_DEVICE: *pstr = "CUDA_ERROR_NO_DEVICE"; break;
    case CUDA_ERROR_INVALID_DEVICE: *pstr = "CUDA_ERROR_INVALID_DEVICE"; break;
    case CUDA_ERROR_INVALID_CONTEXT: *pstr = "CUDA_ERROR_INVALID_CONTEXT"; break;
    case CUDA_ERROR_NOT_PERMITTED: *pstr = "CUDA_ERROR_NOT_PERMITTED"; break;
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: *pstr = "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"; break;
    case CUDA_ERROR_UNKNOWN: *pstr = "CUDA_ERROR_UNKNOWN"; break;
    default: *pstr = NULL; return CUDA_ERROR_INVALID_VALUE;
    }
    if (error != CUDA_SUCCESS && fake_hostile("strings")) *pstr = "CUDA_ERROR_\xff\xfe\xed\xa0\x80";
    return CUDA_SUCCESS;
}

__attribute__((destructor)) static void fake_cuda_check_leaks(void)
{
    if (g_live_contexts != 0) {
        fprintf(stderr, "fake_cuda: %d CUDA context(s) were never destroyed\n", g_live_contexts);
        _exit(70);
    }
}
