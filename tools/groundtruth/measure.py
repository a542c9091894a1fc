#!/usr/bin/env python3
"""Measure real peak GPU memory of training / inference steps with PyTorch.

Copied from shared/groundtruth/measure.py (read-only there) and extended for issue 9:
  * case "mem_fraction": torch.cuda.set_per_process_memory_fraction, i.e. a smaller usable GPU
    (the allocator raises OutOfMemoryError once reserved + request would pass fraction x total);
  * case "alloc_conf": PYTORCH_CUDA_ALLOC_CONF for the case's subprocess;
  * case "trace": a path; the caching allocator's full event history
    (torch.cuda.memory._record_memory_history + _snapshot) is written there, gzipped and compact;
  * every result carries "alloc_stats" (selected torch.cuda.memory_stats() counters);
  * --bisect SPEC.json OUT.jsonl: the largest batch / seq / new_tokens that runs, each trial a
    fresh process, every trial's record kept.

  * case "fsdp" (issue 11): rank 0 of an N-rank FSDP job on this one GPU, through PyTorch's fake
    process group (torch.testing._internal.distributed.fake_pg): collectives do nothing, but every
    shard, all-gather output, unsharded gradient and reduce-scatter buffer is allocated at its real
    size, so the per-rank peak of world sizes 2..64 is measured exactly. Keys:
      {"world": 8, "version": 2, "param_dtype": "bf16"|null, "reduce_dtype": "bf16"|"fp32"|null,
       "reshard_after_forward": true, "init": "cuda"|"meta"}
    "init": "meta" builds the model on the meta device and materializes only the shards (for models
    larger than one GPU); rotary inv_freq buffers are recomputed after to_empty.
    case "autocast_cache": false runs torch.autocast(cache_enabled=False).

Each case runs in its own subprocess so peaks and the CUDA context are clean.
Models are built from config (random init): no weights are downloaded.
Usage: measure.py CASES.json OUT.jsonl            (driver)
       measure.py --case '<json>'                 (one case, prints one JSON line)
       measure.py --bisect SPEC.json OUT.jsonl    (largest value that fits; SPEC: {"case":{...},
                                                   "field":"batch","lo":1,"hi":null})
"""
import json, os, subprocess, sys, time

MODELS = {
    "gpt2": ("gpt2", dict(n_embd=768, n_layer=12, n_head=12, vocab_size=50257, n_positions=2048)),
    "qwen2.5-0.5b": ("qwen2", dict(hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
        num_attention_heads=14, num_key_value_heads=2, vocab_size=151936, tie_word_embeddings=True,
        max_position_embeddings=32768)),
    "llama-3.2-1b": ("llama", dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
        num_attention_heads=32, num_key_value_heads=8, vocab_size=128256, tie_word_embeddings=True,
        head_dim=64, max_position_embeddings=131072, rope_theta=500000.0)),
    "phi-3-mini": ("phi3", dict(hidden_size=3072, intermediate_size=8192, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, vocab_size=32064, max_position_embeddings=4096,
        tie_word_embeddings=False)),
    "llama-2-7b": ("llama", dict(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, vocab_size=32000, max_position_embeddings=4096,
        tie_word_embeddings=False)),
    "mistral-7b": ("mistral", dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, vocab_size=32000, max_position_embeddings=32768,
        tie_word_embeddings=False)),
    "mixtral-tiny": ("mixtral", dict(hidden_size=1024, intermediate_size=3584, num_hidden_layers=8,
        num_attention_heads=16, num_key_value_heads=8, vocab_size=32000, num_local_experts=8,
        num_experts_per_tok=2, max_position_embeddings=4096, tie_word_embeddings=False)),
    "t5-base": ("t5", dict(d_model=768, d_ff=3072, d_kv=64, num_layers=12, num_decoder_layers=12,
        num_heads=12, vocab_size=32128, feed_forward_proj="relu", tie_word_embeddings=True,
        decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)),
    "gemma-2-2b": ("gemma2", dict(hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
        num_attention_heads=8, num_key_value_heads=4, head_dim=256, vocab_size=256000, tie_word_embeddings=True,
        max_position_embeddings=8192, sliding_window=4096, query_pre_attn_scalar=256)),
    "qwen2.5-7b": ("qwen2", dict(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
        num_attention_heads=28, num_key_value_heads=4, vocab_size=152064, tie_word_embeddings=False,
        max_position_embeddings=32768)),
    "llama-3.1-8b": ("llama", dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, vocab_size=128256, tie_word_embeddings=False,
        max_position_embeddings=131072, rope_theta=500000.0)),
}

