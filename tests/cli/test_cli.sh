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
expect 4 "" -- estimate --plan "$P/nofit-70b-full.json" --check
expect 0 "" -- models
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

# ---- fit and recommend ----
# GPT-2 learned 1024 positions (n_positions): --max seq stops there, whatever the memory
expect 0 "" -- fit --plan "$P/good-gpt2.json" --max seq --json
grep -q '^{"schema":"vramplan/fit@1","field":"seq","value":1024,"limit":1024,' "$OUT" || { echo "FAIL: fit --max seq of GPT-2 is not its 1024 positions"; fails=$((fails + 1)); }
grep -q '"limited_by":"limit"' "$OUT" || { echo "FAIL: fit --max seq of GPT-2: next is not limited_by limit"; fails=$((fails + 1)); }
expect 0 "" -- fit --plan "$P/good-gpt2.json" --max batch
grep -q '^Largest micro-batch that fits: [1-9]' "$OUT" || { echo "FAIL: fit --max batch text"; fails=$((fails + 1)); }
grep -q 'does not fit: GPU 0 needs' "$OUT" || { echo "FAIL: fit does not say why value + 1 fails"; fails=$((fails + 1)); }
expect 0 "" -- fit --model gpt2 --seq 256 --gpu "$FX/probes/h100.json" --max batch --json
grep -q '"limited_by":"memory"' "$OUT" || { echo "FAIL: fit on a probe file"; fails=$((fails + 1)); }
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
