/* Internal: scaled dot-product attention over the layer's q|k|v, forward and
 * backward. Two paths compute it:
 *  - fused (layer/attention_kernels.cu): one kernel forward, one backward,
 *    Q, K, V and the scores on chip, TF32 tensor cores. The forward: blocks
 *    of query rows with the scores in shared memory where the fused kernels
 *    pay (below), else the strip forward (one warp per 16 query rows, the
 *    scores and P in registers; T, D <= 128: BTC temporal). Taken in
 *    TF32 mode when the shape's blocks fit the device's shared memory
 *    (forward: Q rows, K then V, the score rows; backward: P, dP, two [T, D]
 *    operands; each padded to multiples of 16): at the reference sizes the
 *    forward fits everywhere and the backward up to T = 128 with D <= 80, or
 *    D = 128 with T <= 112 (227 KiB a block on an H200; FI-2010's D = 144
 *    at T = 128 does not fit: its backward takes the general path). The
 *    backward is one block per (sample, head), or, while the grid fits one
 *    wave (B = 1 inference), split over a thread-block cluster of up to 8
 *    blocks per (sample, head); where neither pays, the strip backward (one
 *    block per (sample, head), two warps per 16-row strip of every output,
 *    the accumulators in registers: T, D <= 128 where its operands fit) runs
 *    in place of the general path, BTC temporal among them
 *    (docs/layer.md, "Which attention path runs").
 *  - general: per head, strided-batched cuBLAS products over samples with our
 *    softmax kernels between them. Any T and D; FP32 mode always takes it
 *    (strict FP32: the tensor cores' TF32 would not be; a CUDA-core fused
 *    version measured slower than cuBLAS, docs/layer-results.md).
 * Shapes for `batch` samples of T tokens, nh heads of width D, E = nh * D:
 * qkv [3, batch, T, E] (q | k | v, head h in columns [h D, (h+1) D)),
 * P [batch, nh, T, T], o [batch, T, E]. */
#ifndef TLOB_ATTENTION_H
#define TLOB_ATTENTION_H

#include "compute.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which path a call takes: AUTO picks as above; the others force one (the
 * fusion-equivalence test and the benchmark compare them; FUSED on a shape
 * that does not fit, or in FP32 mode, is TLOB_ERR_INVALID_ARGUMENT). FUSED
 * takes the backward kernel AUTO would; FUSED_ONE, FUSED_SPLIT and
 * FUSED_STRIP force the one-block backward, the cluster-split one or the
 * strip one. The forward is the row-block fused forward under the first
 * three, and under FUSED_STRIP the strip forward where it fits (T, D <=
 * 128), else the row-block one. */
typedef enum {
    ATTENTION_AUTO = 0,
    ATTENTION_GENERAL,
    ATTENTION_FUSED,
    ATTENTION_FUSED_ONE,
    ATTENTION_FUSED_SPLIT,
    ATTENTION_FUSED_STRIP
} attention_path;

/* What the fused path needs to know of the device (attention_device_query). */
typedef struct {
    int smem_limit;      /* bytes of shared memory one block may opt in to */
    int multiprocessors;
    int clusters;        /* 1: the device launches thread-block clusters */
} attention_device;

typedef struct {
    int batch, T, D, nh;
    float scale; /* of the scores: 1/sqrt(D) */
    const attention_device *device;
    attention_path path;
    int split_rows; /* rows of a split-backward block (16, 32, 64); 0: AUTO's */
} attention_shape;

/* Reads the device's limits and raises the fused kernels' shared-memory
 * limit; once per layer, before the first forward. */
tlob_status attention_device_query(attention_device *device);

/* Which forward this shape in `math` takes: 0 the general path, else
 * ATTENTION_FWD_ROWS (blocks of query rows, wmma, S in shared memory) or
 * ATTENTION_FWD_STRIP (one warp per 16 query rows, S and P in registers).
 * AUTO: the row-block kernel where the fused kernels pay, else the strip
 * kernel where it fits (BTC temporal); ATTENTION_FUSED_STRIP: the strip
 * kernel where it fits. */
enum { ATTENTION_FWD_ROWS = 1, ATTENTION_FWD_STRIP = 2 };
int attention_forward_fused(const attention_shape *s, tlob_math math);

/* Which backward this shape in `math` takes: 0 the general path, else the
 * fused one with ATTENTION_BWD_ONE (one block per head),
 * ATTENTION_BWD_SPLIT (a cluster of blocks per head) or ATTENTION_BWD_STRIP
 * (one block per head, two warps per 16-row strip) kernel. */
enum { ATTENTION_BWD_ONE = 1, ATTENTION_BWD_SPLIT = 2, ATTENTION_BWD_STRIP = 3 };
int attention_backward_fused(const attention_shape *s, tlob_math math);

/* The rows of a split-backward block for this shape: s->split_rows when
 * set, else AUTO's choice; 0 when no choice fits. */
int attention_split_rows(const attention_shape *s);

/* P = softmax(scale * q_h k_h^T) per head (also copied into P_out when it is
 * not NULL: the caller's attention map); o_h = P v_h, heads concatenated. */
tlob_status attention_forward(const compute_ctx *ctx, tlob_math math, const attention_shape *s,
                              const float *qkv, float *P, float *P_out, float *o);

/* From dout [batch, T, E] (the gradient of o) and the forward's qkv and P:
 * dqkv [batch, T, 3E] (overwritten), row n the concatenation dq_n | dk_n |
 * dv_n: as one [N, 3E] matrix it is the output gradient of the folded
 * projection x -> q|k|v seen as one Linear(D -> 3E), so its weight and
 * input gradients are one GEMM each (layer/tlob.c's backward). dP [batch, nh, T, T] is scratch of
 * the general path. dP = dO_h v_h^T runs in FP32 (the fused path: split
 * TF32, about as accurate) whatever `math` says: the softmax backward's
 * subtraction of the row sum cancels and so amplifies dP's relative error
 * into dS, dq and the q-side gradients (with TF32 they reached 2.2e-3 rel. L2
 * on an H200). FP32 for the other products changed no error measurably. */
tlob_status attention_backward(const compute_ctx *ctx, tlob_math math, const attention_shape *s,
                               const float *qkv, const float *P, const float *dout, float *dP,
                               float *dqkv);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_ATTENTION_H */
