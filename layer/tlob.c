/* The layer on the device: the shared per-device context (cuBLAS handle,
 * workspace, stream, mapped pinned staging buffer), layer lifetime, the
 * forward and backward dispatch, and parameter I/O.
 *
 * GEMM conventions: tensors are row-major; cuBLAS is column-major, so a
 * row-major [rows, cols] matrix is a column-major [cols, rows] one with
 * leading dimension cols. A Linear y = x W^T (W [out, in]) is then
 * gemm(OP_T, OP_N, out, rows, in, W, in, x, in, y, out), as in llm.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "internal.h"
#include "kernels.h"
#include "npy.h"
#include "status.h"
#include "tlob.h"

/* cuBLAS's recommended workspace on Hopper. Graph capture needs a
 * user-provided workspace: cuBLAS may not allocate while a stream captures. */
#define CUBLAS_WORKSPACE_BYTES (32u << 20)
/* Uploads travel in chunks of this many floats (4 MiB of pinned memory). */
#define STAGING_FLOATS ((size_t)1 << 20)
#define MAX_DEVICES 64
/* Split-K for the projection stages' weight gradients. Their reduction runs
 * over all B*T rows (16384 at the BTC temporal size) for a tiny [E, E]
 * output; a batch=3 strided-batched GEMM then runs on 3 thread blocks and
 * took 157 us (TF32) / 546 us (FP32) on an H200. Splitting the rows into
 * S chunks (batch 3*S, at most 64 chunks of at least 128 rows) and summing
 * the partials in one kernel spreads it over the GPU. */
#define MAX_SPLITS 64
#define MIN_SPLIT_ROWS 128
/* Activation buffers start on 256-byte boundaries (cuBLAS's preferred
 * alignment for tensor-op kernels). */
#define ALIGN_FLOATS 64

/* ---- the shared per-device context --------------------------------------- */

typedef struct {
    int refs;
    cublasHandle_t cublas;
    cudaStream_t stream;
    void *workspace;
    float *staging_host; /* mapped pinned: the host writes here ...          */
    float *staging_dev;  /* ... and the device reads it through this pointer */
} device_context;

static device_context devices[MAX_DEVICES];

static const float ONE = 1.0f, ZERO = 0.0f;

static void context_release(int dev) {
    device_context *c = &devices[dev];
    if (--c->refs > 0) return;
    /* Teardown: report nothing, free everything that exists. */
    if (c->cublas) (void)cublasDestroy(c->cublas);
    if (c->workspace) (void)cudaFree(c->workspace);
    if (c->staging_host) (void)cudaFreeHost(c->staging_host);
    if (c->stream) (void)cudaStreamDestroy(c->stream);
    memset(c, 0, sizeof *c);
}

/* Creates the handle, stream, workspace and staging buffer of a context whose
 * refs is already 1; on failure the caller releases what was made. */
static tlob_status context_init(device_context *c, int dev) {
    if (cublasCreate(&c->cublas) != CUBLAS_STATUS_SUCCESS) {
        c->cublas = NULL;
        return TLOB_FAIL(TLOB_ERR_NO_DEVICE, "cublasCreate failed on device %d", dev);
    }
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&c->workspace, CUBLAS_WORKSPACE_BYTES));
    /* The stream first: cublasSetStream resets the workspace to cuBLAS's pool. */
    CUBLAS_CHECK(cublasSetStream(c->cublas, c->stream));
    CUBLAS_CHECK(cublasSetWorkspace(c->cublas, c->workspace, CUBLAS_WORKSPACE_BYTES));
    CUDA_CHECK(cudaHostAlloc((void **)&c->staging_host, STAGING_FLOATS * sizeof(float),
                             cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&c->staging_dev, c->staging_host, 0));
    return TLOB_OK;
}

static tlob_status context_acquire(int *device_out) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
        (void)cudaGetLastError(); /* leave no pending error for later calls */
        return TLOB_FAIL(TLOB_ERR_NO_DEVICE, "no CUDA device: %s", cudaGetErrorString(e));
    }
    CUDA_CHECK(e);
    int dev;
    CUDA_CHECK(cudaGetDevice(&dev));
    if (dev < 0 || dev >= MAX_DEVICES)
        return TLOB_FAIL(TLOB_ERR_NO_DEVICE, "device %d beyond the %d supported", dev, MAX_DEVICES);
    device_context *c = &devices[dev];
    c->refs++;
    if (c->refs == 1) {
        const tlob_status st = context_init(c, dev);
        if (st != TLOB_OK) {
            context_release(dev);
            return st;
        }
    }
    *device_out = dev;
    return TLOB_OK;
}

