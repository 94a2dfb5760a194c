/* Launchers of the layer's own kernels (layer/kernels.cu): everything the
 * layer computes that cuBLAS does not. Each enqueues one kernel on `stream`
 * and returns the launch status (cudaGetLastError), which the caller checks.
 * Shapes are row-major; "rows" is B*T (or B*nh*T for attention rows). */
#ifndef TLOB_KERNELS_H
#define TLOB_KERNELS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One small dense product of tlob_launch_fold, all row-major:
 * C [M, N] = op(A) op(B) + u v^T + add (+ C's old value when accumulate),
 * where op(A)(m, k) = A[m a_sm + k a_sk] and op(B)(k, n) = B[k b_sk + n b_sn]
 * (strides express the transposes), u [M] and v [N] both given or both
 * NULL, add [M, N] or NULL. K may be 0 (no product). */
typedef struct {
    const float *A, *B, *u, *v, *add;
    float *C;
    int M, N, K;
    int a_sm, a_sk, b_sk, b_sn;
    int accumulate;
} tlob_fold_job;
#define TLOB_FOLD_MAX_JOBS 16
/* Up to TLOB_FOLD_MAX_JOBS independent small products in one launch, in
 * strict FP32 on the CUDA cores: the layer's folded weights (E x E x D
 * products) and their gradients. cudaErrorInvalidValue for a bad job list. */
cudaError_t tlob_launch_fold(const tlob_fold_job *jobs, int njobs, cudaStream_t stream);

/* In place over p [rows, cols]: p = softmax(scale * p) along each row; also
 * stored into copy when it is not NULL (the caller's attention map). */
cudaError_t tlob_launch_softmax_fwd(float *p, float *copy, int rows, int cols, float scale,
                                    cudaStream_t stream);

/* In place over dp [rows, cols], with the forward's p:
 * dp = scale * p * (dp - sum_j p_j dp_j): the gradient of the raw scores. */
cudaError_t tlob_launch_softmax_bwd(float *dp, const float *p, int rows, int cols,
                                    float scale, cudaStream_t stream);

/* Per row: h = a + bias + res (res may be NULL); n = LayerNorm(h) with gamma,
 * beta, eps 1e-5; out = gelu ? GELU(n) : n; out += res2 (may be NULL).
 * Stores h, mean and rstd for the backward pass. */
cudaError_t tlob_launch_ln_fwd(const float *a, const float *bias, const float *res,
                               const float *gamma, const float *beta, int gelu,
                               const float *res2, float *h, float *mean, float *rstd,
                               float *out, int rows, int cols, cudaStream_t stream);

/* Backward of tlob_launch_ln_fwd's normalisation, per row: g = dout + dout2
 * (dout2 may be NULL); through GELU at n when gelu; through the LayerNorm:
 * dh. Writes dh, and dh_plus_skip = dh + skip (skip may be NULL) when
 * dh_plus_skip is not NULL. Adds column sums into dgamma, dbeta (the affine
 * parameters) and dbias (sum of dh: the gradient of the bias added before). */
cudaError_t tlob_launch_ln_bwd(const float *dout, const float *dout2, int gelu,
                               const float *h, const float *mean, const float *rstd,
                               const float *gamma, const float *beta, float *dh,
                               const float *skip, float *dh_plus_skip, float *dgamma,
                               float *dbeta, float *dbias, int rows, int cols,
                               cudaStream_t stream);

/* g = GELU(f + bias) for f [rows, cols] (the GEMM output, kept without the
 * bias so that the forward pass writes one tensor, not two). cols must be a
 * multiple of 4 and f, g 16-byte aligned (cudaErrorInvalidValue otherwise). */
cudaError_t tlob_launch_bias_gelu_fwd(const float *f, const float *bias, float *g, int rows,
                                      int cols, cudaStream_t stream);

/* df = dg * GELU'(f + bias); dbias[c] += sum over rows of df. */
cudaError_t tlob_launch_gelu_bwd(const float *dg, const float *f, const float *bias, float *df,
                                 float *dbias, int rows, int cols, cudaStream_t stream);

/* Independent column sums, 1 to TLOB_COLSUM_MAX_JOBS of them in one launch:
 * for each task, out[b][c] += sum over r of in[b][r][c], b < nblocks (bias
 * gradients, and the reduction step of split-K weight gradients: in = the
 * partial products). cudaErrorInvalidValue for another count. */
typedef struct {
    const float *in;
    float *out;
    int nblocks, rows, cols;
} tlob_colsum_task;
#define TLOB_COLSUM_MAX_JOBS 6
cudaError_t tlob_launch_colsums(const tlob_colsum_task *tasks, int ntasks, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_KERNELS_H */
