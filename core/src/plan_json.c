/* plan_json.c: the planning layer's one-call JSON entry points (plan JSON in, JSON out) and the JSON
 * helpers its documents share. */
#include <stdlib.h>
#include <string.h>

#include "planning.h"
#include "util.h"

char *vp_estimate_with_suggestions_json(const char *plan_json, const vp_registry *reg, int pretty, vp_error *err) {
    vp_plan *plan = vp_plan_from_json(plan_json, reg, err);
    if (!plan) return NULL;
    vp_estimate *e = malloc(sizeof *e);
    char *out = NULL;
    if (!e)
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    else if (vp_estimate_with_suggestions(plan, e, err) == VP_OK && !(out = vp_estimate_to_json(e, pretty)))
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    free(e);
    vp_plan_free(plan);
    return out;
}

char *vp_fit_json(const char *plan_json, const vp_registry *reg, const char *field, int pretty, vp_error *err) {
    vp_field f;
    vp_error_clear(err);
    if (vp_field_from_name(field, &f, err)) return NULL;
    vp_plan *plan = vp_plan_from_json(plan_json, reg, err);
    if (!plan) return NULL;
    vp_fit *fit = malloc(sizeof *fit);
    char *out = NULL;
    if (!fit)
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    else if (vp_fit_plan(plan, f, fit, err) == VP_OK && !(out = vp_fit_to_json(fit, pretty)))
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    free(fit);
    vp_plan_free(plan);
    return out;
}

char *vp_sweep_json(const char *plan_json, const vp_registry *reg, const char *field, int n_points, vp_error *err) {
    vp_field f;
    vp_error_clear(err);
    if (vp_field_from_name(field, &f, err)) return NULL;
    vp_plan *plan = vp_plan_from_json(plan_json, reg, err);
    if (!plan) return NULL;
    vp_sweep *sw = malloc(sizeof *sw);
    char *out = NULL;
    if (!sw)
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    else if (vp_sweep_plan(plan, f, n_points, sw, err) == VP_OK && !(out = vp_sweep_to_json(sw)))
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    free(sw);
    vp_plan_free(plan);
    return out;
}

char *vp_recommend_json(const char *plan_json, const vp_registry *reg, int64_t global_batch, int top_n, int pretty,
                        vp_error *err) {
    vp_plan *plan = vp_plan_from_json(plan_json, reg, err);
    if (!plan) return NULL;
    vp_recommend *rec = malloc(sizeof *rec);
    char *out = NULL;
    if (!rec)
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    else if (vp_recommend_plan(plan, global_batch, top_n, rec, err) == VP_OK &&
             !(out = vp_recommend_to_json(rec, plan_json, pretty)))
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    free(rec);
    vp_plan_free(plan);
    return out;
}
