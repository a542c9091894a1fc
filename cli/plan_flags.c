/* plan_flags.c: the plan flags shared by `vramplan estimate`, `fit` and `recommend` (--plan FILE, --model,
 * --batch, --gpu, ...) -> one vramplan/plan@1 JSON text. Each command handles its own output flags
 * through the `extra` callback. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_INPUT (64u << 20)

void cli_print_plan_flags(FILE *f) {
    fprintf(f,
            "  --plan FILE          a vramplan/plan@1 document (docs/schema/plan.md); other flags override it\n"
            "  --model ID           a preset model (see `vramplan models`)\n"
            "  --hf-config FILE     a Hugging Face config.json\n"
            "  --mode train|infer   (default train)\n"
            "  --precision P        fp32 | amp_bf16 | amp_fp16 | bf16 | fp16 | fp8 | bf16_master | fp16_master (default amp_bf16; infer bf16)\n"
            "  --batch N            micro-batch (default 1)\n"
            "  --seq N              tokens per sequence / prompt tokens (default 2048)\n"
            "  --new-tokens N       infer: tokens to generate\n"
            "  --images N           images per sample (vision-language models: llava, gemma3, qwen2_5_vl, ...)\n"
            "  --image-size N       side of those images in pixels (default: the family's)\n"
            "  --frames N --height N --width N  video / image size in pixels (diffusion pipelines)\n"
            "  --offload MODE       diffusion inference: none | model | sequential (enable_*_cpu_offload)\n"
            "  --vae-tiling, --vae-slicing, --no-cfg   diffusers VAE tiling / slicing; guidance off\n"
            "  --precompute         diffusion training: text encoders and VAE run once first, freed into the cache\n"
            "  --diffusers VERSION  current | 0.30 | 0.32: the diffusers release that ran (0.30: CogVideoX VAE decode; 0.32:\n"
            "                       HunyuanVideo's N x N attention mask)\n"
            "  --text-tokens N      diffusion: the prompt's tokens (max_sequence_length; default the pipeline's)\n"
            "  --grad-accum N       gradient-accumulation steps\n"
            "  --steps N            train: optimizer steps replayed (1: a log taken after the first step; default 3, the\n"
            "                       steady state)\n"
            "  --optimizer NAME     adamw | adam | sgd | sgd_momentum | adafactor | lion | adamw_8bit | paged_adamw | paged_adamw_8bit\n"
            "  --optim-impl I       foreach | fused | forloop (AdamW; default foreach)\n"
            "  --lora R             LoRA of rank R (alpha 2R, dropout 0.05, fp32 adapters)\n"
            "  --lora-targets LIST  comma list, e.g. q_proj,v_proj (default all linear projections)\n"
            "  --lora-dtype D       the adapters' dtype: fp32 (PEFT's default) | bf16 | fp16 (finetrainers casts to bf16)\n"
            "  --qlora              LoRA on 4-bit NF4 weights\n"
            "  --grad-ckpt K        checkpoint every K-th block (1 = every block)\n"
            "  --autocast           a bf16 / fp16 diffusion transformer trained under torch.autocast (accelerate's\n"
            "                       --mixed_precision with a 16-bit model, as diffusers' and finetrainers' scripts run it)\n"
            "  --alloc-conf TEXT    PYTORCH_CUDA_ALLOC_CONF of the job, e.g. expandable_segments:True\n"
            "  --attn A             sdpa | flash | eager\n"
            "  --gpu NAME|FILE      a preset GPU (`vramplan gpus`) or a vramplan-probe JSON file\n"
            "  --gpus N             GPUs in the node\n");
    cli_print_serve_flags(f);
}

/* whether the command line or the instance already makes it a LoRA / QLoRA (what --lora-targets and --lora-dtype need) */
static int has_lora(int argc, char **argv, const cJSON *in0) {
    for (int k = 1; k < argc; k++)
        if (!strcmp(argv[k], "--lora") || !strcmp(argv[k], "--qlora")) return 1;
    const cJSON *ftm = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(in0, "finetune"), "method");
    return cJSON_IsString(ftm) && strstr(ftm->valuestring, "lora") != NULL;
}

static cJSON *obj(cJSON *parent, const char *key) {
    cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!o) o = cJSON_AddObjectToObject(parent, key);
    return o;
}

