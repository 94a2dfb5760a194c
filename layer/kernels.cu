/* The layer's own kernels: bias adds, softmax, LayerNorm, GELU, residuals and
 * their backward passes. cuBLAS does the matrix products (layer/tlob.c).
 *
 * Row kernels give one warp to one row and loop over its columns with stride
 * 32, so any width works (T need not be a multiple of 4). Column sums that
 * become parameter gradients are reduced in shared memory per block and then
 * added to the global gradient with one atomicAdd per column per block. */
#include <cuda_runtime.h>

#include "async_copy.cuh"
#include "gelu.cuh"
#include "kernels.h"

#define WARP 32
#define ROW_BLOCK 256 /* threads per block for row kernels: 8 warps */
#define ROWS_PER_BLOCK (ROW_BLOCK / WARP)
#define ELEM_BLOCK 256
/* Row kernels with per-column accumulators stride over rows so that the
 * number of blocks, hence of global atomics per column, stays bounded. */
#define MAX_ACCUM_BLOCKS 528 /* four per multiprocessor on an H200 */
/* Grid-stride kernels launch at most this many blocks: with one element per
 * thread, block scheduling dominated (17920 blocks of 256 threads took 15.5 us
 * to write 18 MB on the H200; a few waves of longer-lived blocks do not). */
#define MAX_GRID_BLOCKS 1024u
#define COLSUM_ROWS 64        /* rows summed by one block of tlob_colsum_kernel: 256 halved
                               * the blocks and was 1.6-2x slower at 16384 rows (H200) */

/* ---- device helpers ------------------------------------------------------ */

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = WARP / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    for (int off = WARP / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

/* ---- kernels --------------------------------------------------------------- */

/* The small products of tlob_launch_fold: one job per product, its output
 * in FOLD_BM x FOLD_BN tiles, one block a tile; first_block is the job's
 * first block in the flat grid.
 *
 * A block holds op(A) and op(B) for up to FOLD_KC values of k at once in
 * shared memory, k-major (As[k][m], Bs[k][n]), all loaded by asynchronous
 * copies in flight together; each thread then owns FOLD_TM x 2 outputs in
 * registers (per k two 8-byte shared loads for four multiply-adds), and
 * loads everything its epilogue reads while the copies are in flight, so
 * that a block waits for memory once before its stores. 16-row tiles (two
 * rows a thread) spread each job's rows over twice the blocks of 32-row
 * ones: at BTC temporal the forward's eight jobs ran on 24 blocks of 132
 * multiprocessors, each thread's 8 outputs one chain over K
 * (docs/layer-results.md, nineteenth pass). (One output a thread on 16 x 16
 * tiles, the version before the 32-row ones, made two shared loads per
 * multiply-add and a global round trip per 16 values of k: 7.0 / 12.5 us
 * for the forward / backward folds at feature BTC, 7.7 / 14.8 at FI-2010,
 * against 4.6 / 6.4 and 5.0 / 7.0 with 32-row tiles, on an H200:
 * docs/layer-results.md, twelfth and thirteenth passes.) Each output is
 * still one chain of fused multiply-adds in k order, so the results are
 * that version's, bit for bit. */
#define FOLD_BM 16
#define FOLD_BN 32
#define FOLD_KC 160 /* k values a block holds: K <= 160 (the reference sizes) is one round */
#define FOLD_LDA (FOLD_BM + 4) /* row strides: 16-byte rows, see fold_stage for the banks */
#define FOLD_LDB (FOLD_BN + 4)
/* 8 x 16 threads of FOLD_TM x 2 outputs. On 32-row tiles, 256 threads of
 * 2 x 2 measured no faster than 128 of 4 x 2 (H200: 7.0 against 6.4 us for
 * the backward fold at feature BTC, docs/layer-results.md, thirteenth
 * pass): more warps on as many blocks, where here the blocks double. */
#define FOLD_THREADS 128
#define FOLD_TM 2
static_assert(FOLD_BM == 16 && FOLD_BN == 32 && FOLD_TM * 2 * FOLD_THREADS == FOLD_BM * FOLD_BN,
              "fold_stage maps 16 or 32 rows a k; a thread's rows are one float2");
struct fold_job_dev {
    tlob_fold_job j;
    unsigned tiles_n, first_block;
};
struct fold_jobs_dev {
    fold_job_dev job[TLOB_FOLD_MAX_JOBS];
    int n;
};

/* S[k][r] = X[(r0 + r) s_r + (k0 + k) s_k] for r < RT (16 or 32), k < kc8
 * (a multiple of 8), zero outside [R, K). Consecutive copies run along
 * whichever index has stride 1 in X. Along r: 16-byte copies of 4 rows
 * where X's rows are 16-byte aligned, else 4-byte ones, RT lanes a row of
 * S. Along k (or neither): a warp covers 8 k x 4 r, which reads four
 * 32-byte sectors and writes 32 different banks (row stride RT + 4: 20 or
 * 36, 8 k of it 8 different multiples of 4 mod 32). Each thread steps one
 * pointer: the index arithmetic of a copy is an add. */
template <int RT>
__device__ __forceinline__ void fold_stage(float (*S)[RT + 4], const float *X, int s_r, int s_k,
                                           int R, int K, int r0, int k0, int kc8) {
    const int t = (int)threadIdx.x;
    if (s_r == 1 && (s_k & 3) == 0 && ((size_t)X & 15) == 0) {
        /* copy16 of layer/async_copy.cuh with a partial source: 4 vr bytes */
        constexpr int L = RT / 4; /* lanes a k */
        const int r = 4 * (t % L), vr = min(4, max(0, R - r0 - r));
        const int step = FOLD_THREADS / L;
        const float *p = X + (size_t)(r0 + r) + (size_t)(k0 + t / L) * s_k;
        for (int k = t / L; k < kc8; k += step, p += (size_t)step * s_k) {
            const int bytes = k0 + k < K ? 4 * vr : 0;
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(
                             (unsigned)__cvta_generic_to_shared(&S[k][r])),
                         "l"(bytes ? p : X), "r"(bytes));
        }
    } else if (s_r == 1) {
        const int r = t % RT, step = FOLD_THREADS / RT;
        const bool rok = r0 + r < R;
        const float *p = X + (size_t)(r0 + r) + (size_t)(k0 + t / RT) * s_k;
        for (int k = t / RT; k < kc8; k += step, p += (size_t)step * s_k)
            copy4(&S[k][r], rok && k0 + k < K ? p : X, rok && k0 + k < K);
    } else {
        const int kk = t & 7;
        for (int r = t / 8; r < RT; r += FOLD_THREADS / 8) {
            const bool rok = r0 + r < R;
            const float *p = X + (size_t)(r0 + r) * s_r + (size_t)(k0 + kk) * s_k;
            for (int k = kk; k < kc8; k += 8, p += (size_t)8 * s_k)
                copy4(&S[k][r], rok && k0 + k < K ? p : X, rok && k0 + k < K);
        }
    }
}

