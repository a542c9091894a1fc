/* test_plan_parse.c: validation of vramplan/plan@1 documents (core/src/plan_parse.c, json_read.c).
 *
 * Every bad plan must be refused by vp_plan_from_json AND vp_estimate_json with the same status,
 * the exact JSON path of the offending field and a message, without crashing (run under ASan and
 * UBSan by scripts/test-core.sh). Defaults of docs/schema/plan.md are checked through the numbers
 * they produce. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vp_test.h"

#define SCHEMA "\"schema\":\"vramplan/plan@1\""
#define WL "{\"batch\":2,\"seq\":256}"
#define GPT2 "{\"model\":{\"preset\":\"gpt2\"}}"
#define PLAN(wl, inst) "{" SCHEMA ",\"workload\":" wl ",\"instances\":[" inst "]}"
#define PLANH(wl, inst, hw) "{" SCHEMA ",\"workload\":" wl ",\"instances\":[" inst "],\"hardware\":" hw "}"
/* a small llama: h 64, 2 layers, 4 heads (2 kv), f 128, v 1000 */
#define LL_TYPE "\"model_type\":\"llama\",\"hidden_size\":64,\"intermediate_size\":128"
#define LL_LAYERS ",\"num_hidden_layers\":2"
#define LL_HEADS ",\"num_attention_heads\":4,\"num_key_value_heads\":2"
#define LL_VOCAB ",\"vocab_size\":1000"
#define LLAMA_FIELDS LL_TYPE LL_LAYERS LL_HEADS LL_VOCAB
#define HF(fields) "{\"model\":{\"hf_config\":{" fields "}}}"
#define INST(fields) "{\"model\":{\"preset\":\"gpt2\"}," fields "}"
#define HFP "instances[0].model.hf_config."

typedef struct {
    const char *what;
    const char *plan;
    vp_status code;
    const char *path;
} bad_case;

