#!/usr/bin/env python3
"""Allocator histories (tests/groundtruth/*/traces/*.json.gz) -> replay fixtures for the C test of the
caching-allocator model (tests/core/test_alloc_sim.c, core/src/alloc_sim.c).

A trace is what measure.py wrote from torch.cuda.memory._snapshot(): {"fields": [action, addr, size,
stream, frame], "events": [...], "result": {...}}. `alloc` carries the size the program asked for
(TraceEntry::ALLOC records orig_size, before round_size), `free_completed` the moment the block went
back to the pool, `segment_alloc` / `segment_map` (expandable segments) / `segment_free` /
`segment_unmap` what the allocator took from or gave back to CUDA.

Fixture format (text, one record a line):
    # comment
    conf K TEXT          PYTORCH_CUDA_ALLOC_CONF of variant K ("-" = none)
    expect K PEAK N      variant K: measured peak_reserved, number of segment_alloc/segment_map events
    allocs N             number of `a` lines
    a SIZE               allocate SIZE bytes; the n-th `a` line (from 0) is tensor n
    f ID                 free tensor ID
    r K BYTES            variant K: reserved bytes (sum of the trace's segments) after the line above
Several traces go into one fixture when their alloc/free sequences are identical (the same run with
another allocator setting); each is a variant.

usage:
    replay_trace.py fixture OUT.txt TRACE.json.gz [TRACE2.json.gz ...]
    replay_trace.py all            (rebuilds tests/fixtures/alloc_traces/ from tests/groundtruth)
    replay_trace.py summary TRACE.json.gz ...
    replay_trace.py near OUT.txt TRACE.json.gz
        a trace recorded after the model was built (diffusion_measure.py: from the step's or the decode's start),
        whose earlier segments are not in it: `expect 0` is the largest sum of the segments the trace itself
        allocated, no `r` lines; test_alloc_sim.c replays it and compares its peak within a tolerance
"""
import gzip
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GT = os.path.join(ROOT, "tests", "groundtruth", "h100-2026-11-23")
OUT = os.path.join(ROOT, "tests", "fixtures", "alloc_traces")

SEG_UP = ("segment_alloc", "segment_map")
SEG_DOWN = ("segment_free", "segment_unmap")


def load(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)


def sequence(trace):
    """[(op, arg, reserved_after)] with op 'a' (arg = size) or 'f' (arg = tensor id)."""
    live, out, n, reserved = {}, [], 0, 0
    for action, addr, size, _stream, _frame in trace["events"]:
        if action in SEG_UP:
            reserved += size
        elif action in SEG_DOWN:
            reserved -= size
        elif action == "alloc":
            live[addr] = n
            out.append(("a", size, reserved))
            n += 1
        elif action == "free_completed":
            out.append(("f", live.pop(addr), reserved))
    return out


def fixture(out_path, paths):
    traces = [load(p) for p in paths]
    seqs = [sequence(t) for t in traces]
    base = [(op, arg) for op, arg, _ in seqs[0]]
    for p, s in zip(paths[1:], seqs[1:]):
        if [(op, arg) for op, arg, _ in s] != base:
            sys.exit(f"{p}: its alloc/free sequence differs from {paths[0]}")
    lines = [f"# {os.path.relpath(p, ROOT)}" for p in paths]
    lines.append("# made by tools/groundtruth/replay_trace.py; format in its docstring")
    for k, t in enumerate(traces):
        conf = t["result"].get("alloc_conf") or "-"
        n_seg = sum(1 for e in t["events"] if e[0] in SEG_UP)
        lines.append(f"conf {k} {conf}")
        lines.append(f"expect {k} {t['result']['peak_reserved']} {n_seg}")
    lines.append(f"allocs {sum(1 for op, _ in base if op == 'a')}")
    last = [0] * len(traces)
    for i, (op, arg) in enumerate(base):
        lines.append(f"{op} {arg}")
        for k, s in enumerate(seqs):
            r = s[i][2]
            if r != last[k]:
                lines.append(f"r {k} {r}")
                last[k] = r
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{out_path}: {len(base)} events, {os.path.getsize(out_path)} bytes")


def segment_peak(trace):
    """The largest sum of the segments the trace itself allocated (running total of its segment events)."""
    r = mx = 0
    for e in trace["events"]:
        r += e[2] if e[0] in SEG_UP else -e[2] if e[0] in SEG_DOWN else 0
        mx = max(mx, r)
    return mx


def near(out_path, path):
    t = load(path)
    mx = segment_peak(t)
    n_seg = sum(1 for e in t["events"] if e[0] in SEG_UP)
    seq = sequence(t)
    lines = [f"# {os.path.relpath(path, ROOT)}", "# made by tools/groundtruth/replay_trace.py near; the segments "
             "allocated before the trace are not in it", "conf 0 " + (t["result"].get("alloc_conf") or "-"),
             f"expect 0 {mx} {n_seg}", f"allocs {sum(1 for op, _, _ in seq if op == 'a')}"]
    lines += [f"{op} {arg}" for op, arg, _ in seq]
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{out_path}: {len(seq)} events, in-trace peak {mx}, {os.path.getsize(out_path)} bytes")


def summary(path):
    t = load(path)
    res = t["result"]
    counts = {}
    for e in t["events"]:
        counts[e[0]] = counts.get(e[0], 0) + 1
    print(os.path.basename(path), counts, "peak_reserved", res.get("peak_reserved"), "max running segments", segment_peak(t),
          "conf", res.get("alloc_conf") or "-")


def main(argv):
    if len(argv) >= 3 and argv[0] == "fixture":
        fixture(argv[1], argv[2:])
    elif argv[:1] == ["all"]:
        os.makedirs(OUT, exist_ok=True)
        t1, t2 = os.path.join(GT, "run1", "traces"), os.path.join(GT, "run2", "traces")
        for name in ("gpt2-amp-b8s1024", "gpt2-amp-gc-b8s1024", "l1b-amp-gc-b4s1024",
                     "qwen05-amp-b4s1024", "qwen05-lora16all-b4s1024"):
            fixture(os.path.join(OUT, name + ".txt"), [os.path.join(t1, name + ".json.gz")])
        for run, name in (("run3", "t5base-amp-b8s512"), ("run3", "l7b-lora8qv-gc-b4s2048"),
                          ("run4", "qwen05-fp32-b4s1024"), ("run4", "l1b-amp-b4s1024")):
            fixture(os.path.join(OUT, name + ".txt"), [os.path.join(GT, run, "traces", name + ".json.gz")])
        fixture(os.path.join(OUT, "gpt2-amp-gc-b8s1024-expseg.txt"),
                [os.path.join(t2, "gpt2-amp-gc-b8s1024-expseg.json.gz")])
        # the same generate() call with and without expandable segments: identical sequences
        fixture(os.path.join(OUT, "l1b-infer-b8p1024n256.txt"),
                [os.path.join(t1, "l1b-infer-b8p1024n256.json.gz"),
                 os.path.join(t2, "l1b-infer-b8p1024n256-expseg.json.gz")])
    elif len(argv) == 3 and argv[0] == "near":
        near(argv[1], argv[2])
    elif len(argv) >= 2 and argv[0] == "summary":
        for p in argv[1:]:
            summary(p)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
