/* gguf_types.h: ggml tensor types (their real block sizes and bytes) and llama.cpp's file types
 * with the per-tensor recipe llama-quant.cpp applies to K-quant mixes (gguf_types.c). */
#ifndef VP_GGUF_TYPES_H
#define VP_GGUF_TYPES_H

#include <stdint.h>

/* ggml_type values (ggml/include/ggml.h enum ggml_type). */
enum {
    VP_GGML_F32 = 0, VP_GGML_F16 = 1, VP_GGML_Q4_0 = 2, VP_GGML_Q4_1 = 3, VP_GGML_Q5_0 = 6, VP_GGML_Q5_1 = 7,
    VP_GGML_Q8_0 = 8, VP_GGML_Q8_1 = 9, VP_GGML_Q2_K = 10, VP_GGML_Q3_K = 11, VP_GGML_Q4_K = 12, VP_GGML_Q5_K = 13,
    VP_GGML_Q6_K = 14, VP_GGML_Q8_K = 15, VP_GGML_IQ2_XXS = 16, VP_GGML_IQ2_XS = 17, VP_GGML_IQ3_XXS = 18,
    VP_GGML_IQ1_S = 19, VP_GGML_IQ4_NL = 20, VP_GGML_IQ3_S = 21, VP_GGML_IQ2_S = 22, VP_GGML_IQ4_XS = 23,
    VP_GGML_BF16 = 30, VP_GGML_IQ1_M = 29, VP_GGML_TQ1_0 = 34, VP_GGML_TQ2_0 = 35, VP_GGML_MXFP4 = 39,
    VP_GGML_COUNT = 40
};

/* llama_ftype values (include/llama.h enum llama_ftype). */
enum {
    VP_FT_ALL_F32 = 0, VP_FT_F16 = 1, VP_FT_Q4_0 = 2, VP_FT_Q4_1 = 3, VP_FT_Q8_0 = 7, VP_FT_Q5_0 = 8, VP_FT_Q5_1 = 9,
    VP_FT_Q2_K = 10, VP_FT_Q3_K_S = 11, VP_FT_Q3_K_M = 12, VP_FT_Q3_K_L = 13, VP_FT_Q4_K_S = 14, VP_FT_Q4_K_M = 15,
    VP_FT_Q5_K_S = 16, VP_FT_Q5_K_M = 17, VP_FT_Q6_K = 18, VP_FT_IQ2_XXS = 19, VP_FT_IQ2_XS = 20, VP_FT_Q2_K_S = 21,
    VP_FT_IQ3_XS = 22, VP_FT_IQ3_XXS = 23, VP_FT_IQ1_S = 24, VP_FT_IQ4_NL = 25, VP_FT_IQ3_S = 26, VP_FT_IQ3_M = 27,
    VP_FT_IQ2_S = 28, VP_FT_IQ2_M = 29, VP_FT_IQ4_XS = 30, VP_FT_IQ1_M = 31, VP_FT_BF16 = 32, VP_FT_TQ1_0 = 36,
    VP_FT_TQ2_0 = 37, VP_FT_MXFP4_MOE = 38
};

/* The tensors of a llama.cpp model that the recipe tells apart (llama-arch.cpp LLM_TENSOR_*). */
typedef enum {
    VP_GT_TOKEN_EMBD = 0, VP_GT_OUTPUT, VP_GT_ATTN_Q, VP_GT_ATTN_K, VP_GT_ATTN_V, VP_GT_ATTN_QKV, VP_GT_ATTN_OUTPUT,
    VP_GT_FFN_GATE, VP_GT_FFN_UP, VP_GT_FFN_DOWN, VP_GT_FFN_GATE_EXPS, VP_GT_FFN_UP_EXPS, VP_GT_FFN_DOWN_EXPS,
    VP_GT_FFN_GATE_INP, VP_GT_OTHER_2D
} vp_gguf_tensor;

/* Block size (elements) and bytes per block of a ggml type (ggml.c type_traits); 0 for unknown. */
int64_t vp_ggml_blck_size(int type);
int64_t vp_ggml_type_size(int type);
const char *vp_ggml_type_name(int type);
/* "f16", "q8_0", "q4_0", ... (llama.cpp --cache-type-k names) -> type, or -1. */
int vp_ggml_type_from_name(const char *name);
/* ggml_row_size: bytes of ne elements along a row. */
int64_t vp_ggml_row_size(int type, int64_t ne);

/* "Q4_K_M", "q4_k_m", "Q8_0", "F16", "BF16", "IQ4_XS" ... -> llama_ftype, or -1. */
int vp_gguf_ftype_from_name(const char *name);
const char *vp_gguf_ftype_name(int ftype);

/* The type llama-quant.cpp (llama_tensor_get_type) gives one 2-D weight of a file of type ftype.
 * ncols: ne[0], the row length the blocks run along. i_layer / n_layer: the layer of the tensor
 * and the count of such tensors (use_more_bits). n_gqa = heads / kv_heads; n_expert: experts;
 * is_70b: llama.cpp's LLM_TYPE_70B. */
int vp_gguf_tensor_type(int ftype, vp_gguf_tensor t, int64_t ncols, int64_t i_layer, int64_t n_layer, int64_t n_gqa,
                        int64_t n_expert, int is_70b);

#endif
