/* Attention forward and backward (attention.h). Head h of sample b is a
 * [T, D] matrix with row stride E at q + b T E + h D; its scores are the
 * [T, T] block b nh + h of P. One strided-batched GEMM per head covers the
 * samples. */
#include "attention.h"
#include "kernels.h"
#include "status.h"

#define N_ CUBLAS_OP_N
#define T_ CUBLAS_OP_T

tlob_status attention_forward(const compute_ctx *ctx, tlob_math math, const attention_shape *s,
                              const float *qkv, float *P, float *P_out, float *o) {
    const int T = s->T, D = s->D, nh = s->nh, E = D * nh, B = s->batch;
    const long long NE = (long long)B * T * E, TE = (long long)T * E, TT = (long long)T * T;
    const float *q = qkv, *k = qkv + NE, *v = qkv + 2 * NE;
    for (int h = 0; h < nh; h++) /* S = Q_h K_h^T */
        CUBLAS_CHECK(compute_gemm(ctx, math, T_, N_, T, T, D, k + h * D, E, TE, q + h * D, E, TE,
                                  0.0f, P + h * TT, T, nh * TT, B));
    CUDA_CHECK(tlob_launch_softmax_fwd(P, P_out, B * nh * T, T, s->scale, ctx->stream));
    for (int h = 0; h < nh; h++) /* O_h = P V_h */
        CUBLAS_CHECK(compute_gemm(ctx, math, N_, N_, D, T, T, v + h * D, E, TE, P + h * TT, T,
                                  nh * TT, 0.0f, o + h * D, E, TE, B));
    return TLOB_OK;
}

tlob_status attention_backward(const compute_ctx *ctx, tlob_math math, const attention_shape *s,
                               const float *qkv, const float *P, const float *dout, float *dP,
                               float *dqkv) {
    const int T = s->T, D = s->D, nh = s->nh, E = D * nh, B = s->batch;
    const long long NE = (long long)B * T * E, TE = (long long)T * E, TT = (long long)T * T;
    const float *q = qkv, *k = qkv + NE, *v = qkv + 2 * NE;
    float *dq = dqkv, *dk = dqkv + NE, *dv = dqkv + 2 * NE;
    for (int h = 0; h < nh; h++) /* dP = dO_h V_h^T, FP32 (attention.h) */
        CUBLAS_CHECK(compute_gemm(ctx, TLOB_MATH_FP32, T_, N_, T, T, D, v + h * D, E, TE,
                                  dout + h * D, E, TE, 0.0f, dP + h * TT, T, nh * TT, B));
    for (int h = 0; h < nh; h++) /* dV_h = P^T dO_h */
        CUBLAS_CHECK(compute_gemm(ctx, math, N_, T_, D, T, T, dout + h * D, E, TE, P + h * TT, T,
                                  nh * TT, 0.0f, dv + h * D, E, TE, B));
    /* dS = scale * P (dP - rowsum(P dP)), in place */
    CUDA_CHECK(tlob_launch_softmax_bwd(dP, P, B * nh * T, T, s->scale, ctx->stream));
    for (int h = 0; h < nh; h++) {
        /* dQ_h = dS K_h; dK_h = dS^T Q_h */
        CUBLAS_CHECK(compute_gemm(ctx, math, N_, N_, D, T, T, k + h * D, E, TE, dP + h * TT, T,
                                  nh * TT, 0.0f, dq + h * D, E, TE, B));
        CUBLAS_CHECK(compute_gemm(ctx, math, N_, T_, D, T, T, q + h * D, E, TE, dP + h * TT, T,
                                  nh * TT, 0.0f, dk + h * D, E, TE, B));
    }
    return TLOB_OK;
}
