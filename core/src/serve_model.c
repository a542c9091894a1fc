/* serve_model.c: a Hugging Face config.json -> the shapes a serving engine allocates for
 * (vp_serve_model). It reads the family-specific fields vLLM's and SGLang's model files read:
 * text_config of multimodal checkpoints (gemma3, llama4, mistral3), layer_types / sliding_window
 * (gemma2, gemma3, gpt_oss), attention_chunk_size / no_rope_layers (llama4), the MLA ranks of
 * deepseek_v2/v3, and the MoE layout fields of each family. Any model_type is accepted: a field
 * that is missing takes the default of the family's configuration_*.py in transformers. */
#include <string.h>

#include "serve.h"
#include "util.h"

#define MAXDIM 1048576LL
#define MAXVOCAB 100000000LL

/* The first of keys that is present (not null) -> *out, range-checked; VP_OK when none is. */
static vp_status opt_any(const cJSON *c, const char *p, const char *const *keys, int64_t lo, int64_t hi, int64_t *out,
                         vp_error *err) {
    for (int i = 0; keys[i]; i++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(c, keys[i]);
        if (it && !cJSON_IsNull(it)) return vp_json_opt_int(c, p, keys[i], lo, hi, out, err);
    }
    return VP_OK;
}

static int is(const char *mt, const char *name) { return strcmp(mt, name) == 0; }
static int starts(const char *mt, const char *prefix) { return strncmp(mt, prefix, strlen(prefix)) == 0; }

static int dtype_bytes_of(const char *s) {
    if (!strcmp(s, "float32") || !strcmp(s, "fp32")) return 4;
    return 2; /* bfloat16, float16 */
}

/* A generic ViT vision tower + linear projector (SigLIP for gemma3, the Llama 4 and Pixtral encoders):
 * per block q,k,v,o Linear(e,e) with biases, two LayerNorms, fc1/fc2 with biases; patch Conv2d,
 * learned positions; a projector Linear(e, text hidden). Counted so that vLLM's loaded bytes include
 * the tower (vllm/model_executor/models/siglip.py SiglipEncoderLayer). */
static vp_status vision_params(const cJSON *root, const char *p, int64_t text_hidden, int64_t *out, vp_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "vision_config");
    *out = 0;
    if (!cJSON_IsObject(v)) return VP_OK;
    char vp[128];
    vp_path_key(vp, sizeof vp, p, "vision_config");
    static const char *const k_h[] = {"hidden_size", "embed_dim", "width", NULL};
    static const char *const k_f[] = {"intermediate_size", "mlp_dim", NULL};
    static const char *const k_l[] = {"num_hidden_layers", "depth", "num_layers", NULL};
    int64_t e = 0, f = 0, l = 0, patch = 14, img = 224, ch = 3;
    vp_status st;
    if ((st = opt_any(v, vp, k_h, 1, MAXDIM, &e, err))) return st;
    if ((st = opt_any(v, vp, k_f, 1, MAXDIM, &f, err))) return st;
    if ((st = opt_any(v, vp, k_l, 1, 4096, &l, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "patch_size", 1, 4096, &patch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "image_size", 1, 65536, &img, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "num_channels", 1, 64, &ch, err))) return st;
    if (!e || !l) return VP_OK;
    if (!f) f = 4 * e;
    int64_t n = (img / patch) * (img / patch);
    int64_t block = 4 * (e * e + e) + 2 * 2 * e + (e * f + f) + (f * e + e);
    *out = l * block + ch * patch * patch * e + e + n * e + 2 * e + e * text_hidden;
    return VP_OK;
}

