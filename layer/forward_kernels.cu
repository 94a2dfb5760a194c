/* The fused forward pass (forward_kernels.h): one kernel or two, every
 * operand in shared memory; the products on the tensor cores (TC: TF32 wmma, FP32
 * accumulation) or on the CUDA cores in strict FP32.
 *
 * Layout in shared memory: each matrix row-major, its rows and columns
 * rounded up to multiples of 16 (the wmma tile) and its row stride 4 floats
 * more (rows start on different banks), the padding zero: products over the
 * padded widths equal those over the real ones. wmma's tile pointers must be
 * 32-byte aligned: tiles start at multiples of 16 rows and 8 columns and
 * every region at a multiple of 8 floats.
 *
 * block_mma (TC): one warp per 16 x 16 output tile, through the warp's
 * staging tile to the epilogue. block_gemm (FP32): 256 threads as 16 x 16,
 * each computing RT rows (ty + 16 i) by NC columns (tx + 16 c) of a chunk of
 * 16 NC columns, fused multiply-adds in k order. A first version with only
 * block_gemm took 221 us for BTC temporal's forward on an H200 (the general
 * path 106 us): with 32 x 40 outputs a block, each thread's tile is too small
 * for the CUDA cores, it loaded 5 operands from shared memory for every 6
 * multiply-adds (docs/layer-results.md, sixth pass).
 *
 * Loads are asynchronous copies (cp.async) issued all at once and waited for
 * once (layer/attention_kernels.cu found plain loads, each waited for before
 * the next, latency-bound). Everything an epilogue reads is in shared memory
 * too (biases, LayerNorm parameters, the x tile of the residuals), so that
 * no epilogue waits on a global load that may not move above the global
 * store before it (they may alias); this measured no change on the H200,
 * whose remaining cost is per-block overhead (docs/layer-results.md, sixth
 * pass). A tile's rows past the end of the sample (or of the batch) are zero
 * in shared memory and never stored. */
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <mma.h>

#include "forward_kernels.h"
#include "gelu.cuh"

using namespace nvcuda;

/* Warps a block: 8 for the CUDA cores' products (block_gemm maps 256
 * threads as 16 x 16), 16 on the tensor cores, where a block's many short
 * phases (loads, epilogues, row reductions) found 8 warps too few to hide
 * their latencies (2 warps a scheduler, a third of them eligible:
 * docs/layer-results.md, tenth pass). The device code reads the count from
 * blockDim. */
static __host__ __device__ __forceinline__ int fwd_threads(bool tc) { return tc ? 512 : 256; }
#define FWD_NC 3 /* columns per thread per chunk: chunks of 48 (D = 40 in one) */
#define FWD_STAGE_LD 20 /* one warp's 16 x 16 staging tile, padded */
/* one staging tile a warp */
static __host__ __device__ __forceinline__ int fwd_stage_floats(int threads) {
    return threads / 32 * 16 * FWD_STAGE_LD;
}

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fwd_frag_a;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fwd_frag_b_row;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fwd_frag_b_col;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> fwd_frag_acc;

/* rows (and columns) of a stored matrix, and its row stride */
static __host__ __device__ __forceinline__ int pad16(int n) { return (n + 15) / 16 * 16; }
static __host__ __device__ __forceinline__ int ld16(int n) { return pad16(n) + 4; }

/* ---- device helpers ------------------------------------------------------ */

__device__ __forceinline__ float fwd_warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__device__ __forceinline__ float fwd_warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

/* dst [pad16 rows][ld] = src [rows][cols] (row stride lds), zeros in the
 * padding rows and columns; copies issued now, waited for by
 * fwd_copies_wait. Whole 16-byte copies when the rows allow. */
