/* Attention forward and backward (attention.h). Head h of sample b is a
 * [T, D] matrix with row stride E at q + b T E + h D; its scores are the
 * [T, T] block b nh + h of P. The general path: one strided-batched GEMM per
 * head covers the samples. */
#include "attention.h"
#include "attention_kernels.h"
#include "kernels.h"
#include "status.h"

tlob_status attention_device_query(attention_device *device) {
    CUDA_CHECK(tlob_attention_fused_prepare(&device->smem_limit, &device->multiprocessors,
                                            &device->clusters));
    return TLOB_OK;
}

/* Query rows of one forward block: 64, halved (down to 16) while the grid
 * would give fewer than two blocks per multiprocessor (B = 1 inference has
 * only nh heads); never more than T rounded up to 16. */
static int forward_qrows(const attention_shape *s) {
    const int Tp = (s->T + 15) / 16 * 16;
    int qrows = TLOB_ATTN_MAX_QROWS;
    while (qrows > 16 && (qrows / 2 >= Tp ||
                          (long long)(s->T + qrows - 1) / qrows * s->batch * s->nh <
                              2LL * s->device->multiprocessors))
        qrows /= 2;
    return qrows;
}

static int fused_allowed(const attention_shape *s, tlob_math math) {
    return s->path != ATTENTION_GENERAL && math == TLOB_MATH_TF32 && s->device;
}

/* AUTO takes the fused kernels only where they measured faster than the
 * general path (H200, docs/layer-results.md, fifth pass): short sequences
 * (T = 40: 1.5x forward and backward) and small grids (B = 1: 2.75x forward;
 * FI-2010, 32 samples: 1.14x forward). At T = 128 with 128 samples the fused
 * kernels were 0.85x / 0.87x, so that case stays on cuBLAS: hence at most
 * half a block per multiprocessor (the fifth pass's bound of one let 128
 * samples through on the H200's 132 multiprocessors: sixth pass). */
static int fused_pays(const attention_shape *s) {
    return s->path >= ATTENTION_FUSED || s->T <= 64 ||
           2LL * s->batch * s->nh <= s->device->multiprocessors;
}

/* Query rows of a strip-forward block: 128 halved while the grid would
 * have fewer blocks than multiprocessors (BTC temporal: 64, 256 blocks of
 * 8 warps) or the block more rows than T rounded up to 16, or while it
 * does not fit; 0 when none fits. */
static int strip_fwd_rows(const attention_shape *s) {
    const int Tp = (s->T + 15) / 16 * 16;
    int rows = TLOB_ATTN_STRIP_FWD_MAX_ROWS;
    while (rows > 16 && (rows / 2 >= Tp ||
                         (long long)(s->T + rows - 1) / rows * s->batch * s->nh <
                             s->device->multiprocessors ||
                         tlob_attention_strip_fwd_smem(s->T, s->D, rows) >
                             (size_t)s->device->smem_limit))
        rows /= 2;
    return tlob_attention_strip_fwd_smem(s->T, s->D, rows) <= (size_t)s->device->smem_limit
               ? rows
               : 0;
}

static int rows_fwd_fits(const attention_shape *s) {
    return tlob_attention_fused_fwd_smem(s->T, s->D, forward_qrows(s)) <=
           (size_t)s->device->smem_limit;
}

/* The strip forward where the row-block kernel does not pay (fused_pays):
 * at BTC temporal it replaces the general path's three nodes (S, softmax,
 * PV: docs/layer-results.md, seventeenth pass); forced by
 * ATTENTION_FUSED_STRIP where it fits, else that path's forward is the
 * row-block one (the strip backward needs only P). */
int attention_forward_fused(const attention_shape *s, tlob_math math) {
    if (!fused_allowed(s, math)) return 0;
    const int strip = strip_fwd_rows(s) ? ATTENTION_FWD_STRIP : 0;
    if (s->path == ATTENTION_FUSED_STRIP && strip) return strip;
    if (fused_pays(s)) return rows_fwd_fits(s) ? ATTENTION_FWD_ROWS : 0;
    return strip;
}