/* ---- the layer ------------------------------------------------------------- */

struct tlob_layer {
    tlob_config cfg;
    int D, E, F, O, T, nh, res; /* res: Dout == D, so both residuals exist */
    float scale;                /* 1/sqrt(D), the attention score scale */
    int device;
    device_context *ctx;
    tlob_tensor_info tensors[TLOB_NUM_TENSORS];
    size_t nparams;
    float *params, *grads;
    float *arena; /* every activation and scratch buffer below */
    /* forward activations, N = batch * T rows */
    float *qkv0;  /* [3, N, E]  q0 | k0 | v0 */
    float *qkv;   /* [3, N, E]  q | k | v */
    float *att;   /* [B, nh, T, T] attention probabilities */
    float *o;     /* [N, E] heads concatenated */
    float *a;     /* [N, E] out-projection */
    float *r;     /* [N, D] w0 output before bias */
    float *h1;    /* [N, D] w0(a) + x, LayerNorm 1 input */
    float *mean1, *rstd1; /* [N] */
    float *y1;    /* [N, D] */
    float *f;     /* [N, 4D] y1 Wf^T: the fc pre-activation without its bias */
    float *g;     /* [N, 4D] GELU(f) */
    float *z0;    /* [N, Dout] fc2 output before bias */
    float *z1;    /* [N, Dout] LayerNorm 2 input */
    float *mean2, *rstd2; /* [N] */
    /* backward scratch */
    float *dz1;   /* [N, Dout] */
    float *dg;    /* [N, 4D] */
    float *df;    /* [N, 4D] */
    float *dy1;   /* [N, D] */
    float *dr;    /* [N, D] */
    float *da;    /* [N, E] */
    float *dout;  /* [N, E] gradient of the concatenated heads */
    float *datt;  /* [B, nh, T, T] */
    float *dqkv;  /* [3, N, E] */
    float *dqkv0; /* [3, N, E] */
    float *dxp;   /* [3, N, D] the three input-projection contributions to dx */
    float *x3;    /* [3, N, D] x three times: the stride-uniform operand of the split-K dWqkv */
    float *wpart; /* [3 * MAX_SPLITS, E * max(E, D)] split-K partial weight gradients */
};

static int config_valid(const tlob_config *c) {
    if (!(c->dim >= 1 && c->heads >= 1 && c->out_dim >= 1 && c->seq_len >= 1 &&
          c->max_batch >= 1 && (c->math == TLOB_MATH_TF32 || c->math == TLOB_MATH_FP32) &&
          (long long)c->max_batch * c->seq_len <= (1 << 22) && c->seq_len <= 65536 &&
          c->dim <= 65536 && c->heads <= 65536 && c->out_dim <= 65536))
        return 0;
    /* The kernels index inside one activation block (rows x widest) and the
     * attention map with 32-bit ints. */
    const long long rows = (long long)c->max_batch * c->seq_len;
    long long widest = 4LL * c->dim;
    if ((long long)c->dim * c->heads > widest) widest = (long long)c->dim * c->heads;
    if (c->out_dim > widest) widest = c->out_dim;
    return rows * widest < (1LL << 31) &&
           (long long)c->max_batch * c->heads * c->seq_len * c->seq_len < (1LL << 31);
}

