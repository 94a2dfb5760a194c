/* The MLP's thin products with their elementwise epilogues (mlp_kernels.h).
 *
 * cuBLAS needs 5-10 us for each of the layer's thin products (16384 rows, K
 * and N of 40-160) where moving their bytes takes 1.5-3.5 us, and the
 * elementwise pass after each reads the product back (docs/layer-results.md,
 * eighth pass, sections 1 and 5). Here one block owns a tile of MLP_ROWS
 * rows and a chunk of MLP_CHUNK output columns, which at BTC temporal
 * (F = 160) is the whole output width: the A tile and the weight chunk go to
 * shared memory once (rounded to TF32), the product runs on `mma.sync`
 * m16n8k8 with the accumulators in registers, and the epilogue (bias, GELU
 * or its derivative, the bias gradient's column sums) works on them before
 * the one write. The tile is spread over all eight warps by rows and output
 * columns (2 x 4 warps, each 32 rows x 40 columns), so no warp owns a long
 * serial chain (what lost in the seventh pass: docs/layer-results.md). */
#include <cuda_runtime.h>

#include "gelu.cuh"
#include "mlp_kernels.h"

#define MLP_WARPS 8
#define MLP_THREADS (32 * MLP_WARPS)
#define MLP_ROWS 64     /* rows of a block's tile: 2 warp rows x 2 m-tiles of 16 */
#define MLP_NT 5        /* n-tiles of 8 columns per warp */
#define MLP_CHUNK 160   /* output columns per pass: 4 warp columns x MLP_NT x 8 */
#define MLP_WARP_COLS (MLP_NT * 8)
/* Rows of shared memory are K rounded up to the mma's 8 plus 4 floats: a
 * stride of 4 mod 8 puts the 8 rows x 4 columns of a fragment load in 32
 * different banks. */
#define MLP_PAD 4
/* The backward adds one atomic per column per block: striding blocks over
 * the row tiles bounds them, as MAX_ACCUM_BLOCKS does in layer/kernels.cu. */
#define MLP_MAX_BLOCKS 528u

enum { MLP_FC_GELU, MLP_DG_GELU_BWD };

__device__ __forceinline__ float to_tf32(float x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
}

/* c += a b on one m16n8k8 tile (TF32 in, FP32 accumulate). Fragments, with
 * g = lane / 4, t = lane % 4: a = A(g, t), A(g+8, t), A(g, t+4), A(g+8, t+4);
 * b = B(t, g), B(t+4, g); c = C(g, 2t), C(g, 2t+1), C(g+8, 2t), C(g+8, 2t+1). */
