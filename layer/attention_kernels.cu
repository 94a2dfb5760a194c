/* Fused attention on the tensor cores (attention_kernels.h).
 *
 * Layout in shared memory: every matrix is stored row-major with its width
 * rounded up to a multiple of 16 (the wmma tile) plus ATT_PAD floats, so rows
 * start on different banks; padding rows and columns hold zeros, so the
 * products over padded widths equal those over the real ones. wmma needs
 * 32-byte aligned tile pointers: tiles start at multiples of 8 columns and of
 * 8 rows, which any row stride keeps aligned, and the regions start at
 * multiples of 8 floats.
 *
 * The second pass (docs/layer-results.md) fused attention on the CUDA cores
 * in FP32 and it was slower than cuBLAS's tensor-core products; these kernels
 * use mma.sync through wmma (TF32 inputs, FP32 accumulation). */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <mma.h>

#include "async_copy.cuh"
#include "attention_kernels.h"
#include "mma_tf32.cuh"

using namespace nvcuda;

#define ATT_WARPS 8
#define ATT_THREADS (ATT_WARPS * 32)
#define ATT_PAD 4
#define ATT_STAGE_LD (16 + ATT_PAD) /* one warp's 16 x 16 output staging tile */
#define ATT_STAGE_FLOATS (ATT_WARPS * 16 * ATT_STAGE_LD)
/* The split backward's blocks have twice the warps: at B = 1 its 8 blocks
 * are all the work there is, and 16 warps take a block's 11 + 6 tiles
 * (T = 128, D = 40) in one round each. */
#define SPLIT_WARPS 16
#define SPLIT_THREADS (SPLIT_WARPS * 32)
#define SPLIT_STAGE_FLOATS (SPLIT_WARPS * 16 * ATT_STAGE_LD)

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> frag_a_row;
typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major> frag_a_col;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> frag_b_row;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> frag_b_col;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> frag_acc;

static __host__ __device__ __forceinline__ int round16(int n) { return (n + 15) / 16 * 16; }

__device__ __forceinline__ float att_warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__device__ __forceinline__ float att_warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

template <typename Frag> __device__ __forceinline__ void round_tf32(Frag &f) {
#pragma unroll
    for (int i = 0; i < f.num_elements; i++) f.x[i] = wmma::__float_to_tf32(f.x[i]);
}

/* hi = tf32(f), lo = tf32(f - hi): f = hi + lo to about 2^-22 relative. */
template <typename Frag> __device__ __forceinline__ void split_tf32(const Frag &f, Frag &hi, Frag &lo) {
#pragma unroll
    for (int i = 0; i < f.num_elements; i++) {
        hi.x[i] = wmma::__float_to_tf32(f.x[i]);
        lo.x[i] = wmma::__float_to_tf32(f.x[i] - hi.x[i]);
    }
}

/* acc += A_k B_k for one k-step (split: three products of the split
 * operands, lo*hi + hi*lo + hi*hi, small terms first). */
template <typename FA, typename FB, bool split>
__device__ __forceinline__ void mma_step(frag_acc &acc, const float *a, int lda, const float *b,
                                         int ldb) {
    FA fa;
    FB fb;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    if (split) {
        FA ahi, alo;
        FB bhi, blo;
        split_tf32(fa, ahi, alo);
        split_tf32(fb, bhi, blo);
        wmma::mma_sync(acc, alo, bhi, acc);
        wmma::mma_sync(acc, ahi, blo, acc);
        wmma::mma_sync(acc, ahi, bhi, acc);
    } else {
        round_tf32(fa);
        round_tf32(fb);
        wmma::mma_sync(acc, fa, fb, acc);
    }
}

/* acc = sum over `steps` k-steps of 8 of A_k B_k; A's tile moves a_step
 * floats and B's b_step floats per k-step. Even and odd k-steps go to two
 * accumulators, summed at the end: two independent chains of mma in
 * flight instead of one. */
template <typename FA, typename FB, bool split>
__device__ __forceinline__ void mma_tile(frag_acc &acc, const float *a, int lda, int a_step,
                                         const float *b, int ldb, int b_step, int steps) {
    frag_acc odd;
    wmma::fill_fragment(acc, 0.0f);
    wmma::fill_fragment(odd, 0.0f);
    int k = 0;
    for (; k + 1 < steps; k += 2) {
        mma_step<FA, FB, split>(acc, a + (size_t)k * a_step, lda, b + (size_t)k * b_step, ldb);
        mma_step<FA, FB, split>(odd, a + (size_t)(k + 1) * a_step, lda,
                                b + (size_t)(k + 1) * b_step, ldb);
    }
    if (k < steps)
        mma_step<FA, FB, split>(acc, a + (size_t)k * a_step, lda, b + (size_t)k * b_step, ldb);
#pragma unroll
    for (int i = 0; i < acc.num_elements; i++) acc.x[i] += odd.x[i];
}

/* dst [rows_p][ld] = src [rows][cols] (row stride lds), zeros elsewhere,
 * as asynchronous copies (cp.async) committed as one group: every thread
 * has all its loads in flight at once. (Plain loads, each waited for before
 * the next, left the first version latency-bound: 73 us forward, 121 us
 * backward at BTC temporal on an H200, against 23 / 41 us for cuBLAS.) The
 * caller waits with copies_wait() and a barrier. Whole 16-byte groups when
 * the rows allow (cols and lds multiples of 4, src 16-byte aligned). */
__device__ __forceinline__ void load_padded_async(float *dst, int ld, const float *src, int lds,
                                                  int rows, int cols, int rows_p, int cols_p) {
    if ((cols & 3) == 0 && (lds & 3) == 0 && ((size_t)src & 15) == 0) {
        const int groups = cols_p / 4;
        for (int i = threadIdx.x; i < rows_p * groups; i += blockDim.x) {
            const int r = i / groups, c = 4 * (i - r * groups);
            float *d = dst + r * ld + c;
            if (r < rows && c < cols) __pipeline_memcpy_async(d, src + (size_t)r * lds + c, 16);
            else *reinterpret_cast<float4 *>(d) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
    } else {
        for (int i = threadIdx.x; i < rows_p * cols_p; i += blockDim.x) {
            const int r = i / cols_p, c = i - r * cols_p;
            if (r < rows && c < cols)
                __pipeline_memcpy_async(dst + r * ld + c, src + (size_t)r * lds + c, sizeof(float));
            else dst[r * ld + c] = 0.0f;
        }
    }
    __pipeline_commit();
}

__device__ __forceinline__ void copies_wait() { __pipeline_wait_prior(0); }

/* One warp: its accumulator tile through its staging tile to dst rows
 * [0, 16) x cols [0, 16), keeping rows < rows and columns < cols. */
__device__ __forceinline__ void store_tile_guarded(const frag_acc &acc, float *stage, float *dst,
                                                   int ldd, int rows, int cols) {
    const int lane = threadIdx.x % 32;
    wmma::store_matrix_sync(stage, acc, ATT_STAGE_LD, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32) {
        const int r = e / 16, c = e % 16;
        if (r < rows && c < cols) dst[(size_t)r * ldd + c] = stage[r * ATT_STAGE_LD + c];
    }
    __syncwarp();
}

/* dS = scale P (dP - rowsum(P dP)) in place of dP, for the rows [warp,
 * rows) of a block, one warp a row in steps of `warps`: P row r at P + r
 * ldp, dP row r at dP + r ldp, T real columns of Tp (padding columns of P
 * are zero, so they give dS = 0). Both backward kernels run it, so their dS
 * rows are computed alike: the GPU suite finds them bitwise equal. */
__device__ __forceinline__ void softmax_bwd_rows(const float *P, float *dP, int ldp, int rows,
                                                 int T, int Tp, float scale, int warps) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int r = warp; r < rows; r += warps) {
        const float *pr = P + r * ldp;
        float *dr = dP + r * ldp;
        float s = 0.0f;
        for (int c = lane; c < T; c += 32) s += pr[c] * dr[c];
        s = att_warp_sum(s);
        for (int c = lane; c < Tp; c += 32) dr[c] = scale * pr[c] * (dr[c] - s);
    }
}