static const bad_case k_bad[] = {
    /* ---- not a plan at all ---- */
    {"empty text", "", VP_ERR_JSON, ""},
    {"truncated JSON", "{" SCHEMA ",\"workload\":{\"batch\":2,", VP_ERR_JSON, ""},
    {"NaN literal", PLAN("{\"batch\":NaN,\"seq\":256}", GPT2), VP_ERR_JSON, ""},
    {"Infinity literal", PLAN("{\"batch\":2,\"seq\":Infinity}", GPT2), VP_ERR_JSON, ""},
    {"single quotes", "{'schema':'vramplan/plan@1'}", VP_ERR_JSON, ""},
    {"array instead of object", "[" PLAN(WL, GPT2) "]", VP_ERR_FIELD, ""},
    {"string instead of object", "\"vramplan/plan@1\"", VP_ERR_FIELD, ""},
    {"number instead of object", "42", VP_ERR_FIELD, ""},
    /* ---- schema version ---- */
    {"missing schema", "{\"workload\":" WL ",\"instances\":[" GPT2 "]}", VP_ERR_SCHEMA, "schema"},
    {"schema of a future major version", "{\"schema\":\"vramplan/plan@2\",\"workload\":" WL ",\"instances\":[" GPT2 "]}",
     VP_ERR_SCHEMA, "schema"},
    {"schema of another document", "{\"schema\":\"vramplan/estimate@1\",\"workload\":" WL ",\"instances\":[" GPT2 "]}",
     VP_ERR_SCHEMA, "schema"},
    {"schema as a number", "{\"schema\":1,\"workload\":" WL ",\"instances\":[" GPT2 "]}", VP_ERR_SCHEMA, "schema"},
    {"schema null", "{\"schema\":null,\"workload\":" WL ",\"instances\":[" GPT2 "]}", VP_ERR_SCHEMA, "schema"},
    /* ---- unknown / missing top-level fields ---- */
    {"unknown top-level field", "{" SCHEMA ",\"workload\":" WL ",\"instances\":[" GPT2 "],\"hardwear\":{}}",
     VP_ERR_FIELD, "hardwear"},
    {"missing workload", "{" SCHEMA ",\"instances\":[" GPT2 "]}", VP_ERR_FIELD, "workload"},
    {"workload not an object", "{" SCHEMA ",\"workload\":[2,256],\"instances\":[" GPT2 "]}", VP_ERR_FIELD, "workload"},
    {"missing instances", "{" SCHEMA ",\"workload\":" WL "}", VP_ERR_FIELD, "instances"},
    {"empty instances", PLAN(WL, ""), VP_ERR_FIELD, "instances"},
    {"instances as an object", "{" SCHEMA ",\"workload\":" WL ",\"instances\":" GPT2 "}", VP_ERR_FIELD, "instances"},
    {"nine instances", PLAN(WL, GPT2 "," GPT2 "," GPT2 "," GPT2 "," GPT2 "," GPT2 "," GPT2 "," GPT2 "," GPT2),
     VP_ERR_RANGE, "instances"},
    /* ---- workload ---- */
    {"unknown workload field", PLAN("{\"batch\":2,\"seq\":256,\"sequence\":256}", GPT2), VP_ERR_FIELD,
     "workload.sequence"},
    {"missing batch", PLAN("{\"seq\":256}", GPT2), VP_ERR_FIELD, "workload.batch"},
    {"batch null counts as missing", PLAN("{\"batch\":null,\"seq\":256}", GPT2), VP_ERR_FIELD, "workload.batch"},
    {"batch 0", PLAN("{\"batch\":0,\"seq\":256}", GPT2), VP_ERR_RANGE, "workload.batch"},
    {"batch -1", PLAN("{\"batch\":-1,\"seq\":256}", GPT2), VP_ERR_RANGE, "workload.batch"},
    {"batch 1.5", PLAN("{\"batch\":1.5,\"seq\":256}", GPT2), VP_ERR_RANGE, "workload.batch"},
    {"batch 1e30", PLAN("{\"batch\":1e30,\"seq\":256}", GPT2), VP_ERR_RANGE, "workload.batch"},
    {"batch above 2^20", PLAN("{\"batch\":1048577,\"seq\":256}", GPT2), VP_ERR_RANGE, "workload.batch"},
    {"batch as a string", PLAN("{\"batch\":\"2\",\"seq\":256}", GPT2), VP_ERR_FIELD, "workload.batch"},
    {"batch as a bool", PLAN("{\"batch\":true,\"seq\":256}", GPT2), VP_ERR_FIELD, "workload.batch"},
    {"batch as an array", PLAN("{\"batch\":[2],\"seq\":256}", GPT2), VP_ERR_FIELD, "workload.batch"},
    {"batch overflowing a double (1e999 -> inf)", PLAN("{\"batch\":1e999,\"seq\":256}", GPT2), VP_ERR_RANGE,
     "workload.batch"},
    {"seq -1", PLAN("{\"batch\":2,\"seq\":-1}", GPT2), VP_ERR_RANGE, "workload.seq"},
    {"seq 0", PLAN("{\"batch\":2,\"seq\":0}", GPT2), VP_ERR_RANGE, "workload.seq"},
    {"seq 1e300", PLAN("{\"batch\":2,\"seq\":1e300}", GPT2), VP_ERR_RANGE, "workload.seq"},
    {"seq -1e999 (-inf)", PLAN("{\"batch\":2,\"seq\":-1e999}", GPT2), VP_ERR_RANGE, "workload.seq"},
    {"seq 2^63", PLAN("{\"batch\":2,\"seq\":9223372036854775808}", GPT2), VP_ERR_RANGE, "workload.seq"},
    {"seq above 16M tokens", PLAN("{\"batch\":1,\"seq\":16777217}", GPT2), VP_ERR_RANGE, "workload.seq"},
    {"seq as a string", PLAN("{\"batch\":2,\"seq\":\"256\"}", GPT2), VP_ERR_FIELD, "workload.seq"},
    {"missing seq for a decoder", PLAN("{\"batch\":2}", GPT2), VP_ERR_FIELD, "workload.seq"},
    {"missing seq for inference", PLAN("{\"mode\":\"infer\",\"batch\":2}", GPT2), VP_ERR_FIELD, "workload.seq"},
    {"grad_accum 0", PLAN("{\"batch\":2,\"seq\":256,\"grad_accum\":0}", GPT2), VP_ERR_RANGE, "workload.grad_accum"},
    {"new_tokens -5", PLAN("{\"mode\":\"infer\",\"batch\":2,\"seq\":256,\"new_tokens\":-5}", GPT2), VP_ERR_RANGE,
     "workload.new_tokens"},
    {"dec_seq 0", PLAN("{\"batch\":2,\"seq\":256,\"dec_seq\":0}", GPT2), VP_ERR_RANGE, "workload.dec_seq"},
    {"image_size 0", PLAN("{\"batch\":2,\"seq\":256,\"image_size\":0}", GPT2), VP_ERR_RANGE, "workload.image_size"},
    {"unknown mode", PLAN("{\"mode\":\"training\",\"batch\":2,\"seq\":256}", GPT2), VP_ERR_UNSUPPORTED,
     "workload.mode"},
    {"mode as a number", PLAN("{\"mode\":1,\"batch\":2,\"seq\":256}", GPT2), VP_ERR_FIELD, "workload.mode"},
    {"unknown kv_dtype", PLAN("{\"batch\":2,\"seq\":256,\"kv_dtype\":\"fp64\"}", GPT2), VP_ERR_UNSUPPORTED,
     "workload.kv_dtype"},
    /* ---- instances ---- */
    {"instance not an object", PLAN(WL, "\"gpt2\""), VP_ERR_FIELD, "instances[0]"},
    {"unknown instance field", PLAN(WL, INST("\"modle\":1")), VP_ERR_FIELD, "instances[0].modle"},
    {"error in the second instance", PLAN(WL, GPT2 "," INST("\"role\":\"judge\"")), VP_ERR_UNSUPPORTED,
     "instances[1].role"},
    {"missing model", PLAN(WL, "{\"name\":\"policy\"}"), VP_ERR_FIELD, "instances[0].model"},
    {"model not an object", PLAN(WL, "{\"model\":\"gpt2\"}"), VP_ERR_FIELD, "instances[0].model"},
    {"empty model", PLAN(WL, "{\"model\":{}}"), VP_ERR_FIELD, "instances[0].model"},
    {"model with preset and hf_config",
     PLAN(WL, "{\"model\":{\"preset\":\"gpt2\",\"hf_config\":{" LLAMA_FIELDS "}}}"), VP_ERR_FIELD, "instances[0].model"},
    {"unknown model field", PLAN(WL, "{\"model\":{\"preset\":\"gpt2\",\"revision\":\"main\"}}"), VP_ERR_FIELD,
     "instances[0].model.revision"},
    {"unknown preset", PLAN(WL, "{\"model\":{\"preset\":\"llama-9-900b\"}}"), VP_ERR_UNSUPPORTED,
     "instances[0].model.preset"},
    {"preset as a number", PLAN(WL, "{\"model\":{\"preset\":7}}"), VP_ERR_FIELD, "instances[0].model.preset"},
    {"name too long", PLAN(WL, INST("\"name\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"")),
     VP_ERR_RANGE, "instances[0].name"},
    {"unknown role", PLAN(WL, INST("\"role\":\"judge\"")), VP_ERR_UNSUPPORTED, "instances[0].role"},
    {"unknown precision", PLAN(WL, INST("\"precision\":\"fp64\"")), VP_ERR_UNSUPPORTED, "instances[0].precision"},
    {"precision as a bool", PLAN(WL, INST("\"precision\":true")), VP_ERR_FIELD, "instances[0].precision"},
    {"unknown quant", PLAN(WL, INST("\"quant\":\"int4\"")), VP_ERR_UNSUPPORTED, "instances[0].quant"},
    {"quantized weights with a full fine-tune", PLAN(WL, INST("\"quant\":\"nf4\"")), VP_ERR_FIELD, "instances[0].quant"},
    {"double_quant as a string", PLAN(WL, INST("\"double_quant\":\"yes\"")), VP_ERR_FIELD, "instances[0].double_quant"},
    {"unknown finetune method", PLAN(WL, INST("\"finetune\":{\"method\":\"dora\"}")), VP_ERR_UNSUPPORTED,
     "instances[0].finetune.method"},
    {"finetune not an object", PLAN(WL, INST("\"finetune\":\"lora\"")), VP_ERR_FIELD, "instances[0].finetune"},
    {"unknown finetune field", PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"rank\":8}")), VP_ERR_FIELD,
     "instances[0].finetune.rank"},
    {"LoRA r 0", PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":0}}")), VP_ERR_RANGE,
     "instances[0].finetune.lora.r"},
    {"LoRA r 1e30", PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":1e30}}")), VP_ERR_RANGE,
     "instances[0].finetune.lora.r"},
    {"LoRA r fractional", PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":7.5}}")), VP_ERR_RANGE,
     "instances[0].finetune.lora.r"},
    {"LoRA dropout 1", PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"dropout\":1}}")), VP_ERR_RANGE,
     "instances[0].finetune.lora.dropout"},
    {"LoRA alpha negative", PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"alpha\":-2}}")),
     VP_ERR_RANGE, "instances[0].finetune.lora.alpha"},
    {"LoRA unknown dtype", PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"dtype\":\"fp64\"}}")),
     VP_ERR_UNSUPPORTED, "instances[0].finetune.lora.dtype"},
    {"LoRA unknown field", PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"rank\":8}}")), VP_ERR_FIELD,
     "instances[0].finetune.lora.rank"},
    {"LoRA unknown target module",
     PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":[\"q_proj\",\"qq_proj\"]}}")),
     VP_ERR_UNSUPPORTED, "instances[0].finetune.lora.targets[1]"},
    {"LoRA target not a string",
     PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":[\"q_proj\",3]}}")), VP_ERR_FIELD,
     "instances[0].finetune.lora.targets[1]"},
    {"LoRA targets as a string", PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":\"q_proj\"}}")),
     VP_ERR_FIELD, "instances[0].finetune.lora.targets"},
    {"LoRA targets empty", PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":[]}}")),
     VP_ERR_FIELD, "instances[0].finetune.lora.targets"},
    {"adapter dim 0", PLAN(WL, INST("\"finetune\":{\"method\":\"adapter\",\"adapter\":{\"dim\":0}}")), VP_ERR_RANGE,
     "instances[0].finetune.adapter.dim"},
    {"unknown freeze group", PLAN(WL, INST("\"finetune\":{\"freeze\":[\"embeddings\",\"everything\"]}")),
     VP_ERR_UNSUPPORTED, "instances[0].finetune.freeze[1]"},
    {"freeze not an array", PLAN(WL, INST("\"finetune\":{\"freeze\":\"embeddings\"}")), VP_ERR_FIELD,
     "instances[0].finetune.freeze"},
    {"unknown optimizer", PLAN(WL, INST("\"optimizer\":{\"name\":\"adamax\"}")), VP_ERR_UNSUPPORTED,
     "instances[0].optimizer.name"},
    {"unknown optimizer impl", PLAN(WL, INST("\"optimizer\":{\"name\":\"adamw\",\"impl\":\"turbo\"}")),
     VP_ERR_UNSUPPORTED, "instances[0].optimizer.impl"},
    {"optimizer as a string", PLAN(WL, INST("\"optimizer\":\"adamw\"")), VP_ERR_FIELD, "instances[0].optimizer"},
    {"unknown optimizer field", PLAN(WL, INST("\"optimizer\":{\"name\":\"adamw\",\"lr\":0.001}")), VP_ERR_FIELD,
     "instances[0].optimizer.lr"},
    {"grad_ckpt every -1", PLAN(WL, INST("\"grad_ckpt\":{\"every\":-1}")), VP_ERR_RANGE, "instances[0].grad_ckpt.every"},
    {"grad_ckpt every 1e9", PLAN(WL, INST("\"grad_ckpt\":{\"every\":1e9}")), VP_ERR_RANGE,
     "instances[0].grad_ckpt.every"},
    {"grad_ckpt as a number", PLAN(WL, INST("\"grad_ckpt\":1")), VP_ERR_FIELD, "instances[0].grad_ckpt"},
    {"unknown attn", PLAN(WL, INST("\"attn\":\"xformers\"")), VP_ERR_UNSUPPORTED, "instances[0].attn"},
    {"unknown activations", PLAN(WL, INST("\"activations\":\"always\"")), VP_ERR_UNSUPPORTED, "instances[0].activations"},
    {"passes 0", PLAN(WL, INST("\"activations\":\"keep_graph\",\"passes\":0")), VP_ERR_RANGE, "instances[0].passes"},
    {"placement on a GPU that does not exist", PLAN(WL, INST("\"placement\":{\"device\":1}")), VP_ERR_RANGE,
     "instances[0].placement.device"},
    {"placement device 99", PLAN(WL, INST("\"placement\":{\"device\":99}")), VP_ERR_RANGE,
     "instances[0].placement.device"},
    {"placement device -1", PLAN(WL, INST("\"placement\":{\"device\":-1}")), VP_ERR_RANGE,
     "instances[0].placement.device"},
    {"placement device as an unknown string", PLAN(WL, INST("\"placement\":{\"device\":\"tpu\"}")), VP_ERR_FIELD,
     "instances[0].placement.device"},
    {"unknown placement field", PLAN(WL, INST("\"placement\":{\"node\":1}")), VP_ERR_FIELD,
     "instances[0].placement.node"},
    {"shares_weights_with an unknown instance",
     PLAN(WL, GPT2 ",{\"name\":\"ref\",\"role\":\"reference\",\"shares_weights_with\":\"nobody\"}"), VP_ERR_FIELD,
     "instances[1].shares_weights_with"},
    {"shares_weights_with itself", PLAN(WL, "{\"name\":\"a\",\"shares_weights_with\":\"a\"}"), VP_ERR_FIELD,
     "instances[0].shares_weights_with"},
    /* ---- hf_config ---- */
    {"hf_config not an object", PLAN(WL, "{\"model\":{\"hf_config\":[1,2]}}"), VP_ERR_FIELD,
     "instances[0].model.hf_config"},
    {"hf_config without model_type", PLAN(WL, HF("\"hidden_size\":64")), VP_ERR_FIELD, HFP "model_type"},
    {"unknown model_type", PLAN(WL, HF("\"model_type\":\"x-mamba\",\"hidden_size\":64")), VP_ERR_UNSUPPORTED,
     HFP "model_type"},
    {"model_type as a number", PLAN(WL, HF("\"model_type\":5")), VP_ERR_FIELD, HFP "model_type"},
    {"hidden_size 1e30",
     PLAN(WL, HF("\"model_type\":\"llama\",\"hidden_size\":1e30,\"intermediate_size\":128,\"num_hidden_layers\":2,"
                 "\"num_attention_heads\":4,\"vocab_size\":1000")),
     VP_ERR_RANGE, HFP "hidden_size"},
    {"hidden_size 0",
     PLAN(WL, HF("\"model_type\":\"llama\",\"hidden_size\":0,\"intermediate_size\":128,\"num_hidden_layers\":2,"
                 "\"num_attention_heads\":4,\"vocab_size\":1000")),
     VP_ERR_RANGE, HFP "hidden_size"},
    {"hidden_size as a string",
     PLAN(WL, HF("\"model_type\":\"llama\",\"hidden_size\":\"64\",\"intermediate_size\":128,\"num_hidden_layers\":2,"
                 "\"num_attention_heads\":4,\"vocab_size\":1000")),
     VP_ERR_FIELD, HFP "hidden_size"},
    {"missing hidden_size",
     PLAN(WL, HF("\"model_type\":\"llama\",\"intermediate_size\":128,\"num_hidden_layers\":2,"
                 "\"num_attention_heads\":4,\"vocab_size\":1000")),
     VP_ERR_FIELD, HFP "hidden_size"},
    {"missing intermediate_size",
     PLAN(WL, HF("\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,"
                 "\"num_attention_heads\":4,\"vocab_size\":1000")),
     VP_ERR_FIELD, HFP "intermediate_size"},
    {"num_hidden_layers 1e6", PLAN(WL, HF(LL_TYPE ",\"num_hidden_layers\":1000000" LL_HEADS LL_VOCAB)), VP_ERR_RANGE,
     HFP "num_hidden_layers"},
    {"num_key_value_heads does not divide the heads", PLAN(WL, HF(LL_TYPE LL_LAYERS ",\"num_attention_heads\":4,\"num_key_value_heads\":3" LL_VOCAB)),
     VP_ERR_RANGE, HFP "num_key_value_heads"},
    {"num_key_value_heads 0", PLAN(WL, HF(LL_TYPE LL_LAYERS ",\"num_attention_heads\":4,\"num_key_value_heads\":0" LL_VOCAB)), VP_ERR_RANGE,
     HFP "num_key_value_heads"},
    {"heads do not divide hidden_size", PLAN(WL, HF(LL_TYPE LL_LAYERS ",\"num_attention_heads\":6,\"num_key_value_heads\":6" LL_VOCAB)),
     VP_ERR_RANGE, HFP "num_attention_heads"},
    {"vocab_size -1", PLAN(WL, HF(LL_TYPE LL_LAYERS LL_HEADS ",\"vocab_size\":-1")), VP_ERR_RANGE, HFP "vocab_size"},
    {"tie_word_embeddings as a string", PLAN(WL, HF(LLAMA_FIELDS ",\"tie_word_embeddings\":\"yes\"")), VP_ERR_FIELD,
     HFP "tie_word_embeddings"},
    {"attention_dropout 2", PLAN(WL, HF(LLAMA_FIELDS ",\"attention_dropout\":2")), VP_ERR_RANGE,
     HFP "attention_dropout"},
    {"mixtral without experts",
     PLAN(WL, HF("\"model_type\":\"mixtral\",\"hidden_size\":64,\"intermediate_size\":128,\"num_hidden_layers\":2,"
                 "\"num_attention_heads\":4,\"vocab_size\":1000,\"num_experts_per_tok\":2")),
     VP_ERR_FIELD, HFP "num_local_experts"},
    {"mixtral top-k above the expert count",
     PLAN(WL, HF("\"model_type\":\"mixtral\",\"hidden_size\":64,\"intermediate_size\":128,\"num_hidden_layers\":2,"
                 "\"num_attention_heads\":4,\"vocab_size\":1000,\"num_local_experts\":2,\"num_experts_per_tok\":3")),
     VP_ERR_RANGE, HFP "num_experts_per_tok"},
    {"gpt2 without n_embd", PLAN(WL, HF("\"model_type\":\"gpt2\",\"n_layer\":2,\"n_head\":2")), VP_ERR_FIELD,
     HFP "n_embd"},
    {"t5 d_model NaN-like string", PLAN(WL, HF("\"model_type\":\"t5\",\"d_model\":\"NaN\",\"d_ff\":64,\"d_kv\":8,"
                                               "\"num_layers\":1,\"num_heads\":2")),
     VP_ERR_FIELD, HFP "d_model"},
    {"vit patch larger than the image",
     PLAN("{\"batch\":2}", HF("\"model_type\":\"vit\",\"hidden_size\":64,\"num_hidden_layers\":2,"
                               "\"num_attention_heads\":4,\"intermediate_size\":128,\"image_size\":16,\"patch_size\":32")),
     VP_ERR_RANGE, HFP "patch_size"},
    /* ---- custom ---- */
    {"custom with an unknown field",
     PLAN(WL, "{\"model\":{\"custom\":{\"hidden_size\":64,\"num_layers\":2,\"num_heads\":4,\"intermediate_size\":128,"
              "\"vocab_size\":1000,\"layers\":2}}}"),
     VP_ERR_FIELD, "instances[0].model.custom.layers"},
    {"custom without vocab_size",
     PLAN(WL, "{\"model\":{\"custom\":{\"hidden_size\":64,\"num_layers\":2,\"num_heads\":4,\"intermediate_size\":128}}}"),
     VP_ERR_FIELD, "instances[0].model.custom.vocab_size"},
    {"custom with an unknown mlp",
     PLAN(WL, "{\"model\":{\"custom\":{\"hidden_size\":64,\"num_layers\":2,\"num_heads\":4,\"intermediate_size\":128,"
              "\"vocab_size\":1000,\"mlp\":\"swish\"}}}"),
     VP_ERR_UNSUPPORTED, "instances[0].model.custom.mlp"},
    /* ---- hardware ---- */
    {"unknown GPU preset", PLANH(WL, GPT2, "{\"gpu\":\"tpu-v5\"}"), VP_ERR_UNSUPPORTED, "hardware.gpu"},
    {"GPU as a number", PLANH(WL, GPT2, "{\"gpu\":80}"), VP_ERR_FIELD, "hardware.gpu"},
    {"hardware not an object", PLANH(WL, GPT2, "\"h100\""), VP_ERR_FIELD, "hardware"},
    {"unknown hardware field", PLANH(WL, GPT2, "{\"gpus\":2}"), VP_ERR_FIELD, "hardware.gpus"},
    {"count 0", PLANH(WL, GPT2, "{\"count\":0}"), VP_ERR_RANGE, "hardware.count"},
    {"count 17", PLANH(WL, GPT2, "{\"count\":17}"), VP_ERR_RANGE, "hardware.count"},
    {"capacity_bytes -1", PLANH(WL, GPT2, "{\"capacity_bytes\":-1}"), VP_ERR_RANGE, "hardware.capacity_bytes"},
    {"capacity_bytes 1e300", PLANH(WL, GPT2, "{\"capacity_bytes\":1e300}"), VP_ERR_RANGE, "hardware.capacity_bytes"},
    {"capacity_bytes as a string", PLANH(WL, GPT2, "{\"capacity_bytes\":\"80GB\"}"), VP_ERR_FIELD,
     "hardware.capacity_bytes"},
    /* ---- JSON text the way Python's json and jq read it (json_text.c) ---- */
    {"text after the plan", PLAN(WL, GPT2) " x", VP_ERR_JSON, ""},
    {"two plans in one text", PLAN(WL, GPT2) PLAN(WL, GPT2), VP_ERR_JSON, ""},
    {"number with a plus sign", PLAN("{\"batch\":+2,\"seq\":256}", GPT2), VP_ERR_JSON, ""},
    {"number with a leading zero", PLAN("{\"batch\":02,\"seq\":256}", GPT2), VP_ERR_JSON, ""},
    {"number starting with a point", PLAN("{\"batch\":2,\"seq\":.5}", GPT2), VP_ERR_JSON, ""},
    {"number ending with a point", PLAN("{\"batch\":2.,\"seq\":256}", GPT2), VP_ERR_JSON, ""},
    {"number of 70 digits", PLAN("{\"batch\":1000000000000000000000000000000000000000000000000000000000000000000000,\"seq\":256}", GPT2),
     VP_ERR_JSON, ""},
    {"trailing comma", PLAN("{\"batch\":2,\"seq\":256,}", GPT2), VP_ERR_JSON, ""},
    {"control character as white space", "\x01" PLAN(WL, GPT2), VP_ERR_JSON, ""},
    {"raw tab inside a string", PLAN(WL, INST("\"name\":\"a\tb\"")), VP_ERR_JSON, ""},
    {"UTF-8 byte-order mark", "\xEF\xBB\xBF" PLAN(WL, GPT2), VP_ERR_JSON, ""},
    {"byte 0xFF in a name", PLAN(WL, INST("\"name\":\"a\xFF\"")), VP_ERR_JSON, "instances[0].name"},
    {"overlong '/' (C0 AF) in a name", PLAN(WL, INST("\"name\":\"a\xC0\xAF\"")), VP_ERR_JSON, "instances[0].name"},
    {"overlong 3-byte form in a name", PLAN(WL, INST("\"name\":\"\xE0\x80\xAF\"")), VP_ERR_JSON, "instances[0].name"},
    {"UTF-8-encoded surrogate in a name", PLAN(WL, INST("\"name\":\"\xED\xA0\x80\"")), VP_ERR_JSON, "instances[0].name"},
    {"code point above U+10FFFF", PLAN(WL, INST("\"name\":\"\xF4\x90\x80\x80\"")), VP_ERR_JSON, "instances[0].name"},
    {"UTF-8 cut short at the closing quote", PLAN(WL, INST("\"name\":\"\xC3\"")), VP_ERR_JSON, "instances[0].name"},
    {"lone high surrogate escape", PLAN(WL, INST("\"name\":\"\\ud800\"")), VP_ERR_JSON, "instances[0].name"},
    {"lone low surrogate escape", PLAN(WL, INST("\"name\":\"\\udc00x\"")), VP_ERR_JSON, "instances[0].name"},
    {"high surrogate then a non-surrogate", PLAN(WL, INST("\"name\":\"\\ud83d\\u0041\"")), VP_ERR_JSON,
     "instances[0].name"},
    {"invalid UTF-8 in a key", PLAN(WL, INST("\"na\xFFme\":\"x\"")), VP_ERR_JSON, "instances[0]"},
    {"invalid UTF-8 in an hf_config string", PLAN(WL, HF(LLAMA_FIELDS ",\"torch_dtype\":\"bf\xFE" "16\"")), VP_ERR_JSON,
     HFP "torch_dtype"},
    {"NUL escape cutting an enum (fp32\\u0000amp)", PLAN("{\"mode\":\"train\\u0000x\",\"batch\":2,\"seq\":256}", GPT2),
     VP_ERR_FIELD, "workload.mode"},
    {"NUL escape in a preset name", PLAN(WL, "{\"model\":{\"preset\":\"gpt2\\u0000evil\"}}"), VP_ERR_FIELD,
     "instances[0].model.preset"},
    /* ---- keys given twice, in every object (cJSON keeps the first; Python and HF keep the last) ---- */
    {"duplicate key in hf_config", PLAN(WL, HF(LLAMA_FIELDS ",\"hidden_size\":128")), VP_ERR_FIELD, HFP "hidden_size"},
    {"duplicate key in an ignored hf_config field", PLAN(WL, HF(LLAMA_FIELDS ",\"rope_scaling\":{\"factor\":8,\"factor\":4}")),
     VP_ERR_FIELD, HFP "rope_scaling.factor"},
    {"duplicate key in a large hf_config",
     PLAN(WL, HF(LLAMA_FIELDS ",\"a1\":1,\"a2\":1,\"a3\":1,\"a4\":1,\"a5\":1,\"a6\":1,\"a7\":1,\"a8\":1,\"a9\":1,"
                              "\"b1\":1,\"b2\":1,\"b3\":1,\"b4\":1,\"b5\":1,\"b6\":1,\"vocab_size\":2000")),
     VP_ERR_FIELD, HFP "vocab_size"},
    {"duplicate key spelled with an escape", PLAN(WL, HF(LLAMA_FIELDS ",\"hidden_\\u0073ize\":128")), VP_ERR_FIELD,
     HFP "hidden_size"},
    {"duplicate key in name/note", "{" SCHEMA ",\"note\":\"a\",\"note\":\"b\",\"workload\":" WL ",\"instances\":[" GPT2 "]}",
     VP_ERR_FIELD, "note"},
    /* ---- instances ---- */
    {"two instances with one name", PLAN(WL, INST("\"name\":\"a\"") "," INST("\"name\":\"a\"")), VP_ERR_FIELD,
     "instances[1].name"},
    {"two unnamed instances of one role", PLAN(WL, GPT2 "," INST("\"role\":\"reference\"") "," INST("\"role\":\"reference\"")),
     VP_ERR_FIELD, "instances[2].name"},
    {"stream_to a GPU that does not exist", PLAN(WL, INST("\"placement\":{\"device\":\"cpu\",\"stream_to\":3}")),
     VP_ERR_RANGE, "instances[0].placement.stream_to"},
    {"stream_to GPU 1 of 1", PLANH(WL, GPT2 "," INST("\"name\":\"t\",\"role\":\"teacher\",\"placement\":{\"device\":\"cpu\",\"stream_to\":1}"),
                                   "{\"count\":1}"),
     VP_ERR_RANGE, "instances[1].placement.stream_to"},
    /* ---- jobs PyTorch / PEFT / HF refuse to run ---- */
    {"LoRA targets that no gpt2 module has (PEFT: Target modules not found)",
     PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":[\"q_proj\",\"v_proj\"]}}")), VP_ERR_FIELD,
     "instances[0].finetune.lora.targets"},
    {"LoRA target q on a llama (its module is q_proj)",
     PLAN(WL, "{\"model\":{\"hf_config\":{" LLAMA_FIELDS "}},\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":[\"q\"]}}}"),
     VP_ERR_FIELD, "instances[0].finetune.lora.targets"},
    {"LoRA on gate_proj of mixtral (experts are w1 w2 w3)",
     PLAN(WL, "{\"model\":{\"hf_config\":{\"model_type\":\"mixtral\",\"hidden_size\":64,\"intermediate_size\":128,"
              "\"num_hidden_layers\":2,\"num_attention_heads\":4,\"vocab_size\":1000,\"num_local_experts\":4,"
              "\"num_experts_per_tok\":2}},\"finetune\":{\"method\":\"qlora\",\"lora\":{\"targets\":[\"gate_proj\"]}}}"),
     VP_ERR_FIELD, "instances[0].finetune.lora.targets"},
    {"full fine-tune with every group frozen (optimizer got an empty parameter list)",
     PLAN(WL, INST("\"finetune\":{\"freeze\":[\"embeddings\",\"lm_head\",\"attention\",\"mlp\",\"norms\"]}")), VP_ERR_FIELD,
     "instances[0].finetune.freeze"},
    {"full fine-tune of a llama with every group frozen",
     PLAN(WL, HF(LLAMA_FIELDS) "," "{\"name\":\"b\",\"model\":{\"hf_config\":{" LLAMA_FIELDS "}},\"finetune\":{\"method\":\"full\","
              "\"freeze\":[\"embeddings\",\"lm_head\",\"attention\",\"mlp\",\"norms\"]}}"),
     VP_ERR_FIELD, "instances[1].finetune.freeze"},
    {"seq beyond gpt2's 1024 learned positions", PLAN("{\"batch\":1,\"seq\":1025}", GPT2), VP_ERR_RANGE, "workload.seq"},
    {"generation beyond gpt2's learned positions",
     PLAN("{\"mode\":\"infer\",\"batch\":1,\"seq\":1000,\"new_tokens\":25}", GPT2), VP_ERR_RANGE, "workload.new_tokens"},
    {"seq beyond n_positions of an hf_config gpt2",
     PLAN("{\"batch\":1,\"seq\":129}", HF("\"model_type\":\"gpt2\",\"n_embd\":64,\"n_layer\":2,\"n_head\":4,\"n_positions\":128")),
     VP_ERR_RANGE, "workload.seq"},
    /* ---- settings that contradict each other ---- */
    {"parallel.fsdp together with zero 3", "{" SCHEMA ",\"workload\":" WL ",\"instances\":[" GPT2 "],\"hardware\":{\"count\":2},"
                                            "\"parallel\":{\"dp\":2,\"fsdp\":\"full_shard\",\"zero\":3}}",
     VP_ERR_FIELD, "parallel.zero"},
    {"parallel.fsdp together with zero 1", "{" SCHEMA ",\"workload\":" WL ",\"instances\":[" GPT2 "],\"parallel\":{\"zero\":1,\"fsdp\":\"no_shard\"}}",
     VP_ERR_FIELD, "parallel.zero"},
    {"hardware.device 0 without a probe", PLANH(WL, GPT2, "{\"device\":0}"), VP_ERR_FIELD, "hardware.device"},
    {"hardware.mig_instance without a probe", PLANH(WL, GPT2, "{\"mig_instance\":0}"), VP_ERR_FIELD, "hardware.mig_instance"},
};

