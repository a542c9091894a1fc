/* pipeline_expand.c: a diffusion pipeline preset picked for one instance (a preset whose file lists
 * pipeline.components, registry_pipeline.c) becomes the pipeline's instances, for the CLI's `--model ID`
 * and the page's model picker alike:
 *   - inference: the transformer and every other component of the pipeline's model_index.json (text
 *     encoders, VAE) as frozen no-grad instances named after the component, preset "ID/<component>",
 *     in the precision of the transformer (bf16 unless given): the diffusers pipelines load every component
 *     with the one torch_dtype given to from_pretrained (pipeline_utils.py DiffusionPipeline.from_pretrained);
 *   - training: the transformer alone (latents and text embeddings precomputed, as finetrainers and the
 *     diffusers training scripts default to), and with workload.diffusion.precompute the text encoders and
 *     VAE too, which the precompute phase runs before training (precompute.c).
 * Without a kept "seq" the tokens come from workload frames × height × width or the pipeline's default size
 * (diffusion_workload.c). Components already in the plan (an instance with preset "ID/<component>") are not
 * added twice, so expanding again is a no-op. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "registry.h"
#include "util.h"

static const char *str_of(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int has_preset(const cJSON *insts, const char *pid) {
    const cJSON *x;
    cJSON_ArrayForEach(x, insts) if (!strcmp(str_of(cJSON_GetObjectItemCaseSensitive(x, "model"), "preset"), pid)) return 1;
    return 0;
}

static int has_name(const cJSON *insts, const char *name) {
    const cJSON *x;
    cJSON_ArrayForEach(x, insts) if (!strcmp(str_of(x, "name"), name)) return 1;
    return 0;
}

/* Adds the components of instance `index`'s pipeline to `plan`; returns how many were added. */
static int expand(cJSON *plan, const vp_registry *reg, int index, int keep_seq) {
    cJSON *insts = cJSON_GetObjectItemCaseSensitive(plan, "instances");
    cJSON *in0 = cJSON_GetArrayItem(insts, index);
    const char *id = str_of(cJSON_GetObjectItemCaseSensitive(in0, "model"), "preset");
    if (!id[0] || strchr(id, '/')) return 0;
    const cJSON *entry = vp_registry_model(reg, id);
    const cJSON *comps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(entry, "pipeline"), "components");
    if (!cJSON_IsObject(comps)) return 0;
    cJSON *wl = cJSON_GetObjectItemCaseSensitive(plan, "workload");
    if (!keep_seq) cJSON_DeleteItemFromObjectCaseSensitive(wl, "seq");
    int infer = !strcmp(str_of(wl, "mode"), "infer");
    int precompute = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(wl, "diffusion"), "precompute"));
    if (!cJSON_GetObjectItemCaseSensitive(in0, "name") && !has_name(insts, "transformer"))
        cJSON_AddStringToObject(in0, "name", "transformer");
    if (!infer && !precompute) return 0;
    const char *prec = str_of(in0, "precision");
    if (!prec[0]) cJSON_AddStringToObject(in0, "precision", prec = "bf16");
    if (infer && !cJSON_GetObjectItemCaseSensitive(in0, "role")) cJSON_AddStringToObject(in0, "role", "reference");
    if (infer && !cJSON_GetObjectItemCaseSensitive(in0, "activations")) cJSON_AddStringToObject(in0, "activations", "no_grad");
    int added = 0;
    const cJSON *c;
    /* pipeline order: text encoders first, the VAE last */
    for (int pass = 0; pass < 2; pass++) {
        cJSON_ArrayForEach(c, comps) {
            int te = !strncmp(c->string, "text_encoder", 12);
            if (pass == 0 ? !te : te) continue;
            char pid[160];
            snprintf(pid, sizeof pid, "%s/%s", id, c->string);
            if (has_preset(insts, pid)) continue;
            cJSON *o = cJSON_CreateObject();
            /* the component's name, or "ID/<component>" when another pipeline in the plan took it */
            cJSON_AddStringToObject(o, "name", has_name(insts, c->string) ? pid : c->string);
            cJSON_AddStringToObject(o, "role", "reference");
            cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "model"), "preset", pid);
            cJSON_AddStringToObject(o, "precision", prec);
            cJSON_AddStringToObject(o, "activations", "no_grad");
            cJSON_AddItemToArray(insts, o);
            added++;
        }
    }
    return added;
}

char *vp_plan_expand_pipeline_json(const char *plan_json, const vp_registry *reg, int index, int keep_seq,
                                   int *added, vp_error *err) {
    if (added) *added = 0;
    if (!plan_json) {
        vp_fail(err, VP_ERR_FIELD, "plan", "no plan given");
        return NULL;
    }
    if (vp_json_check(plan_json, err)) return NULL; /* strict JSON, the error with its line and column */
    cJSON *plan = cJSON_Parse(plan_json);
    if (!cJSON_IsObject(plan)) {
        cJSON_Delete(plan);
        vp_fail(err, VP_ERR_JSON, "plan", "the plan is not a JSON object");
        return NULL;
    }
    const cJSON *insts = cJSON_GetObjectItemCaseSensitive(plan, "instances");
    if (!cJSON_IsArray(insts) || index < 0 || index >= cJSON_GetArraySize(insts) ||
        !cJSON_IsObject(cJSON_GetArrayItem(insts, index))) {
        cJSON_Delete(plan);
        vp_fail(err, VP_ERR_FIELD, "instances", "instances[%d] is not an instance of the plan", index);
        return NULL;
    }
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(plan, "workload"))) {
        cJSON_Delete(plan);
        vp_fail(err, VP_ERR_FIELD, "workload", "workload must be an object");
        return NULL;
    }
    int n = expand(plan, reg, index, keep_seq);
    if (added) *added = n;
    char *out = vp_cjson_print(plan, 0); /* frees plan; the text is the caller's, vp_free */
    if (!out) vp_fail(err, VP_ERR_NOMEM, "plan", "out of memory");
    return out;
}
