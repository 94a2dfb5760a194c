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

#include "async_copy.cuh"
#include "gelu.cuh"
#include "mlp_kernels.h"
#include "mma_tf32.cuh"

#define MLP_WARPS 8
#define MLP_THREADS (32 * MLP_WARPS)
#define MLP_ROWS 64     /* rows of a block's tile: 2 warp rows x 2 m-tiles of 16 */
#define MLP_NT 5        /* n-tiles of 8 columns per warp */
#define MLP_CHUNK TLOB_MLP_CHUNK /* output columns per pass: 4 warp columns x MLP_NT x 8 */
static_assert(MLP_CHUNK == 4 * MLP_NT * 8, "a chunk is the four warp columns");
#define MLP_WARP_COLS (MLP_NT * 8)
/* Row strides in shared memory. Tiles read by rows of K (A, and a Linear's
 * [cols, K] weight) are K rounded up to the mma's 8 plus 4 floats: a stride
 * of 4 mod 8 puts a fragment's 8 rows x 4 columns in 32 different banks.
 * Tiles read by columns (a [K, cols] weight, the backward's f) are
 * MLP_CHUNK + 8 = 168 floats: 8 mod 32 puts 4 rows x 8 columns in 32 banks. */
#define MLP_KPAD 4
#define MLP_LDC (MLP_CHUNK + 8)
/* The backward adds one atomic per column per block: striding blocks over
 * the row tiles bounds them, as MAX_ACCUM_BLOCKS does in layer/kernels.cu. */
#define MLP_MAX_BLOCKS 528u

/* dy1 = df Wf inside the backward kernel (MLP_DG_GELU_BWD_DY1): the block's
 * df tile [MLP_ROWS, F] is in shared memory once its epilogue is done, so
 * where F fits one chunk and D one warp's columns, Wf [F, D] is loaded once
 * a block (MLP_LDY floats a row: 8 mod 32 puts a B fragment's 4 rows x 8
 * columns in 32 banks) and the tile times it is one more small mma. At BTC
 * temporal this is cuBLAS's [16384, 160] x [160, 40] product (its own node of
 * the graph) in about 2.6 MB more written by a kernel already running. */
#define MLP_LDY MLP_WARP_COLS
static_assert(MLP_LDY % 32 == 8, "Wd's rows: 8 mod 32 floats");
#define MLP_LDS 44 /* dy1's staging rows (in As's place): 16-byte rows */

/* MLP_LN_DG_DY1: LayerNorm 2's backward makes the A tile (dz1) in the
 * kernel, eight lanes a row of O <= MLP_LN_COLS (tlob_mlp_ln_bwd), instead
 * of a separate row kernel reading and writing it (its own graph node, 7.0
 * us at BTC temporal, twelfth pass). Measured on the H200 (graphed TF32
 * fwd+bwd at BTC temporal, docs/layer-results.md, fifteenth pass): 210.0 us
 * before, 208.2 with dy1 here, 206.9 with this too; LayerNorm 1's backward
 * at the end as well (dy1 kept on chip) was slower, 209.5: each block runs
 * one tile whose steps wait on each other, so fusing row passes moves their
 * latency into the kernel more than it removes it. */
#define MLP_LN_LANES 8
#define MLP_LN_COLS 40
#define MLP_LN_PER_LANE (MLP_LN_COLS / MLP_LN_LANES)

/* MLP_FC_GELU_FC2_LN: the forward's fc2 and LayerNorm 2 after its g
 * (tlob_mlp_fc2_ln), LayerNorm 1 before its A tile (ln1_tile below). g stays in Os (the f tile's place) as the A operand of
 * z0 = g W2^T, W2 [O, F] loaded once a block (F + 4 floats a row rounded to
 * 8 + 4: a B fragment's 8 rows x 4 columns in 32 banks), warps mapped as
 * dy1's product below; h = z0 + b (+ y1, read from As) goes to As's place
 * at MLP_LDS floats a row, then LayerNorm 2 runs on it eight lanes a row
 * (tlob_ln_fwd_kernel<8, 5>'s lanes, layer/kernels.cu). At BTC temporal
 * this is cuBLAS's [16384, 160] x [160, 40] product and the LayerNorm
 * kernel, two graph nodes (9.8 + 8.2 us under Nsight Compute,
 * docs/layer-results.md, "Where the time goes on merged main"), and z0's
 * 2.6 MB written and read back. */