static void bad_plans(void **s) {
    (void)s;
    for (size_t i = 0; i < sizeof k_bad / sizeof k_bad[0]; i++) {
        t_expect_error(k_bad[i].plan, k_bad[i].code, k_bad[i].path);
    }
}

/* The bad plans above differ from a good one in one field: these good ones must pass, so a refusal
 * above is caused by the field it names. */
static void good_plans(void **s) {
    (void)s;
    static const char *const good[] = {
        PLAN(WL, GPT2),
        PLAN("{\"batch\":2,\"seq\":256,\"grad_accum\":null,\"new_tokens\":null}", GPT2),
        PLAN("{\"mode\":\"infer\",\"batch\":2,\"seq\":256,\"new_tokens\":5}", GPT2),
        PLAN(WL, HF(LLAMA_FIELDS)),
        PLAN(WL, HF(LLAMA_FIELDS ",\"architectures\":[\"LlamaForCausalLM\"],\"rope_scaling\":{\"factor\":8.0},"
                                 "\"torch_dtype\":\"bfloat16\",\"some_future_field\":{\"x\":[1,2,3]}")),
        PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":8,\"targets\":[\"c_attn\"]}}")),
        PLAN(WL, INST("\"grad_ckpt\":true")),
        PLAN(WL, INST("\"grad_ckpt\":{\"every\":2}")),
        PLAN(WL, INST("\"placement\":{\"device\":\"cpu\",\"pinned\":true}")),
        PLANH(WL, INST("\"placement\":{\"device\":1}"), "{\"count\":2}"),
        PLANH(WL, GPT2, "{\"gpu\":\"a100-sxm-80gb\"}"),
        PLANH(WL, GPT2, "{\"capacity_bytes\":25769803776}"),
        "{" SCHEMA ",\"name\":\"my plan\",\"note\":\"anything\",\"workload\":" WL ",\"instances\":[" GPT2 "]}",
        PLAN(WL, GPT2 ",{\"name\":\"ref\",\"role\":\"reference\",\"shares_weights_with\":\"trained\"}"),
        PLAN(WL, "{\"model\":{\"custom\":{\"hidden_size\":64,\"num_layers\":2,\"num_heads\":4,\"intermediate_size\":128,"
                 "\"vocab_size\":1000}}}"),
        PLAN("{\"batch\":2}", HF("\"model_type\":\"vit\",\"hidden_size\":64,\"num_hidden_layers\":2,"
                                 "\"num_attention_heads\":4,\"intermediate_size\":128")),
        /* the strict reader still reads all of JSON */
        "\r\n\t " PLAN("{\"batch\":2.0e0,\"seq\":2560E-1}", GPT2) " \n",
        PLAN(WL, INST("\"name\":\"\\u00e9t\\u00E9 \\ud83d\\ude00 \\\"q\\\" \\/ \\b\\f\\n\\r\\t\"")),
        PLAN(WL, INST("\"name\":\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"")),
        PLAN(WL, HF(LLAMA_FIELDS ",\"a\":{},\"b\":[],\"c\":[[[]]],\"d\":-0.5e-3,\"e\":null,\"f\":\"\"")),
        /* the same key in two different objects is not a duplicate */
        PLAN(WL, HF(LLAMA_FIELDS ",\"rope_scaling\":{\"hidden_size\":1},\"x\":{\"hidden_size\":2}")),
        /* LoRA: a target list with one name the model has (PEFT ignores the others) */
        PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":[\"q_proj\",\"c_attn\"]}}")),
        PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":[\"all-linear\"]}}")),
        /* freezing all but the norms still trains something */
        PLAN(WL, INST("\"finetune\":{\"freeze\":[\"embeddings\",\"lm_head\",\"attention\",\"mlp\"]}")),
        /* gpt2 at exactly its 1024 positions; generation up to them */
        PLAN("{\"batch\":1,\"seq\":1024}", GPT2),
        PLAN("{\"mode\":\"infer\",\"batch\":1,\"seq\":1000,\"new_tokens\":24}", GPT2),
        /* llama has rotary positions: no table to run past */
        PLAN("{\"batch\":1,\"seq\":65536}", HF(LLAMA_FIELDS)),
        /* stream_to a GPU that exists; a named instance beside an unnamed one of another role */
        PLANH(WL, GPT2 "," INST("\"role\":\"teacher\",\"placement\":{\"device\":\"cpu\",\"stream_to\":1}"), "{\"count\":2}"),
        "{" SCHEMA ",\"workload\":" WL ",\"instances\":[" GPT2 "],\"parallel\":{\"zero\":0,\"fsdp\":\"no_shard\"}}",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) (void)t_estimate(good[i]);
}

