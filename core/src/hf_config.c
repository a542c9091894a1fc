/* hf_config.c: Hugging Face config.json -> vp_arch, family by family.
 * Field names and defaults follow each family's configuration_*.py in transformers 5.x
 * (e.g. src/transformers/models/llama/configuration_llama.py). Unknown config fields are
 * ignored (config.json files carry many that do not change a shape); shape fields are
 * validated and a bad one is named in the error. */
#include <string.h>

#include "arch.h"
#include "diffusers.h"
#include "util.h"

#define MAXDIM 1048576LL    /* no real model has a hidden or intermediate size above 2^20 */
#define MAXLAYERS 4096LL
#define MAXVOCAB 100000000LL

static const char *const k_families[] = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "phi3",
                                         "gemma", "gemma2", "gpt2", "t5", "vit", "cogvideox", "qwen2_vl", NULL};

/* Qwen2-VL vision tower (transformers qwen2_vl/modeling_qwen2_vl.py Qwen2VisionTransformerPretrainedModel):
 * Conv3d patch embedding (no bias), depth × [LayerNorm, qkv Linear(e, 3e), proj, LayerNorm,
 * MLP e -> e·mlp_ratio -> e], PatchMerger LayerNorm + Linear(4e, 4e) + Linear(4e, hidden).
 * 675,759,104 for Qwen2-VL-7B (memory-facts §10, counted on the meta device). */
static vp_status parse_vision(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "vision_config");
    if (!cJSON_IsObject(v)) return VP_OK;
    char vp[128];
    vp_path_key(vp, sizeof vp, p, "vision_config");
    int64_t depth = 32, e = 1280, ratio = 4, ch = 3, patch = 14, tpatch = 2, merge = 2, out = a->hidden;
    vp_status st;
    if ((st = vp_json_opt_int(v, vp, "depth", 1, 4096, &depth, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "embed_dim", 1, 1048576, &e, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "mlp_ratio", 1, 64, &ratio, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "in_chans", 1, 64, &ch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "patch_size", 1, 1024, &patch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "temporal_patch_size", 1, 64, &tpatch, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "spatial_merge_size", 1, 64, &merge, err))) return st;
    if ((st = vp_json_opt_int(v, vp, "hidden_size", 1, 1048576, &out, err))) return st;
    int64_t f = e * ratio, m = e * merge * merge;
    int64_t block = 2 * e + (e * 3 * e + 3 * e) + (e * e + e) + 2 * e + (e * f + f) + (f * e + e);
    a->vision_params = ch * tpatch * patch * patch * e + depth * block + 2 * e + (m * m + m) + (m * out + out);
    return VP_OK;
}

static vp_status decoder_common(const cJSON *c, const char *p, vp_arch *a, int tie_default, vp_error *err) {
    vp_status st;
    if ((st = vp_json_int(c, p, "hidden_size", 1, MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_int(c, p, "num_hidden_layers", 1, MAXLAYERS, &a->layers, err))) return st;
    if ((st = vp_json_int(c, p, "num_attention_heads", 1, 65536, &a->heads, err))) return st;
    if ((st = vp_json_int(c, p, "vocab_size", 1, MAXVOCAB, &a->vocab, err))) return st;
    a->kv_heads = a->heads;
    if ((st = vp_json_opt_int(c, p, "num_key_value_heads", 1, 65536, &a->kv_heads, err))) return st;
    if (a->heads % a->kv_heads != 0) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_key_value_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s = %lld must divide num_attention_heads = %lld", path,
                       (long long)a->kv_heads, (long long)a->heads);
    }
    a->head_dim = 0;
    if ((st = vp_json_opt_int(c, p, "head_dim", 1, 65536, &a->head_dim, err))) return st;
    if (a->head_dim == 0) {
        if (a->hidden % a->heads != 0) {
            char path[128];
            vp_path_key(path, sizeof path, p, "num_attention_heads");
            return vp_fail(err, VP_ERR_RANGE, path, "%s = %lld does not divide hidden_size = %lld (set head_dim)",
                           path, (long long)a->heads, (long long)a->hidden);
        }
        a->head_dim = a->hidden / a->heads;
    }
    a->tie = tie_default;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &a->tie, err))) return st;
    a->inter = 0;
    if ((st = vp_json_opt_int(c, p, "intermediate_size", 1, MAXDIM, &a->inter, err))) return st;
    int ab = 0, mb = 0;
    if ((st = vp_json_opt_bool(c, p, "attention_bias", &ab, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "mlp_bias", &mb, err))) return st;
    a->qkv_bias = ab;
    a->o_bias = ab;
    a->mlp_bias = mb;
    a->mlp = VP_MLP_SWIGLU;
    a->norm = VP_NORM_RMS;
    a->norms_per_layer = 2;
    if ((st = vp_json_opt_num(c, p, "attention_dropout", 0.0, 1.0, &a->attn_dropout, err))) return st;
    return VP_OK;
}

