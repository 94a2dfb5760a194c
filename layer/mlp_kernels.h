/* The MLP's thin products fused with the elementwise pass after them, on the
 * tensor cores (TF32 inputs, FP32 accumulation: TF32 mode only), from
 * layer/mlp_kernels.cu:
 *   forward:  f = y1 Wf^T and g = GELU(f + bf), one pass (cuBLAS's fc, then
 *             tlob_launch_bias_gelu_fwd, on the general path); where
 *             tlob_mlp_fc2_fits, also fc2 and LayerNorm 2 (cuBLAS's fc2,
 *             then tlob_launch_ln_fwd);
 *   backward: df = (dz1 Wf2) * GELU'(f + bf) and dbf += the column sums of
 *             df, one pass (cuBLAS's dg, then tlob_launch_gelu_bwd); where
 *             tlob_mlp_dy1_fits, also dy1 = df Wf (cuBLAS's dy1).
 * Shapes are row-major; rows = B*T, F = 4D the hidden width. */
#ifndef TLOB_MLP_KERNELS_H
#define TLOB_MLP_KERNELS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Output columns of one pass of a block: where F is at most this, a block's
 * tile spans the whole output width and A is read once. */
#define TLOB_MLP_CHUNK 160

/* Whether the backward kernel can compute dy1 = df Wf as well: F <= one
 * chunk and D <= 40 (one warp's columns of its tile). */
int tlob_mlp_dy1_fits(int D, int F);

/* LayerNorm 2's backward (GELU after it) as the backward kernel's first
 * step, where it computes dy1 too and O <= 40: dz1 = dh from dy through
 * GELU and the LayerNorm of h (z1, mean2, rstd2, gamma2, beta2), written to
 * dh; dgamma, dbeta and dbias (bf2's gradient: the sums of dh) += their
 * column sums (tlob_launch_ln_bwd's with gelu = 1). */
typedef struct {
    const float *dy, *h, *mean, *rstd, *gamma, *beta;
    float *dh, *dgamma, *dbeta, *dbias;
} tlob_mlp_ln_bwd;
int tlob_mlp_ln_fits(int O, int D, int F);

/* LayerNorm 1 as the forward kernel's first step where it runs fc2 too:
 * per row h = r + b + res, y = LayerNorm(h) gamma + beta (y1, the A tile),
 * as tlob_launch_ln_fwd with gelu = 0 does it; h, mean, rstd and y stored.
 * r, res, h, y [rows, D]; b, gamma, beta [D]; mean, rstd [rows]. */
typedef struct {
    const float *r, *b, *res, *gamma, *beta;
    float *h, *mean, *rstd, *y;
} tlob_mlp_ln1_fwd;

/* The rest of the MLP after the forward kernel's g, in the same kernel,
 * where F fits one chunk and O <= 40 (tlob_mlp_fc2_fits): z0 = g W2^T on
 * the tensor cores, then per row h = z0 + b (+ y1 where res: O == D), y =
 * GELU(LayerNorm(h) gamma + beta) (+ res2), as tlob_launch_ln_fwd with gelu
 * = 1 does it; h, mean and rstd are stored for the backward. W2 [O, F];
 * b, gamma, beta [O]; res2, h, y [rows, O]; mean, rstd [rows]. The kernel
 * then also starts with ln1 (its y1 is ln1.y). */
typedef struct {
    const float *w, *b, *gamma, *beta, *res2;
    float *h, *mean, *rstd, *y;
    int O, res;
    tlob_mlp_ln1_fwd ln1;
} tlob_mlp_fc2_ln;
int tlob_mlp_fc2_fits(int O, int D, int F);

/* Shared memory (bytes) of one block of each kernel (the forward's with
 * fc2 and LayerNorm 2 where tlob_mlp_fc2_fits, the backward's with dy1
 * where tlob_mlp_dy1_fits). */
size_t tlob_mlp_fwd_smem(int O, int D, int F);
size_t tlob_mlp_bwd_smem(int O, int D, int F);

/* Raises both kernels' dynamic shared-memory limit to `smem_limit` bytes;
 * host-side setup, once per layer (tlob_create). */
cudaError_t tlob_mlp_prepare(int smem_limit);

/* y1 [rows, D], Wf [F, D], bf [F] -> f [rows, F] (without the bias, as the
 * backward reads it), g [rows, F]; with fc2 (tlob_mlp_fc2_fits, res only
 * where O == D), y1 is fc2->ln1.y, computed, and fc2's outputs too. F even, f and g 8-byte aligned
 * (cudaErrorInvalidValue otherwise). */
cudaError_t tlob_launch_mlp_fc_gelu(const float *y1, const float *wf, const float *bf, float *f,
                                    float *g, const tlob_mlp_fc2_ln *fc2, int rows, int D, int F,
                                    cudaStream_t stream);

/* dz1 [rows, O], Wf2 [O, F], f [rows, F], bf [F] -> df [rows, F];
 * dbf [F] += column sums of df. F even, f and df 8-byte aligned. With wf
 * [F, D] and dy1 [rows, D] (both or neither; tlob_mlp_dy1_fits(D, F)), also
 * dy1 = df Wf; with ln as well (tlob_mlp_ln_fits), dz1 is not read but
 * computed (ln's dh). */
cudaError_t tlob_launch_mlp_dg_gelu_bwd(const float *dz1, const float *wf2, const float *f,
                                        const float *bf, float *df, float *dbf, const float *wf,
                                        float *dy1, const tlob_mlp_ln_bwd *ln, int rows, int O,
                                        int F, int D, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_MLP_KERNELS_H */
