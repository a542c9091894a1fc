#!/usr/bin/env python3
"""Print the README's accuracy table: `vramplan calibrate --json` against the measured records.
Usage: scripts/accuracy-table.py [../shared/groundtruth/calibration.jsonl]"""
import json, subprocess, sys

path = sys.argv[1] if len(sys.argv) > 1 else "../shared/groundtruth/calibration.jsonl"
recs = {json.loads(l)["id"]: json.loads(l) for l in open(path) if l.strip()}
out = subprocess.run(["build/cli/vramplan", "calibrate", path, "--json"], capture_output=True, text=True).stdout
print("| run | model | workload | measured peak | predicted | error | measured reserved | predicted reserved | error | peak phase |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---|")
for line in out.splitlines():
    r = json.loads(line)
    if "summary" in r:
        s = r["summary"]
        print(f"\n{s['records']} runs: median |error| {100*s['median_abs_error']:.2f}%, worst {100*s['max_abs_error']:.2f}%, "
              f"peak reserved median |error| {100*s['reserved_median_abs_error']:.2f}%, worst {100*s['reserved_max_abs_error']:.2f}%, "
              f"parameter counts exact {s['params_exact']}/{s['params_checked']}.")
        continue
    rec = recs[r["id"]]
    w = dict(rec["workload"])
    desc = [w.pop("mode")]
    for k, v in w.items():
        if k == "lora":
            t = "all" if len(v["targets"]) > 2 else "+".join(x.split("_")[0] for x in v["targets"])
            desc.append(f"LoRA r{v['r']} {t}")
        elif k == "batch": desc.append(f"b{v}")
        elif k == "seq": desc.append(f"s{v}")
        elif k == "image_size": desc.append(f"{v}px")
        elif k == "new_tokens": desc.append(f"+{v} new")
        elif k == "dec_seq": desc.append(f"dec {v}")
        elif v is True: desc.append(k)
        else: desc.append(str(v))
    err = "OOM " + ("predicted" if not r["predicted_fits"] else "MISSED") if r["measured_oom"] else f"{100*r['error']:+.2f}%"
    print(f"| {r['id']} | {rec['model']} | {' '.join(desc)} | {r['measured_peak_alloc']/2**30:.2f} GiB | "
          f"{r['predicted_peak_alloc']/2**30:.2f} GiB | {err} | {r['measured_peak_reserved']/2**30:.2f} GiB | "
          f"{r['predicted_peak_reserved']/2**30:.2f} GiB | {100*r['reserved_error']:+.2f}% | {r['peak_phase']} |")
