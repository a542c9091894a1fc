/* text_encoder.c: the text encoders of diffusion pipelines, read from their transformers
 * config.json (the class named by `architectures`) and counted as transformers builds them:
 *   T5EncoderModel (modeling_t5.py: shared embedding, blocks of T5Attention q/k/v/o without biases +
 *     T5DenseGatedActDense wi_0/wi_1/wo, two T5LayerNorm weights, relative_attention_bias in block 0,
 *     final_layer_norm; no lm_head),
 *   UMT5EncoderModel (modeling_umt5.py: as T5 but every block has its own relative_attention_bias),
 *   CLIPTextModel / CLIPTextModelWithProjection (modeling_clip.py: token + position embeddings, blocks of
 *     q/k/v/out_proj and fc1/fc2 with biases + two LayerNorms, final LayerNorm, text_projection without bias),
 *   LlamaModel (HunyuanVideo's text_encoder: the decoder without lm_head),
 *   CLIPVisionModel / CLIPVisionModelWithProjection (modeling_clip.py CLIPVisionTransformer: class_embedding, a
 *     Conv2d patch embedding without bias, (image / patch)² + 1 position embeddings, pre_layrnorm, the same blocks as
 *     the text model, post_layernorm, visual_projection without bias: Wan2.1 I2V's image_encoder). */
#include <string.h>

#include "diffusers.h"
#include "util.h"

