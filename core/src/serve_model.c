/* serve_model.c: a Hugging Face config.json -> the shapes a serving engine allocates for
 * (vp_serve_model). The config is read once, by the family readers (hf_config.c vp_arch_from_hf ->
 * families/<name>.c, the same vp_arch the training and inference estimates use); this file maps that
 * vp_arch onto what vLLM, SGLang and llama.cpp build: per-layer attention kinds (layer maps of
 * families/layer_map.c), MoE layers, MLA latent dims, rotary caches (families/rope.c). The only config
 * fields read here change no shape: torch_dtype / dtype (the stored element size) and
 * quantization_config (quant_config.c). Configs the engines do not serve as generating decoders
 * (encoders, encoder-decoders, diffusion components, state-space models) are refused, naming the
 * model_type or class. */
#include <string.h>

#include "arch.h"
#include "serve.h"
#include "util.h"

static int dtype_bytes_of(const char *s) {
    if (!strcmp(s, "float32") || !strcmp(s, "fp32")) return 4;
    return 2; /* bfloat16, float16 */
}

/* The class a config names (architectures[0]), "" if none. */
static const char *class_of(const cJSON *root) {
    const cJSON *ar = cJSON_GetObjectItemCaseSensitive(root, "architectures");
    const cJSON *a0 = cJSON_IsArray(ar) ? cJSON_GetArrayItem(ar, 0) : NULL;
    return cJSON_IsString(a0) && a0->valuestring ? a0->valuestring : "";
}

/* vLLM / SGLang / llama.cpp serve generating decoders with a KV cache; refuse the rest by name. */
static vp_status servable(const cJSON *root, const char *p, const vp_arch *a, vp_error *err) {
    char path[160];
    if (a->dclass) {
        const cJSON *cn = cJSON_GetObjectItemCaseSensitive(root, "_class_name");
        int dif = cJSON_IsString(cn) && cn->valuestring;
        vp_path_key(path, sizeof path, p, dif ? "_class_name" : "architectures");
        return vp_fail(err, VP_ERR_UNSUPPORTED, path,
                       "%s \"%.64s\" is a diffusion pipeline component: vLLM, SGLang and llama.cpp serve language "
                       "models (estimate the pipeline with workload.mode \"infer\")",
                       path, dif ? cn->valuestring : class_of(root));
    }
    vp_path_key(path, sizeof path, p, "model_type");
    if (a->ssm)
        /* i13b: the engines keep a Mamba state cache beside (or instead of) the paged KV cache; not
         * modelled here (training / generate: ssm_state.c) */
        return vp_fail(err, VP_ERR_UNSUPPORTED, path,
                       "%s: serving estimates for the state-space model_type \"%s\" are not modelled yet (train and "
                       "infer modes are)", path, a->model_type);
    const char *why = a->kind == VP_KIND_T5    ? "an encoder-decoder"
                      : a->kind == VP_KIND_VIT ? "an image encoder"
                      : a->kind == VP_KIND_DIT ? "a diffusion transformer"
                      : a->encoder_only        ? "a bidirectional encoder (no KV cache)"
                      : (!strcmp(a->model_type, "clip") || !strcmp(a->model_type, "siglip"))
                          ? "a contrastive image-text encoder"
                          : NULL;
    if (why)
        return vp_fail(err, VP_ERR_UNSUPPORTED, path,
                       "%s \"%s\" (%.64s) is %s: the serving estimates cover decoder language models (vLLM, SGLang, "
                       "llama.cpp); use workload.mode \"infer\"",
                       path, a->model_type, class_of(root)[0] ? class_of(root) : "no architectures", why);
    if (a->layers > VP_SERVE_MAX_LAYERS)
        return vp_fail(err, VP_ERR_RANGE, path, "%s: %lld layers; the serving estimates plan at most %d", path,
                       (long long)a->layers, VP_SERVE_MAX_LAYERS);
    return VP_OK;
}

