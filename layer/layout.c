/* Host-only parts of the API: status names, the last-error record, the math
 * mode names and the flat parameter layout. Nothing here touches the device,
 * so CPU tests and the CLI's file checks use it without a GPU. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "status.h"
#include "tlob.h"

static _Thread_local char last_error[1024];

tlob_status tlob_fail(tlob_status status, const char *file, int line, const char *fmt, ...) {
    int n = snprintf(last_error, sizeof last_error, "%s:%d: ", file, line);
    if (n < 0 || (size_t)n >= sizeof last_error) n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
    va_end(ap);
    return status;
}

const char *tlob_last_error(void) { return last_error; }

const char *tlob_status_string(tlob_status status) {
    switch (status) {
    case TLOB_OK: return "TLOB_OK: success";
    case TLOB_ERR_INVALID_ARGUMENT: return "TLOB_ERR_INVALID_ARGUMENT: invalid argument";
    case TLOB_ERR_NO_DEVICE: return "TLOB_ERR_NO_DEVICE: no usable CUDA device";
    case TLOB_ERR_CUDA: return "TLOB_ERR_CUDA: a CUDA runtime call failed";
    case TLOB_ERR_CUBLAS: return "TLOB_ERR_CUBLAS: a cuBLAS call failed";
    case TLOB_ERR_OUT_OF_MEMORY: return "TLOB_ERR_OUT_OF_MEMORY: host allocation failed";
    case TLOB_ERR_IO: return "TLOB_ERR_IO: file input/output failed";
    case TLOB_ERR_FORMAT: return "TLOB_ERR_FORMAT: not a float32 .npy or safetensors file of the expected form";
    case TLOB_ERR_UNSUPPORTED: return "TLOB_ERR_UNSUPPORTED: not in this build of the library";
    case TLOB_ERR_SHAPE: return "TLOB_ERR_SHAPE: tensor has the wrong shape";
    }
    return "unknown tlob_status";
}

tlob_status tlob_math_parse(const char *text, tlob_math *math) {
    if (!text || !math) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    if (strcmp(text, "tf32") == 0) *math = TLOB_MATH_TF32;
    else if (strcmp(text, "fp32") == 0) *math = TLOB_MATH_FP32;
    else return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "math mode '%s' is not tf32 or fp32", text);
    return TLOB_OK;
}

/* Largest D, nh or Dout accepted: keeps every size_t product far from
 * overflow and every int GEMM dimension valid. */
#define TLOB_MAX_DIM 65536

tlob_status tlob_param_layout(int dim, int heads, int out_dim,
                              tlob_tensor_info tensors[TLOB_NUM_TENSORS], size_t *total) {
    if (!tensors || !total) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    if (dim < 1 || heads < 1 || out_dim < 1 || dim > TLOB_MAX_DIM || heads > TLOB_MAX_DIM ||
        out_dim > TLOB_MAX_DIM || (long long)dim * heads > TLOB_MAX_DIM)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT,
                         "layer sizes dim=%d heads=%d out_dim=%d out of range [1, %d]", dim,
                         heads, out_dim, TLOB_MAX_DIM);
    const int D = dim, E = dim * heads, F = 4 * dim, O = out_dim;
    /* Registration order of the published module, with the three qkv weights
     * (then the three biases) adjacent so that Wq|Wk|Wv is one block. */
    const struct { const char *name; int ndim, d0, d1; } spec[TLOB_NUM_TENSORS] = {
        {"norm.weight", 1, D, 0},
        {"norm.bias", 1, D, 0},
        {"qkv.q.weight", 2, E, D},
        {"qkv.k.weight", 2, E, D},
        {"qkv.v.weight", 2, E, D},
        {"qkv.q.bias", 1, E, 0},
        {"qkv.k.bias", 1, E, 0},
        {"qkv.v.bias", 1, E, 0},
        {"attention.in_proj_weight", 2, 3 * E, E},
        {"attention.in_proj_bias", 1, 3 * E, 0},
        {"attention.out_proj.weight", 2, E, E},
        {"attention.out_proj.bias", 1, E, 0},
        {"mlp.layer_norm.weight", 1, O, 0},
        {"mlp.layer_norm.bias", 1, O, 0},
        {"mlp.fc.weight", 2, F, D},
        {"mlp.fc.bias", 1, F, 0},
        {"mlp.fc2.weight", 2, O, F},
        {"mlp.fc2.bias", 1, O, 0},
        {"w0.weight", 2, D, E},
        {"w0.bias", 1, D, 0},
    };
    size_t offset = 0;
    for (int i = 0; i < TLOB_NUM_TENSORS; i++) {
        tlob_tensor_info *t = &tensors[i];
        snprintf(t->name, sizeof t->name, "%s", spec[i].name);
        t->ndim = spec[i].ndim;
        t->shape[0] = spec[i].d0;
        t->shape[1] = spec[i].ndim == 2 ? spec[i].d1 : 0;
        t->numel = (size_t)spec[i].d0 * (spec[i].ndim == 2 ? (size_t)spec[i].d1 : 1);
        t->offset = offset;
        offset += t->numel;
    }
    *total = offset;
    return TLOB_OK;
}