/* Which layers are MoE layers, by family (each family's decoder layer constructor in vLLM). */
static vp_status moe_layout(const cJSON *c, const char *p, vp_serve_model *m, vp_error *err) {
    vp_status st;
    const char *mt = m->model_type;
    int64_t first_dense = 0, freq = 1, step = 1;
    memset(m->moe, 0, sizeof m->moe);
    if (!m->experts) return VP_OK;
    if ((st = vp_json_opt_int(c, p, "first_k_dense_replace", 0, m->layers, &first_dense, err))) return st; /* deepseek */
    if ((st = vp_json_opt_int(c, p, "moe_layer_freq", 1, 4096, &freq, err))) return st;
    if ((st = vp_json_opt_int(c, p, "decoder_sparse_step", 1, 4096, &step, err))) return st; /* qwen2_moe/qwen3_moe */
    if (starts(mt, "llama4")) {
        if ((st = vp_json_opt_int(c, p, "interleave_moe_layer_step", 1, 4096, &step, err))) return st;
    }
    const cJSON *only = cJSON_GetObjectItemCaseSensitive(c, "mlp_only_layers");
    const cJSON *moe_list = cJSON_GetObjectItemCaseSensitive(c, "moe_layers"); /* llama4 explicit list */
    m->n_moe_layers = 0;
    for (int64_t i = 0; i < m->layers; i++) {
        int sparse;
        if (cJSON_IsArray(moe_list) && cJSON_GetArraySize(moe_list) > 0) {
            sparse = 0;
            const cJSON *x;
            cJSON_ArrayForEach(x, moe_list) if (cJSON_IsNumber(x) && (int64_t)x->valuedouble == i) sparse = 1;
        } else if (starts(mt, "llama4")) {
            sparse = (i + 1) % step == 0; /* Llama4TextConfig: layers interleave_moe_layer_step-1, 2·step-1, ... */
        } else if (starts(mt, "deepseek")) {
            sparse = i >= first_dense && i % freq == 0; /* DeepseekV2DecoderLayer */
        } else {
            sparse = (i + 1) % step == 0; /* Qwen2MoeDecoderLayer */
            if (cJSON_IsArray(only)) {
                const cJSON *x;
                cJSON_ArrayForEach(x, only) if (cJSON_IsNumber(x) && (int64_t)x->valuedouble == i) sparse = 0;
            }
        }
        m->moe[i] = (unsigned char)sparse;
        m->n_moe_layers += sparse;
    }
    return VP_OK;
}

/* Attention kind per layer. */
static vp_status attn_layout(const cJSON *c, const char *p, vp_serve_model *m, vp_error *err) {
    vp_status st;
    const char *mt = m->model_type;
    for (int64_t i = 0; i < m->layers; i++) m->attn[i] = m->kv_lora_rank ? VP_LAYER_MLA : VP_LAYER_FULL;
    if (m->kv_lora_rank) return VP_OK;
    m->sliding_window = 0;
    if ((st = vp_json_opt_int(c, p, "sliding_window", 1, 1LL << 30, &m->sliding_window, err))) return st;
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(c, "layer_types");
    if (cJSON_IsArray(types)) {
        /* transformers >= 4.53 layer_types: "sliding_attention" | "full_attention" (| "chunked_attention") */
        int64_t i = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, types) {
            if (i >= m->layers) break;
            if (cJSON_IsString(x) && !strcmp(x->valuestring, "sliding_attention") && m->sliding_window)
                m->attn[i] = VP_LAYER_SLIDING;
            i++;
        }
        return VP_OK;
    }
    if (starts(mt, "gemma2") && m->sliding_window) {
        /* Gemma2DecoderLayer: is_sliding = not bool(layer_idx % 2) */
        for (int64_t i = 0; i < m->layers; i++) m->attn[i] = (i % 2 == 0) ? VP_LAYER_SLIDING : VP_LAYER_FULL;
    } else if (starts(mt, "gemma3") && m->sliding_window) {
        /* Gemma3TextConfig: sliding_window_pattern = 6 -> layer i is global when (i + 1) % 6 == 0 */
        int64_t pat = 6;
        if ((st = vp_json_opt_int(c, p, "sliding_window_pattern", 1, 4096, &pat, err))) return st;
        for (int64_t i = 0; i < m->layers; i++) m->attn[i] = ((i + 1) % pat) ? VP_LAYER_SLIDING : VP_LAYER_FULL;
    } else if (starts(mt, "llama4")) {
        /* Llama4TextConfig: RoPE layers use chunked local attention of attention_chunk_size; the NoPE
         * layers (no_rope_layers[i] == 0, by default every 4th) attend to everything. */
        m->chunk_size = 0;
        if ((st = vp_json_opt_int(c, p, "attention_chunk_size", 1, 1LL << 30, &m->chunk_size, err))) return st;
        if (!m->chunk_size) return VP_OK;
        const cJSON *nr = cJSON_GetObjectItemCaseSensitive(c, "no_rope_layers");
        for (int64_t i = 0; i < m->layers; i++) {
            int rope = (i + 1) % 4 != 0;
            if (cJSON_IsArray(nr) && i < cJSON_GetArraySize(nr)) {
                const cJSON *x = cJSON_GetArrayItem(nr, (int)i);
                if (cJSON_IsNumber(x)) rope = x->valuedouble != 0;
            }
            m->attn[i] = rope ? VP_LAYER_CHUNKED : VP_LAYER_FULL;
        }
    }
    return VP_OK;
}

