/*
 * vramplan-probe - writes the GPUs of this node as a vramplan/gpu-probe@1 JSON document.
 *
 * Needs only the NVIDIA driver: libcuda.so.1 and (optionally) libnvidia-ml.so.1 are loaded at
 * run time. See docs/schema/gpu-probe.md for the output, the error codes and the exit codes.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "validate.h"

const char *vp_err_code(vp_err e)
{
    switch (e) {
    case VP_OK: return "ok";
    case VP_ERR_BAD_ARGUMENTS: return "bad_arguments";
    case VP_ERR_NO_DRIVER: return "no_driver";
    case VP_ERR_NO_GPU: return "no_gpu";
    case VP_ERR_DRIVER_TOO_OLD: return "driver_too_old";
    case VP_ERR_PERMISSION_DENIED: return "permission_denied";
    case VP_ERR_INIT_FAILED: return "init_failed";
    case VP_ERR_IO_ERROR: return "io_error";
    case VP_ERR_INTERNAL: return "internal";
    }
    return "internal";
}

int vp_exit_code(vp_err e)
{
    switch (e) {
    case VP_OK: return VP_EXIT_OK;
    case VP_ERR_BAD_ARGUMENTS: return VP_EXIT_BAD_ARGUMENTS;
    case VP_ERR_NO_DRIVER: return VP_EXIT_NO_DRIVER;
    case VP_ERR_NO_GPU: return VP_EXIT_NO_GPU;
    case VP_ERR_DRIVER_TOO_OLD: return VP_EXIT_DRIVER_TOO_OLD;
    case VP_ERR_PERMISSION_DENIED: return VP_EXIT_PERMISSION_DENIED;
    case VP_ERR_INIT_FAILED: return VP_EXIT_INIT_FAILED;
    case VP_ERR_IO_ERROR: return VP_EXIT_IO_ERROR;
    case VP_ERR_INTERNAL: return VP_EXIT_INTERNAL;
    }
    return VP_EXIT_INTERNAL;
}

static void usage(FILE *f)
{
    fputs("usage: vramplan-probe [--output FILE] [--pretty] [--redact] [--hostname] [--device LIST]\n"
          "       vramplan-probe --validate FILE\n"
          "       vramplan-probe --help | --version\n"
          "\n"
          "Writes this node's NVIDIA GPUs as JSON (schema vramplan/gpu-probe@1) for the vramplan planner.\n"
          "Needs only the NVIDIA driver (libcuda.so.1; libnvidia-ml.so.1 adds reserved/used memory,\n"
          "serials, power, PCIe, MIG and NVLink details). Creates one short-lived CUDA context per GPU.\n"
          "\n"
          "  -o, --output FILE  write to FILE instead of standard output\n"
          "      --pretty       indent the JSON\n"
          "      --redact       leave out UUIDs, serial numbers and the host name\n"
          "      --hostname     include this machine's host name\n"
          "      --device LIST  only these CUDA device indices, e.g. 0,2 (as CUDA numbers them,\n"
          "                     after CUDA_VISIBLE_DEVICES)\n"
          "      --validate FILE  check that FILE is a valid gpu-probe document and exit\n"
          "  -h, --help         this text\n"
          "      --version      print the version\n"
          "\n"
          "Exit codes: 0 ok, 1 --validate found problems, 2 bad_arguments, 3 no_driver, 4 no_gpu,\n"
          "5 driver_too_old, 6 permission_denied, 7 init_failed, 8 io_error, 9 internal.\n"
          "Environment: VRAMPLAN_PROBE_LIBCUDA, VRAMPLAN_PROBE_LIBNVML override the library names.\n",
          f);
}

/* "0,2,3" -> indices; returns 0 on success */
static int parse_devices(const char *s, vp_options *opt, char *msg, size_t msgsz)
{
    opt->n_devices = 0;
    const char *p = s;
    if (!*p) {
        snprintf(msg, msgsz, "--device needs a list of device indices such as 0,2");
        return -1;
    }
    for (;;) {
        if (*p < '0' || *p > '9') {
            snprintf(msg, msgsz, "--device \"%s\": expected comma-separated device indices such as 0,2", s);
            return -1;
        }
        long v = 0;
        while (*p >= '0' && *p <= '9') {
            v = v * 10 + (*p - '0');
            if (v > 100000) {
                snprintf(msg, msgsz, "--device \"%s\": index too large", s);
                return -1;
            }
            p++;
        }
        for (int i = 0; i < opt->n_devices; i++) {
            if (opt->devices[i] == (int)v) {
                snprintf(msg, msgsz, "--device \"%s\": device %ld is listed twice", s, v);
                return -1;
            }
        }
        if (opt->n_devices >= VP_MAX_DEVICES) {
            snprintf(msg, msgsz, "--device \"%s\": more than %d devices", s, VP_MAX_DEVICES);
            return -1;
        }
        opt->devices[opt->n_devices++] = (int)v;
        if (*p == '\0') return 0;
        if (*p != ',') {
            snprintf(msg, msgsz, "--device \"%s\": expected comma-separated device indices such as 0,2", s);
            return -1;
        }
        p++;
    }
}