/* Shared memory: Q [qrows][Dp+PAD] | K, then V [Tp][Dp+PAD] | S [qrows][Tp+PAD] | staging. */
__global__ void __launch_bounds__(ATT_THREADS)
tlob_attention_fused_fwd_kernel(const float *qkv, float *P, float *P_copy, float *o, int B, int T,
                                int D, int nh, float scale, int qrows) {
    extern __shared__ __align__(128) float sm[];
    const int Dp = round16(D), Tp = round16(T), ldd = Dp + ATT_PAD, ldt = Tp + ATT_PAD;
    float *Qs = sm, *KVs = Qs + qrows * ldd, *Ss = KVs + Tp * ldd, *stage_all = Ss + qrows * ldt;
    const int b = blockIdx.z, h = blockIdx.y, r0 = blockIdx.x * qrows;
    const int E = D * nh, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const size_t NE = (size_t)B * T * E;
    const float *q = qkv + (size_t)b * T * E + h * D, *k = q + NE, *v = q + 2 * NE;
    float *stage = stage_all + warp * 16 * ATT_STAGE_LD;
    const int rows_here = T - r0 < qrows ? T - r0 : qrows;

    load_padded_async(Qs, ldd, q + (size_t)r0 * E, E, rows_here, D, qrows, Dp);
    load_padded_async(KVs, ldd, k, E, T, D, Tp, Dp);
    copies_wait();
    __syncthreads();
    /* S = Q K^T: A = Q row-major, B = K^T (K row-major read as column-major) */
    const int mt = qrows / 16, nt = Tp / 16, dt = Dp / 16;
    for (int t = warp; t < mt * nt; t += ATT_WARPS) {
        const int i = t / nt, j = t % nt;
        frag_acc acc;
        mma_tile<frag_a_row, frag_b_col, false>(acc, Qs + i * 16 * ldd, ldd, 8,
                                                KVs + j * 16 * ldd, ldd, 8, Dp / 8);
        wmma::store_matrix_sync(Ss + i * 16 * ldt + j * 16, acc, ldt, wmma::mem_row_major);
    }
    __syncthreads();
    /* K is spent: V takes its place while the rows go through the softmax */
    load_padded_async(KVs, ldd, v, E, T, D, Tp, Dp);
    float *Pbh = P + (size_t)(b * nh + h) * T * T, *Cbh = P_copy ? P_copy + (size_t)(b * nh + h) * T * T : NULL;
    for (int r = warp; r < qrows; r += ATT_WARPS) {
        float *row = Ss + r * ldt;
        const int gr = r0 + r;
        float m = -INFINITY;
        for (int c = lane; c < T; c += 32) m = fmaxf(m, row[c]);
        m = att_warp_max(m) * scale;
        float s = 0.0f;
        for (int c = lane; c < T; c += 32) s += expf(row[c] * scale - m);
        const float inv = 1.0f / att_warp_sum(s);
        for (int c = lane; c < Tp; c += 32) {
            const float p = c < T ? expf(row[c] * scale - m) * inv : 0.0f;
            row[c] = p;
            if (gr < T && c < T) {
                Pbh[(size_t)gr * T + c] = p;
                if (Cbh) Cbh[(size_t)gr * T + c] = p;
            }
        }
    }
    copies_wait();
    __syncthreads();
    /* O = P V: A = P row-major, B = V row-major */
    float *ob = o + (size_t)b * T * E + h * D;
    for (int t = warp; t < mt * dt; t += ATT_WARPS) {
        const int i = t / dt, j = t % dt;
        frag_acc acc;
        mma_tile<frag_a_row, frag_b_row, false>(acc, Ss + i * 16 * ldt, ldt, 8, KVs + j * 16, ldd,
                                                8 * ldd, Tp / 8);
        store_tile_guarded(acc, stage, ob + (size_t)(r0 + i * 16) * E + j * 16, E,
                           rows_here - i * 16, D - j * 16);
    }
}

/* Shared memory: P [Tp][Tp+PAD] | dP, then dS [Tp][Tp+PAD] | dO, then Q
 * [Tp][Dp+PAD] | V, then K [Tp][Dp+PAD] | staging. */
__global__ void __launch_bounds__(ATT_THREADS)
tlob_attention_fused_bwd_kernel(const float *qkv, const float *P, const float *dout, float *dqkv,
                                int B, int T, int D, int nh, float scale) {
    extern __shared__ __align__(128) float sm[];
    const int Dp = round16(D), Tp = round16(T), ldd = Dp + ATT_PAD, ldt = Tp + ATT_PAD;
    float *Ps = sm, *dPs = Ps + Tp * ldt, *As = dPs + Tp * ldt, *Bs = As + Tp * ldd,
          *stage_all = Bs + Tp * ldd;
    const int b = blockIdx.y, h = blockIdx.x;
    const int E = D * nh, E3 = 3 * E, warp = threadIdx.x / 32;
    const size_t NE = (size_t)B * T * E, head = (size_t)b * T * E + h * D;
    const float *q = qkv + head, *k = q + NE, *v = q + 2 * NE, *dob = dout + head;
    float *dq = dqkv + (size_t)b * T * E3 + h * D, *dk = dq + E, *dv = dq + 2 * E;
    float *stage = stage_all + warp * 16 * ATT_STAGE_LD;

    load_padded_async(Ps, ldt, P + (size_t)(b * nh + h) * T * T, T, T, T, Tp, Tp);
    load_padded_async(As, ldd, dob, E, T, D, Tp, Dp);
    load_padded_async(Bs, ldd, v, E, T, D, Tp, Dp);
    copies_wait();
    __syncthreads();
    const int nt = Tp / 16, dt = Dp / 16;
    /* dV = P^T dO (A = P read column-major), and dP = dO V^T (split TF32) */
    for (int t = warp; t < nt * dt + nt * nt; t += ATT_WARPS) {
        frag_acc acc;
        if (t < nt * dt) {
            const int i = t / dt, j = t % dt;
            mma_tile<frag_a_col, frag_b_row, false>(acc, Ps + i * 16, ldt, 8 * ldt, As + j * 16,
                                                    ldd, 8 * ldd, Tp / 8);
            store_tile_guarded(acc, stage, dv + (size_t)i * 16 * E3 + j * 16, E3, T - i * 16,
                               D - j * 16);
        } else {
            const int i = (t - nt * dt) / nt, j = (t - nt * dt) % nt;
            mma_tile<frag_a_row, frag_b_col, true>(acc, As + i * 16 * ldd, ldd, 8,
                                                   Bs + j * 16 * ldd, ldd, 8, Dp / 8);
            wmma::store_matrix_sync(dPs + i * 16 * ldt + j * 16, acc, ldt, wmma::mem_row_major);
        }
    }
    __syncthreads();
    /* dO and V are spent: Q and K take their places while dS = scale P (dP -
     * rowsum(P dP)) replaces dP (padding rows and columns of P are zero, so
     * they give dS = 0) */
    load_padded_async(As, ldd, q, E, T, D, Tp, Dp);
    load_padded_async(Bs, ldd, k, E, T, D, Tp, Dp);
    softmax_bwd_rows(Ps, dPs, ldt, Tp, T, Tp, scale, ATT_WARPS);
    copies_wait();
    __syncthreads();
    /* dQ = dS K (B = K row-major); dK = dS^T Q (A = dS read column-major) */
    for (int t = warp; t < 2 * nt * dt; t += ATT_WARPS) {
        const int which = t / (nt * dt), i = (t % (nt * dt)) / dt, j = t % dt;
        frag_acc acc;
        if (which == 0)
            mma_tile<frag_a_row, frag_b_row, false>(acc, dPs + i * 16 * ldt, ldt, 8, Bs + j * 16,
                                                    ldd, 8 * ldd, Tp / 8);
        else
            mma_tile<frag_a_col, frag_b_row, false>(acc, dPs + i * 16, ldt, 8 * ldt, As + j * 16,
                                                    ldd, 8 * ldd, Tp / 8);
        store_tile_guarded(acc, stage, (which ? dk : dq) + (size_t)i * 16 * E3 + j * 16, E3,
                           T - i * 16, D - j * 16);
    }
}

