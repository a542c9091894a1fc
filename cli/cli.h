/* cli.h: the vramplan command line, one file per subcommand. Uses only the public header. */
#ifndef VP_CLI_H
#define VP_CLI_H

#include <stdio.h>
#include "vramplan.h"

/* exit codes */
#define EXIT_USAGE 2     /* bad flags */
#define EXIT_INPUT 3     /* bad plan / config / probe / record */
#define EXIT_NOFIT 4     /* estimate: the plan does not fit (only with --check) */
#define EXIT_IO 5

int cmd_estimate(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_presets(int argc, char **argv, const char *list);

/* Whole file (or "-" for stdin) into a NUL-terminated buffer; NULL with a message on failure. */
char *cli_read_file(const char *path, size_t max_bytes);
void cli_print_error(const char *what, const vp_error *err);
/* "12.34 GiB" */
void cli_fmt_gib(char *dst, size_t n, double bytes);
/* Print an estimate JSON as readable tables. Returns 0 on success. */
int cli_print_estimate_table(FILE *out, const char *estimate_json);

#endif