GIB = 1024 ** 3


def build(case, torch):
    if case["model"].startswith("timm:"):
        import timm
        wdtype = torch.float32 if case["mode"] in ("fp32", "amp_bf16") else torch.bfloat16
        with torch.device("cuda"):
            model = timm.create_model(case["model"][5:], pretrained=False)
        model.to(wdtype)
        return model, None, wdtype, "timm"
    from transformers import AutoConfig, AutoModelForCausalLM, T5ForConditionalGeneration
    mtype, kw = MODELS[case["model"]]
    cfg = AutoConfig.for_model(mtype, **kw)
    wdtype = torch.float32 if case["mode"] in ("fp32", "amp_bf16") else torch.bfloat16
    attn = case.get("attn", "sdpa")
    meta = (case.get("fsdp") or {}).get("init") == "meta"
    with torch.device("meta" if meta else "cuda"):
        if mtype == "t5":
            model = T5ForConditionalGeneration._from_config(cfg, dtype=wdtype)
        else:
            model = AutoModelForCausalLM.from_config(cfg, dtype=wdtype, attn_implementation=attn)
    if not meta:
        model.to(wdtype)
    return model, cfg, wdtype, attn


STAT_KEYS = ("num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free",
             "allocated_bytes.all.peak", "reserved_bytes.all.peak", "allocated_bytes.large_pool.peak",
             "reserved_bytes.large_pool.peak", "allocated_bytes.small_pool.peak",
             "reserved_bytes.small_pool.peak", "inactive_split_bytes.all.peak", "segment.all.peak",
             "oversize_allocations.peak", "requested_bytes.all.peak")


def alloc_stats(torch):
    st = torch.cuda.memory_stats()
    return {k: st.get(k) for k in STAT_KEYS}


def _frame(frames):
    """Innermost frame outside torch itself: the model/library line that asked for the memory."""
    keep = []
    for f in frames or []:
        fn = f.get("filename", "")
        if "/torch/" in fn and "/torch/nn/modules/" not in fn and "/torch/optim/" not in fn:
            continue
        keep.append("%s:%s:%s" % (fn.rsplit("/", 2)[-2] + "/" + fn.rsplit("/", 1)[-1] if "/" in fn else fn,
                                  f.get("line"), f.get("name")))
        if len(keep) == 2:
            break
    return "|".join(keep)


def write_trace(torch, path, res):
    """The allocator's event history and final segments, compact: one list per event."""
    import gzip
    snap = torch.cuda.memory._snapshot()
    ev = []
    for e in (snap.get("device_traces") or [[]])[0]:
        ev.append([e["action"], e["addr"], e["size"], e.get("stream", 0), _frame(e.get("frames"))])
    segs = [dict(address=sg["address"], total_size=sg["total_size"], segment_type=sg.get("segment_type"),
                 blocks=[[b["size"], b["state"]] for b in sg["blocks"]]) for sg in snap["segments"]]
    with gzip.open(path, "wt") as f:
        json.dump(dict(id=res["case"].get("id"), fields=["action", "addr", "size", "stream", "frame"],
                       events=ev, segments=segs, result={k: v for k, v in res.items() if k != "case"}), f)


DT = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16", None: None}