tlob_status tlob_create(const tlob_config *config, tlob_layer **layer) {
    if (!config || !layer) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    *layer = NULL;
    if (!config_valid(config))
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT,
                         "config dim=%d heads=%d out_dim=%d seq_len=%d max_batch=%d math=%d "
                         "out of range (max_batch*seq_len <= 4194304)",
                         config->dim, config->heads, config->out_dim, config->seq_len,
                         config->max_batch, (int)config->math);
    tlob_layer *L = calloc(1, sizeof *L);
    if (!L) return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "tlob_create: layer struct");
    tlob_status st = tlob_param_layout(config->dim, config->heads, config->out_dim, L->tensors,
                                       &L->nparams);
    if (st != TLOB_OK) {
        free(L);
        return st;
    }
    L->cfg = *config;
    L->D = config->dim, L->nh = config->heads, L->E = config->dim * config->heads;
    L->F = 4 * config->dim, L->O = config->out_dim, L->T = config->seq_len;
    L->res = L->O == L->D;
    L->scale = (float)(1.0 / sqrt((double)L->D));
    st = context_acquire(&L->device);
    if (st != TLOB_OK) {
        free(L);
        return st;
    }
    L->ctx = &devices[L->device];

    const size_t N = (size_t)config->max_batch * L->T, E = (size_t)L->E, D = (size_t)L->D,
                 F = (size_t)L->F, O = (size_t)L->O;
    const size_t PT = (size_t)config->max_batch * L->nh * L->T * L->T;
    struct { float **ptr; size_t count; } bufs[] = {
        {&L->qkv0, 3 * N * E}, {&L->qkv, 3 * N * E}, {&L->att, PT},     {&L->o, N * E},
        {&L->a, N * E},        {&L->r, N * D},       {&L->h1, N * D},   {&L->mean1, N},
        {&L->rstd1, N},        {&L->y1, N * D},      {&L->f, N * F},    {&L->g, N * F},
        {&L->z0, N * O},       {&L->z1, N * O},      {&L->mean2, N},    {&L->rstd2, N},
        {&L->dz1, N * O},      {&L->dg, N * F},      {&L->df, N * F},   {&L->dy1, N * D},
        {&L->dr, N * D},       {&L->da, N * E},      {&L->dout, N * E}, {&L->datt, PT},
        {&L->dqkv, 3 * N * E}, {&L->dqkv0, 3 * N * E}, {&L->dxp, 3 * N * D},
        {&L->x3, 3 * N * D},   {&L->wpart, 3 * MAX_SPLITS * E * (E > D ? E : D)},
    };
    const size_t nbufs = sizeof bufs / sizeof bufs[0];
    size_t total = 0;
    for (size_t i = 0; i < nbufs; i++)
        total += (bufs[i].count + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
    if (cudaMalloc((void **)&L->params, L->nparams * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&L->grads, L->nparams * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&L->arena, total * sizeof(float)) != cudaSuccess) {
        st = TLOB_FAIL(TLOB_ERR_CUDA, "cudaMalloc of %zu parameter and %zu activation floats failed",
                       2 * L->nparams, total);
        tlob_destroy(L);
        return st;
    }
    float *p = L->arena;
    for (size_t i = 0; i < nbufs; i++) {
        *bufs[i].ptr = p;
        p += (bufs[i].count + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
    }
    if (cudaMemsetAsync(L->params, 0, L->nparams * sizeof(float), L->ctx->stream) != cudaSuccess ||
        cudaMemsetAsync(L->grads, 0, L->nparams * sizeof(float), L->ctx->stream) != cudaSuccess ||
        cudaStreamSynchronize(L->ctx->stream) != cudaSuccess) {
        st = TLOB_FAIL(TLOB_ERR_CUDA, "clearing the parameters failed");
        tlob_destroy(L);
        return st;
    }
    *layer = L;
    return TLOB_OK;
}

void tlob_destroy(tlob_layer *layer) {
    if (!layer) return;
    /* Teardown: report nothing, free everything that exists. */
    if (layer->ctx) (void)cudaStreamSynchronize(layer->ctx->stream);
    if (layer->params) (void)cudaFree(layer->params);
    if (layer->grads) (void)cudaFree(layer->grads);
    if (layer->arena) (void)cudaFree(layer->arena);
    if (layer->ctx) context_release(layer->device);
    free(layer);
}

const tlob_config *tlob_get_config(const tlob_layer *layer) { return layer ? &layer->cfg : NULL; }
const tlob_tensor_info *tlob_tensors(const tlob_layer *layer) { return layer ? layer->tensors : NULL; }
size_t tlob_num_params(const tlob_layer *layer) { return layer ? layer->nparams : 0; }
float *tlob_params(tlob_layer *layer) { return layer ? layer->params : NULL; }
float *tlob_grads(tlob_layer *layer) { return layer ? layer->grads : NULL; }
cudaStream_t tlob_stream(const tlob_layer *layer) { return layer ? layer->ctx->stream : NULL; }

const float *tlob_internal_qkv0(const tlob_layer *layer) { return layer ? layer->qkv0 : NULL; }
const float *tlob_internal_qkv(const tlob_layer *layer) { return layer ? layer->qkv : NULL; }

tlob_status tlob_set_math(tlob_layer *layer, tlob_math math) {
    if (!layer || (math != TLOB_MATH_TF32 && math != TLOB_MATH_FP32))
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_set_math: bad argument");
    layer->cfg.math = math;
    return TLOB_OK;
}

tlob_status tlob_sync(tlob_layer *layer) {
    if (!layer) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null layer");
    CUDA_CHECK(cudaStreamSynchronize(layer->ctx->stream));
    return TLOB_OK;
}

tlob_status tlob_zero_grads(tlob_layer *layer) {
    if (!layer) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null layer");
    CUDA_CHECK(cudaMemsetAsync(layer->grads, 0, layer->nparams * sizeof(float), layer->ctx->stream));
    return TLOB_OK;
}

/* ---- forward / backward dispatch ------------------------------------------ */

/* Sets the shared handle to this layer's math mode (layers sharing the handle
 * may differ). Host-side state only. The handle's stream is set once, at
 * context creation: setting it again would reset the workspace. */
static tlob_status bind_handle(tlob_layer *L) {
    CUBLAS_CHECK(cublasSetMathMode(L->ctx->cublas, L->cfg.math == TLOB_MATH_TF32
                                                       ? CUBLAS_TF32_TENSOR_OP_MATH
                                                       : CUBLAS_DEFAULT_MATH));
    return TLOB_OK;
}

/* FP32 for one GEMM whatever the layer's mode: see tlob_backward for which. */
static tlob_status bind_fp32(tlob_layer *L) {
    CUBLAS_CHECK(cublasSetMathMode(L->ctx->cublas, CUBLAS_DEFAULT_MATH));
    return TLOB_OK;
}

static tlob_status check_call(const tlob_layer *L, int batch) {
    if (!L) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null layer");
    if (batch < 1 || batch > L->cfg.max_batch)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "batch %d outside [1, %d]", batch,
                         L->cfg.max_batch);
    return TLOB_OK;
}

