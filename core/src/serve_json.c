/* serve_json.c: the estimate's top-level "serving" object (docs/schema/estimate.md, "serving").
 * The first six names are the contract of issue 15: engine, weights_bytes_per_gpu,
 * kv_cache_bytes_per_gpu, kv_cache_tokens, max_concurrency, max_model_len; "profile" holds the
 * engine's profile terms; the rest describe the layout and how to launch it. */
#include <math.h>

#include "util.h"

static void u64(cJSON *o, const char *k, uint64_t v) { cJSON_AddNumberToObject(o, k, (double)v); }

void vp_serving_to_cjson(const vp_serving *s, cJSON *root) {
    cJSON *o = cJSON_AddObjectToObject(root, "serving");
    if (!o) return;
    cJSON_AddStringToObject(o, "engine", s->engine);
    u64(o, "weights_bytes_per_gpu", s->weights_bytes_per_gpu);
    u64(o, "kv_cache_bytes_per_gpu", s->kv_cache_bytes_per_gpu);
    cJSON_AddNumberToObject(o, "kv_cache_tokens", (double)s->kv_cache_tokens);
    cJSON_AddNumberToObject(o, "max_concurrency", round(s->max_concurrency * 100.0) / 100.0);
    cJSON_AddNumberToObject(o, "max_model_len", (double)s->max_model_len);
    cJSON *p = cJSON_AddObjectToObject(o, "profile");
    u64(p, "gpu_total_bytes", s->gpu_total_bytes);
    u64(p, "budget_bytes", s->budget_bytes);
    u64(p, "activation_peak_bytes", s->activation_peak_bytes);
    u64(p, "forward_peak_bytes", s->forward_peak_bytes);
    u64(p, "sampler_peak_bytes", s->sampler_peak_bytes);
    u64(p, "non_torch_bytes", s->non_torch_bytes);
    u64(p, "cuda_graph_bytes", s->cuda_graph_bytes);
    if (s->model_buffer_gpu_bytes || s->ctx_cells) {
        u64(p, "model_buffer_gpu_bytes", s->model_buffer_gpu_bytes);
        u64(p, "model_buffer_cpu_bytes", s->model_buffer_cpu_bytes);
        u64(p, "compute_buffer_bytes", s->compute_buffer_bytes);
        u64(p, "kv_k_bytes", s->kv_k_bytes);
        u64(p, "kv_v_bytes", s->kv_v_bytes);
        cJSON_AddNumberToObject(p, "n_gpu_layers", (double)s->n_gpu_layers);
        cJSON_AddNumberToObject(p, "ctx_cells", (double)s->ctx_cells);
    }
    cJSON *l = cJSON_AddObjectToObject(o, "layout");
    cJSON_AddNumberToObject(l, "tp", (double)s->tp);
    cJSON_AddNumberToObject(l, "pp", (double)s->pp);
    cJSON_AddNumberToObject(l, "gpus", (double)s->gpus);
    cJSON_AddNumberToObject(l, "num_gpu_blocks", (double)s->num_gpu_blocks);
    cJSON_AddNumberToObject(l, "block_size", (double)s->block_size);
    cJSON_AddNumberToObject(l, "kv_cache_groups", (double)s->kv_cache_groups);
    cJSON_AddNumberToObject(l, "kv_bytes_per_token", (double)s->kv_bytes_per_token);
    cJSON_AddStringToObject(o, "launch", s->launch);
    cJSON_AddStringToObject(o, "note", s->note);
    if (s->has_answers) { /* vp_estimate_with_suggestions: each answer re-estimated (plan_serve.c) */
        cJSON *a = cJSON_AddObjectToObject(o, "answers");
        cJSON *at = cJSON_AddArrayToObject(a, "max_concurrency_at");
        for (int i = 0; i < s->n_at; i++) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddNumberToObject(x, "max_model_len", (double)s->at_len[i]);
            cJSON_AddNumberToObject(x, "max_concurrency", round(s->at_concurrency[i] * 100.0) / 100.0);
            cJSON_AddItemToArray(at, x);
        }
        cJSON *l = cJSON_AddObjectToObject(a, "longest_max_model_len");
        cJSON_AddNumberToObject(l, "value", (double)s->longest_max_model_len);
        cJSON_AddStringToObject(l, "launch", s->longest_launch);
        cJSON *f = cJSON_AddObjectToObject(a, "fewest_gpus");
        cJSON_AddNumberToObject(f, "target_concurrency", s->target_concurrency);
        cJSON_AddNumberToObject(f, "tp", (double)s->fewest_tp);
        cJSON_AddNumberToObject(f, "max_concurrency", round(s->fewest_tp_concurrency * 100.0) / 100.0);
        cJSON_AddStringToObject(f, "launch", s->fewest_launch);
        if (s->best_n_gpu_layers >= 0) {
            cJSON *g = cJSON_AddObjectToObject(a, "n_gpu_layers");
            cJSON_AddNumberToObject(g, "value", (double)s->best_n_gpu_layers);
            cJSON_AddStringToObject(g, "launch", s->ngl_launch);
        }
    }
    cJSON *ls = cJSON_AddArrayToObject(o, "arithmetic");
    for (int i = 0; i < s->n_lines; i++) cJSON_AddItemToArray(ls, cJSON_CreateString(s->lines[i]));
}
