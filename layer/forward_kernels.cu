/* The fused forward pass (forward_kernels.h): two kernels, FP32 on the CUDA
 * cores, every operand in shared memory.
 *
 * Layout in shared memory: each matrix row-major with an odd row stride
 * (width | 1), so the 16 columns (or rows) a half-warp reads at one k fall on
 * 16 different banks. Products are block_gemm's: 256 threads as 16 x 16,
 * each computing RT rows (ty + 16 i) by NC columns (tx + 16 c) of a chunk of
 * 16 NC columns, FP32 fused multiply-adds in k order.
 *
 * Loads are asynchronous copies (cp.async) issued all at once and waited for
 * once (layer/attention_kernels.cu found plain loads, each waited for before
 * the next, latency-bound). A tile's rows past the end of the sample (or of
 * the batch) are zero in shared memory and never stored. */
#include <cuda_runtime.h>
#include <cuda_pipeline.h>

#include "forward_kernels.h"

#define FWD_THREADS 256
#define FWD_NC 3 /* columns per thread per chunk: chunks of 48 (D = 40 in one) */

static __host__ __device__ __forceinline__ int odd_ld(int n) { return n | 1; }

/* ---- device helpers ------------------------------------------------------ */

__device__ __forceinline__ float fwd_warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__device__ __forceinline__ float fwd_warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

/* GELU, exact erf form, as layer/kernels.cu. */
__device__ __forceinline__ float fwd_gelu(float x) {
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
}

/* dst [rows_p][ld] = src [rows][cols] (row stride lds), zeros in rows
 * [rows, rows_p); copies committed as one group, waited for by the caller. */
