/* bert.c: BERT and RoBERTa encoders (transformers models/bert/modeling_bert.py, models/roberta,
 * xlm-roberta). Read as the shared block with LayerNorm, GELU and biases everywhere, and counted by
 * the class that config.architectures[0] names (what from_pretrained builds):
 *   embeddings: word (v, h), position (max_position_embeddings, h), token_type (type_vocab_size, h),
 *   LayerNorm(h); per layer: query/key/value/attention.output.dense Linear(h, h) with bias, its
 *   LayerNorm, intermediate.dense Linear(h, f), output.dense Linear(f, h), LayerNorm;
 *   BertModel, RobertaModel and BERT sequence/token classification add the pooler
 *   Linear(h, h); the ForMaskedLM and ForPreTraining classes add the MLM head: transform dense Linear(h, h) +
 *   LayerNorm + decoder bias (v) (the decoder weight is tied to the word embeddings); ForPreTraining
 *   adds the NSP head Linear(h, 2); sequence classification adds Linear(h, num_labels)
 *   (RobertaClassificationHead: dense Linear(h, h) + out_proj Linear(h, num_labels), no pooler).
 * Attention is bidirectional (no KV cache in use); the MLM logits span the whole sequence. */
#include <string.h>

#include "family.h"

static vp_status read_encoder(const cJSON *c, const char *p, vp_arch *a, int roberta, vp_error *err) {
    vp_status st;
    vp_decoder_defaults d = {768, 12, 12, 0, 0, 3072, roberta ? 50265 : 30522, 1, 512}; /* BertConfig / RobertaConfig */
    if ((st = vp_read_decoder_defaults(c, p, a, &d, err))) return st;
    a->kv_heads = a->heads;
    a->qkv_bias = a->o_bias = a->mlp_bias = 1;
    a->mlp = VP_MLP_GELU;
    a->norm = VP_NORM_LAYER;
    a->tie = 1;
    a->positions = roberta ? 514 : 512;
    if ((st = vp_json_opt_int(c, p, "max_position_embeddings", 1, 100000000, &a->positions, err))) return st;
    int64_t types = roberta ? 1 : 2;
    if ((st = vp_json_opt_int(c, p, "type_vocab_size", 0, 1000000, &types, err))) return st;
    a->labels = 2;
    if ((st = vp_json_opt_int(c, p, "num_labels", 1, VP_MAXVOCAB, &a->labels, err))) return st;
    const cJSON *id2label = cJSON_GetObjectItemCaseSensitive(c, "id2label");
    if (cJSON_IsObject(id2label) && !vp_has_key(c, "num_labels")) a->labels = cJSON_GetArraySize(id2label);
    double drop = 0.1;
    if ((st = vp_json_opt_num(c, p, "hidden_dropout_prob", 0, 1, &drop, err))) return st;
    a->resid_dropout = a->embd_dropout = drop;
    drop = 0.1;
    if ((st = vp_json_opt_num(c, p, "attention_probs_dropout_prob", 0, 1, &drop, err))) return st;
    a->attn_dropout = drop;
    /* the head: architectures[0] */
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(c, "architectures");
    const cJSON *a0 = cJSON_IsArray(arch) ? cJSON_GetArrayItem(arch, 0) : NULL;
    const char *cls = cJSON_IsString(a0) && a0->valuestring ? a0->valuestring : "";
    int64_t h = a->hidden;
    /* the extra embeddings (positions, token types, embedding LayerNorm) and the head go to `other`
     * through vision_params, the field the shared count adds outside the blocks */
    int64_t extra = a->positions * h + types * h + 2 * h;
    int pooler = strstr(cls, "ForMaskedLM") == NULL && (!roberta || strstr(cls, "ForSequenceClassification") == NULL);
    if (strstr(cls, "ForPreTraining")) pooler = 1;
    if (pooler) extra += h * h + h;
    if (strstr(cls, "ForMaskedLM") || strstr(cls, "ForPreTraining")) extra += h * h + h + 2 * h + a->vocab;
    if (strstr(cls, "ForPreTraining")) extra += 2 * h + 2;
    if (strstr(cls, "ForSequenceClassification"))
        extra += roberta ? (h * h + h) + (h * a->labels + a->labels) : h * a->labels + a->labels;
    if (strstr(cls, "ForTokenClassification")) extra += h * a->labels + a->labels;
    a->vision_params = extra;
    /* BertPooler.dense, BertPredictionHeadTransform.dense, RobertaClassificationHead.dense: a LoRA target
     * "dense" selects these too (lora.c) */
    a->head_denses = pooler + (strstr(cls, "ForMaskedLM") || strstr(cls, "ForPreTraining")) +
                     (roberta && strstr(cls, "ForSequenceClassification"));
    a->labels = 0;
    a->encoder_only = 1; /* BertModel.forward: no past_key_values unless is_decoder (modeling_bert.py) */
    a->encoder_mlm = strstr(cls, "ForMaskedLM") != NULL || strstr(cls, "ForPreTraining") != NULL;
    return VP_OK;
}

vp_status vp_read_bert(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return read_encoder(c, p, a, 0, err); }
vp_status vp_read_roberta(const cJSON *c, const char *p, vp_arch *a, vp_error *err) { return read_encoder(c, p, a, 1, err); }

void vp_count_bert(const vp_arch *a, vp_param_counts *c) {
    vp_count_decoder(a, c);
    c->final_norm = 0; /* post-norm blocks: no norm after the last block */
}
