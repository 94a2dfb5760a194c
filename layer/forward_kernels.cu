/* The fused forward pass (forward_kernels.h): two kernels, every operand in
 * shared memory; the products on the tensor cores (TC: TF32 wmma, FP32
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
#include <mma.h>

#include "forward_kernels.h"
#include "gelu.cuh"

using namespace nvcuda;

#define FWD_WARPS 8
#define FWD_THREADS (FWD_WARPS * 32)
#define FWD_NC 3 /* columns per thread per chunk: chunks of 48 (D = 40 in one) */
#define FWD_STAGE_LD 20 /* one warp's 16 x 16 staging tile, padded */
#define FWD_STAGE_FLOATS (FWD_WARPS * 16 * FWD_STAGE_LD)

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
        const int groups = cols_p / 4;
        for (int i = threadIdx.x; i < rows_p * groups; i += FWD_THREADS) {
            const int r = i / groups, c = 4 * (i - r * groups);
            float *d = dst + r * ld + c;
            if (r < rows && c < cols) __pipeline_memcpy_async(d, src + (size_t)r * lds + c, 16);
            else *reinterpret_cast<float4 *>(d) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
    } else {
        for (int i = threadIdx.x; i < rows_p * cols_p; i += FWD_THREADS) {
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
    for (int i = threadIdx.x; i < n; i += FWD_THREADS) __pipeline_memcpy_async(dst + i, src + i, sizeof(float));
}

/* floats of a vector region: a multiple of 8, so the next region stays aligned */
static __host__ __device__ __forceinline__ int pad8(int n) { return (n + 7) / 8 * 8; }

/* Columns [c0, pad16(c0)) of rows [0, rows) set to zero: the padding that a
 * product over those columns reads and no load or epilogue writes. */
__device__ __forceinline__ void fwd_zero_cols(float *dst, int ld, int rows, int c0) {
    const int w = pad16(c0) - c0;
    for (int i = threadIdx.x; i < rows * w; i += FWD_THREADS) dst[(i / w) * ld + c0 + i % w] = 0.0f;
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

/* The same product on the tensor cores: warp w takes the 16 x 16 output
 * tiles w, w + 8, ...; K rounded up to 8 (the padding is zero); each tile
 * goes through the warp's staging tile to out(r, j, v) for j < n. A is
 * row-major; W(j, k) is W read column-major (KMAJOR false) or row-major. */
template <int RT, bool KMAJOR, typename Out>
__device__ __forceinline__ void block_mma(const float *A, int lda, const float *W, int ldw, int n,
                                          int K, float *stage_all, Out out) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nt = (n + 15) / 16;
    float *stage = stage_all + warp * 16 * FWD_STAGE_LD;
    for (int t = warp; t < RT * nt; t += FWD_WARPS) {
        const int i = t / nt, j = t - i * nt;
        fwd_frag_acc acc;
        wmma::fill_fragment(acc, 0.0f);
        for (int k = 0; k < K; k += 8) {
            fwd_frag_a fa;
            wmma::load_matrix_sync(fa, A + i * 16 * lda + k, lda);
#pragma unroll
            for (int e = 0; e < fa.num_elements; e++) fa.x[e] = wmma::__float_to_tf32(fa.x[e]);
            if (KMAJOR) {
                fwd_frag_b_row fb;
                wmma::load_matrix_sync(fb, W + k * ldw + j * 16, ldw);
#pragma unroll
                for (int e = 0; e < fb.num_elements; e++) fb.x[e] = wmma::__float_to_tf32(fb.x[e]);
                wmma::mma_sync(acc, fa, fb, acc);
            } else {
                fwd_frag_b_col fb;
                wmma::load_matrix_sync(fb, W + j * 16 * ldw + k, ldw);
#pragma unroll
                for (int e = 0; e < fb.num_elements; e++) fb.x[e] = wmma::__float_to_tf32(fb.x[e]);
                wmma::mma_sync(acc, fa, fb, acc);
            }
        }
        wmma::store_matrix_sync(stage, acc, FWD_STAGE_LD, wmma::mem_row_major);
        __syncwarp();
        for (int e = lane; e < 256; e += 32) {
            const int r = e / 16, c = e % 16;
            if (j * 16 + c < n) out(i * 16 + r, j * 16 + c, stage[r * FWD_STAGE_LD + c]);
        }
        __syncwarp();
    }
}

template <int RT, bool TC, bool KMAJOR, typename Out>
__device__ __forceinline__ void block_product(const float *A, int lda, const float *W, int ldw,
                                              int n, int K, float *stage, Out out) {
    if (TC) block_mma<RT, KMAJOR>(A, lda, W, ldw, n, K, stage, out);
    else block_gemm<RT, KMAJOR>(A, lda, W, ldw, n, K, out);
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
    for (int r = threadIdx.x / 32; r < rows; r += FWD_THREADS / 32) {
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

/* ---- kernels --------------------------------------------------------------- */

/* Block x: rows [R x, R x + R) of the N = B T rows. Shared memory: x tile
 * [R][ld D] | q0 (k0, v0) tile [R][ld E] | Wq, Wk, Wv [pad E][ld D] each |
 * the three W_in blocks [pad E][ld E] each | staging | bq|bk|bv, b_in
 * [3E] each. */
template <int RT, bool TC>
__global__ void __launch_bounds__(FWD_THREADS)
tlob_forward_proj_kernel(const float *x, tlob_forward_weights w, tlob_forward_outputs out, int N,
                         int D, int E) {
    extern __shared__ __align__(128) float sm[];
    constexpr int R = 16 * RT;
    const int ldd = ld16(D), lde = ld16(E), n0 = blockIdx.x * R;
    const int rows = N - n0 < R ? N - n0 : R;
    const int wq = pad16(E) * ldd, wi = pad16(E) * lde; /* one weight block */
    float *Xs = sm, *P0 = Xs + R * ldd, *Wqkv = P0 + R * lde, *Win = Wqkv + 3 * wq;
    float *stage = Win + 3 * wi, *bqkv = stage + FWD_STAGE_FLOATS, *bin = bqkv + pad8(3 * E);
    fwd_load_async(Xs, ldd, x + (size_t)n0 * D, D, rows, D);
    fwd_load_vec_async(bqkv, w.qkv_b, 3 * E);
    fwd_load_vec_async(bin, w.in_b, 3 * E);
    for (int p = 0; p < 3; p++) {
        fwd_load_async(Wqkv + p * wq, ldd, w.qkv_w + (size_t)p * E * D, D, E, D);
        fwd_load_async(Win + p * wi, lde, w.in_w + (size_t)p * E * E, E, E, E);
    }
    fwd_zero_cols(P0, lde, R, E);
    fwd_copies_wait();
    const size_t NE = (size_t)N * E;
    for (int p = 0; p < 3; p++) {
        float *q = out.qkv + p * NE + (size_t)n0 * E;
        const float *b0 = bqkv + p * E, *b1 = bin + p * E;
        block_product<RT, TC, false>(Xs, ldd, Wqkv + p * wq, ldd, E, D, stage, [&](int r, int j, float v) {
            P0[r * lde + j] = v + b0[j];
        });
        __syncthreads();
        block_product<RT, TC, false>(P0, lde, Win + p * wi, lde, E, E, stage, [&](int r, int j, float v) {
            if (r < rows) q[(size_t)r * E + j] = v + b1[j];
        });
        __syncthreads();
    }
}

/* Block (x, b): query rows [R x, R x + R) of sample b. Shared memory:
 * W_out [pad E][ld E] | W0 [pad D][ld E] | Wf [pad F][ld D] | Wf2 [pad
 * O][ld F] | Q tile [R][ld D] | O tile [R][ld E] | a tile [R][ld E] | h1 /
 * y1 tile [R][ld D] | x tile [R][ld D] | staging | the vectors b_out [E],
 * b0, gamma1, beta1 [D], bf [F], bf2, gamma2, beta2 [O] | a union of K, V
 * [pad T][ld D] and S [R][ld T] (attention) with g [R][ld F] and z1
 * [R][ld O] (MLP). */
template <int RT, bool TC>
__global__ void __launch_bounds__(FWD_THREADS)
tlob_forward_rest_kernel(const float *x, tlob_forward_weights w, tlob_forward_outputs out, int B,
                         int T, int D, int nh, int O, float scale) {
    extern __shared__ __align__(128) float sm[];
    constexpr int R = 16 * RT;
    const int E = D * nh, F = 4 * D, res = O == D;
    const int ldd = ld16(D), lde = ld16(E), ldf = ld16(F), ldo = ld16(O), ldt = ld16(T);
    const int b = blockIdx.y, t0 = blockIdx.x * R, rows = T - t0 < R ? T - t0 : R;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *Wout = sm, *W0 = Wout + pad16(E) * lde, *Wf = W0 + pad16(D) * lde;
    float *Wf2 = Wf + pad16(F) * ldd, *Qs = Wf2 + pad16(O) * ldf;
    float *Os = Qs + R * ldd, *As = Os + R * lde, *Hs = As + R * lde, *Xs = Hs + R * ldd;
    float *stage = Xs + R * ldd, *bout = stage + FWD_STAGE_FLOATS, *b0 = bout + pad8(E);
    float *g1 = b0 + pad8(D), *be1 = g1 + pad8(D), *bf = be1 + pad8(D), *bf2 = bf + pad8(F);
    float *g2 = bf2 + pad8(O), *be2 = g2 + pad8(O), *U = be2 + pad8(O);
    float *Ks = U, *Vs = Ks + pad16(T) * ldd, *Ss = Vs + pad16(T) * ldd; /* attention */
    float *Gs = U, *Zs = Gs + R * ldf;                                   /* MLP */

    const size_t N = (size_t)B * T, NE = N * E, row0 = (size_t)b * T + t0;
    fwd_load_async(Wout, lde, w.out_w, E, E, E);
    fwd_load_async(W0, lde, w.w0_w, E, D, E);
    fwd_load_async(Wf, ldd, w.fc_w, D, F, D);
    fwd_load_async(Wf2, ldf, w.fc2_w, F, O, F);
    fwd_load_async(Xs, ldd, x + row0 * D, D, rows, D);
    fwd_load_vec_async(bout, w.out_b, E);
    fwd_load_vec_async(b0, w.w0_b, D);
    fwd_load_vec_async(g1, w.ln1_w, D);
    fwd_load_vec_async(be1, w.ln1_b, D);
    fwd_load_vec_async(bf, w.fc_b, F);
    fwd_load_vec_async(bf2, w.fc2_b, O);
    fwd_load_vec_async(g2, w.ln2_w, O);
    fwd_load_vec_async(be2, w.ln2_b, O);
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
        for (int r = warp; r < rows; r += FWD_WARPS) {
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
    for (int i = threadIdx.x; i < rows * E; i += FWD_THREADS) {
        const int r = i / E, c = i - r * E;
        out.o[(row0 + r) * E + c] = Os[r * lde + c];
    }
    fwd_zero_cols(Gs, ldf, R, F); /* K, V are spent */
    block_product<RT, TC, false>(Os, lde, Wout, lde, E, E, stage, [&](int r, int j, float v) {
        As[r * lde + j] = v + bout[j];
    });
    __syncthreads();
    /* h1 = a W0^T + b0 + x; y1 = LayerNorm(h1) */
    block_product<RT, TC, false>(As, lde, W0, lde, D, E, stage, [&](int r, int j, float v) {
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
    block_product<RT, TC, false>(Hs, ldd, Wf, ldd, F, D, stage, [&](int r, int j, float v) {
        const float g = gelu(v + bf[j]);
        Gs[r * ldf + j] = g;
        if (r < rows) {
            out.f[(row0 + r) * F + j] = v;
            out.g[(row0 + r) * F + j] = g;
        }
    });
    __syncthreads();
    /* z1 = g Wf2^T + bf2 (+ y1) */
    block_product<RT, TC, false>(Gs, ldf, Wf2, ldf, O, F, stage, [&](int r, int j, float v) {
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

/* ---- launchers ------------------------------------------------------------- */

extern "C" size_t tlob_forward_proj_smem(int D, int nh, int rows) {
    const size_t E = (size_t)D * nh, ldd = (size_t)ld16(D), lde = (size_t)ld16((int)E),
                 Ep = (size_t)pad16((int)E);
    return ((size_t)rows * (ldd + lde) + 3 * Ep * (ldd + lde) + FWD_STAGE_FLOATS +
            2 * (size_t)pad8(3 * (int)E)) * sizeof(float);
}

extern "C" size_t tlob_forward_rest_smem(int T, int D, int nh, int O, int rows) {
    const int E = D * nh, F = 4 * D;
    const size_t R = (size_t)rows, ldd = (size_t)ld16(D), lde = (size_t)ld16(E),
                 ldf = (size_t)ld16(F), ldo = (size_t)ld16(O), ldt = (size_t)ld16(T);
    const size_t weights = (size_t)pad16(E) * lde + (size_t)pad16(D) * lde +
                           (size_t)pad16(F) * ldd + (size_t)pad16(O) * ldf;
    const size_t tiles = R * ldd + 2 * R * lde + 2 * R * ldd + FWD_STAGE_FLOATS;
    const size_t vectors = (size_t)pad8(E) + 3 * (size_t)pad8(D) + (size_t)pad8(F) + 3 * (size_t)pad8(O);
    const size_t attention = 2 * (size_t)pad16(T) * ldd + R * ldt, mlp = R * ldf + R * ldo;
    return (weights + tiles + vectors + (attention > mlp ? attention : mlp)) * sizeof(float);
}

template <int RT, bool TC> static cudaError_t raise_limits(int smem_limit) {
    cudaError_t e = cudaFuncSetAttribute(tlob_forward_proj_kernel<RT, TC>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_forward_rest_kernel<RT, TC>,
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

template <int RT, bool TC>
static cudaError_t launch_both(const float *x, const tlob_forward_weights *w,
                               const tlob_forward_outputs *out, int B, int T, int D, int nh,
                               int O, float scale, cudaStream_t stream) {
    const int rows = 16 * RT, N = B * T;
    const unsigned proj_blocks = (unsigned)((N + rows - 1) / rows);
    const dim3 rest_grid((unsigned)((T + rows - 1) / rows), (unsigned)B);
    tlob_forward_proj_kernel<RT, TC><<<proj_blocks, FWD_THREADS, tlob_forward_proj_smem(D, nh, rows),
                                       stream>>>(x, *w, *out, N, D, D * nh);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    tlob_forward_rest_kernel<RT, TC><<<rest_grid, FWD_THREADS,
                                       tlob_forward_rest_smem(T, D, nh, O, rows), stream>>>(
        x, *w, *out, B, T, D, nh, O, scale);
    return cudaGetLastError();
}

/* x [B, T, D]; weights and outputs as tlob_forward_weights / _outputs
 * (E = nh D, F = 4 D, O = Dout, N = B T). Grids: projections ceil(N / rows)
 * blocks; the rest (ceil(T / rows), B). */
extern "C" cudaError_t tlob_launch_forward_fused(const float *x, const tlob_forward_weights *w,
                                                 const tlob_forward_outputs *out, int B, int T,
                                                 int D, int nh, int O, float scale, int rows,
                                                 int tensor_cores, cudaStream_t stream) {
    if (rows == 16)
        return tensor_cores ? launch_both<1, true>(x, w, out, B, T, D, nh, O, scale, stream)
                            : launch_both<1, false>(x, w, out, B, T, D, nh, O, scale, stream);
    if (rows == 32)
        return tensor_cores ? launch_both<2, true>(x, w, out, B, T, D, nh, O, scale, stream)
                            : launch_both<2, false>(x, w, out, B, T, D, nh, O, scale, stream);
    return cudaErrorInvalidValue;
}
