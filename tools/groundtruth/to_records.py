#!/usr/bin/env python3
"""Turn measure.py results (one JSON line per case) into calibration records
(shared/groundtruth/README.md's format) that `vramplan calibrate` reads.

The case's own keys become the record's workload (as bisect_fixtures.py does), so measure.py's
"fsdp" {"world", "version", "param_dtype", "reduce_dtype", "reshard_after_forward"} and
"autocast_cache" reach core/src/record.c, which turns them into the plan's parallel layout.
Usage: python3 tools/groundtruth/to_records.py RUNS.jsonl > RECORDS.jsonl"""
import json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import MODELS  # the exact configs the measured cases were built from

MEASURED = ("params_total", "params_trainable", "after_load_alloc", "after_backward_alloc", "after_step_alloc", "peak_alloc",
            "peak_reserved", "peak_alloc_per_step", "context_bytes", "nonpytorch_bytes", "oom", "tokens_per_s", "step_s",
            "total_bytes", "gpu", "attn_impl")
for line in open(sys.argv[1]):
    r = json.loads(line)
    c = r.get("case") or {}
    if c.get("model") not in MODELS or "peak_alloc" not in r:
        continue
    w = {k: v for k, v in c.items() if k not in ("id", "model", "mem_fraction", "trace", "alloc_conf", "timeout", "steps")}
    rec = dict(id=c["id"], model=c["model"], model_config=dict(model_type=MODELS[c["model"]][0], **MODELS[c["model"]][1]),
               workload=w, software=dict(torch=r.get("torch"), transformers=r.get("transformers")),
               measured={k: r[k] for k in MEASURED if k in r})
    print(json.dumps(rec))