/* C (+)= op(A) op(B) + u v^T + add, in FP32 fused multiply-adds in k order.
 * __grid_constant__: the job table is read in place from the parameter space
 * (an indexed by-value parameter array would be copied to local memory by
 * every thread, see tlob_colsum_kernel). */
__global__ void __launch_bounds__(FOLD_THREADS)
tlob_fold_kernel(const __grid_constant__ fold_jobs_dev jobs) {
    __shared__ __align__(16) float As[FOLD_KC][FOLD_LDA];
    __shared__ __align__(16) float Bs[FOLD_KC][FOLD_LDB];
    int k = 0;
    while (k + 1 < jobs.n && blockIdx.x >= jobs.job[k + 1].first_block) k++;
    const tlob_fold_job &J = jobs.job[k].j;
    const unsigned t = blockIdx.x - jobs.job[k].first_block;
    const int m0 = (int)(t / jobs.job[k].tiles_n) * FOLD_BM;
    const int n0 = (int)(t % jobs.job[k].tiles_n) * FOLD_BN;
    /* rows FOLD_TM tm .., columns 2 tn .. */
    const int tm = (int)threadIdx.x >> 4, tn = (int)threadIdx.x & 15;
    /* Every value the epilogue reads, loaded before the product (a store to
     * C may alias them as far as the compiler knows, which would make one
     * global round trip per output; and here they arrive while the first
     * round's copies do). No job's C is another's operand. */
    float u[FOLD_TM], v[2], ad[FOLD_TM][2], old[FOLD_TM][2];
#pragma unroll
    for (int i = 0; i < FOLD_TM; i++) {
        const int m = m0 + FOLD_TM * tm + i;
        u[i] = J.u && m < J.M ? J.u[m] : 0.0f;
#pragma unroll
        for (int j = 0; j < 2; j++) {
            const int n = n0 + 2 * tn + j;
            const bool in = m < J.M && n < J.N;
            const size_t o = (size_t)m * J.N + n;
            ad[i][j] = J.add && in ? J.add[o] : 0.0f;
            old[i][j] = J.accumulate && in ? J.C[o] : 0.0f;
        }
    }
#pragma unroll
    for (int j = 0; j < 2; j++) {
        const int n = n0 + 2 * tn + j;
        v[j] = J.u && n < J.N ? J.v[n] : 0.0f;
    }
    float acc[FOLD_TM][2];
#pragma unroll
    for (int i = 0; i < FOLD_TM; i++) acc[i][0] = acc[i][1] = 0.0f;
    for (int k0 = 0; k0 < J.K; k0 += FOLD_KC) {
        const int kc = min(FOLD_KC, J.K - k0), kc8 = (kc + 7) & ~7;
        fold_stage<FOLD_BM>(As, J.A, J.a_sm, J.a_sk, J.M, J.K, m0, k0, kc8);
        fold_stage<FOLD_BN>(Bs, J.B, J.b_sn, J.b_sk, J.N, J.K, n0, k0, kc8);
        copies_wait_all();
        __syncthreads();
#pragma unroll 8
        for (int kk = 0; kk < kc; kk++) {
            const float2 a = *reinterpret_cast<const float2 *>(&As[kk][FOLD_TM * tm]);
            const float2 b = *reinterpret_cast<const float2 *>(&Bs[kk][2 * tn]);
            acc[0][0] = fmaf(a.x, b.x, acc[0][0]), acc[0][1] = fmaf(a.x, b.y, acc[0][1]);
            acc[1][0] = fmaf(a.y, b.x, acc[1][0]), acc[1][1] = fmaf(a.y, b.y, acc[1][1]);
        }
        __syncthreads(); /* As and Bs free for the next round */
    }
#pragma unroll
    for (int i = 0; i < FOLD_TM; i++) {
        const int m = m0 + FOLD_TM * tm + i;
#pragma unroll
        for (int j = 0; j < 2; j++) {
            const int n = n0 + 2 * tn + j;
            if (m < J.M && n < J.N) {
                float s = acc[i][j];
                if (J.u) s = fmaf(u[i], v[j], s);
                if (J.add) s += ad[i][j];
                if (J.accumulate) s += old[i][j];
                J.C[(size_t)m * J.N + n] = s;
            }
        }
    }
}

