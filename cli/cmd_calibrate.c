/* cmd_calibrate.c: `vramplan calibrate FILE.jsonl` — predicted vs measured peak for every record
 * (format of shared/groundtruth/calibration.jsonl). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f) {
    fprintf(f,
            "usage: vramplan calibrate FILE.jsonl [--json | --plans]\n\n"
            "Reads measured runs (one JSON record per line, shared/groundtruth/README.md format) and prints,\n"
            "per record, the predicted vs measured peak allocated memory and the error.\n\n"
            "  --json    one JSON object per record (id, predicted_peak_alloc, measured_peak_alloc, error,\n"
            "            predicted_peak_reserved, measured_peak_reserved, reserved_error,\n"
            "            measured_oom, predicted_fits, predicted_params_total, measured_params_total), then a\n"
            "            summary object\n"
            "  --plans   print the plan each record is turned into (one JSON per line), and nothing else\n\n"
            "A record whose measured.oom is true counts as right when the plan is predicted not to fit.\n");
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int cmd_calibrate(int argc, char **argv) {
    const char *path = NULL;
    int as_json = 0, plans = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--json")) {
            as_json = 1;
        } else if (!strcmp(argv[i], "--plans")) {
            plans = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "vramplan calibrate: unknown option '%s'\n", argv[i]);
            return EXIT_USAGE;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        help(stderr);
        return EXIT_USAGE;
    }
    char *txt = cli_read_file(path, 256u << 20);
    if (!txt) return EXIT_IO;
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    if (!reg) {
        free(txt);
        cli_print_error("presets", &err);
        return EXIT_INPUT;
    }
    double *errs = calloc(1 + strlen(txt) / 16, sizeof *errs);
    double *rerrs = calloc(1 + strlen(txt) / 16, sizeof *rerrs); /* reserved: the allocator replay */
    int n_res = 0;
    int n_ok = 0, n_oom = 0, oom_right = 0, n_params = 0, params_exact = 0, n_bad = 0, line_no = 0;
    if (!as_json && !plans)
        printf("%-28s %8s %12s %12s %8s %12s %12s %8s %6s\n", "id", "phase", "predicted", "measured", "error",
               "reserved", "measured", "error", "params");
    for (char *line = txt, *next = NULL; line; line = next) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        next = nl ? nl + 1 : NULL;
        line_no++;
        if (!line[strspn(line, " \t\r")]) continue;
        cJSON *rec = cJSON_Parse(line);
        const cJSON *id = rec ? cJSON_GetObjectItemCaseSensitive(rec, "id") : NULL;
        const char *ids = cJSON_IsString(id) ? id->valuestring : "?";
        char *plan = vp_record_to_plan_json(line, &err);
        if (plan && plans) {
            printf("%s\n", plan);
            vp_free(plan);
            cJSON_Delete(rec);
            continue;
        }
        char *est = plan ? vp_estimate_json(plan, reg, 0, &err) : NULL;
        vp_free(plan);
        if (!est) {
            char what[96];
            snprintf(what, sizeof what, "%s line %d (%s)", path, line_no, ids);
            cli_print_error(what, &err);
            n_bad++;
            cJSON_Delete(rec);
            continue;
        }
        cJSON *e = cJSON_Parse(est);
        vp_free(est);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(rec, "measured");
        const cJSON *dev = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "devices"), 0);
        const cJSON *inst = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "instances"), 0);
        double pred = cJSON_GetObjectItemCaseSensitive(dev, "peak_alloc_bytes")->valuedouble;
        const cJSON *meas_pk = cJSON_GetObjectItemCaseSensitive(m, "peak_alloc");
        double meas = cJSON_IsNumber(meas_pk) ? meas_pk->valuedouble : 0;
        double pred_r = cJSON_GetObjectItemCaseSensitive(dev, "peak_reserved_bytes")->valuedouble;
        const cJSON *meas_r_it = cJSON_GetObjectItemCaseSensitive(m, "peak_reserved");
        double meas_r = cJSON_IsNumber(meas_r_it) ? meas_r_it->valuedouble : 0;
        double rel_r = meas_r > 0 ? (pred_r - meas_r) / meas_r : 0;
        int oom = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "oom"));
        int fits = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "fits"));
        double pp = cJSON_GetObjectItemCaseSensitive(inst, "params_total")->valuedouble;
        const cJSON *mp = cJSON_GetObjectItemCaseSensitive(m, "params_total");
        int have_params = cJSON_IsNumber(mp);
        int exact = have_params && mp->valuedouble == pp;
        if (have_params) {
            n_params++;
            params_exact += exact;
        }
        double rel = meas > 0 ? (pred - meas) / meas : 0;
        if (oom) {
            n_oom++;
            oom_right += !fits;
        } else if (meas > 0) {
            errs[n_ok++] = fabs(rel);
            if (meas_r > 0) rerrs[n_res++] = fabs(rel_r);
        }
        const char *phase = cJSON_GetObjectItemCaseSensitive(dev, "peak_phase")->valuestring;
        if (as_json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "id", ids);
            cJSON_AddNumberToObject(o, "predicted_peak_alloc", pred);
            cJSON_AddNumberToObject(o, "measured_peak_alloc", meas);
            cJSON_AddNumberToObject(o, "error", oom ? 0 : rel);
            cJSON_AddNumberToObject(o, "predicted_peak_reserved", pred_r);
            cJSON_AddNumberToObject(o, "measured_peak_reserved", meas_r);
            cJSON_AddNumberToObject(o, "reserved_error", oom ? 0 : rel_r);
            cJSON_AddBoolToObject(o, "measured_oom", oom);
            cJSON_AddBoolToObject(o, "predicted_fits", fits);
            cJSON_AddNumberToObject(o, "predicted_params_total", pp);
            if (have_params) cJSON_AddNumberToObject(o, "measured_params_total", mp->valuedouble);
            cJSON_AddStringToObject(o, "peak_phase", phase);
            char *s = cJSON_PrintUnformatted(o);
            printf("%s\n", s);
            free(s);
            cJSON_Delete(o);
        } else {
            char pr[32], me[32], rr[32], rm[32];
            cli_fmt_gib(pr, sizeof pr, pred);
            cli_fmt_gib(me, sizeof me, meas);
            cli_fmt_gib(rr, sizeof rr, pred_r);
            cli_fmt_gib(rm, sizeof rm, meas_r);
            if (oom)
                printf("%-28.28s %8.8s %12s %12s %8s %12s %12s %8s %6s\n", ids, phase, pr, "OOM", fits ? "MISSED" : "ok", rr,
                       "OOM", "", exact ? "exact" : "WRONG");
            else
                printf("%-28.28s %8.8s %12s %12s %+7.2f%% %12s %12s %+7.2f%% %6s\n", ids, phase, pr, me, 100.0 * rel, rr, rm,
                       100.0 * rel_r, exact ? "exact" : "WRONG");
        }
        cJSON_Delete(e);
        cJSON_Delete(rec);
    }
    if (!plans) {
        qsort(errs, (size_t)n_ok, sizeof *errs, cmp_d);
        double median = n_ok ? (n_ok % 2 ? errs[n_ok / 2] : 0.5 * (errs[n_ok / 2 - 1] + errs[n_ok / 2])) : 0;
        double worst = n_ok ? errs[n_ok - 1] : 0;
        qsort(rerrs, (size_t)n_res, sizeof *rerrs, cmp_d);
        double rmedian = n_res ? (n_res % 2 ? rerrs[n_res / 2] : 0.5 * (rerrs[n_res / 2 - 1] + rerrs[n_res / 2])) : 0;
        double rworst = n_res ? rerrs[n_res - 1] : 0;
        if (as_json)
            printf("{\"summary\":{\"records\":%d,\"median_abs_error\":%.6f,\"max_abs_error\":%.6f,"
                   "\"reserved_median_abs_error\":%.6f,\"reserved_max_abs_error\":%.6f,\"oom_records\":%d,"
                   "\"oom_predicted\":%d,\"params_checked\":%d,\"params_exact\":%d,\"unreadable\":%d}}\n",
                   n_ok + n_oom, median, worst, rmedian, rworst, n_oom, oom_right, n_params, params_exact, n_bad);
        else
            printf("\n%d runs: median |error| %.2f%%, worst %.2f%%; reserved: median |error| %.2f%%, worst %.2f%%; "
                   "OOM runs predicted not to fit: %d/%d; parameter counts exact: %d/%d%s\n",
                   n_ok + n_oom, 100 * median, 100 * worst, 100 * rmedian, 100 * rworst, oom_right, n_oom, params_exact, n_params,
                   n_bad ? " (some records unreadable)" : "");
    }
    free(errs);
    free(rerrs);
    free(txt);
    vp_registry_free(reg);
    return n_bad ? EXIT_INPUT : 0;
}
