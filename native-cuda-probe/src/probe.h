/* probe.h - internal interfaces of vramplan-probe */
#ifndef VRAMPLAN_PROBE_H
#define VRAMPLAN_PROBE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "driver_api.h"

#define VP_PROBE_VERSION "0.1.0"
#define VP_PROBE_SCHEMA "vramplan/gpu-probe@1"
#define VP_MAX_DEVICES 64

/* The largest byte count the probe writes: 2^44 B = 16 TiB, the planner's limit (MAX_GPU_BYTES in
 * core/src/gpu.c), some 100 times the memory of any GPU. A driver that reports more is reporting a
 * sentinel (e.g. 2^64 - 1), and the field becomes null with a reason. */
#define VP_MAX_BYTES (1ULL << 44)
/* The largest peak_bandwidth_gbs the planner accepts (core/src/gpu.c reads it in [0, 1e6]); a larger
 * product of clock and bus width means the driver's clock or width is wrong. */
#define VP_MAX_BANDWIDTH_GBS 1e6

/* Error codes of the error document. Exit codes are in vp_exit_code(). */
typedef enum {
    VP_OK = 0,
    VP_ERR_BAD_ARGUMENTS,
    VP_ERR_NO_DRIVER,
    VP_ERR_NO_GPU,
    VP_ERR_DRIVER_TOO_OLD,
    VP_ERR_PERMISSION_DENIED,
    VP_ERR_INIT_FAILED,
    VP_ERR_IO_ERROR,
    VP_ERR_INTERNAL
} vp_err;

/* Exit codes (documented in docs/schema/gpu-probe.md) */
#define VP_EXIT_OK 0
#define VP_EXIT_INVALID_FILE 1 /* --validate: the file is not a valid gpu-probe document */
#define VP_EXIT_BAD_ARGUMENTS 2
#define VP_EXIT_NO_DRIVER 3
#define VP_EXIT_NO_GPU 4
#define VP_EXIT_DRIVER_TOO_OLD 5
#define VP_EXIT_PERMISSION_DENIED 6
#define VP_EXIT_INIT_FAILED 7
#define VP_EXIT_IO_ERROR 8
#define VP_EXIT_INTERNAL 9

const char *vp_err_code(vp_err e);
int vp_exit_code(vp_err e);

typedef struct {
    void *handle;
    PFN_cuInit cuInit;
    PFN_cuDriverGetVersion cuDriverGetVersion;
    PFN_cuDeviceGetCount cuDeviceGetCount;
    PFN_cuDeviceGet cuDeviceGet;
    PFN_cuDeviceGetName cuDeviceGetName;
    PFN_cuDeviceTotalMem_v2 cuDeviceTotalMem_v2;
    PFN_cuDeviceGetAttribute cuDeviceGetAttribute;
    /* optional */
    PFN_cuDeviceGetUuid cuDeviceGetUuid_v2;
    PFN_cuDeviceGetUuid cuDeviceGetUuid;
    PFN_cuDeviceGetPCIBusId cuDeviceGetPCIBusId;
    PFN_cuCtxCreate_v2 cuCtxCreate_v2;
    PFN_cuCtxDestroy_v2 cuCtxDestroy_v2;
    PFN_cuMemGetInfo_v2 cuMemGetInfo_v2;
    PFN_cuDeviceCanAccessPeer cuDeviceCanAccessPeer;
    PFN_cuGetErrorName cuGetErrorName;
} vp_cuda;

