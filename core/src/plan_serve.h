/* plan_serve.h: serve plans (workload.mode "serve"): parsing (plan_serve_parse.c), the estimate
 * (serve_estimate.c), the launch commands (serve_launch.c) and the planning answers (plan_serve.c). */
#ifndef VP_PLAN_SERVE_H
#define VP_PLAN_SERVE_H

#include "plan.h"
#include "registry.h"

vp_status vp_plan_serve_parse_workload(const cJSON *w, vp_plan *plan, vp_error *err);
vp_status vp_plan_serve_parse(const cJSON *root, const vp_registry *reg, vp_plan *plan, vp_error *err);

/* The estimate of a serve plan: devices, components, and out->serving (called by vp_estimate_plan). */
vp_status vp_serve_estimate(const vp_plan *plan, vp_estimate *out, vp_error *err);
/* CUDA total of the plan's GPU. */
uint64_t vp_serve_gpu_total(const vp_plan *plan);
/* The command that starts this deployment (vllm serve ..., python -m sglang.launch_server ..., llama-server ...). */
void vp_serve_launch(const vp_plan_serve *sv, char *dst, size_t n);

#endif