__global__ void tlob_softmax_fwd_kernel(float *p, float *copy, int rows, int cols, float scale) {
    const int lane = threadIdx.x % WARP;
    for (int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP; row < rows;
         row += gridDim.x * ROWS_PER_BLOCK) {
        float *r = p + (size_t)row * cols;
        float m = -INFINITY;
        for (int c = lane; c < cols; c += WARP) m = fmaxf(m, r[c]);
        m = warp_max(m) * scale;
        float s = 0.0f;
        for (int c = lane; c < cols; c += WARP) s += expf(r[c] * scale - m);
        const float inv = 1.0f / warp_sum(s);
        float *rc = copy ? copy + (size_t)row * cols : NULL;
        for (int c = lane; c < cols; c += WARP) {
            const float v = expf(r[c] * scale - m) * inv;
            r[c] = v;
            if (rc) rc[c] = v;
        }
    }
}

__global__ void tlob_softmax_bwd_kernel(float *dp, const float *p, int rows, int cols,
                                        float scale) {
    const int lane = threadIdx.x % WARP;
    for (int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP; row < rows;
         row += gridDim.x * ROWS_PER_BLOCK) {
        float *d = dp + (size_t)row * cols;
        const float *pr = p + (size_t)row * cols;
        float s = 0.0f;
        for (int c = lane; c < cols; c += WARP) s += pr[c] * d[c];
        s = warp_sum(s);
        for (int c = lane; c < cols; c += WARP) d[c] = scale * pr[c] * (d[c] - s);
    }
}

/* Sum over the G lanes of one row group (G a power of two up to 32; the
 * groups are aligned runs of G lanes, so xor offsets below G stay inside). */