/* Writes text to path (or stdout). Returns 0 or -1 with msg set. */
static int write_out(const char *path, const char *text, char *msg, size_t msgsz)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        snprintf(msg, msgsz, "cannot open %s for writing: %s", path, strerror(errno));
        return -1;
    }
    int bad = fputs(text, f) < 0 || fputc('\n', f) == EOF;
    if (path) bad |= fclose(f) != 0;
    else bad |= fflush(f) != 0;
    if (bad) {
        snprintf(msg, msgsz, "cannot write %s: %s", path ? path : "standard output", strerror(errno));
        return -1;
    }
    return 0;
}

/* Writes the error document to the output (best effort), a sentence on stderr; returns the exit code. */
static int fail(const vp_options *opt, vp_err e, const char *message)
{
    fprintf(stderr, "vramplan-probe: %s\n", message);
    cJSON *doc = vp_error_doc(e, message);
    char *text = doc ? (opt->pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc)) : NULL;
    cJSON_Delete(doc);
    if (text) {
        char wmsg[512];
        if (write_out(opt->output, text, wmsg, sizeof wmsg) != 0) {
            fprintf(stderr, "vramplan-probe: %s\n", wmsg);
        }
        cJSON_free(text);
    }
    return vp_exit_code(e);
}

static int run_validate(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "vramplan-probe: cannot open %s: %s\n", path, strerror(errno));
        return VP_EXIT_IO_ERROR;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        fprintf(stderr, "vramplan-probe: out of memory\n");
        return VP_EXIT_INTERNAL;
    }
    for (;;) {
        if (len == cap) {
            if (cap >= (64u << 20)) {
                free(buf);
                fclose(f);
                fprintf(stderr, "vramplan-probe: %s: file larger than 64 MiB\n", path);
                return VP_EXIT_INVALID_FILE;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                fprintf(stderr, "vramplan-probe: out of memory\n");
                return VP_EXIT_INTERNAL;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(buf);
        fprintf(stderr, "vramplan-probe: cannot read %s\n", path);
        return VP_EXIT_IO_ERROR;
    }
    char report[8192];
    int is_err = 0;
    int problems = vp_validate_text(buf, len, report, sizeof report, &is_err);
    free(buf);
    if (problems) {
        fprintf(stderr, "%s: INVALID vramplan/gpu-probe@1 document, %d problem%s:\n%s", path, problems,
                problems == 1 ? "" : "s", report);
        return VP_EXIT_INVALID_FILE;
    }
    printf("%s: valid vramplan/gpu-probe@1 %s\n", path, is_err ? "error document" : "document");
    return VP_EXIT_OK;
}

int main(int argc, char **argv)
{
    vp_options opt;
    memset(&opt, 0, sizeof opt);
    char msg[1024];
    const char *validate = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        size_t alen = strlen(a);
        /* --opt=value */
        const char *eq = (a[0] == '-' && a[1] == '-') ? strchr(a, '=') : NULL;
        char name[32];
        if (eq) {
            size_t nl = (size_t)(eq - a);
            if (nl >= sizeof name) nl = sizeof name - 1;
            memcpy(name, a, nl);
            name[nl] = '\0';
            a = name;
            val = eq + 1;
            alen = nl;
        }
        (void)alen;
        int takes_value = !strcmp(a, "--output") || !strcmp(a, "-o") || !strcmp(a, "--device") ||
                          !strcmp(a, "--validate");
        if (takes_value && !val) {
            if (i + 1 >= argc) {
                snprintf(msg, sizeof msg, "%s needs a value", a);
                return fail(&opt, VP_ERR_BAD_ARGUMENTS, msg);
            }
            val = argv[++i];
        } else if (!takes_value && val) {
            snprintf(msg, sizeof msg, "%s takes no value", a);
            return fail(&opt, VP_ERR_BAD_ARGUMENTS, msg);
        }
        if (!strcmp(a, "--output") || !strcmp(a, "-o")) {
            if (!*val) return fail(&opt, VP_ERR_BAD_ARGUMENTS, "--output needs a file name");
            opt.output = val;
        } else if (!strcmp(a, "--device")) {
            if (parse_devices(val, &opt, msg, sizeof msg) != 0) return fail(&opt, VP_ERR_BAD_ARGUMENTS, msg);
        } else if (!strcmp(a, "--validate")) {
            validate = val;
        } else if (!strcmp(a, "--pretty")) {
            opt.pretty = 1;
        } else if (!strcmp(a, "--redact")) {
            opt.redact = 1;
        } else if (!strcmp(a, "--hostname")) {
            opt.hostname = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return VP_EXIT_OK;
        } else if (!strcmp(a, "--version")) {
            printf("vramplan-probe %s (schema %s)\n", VP_PROBE_VERSION, VP_PROBE_SCHEMA);
            return VP_EXIT_OK;
        } else {
            snprintf(msg, sizeof msg, "unknown argument \"%s\" (see --help)", argv[i]);
            return fail(&opt, VP_ERR_BAD_ARGUMENTS, msg);
        }
    }
    if (validate) return run_validate(validate);

    vp_err err = VP_OK;
    cJSON *doc = vp_collect(&opt, &err, msg, sizeof msg);
    if (!doc) return fail(&opt, err, msg);
    char *text = opt.pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!text) return fail(&opt, VP_ERR_INTERNAL, "out of memory while printing the report");
    int rc = VP_EXIT_OK;
    if (write_out(opt.output, text, msg, sizeof msg) != 0) {
        fprintf(stderr, "vramplan-probe: %s\n", msg);
        rc = VP_EXIT_IO_ERROR;
    }
    cJSON_free(text);
    return rc;
}
