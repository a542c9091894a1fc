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
            "A record whose measured.oom is true counts as right when the plan is predicted not to fit.\n"
            "Every record needs measured.peak_alloc (whole, positive bytes) or measured.oom: true.\n\n"
            "exit status: 0 ok, 2 bad flags, 3 a record was refused (each is named by its line and field on\n"
            "stderr; the others are still compared), 5 the file cannot be read\n");
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
    size_t len = 0;
    int rc = 0;
    char *txt = cli_read_text(path, 256u << 20, &len, &rc);
    if (!txt) return rc;
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    if (!reg) {
        free(txt);
        cli_print_error("presets", &err);
        return EXIT_INPUT;
    }
    double *errs = calloc(1 + len / 16, sizeof *errs);
    double *rerrs = calloc(1 + len / 16, sizeof *rerrs); /* reserved: the allocator replay */
    if (!errs || !rerrs) {
        fprintf(stderr, "vramplan calibrate: out of memory\n");
        free(errs);
        free(rerrs);
        free(txt);
        vp_registry_free(reg);
        return EXIT_IO;
    }
    int n_res = 0;
    int n_ok = 0, n_oom = 0, oom_right = 0, n_params = 0, params_exact = 0, n_bad = 0, line_no = 0;
    if (!as_json && !plans)
        printf("%-28s %8s %12s %12s %8s %12s %12s %8s %6s\n", "id", "phase", "predicted", "measured", "error",
               "reserved", "measured", "error", "params");
    /* lines by length, not by C string: a NUL byte must not silently end the file */
    for (size_t at = 0; at < len;) {
        char *line = txt + at;
        char *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at;
        line[n] = '\0';
        at += n + 1;
        line_no++;
        const char *nul = memchr(line, '\0', n);
        if (nul) {
            fprintf(stderr, "vramplan: %s line %d: a NUL byte at column %d; the record is not text [json error]\n", path,
                    line_no, (int)(nul - line) + 1);
            n_bad++;
            continue;
        }
        if (!line[strspn(line, " \t\r")]) continue;
        char *plan = vp_record_to_plan_json(line, &err);
        /* the id is shown only from a record whose text is JSON, so it is valid UTF-8 (a key given
         * twice or a \u0000 is a field error: the text is still JSON) */
        vp_error jerr;
        vp_status js = vp_json_check(line, &jerr);
        cJSON *rec = js == VP_OK || js == VP_ERR_FIELD ? cJSON_Parse(line) : NULL;
        const cJSON *id = rec ? cJSON_GetObjectItemCaseSensitive(rec, "id") : NULL;
        const char *ids = cJSON_IsString(id) ? id->valuestring : "?";
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(rec, "measured");
        if (plan && !plans && !cJSON_IsObject(m)) {
            /* a record with nothing measured would leave the statistics silently */
            vp_free(plan);
            plan = NULL;
            snprintf(err.path, sizeof err.path, "measured");
            snprintf(err.message, sizeof err.message, "missing required object measured (peak_alloc, or oom: true)");
            err.code = VP_ERR_FIELD;
        }
        if (plan && plans) {
            printf("%s\n", plan);
            vp_free(plan);
            cJSON_Delete(rec);
            continue;
        }
        char *est = plan ? vp_estimate_json(plan, reg, 0, &err) : NULL;
        vp_free(plan);
        if (!est) {
            char what[256], idc[128];
            cli_col(idc, sizeof idc, ids, 40);
            for (size_t k = strlen(idc); k > 0 && idc[k - 1] == ' '; k--) idc[k - 1] = '\0';
            snprintf(what, sizeof what, "%s line %d (%s)", path, line_no, idc);
            cli_print_error(what, &err);
            n_bad++;
            cJSON_Delete(rec);
            continue;
        }
        cJSON *e = cJSON_Parse(est);
        vp_free(est);
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
            char pr[32], me[32], rr[32], rm[32], idc[128];
            cli_fmt_gib(pr, sizeof pr, pred);
            cli_fmt_gib(me, sizeof me, meas);
            cli_fmt_gib(rr, sizeof rr, pred_r);
            cli_fmt_gib(rm, sizeof rm, meas_r);
            if (oom)
                printf("%s %8.8s %12s %12s %8s %12s %12s %8s %6s\n", cli_col(idc, sizeof idc, ids, 28), phase, pr, "OOM", fits ? "MISSED" : "ok", rr,
                       "OOM", "", exact ? "exact" : "WRONG");
            else
                printf("%s %8.8s %12s %12s %+7.2f%% %12s %12s %+7.2f%% %6s\n", cli_col(idc, sizeof idc, ids, 28), phase, pr, me, 100.0 * rel, rr, rm,
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
