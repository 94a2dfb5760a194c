/* The layer's own kernels: bias adds, softmax, LayerNorm, GELU, residuals and
 * their backward passes. cuBLAS does the matrix products (layer/tlob.c).
 *
 * Row kernels give one warp to one row and loop over its columns with stride
 * 32, so any width works (T need not be a multiple of 4). Column sums that
 * become parameter gradients are reduced in shared memory per block and then
 * added to the global gradient with one atomicAdd per column per block. */
#include <cuda_runtime.h>

#include "kernels.h"

#define WARP 32
#define ROW_BLOCK 256 /* threads per block for row kernels: 8 warps */
#define ROWS_PER_BLOCK (ROW_BLOCK / WARP)
#define ELEM_BLOCK 256
/* Row kernels with per-column accumulators stride over rows so that the
 * number of blocks, hence of global atomics per column, stays bounded. */
#define MAX_ACCUM_BLOCKS 264 /* two per multiprocessor on an H200 */
#define COLSUM_ROWS 64        /* rows summed by one block of tlob_colsum_kernel */

/* ---- device helpers ------------------------------------------------------ */

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = WARP / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    for (int off = WARP / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

/* GELU, exact erf form (PyTorch's nn.GELU() default). */
__device__ __forceinline__ float gelu(float x) {
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
}

__device__ __forceinline__ float gelu_grad(float x) {
    const float cdf = 0.5f * (1.0f + erff(x * 0.70710678118654752f));
    const float pdf = 0.39894228040143268f * expf(-0.5f * x * x);
    return cdf + x * pdf;
}

/* ---- kernels --------------------------------------------------------------- */

__global__ void tlob_bias_add_kernel(float *y, const float *bias, int nblocks, int rows,
                                     int cols) {
    const size_t per_block = (size_t)rows * cols;
    const size_t n = per_block * nblocks;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t b = i / per_block;
        const int c = (int)(i % cols);
        y[i] += bias[b * cols + c];
    }
}

__global__ void tlob_softmax_fwd_kernel(float *p, int rows, int cols, float scale) {
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
        for (int c = lane; c < cols; c += WARP) r[c] = expf(r[c] * scale - m) * inv;
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

__global__ void tlob_ln_fwd_kernel(const float *a, const float *bias, const float *res,
                                   const float *gamma, const float *beta, int use_gelu,
                                   const float *res2, float *h, float *mean, float *rstd,
                                   float *out, int rows, int cols) {
    const int lane = threadIdx.x % WARP;
    for (int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP; row < rows;
         row += gridDim.x * ROWS_PER_BLOCK) {
        const size_t base = (size_t)row * cols;
        float s = 0.0f;
        for (int c = lane; c < cols; c += WARP) {
            float v = a[base + c] + bias[c];
            if (res) v += res[base + c];
            h[base + c] = v;
            s += v;
        }
        const float m = warp_sum(s) / cols;
        float ss = 0.0f;
        for (int c = lane; c < cols; c += WARP) {
            const float d = h[base + c] - m;
            ss += d * d;
        }
        const float rs = rsqrtf(warp_sum(ss) / cols + 1e-5f);
        for (int c = lane; c < cols; c += WARP) {
            float v = (h[base + c] - m) * rs * gamma[c] + beta[c];
            if (use_gelu) v = gelu(v);
            if (res2) v += res2[base + c];
            out[base + c] = v;
        }
        if (lane == 0) {
            mean[row] = m;
            rstd[row] = rs;
        }
    }
}

/* Dynamic shared memory: 3 * cols floats (dgamma, dbeta, dbias partials). */
__global__ void tlob_ln_bwd_kernel(const float *dout, const float *dout2, int use_gelu,
                                   const float *h, const float *mean, const float *rstd,
                                   const float *gamma, const float *beta, float *dh,
                                   const float *skip, float *dh_plus_skip, float *dgamma,
                                   float *dbeta, float *dbias, int rows, int cols) {
    extern __shared__ float acc[];
    float *acc_g = acc, *acc_b = acc + cols, *acc_bias = acc + 2 * cols;
    for (int c = threadIdx.x; c < 3 * cols; c += blockDim.x) acc[c] = 0.0f;
    __syncthreads();

    const int lane = threadIdx.x % WARP;
    for (int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP; row < rows;
         row += gridDim.x * ROWS_PER_BLOCK) {
        const size_t base = (size_t)row * cols;
        const float m = mean[row], rs = rstd[row];
        /* pass 1: the two row means the LayerNorm gradient needs */
        float sum_dxhat = 0.0f, sum_dxhat_xhat = 0.0f;
        for (int c = lane; c < cols; c += WARP) {
            const float xhat = (h[base + c] - m) * rs;
            float g = dout[base + c];
            if (dout2) g += dout2[base + c];
            if (use_gelu) g *= gelu_grad(xhat * gamma[c] + beta[c]);
            atomicAdd(&acc_g[c], g * xhat);
            atomicAdd(&acc_b[c], g);
            const float dxhat = g * gamma[c];
            sum_dxhat += dxhat;
            sum_dxhat_xhat += dxhat * xhat;
        }
        const float mean_dxhat = warp_sum(sum_dxhat) / cols;
        const float mean_dxhat_xhat = warp_sum(sum_dxhat_xhat) / cols;
        /* pass 2: dh = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) */
        for (int c = lane; c < cols; c += WARP) {
            const float xhat = (h[base + c] - m) * rs;
            float g = dout[base + c];
            if (dout2) g += dout2[base + c];
            if (use_gelu) g *= gelu_grad(xhat * gamma[c] + beta[c]);
            const float d = rs * (g * gamma[c] - mean_dxhat - xhat * mean_dxhat_xhat);
            dh[base + c] = d;
            if (dh_plus_skip) dh_plus_skip[base + c] = skip ? d + skip[base + c] : d;
            atomicAdd(&acc_bias[c], d);
        }
    }
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        atomicAdd(&dgamma[c], acc_g[c]);
        atomicAdd(&dbeta[c], acc_b[c]);
        atomicAdd(&dbias[c], acc_bias[c]);
    }
}

