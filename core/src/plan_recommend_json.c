/* plan_recommend_json.c: vp_recommend -> vramplan/recommend@1 JSON (docs/schema/recommend.md): the
 * ranked setups, each with its estimate and the plan to apply, and the winner as the settings people
 * paste (Hugging Face TrainingArguments fields, a diffusion script's flags, PYTORCH_CUDA_ALLOC_CONF). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "planning.h"
#include "util.h"

#define ORDER_TEXT                                                                                         \
    "largest micro-batch; least recompute (no checkpointing, then every k-th block with the largest k); " \
    "the plan's own precision; fewest optimizer-state bytes; fused, foreach, for-loop, 8-bit, paged 8-bit, paged 32-bit"

static void set_item(cJSON *o, const char *k, cJSON *v) {
    if (cJSON_GetObjectItemCaseSensitive(o, k))
        cJSON_ReplaceItemInObjectCaseSensitive(o, k, v);
    else
        cJSON_AddItemToObject(o, k, v);
}

static cJSON *object_at(cJSON *parent, const char *k) {
    cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, k);
    if (!cJSON_IsObject(o)) {
        o = cJSON_CreateObject();
        set_item(parent, k, o);
    }
    return o;
}

/* the plan the page's Apply loads: the plan recommended for, with the entry's settings */
static cJSON *entry_plan(const cJSON *plan, const vp_recommend *rec, const vp_recommendation *r) {
    cJSON *p = cJSON_Duplicate(plan, 1);
    if (!p) return cJSON_CreateNull();
    cJSON *w = object_at(p, "workload");
    set_item(w, "batch", cJSON_CreateNumber((double)r->micro_batch));
    set_item(w, "grad_accum", cJSON_CreateNumber((double)r->grad_accum));
    cJSON *insts = cJSON_GetObjectItemCaseSensitive(p, "instances");
    int i = 0;
    cJSON *in;
    cJSON_ArrayForEach(in, insts) {
        if (rec->ckpt_instances >> i & 1) {
            cJSON *g = cJSON_CreateObject();
            cJSON_AddNumberToObject(g, "every", (double)r->gc_every);
            set_item(in, "grad_ckpt", g);
        }
        if (rec->precision_instances >> i & 1) set_item(in, "precision", cJSON_CreateString(r->precision));
        if (rec->optim_instances >> i & 1) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", r->optimizer);
            cJSON_AddStringToObject(o, "impl", r->optim_impl);
            set_item(in, "optimizer", o);
        }
        i++;
    }
    if (rec->alloc_conf[0])
        set_item(object_at(p, "runtime"), "pytorch_cuda_alloc_conf", cJSON_CreateString(rec->alloc_conf));
    return p;
}

/* "2nd", "4th", "21st" */
static const char *ordinal(int64_t k) {
    if (k % 100 >= 11 && k % 100 <= 13) return "th";
    return k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
}

/* Comment lines in front of a pasted snippet: appended to n->text while they fit */
typedef struct {
    char text[640];
    size_t used;
} notes_t;

static void note(notes_t *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(n->text + n->used, sizeof n->text - n->used, fmt, ap);
    va_end(ap);
    if (w > 0 && (size_t)w < sizeof n->text - n->used) n->used += (size_t)w;
    else n->text[n->used] = '\0';
}

