#!/bin/sh
# test_cli.sh: the vramplan command line on good and bad input.
# Every bad input must exit with the documented status (2 bad flags, 3 bad input, 4 does not fit with
# --check, 5 I/O), never crash (no signal, no sanitizer report), and print on stderr a message that
# names the offending field (its JSON path) or file.
# usage: test_cli.sh VRAMPLAN FIXTURES_DIR WORK_DIR
set -u
VP=$1
FX=$2
WORK=${3:-${TMPDIR:-/tmp}/vramplan-cli-test.$$}
mkdir -p "$WORK"
OUT="$WORK/stdout"
ERR="$WORK/stderr"
fails=0
n=0

# expect STATUS STDERR_SUBSTRING -- ARGS...   (stdin from /dev/null)
expect() {
    want=$1
    needle=$2
    shift 3
    n=$((n + 1))
    "$VP" "$@" >"$OUT" 2>"$ERR" </dev/null
    got=$?
    check "$want" "$needle" "$got" "$*"
}

# expect_stdin STATUS STDERR_SUBSTRING INPUT_FILE -- ARGS...
expect_stdin() {
    want=$1
    needle=$2
    input=$3
    shift 4
    n=$((n + 1))
    "$VP" "$@" >"$OUT" 2>"$ERR" <"$input"
    got=$?
    check "$want" "$needle" "$got" "$* < $input"
}

check() {
    want=$1 needle=$2 got=$3 what=$4
    if [ "$got" -ge 128 ]; then
        echo "FAIL: vramplan $what: killed by signal $((got - 128))"
        sed 's/^/    /' "$ERR" | head -20
        fails=$((fails + 1))
        return
    fi
    if grep -q -e "AddressSanitizer" -e "LeakSanitizer" -e "runtime error:" "$ERR"; then
        echo "FAIL: vramplan $what: sanitizer report"
        sed 's/^/    /' "$ERR" | head -30
        fails=$((fails + 1))
        return
    fi
    if [ "$got" != "$want" ]; then
        echo "FAIL: vramplan $what: exit $got, expected $want"
        sed 's/^/    stderr: /' "$ERR" | head -5
        fails=$((fails + 1))
        return
    fi
    if [ -n "$needle" ] && ! grep -q -F -e "$needle" "$ERR"; then
        echo "FAIL: vramplan $what: stderr does not name '$needle'"
        sed 's/^/    stderr: /' "$ERR" | head -5
        fails=$((fails + 1))
        return
    fi
    if [ "$want" != 0 ] && [ "$want" != 4 ] && [ ! -s "$ERR" ]; then
        echo "FAIL: vramplan $what: exit $got without a message on stderr"
        fails=$((fails + 1))
        return
    fi
    echo "ok: vramplan $what -> $got"
}

P=$FX/plans
# ---- good input ----
expect 0 "" -- estimate --plan "$P/good-gpt2.json" --json
grep -q '"schema":"vramplan/estimate@1"' "$OUT" || { echo "FAIL: --json did not print an estimate"; fails=$((fails + 1)); }
expect 0 "" -- estimate --plan "$P/good-gpt2.json"
grep -q 'Fits' "$OUT" || { echo "FAIL: the table has no verdict"; fails=$((fails + 1)); }
expect 0 "" -- estimate --model gpt2 --batch 2 --seq 128 --gpu "$FX/probes/h100.json" --json
expect 0 "" -- estimate --hf-config "$FX/configs/tiny-llama.json" --lora 8 --lora-targets q_proj,v_proj --json
expect 0 "" -- estimate --hf-config "$FX/configs/tiny-llama.json" --lora 8 --lora-dtype bf16 --json
expect 2 "--lora-dtype needs --lora" -- estimate --model gpt2 --lora-dtype bf16
expect 3 "instances[0].finetune.lora.dtype" -- estimate --model gpt2 --lora 8 --lora-dtype fp64
expect 4 "" -- estimate --plan "$P/nofit-70b-full.json" --check
expect 0 "" -- models
# --qlora and --lora R, in either order: QLoRA of rank R (4-bit base weights, the rank given)
n=$((n + 1))
qa=$("$VP" estimate --model llama-3.2-1b --qlora --lora 8 --json </dev/null 2>/dev/null)
qb=$("$VP" estimate --model llama-3.2-1b --lora 8 --qlora --json </dev/null 2>/dev/null)
if [ "$qa" != "$qb" ] || ! printf '%s' "$qa" | grep -q 'Weights (quantized)'; then
    echo "FAIL: vramplan estimate --qlora --lora 8: not the same QLoRA plan as --lora 8 --qlora"
    fails=$((fails + 1))