static void set_str(cJSON *o, const char *k, const char *v) {
    cJSON_DeleteItemFromObjectCaseSensitive(o, k);
    cJSON_AddStringToObject(o, k, v);
}

static void set_num(cJSON *o, const char *k, double v) {
    cJSON_DeleteItemFromObjectCaseSensitive(o, k);
    cJSON_AddNumberToObject(o, k, v);
}

int cli_parse_count(const char *cmd, const char *flag, const char *s, long long *out) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!s[0] || *end || v < 0 || s[0] == '-') {
        fprintf(stderr, "vramplan %s: %s needs a non-negative whole number, got '%s'\n", cmd, flag, s);
        return 0;
    }
    if (errno == ERANGE) { /* strtoll clamps to LLONG_MAX: never pass that on as if it were the value */
        fprintf(stderr, "vramplan %s: %s %s is too large (at most %lld)\n", cmd, flag, s, LLONG_MAX);
        return 0;
    }
    *out = v;
    return 1;
}

/* A plan number from a flag: a non-negative whole number. One too large for int64 is passed on as
 * the double it is (1e+20), so the core names the field and its range instead of a clamped
 * 9223372036854775807 (strtoll's ERANGE). */
static int plan_number(const char *cmd, const char *flag, const char *s, double *out) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!s[0] || *end || v < 0 || s[0] == '-' || s[0] == '+') {
        fprintf(stderr, "vramplan %s: %s needs a non-negative whole number, got '%s'\n", cmd, flag, s);
        return 0;
    }
    *out = errno == ERANGE ? strtod(s, NULL) : (double)v;
    if (!isfinite(*out)) {
        fprintf(stderr, "vramplan %s: %s %s is too large\n", cmd, flag, s);
        return 0;
    }
    return 1;
}

/* cJSON prints an infinite number as null, which the core would call a missing field: write the
 * text 1e999 back (it reads as infinity again), so the core says "not a finite number". */
static void keep_infinities(cJSON *node) {
    for (cJSON *it = node ? node->child : NULL, *next; it; it = next) {
        next = it->next;
        if (cJSON_IsNumber(it) && !isfinite(it->valuedouble)) {
            cJSON *raw = cJSON_CreateRaw(it->valuedouble < 0 ? "-1e999" : "1e999");
            if (raw && cJSON_IsObject(node))
                cJSON_ReplaceItemInObjectCaseSensitive(node, it->string, raw); /* keeps the key */
            else if (raw)
                cJSON_ReplaceItemViaPointer(node, it, raw);
        } else {
            keep_infinities(it);
        }
    }
}

