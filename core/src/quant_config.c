/* quant_config.c: a checkpoint's quantization_config (config.json), read as it is, or an engine's
 * --quantization name -> how its linear weights are stored (vp_wquant).
 * Field names: vllm/model_executor/layers/quantization/{fp8,gptq,awq,mxfp4}.py and
 * compressed_tensors/compressed_tensors.py (config_groups.*.weights: num_bits, type, strategy,
 * group_size, symmetric, actorder; input_activations.dynamic). */
#include <stdio.h>
#include <string.h>

#include "gguf_types.h"
#include "serve.h"
#include "util.h"

static void set_name(vp_wquant *q, const char *s) { vp_strlcpy(q->name, s, sizeof q->name); }

static vp_status read_ct_weights(const cJSON *w, const char *p, vp_wquant *q, vp_error *err) {
    vp_status st;
    int64_t bits = 8, group = -1;
    char type[16] = "int", strat[16] = "tensor";
    int sym = 1;
    if ((st = vp_json_opt_int(w, p, "num_bits", 1, 32, &bits, err))) return st;
    if ((st = vp_json_opt_str(w, p, "type", type, sizeof type, err))) return st;
    if ((st = vp_json_opt_str(w, p, "strategy", strat, sizeof strat, err))) return st;
    if ((st = vp_json_opt_int(w, p, "group_size", -1, 1 << 20, &group, err))) return st;
    if ((st = vp_json_opt_bool(w, p, "symmetric", &sym, err))) return st;
    const cJSON *ao = cJSON_GetObjectItemCaseSensitive(w, "actorder");
    q->act_order = cJSON_IsTrue(ao) || (cJSON_IsString(ao) && !strcmp(ao->valuestring, "group"));
    if (bits == 8 && !strcmp(type, "float")) {
        q->method = VP_WQ_FP8;
        q->fp8_scale = !strcmp(strat, "channel") ? VP_FP8_PER_CHANNEL
                       : !strcmp(strat, "block") ? VP_FP8_BLOCK : VP_FP8_PER_TENSOR;
        q->block_n = q->block_k = 128;
    } else if (bits == 8) {
        q->method = VP_WQ_INT8; /* CompressedTensorsW8A8Int8: channel-wise fp32 scales */
        q->fp8_scale = !strcmp(strat, "channel") ? VP_FP8_PER_CHANNEL : VP_FP8_PER_TENSOR;
    } else if (bits == 4 && !strcmp(type, "float")) {
        q->method = VP_WQ_MXFP4; /* nvfp4 / mxfp4 style: 4-bit floats with a scale per small block */
        q->group_size = group > 0 ? group : 16;
    } else if (bits == 4) {
        q->method = VP_WQ_INT4; /* CompressedTensorsWNA16: pack-quantized, Marlin kernels on sm80+ */
        q->group_size = !strcmp(strat, "channel") ? -1 : group;
        q->zero_point = !sym;
        q->marlin = 1;
    } else {
        return vp_fail(err, VP_ERR_UNSUPPORTED, p, "%s: %lld-bit %s weights are not modelled (8-bit int/float, 4-bit int)",
                       p, (long long)bits, type);
    }
    q->bits = (int)bits;
    return VP_OK;
}