TLOB_HOT tlob_status tlob_forward(tlob_layer *L, const float *x, int batch, float *y,
                                  float *att) {
    TLOB_CHECK(check_call(L, batch));
    if (!x || !y) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_forward: null x or y");
    TLOB_CHECK(bind_handle(L));
    cublasHandle_t hb = L->ctx->cublas;
    cudaStream_t s = L->ctx->stream;
    const int T = L->T, D = L->D, E = L->E, F = L->F, O = L->O, nh = L->nh, N = batch * T;
    const long long NE = (long long)N * E, TE = (long long)T * E, TT = (long long)T * T;
    const float *W = L->params;
    const tlob_tensor_info *t = L->tensors;

    /* The biases of both projection stages and of the out-projection first:
     * the GEMMs below accumulate onto them (beta = 1). */
    CUDA_CHECK(tlob_launch_bias_fill(L->qkv0, W + t[TLOB_QKV_Q_B].offset, L->qkv,
                                     W + t[TLOB_IN_PROJ_B].offset, L->a,
                                     W + t[TLOB_OUT_PROJ_B].offset, N, E, s));
    /* 1. q0|k0|v0 [3, N, E] += x [N, D] Wq|Wk|Wv [3, E, D]^T: one call, x shared (stride 0) */
    CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_T, CUBLAS_OP_N, E, N, D, &ONE,
                                           W + t[TLOB_QKV_Q_W].offset, D, (long long)E * D, x, D,
                                           0, &ONE, L->qkv0, E, NE, 3));
    /* 2. q|k|v [3, N, E] += block i of q0|k0|v0 times row block i of W_in [3, E, E]^T */
    CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_T, CUBLAS_OP_N, E, N, E, &ONE,
                                           W + t[TLOB_IN_PROJ_W].offset, E, (long long)E * E,
                                           L->qkv0, E, NE, &ONE, L->qkv, E, NE, 3));
    /* 3. per head h, batched over samples: S = Q_h K_h^T [T, T] into att, then
     *    softmax, then O_h = P V_h. Q_h is [T, D] with row stride E. */
    const float *q = L->qkv, *k = L->qkv + NE, *v = L->qkv + 2 * NE;
    for (int h = 0; h < nh; h++)
        CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_T, CUBLAS_OP_N, T, T, D, &ONE,
                                               k + h * D, E, TE, q + h * D, E, TE, &ZERO,
                                               L->att + h * TT, T, nh * TT, batch));
    CUDA_CHECK(tlob_launch_softmax_fwd(L->att, att, batch * nh * T, T, L->scale, s));
    for (int h = 0; h < nh; h++)
        CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_N, D, T, T, &ONE,
                                               v + h * D, E, TE, L->att + h * TT, T, nh * TT,
                                               &ZERO, L->o + h * D, E, TE, batch));
    /* 4. a [N, E] = b_out + o W_out^T */
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_T, CUBLAS_OP_N, E, N, E, &ONE,
                             W + t[TLOB_OUT_PROJ_W].offset, E, L->o, E, &ONE, L->a, E));
    /* 5. r [N, D] = a W0^T; y1 = LayerNorm(r + b0 + x) */
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_T, CUBLAS_OP_N, D, N, E, &ONE, W + t[TLOB_W0_W].offset,
                             E, L->a, E, &ZERO, L->r, D));
    CUDA_CHECK(tlob_launch_ln_fwd(L->r, W + t[TLOB_W0_B].offset, x, W + t[TLOB_NORM_W].offset,
                                  W + t[TLOB_NORM_B].offset, 0, NULL, L->h1, L->mean1, L->rstd1,
                                  L->y1, N, D, s));
    /* 6. f [N, 4D] = y1 Wf^T, g = GELU(f + bf); z0 [N, Dout] = g Wf2^T;
     * 7. y = GELU(LayerNorm(z0 + bf2 (+ y1))) (+ x) */
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_T, CUBLAS_OP_N, F, N, D, &ONE, W + t[TLOB_FC_W].offset,
                             D, L->y1, D, &ZERO, L->f, F));
    CUDA_CHECK(tlob_launch_bias_gelu_fwd(L->f, W + t[TLOB_FC_B].offset, L->g, N, F, s));
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_T, CUBLAS_OP_N, O, N, F, &ONE, W + t[TLOB_FC2_W].offset,
                             F, L->g, F, &ZERO, L->z0, O));
    CUDA_CHECK(tlob_launch_ln_fwd(L->z0, W + t[TLOB_FC2_B].offset, L->res ? L->y1 : NULL,
                                  W + t[TLOB_MLP_LN_W].offset, W + t[TLOB_MLP_LN_B].offset, 1,
                                  L->res ? x : NULL, L->z1, L->mean2, L->rstd2, y, N, O, s));
    return TLOB_OK;
}