template <int G> __device__ __forceinline__ float group_sum(float v) {
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

/* The LayerNorm kernels give each row G lanes. C > 0: each lane keeps its
 * C columns (c = sub + G k, sub = its lane within the group) in registers,
 * for rows up to G C wide; a warp holds 32 / G rows at once, so a narrow row
 * (D = 40: G = 8, five columns a lane) still has the warp's loads in flight
 * for four rows, not one. C = 0 (G = 32): any width, re-reading global memory
 * (L1-cached) in each pass. Every lane of a warp runs the same number of
 * iterations (the shuffles need all 32); a group past the last row computes
 * nothing it stores. With a warp per row (G = 32), the narrow rows of BTC
 * (40 wide) left 24 of 32 lanes idle in the second column pass. */
template <int G, int C>
__global__ void tlob_ln_fwd_kernel(const float *a, const float *bias, const float *res,
                                   const float *gamma, const float *beta, int use_gelu,
                                   const float *res2, float *h, float *mean, float *rstd,
                                   float *out, int rows, int cols) {
    constexpr int RPW = WARP / G; /* rows a warp holds at once */
    const int lane = threadIdx.x % WARP, sub = lane % G;
    const int warp = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP;
    for (int row0 = warp * RPW; row0 < rows; row0 += gridDim.x * ROWS_PER_BLOCK * RPW) {
        const int row = row0 + lane / G;
        const bool live = row < rows;
        const size_t base = (size_t)(live ? row : 0) * cols;
        float v[C > 0 ? C : 1];
        float s = 0.0f;
        if (C > 0) {
#pragma unroll
            for (int k = 0; k < C; k++) {
                const int c = sub + k * G;
                v[k] = 0.0f;
                if (live && c < cols) {
                    v[k] = a[base + c] + bias[c] + (res ? res[base + c] : 0.0f);
                    h[base + c] = v[k];
                    s += v[k];
                }
            }
        } else {
            for (int c = sub; live && c < cols; c += G) {
                const float x = a[base + c] + bias[c] + (res ? res[base + c] : 0.0f);
                h[base + c] = x;
                s += x;
            }
        }
        const float m = group_sum<G>(s) / cols;
        float ss = 0.0f;
        if (C > 0) {
#pragma unroll
            for (int k = 0; k < C; k++)
                if (live && sub + k * G < cols) ss += (v[k] - m) * (v[k] - m);
        } else {
            for (int c = sub; live && c < cols; c += G) ss += (h[base + c] - m) * (h[base + c] - m);
        }
        const float rs = rsqrtf(group_sum<G>(ss) / cols + 1e-5f);
        if (!live) continue;
#pragma unroll
        for (int k = 0; k < (C > 0 ? C : 1); k++) {
            for (int c = sub + k * G; c < cols; c += (C > 0 ? cols : G)) {
                float x = ((C > 0 ? v[k] : h[base + c]) - m) * rs * gamma[c] + beta[c];
                if (use_gelu) x = gelu(x);
                if (res2) x += res2[base + c];
                out[base + c] = x;
            }
        }
        if (sub == 0) {
            mean[row] = m;
            rstd[row] = rs;
        }
    }
}

/* Gradient of the normalised value's input for one element: g is the
 * incoming gradient (after GELU if any), xhat the normalised input. */
struct ln_grad_terms {
    float g, xhat;
};

__device__ __forceinline__ ln_grad_terms ln_bwd_terms(const float *dout, const float *dout2,
                                                      int use_gelu, const float *h,
                                                      const float *gamma, const float *beta,
                                                      size_t i, int c, float m, float rs) {
    ln_grad_terms t;
    t.xhat = (h[i] - m) * rs;
    t.g = dout[i] + (dout2 ? dout2[i] : 0.0f);
    if (use_gelu) t.g *= gelu_grad(t.xhat * gamma[c] + beta[c]);
    return t;
}

/* Rows as in tlob_ln_fwd_kernel (G lanes a row). C > 0 (rows up to G C
 * wide): each lane accumulates its columns' dgamma, dbeta, dbias in
 * registers over all its rows; the block then sums its row slots through
 * shared memory (3 * (ROW_BLOCK / G) * cols floats) and adds one value per
 * column to the global gradient. C = 0 (G = 32): any width, accumulating
 * with shared-memory atomics (3 * cols floats). */
template <int G, int C>
__global__ void tlob_ln_bwd_kernel(const float *dout, const float *dout2, int use_gelu,
                                   const float *h, const float *mean, const float *rstd,
                                   const float *gamma, const float *beta, float *dh,
                                   const float *skip, float *dh_plus_skip, float *dgamma,
                                   float *dbeta, float *dbias, int rows, int cols) {
    extern __shared__ float acc[];
    constexpr int RPW = WARP / G, SLOTS = ROW_BLOCK / G;
    const int lane = threadIdx.x % WARP, sub = lane % G;
    const int slot = threadIdx.x / G; /* this lane's row slot in the block */
    const int warp = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP;
    float rg[C > 0 ? C : 1], rb[C > 0 ? C : 1], rbias[C > 0 ? C : 1];
#pragma unroll
    for (int k = 0; k < (C > 0 ? C : 1); k++) rg[k] = rb[k] = rbias[k] = 0.0f;
    if (C == 0) {
        for (int c = threadIdx.x; c < 3 * cols; c += blockDim.x) acc[c] = 0.0f;
        __syncthreads();
    }
    for (int row0 = warp * RPW; row0 < rows; row0 += gridDim.x * ROWS_PER_BLOCK * RPW) {
        const int row = row0 + lane / G;
        const bool live = row < rows;
        const size_t base = (size_t)(live ? row : 0) * cols;
        const float m = live ? mean[row] : 0.0f, rs = live ? rstd[row] : 0.0f;
        /* pass 1: the two row means the LayerNorm gradient needs; with C > 0
         * each lane keeps its columns' terms in registers for pass 2 */
        float sum_dxhat = 0.0f, sum_dxhat_xhat = 0.0f;
        ln_grad_terms kept[C > 0 ? C : 1];
#pragma unroll
        for (int k = 0; k < (C > 0 ? C : 1); k++) {
            kept[k].g = kept[k].xhat = 0.0f;
            for (int c = sub + k * G; live && c < cols; c += (C > 0 ? cols : G)) {
                const ln_grad_terms t =
                    ln_bwd_terms(dout, dout2, use_gelu, h, gamma, beta, base + c, c, m, rs);
                if (C > 0) {
                    kept[k] = t;
                    rg[k] += t.g * t.xhat;
                    rb[k] += t.g;
                } else {
                    atomicAdd(&acc[c], t.g * t.xhat);
                    atomicAdd(&acc[cols + c], t.g);
                }
                sum_dxhat += t.g * gamma[c];
                sum_dxhat_xhat += t.g * gamma[c] * t.xhat;
            }
        }
        const float mean_dxhat = group_sum<G>(sum_dxhat) / cols;
        const float mean_dxhat_xhat = group_sum<G>(sum_dxhat_xhat) / cols;
        if (!live) continue;
        /* pass 2: dh = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) */
#pragma unroll
        for (int k = 0; k < (C > 0 ? C : 1); k++) {
            for (int c = sub + k * G; c < cols; c += (C > 0 ? cols : G)) {
                const ln_grad_terms t =
                    C > 0 ? kept[k]
                          : ln_bwd_terms(dout, dout2, use_gelu, h, gamma, beta, base + c, c, m, rs);
                const float d = rs * (t.g * gamma[c] - mean_dxhat - t.xhat * mean_dxhat_xhat);
                dh[base + c] = d;
                if (dh_plus_skip) dh_plus_skip[base + c] = skip ? d + skip[base + c] : d;
                if (C > 0) rbias[k] += d;
                else atomicAdd(&acc[2 * cols + c], d);
            }
        }
    }
    if (C > 0) {
        /* per-slot partials to shared memory, then one sum per column */
#pragma unroll
        for (int k = 0; k < C; k++) {
            const int c = sub + k * G;
            if (c < cols) {
                acc[(0 * SLOTS + slot) * cols + c] = rg[k];
                acc[(1 * SLOTS + slot) * cols + c] = rb[k];
                acc[(2 * SLOTS + slot) * cols + c] = rbias[k];
            }
        }
        __syncthreads();
        for (int i = threadIdx.x; i < 3 * cols; i += blockDim.x) {
            const int which = i / cols, c = i % cols;
            float s = 0.0f;
            for (int w = 0; w < SLOTS; w++) s += acc[(which * SLOTS + w) * cols + c];
            atomicAdd(which == 0 ? &dgamma[c] : which == 1 ? &dbeta[c] : &dbias[c], s);
        }
    } else {
        __syncthreads();
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            atomicAdd(&dgamma[c], acc[c]);
            atomicAdd(&dbeta[c], acc[cols + c]);
            atomicAdd(&dbias[c], acc[2 * cols + c]);
        }
    }
}