fi
# --autocast: the plan's instances[].autocast (a bf16 DiT under accelerate's autocast); refused where it means nothing
expect 0 "" -- estimate --model cogvideox-2b --lora 16 --precision bf16 --frames 49 --height 480 --width 720 --autocast --json
expect 3 "instances[0].autocast" -- estimate --model gpt2 --precision bf16 --autocast
# a plan file is taken as written: a diffusion pipeline preset alone in inference gets a note naming what --model adds
printf '{"schema":"vramplan/plan@1","workload":{"mode":"infer","batch":1,"frames":17,"height":256,"width":256},"instances":[{"model":{"preset":"cogvideox-2b"}}]}' >"$WORK/pipe.json"
expect 0 "the 2 other components (text encoders, VAE) are not estimated" -- estimate --plan "$WORK/pipe.json" --json
expect 0 "" -- estimate --plan "$FX/../../examples/cogvideox-unlearning.json" --json
if grep -q "note:" "$ERR"; then
    echo "FAIL: a plan file that lists its components gets no note"
    fails=$((fails + 1))
fi
expect 0 "" -- gpus --json
expect_stdin 0 "" "$P/good-gpt2.json" -- estimate --plan - --json

# ---- bad plans (exit 3, stderr names the field) ----
expect 3 "workload.batch" -- estimate --plan "$P/bad-batch-zero.json"
expect 3 "workload.batch" -- estimate --plan "$P/bad-batch-string.json"
expect 3 "workload.seq" -- estimate --plan "$P/bad-seq-1e300.json"
expect 3 "workload.seq" -- estimate --plan "$P/bad-seq-negative.json"
expect 3 "instances[0].modle" -- estimate --plan "$P/bad-unknown-field.json"
expect 3 "error at schema]" -- estimate --plan "$P/bad-schema-v2.json"
expect 3 "vramplan/plan@2" -- estimate --plan "$P/bad-schema-v2.json"
expect 3 "error at schema]" -- estimate --plan "$P/bad-no-schema.json"
expect 3 "bad-truncated.json" -- estimate --plan "$P/bad-truncated.json"
expect 3 "instances[0].model.hf_config.hidden_size" -- estimate --plan "$P/bad-hidden-1e30.json"
expect 3 "instances[0].model.hf_config.model_type" -- estimate --plan "$P/bad-model-type.json"
expect 3 "instances[0].model.preset" -- estimate --plan "$P/bad-preset.json"
expect_stdin 3 "" "$P/bad-truncated.json" -- estimate --plan -

# ---- bad flags and flag values ----
expect 3 "instances[0].model.preset" -- estimate --model llama-9-900b
expect 3 "workload.batch" -- estimate --model gpt2 --batch 0
expect 2 "--batch" -- estimate --model gpt2 --batch -1
expect 2 "--seq" -- estimate --model gpt2 --seq abc
expect 3 "workload.seq" -- estimate --model gpt2 --seq 99999999999999999999
expect 3 "workload.seq" -- estimate --model gpt2 --seq 16777217
expect 3 "workload.mode" -- estimate --model gpt2 --mode inference
expect 3 "instances[0].precision" -- estimate --model gpt2 --precision fp64
expect 3 "instances[0].optimizer.name" -- estimate --model gpt2 --optimizer adamax
expect 3 "instances[0].optimizer.impl" -- estimate --model gpt2 --optim-impl turbo
expect 3 "instances[0].attn" -- estimate --model gpt2 --attn xformers
expect 3 "instances[0].finetune.lora.targets[1]" -- estimate --model gpt2 --lora 8 --lora-targets c_attn,bogus
expect 3 "instances[0].finetune.lora.r" -- estimate --model gpt2 --lora 0
expect 3 "instances[0].grad_ckpt.every" -- estimate --model gpt2 --grad-ckpt 99999
expect 3 "hardware.count" -- estimate --model gpt2 --gpus 17
expect 3 "hardware.gpu" -- estimate --model gpt2 --gpu tpu-v5
expect 3 "instances[0].model.hf_config.model_type" -- estimate --hf-config "$FX/configs/mamba.json"
expect 2 "needs a value" -- estimate --model gpt2 --lora
expect 2 "needs a value" -- estimate --model
expect 2 "unknown option" -- estimate --model gpt2 --bogus
expect 2 "unknown command" -- frobnicate
expect 2 "" --
expect 5 "cannot open" -- estimate --plan "$WORK/does-not-exist.json"
expect 5 "cannot open" -- estimate --hf-config "$WORK/does-not-exist.json"

