/* main.c: `vramplan` subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f) {
    fprintf(f,
            "vramplan %s: will this GPU job fit, and where does every byte go?\n\n"
            "usage: vramplan <command> [options]\n\n"
            "commands:\n"
            "  estimate    predict peak GPU memory of a training or inference job\n"
            "  fit         the largest micro-batch, sequence length or generated-token count that fits\n"
            "  recommend   the training setups that fit a global batch, fastest first (also estimate --recommend)\n"
            "  calibrate   compare predictions with measured runs (groundtruth JSONL)\n"
            "  models      list preset models\n"
            "  gpus        list preset GPUs\n\n"
            "Run `vramplan <command> --help` for the options of a command.\n",
            VP_VERSION);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("vramplan %s\n", VP_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "estimate")) {
        for (int i = 2; i < argc; i++)
            if (!strcmp(argv[i], "--recommend")) return cmd_recommend(argc - 1, argv + 1);
        return cmd_estimate(argc - 1, argv + 1);
    }
    if (!strcmp(cmd, "fit")) return cmd_fit(argc - 1, argv + 1);
    if (!strcmp(cmd, "recommend")) return cmd_recommend(argc - 1, argv + 1);
    if (!strcmp(cmd, "calibrate")) return cmd_calibrate(argc - 1, argv + 1);
    if (!strcmp(cmd, "models")) return cmd_presets(argc - 1, argv + 1, "models");
    if (!strcmp(cmd, "gpus")) return cmd_presets(argc - 1, argv + 1, "gpus");
    fprintf(stderr, "vramplan: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