__device__ __forceinline__ void fwd_load_async(float *dst, int ld, const float *src, int lds,
                                               int rows, int cols) {
    const int rows_p = pad16(rows), cols_p = pad16(cols);
    if ((cols & 3) == 0 && (lds & 3) == 0 && ((size_t)src & 15) == 0) {
        /* thread i takes the 16-byte groups i, i + threads, ...: row and
         * group advanced by the division's quotient and remainder, computed once
         * (a division per copy was a fifth of the B = 1 forward's
         * instructions: docs/layer-results.md, tenth pass) */
        const int threads = blockDim.x, groups = cols_p / 4, step_r = threads / groups,
                  step_g = threads - step_r * groups;
        int r = threadIdx.x / groups, g = threadIdx.x - r * groups;
        for (; r < rows_p; r += step_r, g += step_g) {
            if (g >= groups) g -= groups, r++;
            if (r >= rows_p) break;
            const int c = 4 * g;
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
}

/* dst [n] = src [n], 4-byte asynchronous copies (the biases and LayerNorm
 * parameters the epilogues read). */
__device__ __forceinline__ void fwd_load_vec_async(float *dst, const float *src, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) __pipeline_memcpy_async(dst + i, src + i, sizeof(float));
}

/* floats of a vector region: a multiple of 8, so the next region stays aligned */
static __host__ __device__ __forceinline__ int pad8(int n) { return (n + 7) / 8 * 8; }

/* Columns [c0, pad16(c0)) of rows [0, rows) set to zero: the padding that a
 * product over those columns reads and no load or epilogue writes. */
__device__ __forceinline__ void fwd_zero_cols(float *dst, int ld, int rows, int c0) {
    const int w = pad16(c0) - c0;
    for (int i = threadIdx.x; i < rows * w; i += blockDim.x) dst[(i / w) * ld + c0 + i % w] = 0.0f;
}

__device__ __forceinline__ void fwd_copies_wait() {
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
}

/* out(r, j, sum_k A[r][k] W(j, k)) for r < 16 RT, j < n, with W(j, k) =
 * W[j ldw + k] (KMAJOR false: a PyTorch weight [n, K], or K [T, D] for the
 * scores) or W[k ldw + j] (KMAJOR true: V [T, D] for P V). */
template <int RT, bool KMAJOR, typename Out>
__device__ __forceinline__ void block_gemm(const float *A, int lda, const float *W, int ldw, int n,
                                           int K, Out out) {
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    for (int j0 = 0; j0 < n; j0 += 16 * FWD_NC) {
        float acc[RT][FWD_NC];
        int jl[FWD_NC]; /* clamped to a valid column: loads stay inside W */
#pragma unroll
        for (int c = 0; c < FWD_NC; c++) {
            const int j = j0 + tx + 16 * c;
            jl[c] = j < n ? j : n - 1;
#pragma unroll
            for (int i = 0; i < RT; i++) acc[i][c] = 0.0f;
        }
        const float *a0 = A + ty * lda;
#pragma unroll 4
        for (int k = 0; k < K; k++) {
            float a[RT], w[FWD_NC];
#pragma unroll
            for (int i = 0; i < RT; i++) a[i] = a0[16 * i * lda + k];
#pragma unroll
            for (int c = 0; c < FWD_NC; c++) w[c] = KMAJOR ? W[k * ldw + jl[c]] : W[jl[c] * ldw + k];
#pragma unroll
            for (int i = 0; i < RT; i++)
#pragma unroll
                for (int c = 0; c < FWD_NC; c++) acc[i][c] = fmaf(a[i], w[c], acc[i][c]);
        }
#pragma unroll
        for (int c = 0; c < FWD_NC; c++) {
            const int j = j0 + tx + 16 * c;
            if (j < n)
#pragma unroll
                for (int i = 0; i < RT; i++) out(ty + 16 * i, j, acc[i][c]);
        }
    }
}

/* The same product on the tensor cores, for nb products at once (operands
 * A + p sa and W + p sw, p < nb: the three projections share one pass and
 * one barrier): warp w takes the 16 x 16 output tiles w, w + 8, ... of all
 * of them; K rounded up to 8 (the padding is zero); each tile goes through
 * the warp's staging tile to out(p, r, j, v) for j < n. A is row-major;
 * W(j, k) is W read column-major (KMAJOR false) or row-major. sa and sw are
 * multiples of 8 floats (wmma's 32-byte alignment). */
template <int RT, bool KMAJOR, typename Out>
__device__ __forceinline__ void block_mma(int nb, const float *A, int sa, int lda, const float *W,
                                          int sw, int ldw, int n, int K, float *stage_all,
                                          Out out) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nt = (n + 15) / 16;
    const int per = RT * nt;
    float *stage = stage_all + warp * 16 * FWD_STAGE_LD;
    for (int t = warp; t < nb * per; t += blockDim.x / 32) {
        const int p = t / per, u = t - p * per, i = u / nt, j = u - i * nt;
        const float *Ap = A + p * sa, *Wp = W + p * sw;
        fwd_frag_acc acc;
        wmma::fill_fragment(acc, 0.0f);
        for (int k = 0; k < K; k += 8) {
            fwd_frag_a fa;
            wmma::load_matrix_sync(fa, Ap + i * 16 * lda + k, lda);
#pragma unroll
            for (int e = 0; e < fa.num_elements; e++) fa.x[e] = wmma::__float_to_tf32(fa.x[e]);
            if (KMAJOR) {
                fwd_frag_b_row fb;
                wmma::load_matrix_sync(fb, Wp + k * ldw + j * 16, ldw);
#pragma unroll
                for (int e = 0; e < fb.num_elements; e++) fb.x[e] = wmma::__float_to_tf32(fb.x[e]);
                wmma::mma_sync(acc, fa, fb, acc);
            } else {
                fwd_frag_b_col fb;
                wmma::load_matrix_sync(fb, Wp + j * 16 * ldw + k, ldw);
#pragma unroll
                for (int e = 0; e < fb.num_elements; e++) fb.x[e] = wmma::__float_to_tf32(fb.x[e]);
                wmma::mma_sync(acc, fa, fb, acc);
            }
        }
        wmma::store_matrix_sync(stage, acc, FWD_STAGE_LD, wmma::mem_row_major);
        __syncwarp();
        for (int e = lane; e < 256; e += 32) {
            const int r = e / 16, c = e % 16;
            if (j * 16 + c < n) out(p, i * 16 + r, j * 16 + c, stage[r * FWD_STAGE_LD + c]);
        }
        __syncwarp();
    }
}

