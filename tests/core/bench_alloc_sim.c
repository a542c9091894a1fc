/* bench_alloc_sim.c: the cost of one allocator-model event (core/src/alloc_sim.c), printed, not
 * asserted.
 *   traces:    the recorded H100 allocator histories (tests/fixtures/alloc_traces/), replayed under
 *              each of their confs
 *   estimator: the event lists an estimate replays (vp_events_train / vp_events_infer of the
 *              bisection plans, tests/fixtures/bisect/), replayed the way reserved.c does (malloc,
 *              stats after each, release): unlimited, with expandable_segments:True, and under a
 *              limit between the allocated and the reserved peak (the free-cache-and-retry path)
 * Each line also prints a digest of everything the model returned (every handle's address, reserved
 * after every event, the final stats and the OOM record), so a change to the model that must not
 * change its results can be checked by comparing digests.
 * usage: bench_alloc_sim FIXTURES_DIR [REPEATS] */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "alloc_events.h"

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t mix(uint64_t h, uint64_t x) { /* FNV-1a over the 8 bytes */
    for (int i = 0; i < 8; i++) {
        h ^= (x >> (8 * i)) & 0xff;
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* one stream: size > 0 allocates (its index is the id), size == 0 frees event `id` */
typedef struct {
    uint64_t *size;
    int32_t *id;
    int32_t n, cap;
} stream;

static void push(stream *s, uint64_t size, int32_t id) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->size = realloc(s->size, (size_t)s->cap * sizeof *s->size);
        s->id = realloc(s->id, (size_t)s->cap * sizeof *s->id);
        if (!s->size || !s->id) exit(3);
    }
    s->size[s->n] = size;
    s->id[s->n] = id;
    s->n++;
}

/* reserved.c's loop: returns the digest; stops at the first OOM under a limit, like a real step */
static uint64_t replay(const stream *st, vp_alloc_sim *s, int64_t *h, int limited, int32_t *done, int digest) {
    uint64_t d = 0xcbf29ce484222325ULL;
    vp_alloc_stats x;
    int32_t i;
    for (i = 0; i < st->n; i++) {
        if (st->size[i]) {
            h[i] = vp_alloc_sim_malloc(s, st->size[i]);
            vp_alloc_sim_stats(s, &x); /* reserved.c reads the peak after every allocation */
            if (digest) {
                d = mix(d, vp_alloc_sim_address(s, h[i]));
                d = mix(d, x.reserved);
            } else {
                d += x.peak_reserved;
            }
            if (h[i] < 0 && limited) {
                i++;
                break;
            }
        } else if (st->id[i] >= 0 && st->id[i] < i) {
            vp_alloc_sim_release(s, h[st->id[i]]);
            h[st->id[i]] = -1;
        }
    }
    *done = i;
    if (!digest) return d;
    vp_alloc_sim_stats(s, &x);
    const uint64_t *w = (const uint64_t *)&x;
    for (size_t k = 0; k < sizeof x / sizeof *w; k++) d = mix(d, w[k]);
    vp_alloc_oom o;
    d = mix(d, (uint64_t)vp_alloc_sim_oom(s, &o));
    w = (const uint64_t *)&o;
    for (size_t k = 0; k < sizeof o / sizeof *w; k++) d = mix(d, w[k]);
    return d;
}

static int g_repeats = 20;
static double g_sum_ns, g_sum_ev;

static void bench(const char *name, const char *conf_text, const stream *st, uint64_t limit) {
    vp_alloc_conf c;
    vp_error err;
    if (vp_alloc_conf_parse(conf_text, "conf", &c, &err) != VP_OK) {
        fprintf(stderr, "%s: %s\n", conf_text, err.message);
        exit(2);
    }
    int64_t *h = malloc((size_t)(st->n > 0 ? st->n : 1) * sizeof *h);
    vp_alloc_sim *s = vp_alloc_sim_new(&c, limit);
    if (!h || !s) exit(3);
    int32_t n = 0;
    uint64_t digest = replay(st, s, h, limit != 0, &n, 1), sink = 0;
    vp_alloc_stats x;
    vp_alloc_sim_stats(s, &x);
    double best = 1e300;
    for (int r = 0; r < g_repeats; r++) {
        double t0 = now_ns();
        vp_alloc_sim_reset(s, limit); /* what a bisection does between replays */
        sink += replay(st, s, h, limit != 0, &n, 0);
        double t = now_ns() - t0;
        if (t < best) best = t;
    }
    /* the same replay again after a reset: the same results */
    vp_alloc_sim_reset(s, limit);
    if (replay(st, s, h, limit != 0, &n, 1) != digest || sink == 1) {
        fprintf(stderr, "%s: replay after reset differs\n", name);
        exit(4);
    }
    g_sum_ns += best;
    g_sum_ev += n;
    printf("%-40s %-32s %7d ev %7.1f ns/ev  peak_res %12llu ooms %llu retries %llu  digest %016llx\n", name,
           conf_text && conf_text[0] ? conf_text : "(default)", n, best / (n > 0 ? n : 1),
           (unsigned long long)x.peak_reserved, (unsigned long long)x.n_ooms,
           (unsigned long long)x.n_alloc_retries, (unsigned long long)digest);
    vp_alloc_sim_free(s);
    free(h);
}