/* TrainingArguments(...) with the winner's settings, and a comment line for what it cannot say */
static void training_arguments(const vp_recommendation *r, char *dst, size_t n) {
    const char *p = r->precision;
    int bf16 = !strcmp(p, "amp_bf16") || !strcmp(p, "bf16") || !strcmp(p, "bf16_master") || !strcmp(p, "fp8");
    int fp16 = !strcmp(p, "amp_fp16") || !strcmp(p, "fp16") || !strcmp(p, "fp16_master");
    notes_t nt = {"", 0};
    if (r->gc_every > 1)
        note(&nt, "# checkpointing every %lld%s block: TrainingArguments checkpoints every block; wrap every %lld%s block in "
             "torch.utils.checkpoint yourself\n",
             (long long)r->gc_every, ordinal(r->gc_every), (long long)r->gc_every, ordinal(r->gc_every));
    if (!strcmp(p, "bf16") || !strcmp(p, "fp16"))
        note(&nt, "# pure %s: load the model with torch_dtype=torch.%s (weights, gradients and optimizer states in %s)\n", p,
             !strcmp(p, "bf16") ? "bfloat16" : "float16", p);
    if (!strcmp(p, "bf16_master")) note(&nt, "# bf16 weights with an fp32 master copy in the optimizer (DeepSpeed bf16, Megatron)\n");
    if (!strcmp(p, "fp16_master")) note(&nt, "# fp16 weights with an fp32 master copy in the optimizer (DeepSpeed fp16, Megatron --fp16)\n");
    if (!strcmp(p, "fp8")) note(&nt, "# fp8 matmuls through Transformer Engine / accelerate's fp8 recipe\n");
    if (!strcmp(r->optimizer, "adam")) note(&nt, "# Adam: AdamW with weight_decay=0.0 (the TrainingArguments default)\n");
    if (!strcmp(r->optim_impl, "forloop") && (!strcmp(r->optimizer, "adam") || !strcmp(r->optimizer, "adamw")))
        note(&nt, "# for-loop AdamW: pass torch.optim.AdamW(..., foreach=False) through Trainer(optimizers=...)\n");
    if (!strcmp(r->optimizer, "sgd_momentum")) note(&nt, "# SGD with momentum: pass torch.optim.SGD(..., momentum=...) through Trainer(optimizers=...)\n");
    int w = snprintf(dst, n,
                     "%sTrainingArguments(\n"
                     "    per_device_train_batch_size=%lld,\n"
                     "    gradient_accumulation_steps=%lld,\n"
                     "    gradient_checkpointing=%s,\n"
                     "    optim=\"%s\",\n"
                     "    bf16=%s,%s\n"
                     ")",
                     nt.text, (long long)r->micro_batch, (long long)r->grad_accum, r->gc_every ? "True" : "False", r->hf_optim,
                     bf16 ? "True" : "False", fp16 ? "\n    fp16=True," : "");
    if (w < 0) dst[0] = '\0';
}

/* The winner as the flags of diffusers' and finetrainers' legacy training scripts (diffusers
 * examples/cogvideo/train_cogvideox_lora.py and examples/dreambooth/train_dreambooth_lora_flux.py: --train_batch_size,
 * --gradient_accumulation_steps, --gradient_checkpointing, --optimizer adam|adamw|prodigy, --use_8bit_adam, and
 * accelerate's --mixed_precision), with a comment line for what they cannot say. */
static void script_flags(const vp_recommend *rec, const vp_recommendation *r, char *dst, size_t n) {
    const char *p = r->precision, *o = r->optimizer;
    int amp = !strncmp(p, "amp_", 4), pure16 = !strcmp(p, "bf16") || !strcmp(p, "fp16");
    const char *mp = !strcmp(p, "amp_bf16") || !strcmp(p, "bf16") || !strcmp(p, "bf16_master") || !strcmp(p, "fp8") ? "bf16"
                     : !strcmp(p, "amp_fp16") || !strcmp(p, "fp16") || !strcmp(p, "fp16_master")                   ? "fp16"
                                                                                                                     : "no";
    int adam = !strcmp(o, "adamw") || !strcmp(o, "adam") || !strcmp(o, "adamw_8bit");
    notes_t nt = {"", 0};
    if (amp) note(&nt, "# the transformer's weights stay fp32 under autocast (the scripts cast what they do not train to the weight dtype)\n");
    else if (pure16 && rec->autocast) note(&nt, "# the transformer loaded in %s, under autocast (the scripts' default: trainable params upcast to fp32)\n", p);
    else if (pure16) note(&nt, "# pure %s: the transformer, its gradients and optimizer states in %s, no autocast\n", p, p);
    if (r->gc_every > 1)
        note(&nt, "# checkpointing every %lld%s block: the scripts' --gradient_checkpointing checkpoints every block\n",
             (long long)r->gc_every, ordinal(r->gc_every));
    if (!adam) note(&nt, "# %s is not among the scripts' --optimizer choices (adam, adamw, prodigy): pass it yourself\n", o);
    else if (strcmp(r->optim_impl, "foreach") && strcmp(o, "adamw_8bit"))
        note(&nt, "# %s AdamW: the scripts build torch.optim.AdamW with its default (foreach)\n", r->optim_impl);
    int w = snprintf(dst, n, "%s--train_batch_size %lld --gradient_accumulation_steps %lld%s%s%s --mixed_precision %s", nt.text,
                     (long long)r->micro_batch, (long long)r->grad_accum, r->gc_every == 1 ? " --gradient_checkpointing" : "",
                     adam ? (!strcmp(o, "adam") ? " --optimizer adam" : " --optimizer adamw") : "",
                     !strcmp(o, "adamw_8bit") ? " --use_8bit_adam" : "", mp);
    if (w < 0) dst[0] = '\0';
}