enum { MLP_FC_GELU, MLP_DG_GELU_BWD, MLP_DG_GELU_BWD_DY1, MLP_LN_DG_DY1, MLP_FC_GELU_FC2_LN };

__device__ __forceinline__ float sum8(float v) {
    for (int off = 1; off < MLP_LN_LANES; off <<= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

/* dst[r ldd + c] = src[r lds + c] where r < vr and c < vc, else 0, for
 * r < R, c < C (C a multiple of 4). vec: 16-byte copies (lds, vc and src's
 * address multiples of 4 floats; ldd always is). */
__device__ __forceinline__ void tile_async(float *dst, int ldd, const float *src, size_t lds,
                                           int R, int C, int vr, int vc, bool vec) {
    if (vec) {
        const int c4 = C / 4;
        for (int i = threadIdx.x; i < R * c4; i += MLP_THREADS) {
            const int r = i / c4, c = 4 * (i - r * c4);
            const bool ok = r < vr && c < vc;
            copy16(dst + r * ldd + c, ok ? src + r * lds + c : src, ok);
        }
    } else {
        for (int i = threadIdx.x; i < R * C; i += MLP_THREADS) {
            const int r = i / C, c = i - r * C;
            const bool ok = r < vr && c < vc;
            copy4(dst + r * ldd + c, ok ? src + r * lds + c : src, ok);
        }
    }
}

__device__ __forceinline__ bool aligned16(const float *p) { return ((size_t)p & 15u) == 0; }

/* MLP_FC_GELU_FC2_LN's prologue on one tile: LayerNorm 1 (tlob_mlp_ln1_fwd)
 * eight lanes a row, its y1 into the A tile As (zeros past vr rows and D
 * columns, up to Kp <= 40) and to memory. It loads r and x where the other
 * variants copy y1: the same one round trip a tile, and LayerNorm 1's own
 * graph node (6.7 us under Nsight Compute at BTC temporal) gone. */
__device__ __forceinline__ void ln1_tile(const tlob_mlp_ln1_fwd &p, float *As, int lda, int D,
                                         int Kp, int r0, int vr) {
    const int sub = threadIdx.x % MLP_LN_LANES;
    for (int r = threadIdx.x / MLP_LN_LANES; r < MLP_ROWS; r += MLP_THREADS / MLP_LN_LANES) {
        const bool live = r < vr;
        const size_t base = (size_t)(r0 + (live ? r : 0)) * D;
        float v[MLP_LN_PER_LANE], s = 0.0f;
#pragma unroll
        for (int k = 0; k < MLP_LN_PER_LANE; k++) {
            const int c = sub + MLP_LN_LANES * k;
            v[k] = live && c < D ? p.r[base + c] + p.b[c] + p.res[base + c] : 0.0f;
            s += v[k];
        }
        const float m = sum8(s) / D;
        float ss = 0.0f;
#pragma unroll
        for (int k = 0; k < MLP_LN_PER_LANE; k++)
            if (sub + MLP_LN_LANES * k < D) ss += (v[k] - m) * (v[k] - m);
        const float rs = rsqrtf(sum8(ss) / D + 1e-5f);
#pragma unroll
        for (int k = 0; k < MLP_LN_PER_LANE; k++) {
            const int c = sub + MLP_LN_LANES * k;
            const bool in = live && c < D;
            const float y = in ? (v[k] - m) * rs * p.gamma[c] + p.beta[c] : 0.0f;
            if (c < Kp) As[r * lda + c] = y;
            if (in) p.h[base + c] = v[k], p.y[base + c] = y;
        }
        if (live && sub == 0) p.mean[r0 + r] = m, p.rstd[r0 + r] = rs;
    }
}

/* MLP_FC_GELU_FC2_LN's epilogue on one tile (rows r0 .. r0 + vr - 1), once
 * the tile's g is in Gs (Os; its rows past vr and columns past F hold the
 * zeros that y1's and Wf's zero-filled rows gave f): z0 = g W2^T, h = z0 +
 * b (+ y1 from As), LayerNorm 2 and GELU (+ res2). */
__device__ __forceinline__ void fc2_ln_tile(const tlob_mlp_fc2_ln &p, float *As, int lda,
                                            const float *Gs, const float *W2, int ld2, int Fp,
                                            int r0, int vr) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3, O = p.O;
    __syncthreads(); /* g in Gs */
    /* warp w: rows 16 (w % 4), n-tiles 0-2 or 3-4 (O <= 40) */
    const int mr = 16 * (warp & 3), j0 = warp < 4 ? 0 : 3, nj = warp < 4 ? 3 : 2;
    float acc[3][4];
#pragma unroll
    for (int j = 0; j < 3; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;
    for (int k0 = 0; k0 < Fp; k0 += 8) {
        const float *q = Gs + (mr + g) * MLP_LDC + k0 + t;
        const unsigned af[4] = {to_tf32(q[0]), to_tf32(q[8 * MLP_LDC]), to_tf32(q[4]),
                                to_tf32(q[8 * MLP_LDC + 4])};
#pragma unroll
        for (int j = 0; j < 3; j++) {
            const int n = 8 * (j0 + j);
            if (j >= nj || n >= O) break; /* warp-uniform */
            const float *w = W2 + (n + g) * ld2 + k0 + t;
            const unsigned bf[2] = {to_tf32(w[0]), to_tf32(w[4])};
            mma_tf32(acc[j], af, bf);
        }
    }
    /* h = z0 + b (+ y1) in registers; As (y1) is rewritten after the barrier */
#pragma unroll
    for (int j = 0; j < 3; j++) {
        const int n = 8 * (j0 + j);
        if (j >= nj || n >= O) break;
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int r = mr + g + 8 * (e >> 1), c = n + 2 * t + (e & 1);
            if (c < O) acc[j][e] = acc[j][e] + p.b[c] + (p.res ? As[r * lda + c] : 0.0f);
        }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 3; j++) {
        const int n = 8 * (j0 + j);
        if (j >= nj || n >= O) break;
#pragma unroll
        for (int h = 0; h < 2; h++)
            *reinterpret_cast<float2 *>(As + (mr + 8 * h + g) * MLP_LDS + n + 2 * t) =
                make_float2(acc[j][2 * h], acc[j][2 * h + 1]);
    }
    __syncthreads();
    /* LayerNorm 2, eight lanes a row, 32 rows a pass (every lane runs both
     * passes: sum8 needs the whole warp) */
    const int sub = threadIdx.x % MLP_LN_LANES;
    for (int r = threadIdx.x / MLP_LN_LANES; r < MLP_ROWS; r += MLP_THREADS / MLP_LN_LANES) {
        const bool live = r < vr;
        float v[MLP_LN_PER_LANE], s = 0.0f;
#pragma unroll
        for (int k = 0; k < MLP_LN_PER_LANE; k++) {
            const int c = sub + MLP_LN_LANES * k;
            v[k] = live && c < O ? As[r * MLP_LDS + c] : 0.0f;
            s += v[k];
        }
        const float m = sum8(s) / O;
        float ss = 0.0f;
#pragma unroll
        for (int k = 0; k < MLP_LN_PER_LANE; k++)
            if (sub + MLP_LN_LANES * k < O) ss += (v[k] - m) * (v[k] - m);
        const float rs = rsqrtf(sum8(ss) / O + 1e-5f);
        if (!live) continue;
        const size_t base = (size_t)(r0 + r) * O;
#pragma unroll
        for (int k = 0; k < MLP_LN_PER_LANE; k++) {
            const int c = sub + MLP_LN_LANES * k;
            if (c >= O) break;
            p.h[base + c] = v[k];
            float y = gelu((v[k] - m) * rs * p.gamma[c] + p.beta[c]);
            if (p.res2) y += p.res2[base + c];
            p.y[base + c] = y;
        }
        if (sub == 0) p.mean[r0 + r] = m, p.rstd[r0 + r] = rs;
    }
}

/* C [rows, cols] = A [rows, K] op(W), then the epilogue:
 * MLP_FC_GELU:     op(W)(k, c) = W[c K + k] (a Linear's [cols, K] weight);
 *                  out = C, out2 = GELU(C + bias);
 * MLP_FC_GELU_FC2_LN: the same, with LayerNorm 1 before (A is fc2.ln1's y,
 *                  a is not read) and fc2 after, as above (cols <= MLP_CHUNK);
 * MLP_DG_GELU_BWD: op(W)(k, c) = W[k cols + c];
 *                  out = C * GELU'(aux + bias), dbias += column sums of out;
 * MLP_DG_GELU_BWD_DY1: the same, and out2 [rows, D] = out wd (wd [cols, D];
 *                  cols <= MLP_CHUNK, D <= MLP_WARP_COLS);
 * MLP_LN_DG_DY1:   the same, with A from ln (a is not read; K <= MLP_LN_COLS).
 * The epilogue's results go through a shared-memory tile (Os) and leave in
 * whole rows of float4s: stored from the mma's fragments directly (8 rows x
 * 32 bytes a store), the forward kernel took 14.7 and, with cp.async
 * loads, 26.7 us at BTC temporal (45 % of its global sectors excessive,
 * Nsight Compute); through the tile, 14.0 (docs/layer-results.md, ninth
 * pass). */
template <int EPI>
__global__ void __launch_bounds__(MLP_THREADS)
    tlob_mlp_mma_kernel(const float *__restrict__ a, const float *__restrict__ w,
                        const float *__restrict__ bias, const float *__restrict__ aux,
                        float *__restrict__ out, float *__restrict__ out2,
                        float *__restrict__ dbias, const float *__restrict__ wd,
                        const tlob_mlp_ln_bwd ln, const tlob_mlp_fc2_ln fc2, int rows, int K,
                        int cols, int D) {
    constexpr bool FC2 = EPI == MLP_FC_GELU_FC2_LN;
    constexpr bool LN = EPI == MLP_LN_DG_DY1;
    constexpr bool DY1 = EPI == MLP_DG_GELU_BWD_DY1 || LN;
    constexpr bool BWD = EPI == MLP_DG_GELU_BWD || DY1;
    extern __shared__ float smem[]; /* As | Ws | vec | Os (| Wd (| Ls)): mlp_smem */
    const int Kp = (K + 7) & ~7, lda = Kp + MLP_KPAD;
    float *As = smem, *Ws = As + MLP_ROWS * (DY1 || FC2 ? max(lda, MLP_LDS) : lda);
    /* vec: the forward's bias chunk, the backward's column sums */
    float *vec = Ws + (BWD ? Kp * MLP_LDC : MLP_CHUNK * lda), *Os = vec + MLP_CHUNK;
    float *Wd = Os + MLP_ROWS * MLP_LDC; /* DY1: Wf [Fp][MLP_LDY]; FC2: W2 [Op][ld2] */
    const int Fp = (cols + 7) & ~7, ld2 = Fp + MLP_KPAD;
    /* LN: the block's column sums of dgamma, dbeta, dbias [3][MLP_LN_COLS] */
    float *Ls = Wd + Fp * MLP_LDY;
    if (LN)
        for (int i = threadIdx.x; i < 3 * MLP_LN_COLS; i += MLP_THREADS) Ls[i] = 0.0f;
    const bool d_vec = D % 4 == 0 && aligned16(wd) && aligned16(out2);
    if (DY1) tile_async(Wd, MLP_LDY, wd, (size_t)D, Fp, MLP_LDY, cols, D, d_vec);
    if (FC2)
        tile_async(Wd, ld2, fc2.w, (size_t)cols, (fc2.O + 7) & ~7, Fp, fc2.O, cols,
                   cols % 4 == 0 && aligned16(fc2.w));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wrow = (warp & 1) * 32, wcol = (warp >> 1) * MLP_WARP_COLS;
    const int row_tiles = (rows + MLP_ROWS - 1) / MLP_ROWS;
    /* 16-byte copies where rows are whole float4s from a 16-byte boundary */
    const bool a_vec = K % 4 == 0 && aligned16(a);
    const bool w_vec = (BWD ? cols : K) % 4 == 0 && aligned16(w);
    const bool o_vec = cols % 4 == 0 && aligned16(out) && (BWD ? aligned16(aux) : aligned16(out2));
    for (int c0 = 0; c0 < cols; c0 += MLP_CHUNK) {
        const int cw = min(MLP_CHUNK, cols - c0);
        /* the weight chunk (the previous chunk's readers are done: the
         * barrier at the end of the loop) */
        if (BWD) tile_async(Ws, MLP_LDC, w + c0, (size_t)cols, Kp, MLP_CHUNK, K, cw, w_vec);
        else tile_async(Ws, lda, w + (size_t)c0 * K, (size_t)K, MLP_CHUNK, Kp, cw, K, w_vec);
        /* the backward's bias for this lane's columns c0 + wcol + 8 j + 2 t
         * and the next (cols is even, so both exist or neither) */
        float b[MLP_NT][2], sum[MLP_NT][2];
#pragma unroll
        for (int j = 0; j < MLP_NT; j++) {
            const int c = c0 + wcol + 8 * j + 2 * t;
            b[j][0] = BWD && c < cols ? bias[c] : 0.0f;
            b[j][1] = BWD && c < cols ? bias[c + 1] : 0.0f;
            sum[j][0] = sum[j][1] = 0.0f;
        }
        if (!BWD)
            for (int i = threadIdx.x; i < MLP_CHUNK; i += MLP_THREADS)
                vec[i] = i < cw ? bias[c0 + i] : 0.0f;
        for (int tile = blockIdx.x; tile < row_tiles; tile += gridDim.x) {
            const int r0 = tile * MLP_ROWS, vr = min(MLP_ROWS, rows - r0);
            __syncthreads(); /* As and Os free */
            if (FC2) ln1_tile(fc2.ln1, As, lda, K, Kp, r0, vr);
            else if (!LN)
                tile_async(As, lda, a + (size_t)r0 * K, (size_t)K, MLP_ROWS, Kp, vr, K, a_vec);
            if (BWD)
                tile_async(Os, MLP_LDC, aux + (size_t)r0 * cols + c0, (size_t)cols, MLP_ROWS,
                           MLP_CHUNK, vr, cw, o_vec);
            if (LN) { /* the A tile: LayerNorm 2's backward, 32 rows a pass, as
                       * tlob_ln_bwd_kernel<8, 5> (layer/kernels.cu) does it */
                const int sub = threadIdx.x % MLP_LN_LANES;
                float cs[3][MLP_LN_PER_LANE] = {};
                for (int r = threadIdx.x / MLP_LN_LANES; r < MLP_ROWS;
                     r += MLP_THREADS / MLP_LN_LANES) {
                    const bool live = r < vr;
                    const size_t base = (size_t)(r0 + (live ? r : 0)) * K;
                    const float m = live ? ln.mean[r0 + r] : 0.0f, rs = live ? ln.rstd[r0 + r] : 0.0f;
                    float gk[MLP_LN_PER_LANE], xk[MLP_LN_PER_LANE], s1 = 0.0f, s2 = 0.0f;
#pragma unroll
                    for (int k = 0; k < MLP_LN_PER_LANE; k++) {
                        const int c = sub + MLP_LN_LANES * k;
                        gk[k] = xk[k] = 0.0f;
                        if (live && c < K) {
                            xk[k] = (ln.h[base + c] - m) * rs;
                            gk[k] = ln.dy[base + c] * gelu_grad(xk[k] * ln.gamma[c] + ln.beta[c]);
                            s1 += gk[k] * ln.gamma[c];
                            s2 += gk[k] * ln.gamma[c] * xk[k];
                        }
                    }
                    s1 = sum8(s1) / K, s2 = sum8(s2) / K;
#pragma unroll
                    for (int k = 0; k < MLP_LN_PER_LANE; k++) {
                        const int c = sub + MLP_LN_LANES * k;
                        const bool in = live && c < K;
                        const float d = in ? rs * (gk[k] * ln.gamma[c] - s1 - xk[k] * s2) : 0.0f;
                        if (c < Kp) As[r * lda + c] = d; /* zeros past the rows and K */
                        if (in) ln.dh[base + c] = d;
                        cs[0][k] += gk[k] * xk[k], cs[1][k] += gk[k], cs[2][k] += d;
                    }
                }
                /* the warp's four row groups hold the same columns: sum them,
                 * then one shared atomic per column a warp */
#pragma unroll
                for (int q = 0; q < 3; q++)
#pragma unroll
                    for (int k = 0; k < MLP_LN_PER_LANE; k++) {
                        float v = cs[q][k];
                        for (int off = MLP_LN_LANES; off < 32; off <<= 1)
                            v += __shfl_xor_sync(0xffffffffu, v, off);
                        const int c = sub + MLP_LN_LANES * k;
                        if (lane < MLP_LN_LANES && c < K) atomicAdd(&Ls[q * MLP_LN_COLS + c], v);
                    }
            }
            copies_wait_all();
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
                    const float *p = As + (wrow + 16 * m + g) * lda + k0 + t;
                    af[m][0] = to_tf32(p[0]);
                    af[m][1] = to_tf32(p[8 * lda]);
                    af[m][2] = to_tf32(p[4]);
                    af[m][3] = to_tf32(p[8 * lda + 4]);
                }
#pragma unroll
                for (int j = 0; j < MLP_NT; j++) {
                    if (wcol + 8 * j >= cw) break; /* warp-uniform: past the chunk */
                    const int n = wcol + 8 * j + g;
                    unsigned bf[2];
                    if (BWD) {
                        bf[0] = to_tf32(Ws[(k0 + t) * MLP_LDC + n]);
                        bf[1] = to_tf32(Ws[(k0 + t + 4) * MLP_LDC + n]);
                    } else {
                        bf[0] = to_tf32(Ws[n * lda + k0 + t]);
                        bf[1] = to_tf32(Ws[n * lda + k0 + t + 4]);
                    }
                    mma_tf32(acc[0][j], af[0], bf);
                    mma_tf32(acc[1][j], af[1], bf);
                }
            }
            /* fragments to Os (the backward: df in place of f). Rows past
             * `rows` and columns past the chunk hold zeros: their A rows and
             * W columns were zero-filled, so they add nothing to the sums. */
#pragma unroll
            for (int m = 0; m < 2; m++)
#pragma unroll
                for (int h = 0; h < 2; h++)
#pragma unroll
                    for (int j = 0; j < MLP_NT; j++) {
                        if (wcol + 8 * j >= cw) break;
                        float2 *o = reinterpret_cast<float2 *>(
                            Os + (wrow + 16 * m + 8 * h + g) * MLP_LDC + wcol + 8 * j + 2 * t);
                        float2 v = make_float2(acc[m][j][2 * h], acc[m][j][2 * h + 1]);
                        if (BWD) {
                            const float2 f = *o;
                            v.x *= gelu_grad(f.x + b[j][0]);
                            v.y *= gelu_grad(f.y + b[j][1]);
                            sum[j][0] += v.x;
                            sum[j][1] += v.y;
                        }
                        *o = v;
                    }
            __syncthreads();
            /* DY1: dy1 tile = df tile (Os) x Wd, to As's place (As's readers
             * are past the barrier above); warp w: rows 16 (w % 4), n-tiles
             * 0-2 or 3-4 */
            if (DY1) {
                const int mr = 16 * (warp & 3), j0 = warp < 4 ? 0 : 3, nj = warp < 4 ? 3 : 2;
                float dacc[3][4];
#pragma unroll
                for (int j = 0; j < 3; j++) dacc[j][0] = dacc[j][1] = dacc[j][2] = dacc[j][3] = 0.0f;
                for (int k0 = 0; k0 < Fp; k0 += 8) {
                    const float *p = Os + (mr + g) * MLP_LDC + k0 + t;
                    const unsigned af[4] = {to_tf32(p[0]), to_tf32(p[8 * MLP_LDC]), to_tf32(p[4]),
                                            to_tf32(p[8 * MLP_LDC + 4])};
#pragma unroll
                    for (int j = 0; j < 3; j++) {
                        const int n = 8 * (j0 + j);
                        if (j >= nj || n >= D) break; /* warp-uniform */
                        const unsigned bf[2] = {to_tf32(Wd[(k0 + t) * MLP_LDY + n + g]),
                                                to_tf32(Wd[(k0 + t + 4) * MLP_LDY + n + g])};
                        mma_tf32(dacc[j], af, bf);
                    }
                }
#pragma unroll
                for (int j = 0; j < 3; j++) {
                    const int n = 8 * (j0 + j);
                    if (j >= nj || n >= D) break;
#pragma unroll
                    for (int h = 0; h < 2; h++)
                        *reinterpret_cast<float2 *>(As + (mr + 8 * h + g) * MLP_LDS + n + 2 * t) =
                            make_float2(dacc[j][2 * h], dacc[j][2 * h + 1]);
                }
            }
            /* Os to out (and GELU(Os + bias) to out2) in whole rows */
            if (o_vec) {
                const int c4 = cw / 4;
                for (int i = threadIdx.x; i < vr * c4; i += MLP_THREADS) {
                    const int r = i / c4, c = 4 * (i - r * c4);
                    const float4 v = *reinterpret_cast<const float4 *>(Os + r * MLP_LDC + c);
                    const size_t o = (size_t)(r0 + r) * cols + c0 + c;
                    *reinterpret_cast<float4 *>(out + o) = v;
                    if (!BWD) {
                        const float4 ge =
                            make_float4(gelu(v.x + vec[c]), gelu(v.y + vec[c + 1]),
                                        gelu(v.z + vec[c + 2]), gelu(v.w + vec[c + 3]));
                        *reinterpret_cast<float4 *>(out2 + o) = ge;
                        if (FC2) *reinterpret_cast<float4 *>(Os + r * MLP_LDC + c) = ge;
                    }
                }
            } else {
                for (int i = threadIdx.x; i < vr * cw; i += MLP_THREADS) {
                    const int r = i / cw, c = i - r * cw;
                    const float v = Os[r * MLP_LDC + c];
                    const size_t o = (size_t)(r0 + r) * cols + c0 + c;
                    out[o] = v;
                    if (!BWD) {
                        const float ge = gelu(v + vec[c]);
                        out2[o] = ge;
                        if (FC2) Os[r * MLP_LDC + c] = ge;
                    }
                }
            }
            if (FC2) fc2_ln_tile(fc2, As, lda, Os, Wd, ld2, Fp, r0, vr);
            if (DY1) { /* the dy1 tile to out2 in whole rows */
                __syncthreads();
                if (d_vec) {
                    const int d4 = D / 4;
                    for (int i = threadIdx.x; i < vr * d4; i += MLP_THREADS) {
                        const int r = i / d4, c = 4 * (i - r * d4);
                        *reinterpret_cast<float4 *>(out2 + (size_t)(r0 + r) * D + c) =
                            *reinterpret_cast<const float4 *>(As + r * MLP_LDS + c);
                    }
                } else {
                    for (int i = threadIdx.x; i < vr * D; i += MLP_THREADS) {
                        const int r = i / D, c = i - r * D;
                        out2[(size_t)(r0 + r) * D + c] = As[r * MLP_LDS + c];
                    }
                }
            }
        }
        if (BWD) {
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
                    vec[wcol + 8 * j + 2 * t] = sum[j][0], vec[wcol + 8 * j + 2 * t + 1] = sum[j][1];
            __syncthreads();
            if (!(warp & 1) && g == 0)
#pragma unroll
                for (int j = 0; j < MLP_NT; j++) {
                    const int c = wcol + 8 * j + 2 * t;
                    if (c >= cw) break;
                    atomicAdd(&dbias[c0 + c], sum[j][0] + vec[c]);
                    atomicAdd(&dbias[c0 + c + 1], sum[j][1] + vec[c + 1]);
                }
        }
        __syncthreads(); /* Ws and vec are rewritten by the next chunk */
    }
    if (LN) /* one chunk (DY1): the barrier above ends the tiles' shared atomics */
        for (int i = threadIdx.x; i < 3 * K; i += MLP_THREADS) {
            const int q = i / K, c = i - q * K;
            atomicAdd(q == 0 ? &ln.dgamma[c] : q == 1 ? &ln.dbeta[c] : &ln.dbias[c],
                      Ls[q * MLP_LN_COLS + c]);
        }
}

