/* pipeline_expand.c: `--model ID` of a diffusion pipeline preset becomes the pipeline's instances. The
 * expansion is the core's (core/src/pipeline_expand.c vp_plan_expand_pipeline_json), shared with the page;
 * this file only carries the CLI's plan object through it. A plan file is taken as written: where the
 * expansion would add components to it, a note on stderr says which pipeline runs without them. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

void cli_expand_pipeline(cJSON *plan, int seq_given) {
    cJSON *insts = cJSON_GetObjectItemCaseSensitive(plan, "instances");
    if (!cJSON_IsArray(insts) || cJSON_GetArraySize(insts) != 1) return;
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    char *text = reg ? cJSON_PrintUnformatted(plan) : NULL;
    int added = 0;
    char *out = text ? vp_plan_expand_pipeline_json(text, reg, 0, seq_given, &added, &err) : NULL;
    cJSON *next = out ? cJSON_Parse(out) : NULL;
    if (next) {
        /* the plan object keeps its identity for the caller: swap its members for the expanded ones */
        while (plan->child) cJSON_Delete(cJSON_DetachItemViaPointer(plan, plan->child));
        while (next->child) {
            cJSON *item = cJSON_DetachItemViaPointer(next, next->child);
            cJSON_AddItemToObject(plan, item->string, item);
        }
    }
    cJSON_Delete(next);
    vp_free(out);
    cJSON_free(text);
    vp_registry_free(reg);
}

void cli_note_unexpanded(const cJSON *plan) {
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    char *text = reg ? cJSON_PrintUnformatted(plan) : NULL;
    const cJSON *insts = cJSON_GetObjectItemCaseSensitive(plan, "instances");
    for (int i = 0; text && i < cJSON_GetArraySize(insts); i++) {
        int added = 0;
        char *out = vp_plan_expand_pipeline_json(text, reg, i, 1, &added, &err);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(insts, i), "model");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "preset");
        if (out && added > 0 && cJSON_IsString(id))
            fprintf(stderr,
                    "note: %s is a diffusion pipeline, and this plan has its transformer alone: the %d other component%s "
                    "(text encoders, VAE) are not estimated. `--model %s` adds them, as the page does.\n",
                    id->valuestring, added, added == 1 ? "" : "s", id->valuestring);
        vp_free(out);
    }
    cJSON_free(text);
    vp_registry_free(reg);
}