/* nb products out(p, r, j, sum_k A_p[r][k] W_p(j, k)), A_p = A + p sa, W_p =
 * W + p sw: on the tensor cores all tiles of all of them in one pass, on the
 * CUDA cores one after the other (no barrier between: the outputs are
 * disjoint). */
template <int RT, bool TC, bool KMAJOR, typename Out>
__device__ __forceinline__ void block_product_batch(int nb, const float *A, int sa, int lda,
                                                    const float *W, int sw, int ldw, int n, int K,
                                                    float *stage, Out out) {
    if (TC) {
        block_mma<RT, KMAJOR>(nb, A, sa, lda, W, sw, ldw, n, K, stage, out);
    } else {
        for (int p = 0; p < nb; p++)
            block_gemm<RT, KMAJOR>(A + p * sa, lda, W + p * sw, ldw, n, K,
                                   [&](int r, int j, float v) { out(p, r, j, v); });
    }
}

template <int RT, bool TC, bool KMAJOR, typename Out>
__device__ __forceinline__ void block_product(const float *A, int lda, const float *W, int ldw,
                                              int n, int K, float *stage, Out out) {
    block_product_batch<RT, TC, KMAJOR>(1, A, 0, lda, W, 0, ldw, n, K, stage,
                                        [&](int, int r, int j, float v) { out(r, j, v); });
}

/* One warp per row r < rows of h [.][ldh] (cols wide): LayerNorm with
 * gamma, beta, eps 1e-5, biased variance, as layer/kernels.cu's
 * tlob_ln_fwd_kernel; the row's mean and 1/std go to mean[r], rstd[r] and
 * each normalised value v of column c to put(r, c, v). */
template <typename Put>
__device__ __forceinline__ void block_layernorm(const float *h, int ldh, int rows, int cols,
                                                const float *gamma, const float *beta,
                                                float *mean, float *rstd, Put put) {
    const int lane = threadIdx.x % 32;
    for (int r = threadIdx.x / 32; r < rows; r += blockDim.x / 32) {
        const float *hr = h + r * ldh;
        float s = 0.0f;
        for (int c = lane; c < cols; c += 32) s += hr[c];
        const float m = fwd_warp_sum(s) / cols;
        float ss = 0.0f;
        for (int c = lane; c < cols; c += 32) ss += (hr[c] - m) * (hr[c] - m);
        const float rs = rsqrtf(fwd_warp_sum(ss) / cols + 1e-5f);
        for (int c = lane; c < cols; c += 32) put(r, c, (hr[c] - m) * rs * gamma[c] + beta[c]);
        if (lane == 0) {
            mean[r] = m;
            rstd[r] = rs;
        }
    }
}

/* ---- shared-memory layouts ---------------------------------------------------
 * Float counts, each a multiple of 8 (regions stay 32-byte aligned), for
 * both the launchers (sizes) and the kernels (carving). */

/* The projections' operands of a tile of R rows: Wq, Wk, Wv [pad E][ld D]
 * each | the three W_in blocks [pad E][ld E] each | the q0, k0, v0 tiles
 * [R][ld E] each | bq|bk|bv [3E] | b_in [3E]. */
static __host__ __device__ __forceinline__ int proj_operand_floats(int D, int E, int R) {
    return 3 * pad16(E) * (ld16(D) + ld16(E)) + 3 * R * ld16(E) + 2 * pad8(3 * E);
}

/* The rest's regions that live through the whole kernel: W_out [pad E][ld
 * E] | W0 [pad D][ld E] | Wf [pad F][ld D] | Wf2 [pad O][ld F] | Q tile
 * [R][ld D] | x tile [R][ld D] | staging | the vectors b_out [E], b0,
 * gamma1, beta1 [D], bf [F], bf2, gamma2, beta2 [O]. */
