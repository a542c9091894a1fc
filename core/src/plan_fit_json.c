/* plan_fit_json.c: vp_fit -> vramplan/fit@1 JSON (docs/schema/fit.md). Field order is fixed so the
 * native CLI and the WASM build print the same bytes. */
#include "planning.h"
#include "util.h"

static cJSON *next_object(const vp_fit *f) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "value", (double)(f->value + f->step));
    cJSON_AddStringToObject(o, "limited_by", f->limited ? "limit" : "memory");
    cJSON_AddBoolToObject(o, "fits", !f->limited && f->next.fits);
    cJSON_AddStringToObject(o, "reason", f->next_reason);
    const vp_device *d = f->limited ? NULL : vp_tightest_device(&f->next);
    if (!d) return o;
    cJSON_AddNumberToObject(o, "device", d->index);
    cJSON_AddStringToObject(o, "device_name", d->name);
    cJSON_AddStringToObject(o, "peak_phase", d->peak_phase);
    cJSON_AddNumberToObject(o, "peak_reserved_bytes", (double)d->peak_reserved_bytes);
    cJSON_AddNumberToObject(o, "usable_bytes", (double)d->usable_bytes);
    cJSON_AddNumberToObject(o, "over_bytes", -(double)d->headroom_bytes);
    if (d->n_components > 0) {
        const vp_component *c = &d->components[0]; /* components are sorted largest first */
        cJSON *t = cJSON_AddObjectToObject(o, "top_component");
        cJSON_AddStringToObject(t, "id", c->id);
        cJSON_AddStringToObject(t, "instance", c->instance);
        cJSON_AddStringToObject(t, "label", c->label);
        cJSON_AddNumberToObject(t, "bytes", (double)c->bytes);
    }
    return o;
}

char *vp_fit_to_json(const vp_fit *f, int pretty) {
    if (!f) return NULL;
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON_AddStringToObject(root, "schema", VP_FIT_SCHEMA);
    cJSON_AddStringToObject(root, "field", vp_field_name(f->field));
    cJSON_AddNumberToObject(root, "step", (double)f->step);
    cJSON_AddNumberToObject(root, "value", (double)f->value);
    cJSON_AddNumberToObject(root, "limit", (double)f->limit);
    cJSON_AddStringToObject(root, "limit_reason", f->limit_reason);
    cJSON_AddNumberToObject(root, "estimates", f->n_estimates);
    cJSON *gaps = cJSON_AddArrayToObject(root, "gaps");
    for (int i = 0; i < f->n_gaps; i++) cJSON_AddItemToArray(gaps, cJSON_CreateNumber((double)f->gaps[i]));
    cJSON *est = f->value >= 1 ? vp_estimate_to_cjson(&f->estimate) : cJSON_CreateNull();
    if (!est) {
        cJSON_Delete(root);
        return NULL;
    }
    cJSON_AddItemToObject(root, "estimate", est);
    cJSON_AddItemToObject(root, "next", next_object(f));
    return vp_cjson_print(root, pretty);
}
