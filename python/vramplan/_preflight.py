"""preflight: estimate a job, then check it against the GPU's free memory now, before loading anything.

The free memory is read, in order, from:
  1. free_bytes, when the caller gives it;
  2. NVML through ctypes (libnvidia-ml.so.1: nvmlInit_v2, nvmlDeviceGetHandleByIndex_v2 or
     nvmlDeviceGetHandleByUUID, nvmlDeviceGetMemoryInfo; nvml.h), which needs no CUDA context;
  3. torch.cuda.mem_get_info(device) (cudaMemGetInfo; it creates this process's CUDA context);
  4. none of these: DeviceError.

The core decides whether the job fits: the plan is estimated with hardware.capacity_bytes set to the
memory this job can have (the free memory, plus what this process already holds: its CUDA context,
when one exists, and the blocks PyTorch's allocator has reserved, e.g. a model already moved to the
GPU), so the verdict, the allocator's replay and the suggestions are all against that figure.
"""
import ctypes
import json
import numbers
import os

from . import _lib
from ._plan_text import plan_bytes, plan_dict
from .errors import PlanError, WillNotFit

_MAX_BYTES = 1 << 44  # the core's largest hardware.capacity_bytes (core/src/plan_parse.c)
_GIB = float(1 << 30)


class DeviceError(RuntimeError):
    """No free-memory figure could be had for the device (no free_bytes, no NVML, no CUDA through torch)."""


class _NvmlMemory(ctypes.Structure):
    # nvml.h nvmlMemory_t (v1): total, free, used, in bytes
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]


def _nvml_free(device):
    """(free bytes, None) from NVML, or (None, why not)."""
    name = os.environ.get("VRAMPLAN_NVML_LIBRARY", "libnvidia-ml.so.1")  # a test double in tests/python
    try:
        nvml = ctypes.CDLL(name)
    except OSError as e:
        return None, "NVML not found (%s)" % e
    try:
        if nvml.nvmlInit_v2() != 0:
            return None, "nvmlInit_v2 failed"
    except AttributeError as e:
        return None, "%s is not NVML (%s)" % (name, e)
    try:
        return _nvml_device_free(nvml, device)
    except AttributeError as e:  # an NVML too old for a call we make
        return None, "NVML lacks a function (%s)" % e
    finally:
        nvml.nvmlShutdown()


def _nvml_device_free(nvml, device):
    handle = ctypes.c_void_p()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    entry = None
    if visible is not None:
        entries = [v.strip() for v in visible.split(",") if v.strip()]
        if device >= len(entries):
            return None, "CUDA_VISIBLE_DEVICES=%r has no device %d" % (visible, device)
        entry = entries[device]
    if entry is not None and not entry.lstrip("-").isdigit():
        # GPU-... or MIG-... UUIDs (NVML accepts both, nvmlDeviceGetHandleByUUID)
        rc = nvml.nvmlDeviceGetHandleByUUID(entry.encode(), ctypes.byref(handle))
    else:
        index = int(entry) if entry is not None else device
        count = ctypes.c_uint()
        if nvml.nvmlDeviceGetCount_v2(ctypes.byref(count)) != 0:
            return None, "nvmlDeviceGetCount_v2 failed"
        if count.value > 1 and os.environ.get("CUDA_DEVICE_ORDER") != "PCI_BUS_ID" and not _same_gpus(nvml, count.value):
            # CUDA numbers unlike GPUs fastest first, NVML by PCI bus: the index may name another GPU
            return None, ("NVML numbers GPUs by PCI bus and CUDA fastest first, and this node's GPUs differ "
                          "(set CUDA_DEVICE_ORDER=PCI_BUS_ID)")
        rc = nvml.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(index), ctypes.byref(handle))
    if rc != 0:
        return None, "NVML has no device %s (error %d)" % (entry if entry is not None else device, rc)
    mem = _NvmlMemory()
    if nvml.nvmlDeviceGetMemoryInfo(handle, ctypes.byref(mem)) != 0:
        return None, "nvmlDeviceGetMemoryInfo failed"
    if mem.free > mem.total:  # a driver's "not available" sentinel (docs/schema/gpu-probe.md)
        return None, "NVML reports %d B free of %d B" % (mem.free, mem.total)
    return int(mem.free), None


def _same_gpus(nvml, n):
    names = set()
    for i in range(n):
        h = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(96)
        if nvml.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(i), ctypes.byref(h)) != 0:
            return False
        if nvml.nvmlDeviceGetName(h, buf, ctypes.c_uint(96)) != 0:
            return False
        names.add(buf.value)
    return len(names) == 1


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    cuda = getattr(torch, "cuda", None)
    return cuda if cuda is not None and cuda.is_available() else None


def _process_holds(device):
    """(this process has a CUDA context, bytes PyTorch's allocator has reserved on device): memory the
    free figure no longer counts but this job has."""
    import sys
    torch = sys.modules.get("torch")  # only when the script imported torch itself: never initialise CUDA here
    cuda = getattr(torch, "cuda", None) if torch is not None else None
    if cuda is None or not cuda.is_initialized():
        return False, 0
    return True, int(cuda.memory_reserved(device))