/* The message of an unknown schema names the version seen and the version this build reads
 * (docs/schema/plan.md "Versioning"). */
static void schema_message(void **s) {
    (void)s;
    const char *msg = t_expect_error("{\"schema\":\"vramplan/plan@2\",\"workload\":" WL ",\"instances\":[" GPT2 "]}",
                                     VP_ERR_SCHEMA, "schema");
    assert_contains(msg, "vramplan/plan@2");
    assert_contains(msg, "vramplan/plan@1");
    msg = t_expect_error(PLAN(WL, HF("\"model_type\":\"x-mamba\"")), VP_ERR_UNSUPPORTED, HFP "model_type");
    assert_contains(msg, "mamba");
    assert_contains(msg, "llama");
    msg = t_expect_error(PLAN(WL, "{\"model\":{\"preset\":\"llama-9-900b\"}}"), VP_ERR_UNSUPPORTED,
                         "instances[0].model.preset");
    assert_contains(msg, "llama-9-900b");
}

/* Messages a person can act on: a syntax error gives its line and column; an absurd number is
 * printed short (1e308 in full is 309 digits); 1e999 overflows to infinity and is named as such;
 * a key given twice and a bad byte are named with their field. */
static void json_messages(void **s) {
    (void)s;
    const char *msg = t_expect_error("{\n  \"schema\": \"vramplan/plan@1\",\n  \"workload\": {\"batch\": 2,, \"seq\": 8}\n}", VP_ERR_JSON, "");
    assert_contains(msg, "line 3, column 27");
    assert_contains(msg, "workload");
    msg = t_expect_error(PLAN(WL, GPT2) "\n\n  garbage", VP_ERR_JSON, "");
    assert_contains(msg, "line 3, column 3");
    assert_contains(msg, "after the end");
    /* columns count characters, not bytes */
    msg = t_expect_error("{\"note\":\"\xC3\xA9\xC3\xA9\" x}", VP_ERR_JSON, "");
    assert_contains(msg, "line 1, column 14");
    msg = t_expect_error(PLAN(WL, INST("\"name\":\"ab\xFF\"")), VP_ERR_JSON, "instances[0].name");
    assert_contains(msg, "UTF-8");
    assert_contains(msg, "0xFF");
    msg = t_expect_error(PLAN("{\"batch\":1e308,\"seq\":256}", GPT2), VP_ERR_RANGE, "workload.batch");
    assert_true(strlen(msg) < 120);
    assert_contains(msg, "1e+308");
    msg = t_expect_error(PLAN("{\"batch\":1e999,\"seq\":256}", GPT2), VP_ERR_RANGE, "workload.batch");
    assert_contains(msg, "not a finite number");
    msg = t_expect_error(PLAN("{\"batch\":2,\"seq\":123456789012}", GPT2), VP_ERR_RANGE, "workload.seq");
    assert_contains(msg, "123456789012");
    msg = t_expect_error(PLAN(WL, HF(LLAMA_FIELDS ",\"hidden_size\":128")), VP_ERR_FIELD, HFP "hidden_size");
    assert_contains(msg, "twice");
    msg = t_expect_error(PLAN("{\"mode\":\"fp32\\u0000amp\",\"batch\":2,\"seq\":256}", GPT2), VP_ERR_FIELD, "workload.mode");
    assert_contains(msg, "\\u0000");
    msg = t_expect_error(PLAN(WL, INST("\"finetune\":{\"method\":\"lora\",\"lora\":{\"targets\":[\"q_proj\"]}}")), VP_ERR_FIELD,
                         "instances[0].finetune.lora.targets");
    assert_contains(msg, "not found in the base model");
    assert_contains(msg, "c_attn");
    msg = t_expect_error(PLAN(WL, INST("\"finetune\":{\"freeze\":[\"embeddings\",\"lm_head\",\"attention\",\"mlp\",\"norms\"]}")),
                         VP_ERR_FIELD, "instances[0].finetune.freeze");
    assert_contains(msg, "empty parameter list");
    msg = t_expect_error(PLAN("{\"batch\":1,\"seq\":2048}", GPT2), VP_ERR_RANGE, "workload.seq");
    assert_contains(msg, "1024");
    /* nesting: deep but legal is read, beyond 512 levels refused as JSON, never a stack overflow */
    char *deep = t_fmt("%s", PLAN(WL, HF(LLAMA_FIELDS ",\"x\":" "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]")));
    (void)t_estimate(deep);
    size_t n = 100000;
    char *nest = malloc(2 * n + 1);
    assert_non_null(nest);
    memset(nest, '[', n);
    memset(nest + n, ']', n);
    nest[2 * n] = '\0';
    vp_error err;
    vp_plan *p = vp_plan_from_json(nest, t_registry(), &err);
    free(nest);
    assert_null(p);
    assert_int_equal(err.code, VP_ERR_JSON);
    assert_contains(err.message, "deeper");
}

