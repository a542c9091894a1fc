/* gpt2.c: GPT-2 (models/gpt2/configuration_gpt2.py, modeling_gpt2.py): learned positions, LayerNorm,
 * Conv1D c_attn/c_proj, GELU MLP with biases, dropout everywhere by default. */
#include <string.h>

#include "family.h"

vp_status vp_read_gpt2(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    a->kind = VP_KIND_GPT2;
    if ((st = vp_json_int(c, p, "n_embd", 1, VP_MAXDIM, &a->hidden, err))) return st;
    if ((st = vp_json_int(c, p, "n_layer", 1, VP_MAXLAYERS, &a->layers, err))) return st;
    if ((st = vp_json_int(c, p, "n_head", 1, 65536, &a->heads, err))) return st;
    a->vocab = 50257; /* GPT2Config default */
    if ((st = vp_json_opt_int(c, p, "vocab_size", 1, VP_MAXVOCAB, &a->vocab, err))) return st;
    a->positions = 1024;
    if ((st = vp_json_opt_int(c, p, "n_positions", 1, 100000000, &a->positions, err))) return st;
    a->inter = 4 * a->hidden; /* GPT2MLP: n_inner or 4 * n_embd */
    if ((st = vp_json_opt_int(c, p, "n_inner", 1, VP_MAXDIM, &a->inter, err))) return st;
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
    a->max_positions = a->positions; /* learned positions (wpe), no rotary embedding */
    return VP_OK;
}

void vp_count_gpt2(const vp_arch *a, vp_param_counts *c) {
    int64_t h = a->hidden;
    /* GPT2Block: ln_1, attn.c_attn Conv1D(3h), attn.c_proj Conv1D(h), ln_2, mlp.c_fc, mlp.c_proj */
    c->per_layer_attn = vp_lin_params(h, 3 * h, 1) + vp_lin_params(h, h, 1);
    c->per_layer_mlp = vp_mlp_params(a, h, a->inter);
    c->per_layer_norm = 2 * vp_norm_params(a, h);
    c->layers_total = a->layers * (c->per_layer_attn + c->per_layer_mlp + c->per_layer_norm);
    c->embed = a->vocab * h + a->positions * h; /* wte + wpe */
    c->lm_head = a->tie ? 0 : a->vocab * h;
    c->final_norm = vp_norm_params(a, h);
    c->linear_in_layers = a->layers * (c->per_layer_attn + c->per_layer_mlp);
    c->largest_tensor = a->vocab * h;
}
