/* vp_test.h: helpers shared by the cmocka tests of the core (tests/core/test_*.c).
 *
 * Only the public API (core/include/vramplan.h) is used, the way a caller would use it:
 *   plan JSON -> vp_plan_from_json -> vp_estimate_plan -> vp_estimate (struct), or
 *   plan JSON -> vp_estimate_json -> estimate JSON (parsed back with cJSON).
 * Every number a test asserts comes from an independent source (memory-facts.md, the
 * Hugging Face configs, the PyTorch/PEFT/bitsandbytes code cited there) and is written out
 * in the test with its arithmetic. */
#ifndef VP_TEST_H
#define VP_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "vramplan.h"

/* ---- model configs (config.json fields), memory-facts.md §10 ------------------------------ */
#define CFG_LLAMA2_7B                                                                                       \
    "{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":11008,\"num_hidden_layers\":32," \
    "\"num_attention_heads\":32,\"num_key_value_heads\":32,\"vocab_size\":32000,\"tie_word_embeddings\":false}"
#define CFG_LLAMA31_8B                                                                                      \
    "{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":14336,\"num_hidden_layers\":32," \
    "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"vocab_size\":128256,\"tie_word_embeddings\":false}"
#define CFG_LLAMA31_70B                                                                                     \
    "{\"model_type\":\"llama\",\"hidden_size\":8192,\"intermediate_size\":28672,\"num_hidden_layers\":80," \
    "\"num_attention_heads\":64,\"num_key_value_heads\":8,\"vocab_size\":128256,\"tie_word_embeddings\":false}"
#define CFG_MISTRAL_7B                                                                                        \
    "{\"model_type\":\"mistral\",\"hidden_size\":4096,\"intermediate_size\":14336,\"num_hidden_layers\":32," \
    "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"vocab_size\":32000,\"sliding_window\":4096,"      \
    "\"tie_word_embeddings\":false}"
#define CFG_MIXTRAL_8X7B                                                                                      \
    "{\"model_type\":\"mixtral\",\"hidden_size\":4096,\"intermediate_size\":14336,\"num_hidden_layers\":32," \
    "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"vocab_size\":32000,\"num_local_experts\":8,"      \
    "\"num_experts_per_tok\":2,\"tie_word_embeddings\":false}"
#define CFG_QWEN25_7B                                                                                       \
    "{\"model_type\":\"qwen2\",\"hidden_size\":3584,\"intermediate_size\":18944,\"num_hidden_layers\":28," \
    "\"num_attention_heads\":28,\"num_key_value_heads\":4,\"vocab_size\":152064,\"tie_word_embeddings\":false}"
#define CFG_PHI3_MINI                                                                                      \
    "{\"model_type\":\"phi3\",\"hidden_size\":3072,\"intermediate_size\":8192,\"num_hidden_layers\":32," \
    "\"num_attention_heads\":32,\"num_key_value_heads\":32,\"vocab_size\":32064,\"tie_word_embeddings\":false}"
#define CFG_GEMMA2_9B                                                                                        \
    "{\"model_type\":\"gemma2\",\"hidden_size\":3584,\"intermediate_size\":14336,\"num_hidden_layers\":42," \
    "\"num_attention_heads\":16,\"num_key_value_heads\":8,\"head_dim\":256,\"vocab_size\":256000}"
#define CFG_GPT2                                                                                             \
    "{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_layer\":12,\"n_head\":12,\"vocab_size\":50257,\"n_positions\":1024}"
#define CFG_T5_BASE                                                                                      \
    "{\"model_type\":\"t5\",\"d_model\":768,\"d_ff\":3072,\"d_kv\":64,\"num_layers\":12,\"num_heads\":12," \
    "\"vocab_size\":32128,\"feed_forward_proj\":\"relu\"}"
#define CFG_COGVIDEOX_5B                                                                                        \
    "{\"_class_name\":\"CogVideoXTransformer3DModel\",\"model_type\":\"cogvideox\",\"num_attention_heads\":48," \
    "\"attention_head_dim\":64,\"num_layers\":42,\"in_channels\":16,\"out_channels\":16,\"patch_size\":2,"      \
    "\"sample_frames\":49,\"sample_height\":60,\"sample_width\":90,\"temporal_compression_ratio\":4,"           \
    "\"max_text_seq_length\":226,\"text_embed_dim\":4096,\"time_embed_dim\":512}"

/* ---- strings ------------------------------------------------------------------------------ */
/* printf into a buffer owned by the test arena (freed by t_teardown / at exit). */
char *t_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* {"schema": VP_PLAN_SCHEMA, "workload": workload, "instances": [instance]} (default hardware) */
const char *t_plan1(const char *workload, const char *instance);
/* Same, with instances given as the inside of the array and an optional hardware object (NULL = none). */
const char *t_plan(const char *workload, const char *instances, const char *hardware);
/* An instance object: {"name":"policy", "model":{"hf_config": cfg}, <extra>} (extra may be "" ). */
const char *t_hf_instance(const char *cfg, const char *extra);

/* ---- running plans ------------------------------------------------------------------------- */
const vp_registry *t_registry(void);
/* Struct API: parse + estimate; fails the test (with the error) if the plan is refused. The estimate
 * is owned by the arena. */
const vp_estimate *t_estimate(const char *plan_json);
/* The text of fixture dir/name (up to 64 KiB), kept until teardown; fails the test when it cannot be read. */
const char *t_fixture_text(const char *dir, const char *name);
/* JSON API: vp_estimate_json, parsed back; owned by the arena. */
const cJSON *t_estimate_json(const char *plan_json);
/* The plan must be refused by both vp_plan_from_json and vp_estimate_json with this code and this
 * exact error path, without crashing, and with a non-empty message. Returns the message (arena). */
const char *t_expect_error(const char *plan_json, vp_status code, const char *path);

/* ---- reading estimates ---------------------------------------------------------------------- */
/* Bytes of component `id` on device `dev` at its peak; instance NULL sums all instances. 0 if absent. */
uint64_t t_component(const vp_estimate *e, int dev, const char *id, const char *instance);
int t_has_component(const vp_estimate *e, int dev, const char *id);
/* alloc_bytes of the named phase on device dev (fails the test if the phase is absent). */
uint64_t t_phase(const vp_estimate *e, int dev, const char *phase);
/* params_total / params_trainable of instance i read from the estimate JSON. */
uint64_t t_json_params_total(const cJSON *est, int i);
uint64_t t_json_params_trainable(const cJSON *est, int i);

/* ---- assertions ------------------------------------------------------------------------------ */
#define assert_u64_equal(a, b) assert_int_equal((uint64_t)(a), (uint64_t)(b))
/* |actual - expected| <= rel * |expected| */
void t_assert_close(double actual, double expected, double rel, const char *what, const char *file, int line);
#define assert_close(a, e, rel) t_assert_close((double)(a), (double)(e), (rel), #a, __FILE__, __LINE__)
void t_assert_contains(const char *hay, const char *needle, const char *file, int line);
#define assert_contains(h, n) t_assert_contains((h), (n), __FILE__, __LINE__)

/* cmocka group setup/teardown that free the arena and the registry. */
int t_setup(void **state);
int t_teardown(void **state);

/* Run the group when argv[1] names it (ctest passes one group per entry), or every group without arguments. */
int t_run(const char *group, const struct CMUnitTest *tests, size_t n, int argc, char **argv);
#define T_RUN(group, tests, argc, argv) t_run((group), (tests), sizeof(tests) / sizeof((tests)[0]), (argc), (argv))

#endif