# ---- probe files ----
expect 3 "hardware.probe.schema" -- estimate --model gpt2 --gpu "$FX/probes/wrong-schema.json"
expect 3 "hardware.probe.schema" -- estimate --model gpt2 --gpu "$FX/probes/not-a-probe.json"
expect 3 "hardware.probe.error" -- estimate --model gpt2 --gpu "$FX/probes/reported-error.json"
expect 3 "hardware.probe.devices[0].memory.total_bytes" -- estimate --model gpt2 --gpu "$FX/probes/total-as-string.json"
expect 3 "truncated.json" -- estimate --model gpt2 --gpu "$FX/probes/truncated.json"
expect 5 "cannot open" -- estimate --model gpt2 --gpu "$WORK/missing-probe.json"

# ---- calibrate ----
expect 0 "" -- calibrate "$FX/records/one-good.jsonl" --json
grep -q '"params_exact":1' "$OUT" || { echo "FAIL: calibrate summary"; fails=$((fails + 1)); }
expect 3 "workload.batch" -- calibrate "$FX/records/bad-line.jsonl"
expect 3 "line 2" -- calibrate "$FX/records/bad-line.jsonl" --json
expect 5 "cannot open" -- calibrate "$WORK/missing.jsonl"
expect 2 "unknown option" -- calibrate "$FX/records/one-good.jsonl" --frobnicate
# the plans calibrate generates are valid plans for `estimate`
expect 0 "" -- calibrate "$FX/records/one-good.jsonl" --plans
cp "$OUT" "$WORK/generated-plan.json"
expect_stdin 0 "" "$WORK/generated-plan.json" -- estimate --plan - --json

# ---- issue 10: inputs the CLI and the core must refuse or flag ----
S='"schema":"vramplan/plan@1"'
G='{"model":{"preset":"gpt2"}}'
plan() { printf '%s' "$1" >"$WORK/p.json"; }
# the --plan text reaches the core unchanged: trailing text and 1e999 read as the page reads them
plan "{$S,\"workload\":{\"batch\":1,\"seq\":128},\"instances\":[$G]} trailing"
expect 3 "line 1, column" -- estimate --plan "$WORK/p.json"
grep -q "after the end" "$ERR" || { echo "FAIL: trailing text not named"; fails=$((fails + 1)); }
plan "{$S,\"workload\":{\"batch\":1e999,\"seq\":128},\"instances\":[$G]}"
expect 3 "not a finite number" -- estimate --plan "$WORK/p.json"
expect 3 "not a finite number" -- estimate --plan "$WORK/p.json" --seq 64
plan "{$S,
  \"workload\": {\"batch\": 1,, \"seq\": 128},
  \"instances\": [$G]}"
