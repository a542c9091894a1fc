/* cmd_recommend.c: `vramplan recommend` (also `vramplan estimate --recommend`) — the training setups that
 * fit for a global batch, fastest first, and the winner as TrainingArguments fields and
 * PYTORCH_CUDA_ALLOC_CONF (vramplan/recommend@1, docs/schema/recommend.md). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f) {
    fprintf(f, "usage: vramplan recommend [--plan FILE.json | --model ID | --hf-config config.json] [options]\n\n"
               "The training setups that fit the GPU for your global batch, fastest first: micro-batch ×\n"
               "gradient accumulation × checkpointing every k-th block × optimizer implementation ×\n"
               "precision. Order: largest micro-batch, least recompute, the plan's own precision, fewest\n"
               "optimizer-state bytes, then fused / foreach / for-loop / 8-bit / paged. The winner is\n"
               "printed as TrainingArguments fields and a PYTORCH_CUDA_ALLOC_CONF line.\n\n"
               "  --global-batch N     samples per optimizer step (default: batch × grad_accum × dp of the plan)\n"
               "  --top N              list N setups (default 10, at most 32)\n"
               "  --json               print vramplan/recommend@1 JSON (docs/schema/recommend.md)\n"
               "  --pretty             indent the JSON\n\n"
               "plan options (as for `vramplan estimate`; give the GPU with --gpu NAME or a probe file):\n");
    cli_print_plan_flags(f);
    fprintf(f, "\nexit status: 0 some setup fits, 4 none does, 2 bad flags, 3 bad input (the message names the field)\n");
}

typedef struct {
    long long global_batch, top;
    int as_json, pretty;
} rec_flags;

static int rec_flag(void *ctx, const char *flag, const char *value) {
    rec_flags *o = ctx;
    if (!strcmp(flag, "--json")) return o->as_json = 1;
    if (!strcmp(flag, "--pretty")) return o->pretty = 1;
    if (!strcmp(flag, "--recommend")) return 1; /* `vramplan estimate --recommend` lands here */
    if (!strcmp(flag, "--global-batch") || !strcmp(flag, "--top")) {
        long long n = 0;
        if (!value) {
            fprintf(stderr, "vramplan recommend: %s needs a value\n", flag);
            return -EXIT_USAGE;
        }
        if (!cli_parse_count("recommend", flag, value, &n)) return -EXIT_USAGE;
        if (n < 1) {
            fprintf(stderr, "vramplan recommend: %s must be at least 1\n", flag);
            return -EXIT_USAGE;
        }
        *(!strcmp(flag, "--top") ? &o->top : &o->global_batch) = n;
        return 2;
    }
    return 0;
}

static void print_text(const cJSON *rec) {
    const cJSON *ents = cJSON_GetObjectItemCaseSensitive(rec, "entries");
    int n = cJSON_GetArraySize(ents);
    printf("Training setups that fit a global batch of %.0f%s, fastest first (%.0f setups, %.0f estimated):\n",
           cli_num(rec, "global_batch"), cli_num(rec, "dp") > 1 ? " over the data-parallel ranks" : "", cli_num(rec, "setups"),
           cli_num(rec, "estimates"));
    if (!n) {
        printf("  none: no micro-batch, checkpointing, optimizer implementation or precision fits this GPU.\n"
               "  `vramplan estimate` lists what else to change (LoRA, sharding, offload).\n");
        return;
    }
    printf("\n %3s %6s %6s %6s  %-11s %-20s %12s %12s\n", "#", "micro", "accum", "ckpt", "precision", "optimizer", "reserved",
           "headroom");
    const cJSON *e;
    cJSON_ArrayForEach(e, ents) {
        const cJSON *est = cJSON_GetObjectItemCaseSensitive(e, "estimate");
        char ck[16], opt[48], r[32], h[32];
        double k = cli_num(e, "grad_ckpt_every");
        if (k == 0)
            snprintf(ck, sizeof ck, "off");
        else if (k == 1)
            snprintf(ck, sizeof ck, "all");
        else
            snprintf(ck, sizeof ck, "1/%.0f", k); /* every k-th block */
        snprintf(opt, sizeof opt, "%s %s", cli_str(e, "optimizer"), cli_str(e, "optim_impl"));
        if (strstr(cli_str(e, "optimizer"), "8bit") || strstr(cli_str(e, "optimizer"), "paged")) snprintf(opt, sizeof opt, "%s", cli_str(e, "optimizer"));
        cli_fmt_gib(r, sizeof r, cli_num(est, "peak_reserved_bytes"));
        cli_fmt_gib(h, sizeof h, cli_num(est, "headroom_bytes"));
        printf(" %3.0f %6.0f %6.0f %6s  %-11s %-20s %12s %12s\n", cli_num(e, "rank"), cli_num(e, "micro_batch"), cli_num(e, "grad_accum"), ck,
               cli_str(e, "precision"), opt, r, h);
    }
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "winner");
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ents, 0), "estimate");
    const cJSON *flags = cJSON_GetObjectItemCaseSensitive(w, "script_flags");
    if (cJSON_IsString(flags)) /* a diffusion transformer: the flags of diffusers' / finetrainers' training scripts */
        printf("\n%s\n\nThe winner, to paste (diffusers / finetrainers training-script flags):\n\n%s\n", cli_str(first, "summary"),
               flags->valuestring);
    else
        printf("\n%s\n\nThe winner, to paste:\n\n%s\n", cli_str(first, "summary"), cli_str(w, "training_arguments"));
    if (cli_str(w, "env")[0])
        printf("%s\n", cli_str(w, "env"));
    else
        printf("# PYTORCH_CUDA_ALLOC_CONF unset: the estimate is for PyTorch's default allocator settings\n");
}

int cmd_recommend(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        }
    rec_flags of = {0, 10, 0, 0};
    char *plan_txt = NULL;
    int rc = cli_plan_from_flags("recommend", argc, argv, rec_flag, &of, &plan_txt);
    if (rc) return rc;
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    const char *what = reg ? "plan" : "presets";
    char *out = reg ? vp_recommend_json(plan_txt, reg, of.global_batch, (int)(of.top < 1000 ? of.top : 1000), of.pretty, &err) : NULL;
    free(plan_txt);
    vp_registry_free(reg);
    if (!out) {
        cli_print_error(what, &err);
        return EXIT_INPUT;
    }
    cJSON *rec = cJSON_Parse(out);
    if (of.as_json)
        printf("%s\n", out);
    else if (rec)
        print_text(rec);
    rc = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "entries")) > 0 ? 0 : EXIT_NOFIT;
    cJSON_Delete(rec);
    vp_free(out);
    return rc;
}