vp_status vp_text_encoder_parse(const cJSON *c, const char *p, int dclass, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_DIT;
    a->norm = VP_NORM_RMS;
    a->mlp = VP_MLP_GEGLU;
    int64_t h, f, L, heads, d, vocab, tokens = 0;
    int64_t params = 0, per_block = 0, embed = 0, other = 0;
    if (dclass == VP_DC_T5_ENC || dclass == VP_DC_UMT5_ENC) {
        vp_strlcpy(a->model_type, dclass == VP_DC_T5_ENC ? "t5_encoder" : "umt5_encoder", sizeof a->model_type);
        int64_t buckets = 32;
        if ((st = vp_json_int(c, p, "d_model", 1, 1048576, &h, err))) return st;
        if ((st = vp_json_int(c, p, "d_ff", 1, 1048576, &f, err))) return st;
        if ((st = vp_json_int(c, p, "d_kv", 1, 65536, &d, err))) return st;
        if ((st = vp_json_int(c, p, "num_layers", 1, 4096, &L, err))) return st;
        if ((st = vp_json_int(c, p, "num_heads", 1, 65536, &heads, err))) return st;
        vocab = 32128;
        if ((st = vp_json_opt_int(c, p, "vocab_size", 1, 100000000, &vocab, err))) return st;
        if ((st = vp_json_opt_int(c, p, "relative_attention_num_buckets", 1, 65536, &buckets, err))) return st;
        char ffp[32] = "relu";
        if ((st = vp_json_opt_str(c, p, "feed_forward_proj", ffp, sizeof ffp, err))) return st;
        int gated = strncmp(ffp, "gated-", 6) == 0;
        a->mlp = gated ? VP_MLP_GEGLU : VP_MLP_RELU;
        int64_t inner = heads * d;
        per_block = 4 * h * inner + (gated ? 3 : 2) * h * f + 2 * h;
        embed = vocab * h;
        other = h + buckets * heads * (dclass == VP_DC_UMT5_ENC ? L : 1);
        params = embed + L * per_block + other;
        a->d.linear = L * (4 * h * inner + (gated ? 3 : 2) * h * f);
        a->d.largest_tensor = vocab * h;
        /* T5PreTrainedModel / UMT5PreTrainedModel: _keep_in_fp32_modules = ["wo"], the Linear(d_ff, d_model,
         * bias=False) of T5DenseActDense / T5DenseGatedActDense in every block (weights.c) */
        a->d.fp32_keep = L * f * h;
    } else if (dclass == VP_DC_CLIP_TEXT) {
        vp_strlcpy(a->model_type, "clip_text", sizeof a->model_type);
        a->norm = VP_NORM_LAYER;
        a->mlp = VP_MLP_GELU;
        int64_t pos = 77, proj = 0;
        if ((st = vp_json_int(c, p, "hidden_size", 1, 1048576, &h, err))) return st;
        if ((st = vp_json_int(c, p, "intermediate_size", 1, 1048576, &f, err))) return st;
        if ((st = vp_json_int(c, p, "num_hidden_layers", 1, 4096, &L, err))) return st;
        if ((st = vp_json_int(c, p, "num_attention_heads", 1, 65536, &heads, err))) return st;
        vocab = 49408;
        if ((st = vp_json_opt_int(c, p, "vocab_size", 1, 100000000, &vocab, err))) return st;
        if ((st = vp_json_opt_int(c, p, "max_position_embeddings", 1, 1000000, &pos, err))) return st;
        const cJSON *arch = cJSON_GetObjectItemCaseSensitive(c, "architectures");
        const cJSON *a0 = cJSON_IsArray(arch) ? cJSON_GetArrayItem(arch, 0) : NULL;
        if (cJSON_IsString(a0) && !strcmp(a0->valuestring, "CLIPTextModelWithProjection")) {
            proj = 512;
            if ((st = vp_json_opt_int(c, p, "projection_dim", 1, 1048576, &proj, err))) return st;
        }
        d = h / heads;
        per_block = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 4 * h;
        embed = vocab * h + pos * h;
        other = 2 * h + proj * h;
        params = embed + L * per_block + other;
        a->d.linear = L * (4 * h * h + 2 * h * f);
        a->d.largest_tensor = vocab * h;
        tokens = pos;
    } else if (dclass == VP_DC_CLIP_VISION) {
        vp_strlcpy(a->model_type, "clip_vision", sizeof a->model_type);
        a->norm = VP_NORM_LAYER;
        a->mlp = VP_MLP_GELU;
        int64_t image = 224, patch = 32, chans = 3, proj = 0;
        if ((st = vp_json_int(c, p, "hidden_size", 1, 1048576, &h, err))) return st;
        if ((st = vp_json_int(c, p, "intermediate_size", 1, 1048576, &f, err))) return st;
        if ((st = vp_json_int(c, p, "num_hidden_layers", 1, 4096, &L, err))) return st;
        if ((st = vp_json_int(c, p, "num_attention_heads", 1, 65536, &heads, err))) return st;
        if ((st = vp_json_opt_int(c, p, "image_size", 1, 65536, &image, err))) return st;
        if ((st = vp_json_opt_int(c, p, "patch_size", 1, 4096, &patch, err))) return st;
        if ((st = vp_json_opt_int(c, p, "num_channels", 1, 64, &chans, err))) return st;
        if (patch > image) {
            char path[128];
            vp_path_key(path, sizeof path, p, "patch_size");
            return vp_fail(err, VP_ERR_RANGE, path, "%s must not exceed image_size", path);
        }
        const cJSON *arch = cJSON_GetObjectItemCaseSensitive(c, "architectures");
        const cJSON *a0 = cJSON_IsArray(arch) ? cJSON_GetArrayItem(arch, 0) : NULL;
        if (cJSON_IsString(a0) && !strcmp(a0->valuestring, "CLIPVisionModelWithProjection")) {
            proj = 512;
            if ((st = vp_json_opt_int(c, p, "projection_dim", 1, 1048576, &proj, err))) return st;
        }
        int64_t npos = (image / patch) * (image / patch) + 1; /* the patches and the class token */
        d = h / heads;
        per_block = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 4 * h;
        embed = h + chans * patch * patch * h + npos * h;
        other = 2 * h + 2 * h + proj * h; /* pre_layrnorm, post_layernorm, visual_projection */
        params = embed + L * per_block + other;
        a->d.linear = L * (4 * h * h + 2 * h * f);
        a->d.largest_tensor = h * f;
        tokens = npos;
    } else {
        vp_strlcpy(a->model_type, "llama_encoder", sizeof a->model_type);
        int64_t kvh;
        if ((st = vp_json_int(c, p, "hidden_size", 1, 1048576, &h, err))) return st;
        if ((st = vp_json_int(c, p, "intermediate_size", 1, 1048576, &f, err))) return st;
        if ((st = vp_json_int(c, p, "num_hidden_layers", 1, 4096, &L, err))) return st;
        if ((st = vp_json_int(c, p, "num_attention_heads", 1, 65536, &heads, err))) return st;
        if ((st = vp_json_int(c, p, "vocab_size", 1, 100000000, &vocab, err))) return st;
        kvh = heads;
        if ((st = vp_json_opt_int(c, p, "num_key_value_heads", 1, 65536, &kvh, err))) return st;
        if (heads % kvh || h % heads) {
            char path[128];
            vp_path_key(path, sizeof path, p, "num_key_value_heads");
            return vp_fail(err, VP_ERR_RANGE, path, "%s must divide num_attention_heads, which must divide hidden_size", path);
        }
        d = h / heads;
        a->kv_heads = kvh;
        a->mlp = VP_MLP_SWIGLU;
        per_block = h * heads * d + 2 * h * kvh * d + heads * d * h + 3 * h * f + 2 * h;
        embed = vocab * h;
        other = h;
        params = embed + L * per_block + other;
        a->d.linear = L * (per_block - 2 * h);
        a->d.largest_tensor = vocab * h;
    }
    a->hidden = h;
    a->inter = f;
    a->layers = L;
    a->heads = heads;
    if (!a->kv_heads) a->kv_heads = heads;
    a->head_dim = d;
    a->vocab = 0; /* no output head: the pipeline takes the hidden states */
    a->d.params = params;
    a->d.embed = embed;
    a->d.other = other;
    a->d.per_block = per_block;
    a->d.blocks_total = L * per_block;
    a->d.text_len = tokens;
    return VP_OK;
}