static cJSON *estimate_object(const vp_recommendation *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "fits", 1);
    cJSON_AddNumberToObject(o, "device", r->device);
    cJSON_AddNumberToObject(o, "peak_alloc_bytes", (double)r->peak_alloc_bytes);
    cJSON_AddNumberToObject(o, "peak_reserved_bytes", (double)r->peak_reserved_bytes);
    cJSON_AddNumberToObject(o, "usable_bytes", (double)r->usable_bytes);
    cJSON_AddNumberToObject(o, "headroom_bytes", (double)r->headroom_bytes);
    cJSON_AddStringToObject(o, "peak_phase", r->peak_phase);
    cJSON_AddStringToObject(o, "summary", r->summary);
    return o;
}

char *vp_recommend_to_json(const vp_recommend *rec, const char *plan_json, int pretty) {
    if (!rec) return NULL;
    cJSON *plan = plan_json ? cJSON_Parse(plan_json) : NULL;
    cJSON *root = cJSON_CreateObject();
    if (!root) {
        cJSON_Delete(plan);
        return NULL;
    }
    cJSON_AddStringToObject(root, "schema", VP_RECOMMEND_SCHEMA);
    cJSON_AddNumberToObject(root, "global_batch", (double)rec->global_batch);
    cJSON_AddNumberToObject(root, "dp", (double)rec->dp);
    cJSON_AddNumberToObject(root, "setups", (double)rec->n_setups);
    cJSON_AddNumberToObject(root, "estimates", rec->n_estimates);
    cJSON_AddStringToObject(root, "order", ORDER_TEXT);
    cJSON *ents = cJSON_AddArrayToObject(root, "entries");
    for (int i = 0; i < rec->n; i++) {
        const vp_recommendation *r = &rec->r[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "rank", i + 1);
        cJSON_AddNumberToObject(o, "micro_batch", (double)r->micro_batch);
        cJSON_AddNumberToObject(o, "grad_accum", (double)r->grad_accum);
        cJSON_AddNumberToObject(o, "grad_ckpt_every", (double)r->gc_every);
        cJSON_AddNumberToObject(o, "recompute", r->recompute);
        cJSON_AddStringToObject(o, "precision", r->precision);
        cJSON_AddStringToObject(o, "optimizer", r->optimizer);
        cJSON_AddStringToObject(o, "optim_impl", r->optim_impl);
        cJSON_AddStringToObject(o, "hf_optim", r->hf_optim);
        cJSON_AddNumberToObject(o, "optimizer_state_bytes", (double)r->optimizer_state_bytes);
        cJSON_AddItemToObject(o, "estimate", estimate_object(r));
        cJSON_AddItemToObject(o, "plan", plan ? entry_plan(plan, rec, r) : cJSON_CreateNull());
        cJSON_AddItemToArray(ents, o);
    }
    if (rec->n > 0) {
        char ta[1024];
        training_arguments(&rec->r[0], ta, sizeof ta);
        cJSON *w = cJSON_AddObjectToObject(root, "winner");
        cJSON_AddStringToObject(w, "training_arguments", ta);
        if (rec->diffusion) {
            script_flags(rec, &rec->r[0], ta, sizeof ta);
            cJSON_AddStringToObject(w, "script_flags", ta);
        } else {
            cJSON_AddNullToObject(w, "script_flags");
        }
        cJSON_AddStringToObject(w, "pytorch_cuda_alloc_conf", rec->alloc_conf);
        char env[160] = "";
        if (rec->alloc_conf[0]) snprintf(env, sizeof env, "PYTORCH_CUDA_ALLOC_CONF=%s", rec->alloc_conf);
        cJSON_AddStringToObject(w, "env", env);
    } else {
        cJSON_AddNullToObject(root, "winner");
    }
    cJSON_Delete(plan);
    return vp_cjson_print(root, pretty);
}