/* Row chunks per block for the split-K weight gradients: the largest power of
 * two up to MAX_SPLITS that divides `rows` into chunks of MIN_SPLIT_ROWS or
 * more (1: no split, the plain batch=3 call). */
static int weight_grad_splits(int rows) {
    int splits = 1;
    while (splits < MAX_SPLITS && rows % (2 * splits) == 0 && rows / (2 * splits) >= MIN_SPLIT_ROWS)
        splits *= 2;
    return splits;
}

TLOB_HOT tlob_status tlob_backward(tlob_layer *L, const float *x, const float *dy, int batch,
                                   float *dx) {
    TLOB_CHECK(check_call(L, batch));
    if (!x || !dy || !dx) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_backward: null x, dy or dx");
    TLOB_CHECK(bind_handle(L));
    cublasHandle_t hb = L->ctx->cublas;
    cudaStream_t s = L->ctx->stream;
    const int T = L->T, D = L->D, E = L->E, F = L->F, O = L->O, nh = L->nh, N = batch * T;
    const long long NE = (long long)N * E, TE = (long long)T * E, TT = (long long)T * T;
    const float *W = L->params;
    float *G = L->grads;
    const tlob_tensor_info *t = L->tensors;

    /* Precision in TF32 mode. The data gradients that flow into the attention
     * (da, dout, dP, and dq0|dk0|dv0 after it) are computed in FP32
     * (bind_fp32); the rest in TF32. `qkv.q.bias`'s gradient is a sum over
     * rows that largely cancels, so it amplifies their rounding more than any
     * other tensor: over 30 fresh seeds on the H200 this cut its mean error
     * from 0.48 to 0.38 of the 2e-3 bound, for 3-18 us of graphed fwd+bwd.
     * FP32 for the MLP's data gradients as well cut it to 0.35 but cost up to
     * 63 us (docs/layer-results.md, "Precision of the backward's GEMMs"). */
    /* 7-6. dz1 [N, Dout] through GELU and LayerNorm 2; gamma2, beta2, bf2 grads */
    CUDA_CHECK(tlob_launch_ln_bwd(dy, NULL, 1, L->z1, L->mean2, L->rstd2,
                                  W + t[TLOB_MLP_LN_W].offset, W + t[TLOB_MLP_LN_B].offset, L->dz1,
                                  NULL, NULL, G + t[TLOB_MLP_LN_W].offset,
                                  G + t[TLOB_MLP_LN_B].offset, G + t[TLOB_FC2_B].offset, N, O, s));
    /* dWf2 [Dout, 4D] += dz1^T g; dg [N, 4D] = dz1 Wf2 */
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_T, F, O, N, &ONE, L->g, F, L->dz1, O, &ONE,
                             G + t[TLOB_FC2_W].offset, F));
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_N, F, N, O, &ONE, W + t[TLOB_FC2_W].offset,
                             F, L->dz1, O, &ZERO, L->dg, F));
    /* df [N, 4D] = dg GELU'(f + bf); bf grad */
    CUDA_CHECK(tlob_launch_gelu_bwd(L->dg, L->f, W + t[TLOB_FC_B].offset, L->df,
                                    G + t[TLOB_FC_B].offset, N, F, s));
    /* dWf [4D, D] += df^T y1; dy1 [N, D] = df Wf */
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_T, D, F, N, &ONE, L->y1, D, L->df, F, &ONE,
                             G + t[TLOB_FC_W].offset, D));
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_N, D, N, F, &ONE, W + t[TLOB_FC_W].offset,
                             D, L->df, F, &ZERO, L->dy1, D));
    /* 5. dr [N, D] through LayerNorm 1 of (dy1 + dz1 when Dout == D); gamma1,
     * beta1, b0 grads; dx = dr (+ dy) starts the input gradient */
    CUDA_CHECK(tlob_launch_ln_bwd(L->dy1, L->res ? L->dz1 : NULL, 0, L->h1, L->mean1, L->rstd1,
                                  W + t[TLOB_NORM_W].offset, W + t[TLOB_NORM_B].offset, L->dr,
                                  L->res ? dy : NULL, dx, G + t[TLOB_NORM_W].offset,
                                  G + t[TLOB_NORM_B].offset, G + t[TLOB_W0_B].offset, N, D, s));
    /* dW0 [D, E] += dr^T a; da [N, E] = dr W0 (b_out grad: with the stage-2 column sums) */
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_T, E, D, N, &ONE, L->a, E, L->dr, D, &ONE,
                             G + t[TLOB_W0_W].offset, E));
    TLOB_CHECK(bind_fp32(L));
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_N, E, N, D, &ONE, W + t[TLOB_W0_W].offset,
                             E, L->dr, D, &ZERO, L->da, E));
    /* 4. dW_out [E, E] += da^T o; dout [N, E] = da W_out */
    TLOB_CHECK(bind_handle(L));
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_T, E, E, N, &ONE, L->o, E, L->da, E, &ONE,
                             G + t[TLOB_OUT_PROJ_W].offset, E));
    TLOB_CHECK(bind_fp32(L));
    CUBLAS_CHECK(cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_N, E, N, E, &ONE,
                             W + t[TLOB_OUT_PROJ_W].offset, E, L->da, E, &ZERO, L->dout, E));
    /* 3. per head, batched over samples: dP = dO_h V_h^T [T, T]; dV_h = P^T dO_h;
     * dS = softmax backward (with the scale); dQ_h = dS K_h; dK_h = dS^T Q_h */
    const float *q = L->qkv, *k = L->qkv + NE, *v = L->qkv + 2 * NE;
    float *dq = L->dqkv, *dk = L->dqkv + NE, *dv = L->dqkv + 2 * NE;
    /* dP feeds the softmax backward, whose subtraction of the row sum cancels
     * and so amplifies dP's relative error into dS, dq and the q-side
     * gradients (with TF32 here they reached 2.2e-3 rel. L2, H200). The other
     * attention products stay in the layer's mode: FP32 for them changed no
     * error measurably. The handle is still in FP32 from dout. */
    for (int h = 0; h < nh; h++)
        CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_T, CUBLAS_OP_N, T, T, D, &ONE,
                                               v + h * D, E, TE, L->dout + h * D, E, TE, &ZERO,
                                               L->datt + h * TT, T, nh * TT, batch));
    TLOB_CHECK(bind_handle(L));
    for (int h = 0; h < nh; h++)
        CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_T, D, T, T, &ONE,
                                               L->dout + h * D, E, TE, L->att + h * TT, T, nh * TT,
                                               &ZERO, dv + h * D, E, TE, batch));
    CUDA_CHECK(tlob_launch_softmax_bwd(L->datt, L->att, batch * nh * T, T, L->scale, s));
    for (int h = 0; h < nh; h++) {
        CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_N, D, T, T, &ONE,
                                               k + h * D, E, TE, L->datt + h * TT, T, nh * TT,
                                               &ZERO, dq + h * D, E, TE, batch));
        CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_T, D, T, T, &ONE,
                                               q + h * D, E, TE, L->datt + h * TT, T, nh * TT,
                                               &ZERO, dk + h * D, E, TE, batch));
    }
    /* 2. b_in grad [3, E]; dW_in [3, E, E] += dq|dk|dv^T q0|k0|v0: one strided-batched
     *    call over the three blocks (each split into `splits` row chunks when the
     *    rows allow, then one reduction); dq0|dk0|dv0 [3, N, E] = dq|dk|dv W_in
     *    blocks (one call). One column-sum launch does the b_out grad (of da),
     *    the b_in grad and, when split, the reduction of dW_in's partials. */
    const int splits = weight_grad_splits(N), chunk = N / splits;
    tlob_colsum_task sums[3] = {
        {L->da, G + t[TLOB_OUT_PROJ_B].offset, 1, N, E},
        {L->dqkv, G + t[TLOB_IN_PROJ_B].offset, 3, N, E},
        {L->wpart, G + t[TLOB_IN_PROJ_W].offset, 3, splits, E * E},
    };
    if (splits == 1) {
        CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_T, E, E, N, &ONE,
                                               L->qkv0, E, NE, L->dqkv, E, NE, &ONE,
                                               G + t[TLOB_IN_PROJ_W].offset, E, (long long)E * E, 3));
        CUDA_CHECK(tlob_launch_colsums(sums, 2, s));
    } else {
        /* chunk j = block * splits + c starts at row j * chunk of the [3N, E] buffers */
        CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_T, E, E, chunk, &ONE,
                                               L->qkv0, E, (long long)chunk * E, L->dqkv, E,
                                               (long long)chunk * E, &ZERO, L->wpart, E,
                                               (long long)E * E, 3 * splits));
        CUDA_CHECK(tlob_launch_colsums(sums, 3, s));
    }
    TLOB_CHECK(bind_fp32(L));
    CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_N, E, N, E, &ONE,
                                           W + t[TLOB_IN_PROJ_W].offset, E, (long long)E * E,
                                           L->dqkv, E, NE, &ZERO, L->dqkv0, E, NE, 3));
    /* 1. bq|bk|bv grads; dWq|dWk|dWv [3, E, D] += dq0|dk0|dv0^T x: one strided-batched
     *    call (x shared with stride 0; split-K reads x from three copies so that
     *    every chunk is one stride apart); the three dx contributions [3, N, D]
     *    (one call), summed into dx. One column-sum launch does the bq|bk|bv
     *    grads and, when split, the reduction of the partials. */
    sums[0] = (tlob_colsum_task){L->dqkv0, G + t[TLOB_QKV_Q_B].offset, 3, N, E};
    sums[1] = (tlob_colsum_task){L->wpart, G + t[TLOB_QKV_Q_W].offset, 3, splits, E * D};
    TLOB_CHECK(bind_handle(L));
    if (splits == 1) {
        CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_T, D, E, N, &ONE, x, D,
                                               0, L->dqkv0, E, NE, &ONE,
                                               G + t[TLOB_QKV_Q_W].offset, D, (long long)E * D, 3));
        CUDA_CHECK(tlob_launch_colsums(sums, 1, s));
    } else {
        CUDA_CHECK(tlob_launch_replicate(L->x3, x, 3, N * D, s));
        CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_T, D, E, chunk, &ONE,
                                               L->x3, D, (long long)chunk * D, L->dqkv0, E,
                                               (long long)chunk * E, &ZERO, L->wpart, D,
                                               (long long)E * D, 3 * splits));
        CUDA_CHECK(tlob_launch_colsums(sums, 2, s));
    }
    CUBLAS_CHECK(cublasSgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_N, D, N, E, &ONE,
                                           W + t[TLOB_QKV_Q_W].offset, D, (long long)E * D,
                                           L->dqkv0, E, NE, &ZERO, L->dxp, D, (long long)N * D, 3));
    CUDA_CHECK(tlob_launch_add3(dx, L->dxp, (size_t)N * D, (size_t)N * D, s));
    return TLOB_OK;
}

