"""preflight: free memory from free_bytes, NVML (the probe's NVML test double, tests/probe/fake_nvml.c,
built here), torch.cuda.mem_get_info, or a clear error; WillNotFit with the summary and suggestions."""
import json
import os
import shutil
import subprocess

import pytest

import vramplan
from vramplan import _preflight as pf
from conftest import ROOT
from llama_like import LlamaConfigStandIn, LlamaForCausalLM

GIB = 1 << 30
# fake_gpu_table.h: the H100 80GB HBM3 measured on 2026-11-23: NVML free 81079 MiB - 3,407,872 B
FAKE_NVML_FREE = 85014085632


@pytest.fixture
def no_devices(monkeypatch):
    monkeypatch.setenv("VRAMPLAN_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1")
    monkeypatch.setattr(pf, "_torch_cuda", lambda: None)


@pytest.fixture(scope="session")
def fake_nvml(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler for the NVML test double")
    out = str(tmp_path_factory.mktemp("nvml") / "libfakenvml.so")
    subprocess.check_call([cc, "-shared", "-fPIC", "-I", os.path.join(ROOT, "native-cuda-probe", "src"),
                           "-I", os.path.join(ROOT, "tests", "probe"),
                           os.path.join(ROOT, "tests", "probe", "fake_nvml.c"), "-o", out])
    return out


def needs(plan):
    """What the job needs of a GPU by the core's own estimate: peak allocated and nvidia-smi figures."""
    d = vramplan.estimate(plan)["devices"][0]
    return d["peak_alloc_bytes"] + (d["nvidia_smi_bytes"] - d["peak_reserved_bytes"]), d["nvidia_smi_bytes"]


def test_fits_and_does_not_fit_with_free_bytes(h100_plan):
    alloc_need, smi_need = needs(h100_plan)
    est = pf.preflight(h100_plan, free_bytes=smi_need)
    assert est["fits"] is True
    assert est["preflight"] == {"device": 0, "free_bytes": smi_need, "source": "free_bytes", "capacity_bytes": smi_need}
    assert est["devices"][0]["capacity_bytes"] == smi_need  # the core planned against the free memory
    with pytest.raises(vramplan.WillNotFit) as e:
        vramplan.preflight(h100_plan, free_bytes=alloc_need - (1 << 20))  # not even the allocated peak
    est = e.value.estimate
    assert est["fits"] is False and est["schema"] == "vramplan/estimate@1"
    msg = str(e.value)
    assert est["summary"] in msg
    assert "GPU 0 has" in msg and "(free_bytes)" in msg
    assert est["suggestions"] and est["suggestions"][0]["change"] in msg


def test_workload_overrides_the_plan(h100_plan):
    est = vramplan.preflight(h100_plan, free_bytes=80 * GIB, batch=1, seq=256)
    plan = json.loads(json.dumps(h100_plan))
    plan["workload"].update(batch=1, seq=256)
    plan["hardware"] = {"capacity_bytes": 80 * GIB}
    ref = vramplan.estimate(plan)
    assert est["devices"][0]["peak_reserved_bytes"] == ref["devices"][0]["peak_reserved_bytes"]


def test_plan_text_and_module(h100_plan):
    assert vramplan.preflight(json.dumps(h100_plan), free_bytes=80 * GIB)["fits"]
    model = LlamaForCausalLM(LlamaConfigStandIn())
    est = vramplan.preflight(model, batch=2, seq=64, free_bytes=4 * GIB)
    assert est["fits"] and est["instances"][0]["params_total"] == 218944
    with pytest.raises(vramplan.WillNotFit):
        vramplan.preflight(model, batch=2, seq=64, free_bytes=1 << 20)


def test_nvml(fake_nvml, monkeypatch, h100_plan):
    monkeypatch.setenv("VRAMPLAN_NVML_LIBRARY", fake_nvml)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    est = vramplan.preflight(h100_plan)
    assert est["preflight"] == {"device": 0, "free_bytes": FAKE_NVML_FREE, "source": "nvml",
                                "capacity_bytes": FAKE_NVML_FREE}
    assert vramplan.free_memory(0) == (FAKE_NVML_FREE, "nvml", False, 0)


def test_nvml_counts_what_this_process_already_holds(fake_nvml, monkeypatch, h100_plan):
    # torch already has a CUDA context and 2 GiB reserved (a model moved to the GPU): the free figure
    # lacks both, and the estimate counts both, so they are added back
    import torch
    monkeypatch.setenv("VRAMPLAN_NVML_LIBRARY", fake_nvml)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda device=None: 2 * GIB)
    est = vramplan.preflight(h100_plan)
    ctx = est["devices"][0]["context_bytes"]
    assert est["preflight"]["capacity_bytes"] == FAKE_NVML_FREE + 2 * GIB + ctx


def test_nvml_device_not_visible_falls_through(fake_nvml, monkeypatch, h100_plan):
    monkeypatch.setenv("VRAMPLAN_NVML_LIBRARY", fake_nvml)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    monkeypatch.setattr(pf, "_torch_cuda", lambda: None)
    with pytest.raises(vramplan.DeviceError, match="CUDA_VISIBLE_DEVICES"):
        vramplan.preflight(h100_plan, device=1)


class FakeCuda:
    """torch.cuda's mem_get_info (free, total after this process's context) and memory_reserved."""

    def __init__(self, free):
        self.free = free

    def mem_get_info(self, device):
        return self.free, 85017493504

    def memory_reserved(self, device=None):
        return 0


def test_torch_cuda_fallback(monkeypatch, h100_plan):
    monkeypatch.setenv("VRAMPLAN_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1")
    monkeypatch.setattr(pf, "_torch_cuda", lambda: FakeCuda(84465090560))  # measured torch mem_free, H100
    est = vramplan.preflight(h100_plan)
    ctx = est["devices"][0]["context_bytes"]
    assert est["preflight"]["source"] == "torch.cuda.mem_get_info"
    assert est["preflight"]["capacity_bytes"] == 84465090560 + ctx


def test_no_device_is_a_clear_error(no_devices, h100_plan):
    with pytest.raises(vramplan.DeviceError) as e:
        vramplan.preflight(h100_plan)
    assert "NVML not found" in str(e.value) and "free_bytes" in str(e.value)


@pytest.mark.parametrize("free", [-1, "1000", True, 1.5e9, 1 << 45])
def test_bad_free_bytes(free, h100_plan):
    with pytest.raises(ValueError, match="free_bytes"):
        vramplan.preflight(h100_plan, free_bytes=free)


@pytest.mark.parametrize("device", [-1, "0", None, True])
def test_bad_device(device, h100_plan):
    with pytest.raises(ValueError, match="device"):
        vramplan.preflight(h100_plan, device=device, free_bytes=GIB)


def test_bad_plans(h100_plan):
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.preflight(42, free_bytes=GIB)
    assert "preflight takes a plan" in e.value.message
    # a key given twice: the core refuses it (json.loads alone would keep the last)
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.preflight('{"schema": "vramplan/plan@1", "schema": "vramplan/plan@1"}', free_bytes=GIB)
    assert e.value.path == "schema"
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.preflight(h100_plan, free_bytes=GIB, batchsize=4)
    assert e.value.path == "workload.batchsize"
