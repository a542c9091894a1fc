/*
 * driver_api.h - the few CUDA driver API and NVML declarations vramplan-probe uses.
 *
 * The probe must run on a node that has only the NVIDIA driver (no CUDA toolkit, no nvml.h),
 * so it declares what it needs here and loads libcuda.so.1 / libnvidia-ml.so.1 with dlopen.
 * Values were checked against the CUDA 13.0 toolkit's cuda.h (enum CUdevice_attribute,
 * enum cudaError_enum, CUuuid) and against NVML's nvml.h as mirrored by several public
 * projects (nvmlReturn_t, nvmlMemory_v2_t, nvmlProcessInfo_t, nvmlPciInfo_t,
 * NVML_NVLINK_MAX_LINKS = 18, nvmlGpuTopologyLevel_t).
 *
 * Enums are declared as plain integer typedefs: every function below passes and returns
 * them by value or through int/unsigned pointers, which is ABI-identical on the platforms
 * the NVIDIA driver supports.
 *
 * The test doubles in tests/probe/fake_*.c include this header so their definitions have
 * exactly these prototypes.
 */
#ifndef VRAMPLAN_PROBE_DRIVER_API_H
#define VRAMPLAN_PROBE_DRIVER_API_H

#include <stddef.h>

/* ------------------------------------------------------------------ CUDA driver API */

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUuuid_st {
    char bytes[16];
} CUuuid;

/* enum cudaError_enum (cuda.h, CUDA 13.0) */
#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_DEINITIALIZED 4
#define CUDA_ERROR_STUB_LIBRARY 34
#define CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER 36
#define CUDA_ERROR_DEVICE_UNAVAILABLE 46
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_DEVICE_NOT_LICENSED 102
#define CUDA_ERROR_INVALID_CONTEXT 201
#define CUDA_ERROR_OPERATING_SYSTEM 304
#define CUDA_ERROR_NOT_PERMITTED 800
#define CUDA_ERROR_NOT_SUPPORTED 801
#define CUDA_ERROR_SYSTEM_NOT_READY 802
#define CUDA_ERROR_SYSTEM_DRIVER_MISMATCH 803
#define CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE 804
#define CUDA_ERROR_UNKNOWN 999

/* enum CUdevice_attribute (cuda.h, CUDA 13.0) */
#define CU_DEVICE_ATTRIBUTE_CLOCK_RATE 13                /* kHz */
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_INTEGRATED 18
#define CU_DEVICE_ATTRIBUTE_COMPUTE_MODE 20
#define CU_DEVICE_ATTRIBUTE_ECC_ENABLED 32
#define CU_DEVICE_ATTRIBUTE_PCI_BUS_ID 33
#define CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID 34
#define CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE 36         /* kHz */
#define CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH 37   /* bits */
#define CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE 38             /* bytes */
#define CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID 50
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

/* enum CUcomputemode (value 1, exclusive-thread, no longer exists in CUDA 13) */
#define CU_COMPUTEMODE_DEFAULT 0
#define CU_COMPUTEMODE_EXCLUSIVE_THREAD 1
#define CU_COMPUTEMODE_PROHIBITED 2
#define CU_COMPUTEMODE_EXCLUSIVE_PROCESS 3

typedef CUresult (*PFN_cuInit)(unsigned int flags);
typedef CUresult (*PFN_cuDriverGetVersion)(int *version);
typedef CUresult (*PFN_cuDeviceGetCount)(int *count);
typedef CUresult (*PFN_cuDeviceGet)(CUdevice *device, int ordinal);
typedef CUresult (*PFN_cuDeviceGetName)(char *name, int len, CUdevice dev);
typedef CUresult (*PFN_cuDeviceGetUuid)(CUuuid *uuid, CUdevice dev); /* also _v2 */
typedef CUresult (*PFN_cuDeviceTotalMem_v2)(size_t *bytes, CUdevice dev);
typedef CUresult (*PFN_cuDeviceGetAttribute)(int *pi, int attrib, CUdevice dev);
typedef CUresult (*PFN_cuDeviceGetPCIBusId)(char *pciBusId, int len, CUdevice dev);
typedef CUresult (*PFN_cuCtxCreate_v2)(CUcontext *pctx, unsigned int flags, CUdevice dev);
typedef CUresult (*PFN_cuCtxDestroy_v2)(CUcontext ctx);
typedef CUresult (*PFN_cuMemGetInfo_v2)(size_t *free_bytes, size_t *total_bytes);
typedef CUresult (*PFN_cuDeviceCanAccessPeer)(int *canAccessPeer, CUdevice dev, CUdevice peerDev);
typedef CUresult (*PFN_cuGetErrorName)(CUresult error, const char **pstr);

/* ------------------------------------------------------------------ NVML */

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef int nvmlEnableState_t; /* NVML_FEATURE_DISABLED 0, NVML_FEATURE_ENABLED 1 */
typedef int nvmlClockType_t;
typedef int nvmlComputeMode_t;
typedef int nvmlGpuTopologyLevel_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_ALREADY_INITIALIZED 5
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_INSUFFICIENT_POWER 8
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_TIMEOUT 10
#define NVML_ERROR_IRQ_ISSUE 11
#define NVML_ERROR_LIBRARY_NOT_FOUND 12
#define NVML_ERROR_FUNCTION_NOT_FOUND 13
#define NVML_ERROR_CORRUPTED_INFOROM 14
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_RESET_REQUIRED 16
#define NVML_ERROR_OPERATING_SYSTEM 17
#define NVML_ERROR_LIB_RM_VERSION_MISMATCH 18
#define NVML_ERROR_IN_USE 19
#define NVML_ERROR_MEMORY 20
#define NVML_ERROR_NO_DATA 21
#define NVML_ERROR_VGPU_ECC_NOT_SUPPORTED 22
#define NVML_ERROR_INSUFFICIENT_RESOURCES 23
#define NVML_ERROR_FREQ_NOT_SUPPORTED 24
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define NVML_ERROR_DEPRECATED 26
#define NVML_ERROR_NOT_READY 27
#define NVML_ERROR_GPU_NOT_FOUND 28
#define NVML_ERROR_INVALID_STATE 29
#define NVML_ERROR_UNKNOWN 999

