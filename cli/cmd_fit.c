/* cmd_fit.c: `vramplan fit --max batch|seq|new-tokens|frames` — the largest micro-batch, sequence length,
 * generated-token count or video frame count that fits, the rest of the plan kept (vramplan/fit@1,
 * docs/schema/fit.md). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f) {
    fprintf(f, "usage: vramplan fit [--plan FILE.json | --model ID | --hf-config config.json] [options] --max FIELD\n\n"
               "The largest value of one workload field that fits; the rest of the plan is kept. Memory is\n"
               "not assumed to grow with the value: the neighbours of the answer are estimated too.\n\n"
               "  --max FIELD          batch | seq | new-tokens | frames (new-tokens: inference plans; frames:\n"
               "                       video pipelines, in the counts they take: 4k + 1 for a 4x temporal VAE)\n"
               "  --json               print vramplan/fit@1 JSON (docs/schema/fit.md)\n"
               "  --pretty             indent the JSON\n\n"
               "plan options (as for `vramplan estimate`):\n");
    cli_print_plan_flags(f);
    fprintf(f, "\nexit status: 0 some value fits, 4 not even 1 fits, 2 bad flags, 3 bad input (the message names the field)\n");
}

typedef struct {
    const char *field;
    int as_json, pretty;
} fit_flags;

static int fit_flag(void *ctx, const char *flag, const char *value) {
    fit_flags *o = ctx;
    if (!strcmp(flag, "--json")) return o->as_json = 1;
    if (!strcmp(flag, "--pretty")) return o->pretty = 1;
    if (!strcmp(flag, "--max")) {
        if (!value || (strcmp(value, "batch") && strcmp(value, "seq") && strcmp(value, "new-tokens") &&
                       strcmp(value, "new_tokens") && strcmp(value, "frames"))) {
            fprintf(stderr, "vramplan fit: --max needs batch, seq, new-tokens or frames%s%s\n", value ? ", got " : "",
                    value ? value : "");
            return -EXIT_USAGE;
        }
        o->field = value;
        return 2;
    }
    return 0;
}

static void print_text(const cJSON *fit) {
    const char *field = cli_str(fit, "field");
    const char *what = !strcmp(field, "batch")    ? "micro-batch"
                       : !strcmp(field, "seq")    ? "sequence length"
                       : !strcmp(field, "frames") ? "number of video frames"
                                                  : "number of generated tokens";
    printf("Largest %s that fits: %.0f\n", what, cli_num(fit, "value"));
    if (cli_num(fit, "step") > 1)
        printf("  (counts of 1 + %.0f k frames, as the pipeline takes them; a count between two of them runs as one of them)\n",
               cli_num(fit, "step"));
    const cJSON *est = cJSON_GetObjectItemCaseSensitive(fit, "estimate");
    if (cJSON_IsObject(est)) printf("  at %s = %.0f: %s\n", field, cli_num(fit, "value"), cli_str(est, "summary"));
    const cJSON *next = cJSON_GetObjectItemCaseSensitive(fit, "next");
    printf("  %s\n", cli_str(next, "reason"));
    const cJSON *gaps = cJSON_GetObjectItemCaseSensitive(fit, "gaps");
    if (cJSON_GetArraySize(gaps) > 0) {
        printf("  memory is not monotone here: smaller values that do not fit:");
        const cJSON *g;
        cJSON_ArrayForEach(g, gaps) printf(" %.0f", g->valuedouble);
        printf("\n");
    }
    printf("  (%.0f estimates; the search may go up to %.0f: %s)\n", cli_num(fit, "estimates"), cli_num(fit, "limit"), cli_str(fit, "limit_reason"));
}

int cmd_fit(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        }
    fit_flags of = {NULL, 0, 0};
    char *plan_txt = NULL;
    int rc = cli_plan_from_flags("fit", argc, argv, fit_flag, &of, &plan_txt);
    if (rc) return rc;
    if (!of.field) {
        free(plan_txt);
        fprintf(stderr, "vramplan fit: --max batch|seq|new-tokens|frames is required\n");
        return EXIT_USAGE;
    }
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    const char *what = reg ? "plan" : "presets";
    char *out = reg ? vp_fit_json(plan_txt, reg, of.field, of.pretty, &err) : NULL;
    free(plan_txt);
    vp_registry_free(reg);
    if (!out) {
        cli_print_error(what, &err);
        return EXIT_INPUT;
    }
    cJSON *fit = cJSON_Parse(out);
    if (of.as_json)
        printf("%s\n", out);
    else if (fit)
        print_text(fit);
    rc = cli_num(fit, "value") >= 1 ? 0 : EXIT_NOFIT;
    cJSON_Delete(fit);
    vp_free(out);
    return rc;
}
