/* Internal: the cuBLAS handle, its workspace and the stream one layer (or a
 * benchmark, or a test) computes on. The math mode is no part of it: every
 * launcher in linear.h and attention.h takes it per call and compute_gemm sets
 * it right before each GEMM, so no result depends on which call ran last. */
#ifndef TLOB_COMPUTE_H
#define TLOB_COMPUTE_H

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "tlob.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuBLAS's recommended workspace on Hopper. Graph capture needs a
 * user-provided workspace: cuBLAS may not allocate while a stream captures. */
#define COMPUTE_WORKSPACE_BYTES ((size_t)32 << 20)

/* The cuBLASLt descriptors and algorithm of compute_linear3_bias's last
 * shape (they depend on sizes, math mode and pointer alignments only, so a
 * layer called with one batch size builds them once). */
typedef struct {
    int valid, rows, in, out, batch, math;
    long long x_stride, bias_stride;
    unsigned align_w, align_x, align_y;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulAlgo_t algo;
} compute_bias_plan;

typedef struct {
    cublasHandle_t cublas; /* math mode: set by compute_gemm before each GEMM */
    cublasLtHandle_t lt;   /* compute_linear3_bias's */
    cudaStream_t stream;
    void *workspace;       /* COMPUTE_WORKSPACE_BYTES of device memory, shared by both
                            * handles (their calls are ordered on one stream) */
    compute_bias_plan plan;
} compute_ctx;

/* A handle bound to `stream` (0: the legacy default stream) with its own
 * workspace. TLOB_ERR_NO_DEVICE when cuBLAS cannot start. On failure nothing
 * is left allocated. */
tlob_status compute_ctx_create(compute_ctx *ctx, cudaStream_t stream);

/* Moves the handle to another stream, keeping its workspace. Host state only;
 * the caller orders the work on the old and the new stream. */
tlob_status compute_ctx_set_stream(compute_ctx *ctx, cudaStream_t stream);

/* C = op(A) op(B) + beta C in column-major cuBLAS terms, float32, in `math`
 * (TF32 tensor-op or strict FP32), `batch` times with the given element
 * strides (batch 1 and all strides 0: one plain GEMM). */
cublasStatus_t compute_gemm(const compute_ctx *ctx, tlob_math math, cublasOperation_t op_a,
                            cublasOperation_t op_b, int m, int n, int k, const float *A, int lda,
                            long long stride_a, const float *B, int ldb, long long stride_b,
                            float beta, float *C, int ldc, long long stride_c, int batch);

/* Three Linears of one weight block with their biases added by cuBLASLt's
 * bias epilogue (no separate bias pass, no read of y): y [batch][rows, out],
 * block b = x_b W_b^T + bias_b, with W [batch][out, in], bias [batch]
 * [bias_stride], x_b at x + b x_stride (0: one x for all). TF32 tensor-op or
 * strict FP32 compute by `math`. The descriptors and the algorithm of the
 * last shape are kept in ctx->plan (host work only when the shape or an
 * alignment changes; capturable). CUBLAS_STATUS_NOT_SUPPORTED when cuBLASLt
 * offers no algorithm. */
cublasStatus_t compute_linear3_bias(compute_ctx *ctx, tlob_math math, float *y, const float *x,
                                    long long x_stride, const float *W, const float *bias,
                                    long long bias_stride, int rows, int in, int out, int batch);

/* Frees what exists; reports nothing (teardown). */
void compute_ctx_destroy(compute_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_COMPUTE_H */