/* A node's GPUs that the layout leaves unused are named in a warning (8 GPUs, dp × tp × pp = 1 or 3). */
static void idle_gpus_warned(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(PLANH(WL, GPT2, "{\"count\":8}"));
    int found = 0;
    for (int i = 0; i < e->n_warnings; i++)
        if (strstr(e->warnings[i], "7 of the 8 GPUs stay idle")) found = 1;
    assert_true(found);
    e = t_estimate("{" SCHEMA ",\"workload\":" WL ",\"instances\":[" GPT2 "],\"hardware\":{\"count\":8},\"parallel\":{\"dp\":3}}");
    found = 0;
    for (int i = 0; i < e->n_warnings; i++)
        if (strstr(e->warnings[i], "5 of the 8 GPUs stay idle") && strstr(e->warnings[i], "= 3")) found = 1;
    assert_true(found);
    /* a teacher pinned to GPU 3 and a model streamed through GPU 5 use those GPUs */
    e = t_estimate("{" SCHEMA ",\"workload\":" WL ",\"instances\":[" GPT2 "," INST("\"name\":\"t\",\"role\":\"teacher\",\"placement\":{\"device\":3}")
                   "," INST("\"name\":\"r\",\"role\":\"reference\",\"placement\":{\"device\":\"cpu\",\"stream_to\":5}")
                   "],\"hardware\":{\"count\":8},\"parallel\":{\"dp\":2}}");
    found = 0;
    for (int i = 0; i < e->n_warnings; i++)
        if (strstr(e->warnings[i], "4 of the 8 GPUs stay idle")) found = 1;
    assert_true(found);
    /* every GPU used: no warning */
    e = t_estimate("{" SCHEMA ",\"workload\":" WL ",\"instances\":[" GPT2 "],\"hardware\":{\"count\":8},\"parallel\":{\"dp\":8}}");
    for (int i = 0; i < e->n_warnings; i++) assert_null(strstr(e->warnings[i], "idle"));
    e = t_estimate(PLAN(WL, GPT2));
    for (int i = 0; i < e->n_warnings; i++) assert_null(strstr(e->warnings[i], "idle"));
}