/* Four columns a thread: cols (= 4 D) is a multiple of 4 and f, g start on
 * 16-byte boundaries, so whole rows are float4 groups; the bias (at any
 * offset in the parameter buffer) is read as scalars. One float a thread took
 * 11.6 us at B*T = 16384, 4D = 160 (H200); this, 7.0 us. */
__global__ void tlob_bias_gelu_fwd_kernel(const float *f, const float *bias, float *g, int rows,
                                          int cols) {
    const int n4 = rows * cols / 4;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        const int c = (4 * i) % cols;
        const float4 v = reinterpret_cast<const float4 *>(f)[i];
        float4 r;
        r.x = gelu(v.x + bias[c]);
        r.y = gelu(v.y + bias[c + 1]);
        r.z = gelu(v.z + bias[c + 2]);
        r.w = gelu(v.w + bias[c + 3]);
        reinterpret_cast<float4 *>(g)[i] = r;
    }
}

/* Block (x: column tile of 32, y: 8 row lanes); grid.x = column tiles,
 * grid.y = blocks striding over chunks of COLSUM_ROWS rows. */
__global__ void tlob_gelu_bwd_kernel(const float *dg, const float *f, const float *bias,
                                     float *df, float *dbias, int rows, int cols) {
    __shared__ float part[8][WARP + 1];
    const int c = blockIdx.x * WARP + threadIdx.x;
    float s = 0.0f;
    if (c < cols) {
        for (int r = blockIdx.y * COLSUM_ROWS + threadIdx.y; r < rows;
             r += gridDim.y * COLSUM_ROWS) {
            const int r1 = min(rows, r - (int)threadIdx.y + COLSUM_ROWS);
            for (int rr = r; rr < r1; rr += blockDim.y) {
                const size_t i = (size_t)rr * cols + c;
                const float d = dg[i] * gelu_grad(f[i] + bias[c]);
                df[i] = d;
                s += d;
            }
        }
    }
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        for (int y = 1; y < (int)blockDim.y; y++) s += part[y][threadIdx.x];
        atomicAdd(&dbias[c], s);
    }
}