static __host__ __device__ __forceinline__ int rest_fixed_floats(int D, int nh, int O, int R,
                                                                 int threads) {
    const int E = D * nh, F = 4 * D;
    return pad16(E) * ld16(E) + pad16(D) * ld16(E) + pad16(F) * ld16(D) + pad16(O) * ld16(F) +
           2 * R * ld16(D) + fwd_stage_floats(threads) + pad8(E) + 3 * pad8(D) + pad8(F) + 3 * pad8(O);
}

/* ... and after them the tiles of the attention and the MLP: O tile [R][ld
 * E] | a tile [R][ld E] | h1 / y1 tile [R][ld D] | a union of K, V [pad
 * T][ld D] and S [R][ld T] (attention) with g [R][ld F] and z1 [R][ld O]
 * (MLP). The one-launch kernel keeps the projections' operands here before
 * the attention starts. */
static __host__ __device__ __forceinline__ int rest_phase_floats(int T, int D, int nh, int O,
                                                                 int R) {
    const int E = D * nh, F = 4 * D;
    const int attention = 2 * pad16(T) * ld16(D) + R * ld16(T), mlp = R * ld16(F) + R * ld16(O);
    return 2 * R * ld16(E) + R * ld16(D) + (attention > mlp ? attention : mlp);
}

typedef struct {
    float *Wqkv, *Win, *P0, *bqkv, *bin;
} proj_smem;

__device__ __forceinline__ proj_smem proj_carve(float *base, int D, int E, int R) {
    proj_smem S;
    S.Wqkv = base;
    S.Win = S.Wqkv + 3 * pad16(E) * ld16(D);
    S.P0 = S.Win + 3 * pad16(E) * ld16(E);
    S.bqkv = S.P0 + 3 * R * ld16(E);
    S.bin = S.bqkv + pad8(3 * E);
    return S;
}

typedef struct {
    float *Wout, *W0, *Wf, *Wf2, *Qs, *Xs, *stage;
    float *bout, *b0, *g1, *be1, *bf, *bf2, *g2, *be2;
    float *Os, *As, *Hs, *U; /* from Os on: rest_phase_floats */
} rest_smem;

__device__ __forceinline__ rest_smem rest_carve(float *sm, int D, int nh, int O, int R) {
    const int E = D * nh, F = 4 * D, ldd = ld16(D), lde = ld16(E);
    rest_smem S;
    S.Wout = sm;
    S.W0 = S.Wout + pad16(E) * lde;
    S.Wf = S.W0 + pad16(D) * lde;
    S.Wf2 = S.Wf + pad16(F) * ldd;
    S.Qs = S.Wf2 + pad16(O) * ld16(F);
    S.Xs = S.Qs + R * ldd;
    S.stage = S.Xs + R * ldd;
    S.bout = S.stage + fwd_stage_floats(blockDim.x);
    S.b0 = S.bout + pad8(E);
    S.g1 = S.b0 + pad8(D);
    S.be1 = S.g1 + pad8(D);
    S.bf = S.be1 + pad8(D);
    S.bf2 = S.bf + pad8(F);
    S.g2 = S.bf2 + pad8(O);
    S.be2 = S.g2 + pad8(O);
    S.Os = S.be2 + pad8(O);
    S.As = S.Os + R * lde;
    S.Hs = S.As + R * lde;
    S.U = S.Hs + R * ldd;
    return S;
}

/* ---- phases ------------------------------------------------------------------ */

/* Issues the copies of the projections' weights and biases. */
__device__ __forceinline__ void proj_load(const proj_smem &S, const tlob_forward_weights &w, int D,
                                          int E, int R) {
    const int wq = pad16(E) * ld16(D), wi = pad16(E) * ld16(E);
    fwd_load_vec_async(S.bqkv, w.qkv_b, 3 * E);
    fwd_load_vec_async(S.bin, w.in_b, 3 * E);
    for (int p = 0; p < 3; p++) {
        fwd_load_async(S.Wqkv + p * wq, ld16(D), w.qkv_w + (size_t)p * E * D, D, E, D);
        fwd_load_async(S.Win + p * wi, ld16(E), w.in_w + (size_t)p * E * E, E, E, E);
        fwd_zero_cols(S.P0 + p * R * ld16(E), ld16(E), R, E);
    }
}

/* q|k|v rows [row0, row0 + rows) of out.qkv (NE floats a block) from the x
 * tile Xs: the three first projections in one pass, then the three second
 * ones (operands loaded and visible to the block). */
