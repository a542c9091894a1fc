/* t_arch.h: the shapes the core resolves for a preset (core/src/arch.h vp_arch), for the tests that check model
 * shapes directly (diffusion transformers, VAEs). Internal: include after plan.h and vp_test.h. */
#ifndef T_ARCH_H
#define T_ARCH_H

/* The vp_arch of `preset` as a frozen, no-grad inference instance resolves it; fails the test when refused. */
static inline vp_arch t_arch_of(const char *preset) {
    vp_error err;
    const char *plan = t_plan1("{\"mode\":\"infer\",\"batch\":1}",
                               t_fmt("{\"name\":\"c\",\"role\":\"reference\",\"model\":{\"preset\":\"%s\"},\"activations\":\"no_grad\"}", preset));
    vp_plan *p = vp_plan_from_json(plan, t_registry(), &err);
    if (!p) fail_msg("%s refused: %s: %s", preset, err.path, err.message);
    vp_arch a = p->inst[0].arch;
    vp_plan_free(p);
    return a;
}

/* The parameters `preset` counts (a pipeline component as "ID/<component>"), as the estimate reports them for a frozen
 * bf16 inference instance. */
static inline uint64_t t_count_preset(const char *id) {
    const char *inst = t_fmt("{\"name\":\"c\",\"role\":\"reference\",\"model\":{\"preset\":\"%s\"},\"precision\":\"bf16\","
                             "\"activations\":\"no_grad\"}",
                             id);
    return t_json_params_total(t_estimate_json(t_plan1("{\"mode\":\"infer\",\"batch\":1}", inst)), 0);
}

#endif
