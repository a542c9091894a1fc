/* pipeline_expand.c: `--model ID` of a diffusion pipeline preset becomes the pipeline's instances. The
 * expansion is the core's (core/src/pipeline_expand.c vp_plan_expand_pipeline_json), shared with the page;
 * this file only carries the CLI's plan object through it. */
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