/* As [MLP_ROWS][Kp + 4] (with dy1 or fc2: at least MLP_LDS wide); Ws, the
 * forward's [MLP_CHUNK][Kp + 4], the backward's [Kp][MLP_LDC]; vec
 * [MLP_CHUNK]; Os [MLP_ROWS][MLP_LDC]; with dy1, Wd [Fp][MLP_LDY]; with fc2
 * (fc2_O > 0, F = dy1_F), W2 [Op][Fp + 4]. */
static size_t mlp_smem(int K, bool bwd, int dy1_F, bool ln, int fc2_O) {
    const size_t Kp = (size_t)((K + 7) & ~7), lda = Kp + MLP_KPAD;
    const size_t ws = bwd ? Kp * MLP_LDC : (size_t)MLP_CHUNK * lda;
    const size_t as = dy1_F && lda < MLP_LDS ? MLP_LDS : lda;
    const size_t Fp = (size_t)((dy1_F + 7) & ~7);
    const size_t wd = fc2_O ? (size_t)((fc2_O + 7) & ~7) * (Fp + MLP_KPAD) : Fp * MLP_LDY;
    return (MLP_ROWS * as + ws + MLP_CHUNK + (size_t)MLP_ROWS * MLP_LDC + wd +
            (ln ? 3 * MLP_LN_COLS : 0)) *
           sizeof(float);
}