/* The backward split over a thread-block cluster (attention_kernels.h):
 * block c of a (sample, head) owns query rows and key rows R = [rb c, rb c
 * + rb), rb = 16, 32 or 64 (mt = its 16-row tiles that hold rows < T).
 * dP_R = dO_R V^T and dS_R need only its own rows of P; dV_R = P[:, R]^T dO
 * and dQ_R = dS_R K read whole [T, D] operands; dK_R = dS[:, R]^T Q needs a
 * column block of dS from every block of the cluster, read out of their
 * shared memory (distributed shared memory) after the cluster's barrier.
 * At T = 128, D = 40 with rb = 16 the one-block kernel's 88 + 48 tiles on 8
 * warps become 11 + 6 a block on 16 warps. Shared memory: Prow [rb][Tp+PAD] | dSrow
 * (dP, then dS) [rb][Tp+PAD] | Pcol, then dScol [Tp][rb+PAD] | A (dO, then
 * Q) [Tp][Dp+PAD] | Bm (V, then K) [Tp][Dp+PAD] | staging. */
__global__ void __launch_bounds__(SPLIT_THREADS)
tlob_attention_split_bwd_kernel(const float *qkv, const float *P, const float *dout, float *dqkv,
                                int B, int T, int D, int nh, float scale, int rb) {
    extern __shared__ __align__(128) float sm[];
    const int Dp = round16(D), Tp = round16(T), ldd = Dp + ATT_PAD, ldt = Tp + ATT_PAD,
              ldc = rb + ATT_PAD;
    float *Prow = sm, *dSrow = Prow + rb * ldt, *Pcol = dSrow + rb * ldt, *As = Pcol + Tp * ldc,
          *Bs = As + Tp * ldd, *stage_all = Bs + Tp * ldd;
    const int c = blockIdx.x, h = blockIdx.y, b = blockIdx.z, r0 = rb * c;
    const int rows = T - r0 < rb ? T - r0 : rb, mt = (rows + 15) / 16, blocks = gridDim.x;
    const int E = D * nh, E3 = 3 * E, warp = threadIdx.x / 32;
    const size_t NE = (size_t)B * T * E, head = (size_t)b * T * E + h * D;
    const float *q = qkv + head, *k = q + NE, *v = q + 2 * NE, *dob = dout + head;
    const float *Pbh = P + (size_t)(b * nh + h) * T * T;
    float *dq = dqkv + ((size_t)b * T + r0) * E3 + h * D, *dk = dq + E, *dv = dq + 2 * E;
    float *stage = stage_all + warp * 16 * ATT_STAGE_LD;

    load_padded_async(Prow, ldt, Pbh + (size_t)r0 * T, T, rows, T, 16 * mt, Tp);
    load_padded_async(Pcol, ldc, Pbh + r0, T, T, rows, Tp, 16 * mt);
    load_padded_async(As, ldd, dob, E, T, D, Tp, Dp);
    load_padded_async(Bs, ldd, v, E, T, D, Tp, Dp);
    copies_wait();
    __syncthreads();
    const int nt = Tp / 16, dt = Dp / 16;
    /* dV_R = P[:, R]^T dO (A = Pcol read column-major); dP_R = dO_R V^T
     * (split TF32, as the one-block kernel) */
    for (int t = warp; t < mt * (dt + nt); t += SPLIT_WARPS) {
        frag_acc acc;
        if (t < mt * dt) {
            const int i = t / dt, j = t % dt;
            mma_tile<frag_a_col, frag_b_row, false>(acc, Pcol + i * 16, ldc, 8 * ldc,
                                                    As + j * 16, ldd, 8 * ldd, Tp / 8);
            store_tile_guarded(acc, stage, dv + (size_t)i * 16 * E3 + j * 16, E3, rows - i * 16,
                               D - j * 16);
        } else {
            const int i = (t - mt * dt) / nt, j = (t - mt * dt) % nt;
            mma_tile<frag_a_row, frag_b_col, true>(acc, As + (r0 + i * 16) * ldd, ldd, 8,
                                                   Bs + j * 16 * ldd, ldd, 8, Dp / 8);
            wmma::store_matrix_sync(dSrow + i * 16 * ldt + j * 16, acc, ldt, wmma::mem_row_major);
        }
    }
    __syncthreads();
    /* dO, V and P's column block are spent: Q and K load while dS_R =
     * scale P_R (dP_R - rowsum(P_R dP_R)) replaces dP_R (padding rows and
     * columns of P are zero, so they give dS = 0) */
    load_padded_async(As, ldd, q, E, T, D, Tp, Dp);
    load_padded_async(Bs, ldd, k, E, T, D, Tp, Dp);
    softmax_bwd_rows(Prow, dSrow, ldt, 16 * mt, T, Tp, scale, SPLIT_WARPS);
    copies_wait();
    /* release and acquire at cluster scope: every block's dS rows are
     * visible to the whole cluster after it */
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    cluster.sync();
    /* dScol [Tp][16 mt] = dS[:, R]: rows [rb i, rb i + rb) from block i
     * (those below Tp: a block's rows past its last tile are not written) */
    const int groups = 4 * mt;
    for (int e = threadIdx.x; e < blocks * rb * groups; e += SPLIT_THREADS) {
        const int i = e / (rb * groups), r = (e / groups) % rb, c4 = 4 * (e % groups);
        if (rb * i + r >= Tp) continue;
        const float *remote = cluster.map_shared_rank(dSrow, i);
        *reinterpret_cast<float4 *>(Pcol + (rb * i + r) * ldc + c4) =
            *reinterpret_cast<const float4 *>(remote + r * ldt + r0 + c4);
    }
    /* no block may leave while others read its dS rows: this arrival is
     * waited for at the end */
    cluster.barrier_arrive();
    __syncthreads();
    /* dQ_R = dS_R K (B = K row-major); dK_R = dS[:, R]^T Q (A = dScol read
     * column-major) */
    for (int t = warp; t < 2 * mt * dt; t += SPLIT_WARPS) {
        const int which = t / (mt * dt), i = (t % (mt * dt)) / dt, j = t % dt;
        frag_acc acc;
        if (which == 0)
            mma_tile<frag_a_row, frag_b_row, false>(acc, dSrow + i * 16 * ldt, ldt, 8,
                                                    Bs + j * 16, ldd, 8 * ldd, Tp / 8);
        else
            mma_tile<frag_a_col, frag_b_row, false>(acc, Pcol + i * 16, ldc, 8 * ldc,
                                                    As + j * 16, ldd, 8 * ldd, Tp / 8);
        store_tile_guarded(acc, stage, (which ? dk : dq) + (size_t)i * 16 * E3 + j * 16, E3,
                           rows - i * 16, D - j * 16);
    }
    cluster.barrier_wait();
}