__device__ __forceinline__ void mma_tf32(float c[4], const unsigned a[4], const unsigned b[2]) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* C [rows, cols] = A [rows, K] op(W), op(W)(k, c) = W[c K + k] when w_trans
 * (a Linear's [cols, K] weight), else W[k cols + c]; then the epilogue:
 * MLP_FC_GELU:     out = C, out2 = GELU(C + bias);
 * MLP_DG_GELU_BWD: out = C * GELU'(aux + bias), dbias += column sums of out. */
template <int EPI>
__global__ void __launch_bounds__(MLP_THREADS)
    tlob_mlp_mma_kernel(const float *__restrict__ a, const float *__restrict__ w, int w_trans,
                        const float *__restrict__ bias, const float *__restrict__ aux,
                        float *__restrict__ out, float *__restrict__ out2,
                        float *__restrict__ dbias, int rows, int K, int cols) {
    extern __shared__ float smem[]; /* As | Ws | colsum: tlob_mlp_smem */
    const int Kp = (K + 7) & ~7, ld = Kp + MLP_PAD;
    float *As = smem, *Ws = smem + MLP_ROWS * ld, *colsum = Ws + MLP_CHUNK * ld;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wrow = (warp & 1) * 32, wcol = (warp >> 1) * MLP_WARP_COLS;
    const int row_tiles = (rows + MLP_ROWS - 1) / MLP_ROWS;
    for (int c0 = 0; c0 < cols; c0 += MLP_CHUNK) {
        const int cw = min(MLP_CHUNK, cols - c0);
        /* the weight chunk, as Ws[c][k] = op(W)(k, c0 + c), zeros past K
         * and past the chunk (the previous chunk's readers are done: the
         * barrier at the end of the loop) */
        for (int i = threadIdx.x; i < MLP_CHUNK * Kp; i += MLP_THREADS) {
            int c, k;
            if (w_trans) c = i / Kp, k = i - c * Kp;             /* W's rows are contiguous in k */
            else k = i / MLP_CHUNK, c = i - k * MLP_CHUNK;       /* ... or in c */
            float v = 0.0f;
            if (c < cw && k < K)
                v = w_trans ? w[(size_t)(c0 + c) * K + k] : w[(size_t)k * cols + c0 + c];
            Ws[c * ld + k] = to_tf32(v);
        }
        /* this lane's columns: c0 + wcol + 8 j + 2 t and the next (cols is
         * even, so both exist or neither) */
        float b[MLP_NT][2], sum[MLP_NT][2];
#pragma unroll
        for (int j = 0; j < MLP_NT; j++) {
            const int c = c0 + wcol + 8 * j + 2 * t;
            b[j][0] = c < cols ? bias[c] : 0.0f;
            b[j][1] = c < cols ? bias[c + 1] : 0.0f;
            sum[j][0] = sum[j][1] = 0.0f;
        }
        for (int tile = blockIdx.x; tile < row_tiles; tile += gridDim.x) {
            const int r0 = tile * MLP_ROWS;
            __syncthreads(); /* As free; Ws written */
            for (int i = threadIdx.x; i < MLP_ROWS * Kp; i += MLP_THREADS) {
                const int r = i / Kp, k = i - r * Kp;
                As[r * ld + k] = to_tf32(r0 + r < rows && k < K ? a[(size_t)(r0 + r) * K + k] : 0.0f);
            }
            __syncthreads();
            float acc[2][MLP_NT][4];
#pragma unroll
            for (int m = 0; m < 2; m++)
#pragma unroll
                for (int j = 0; j < MLP_NT; j++)
                    acc[m][j][0] = acc[m][j][1] = acc[m][j][2] = acc[m][j][3] = 0.0f;
            for (int k0 = 0; k0 < Kp; k0 += 8) {
                unsigned af[2][4];
#pragma unroll
                for (int m = 0; m < 2; m++) {
                    const float *p = As + (wrow + 16 * m + g) * ld + k0 + t;
                    af[m][0] = __float_as_uint(p[0]);
                    af[m][1] = __float_as_uint(p[8 * ld]);
                    af[m][2] = __float_as_uint(p[4]);
                    af[m][3] = __float_as_uint(p[8 * ld + 4]);
                }
#pragma unroll
                for (int j = 0; j < MLP_NT; j++) {
                    if (wcol + 8 * j >= cw) break; /* warp-uniform: past the chunk */
                    const float *q = Ws + (wcol + 8 * j + g) * ld + k0 + t;
                    const unsigned bf[2] = {__float_as_uint(q[0]), __float_as_uint(q[4])};
                    mma_tf32(acc[0][j], af[0], bf);
                    mma_tf32(acc[1][j], af[1], bf);
                }
            }
#pragma unroll
            for (int m = 0; m < 2; m++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int r = r0 + wrow + 16 * m + 8 * h + g;
                    if (r >= rows) continue;
#pragma unroll
                    for (int j = 0; j < MLP_NT; j++) {
                        const int c = c0 + wcol + 8 * j + 2 * t;
                        if (wcol + 8 * j >= cw || c >= cols) continue;
                        const size_t i = (size_t)r * cols + c;
                        const float2 v = make_float2(acc[m][j][2 * h], acc[m][j][2 * h + 1]);
                        if (EPI == MLP_FC_GELU) {
                            *reinterpret_cast<float2 *>(out + i) = v;
                            *reinterpret_cast<float2 *>(out2 + i) =
                                make_float2(gelu(v.x + b[j][0]), gelu(v.y + b[j][1]));
                        } else {
                            const float2 f = *reinterpret_cast<const float2 *>(aux + i);
                            const float2 d = make_float2(v.x * gelu_grad(f.x + b[j][0]),
                                                         v.y * gelu_grad(f.y + b[j][1]));
                            *reinterpret_cast<float2 *>(out + i) = d;
                            sum[j][0] += d.x;
                            sum[j][1] += d.y;
                        }
                    }
                }
        }
        if (EPI == MLP_DG_GELU_BWD) {
            /* lanes of one t hold the same columns: sum over g, then the
             * two warp rows through shared memory, one atomic per column */
#pragma unroll
            for (int j = 0; j < MLP_NT; j++)
#pragma unroll
                for (int e = 0; e < 2; e++)
                    for (int off = 4; off < 32; off <<= 1)
                        sum[j][e] += __shfl_xor_sync(0xffffffffu, sum[j][e], off);
            if ((warp & 1) && g == 0)
#pragma unroll
                for (int j = 0; j < MLP_NT; j++)
                    colsum[wcol + 8 * j + 2 * t] = sum[j][0], colsum[wcol + 8 * j + 2 * t + 1] = sum[j][1];
            __syncthreads();
            if (!(warp & 1) && g == 0)
#pragma unroll
                for (int j = 0; j < MLP_NT; j++) {
                    const int c = wcol + 8 * j + 2 * t;
                    if (c >= cw) break;
                    atomicAdd(&dbias[c0 + c], sum[j][0] + colsum[c]);
                    atomicAdd(&dbias[c0 + c + 1], sum[j][1] + colsum[c + 1]);
                }
        }
        __syncthreads(); /* Ws and colsum are rewritten by the next chunk */
    }
}

extern "C" size_t tlob_mlp_smem(int K) {
    return ((size_t)(MLP_ROWS + MLP_CHUNK) * (size_t)(((K + 7) & ~7) + MLP_PAD) + MLP_CHUNK) *
           sizeof(float);
}

extern "C" cudaError_t tlob_mlp_prepare(int smem_limit) {
    cudaError_t e = cudaFuncSetAttribute(tlob_mlp_mma_kernel<MLP_FC_GELU>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_mlp_mma_kernel<MLP_DG_GELU_BWD>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    return e;
}

static unsigned mlp_grid(int rows) {
    const unsigned tiles = (unsigned)((rows + MLP_ROWS - 1) / MLP_ROWS);
    return tiles < MLP_MAX_BLOCKS ? tiles : MLP_MAX_BLOCKS;
}

static int mlp_aligned(int cols, const float *p, const float *q) {
    return cols % 2 == 0 && ((size_t)p | (size_t)q) % 8 == 0;
}

/* y1 [rows, D]; Wf [F, D]; bf [F]; f, g [rows, F] */
extern "C" cudaError_t tlob_launch_mlp_fc_gelu(const float *y1, const float *wf, const float *bf,
                                               float *f, float *g, int rows, int D, int F,
                                               cudaStream_t stream) {
    if (!mlp_aligned(F, f, g) || rows < 1 || D < 1) return cudaErrorInvalidValue;
    tlob_mlp_mma_kernel<MLP_FC_GELU><<<mlp_grid(rows), MLP_THREADS, tlob_mlp_smem(D), stream>>>(
        y1, wf, 1, bf, NULL, f, g, NULL, rows, D, F);
    return cudaGetLastError();
}

/* dz1 [rows, O]; Wf2 [O, F]; f, df [rows, F]; bf, dbf [F] */
extern "C" cudaError_t tlob_launch_mlp_dg_gelu_bwd(const float *dz1, const float *wf2,
                                                   const float *f, const float *bf, float *df,
                                                   float *dbf, int rows, int O, int F,
                                                   cudaStream_t stream) {
    if (!mlp_aligned(F, f, df) || rows < 1 || O < 1) return cudaErrorInvalidValue;
    tlob_mlp_mma_kernel<MLP_DG_GELU_BWD><<<mlp_grid(rows), MLP_THREADS, tlob_mlp_smem(O),
                                           stream>>>(dz1, wf2, 0, bf, f, df, NULL, dbf, rows, O,
                                                     F);
    return cudaGetLastError();
}
