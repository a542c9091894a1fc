#!/usr/bin/env python3
"""Print the published diffusion figures as the tests score them now, as a markdown table.

Runs the test binary's groups diffusion_published (within 10%) and diffusion_published_bugs (the misses, an expected
failure) and reformats the lines they print ("<figure> published <x> <unit> predicted <y> <unit> (<gap>%)"). The
numbers come from the C tests; nothing is computed here. Usage: scripts/diffusion-figures.py
[build/tests/test_diffusion_published]
"""
import re
import subprocess
import sys

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/tests/test_diffusion_published"
LINE = re.compile(r"^(?P<fig>.+?):?\s+published\s+(?P<pub>[\d.]+) ?(?P<pu>GiB|GB)\s+predicted\s+(?P<pred>[\d.]+) ?(?P<qu>GiB|GB)"
                  r"\s+\((?P<gap>[+-][\d.]+)%\)\s*$")


def rows(group):
    out = subprocess.run([BIN, group], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = LINE.match(line.strip())
        if m:
            yield m


def main():
    n_in = n_miss = n_thudm = 0
    print("| figure | published | predicted | gap |")
    print("|---|---:|---:|---:|")
    for group in ("diffusion_published", "diffusion_published_bugs"):
        for m in rows(group):
            gap = float(m["gap"])
            thudm = m["fig"].startswith("THUDM SFT")
            inside = abs(gap) <= 10.0
            n_in += inside
            n_miss += not inside and not thudm
            n_thudm += thudm
            mark = "" if inside else " (miss)"
            print(f"| {m['fig']}{mark} | {m['pub']} {m['pu']} | {m['pred']} {m['qu']} | {gap:+.1f}% |")
    print()
    print(f"{n_in} of {n_in + n_miss} within 10% ({n_in} of {n_in + n_miss + n_thudm} with the {n_thudm} THUDM DeepSpeed SFT rows)")


if __name__ == "__main__":
    main()