/* One column-sum job of tlob_colsum_kernel: out[z][c] += sum over r of
 * in[z][r][c] on gx column tiles x gy row-chunk blocks x nblocks inputs. */
struct colsum_job {
    const float *in;
    float *out;
    int rows, cols, nblocks;
    unsigned gx, gy;
};

/* The job table, read in place from the parameter space (__grid_constant__:
 * a by-value parameter array indexed by a computed index would be copied to
 * local memory by every thread; with three named jobs instead, a 128-byte
 * stack frame, the combined launch had measured slower than separate ones). */
struct colsum_jobs {
    colsum_job job[TLOB_COLSUM_MAX_JOBS];
    int n;
};
#define COLSUM_JOB_BLOCKS(j) ((j).gx * (j).gy * (unsigned)(j).nblocks)

/* Up to TLOB_COLSUM_MAX_JOBS independent column sums in one launch: the flat
 * grid holds each job's gx * gy * nblocks blocks in turn, each block tiled as
 * tlob_gelu_bwd_kernel's (x: column tile of 32, y: 8 row lanes). */
__global__ void tlob_colsum_kernel(const __grid_constant__ colsum_jobs jobs) {
    __shared__ float part[8][WARP + 1];
    int k = 0;
    unsigned first = 0;
    while (k + 1 < jobs.n && blockIdx.x >= first + COLSUM_JOB_BLOCKS(jobs.job[k]))
        first += COLSUM_JOB_BLOCKS(jobs.job[k]), k++;
    const colsum_job &J = jobs.job[k];
    const unsigned b = blockIdx.x - first;
    const float *in = J.in;
    float *out = J.out;
    const int rows = J.rows, cols = J.cols;
    const unsigned gx = J.gx, gy = J.gy;
    const unsigned bx = b % gx, by = (b / gx) % gy, bz = b / (gx * gy);
    const int c = (int)bx * WARP + threadIdx.x;
    const float *src = in + (size_t)bz * rows * cols;
    float s = 0.0f;
    if (c < cols)
        for (int r = (int)by * COLSUM_ROWS + threadIdx.y; r < rows; r += (int)gy * COLSUM_ROWS) {
            const int r1 = min(rows, r - (int)threadIdx.y + COLSUM_ROWS);
            for (int rr = r; rr < r1; rr += blockDim.y) s += src[(size_t)rr * cols + c];
        }
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        for (int y = 1; y < (int)blockDim.y; y++) s += part[y][threadIdx.x];
        atomicAdd(&out[(size_t)bz * cols + c], s);
    }
}

/* ---- launchers ------------------------------------------------------------- */