vp_status vp_wquant_from_config(const cJSON *qc, const char *p, vp_wquant *q, vp_error *err) {
    memset(q, 0, sizeof *q);
    if (!cJSON_IsObject(qc)) return vp_fail(err, VP_ERR_FIELD, p, "%s must be an object", p);
    vp_status st;
    char method[32] = "";
    if ((st = vp_json_opt_str(qc, p, "quant_method", method, sizeof method, err))) return st;
    set_name(q, method);
    if (!strcmp(method, "fp8") || !strcmp(method, "fbgemm_fp8")) {
        q->method = VP_WQ_FP8;
        q->bits = 8;
        q->fp8_scale = !strcmp(method, "fbgemm_fp8") ? VP_FP8_PER_CHANNEL : VP_FP8_PER_TENSOR;
        const cJSON *bs = cJSON_GetObjectItemCaseSensitive(qc, "weight_block_size");
        if (cJSON_IsArray(bs) && cJSON_GetArraySize(bs) == 2) {
            const cJSON *a = cJSON_GetArrayItem(bs, 0), *b = cJSON_GetArrayItem(bs, 1);
            if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) || a->valuedouble < 1 || b->valuedouble < 1 ||
                a->valuedouble > 65536 || b->valuedouble > 65536) {
                char path[160];
                vp_path_key(path, sizeof path, p, "weight_block_size");
                return vp_fail(err, VP_ERR_RANGE, path, "%s must be two positive integers", path);
            }
            q->fp8_scale = VP_FP8_BLOCK; /* DeepSeek-V3 style [128, 128] blocks, fp32 weight_scale_inv */
            q->block_n = (int64_t)a->valuedouble;
            q->block_k = (int64_t)b->valuedouble;
        }
        char scheme[16] = "dynamic";
        if ((st = vp_json_opt_str(qc, p, "activation_scheme", scheme, sizeof scheme, err))) return st;
        q->static_input_scale = !strcmp(scheme, "static");
        return VP_OK;
    }
    if (!strcmp(method, "gptq") || !strcmp(method, "awq") || !strcmp(method, "gptq_marlin") ||
        !strcmp(method, "awq_marlin")) {
        int awq = !strncmp(method, "awq", 3);
        int64_t bits = 4, group = 128;
        if ((st = vp_json_opt_int(qc, p, "bits", 2, 8, &bits, err))) return st;
        if ((st = vp_json_opt_int(qc, p, "w_bit", 2, 8, &bits, err))) return st;
        if ((st = vp_json_opt_int(qc, p, "group_size", -1, 1 << 20, &group, err))) return st;
        if ((st = vp_json_opt_int(qc, p, "q_group_size", -1, 1 << 20, &group, err))) return st;
        int sym = 1, desc = 0, zp = awq;
        if ((st = vp_json_opt_bool(qc, p, "sym", &sym, err))) return st;
        if ((st = vp_json_opt_bool(qc, p, "desc_act", &desc, err))) return st;
        if ((st = vp_json_opt_bool(qc, p, "zero_point", &zp, err))) return st;
        q->method = bits == 8 ? VP_WQ_INT8 : VP_WQ_INT4;
        q->bits = (int)bits;
        q->group_size = group == 0 ? -1 : group;
        /* GPTQ checkpoints always store qzeros (even symmetric ones); gptq_marlin drops them for sym */
        q->zero_point = awq ? zp : !sym;
        q->act_order = desc;
        q->marlin = 1; /* vLLM picks gptq_marlin / awq_marlin on sm80+ (gptq_marlin.py is_gptq_marlin_compatible) */
        return VP_OK;
    }
    if (!strcmp(method, "mxfp4")) {
        q->method = VP_WQ_MXFP4; /* gpt-oss: MoE experts in MXFP4, everything else bf16 (mxfp4.py Mxfp4Config) */
        q->bits = 4;
        q->group_size = 32;
        q->experts_only = 1;
        return VP_OK;
    }
    if (!strcmp(method, "compressed-tensors")) {
        const cJSON *groups = cJSON_GetObjectItemCaseSensitive(qc, "config_groups");
        const cJSON *g = cJSON_IsObject(groups) ? groups->child : NULL;
        if (!g) {
            char path[160];
            vp_path_key(path, sizeof path, p, "config_groups");
            return vp_fail(err, VP_ERR_FIELD, path, "missing required field %s", path);
        }
        char gp[200];
        snprintf(gp, sizeof gp, "%s.config_groups.%s.weights", p, g->string ? g->string : "?");
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(g, "weights");
        if (!cJSON_IsObject(w)) return vp_fail(err, VP_ERR_FIELD, gp, "missing required field %s", gp);
        if ((st = read_ct_weights(w, gp, q, err))) return st;
        const cJSON *ia = cJSON_GetObjectItemCaseSensitive(g, "input_activations");
        if (cJSON_IsObject(ia)) {
            const cJSON *dyn = cJSON_GetObjectItemCaseSensitive(ia, "dynamic");
            q->static_input_scale = cJSON_IsFalse(dyn);
        }
        set_name(q, "compressed-tensors");
        return VP_OK;
    }
    if (!strcmp(method, "modelopt")) {
        char algo[24] = "FP8";
        if ((st = vp_json_opt_str(qc, p, "quant_algo", algo, sizeof algo, err))) return st;
        q->bits = !strcmp(algo, "NVFP4") ? 4 : 8;
        q->method = q->bits == 4 ? VP_WQ_MXFP4 : VP_WQ_FP8;
        q->group_size = 16;
        q->static_input_scale = 1;
        return VP_OK;
    }
    char path[160];
    vp_path_key(path, sizeof path, p, "quant_method");
    char shown[40];
    vp_strlcpy(shown, method, sizeof shown);
    return vp_fail(err, VP_ERR_UNSUPPORTED, path,
                   "%s \"%s\" is not modelled (fp8, fbgemm_fp8, gptq, awq, mxfp4, compressed-tensors, modelopt)", path,
                   shown);
}

vp_status vp_wquant_from_name(const char *name, vp_wquant *q, vp_error *err) {
    memset(q, 0, sizeof *q);
    if (!name || !name[0] || !strcmp(name, "none") || !strcmp(name, "auto")) return VP_OK;
    set_name(q, name);
    if (!strcmp(name, "fp8")) {
        /* vllm --quantization fp8 on a bf16 checkpoint: online per-tensor fp8 (fp8.py Fp8LinearMethod) */
        q->method = VP_WQ_FP8;
        q->bits = 8;
        q->fp8_scale = VP_FP8_PER_TENSOR;
        return VP_OK;
    }
    if (!strcmp(name, "gptq") || !strcmp(name, "awq") || !strcmp(name, "gptq_marlin") || !strcmp(name, "awq_marlin") ||
        !strcmp(name, "w4a16")) {
        q->method = VP_WQ_INT4;
        q->bits = 4;
        q->group_size = 128;
        q->zero_point = !strncmp(name, "awq", 3);
        q->marlin = 1;
        return VP_OK;
    }
    if (!strcmp(name, "w8a8") || !strcmp(name, "int8")) {
        q->method = VP_WQ_INT8;
        q->bits = 8;
        q->fp8_scale = VP_FP8_PER_CHANNEL;
        return VP_OK;
    }
    if (!strcmp(name, "mxfp4")) {
        q->method = VP_WQ_MXFP4;
        q->bits = 4;
        q->group_size = 32;
        q->experts_only = 1;
        return VP_OK;
    }
    if (!strncmp(name, "gguf:", 5)) {
        int ft = vp_gguf_ftype_from_name(name + 5);
        if (ft < 0)
            return vp_fail(err, VP_ERR_UNSUPPORTED, "quant",
                           "quant \"%.40s\": unknown GGUF file type (Q4_K_M, Q5_K_M, Q6_K, Q8_0, Q4_0, IQ4_XS, F16, BF16 ...)",
                           name);
        q->method = VP_WQ_GGUF;
        q->gguf_ftype = ft;
        return VP_OK;
    }
    return vp_fail(err, VP_ERR_UNSUPPORTED, "quant",
                   "quant \"%.40s\" is not modelled (none, fp8, w8a8, gptq, awq, w4a16, mxfp4, gguf:<type>)", name);
}