template <int RT, bool TC>
__device__ __forceinline__ void proj_compute(const proj_smem &S, const float *Xs, float *stage,
                                             float *qkv, size_t NE, size_t row0, int rows, int D,
                                             int E) {
    constexpr int R = 16 * RT;
    const int ldd = ld16(D), lde = ld16(E), wq = pad16(E) * ldd, wi = pad16(E) * lde;
    block_product_batch<RT, TC, false>(3, Xs, 0, ldd, S.Wqkv, wq, ldd, E, D, stage,
                                       [&](int p, int r, int j, float v) {
                                           S.P0[p * R * lde + r * lde + j] = v + S.bqkv[p * E + j];
                                       });
    __syncthreads();
    block_product_batch<RT, TC, false>(3, S.P0, R * lde, lde, S.Win, wi, lde, E, E, stage,
                                       [&](int p, int r, int j, float v) {
                                           if (r < rows)
                                               qkv[p * NE + (row0 + r) * E + j] = v + S.bin[p * E + j];
                                       });
}

/* Issues the copies of the rest's weights and vectors. */
__device__ __forceinline__ void rest_load(const rest_smem &S, const tlob_forward_weights &w, int D,
                                          int nh, int O) {
    const int E = D * nh, F = 4 * D;
    fwd_load_async(S.Wout, ld16(E), w.out_w, E, E, E);
    fwd_load_async(S.W0, ld16(E), w.w0_w, E, D, E);
    fwd_load_async(S.Wf, ld16(D), w.fc_w, D, F, D);
    fwd_load_async(S.Wf2, ld16(F), w.fc2_w, F, O, F);
    fwd_load_vec_async(S.bout, w.out_b, E);
    fwd_load_vec_async(S.b0, w.w0_b, D);
    fwd_load_vec_async(S.g1, w.ln1_w, D);
    fwd_load_vec_async(S.be1, w.ln1_b, D);
    fwd_load_vec_async(S.bf, w.fc_b, F);
    fwd_load_vec_async(S.bf2, w.fc2_b, O);
    fwd_load_vec_async(S.g2, w.ln2_w, O);
    fwd_load_vec_async(S.be2, w.ln2_b, O);
}

/* Query rows [t0, t0 + rows) of sample b, from every head's attention to
 * the outputs; the rest's weights and the x tile issued (or loaded), the
 * sample's q|k|v in global memory and visible to the block. */
