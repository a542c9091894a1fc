/* table.c: readable tables of an estimate, drawn from its JSON. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_print_estimate_table(FILE *out, const char *json) {
    cJSON *e = cJSON_Parse(json);
    if (!e) return 1;
    fprintf(out, "%s\n", cli_str(e, "summary"));
    const cJSON *insts = cJSON_GetObjectItemCaseSensitive(e, "instances");
    const cJSON *it;
    fprintf(out, "\n%-16s %-10s %-10s %16s %16s\n", "instance", "role", "model", "params", "trainable");
    cJSON_ArrayForEach(it, insts) {
        char c1[80], c2[48], c3[48];
        fprintf(out, "%s %s %s %16.0f %16.0f\n", cli_col(c1, sizeof c1, cli_str(it, "name"), 16),
                cli_col(c2, sizeof c2, cli_str(it, "role"), 10), cli_col(c3, sizeof c3, cli_str(it, "model_type"), 10),
                cli_num(it, "params_total"), cli_num(it, "params_trainable"));
    }
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(e, "devices");
    cJSON_ArrayForEach(it, devs) {
        char a[32], r[32], s[32], u[32], h[32];
        cli_fmt_gib(a, sizeof a, cli_num(it, "peak_alloc_bytes"));
        cli_fmt_gib(r, sizeof r, cli_num(it, "peak_reserved_bytes"));
        cli_fmt_gib(s, sizeof s, cli_num(it, "nvidia_smi_bytes"));
        cli_fmt_gib(u, sizeof u, cli_num(it, "usable_bytes"));
        cli_fmt_gib(h, sizeof h, cli_num(it, "headroom_bytes"));
        int cpu = !strcmp(cli_str(it, "kind"), "cpu");
        const char *verdict = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "fits")) ? "FITS" : "DOES NOT FIT";
        if (cpu) {
            int known = cli_num(it, "capacity_bytes") > 0;
            fprintf(out, "\n%s — %s\n", cli_str(it, "name"), known ? verdict : "capacity not given (hardware.cpu_ram_bytes)");
            fprintf(out, "  RAM needed                               %12s\n", a);
            if (known) fprintf(out, "  RAM available                            %12s   headroom %s\n", u, h);
        } else {
            fprintf(out, "\nGPU %.0f: %s — %s (peak in %s)\n", cli_num(it, "index"), cli_str(it, "name"), verdict, cli_str(it, "peak_phase"));
            fprintf(out, "  PyTorch allocated (max_memory_allocated) %12s\n", a);
            fprintf(out, "  PyTorch reserved                         %12s\n", r);
            fprintf(out, "  nvidia-smi will show                     %12s\n", s);
            fprintf(out, "  usable on this GPU                       %12s   headroom %s\n", u, h);
            const cJSON *al = cJSON_GetObjectItemCaseSensitive(it, "allocator");
            const char *note = cli_str(al, "note");
            if (note && note[0]) fprintf(out, "  allocator: %s\n", note);
        }
        fprintf(out, "\n  %-28s %-12s %12s  %s\n", "component", "instance", "bytes", "how");
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(it, "components")) {
            char b[32];
            cli_fmt_gib(b, sizeof b, cli_num(c, "bytes"));
            char c1[128], c2[64];
            fprintf(out, "  %s %s %12s  %s\n", cli_col(c1, sizeof c1, cli_str(c, "label"), 28),
                    cli_col(c2, sizeof c2, cli_str(c, "instance"), 12), b, cli_str(c, "explain"));
        }
        if (cpu) continue;
        fprintf(out, "\n  phases:");
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(it, "phases")) {
            char b[32];
            cli_fmt_gib(b, sizeof b, cli_num(c, "alloc_bytes"));
            fprintf(out, "  %s %s", cli_str(c, "name"), b);
        }
        fprintf(out, "\n");
    }
    const cJSON *sg = cJSON_GetObjectItemCaseSensitive(e, "suggestions");
    if (cJSON_GetArraySize(sg) > 0) {
        fprintf(out, "\nwhat to change (each re-estimated with the same model):\n");
        cJSON_ArrayForEach(it, sg) {
            char b[32], sv[32];
            cli_fmt_gib(b, sizeof b, cli_num(it, "peak_reserved_bytes"));
            cli_fmt_gib(sv, sizeof sv, cli_num(it, "saves_bytes"));
            fprintf(out, "  %-4s %12s (-%s)  %s\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "fits")) ? "fits" : "",
                    b, sv, cli_str(it, "change"));
        }
    }
    const cJSON *sv = cJSON_GetObjectItemCaseSensitive(e, "serving"); /* workload.mode "serve" */
    if (cJSON_IsObject(sv)) {
        fprintf(out, "\nserving (%s), per GPU:\n", cli_str(sv, "engine"));
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(sv, "arithmetic")) fprintf(out, "  %s\n", it->valuestring);
        fprintf(out, "  %s\n\nlaunch:\n  %s\n", cli_str(sv, "note"), cli_str(sv, "launch"));
        const cJSON *an = cJSON_GetObjectItemCaseSensitive(sv, "answers");
        if (cJSON_IsObject(an)) {
            fprintf(out, "\nanswers (each re-estimated):\n");
            cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(an, "max_concurrency_at"))
                fprintf(out, "  max concurrency at %.0f tokens: %.2fx\n", cli_num(it, "max_model_len"),
                        cli_num(it, "max_concurrency"));
            const cJSON *l = cJSON_GetObjectItemCaseSensitive(an, "longest_max_model_len");
            if (cli_num(l, "value") > 0)
                fprintf(out, "  longest context that starts: %.0f\n    %s\n", cli_num(l, "value"), cli_str(l, "launch"));
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(an, "fewest_gpus");
            if (cli_num(f, "tp") > 0)
                fprintf(out, "  fewest GPUs for %g concurrent requests: tp %.0f (%.2fx)\n    %s\n",
                        cli_num(f, "target_concurrency"), cli_num(f, "tp"), cli_num(f, "max_concurrency"), cli_str(f, "launch"));
            const cJSON *g = cJSON_GetObjectItemCaseSensitive(an, "n_gpu_layers");
            if (cJSON_IsObject(g))
                fprintf(out, "  most layers on this GPU: -ngl %.0f\n    %s\n", cli_num(g, "value"), cli_str(g, "launch"));
        }
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(e, "warnings")) fprintf(out, "\nwarning: %s\n", it->valuestring);
    cJSON_Delete(e);
    return 0;
}
