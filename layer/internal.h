/* Internal accessors for the tests and the benchmark (not part of the API):
 * the layer's projection output, to check the folded strided-batched
 * projection against separate GEMMs on identical inputs; the choice
 * between the fused forward (layer/forward_kernels.h) and the general one;
 * the choice of the MLP's kernels (layer/mlp_kernels.h); and the row chunks
 * of the backward's data-gradient products (layer/linear.h). */
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
/* Which MLP kernels run now: 1 the forward's, 2 the backward's, 3 both, 0
 * none; plus 4 where the backward's also computes dy1 = df Wf
 * (tlob_mlp_dy1_fits), 8 where it does LayerNorm 2's backward too
 * (tlob_mlp_ln_fits), and 16 where the forward's also runs LayerNorm 1,
 * fc2 and LayerNorm 2 (tlob_mlp_fc2_fits). */
int tlob_internal_mlp_fused(const tlob_layer *layer);

/* The backward's data-gradient products, each one cuBLAS call over row
 * chunks (linear_data_grad): dx += dqkv Wqkv_eff, dy1 = df Wf and dg = dz1
 * Wf2 where the MLP's backward kernel does not compute them, dout = dr Wc. */
enum { TLOB_DGRAD_DX, TLOB_DGRAD_DY1, TLOB_DGRAD_DOUT, TLOB_DGRAD_DG, TLOB_DGRAD_COUNT };
/* chunks: 0 = choose (the default), 1 to TLOB_DGRAD_MAX_CHUNKS = that many
 * (one where it does not divide the rows). */
#define TLOB_DGRAD_MAX_CHUNKS 64
tlob_status tlob_internal_force_data_grad_chunks(tlob_layer *layer, int product, int chunks);
/* The row chunks `product` runs as for `batch` (1: the plain call). */
int tlob_internal_data_grad_chunks(const tlob_layer *layer, int product, int batch);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_INTERNAL_H */
