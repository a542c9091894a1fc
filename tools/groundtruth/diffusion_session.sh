#!/bin/bash
# What ran on the lent H100 for issue 12 (one device call each; tools/groundtruth/README.md, docs/diffusion.md).
# Usage (on the GPU node, repo root, with .devcarry/ carried: diffusers' src/diffusers of 58eb52c, the probe
# binary built on Debian 12 from native-cuda-probe/ and its libcjson.so.1):
#   OUT=dir STAGE=1|2 bash tools/groundtruth/diffusion_session.sh
set -u
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$(cd ../../.devcarry/src && pwd)${PYTHONPATH:+:$PYTHONPATH}
export CASE_TIMEOUT_S=${CASE_TIMEOUT_S:-170}
P=../../.devcarry
( sleep ${BUDGET_S:-570}; pkill -f diffusion_measure.py ) & killer=$!
if [ "${STAGE:-1}" = 1 ]; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/nvidia-smi.csv" 2>&1
  python3 -c "import torch,transformers,peft,accelerate,diffusers;print(torch.__version__,transformers.__version__,peft.__version__,accelerate.__version__,diffusers.__version__)" > "$OUT/versions.txt" 2>&1
  cat "$OUT/versions.txt"
  # 1. the probe, as a user runs it
  LD_LIBRARY_PATH=$P "$P/vramplan-probe" --pretty --redact --output "$OUT/h100-probe.json"; echo "probe exit $?" > "$OUT/probe-log.txt"
  LD_LIBRARY_PATH=$P "$P/vramplan-probe" --validate "$OUT/h100-probe.json" >> "$OUT/probe-log.txt" 2>&1; echo "validate exit $?" >> "$OUT/probe-log.txt"
  cat "$OUT/probe-log.txt"
  # 2. every code path once at a small size, then the counts and the first full cases
  python3 diffusion_measure.py --smoke counts train:cogvideox-2b:16:1:gc vae:cogvideox-2b:fp16:0:0:0:plain \
      pipe:cogvideox-2b:fp16:0:0:0:model:tiling vae:wan2.1-t2v-1.3b:fp32:0:0:0:plain
  python3 diffusion_measure.py counts train:cogvideox-2b:64:4:gc:trace vae:cogvideox-2b:fp16:49:480:720:plain \
      train:cogvideox-5b:64:4:gc pipe:cogvideox-2b:fp16:49:480:720:none:plain
else
  python3 diffusion_measure.py ${CASES}
fi
kill $killer 2>/dev/null
cd "$OUT" && ls -la . traces