/* ---- host data ------------------------------------------------------------- */

tlob_status tlob_upload(tlob_layer *layer, float *dst, const float *src, size_t count) {
    if (!layer || (!dst && count) || (!src && count))
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_upload: null argument");
    device_context *c = layer->ctx;
    for (size_t done = 0; done < count; done += STAGING_FLOATS) {
        const size_t n = count - done < STAGING_FLOATS ? count - done : STAGING_FLOATS;
        memcpy(c->staging_host, src + done, n * sizeof(float));
        CUDA_CHECK(cudaMemcpyAsync(dst + done, c->staging_dev, n * sizeof(float),
                                   cudaMemcpyDeviceToDevice, c->stream));
        /* The next chunk overwrites the staging buffer: wait for this copy. */
        CUDA_CHECK(cudaStreamSynchronize(c->stream));
    }
    return TLOB_OK;
}

tlob_status tlob_download(tlob_layer *layer, float *dst, const float *src, size_t count) {
    if (!layer || (!dst && count) || (!src && count))
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_download: null argument");
    CUDA_CHECK(cudaStreamSynchronize(layer->ctx->stream));
    CUDA_CHECK(cudaMemcpy(dst, src, count * sizeof(float), cudaMemcpyDeviceToHost));
    return TLOB_OK;
}

