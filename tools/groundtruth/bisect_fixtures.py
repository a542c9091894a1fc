#!/usr/bin/env python3
"""Turn measured largest-value bisections (measure.py --bisect records) into vramplan plans.

Usage (repo root, after building the CLI): python3 tools/groundtruth/bisect_fixtures.py
Reads tests/groundtruth/h100-2026-11-23/run*/bisect.jsonl and writes tests/fixtures/bisect/<id>.json:
the case as a plan (via `vramplan calibrate --plans` on a calibration-format record whose
model_config is measure.py's MODELS entry of the case's model), with hardware.capacity_bytes =
mem_fraction x 85,017,493,504 (what set_per_process_memory_fraction lets the allocator take) +
804,061,184 (what the process holds outside the allocator, core/src/runtime.c), the alloc conf as
runtime.pytorch_cuda_alloc_conf, and the measured answer in "name"."""
import glob, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import MODELS  # the exact configs the measured cases were built from

TOTAL, NONPT = 85017493504, 804061184
for path in sorted(glob.glob("tests/groundtruth/h100-2026-11-23/run*/bisect*.jsonl")):
    for l in open(path):
        d = json.loads(l)
        if "bisect_summary" not in d:
            continue
        s = d["bisect_summary"]
        c = s["case"]
        if s["largest_fit"] == 0:
            continue
        w = {k: v for k, v in c.items() if k not in ("id", "model", "mem_fraction", "trace", "alloc_conf")}
        rec = dict(id=c["id"], model=c["model"], model_config=dict(model_type=MODELS[c["model"]][0], **MODELS[c["model"]][1]), workload=w,
                   measured=dict(peak_alloc=1))
        out = subprocess.run(["build/cli/vramplan", "calibrate", "--plans", "/dev/stdin"], input=json.dumps(rec) + "\n",
                             capture_output=True, text=True, check=True).stdout
        plan = json.loads(out.splitlines()[0])
        if c.get("mem_fraction"):
            plan["hardware"] = {"gpu": "h100-sxm-80gb", "capacity_bytes": int(c["mem_fraction"] * TOTAL) + NONPT}
        else:  # the whole card: the preset's CUDA-visible total (85,017,493,504 B measured)
            plan["hardware"] = {"gpu": "h100-sxm-80gb"}
        if c.get("alloc_conf"):
            plan["runtime"] = {"pytorch_cuda_alloc_conf": c["alloc_conf"]}
        plan["name"] = "%s: largest %s measured %d (trials %s)" % (c["id"], s["field"], s["largest_fit"], s["trials"])
        with open("tests/fixtures/bisect/%s.json" % c["id"], "w") as f:
            json.dump(plan, f, indent=1)
        field = {"new_tokens": "new-tokens"}.get(s["field"], s["field"])
        fit = subprocess.run(["build/cli/vramplan", "fit", "--plan", "tests/fixtures/bisect/%s.json" % c["id"], "--max", field,
                              "--json"], capture_output=True, text=True)
        got = json.loads(fit.stdout)["value"] if fit.stdout.startswith("{") else None
        print("%-32s %-10s measured %5d  vramplan fit %s" % (c["id"], s["field"], s["largest_fit"], got))