extern "C" int tlob_mlp_dy1_fits(int D, int F) { return F <= MLP_CHUNK && D <= MLP_WARP_COLS; }
extern "C" int tlob_mlp_ln_fits(int O, int D, int F) {
    return tlob_mlp_dy1_fits(D, F) && O <= MLP_LN_COLS;
}
extern "C" int tlob_mlp_fc2_fits(int O, int D, int F) {
    return D >= 1 && F <= MLP_CHUNK && O >= 1 && O <= MLP_LN_COLS;
}
extern "C" size_t tlob_mlp_fwd_smem(int O, int D, int F) {
    const bool fc2 = tlob_mlp_fc2_fits(O, D, F);
    return mlp_smem(D, false, fc2 ? F : 0, false, fc2 ? O : 0);
}
extern "C" size_t tlob_mlp_bwd_smem(int O, int D, int F) {
    return mlp_smem(O, true, tlob_mlp_dy1_fits(D, F) ? F : 0, tlob_mlp_ln_fits(O, D, F), 0);
}

extern "C" cudaError_t tlob_mlp_prepare(int smem_limit) {
    cudaError_t e = cudaFuncSetAttribute(tlob_mlp_mma_kernel<MLP_FC_GELU>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_mlp_mma_kernel<MLP_FC_GELU_FC2_LN>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_mlp_mma_kernel<MLP_DG_GELU_BWD>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_mlp_mma_kernel<MLP_DG_GELU_BWD_DY1>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(tlob_mlp_mma_kernel<MLP_LN_DG_DY1>,
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

/* y1 [rows, D]; Wf [F, D]; bf [F]; f, g [rows, F]; fc2: tlob_mlp_fc2_ln */
extern "C" cudaError_t tlob_launch_mlp_fc_gelu(const float *y1, const float *wf, const float *bf,
                                               float *f, float *g, const tlob_mlp_fc2_ln *fc2,
                                               int rows, int D, int F, cudaStream_t stream) {
    if (!mlp_aligned(F, f, g) || rows < 1 || D < 1 ||
        (fc2 && (!tlob_mlp_fc2_fits(fc2->O, D, F) || (fc2->res && fc2->O != D) ||
                 D > MLP_LN_COLS || !fc2->ln1.r || !fc2->ln1.res || !fc2->ln1.y)))
        return cudaErrorInvalidValue;
    const tlob_mlp_ln_bwd none = {};
    const tlob_mlp_fc2_ln no_fc2 = {};
    if (fc2)
        tlob_mlp_mma_kernel<MLP_FC_GELU_FC2_LN>
            <<<mlp_grid(rows), MLP_THREADS, tlob_mlp_fwd_smem(fc2->O, D, F), stream>>>(
                y1, wf, bf, NULL, f, g, NULL, NULL, none, *fc2, rows, D, F, 0);
    else
        tlob_mlp_mma_kernel<MLP_FC_GELU><<<mlp_grid(rows), MLP_THREADS,
                                           mlp_smem(D, false, 0, false, 0), stream>>>(
            y1, wf, bf, NULL, f, g, NULL, NULL, none, no_fc2, rows, D, F, 0);
    return cudaGetLastError();
}

/* dz1 [rows, O]; Wf2 [O, F]; f, df [rows, F]; bf, dbf [F]; Wf [F, D], dy1 [rows, D] */
extern "C" cudaError_t tlob_launch_mlp_dg_gelu_bwd(const float *dz1, const float *wf2,
                                                   const float *f, const float *bf, float *df,
                                                   float *dbf, const float *wf, float *dy1,
                                                   const tlob_mlp_ln_bwd *ln, int rows, int O,
                                                   int F, int D, cudaStream_t stream) {
    if (!mlp_aligned(F, f, df) || rows < 1 || O < 1 || (!wf) != (!dy1) ||
        (dy1 && (D < 1 || !tlob_mlp_dy1_fits(D, F))) || (ln && (!dy1 || O > MLP_LN_COLS)))
        return cudaErrorInvalidValue;
    const tlob_mlp_ln_bwd none = {};
    const tlob_mlp_fc2_ln no_fc2 = {};
    if (ln)
        tlob_mlp_mma_kernel<MLP_LN_DG_DY1>
            <<<mlp_grid(rows), MLP_THREADS, mlp_smem(O, true, F, true, 0), stream>>>(
                NULL, wf2, bf, f, df, dy1, dbf, wf, *ln, no_fc2, rows, O, F, D);
    else if (dy1)
        tlob_mlp_mma_kernel<MLP_DG_GELU_BWD_DY1>
            <<<mlp_grid(rows), MLP_THREADS, mlp_smem(O, true, F, false, 0), stream>>>(
                dz1, wf2, bf, f, df, dy1, dbf, wf, none, no_fc2, rows, O, F, D);
    else
        tlob_mlp_mma_kernel<MLP_DG_GELU_BWD><<<mlp_grid(rows), MLP_THREADS,
                                               mlp_smem(O, true, 0, false, 0), stream>>>(
            dz1, wf2, bf, f, df, NULL, dbf, NULL, none, no_fc2, rows, O, F, 0);
    return cudaGetLastError();
}
