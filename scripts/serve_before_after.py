#!/usr/bin/env python3
"""serve_before_after.py: run the serving estimate of every preset (models/models/*.json) and of
any extra config.json files through two vramplan binaries and list every output that differs.

usage: serve_before_after.py OLD_VRAMPLAN NEW_VRAMPLAN [EXTRA_CONFIG_DIR]

Each model runs four settings: vLLM at its own max_model_len, vLLM at TP 2 and max_model_len 8192,
SGLang at its defaults, llama.cpp Q4_K_M with 8192 cells. Compared: the `serving` figures (not the
prose: arithmetic, note, launch, answers), the instance's model_type and parameter count, and the
error message when the estimate is refused."""
import glob
import json
import os
import subprocess
import sys

SETTINGS = [
    ("vllm", ["--engine", "vllm"]),
    ("vllm-tp2-8k", ["--engine", "vllm", "--tp", "2", "--max-model-len", "8192"]),
    ("sglang", ["--engine", "sglang"]),
    ("llamacpp-q4km", ["--engine", "llamacpp", "--quant", "Q4_K_M", "--ctx-size", "8192"]),
]
SKIP = {"arithmetic", "note", "launch", "answers"}


def flat(prefix, x, out):
    if isinstance(x, dict):
        for k, v in x.items():
            if k not in SKIP:
                flat(f"{prefix}.{k}" if prefix else k, v, out)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            flat(f"{prefix}[{i}]", v, out)
    else:
        out[prefix] = x


def run(binary, model_args, extra):
    r = subprocess.run([binary, "estimate", "--mode", "serve", *model_args, *extra, "--json"],
                       capture_output=True, text=True)
    if r.returncode not in (0, 4):
        return {"error": (r.stderr or r.stdout).strip()}
    d = json.loads(r.stdout)
    out = {}
    flat("serving", d.get("serving", {}), out)
    inst = (d.get("instances") or [{}])[0]
    out["model_type"] = inst.get("model_type")
    out["params_total"] = inst.get("params_total")
    return out


def main():
    old, new = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    models = [(os.path.basename(f)[:-5], ["--model", os.path.basename(f)[:-5]])
              for f in sorted(glob.glob(os.path.join(here, "..", "models", "models", "*.json")))]
    if len(sys.argv) > 3:
        models += [("hf:" + os.path.basename(f)[:-5], ["--hf-config", f])
                   for f in sorted(glob.glob(os.path.join(sys.argv[3], "*.json")))]
    changed = 0
    for name, margs in models:
        for sname, sargs in SETTINGS:
            a, b = run(old, margs, sargs), run(new, margs, sargs)
            keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            if not keys:
                continue
            changed += 1
            print(f"{name} [{sname}]")
            for k in keys:
                print(f"    {k}: {a.get(k)!r} -> {b.get(k)!r}")
    print(f"{changed} model/setting pairs changed of {len(models) * len(SETTINGS)}")


if __name__ == "__main__":
    main()