typedef struct {
    void *handle;
    int ok; /* loaded and nvmlInit_v2 succeeded */
    PFN_nvmlInit_v2 nvmlInit_v2;
    PFN_nvmlShutdown nvmlShutdown;
    PFN_nvmlErrorString nvmlErrorString;
    PFN_nvmlSystemGetDriverVersion nvmlSystemGetDriverVersion;
    PFN_nvmlSystemGetCudaDriverVersion_v2 nvmlSystemGetCudaDriverVersion_v2;
    PFN_nvmlDeviceGetCount_v2 nvmlDeviceGetCount_v2;
    PFN_nvmlDeviceGetHandleByIndex_v2 nvmlDeviceGetHandleByIndex_v2;
    PFN_nvmlDeviceGetHandleByPciBusId_v2 nvmlDeviceGetHandleByPciBusId_v2;
    PFN_nvmlDeviceGetPciInfo_v3 nvmlDeviceGetPciInfo_v3;
    PFN_nvmlDeviceGetIndex nvmlDeviceGetIndex;
    PFN_nvmlDeviceGetMemoryInfo_v2 nvmlDeviceGetMemoryInfo_v2;
    PFN_nvmlDeviceGetMemoryInfo nvmlDeviceGetMemoryInfo;
    PFN_nvmlDeviceGetUUID nvmlDeviceGetUUID;
    PFN_nvmlDeviceGetSerial nvmlDeviceGetSerial;
    PFN_nvmlDeviceGetEccMode nvmlDeviceGetEccMode;
    PFN_nvmlDeviceGetMigMode nvmlDeviceGetMigMode;
    PFN_nvmlDeviceGetMaxMigDeviceCount nvmlDeviceGetMaxMigDeviceCount;
    PFN_nvmlDeviceGetMigDeviceHandleByIndex nvmlDeviceGetMigDeviceHandleByIndex;
    PFN_nvmlDeviceGetGpuInstanceId nvmlDeviceGetGpuInstanceId;
    PFN_nvmlDeviceGetComputeInstanceId nvmlDeviceGetComputeInstanceId;
    PFN_nvmlDeviceGetComputeMode nvmlDeviceGetComputeMode;
    PFN_nvmlDeviceGetMaxClockInfo nvmlDeviceGetMaxClockInfo;
    PFN_nvmlDeviceGetMemoryBusWidth nvmlDeviceGetMemoryBusWidth;
    PFN_nvmlDeviceGetPowerManagementLimit nvmlDeviceGetPowerManagementLimit;
    PFN_nvmlDeviceGetMaxPcieLinkGeneration nvmlDeviceGetMaxPcieLinkGeneration;
    PFN_nvmlDeviceGetMaxPcieLinkWidth nvmlDeviceGetMaxPcieLinkWidth;
    PFN_nvmlDeviceGetComputeRunningProcesses_v3 nvmlDeviceGetComputeRunningProcesses_v3;
    PFN_nvmlDeviceGetComputeRunningProcesses_v3 nvmlDeviceGetComputeRunningProcesses_v2;
    PFN_nvmlDeviceGetComputeRunningProcesses_v1 nvmlDeviceGetComputeRunningProcesses;
    PFN_nvmlDeviceGetNvLinkState nvmlDeviceGetNvLinkState;
    PFN_nvmlDeviceGetTopologyCommonAncestor nvmlDeviceGetTopologyCommonAncestor;
} vp_nvml;

/* loader.c */
typedef enum { VP_LOAD_OK = 0, VP_LOAD_NOT_FOUND, VP_LOAD_MISSING_SYMBOL } vp_load_result;
vp_load_result vp_cuda_load(vp_cuda *c, const char *path, char *msg, size_t msgsz);
/* returns 0 when NVML is usable; otherwise writes the reason into `reason` */
int vp_nvml_load(vp_nvml *n, const char *path, char *reason, size_t reasonsz);
void vp_nvml_unload(vp_nvml *n);
void vp_cuda_unload(vp_cuda *c);
const char *vp_cuda_err_name(const vp_cuda *c, CUresult r, char *buf, size_t bufsz);
const char *vp_nvml_err_name(nvmlReturn_t r);

typedef struct {
    const char *output; /* NULL: stdout */
    int pretty;
    int redact;
    int hostname;
    int n_devices; /* 0: all */
    int devices[VP_MAX_DEVICES];
} vp_options;

/* collect.c: builds the probe document. On failure returns NULL and sets *err and msg. */
cJSON *vp_collect(const vp_options *opt, vp_err *err, char *msg, size_t msgsz);

/* helpers shared by collect.c and main.c */
cJSON *vp_error_doc(vp_err e, const char *message);
/* Makes every string value under item well-formed UTF-8 (ill-formed bytes become U+FFFD): drivers,
 * dlerror() and gethostname() return bytes, and JSON must be UTF-8. Returns the number of strings
 * changed, or -1 when out of memory. */
int vp_json_make_utf8(cJSON *item);
int vp_format_time(char *buf, size_t bufsz);

#endif
