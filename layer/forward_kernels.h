/* Launchers of the fused forward pass (layer/forward_kernels.cu): the whole
 * TransformerLayer forward in one kernel or two instead of thirteen; the products
 * in TF32 on the tensor cores (TF32 mode) or in strict FP32 on the CUDA cores
 * (FP32 mode).
 *  1. projections, per tile of rows: q0|k0|v0 = x Wq|Wk|Wv^T + b, then
 *     q|k|v = q0|k0|v0 W_in blocks^T + b_in;
 *  2. the rest, per (sample, tile of query rows): every head's attention
 *     (K and V of the sample in shared memory), the out-projection, w0 with
 *     the residual and LayerNorm 1, the MLP with exact-erf GELU, LayerNorm 2,
 *     GELU and the outer residual.
 * Each writes exactly what the backward pass (layer/tlob.c) reads (q0|k0|v0
 * and the out-projection stay on chip): q|k|v, P, o, h1, mean1, rstd1, y1,
 * f (fc output without its bias), g, z1, mean2, rstd2, and the outputs y and
 * the caller's attention map. The backward folds the weights itself after
 * this forward (it does not run the general forward's fold launch). Every
 * weight a kernel uses is copied into its shared memory once per block
 * (asynchronous copies, all in flight together); the weights stay in L2 for
 * the other blocks. layer/tlob.c can take this path when both kernels'
 * shared memory fits the device, and by default takes it only for grids of
 * at most one wave (forward_fused_rows: at 128 samples it measured slower
 * than the general forward). Rows of a tile: 16 or 32.
 * Where a sample's tiles fit one thread-block cluster (at most
 * TLOB_FORWARD_ONE_MAX_TILES) the two run as one launch
 * (tlob_forward_one_kernel): each block projects its own rows, the
 * cluster's barrier, then the rest. */
#ifndef TLOB_FORWARD_KERNELS_H
#define TLOB_FORWARD_KERNELS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The parameters the forward reads, by module (shapes with E = nh D, F = 4 D,
 * O = Dout; PyTorch layout, weight [out, in]). */
typedef struct {
    const float *qkv_w, *qkv_b;         /* [3, E, D], [3, E] */
    const float *in_w, *in_b;           /* [3, E, E], [3, E] */
    const float *out_w, *out_b;         /* [E, E], [E] */
    const float *w0_w, *w0_b;           /* [D, E], [D] */
    const float *ln1_w, *ln1_b;         /* [D] */
    const float *fc_w, *fc_b;           /* [F, D], [F] */
    const float *fc2_w, *fc2_b;         /* [O, F], [O] */
    const float *ln2_w, *ln2_b;         /* [O] */
} tlob_forward_weights;

/* What the forward writes, N = B T rows. att_copy may be NULL. */
typedef struct {
    float *qkv;            /* [3, N, E] */
    float *att, *att_copy; /* [B, nh, T, T] */
    float *o;              /* [N, E] */
    float *h1, *y1;        /* [N, D] */
    float *mean1, *rstd1;  /* [N] */
    float *f, *g;          /* [N, F] */
    float *z1;             /* [N, O] */
    float *mean2, *rstd2;  /* [N] */
    float *y;              /* [N, O] */
} tlob_forward_outputs;

/* The most tiles a sample may have for the one-launch forward: the
 * portable limit of a thread-block cluster's size. */
#define TLOB_FORWARD_ONE_MAX_TILES 8

/* Shared memory (bytes) of one block of each kernel for a tile of `rows`
 * (tensor_cores: TF32 mode's kernels, 16 warps a block, else 8). */
size_t tlob_forward_proj_smem(int D, int nh, int rows, int tensor_cores);
size_t tlob_forward_rest_smem(int T, int D, int nh, int O, int rows, int tensor_cores);
size_t tlob_forward_one_smem(int T, int D, int nh, int O, int rows, int tensor_cores);

/* 1 when the one-launch forward can run for these sizes on the current
 * device: at most TLOB_FORWARD_ONE_MAX_TILES tiles a sample, its shared
 * memory within smem_limit, and the device able to hold one cluster of it
 * (host-side setup, once per layer: tlob_create). */
int tlob_forward_one_fits(int T, int D, int nh, int O, int rows, int tensor_cores,
                          int smem_limit);

/* Raises both kernels' dynamic shared-memory limit to `smem_limit` bytes;
 * host-side setup, once per layer (tlob_create). */
cudaError_t tlob_forward_fused_prepare(int smem_limit);

/* The forward of `B` samples of T tokens from x [B, T, D]. rows: 16 or 32
 * (cudaErrorInvalidValue otherwise). tensor_cores: the products in TF32 on
 * the tensor cores (TF32 mode), else strict FP32 on the CUDA cores. one: as
 * one launch (only where tlob_forward_one_fits), else two. */
cudaError_t tlob_launch_forward_fused(const float *x, const tlob_forward_weights *w,
                                      const tlob_forward_outputs *out, int B, int T, int D,
                                      int nh, int O, float scale, int rows, int tensor_cores,
                                      int one, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_FORWARD_KERNELS_H */
