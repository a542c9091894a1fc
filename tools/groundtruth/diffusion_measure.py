#!/usr/bin/env python3
"""Peak-memory measurements of diffusion pipelines on a GPU, for issue 12 (docs/diffusion.md).

Everything is built from the configs in models/models/*.json with diffusers (carried as source,
.devcarry/diffusers, from huggingface/diffusers 58eb52c) and transformers, with random weights: memory
does not depend on the values. No checkpoint is downloaded (the GPU node reaches nothing).

Cases (one subprocess each, so one failure or OOM does not end the others; one JSON line each):
  counts                 every preset component built on the meta device: parameters and buffers,
                         an independent count of models/ (diffusers' and transformers' own modules)
  train:ID:R:B:GC        cogvideox-factory's legacy LoRA step (a-r-r-o-w/finetrainers
                         examples/_legacy/training/cogvideox/cogvideox_text_to_video_lora.py at HEAD,
                         lines 361-375 and 640-760): bf16 transformer, PEFT LoRA rank R (alpha R) on
                         to_k/to_q/to_v/to_out.0, accelerate mixed_precision bf16, --load_tensors latents
                         49x480x720, batch B, gradient checkpointing GC, torch AdamW, clip_grad_norm_.
                         Peaks per step after utils.py reset_memory. Optional allocator trace.
  sft:ID:W:OPT:B[:trace]  cogvideox-factory's full fine-tuning step (examples/_legacy/training/cogvideox/
                         cogvideox_text_to_video_sft.py at 9ef58e2, lines 291-352, 418-454, 612-720): the
                         transformer's weights in W (fp32: every parameter upcast, as the README tables' 30.061 GiB
                         "memory_before_training" of the 5b shows; bf16: finetrainers' full fine-tune), accelerate
                         mixed_precision bf16, gradient checkpointing, --load_tensors latents 49x480x720, batch B,
                         OPT adamw (torch) or adamw8bit (bitsandbytes, when installed), get_gradient_norm before and
                         after clip_grad_norm_, zero_grad. Three steps, each with its own peaks (no reset between):
                         where step 1's optimizer state lands and what step 2's forward then reserves
                         (docs/diffusion.md, the steps session). Optional allocator trace of all three.
  vae:ID:DTYPE:F:H:W:MODE   the VAE's decode of one latent video; MODE plain / tiling / slicing
  pipe:ID:DTYPE:F:H:W:OFFLOAD:TILING   the whole diffusers pipeline, 2 steps, CFG, decode, with a
                         stand-in tokenizer (random token ids; the text encoder runs)

usage: OUT=dir python3 diffusion_measure.py [--smoke] CASE [CASE ...]
       python3 diffusion_measure.py --one CASE JSON_OUT     (what each subprocess runs)
"""
import json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
GiB = 1024 ** 3


def preset(pid):
    with open(os.path.join(ROOT, "models", "models", pid + ".json")) as f:
        return json.load(f)


def components(p):
    """(name, config) of the preset's transformer and its pipeline components."""
    out = [("transformer", p["config"])]
    for name, c in ((p.get("pipeline") or {}).get("components") or {}).items():
        if c.get("config"):
            out.append((name, c["config"]))
    return out


def build(cfg, dtype=None, device="cuda", cls=None):
    """A module from a diffusers config (_class_name) or a transformers config (architectures[0]); cls overrides
    the diffusers class (an older release's module)."""
    import torch
    cfg = dict(cfg)
    if "_class_name" in cfg:
        import diffusers
        cls = cls or getattr(diffusers, cfg.pop("_class_name"))
        cfg.pop("_class_name", None)
        cfg = {k: v for k, v in cfg.items() if not k.startswith("_")}
        with torch.device(device):
            m = cls.from_config(cfg)
    else:
        import transformers
        arch = cfg.pop("architectures")[0]
        cfg.pop("torch_dtype", None)
        conf = transformers.AutoConfig.for_model(cfg.pop("model_type"), **cfg)
        with torch.device(device):
            m = getattr(transformers, arch)(conf)
    if dtype is not None and device != "meta":
        m = m.to(dtype)
    return m


def mem(torch):
    return dict(alloc=torch.cuda.memory_allocated(), peak_alloc=torch.cuda.max_memory_allocated(),
                peak_reserved=torch.cuda.max_memory_reserved(), reserved=torch.cuda.memory_reserved())


