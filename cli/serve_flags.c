/* serve_flags.c: the serving flags of `vramplan estimate` (issue 15), with the engines' own names:
 * --mode serve --engine vllm|sglang|llamacpp --tp N --pp N --max-model-len N
 * --gpu-memory-utilization F --mem-fraction-static F --kv-dtype auto|fp8|... --max-num-seqs N
 * --max-num-batched-tokens N --quant fp8|awq|gptq|mxfp4|Q4_K_M|... --ctx-size N --n-gpu-layers N
 * --cache-type-k T --cache-type-v T (and --block-size, --dtype, --enforce-eager,
 * --enable-prefix-caching, --n-batch, --n-ubatch, --n-parallel, --flash-attn).
 * Each writes the plan field of the same name (docs/schema/plan.md, "Serving"); the core checks it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_print_serve_flags(FILE *f) {
    fprintf(f,
            "  serving (--mode serve; docs/schema/plan.md \"Serving\"):\n"
            "  --engine E           vllm | sglang | llamacpp\n"
            "  --tp N / --pp N      tensor / pipeline parallel size\n"
            "  --max-model-len N    vllm --max-model-len, sglang --context-length\n"
            "  --gpu-memory-utilization F   vllm (default 0.9)\n"
            "  --mem-fraction-static F      sglang (default by TP size)\n"
            "  --kv-dtype D         auto | fp8 | fp8_e4m3 | fp8_e5m2 | bfloat16 | float16\n"
            "  --max-num-seqs N     --max-num-batched-tokens N   --block-size N   --dtype D\n"
            "  --enforce-eager      --enable-prefix-caching\n"
            "  --quant Q            fp8 | w8a8 | gptq | awq | w4a16 | mxfp4 | Q4_K_M | Q8_0 | IQ4_XS ... (a checkpoint's\n"
            "                       own quantization_config is read from config.json)\n"
            "  --ctx-size N  --n-gpu-layers N  --n-batch N  --n-ubatch N  --n-parallel N  --flash-attn\n"
            "  --cache-type-k T  --cache-type-v T   llama.cpp: f16 | q8_0 | q4_0 | ...\n"
            "  --context-len N      also report the concurrency at N tokens\n"
            "  --target-concurrency F   requests of max_model_len the fewest-GPUs answer must hold (default 1)\n");
}

static cJSON *child(cJSON *parent, const char *key) {
    cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!o) o = cJSON_AddObjectToObject(parent, key);
    return o;
}

static void put(cJSON *o, const char *k, cJSON *v) {
    cJSON_DeleteItemFromObjectCaseSensitive(o, k);
    cJSON_AddItemToObject(o, k, v);
}

static int number(const char *cmd, const char *flag, const char *s, double *out) {
    char *end = NULL;
    errno = 0;
    double x = strtod(s, &end);
    if (!s[0] || *end || !isfinite(x) || x < -1) {
        fprintf(stderr, "vramplan %s: %s needs a number, got '%s'\n", cmd, flag, s);
        return 0;
    }
    *out = x;
    return 1;
}

int cli_serve_flag(const char *cmd, cJSON *plan, const char *a, const char *v, int *rc) {
    static const char *const nums[][2] = {
        {"--max-model-len", "max_model_len"}, {"--gpu-memory-utilization", "gpu_memory_utilization"},
        {"--mem-fraction-static", "mem_fraction_static"}, {"--max-num-seqs", "max_num_seqs"},
        {"--max-num-batched-tokens", "max_num_batched_tokens"}, {"--ctx-size", "ctx_size"},
        {"--n-gpu-layers", "n_gpu_layers"}, {"-ngl", "n_gpu_layers"}, {"--block-size", "block_size"},
        {"--n-batch", "n_batch"}, {"--n-ubatch", "n_ubatch"}, {"--n-parallel", "n_parallel"},
        {"--context-len", "context_len"}, {"--target-concurrency", "target_concurrency"}};
    static const char *const strs[][2] = {{"--engine", "engine"},           {"--kv-dtype", "kv_cache_dtype"},
                                          {"--kv-cache-dtype", "kv_cache_dtype"}, {"--quant", "quantization"},
                                          {"--quantization", "quantization"}, {"--cache-type-k", "cache_type_k"},
                                          {"--cache-type-v", "cache_type_v"}, {"--dtype", "dtype"}};
    static const char *const bools[][2] = {{"--enforce-eager", "enforce_eager"},
                                           {"--enable-prefix-caching", "enable_prefix_caching"},
                                           {"--flash-attn", "flash_attn"}};
    cJSON *wl = child(plan, "workload");
    for (size_t k = 0; k < sizeof bools / sizeof bools[0]; k++)
        if (!strcmp(a, bools[k][0])) {
            put(wl, bools[k][1], cJSON_CreateTrue());
            return 1;
        }
    int is_par = !strcmp(a, "--tp") || !strcmp(a, "--pp");
    const char *key = NULL;
    int isnum = 0;
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
        if (!strcmp(a, nums[k][0])) key = nums[k][1], isnum = 1;
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
        if (!strcmp(a, strs[k][0])) key = strs[k][1];
    if (!key && !is_par) return 0;
    if (!v) {
        fprintf(stderr, "vramplan %s: %s needs a value\n", cmd, a);
        *rc = EXIT_USAGE;
        return -1;
    }
    if (is_par || isnum) {
        double x;
        if (!number(cmd, a, v, &x)) {
            *rc = EXIT_USAGE;
            return -1;
        }
        if (is_par) put(child(plan, "parallel"), a + 2, cJSON_CreateNumber(x));
        else put(wl, key, cJSON_CreateNumber(x));
    } else {
        put(wl, key, cJSON_CreateString(v));
    }
    return 2;
}