__global__ void tlob_bias_gelu_fwd_kernel(float *f, const float *bias, float *g, int rows,
                                          int cols) {
    const size_t n = (size_t)rows * cols;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float v = f[i] + bias[i % cols];
        f[i] = v;
        g[i] = gelu(v);
    }
}

/* Block (x: column tile of 32, y: 8 row lanes); grid.x = column tiles,
 * grid.y = row chunks of COLSUM_ROWS rows. */
__global__ void tlob_gelu_bwd_kernel(const float *dg, const float *f, float *df,
                                     float *dbias, int rows, int cols) {
    __shared__ float part[8][WARP + 1];
    const int c = blockIdx.x * WARP + threadIdx.x;
    const int r0 = blockIdx.y * COLSUM_ROWS;
    const int r1 = min(rows, r0 + COLSUM_ROWS);
    float s = 0.0f;
    if (c < cols) {
        for (int r = r0 + threadIdx.y; r < r1; r += blockDim.y) {
            const size_t i = (size_t)r * cols + c;
            const float d = dg[i] * gelu_grad(f[i]);
            df[i] = d;
            s += d;
        }
    }
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        for (int y = 1; y < (int)blockDim.y; y++) s += part[y][threadIdx.x];
        atomicAdd(&dbias[c], s);
    }
}

/* Same tiling as tlob_gelu_bwd_kernel; grid.z = block of the batched input. */
__global__ void tlob_colsum_kernel(const float *in, float *out, int rows, int cols) {
    __shared__ float part[8][WARP + 1];
    const int c = blockIdx.x * WARP + threadIdx.x;
    const int r0 = blockIdx.y * COLSUM_ROWS;
    const int r1 = min(rows, r0 + COLSUM_ROWS);
    const float *src = in + (size_t)blockIdx.z * rows * cols;
    float s = 0.0f;
    if (c < cols)
        for (int r = r0 + threadIdx.y; r < r1; r += blockDim.y) s += src[(size_t)r * cols + c];
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        for (int y = 1; y < (int)blockDim.y; y++) s += part[y][threadIdx.x];
        atomicAdd(&out[(size_t)blockIdx.z * cols + c], s);
    }
}

__global__ void tlob_add3_kernel(float *dx, const float *parts, size_t stride, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dx[i] += parts[i] + parts[stride + i] + parts[2 * stride + i];
}

/* ---- launchers ------------------------------------------------------------- */

static unsigned elem_grid(size_t n) {
    const size_t blocks = (n + ELEM_BLOCK - 1) / ELEM_BLOCK;
    return (unsigned)(blocks < 65535u * 8u ? (blocks ? blocks : 1) : 65535u * 8u);
}