def _layers(model):
    """The transformer blocks, each wrapped as one FSDP unit (as accelerate's transformer-layer policy
    does): modules named *DecoderLayer / *Block / *EncoderLayer that are not inside another one
    (MixtralSparseMoeBlock sits inside MixtralDecoderLayer)."""
    names = ("DecoderLayer", "Block", "EncoderLayer")
    found = []
    def walk(m):
        for c in m.children():
            if type(c).__name__.endswith(names):
                found.append(c)
            else:
                walk(c)
    walk(model)
    return found


def fsdp_wrap(case, model, torch):
    """Shard `model` as rank 0 of a world of f["world"] ranks on the fake process group."""
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore
    f = case["fsdp"]
    world = int(f["world"])
    if not dist.is_initialized():
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)
    dt = lambda k: getattr(torch, DT[f.get(k)]) if f.get(k) else None
    layers = _layers(model)
    if f.get("version", 2) == 1:
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision, ShardingStrategy
        from torch.distributed.fsdp.wrap import ModuleWrapPolicy
        mp = None
        if f.get("param_dtype") or f.get("reduce_dtype"):
            mp = MixedPrecision(param_dtype=dt("param_dtype"), reduce_dtype=dt("reduce_dtype"), buffer_dtype=dt("param_dtype"))
        strat = ShardingStrategy.FULL_SHARD if f.get("reshard_after_forward", True) else ShardingStrategy.SHARD_GRAD_OP
        return FSDP(model, auto_wrap_policy=ModuleWrapPolicy({type(layers[0])}), mixed_precision=mp,
                    sharding_strategy=strat, device_id=torch.cuda.current_device(), use_orig_params=True)
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
    mesh = init_device_mesh("cuda", (world,))
    mp = MixedPrecisionPolicy(param_dtype=dt("param_dtype"), reduce_dtype=dt("reduce_dtype"))
    raf = f.get("reshard_after_forward", True)
    for layer in layers:
        fully_shard(layer, mesh=mesh, mp_policy=mp, reshard_after_forward=raf)
    fully_shard(model, mesh=mesh, mp_policy=mp, reshard_after_forward=raf)
    if f.get("init") == "meta":
        model.to_empty(device="cuda")
        with torch.no_grad():
            for m in model.modules():
                if hasattr(m, "inv_freq") and hasattr(m, "rope_init_fn"):
                    inv, _ = m.rope_init_fn(m.config, torch.device("cuda"))
                    m.register_buffer("inv_freq", inv, persistent=False)
                    m.original_inv_freq = inv
            for p in model.parameters():
                p.normal_(0, 0.02)
    return model