def reset(torch):
    # finetrainers examples/_legacy/training/cogvideox/utils.py reset_memory
    import gc
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    torch.cuda.reset_accumulated_memory_stats()


def case_counts(res, smoke):
    import torch
    out = []
    ids = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "models", "models")) if f.endswith(".json"))
    for pid in ids:
        p = preset(pid)
        if p.get("family") not in ("cogvideox", "wan", "hunyuanvideo", "ltx_video", "mochi", "flux", "sd3") \
                and "_class_name" not in (p.get("config") or {}):
            continue
        for name, cfg in components(p):
            row = dict(preset=pid, component=name)
            try:
                m = build(cfg, device="meta")
                row["class"] = type(m).__name__
                row["params"] = sum(t.numel() for t in m.parameters())
                row["buffers"] = sum(t.numel() for t in m.buffers())
            except Exception as e:  # a config this diffusers cannot build is itself a finding
                row["error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
            out.append(row)
    res["counts"] = out


def trace_start(torch):
    """The allocator's history from here on (measure.py's settings)."""
    torch.cuda.memory._record_memory_history(enabled="all", context="alloc", stacks="python", max_entries=3000000)


def trace_write(torch, path, res):
    """measure.py write_trace's file of the history so far, then recording off."""
    sys.path.insert(0, HERE)
    from measure import write_trace
    write_trace(torch, path, dict(res, case=dict(id=res["case"])))
    torch.cuda.memory._record_memory_history(enabled=None)


def rotary(p, frames_lat, h_lat, w_lat, device):
    # finetrainers examples/_legacy/training/cogvideox/utils.py prepare_rotary_positional_embeddings
    from diffusers.models.embeddings import get_3d_rotary_pos_embed
    from diffusers.pipelines.cogvideo.pipeline_cogvideox import get_resize_crop_region_for_grid
    c = p["config"]
    ps = c["patch_size"]
    gh, gw = h_lat // ps, w_lat // ps
    crops = get_resize_crop_region_for_grid((gh, gw), c["sample_width"] // ps, c["sample_height"] // ps)
    cos, sin = get_3d_rotary_pos_embed(embed_dim=c["attention_head_dim"], crops_coords=crops, grid_size=(gh, gw),
                                       temporal_size=frames_lat, device=device)
    return cos, sin


def velocity_loss(torch, tr, sched, alphas, rot, batch, lat_shape, dev):
    """One step's loss as the legacy cogvideox scripts compute it (--load_tensors latents, v-prediction, the
    1 / (1 - alphas_cumprod) weights); also the step's tensors, which the script's names keep alive to the next step."""
    from diffusers.models.autoencoders.vae import DiagonalGaussianDistribution
    fl, hl, wl = lat_shape
    lat = torch.randn(batch, 32, fl, hl, wl, dtype=torch.bfloat16, device=dev)  # --load_tensors: mean+logvar
    emb = torch.randn(batch, 226, 4096, dtype=torch.bfloat16, device=dev)
    x = (DiagonalGaussianDistribution(lat).sample() * 0.7).permute(0, 2, 1, 3, 4)  # [B, F, C, H, W]
    x = x.to(memory_format=torch.contiguous_format, dtype=torch.bfloat16)
    noise = torch.randn_like(x)
    ts = torch.randint(0, 1000, (batch,), dtype=torch.int64, device=dev)
    noisy = sched.add_noise(x, noise, ts)
    out = tr(hidden_states=noisy, encoder_hidden_states=emb, timestep=ts, image_rotary_emb=rot, return_dict=False)[0]
    pred = sched.get_velocity(out, noisy, ts)
    w = 1 / (1 - alphas[ts])
    while w.dim() < pred.dim():
        w = w.unsqueeze(-1)
    loss = torch.mean((w * (pred - x) ** 2).reshape(batch, -1), dim=1).mean()
    return loss, [ts, w, pred, out, noisy, noise, x, emb, lat]  # freed from its end: lat first, as `del lat, ...`


def case_train(res, smoke, pid, r, batch, gc, trace=None):
    import torch
    from accelerate import Accelerator
    from peft import LoraConfig
    from diffusers import CogVideoXDDIMScheduler
    p = preset(pid)
    frames, height, width = (9, 64, 96) if smoke else (49, 480, 720)
    fl, hl, wl = (frames - 1) // 4 + 1, height // 8, width // 8
    dev = torch.device("cuda")
    acc = Accelerator(mixed_precision="bf16")
    tr = build(p["config"], torch.bfloat16)  # lines 361-363: .to(device, dtype=weight_dtype)
    if gc:
        tr.enable_gradient_checkpointing()
    tr.add_adapter(LoraConfig(r=r, lora_alpha=r, init_lora_weights=True,
                              target_modules=["to_k", "to_q", "to_v", "to_out.0"]))
    params = [q for q in tr.parameters() if q.requires_grad]
    res["trainable"] = sum(q.numel() for q in params)
    res["trainable_dtype"] = str(params[0].dtype)
    # get_optimizer("adamw") -> torch.optim.AdamW (finetrainers legacy utils.py), README defaults
    opt = torch.optim.AdamW([{"params": params, "lr": 1e-4}], betas=(0.9, 0.95), eps=1e-8, weight_decay=1e-4)
    tr, opt = acc.prepare(tr, opt)
    sched = CogVideoXDDIMScheduler()
    alphas = sched.alphas_cumprod.to(dev, dtype=torch.float32)
    rot = rotary(p, fl, hl, wl, dev) if p["config"].get("use_rotary_positional_embeddings") else None
    reset(torch)
    res["before"] = mem(torch)
    steps = []
    for step in range(2 if not smoke else 1):
        if trace and step == 0:
            trace_start(torch)
        torch.cuda.reset_peak_memory_stats()
        t0 = time.time()
        loss, held = velocity_loss(torch, tr, sched, alphas, rot, batch, (fl, hl, wl), dev)
        acc.backward(loss)
        acc.clip_grad_norm_(tr.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        loss = loss.detach().item()
        del held
        torch.cuda.synchronize()
        m = mem(torch)
        m["wall_s"] = round(time.time() - t0, 2)
        steps.append(m)
        if trace and step == 1:
            res["steps"] = steps
            trace_write(torch, trace, res)
    res["steps"] = steps
    res["peak_alloc"] = max(s["peak_alloc"] for s in steps)
    res["peak_reserved"] = max(s["peak_reserved"] for s in steps)
    segs = torch.cuda.memory_snapshot()
    res["segments"] = len(segs)
    res["inactive_split"] = sum(b["size"] for s in segs for b in s["blocks"]
                                if b["state"] == "inactive" and len(s["blocks"]) > 1)


def case_sft(res, smoke, pid, wdtype, opt_name, batch, trace=None):
    import torch
    from accelerate import Accelerator
    from diffusers import CogVideoXDDIMScheduler
    p = preset(pid)
    frames, height, width = (9, 64, 96) if smoke else (49, 480, 720)
    fl, hl, wl = (frames - 1) // 4 + 1, height // 8, width // 8
    dev = torch.device("cuda")
    acc = Accelerator(mixed_precision="bf16")
    tr = build(p["config"], getattr(torch, DTYPES[wdtype]))  # lines 351, 421: the weights' dtype
    tr.requires_grad_(True)
    tr.enable_gradient_checkpointing()
    params = [q for q in tr.parameters() if q.requires_grad]
    res["trainable"] = sum(q.numel() for q in params)
    res["trainable_dtype"] = str(params[0].dtype)
    groups = [{"params": params, "lr": 1e-4}]
    if opt_name == "adamw8bit":
        import bitsandbytes as bnb  # utils.py get_optimizer, use_8bit
        opt = bnb.optim.AdamW8bit(groups, betas=(0.9, 0.95), eps=1e-8, weight_decay=1e-4)
    else:
        opt = torch.optim.AdamW(groups, betas=(0.9, 0.95), eps=1e-8, weight_decay=1e-4)
    tr, opt = acc.prepare(tr, opt)
    sched = CogVideoXDDIMScheduler()
    alphas = sched.alphas_cumprod.to(dev, dtype=torch.float32)
    rot = rotary(p, fl, hl, wl, dev) if p["config"].get("use_rotary_positional_embeddings") else None
    reset(torch)
    res["before"] = mem(torch)
    if trace:
        trace_start(torch)
    steps = []
    for step in range(3 if not smoke else 1):
        torch.cuda.reset_peak_memory_stats()
        t0 = time.time()
        loss, held = velocity_loss(torch, tr, sched, alphas, rot, batch, (fl, hl, wl), dev)
        acc.backward(loss)
        norms = [sum(q.grad.detach().data.norm(2).item() ** 2 for q in params if q.grad is not None) ** 0.5]
        acc.clip_grad_norm_(tr.parameters(), 1.0)
        norms.append(sum(q.grad.detach().data.norm(2).item() ** 2 for q in params if q.grad is not None) ** 0.5)
        opt.step()
        opt.zero_grad()
        loss = loss.detach().item()
        del held
        torch.cuda.synchronize()
        m = mem(torch)
        m["wall_s"] = round(time.time() - t0, 2)
        steps.append(m)
    res["steps"] = steps
    res["peak_alloc"] = max(s["peak_alloc"] for s in steps)
    res["peak_reserved"] = max(s["peak_reserved"] for s in steps)
    if trace:
        trace_write(torch, trace, res)


DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}


def case_vae(res, smoke, pid, dtype, frames, height, width, mode, trace=None):
    import torch
    old = None
    if pid.endswith("@0.30"):  # diffusers v0.30.1's CogVideoX VAE (.devcarry/.../autoencoder_kl_cogvideox_v0301.py)
        from diffusers.models.autoencoders.autoencoder_kl_cogvideox_v0301 import AutoencoderKLCogVideoX as old
        pid = pid[:-5]
    p = preset(pid)
    if smoke:
        frames, height, width = 9, 64, 96
    dt = getattr(torch, DTYPES[dtype])
    vc = p["pipeline"]["components"]["vae"]["config"]
    vae = build(vc, dt, cls=old)
    vae.eval()
    if mode == "tiling":
        vae.enable_tiling()
    elif mode == "slicing":
        vae.enable_slicing()
    cls = vc["_class_name"]
    tc = 4 if cls != "AutoencoderKLHunyuanVideo" else 4
    sc = 2 ** (len(vc.get("block_out_channels") or vc.get("dim_mult") or [1, 1, 1, 1]) - 1) if cls != "AutoencoderKLWan" else 8
    zc = vc.get("latent_channels") or vc.get("z_dim")
    if cls == "AutoencoderKL":  # a 2-D image VAE (FLUX, SD3): (batch, channels, h, w) latents, frames ignored
        z = torch.randn(1, zc, height // sc, width // sc, dtype=dt, device="cuda")
    else:
        z = torch.randn(1, zc, (frames - 1) // tc + 1, height // sc, width // sc, dtype=dt, device="cuda")
    res["latent_shape"] = list(z.shape)
    res["weights"] = sum(t.numel() * t.element_size() for t in vae.parameters())
    reset(torch)
    res["before"] = mem(torch)
    if trace:
        trace_start(torch)
    t0 = time.time()
    with torch.no_grad():
        out = vae.decode(z).sample
    torch.cuda.synchronize()
    res["out_shape"] = list(out.shape)
    res["wall_s"] = round(time.time() - t0, 2)
    res.update(mem(torch))
    if trace:
        trace_write(torch, trace, res)


class FakeTokenizer:
    """Random token ids of the pipeline's max_sequence_length: what _get_t5_prompt_embeds asks of a tokenizer
    (pipeline_cogvideox.py lines 216-228; equal ids for 'longest', so nothing is reported as truncated)."""

    def __init__(self, vocab):
        self.vocab = vocab

    def __call__(self, prompt, padding=None, max_length=None, **kw):
        import torch
        n = len(prompt) if isinstance(prompt, list) else 1
        g = torch.Generator().manual_seed(0)
        ids = torch.randint(1, self.vocab, (n, max_length or 226), generator=g)
        return type("T", (), {"input_ids": ids, "attention_mask": torch.ones_like(ids)})()

    def batch_decode(self, ids, **kw):
        return [""] * len(ids)


def case_pipe(res, smoke, pid, dtype, frames, height, width, offload, tiling):
    import torch
    import diffusers
    p = preset(pid)
    if smoke:
        frames, height, width = 9, 64, 96
    dt = getattr(torch, DTYPES[dtype])
    comps = p["pipeline"]["components"]
    tr = build(p["config"], dt)
    te = build(comps["text_encoder"]["config"], dt)
    vae = build(comps["vae"]["config"], dt)
    pipe_cls = getattr(diffusers, p["pipeline"]["_class_name"])
    sched = diffusers.CogVideoXDDIMScheduler() if "CogVideoX" in pipe_cls.__name__ else diffusers.UniPCMultistepScheduler()
    pipe = pipe_cls(tokenizer=FakeTokenizer(comps["text_encoder"]["config"]["vocab_size"]), text_encoder=te, vae=vae,
                    transformer=tr, scheduler=sched)
    if tiling == "tiling":
        pipe.vae.enable_tiling()
    if offload in ("model", "sequential"):
        pipe.to("cpu")
        if offload == "model":
            pipe.enable_model_cpu_offload()
        else:
            pipe.enable_sequential_cpu_offload()
    reset(torch)
    res["before"] = mem(torch)
    t0 = time.time()
    with torch.no_grad():
        out = pipe(prompt="a cat", num_frames=frames, height=height, width=width, num_inference_steps=2,
                   guidance_scale=6.0, output_type="pt", return_dict=False)[0]
    torch.cuda.synchronize()
    res["out_shape"] = list(out.shape)
    res["wall_s"] = round(time.time() - t0, 2)
    res.update(mem(torch))


def run_one(name, smoke, out_path, trace_dir):
    import torch
    res = dict(case=name, smoke=smoke, torch=torch.__version__, gpu=torch.cuda.get_device_name(),
               alloc_conf=os.environ.get("PYTORCH_CUDA_ALLOC_CONF"))
    try:
        import diffusers, transformers
        res["diffusers"], res["transformers"] = diffusers.__version__, transformers.__version__
        kind, *a = name.split(":")
        if kind == "counts":
            case_counts(res, smoke)
        elif kind == "train":
            tr = os.path.join(trace_dir, name.replace(":", "-") + ".json.gz") if (trace_dir and not smoke) else None
            case_train(res, smoke, a[0], int(a[1]), int(a[2]), a[3] == "gc", trace=tr if "trace" in a[4:] else None)
        elif kind == "sft":
            tr = os.path.join(trace_dir, name.replace(":", "-") + ".json.gz") if (trace_dir and not smoke) else None
            case_sft(res, smoke, a[0], a[1], a[2], int(a[3]), trace=tr if "trace" in a[4:] else None)
        elif kind == "vae":
            tr = os.path.join(trace_dir, name.replace(":", "-") + ".json.gz") if (trace_dir and not smoke) else None
            case_vae(res, smoke, a[0], a[1], int(a[2]), int(a[3]), int(a[4]), a[5], trace=tr if "trace" in a[6:] else None)
        elif kind == "pipe":
            case_pipe(res, smoke, a[0], a[1], int(a[2]), int(a[3]), int(a[4]), a[5], a[6])
        else:
            raise ValueError("unknown case kind " + kind)
    except torch.cuda.OutOfMemoryError as e:
        res["oom"] = True
        res["error"] = str(e)[:400]
        res.update(mem(torch))
    except Exception as e:
        import traceback
        res["error"] = traceback.format_exc()[-1500:]
    with open(out_path, "a") as f:
        f.write(json.dumps(res) + "\n")


def main():
    if sys.argv[1] == "--one":
        run_one(sys.argv[2], sys.argv[3] == "1", sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
        return
    smoke = sys.argv[1] == "--smoke"
    cases = sys.argv[2:] if smoke else sys.argv[1:]
    out = os.environ.get("OUT", "/tmp")
    path = os.path.join(out, "diffusion-smoke.jsonl" if smoke else "diffusion.jsonl")
    tdir = os.path.join(out, "traces")
    os.makedirs(tdir, exist_ok=True)
    limit = int(os.environ.get("CASE_TIMEOUT_S", "240"))
    for c in cases:
        t0 = time.time()
        env = dict(os.environ)
        if c.endswith(":expseg"):  # the case under PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
            env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
        try:
            subprocess.run([sys.executable, __file__, "--one", c, "1" if smoke else "0", path, tdir], timeout=limit,
                           env=env)
        except subprocess.TimeoutExpired:
            with open(path, "a") as f:
                f.write(json.dumps(dict(case=c, smoke=smoke, error="timeout %d s" % limit)) + "\n")
        print("%-50s %6.1f s" % (c, time.time() - t0), flush=True)


if __name__ == "__main__":
    main()
