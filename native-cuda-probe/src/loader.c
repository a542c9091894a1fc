/* loader.c - dlopen/dlsym of the CUDA driver API and NVML (no link-time dependency) */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "probe.h"

/* dlsym returns void*; converting it to a function pointer is what POSIX dlsym is for. */
#define LOAD_SYM(lib, field, name) ((lib)->field = (__typeof__((lib)->field))dlsym((lib)->handle, name))

static const char *dl_reason(void)
{
    const char *e = dlerror();
    return e ? e : "unknown dlopen error";
}

vp_load_result vp_cuda_load(vp_cuda *c, const char *path, char *msg, size_t msgsz)
{
    memset(c, 0, sizeof *c);
    dlerror();
    c->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!c->handle) {
        snprintf(msg, msgsz, "%s", dl_reason());
        return VP_LOAD_NOT_FOUND;
    }
    LOAD_SYM(c, cuInit, "cuInit");
    LOAD_SYM(c, cuDriverGetVersion, "cuDriverGetVersion");
    LOAD_SYM(c, cuDeviceGetCount, "cuDeviceGetCount");
    LOAD_SYM(c, cuDeviceGet, "cuDeviceGet");
    LOAD_SYM(c, cuDeviceGetName, "cuDeviceGetName");
    LOAD_SYM(c, cuDeviceTotalMem_v2, "cuDeviceTotalMem_v2");
    LOAD_SYM(c, cuDeviceGetAttribute, "cuDeviceGetAttribute");

    LOAD_SYM(c, cuDeviceGetUuid_v2, "cuDeviceGetUuid_v2");
    LOAD_SYM(c, cuDeviceGetUuid, "cuDeviceGetUuid");
    LOAD_SYM(c, cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId");
    LOAD_SYM(c, cuCtxCreate_v2, "cuCtxCreate_v2");
    LOAD_SYM(c, cuCtxDestroy_v2, "cuCtxDestroy_v2");
    LOAD_SYM(c, cuMemGetInfo_v2, "cuMemGetInfo_v2");
    LOAD_SYM(c, cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer");
    LOAD_SYM(c, cuGetErrorName, "cuGetErrorName");

    const char *missing = NULL;
    if (!c->cuInit) missing = "cuInit";
    else if (!c->cuDriverGetVersion) missing = "cuDriverGetVersion";
    else if (!c->cuDeviceGetCount) missing = "cuDeviceGetCount";
    else if (!c->cuDeviceGet) missing = "cuDeviceGet";
    else if (!c->cuDeviceGetName) missing = "cuDeviceGetName";
    else if (!c->cuDeviceTotalMem_v2) missing = "cuDeviceTotalMem_v2";
    else if (!c->cuDeviceGetAttribute) missing = "cuDeviceGetAttribute";
    if (missing) {
        snprintf(msg, msgsz, "%s does not export %s", path, missing);
        return VP_LOAD_MISSING_SYMBOL;
    }
    return VP_LOAD_OK;
}

void vp_cuda_unload(vp_cuda *c)
{
    /* libcuda is deliberately not dlclose()d: after cuInit the driver owns helper threads,
     * and unloading it before exit is a known source of crashes. The OS reclaims it. */
    memset(c, 0, sizeof *c);
}

int vp_nvml_load(vp_nvml *n, const char *path, char *reason, size_t reasonsz)
{
    memset(n, 0, sizeof *n);
    dlerror();
    n->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!n->handle) {
        snprintf(reason, reasonsz, "NVML not found (%s)", dl_reason());
        return -1;
    }
    LOAD_SYM(n, nvmlInit_v2, "nvmlInit_v2");
    LOAD_SYM(n, nvmlShutdown, "nvmlShutdown");
    LOAD_SYM(n, nvmlErrorString, "nvmlErrorString");
    LOAD_SYM(n, nvmlSystemGetDriverVersion, "nvmlSystemGetDriverVersion");
    LOAD_SYM(n, nvmlSystemGetCudaDriverVersion_v2, "nvmlSystemGetCudaDriverVersion_v2");
    LOAD_SYM(n, nvmlDeviceGetCount_v2, "nvmlDeviceGetCount_v2");
    LOAD_SYM(n, nvmlDeviceGetHandleByIndex_v2, "nvmlDeviceGetHandleByIndex_v2");
    LOAD_SYM(n, nvmlDeviceGetHandleByPciBusId_v2, "nvmlDeviceGetHandleByPciBusId_v2");
    LOAD_SYM(n, nvmlDeviceGetPciInfo_v3, "nvmlDeviceGetPciInfo_v3");
    LOAD_SYM(n, nvmlDeviceGetIndex, "nvmlDeviceGetIndex");
    LOAD_SYM(n, nvmlDeviceGetMemoryInfo_v2, "nvmlDeviceGetMemoryInfo_v2");
    LOAD_SYM(n, nvmlDeviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo");
    LOAD_SYM(n, nvmlDeviceGetUUID, "nvmlDeviceGetUUID");
    LOAD_SYM(n, nvmlDeviceGetSerial, "nvmlDeviceGetSerial");
    LOAD_SYM(n, nvmlDeviceGetEccMode, "nvmlDeviceGetEccMode");
    LOAD_SYM(n, nvmlDeviceGetMigMode, "nvmlDeviceGetMigMode");
    LOAD_SYM(n, nvmlDeviceGetMaxMigDeviceCount, "nvmlDeviceGetMaxMigDeviceCount");
    LOAD_SYM(n, nvmlDeviceGetMigDeviceHandleByIndex, "nvmlDeviceGetMigDeviceHandleByIndex");
    LOAD_SYM(n, nvmlDeviceGetGpuInstanceId, "nvmlDeviceGetGpuInstanceId");
    LOAD_SYM(n, nvmlDeviceGetComputeInstanceId, "nvmlDeviceGetComputeInstanceId");
    LOAD_SYM(n, nvmlDeviceGetComputeMode, "nvmlDeviceGetComputeMode");
    LOAD_SYM(n, nvmlDeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo");
    LOAD_SYM(n, nvmlDeviceGetMemoryBusWidth, "nvmlDeviceGetMemoryBusWidth");
    LOAD_SYM(n, nvmlDeviceGetPowerManagementLimit, "nvmlDeviceGetPowerManagementLimit");
    LOAD_SYM(n, nvmlDeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration");
    LOAD_SYM(n, nvmlDeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth");
    LOAD_SYM(n, nvmlDeviceGetComputeRunningProcesses_v3, "nvmlDeviceGetComputeRunningProcesses_v3");
    LOAD_SYM(n, nvmlDeviceGetComputeRunningProcesses_v2, "nvmlDeviceGetComputeRunningProcesses_v2");
    LOAD_SYM(n, nvmlDeviceGetComputeRunningProcesses, "nvmlDeviceGetComputeRunningProcesses");
    LOAD_SYM(n, nvmlDeviceGetNvLinkState, "nvmlDeviceGetNvLinkState");
    LOAD_SYM(n, nvmlDeviceGetTopologyCommonAncestor, "nvmlDeviceGetTopologyCommonAncestor");

    if (!n->nvmlInit_v2) {
        snprintf(reason, reasonsz, "NVML too old (%s does not export nvmlInit_v2)", path);
        dlclose(n->handle);
        memset(n, 0, sizeof *n);
        return -1;
    }
    nvmlReturn_t r = n->nvmlInit_v2();
    if (r != NVML_SUCCESS) {
        snprintf(reason, reasonsz, "nvmlInit_v2 failed: %s", vp_nvml_err_name(r));
        dlclose(n->handle);
        memset(n, 0, sizeof *n);
        return -1;
    }
    n->ok = 1;
    return 0;
}

void vp_nvml_unload(vp_nvml *n)
{
    if (n->ok && n->nvmlShutdown) n->nvmlShutdown();
    if (n->handle) dlclose(n->handle);
    memset(n, 0, sizeof *n);
}

const char *vp_cuda_err_name(const vp_cuda *c, CUresult r, char *buf, size_t bufsz)
{
    const char *s = NULL;
    if (c && c->cuGetErrorName && c->cuGetErrorName(r, &s) == CUDA_SUCCESS && s) {
        snprintf(buf, bufsz, "%s (%d)", s, r);
        return buf;
    }
    switch (r) {
    case CUDA_ERROR_INVALID_VALUE: s = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    case CUDA_ERROR_NOT_INITIALIZED: s = "CUDA_ERROR_NOT_INITIALIZED"; break;
    case CUDA_ERROR_DEINITIALIZED: s = "CUDA_ERROR_DEINITIALIZED"; break;
    case CUDA_ERROR_STUB_LIBRARY: s = "CUDA_ERROR_STUB_LIBRARY"; break;
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER: s = "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"; break;
    case CUDA_ERROR_DEVICE_UNAVAILABLE: s = "CUDA_ERROR_DEVICE_UNAVAILABLE"; break;
    case CUDA_ERROR_NO_DEVICE: s = "CUDA_ERROR_NO_DEVICE"; break;
    case CUDA_ERROR_INVALID_DEVICE: s = "CUDA_ERROR_INVALID_DEVICE"; break;
    case CUDA_ERROR_DEVICE_NOT_LICENSED: s = "CUDA_ERROR_DEVICE_NOT_LICENSED"; break;
    case CUDA_ERROR_INVALID_CONTEXT: s = "CUDA_ERROR_INVALID_CONTEXT"; break;
    case CUDA_ERROR_OPERATING_SYSTEM: s = "CUDA_ERROR_OPERATING_SYSTEM"; break;
    case CUDA_ERROR_NOT_PERMITTED: s = "CUDA_ERROR_NOT_PERMITTED"; break;
    case CUDA_ERROR_NOT_SUPPORTED: s = "CUDA_ERROR_NOT_SUPPORTED"; break;
    case CUDA_ERROR_SYSTEM_NOT_READY: s = "CUDA_ERROR_SYSTEM_NOT_READY"; break;
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: s = "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"; break;
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: s = "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"; break;
    case CUDA_ERROR_UNKNOWN: s = "CUDA_ERROR_UNKNOWN"; break;
    default: s = "CUDA error"; break;
    }
    snprintf(buf, bufsz, "%s (%d)", s, r);
    return buf;
}

/* Names are stable and not localised, unlike nvmlErrorString's text, so they are what we print. */
const char *vp_nvml_err_name(nvmlReturn_t r)
{
    switch (r) {
    case NVML_SUCCESS: return "NVML_SUCCESS";
    case NVML_ERROR_UNINITIALIZED: return "NVML_ERROR_UNINITIALIZED";
    case NVML_ERROR_INVALID_ARGUMENT: return "NVML_ERROR_INVALID_ARGUMENT";
    case NVML_ERROR_NOT_SUPPORTED: return "NVML_ERROR_NOT_SUPPORTED";
    case NVML_ERROR_NO_PERMISSION: return "NVML_ERROR_NO_PERMISSION";
    case NVML_ERROR_ALREADY_INITIALIZED: return "NVML_ERROR_ALREADY_INITIALIZED";
    case NVML_ERROR_NOT_FOUND: return "NVML_ERROR_NOT_FOUND";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "NVML_ERROR_INSUFFICIENT_SIZE";
    case NVML_ERROR_INSUFFICIENT_POWER: return "NVML_ERROR_INSUFFICIENT_POWER";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "NVML_ERROR_DRIVER_NOT_LOADED";
    case NVML_ERROR_TIMEOUT: return "NVML_ERROR_TIMEOUT";
    case NVML_ERROR_IRQ_ISSUE: return "NVML_ERROR_IRQ_ISSUE";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML_ERROR_LIBRARY_NOT_FOUND";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "NVML_ERROR_FUNCTION_NOT_FOUND";
    case NVML_ERROR_CORRUPTED_INFOROM: return "NVML_ERROR_CORRUPTED_INFOROM";
    case NVML_ERROR_GPU_IS_LOST: return "NVML_ERROR_GPU_IS_LOST";
    case NVML_ERROR_RESET_REQUIRED: return "NVML_ERROR_RESET_REQUIRED";
    case NVML_ERROR_OPERATING_SYSTEM: return "NVML_ERROR_OPERATING_SYSTEM";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
    case NVML_ERROR_IN_USE: return "NVML_ERROR_IN_USE";
    case NVML_ERROR_MEMORY: return "NVML_ERROR_MEMORY";
    case NVML_ERROR_NO_DATA: return "NVML_ERROR_NO_DATA";
    case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED: return "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED";
    case NVML_ERROR_INSUFFICIENT_RESOURCES: return "NVML_ERROR_INSUFFICIENT_RESOURCES";
    case NVML_ERROR_FREQ_NOT_SUPPORTED: return "NVML_ERROR_FREQ_NOT_SUPPORTED";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "NVML_ERROR_ARGUMENT_VERSION_MISMATCH";
    case NVML_ERROR_DEPRECATED: return "NVML_ERROR_DEPRECATED";
    case NVML_ERROR_NOT_READY: return "NVML_ERROR_NOT_READY";
    case NVML_ERROR_GPU_NOT_FOUND: return "NVML_ERROR_GPU_NOT_FOUND";
    case NVML_ERROR_INVALID_STATE: return "NVML_ERROR_INVALID_STATE";
    case NVML_ERROR_UNKNOWN: return "NVML_ERROR_UNKNOWN";
    default: return "NVML error (unrecognised code)";
    }
}
