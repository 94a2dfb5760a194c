/* The Linear GEMMs of linear.h. */
#include "linear.h"
#include "status.h"

#define N_ CUBLAS_OP_N
#define T_ CUBLAS_OP_T

tlob_status linear_forward(const compute_ctx *ctx, tlob_math math, float *y, const float *x,
                           const float *W, int rows, int in, int out, int accumulate) {
    CUBLAS_CHECK(compute_gemm(ctx, math, T_, N_, out, rows, in, W, in, 0, x, in, 0,
                              accumulate ? 1.0f : 0.0f, y, out, 0, 1));
    return TLOB_OK;
}

tlob_status linear_forward3(const compute_ctx *ctx, tlob_math math, float *y, const float *x,
                            int x_shared, const float *W, int rows, int in, int out,
                            int accumulate) {
    const long long x_stride = x_shared ? 0 : (long long)rows * in;
    CUBLAS_CHECK(compute_gemm(ctx, math, T_, N_, out, rows, in, W, in, (long long)out * in, x, in,
                              x_stride, accumulate ? 1.0f : 0.0f, y, out, (long long)rows * out,
                              3));
    return TLOB_OK;
}

tlob_status linear_data_grad(const compute_ctx *ctx, tlob_math math, float *dx, const float *dy,
                             const float *W, int rows, int in, int out, int accumulate,
                             int chunks) {
    if (chunks < 1 || rows % chunks) chunks = 1;
    const int c = rows / chunks;
    /* one chunk: the plain call (zero strides), not a batch of one */
    const long long sdy = chunks > 1 ? (long long)c * out : 0, sdx = chunks > 1 ? (long long)c * in : 0;
    CUBLAS_CHECK(compute_gemm(ctx, math, N_, N_, in, c, out, W, in, 0, dy, out, sdy,
                              accumulate ? 1.0f : 0.0f, dx, in, sdx, chunks));
    return TLOB_OK;
}

size_t linear_weight_grad_partial_floats(int in, int out) {
    return (size_t)LINEAR_MAX_SPLITS * (size_t)in * (size_t)out;
}

/* Row chunks per block: the largest power of two up to LINEAR_MAX_SPLITS
 * that divides `rows` into chunks of LINEAR_MIN_SPLIT_ROWS or more (1: no
 * split, the plain call). */
static int weight_grad_splits(int rows) {
    int splits = 1;
    while (splits < LINEAR_MAX_SPLITS && rows % (2 * splits) == 0 &&
           rows / (2 * splits) >= LINEAR_MIN_SPLIT_ROWS)
        splits *= 2;
    return splits;
}

tlob_status linear_weight_grad(const compute_ctx *ctx, tlob_math math, float *dW,
                               const float *dy, const float *x, int rows, int in, int out,
                               float *partials, tlob_colsum_task *tasks, int *ntasks,
                               int always_split) {
    /* Split only where the partials stay under a quarter of what the GEMM
     * reads; otherwise the plain call, whose own split-K cuBLAS chooses. At
     * BTC temporal (fc2, fc, w0: 40-160 wide, 16384 rows, 64 splits) this
     * beat cuBLAS's split-K and its reduction kernels; at feature BTC and
     * FI-2010 (128-576 wide) 32 splits made partials larger than the inputs
     * and the graphed fwd+bwd lost 4 and 14 us (H200, docs/layer-results.md,
     * eighth pass). always_split skips the rule: for the folded projection's
     * [3E, D] gradient in FP32 mode, where cuBLAS's plain FP32 call was the
     * slower one (FI-2010: graphed fwd+bwd 9 us faster split, thirteenth
     * pass). */
    int splits = weight_grad_splits(rows);
    if (!always_split && (long long)splits * in * out * 4 > (long long)rows * (in + out))
        splits = 1;
    const int chunk = rows / splits;
    if (splits == 1) {
        CUBLAS_CHECK(compute_gemm(ctx, math, N_, T_, in, out, rows, x, in, 0, dy, out, 0, 1.0f, dW,
                                  in, 0, 1));
        return TLOB_OK;
    }
    /* chunk j of x and dy starts at row j * chunk: one stride apart */
    CUBLAS_CHECK(compute_gemm(ctx, math, N_, T_, in, out, chunk, x, in, (long long)chunk * in, dy,
                              out, (long long)chunk * out, 0.0f, partials, in,
                              (long long)out * in, splits));
    tasks[(*ntasks)++] = (tlob_colsum_task){partials, dW, 1, splits, out * in};
    return TLOB_OK;
}