def run_case(case):
    import torch
    torch.cuda.init()
    free0, total = torch.cuda.mem_get_info()
    ctx = total - free0
    if case.get("mem_fraction"):
        torch.cuda.set_per_process_memory_fraction(case["mem_fraction"])
    if case.get("trace"):
        torch.cuda.memory._record_memory_history(enabled="all", context="alloc", stacks="python",
                                                 max_entries=3000000)
    res = dict(case=case, gpu=torch.cuda.get_device_name(), total_bytes=total, torch=torch.__version__)
    try:
        import transformers
        res["transformers"] = transformers.__version__
        model, cfg, wdtype, attn = build(case, torch)
        res["attn_impl"] = getattr(getattr(model, "config", None), "_attn_implementation", attn)
        res["params_total"] = sum(p.numel() for p in model.parameters())
        b, s = case["batch"], case["seq"]
        if cfg is None:
            class _C: vocab_size = 1000
            cfg = _C()
        ref = None
        if case.get("ref_model"):
            ref, _, _, _ = build(dict(case, mode="bf16"), torch)
            ref.eval().requires_grad_(False)
        if case["mode"] == "infer":
            model.eval()
            torch.cuda.synchronize(); res["after_load_alloc"] = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            ids = torch.randint(0, cfg.vocab_size, (b, s), device="cuda")
            t0 = time.time()
            with torch.no_grad():
                out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=case["new_tokens"],
                                     min_new_tokens=case["new_tokens"], do_sample=False, use_cache=True)
            torch.cuda.synchronize()
            res["step_s"] = time.time() - t0
            res["generated"] = int(out.shape[1] - s)
        else:
            if case.get("lora"):
                from peft import LoraConfig, get_peft_model
                lc = LoraConfig(r=case["lora"]["r"], lora_alpha=2 * case["lora"]["r"], lora_dropout=case["lora"].get("dropout", 0.05),
                                target_modules=case["lora"]["targets"], task_type="SEQ_2_SEQ_LM" if case["model"] == "t5-base" else "CAUSAL_LM")
                model = get_peft_model(model, lc)
            if case.get("grad_ckpt"):
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
                if case.get("lora"):
                    model.enable_input_require_grads()
            model.train()
            if case.get("fsdp"):
                model = fsdp_wrap(case, model, torch)
                res["fsdp"] = case["fsdp"]
            params = [p for p in model.parameters() if p.requires_grad]
            res["params_trainable"] = sum(p.numel() for p in params)
            opt_name = case.get("optim", "adamw")
            if opt_name == "adamw":
                opt = torch.optim.AdamW(params, lr=1e-5, foreach=True)
            elif opt_name == "adamw_fused":
                opt = torch.optim.AdamW(params, lr=1e-5, fused=True)
            elif opt_name == "sgd":
                opt = torch.optim.SGD(params, lr=1e-5, momentum=0.9, foreach=True)
            elif opt_name == "adafactor":
                opt = torch.optim.Adafactor(params, lr=1e-3)
            torch.cuda.synchronize(); res["after_load_alloc"] = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            peaks, times = [], []
            for step in range(case.get("steps", 3)):
                if case["model"].startswith("timm:"):
                    x = torch.randn(b, 3, s, s, device="cuda", dtype=wdtype)
                    y = torch.randint(0, 1000, (b,), device="cuda")
                    torch.cuda.synchronize(); t0 = time.time()
                    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=case["mode"] == "amp_bf16"):
                        loss = torch.nn.functional.cross_entropy(model(x).float(), y)
                    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True); del loss
                    torch.cuda.synchronize(); times.append(time.time() - t0)
                    peaks.append(torch.cuda.max_memory_allocated())
                    continue
                if case["model"] == "t5-base":
                    inp = dict(input_ids=torch.randint(0, cfg.vocab_size, (b, s), device="cuda"),
                               labels=torch.randint(0, cfg.vocab_size, (b, case.get("dec_seq", 128)), device="cuda"))
                else:
                    ids = torch.randint(0, cfg.vocab_size, (b, s), device="cuda")
                    inp = dict(input_ids=ids, labels=ids)
                torch.cuda.synchronize(); t0 = time.time()
                if ref is not None:
                    with torch.no_grad():
                        rl = ref(**inp).logits.float().log_softmax(-1).mean()
                elif case.get("ref_adapter_off"):
                    with torch.no_grad(), model.disable_adapter():
                        rl = model(**inp).logits.float().log_softmax(-1).mean()
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=case["mode"] == "amp_bf16",
                                    cache_enabled=case.get("autocast_cache", True)):
                    out = model(**inp)
                loss = out.loss
                if ref is not None or case.get("ref_adapter_off"):
                    loss = loss + 0.0 * rl
                loss.backward()
                res.setdefault("after_backward_alloc", torch.cuda.memory_allocated())
                opt.step()
                opt.zero_grad(set_to_none=True)
                del out, loss
                torch.cuda.synchronize(); times.append(time.time() - t0)
                peaks.append(torch.cuda.max_memory_allocated())
            res["peak_alloc_per_step"] = peaks
            res["after_step_alloc"] = torch.cuda.memory_allocated()
            res["step_s"] = sorted(times)[len(times) // 2]
            res["tokens_per_s"] = b * s / res["step_s"]
        res["peak_alloc"] = torch.cuda.max_memory_allocated()
        res["peak_reserved"] = torch.cuda.max_memory_reserved()
        free1, _ = torch.cuda.mem_get_info()
        res["nonpytorch_bytes"] = (total - free1) - torch.cuda.memory_reserved()
        res["context_bytes"] = ctx
        res["oom"] = False
    except torch.cuda.OutOfMemoryError as e:
        res["oom"] = True
        res["peak_alloc"] = torch.cuda.max_memory_allocated()
        res["peak_reserved"] = torch.cuda.max_memory_reserved()
        res["error"] = str(e).splitlines()[0][:300]
    res["peak_alloc_gib"] = round(res.get("peak_alloc", 0) / GIB, 3)
    res["peak_reserved_gib"] = round(res.get("peak_reserved", 0) / GIB, 3)
    res["alloc_stats"] = alloc_stats(torch)
    res["alloc_conf"] = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    if case.get("trace"):
        write_trace(torch, case["trace"], res)
    return res


def run_sub(case):
    """One case in a fresh process (its own CUDA context and allocator)."""
    env = dict(os.environ)
    if case.get("alloc_conf"):
        env["PYTORCH_CUDA_ALLOC_CONF"] = case["alloc_conf"]
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, __file__, "--case", json.dumps(case)], capture_output=True,
                           text=True, timeout=case.get("timeout", 240), env=env)
        line = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
        r = json.loads(line[-1][7:]) if line else dict(case=case, error=(p.stderr or "")[-1500:])
    except subprocess.TimeoutExpired:
        r = dict(case=case, error="timeout")
    r["wall_s"] = round(time.time() - t0, 1)
    return r