static unsigned row_grid(int rows, int bounded) {
    unsigned blocks = (unsigned)((rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
    if (blocks == 0) blocks = 1;
    if (bounded && blocks > MAX_ACCUM_BLOCKS) blocks = MAX_ACCUM_BLOCKS;
    return blocks;
}

/* y [nblocks, rows, cols] += bias [nblocks, cols] */
extern "C" cudaError_t tlob_launch_bias_add(float *y, const float *bias, int nblocks,
                                            int rows, int cols, cudaStream_t stream) {
    tlob_bias_add_kernel<<<elem_grid((size_t)nblocks * rows * cols), ELEM_BLOCK, 0, stream>>>(
        y, bias, nblocks, rows, cols);
    return cudaGetLastError();
}

/* p [rows = B*nh*T, cols = T] */
extern "C" cudaError_t tlob_launch_softmax_fwd(float *p, int rows, int cols, float scale,
                                               cudaStream_t stream) {
    tlob_softmax_fwd_kernel<<<row_grid(rows, 0), ROW_BLOCK, 0, stream>>>(p, rows, cols, scale);
    return cudaGetLastError();
}

/* dp, p [rows = B*nh*T, cols = T] */
extern "C" cudaError_t tlob_launch_softmax_bwd(float *dp, const float *p, int rows, int cols,
                                               float scale, cudaStream_t stream) {
    tlob_softmax_bwd_kernel<<<row_grid(rows, 0), ROW_BLOCK, 0, stream>>>(dp, p, rows, cols,
                                                                        scale);
    return cudaGetLastError();
}

/* a, res, res2, h, out [rows = B*T, cols]; bias, gamma, beta [cols]; mean, rstd [rows] */
extern "C" cudaError_t tlob_launch_ln_fwd(const float *a, const float *bias, const float *res,
                                          const float *gamma, const float *beta, int gelu,
                                          const float *res2, float *h, float *mean,
                                          float *rstd, float *out, int rows, int cols,
                                          cudaStream_t stream) {
    tlob_ln_fwd_kernel<<<row_grid(rows, 0), ROW_BLOCK, 0, stream>>>(
        a, bias, res, gamma, beta, gelu, res2, h, mean, rstd, out, rows, cols);
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
    const size_t smem = 3 * (size_t)cols * sizeof(float);
    tlob_ln_bwd_kernel<<<row_grid(rows, 1), ROW_BLOCK, smem, stream>>>(
        dout, dout2, gelu, h, mean, rstd, gamma, beta, dh, skip, dh_plus_skip, dgamma, dbeta,
        dbias, rows, cols);
    return cudaGetLastError();
}

/* f, g [rows = B*T, cols = 4D]; bias [cols] */
extern "C" cudaError_t tlob_launch_bias_gelu_fwd(float *f, const float *bias, float *g,
                                                 int rows, int cols, cudaStream_t stream) {
    tlob_bias_gelu_fwd_kernel<<<elem_grid((size_t)rows * cols), ELEM_BLOCK, 0, stream>>>(
        f, bias, g, rows, cols);
    return cudaGetLastError();
}

/* dg, f, df [rows = B*T, cols = 4D]; dbias [cols] */
extern "C" cudaError_t tlob_launch_gelu_bwd(const float *dg, const float *f, float *df,
                                            float *dbias, int rows, int cols,
                                            cudaStream_t stream) {
    const dim3 grid((unsigned)((cols + WARP - 1) / WARP),
                    (unsigned)((rows + COLSUM_ROWS - 1) / COLSUM_ROWS));
    tlob_gelu_bwd_kernel<<<grid, dim3(WARP, 8), 0, stream>>>(dg, f, df, dbias, rows, cols);
    return cudaGetLastError();
}

/* in [nblocks, rows, cols]; out [nblocks, cols] */
extern "C" cudaError_t tlob_launch_colsum(const float *in, float *out, int nblocks, int rows,
                                          int cols, cudaStream_t stream) {
    const dim3 grid((unsigned)((cols + WARP - 1) / WARP),
                    (unsigned)((rows + COLSUM_ROWS - 1) / COLSUM_ROWS), (unsigned)nblocks);
    tlob_colsum_kernel<<<grid, dim3(WARP, 8), 0, stream>>>(in, out, rows, cols);
    return cudaGetLastError();
}

/* dx [n]; parts [3, stride] */
extern "C" cudaError_t tlob_launch_add3(float *dx, const float *parts, size_t stride,
                                        size_t n, cudaStream_t stream) {
    tlob_add3_kernel<<<elem_grid(n), ELEM_BLOCK, 0, stream>>>(dx, parts, stride, n);
    return cudaGetLastError();
}
