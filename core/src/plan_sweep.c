/* plan_sweep.c: peak memory against one workload value (batch, seq, new_tokens, frames), for the page's chart
 * with the usable-memory line (docs/schema/sweep.md). The largest value that fits comes from vp_fit_plan,
 * so the chart and "Largest micro-batch that fits" always agree. */
#include <stdlib.h>

#include "planning.h"
#include "util.h"

#define DEFAULT_POINTS 24

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int vp_sweep_values(int64_t largest, int64_t current, int64_t limit, int n, int64_t *out, int max) {
    if (limit < 1 || max < 4) return 0;
    if (n < 2) n = 2;
    if (n > max - 3) n = max - 3;
    /* up to twice the largest that fits; when nothing fits, up to the plan's own value */
    int64_t upper = largest >= 1 ? 2 * largest : (current > 2 ? current : 2);
    if (upper < largest + 1) upper = largest + 1;
    if (upper > limit) upper = limit;
    /* a power-of-two step (1, 2, 4, ... tokens or samples) with at most n points up to upper */
    int64_t step = 1;
    while (step * n < upper) step *= 2;
    int k = 0;
    out[k++] = 1;
    for (int64_t v = step; v <= upper && k < max - 2; v += step) out[k++] = v;
    if (largest >= 1) out[k++] = largest;
    if (largest + 1 <= limit) out[k++] = largest + 1;
    qsort(out, (size_t)k, sizeof *out, cmp_i64);
    int m = 0;
    for (int i = 0; i < k; i++)
        if (!m || out[i] != out[m - 1]) out[m++] = out[i];
    return m;
}

vp_status vp_sweep_plan(const vp_plan *plan, vp_field field, int n_points, vp_sweep *out, vp_error *err_out) {
    vp_error local, *err = err_out ? err_out : &local;
    vp_error_clear(err);
    if (!plan || !out) return vp_fail(err, VP_ERR_FIELD, "", "no plan");
    out->field = field;
    out->usable_bytes = 0;
    out->largest = 0;
    out->n_points = 0;
    vp_fit *fit = malloc(sizeof *fit);
    vp_plan *p = malloc(sizeof *p);
    vp_status st = VP_OK;
    if (!fit || !p) {
        st = vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
        goto done;
    }
    if ((st = vp_fit_plan(plan, field, fit, err))) goto done;
    out->largest = fit->value;
    /* the values as the fit counts them (frames: 1, 1 + step, ...; plan_fit.c), spread, then back to values */
    int64_t values[VP_SWEEP_MAX_POINTS], step = fit->step > 0 ? fit->step : 1;
    int64_t cur = vp_plan_field_get(plan, field);
    int n = vp_sweep_values(vp_field_count_of(fit->value, step), vp_field_count_of(cur, step), vp_field_count_of(fit->limit, step),
                            n_points > 0 ? n_points : DEFAULT_POINTS, values, VP_SWEEP_MAX_POINTS);
    for (int i = 0; i < n; i++) values[i] = vp_field_value_of(values[i], step);
    *p = *plan;
    p->quiet = 1;
    vp_estimate *e = &fit->next; /* scratch */
    int64_t usable_at = fit->value >= 1 ? fit->value : 1;
    for (int i = 0; i < n; i++) {
        vp_error e2;
        if (vp_plan_field_set(p, field, values[i], &e2)) continue; /* past the plannable sizes */
        if ((st = vp_estimate_plan(p, e, err))) goto done;
        const vp_device *g = vp_tightest_gpu(e);
        vp_sweep_point *pt = &out->points[out->n_points++];
        pt->value = values[i];
        pt->peak_reserved_bytes = g ? g->peak_reserved_bytes : 0;
        pt->peak_alloc_bytes = g ? g->peak_alloc_bytes : 0;
        pt->fits = e->fits;
        if (values[i] == usable_at && g) out->usable_bytes = g->usable_bytes;
    }
done:
    free(fit);
    free(p);
    return st;
}

char *vp_sweep_to_json(const vp_sweep *s) {
    if (!s) return NULL;
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON_AddStringToObject(root, "schema", VP_SWEEP_SCHEMA);
    cJSON_AddStringToObject(root, "field", vp_field_name(s->field));
    cJSON_AddNumberToObject(root, "usable_bytes", (double)s->usable_bytes);
    cJSON_AddNumberToObject(root, "largest", (double)s->largest);
    cJSON *pts = cJSON_AddArrayToObject(root, "points");
    for (int i = 0; i < s->n_points; i++) {
        const vp_sweep_point *p = &s->points[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "value", (double)p->value);
        cJSON_AddNumberToObject(o, "peak_reserved_bytes", (double)p->peak_reserved_bytes);
        cJSON_AddNumberToObject(o, "peak_alloc_bytes", (double)p->peak_alloc_bytes);
        cJSON_AddBoolToObject(o, "fits", p->fits);
        cJSON_AddItemToArray(pts, o);
    }
    return vp_cjson_print(root, 0);
}
