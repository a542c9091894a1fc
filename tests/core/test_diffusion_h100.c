/* test_diffusion_h100.c: the diffusion estimate against what ran on an H100 (2026-11-24; records and how they were
 * made: tests/groundtruth/h100-2026-11-24-diffusion/README.md, tools/groundtruth/diffusion_measure.py). Every case is
 * read from diffusion.jsonl by its name; each plan below says the same setup in vramplan's terms. PyTorch 2.11,
 * diffusers 58eb52c (today's: no "diffusers" field), transformers 5.17, peft 0.21, accelerate 1.15.
 *
 * usage: test_diffusion_h100 GROUP (diffusion_h100 | diffusion_h100_bugs) */
#include <math.h>
#include <string.h>

#include "plan.h"
#include "vp_test.h"
#include "t_arch.h"

#define H100 "{\"gpu\":\"h100-sxm-80gb\",\"count\":1}"
#define GiB 1073741824.0

static const cJSON *records(void) {
    static cJSON *all; /* test-local cache of the parsed file (one process per group) */
    if (all) return all;
    const char *text = t_fixture_text(VP_SOURCE_DIR "/tests/groundtruth/h100-2026-11-24-diffusion", "diffusion.jsonl");
    all = cJSON_CreateArray();
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n > 0) {
            cJSON *r = cJSON_ParseWithLength(p, n);
            if (!r) fail_msg("diffusion.jsonl: a line is not JSON");
            cJSON_AddItemToArray(all, r);
        }
        p += n + (nl ? 1 : 0);
    }
    return all;
}

/* the record of a case that ran (no error), or a test failure */
static const cJSON *record(const char *name) {
    const cJSON *r;
    cJSON_ArrayForEach(r, records()) {
        const cJSON *c = cJSON_GetObjectItem(r, "case");
        if (cJSON_IsString(c) && !strcmp(c->valuestring, name) && !cJSON_GetObjectItem(r, "error")) return r;
    }
    fail_msg("no measured record for %s", name);
    return NULL;
}

static double num(const cJSON *r, const char *key) {
    const cJSON *v = cJSON_GetObjectItem(r, key);
    if (!cJSON_IsNumber(v)) fail_msg("record without %s", key);
    return v->valuedouble;
}

/* diffusers builds every preset component from its config with its own class (meta device): the parameter count of
 * each of the 55 components of the 15 diffusion presets equals what vramplan computes for it. This is the independent
 * count for the components whose params_source said none was found (CogVideoX-2b's transformer, the CogVideoX,
 * HunyuanVideo and Mochi VAEs, HunyuanVideo's transformer and Llama encoder, the SD3.5 transformers). */
static void h100_counts(void **s) {
    (void)s;
    const cJSON *rows = cJSON_GetObjectItem(record("counts"), "counts"), *row;
    int n = 0;
    cJSON_ArrayForEach(row, rows) {
        const char *preset = cJSON_GetObjectItem(row, "preset")->valuestring;
        const char *comp = cJSON_GetObjectItem(row, "component")->valuestring;
        const char *id = !strcmp(comp, "transformer") ? preset : t_fmt("%s/%s", preset, comp);
        uint64_t want = (uint64_t)num(row, "params");
        uint64_t got = t_count_preset(id);
        if (got != want) fail_msg("%s: vramplan %llu, diffusers/transformers %llu", id, (unsigned long long)got, (unsigned long long)want);
        n++;
    }
    assert_int_equal(n, 55);
}

typedef struct {
    const char *name;      /* the record's case */
    const char *workload;
    const char *instances;
    double tol_alloc;      /* |predicted / measured - 1| allowed on max_memory_allocated */
    double tol_reserved;   /* the same on max_memory_reserved (0: not checked here) */
} measured;

/* cogvideox-factory's legacy LoRA step as diffusion_measure.py ran it (bf16 transformer and adapters, accelerate's
 * autocast, latents loaded, AdamW) */
