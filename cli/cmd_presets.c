/* cmd_presets.c: `vramplan models` and `vramplan gpus` — the presets built from models/. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_presets(int argc, char **argv, const char *list) {
    int as_json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: vramplan %s [--json]\n\nList the preset %s compiled from models/%s/.\n", list,
                   !strcmp(list, "models") ? "models" : "GPUs", list);
            return 0;
        } else if (!strcmp(argv[i], "--json")) {
            as_json = 1;
        } else {
            fprintf(stderr, "vramplan %s: unknown option '%s'\n", list, argv[i]);
            return EXIT_USAGE;
        }
    }
    cJSON *root = cJSON_Parse(vp_builtin_presets_json());
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, list);
    if (as_json) {
        char *s = cJSON_Print(arr);
        printf("%s\n", s ? s : "[]");
        cJSON_free(s);
        cJSON_Delete(root);
        return 0;
    }
    const cJSON *it;
    int is_models = !strcmp(list, "models");
    if (is_models)
        printf("%-26s %-12s %18s  %s\n", "id", "family", "params", "name");
    else
        printf("%-24s %10s %10s  %s\n", "id", "memory", "GB/s", "name");
    cJSON_ArrayForEach(it, arr) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");
        if (is_models) {
            const cJSON *fam = cJSON_GetObjectItemCaseSensitive(it, "family");
            const cJSON *p = cJSON_GetObjectItemCaseSensitive(it, "params_total");
            printf("%-26s %-12s %18.0f  %s\n", cJSON_IsString(id) ? id->valuestring : "?",
                   cJSON_IsString(fam) ? fam->valuestring : "", cJSON_IsNumber(p) ? p->valuedouble : 0,
                   cJSON_IsString(name) ? name->valuestring : "");
        } else {
            const cJSON *mem = cJSON_GetObjectItemCaseSensitive(it, "memory_bytes");
            const cJSON *bw = cJSON_GetObjectItemCaseSensitive(it, "bandwidth_gbs");
            char m[32];
            cli_fmt_gib(m, sizeof m, cJSON_IsNumber(mem) ? mem->valuedouble : 0);
            printf("%-24s %10s %10.0f  %s\n", cJSON_IsString(id) ? id->valuestring : "?", m,
                   cJSON_IsNumber(bw) ? bw->valuedouble : 0, cJSON_IsString(name) ? name->valuestring : "");
        }
    }
    cJSON_Delete(root);
    return 0;
}
