#!/usr/bin/env python3
"""Which upcast weight copies does layerwise casting leave alive in training? (docs/diffusion.md, fp8cast session)

Two frozen Linears hooked as finetrainers' hooks/layerwise_upcasting.py (d220aac) and diffusers'
LayerwiseCastingHook do it: module.to(compute dtype) before forward, module.to(storage dtype) after. The input
requires grad, as a transformer block's hidden states do under LoRA. Printed: memory above the stored weights
after the forward, right after the checkpoint's recompute, and between the two Linears' backwards, without and
with non-reentrant checkpointing.

On CUDA with torch >= 2.1: float8_e4m3fn storage, bf16 compute, torch.cuda.memory_allocated.
Elsewhere (e.g. Debian's python3-torch 1.13 on CPU): float16 storage, float32 compute, the process's resident
memory (glibc hands blocks this large back to the OS when they are freed).

Expected from the code (timeline_train.c): without checkpointing both copies (2 x 128 MiB on CPU, 2 x 64 MiB
on CUDA) after the forward; with it none after the forward, both right after the recompute, one between the
backwards.
"""
import os

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

CUDA = torch.cuda.is_available() and hasattr(torch, "float8_e4m3fn")
DEV = "cuda" if CUDA else "cpu"
S, C = (torch.float8_e4m3fn, torch.bfloat16) if CUDA else (torch.float16, torch.float32)


def used_mib():
    if CUDA:
        torch.cuda.synchronize()
        return torch.cuda.memory_allocated() / 2**20
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def layerwise_cast(m):
    m.to(dtype=S)
    old = m.forward

    def forward(*a, **k):
        m.to(dtype=C)
        out = old(*a, **k)
        m.to(dtype=S)
        return out

    m.forward = forward


def main():
    torch.manual_seed(0)
    h, f = 4096, 8192  # each weight 32M params: 128 MiB fp32 / 64 MiB bf16
    l1, l2 = nn.Linear(h, f).to(DEV), nn.Linear(f, h).to(DEV)
    for lin in (l1, l2):
        lin.requires_grad_(False)
        layerwise_cast(lin)
    x = torch.randn(4, h, device=DEV, dtype=C, requires_grad=True)
    seen = {}

    def record(key):
        def hook(grad):
            seen[key] = round(used_mib() - base)

        return hook

    def block(x):
        a = l1(x)
        if a.requires_grad:
            a.register_hook(record("between the two backwards"))
        b = l2(torch.relu(a))
        if b.requires_grad:
            b.register_hook(record("after the recompute, before l2's backward"))
        return b * x.sum()  # MulBackward unpacks first: under checkpoint the recompute runs before l2's backward

    print(f"device {DEV}, storage {S}, compute {C}")
    for ckpt in (False, True):
        x.grad = None
        seen.clear()
        base = used_mib()
        y = checkpoint(block, x, use_reentrant=False) if ckpt else block(x)
        after_fwd = round(used_mib() - base)
        y.float().sum().backward()
        del y
        print(f"checkpoint={ckpt}: MiB above the stored weights after forward {after_fwd}, backward {seen}")


if __name__ == "__main__":
    main()
