/* estimate_json.c: vp_estimate -> vramplan/estimate@1 JSON (docs/schema/estimate.md), and the
 * one-call JSON-in/JSON-out entry point. Field order is fixed so every build prints the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void add_u64(cJSON *o, const char *k, uint64_t v) { cJSON_AddNumberToObject(o, k, (double)v); }

char *vp_cjson_print(cJSON *root, int pretty) {
    if (!root) return NULL;
    char *s = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!s) return NULL;
    /* hand out memory the caller frees with vp_free() (cJSON may use its own allocator) */
    size_t n = strlen(s);
    char *out = malloc(n + 1);
    if (out) memcpy(out, s, n + 1);
    cJSON_free(s);
    return out;
}

char *vp_estimate_to_json(const vp_estimate *e, int pretty) { return vp_cjson_print(vp_estimate_to_cjson(e), pretty); }

cJSON *vp_estimate_to_cjson(const vp_estimate *e) {
    if (!e) return NULL;
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON_AddStringToObject(root, "schema", VP_ESTIMATE_SCHEMA);
    cJSON_AddBoolToObject(root, "fits", e->fits);
    cJSON_AddStringToObject(root, "summary", e->summary);
    cJSON *insts = cJSON_AddArrayToObject(root, "instances");
    for (int i = 0; i < e->n_instances; i++) {
        const vp_instance_info *in = &e->instances[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", in->name);
        cJSON_AddStringToObject(o, "role", in->role);
        cJSON_AddStringToObject(o, "model_type", in->model_type);
        add_u64(o, "params_total", in->params_total);
        add_u64(o, "params_trainable", in->params_trainable);
        cJSON_AddItemToArray(insts, o);
    }
    cJSON *devs = cJSON_AddArrayToObject(root, "devices");
    for (int i = 0; i < e->n_devices; i++) {
        const vp_device *d = &e->devices[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", d->index);
        cJSON_AddStringToObject(o, "kind", d->kind);
        cJSON_AddStringToObject(o, "name", d->name);
        add_u64(o, "capacity_bytes", d->capacity_bytes);
        add_u64(o, "usable_bytes", d->usable_bytes);
        add_u64(o, "peak_alloc_bytes", d->peak_alloc_bytes);
        add_u64(o, "peak_reserved_bytes", d->peak_reserved_bytes);
        add_u64(o, "nvidia_smi_bytes", d->nvidia_smi_bytes);
        add_u64(o, "context_bytes", d->context_bytes);
        cJSON_AddStringToObject(o, "peak_phase", d->peak_phase);
        cJSON_AddBoolToObject(o, "fits", d->fits);
        cJSON_AddNumberToObject(o, "headroom_bytes", (double)d->headroom_bytes);
        if (d->index >= 0) {
            /* the caching allocator's replay (reserved.c) */
            cJSON *al = cJSON_AddObjectToObject(o, "allocator");
            cJSON_AddBoolToObject(al, "fragmentation", d->fragmentation);
            add_u64(al, "failed_request_bytes", d->failed_request_bytes);
            add_u64(al, "cached_unusable_bytes", d->cached_unusable_bytes);
            cJSON_AddNumberToObject(al, "retries", d->alloc_retries);
            cJSON_AddStringToObject(al, "note", d->allocator_note);
        }
        cJSON *dom = cJSON_AddArrayToObject(o, "dominant");
        for (int k = 0; k < d->n_components && k < 2; k++) cJSON_AddItemToArray(dom, cJSON_CreateString(d->components[k].id));
        cJSON *ph = cJSON_AddArrayToObject(o, "phases");
        for (int k = 0; k < d->n_phases; k++) {
            cJSON *p = cJSON_CreateObject();
            cJSON_AddStringToObject(p, "name", d->phases[k].name);
            add_u64(p, "alloc_bytes", d->phases[k].alloc_bytes);
            cJSON_AddItemToArray(ph, p);
        }
        cJSON *cs = cJSON_AddArrayToObject(o, "components");
        for (int k = 0; k < d->n_components; k++) {
            const vp_component *c = &d->components[k];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "id", c->id);
            cJSON_AddStringToObject(x, "instance", c->instance);
            cJSON_AddStringToObject(x, "role", c->role);
            cJSON_AddStringToObject(x, "label", c->label);
            add_u64(x, "bytes", c->bytes);
            cJSON_AddStringToObject(x, "explain", c->explain);
            cJSON_AddItemToArray(cs, x);
        }
        cJSON_AddItemToArray(devs, o);
    }
    cJSON *sg = cJSON_AddArrayToObject(root, "suggestions");
    for (int i = 0; i < e->n_suggestions; i++) {
        const vp_suggestion *x = &e->suggestions[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", x->id);
        cJSON_AddStringToObject(o, "change", x->change);
        if (x->ids[0]) {
            cJSON *ids = cJSON_AddArrayToObject(o, "ids");
            char buf[sizeof x->ids];
            vp_strlcpy(buf, x->ids, sizeof buf);
            for (char *p = buf, *q; p && *p; p = q) {
                q = strchr(p, ',');
                if (q) *q++ = '\0';
                cJSON_AddItemToArray(ids, cJSON_CreateString(p));
            }
        }
        add_u64(o, "peak_reserved_bytes", x->peak_reserved_bytes);
        cJSON_AddNumberToObject(o, "saves_bytes", (double)x->saves_bytes);
        cJSON_AddBoolToObject(o, "fits", x->fits);
        cJSON_AddItemToArray(sg, o);
    }
    if (e->serving.engine[0]) vp_serving_to_cjson(&e->serving, root); /* workload.mode "serve" (serve_json.c) */
    cJSON *w = cJSON_AddArrayToObject(root, "warnings");
    for (int i = 0; i < e->n_warnings; i++) cJSON_AddItemToArray(w, cJSON_CreateString(e->warnings[i]));
    return root;
}

char *vp_estimate_json(const char *plan_json, const vp_registry *reg, int pretty, vp_error *err) {
    vp_plan *plan = vp_plan_from_json(plan_json, reg, err);
    if (!plan) return NULL;
    vp_estimate *e = malloc(sizeof *e);
    if (!e) {
        vp_plan_free(plan);
        vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
        return NULL;
    }
    char *out = NULL;
    if (vp_estimate_plan(plan, e, err) == VP_OK) {
        out = vp_estimate_to_json(e, pretty);
        if (!out) vp_fail(err, VP_ERR_NOMEM, "", "out of memory");
    }
    free(e);
    vp_plan_free(plan);
    return out;
}