#define LORA(id, r, gc)                                                                                                      \
    "{\"name\":\"transformer\",\"model\":{\"preset\":\"" id "\"},\"precision\":\"bf16\",\"autocast\":true,"                  \
    "\"finetune\":{\"method\":\"lora\",\"lora\":{\"r\":" #r ",\"alpha\":" #r ",\"dropout\":0,\"dtype\":\"bf16\","              \
    "\"targets\":[\"to_q\",\"to_k\",\"to_v\",\"to_out.0\"]}},\"grad_ckpt\":" #gc ",\"optimizer\":{\"name\":\"adamw\"}}"
#define TRAIN(b) "{\"mode\":\"train\",\"batch\":" #b ",\"frames\":49,\"height\":480,\"width\":720}"
#define INFER(extra) "{\"mode\":\"infer\",\"batch\":1,\"frames\":49,\"height\":480,\"width\":720" extra "}"
#define REFI(name, preset, prec) \
    "{\"name\":\"" name "\",\"role\":\"reference\",\"model\":{\"preset\":\"" preset "\"},\"precision\":\"" prec "\",\"activations\":\"no_grad\"}"
/* the script casts the whole T5 with .to(dtype), so its wo is 16-bit as in bf16 (not kept fp32 as from_pretrained's
 * float16 would keep it: test_diffusion.c t5_wo_fp32) */
#define PIPE(id, prec) REFI("transformer", id, prec) "," REFI("text_encoder", id "/text_encoder", "bf16") "," REFI("vae", id "/vae", prec)

static const measured rows[] = {
    /* the training steps: within 1.5% allocated, 5% reserved (one more is below, in the bugs group; the checkpointed
     * steps' blocks run op by op, events_cogvideox.c, checked against the 2b trace in test_events_cogvideox.c: the
     * traced 2b step's reserved went from -10.1% to +1.0%) */
    {"train:cogvideox-5b:64:4:gc", TRAIN(4), LORA("cogvideox-5b", 64, true), 0.015, 0},
    {"train:cogvideox-2b:16:1:nogc", TRAIN(1), LORA("cogvideox-2b", 16, false), 0.015, 0.05},
    {"train:cogvideox-5b:256:1:gc", TRAIN(1), LORA("cogvideox-5b", 256, true), 0.015, 0.05},
    {"train:cogvideox-2b:64:4:gc:trace", TRAIN(4), LORA("cogvideox-2b", 64, true), 0.015, 0.05},
    /* the VAE alone (vae.c cog_call_peak, hand-worked in test_diffusion.c vae_decode_peak; Wan 2.1: vae_wan.c
     * vp_vae_wan21_decode_units, hand-worked in test_wan22.c vae21_decode, -16% before it). The CogVideoX decode's
     * reserved since it runs op by op in the replay (events_vae_cogvideox.c, checked against this record's trace in
     * test_events_vae_cogvideox.c): untiled -33.3% -> +4.0%, tiled -31.2% -> -1.1%; the Wan 2.1 decode's, op by op
     * as read from autoencoder_kl_wan.py (events_vae_wan.c, test_events_vae_wan.c): fp32 -24.6% -> +1.1%, bf16
     * -23.4% -> +4.6% */
    {"vae:wan2.1-t2v-1.3b:fp32:81:480:832:plain", "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832}",
     REFI("vae", "wan2.1-t2v-1.3b/vae", "fp32"), 0.03, 0.05},
    {"vae:wan2.1-t2v-1.3b:bf16:81:480:832:plain", "{\"mode\":\"infer\",\"batch\":1,\"frames\":81,\"height\":480,\"width\":832}",
     REFI("vae", "wan2.1-t2v-1.3b/vae", "bf16"), 0.03, 0.05},
    {"vae:cogvideox-2b:fp16:49:480:720:plain", INFER(""), REFI("vae", "cogvideox-2b/vae", "fp16"), 0.01, 0.05},
    {"vae:cogvideox-2b:fp16:49:480:720:tiling", INFER(",\"diffusion\":{\"vae_tiling\":true}"), REFI("vae", "cogvideox-2b/vae", "fp16"), 0.01, 0.05},
    /* whole pipelines: T5 -> 2 steps with CFG -> decode, with and without offload (model offload, untiled: the decode
     * sets the reserved peak, -33.3% -> +3.9% with the decode op by op; the steps' transformer forward op by op,
     * events_cogvideox.c COG_INFER: no offload -17.7% -> +1.3%, the 5b with model offload and tiling -11.7% -> +1.8%) */
    {"pipe:cogvideox-2b:fp16:49:480:720:none:plain", INFER(""), PIPE("cogvideox-2b", "fp16"), 0.03, 0.05},
    {"pipe:cogvideox-2b:fp16:49:480:720:model:plain", INFER(",\"diffusion\":{\"offload\":\"model\"}"), PIPE("cogvideox-2b", "fp16"), 0.03, 0.05},
    {"pipe:cogvideox-2b:fp16:49:480:720:model:tiling", INFER(",\"diffusion\":{\"offload\":\"model\",\"vae_tiling\":true}"), PIPE("cogvideox-2b", "fp16"), 0.03, 0.03},
    {"pipe:cogvideox-5b:bf16:49:480:720:model:tiling", INFER(",\"diffusion\":{\"offload\":\"model\",\"vae_tiling\":true}"), PIPE("cogvideox-5b", "bf16"), 0.03, 0.05},
    {"pipe:cogvideox-2b:bf16:49:480:720:sequential:tiling", INFER(",\"diffusion\":{\"offload\":\"sequential\",\"vae_tiling\":true}"), PIPE("cogvideox-2b", "bf16"), 0.03, 0},
};