static unsigned elem_grid(size_t n) {
    const size_t blocks = (n + ELEM_BLOCK - 1) / ELEM_BLOCK;
    return (unsigned)(blocks < MAX_GRID_BLOCKS ? (blocks ? blocks : 1) : MAX_GRID_BLOCKS);
}

static unsigned row_grid(int rows) {
    const unsigned blocks = (unsigned)((rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
    return blocks < MAX_GRID_BLOCKS ? (blocks ? blocks : 1) : MAX_GRID_BLOCKS;
}

/* Row-chunk blocks of a column-sum launch whose other grid dimensions hold
 * `others` blocks: one per chunk, at most MAX_GRID_BLOCKS in all. */
static unsigned colsum_grid_y(int rows, unsigned others) {
    unsigned chunks = (unsigned)((rows + COLSUM_ROWS - 1) / COLSUM_ROWS);
    const unsigned cap = MAX_GRID_BLOCKS / others ? MAX_GRID_BLOCKS / others : 1;
    if (chunks > cap) chunks = cap;
    return chunks ? chunks : 1;
}

extern "C" cudaError_t tlob_launch_fold(const tlob_fold_job *jobs, int njobs,
                                        cudaStream_t stream) {
    if (njobs < 1 || njobs > TLOB_FOLD_MAX_JOBS) return cudaErrorInvalidValue;
    fold_jobs_dev d = {};
    unsigned blocks = 0;
    for (int k = 0; k < njobs; k++) {
        const tlob_fold_job &j = jobs[k];
        if (j.M < 1 || j.N < 1 || j.K < 0 || !j.C || (j.K > 0 && (!j.A || !j.B)) ||
            (!j.u) != (!j.v))
            return cudaErrorInvalidValue;
        d.job[k].j = j;
        d.job[k].tiles_n = (unsigned)((j.N + FOLD_BN - 1) / FOLD_BN);
        d.job[k].first_block = blocks;
        blocks += (unsigned)((j.M + FOLD_BM - 1) / FOLD_BM) * d.job[k].tiles_n;
    }
    d.n = njobs;
    tlob_fold_kernel<<<blocks, FOLD_THREADS, 0, stream>>>(d);
    return cudaGetLastError();
}

/* p, copy [rows = B*nh*T, cols = T] */
extern "C" cudaError_t tlob_launch_softmax_fwd(float *p, float *copy, int rows, int cols,
                                               float scale, cudaStream_t stream) {
    tlob_softmax_fwd_kernel<<<row_grid(rows), ROW_BLOCK, 0, stream>>>(p, copy, rows, cols,
                                                                        scale);
    return cudaGetLastError();
}

/* dp, p [rows = B*nh*T, cols = T] */
extern "C" cudaError_t tlob_launch_softmax_bwd(float *dp, const float *p, int rows, int cols,
                                               float scale, cudaStream_t stream) {
    tlob_softmax_bwd_kernel<<<row_grid(rows), ROW_BLOCK, 0, stream>>>(dp, p, rows, cols,
                                                                        scale);
    return cudaGetLastError();
}

/* Register-cached row kernels handle rows up to this many columns. */
#define LN_MAX_CACHED_COLS (8 * WARP)

/* Blocks of a LayerNorm launch: one row group each of (ROW_BLOCK / G) rows,
 * capped (bounded: the backward, whose blocks each add one value per column
 * to the gradients; MAX_ACCUM_BLOCKS). */
static unsigned ln_grid(int rows, int g, int bounded) {
    const int per_block = ROW_BLOCK / g;
    unsigned blocks = (unsigned)((rows + per_block - 1) / per_block);
    if (blocks == 0) blocks = 1;
    if (bounded && blocks > MAX_ACCUM_BLOCKS) blocks = MAX_ACCUM_BLOCKS;
    if (blocks > MAX_GRID_BLOCKS) blocks = MAX_GRID_BLOCKS;
    return blocks;
}

/* Lanes a row and cached columns a lane, by width: 8 lanes for rows up to 64
 * wide (BTC's D = 40), a warp for wider ones. */
#define LN_DISPATCH(LAUNCH)                                                                \
    if (cols <= 32) LAUNCH(8, 4);                                                          \
    else if (cols <= 64) LAUNCH(8, 8);                                                     \
    else if (cols <= 4 * WARP) LAUNCH(32, 4);                                              \
    else if (cols <= LN_MAX_CACHED_COLS) LAUNCH(32, 8);                                    \
    else LAUNCH(32, 0)

/* a, res, res2, h, out [rows = B*T, cols]; bias, gamma, beta [cols]; mean, rstd [rows] */
extern "C" cudaError_t tlob_launch_ln_fwd(const float *a, const float *bias, const float *res,
                                          const float *gamma, const float *beta, int gelu,
                                          const float *res2, float *h, float *mean,
                                          float *rstd, float *out, int rows, int cols,
                                          cudaStream_t stream) {
#define LN_FWD(G, C)                                                                       \
    tlob_ln_fwd_kernel<G, C><<<ln_grid(rows, G, 0), ROW_BLOCK, 0, stream>>>(               \
        a, bias, res, gamma, beta, gelu, res2, h, mean, rstd, out, rows, cols)
    LN_DISPATCH(LN_FWD);
#undef LN_FWD
    return cudaGetLastError();
}

/* dout, dout2, h, dh, skip, dh_plus_skip [rows = B*T, cols]; mean, rstd [rows];
 * gamma, beta, dgamma, dbeta, dbias [cols] */
extern "C" cudaError_t tlob_launch_ln_bwd(const float *dout, const float *dout2, int gelu,
                                          const float *h, const float *mean,
                                          const float *rstd, const float *gamma,
                                          const float *beta, float *dh, const float *skip,
                                          float *dh_plus_skip, float *dgamma, float *dbeta,
                                          float *dbias, int rows, int cols,
                                          cudaStream_t stream) {
#define LN_BWD(G, C)                                                                       \
    tlob_ln_bwd_kernel<G, C><<<ln_grid(rows, G, 1), ROW_BLOCK,                             \
                               (C > 0 ? 3 * (ROW_BLOCK / G) : 3) * (size_t)cols * sizeof(float), \
                               stream>>>(dout, dout2, gelu, h, mean, rstd, gamma, beta, dh,  \
                                         skip, dh_plus_skip, dgamma, dbeta, dbias, rows, cols)
    LN_DISPATCH(LN_BWD);
#undef LN_BWD
    return cudaGetLastError();
}

/* f, g [rows = B*T, cols = 4D], 16-byte aligned; bias [cols] */
extern "C" cudaError_t tlob_launch_bias_gelu_fwd(const float *f, const float *bias, float *g,
                                                 int rows, int cols, cudaStream_t stream) {
    if (cols % 4 != 0 || ((size_t)f | (size_t)g) % 16 != 0) return cudaErrorInvalidValue;
    tlob_bias_gelu_fwd_kernel<<<elem_grid((size_t)rows * cols / 4), ELEM_BLOCK, 0, stream>>>(
        f, bias, g, rows, cols);
    return cudaGetLastError();
}

/* dg, f, df [rows = B*T, cols = 4D]; bias, dbias [cols] */
extern "C" cudaError_t tlob_launch_gelu_bwd(const float *dg, const float *f, const float *bias,
                                            float *df, float *dbias, int rows, int cols,
                                            cudaStream_t stream) {
    const unsigned gx = (unsigned)((cols + WARP - 1) / WARP);
    const dim3 grid(gx, colsum_grid_y(rows, gx));
    tlob_gelu_bwd_kernel<<<grid, dim3(WARP, 8), 0, stream>>>(dg, f, bias, df, dbias, rows,
                                                               cols);
    return cudaGetLastError();
}

/* task k: in [nblocks, rows, cols]; out [nblocks, cols] */
extern "C" cudaError_t tlob_launch_colsums(const tlob_colsum_task *tasks, int ntasks,
                                           cudaStream_t stream) {
    if (ntasks < 1 || ntasks > TLOB_COLSUM_MAX_JOBS) return cudaErrorInvalidValue;
    colsum_jobs jobs = {};
    unsigned blocks = 0;
    for (int k = 0; k < ntasks; k++) {
        colsum_job *j = &jobs.job[k];
        j->in = tasks[k].in, j->out = tasks[k].out;
        j->rows = tasks[k].rows, j->cols = tasks[k].cols, j->nblocks = tasks[k].nblocks;
        j->gx = (unsigned)((j->cols + WARP - 1) / WARP);
        j->gy = colsum_grid_y(j->rows, j->gx * (unsigned)j->nblocks);
        blocks += COLSUM_JOB_BLOCKS(*j);
    }
    jobs.n = ntasks;
    tlob_colsum_kernel<<<blocks, dim3(WARP, 8), 0, stream>>>(jobs);
    return cudaGetLastError();
}