__device__ __forceinline__ void fwd_load_async(float *dst, int ld, const float *src, int lds,
                                               int rows, int cols, int rows_p) {
    for (int i = threadIdx.x; i < rows_p * cols; i += FWD_THREADS) {
        const int r = i / cols, c = i - r * cols;
        if (r < rows) __pipeline_memcpy_async(dst + r * ld + c, src + (size_t)r * lds + c, sizeof(float));
        else dst[r * ld + c] = 0.0f;
    }
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
 * [R][odd D] | q0 (k0, v0) tile [R][odd E] | Wq|Wk|Wv [3E][odd D] |
 * W_in [3E][odd E]. */
template <int RT>
__global__ void __launch_bounds__(FWD_THREADS)
tlob_forward_proj_kernel(const float *x, tlob_forward_weights w, tlob_forward_outputs out, int N,
                         int D, int E) {
    extern __shared__ __align__(16) float sm[];
    constexpr int R = 16 * RT;
    const int ldd = odd_ld(D), lde = odd_ld(E), n0 = blockIdx.x * R;
    const int rows = N - n0 < R ? N - n0 : R;
    float *Xs = sm, *P0 = Xs + R * ldd, *Wqkv = P0 + R * lde, *Win = Wqkv + 3 * E * ldd;
    fwd_load_async(Xs, ldd, x + (size_t)n0 * D, D, rows, D, R);
    fwd_load_async(Wqkv, ldd, w.qkv_w, D, 3 * E, D, 3 * E);
    fwd_load_async(Win, lde, w.in_w, E, 3 * E, E, 3 * E);
    fwd_copies_wait();
    const size_t NE = (size_t)N * E;
    for (int p = 0; p < 3; p++) {
        float *q0 = out.qkv0 + p * NE + (size_t)n0 * E, *q = out.qkv + p * NE + (size_t)n0 * E;
        const float *b0 = w.qkv_b + p * E, *b1 = w.in_b + p * E;
        block_gemm<RT, false>(Xs, ldd, Wqkv + p * E * ldd, ldd, E, D, [&](int r, int j, float v) {
            v += b0[j];
            P0[r * lde + j] = v;
            if (r < rows) q0[(size_t)r * E + j] = v;
        });
        __syncthreads();
        block_gemm<RT, false>(P0, lde, Win + p * E * lde, lde, E, E, [&](int r, int j, float v) {
            if (r < rows) q[(size_t)r * E + j] = v + b1[j];
        });
        __syncthreads();
    }
}

/* Block (x, b): query rows [R x, R x + R) of sample b. Shared memory:
 * W_out [E][odd E] | W0 [D][odd E] | Wf [F][odd D] | Wf2 [O][odd F] |
 * Q tile [R][odd D] | O tile [R][odd E] | a tile [R][odd E] | h1 / y1 tile
 * [R][odd D] | a union of K, V [T][odd D] and S [R][odd T] (attention) with
 * g [R][odd F] and z1 [R][odd O] (MLP). */
template <int RT>
__global__ void __launch_bounds__(FWD_THREADS)
tlob_forward_rest_kernel(const float *x, tlob_forward_weights w, tlob_forward_outputs out, int B,
                         int T, int D, int nh, int O, float scale) {
    extern __shared__ __align__(16) float sm[];
    constexpr int R = 16 * RT;
    const int E = D * nh, F = 4 * D, res = O == D;
    const int ldd = odd_ld(D), lde = odd_ld(E), ldf = odd_ld(F), ldo = odd_ld(O), ldt = odd_ld(T);
    const int b = blockIdx.y, t0 = blockIdx.x * R, rows = T - t0 < R ? T - t0 : R;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *Wout = sm, *W0 = Wout + E * lde, *Wf = W0 + D * lde, *Wf2 = Wf + F * ldd;
    float *Qs = Wf2 + O * ldf, *Os = Qs + R * ldd, *As = Os + R * lde, *Hs = As + R * lde;
    float *U = Hs + R * ldd;
    float *Ks = U, *Vs = Ks + T * ldd, *Ss = Vs + T * ldd; /* attention */
    float *Gs = U, *Zs = Gs + R * ldf;                     /* MLP */

    const size_t N = (size_t)B * T, NE = N * E, row0 = (size_t)b * T + t0;
    fwd_load_async(Wout, lde, w.out_w, E, E, E, E);
    fwd_load_async(W0, lde, w.w0_w, E, D, E, D);
    fwd_load_async(Wf, ldd, w.fc_w, D, F, D, F);
    fwd_load_async(Wf2, ldf, w.fc2_w, F, O, F, O);
    for (int h = 0; h < nh; h++) {
        const float *q = out.qkv + row0 * E + h * D, *k = out.qkv + NE + (size_t)b * T * E + h * D;
        if (h > 0) __syncthreads(); /* the previous head's K, V and S are spent */
        fwd_load_async(Qs, ldd, q, E, rows, D, R);
        fwd_load_async(Ks, ldd, k, E, T, D, T);
        fwd_load_async(Vs, ldd, k + NE, E, T, D, T);
        fwd_copies_wait();
        /* S = Q K^T */
        block_gemm<RT, false>(Qs, ldd, Ks, ldd, T, D,
                              [&](int r, int j, float v) { Ss[r * ldt + j] = v; });
        __syncthreads();
        /* P = softmax(scale S) per row, as tlob_softmax_fwd_kernel */
        float *P = out.att + (((size_t)b * nh + h) * T + t0) * T;
        float *Pc = out.att_copy ? out.att_copy + (((size_t)b * nh + h) * T + t0) * T : NULL;
        for (int r = warp; r < rows; r += FWD_THREADS / 32) {
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
        block_gemm<RT, true>(Ss, ldt, Vs, ldd, D, T,
                             [&](int r, int j, float v) { Os[r * lde + h * D + j] = v; });
    }
    __syncthreads();
    /* o is saved for the backward; a = o W_out^T + b_out */
    for (int i = threadIdx.x; i < rows * E; i += FWD_THREADS) {
        const int r = i / E, c = i - r * E;
        out.o[(row0 + r) * E + c] = Os[r * lde + c];
    }
    block_gemm<RT, false>(Os, lde, Wout, lde, E, E, [&](int r, int j, float v) {
        v += w.out_b[j];
        As[r * lde + j] = v;
        if (r < rows) out.a[(row0 + r) * E + j] = v;
    });
    __syncthreads();
    /* h1 = a W0^T + b0 + x; y1 = LayerNorm(h1) */
    block_gemm<RT, false>(As, lde, W0, lde, D, E, [&](int r, int j, float v) {
        if (r < rows) {
            v += w.w0_b[j] + x[(row0 + r) * D + j];
            out.h1[(row0 + r) * D + j] = v;
        }
        Hs[r * ldd + j] = r < rows ? v : 0.0f;
    });
    __syncthreads();
    block_layernorm(Hs, ldd, rows, D, w.ln1_w, w.ln1_b, out.mean1 + row0, out.rstd1 + row0,
                    [&](int r, int c, float v) {
                        Hs[r * ldd + c] = v;
                        out.y1[(row0 + r) * D + c] = v;
                    });
    __syncthreads();
    /* f = y1 Wf^T (saved without its bias), g = GELU(f + bf) */
    block_gemm<RT, false>(Hs, ldd, Wf, ldd, F, D, [&](int r, int j, float v) {
        const float g = fwd_gelu(v + w.fc_b[j]);
        Gs[r * ldf + j] = g;
        if (r < rows) {
            out.f[(row0 + r) * F + j] = v;
            out.g[(row0 + r) * F + j] = g;
        }
    });
    __syncthreads();
    /* z1 = g Wf2^T + bf2 (+ y1) */
    block_gemm<RT, false>(Gs, ldf, Wf2, ldf, O, F, [&](int r, int j, float v) {
        v += w.fc2_b[j] + (res ? Hs[r * ldd + j] : 0.0f);
        Zs[r * ldo + j] = v;
        if (r < rows) out.z1[(row0 + r) * O + j] = v;
    });
    __syncthreads();
    /* y = GELU(LayerNorm(z1)) (+ x) */
    block_layernorm(Zs, ldo, rows, O, w.ln2_w, w.ln2_b, out.mean2 + row0, out.rstd2 + row0,
                    [&](int r, int c, float v) {
                        out.y[(row0 + r) * O + c] =
                            fwd_gelu(v) + (res ? x[(row0 + r) * D + c] : 0.0f);
                    });
}

/* ---- launchers ------------------------------------------------------------- */

extern "C" size_t tlob_forward_proj_smem(int D, int nh, int rows) {
    const size_t E = (size_t)D * nh, ldd = (size_t)odd_ld(D), lde = (size_t)odd_ld((int)E);
    return ((size_t)rows * (ldd + lde) + 3 * E * (ldd + lde)) * sizeof(float);
}

extern "C" size_t tlob_forward_rest_smem(int T, int D, int nh, int O, int rows) {
    const size_t E = (size_t)D * nh, F = 4 * (size_t)D, R = (size_t)rows;
    const size_t ldd = (size_t)odd_ld(D), lde = (size_t)odd_ld((int)E), ldf = (size_t)odd_ld((int)F),
                 ldo = (size_t)odd_ld(O), ldt = (size_t)odd_ld(T);
    const size_t weights = E * lde + D * lde + F * ldd + O * ldf;
    const size_t tiles = R * ldd + 2 * R * lde + R * ldd;
    const size_t attention = 2 * (size_t)T * ldd + R * ldt, mlp = R * ldf + R * ldo;
    return (weights + tiles + (attention > mlp ? attention : mlp)) * sizeof(float);
}

extern "C" cudaError_t tlob_forward_fused_prepare(int smem_limit) {
    cudaError_t e = cudaFuncSetAttribute(tlob_forward_proj_kernel<1>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_forward_proj_kernel<2>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_forward_rest_kernel<1>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_forward_rest_kernel<2>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    return e;
}

/* x [B, T, D]; weights and outputs as tlob_forward_weights / _outputs
 * (E = nh D, F = 4 D, O = Dout, N = B T). Grids: projections ceil(N / rows)
 * blocks; the rest (ceil(T / rows), B). */
extern "C" cudaError_t tlob_launch_forward_fused(const float *x, const tlob_forward_weights *w,
                                                 const tlob_forward_outputs *out, int B, int T,
                                                 int D, int nh, int O, float scale, int rows,
                                                 cudaStream_t stream) {
    if (rows != 16 && rows != 32) return cudaErrorInvalidValue;
    const int N = B * T, E = D * nh;
    const unsigned proj_blocks = (unsigned)((N + rows - 1) / rows);
    const dim3 rest_grid((unsigned)((T + rows - 1) / rows), (unsigned)B);
    const size_t proj_smem = tlob_forward_proj_smem(D, nh, rows),
                 rest_smem = tlob_forward_rest_smem(T, D, nh, O, rows);
    if (rows == 16) {
        tlob_forward_proj_kernel<1><<<proj_blocks, FWD_THREADS, proj_smem, stream>>>(x, *w, *out, N, D, E);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        tlob_forward_rest_kernel<1><<<rest_grid, FWD_THREADS, rest_smem, stream>>>(x, *w, *out, B, T, D,
                                                                                   nh, O, scale);
    } else {
        tlob_forward_proj_kernel<2><<<proj_blocks, FWD_THREADS, proj_smem, stream>>>(x, *w, *out, N, D, E);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        tlob_forward_rest_kernel<2><<<rest_grid, FWD_THREADS, rest_smem, stream>>>(x, *w, *out, B, T, D,
                                                                                   nh, O, scale);
    }
    return cudaGetLastError();
}