static vp_status need_inter(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    (void)c;
    if (a->inter <= 0) {
        char path[128];
        vp_path_key(path, sizeof path, p, "intermediate_size");
        return vp_fail(err, VP_ERR_FIELD, path, "missing required field %s", path);
    }
    return VP_OK;
}

static vp_status parse_moe(const cJSON *c, const char *p, vp_arch *a, const char *n_key, const char *inter_key,
                           vp_error *err) {
    vp_status st;
    if ((st = vp_json_int(c, p, n_key, 1, 4096, &a->experts, err))) return st;
    if ((st = vp_json_int(c, p, "num_experts_per_tok", 1, 4096, &a->experts_per_tok, err))) return st;
    if (a->experts_per_tok > a->experts) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_experts_per_tok");
        return vp_fail(err, VP_ERR_RANGE, path, "%s exceeds the number of experts", path);
    }
    a->expert_inter = a->inter;
    if (inter_key && (st = vp_json_opt_int(c, p, inter_key, 1, MAXDIM, &a->expert_inter, err))) return st;
    if (a->expert_inter <= 0) return need_inter(c, p, a, err);
    a->moe_layers = a->layers;
    return VP_OK;
}

static vp_status parse_gpt2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_GPT2;
    if ((st = vp_json_int(c, p, "n_embd", 1, MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_int(c, p, "n_layer", 1, MAXLAYERS, &a->layers, err))) return st;
    if ((st = vp_json_int(c, p, "n_head", 1, 65536, &a->heads, err))) return st;
    a->vocab = 50257; /* GPT2Config default */
    if ((st = vp_json_opt_int(c, p, "vocab_size", 1, MAXVOCAB, &a->vocab, err))) return st;
    a->positions = 1024;
    if ((st = vp_json_opt_int(c, p, "n_positions", 1, 100000000, &a->positions, err))) return st;
    a->inter = 4 * a->hidden; /* GPT2MLP: n_inner or 4 * n_embd */
    if ((st = vp_json_opt_int(c, p, "n_inner", 1, MAXDIM, &a->inter, err))) return st;
    if (a->hidden % a->heads) {
        char path[128];
        vp_path_key(path, sizeof path, p, "n_head");
        return vp_fail(err, VP_ERR_RANGE, path, "%s must divide n_embd", path);
    }
    a->kv_heads = a->heads;
    a->head_dim = a->hidden / a->heads;
    a->tie = 1;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &a->tie, err))) return st;
    a->qkv_bias = a->o_bias = a->mlp_bias = 1;
    a->fused_qkv = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 2;
    /* GPT2Config defaults: attn_pdrop = resid_pdrop = embd_pdrop = 0.1 */
    a->attn_dropout = a->resid_dropout = a->embd_dropout = 0.1;
    if ((st = vp_json_opt_num(c, p, "attn_pdrop", 0, 1, &a->attn_dropout, err))) return st;
    if ((st = vp_json_opt_num(c, p, "resid_pdrop", 0, 1, &a->resid_dropout, err))) return st;
    if ((st = vp_json_opt_num(c, p, "embd_pdrop", 0, 1, &a->embd_dropout, err))) return st;
    char act[32] = "gelu_new";
    if ((st = vp_json_opt_str(c, p, "activation_function", act, sizeof act, err))) return st;
    a->gelu_python = strcmp(act, "gelu_new") == 0; /* transformers activations.py NewGELUActivation */
    return VP_OK;
}