static int split_fits(const attention_shape *s, int rows) {
    return s->device->clusters && (s->T + rows - 1) / rows <= TLOB_ATTN_SPLIT_MAX_BLOCKS &&
           tlob_attention_split_bwd_smem(s->T, s->D, rows) <= (size_t)s->device->smem_limit;
}

static int one_wave(const attention_shape *s, int rows) {
    return (long long)(s->T + rows - 1) / rows * s->batch * s->nh <= s->device->multiprocessors;
}

/* The rows of a split-backward block. AUTO: 16 (the most blocks per head,
 * doubled while a head would need more than a cluster's blocks) while the
 * grid fits one wave; else, where T <= 64, the fewest rows that hold a
 * whole head in one block (a cluster of one: no block re-reads another's
 * operands); else the first that fits. */
int attention_split_rows(const attention_shape *s) {
    if (s->split_rows) return split_fits(s, s->split_rows) ? s->split_rows : 0;
    int first = 0;
    for (int rows = 16; rows <= 64 && !first; rows *= 2)
        if (split_fits(s, rows)) first = rows;
    if (first && one_wave(s, first)) return first;
    for (int rows = first; rows && rows <= 64; rows *= 2)
        if (rows >= s->T && split_fits(s, rows)) return rows;
    return first;
}

/* AUTO takes the split backward while its blocks fit one wave (B = 1
 * inference: 8 blocks, 12.4 us against the one-block kernel's 55.6), and
 * where a head fits one split block (feature BTC, T = 40: one 64-row block
 * of 16 warps a head, 28.4 us against the one-block kernel's 8 warps' 35.6,
 * attention alone). With several blocks a head over more than a wave
 * (BTC temporal: 1024 blocks, FI-2010's 32 samples: 256) every block
 * re-reads the head's [T, D] operands, and it was 0.4-0.6x the general path
 * (docs/layer-results.md, eleventh pass). */
static int split_pays(const attention_shape *s) {
    const int rows = attention_split_rows(s);
    return rows && s->path != ATTENTION_FUSED_ONE &&
           (s->path == ATTENTION_FUSED_SPLIT || one_wave(s, rows) || rows >= s->T);
}

static int one_fits(const attention_shape *s) {
    return tlob_attention_fused_bwd_smem(s->T, s->D) <= (size_t)s->device->smem_limit;
}

static int strip_fits(const attention_shape *s) {
    return tlob_attention_strip_bwd_smem(s->T, s->D) <= (size_t)s->device->smem_limit;
}

/* The split backward where it pays (split_pays), else the strip kernel
 * where it fits, else the one-block kernel where it fits. The strip kernel
 * runs also where the other fused kernels do not pay (fused_pays): at BTC
 * temporal it took 21.0 us alone against the general path's five nodes'
 * 28.9 and the one-block kernel's 60 (H200, docs/layer-results.md,
 * sixteenth pass). */
int attention_backward_fused(const attention_shape *s, tlob_math math) {
    if (!fused_allowed(s, math)) return 0;
    if (s->path == ATTENTION_FUSED_STRIP) return strip_fits(s) ? ATTENTION_BWD_STRIP : 0;
    if (fused_pays(s) && split_pays(s)) return ATTENTION_BWD_SPLIT;
    if (s->path == ATTENTION_FUSED_ONE) return one_fits(s) ? ATTENTION_BWD_ONE : 0;
    if (s->path == ATTENTION_FUSED_SPLIT) return 0;
    if (strip_fits(s)) return ATTENTION_BWD_STRIP;
    return fused_pays(s) && one_fits(s) ? ATTENTION_BWD_ONE : 0;
}

#define N_ CUBLAS_OP_N
#define T_ CUBLAS_OP_T

