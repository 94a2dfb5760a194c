/* Internal accessors for the tests and the benchmark (not part of the API):
 * the layer's projection output, to check the folded strided-batched
 * projection against separate GEMMs on identical inputs; the choice
 * between the fused forward (layer/forward_kernels.h) and the general one;
 * and the choice of the MLP's kernels (layer/mlp_kernels.h). */
#ifndef TLOB_INTERNAL_H
#define TLOB_INTERNAL_H

#include "tlob.h"

#ifdef __cplusplus
extern "C" {
#endif

/* q|k|v [3, batch, T, E] of the last forward pass (device). */
const float *tlob_internal_qkv(const tlob_layer *layer);

/* path: 0 = choose by size (the default), 1 = the general forward (cuBLAS and
 * the row kernels), 2 = the fused forward (tlob_forward then fails with
 * TLOB_ERR_INVALID_ARGUMENT where it does not fit); rows: the fused tiles'
 * rows, 16 or 32, or 0 to choose. */
tlob_status tlob_internal_force_forward(tlob_layer *layer, int path, int rows);
/* The tile rows the fused forward would use for `batch`, 0 when it does not run. */
int tlob_internal_forward_fused_rows(const tlob_layer *layer, int batch);
/* The fused forward's launches: 0 = choose (the default), 1 = one (a
 * cluster per sample, where it fits; else two), 2 = two (the projection and
 * rest kernels). */
tlob_status tlob_internal_force_forward_launches(tlob_layer *layer, int launches);
/* How many launches the fused forward takes for `batch`: 1 or 2, 0 when it
 * does not run. */
int tlob_internal_forward_launches(const tlob_layer *layer, int batch);

/* The MLP's products (fc + bias + GELU forward, dg + GELU backward): path 0
 * = choose (the default), 1 = cuBLAS and the row kernels, 2 = the
 * tensor-core kernels of layer/mlp_kernels.h where they fit. Either way TF32
 * mode only; FP32 mode always takes cuBLAS. */
tlob_status tlob_internal_force_mlp(tlob_layer *layer, int path);
/* Which MLP kernels run now: 1 the forward's, 2 the backward's, 3 both, 0 none. */
int tlob_internal_mlp_fused(const tlob_layer *layer);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_INTERNAL_H */
