/* gguf_types.c: ggml type traits and llama.cpp's quantization recipe.
 * Block sizes and bytes: ggml/src/ggml.c type_traits[] with the block structs of
 * ggml/src/ggml-common.h (QK_K = 256, QK4_0 = QK8_0 = 32, QK_MXFP4 = 32). The recipe:
 * src/llama-quant.cpp llama_tensor_get_type() and llama_model_quantize_impl()'s default types. */
#include <ctype.h>
#include <string.h>

#include "gguf_types.h"

typedef struct { int type; const char *name; int64_t blck, size; } trait;

/* sizeof(block_*) in ggml-common.h: e.g. block_q4_K = 2·ggml_half + K_SCALE_SIZE(12) + QK_K/2 = 144 */
static const trait k_traits[] = {
    {VP_GGML_F32, "f32", 1, 4},          {VP_GGML_F16, "f16", 1, 2},          {VP_GGML_BF16, "bf16", 1, 2},
    {VP_GGML_Q4_0, "q4_0", 32, 18},      {VP_GGML_Q4_1, "q4_1", 32, 20},      {VP_GGML_Q5_0, "q5_0", 32, 22},
    {VP_GGML_Q5_1, "q5_1", 32, 24},      {VP_GGML_Q8_0, "q8_0", 32, 34},      {VP_GGML_Q8_1, "q8_1", 32, 36},
    {VP_GGML_Q2_K, "q2_K", 256, 84},     {VP_GGML_Q3_K, "q3_K", 256, 110},    {VP_GGML_Q4_K, "q4_K", 256, 144},
    {VP_GGML_Q5_K, "q5_K", 256, 176},    {VP_GGML_Q6_K, "q6_K", 256, 210},    {VP_GGML_Q8_K, "q8_K", 256, 292},
    {VP_GGML_IQ2_XXS, "iq2_xxs", 256, 66}, {VP_GGML_IQ2_XS, "iq2_xs", 256, 74}, {VP_GGML_IQ3_XXS, "iq3_xxs", 256, 98},
    {VP_GGML_IQ1_S, "iq1_s", 256, 50},   {VP_GGML_IQ4_NL, "iq4_nl", 32, 18},  {VP_GGML_IQ3_S, "iq3_s", 256, 110},
    {VP_GGML_IQ2_S, "iq2_s", 256, 82},   {VP_GGML_IQ4_XS, "iq4_xs", 256, 136}, {VP_GGML_IQ1_M, "iq1_m", 256, 56},
    {VP_GGML_TQ1_0, "tq1_0", 256, 54},   {VP_GGML_TQ2_0, "tq2_0", 256, 66},   {VP_GGML_MXFP4, "mxfp4", 32, 17},
};
#define N_TRAITS (int)(sizeof k_traits / sizeof k_traits[0])

static const trait *find(int type) {
    for (int i = 0; i < N_TRAITS; i++)
        if (k_traits[i].type == type) return &k_traits[i];
    return NULL;
}

int64_t vp_ggml_blck_size(int type) { const trait *t = find(type); return t ? t->blck : 0; }
int64_t vp_ggml_type_size(int type) { const trait *t = find(type); return t ? t->size : 0; }
const char *vp_ggml_type_name(int type) { const trait *t = find(type); return t ? t->name : "?"; }

static int ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

int vp_ggml_type_from_name(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < N_TRAITS; i++)
        if (ieq(k_traits[i].name, name)) return k_traits[i].type;
    return -1;
}

/* ggml_row_size(type, ne) = type_size · ne / blck_size (ne a multiple of the block) */
int64_t vp_ggml_row_size(int type, int64_t ne) {
    const trait *t = find(type);
    if (!t) return 0;
    return t->size * ((ne + t->blck - 1) / t->blck);
}