/* NULL inputs and a NULL error pointer are refused without a crash. */
static void null_arguments(void **s) {
    (void)s;
    vp_error err;
    assert_null(vp_plan_from_json(NULL, t_registry(), &err));
    assert_int_equal(err.code, VP_ERR_JSON);
    assert_null(vp_estimate_json(NULL, t_registry(), 0, &err));
    assert_int_equal(err.code, VP_ERR_JSON);
    assert_null(vp_plan_from_json("{", t_registry(), NULL));
    assert_null(vp_estimate_json(PLAN("{\"batch\":0,\"seq\":1}", GPT2), t_registry(), 0, NULL));
    /* without a registry presets are refused, hf_config plans still work */
    assert_null(vp_plan_from_json(PLAN(WL, GPT2), NULL, &err));
    assert_int_equal(err.code, VP_ERR_UNSUPPORTED);
    assert_string_equal(err.path, "instances[0].model.preset");
    vp_plan *p = vp_plan_from_json(PLANH(WL, HF(LLAMA_FIELDS), "{\"capacity_bytes\":25769803776}"), NULL, &err);
    assert_non_null(p);
    vp_plan_free(p);
    vp_plan_free(NULL);
    vp_registry_free(NULL);
    vp_free(NULL);
    assert_int_equal(vp_estimate_plan(NULL, NULL, &err), VP_ERR_FIELD);
}