/* The strip backward (attention_kernels.h): one block per (sample, head),
 * two warps own the 16-row strip R = [16 w, 16 w + 16) of every output
 * (w = warp % 8), each half of its n-tiles (warp / 8), so no tile waits on
 * another warp's: dV_R = P[:, R]^T dO; dP_R = dO_R V^T with its
 * accumulators kept in registers (8 n-tiles of 8 a warp at T = 128), the
 * softmax backward's row sums reduced across a fragment's quad, then
 * across the two warps through shared memory, dS_R in the same registers
 * and then in P_R's place in shared memory; after one barrier dQ_R = dS_R K
 * and dK_R = dS[:, R]^T Q. Raw `mma.sync` m16n8k8 with operands loaded
 * straight from shared memory: the wmma kernels above keep one 16 x 16
 * tile per step and stage every result through shared memory; at BTC
 * temporal (128 samples, one block each) the one-block kernel took 60 us
 * against the general path's 29 (docs/layer-results.md, eleventh and
 * fifteenth passes); this kernel with one warp a strip (8 warps) 38.7, with
 * two 35.6 while its tile counts were run-time (sixteenth pass). P, dO and V are one group of copies, Q and K a second
 * that arrives while the first products run. Shared memory: P, then dS
 * [Tp][ldt] | dO | V | Q | K [Tp][ldd] | the row sums' halves [2][Tp].
 * Strides: Tp + 8 and D rounded to 8 (plus 8 where that is a multiple of
 * 16) are 8 or 24 mod 32, so the column-wise fragment loads (P^T, dS^T and
 * every B operand of dV, dQ, dK: the most loads) hit 32 banks; the
 * row-wise ones (dP's operands, dQ's A) share banks two ways. */
#define STRIP_STRIPS (TLOB_ATTN_STRIP_MAX / 16)
#define STRIP_WARPS (2 * STRIP_STRIPS)
#define STRIP_THREADS (STRIP_WARPS * 32)
#define STRIP_WT (TLOB_ATTN_STRIP_MAX / 16) /* most n-tiles of 8 a warp has: half a strip's */

static __host__ __device__ __forceinline__ int strip_ldt(int T) { return round16(T) + 8; }
static __host__ __device__ __forceinline__ int strip_ldd(int D) {
    const int Dp = (D + 7) / 8 * 8;
    return Dp % 16 ? Dp : Dp + 8;
}

__device__ __forceinline__ bool strip_aligned16(const float *p) { return ((size_t)p & 15u) == 0; }

/* dst [rows_p][ld] = src [rows][cols] (row stride lds), zeros elsewhere up
 * to cols_p (a multiple of 4), as cp.async copies; vec: 16-byte copies
 * (cols, lds and src's address multiples of 4 floats). */
__device__ __forceinline__ void strip_load(float *dst, int ld, const float *src, size_t lds,
                                           int rows, int cols, int rows_p, int cols_p, bool vec) {
    const int step = vec ? 4 : 1, groups = cols_p / step;
    for (int i = threadIdx.x; i < rows_p * groups; i += blockDim.x) {
        const int r = i / groups, c = step * (i - r * groups);
        const bool ok = r < rows && c < cols;
        const float *from = ok ? src + (size_t)r * lds + c : src;
        if (vec) copy16(dst + r * ld + c, from, ok);
        else copy4(dst + r * ld + c, from, ok);
    }
}

/* acc[i] = A B_(j0 + i) over k in [0, K) for a warp's 16 rows of output
 * and N n-tiles from j0: A(m, k) = a[m am + k ak], B_j(k, n) = b[k bk + (8
 * j + n) bn], operands rounded to TF32. N is a compile-time count: with
 * the tiles guarded at run time instead (8-warp version) every k-step of
 * every tile was a branch, 1332 a warp, and the loads could not be
 * hoisted across them (Nsight Compute, sixteenth pass). */
template <int N>
__device__ __forceinline__ void strip_mm(float (&acc)[STRIP_WT][4], const float *a, int am, int ak,
                                         const float *b, int bk, int bn, int K, int j0) {
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll
    for (int i = 0; i < N; i++) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
    b += 8 * j0 * bn;
#pragma unroll 2
    for (int k = 0; k < K; k += 8) {
        const float *pa = a + g * am + (k + t) * ak, *pb = b + (k + t) * bk + g * bn;
        const unsigned af[4] = {to_tf32(pa[0]), to_tf32(pa[8 * am]), to_tf32(pa[4 * ak]),
                                to_tf32(pa[8 * am + 4 * ak])};
#pragma unroll
        for (int i = 0; i < N; i++) {
            const unsigned bf[2] = {to_tf32(pb[8 * i * bn]), to_tf32(pb[8 * i * bn + 4 * bk])};
            mma_tf32(acc[i], af, bf);
        }
    }
}

/* strip_mm for a run-time count n <= STRIP_WT (0: nothing) */
__device__ __forceinline__ void strip_mm_n(int n, float (&acc)[STRIP_WT][4], const float *a,
                                           int am, int ak, const float *b, int bk, int bn, int K,
                                           int j0) {
    switch (n) {
    case 1: strip_mm<1>(acc, a, am, ak, b, bk, bn, K, j0); break;
    case 2: strip_mm<2>(acc, a, am, ak, b, bk, bn, K, j0); break;
    case 3: strip_mm<3>(acc, a, am, ak, b, bk, bn, K, j0); break;
    case 4: strip_mm<4>(acc, a, am, ak, b, bk, bn, K, j0); break;
    case 5: strip_mm<5>(acc, a, am, ak, b, bk, bn, K, j0); break;
    case 6: strip_mm<6>(acc, a, am, ak, b, bk, bn, K, j0); break;
    case 7: strip_mm<7>(acc, a, am, ak, b, bk, bn, K, j0); break;
    case 8: strip_mm<8>(acc, a, am, ak, b, bk, bn, K, j0); break;
    default: break;
    }
}

/* acc[i] = dO_R V_(j0 + i)^T over k in [0, Dp), N n-tiles of keys from j0,
 * in split TF32 (hi*hi + hi*lo + lo*hi, small terms first, as the wmma
 * kernels: attention.h says why); dO_R's rows at dO, V's at V, stride ld. */
template <int N>
__device__ __forceinline__ void strip_dp(float (&acc)[STRIP_WT][4], const float *dO,
                                         const float *V, int ld, int Dp, int j0) {
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll
    for (int i = 0; i < N; i++) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
    V += 8 * j0 * ld;
    for (int kk = 0; kk < Dp; kk += 8) {
        const float *pa = dO + g * ld + kk + t, *pb = V + g * ld + kk + t;
        const float af[4] = {pa[0], pa[8 * ld], pa[4], pa[8 * ld + 4]};
        unsigned ahi[4], alo[4];
#pragma unroll
        for (int e = 0; e < 4; e++) {
            ahi[e] = to_tf32(af[e]);
            alo[e] = to_tf32(af[e] - __uint_as_float(ahi[e]));
        }
#pragma unroll
        for (int i = 0; i < N; i++) {
            const float bf[2] = {pb[8 * i * ld], pb[8 * i * ld + 4]};
            unsigned bhi[2], blo[2];
#pragma unroll
            for (int e = 0; e < 2; e++) {
                bhi[e] = to_tf32(bf[e]);
                blo[e] = to_tf32(bf[e] - __uint_as_float(bhi[e]));
            }
            mma_tf32(acc[i], alo, bhi);
            mma_tf32(acc[i], ahi, blo);
            mma_tf32(acc[i], ahi, bhi);
        }
    }
}

