/* pipeline_expand.c: `--model ID` of a diffusion pipeline preset (one whose file lists
 * pipeline.components) becomes the pipeline's instances: in inference the transformer and every other
 * component (text encoders, VAE) as frozen no-grad instances named after the component, "ID/<component>";
 * in training the transformer alone (latents and text embeddings precomputed, as the training scripts
 * default to), and with workload.diffusion.precompute (--precompute) the text encoders and VAE too, which the
 * precompute phase runs before training (core/src/precompute.c). Without --seq the sequence comes from frames × height × width (or the pipeline's default). */
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

void cli_expand_pipeline(cJSON *plan, int seq_given) {
    cJSON *insts = cJSON_GetObjectItemCaseSensitive(plan, "instances");
    if (!cJSON_IsArray(insts) || cJSON_GetArraySize(insts) != 1) return;
    cJSON *in0 = cJSON_GetArrayItem(insts, 0);
    const char *id = cli_str(cJSON_GetObjectItemCaseSensitive(in0, "model"), "preset");
    if (!id[0] || strchr(id, '/')) return;
    cJSON *bundle = cJSON_Parse(vp_builtin_presets_json());
    if (!bundle) return;
    const cJSON *entry = NULL, *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(bundle, "models"))
        if (!strcmp(cli_str(m, "id"), id)) entry = m;
    const cJSON *comps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(entry, "pipeline"), "components");
    if (!cJSON_IsObject(comps)) {
        cJSON_Delete(bundle);
        return;
    }
    cJSON *wl = cJSON_GetObjectItemCaseSensitive(plan, "workload");
    if (!seq_given) cJSON_DeleteItemFromObjectCaseSensitive(wl, "seq");
    int infer = !strcmp(cli_str(wl, "mode"), "infer");
    int precompute = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(wl, "diffusion"), "precompute"));
    if (!cJSON_GetObjectItemCaseSensitive(in0, "name")) cJSON_AddStringToObject(in0, "name", "transformer");
    if (infer || precompute) {
        const char *prec = cli_str(in0, "precision");
        if (!prec[0]) cJSON_AddStringToObject(in0, "precision", prec = "bf16");
        if (infer && !cJSON_GetObjectItemCaseSensitive(in0, "role")) cJSON_AddStringToObject(in0, "role", "reference");
        if (infer && !cJSON_GetObjectItemCaseSensitive(in0, "activations")) cJSON_AddStringToObject(in0, "activations", "no_grad");
        const cJSON *c;
        /* pipeline order: text encoders first, the VAE last (the transformer is instance 0) */
        for (int pass = 0; pass < 2; pass++) {
            cJSON_ArrayForEach(c, comps) {
                int te = !strncmp(c->string, "text_encoder", 12);
                if (pass == 0 ? !te : te) continue;
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "name", c->string);
                cJSON_AddStringToObject(o, "role", "reference");
                char pid[160];
                snprintf(pid, sizeof pid, "%s/%s", id, c->string);
                cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "model"), "preset", pid);
                cJSON_AddStringToObject(o, "precision", prec);
                cJSON_AddStringToObject(o, "activations", "no_grad");
                cJSON_AddItemToArray(insts, o);
            }
        }
    }
    cJSON_Delete(bundle);
}
