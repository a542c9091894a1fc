#!/bin/bash
# What ran on the lent H100 for issue 9 (one device call; see tools/groundtruth/README.md).
# Usage (on the GPU node, repo root): OUT=dir bash tools/groundtruth/gpu_session.sh [probe-dir]
set -u
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/res/traces"
export PYTHONUNBUFFERED=1
P=${1:-../../.devcarry}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/res/nvidia-smi.csv" 2>&1
python3 -c "import torch,transformers,peft;print(torch.__version__,transformers.__version__,peft.__version__)" > "$OUT/res/versions.txt" 2>&1
# 1. the probe, as a user runs it (binary built on Debian 12 from native-cuda-probe/)
LD_LIBRARY_PATH=$P "$P/vramplan-probe" --pretty --redact --output "$OUT/res/h100-probe.json"; echo "probe exit $?" >> "$OUT/res/probe-log.txt"
LD_LIBRARY_PATH=$P "$P/vramplan-probe" --validate "$OUT/res/h100-probe.json" >> "$OUT/res/probe-log.txt" 2>&1; echo "validate exit $?" >> "$OUT/res/probe-log.txt"
# 2. largest-batch bisections (each capped by a memory fraction, run side by side) and
# 3. allocator traces of calibration cases (one after another, alongside).
pids=""
for b in bisect-*.json; do
  python3 measure.py --bisect "$b" "$OUT/res/bisect.jsonl" > "$OUT/res/log-${b%.json}.txt" 2>&1 &
  pids="$pids $!"
done
sed "s#TRACEDIR#$OUT/res/traces#" ${SNAP:-cases-snapshot.json} > /tmp/cases-snapshot.json
python3 measure.py /tmp/cases-snapshot.json "$OUT/res/snapshot-runs.jsonl" > "$OUT/res/log-snapshots.txt" 2>&1 &
pids="$pids $!"
( sleep ${BUDGET_S:-500}; pkill -f measure.py ) & killer=$!
wait $pids
kill $killer 2>/dev/null
cat "$OUT"/res/log-*.txt
tar -C "$OUT" -czf "$OUT/issue9-h100.tar.gz" res && rm -rf "$OUT/res"