def bisect(spec, out):
    """Largest value of spec["field"] for which the case runs without OOM. Doubles from lo until
    the first OOM, then bisects; then re-checks value and value + 1 (memory need not be monotone)."""
    field, base = spec["field"], spec["case"]
    seen = {}

    def fits(v):
        if v not in seen:
            c = dict(base, **{field: v})
            c["id"] = "%s-%s%d" % (base["id"], field, v)
            r = run_sub(c)
            r["bisect"] = dict(of=base["id"], field=field, value=v)
            out.write(json.dumps(r) + "\n"); out.flush()
            if "error" in r and not r.get("oom"):
                raise SystemExit("trial failed: %s" % r["error"][-600:])
            seen[v] = not r.get("oom")
            print(c["id"], "fits" if seen[v] else "OOM", r.get("peak_reserved_gib"), r["wall_s"], flush=True)
        return seen[v]

    lo, hi = spec.get("lo", 1), spec.get("hi")
    if not fits(lo):
        best = 0
    else:
        if hi is None:
            hi = lo * 2
            while fits(hi):
                lo, hi = hi, hi * 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fits(mid):
                lo = mid
            else:
                hi = mid
        best = lo
    fits(best + 1)
    summary = dict(bisect_summary=dict(of=base["id"], field=field, largest_fit=best, case=base,
                                       trials={str(k): v for k, v in sorted(seen.items())}))
    out.write(json.dumps(summary) + "\n"); out.flush()
    print("LARGEST", base["id"], field, best, flush=True)


def main():
    if sys.argv[1] == "--case":
        print("RESULT " + json.dumps(run_case(json.loads(sys.argv[2]))), flush=True)
        return
    if sys.argv[1] == "--bisect":
        bisect(json.load(open(sys.argv[2])), open(sys.argv[3], "a"))
        return
    cases = json.load(open(sys.argv[1]))
    out = open(sys.argv[2], "a")
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
    for case in cases:
        if only and case["id"] not in only:
            continue
        r = run_sub(case)
        out.write(json.dumps(r) + "\n"); out.flush()
        print(case["id"], "oom" if r.get("oom") else "", r.get("peak_alloc_gib"), r.get("error", "")[:300], r["wall_s"], flush=True)


if __name__ == "__main__":
    main()