/* Layer i's KV-cache spec (vllm/v1/kv_cache_interface.py): MLA latent, sliding window, chunked local
 * attention or full, from the family's layer maps. */
static vp_layer_attn layer_attn(const vp_arch *a, int64_t i) {
    if (a->mla_kv_rank) return VP_LAYER_MLA;
    if (a->sliding_window > 0 && vp_layer_map_has(&a->sliding_map, i)) return VP_LAYER_SLIDING;
    if (a->chunk_size > 0 && vp_layer_map_has(&a->chunked_map, i)) return VP_LAYER_CHUNKED;
    return VP_LAYER_FULL;
}

/* Rows of the rotary cos/sin caches (vllm/model_executor/layers/rotary_embedding): LinearScaling /
 * DynamicNTKScaling caches hold max_position_embeddings × factor rows, YaRN (and DeepseekScaling)
 * original_max_position × factor; llama3 and default RoPE max_position_embeddings. Gemma 3 has a second,
 * unscaled cache for its sliding layers (rope_local_base_freq). */
static int64_t rope_rows(const vp_arch *a, int64_t max_positions) {
    double factor = 1.0;
    int64_t base = max_positions;
    if (a->rope_type == VP_ROPE_LINEAR || a->rope_type == VP_ROPE_DYNAMIC) factor = a->rope_factor;
    if (a->rope_type == VP_ROPE_YARN) {
        factor = a->rope_factor;
        if (a->rope_orig_positions > 0) base = a->rope_orig_positions;
    }
    int64_t rows = (int64_t)((double)base * (factor > 1.0 ? factor : 1.0));
    return a->rope_local ? rows + max_positions : rows;
}

/* vp_arch -> the serving shapes. */
static void from_arch(const vp_arch *a, vp_serve_model *m) {
    vp_strlcpy(m->model_type, a->model_type, sizeof m->model_type);
    m->hidden = a->hidden;
    m->layers = a->layers;
    m->heads = a->heads;
    m->vocab = a->vocab;
    m->inter = a->inter; /* dense layers (llama4: intermediate_size_mlp; qwen v1: intermediate_size / 2) */
    m->kv_heads = a->kv_heads;
    m->head_dim = a->head_dim;
    m->v_head_dim = a->head_dim;
    if (a->mla_kv_rank) { /* DeepseekV2MLAAttention: q/k heads of nope + rope, v of v_head_dim, every head */
        m->q_lora_rank = a->mla_q_rank;
        m->kv_lora_rank = a->mla_kv_rank;
        m->qk_nope_dim = a->mla_nope_dim;
        m->qk_rope_dim = a->mla_rope_dim;
        m->v_head_dim = a->mla_v_dim;
        m->head_dim = a->mla_nope_dim + a->mla_rope_dim;
        m->kv_heads = a->heads;
    }
    m->tie = a->tie;
    m->qkv_bias = a->qkv_bias;
    m->o_bias = a->o_bias;
    m->mlp_bias = a->mlp_bias;
    m->qk_norm = a->qk_norm;
    m->qk_norm_full = a->qk_norm_full;
    m->attn_sinks = a->attn_sinks;
    m->gated_mlp = a->mlp != VP_MLP_GELU && a->mlp != VP_MLP_RELU; /* fc1/fc2 (PhiMLP, GPT2MLP, ...) */
    m->norms_per_layer = a->norms_per_layer;
    m->layernorm = a->norm == VP_NORM_LAYER && !a->norm_no_bias; /* LayerNorm weight + bias */
    m->lm_head_bias = a->lm_head_bias;
    m->embed_norm = a->embed_norm;
    m->positions = a->positions;
    if (a->experts) {
        m->experts = a->experts;
        m->experts_per_tok = a->experts_per_tok;
        m->expert_inter = a->expert_inter;
        /* all shared experts as one MLP: qwen2_moe shared_expert_intermediate_size (+ its sigmoid gate
         * Linear(h, 1)), DeepseekV2MoE n_shared_experts × moe_intermediate_size, Llama4 one of intermediate_size */
        m->shared_inter = a->shared_expert_inter ? a->shared_expert_inter : a->shared_experts * a->expert_inter;
        m->shared_gate = a->shared_expert_inter > 0;
        m->expert_bias = a->expert_bias;
        m->router_bias = a->router_bias;
        m->router_score_bias = a->router_score_bias;
        for (int64_t i = 0; i < a->layers && i < VP_SERVE_MAX_LAYERS; i++) {
            m->moe[i] = (unsigned char)vp_layer_map_has(&a->moe_map, i);
            m->n_moe_layers += m->moe[i];
        }
    }
    for (int64_t i = 0; i < a->layers && i < VP_SERVE_MAX_LAYERS; i++) m->attn[i] = (unsigned char)layer_attn(a, i);
    m->sliding_window = a->sliding_window;
    m->chunk_size = a->chunk_size;
    m->max_positions = a->max_positions > 0 ? a->max_positions : 2048;
    m->rotary_dim = !a->rope ? 0 : a->mla_kv_rank ? a->mla_rope_dim : (int64_t)((double)a->head_dim * a->rope_partial);
    m->rope_positions = m->rotary_dim ? rope_rows(a, m->max_positions) : 0;
    m->vision_params = a->vision_params;
}

