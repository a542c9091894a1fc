#!/usr/bin/env python3
"""The allocations of diffusers' apply_rotary_emb (embeddings.py, use_real, unbind_dim -1) and of its backward, as
CogVideoXAttnProcessor2_0 applies it to the video part of the fp32 q: `query[:, :, T:] = apply_rotary_emb(query[:, :, T:],
(cos, sin))`, then autocast's bf16 copy for SDPA. Runs on the CPU with torch.profiler(profile_memory=True): each
op's own allocations and each autograd node's frees, in order, sizes named Vf (the video part in fp32), Vf/2 and Jf (the
whole q in fp32). core/src/events_cogvideox.c rope_forward / rope_backward model the same ops for the CUDA step.

Run with Debian's python3-torch (1.13, CPU):  /usr/bin/python3 tools/groundtruth/rope_cpu_profile.py [--no-rope]

What 1.13 on the CPU shows and 2.11 on CUDA does not do (so read the output with these in mind): `q[:, :, T:]` makes
real slices for the two full dimensions (three SliceBackward nodes, each a zero-filled Jf in the backward; 2.x returns
the tensor itself for a slice that spans its axis, and the H100 trace's `ff_output[:, T:]` has one), and the autograd
engine adds two gradients of one tensor out of place (2.11 adds into the first in place: the trace's residual streams).
"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile

B, H, T, NV, D = 1, 2, 3, 40, 8
N = T + NV
VF, JF = B * H * NV * D * 4, B * H * N * D * 4
NAMES = {VF: "Vf", VF // 2: "Vf/2", JF: "Jf"}


def apply_rotary_emb(x, freqs_cis):
    """diffusers/models/embeddings.py apply_rotary_emb, use_real=True, use_real_unbind_dim=-1, sequence_dim=2"""
    cos, sin = freqs_cis
    cos, sin = cos[None, None, :, :], sin[None, None, :, :]
    x_real, x_imag = x.reshape(*x.shape[:-1], -1, 2).unbind(-1)
    x_rotated = torch.stack([-x_imag, x_real], dim=-1).flatten(3)
    return (x.float() * cos + x_rotated.float() * sin).to(x.dtype)


def main():
    rope = "--no-rope" not in sys.argv
    torch.manual_seed(0)
    cos, sin = torch.randn(NV, D), torch.randn(NV, D)
    x0 = torch.randn(B, N, H * D, requires_grad=True)
    norm_q = torch.nn.LayerNorm(D)

    def step():
        q = norm_q(x0.view(B, N, H, D).transpose(1, 2))  # fp32, as autocast's layer_norm returns it
        if rope:
            q[:, :, T:] = apply_rotary_emb(q[:, :, T:], (cos, sin))
        qc = q.to(torch.bfloat16)  # SDPA's autocast copy
        (qc.float() ** 2).sum().backward()

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step()
    events = prof.profiler.function_events

    def depth(e):
        d = 0
        while e.cpu_parent is not None:
            e, d = e.cpu_parent, d + 1
        return d

    for e in sorted(events, key=lambda e: (e.time_range.start, -e.time_range.end)):
        b = e.cpu_memory_usage if e.name == "[memory]" else e.self_cpu_memory_usage
        if b == 0 and "evaluate_function" not in e.name:
            continue
        print("  " * depth(e) + f"{e.name} {b:+d} {NAMES.get(abs(b), '')}")


if __name__ == "__main__":
    main()