/* ---- recorded histories ---------------------------------------------------------------------------- */
static void trace(const char *dir, const char *name) {
    char path[1024], line[256], conf[4][128];
    snprintf(path, sizeof path, "%s/alloc_traces/%s.txt", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    stream st = {0};
    int nconf = 0;
    while (fgets(line, sizeof line, f)) {
        int k;
        unsigned long long a;
        char text[128];
        if (sscanf(line, "conf %d %127s", &k, text) == 2 && k >= 0 && k < 4) {
            snprintf(conf[k], sizeof conf[k], "%s", strcmp(text, "-") ? text : "");
            if (k + 1 > nconf) nconf = k + 1;
        } else if (line[0] == 'a' && sscanf(line, "a %llu", &a) == 1) {
            push(&st, a, -1);
        } else if (line[0] == 'f' && sscanf(line, "f %llu", &a) == 1) {
            push(&st, 0, (int32_t)a); /* the a-th allocation: its index in st is found below */
        }
    }
    fclose(f);
    /* frees name the n-th allocation; turn that into the event index */
    int32_t *at = malloc((size_t)(st.n > 0 ? st.n : 1) * sizeof *at), na = 0;
    if (!at) exit(3);
    for (int32_t i = 0; i < st.n; i++) {
        if (st.size[i]) at[na++] = i;
        else st.id[i] = st.id[i] < na ? at[st.id[i]] : -1;
    }
    free(at);
    for (int k = 0; k < nconf; k++) bench(name, conf[k], &st, 0);
    free(st.size);
    free(st.id);
}

/* ---- the estimator's event lists ------------------------------------------------------------------ */
static void estimator(const char *dir, const char *name, int64_t batch) {
    char path[1024];
    snprintf(path, sizeof path, "%s/bisect/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) exit(3);
    text[n] = '\0';
    fclose(f);
    cJSON *j = cJSON_Parse(text);
    free(text);
    cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "workload"), "batch"), (double)batch);
    char *js = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    vp_error err;
    vp_registry *reg = vp_registry_builtin(&err);
    vp_plan *p = vp_plan_from_json(js, reg, &err);
    free(js);
    vp_registry_free(reg);
    if (!p) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        exit(2);
    }
    vp_inst_calc c;
    vp_inst_calc_init(p, &p->inst[0], 0, &c);
    vp_events ev;
    vp_events_init(&ev);
    if (p->mode == VP_MODE_TRAIN)
        vp_events_train(p, &c, 1, &ev);
    else
        vp_events_infer(p, &c, 1, &ev);
    stream st = {0};
    for (int32_t i = 0; i < ev.n; i++) push(&st, ev.ev[i].size, ev.ev[i].id);
    vp_events_free(&ev);
    vp_plan_free(p);

    char label[128];
    snprintf(label, sizeof label, "%.*s b%lld", (int)(strlen(name) - 5), name, (long long)batch);
    /* the unlimited replay gives the peaks; the limited ones sit between allocated and reserved */
    vp_alloc_sim *s = vp_alloc_sim_new(NULL, 0);
    int64_t *h = malloc((size_t)(st.n > 0 ? st.n : 1) * sizeof *h);
    if (!s || !h) exit(3);
    int32_t done;
    replay(&st, s, h, 0, &done, 0);
    vp_alloc_stats x;
    vp_alloc_sim_stats(s, &x);
    vp_alloc_sim_free(s);
    free(h);
    bench(label, "", &st, 0);
    bench(label, "expandable_segments:True", &st, 0);
    bench(label, "max_split_size_mb:128", &st, 0);
    char lim[160];
    uint64_t mid = x.peak_allocated + (x.peak_reserved - x.peak_allocated) / 2;
    snprintf(lim, sizeof lim, "%s limit=mid", label);
    bench(lim, "", &st, mid);
    snprintf(lim, sizeof lim, "%s limit=alloc+1%%", label);
    bench(lim, "", &st, x.peak_allocated + x.peak_allocated / 100);
    bench(lim, "garbage_collection_threshold:0.8", &st, x.peak_allocated + x.peak_allocated / 100);
    free(st.size);
    free(st.id);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "tests/fixtures";
    if (argc > 2) g_repeats = atoi(argv[2]) > 0 ? atoi(argv[2]) : 1;
    const char *traces[] = {"gpt2-amp-b8s1024",   "gpt2-amp-gc-b8s1024",      "gpt2-amp-gc-b8s1024-expseg",
                            "l1b-amp-gc-b4s1024", "qwen05-amp-b4s1024",       "qwen05-lora16all-b4s1024",
                            "l1b-infer-b8p1024n256"};
    printf("best of %d replays per line\n", g_repeats);
    for (size_t i = 0; i < sizeof traces / sizeof *traces; i++) trace(dir, traces[i]);
    double tr_ns = g_sum_ns, tr_ev = g_sum_ev;
    g_sum_ns = g_sum_ev = 0;
    estimator(dir, "gpt2-amp-s1024-f008.json", 2);
    estimator(dir, "qwen05-amp-s512-f020.json", 5);
    estimator(dir, "l1b-amp-gc-s1024-f030.json", 2);
    estimator(dir, "l1b-lora16all-s1024-f025.json", 3);
    estimator(dir, "l1b-infer-p1024n256-f005.json", 12);
    printf("mean: traces %.1f ns/event, estimator streams %.1f ns/event\n", tr_ns / tr_ev, g_sum_ns / g_sum_ev);
    return 0;
}
