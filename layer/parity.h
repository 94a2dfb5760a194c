/* Internal, for `tlob bench` and the GPU test: one forward and backward pass
 * of a layer on the device against the CPU reference in double precision,
 * on the caller's inputs and the layer's current parameters. */
#ifndef TLOB_PARITY_H
#define TLOB_PARITY_H

#include "tlob.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Relative L2 bound of a well-conditioned shape in each math mode. */
#define PARITY_TOL_FP32 1e-5
#define PARITY_TOL_TF32 2e-3
double parity_tolerance(tlob_math math);

typedef struct {
    /* 1 when every element of the output was written (outputs start as NaN) */
    int y_written, att_written, dx_written;
    double y, att, dx;                /* relative L2 against the reference */
    double grad[TLOB_NUM_TENSORS];    /* tlob_grad_rel_l2 of each gradient */
    int worst_grad;                   /* the tensor id of the largest grad error */
} parity_result;

/* x [batch, T, D] and dy [batch, T, Dout] are host arrays. The layer's
 * parameters and gradient buffer are read from the device first; what the
 * backward pass adds to the gradients is what is compared, so gradients that
 * do not start at zero check accumulation. */
tlob_status parity_run(tlob_layer *layer, int batch, const float *x, const float *dy,
                       parity_result *result);

/* The largest of y, att, dx and every gradient error. */
double parity_worst(const parity_result *result);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_PARITY_H */
