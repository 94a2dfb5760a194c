/* CPU reference of TransformerLayer(D, nh, Dout), forward and backward, in
 * double precision throughout. It is written straight from the maths in
 * docs/layer.md, for the tests and the benchmark's validation. */
#ifndef TLOB_REF_H
#define TLOB_REF_H

#include "tlob.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int dim, heads, out_dim, seq_len, batch;
} tlob_ref_shape;

/* params: the flat layout of tlob_param_layout. x [B, T, D] -> y [B, T, Dout],
 * att [B, nh, T, T] (att may be NULL). */
tlob_status tlob_ref_forward(const tlob_ref_shape *shape, const double *params,
                             const double *x, double *y, double *att);

/* Gradients for the loss sum(y * dy): dx [B, T, D] and grads (flat layout,
 * overwritten, not accumulated). */
tlob_status tlob_ref_backward(const tlob_ref_shape *shape, const double *params,
                              const double *x, const double *dy, double *dx, double *grads);

/* ||got - want||_2 / ||want||_2 (the absolute norm when want is all zero);
 * infinity when got holds a NaN. */
double tlob_rel_l2(const float *got, const double *want, size_t n);

/* As tlob_rel_l2, with the denominator at least `floor`. */
double tlob_rel_l2_floor(const float *got, const double *want, size_t n, double floor);

/* Relative L2 error of gradient tensor `id` of two flat gradient buffers.
 * The gradient of qkv.k.bias is exactly zero (adding a constant to every key
 * shifts each score row by a constant, which softmax ignores), so its
 * relative error is undefined; it is measured against the norm of the
 * qkv.k.weight gradient, the scale of the terms that cancel. */
double tlob_grad_rel_l2(const tlob_tensor_info *tensors, int id, const float *got,
                        const double *want);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_REF_H */
