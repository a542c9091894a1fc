/* cli.h: the vramplan command line, one file per subcommand. Uses only the public header. */
#ifndef VP_CLI_H
#define VP_CLI_H

#include <stdio.h>
#include "vramplan.h"
#include <cjson/cJSON.h>

struct cJSON;
/* A member of a JSON object read by the tables: its number (0 when absent or not a number), its
 * string ("" when absent or not a string). */
double cli_num(const struct cJSON *o, const char *k);
const char *cli_str(const struct cJSON *o, const char *k);

/* exit codes */
#define EXIT_USAGE 2     /* bad flags */
#define EXIT_INPUT 3     /* bad plan / config / probe / record */
#define EXIT_NOFIT 4     /* estimate: the plan does not fit (only with --check) */
#define EXIT_IO 5

int cmd_estimate(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_recommend(int argc, char **argv);

/* plan_flags.c: the plan flags shared by estimate, fit and recommend. A command's own flags go to
 * `extra` first: it returns 0 (not mine), 1 (took the flag), 2 (took the flag and its value) or
 * -EXIT_* (stop with that status, after printing why). */
typedef int (*cli_flag_fn)(void *ctx, const char *flag, const char *value);
/* Builds the plan (--plan FILE, then the flags) into *plan_json (free()); returns 0 or an exit status. */
int cli_plan_from_flags(const char *cmd, int argc, char **argv, cli_flag_fn extra, void *ctx, char **plan_json);
void cli_print_plan_flags(FILE *f);
/* --model of a diffusion pipeline preset: add its other components as instances (pipeline_expand.c). */
void cli_expand_pipeline(struct cJSON *plan, int seq_given);
/* stderr note where a plan file runs a diffusion pipeline preset without the components --model would add */
void cli_note_unexpanded(const struct cJSON *plan);
/* A non-negative whole number for flag; prints "vramplan CMD: FLAG needs ..." and returns 0 if not. */
int cli_parse_count(const char *cmd, const char *flag, const char *s, long long *out);
int cmd_calibrate(int argc, char **argv);
int cmd_presets(int argc, char **argv, const char *list);

/* Whole file (or "-" for stdin) into a NUL-terminated buffer; NULL with a message on failure
 * (a file holding a NUL byte is refused: the text after it would be silently lost). */
char *cli_read_file(const char *path, size_t max_bytes);
/* The same, NUL bytes kept: *len is the byte count. On failure NULL, a message, *rc = EXIT_IO. */
char *cli_read_text(const char *path, size_t max_bytes, size_t *len, int *rc);
/* A JSON file checked the way the core reads JSON (vp_json_check: strict, UTF-8, no key twice), so
 * an error names the file's own line and column. NULL with a message and *rc = EXIT_IO or EXIT_INPUT. */
char *cli_read_json(const char *path, size_t max_bytes, int *rc);
void cli_print_error(const char *what, const vp_error *err);
/* s as a table column of exactly width characters (cut between UTF-8 characters, padded); returns dst */
const char *cli_col(char *dst, size_t n, const char *s, int width);
/* "12.34 GiB" */
void cli_fmt_gib(char *dst, size_t n, double bytes);
/* Print an estimate JSON as readable tables. Returns 0 on success. */
int cli_print_estimate_table(FILE *out, const char *estimate_json);

/* serve_flags.c: the serving flags (--engine, --tp, --max-model-len ...): 0 = not one of them, 1 or 2 =
 * arguments taken, -1 = error (rc set). */
int cli_serve_flag(const char *cmd, cJSON *plan, const char *a, const char *v, int *rc);
void cli_print_serve_flags(FILE *f);

#endif
