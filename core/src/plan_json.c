/* plan_json.c: the planning layer's one-call JSON entry points (plan JSON in, JSON out). */
#include <stdlib.h>

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