expect 3 "line 2, column 27" -- estimate --plan "$WORK/p.json"
# keys given twice, in the plan and in the files the flags read
plan "{$S,\"workload\":{\"batch\":1,\"seq\":128},\"instances\":[{\"model\":{\"hf_config\":{\"model_type\":\"gpt2\",\"n_embd\":64,\"n_layer\":2,\"n_head\":4,\"n_embd\":128}}}]}"
expect 3 "instances[0].model.hf_config.n_embd" -- estimate --plan "$WORK/p.json"
printf '{"model_type":"llama","hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,\n"num_attention_heads":4,"vocab_size":1000,"vocab_size":2000}' >"$WORK/dup-config.json"
expect 3 "vocab_size is given twice" -- estimate --hf-config "$WORK/dup-config.json"
grep -q "dup-config.json" "$ERR" || { echo "FAIL: the config file is not named"; fails=$((fails + 1)); }
# --hf-config of a diffusers transformer (it names its _class_name): the pipeline's default size (CogVideoX-2b's
# sample_frames 49 at 60 x 90 latents: 17,776 tokens, doubled by CFG), not the LLM default --seq 2048
printf '%s' '{"_class_name":"CogVideoXTransformer3DModel","num_attention_heads":30,"attention_head_dim":64,"num_layers":30,"in_channels":16,"out_channels":16,"patch_size":2,"patch_size_t":null,"sample_frames":49,"sample_height":60,"sample_width":90,"temporal_compression_ratio":4,"max_text_seq_length":226,"text_embed_dim":4096,"time_embed_dim":512,"activation_fn":"gelu-approximate","attention_bias":true,"norm_eps":1e-05,"use_rotary_positional_embeddings":false,"use_learned_positional_embeddings":false}' >"$WORK/cog2b.json"
expect 0 "" -- estimate --hf-config "$WORK/cog2b.json" --mode infer --precision fp16
grep -q "2 × 17776" "$OUT" || { echo "FAIL: --hf-config of a diffusers transformer does not run the pipeline's default size"; fails=$((fails + 1)); }
expect 0 "" -- estimate --hf-config "$WORK/cog2b.json" --mode infer --precision fp16 --seq 4096
grep -q "17776" "$OUT" && { echo "FAIL: --seq given with a diffusers config is not the tokens"; fails=$((fails + 1)); }
sed 's/"total_bytes": 85017493504,/"total_bytes": 85017493504, "total_bytes": 1000,/' "$FX/probes/h100.json" >"$WORK/dup-probe.json"
expect 3 "devices[0].memory.total_bytes" -- estimate --model gpt2 --seq 128 --gpu "$WORK/dup-probe.json"
plan "{$S,\"workload\":{\"batch\":1,\"seq\":128},\"instances\":[{\"name\":\"a\",\"model\":{\"preset\":\"gpt2\"}},{\"name\":\"a\",\"role\":\"reference\",\"model\":{\"preset\":\"gpt2\"}}]}"
expect 3 "instances[1].name" -- estimate --plan "$WORK/p.json"
# text that is not UTF-8, NUL characters and NUL bytes
printf '{%s,"workload":{"batch":1,"seq":128},"instances":[{"name":"a\377\300\257","model":{"preset":"gpt2"}}]}' "$S" >"$WORK/p.json"
expect 3 "instances[0].name is not valid UTF-8" -- estimate --plan "$WORK/p.json" --json
[ -s "$OUT" ] && { echo "FAIL: output for a plan that is not UTF-8"; fails=$((fails + 1)); }
plan "{$S,\"workload\":{\"mode\":\"train\\u0000x\",\"batch\":1,\"seq\":128},\"instances\":[$G]}"
expect 3 "workload.mode" -- estimate --plan "$WORK/p.json"
printf '{%s,"workload":{"batch":1,"seq":128},"instances":[{"model":{"preset":"gpt2"}}]}\000{"x":1}' "$S" >"$WORK/p.json"
expect 3 "NUL byte" -- estimate --plan "$WORK/p.json"
# placement, layout and hardware that contradict each other or do not exist
plan "{$S,\"workload\":{\"batch\":1,\"seq\":128},\"instances\":[$G,{\"name\":\"t\",\"role\":\"teacher\",\"model\":{\"preset\":\"gpt2\"},\"placement\":{\"device\":\"cpu\",\"stream_to\":3}}]}"
expect 3 "instances[1].placement.stream_to" -- estimate --plan "$WORK/p.json"
plan "{$S,\"workload\":{\"batch\":1,\"seq\":128},\"instances\":[$G],\"hardware\":{\"count\":2},\"parallel\":{\"dp\":2,\"fsdp\":\"full_shard\",\"zero\":3}}"
expect 3 "parallel.zero" -- estimate --plan "$WORK/p.json"
plan "{$S,\"workload\":{\"batch\":1,\"seq\":128},\"instances\":[$G],\"hardware\":{\"gpu\":\"a100-sxm-80gb\",\"probe\":$(cat "$FX/probes/h100.json")}}"
expect 3 "hardware.gpu and hardware.probe" -- estimate --plan "$WORK/p.json"
# jobs the real stack refuses: PEFT targets no module has, nothing left to train, past n_positions
expect 3 "instances[0].finetune.lora.targets" -- estimate --model gpt2 --seq 128 --lora 8 --lora-targets q_proj,v_proj
grep -q "not found in the base model" "$ERR" || { echo "FAIL: PEFT's error not quoted"; fails=$((fails + 1)); }
plan "{$S,\"workload\":{\"batch\":1,\"seq\":128},\"instances\":[{\"model\":{\"preset\":\"gpt2\"},\"finetune\":{\"freeze\":[\"embeddings\",\"lm_head\",\"attention\",\"mlp\",\"norms\"]}}]}"
expect 3 "empty parameter list" -- estimate --plan "$WORK/p.json"
expect 3 "workload.seq" -- estimate --model gpt2 --seq 2048
grep -q "1024 positions" "$ERR" || { echo "FAIL: n_positions not named"; fails=$((fails + 1)); }
# MIG: the plan is checked against one instance (39.46 GiB), not the whole 80 GB GPU
expect 0 "" -- estimate --model qwen2.5-0.5b --precision bf16 --batch 13 --seq 1024 --gpu "$FX/probes/h100.json" --check
expect 4 "" -- estimate --model qwen2.5-0.5b --precision bf16 --batch 13 --seq 1024 --gpu "$FX/probes/h100-mig-2x3g40gb.json" --check
grep -q "MIG instance 0" "$OUT" && grep -q "warning: MIG is on" "$OUT" || { echo "FAIL: MIG instance not planned against"; fails=$((fails + 1)); }
# idle GPUs are named in a warning
expect 0 "" -- estimate --model gpt2 --seq 128 --gpus 8
grep -q "warning: 7 of the 8 GPUs stay idle" "$OUT" || { echo "FAIL: no idle-GPU warning"; fails=$((fails + 1)); }
# messages: a number too large for int64 is shown as it was given, 1e308 in 6 digits, exit 5 documented
expect 3 "workload.batch = 1e+20" -- estimate --model gpt2 --batch 99999999999999999999
expect 3 "hardware.count" -- estimate --model gpt2 --gpus 99999999999999999999
plan "{$S,\"workload\":{\"batch\":1e308,\"seq\":128},\"instances\":[$G]}"
expect 3 "workload.batch = 1e+308 is out of range" -- estimate --plan "$WORK/p.json"
[ "$(wc -c <"$ERR")" -lt 200 ] || { echo "FAIL: 1e308 printed in full"; fails=$((fails + 1)); }
expect 0 "" -- estimate --help
grep -q "5 a file cannot be read" "$OUT" || { echo "FAIL: exit status 5 not in estimate --help"; fails=$((fails + 1)); }
# calibrate: non-finite, zero, negative or missing measurements, NUL bytes and "fp32\u0000amp" are
# refused naming the line and field; the good records around them are still compared
R='"model_config":{"model_type":"gpt2","n_embd":768,"n_layer":12,"n_head":12,"vocab_size":50257,"n_positions":2048}'
W='"workload":{"mode":"amp_bf16","batch":8,"seq":1024}'
{
    printf '{"id":"good-1",%s,%s,"measured":{"peak_alloc":14446610944}}\n' "$R" "$W"
    printf '{"id":"inf",%s,%s,"measured":{"peak_alloc":1e999}}\n' "$R" "$W"
    printf '{"id":"zero",%s,%s,"measured":{"peak_alloc":0}}\n' "$R" "$W"
    printf '{"id":"negative",%s,%s,"measured":{"peak_alloc":-5}}\n' "$R" "$W"
    printf '{"id":"nothing-measured",%s,%s}\n' "$R" "$W"
    printf '{"id":"nul-mode",%s,"workload":{"mode":"fp32\\u0000amp","batch":8,"seq":1024},"measured":{"peak_alloc":5}}\n' "$R"
    printf '{"id":"nul-byte",%s,%s,"measured":{"peak_alloc":14446610944}}\000\n' "$R" "$W"
    printf '{"id":"good-2",%s,%s,"measured":{"peak_alloc":14446610944}}\n' "$R" "$W"
} >"$WORK/hostile.jsonl"
expect 3 "line 2 (inf)" -- calibrate "$WORK/hostile.jsonl" --json
for needle in "line 2 (inf): measured.peak_alloc is not a finite number" "line 3 (zero)" "measured.peak_alloc = 0 is out of range" \
    "line 4 (negative)" "line 5 (nothing-measured)" "error at measured]" "line 6 (nul-mode)" "error at workload.mode]" \
    "line 7: a NUL byte"; do
    grep -q -F -e "$needle" "$ERR" || { echo "FAIL: calibrate stderr does not name '$needle'"; fails=$((fails + 1)); }