template <int RT, bool TC>
__device__ __forceinline__ void rest_compute(const rest_smem &S, const tlob_forward_outputs &out,
                                             int B, int T, int D, int nh, int O, float scale,
                                             int b, int t0, int rows) {
    constexpr int R = 16 * RT;
    const int E = D * nh, F = 4 * D, res = O == D;
    const int ldd = ld16(D), lde = ld16(E), ldf = ld16(F), ldo = ld16(O), ldt = ld16(T);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *const Qs = S.Qs, *const Xs = S.Xs, *const stage = S.stage;
    float *const Os = S.Os, *const As = S.As, *const Hs = S.Hs;
    const float *const bout = S.bout, *const b0 = S.b0, *const g1 = S.g1, *const be1 = S.be1;
    const float *const bf = S.bf, *const bf2 = S.bf2, *const g2 = S.g2, *const be2 = S.be2;
    float *Ks = S.U, *Vs = Ks + pad16(T) * ldd, *Ss = Vs + pad16(T) * ldd; /* attention */
    float *Gs = S.U, *Zs = Gs + R * ldf;                                   /* MLP */

    const size_t N = (size_t)B * T, NE = N * E, row0 = (size_t)b * T + t0;
    /* padding columns that products read and nothing else writes */
    fwd_zero_cols(Os, lde, R, E);
    fwd_zero_cols(As, lde, R, E);
    fwd_zero_cols(Hs, ldd, R, D);
    fwd_zero_cols(Ss, ldt, R, T);
    for (int h = 0; h < nh; h++) {
        const float *q = out.qkv + row0 * E + h * D, *k = out.qkv + NE + (size_t)b * T * E + h * D;
        if (h > 0) __syncthreads(); /* the previous head's K, V and S are spent */
        fwd_load_async(Qs, ldd, q, E, rows, D);
        fwd_load_async(Ks, ldd, k, E, T, D);
        fwd_load_async(Vs, ldd, k + NE, E, T, D);
        fwd_copies_wait();
        /* S = Q K^T */
        block_product<RT, TC, false>(Qs, ldd, Ks, ldd, T, D, stage,
                                     [&](int r, int j, float v) { Ss[r * ldt + j] = v; });
        __syncthreads();
        /* P = softmax(scale S) per row, as tlob_softmax_fwd_kernel */
        float *P = out.att + (((size_t)b * nh + h) * T + t0) * T;
        float *Pc = out.att_copy ? out.att_copy + (((size_t)b * nh + h) * T + t0) * T : NULL;
        for (int r = warp; r < rows; r += blockDim.x / 32) {
            float *sr = Ss + r * ldt;
            float m = -INFINITY;
            for (int c = lane; c < T; c += 32) m = fmaxf(m, sr[c]);
            m = fwd_warp_max(m) * scale;
            float s = 0.0f;
            for (int c = lane; c < T; c += 32) s += expf(sr[c] * scale - m);
            const float inv = 1.0f / fwd_warp_sum(s);
            for (int c = lane; c < T; c += 32) {
                const float p = expf(sr[c] * scale - m) * inv;
                sr[c] = p;
                P[(size_t)r * T + c] = p;
                if (Pc) Pc[(size_t)r * T + c] = p;
            }
        }
        __syncthreads();
        /* O_h = P V_h */
        block_product<RT, TC, true>(Ss, ldt, Vs, ldd, D, T, stage,
                                    [&](int r, int j, float v) { Os[r * lde + h * D + j] = v; });
    }
    __syncthreads();
    /* o is saved for the backward; a = o W_out^T + b_out */
    for (int i = threadIdx.x; i < rows * E; i += blockDim.x) {
        const int r = i / E, c = i - r * E;
        out.o[(row0 + r) * E + c] = Os[r * lde + c];
    }
    fwd_zero_cols(Gs, ldf, R, F); /* K, V are spent */
    block_product<RT, TC, false>(Os, lde, S.Wout, lde, E, E, stage, [&](int r, int j, float v) {
        As[r * lde + j] = v + bout[j];
    });
    __syncthreads();
    /* h1 = a W0^T + b0 + x; y1 = LayerNorm(h1) */
    block_product<RT, TC, false>(As, lde, S.W0, lde, D, E, stage, [&](int r, int j, float v) {
        if (r < rows) {
            v += b0[j] + Xs[r * ldd + j];
            out.h1[(row0 + r) * D + j] = v;
        }
        Hs[r * ldd + j] = r < rows ? v : 0.0f;
    });
    __syncthreads();
    block_layernorm(Hs, ldd, rows, D, g1, be1, out.mean1 + row0, out.rstd1 + row0,
                    [&](int r, int c, float v) {
                        Hs[r * ldd + c] = v;
                        out.y1[(row0 + r) * D + c] = v;
                    });
    __syncthreads();
    /* f = y1 Wf^T (saved without its bias), g = GELU(f + bf) */
    block_product<RT, TC, false>(Hs, ldd, S.Wf, ldd, F, D, stage, [&](int r, int j, float v) {
        const float g = gelu(v + bf[j]);
        Gs[r * ldf + j] = g;
        if (r < rows) {
            out.f[(row0 + r) * F + j] = v;
            out.g[(row0 + r) * F + j] = g;
        }
    });
    __syncthreads();
    /* z1 = g Wf2^T + bf2 (+ y1) */
    block_product<RT, TC, false>(Gs, ldf, S.Wf2, ldf, O, F, stage, [&](int r, int j, float v) {
        v += bf2[j] + (res ? Hs[r * ldd + j] : 0.0f);
        Zs[r * ldo + j] = v;
        if (r < rows) out.z1[(row0 + r) * O + j] = v;
    });
    __syncthreads();
    /* y = GELU(LayerNorm(z1)) (+ x) */
    block_layernorm(Zs, ldo, rows, O, g2, be2, out.mean2 + row0, out.rstd2 + row0,
                    [&](int r, int c, float v) {
                        out.y[(row0 + r) * O + c] =
                            gelu(v) + (res ? Xs[r * ldd + c] : 0.0f);
                    });
}

/* ---- kernels --------------------------------------------------------------- */

/* Block x: rows [R x, R x + R) of the N = B T rows. Shared memory: x tile
 * [R][ld D] | staging | the projections' operands (proj_operand_floats). */
template <int RT, bool TC>
__global__ void __launch_bounds__(TC ? 512 : 256)
tlob_forward_proj_kernel(const float *x, tlob_forward_weights w, tlob_forward_outputs out, int N,
                         int D, int E) {
    extern __shared__ __align__(128) float sm[];
    constexpr int R = 16 * RT;
    const int ldd = ld16(D), n0 = blockIdx.x * R, rows = N - n0 < R ? N - n0 : R;
    float *Xs = sm, *stage = Xs + R * ldd;
    const proj_smem S = proj_carve(stage + fwd_stage_floats(blockDim.x), D, E, R);
    fwd_load_async(Xs, ldd, x + (size_t)n0 * D, D, rows, D);
    proj_load(S, w, D, E, R);
    fwd_copies_wait();
    proj_compute<RT, TC>(S, Xs, stage, out.qkv, (size_t)N * E, (size_t)n0, rows, D, E);
}