#define NVML_FEATURE_DISABLED 0
#define NVML_FEATURE_ENABLED 1

#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_CLOCK_VIDEO 3

#define NVML_COMPUTEMODE_DEFAULT 0
#define NVML_COMPUTEMODE_EXCLUSIVE_THREAD 1
#define NVML_COMPUTEMODE_PROHIBITED 2
#define NVML_COMPUTEMODE_EXCLUSIVE_PROCESS 3

#define NVML_DEVICE_MIG_DISABLE 0
#define NVML_DEVICE_MIG_ENABLE 1

#define NVML_TOPOLOGY_INTERNAL 0
#define NVML_TOPOLOGY_SINGLE 10
#define NVML_TOPOLOGY_MULTIPLE 20
#define NVML_TOPOLOGY_HOSTBRIDGE 30
#define NVML_TOPOLOGY_NODE 40
#define NVML_TOPOLOGY_SYSTEM 50

#define NVML_NVLINK_MAX_LINKS 18
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32

/* usedGpuMemory value NVML reports when it cannot tell (e.g. under some vGPU setups) */
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

typedef struct nvmlMemory_st { /* v1: used = reserved + allocated */
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
    unsigned int version; /* = sizeof(nvmlMemory_v2_t) | 2 << 24 */
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t;

#define NVML_STRUCT_VERSION(size, ver) ((unsigned int)(size) | ((unsigned int)(ver) << 24U))
#define nvmlMemory_v2 NVML_STRUCT_VERSION(sizeof(nvmlMemory_v2_t), 2)

/* used by nvmlDeviceGetComputeRunningProcesses_v2 and _v3 */
typedef struct nvmlProcessInfo_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;

/* used by the original nvmlDeviceGetComputeRunningProcesses */
typedef struct nvmlProcessInfo_v1_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef nvmlReturn_t (*PFN_nvmlInit_v2)(void);
typedef nvmlReturn_t (*PFN_nvmlShutdown)(void);
typedef const char *(*PFN_nvmlErrorString)(nvmlReturn_t result);
typedef nvmlReturn_t (*PFN_nvmlSystemGetDriverVersion)(char *version, unsigned int length);
typedef nvmlReturn_t (*PFN_nvmlSystemGetCudaDriverVersion_v2)(int *cudaDriverVersion);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetCount_v2)(unsigned int *deviceCount);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetHandleByIndex_v2)(unsigned int index, nvmlDevice_t *device);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetHandleByPciBusId_v2)(const char *pciBusId, nvmlDevice_t *device);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetPciInfo_v3)(nvmlDevice_t device, nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetIndex)(nvmlDevice_t device, unsigned int *index);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetMemoryInfo_v2)(nvmlDevice_t device, nvmlMemory_v2_t *memory);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetMemoryInfo)(nvmlDevice_t device, nvmlMemory_t *memory);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetUUID)(nvmlDevice_t device, char *uuid, unsigned int length);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetSerial)(nvmlDevice_t device, char *serial, unsigned int length);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetEccMode)(nvmlDevice_t device, nvmlEnableState_t *current,
                                                 nvmlEnableState_t *pending);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetMigMode)(nvmlDevice_t device, unsigned int *currentMode,
                                                 unsigned int *pendingMode);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetMaxMigDeviceCount)(nvmlDevice_t device, unsigned int *count);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetMigDeviceHandleByIndex)(nvmlDevice_t device, unsigned int index,
                                                                nvmlDevice_t *migDevice);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetGpuInstanceId)(nvmlDevice_t device, unsigned int *id);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetComputeInstanceId)(nvmlDevice_t device, unsigned int *id);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetComputeMode)(nvmlDevice_t device, nvmlComputeMode_t *mode);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetMaxClockInfo)(nvmlDevice_t device, nvmlClockType_t type,
                                                      unsigned int *clock);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetMemoryBusWidth)(nvmlDevice_t device, unsigned int *busWidth);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetPowerManagementLimit)(nvmlDevice_t device, unsigned int *limit);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetMaxPcieLinkGeneration)(nvmlDevice_t device, unsigned int *gen);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetMaxPcieLinkWidth)(nvmlDevice_t device, unsigned int *width);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetComputeRunningProcesses_v3)(nvmlDevice_t device, unsigned int *infoCount,
                                                                    nvmlProcessInfo_t *infos);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetComputeRunningProcesses_v1)(nvmlDevice_t device, unsigned int *infoCount,
                                                                    nvmlProcessInfo_v1_t *infos);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetNvLinkState)(nvmlDevice_t device, unsigned int link,
                                                     nvmlEnableState_t *isActive);
typedef nvmlReturn_t (*PFN_nvmlDeviceGetTopologyCommonAncestor)(nvmlDevice_t device1, nvmlDevice_t device2,
                                                                nvmlGpuTopologyLevel_t *pathInfo);

#endif
