#!/bin/bash
# FSDP N-ranks-on-one-GPU measurements (issue 11). NOT RUN YET: the session that wrote it had no GPU.
# Rank 0 of each world size runs on the fake process group; every FSDP buffer is allocated at its
# real size, so peak_alloc is the per-rank peak of a real N-GPU job (communication itself is skipped).
# Usage on a GPU node, repo root: OUT=dir bash tools/groundtruth/fsdp_session.sh
# Then: python3 tools/groundtruth/to_records.py $OUT/res/fsdp-runs.jsonl > records.jsonl and
# vramplan calibrate records.jsonl (core/src/record.c reads workload.fsdp as the plan's FSDP layout).
set -u
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/res"
export PYTHONUNBUFFERED=1
python3 -c "import torch,transformers;print(torch.__version__,transformers.__version__)" > "$OUT/res/versions.txt" 2>&1
python3 measure.py cases-fsdp.json "$OUT/res/fsdp-runs.jsonl" > "$OUT/res/log-fsdp.txt" 2>&1
cat "$OUT/res/log-fsdp.txt"