/* Block (x, b): query rows [R x, R x + R) of sample b, after the projection
 * kernel. Shared memory: rest_fixed_floats, then rest_phase_floats. */
template <int RT, bool TC>
__global__ void __launch_bounds__(TC ? 512 : 256)
tlob_forward_rest_kernel(const float *x, tlob_forward_weights w, tlob_forward_outputs out, int B,
                         int T, int D, int nh, int O, float scale) {
    extern __shared__ __align__(128) float sm[];
    constexpr int R = 16 * RT;
    const int b = blockIdx.y, t0 = blockIdx.x * R, rows = T - t0 < R ? T - t0 : R;
    const rest_smem S = rest_carve(sm, D, nh, O, R);
    rest_load(S, w, D, nh, O);
    fwd_load_async(S.Xs, ld16(D), x + ((size_t)b * T + t0) * D, D, rows, D);
    rest_compute<RT, TC>(S, out, B, T, D, nh, O, scale, b, t0, rows);
}

/* The whole forward in one launch: block (x, b) as the rest kernel's, the
 * blocks of a sample one thread-block cluster (launch_one). Each block first
 * computes its own rows of q|k|v (the projection kernel's work, its
 * operands over the region the attention uses later, the rest's weights
 * loading meanwhile), then the cluster's barrier (release and acquire at
 * cluster scope: the sample's q|k|v rows written by the other blocks are
 * visible after it) and the rest kernel's work. Shared memory:
 * rest_fixed_floats, then the larger of rest_phase_floats and
 * proj_operand_floats. At B = 1 this saves the second launch and the
 * projection kernel's own wait for its weights (docs/layer-results.md,
 * tenth pass). */
template <int RT, bool TC>
__global__ void __launch_bounds__(TC ? 512 : 256)
tlob_forward_one_kernel(const float *x, tlob_forward_weights w, tlob_forward_outputs out, int B,
                        int T, int D, int nh, int O, float scale) {
    extern __shared__ __align__(128) float sm[];
    constexpr int R = 16 * RT;
    const int E = D * nh, b = blockIdx.y, t0 = blockIdx.x * R, rows = T - t0 < R ? T - t0 : R;
    const size_t row0 = (size_t)b * T + t0;
    const rest_smem S = rest_carve(sm, D, nh, O, R);
    const proj_smem P = proj_carve(S.Os, D, E, R);
    fwd_load_async(S.Xs, ld16(D), x + row0 * D, D, rows, D);
    proj_load(P, w, D, E, R);
    __pipeline_commit();
    rest_load(S, w, D, nh, O); /* waited for before the attention (rest_compute) */
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    proj_compute<RT, TC>(P, S.Xs, S.stage, out.qkv, (size_t)B * T * E, row0, rows, D, E);
    cooperative_groups::this_cluster().sync();
    rest_compute<RT, TC>(S, out, B, T, D, nh, O, scale, b, t0, rows);
}

/* ---- launchers ------------------------------------------------------------- */

extern "C" size_t tlob_forward_proj_smem(int D, int nh, int rows, int tensor_cores) {
    return ((size_t)rows * ld16(D) + (size_t)fwd_stage_floats(fwd_threads(tensor_cores)) +
            (size_t)proj_operand_floats(D, D * nh, rows)) *
           sizeof(float);
}

extern "C" size_t tlob_forward_rest_smem(int T, int D, int nh, int O, int rows, int tensor_cores) {
    return ((size_t)rest_fixed_floats(D, nh, O, rows, fwd_threads(tensor_cores)) +
            (size_t)rest_phase_floats(T, D, nh, O, rows)) *
           sizeof(float);
}

extern "C" size_t tlob_forward_one_smem(int T, int D, int nh, int O, int rows, int tensor_cores) {
    const size_t phase = (size_t)rest_phase_floats(T, D, nh, O, rows),
                 proj = (size_t)proj_operand_floats(D, D * nh, rows);
    return ((size_t)rest_fixed_floats(D, nh, O, rows, fwd_threads(tensor_cores)) +
            (phase > proj ? phase : proj)) *
           sizeof(float);
}