done
grep -q '"id":"good-2"' "$OUT" && grep -q '"records":2,' "$OUT" && grep -q '"unreadable":6' "$OUT" ||
    { echo "FAIL: calibrate lost the good records after the bad ones"; fails=$((fails + 1)); }
grep -q -i -e 'nan' -e 'inf' "$OUT" && { echo "FAIL: calibrate printed nan/inf"; fails=$((fails + 1)); }

# ---- every --json output is strict UTF-8 JSON, whatever the input ----
if command -v python3 >/dev/null 2>&1; then
    strict_json() { # FILE WHAT: the file must be JSON (one document, or one per line) in strict UTF-8
        python3 -c 'import json,sys
def bad(c): raise ValueError("non-JSON constant " + c)
t = open(sys.argv[1], "rb").read().decode("utf-8")
docs = [t] if sys.argv[2] == "doc" else [l for l in t.split("\n") if l.strip()]
for d in docs: json.loads(d, parse_constant=bad)' "$1" "$2" 2>"$WORK/py.err" ||
            { echo "FAIL: $3: not strict UTF-8 JSON: $(tail -1 "$WORK/py.err")"; fails=$((fails + 1)); }
        n=$((n + 1))
    }
    e2=$(printf '\303\251') # é: 2 bytes, so a cut at an odd byte falls inside it
    long="x"
    i=0
    while [ $i -lt 47 ]; do long="$long$e2"; i=$((i + 1)); done
    name=$(printf 'r\303\251seau-\360\237\230\200-\342\202\254-\\u2028-\\"q\\"-\\\\-\\t')
    sed -e "s/\"NVIDIA H100 80GB HBM3\"/\"$long\"/" -e "s/\"gpu-node-7\"/\"$long$long$long\"/" "$FX/probes/h100.json" >"$WORK/probe-utf8.json"
    plan "{$S,\"name\":\"$long\",\"workload\":{\"batch\":1,\"seq\":512,\"grad_accum\":8},\"instances\":[
        {\"name\":\"x$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2$e2\",\"model\":{\"preset\":\"llama-3.2-1b\"}},
        {\"name\":\"$name\",\"role\":\"reference\",\"model\":{\"preset\":\"llama-3.2-1b\"},\"placement\":{\"device\":\"cpu\",\"stream_to\":1}}],
        \"hardware\":{\"probe\":$(cat "$WORK/probe-utf8.json"),\"count\":2,\"nodes\":4},\"parallel\":{\"pp\":8}}"
    for flags in "--json" "--json --pretty" "--json --gpus 2 --batch 64"; do
        # shellcheck disable=SC2086
        expect 0 "" -- estimate --plan "$WORK/p.json" $flags
        strict_json "$OUT" doc "estimate $flags of names and GPU names cut inside characters"
    done
    grep -q "(rank 7, node 3)" "$OUT" || { echo "FAIL: the hostile plan did not reach another node's rank"; fails=$((fails + 1)); }
    expect 4 "" -- estimate --plan "$WORK/p.json" --json --model llama-3.1-70b --check
    strict_json "$OUT" doc "estimate --json with suggestions"
    expect 0 "" -- estimate --model gpt2 --seq 128 --gpu "$WORK/probe-utf8.json" --gpus 8 --json
    strict_json "$OUT" doc "estimate --json with a probe of long names"
    # records with such ids; calibrate's lines and summary
    { printf '{"id":"%s",%s,%s,"measured":{"peak_alloc":14446610944}}\n' "$long$name" "$R" "$W"; cat "$WORK/hostile.jsonl"; } >"$WORK/ids.jsonl"
    expect 3 "" -- calibrate "$WORK/ids.jsonl" --json
    strict_json "$OUT" lines "calibrate --json"
    expect 0 "" -- calibrate "$FX/records/one-good.jsonl" --plans
    strict_json "$OUT" lines "calibrate --plans"
    expect 0 "" -- gpus --json
    strict_json "$OUT" doc "gpus --json"
else
    echo "skip: python3 not found, the strict UTF-8 JSON checks did not run"
fi

# ---- fit and recommend ----
# GPT-2 learned 1024 positions (n_positions): --max seq stops there, whatever the memory
expect 0 "" -- fit --plan "$P/good-gpt2.json" --max seq --json
grep -q '^{"schema":"vramplan/fit@1","field":"seq","step":1,"value":1024,"limit":1024,' "$OUT" || { echo "FAIL: fit --max seq of GPT-2 is not its 1024 positions"; fails=$((fails + 1)); }
grep -q '"limited_by":"limit"' "$OUT" || { echo "FAIL: fit --max seq of GPT-2: next is not limited_by limit"; fails=$((fails + 1)); }
expect 0 "" -- fit --plan "$P/good-gpt2.json" --max batch
grep -q '^Largest micro-batch that fits: [1-9]' "$OUT" || { echo "FAIL: fit --max batch text"; fails=$((fails + 1)); }
grep -Eq 'does not fit: GPU 0( needs|.s tensors peak at .*caching allocator runs out)' "$OUT" || { echo "FAIL: fit does not say why value + 1 fails"; fails=$((fails + 1)); }
expect 0 "" -- fit --model gpt2 --seq 256 --gpu "$FX/probes/h100.json" --max batch --json
grep -q '"limited_by":"memory"' "$OUT" || { echo "FAIL: fit on a probe file"; fails=$((fails + 1)); }
# --max frames: a video pipeline's counts are 1 + 4k (the VAE's 4x temporal compression); an image model has none
expect 0 "" -- fit --model cogvideox-2b --mode infer --precision fp16 --offload model --vae-tiling --gpu rtx-4090 --max frames
grep -q '^Largest number of video frames that fits: [0-9]*[13579]$' "$OUT" || { echo "FAIL: fit --max frames text"; fails=$((fails + 1)); }
grep -q 'counts of 1 + 4 k frames' "$OUT" || { echo "FAIL: fit --max frames does not say its step"; fails=$((fails + 1)); }
expect 3 "workload.frames" -- fit --model flux.1-dev --mode infer --max frames
expect 4 "" -- fit --plan "$P/nofit-70b-full.json" --max batch --json
grep -q '"value":0,' "$OUT" || { echo "FAIL: fit of a plan that never fits is not 0"; fails=$((fails + 1)); }
grep -q '"estimate":null' "$OUT" || { echo "FAIL: fit value 0 has an estimate"; fails=$((fails + 1)); }
expect 3 "workload.new_tokens" -- fit --plan "$P/good-gpt2.json" --max new-tokens
expect 3 "workload.batch" -- fit --model gpt2 --seq 128 --batch 0 --max seq
expect 2 "--max" -- fit --plan "$P/good-gpt2.json" --max microbatch
expect 2 "--max" -- fit --plan "$P/good-gpt2.json"
expect 2 "--max" -- fit --plan "$P/good-gpt2.json" --max
expect 2 "unknown option" -- fit --plan "$P/good-gpt2.json" --max batch --bogus
expect 0 "" -- recommend --plan "$P/good-gpt2.json" --global-batch 8 --gpu rtx-4090
grep -q '^    per_device_train_batch_size=[1-8],$' "$OUT" || { echo "FAIL: recommend prints no TrainingArguments"; fails=$((fails + 1)); }
grep -q 'PYTORCH_CUDA_ALLOC_CONF' "$OUT" || { echo "FAIL: recommend prints no PYTORCH_CUDA_ALLOC_CONF line"; fails=$((fails + 1)); }
expect 0 "" -- estimate --plan "$P/good-gpt2.json" --recommend --top 3 --json
grep -q '^{"schema":"vramplan/recommend@1","global_batch":2,' "$OUT" || { echo "FAIL: estimate --recommend JSON (global batch 2 × 1 × 1)"; fails=$((fails + 1)); }
expect 4 "" -- recommend --plan "$P/nofit-70b-full.json"
expect 3 "workload.mode" -- recommend --model gpt2 --mode infer --seq 128
expect 2 "--global-batch" -- recommend --plan "$P/good-gpt2.json" --global-batch 0
expect 2 "--top" -- recommend --plan "$P/good-gpt2.json" --top x

echo "$n CLI checks, $fails failed"
rm -rf "$WORK"
[ "$fails" = 0 ]
