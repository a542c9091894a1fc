/* qwen.c: Qwen (v1: Qwen-1.8B/7B/14B/72B, remote code modeling_qwen.py QWenLMHeadModel). QWenBlock:
 * ln_1, attn.c_attn Linear(h, 3·projection_size) with bias, attn.c_proj Linear(projection, h,
 * bias=not no_bias), ln_2 (RMSNorm), mlp w1 and w2 Linear(h, intermediate_size / 2) and c_proj
 * Linear(intermediate_size / 2, h) (SwiGLU, bias=not no_bias); wte, ln_f, untied lm_head.
 * kv_channels is the head dim. Qwen-7B: 7,721,324,544. */
#include "family.h"

vp_status vp_read_qwen(const cJSON *c, const char *p, vp_arch *a, vp_error *err) {
    vp_status st;
    if ((st = vp_read_decoder_common(c, p, a, 0, err))) return st;
    if ((st = vp_read_need_inter(p, a, err))) return st;
    if (a->inter < 2) {
        char path[128];
        vp_path_key(path, sizeof path, p, "intermediate_size");
        return vp_fail(err, VP_ERR_RANGE, path, "%s must be at least 2 (the MLP width is half of it)", path);
    }
    a->inter /= 2; /* QWenMLP: ff_dim_in = intermediate_size // 2 */
    int64_t kv = a->head_dim;
    if ((st = vp_json_opt_int(c, p, "kv_channels", 1, 65536, &kv, err))) return st;
    a->head_dim = kv;
    int no_bias = 1;
    if ((st = vp_json_opt_bool(c, p, "no_bias", &no_bias, err))) return st;
    a->qkv_bias = 1;
    a->o_bias = a->mlp_bias = !no_bias;
    a->fused_qkv = 1;
    double drop = 0;
    if ((st = vp_json_opt_num(c, p, "attn_dropout_prob", 0, 1, &a->attn_dropout, err))) return st;
    if ((st = vp_json_opt_num(c, p, "emb_dropout_prob", 0, 1, &drop, err))) return st;
    a->embd_dropout = drop;
    return vp_read_rope(c, p, a, "rotary_pct", 1.0, err); /* QWenConfig rotary_pct 1.0 */
}