template <int RT, bool TC> static cudaError_t raise_limits(int smem_limit) {
    cudaError_t e = cudaFuncSetAttribute(tlob_forward_proj_kernel<RT, TC>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_forward_rest_kernel<RT, TC>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_forward_one_kernel<RT, TC>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    return e;
}

extern "C" cudaError_t tlob_forward_fused_prepare(int smem_limit) {
    cudaError_t e = raise_limits<1, false>(smem_limit);
    if (e == cudaSuccess) e = raise_limits<2, false>(smem_limit);
    if (e == cudaSuccess) e = raise_limits<1, true>(smem_limit);
    if (e == cudaSuccess) e = raise_limits<2, true>(smem_limit);
    return e;
}

/* The one-launch kernel's launch configuration: grid (tiles, B), a cluster
 * of the `tiles` blocks of one sample. */
static cudaLaunchConfig_t one_config(int B, int T, int rows, int threads, size_t smem,
                                     cudaStream_t stream, cudaLaunchAttribute *attr) {
    const unsigned tiles = (unsigned)((T + rows - 1) / rows);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(tiles, (unsigned)B);
    cfg.blockDim = dim3((unsigned)threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = tiles;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

template <int RT, bool TC> static int one_fits(int T, int D, int nh, int O, int smem_limit) {
    const int rows = 16 * RT;
    const size_t smem = tlob_forward_one_smem(T, D, nh, O, rows, TC);
    if ((T + rows - 1) / rows > TLOB_FORWARD_ONE_MAX_TILES || smem > (size_t)smem_limit) return 0;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = one_config(1, T, rows, fwd_threads(TC), smem, 0, &attr);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, tlob_forward_one_kernel<RT, TC>, &cfg) !=
        cudaSuccess) {
        (void)cudaGetLastError(); /* no cluster launch on this device: the two kernels */
        return 0;
    }
    return clusters >= 1;
}

extern "C" int tlob_forward_one_fits(int T, int D, int nh, int O, int rows, int tensor_cores,
                                     int smem_limit) {
    if (rows == 16)
        return tensor_cores ? one_fits<1, true>(T, D, nh, O, smem_limit)
                            : one_fits<1, false>(T, D, nh, O, smem_limit);
    if (rows == 32)
        return tensor_cores ? one_fits<2, true>(T, D, nh, O, smem_limit)
                            : one_fits<2, false>(T, D, nh, O, smem_limit);
    return 0;
}

template <int RT, bool TC>
static cudaError_t launch_fused(const float *x, const tlob_forward_weights *w,
                                const tlob_forward_outputs *out, int B, int T, int D, int nh,
                                int O, float scale, int one, cudaStream_t stream) {
    const int rows = 16 * RT, N = B * T, threads = fwd_threads(TC);
    if (one) {
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = one_config(
            B, T, rows, threads, tlob_forward_one_smem(T, D, nh, O, rows, TC), stream, &attr);
        return cudaLaunchKernelEx(&cfg, tlob_forward_one_kernel<RT, TC>, x, *w, *out, B, T, D, nh,
                                  O, scale);
    }
    const unsigned proj_blocks = (unsigned)((N + rows - 1) / rows);
    const dim3 rest_grid((unsigned)((T + rows - 1) / rows), (unsigned)B);
    tlob_forward_proj_kernel<RT, TC><<<proj_blocks, threads, tlob_forward_proj_smem(D, nh, rows, TC),
                                       stream>>>(x, *w, *out, N, D, D * nh);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    tlob_forward_rest_kernel<RT, TC><<<rest_grid, threads,
                                       tlob_forward_rest_smem(T, D, nh, O, rows, TC), stream>>>(
        x, *w, *out, B, T, D, nh, O, scale);
    return cudaGetLastError();
}

/* x [B, T, D]; weights and outputs as tlob_forward_weights / _outputs
 * (E = nh D, F = 4 D, O = Dout, N = B T). Two kernels: projections
 * ceil(N / rows) blocks, the rest (ceil(T / rows), B); one: (ceil(T /
 * rows), B) in clusters of a sample's blocks. */
extern "C" cudaError_t tlob_launch_forward_fused(const float *x, const tlob_forward_weights *w,
                                                 const tlob_forward_outputs *out, int B, int T,
                                                 int D, int nh, int O, float scale, int rows,
                                                 int tensor_cores, int one, cudaStream_t stream) {
    if (rows == 16)
        return tensor_cores ? launch_fused<1, true>(x, w, out, B, T, D, nh, O, scale, one, stream)
                            : launch_fused<1, false>(x, w, out, B, T, D, nh, O, scale, one, stream);
    if (rows == 32)
        return tensor_cores ? launch_fused<2, true>(x, w, out, B, T, D, nh, O, scale, one, stream)
                            : launch_fused<2, false>(x, w, out, B, T, D, nh, O, scale, one, stream);
    return cudaErrorInvalidValue;
}