def free_memory(device=0):
    """(free bytes, source, process context exists, bytes this process's PyTorch has reserved) for a CUDA
    device index: from NVML, else torch.cuda.mem_get_info. DeviceError when neither is available."""
    if isinstance(device, bool) or not isinstance(device, numbers.Integral) or device < 0:
        raise ValueError("device must be a CUDA device index (an integer >= 0), not %r" % (device,))
    device = int(device)
    free, why = _nvml_free(device)
    if free is not None:
        ctx, reserved = _process_holds(device)
        return free, "nvml", ctx, reserved
    cuda = _torch_cuda()
    if cuda is None:
        raise DeviceError("vramplan.preflight: no free memory figure for GPU %d: %s, and torch.cuda is not "
                          "available; pass free_bytes=..." % (device, why))
    free, _total = cuda.mem_get_info(device)  # creates the context, which is then no longer free
    return int(free), "torch.cuda.mem_get_info", True, int(cuda.memory_reserved(device))


def _check_free_bytes(free_bytes):
    if isinstance(free_bytes, bool) or not isinstance(free_bytes, numbers.Integral):
        raise ValueError("free_bytes must be an integer number of bytes, not %r" % (free_bytes,))
    if free_bytes < 0 or free_bytes > _MAX_BYTES:
        raise ValueError("free_bytes must be from 0 to 2^44 bytes, not %d" % free_bytes)
    return int(free_bytes)


def _gib(n):
    return "%.2f GiB" % (n / _GIB)


def _message(est, free, source, device):
    lines = ["vramplan preflight: " + est.get("summary", "")]
    lines.append("GPU %d has %s free (%s)." % (device, _gib(free), source))
    sugg = est.get("suggestions") or []
    if sugg:
        lines.append("What to change:")
        for s in sugg[:3]:
            lines.append("  - %s: saves %s, %s" % (s.get("change", s.get("id")), _gib(s.get("saves_bytes", 0)),
                                                  "then fits" if s.get("fits") else "still does not fit"))
    return "\n".join(lines)


def preflight(plan_or_model, *, device=0, free_bytes=None, **workload):
    """Estimate the job and compare it with GPU `device`'s free memory; WillNotFit when it does not fit.

    plan_or_model: a plan (dict or JSON text), or a torch.nn.Module (then **workload are
    plan_from_model's arguments: batch=, seq=, precision=, optimizer=, gpu=, lora=, ...). For a plan,
    **workload overrides its "workload" fields (batch=8, seq=2048, ...).
    free_bytes: the memory the job can have, in bytes; without it NVML, then torch.cuda, are asked.
    Returns the vramplan/estimate@1 document (estimated against that memory) with a "preflight" entry:
    {"device", "free_bytes", "source", "capacity_bytes"}.
    """
    if isinstance(device, bool) or not isinstance(device, numbers.Integral) or device < 0:
        raise ValueError("device must be a CUDA device index (an integer >= 0), not %r" % (device,))
    if free_bytes is not None:
        free_bytes = _check_free_bytes(free_bytes)
    plan = _as_plan(plan_or_model, workload)
    if free_bytes is not None:
        free, source, ctx, reserved = free_bytes, "free_bytes", False, 0
    else:
        free, source, ctx, reserved = free_memory(device)
    extra = reserved
    if ctx:
        # the free figure no longer holds this process's CUDA context, which the estimate counts
        bare = json.loads(_lib.estimate_bare_text(plan_bytes(plan)))
        gpus = [d for d in bare["devices"] if d.get("kind") == "gpu"]
        extra += int(gpus[0]["context_bytes"]) if gpus else 0
    capacity = max(1, min(_MAX_BYTES, free + extra))
    hw = dict(plan.get("hardware") or {})
    hw["capacity_bytes"] = capacity
    plan["hardware"] = hw
    est = json.loads(_lib.estimate_text(plan_bytes(plan)))
    est["preflight"] = {"device": int(device), "free_bytes": free, "source": source, "capacity_bytes": capacity}
    if not est.get("fits", False):
        raise WillNotFit(_message(est, free, source, device), est)
    return est


def _as_plan(plan_or_model, workload):
    try:
        import torch
        is_module = isinstance(plan_or_model, torch.nn.Module)
    except ImportError:
        is_module = False
    if is_module:
        from .from_model import plan_from_model
        return plan_from_model(plan_or_model, **workload)
    if not isinstance(plan_or_model, (dict, str, bytes, bytearray)):
        raise PlanError("field", "", "preflight takes a plan (dict or JSON text) or a torch.nn.Module, not %s"
                        % type(plan_or_model).__name__)
    plan = plan_dict(plan_or_model, _lib.json_check)
    if workload:
        wl = plan.get("workload")
        wl = dict(wl) if isinstance(wl, dict) else {}
        wl.update(workload)
        plan["workload"] = wl
    return plan
