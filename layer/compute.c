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
    if (cublasLtCreate(&ctx->lt) != CUBLAS_STATUS_SUCCESS) {
        ctx->lt = NULL;
        compute_ctx_destroy(ctx);
        return TLOB_FAIL(TLOB_ERR_NO_DEVICE, "cublasLtCreate failed");
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

static void plan_free(compute_bias_plan *p) {
    if (p->op) (void)cublasLtMatmulDescDestroy(p->op);
    if (p->a) (void)cublasLtMatrixLayoutDestroy(p->a);
    if (p->b) (void)cublasLtMatrixLayoutDestroy(p->b);
    if (p->c) (void)cublasLtMatrixLayoutDestroy(p->c);
    memset(p, 0, sizeof *p);
}

void compute_ctx_destroy(compute_ctx *ctx) {
    if (!ctx) return;
    plan_free(&ctx->plan);
    if (ctx->lt) (void)cublasLtDestroy(ctx->lt);
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

/* The largest power of two up to 256 that divides every one of an operand's
 * batch addresses (its base and its stride in bytes): cuBLASLt assumes 256
 * unless told, and picks only algorithms that work with what it is told. */
static unsigned alignment(const void *p, long long stride_bytes) {
    unsigned long long v = (unsigned long long)(size_t)p | (unsigned long long)stride_bytes | 256u;
    return (unsigned)(v & (~v + 1));
}

#define LT_TRY(call)                                                                       \
    do {                                                                                   \
        const cublasStatus_t s_ = (call);                                                  \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
            plan_free(p);                                                                  \
            return s_;                                                                     \
        }                                                                                  \
    } while (0)

/* Builds ctx->plan for the arguments of compute_linear3_bias (the bias
 * pointer is set per call). On failure the plan is left invalid. */
static cublasStatus_t plan_build(compute_ctx *ctx, compute_bias_plan *p, tlob_math math, int rows,
                                 int in, int out, int batch, long long x_stride,
                                 long long bias_stride, unsigned aw, unsigned ax, unsigned ay) {
    plan_free(p);
    const cublasOperation_t opa = CUBLAS_OP_T, opb = CUBLAS_OP_N;
    const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    const int32_t nb = batch;
    const long long sw = (long long)out * in, sy = (long long)rows * out;
    /* column-major: y^T [out, rows] = (W^T [in, out])^T x^T [in, rows] */
    LT_TRY(cublasLtMatmulDescCreate(&p->op, math == TLOB_MATH_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                   : CUBLAS_COMPUTE_32F,
                                    CUDA_R_32F));
    LT_TRY(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa));
    LT_TRY(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb));
    LT_TRY(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    LT_TRY(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
                                          &bias_stride, sizeof bias_stride));
    LT_TRY(cublasLtMatrixLayoutCreate(&p->a, CUDA_R_32F, (uint64_t)in, (uint64_t)out, in));
    LT_TRY(cublasLtMatrixLayoutCreate(&p->b, CUDA_R_32F, (uint64_t)in, (uint64_t)rows, in));
    LT_TRY(cublasLtMatrixLayoutCreate(&p->c, CUDA_R_32F, (uint64_t)out, (uint64_t)rows, out));
    const struct { cublasLtMatrixLayout_t l; long long stride; } lay[3] = {
        {p->a, sw}, {p->b, x_stride}, {p->c, sy}};
    for (int i = 0; i < 3; i++) {
        LT_TRY(cublasLtMatrixLayoutSetAttribute(lay[i].l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &nb,
                                                sizeof nb));
        LT_TRY(cublasLtMatrixLayoutSetAttribute(lay[i].l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                &lay[i].stride, sizeof lay[i].stride));
    }
    cublasLtMatmulPreference_t pref;
    LT_TRY(cublasLtMatmulPreferenceCreate(&pref));
    const size_t ws = COMPUTE_WORKSPACE_BYTES;
    const uint32_t al[4] = {aw, ax, ay, ay};
    cublasStatus_t st =
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                             sizeof ws);
    const cublasLtMatmulPreferenceAttributes_t which[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4 && st == CUBLAS_STATUS_SUCCESS; i++)
        st = cublasLtMatmulPreferenceSetAttribute(pref, which[i], &al[i], sizeof al[i]);
    cublasLtMatmulHeuristicResult_t res;
    int found = 0;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(ctx->lt, p->op, p->a, p->b, p->c, p->c, pref, 1, &res,
                                            &found);
    (void)cublasLtMatmulPreferenceDestroy(pref);
    if (st == CUBLAS_STATUS_SUCCESS && found < 1) st = CUBLAS_STATUS_NOT_SUPPORTED;
    LT_TRY(st);
    p->algo = res.algo;
    p->rows = rows, p->in = in, p->out = out, p->batch = batch, p->math = (int)math;
    p->x_stride = x_stride, p->bias_stride = bias_stride, p->align_w = aw, p->align_x = ax, p->align_y = ay;
    p->valid = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t compute_linear3_bias(compute_ctx *ctx, tlob_math math, float *y, const float *x,
                                    long long x_stride, const float *W, const float *bias,
                                    long long bias_stride, int rows, int in, int out, int batch) {
    compute_bias_plan *p = &ctx->plan;
    const unsigned aw = alignment(W, 4LL * out * in), ax = alignment(x, 4 * x_stride),
                   ay = alignment(y, 4LL * rows * out);
    if (!p->valid || p->rows != rows || p->in != in || p->out != out || p->batch != batch ||
        p->math != (int)math || p->x_stride != x_stride || p->bias_stride != bias_stride ||
        p->align_w != aw ||
        p->align_x != ax || p->align_y != ay) {
        const cublasStatus_t st =
            plan_build(ctx, p, math, rows, in, out, batch, x_stride, bias_stride, aw, ax, ay);
        if (st != CUBLAS_STATUS_SUCCESS) return st;
    }
    LT_TRY(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                          sizeof bias));
    static const float one = 1.0f, zero = 0.0f;
    return cublasLtMatmul(ctx->lt, p->op, &one, W, p->a, x, p->b, &zero, y, p->c, y, p->c, &p->algo,
                          ctx->workspace, COMPUTE_WORKSPACE_BYTES, ctx->stream);
}