static vp_status parse_t5(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_T5;
    if ((st = vp_json_int(c, p, "d_model", 1, MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_int(c, p, "d_ff", 1, MAXDIM, &a->inter, err))) return st;
    if ((st = vp_json_int(c, p, "d_kv", 1, 65536, &a->head_dim, err))) return st;
    if ((st = vp_json_int(c, p, "num_layers", 1, MAXLAYERS, &a->layers, err))) return st;
    a->dec_layers = a->layers;
    if ((st = vp_json_opt_int(c, p, "num_decoder_layers", 0, MAXLAYERS, &a->dec_layers, err))) return st;
    if ((st = vp_json_int(c, p, "num_heads", 1, 65536, &a->heads, err))) return st;
    a->kv_heads = a->heads;
    a->vocab = 32128;
    if ((st = vp_json_opt_int(c, p, "vocab_size", 1, MAXVOCAB, &a->vocab, err))) return st;
    a->rel_buckets = 32;
    if ((st = vp_json_opt_int(c, p, "relative_attention_num_buckets", 1, 65536, &a->rel_buckets, err))) return st;
    a->tie = 1;
    if ((st = vp_json_opt_bool(c, p, "tie_word_embeddings", &a->tie, err))) return st;
    char ff[32] = "relu";
    if ((st = vp_json_opt_str(c, p, "feed_forward_proj", ff, sizeof ff, err))) return st;
    a->mlp = strncmp(ff, "gated-", 6) == 0 ? VP_MLP_GEGLU : VP_MLP_RELU;
    a->norm = VP_NORM_RMS;
    a->norms_per_layer = 2;
    a->resid_dropout = 0.1; /* T5Config dropout_rate default */
    if ((st = vp_json_opt_num(c, p, "dropout_rate", 0, 1, &a->resid_dropout, err))) return st;
    a->attn_dropout = a->resid_dropout;
    a->embd_dropout = a->resid_dropout;
    return VP_OK;
}

static vp_status parse_vit(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_VIT;
    if ((st = vp_json_int(c, p, "hidden_size", 1, MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_int(c, p, "num_hidden_layers", 1, MAXLAYERS, &a->layers, err))) return st;
    if ((st = vp_json_int(c, p, "num_attention_heads", 1, 65536, &a->heads, err))) return st;
    if ((st = vp_json_int(c, p, "intermediate_size", 1, MAXDIM, &a->inter, err))) return st;
    if (a->hidden % a->heads) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_attention_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s must divide hidden_size", path);
    }
    a->kv_heads = a->heads;
    a->head_dim = a->hidden / a->heads;
    a->image_size = 224;
    a->patch_size = 16;
    a->channels = 3;
    if ((st = vp_json_opt_int(c, p, "image_size", 1, 65536, &a->image_size, err))) return st;
    if ((st = vp_json_opt_int(c, p, "patch_size", 1, 65536, &a->patch_size, err))) return st;
    if ((st = vp_json_opt_int(c, p, "num_channels", 1, 1024, &a->channels, err))) return st;
    if (a->patch_size > a->image_size) {
        char path[128];
        vp_path_key(path, sizeof path, p, "patch_size");
        return vp_fail(err, VP_ERR_RANGE, path, "%s is larger than image_size", path);
    }
    a->labels = 1000; /* ImageNet-1k head (timm vit_*_patch16_224) */
    if ((st = vp_json_opt_int(c, p, "num_labels", 0, MAXVOCAB, &a->labels, err))) return st;
    const cJSON *id2label = cJSON_GetObjectItemCaseSensitive(c, "id2label");
    if (cJSON_IsObject(id2label) && !cJSON_GetObjectItemCaseSensitive(c, "num_labels"))
        a->labels = cJSON_GetArraySize(id2label);
    a->qkv_bias = 1;
    if ((st = vp_json_opt_bool(c, p, "qkv_bias", &a->qkv_bias, err))) return st;
    a->o_bias = a->mlp_bias = 1;
    a->fused_qkv = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 2;
    a->vocab = 0;
    a->tie = 0;
    return VP_OK;
}

static vp_status parse_cogvideox(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_DIT;
    /* diffusers CogVideoXTransformer3DModel config (transformer/config.json) */
    if ((st = vp_json_int(c, p, "num_attention_heads", 1, 65536, &a->heads, err))) return st;
    if ((st = vp_json_int(c, p, "attention_head_dim", 1, 65536, &a->head_dim, err))) return st;
    if ((st = vp_json_int(c, p, "num_layers", 1, MAXLAYERS, &a->layers, err))) return st;
    a->hidden = a->heads * a->head_dim;
    a->kv_heads = a->heads;
    a->inter = 4 * a->hidden; /* FeedForward mult=4 */
    a->in_channels = 16;
    a->out_channels = 16;
    a->patch_size = 2;
    a->text_embed_dim = 4096;
    a->time_embed_dim = 512;
    a->text_tokens = 226;
    a->sample_frames = 49;
    a->sample_height = 60;
    a->sample_width = 90;
    a->temporal_compression = 4;
    if ((st = vp_json_opt_int(c, p, "in_channels", 1, 4096, &a->in_channels, err))) return st;
    if ((st = vp_json_opt_int(c, p, "out_channels", 1, 4096, &a->out_channels, err))) return st;
    if ((st = vp_json_opt_int(c, p, "patch_size", 1, 64, &a->patch_size, err))) return st;
    if ((st = vp_json_opt_int(c, p, "text_embed_dim", 1, MAXDIM, &a->text_embed_dim, err))) return st;
    if ((st = vp_json_opt_int(c, p, "time_embed_dim", 1, MAXDIM, &a->time_embed_dim, err))) return st;
    if ((st = vp_json_opt_int(c, p, "max_text_seq_length", 0, 1000000, &a->text_tokens, err))) return st;
    if ((st = vp_json_opt_int(c, p, "sample_frames", 1, 100000, &a->sample_frames, err))) return st;
    if ((st = vp_json_opt_int(c, p, "sample_height", 1, 100000, &a->sample_height, err))) return st;
    if ((st = vp_json_opt_int(c, p, "sample_width", 1, 100000, &a->sample_width, err))) return st;
    if ((st = vp_json_opt_int(c, p, "temporal_compression_ratio", 1, 64, &a->temporal_compression, err))) return st;
    a->qkv_bias = a->o_bias = a->mlp_bias = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->norms_per_layer = 2;
    a->qk_norm = 1;
    a->vocab = 0;
    return VP_OK;
}

vp_status vp_arch_from_hf(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    memset(a, 0, sizeof *a);
    if (!cJSON_IsObject(c)) return vp_fail(err, VP_ERR_FIELD, p, "%s must be a JSON object (a config.json)", p);
    if (vp_diffusers_is_component(c)) return vp_arch_from_diffusers(c, p, a, err); /* i12: diffusion pipelines */
    char path[128];
    vp_path_key(path, sizeof path, p, "model_type");
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(c, "model_type");
    if (!cJSON_IsString(mt) || !mt->valuestring)
        return vp_fail(err, VP_ERR_FIELD, path, "missing required field %s (the family, e.g. \"llama\")", path);
    int fam = -1;
    for (int i = 0; k_families[i]; i++)
        if (strcmp(k_families[i], mt->valuestring) == 0) fam = i;
    if (fam < 0) {
        char shown[40];
        vp_strlcpy(shown, mt->valuestring, sizeof shown);
        return vp_fail(err, VP_ERR_UNSUPPORTED, path,
                       "%s \"%s\" is not supported (supported: llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, "
                       "phi3, gemma, gemma2, gpt2, t5, vit, cogvideox, qwen2_vl; or describe it with \"custom\")",
                       path, shown);
    }
    const char *name = k_families[fam];
    vp_strlcpy(a->model_type, name, sizeof a->model_type);
    vp_status st = VP_OK;
    if (!strcmp(name, "gpt2")) return parse_gpt2(c, p, a, err);
    if (!strcmp(name, "t5")) return parse_t5(c, p, a, err);
    if (!strcmp(name, "vit")) return parse_vit(c, p, a, err);
    if (!strcmp(name, "cogvideox")) return parse_cogvideox(c, p, a, err);

    a->kind = VP_KIND_DECODER;
    /* tie_word_embeddings defaults: False for llama/mistral/mixtral/qwen2/qwen2_moe/qwen3/phi3,
     * True for gemma/gemma2 (their configuration_*.py) */
    int tie_default = !strcmp(name, "gemma") || !strcmp(name, "gemma2");
    if ((st = decoder_common(c, p, a, tie_default, err))) return st;
    if (!strcmp(name, "qwen2_vl") && (st = parse_vision(c, p, a, err))) return st;
    if (!strcmp(name, "qwen2") || !strcmp(name, "qwen2_moe") || !strcmp(name, "qwen2_vl")) {
        a->qkv_bias = 1; /* Qwen2Attention: q/k/v Linear(bias=True), o_proj bias=False */
        a->o_bias = 0;
    }
    if (!strcmp(name, "qwen3")) {
        a->qk_norm = 1; /* Qwen3Attention q_norm / k_norm = RMSNorm(head_dim) */
        if (!cJSON_GetObjectItemCaseSensitive(c, "head_dim")) a->head_dim = 128; /* Qwen3Config default */
    }
    if (!strcmp(name, "phi3")) {
        a->fused_qkv = 1; /* Phi3Attention.qkv_proj, Phi3MLP.gate_up_proj */
        a->fused_gate_up = 1;
        double r = 0;
        if ((st = vp_json_opt_num(c, p, "resid_pdrop", 0, 1, &r, err))) return st;
        a->resid_dropout = r;
    }
    if (!strcmp(name, "gemma") || !strcmp(name, "gemma2")) {
        if (!cJSON_GetObjectItemCaseSensitive(c, "head_dim")) a->head_dim = 256; /* GemmaConfig default */
        a->mlp = VP_MLP_GEGLU; /* hidden_activation gelu_pytorch_tanh */
        a->norm_fp32 = 1;
        if (!strcmp(name, "gemma2")) {
            a->norms_per_layer = 4; /* input, post_attention, pre_feedforward, post_feedforward */
            a->final_logit_softcap = 30.0;
            if ((st = vp_json_opt_num(c, p, "final_logit_softcapping", 0, 1e9, &a->final_logit_softcap, err))) return st;
        }
    }
    if (!strcmp(name, "mixtral")) {
        if ((st = need_inter(c, p, a, err))) return st;
        if ((st = parse_moe(c, p, a, "num_local_experts", NULL, err))) return st;
    } else if (!strcmp(name, "qwen2_moe")) {
        if ((st = parse_moe(c, p, a, "num_experts", "moe_intermediate_size", err))) return st;
        if ((st = vp_json_opt_int(c, p, "shared_expert_intermediate_size", 0, MAXDIM, &a->shared_expert_inter, err)))
            return st;
        int64_t step = 1;
        if ((st = vp_json_opt_int(c, p, "decoder_sparse_step", 1, MAXLAYERS, &step, err))) return st;
        int64_t sparse = 0;
        const cJSON *only = cJSON_GetObjectItemCaseSensitive(c, "mlp_only_layers");
        for (int64_t i = 0; i < a->layers; i++) {
            int dense = 0;
            if (cJSON_IsArray(only)) {
                const cJSON *x;
                cJSON_ArrayForEach(x, only) if (cJSON_IsNumber(x) && (int64_t)x->valuedouble == i) dense = 1;
            }
            if (!dense && (i + 1) % step == 0) sparse++;
        }
        a->moe_layers = sparse;
        if (sparse < a->layers && (st = need_inter(c, p, a, err))) return st;
    } else {
        if ((st = need_inter(c, p, a, err))) return st;
    }
    return VP_OK;
}

/* A generic decoder for anything else (plan "model": {"custom": {...}}). */
vp_status vp_arch_from_custom(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    static const char *const keys[] = {"name", "hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim",
                                       "intermediate_size", "vocab_size", "mlp", "tie_embeddings", "attn_bias",
                                       "mlp_bias", "norm", NULL};
    static const char *const mlps[] = {"swiglu", "geglu", "gelu", "relu", NULL};
    static const char *const norms[] = {"rmsnorm", "layernorm", NULL};
    vp_status st;
    memset(a, 0, sizeof *a);
    if ((st = vp_json_only_keys(c, p, keys, err))) return st;
    vp_strlcpy(a->model_type, "custom", sizeof a->model_type);
    a->kind = VP_KIND_DECODER;
    if ((st = vp_json_int(c, p, "hidden_size", 1, MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_int(c, p, "num_layers", 1, MAXLAYERS, &a->layers, err))) return st;
    if ((st = vp_json_int(c, p, "num_heads", 1, 65536, &a->heads, err))) return st;
    if ((st = vp_json_int(c, p, "intermediate_size", 1, MAXDIM, &a->inter, err))) return st;
    if ((st = vp_json_int(c, p, "vocab_size", 1, MAXVOCAB, &a->vocab, err))) return st;
    a->kv_heads = a->heads;
    if ((st = vp_json_opt_int(c, p, "num_kv_heads", 1, 65536, &a->kv_heads, err))) return st;
    if (a->heads % a->kv_heads) {
        char path[128];
        vp_path_key(path, sizeof path, p, "num_kv_heads");
        return vp_fail(err, VP_ERR_RANGE, path, "%s must divide num_heads", path);
    }
    if ((st = vp_json_opt_int(c, p, "head_dim", 1, 65536, &a->head_dim, err))) return st;
    if (!a->head_dim) {
        if (a->hidden % a->heads) {
            char path[128];
            vp_path_key(path, sizeof path, p, "num_heads");
            return vp_fail(err, VP_ERR_RANGE, path, "%s must divide hidden_size (or set head_dim)", path);
        }
        a->head_dim = a->hidden / a->heads;
    }
    int mlp = 0, norm = 0;
    if ((st = vp_json_opt_enum(c, p, "mlp", mlps, &mlp, err))) return st;
    if ((st = vp_json_opt_enum(c, p, "norm", norms, &norm, err))) return st;
    a->mlp = (vp_mlp)mlp;
    a->norm = (vp_norm)norm;
    a->norms_per_layer = 2;
    if ((st = vp_json_opt_bool(c, p, "tie_embeddings", &a->tie, err))) return st;
    if ((st = vp_json_opt_bool(c, p, "attn_bias", &a->qkv_bias, err))) return st;
    a->o_bias = a->qkv_bias;
    if ((st = vp_json_opt_bool(c, p, "mlp_bias", &a->mlp_bias, err))) return st;
    return VP_OK;
}
