#!/usr/bin/env bash
# Build the vramplan core as WebAssembly: build/wasm/vramplan.mjs + build/wasm/vramplan.wasm.
#
# Every emcc flag lives in this file; the exported C functions are listed in
# wasm/exported_functions.json. Needs Debian 12's emscripten (apt-get install emscripten).
# cJSON is compiled from Debian's source package (the same version as the native
# libcjson-dev when that is installed), fetched once into build/wasm/deps/.
#
#   wasm/build.sh            build (idempotent: fetches cJSON only when missing)
#   VP_WASM_DEBUG=1 wasm/build.sh   -O0 -g with assertions, for debugging
#   VP_WASM_OUT=/tmp/w VP_WASM_EXTRA=--profiling-funcs wasm/build.sh   keep function names (to see what the bytes are)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${VP_WASM_OUT:-$ROOT/build/wasm}"
DEPS="$OUT/deps"
mkdir -p "$OUT" "$DEPS"

log() { printf 'wasm/build.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

command -v emcc >/dev/null || die "emcc not found (apt-get install emscripten)"
# Debian's emscripten runs its JS optimizer with the system node and needs its modules.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"

# ---- cJSON from Debian's source package ------------------------------------------------
fetch_cjson() {
  local have native stamp
  native="$(dpkg-query -W -f '${Version}' libcjson-dev 2>/dev/null || true)"
  stamp="$(cat "$DEPS/cjson.fetched" 2>/dev/null || true)"
  have="$(find "$DEPS" -maxdepth 2 -name cJSON.c -path '*cjson-*' 2>/dev/null | head -n1)"
  if [ -n "$have" ] && { [ -z "$native" ] || [ "$stamp" = "cjson=$native" ]; }; then
    echo "$(dirname "$have")"
    return
  fi
  # none yet, or the native libcjson-dev moved to another version: fetch (again)
  find "$DEPS" -mindepth 1 -maxdepth 1 -name 'cjson*' -exec rm -rf {} +
  command -v apt-get >/dev/null || die "apt-get not found: put cJSON's source (cJSON.c, cJSON.h) in $DEPS/cjson-src/"
  command -v dpkg-source >/dev/null || apt-get install -y -qq dpkg-dev >&2
  # A deb-src entry copied from the mirrors this machine already uses.
  if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
        > /etc/apt/sources.list.d/vramplan-deb-src.sources
    elif [ -f /etc/apt/sources.list ]; then
      grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
        > /etc/apt/sources.list.d/vramplan-deb-src.list
    else
      echo 'deb-src http://deb.debian.org/debian bookworm main' \
        > /etc/apt/sources.list.d/vramplan-deb-src.list
    fi
    log "added a deb-src entry; apt-get update"
    apt-get update -qq >&2
  fi
  # Same version as the native build's libcjson-dev, so both print numbers the same way.
  local want=()
  [ -n "$native" ] && want+=("cjson=$native")
  want+=("cjson")
  local try w
  for try in 1 2; do
    for w in "${want[@]}"; do
      log "apt-get source $w"
      if (cd "$DEPS" && apt-get source -qq "$w" >&2); then
        [ "$w" = cjson ] && [ -n "$native" ] && log "warning: cJSON $native source not found; WASM may print numbers unlike the native build"
        echo "$w" > "$DEPS/cjson.fetched"
        break 2
      fi
    done
    [ "$try" = 1 ] || die "apt-get source cjson failed (is there a deb-src entry?)"
    log "apt-get update, then again"
    apt-get update -qq >&2
  done
  have="$(find "$DEPS" -maxdepth 2 -name cJSON.c -path '*cjson-*' | head -n1)"
  [ -n "$have" ] || die "cJSON.c not found after apt-get source"
  echo "$(dirname "$have")"
}

if [ -f "$DEPS/cjson-src/cJSON.c" ]; then
  CJSON_DIR="$DEPS/cjson-src"
else
  CJSON_DIR="$(fetch_cjson)"
fi
# The core may include <cjson/cJSON.h> or "cJSON.h": offer both.
mkdir -p "$DEPS/include/cjson"
cp -f "$CJSON_DIR/cJSON.h" "$DEPS/include/cjson/cJSON.h"

# ---- sources --------------------------------------------------------------------------
shopt -s nullglob
CORE_SRC=("$ROOT"/core/src/*.c "$ROOT"/core/src/families/*.c)
shopt -u nullglob
[ "${#CORE_SRC[@]}" -gt 0 ] || die "no core/src/*.c yet"

# Builtin presets: models/ embedded as a C string by the same generator the native build
# runs (core/CMakeLists.txt -> cmake/embed_presets.cmake), so native and WASM agree.
command -v cmake >/dev/null || die "cmake not found (it runs cmake/embed_presets.cmake)"
cmake -DMODELS_DIR="$ROOT/models" -DOUT="$OUT/presets_bundle.c" -P "$ROOT/cmake/embed_presets.cmake"
GEN_SRC=("$OUT/presets_bundle.c")

# ---- flags (the one place) ------------------------------------------------------------
if [ "${VP_WASM_DEBUG:-0}" = 1 ]; then
  OPT=(-O0 -g -sASSERTIONS=2)
else
  # -O2, not -Os: the allocator replay runs two to three times faster (recommend over 12,960 setups ~80 ms
  # instead of ~140 ms in Node), for about 15 KB more gzip
  OPT=(-O2)
fi
CFLAGS=(-std=c11 -Wall -Wextra
        -I"$ROOT/core/include" -I"$ROOT/core/src" -I"$DEPS/include" -I"$DEPS/include/cjson"
        -I"$OUT")
# emmalloc, not dlmalloc: about 2.5 KB less gzip; tests/web/bench.mjs gives the same estimate, recommend and worker
# timings (within their run-to-run spread): the core allocates its event lists and replay tables in few, growing blocks
LDFLAGS=(-sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createVramplan
         -sENVIRONMENT=web,worker
         -sFILESYSTEM=0 -sALLOW_MEMORY_GROWTH=1 -sMALLOC=emmalloc
         -sEXPORTED_FUNCTIONS=@"$ROOT/wasm/exported_functions.json"
         "-sEXPORTED_RUNTIME_METHODS=['UTF8ToString','stringToUTF8','lengthBytesUTF8']")

# Sources that run once per request or once per instance of an estimate (reading plans, configs and presets, writing
# JSON, the shape and VAE formulas, the serving engines' readers, the planners' own loops around the estimates they
# call, the VAE decodes' event programs, which run once per diffusion estimate) are compiled for size (-Os); the
# moments, the training and inference event programs and the allocator replay, which an estimate spends its time in,
# keep -O2: tests/web/bench.mjs gives the same
# re-estimate and multi-model timings either way (within their run-to-run spread of about 20%). The split keeps the
# page under its byte budget (web/build.sh): about 4.7 KB less gzip.
COLD_RE='/(diffusers_config|diffusion_plan|errors|estimate_json|gguf_types|hf_config|json_read|json_text|plan_fit_json|plan_json|plan_parse|plan_recommend_json|plan_serve_parse|quant_config|record|registry|registry_pipeline|serve|serve_estimate|serve_json|serve_kv_spec|serve_launch|serve_llamacpp|serve_model|serve_sglang|serve_vllm|vae|vae_config|vae_ltx|vae_mochi|vae_wan|dit_params|text_encoder|pipeline_expand|plan_edit|gpu|lora_targets|vlm_images|plan_suggest|plan_fit|plan_recommend|plan_search|plan_sweep|plan_device|plan_parallel_precision|activations|activations_common|activations_decoder|activations_dit|activations_gpt2|activations_megatron|activations_moe|activations_ssm|activations_t5|activations_vit|diffusion_workload|fsdp_shard|functional_copy|logits|lora|optimizer|params|precision|quant_weights|sharding|sharding_fsdp|ssm_state|weights|precompute|alloc_conf|plan_serve|events_vae_kl|events_vae_cogvideox|events_vae_wan|events_hunyuan|events_cogvideox|events_diffusion|timeline_diffusion)[.]c$|/families/'
HOT_SRC=()
COLD_SRC=("${GEN_SRC[@]}" "$CJSON_DIR/cJSON.c" "$ROOT/wasm/vp_wasm.c")
for f in "${CORE_SRC[@]}"; do
  if [[ "$f" =~ $COLD_RE ]] && [ "${VP_WASM_DEBUG:-0}" != 1 ]; then COLD_SRC+=("$f"); else HOT_SRC+=("$f"); fi
done
COLD_OPT=("${OPT[@]}")
[ "${VP_WASM_DEBUG:-0}" = 1 ] || COLD_OPT=(-Os)
OBJ="$OUT/obj-cold"
# emcc -c names each object after its source's basename: two sources of one name would overwrite each other
dups="$(for f in "${COLD_SRC[@]}"; do basename "$f"; done | sort | uniq -d)"
[ -z "$dups" ] || die "sources compiled together share a name: $dups"
rm -rf "$OBJ"
mkdir -p "$OBJ"
log "emcc ${COLD_OPT[*]} -c (${#COLD_SRC[@]} sources read once per request)"
(cd "$OBJ" && emcc "${COLD_OPT[@]}" "${CFLAGS[@]}" -c "${COLD_SRC[@]}")
log "emcc ${OPT[*]} (${#HOT_SRC[@]} core sources) + the objects above"
emcc "${OPT[@]}" "${CFLAGS[@]}" \
  "${HOT_SRC[@]}" "$OBJ"/*.o \
  "${LDFLAGS[@]}" ${VP_WASM_EXTRA:-} -o "$OUT/vramplan.mjs"

log "built $OUT/vramplan.mjs ($(wc -c <"$OUT/vramplan.mjs") B) and vramplan.wasm ($(wc -c <"$OUT/vramplan.wasm") B)"
