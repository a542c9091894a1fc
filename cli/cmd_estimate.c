/* cmd_estimate.c: `vramplan estimate` — flags or --plan FILE -> estimate (table or JSON). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f) {
    fprintf(f, "usage: vramplan estimate [--plan FILE.json | --model ID | --hf-config config.json] [options]\n\n");
    cli_print_plan_flags(f);
    fprintf(f,
            "  --json               print the estimate as JSON (vramplan/estimate@1)\n"
            "  --pretty             indent the JSON\n"
            "  --check              exit with status 4 when the plan does not fit\n\n"
            "exit status: 0 ok, 2 bad flags, 3 bad input (the message names the field, or the line and column of a\n"
            "JSON syntax error), 4 does not fit (--check), 5 a file cannot be read\n");
}

typedef struct {
    int as_json, pretty, check;
} out_flags;

static int output_flag(void *ctx, const char *flag, const char *value) {
    out_flags *o = ctx;
    (void)value;
    if (!strcmp(flag, "--json")) return o->as_json = 1;
    if (!strcmp(flag, "--pretty")) return o->pretty = 1;
    if (!strcmp(flag, "--check")) return o->check = 1;
    return 0;
}

int cmd_estimate(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        }
    out_flags of = {0, 0, 0};
    char *plan_txt = NULL;
    int rc = cli_plan_from_flags("estimate", argc, argv, output_flag, &of, &plan_txt);
    if (rc) return rc;
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    const char *what = reg ? "plan" : "presets";
    char *est = reg ? vp_estimate_with_suggestions_json(plan_txt, reg, of.pretty, &err) : NULL;
    free(plan_txt);
    vp_registry_free(reg);
    if (!est) {
        cli_print_error(what, &err);
        return EXIT_INPUT;
    }
    if (of.as_json)
        printf("%s\n", est);
    else
        cli_print_estimate_table(stdout, est);
    if (of.check) {
        cJSON *e = cJSON_Parse(est);
        if (e && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "fits"))) rc = EXIT_NOFIT;
        cJSON_Delete(e);
    }
    vp_free(est);
    return rc;
}
