/* Internal: scaled dot-product attention over the layer's q|k|v, forward and
 * backward, per head and batched over samples (cuBLAS for the products, our
 * softmax kernels between them). Shapes for `batch` samples of T tokens, nh
 * heads of width D, E = nh * D: qkv [3, batch, T, E] (q | k | v, head h in
 * columns [h D, (h+1) D)), P [batch, nh, T, T], o [batch, T, E]. */
#ifndef TLOB_ATTENTION_H
#define TLOB_ATTENTION_H

#include "compute.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int batch, T, D, nh;
    float scale; /* of the scores: 1/sqrt(D) */
} attention_shape;

/* P = softmax(scale * q_h k_h^T) per head (also copied into P_out when it is
 * not NULL: the caller's attention map); o_h = P v_h, heads concatenated. */
tlob_status attention_forward(const compute_ctx *ctx, tlob_math math, const attention_shape *s,
                              const float *qkv, float *P, float *P_out, float *o);

/* From dout [batch, T, E] (the gradient of o) and the forward's qkv and P:
 * dqkv [3, batch, T, E] (overwritten). dP [batch, nh, T, T] is scratch.
 * dP = dO_h v_h^T runs in FP32 whatever `math` says: the softmax backward's
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
