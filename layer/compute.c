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
    /* The mode is set right before each GEMM, from the caller's argument, so
     * no GEMM depends on which call ran before it. (cublasGemmEx with the
     * mode as compute type does the same without touching the handle, but
     * its kernel choice made the graphed layer 3-5 % slower on an H200:
     * docs/layer-results.md.) Host state only, capturable. */
    const cublasStatus_t st = cublasSetMathMode(
        ctx->cublas, math == TLOB_MATH_TF32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    if (batch == 1 && !stride_a && !stride_b && !stride_c)
        return cublasSgemm(ctx->cublas, op_a, op_b, m, n, k, &one, A, lda, B, ldb, &beta, C, ldc);
    return cublasSgemmStridedBatched(ctx->cublas, op_a, op_b, m, n, k, &one, A, lda, stride_a, B,
                                     ldb, stride_b, &beta, C, ldc, stride_c, batch);
}
