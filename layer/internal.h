/* Internal accessors for the tests and the benchmark (not part of the API):
 * the layer's projection activations, to check the fused strided-batched
 * projections against separate GEMMs on identical inputs. */
#ifndef TLOB_INTERNAL_H
#define TLOB_INTERNAL_H

#include "tlob.h"

#ifdef __cplusplus
extern "C" {
#endif

/* q0|k0|v0 [3, batch, T, E] of the last forward pass (device). */
const float *tlob_internal_qkv0(const tlob_layer *layer);
/* q|k|v [3, batch, T, E] of the last forward pass (device). */
const float *tlob_internal_qkv(const tlob_layer *layer);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_INTERNAL_H */