__device__ __forceinline__ void strip_dp_n(int n, float (&acc)[STRIP_WT][4], const float *dO,
                                           const float *V, int ld, int Dp, int j0) {
    switch (n) {
    case 1: strip_dp<1>(acc, dO, V, ld, Dp, j0); break;
    case 2: strip_dp<2>(acc, dO, V, ld, Dp, j0); break;
    case 3: strip_dp<3>(acc, dO, V, ld, Dp, j0); break;
    case 4: strip_dp<4>(acc, dO, V, ld, Dp, j0); break;
    case 5: strip_dp<5>(acc, dO, V, ld, Dp, j0); break;
    case 6: strip_dp<6>(acc, dO, V, ld, Dp, j0); break;
    case 7: strip_dp<7>(acc, dO, V, ld, Dp, j0); break;
    case 8: strip_dp<8>(acc, dO, V, ld, Dp, j0); break;
    default: break;
    }
}

/* A warp's n accumulator tiles (of n-tiles j0, j0 + 1, ...) to dst rows
 * [r0, r0 + 16), keeping rows < T and columns < D; W, the accumulator's
 * tiles (the backward's STRIP_WT, the forward's 4 of o). */
template <int W>
__device__ __forceinline__ void strip_store(const float (&acc)[W][4], float *dst, int ld, int r0,
                                            int T, int D, int j0, int n) {
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll
    for (int i = 0; i < W; i++)
        if (i < n)
#pragma unroll
            for (int half = 0; half < 2; half++) {
                const int r = r0 + g + 8 * half, c = 8 * (j0 + i) + 2 * t;
                if (r >= T) continue;
                if (c < D) dst[(size_t)r * ld + c] = acc[i][2 * half];
                if (c + 1 < D) dst[(size_t)r * ld + c + 1] = acc[i][2 * half + 1];
            }
}

__global__ void __launch_bounds__(STRIP_THREADS)
tlob_attention_strip_bwd_kernel(const float *qkv, const float *P, const float *dout, float *dqkv,
                                int B, int T, int D, int nh, float scale) {
    extern __shared__ __align__(128) float sm[];
    const int Tp = round16(T), Dp = (D + 7) / 8 * 8, ldt = strip_ldt(T), ldd = strip_ldd(D);
    float *Ps = sm, *dOs = Ps + Tp * ldt, *Vs = dOs + Tp * ldd, *Qs = Vs + Tp * ldd,
          *Ks = Qs + Tp * ldd, *sums = Ks + Tp * ldd;
    const int h = blockIdx.x, b = blockIdx.y;
    const int E = D * nh, E3 = 3 * E, warp = threadIdx.x / 32, g = threadIdx.x % 32 / 4,
              t = threadIdx.x % 4;
    const size_t NE = (size_t)B * T * E, head = (size_t)b * T * E + h * D;
    const float *q = qkv + head, *k = q + NE, *v = q + 2 * NE, *dob = dout + head;
    const float *Pbh = P + (size_t)(b * nh + h) * T * T;
    float *dq = dqkv + (size_t)b * T * E3 + h * D, *dk = dq + E, *dv = dq + 2 * E;
    const bool pvec = (T & 3) == 0 && strip_aligned16(Pbh);
    const bool dvec = (D & 3) == 0 && (E & 3) == 0 && strip_aligned16(q) &&
                      strip_aligned16(k) && strip_aligned16(v) && strip_aligned16(dob);

    strip_load(Ps, ldt, Pbh, T, T, T, Tp, Tp, pvec);
    strip_load(dOs, ldd, dob, E, T, D, Tp, Dp, dvec);
    strip_load(Vs, ldd, v, E, T, D, Tp, Dp, dvec);
    copies_commit();
    strip_load(Qs, ldd, q, E, T, D, Tp, Dp, dvec);
    strip_load(Ks, ldd, k, E, T, D, Tp, Dp, dvec);
    copies_commit();
    copies_wait_older();
    __syncthreads();
    /* this warp's strip and its half of the n-tiles: dn of D's from d0, kn
     * of the keys' from n0 */
    const int half = warp / STRIP_STRIPS, r0 = 16 * (warp % STRIP_STRIPS), nt = Tp / 8,
              dt = Dp / 8;
    const int d0 = half ? (dt + 1) / 2 : 0, dn = half ? dt / 2 : (dt + 1) / 2;
    const int n0 = half ? nt / 2 : 0, kn = nt / 2;
    const bool active = r0 < Tp;
    const float *p0 = Ps + (r0 + g) * ldt + 2 * t + 8 * n0, *p1 = p0 + 8 * ldt;
    float acc[STRIP_WT][4];
    if (active) {
        /* dV_R = P[:, R]^T dO: A(m, k) = P[k][r0 + m] */
        strip_mm_n(dn, acc, Ps + r0, 1, ldt, dOs, ldd, 1, Tp, d0);
        strip_store(acc, dv, E3, r0, T, D, d0, dn);
        /* dP_R = dO_R V^T (split TF32) */
        strip_dp_n(kn, acc, dOs + r0 * ldd, Vs, ldd, Dp, n0);
        /* this half's share of rowsum(P_R dP_R): this lane holds rows g and
         * g + 8, columns 8 j + 2 t and + 1; a row's four lanes are a quad */
        float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
        for (int i = 0; i < STRIP_WT; i++)
            if (i < kn) {
                s0 += p0[8 * i] * acc[i][0] + p0[8 * i + 1] * acc[i][1];
                s1 += p1[8 * i] * acc[i][2] + p1[8 * i + 1] * acc[i][3];
            }
        for (int off = 1; off < 4; off <<= 1) {
            s0 += __shfl_xor_sync(0xffffffffu, s0, off);
            s1 += __shfl_xor_sync(0xffffffffu, s1, off);
        }
        if (t == 0) sums[half * Tp + r0 + g] = s0, sums[half * Tp + r0 + g + 8] = s1;
    }
    /* both halves' sums are in; every warp has read P's columns (dV) */
    __syncthreads();
    if (active) {
        /* dS_R = scale P_R (dP_R - rowsum(P_R dP_R)) over this half's
         * columns, written over them (the other half reads only its own;
         * padding rows and columns of P are zero: dS = 0 there) */
        const float s0 = sums[r0 + g] + sums[Tp + r0 + g],
                    s1 = sums[r0 + g + 8] + sums[Tp + r0 + g + 8];
        float *w0 = Ps + (r0 + g) * ldt + 2 * t + 8 * n0, *w1 = w0 + 8 * ldt;
#pragma unroll
        for (int i = 0; i < STRIP_WT; i++)
            if (i < kn) {
                const float2 pa = *reinterpret_cast<const float2 *>(p0 + 8 * i),
                             pb = *reinterpret_cast<const float2 *>(p1 + 8 * i);
                *reinterpret_cast<float2 *>(w0 + 8 * i) =
                    make_float2(scale * pa.x * (acc[i][0] - s0), scale * pa.y * (acc[i][1] - s0));
                *reinterpret_cast<float2 *>(w1 + 8 * i) =
                    make_float2(scale * pb.x * (acc[i][2] - s1), scale * pb.y * (acc[i][3] - s1));
            }
    }
    copies_wait_all();
    __syncthreads();
    if (!active) return;
    /* dQ_R = dS_R K: A(m, k) = dS[r0 + m][k] */
    strip_mm_n(dn, acc, Ps + r0 * ldt, ldt, 1, Ks, ldd, 1, Tp, d0);
    strip_store(acc, dq, E3, r0, T, D, d0, dn);
    /* dK_R = dS[:, R]^T Q: A(m, k) = dS[k][r0 + m] */
    strip_mm_n(dn, acc, Ps + r0, 1, ldt, Qs, ldd, 1, Tp, d0);
    strip_store(acc, dk, E3, r0, T, D, d0, dn);
}