tlob_status tlob_init_params(tlob_layer *layer, uint64_t seed) {
    if (!layer) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null layer");
    float *host = malloc(layer->nparams * sizeof(float));
    if (!host) return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "%zu floats", layer->nparams);
    tlob_status st = tlob_init_params_host(layer->D, layer->nh, layer->O, seed, host);
    if (st == TLOB_OK) st = tlob_upload(layer, layer->params, host, layer->nparams);
    free(host);
    return st;
}

tlob_status tlob_load_params(tlob_layer *layer, const char *dir) {
    if (!layer || !dir) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    float *host = malloc(layer->nparams * sizeof(float));
    if (!host) return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "%zu floats", layer->nparams);
    tlob_status st = tlob_read_params_host(dir, layer->D, layer->nh, layer->O, host);
    if (st == TLOB_OK) st = tlob_upload(layer, layer->params, host, layer->nparams);
    free(host);
    return st;
}

static tlob_status save_flat(tlob_layer *layer, const float *dev, const char *dir) {
    if (!layer || !dir) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    float *host = malloc(layer->nparams * sizeof(float));
    if (!host) return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "%zu floats", layer->nparams);
    tlob_status st = tlob_download(layer, host, dev, layer->nparams);
    if (st == TLOB_OK) st = tlob_write_params_host(dir, layer->D, layer->nh, layer->O, host);
    free(host);
    return st;
}

tlob_status tlob_save_params(tlob_layer *layer, const char *dir) {
    return save_flat(layer, layer ? layer->params : NULL, dir);
}

tlob_status tlob_save_grads(tlob_layer *layer, const char *dir) {
    return save_flat(layer, layer ? layer->grads : NULL, dir);
}