static const struct { int ft; const char *name; } k_ftypes[] = {
    {VP_FT_ALL_F32, "F32"},   {VP_FT_F16, "F16"},       {VP_FT_BF16, "BF16"},     {VP_FT_Q4_0, "Q4_0"},
    {VP_FT_Q4_1, "Q4_1"},     {VP_FT_Q5_0, "Q5_0"},     {VP_FT_Q5_1, "Q5_1"},     {VP_FT_Q8_0, "Q8_0"},
    {VP_FT_Q2_K, "Q2_K"},     {VP_FT_Q2_K_S, "Q2_K_S"}, {VP_FT_Q3_K_S, "Q3_K_S"}, {VP_FT_Q3_K_M, "Q3_K_M"},
    {VP_FT_Q3_K_L, "Q3_K_L"}, {VP_FT_Q4_K_S, "Q4_K_S"}, {VP_FT_Q4_K_M, "Q4_K_M"}, {VP_FT_Q5_K_S, "Q5_K_S"},
    {VP_FT_Q5_K_M, "Q5_K_M"}, {VP_FT_Q6_K, "Q6_K"},     {VP_FT_IQ2_XXS, "IQ2_XXS"}, {VP_FT_IQ2_XS, "IQ2_XS"},
    {VP_FT_IQ2_S, "IQ2_S"},   {VP_FT_IQ2_M, "IQ2_M"},   {VP_FT_IQ3_XXS, "IQ3_XXS"}, {VP_FT_IQ3_XS, "IQ3_XS"},
    {VP_FT_IQ3_S, "IQ3_S"},   {VP_FT_IQ3_M, "IQ3_M"},   {VP_FT_IQ1_S, "IQ1_S"},   {VP_FT_IQ1_M, "IQ1_M"},
    {VP_FT_IQ4_NL, "IQ4_NL"}, {VP_FT_IQ4_XS, "IQ4_XS"}, {VP_FT_TQ1_0, "TQ1_0"},   {VP_FT_TQ2_0, "TQ2_0"},
    {VP_FT_MXFP4_MOE, "MXFP4_MOE"},
};
#define N_FTYPES (int)(sizeof k_ftypes / sizeof k_ftypes[0])

int vp_gguf_ftype_from_name(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < N_FTYPES; i++)
        if (ieq(k_ftypes[i].name, name)) return k_ftypes[i].ft;
    if (ieq(name, "Q4_K")) return VP_FT_Q4_K_M; /* print_info "Q4_K - Medium" */
    if (ieq(name, "Q5_K")) return VP_FT_Q5_K_M;
    if (ieq(name, "Q3_K")) return VP_FT_Q3_K_M;
    return -1;
}

const char *vp_gguf_ftype_name(int ftype) {
    for (int i = 0; i < N_FTYPES; i++)
        if (k_ftypes[i].ft == ftype) return k_ftypes[i].name;
    return "?";
}

/* llama_model_quantize_impl: default_type of each ftype */
static int default_type(int ft) {
    switch (ft) {
    case VP_FT_Q4_0: return VP_GGML_Q4_0;
    case VP_FT_Q4_1: return VP_GGML_Q4_1;
    case VP_FT_Q5_0: return VP_GGML_Q5_0;
    case VP_FT_Q5_1: return VP_GGML_Q5_1;
    case VP_FT_Q8_0: return VP_GGML_Q8_0;
    case VP_FT_F16: return VP_GGML_F16;
    case VP_FT_BF16: return VP_GGML_BF16;
    case VP_FT_ALL_F32: return VP_GGML_F32;
    case VP_FT_Q2_K_S: case VP_FT_Q2_K: return VP_GGML_Q2_K;
    case VP_FT_IQ3_XS: return VP_GGML_IQ3_S;
    case VP_FT_Q3_K_S: case VP_FT_Q3_K_M: case VP_FT_Q3_K_L: return VP_GGML_Q3_K;
    case VP_FT_Q4_K_S: case VP_FT_Q4_K_M: return VP_GGML_Q4_K;
    case VP_FT_Q5_K_S: case VP_FT_Q5_K_M: return VP_GGML_Q5_K;
    case VP_FT_Q6_K: return VP_GGML_Q6_K;
    case VP_FT_TQ1_0: return VP_GGML_TQ1_0;
    case VP_FT_TQ2_0: return VP_GGML_TQ2_0;
    case VP_FT_IQ2_XXS: return VP_GGML_IQ2_XXS;
    case VP_FT_IQ2_XS: return VP_GGML_IQ2_XS;
    case VP_FT_IQ2_S: return VP_GGML_IQ2_XS;
    case VP_FT_IQ2_M: return VP_GGML_IQ2_S;
    case VP_FT_IQ3_XXS: return VP_GGML_IQ3_XXS;
    case VP_FT_IQ1_S: return VP_GGML_IQ1_S;
    case VP_FT_IQ1_M: return VP_GGML_IQ1_M;
    case VP_FT_IQ4_NL: return VP_GGML_IQ4_NL;
    case VP_FT_IQ4_XS: return VP_GGML_IQ4_XS;
    case VP_FT_IQ3_S: case VP_FT_IQ3_M: return VP_GGML_IQ3_S;
    case VP_FT_MXFP4_MOE: return VP_GGML_MXFP4;
    default: return VP_GGML_F16;
    }
}