/* Malformed input of every length: each prefix of a good plan is refused as bad JSON and never crashes. */
static void every_prefix_is_refused(void **s) {
    (void)s;
    const char *full = PLAN("{\"batch\":2,\"seq\":256}", HF(LLAMA_FIELDS));
    size_t n = strlen(full);
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    for (size_t k = 0; k < n; k++) {
        memcpy(buf, full, k);
        buf[k] = '\0';
        vp_error err;
        vp_plan *p = vp_plan_from_json(buf, t_registry(), &err);
        if (p) {
            vp_plan_free(p);
            free(buf);
            fail_msg("prefix of %zu bytes accepted", k);
        }
        if (err.code != VP_ERR_JSON) {
            free(buf);
            fail_msg("prefix of %zu bytes: %s, expected a JSON error", k, vp_status_name(err.code));
        }
    }
    free(buf);
}

/* ---- defaults (docs/schema/plan.md "Defaults") ------------------------------------------------ */

/* train defaults to amp_bf16: fp32 master weights, 4 B/param. GPT-2: 124,439,808 × 4 = 497,759,232 B */
static void default_precision_train(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(PLAN(WL, GPT2));
    assert_string_equal(e->instances[0].role, "trained");
    assert_string_equal(e->instances[0].name, "trained"); /* name defaults to the role */
    assert_u64_equal(t_component(e, 0, "weights", NULL), 124439808ULL * 4);
    /* default optimizer AdamW (foreach): m and v in fp32 = 8 B/param = 995,518,464 B */
    assert_u64_equal(t_component(e, 0, "optimizer_state", NULL), 124439808ULL * 8);
    /* the same plan with everything spelled out */
    const vp_estimate *f = t_estimate(PLANH("{\"mode\":\"train\",\"batch\":2,\"seq\":256,\"grad_accum\":1}",
                                            INST("\"role\":\"trained\",\"precision\":\"amp_bf16\",\"quant\":\"none\","
                                                 "\"finetune\":{\"method\":\"full\"},\"optimizer\":{\"name\":\"adamw\","
                                                 "\"impl\":\"foreach\"},\"grad_ckpt\":{\"every\":0},\"attn\":\"sdpa\","
                                                 "\"activations\":\"train\",\"passes\":1,\"placement\":{\"device\":0}"),
                                            "{\"gpu\":\"h100-sxm-80gb\",\"count\":1}"));
    assert_u64_equal(f->devices[0].peak_alloc_bytes, e->devices[0].peak_alloc_bytes);
    assert_string_equal(f->devices[0].peak_phase, e->devices[0].peak_phase);
}

/* infer defaults to bf16 weights: 2 B/param = 248,879,616 B, no gradients, no optimizer state. */
static void default_precision_infer(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(PLAN("{\"mode\":\"infer\",\"batch\":2,\"seq\":256}", GPT2));
    assert_u64_equal(t_component(e, 0, "weights", NULL), 124439808ULL * 2);
    assert_false(t_has_component(e, 0, "grads"));
    assert_false(t_has_component(e, 0, "optimizer_state"));
    assert_u64_equal(e->instances[0].params_trainable, 0);
}

