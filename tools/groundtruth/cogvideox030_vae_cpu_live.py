#!/usr/bin/env python3
"""The tensors alive in diffusers v0.30.1's CogVideoX VAE decode (the code of the diffusers-docs CogVideoX-2b rows and
THUDM's README rows, `"diffusers": "0.30"` in a plan), on the CPU, sampled at every leaf module's entry and exit.

Needs the v0.30.1 sources (a diffusers clone: `git show v0.30.1:src/diffusers/models/autoencoders/
autoencoder_kl_cogvideox.py > akc.py`, and the same for models/upsampling.py and models/downsampling.py): their
CogVideoXUpsample3D / CogVideoXDownsample3D classes are inlined and the package imports stubbed. Builds
AutoencoderKLCogVideoX with its defaults (CogVideoX-2b's VAE, 215,583,907 parameters), decodes a random latent in fp32
under no_grad with Debian's torch 1.13, and prints the largest sampled total (gc, one count per storage, weights left
out) and its tensors. Sampling at module boundaries can miss a peak inside a module's own forward.

    /usr/bin/python3 tools/groundtruth/cogvideox030_vae_cpu_live.py akc.py upsampling.py downsampling.py [LT LH LW]

Run in the fragmentation session at 13 × 6 × 9 latent (49 × 48 × 72 px): 216.9 MB at the last up block's first
resnet's norm1 (conv_b of its SpatialNorm3D), where vramplan's 0.30 model gives 232.9 + 4.1 MB: at this size the
modelled tensors are not short, so the diffusers-docs rows' ~7.6 GiB gap lies in what the CPU cannot show (cuDNN's
workspaces, CogVideoXSafeConv3d's splitting of inputs over 2 GiB at full resolution): a GPU measurement settles it.
"""
import gc
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diffusers_stub  # noqa: E402



def cut(src, start, stop_prefixes):
    lines, out, on = src.split("\n"), [], False
    for l in lines:
        if l.startswith(start):
            on = True
        elif on and any(l.startswith(p) for p in stop_prefixes):
            break
        if on:
            out.append(l)
    return "\n".join(out)


def load(akc, up, down):
    extra = cut(open(up).read(), "class CogVideoXUpsample3D", ("def ", "class ")) + "\n\n" + \
        cut(open(down).read(), "class CogVideoXDownsample3D", ("def ", "class "))
    return diffusers_stub.load(akc, "cogvae030", extra)


def main():
    cv = load(*sys.argv[1:4])
    lt, lh, lw = (int(a) for a in sys.argv[4:7]) if len(sys.argv) >= 7 else (13, 6, 9)
    torch.manual_seed(0)
    m = cv.AutoencoderKLCogVideoX().eval()
    print("parameters", sum(p.numel() for p in m.parameters()))
    fixed = {p.data_ptr() for p in m.parameters()} | {b.data_ptr() for b in m.buffers()}
    names = {id(mod): n for n, mod in m.named_modules()}
    best = {"t": 0}

    def live():
        seen = {}
        for o in gc.get_objects():
            try:
                if torch.is_tensor(o) and o.data_ptr() not in fixed:
                    s = o.storage()
                    seen[s.data_ptr()] = (s.nbytes(), tuple(o.shape))
            except Exception:
                pass
        return seen

    def hook(tag):
        def f(mod, inp, out=None):
            seen = live()
            t = sum(v[0] for v in seen.values())
            if t > best["t"]:
                best.update(t=t, at=(tag, names.get(id(mod))), seen=seen)
        return f

    for n, mod in m.decoder.named_modules():
        if not list(mod.children()):
            mod.register_forward_pre_hook(hook("entry"))
            mod.register_forward_hook(hook("exit"))
    with torch.no_grad():
        out = m.decode(torch.randn(1, 16, lt, lh, lw)).sample
    print("decoded", tuple(out.shape))
    print("largest sampled: %.2f MB at the %s of %s" % (best["t"] / 1e6, best["at"][0], best["at"][1]))
    for nb, shape in sorted(best["seen"].values(), key=lambda v: -v[0]):
        if nb >= 1e6:
            print("  %8.3f MB %s" % (nb / 1e6, shape))


if __name__ == "__main__":
    main()