/* llama-quant.cpp use_more_bits(): the first and last eighth and every third layer between */
static int use_more_bits(int64_t i, int64_t n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

static int is_quantized(int type) { return type != VP_GGML_F32 && type != VP_GGML_F16 && type != VP_GGML_BF16; }

int vp_gguf_tensor_type(int ft, vp_gguf_tensor t, int64_t ncols, int64_t i, int64_t n, int64_t n_gqa, int64_t n_expert,
                        int is_70b) {
    int ty = default_type(ft);
    if (t == VP_GT_FFN_GATE_INP) return VP_GGML_F32; /* routers are never quantized (quantize &= ffn_gate_inp) */
    if (!is_quantized(ty)) return ty;                 /* F16 / BF16 / F32 files: no recipe */
    if (ft == VP_FT_MXFP4_MOE) {
        /* experts in MXFP4; the rest keep Q8_0 (llama-quant.cpp: MXFP4_MOE quantizes only *_exps) */
        return (t == VP_GT_FFN_GATE_EXPS || t == VP_GT_FFN_UP_EXPS || t == VP_GT_FFN_DOWN_EXPS) ? VP_GGML_MXFP4
                                                                                               : VP_GGML_Q8_0;
    }
    int iq12 = ft == VP_FT_IQ2_XXS || ft == VP_FT_IQ2_XS || ft == VP_FT_IQ3_XXS || ft == VP_FT_IQ1_S ||
               ft == VP_FT_IQ2_S || ft == VP_FT_IQ2_M || ft == VP_FT_IQ1_M;
    int ffn_down = t == VP_GT_FFN_DOWN || t == VP_GT_FFN_DOWN_EXPS;
    if (t == VP_GT_OUTPUT) {
        if (ncols % 256 != 0) ty = VP_GGML_Q8_0;
        else if (iq12) ty = VP_GGML_Q5_K;
        else if (ty != VP_GGML_Q8_0) ty = VP_GGML_Q6_K;
    } else if (t == VP_GT_TOKEN_EMBD) {
        if (ft == VP_FT_IQ2_XXS || ft == VP_FT_IQ2_XS || ft == VP_FT_IQ1_S || ft == VP_FT_IQ1_M) ty = VP_GGML_Q2_K;
        else if (ft == VP_FT_IQ2_S || ft == VP_FT_IQ2_M) ty = VP_GGML_IQ3_S;
        else if (ft == VP_FT_IQ3_XXS) ty = VP_GGML_IQ3_S;
    } else if (t == VP_GT_ATTN_V) {
        if (ft == VP_FT_Q2_K) ty = n_gqa >= 4 ? VP_GGML_Q4_K : VP_GGML_Q3_K;
        else if (ft == VP_FT_Q2_K_S && n_gqa >= 4) ty = VP_GGML_Q4_K;
        else if (ft == VP_FT_IQ3_XXS) ty = n_gqa >= 4 ? VP_GGML_Q4_K : VP_GGML_IQ3_S;
        else if ((ft == VP_FT_IQ3_XS || ft == VP_FT_IQ3_S) && n_gqa >= 4) ty = VP_GGML_Q4_K;
        else if (ft == VP_FT_IQ3_M) ty = VP_GGML_Q4_K;
        else if (ft == VP_FT_Q3_K_M) ty = i < 2 ? VP_GGML_Q5_K : VP_GGML_Q4_K;
        else if (ft == VP_FT_Q3_K_L) ty = VP_GGML_Q5_K;
        else if ((ft == VP_FT_IQ4_NL || ft == VP_FT_IQ4_XS) && n_gqa >= 4) ty = VP_GGML_Q5_K;
        else if ((ft == VP_FT_Q4_K_M || ft == VP_FT_Q5_K_M) && use_more_bits(i, n)) ty = VP_GGML_Q6_K;
        else if (ft == VP_FT_Q4_K_S && i < 4) ty = VP_GGML_Q5_K;
        if (is_70b && (ty == VP_GGML_Q3_K || ty == VP_GGML_Q4_K)) ty = VP_GGML_Q5_K;
        if (n_expert == 8) ty = VP_GGML_Q8_0;
    } else if (t == VP_GT_ATTN_K) {
        if (n_expert == 8) ty = VP_GGML_Q8_0;
        else if (ft == VP_FT_IQ3_XS) ty = VP_GGML_IQ3_XXS;
        else if (ft == VP_FT_IQ2_S || ft == VP_FT_IQ2_M) ty = VP_GGML_IQ3_XXS;
    } else if (t == VP_GT_ATTN_Q) {
        if (ft == VP_FT_IQ3_XS) ty = VP_GGML_IQ3_XXS;
        else if (ft == VP_FT_IQ2_S || ft == VP_FT_IQ2_M) ty = VP_GGML_IQ3_XXS;
    } else if (ffn_down) {
        if (ft == VP_FT_Q2_K) ty = VP_GGML_Q3_K;
        else if (ft == VP_FT_Q2_K_S) { if (i < n / 8) ty = VP_GGML_Q4_K; }
        else if (ft == VP_FT_IQ3_XXS && !n_expert) { if (use_more_bits(i, n)) ty = VP_GGML_Q4_K; }
        else if (ft == VP_FT_Q3_K_M) ty = i < n / 16 ? VP_GGML_Q5_K : VP_GGML_Q4_K;
        else if (ft == VP_FT_IQ3_M) ty = i < n / 16 ? VP_GGML_Q5_K : ty;
        else if (ft == VP_FT_Q3_K_L) ty = VP_GGML_Q5_K;
        else if ((ft == VP_FT_Q4_K_M || ft == VP_FT_Q5_K_M) && use_more_bits(i, n)) ty = VP_GGML_Q6_K;
        else if (ft == VP_FT_Q4_K_S && i < n / 8) ty = VP_GGML_Q5_K;
    } else if (t == VP_GT_ATTN_OUTPUT) {
        if (n_expert == 8) {
            if (ft == VP_FT_Q2_K || ft == VP_FT_IQ3_XS || ft == VP_FT_Q3_K_S || ft == VP_FT_Q3_K_M || ft == VP_FT_IQ4_NL ||
                ft == VP_FT_Q4_K_S || ft == VP_FT_Q4_K_M || ft == VP_FT_IQ3_S || ft == VP_FT_IQ3_M || ft == VP_FT_IQ4_XS)
                ty = VP_GGML_Q5_K;
        } else {
            if (ft == VP_FT_Q2_K) ty = VP_GGML_Q3_K;
            else if (ft == VP_FT_IQ3_XXS) ty = VP_GGML_IQ3_S;
            else if (ft == VP_FT_Q3_K_M) ty = VP_GGML_Q4_K;
            else if (ft == VP_FT_Q3_K_L) ty = VP_GGML_Q5_K;
            else if (ft == VP_FT_IQ3_M) ty = VP_GGML_Q4_K;
        }
    } else if (t == VP_GT_ATTN_QKV) {
        if (ft == VP_FT_Q3_K_M || ft == VP_FT_Q3_K_L || ft == VP_FT_IQ3_M) ty = VP_GGML_Q4_K;
        else if (ft == VP_FT_Q4_K_M) ty = VP_GGML_Q5_K;
        else if (ft == VP_FT_Q5_K_M) ty = VP_GGML_Q6_K;
    }
    /* rows that are not a whole number of blocks fall back (llama-quant.cpp "convert_incompatible_tensor") */
    int64_t blck = vp_ggml_blck_size(ty);
    if (blck > 1 && ncols % blck != 0) {
        switch (ty) {
        case VP_GGML_Q4_K: ty = VP_GGML_Q5_0; break;
        case VP_GGML_Q5_K: ty = VP_GGML_Q5_1; break;
        case VP_GGML_Q6_K: ty = VP_GGML_Q8_0; break;
        case VP_GGML_IQ4_XS: ty = VP_GGML_IQ4_NL; break;
        default: ty = VP_GGML_IQ4_NL; break; /* Q2_K, Q3_K, IQ2/IQ3 */
        }
        if (ncols % vp_ggml_blck_size(ty) != 0) ty = VP_GGML_F16;
    }
    return ty;
}
