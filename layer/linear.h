/* Internal: the layer's Linear GEMMs by what they compute, on row-major
 * tensors. A Linear(in -> out) has weight W [out, in]; "rows" is the number of
 * tokens, B*T. Each launcher enqueues on ctx's stream in the math mode it is
 * given and returns a tlob_status naming the failing cuBLAS call.
 *
 * cuBLAS is column-major: a row-major [rows, cols] matrix is a column-major
 * [cols, rows] one with leading dimension cols, so y = x W^T is
 * gemm(OP_T, OP_N, out, rows, in, W, in, x, in, y, out). */
#ifndef TLOB_LINEAR_H
#define TLOB_LINEAR_H

#include "compute.h"
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Weight gradients reduce over every row for a tiny [out, in] output; as
 * one plain GEMM the three projections' ran on 3 thread blocks (157 us
 * TF32 / 546 us FP32 at 16384 rows on an H200). They split the rows into up
 * to LINEAR_MAX_SPLITS chunks of at least LINEAR_MIN_SPLIT_ROWS, write one
 * partial product per chunk and sum the partials in a column-sum launch. */
#define LINEAR_MAX_SPLITS 64
#define LINEAR_MIN_SPLIT_ROWS 128

/* y [rows, out] = x [rows, in] W^T, plus y's old value when accumulate (the
 * bias put there first). */
tlob_status linear_forward(const compute_ctx *ctx, tlob_math math, float *y, const float *x,
                           const float *W, int rows, int in, int out, int accumulate);

/* Three Linears whose weights are one block W [3, out, in], in one call:
 * y [3, rows, out], block i = x_i W_i^T (+ y_i when accumulate). x is
 * [3, rows, in], or one [rows, in] that all three read when x_shared. */
tlob_status linear_forward3(const compute_ctx *ctx, tlob_math math, float *y, const float *x,
                            int x_shared, const float *W, int rows, int in, int out,
                            int accumulate);

/* dx [rows, in] = dy [rows, out] W, plus dx's old value when accumulate,
 * as `chunks` row chunks of one strided-batched call (W's stride 0; the
 * plain call when `chunks` is 1 or does not divide rows). cuBLAS picks
 * another kernel for the batch: the projections' dx += dqkv Wqkv_eff
 * ([16384, 120] x [120, 40] at BTC temporal) took 10.0 us as one product;
 * as 8 chunks the graphed TF32 forward + backward was 3.9 us faster (H200,
 * docs/layer-results.md, thirteenth pass). The layer's counts:
 * data_grad_chunks in layer/tlob.c. */
tlob_status linear_data_grad(const compute_ctx *ctx, tlob_math math, float *dx, const float *dy,
                             const float *W, int rows, int in, int out, int accumulate,
                             int chunks);

/* Scratch of linear_weight_grad for up to `rows` rows of a Linear(in -> out). */
size_t linear_weight_grad_partial_floats(int in, int out);
/* dW [out, in] += dy^T x. When the rows split (see above and
 * always_split in linear.c) the partial
 * products go to `partials` and the column-sum task that adds them into dW
 * is appended to tasks[*ntasks] (++*ntasks): the caller launches it,
 * together with other column sums, before reading dW. (cuBLAS's own split-K
 * for these shapes adds a reduction kernel per GEMM; one launch then reduces
 * them all.) */
tlob_status linear_weight_grad(const compute_ctx *ctx, tlob_math math, float *dW,
                               const float *dy, const float *x, int rows, int in, int out,
                               float *partials, tlob_colsum_task *tasks, int *ntasks,
                               int always_split);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_LINEAR_H */