/* The strip forward (attention_kernels.h): a block of `rows` query rows of
 * one (sample, head), two warps per 16-row strip R, each with half of S_R's
 * n-tiles (the strip backward's split). With one warp a strip the kernel
 * was issue-latency-bound: BTC temporal has 7.8 strips a multiprocessor,
 * two warps a scheduler, 0.34 instructions issued a cycle (Nsight Compute,
 * docs/layer-results.md, seventeenth pass); two warps a strip double them
 * (13.3 -> 11.5 us alone there, the same document, eighteenth pass).
 * A warp's half of S_R = Q_R K^T stays in its registers (Tp / 16 n-tiles of
 * m16n8k8 accumulators, 32 floats a lane at T = 128), the softmax runs on
 * them (a row's max and sum reduced over the fragment's quad, then across
 * the strip's two warps through shared memory), P_R goes to the strip's
 * rows of shared memory and from there to global memory (the backward and
 * the caller's copy read it) in 16-byte row stores, each warp 8 of the 16
 * rows. O_R = P_R V: each warp half of D's n-tiles, P_R's A fragments read
 * back from shared memory with PV's k index permuted within each step of 8
 * (k-slot t is column 2t, slot t + 4 column 2t + 1, the same for V's rows),
 * so they load as float2; the permutation reorders the sum's terms only.
 * The same permutation over D lets Q's and K's fragments load as float2.
 * The general path writes S, reads it back for the softmax, writes P and
 * reads it again for PV in three nodes (18.2 us at BTC temporal,
 * docs/layer-results.md, sixteenth pass). Q and K are one group of copies,
 * V a second that arrives during S and the softmax. Shared memory: Q
 * [rows][ldk] | K [Tp][ldk] | V [Tp][ldv] | P [rows][Tp + 8] | a strip's
 * row maxima and sums [rows / 16][2][2][16]. Strides: ldk (8 or 24 mod 32)
 * makes the float2 loads of Q's and K's fragments (rows g, columns 2t)
 * conflict-free per half warp, and Tp + 8 P's float2 stores and loads
 * alike; ldv (4 mod 16) the loads of V's fragments (rows 2t and 2t + 1,
 * column g). */
static __host__ __device__ __forceinline__ int strip_fwd_ldv(int D) {
    const int Dp = (D + 7) / 8 * 8;
    return Dp % 16 ? Dp + 12 : Dp + 4;
}

/* The two warps of strip s (1 + s: barrier 0 is __syncthreads'). */
__device__ __forceinline__ void strip_pair_sync(int s) {
    asm volatile("bar.sync %0, 64;" ::"r"(1 + s) : "memory");
}

/* out[i] = P_R V_(j0 + i) for N n-tiles of D from j0, NT k-steps of 8 over
 * the keys; P_R's rows at p (stride ldt), A fragments with k permuted
 * (above) */
template <int NT, int N>
__device__ __forceinline__ void strip_pv(const float *p, int ldt, const float *V, int ldv, int j0,
                                         float (&out)[4][4]) {
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll
    for (int i = 0; i < N; i++) out[i][0] = out[i][1] = out[i][2] = out[i][3] = 0.0f;
    const float *pa = p + g * ldt + 2 * t, *pv = V + 2 * t * ldv + 8 * j0 + g;
#pragma unroll
    for (int kk = 0; kk < NT; kk++) {
        const float2 a0 = *reinterpret_cast<const float2 *>(pa + 8 * kk),
                     a1 = *reinterpret_cast<const float2 *>(pa + 8 * ldt + 8 * kk);
        const unsigned af[4] = {to_tf32(a0.x), to_tf32(a1.x), to_tf32(a0.y), to_tf32(a1.y)};
#pragma unroll
        for (int i = 0; i < N; i++) {
            const unsigned bf[2] = {to_tf32(pv[8 * kk * ldv + 8 * i]),
                                    to_tf32(pv[(8 * kk + 1) * ldv + 8 * i])};
            mma_tf32(out[i], af, bf);
        }
    }
}

/* The softmax of a strip's S_R in place, this warp holding n-tiles [n0, n0
 * + NH): rows g (acc[j][0..1]) and g + 8 (acc[j][2..3]), columns 8 (n0 +
 * j) + 2 t (+ 1); a row's max and sum reduced over the fragment's quad,
 * then with the other warp's through red ([2][16] maxima, then [2][16]
 * sums, this warp's half at `half`). p = exp(s scale - m) / sum with m =
 * max * scale, as the general path's kernel; MASK: columns >= T (padding
 * keys, S = 0 there) are left out, compiled only where T is not a multiple
 * of 16 (a compare per element otherwise). __expf (ex2.approx, relative
 * error about 2^-22, far below TF32's 2^-11): expf's slower sequence cost
 * 0.9 us of 16.3 at BTC temporal (docs/layer-results.md, seventeenth
 * pass). */
template <int NH, bool MASK>
__device__ __forceinline__ void strip_softmax(float (&acc)[NH][4], int T, float scale, int n0,
                                              float *red, int half, int strip) {
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    float m0 = -INFINITY, m1 = -INFINITY;
#pragma unroll
    for (int j = 0; j < NH; j++)
#pragma unroll
        for (int e = 0; e < 2; e++)
            if (!MASK || 8 * (n0 + j) + 2 * t + e < T) {
                m0 = fmaxf(m0, acc[j][e]);
                m1 = fmaxf(m1, acc[j][2 + e]);
            }
    for (int off = 1; off < 4; off <<= 1) {
        m0 = fmaxf(m0, __shfl_xor_sync(0xffffffffu, m0, off));
        m1 = fmaxf(m1, __shfl_xor_sync(0xffffffffu, m1, off));
    }
    if (t == 0) red[16 * half + g] = m0, red[16 * half + g + 8] = m1;
    strip_pair_sync(strip);
    m0 = fmaxf(red[g], red[16 + g]) * scale, m1 = fmaxf(red[g + 8], red[16 + g + 8]) * scale;
    float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
    for (int j = 0; j < NH; j++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
            const bool in = !MASK || 8 * (n0 + j) + 2 * t + e < T;
            acc[j][e] = in ? __expf(acc[j][e] * scale - m0) : 0.0f;
            acc[j][2 + e] = in ? __expf(acc[j][2 + e] * scale - m1) : 0.0f;
            s0 += acc[j][e], s1 += acc[j][2 + e];
        }
    for (int off = 1; off < 4; off <<= 1) {
        s0 += __shfl_xor_sync(0xffffffffu, s0, off);
        s1 += __shfl_xor_sync(0xffffffffu, s1, off);
    }
    if (t == 0) red[32 + 16 * half + g] = s0, red[32 + 16 * half + g + 8] = s1;
    strip_pair_sync(strip);
    const float inv0 = 1.0f / (red[32 + g] + red[48 + g]),
                inv1 = 1.0f / (red[32 + g + 8] + red[48 + g + 8]);
#pragma unroll
    for (int j = 0; j < NH; j++)
        acc[j][0] *= inv0, acc[j][1] *= inv0, acc[j][2] *= inv1, acc[j][3] *= inv1;
}

