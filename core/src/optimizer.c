/* optimizer.c: optimizer state and step-time temporaries.
 * States are created lazily at the first step() in the gradient's dtype (torch.optim: zeros_like(p)).
 * Step temporaries measured on H100 / PyTorch 2.11 (memory-facts.md §2.3-2.4):
 *   AdamW foreach: 1 x sizeof(params); fused: 0; for-loop: ~3 x the largest tensor. */
#include <stdio.h>

#include "precision.h"
#include "terms.h"
#include "util.h"

/* bitsandbytes Optimizer2State: uint8 m and v + one fp32 absmax per 256-element block each
 * (bitsandbytes/optim/optimizer.py L502-529): 2 + 8/256 bytes per parameter. */
#define BNB_ADAM8_BYTES (2.0 + 8.0 / 256.0)

void vp_optimizer_compute(const vp_instance *in, const vp_weights *w, vp_optim *o) {
    o->state_bytes = o->temp_bytes = 0;
    o->state_explain[0] = o->temp_explain[0] = '\0';
    int64_t n = w->trainable;
    if (n <= 0) return;
    /* states follow the gradient dtype (torch.optim zeros_like(p)), except with an fp32 master copy,
     * where the optimizer steps the fp32 master and keeps fp32 states (ZeRO paper §3.1, K = 12):
     * DeepSpeed / Megatron bf16 mode, and fp8 training, whose recipes (Transformer Engine under
     * Megatron-LM / NeMo, torchao float8 over fp32 FSDP2 shards) keep fp32 master weights and fp32
     * Adam moments: 4 + 8 B per parameter (precision.c) */
    vp_dtype sdt = vp_fp32_master(in) ? VP_DT_FP32 : w->grad_dtype;
    int gb = vp_dtype_bytes(sdt);
    const char *dt = vp_dtype_name(sdt);
    char cnt[24];
    vp_fmt_count(cnt, sizeof cnt, (double)n);
    int64_t largest = in->ft == VP_FT_FULL ? in->pc.largest_tensor : (in->arch.hidden * (in->lora_r > 0 ? in->lora_r : 1));
    if (largest > n) largest = n;
    switch (in->optimizer) {
    case VP_OPT_ADAMW:
    case VP_OPT_ADAM:
        o->state_bytes = 2 * n * gb;
        snprintf(o->state_explain, sizeof o->state_explain, "Adam m and v: %s params × 2 × %d B %s", cnt, gb, dt);
        if (in->impl == VP_IMPL_FOREACH) {
            /* torch.optim.AdamW docs: foreach "uses ~ sizeof(params) more peak memory" */
            o->temp_bytes = n * gb;
            snprintf(o->temp_explain, sizeof o->temp_explain, "foreach AdamW intermediates: %s params × %d B", cnt, gb);
        } else if (in->impl == VP_IMPL_FORLOOP) {
            o->temp_bytes = 3 * largest * gb;
            snprintf(o->temp_explain, sizeof o->temp_explain, "for-loop AdamW: 3 × largest tensor (%lld elements) × %d B",
                     (long long)largest, gb);
        }
        break;
    case VP_OPT_SGD:
        break;
    case VP_OPT_SGD_MOMENTUM:
        o->state_bytes = n * gb; /* momentum_buffer = clone(grad) at step 1 (torch/optim/sgd.py) */
        snprintf(o->state_explain, sizeof o->state_explain, "SGD momentum buffer: %s params × %d B %s", cnt, gb, dt);
        break;
    case VP_OPT_LION:
        o->state_bytes = n * gb; /* one momentum (Chen et al. 2023; bitsandbytes Optimizer1State) */
        snprintf(o->state_explain, sizeof o->state_explain, "Lion momentum: %s params × %d B %s", cnt, gb, dt);
        o->temp_bytes = n * gb;
        snprintf(o->temp_explain, sizeof o->temp_explain, "foreach update intermediates: %s params × %d B", cnt, gb);
        break;
    case VP_OPT_ADAFACTOR: {
        /* torch.optim.Adafactor: row and column second moments for matrices, a full one for
         * vectors (1-D params: norms); no first moment. */
        const vp_arch *a = &in->arch;
        int64_t vec = in->ft == VP_FT_FULL ? in->pc.per_layer_norm * a->layers + in->pc.final_norm : 0;
        int64_t rc = in->ft == VP_FT_FULL ? a->layers * 8 * (a->hidden + a->inter) + 2 * (a->vocab + a->hidden) : n / 8;
        o->state_bytes = (vec + rc) * gb;
        snprintf(o->state_explain, sizeof o->state_explain,
                 "Adafactor factored second moments (rows + columns) and full moments of 1-D params, %d B %s", gb, dt);
        /* steps one tensor at a time (var_estimate = row_var @ col_var, update, grad products): measured
         * 1.5 B/param fp32 over 8 equal tensors = 3 × the largest tensor (memory-facts §2.4) */
        o->temp_bytes = 3 * largest * gb;
        snprintf(o->temp_explain, sizeof o->temp_explain, "Adafactor step: 3 × largest tensor (%lld elements) × %d B",
                 (long long)largest, gb);
        break;
    }
    case VP_OPT_ADAMW_8BIT:
        o->state_bytes = (int64_t)((double)n * BNB_ADAM8_BYTES);
        snprintf(o->state_explain, sizeof o->state_explain,
                 "8-bit AdamW: %s params × (2 B uint8 m, v + 8/256 B block absmax)", cnt);
        break;
    case VP_OPT_PAGED_ADAMW:
    case VP_OPT_PAGED_ADAMW_8BIT:
        /* paged states live in CUDA unified memory (bitsandbytes get_paged), evicted to the CPU under
         * pressure and invisible to torch.cuda.memory_allocated(); they do not cause an OOM. */
        o->state_bytes = 0;
        snprintf(o->state_explain, sizeof o->state_explain, "paged optimizer state: unified memory, evicted to CPU when needed");
        break;
    }
}