/* hardware defaults to the h100-sxm-80gb preset: CUDA total 85,017,493,504 B (models/gpus, measured). */
static void default_gpu(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(PLAN(WL, GPT2));
    assert_int_equal(e->n_devices, 1);
    assert_u64_equal(e->devices[0].capacity_bytes, 85017493504ULL);
    assert_string_equal(e->devices[0].name, "NVIDIA H100 SXM5 80GB");
    const vp_estimate *c = t_estimate(PLANH(WL, GPT2, "{\"capacity_bytes\":25769803776}"));
    assert_u64_equal(c->devices[0].capacity_bytes, 25769803776ULL);
}

/* An instance placed on GPU 1 of 2 puts its weights there. */
static void placement(void **s) {
    (void)s;
    const vp_estimate *e = t_estimate(PLANH(WL, GPT2 "," INST("\"name\":\"second\",\"placement\":{\"device\":1}"),
                                            "{\"count\":2}"));
    assert_int_equal(e->n_devices, 2);
    assert_int_equal(e->devices[1].index, 1);
    assert_u64_equal(t_component(e, 0, "weights", "trained"), 124439808ULL * 4);
    assert_u64_equal(t_component(e, 0, "weights", "second"), 0);
    assert_u64_equal(t_component(e, 1, "weights", "second"), 124439808ULL * 4);
    /* on the CPU: nothing of it on a GPU */
    const vp_estimate *c =
        t_estimate(PLAN(WL, INST("\"name\":\"offloaded\",\"placement\":{\"device\":\"cpu\"}")));
    assert_u64_equal(t_component(c, 0, "weights", "offloaded"), 0);
}

/* A reference that runs through the policy's weights (shares_weights_with) adds no weights. */
static void shared_weights(void **s) {
    (void)s;
    const vp_estimate *e =
        t_estimate(PLAN(WL, GPT2 ",{\"name\":\"ref\",\"role\":\"reference\",\"shares_weights_with\":\"trained\"}"));
    assert_int_equal(e->n_instances, 2);
    assert_u64_equal(e->instances[1].params_total, 124439808ULL);
    assert_u64_equal(t_component(e, 0, "weights", NULL), 124439808ULL * 4);
}

/* grad_ckpt: true is every layer. */
static void grad_ckpt_bool(void **s) {
    (void)s;
    const vp_estimate *a = t_estimate(PLAN(WL, INST("\"grad_ckpt\":true")));
    const vp_estimate *b = t_estimate(PLAN(WL, INST("\"grad_ckpt\":{\"every\":1}")));
    const vp_estimate *c = t_estimate(PLAN(WL, GPT2));
    assert_u64_equal(a->devices[0].peak_alloc_bytes, b->devices[0].peak_alloc_bytes);
    assert_true(a->devices[0].peak_alloc_bytes < c->devices[0].peak_alloc_bytes);
}

/* "parallel" is validated like the rest: unknown keys, wrong types and zero sizes are named. */
static void parallel_validated(void **s) {
    (void)s;
    t_expect_error("{" SCHEMA ",\"workload\":" WL ",\"instances\":[" GPT2 "],\"parallel\":{\"zerro\":3}}", VP_ERR_FIELD,
                   "parallel.zerro");
    t_expect_error("{" SCHEMA ",\"workload\":" WL ",\"instances\":[" GPT2 "],\"parallel\":\"fsdp\"}", VP_ERR_FIELD,
                   "parallel");
    t_expect_error("{" SCHEMA ",\"workload\":" WL ",\"instances\":[" GPT2 "],\"parallel\":{\"dp\":0}}", VP_ERR_RANGE,
                   "parallel.dp");
}

/* ---- known bugs (registered as their own ctest, plan_parse_bugs) --------------------------------- */

/* Every size in range, but products that overflow int64 (logits b·s·v·bytes in logits.c, the KV cache
 * of 2^20 × 2^25 tokens in timeline_infer.c, reserved = alloc + alloc/20 in runtime.c): the estimate
 * then said "Fits" with a headroom of billions of GiB. An absurd workload must be refused (a range
 * error on workload.batch or workload.seq) or at least predicted not to fit. Under UBSan this aborts
 * with "signed integer overflow" (logits.c:27). */
static void refused_or_does_not_fit(const char *plan) {
    vp_error err;
    vp_plan *p = vp_plan_from_json(plan, t_registry(), &err);
    if (!p) {
        assert_int_equal(err.code, VP_ERR_RANGE);
        assert_true(!strcmp(err.path, "workload.batch") || !strcmp(err.path, "workload.seq") ||
                    !strcmp(err.path, "workload.new_tokens"));
        return;
    }
    vp_estimate *e = malloc(sizeof *e);
    assert_non_null(e);
    assert_int_equal(vp_estimate_plan(p, e, &err), VP_OK);
    vp_plan_free(p);
    int fits = e->fits;
    uint64_t alloc = e->devices[0].peak_alloc_bytes, reserved = e->devices[0].peak_reserved_bytes;
    int64_t headroom = e->devices[0].headroom_bytes;
    free(e);
    assert_false(fits);
    assert_true(reserved >= alloc);
    assert_true(headroom < 0);
}

static void bug_absurd_workload_fits(void **s) {
    (void)s;
    refused_or_does_not_fit(PLAN("{\"batch\":1048576,\"seq\":16777216}", "{\"model\":{\"preset\":\"llama-3.1-8b\"}}"));
    refused_or_does_not_fit(PLAN("{\"mode\":\"infer\",\"batch\":1048576,\"seq\":16777216,\"new_tokens\":16777216}",
                                 "{\"model\":{\"preset\":\"llama-3.1-405b\"}}"));
}

/* Text after the plan's closing brace is accepted (cJSON_Parse stops at the end of the first value),
 * so two concatenated plans or a plan followed by garbage pass as the first plan. It is not JSON. */
static void bug_trailing_garbage(void **s) {
    (void)s;
    t_expect_error(PLAN(WL, GPT2) " x", VP_ERR_JSON, "");
    t_expect_error(PLAN(WL, GPT2) PLAN("{\"batch\":0,\"seq\":1}", GPT2), VP_ERR_JSON, "");
}

/* A model whose shapes give more than 10^15 parameters is refused, but the error path names the
 * instance ("instances[0]"), not the model field. */
static void bug_param_bound_path(void **s) {
    (void)s;
    t_expect_error(PLAN(WL, HF("\"model_type\":\"llama\",\"hidden_size\":1048576,\"intermediate_size\":1048576,"
                               "\"num_hidden_layers\":4096,\"num_attention_heads\":8192,\"vocab_size\":1000")),
                   VP_ERR_RANGE, "instances[0].model");
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_plans),
        cmocka_unit_test(good_plans),
        cmocka_unit_test(schema_message),
        cmocka_unit_test(json_messages),
        cmocka_unit_test(idle_gpus_warned),
        cmocka_unit_test(null_arguments),
        cmocka_unit_test(every_prefix_is_refused),
        cmocka_unit_test(default_precision_train),
        cmocka_unit_test(default_precision_infer),
        cmocka_unit_test(default_gpu),
        cmocka_unit_test(placement),
        cmocka_unit_test(shared_weights),
        cmocka_unit_test(grad_ckpt_bool),
        cmocka_unit_test(parallel_validated),
    };
    const struct CMUnitTest bugs[] = {
        cmocka_unit_test(bug_param_bound_path),
        cmocka_unit_test(bug_trailing_garbage),
        cmocka_unit_test(bug_absurd_workload_fits), /* last: under UBSan it aborts the process */
    };
    int rc = T_RUN("plan_parse", tests, argc, argv);
    rc += T_RUN("plan_parse_bugs", bugs, argc, argv);
    return rc;
}