int cli_plan_from_flags(const char *cmd, int argc, char **argv, cli_flag_fn extra, void *ctx, char **plan_out) {
    const char *plan_path = NULL, *gpu = NULL;
    *plan_out = NULL;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--plan") && i + 1 < argc) plan_path = argv[i + 1];

    cJSON *plan = NULL;
    char *plan_text = NULL; /* the file as written: passed on unchanged when no flag changes it */
    int changed = 0;
    if (plan_path) {
        int rrc = 0;
        plan_text = cli_read_json(plan_path, MAX_INPUT, &rrc); /* strict, with the file's line and column */
        if (!plan_text) return rrc;
        plan = cJSON_Parse(plan_text);
        if (!plan || !cJSON_IsObject(plan)) {
            cJSON_Delete(plan);
            free(plan_text);
            fprintf(stderr, "vramplan %s: %s is not a JSON object (a vramplan/plan@1 plan)\n", cmd, plan_path);
            return EXIT_INPUT;
        }
    } else {
        plan = cJSON_CreateObject();
        cJSON_AddStringToObject(plan, "schema", VP_PLAN_SCHEMA);
        cJSON *w = cJSON_AddObjectToObject(plan, "workload");
        cJSON_AddNumberToObject(w, "batch", 1);
        cJSON_AddNumberToObject(w, "seq", 2048);
    }
    cJSON *wl = obj(plan, "workload");
    cJSON *insts = cJSON_GetObjectItemCaseSensitive(plan, "instances");
    if (!insts) insts = cJSON_AddArrayToObject(plan, "instances");
    cJSON *in0 = cJSON_IsArray(insts) ? cJSON_GetArrayItem(insts, 0) : NULL;
    int rc = 0;
    char *cfg_txt = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int took;
#define NEEDV()                                                                      \
    do {                                                                             \
        if (!v) {                                                                    \
            fprintf(stderr, "vramplan %s: %s needs a value\n", cmd, a);          \
            rc = EXIT_USAGE;                                                         \
            goto out;                                                                \
        }                                                                            \
        i++;                                                                         \
    } while (0)
#define INST()                                                                       \
    do {                                                                             \
        if (!in0 && cJSON_IsArray(insts)) {                                          \
            in0 = cJSON_CreateObject();                                              \
            cJSON_AddItemToArray(insts, in0);                                        \
        }                                                                            \
        if (!in0) {                                                                  \
            fprintf(stderr, "vramplan %s: the plan's instances must be an array\n", cmd); \
            rc = EXIT_INPUT;                                                         \
            goto out;                                                                \
        }                                                                            \
    } while (0)
        if (!strcmp(a, "--plan")) {
            NEEDV();
        } else if ((took = extra ? extra(ctx, a, v) : 0) != 0) {
            if (took < 0) {
                rc = -took;
                goto out;
            }
            i += took - 1;
        } else if ((changed = 1) && !strcmp(a, "--model")) { /* every flag below changes the plan */
            NEEDV();
            INST();
            cJSON_DeleteItemFromObjectCaseSensitive(in0, "model");
            cJSON *m = cJSON_AddObjectToObject(in0, "model");
            cJSON_AddStringToObject(m, "preset", v);
        } else if (!strcmp(a, "--hf-config")) {
            NEEDV();
            INST();
            free(cfg_txt);
            cfg_txt = cli_read_json(v, MAX_INPUT, &rc); /* strict, with the config's line and column */
            if (!cfg_txt) goto out;
            cJSON *cfg = cJSON_Parse(cfg_txt);
            if (!cfg) {
                fprintf(stderr, "vramplan %s: %s is not valid JSON\n", cmd, v);
                rc = EXIT_INPUT;
                goto out;
            }
            cJSON_DeleteItemFromObjectCaseSensitive(in0, "model");
            cJSON *m = cJSON_AddObjectToObject(in0, "model");
            cJSON_AddItemToObject(m, "hf_config", cfg);
        } else if (!strcmp(a, "--mode")) {
            NEEDV();
            set_str(wl, "mode", v);
        } else if (!strcmp(a, "--precision")) {
            NEEDV();
            INST();
            set_str(in0, "precision", v);
        } else if (!strcmp(a, "--attn")) {
            NEEDV();
            INST();
            set_str(in0, "attn", v);
        } else if (!strcmp(a, "--batch") || !strcmp(a, "--seq") || !strcmp(a, "--new-tokens") ||
                   !strcmp(a, "--grad-accum") || !strcmp(a, "--steps")) {
            NEEDV();
            double x;
            if (!plan_number(cmd, a, v, &x)) {
                rc = EXIT_USAGE;
                goto out;
            }
            const char *key = !strcmp(a, "--batch") ? "batch" : !strcmp(a, "--seq") ? "seq"
                              : !strcmp(a, "--new-tokens") ? "new_tokens" : !strcmp(a, "--steps") ? "steps" : "grad_accum";
            set_num(wl, key, x);
        } else if (!strcmp(a, "--images") || !strcmp(a, "--image-size")) { /* vlm_images.c */
            NEEDV();
            double x;
            if (!plan_number(cmd, a, v, &x)) {
                rc = EXIT_USAGE;
                goto out;
            }
            set_num(wl, !strcmp(a, "--images") ? "images" : "image_size", x);
        } else if (!strcmp(a, "--frames") || !strcmp(a, "--height") || !strcmp(a, "--width")) {
            NEEDV();
            double x;
            if (!plan_number(cmd, a, v, &x)) {
                rc = EXIT_USAGE;
                goto out;
            }
            set_num(wl, a + 2, x);
        } else if (!strcmp(a, "--offload")) {
            NEEDV();
            set_str(obj(wl, "diffusion"), "offload", v);
        } else if (!strcmp(a, "--vae-tiling") || !strcmp(a, "--vae-slicing") || !strcmp(a, "--no-cfg")) {
            cJSON *d = obj(wl, "diffusion");
            const char *k = !strcmp(a, "--no-cfg") ? "cfg" : !strcmp(a, "--vae-tiling") ? "vae_tiling" : "vae_slicing";
            cJSON_DeleteItemFromObjectCaseSensitive(d, k);
            cJSON_AddBoolToObject(d, k, strcmp(a, "--no-cfg") != 0);
        } else if (!strcmp(a, "--precompute")) {
            cJSON *d = obj(wl, "diffusion");
            cJSON_DeleteItemFromObjectCaseSensitive(d, "precompute");
            cJSON_AddBoolToObject(d, "precompute", 1);
        } else if (!strcmp(a, "--diffusers")) {
            NEEDV();
            set_str(obj(wl, "diffusion"), "diffusers", v);
        } else if (!strcmp(a, "--text-tokens")) { /* diffusion_plan.c vp_diff_apply_text_tokens */
            NEEDV();
            double x;
            if (!plan_number(cmd, a, v, &x)) {
                rc = EXIT_USAGE;
                goto out;
            }
            set_num(obj(wl, "diffusion"), "text_tokens", x);
        } else if (!strcmp(a, "--alloc-conf")) {
            NEEDV();
            set_str(obj(plan, "runtime"), "pytorch_cuda_alloc_conf", v);
        } else if (!strcmp(a, "--optimizer") || !strcmp(a, "--optim-impl")) {
            NEEDV();
            INST();
            set_str(obj(in0, "optimizer"), !strcmp(a, "--optimizer") ? "name" : "impl", v);
        } else if (!strcmp(a, "--lora") || !strcmp(a, "--qlora")) {
            INST();
            cJSON *ft = obj(in0, "finetune");
            /* --qlora with --lora R, in either order, is QLoRA of rank R */
            const cJSON *was = cJSON_GetObjectItemCaseSensitive(ft, "method");
            int qlora = !strcmp(a, "--qlora") || (cJSON_IsString(was) && !strcmp(was->valuestring, "qlora"));
            set_str(ft, "method", qlora ? "qlora" : "lora");
            if (!strcmp(a, "--lora")) {
                NEEDV();
                double r;
                if (!plan_number(cmd, a, v, &r)) {
                    rc = EXIT_USAGE;
                    goto out;
                }
                cJSON *l = obj(ft, "lora");
                set_num(l, "r", r);
                set_num(l, "alpha", 2 * r);
            }
        } else if (!strcmp(a, "--lora-targets") || !strcmp(a, "--lora-dtype")) {
            NEEDV();
            INST();
            if (!has_lora(argc, argv, in0)) {
                fprintf(stderr, "vramplan %s: %s needs --lora R or --qlora\n", cmd, a);
                rc = EXIT_USAGE;
                goto out;
            }
            cJSON *l = obj(obj(in0, "finetune"), "lora");
            if (!strcmp(a, "--lora-dtype")) {
                set_str(l, "dtype", v); /* the value is the core's to check (plan_parse.c: finetune.lora.dtype) */
            } else {
                cJSON_DeleteItemFromObjectCaseSensitive(l, "targets");
                cJSON *t = cJSON_AddArrayToObject(l, "targets");
                char buf[512];
                snprintf(buf, sizeof buf, "%s", v);
                for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
                    cJSON_AddItemToArray(t, cJSON_CreateString(tok));
            }
        } else if (!strcmp(a, "--autocast")) {
            INST();
            cJSON_DeleteItemFromObjectCaseSensitive(in0, "autocast");
            cJSON_AddBoolToObject(in0, "autocast", 1);
        } else if (!strcmp(a, "--grad-ckpt")) {
            NEEDV();
            INST();
            double k;
            if (!plan_number(cmd, a, v, &k)) {
                rc = EXIT_USAGE;
                goto out;
            }
            cJSON_DeleteItemFromObjectCaseSensitive(in0, "grad_ckpt");
            set_num(cJSON_AddObjectToObject(in0, "grad_ckpt"), "every", k);
        } else if (!strcmp(a, "--gpu")) {
            NEEDV();
            gpu = v;
        } else if (!strcmp(a, "--gpus")) {
            NEEDV();
            double c;
            if (!plan_number(cmd, a, v, &c)) {
                rc = EXIT_USAGE;
                goto out;
            }
            set_num(obj(plan, "hardware"), "count", c);
        } else if ((took = cli_serve_flag(cmd, plan, a, v, &rc)) != 0) { /* serve_flags.c */
            if (took < 0) goto out;
            i += took - 1;
        } else {
            fprintf(stderr, "vramplan %s: unknown option '%s' (see --help)\n", cmd, a);
            rc = EXIT_USAGE;
            goto out;
        }
    }
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(wl, "mode");
    if (!plan_path && cJSON_IsString(md) && !strcmp(md->valuestring, "serve")) {
        /* a serve plan has no batch or seq: drop the defaults written above (the engine's settings size it) */
        int given = 0;
        for (int k = 1; k < argc; k++) given |= !strcmp(argv[k], "--batch") || !strcmp(argv[k], "--seq");
        if (!given) {
            cJSON_DeleteItemFromObjectCaseSensitive(wl, "batch");
            cJSON_DeleteItemFromObjectCaseSensitive(wl, "seq");
        }
    }
    if (plan_path) cli_note_unexpanded(plan);
    if (!plan_path) {
        int seq_given = 0;
        for (int k = 1; k < argc; k++) seq_given |= !strcmp(argv[k], "--seq");
        cli_expand_pipeline(plan, seq_given); /* i12: --model of a diffusion pipeline */
        /* --hf-config of a diffusers component (it names its class in "_class_name", diffusers_config.c): its tokens
         * come from --frames/--height/--width or the pipeline's default size, not the LLM default seq written above,
         * as the page does for a pasted diffusers config (web/setup.js isDiffusionModel) */
        /* (the expansion swapped the plan's members: insts and wl are looked up again) */
        insts = cJSON_GetObjectItemCaseSensitive(plan, "instances");
        wl = obj(plan, "workload");
        const cJSON *m0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(insts, 0), "model");
        const cJSON *hf = cJSON_GetObjectItemCaseSensitive(m0, "hf_config");
        if (!seq_given && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(hf, "_class_name")))
            cJSON_DeleteItemFromObjectCaseSensitive(wl, "seq");
    }
    if (gpu) {
        cJSON *hw = obj(plan, "hardware");
        const char *dot = strrchr(gpu, '.');
        if (dot && !strcmp(dot, ".json")) {
            char *txt = cli_read_json(gpu, MAX_INPUT, &rc); /* strict, with the probe file's line and column */
            if (!txt) goto out;
            cJSON *probe = cJSON_Parse(txt);
            free(txt);
            if (!probe) {
                fprintf(stderr, "vramplan %s: %s is not valid JSON (expected a vramplan-probe file)\n", cmd, gpu);
                rc = EXIT_INPUT;
                goto out;
            }
            cJSON_DeleteItemFromObjectCaseSensitive(hw, "gpu");
            cJSON_DeleteItemFromObjectCaseSensitive(hw, "probe");
            cJSON_AddItemToObject(hw, "probe", probe);
            const cJSON *devs = cJSON_GetObjectItemCaseSensitive(probe, "devices");
            if (cJSON_IsArray(devs) && !cJSON_GetObjectItemCaseSensitive(hw, "count"))
                cJSON_AddNumberToObject(hw, "count", cJSON_GetArraySize(devs) > 0 ? cJSON_GetArraySize(devs) : 1);
        } else {
            cJSON_DeleteItemFromObjectCaseSensitive(hw, "probe");
            set_str(hw, "gpu", gpu);
        }
    }
    if (plan_text && !changed) {
        /* no flag changed the plan: the core reads the file's own text, exactly as the page would */
        *plan_out = plan_text;
        plan_text = NULL;
    } else {
        keep_infinities(plan);
        *plan_out = cJSON_PrintUnformatted(plan);
    }
    if (!*plan_out) {
        fprintf(stderr, "vramplan %s: out of memory\n", cmd);
        rc = EXIT_IO;
    }
out:
    free(cfg_txt);
    free(plan_text);
    cJSON_Delete(plan);
    return rc;
}