vp_status vp_serve_model_from_hf(const cJSON *root, const char *p0, vp_serve_model *m, vp_error *err) {
    memset(m, 0, sizeof *m);
    if (!cJSON_IsObject(root)) return vp_fail(err, VP_ERR_FIELD, p0, "%s must be a JSON object (a config.json)", p0);
    vp_arch a;
    vp_status st;
    if ((st = vp_arch_from_hf(root, p0, &a, err))) return st;
    if ((st = servable(root, p0, &a, err))) return st;
    from_arch(&a, m);
    /* dtype: the stored element size (not a shape: vp_arch does not carry it) */
    char dt[24] = "bfloat16";
    if ((st = vp_json_opt_str(root, p0, "torch_dtype", dt, sizeof dt, err))) return st;
    if ((st = vp_json_opt_str(root, p0, "dtype", dt, sizeof dt, err))) return st;
    m->dtype_bytes = dtype_bytes_of(dt);
    /* sizes each in range can still multiply past int64: bound the parameters and the KV bytes per
     * token in floating point first, so every later integer product stays exact */
    double h = (double)m->hidden, q = (double)m->heads * (double)m->head_dim;
    double f = (double)(m->inter > m->expert_inter ? m->inter : m->expert_inter);
    double per_layer = 4.0 * h * (q > h ? q : h) + 3.0 * h * f * ((double)m->experts + 1.0) + 3.0 * h * (double)m->shared_inter;
    double params = (double)m->layers * per_layer + 2.0 * (double)m->vocab * h + (double)m->vision_params;
    double kv_tok = 2.0 * (double)m->kv_heads * (double)m->head_dim * (double)m->layers * 4.0;
    if (params > 1e15 || kv_tok * 16777216.0 > 1e18)
        return vp_fail(err, VP_ERR_RANGE, p0, "%s: the shapes give about %.3g parameters and %.3g KV bytes per token; "
                       "check the sizes", p0, params, kv_tok);
    /* quantization_config: at the top level, or in text_config of a multimodal checkpoint */
    const cJSON *qc = cJSON_GetObjectItemCaseSensitive(root, "quantization_config");
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    char qp[160];
    vp_path_key(qp, sizeof qp, p0, "quantization_config");
    if (!qc && cJSON_IsObject(tc)) {
        qc = cJSON_GetObjectItemCaseSensitive(tc, "quantization_config");
        char tp[128];
        vp_path_key(tp, sizeof tp, p0, "text_config");
        vp_path_key(qp, sizeof qp, tp, "quantization_config");
    }
    if (qc && !cJSON_IsNull(qc) && (st = vp_wquant_from_config(qc, qp, &m->quant, err))) return st;
    return VP_OK;
}
