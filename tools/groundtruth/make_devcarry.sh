#!/bin/bash
# Builds .devcarry/ (git-ignored through .git/info/exclude), what diffusion_session.sh needs on the GPU node, which has
# no diffusers and reaches no index:
#   .devcarry/src/diffusers        huggingface/diffusers' src/diffusers at DIFFUSERS_REV (default 58eb52c0, the
#                                  records of tests/groundtruth/h100-2026-11-24-diffusion)
#   .../autoencoder_kl_cogvideox_v0301.py   v0.30.1's CogVideoX VAE with its CogVideoXDownsample3D / Upsample3D
#                                  inlined (diffusion_measure.py case `vae:ID@0.30:...`)
#   .devcarry/vramplan-probe, libcjson.so.1   the probe built here (Debian 12) and the one library it links
# usage (repo root, after a build): DIFFUSERS_GIT=/path/to/diffusers/.git bash tools/groundtruth/make_devcarry.sh
set -eu
G=${DIFFUSERS_GIT:-/work/.mirror/huggingface+diffusers/repo}
REV=${DIFFUSERS_REV:-58eb52c0803ea9af3abec60841c2a093bdf1f951}
grep -qx '/.devcarry/' .git/info/exclude 2>/dev/null || echo '/.devcarry/' >> .git/info/exclude
rm -rf .devcarry && mkdir -p .devcarry
git --git-dir="$G" archive "$REV" src/diffusers | tar -x -C .devcarry
python3 - "$G" <<'PY'
import subprocess, sys
g = sys.argv[1]
show = lambda p: subprocess.run(["git", "--git-dir", g, "show", "v0.30.1:" + p], capture_output=True, text=True, check=True).stdout
src = show("src/diffusers/models/autoencoders/autoencoder_kl_cogvideox.py")
def cls(s, name, end):
    i = s.index("class " + name); return s[i:s.index(end, i)]
down = cls(show("src/diffusers/models/downsampling.py"), "CogVideoXDownsample3D", "\ndef downsample_2d")
up = cls(show("src/diffusers/models/upsampling.py"), "CogVideoXUpsample3D", "\ndef upfirdn2d_native")
src = src.replace("from ..downsampling import CogVideoXDownsample3D\n", "").replace("from ..upsampling import CogVideoXUpsample3D\n", "")
k = src.index("logger = logging.get_logger")
hdr = "# diffusers v0.30.1 autoencoder_kl_cogvideox.py with v0.30.1's CogVideoXDownsample3D / CogVideoXUpsample3D inlined\n"
open(".devcarry/src/diffusers/models/autoencoders/autoencoder_kl_cogvideox_v0301.py", "w").write(hdr + src[:k] + down + "\n" + up + "\n" + src[k:])
PY
cp build/native-cuda-probe/vramplan-probe .devcarry/
cp -L "$(ldconfig -p | awk '/libcjson.so.1 /{print $NF; exit}')" .devcarry/libcjson.so.1
du -sh .devcarry
