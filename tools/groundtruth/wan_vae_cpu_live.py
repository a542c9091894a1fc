#!/usr/bin/env python3
"""What is alive at the peak of diffusers' Wan 2.1 VAE decode, on the CPU (no GPU, no diffusers install needed).

Loads diffusers' autoencoder_kl_wan.py (at 58eb52c0: `git -C <diffusers> show 58eb52c0:src/diffusers/models/autoencoders/
autoencoder_kl_wan.py > akw.py`) with its package imports replaced by stand-ins, builds AutoencoderKLWan with the
Wan2.1 config of models/ (126,892,531 parameters, checked), and decodes a random latent in fp32 under no_grad. At the
WanCausalConv3d it sums the tensors the interpreter holds (gc, one count per storage, the weights left out) twice:
when F.pad has made the padded input while torch.cat's result is still bound, and at the conv's entry, after the
rebinding freed it (the conv's output, and on CUDA cuDNN's workspace, come on top of that); then it lists the tensors
alive at the largest F.pad moment. core/src/vae_wan.c vp_vae_wan21_decode_units models both moments.

Run with Debian's python3-torch (1.13, CPU):
    /usr/bin/python3 tools/groundtruth/wan_vae_cpu_live.py akw.py [LATENT_FRAMES LATENT_H LATENT_W]   (default 3 8 13)
At 3 × 8 × 13 (9 × 64 × 104 px): 130.9 MB at conv1 of the last up block's second resnet's F.pad, 115.6 at its entry
(+ its 10.2 MB output); vp_vae_wan21_decode_units' terms give 130.6 MB at the F.pad (with the decoded frames so far)
and, in the conv, 125.1 + cuDNN's workspace (148.1 in all: the estimate's vae_decode component).
"""
import gc
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diffusers_stub  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def main():
    if not hasattr(F, "scaled_dot_product_attention"):  # torch 1.13: the mid block's attention
        F.scaled_dot_product_attention = lambda q, k, v, **kw: ((q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5).softmax(-1) @ v
    w = diffusers_stub.load(sys.argv[1], "wanvae")
    lt, lh, lw = (int(a) for a in sys.argv[2:5]) if len(sys.argv) >= 5 else (3, 8, 13)
    torch.manual_seed(0)
    m = w.AutoencoderKLWan(base_dim=96, z_dim=16, dim_mult=[1, 2, 4, 4], num_res_blocks=2, attn_scales=[],
                           temperal_downsample=[False, True, True], dropout=0.0)
    m.eval()
    params = sum(p.numel() for p in m.parameters())
    print("parameters", params)
    weights = {p.data_ptr() for p in m.parameters()}
    names = {id(mod): n for n, mod in m.named_modules()}

    def live():
        seen = {}
        for o in gc.get_objects():
            try:
                if torch.is_tensor(o) and o.data_ptr() not in weights:
                    s = o.storage()
                    seen[s.data_ptr()] = (s.nbytes(), tuple(o.shape), o.is_contiguous())
            except Exception:
                pass
        return seen

    log, snap = [], {"pad": {}, "conv": {}}

    def note(moment, name, shape):
        seen = live()
        total = sum(v[0] for v in seen.values())
        log.append((moment, total, name, shape))
        if not snap[moment] or total > snap[moment]["total"]:
            snap[moment] = dict(total=total, name=name, shape=shape, seen=seen)

    def forward(self, x, cache_x=None):  # WanCausalConv3d.forward at 58eb52c0, with the probe
        padding = list(self._padding)
        if cache_x is not None and self._padding[4] > 0:
            x = torch.cat([cache_x.to(x.device), x], dim=2)
            padding[4] -= cache_x.shape[2]
        xp = F.pad(x, padding)
        note("pad", names.get(id(self)), tuple(xp.shape))  # F.pad's result, the cat still bound to x
        x = xp                                             # the rebinding frees the cat
        del xp
        note("conv", names.get(id(self)), tuple(x.shape))  # the conv's input; its output comes on top
        return torch.nn.Conv3d.forward(self, x)

    w.WanCausalConv3d.forward = forward
    with torch.no_grad():
        out = m.decode(torch.randn(1, 16, lt, lh, lw)).sample
    print("decoded", tuple(out.shape))
    for moment in ("pad", "conv"):
        sn = snap[moment]
        print("largest at %s: %.1f MB at %s, %s" % ("F.pad (the cat bound)" if moment == "pad" else "the conv's entry",
                                                 sn["total"] / 1e6, sn["name"], sn["shape"]))
    for nb, shape, contig in sorted(snap["pad"]["seen"].values(), key=lambda v: -v[0]):
        if nb >= 1e5:
            print("  %8.2f MB %s%s" % (nb / 1e6, shape, "" if contig else " (not contiguous)"))


if __name__ == "__main__":
    main()
