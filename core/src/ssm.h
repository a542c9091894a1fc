/* ssm.h: what state-space models (mamba2, jamba) keep during generation instead of, or beside, a
 * KV cache (ssm_state.c). */
#ifndef VP_SSM_H
#define VP_SSM_H

#include "arch.h"

/* Layers that keep a growing K,V cache: all of them, less the Mamba layers. */
int64_t vp_kv_layers(const vp_arch *a);
/* Bytes of recurrent state one sequence keeps over all Mamba layers (conv state + SSM state), at
 * `elem` bytes per element; 0 for a model without Mamba layers. */
double vp_ssm_state_bytes_per_seq(const vp_arch *a, int elem);

/* One Mamba mixer's temporaries per prompt token during a no_grad prefill, at adt bytes per element. */
double vp_ssm_prefill_temp_per_token(const vp_arch *a, double adt);

#endif
