/* Launchers of the fused attention kernels (layer/attention_kernels.cu):
 * one thread block per (sample, head) (the forward: per block of query rows)
 * keeps Q, K, V and the scores in shared memory and multiplies on the tensor
 * cores in TF32 with FP32 accumulation. Shapes as in attention.h: qkv
 * [3, B, T, E] (E = nh D, head h in columns [h D, (h+1) D)), P [B, nh, T, T],
 * o and dout [B, T, E], dqkv [B, T, 3E]. Each launcher enqueues one kernel
 * on `stream` and returns the launch status; layer/attention.c decides when
 * they fit. */
#ifndef TLOB_ATTENTION_KERNELS_H
#define TLOB_ATTENTION_KERNELS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Query rows of one forward block: 16, 32 or 64. */
#define TLOB_ATTN_MAX_QROWS 64

/* The most blocks of the split backward's cluster (16 rows each: T <=
 * 128; 64 rows: T <= 512): the portable limit of a thread-block cluster's
 * size. */
#define TLOB_ATTN_SPLIT_MAX_BLOCKS 8

/* The largest T and D of the strip backward: two warps per 16 rows, 16
 * warps; a strip's accumulators, 16 n-tiles of 8, in its warps' registers. */
#define TLOB_ATTN_STRIP_MAX 128

/* The most query rows of a strip-forward block: two warps per 16 rows. */
#define TLOB_ATTN_STRIP_FWD_MAX_ROWS 128

/* Raises the kernels' dynamic shared-memory limit to the device's opt-in
 * maximum and reports it (bytes), the multiprocessor count and whether the
 * device launches thread-block clusters (the split backward needs them).
 * Host-side setup, once per layer (tlob_create). */
cudaError_t tlob_attention_fused_prepare(int *smem_limit, int *multiprocessors, int *clusters);

/* Shared memory (bytes) of one forward block of `qrows` query rows, and of
 * one backward block, for T tokens and head width D. */
size_t tlob_attention_fused_fwd_smem(int T, int D, int qrows);
size_t tlob_attention_fused_bwd_smem(int T, int D);
size_t tlob_attention_split_bwd_smem(int T, int D, int rows);
/* (size_t)-1 where T or D is above TLOB_ATTN_STRIP_MAX. */
size_t tlob_attention_strip_bwd_smem(int T, int D);
/* Of one strip-forward block of `rows` query rows; (size_t)-1 where T or D
 * is above TLOB_ATTN_STRIP_MAX. */
size_t tlob_attention_strip_fwd_smem(int T, int D, int rows);

/* P = softmax(scale q_h k_h^T) (also stored into P_copy when not NULL),
 * o_h = P v_h. Grid: (ceil(T / qrows), nh, B). */
cudaError_t tlob_launch_attention_fused_fwd(const float *qkv, float *P, float *P_copy, float *o,
                                            int B, int T, int D, int nh, float scale,
                                            int qrows, cudaStream_t stream);

/* The same forward (P and o; S in TF32, P rounded to TF32 for PV) with
 * two warps per 16 query rows, S in the warps' registers
 * (layer/attention_kernels.cu says how); T and D at most
 * TLOB_ATTN_STRIP_MAX, rows 16, 32, 64 or TLOB_ATTN_STRIP_FWD_MAX_ROWS
 * (cudaErrorInvalidValue otherwise). Grid: (ceil(T / rows), nh, B). */
cudaError_t tlob_launch_attention_strip_fwd(const float *qkv, float *P, float *P_copy, float *o,
                                            int B, int T, int D, int nh, float scale, int rows,
                                            cudaStream_t stream);

/* From dout and the forward's qkv and P: dqkv [B, T, 3E] (overwritten; row
 * n is dq_n | dk_n | dv_n, attention.h says why).
 * dP = dO V^T in split TF32 (hi*hi + hi*lo + lo*hi, about FP32 accuracy: the
 * softmax backward's row-sum subtraction amplifies dP's error, attention.h);
 * dV = P^T dO, dQ = dS K, dK = dS^T Q in TF32. Grid: (nh, B). */
cudaError_t tlob_launch_attention_fused_bwd(const float *qkv, const float *P, const float *dout,
                                            float *dqkv, int B, int T, int D, int nh,
                                            float scale, cudaStream_t stream);

/* The same backward (the same products in the same precision) split over
 * a thread-block cluster per (sample, head): block c computes the rows
 * [rows c, rows c + rows) of dq, dk and dv (rows: 16, 32 or 64), reading
 * the other blocks' rows of dS from their shared memory. Grid: (ceil(T /
 * rows), nh, B), clusters of ceil(T / rows) <= TLOB_ATTN_SPLIT_MAX_BLOCKS
 * blocks (cudaErrorInvalidValue beyond, or for another `rows`). */
cudaError_t tlob_launch_attention_split_bwd(const float *qkv, const float *P, const float *dout,
                                            float *dqkv, int B, int T, int D, int nh,
                                            float scale, int rows, cudaStream_t stream);

/* The same backward (the same products in the same precisions, other
 * summation orders) with two warps per 16-row strip of every output and
 * the accumulators in registers (layer/attention_kernels.cu says how); T
 * and D at most TLOB_ATTN_STRIP_MAX (cudaErrorInvalidValue beyond). Grid:
 * (nh, B), 16 warps a block. */
cudaError_t tlob_launch_attention_strip_bwd(const float *qkv, const float *P, const float *dout,
                                            float *dqkv, int B, int T, int D, int nh,
                                            float scale, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_ATTENTION_KERNELS_H */