/* This warp's n tiles of O_R (of D's n-tiles from d0) in chunks of 4 */
template <int NT>
__device__ __forceinline__ void strip_pv_store(const float *p, int ldt, const float *V, int ldv,
                                               float *ob, int E, int r0, int T, int D, int d0,
                                               int n) {
    float out[4][4];
    int j0 = d0;
    for (; j0 + 4 <= d0 + n; j0 += 4) {
        strip_pv<NT, 4>(p, ldt, V, ldv, j0, out);
        strip_store(out, ob, E, r0, T, D, j0, 4);
    }
    switch (d0 + n - j0) {
    case 1: strip_pv<NT, 1>(p, ldt, V, ldv, j0, out); strip_store(out, ob, E, r0, T, D, j0, 1); break;
    case 2: strip_pv<NT, 2>(p, ldt, V, ldv, j0, out); strip_store(out, ob, E, r0, T, D, j0, 2); break;
    case 3: strip_pv<NT, 3>(p, ldt, V, ldv, j0, out); strip_store(out, ob, E, r0, T, D, j0, 3); break;
    default: break;
    }
}

template <int NT>
__global__ void __launch_bounds__(TLOB_ATTN_STRIP_FWD_MAX_ROWS * 4, 1)
tlob_attention_strip_fwd_kernel(const float *qkv, float *P, float *P_copy, float *o, int B, int T,
                                int D, int nh, float scale, int rows) {
    constexpr int NH = NT / 2; /* a warp's n-tiles of S_R */
    extern __shared__ __align__(128) float sm[];
    const int Tp = 8 * NT, Dp = (D + 7) / 8 * 8, ldk = strip_ldd(D), ldv = strip_fwd_ldv(D),
              ldt = strip_ldt(T);
    float *Qs = sm, *Ks = Qs + rows * ldk, *Vs = Ks + Tp * ldk, *Ps = Vs + Tp * ldv,
          *reds = Ps + rows * ldt;
    const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * rows;
    const int E = D * nh, warp = threadIdx.x / 32, g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    const size_t NE = (size_t)B * T * E, head = (size_t)b * T * E + h * D;
    const float *q = qkv + head, *k = q + NE, *v = q + 2 * NE;
    const bool dvec = (D & 3) == 0 && (E & 3) == 0 && strip_aligned16(q) &&
                      strip_aligned16(k) && strip_aligned16(v);
    const int rows_here = T - q0 < rows ? T - q0 : rows;

    strip_load(Qs, ldk, q + (size_t)q0 * E, E, rows_here, D, rows, Dp, dvec);
    strip_load(Ks, ldk, k, E, T, D, Tp, Dp, dvec);
    copies_commit();
    strip_load(Vs, ldv, v, E, T, D, Tp, Dp, dvec);
    copies_commit();
    copies_wait_older();
    __syncthreads();
    /* this warp's strip (rows r0 of the head) and its half of S's n-tiles */
    const int strip = warp / 2, half = warp % 2, r0 = q0 + 16 * strip, n0 = NH * half;
    const bool active = r0 < T;
    float *Ws = Ps + strip * 16 * ldt; /* the strip's rows of P */
    if (active) {
        float acc[NH][4];
        /* S_R = Q_R K^T, k permuted: slot t is column 2t, t + 4 is 2t + 1 */
#pragma unroll
        for (int j = 0; j < NH; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;
        const float *pq = Qs + (16 * strip + g) * ldk + 2 * t, *pk = Ks + (8 * n0 + g) * ldk + 2 * t;
#pragma unroll 2
        for (int kk = 0; kk < Dp; kk += 8) {
            const float2 a0 = *reinterpret_cast<const float2 *>(pq + kk),
                         a1 = *reinterpret_cast<const float2 *>(pq + 8 * ldk + kk);
            const unsigned af[4] = {to_tf32(a0.x), to_tf32(a1.x), to_tf32(a0.y), to_tf32(a1.y)};
#pragma unroll
            for (int j = 0; j < NH; j++) {
                const float2 bk = *reinterpret_cast<const float2 *>(pk + 8 * j * ldk + kk);
                const unsigned bf[2] = {to_tf32(bk.x), to_tf32(bk.y)};
                mma_tf32(acc[j], af, bf);
            }
        }
        float *red = reds + 64 * strip;
        if (T == Tp) strip_softmax<NH, false>(acc, T, scale, n0, red, half, strip);
        else strip_softmax<NH, true>(acc, T, scale, n0, red, half, strip);
        /* this half of P_R to the strip's rows; then, both halves in, each
         * warp stores 8 whole rows in 16-byte stores (written from the
         * fragments, each store of a warp touched 8 rows: 16.3 against 15.4
         * us alone at BTC temporal, docs/layer-results.md, seventeenth
         * pass) */
#pragma unroll
        for (int j = 0; j < NH; j++) {
            *reinterpret_cast<float2 *>(Ws + g * ldt + 8 * (n0 + j) + 2 * t) =
                make_float2(acc[j][0], acc[j][1]);
            *reinterpret_cast<float2 *>(Ws + (g + 8) * ldt + 8 * (n0 + j) + 2 * t) =
                make_float2(acc[j][2], acc[j][3]);
        }
        strip_pair_sync(strip);
        float *Pbh = P + (size_t)(b * nh + h) * T * T + (size_t)r0 * T;
        float *Cbh = P_copy ? P_copy + (size_t)(b * nh + h) * T * T + (size_t)r0 * T : NULL;
        const int lane = threadIdx.x % 32, rows_out = T - r0 < 16 ? T - r0 : 16;
        const bool pvec = (T & 3) == 0 && strip_aligned16(Pbh) && (!Cbh || strip_aligned16(Cbh));
        for (int r = 8 * half; r < rows_out && r < 8 * half + 8; r++) {
            if (pvec)
                for (int c = 4 * lane; c < T; c += 128) {
                    const float4 x = *reinterpret_cast<const float4 *>(Ws + r * ldt + c);
                    *reinterpret_cast<float4 *>(Pbh + (size_t)r * T + c) = x;
                    if (Cbh) *reinterpret_cast<float4 *>(Cbh + (size_t)r * T + c) = x;
                }
            else
                for (int c = lane; c < T; c += 32) {
                    Pbh[(size_t)r * T + c] = Ws[r * ldt + c];
                    if (Cbh) Cbh[(size_t)r * T + c] = Ws[r * ldt + c];
                }
        }
    }
    /* V is in; the strip's rows of P too (its pair barrier above) */
    copies_wait_all();
    __syncthreads();
    if (!active) return;
    /* O_R = P_R V: this warp's half of D's n-tiles */
    const int dt = Dp / 8, d0 = half ? (dt + 1) / 2 : 0, dn = half ? dt / 2 : (dt + 1) / 2;
    strip_pv_store<NT>(Ws, ldt, Vs, ldv, o + head, E, r0, T, D, d0, dn);
}

/* ---- launchers ------------------------------------------------------------- */

extern "C" size_t tlob_attention_fused_fwd_smem(int T, int D, int qrows) {
    const size_t ldd = (size_t)round16(D) + ATT_PAD, ldt = (size_t)round16(T) + ATT_PAD;
    return ((size_t)qrows * ldd + (size_t)round16(T) * ldd + (size_t)qrows * ldt +
            ATT_STAGE_FLOATS) * sizeof(float);
}

extern "C" size_t tlob_attention_fused_bwd_smem(int T, int D) {
    const size_t ldd = (size_t)round16(D) + ATT_PAD, ldt = (size_t)round16(T) + ATT_PAD;
    return (2 * (size_t)round16(T) * ldt + 2 * (size_t)round16(T) * ldd + ATT_STAGE_FLOATS) *
           sizeof(float);
}

extern "C" size_t tlob_attention_split_bwd_smem(int T, int D, int rows) {
    const size_t ldd = (size_t)round16(D) + ATT_PAD, ldt = (size_t)round16(T) + ATT_PAD,
                 Tp = (size_t)round16(T), rb = (size_t)rows;
    return (2 * rb * ldt + Tp * (rb + ATT_PAD) + 2 * Tp * ldd + SPLIT_STAGE_FLOATS) * sizeof(float);
}

extern "C" size_t tlob_attention_strip_bwd_smem(int T, int D) {
    if (T > TLOB_ATTN_STRIP_MAX || D > TLOB_ATTN_STRIP_MAX) return (size_t)-1;
    const size_t Tp = (size_t)round16(T);
    return (Tp * strip_ldt(T) + 4 * Tp * strip_ldd(D) + 2 * Tp) * sizeof(float);
}

extern "C" size_t tlob_attention_strip_fwd_smem(int T, int D, int rows) {
    if (T > TLOB_ATTN_STRIP_MAX || D > TLOB_ATTN_STRIP_MAX) return (size_t)-1;
    const size_t Tp = (size_t)round16(T);
    return (((size_t)rows + Tp) * strip_ldd(D) + Tp * strip_fwd_ldv(D) +
            (size_t)rows * strip_ldt(T) + (size_t)rows / 16 * 64) *
           sizeof(float);
}

/* the forward's instantiations, by Tp / 8 (T rounded up to 16) */
typedef void (*strip_fwd_fn)(const float *, float *, float *, float *, int, int, int, int, float,
                             int);
static const strip_fwd_fn strip_fwd_kernels[TLOB_ATTN_STRIP_MAX / 16] = {
    tlob_attention_strip_fwd_kernel<2>,  tlob_attention_strip_fwd_kernel<4>,
    tlob_attention_strip_fwd_kernel<6>,  tlob_attention_strip_fwd_kernel<8>,
    tlob_attention_strip_fwd_kernel<10>, tlob_attention_strip_fwd_kernel<12>,
    tlob_attention_strip_fwd_kernel<14>, tlob_attention_strip_fwd_kernel<16>};

extern "C" cudaError_t tlob_attention_fused_prepare(int *smem_limit, int *multiprocessors,
                                                    int *clusters) {
    int dev;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(smem_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(multiprocessors, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(clusters, cudaDevAttrClusterLaunch, dev);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_attention_fused_fwd_kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, *smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_attention_fused_bwd_kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, *smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_attention_strip_bwd_kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, *smem_limit);
    for (int i = 0; i < TLOB_ATTN_STRIP_MAX / 16 && e == cudaSuccess; i++)
        e = cudaFuncSetAttribute(strip_fwd_kernels[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 *smem_limit);
    if (e == cudaSuccess && *clusters)
        e = cudaFuncSetAttribute(tlob_attention_split_bwd_kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, *smem_limit);
    return e;
}

extern "C" cudaError_t tlob_launch_attention_fused_fwd(const float *qkv, float *P, float *P_copy,
                                                       float *o, int B, int T, int D, int nh,
                                                       float scale, int qrows,
                                                       cudaStream_t stream) {
    if (qrows != 16 && qrows != 32 && qrows != TLOB_ATTN_MAX_QROWS) return cudaErrorInvalidValue;
    const dim3 grid((unsigned)((T + qrows - 1) / qrows), (unsigned)nh, (unsigned)B);
    tlob_attention_fused_fwd_kernel<<<grid, ATT_THREADS, tlob_attention_fused_fwd_smem(T, D, qrows),
                                      stream>>>(qkv, P, P_copy, o, B, T, D, nh, scale, qrows);
    return cudaGetLastError();
}

extern "C" cudaError_t tlob_launch_attention_fused_bwd(const float *qkv, const float *P,
                                                       const float *dout, float *dqkv, int B,
                                                       int T, int D, int nh, float scale,
                                                       cudaStream_t stream) {
    const dim3 grid((unsigned)nh, (unsigned)B);
    tlob_attention_fused_bwd_kernel<<<grid, ATT_THREADS, tlob_attention_fused_bwd_smem(T, D),
                                      stream>>>(qkv, P, dout, dqkv, B, T, D, nh, scale);
    return cudaGetLastError();
}

extern "C" cudaError_t tlob_launch_attention_split_bwd(const float *qkv, const float *P,
                                                       const float *dout, float *dqkv, int B,
                                                       int T, int D, int nh, float scale,
                                                       int rows, cudaStream_t stream) {
    const unsigned blocks = (unsigned)((T + rows - 1) / rows);
    if ((rows != 16 && rows != 32 && rows != 64) || blocks > TLOB_ATTN_SPLIT_MAX_BLOCKS)
        return cudaErrorInvalidValue;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks, (unsigned)nh, (unsigned)B);
    cfg.blockDim = dim3(SPLIT_THREADS);
    cfg.dynamicSmemBytes = tlob_attention_split_bwd_smem(T, D, rows);
    cfg.stream = stream;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = blocks;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, tlob_attention_split_bwd_kernel, qkv, P, dout, dqkv, B, T, D,
                              nh, scale, rows);
}

extern "C" cudaError_t tlob_launch_attention_strip_bwd(const float *qkv, const float *P,
                                                       const float *dout, float *dqkv, int B,
                                                       int T, int D, int nh, float scale,
                                                       cudaStream_t stream) {
    if (T > TLOB_ATTN_STRIP_MAX || D > TLOB_ATTN_STRIP_MAX) return cudaErrorInvalidValue;
    const dim3 grid((unsigned)nh, (unsigned)B);
    tlob_attention_strip_bwd_kernel<<<grid, STRIP_THREADS, tlob_attention_strip_bwd_smem(T, D),
                                      stream>>>(qkv, P, dout, dqkv, B, T, D, nh, scale);
    return cudaGetLastError();
}

extern "C" cudaError_t tlob_launch_attention_strip_fwd(const float *qkv, float *P, float *P_copy,
                                                       float *o, int B, int T, int D, int nh,
                                                       float scale, int rows,
                                                       cudaStream_t stream) {
    if (T > TLOB_ATTN_STRIP_MAX || D > TLOB_ATTN_STRIP_MAX ||
        (rows != 16 && rows != 32 && rows != 64 && rows != TLOB_ATTN_STRIP_FWD_MAX_ROWS))
        return cudaErrorInvalidValue;
    const dim3 grid((unsigned)((T + rows - 1) / rows), (unsigned)nh, (unsigned)B);
    strip_fwd_kernels[round16(T) / 16 - 1]<<<grid, 4 * rows, tlob_attention_strip_fwd_smem(T, D, rows),
                                            stream>>>(qkv, P, P_copy, o, B, T, D, nh, scale, rows);
    return cudaGetLastError();
}
