/* The cuBLAS handle, workspace and stream of compute.h. */
#include <string.h>

#include "compute.h"
#include "status.h"

tlob_status compute_ctx_create(compute_ctx *ctx, cudaStream_t stream) {
    if (!ctx) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "compute_ctx_create: null context");
    memset(ctx, 0, sizeof *ctx);
    if (cublasCreate(&ctx->cublas) != CUBLAS_STATUS_SUCCESS) {
        ctx->cublas = NULL;
        return TLOB_FAIL(TLOB_ERR_NO_DEVICE, "cublasCreate failed");
    }
    const cudaError_t e = cudaMalloc(&ctx->workspace, COMPUTE_WORKSPACE_BYTES);
    if (e != cudaSuccess) {
        ctx->workspace = NULL;
        compute_ctx_destroy(ctx);
        return TLOB_FAIL(TLOB_ERR_CUDA, "cudaMalloc of the %zu-byte cuBLAS workspace: %s",
                         (size_t)COMPUTE_WORKSPACE_BYTES, cudaGetErrorString(e));
    }
    const tlob_status st = compute_ctx_set_stream(ctx, stream);
    if (st != TLOB_OK) compute_ctx_destroy(ctx);
    return st;
}

tlob_status compute_ctx_set_stream(compute_ctx *ctx, cudaStream_t stream) {
    /* The stream first: cublasSetStream resets the workspace to cuBLAS's pool. */
    CUBLAS_CHECK(cublasSetStream(ctx->cublas, stream));
    CUBLAS_CHECK(cublasSetWorkspace(ctx->cublas, ctx->workspace, COMPUTE_WORKSPACE_BYTES));
    ctx->stream = stream;
    return TLOB_OK;
}

void compute_ctx_destroy(compute_ctx *ctx) {
    if (!ctx) return;
    if (ctx->cublas) (void)cublasDestroy(ctx->cublas);
    if (ctx->workspace) (void)cudaFree(ctx->workspace);
    memset(ctx, 0, sizeof *ctx);
}

cublasStatus_t compute_gemm(const compute_ctx *ctx, tlob_math math, cublasOperation_t op_a,
                            cublasOperation_t op_b, int m, int n, int k, const float *A, int lda,
                            long long stride_a, const float *B, int ldb, long long stride_b,
                            float beta, float *C, int ldc, long long stride_c, int batch) {
    static const float one = 1.0f;
    /* The compute type carries the math mode, so the handle's own mode
     * (CUBLAS_DEFAULT_MATH, never changed) plays no part. */
    const cublasComputeType_t type =
        math == TLOB_MATH_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    if (batch == 1)
        return cublasGemmEx(ctx->cublas, op_a, op_b, m, n, k, &one, A, CUDA_R_32F, lda, B,
                            CUDA_R_32F, ldb, &beta, C, CUDA_R_32F, ldc, type,
                            CUBLAS_GEMM_DEFAULT);
    return cublasGemmStridedBatchedEx(ctx->cublas, op_a, op_b, m, n, k, &one, A, CUDA_R_32F, lda,
                                      stride_a, B, CUDA_R_32F, ldb, stride_b, &beta, C,
                                      CUDA_R_32F, ldc, stride_c, batch, type, CUBLAS_GEMM_DEFAULT);
}