/* what is not reached yet (docs/diffusion.md "What the h100 session measured" and "What the vaeops session did"):
 *  - the reserved memory of the checkpointed 5b LoRA step at batch 4, whose blocks events_cogvideox.c runs op by op:
 *    +8.5% (its rotary embedding's ops are read from embeddings.py, not traced; without them +4.8%);
 *  - sequential offload with tiling +5.7%: the weights stream in per module between the step's ops (accelerate's
 *    AlignDevicesHook), which the op-by-op programs do not interleave, so that step keeps the equal-piece replay */
static const measured bugs[] = {
    {"train:cogvideox-5b:64:4:gc", TRAIN(4), LORA("cogvideox-5b", 64, true), 0.015, 0.05},
    {"pipe:cogvideox-2b:bf16:49:480:720:sequential:tiling", INFER(",\"diffusion\":{\"offload\":\"sequential\",\"vae_tiling\":true}"), PIPE("cogvideox-2b", "bf16"), 0.03, 0.05},
};

static int check(const measured *m, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const cJSON *r = record(m[i].name);
        const vp_device *d = &t_estimate(t_plan(m[i].workload, m[i].instances, H100))->devices[0];
        double pa = (double)d->peak_alloc_bytes, ma = num(r, "peak_alloc");
        double pr = (double)d->peak_reserved_bytes, mr = num(r, "peak_reserved");
        int ok = fabs(pa / ma - 1.0) <= m[i].tol_alloc && (m[i].tol_reserved <= 0 || fabs(pr / mr - 1.0) <= m[i].tol_reserved);
        print_message("%-52s allocated %6.2f / %6.2f GiB (%+5.1f%%)  reserved %6.2f / %6.2f GiB (%+5.1f%%)%s\n", m[i].name,
                      pa / GiB, ma / GiB, 100.0 * (pa / ma - 1.0), pr / GiB, mr / GiB, 100.0 * (pr / mr - 1.0), ok ? "" : "  <- out");
        bad += !ok;
    }
    return bad;
}

static void h100_measured(void **s) {
    (void)s;
    assert_int_equal(check(rows, sizeof rows / sizeof rows[0]), 0);
}

static void h100_misses(void **s) {
    (void)s;
    assert_int_equal(check(bugs, sizeof bugs / sizeof bugs[0]), 0);
}

int main(int argc, char **argv) {
    const struct CMUnitTest ok[] = {cmocka_unit_test(h100_counts), cmocka_unit_test(h100_measured)};
    const struct CMUnitTest bug[] = {cmocka_unit_test(h100_misses)};
    int rc = 0;
    rc |= T_RUN("diffusion_h100", ok, argc, argv);
    rc |= T_RUN("diffusion_h100_bugs", bug, argc, argv);
    return rc;
}