vp_status vp_serve_model_from_hf(const cJSON *root, const char *p0, vp_serve_model *m, vp_error *err) {
    memset(m, 0, sizeof *m);
    if (!cJSON_IsObject(root)) return vp_fail(err, VP_ERR_FIELD, p0, "%s must be a JSON object (a config.json)", p0);
    vp_status st;
    const cJSON *c = root;
    char p[128];
    vp_strlcpy(p, p0, sizeof p);
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (cJSON_IsObject(tc)) { /* Gemma3ForConditionalGeneration, Llama4ForConditionalGeneration, Mistral3 ... */
        c = tc;
        vp_path_key(p, sizeof p, p0, "text_config");
    }
    char mt[32] = "";
    if ((st = vp_json_opt_str(c, p, "model_type", mt, sizeof mt, err))) return st;
    if (!mt[0] && (st = vp_json_opt_str(root, p0, "model_type", mt, sizeof mt, err))) return st;
    vp_strlcpy(m->model_type, mt[0] ? mt : "custom", sizeof m->model_type);
    /* i13b: the engines keep a Mamba state cache beside (or instead of) the paged KV cache; not modelled
     * here, so refuse rather than count a KV cache for every layer (training / generate: ssm_state.c) */
    if (is(mt, "mamba") || is(mt, "mamba2") || is(mt, "jamba") || is(mt, "falcon_mamba"))
        return vp_fail(err, VP_ERR_UNSUPPORTED, p,
                       "%s: serving estimates for the state-space model_type \"%s\" are not modelled yet (train and "
                       "infer modes are)", p, mt);
    static const char *const k_h[] = {"hidden_size", "n_embd", "d_model", NULL};
    static const char *const k_l[] = {"num_hidden_layers", "n_layer", "num_layers", NULL};
    static const char *const k_a[] = {"num_attention_heads", "n_head", "num_heads", NULL};
    static const char *const k_f[] = {"intermediate_size", "n_inner", "ffn_dim", NULL};
    if ((st = opt_any(c, p, k_h, 1, MAXDIM, &m->hidden, err))) return st;
    if ((st = opt_any(c, p, k_l, 1, VP_SERVE_MAX_LAYERS, &m->layers, err))) return st;
    if ((st = opt_any(c, p, k_a, 1, 65536, &m->heads, err))) return st;
    if ((st = vp_json_opt_int(c, p, "vocab_size", 1, MAXVOCAB, &m->vocab, err))) return st;
    if (!m->vocab && (st = vp_json_opt_int(root, p0, "vocab_size", 1, MAXVOCAB, &m->vocab, err))) return st;
    const char *need = !m->hidden ? "hidden_size" : !m->layers ? "num_hidden_layers" : !m->heads ? "num_attention_heads"
                       : !m->vocab ? "vocab_size" : NULL;
    if (need) {
        char path[160];
        vp_path_key(path, sizeof path, p, need);
        return vp_fail(err, VP_ERR_FIELD, path, "missing required field %s", path);
    }
    m->kv_heads = m->heads;
    if ((st = vp_json_opt_int(c, p, "num_key_value_heads", 1, 65536, &m->kv_heads, err))) return st;
    if (m->kv_heads > m->heads) {
        char path[160];
        vp_path_key(path, sizeof path, p, "num_key_value_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s = %lld exceeds num_attention_heads = %lld", path,
                       (long long)m->kv_heads, (long long)m->heads);
    }
    const char *t = m->model_type;
    int gemma = starts(t, "gemma");
    if ((st = vp_json_opt_int(c, p, "head_dim", 1, 65536, &m->head_dim, err))) return st;
    if (!m->head_dim) {
        if (gemma) m->head_dim = 256;                    /* GemmaConfig default */
        else if (starts(t, "qwen3")) m->head_dim = 128;  /* Qwen3Config default */
        else m->head_dim = m->hidden / m->heads;
        if (!m->head_dim) m->head_dim = 1;
    }
    m->v_head_dim = m->head_dim;
    m->inter = 4 * m->hidden;
    if ((st = opt_any(c, p, k_f, 1, MAXDIM, &m->inter, err))) return st;
    m->tie = gemma; /* tie_word_embeddings: True for gemma*, False for llama/mistral/qwen/phi/deepseek/gpt_oss/llama4 */
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &m->tie, err))) return st;
    if (c != root && !cJSON_GetObjectItemCaseSensitive(c, "tie_word_embeddings") &&
        (st = vp_json_opt_bool(root, p0, "tie_word_embeddings", &m->tie, err)))
        return st;
    int ab = starts(t, "qwen2") || is(t, "qwen2_vl") || is(t, "gpt_oss") || is(t, "phi");
    if ((st = vp_json_opt_bool(c, p, "attention_bias", &ab, err))) return st;
    m->qkv_bias = ab;
    m->o_bias = ab && !starts(t, "qwen2"); /* Qwen2Attention: o_proj has no bias */
    if ((st = vp_json_opt_bool(c, p, "mlp_bias", &m->mlp_bias, err))) return st;
    m->gated_mlp = 1;
    m->norms_per_layer = 2;
    if (is(t, "phi") || is(t, "gpt2") || is(t, "gpt_neox") || is(t, "falcon")) {
        m->gated_mlp = 0; /* fc1/fc2 (PhiMLP), LayerNorm with biases */
        m->layernorm = 1;
        m->mlp_bias = 1;
        m->o_bias = m->qkv_bias = 1;
        m->norms_per_layer = is(t, "phi") ? 1 : 2; /* PhiDecoderLayer: one input_layernorm (parallel attn/MLP) */
    }
    if (starts(t, "gemma2") || starts(t, "gemma3")) m->norms_per_layer = 4; /* pre/post attention and feedforward */
    m->qk_norm = starts(t, "qwen3") || starts(t, "gemma3") || starts(t, "olmo2");
    m->attn_sinks = is(t, "gpt_oss");
    /* MoE */
    static const char *const k_e[] = {"num_local_experts", "num_experts", "n_routed_experts", NULL};
    if ((st = opt_any(c, p, k_e, 0, 65536, &m->experts, err))) return st;
    if (m->experts) {
        m->experts_per_tok = 1;
        if ((st = vp_json_opt_int(c, p, "num_experts_per_tok", 1, m->experts, &m->experts_per_tok, err))) return st;
        m->expert_inter = m->inter;
        if ((st = vp_json_opt_int(c, p, "moe_intermediate_size", 1, MAXDIM, &m->expert_inter, err))) return st;
        int64_t sh = 0, nsh = 0;
        if ((st = vp_json_opt_int(c, p, "shared_expert_intermediate_size", 0, MAXDIM, &sh, err))) return st;
        if (sh) m->shared_gate = 1; /* Qwen2MoeSparseMoeBlock.shared_expert_gate */
        if ((st = vp_json_opt_int(c, p, "n_shared_experts", 0, 4096, &nsh, err))) return st;
        if (nsh) sh = nsh * m->expert_inter; /* DeepseekV2MoE: one MLP of n_shared_experts × moe_intermediate_size */
        if (starts(t, "llama4")) {
            sh = m->inter; /* Llama4MoE: one shared expert of intermediate_size; dense layers use intermediate_size_mlp */
            m->expert_inter = m->inter;
            if ((st = vp_json_opt_int(c, p, "intermediate_size_mlp", 1, MAXDIM, &m->inter, err))) return st;
        }
        m->shared_inter = sh;
        m->expert_bias = m->router_bias = is(t, "gpt_oss"); /* GptOssMLP: router and experts have biases */
    }
    /* MLA (DeepseekV2Config) */
    if ((st = vp_json_opt_int(c, p, "kv_lora_rank", 0, MAXDIM, &m->kv_lora_rank, err))) return st;
    if (m->kv_lora_rank) {
        if ((st = vp_json_opt_int(c, p, "q_lora_rank", 0, MAXDIM, &m->q_lora_rank, err))) return st;
        m->qk_nope_dim = 128;
        m->qk_rope_dim = 64;
        m->v_head_dim = 128;
        if ((st = vp_json_opt_int(c, p, "qk_nope_head_dim", 0, 65536, &m->qk_nope_dim, err))) return st;
        if ((st = vp_json_opt_int(c, p, "qk_rope_head_dim", 0, 65536, &m->qk_rope_dim, err))) return st;
        if ((st = vp_json_opt_int(c, p, "v_head_dim", 1, 65536, &m->v_head_dim, err))) return st;
        m->head_dim = m->qk_nope_dim + m->qk_rope_dim;
        m->kv_heads = m->heads;
    }
    if ((st = moe_layout(c, p, m, err))) return st;
    if ((st = attn_layout(c, p, m, err))) return st;
    /* rotary cos/sin cache: [max_position_embeddings, rotary_dim] (vllm rotary_embedding base.py _compute_cos_sin_cache) */
    m->max_positions = 2048;
    if ((st = vp_json_opt_int(c, p, "max_position_embeddings", 1, 1LL << 30, &m->max_positions, err))) return st;
    double prf = 1.0;
    if ((st = vp_json_opt_num(c, p, "partial_rotary_factor", 0.0, 1.0, &prf, err))) return st;
    m->rotary_dim = m->kv_lora_rank ? m->qk_rope_dim : (int64_t)((double)m->head_dim * prf);
    /* vllm/model_executor/layers/rotary_embedding: LinearScaling / DynamicNTKScaling caches hold
     * max_position_embeddings × factor rows, YaRN (and DeepseekScaling) original_max_position × factor;
     * llama3 and default RoPE max_position_embeddings. Gemma 3 has a second, unscaled cache for its
     * sliding layers (rope_local_base_freq). */
    double factor = 1.0;
    int64_t base_pos = m->max_positions;
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(c, "rope_scaling");
    if (cJSON_IsObject(rs)) {
        char rp[160], rt[24] = "";
        vp_path_key(rp, sizeof rp, p, "rope_scaling");
        if ((st = vp_json_opt_str(rs, rp, "rope_type", rt, sizeof rt, err))) return st;
        if (!rt[0] && (st = vp_json_opt_str(rs, rp, "type", rt, sizeof rt, err))) return st;
        double fct = 1.0;
        if ((st = vp_json_opt_num(rs, rp, "factor", 0.0, 1024.0, &fct, err))) return st;
        if (!strcmp(rt, "linear") || !strcmp(rt, "dynamic")) factor = fct;
        if (!strcmp(rt, "yarn") || !strcmp(rt, "deepseek_yarn")) {
            factor = fct;
            if ((st = vp_json_opt_int(rs, rp, "original_max_position_embeddings", 1, 1LL << 30, &base_pos, err))) return st;
        }
    }
    m->rope_positions = (int64_t)((double)base_pos * (factor > 1.0 ? factor : 1.0));
    if (starts(t, "gemma3")) m->rope_positions += m->max_positions;
    if ((st = vision_params(root, p0, m->hidden, &m->vision_params, err))) return st;
    /* dtype */
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
        return vp_fail(err, VP_ERR_RANGE, p, "%s: the shapes give about %.3g parameters and %.3g KV bytes per token; "
                       "check the sizes", p, params, kv_tok);
    const cJSON *qc = cJSON_GetObjectItemCaseSensitive(root, "quantization_config");
    if (!qc) qc = cJSON_GetObjectItemCaseSensitive(c, "quantization_config");
    if (qc && !cJSON_IsNull(qc)) {
        char qp[160];
        vp_path_key(qp, sizeof qp, p0, "quantization_config");
        if ((st = vp_wquant_from_config(qc, qp, &m->quant, err))) return st;
    }
    return VP_OK;
}