tlob_status attention_forward(const compute_ctx *ctx, tlob_math math, const attention_shape *s,
                              const float *qkv, float *P, float *P_out, float *o) {
    const int T = s->T, D = s->D, nh = s->nh, E = D * nh, B = s->batch;
    const long long NE = (long long)B * T * E, TE = (long long)T * E, TT = (long long)T * T;
    const float *q = qkv, *k = qkv + NE, *v = qkv + 2 * NE;
    const int fused = attention_forward_fused(s, math);
    if (fused == ATTENTION_FWD_STRIP) {
        CUDA_CHECK(tlob_launch_attention_strip_fwd(qkv, P, P_out, o, B, T, D, nh, s->scale,
                                                   strip_fwd_rows(s), ctx->stream));
        return TLOB_OK;
    }
    if (fused == ATTENTION_FWD_ROWS) {
        CUDA_CHECK(tlob_launch_attention_fused_fwd(qkv, P, P_out, o, B, T, D, nh, s->scale,
                                                   forward_qrows(s), ctx->stream));
        return TLOB_OK;
    }
    if (s->path >= ATTENTION_FUSED)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT,
                         "fused attention forward: T=%d D=%d does not fit or math is not TF32", T, D);
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
    /* dqkv [N, 3E]: row n is dq_n | dk_n | dv_n (attention.h) */
    const int E3 = 3 * E;
    const long long TE3 = 3 * TE;
    float *dq = dqkv, *dk = dqkv + E, *dv = dqkv + 2 * E;
    const int fused = attention_backward_fused(s, math);
    if (fused == ATTENTION_BWD_STRIP) {
        CUDA_CHECK(tlob_launch_attention_strip_bwd(qkv, P, dout, dqkv, B, T, D, nh, s->scale,
                                                   ctx->stream));
        return TLOB_OK;
    }
    if (fused == ATTENTION_BWD_SPLIT) {
        CUDA_CHECK(tlob_launch_attention_split_bwd(qkv, P, dout, dqkv, B, T, D, nh, s->scale,
                                                   attention_split_rows(s), ctx->stream));
        return TLOB_OK;
    }
    if (fused == ATTENTION_BWD_ONE) {
        CUDA_CHECK(tlob_launch_attention_fused_bwd(qkv, P, dout, dqkv, B, T, D, nh, s->scale,
                                                   ctx->stream));
        return TLOB_OK;
    }
    if (s->path >= ATTENTION_FUSED)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT,
                         "fused attention backward: T=%d D=%d does not fit or math is not TF32", T, D);
    for (int h = 0; h < nh; h++) /* dP = dO_h V_h^T, FP32 (attention.h) */
        CUBLAS_CHECK(compute_gemm(ctx, TLOB_MATH_FP32, T_, N_, T, T, D, v + h * D, E, TE,
                                  dout + h * D, E, TE, 0.0f, dP + h * TT, T, nh * TT, B));
    for (int h = 0; h < nh; h++) /* dV_h = P^T dO_h */
        CUBLAS_CHECK(compute_gemm(ctx, math, N_, T_, D, T, T, dout + h * D, E, TE, P + h * TT, T,
                                  nh * TT, 0.0f, dv + h * D, E3, TE3, B));
    /* dS = scale * P (dP - rowsum(P dP)), in place */
    CUDA_CHECK(tlob_launch_softmax_bwd(dP, P, B * nh * T, T, s->scale, ctx->stream));
    for (int h = 0; h < nh; h++) {
        /* dQ_h = dS K_h; dK_h = dS^T Q_h */
        CUBLAS_CHECK(compute_gemm(ctx, math, N_, N_, D, T, T, k + h * D, E, TE, dP + h * TT, T,
                                  nh * TT, 0.0f, dq + h * D, E3, TE3, B));
        CUBLAS_CHECK(compute_gemm(ctx, math, N_, T_, D, T, T, q + h * D, E, TE, dP + h * TT, T,
                                  nh * TT, 0.0f, dk + h * D, E3, TE3, B));
    }
    return TLOB_OK;
}
