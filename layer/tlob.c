/* The layer on the device: the layer's own context (stream, cuBLAS handle
 * and workspace, mapped pinned staging buffer), layer lifetime, the
 * forward and backward pass as the transformer's stages (the GEMMs are the
 * launchers of linear.h and attention.h, our kernels those of kernels.h),
 * and parameter I/O. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "attention.h"
#include "compute.h"
#include "forward_kernels.h"
#include "internal.h"
#include "kernels.h"
#include "linear.h"
#include "mlp_kernels.h"
#include "npy.h"
#include "status.h"
#include "tlob.h"

/* Uploads travel in chunks of this many floats (4 MiB of pinned memory). */
#define STAGING_FLOATS ((size_t)1 << 20)
/* Activation buffers start on 256-byte boundaries (cuBLAS's preferred
 * alignment for tensor-op kernels). */
#define ALIGN_FLOATS 64

/* ---- the layer's own context ----------------------------------------------
 * Every layer owns its cuBLAS handle and workspace, a stream of its own and a
 * staging buffer, so layers share no state: two layers run at once from two
 * threads, and a layer can run on whatever stream its caller uses. */

typedef struct {
    cudaStream_t own_stream; /* created with the layer; used until tlob_set_stream */
    compute_ctx compute;     /* cuBLAS handle and workspace, on the current stream */
    attention_device attention; /* the device's limits for the fused attention */
    float *staging_host;     /* mapped pinned: the host writes here ...          */
    float *staging_dev;      /* ... and the device reads it through this pointer */
} layer_context;

static void context_free(layer_context *c) {
    /* Teardown: report nothing, free everything that exists. */
    compute_ctx_destroy(&c->compute);
    if (c->staging_host) (void)cudaFreeHost(c->staging_host);
    if (c->own_stream) (void)cudaStreamDestroy(c->own_stream);
    memset(c, 0, sizeof *c);
}

/* On failure the caller frees what was made (context_free). */
static tlob_status context_init(layer_context *c) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
        (void)cudaGetLastError(); /* leave no pending error for later calls */
        return TLOB_FAIL(TLOB_ERR_NO_DEVICE, "no CUDA device: %s", cudaGetErrorString(e));
    }
    CUDA_CHECK(e);
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->own_stream, cudaStreamNonBlocking));
    TLOB_CHECK(compute_ctx_create(&c->compute, c->own_stream));
    TLOB_CHECK(attention_device_query(&c->attention));
    CUDA_CHECK(tlob_forward_fused_prepare(c->attention.smem_limit));
    CUDA_CHECK(tlob_mlp_prepare(c->attention.smem_limit));
    CUDA_CHECK(cudaHostAlloc((void **)&c->staging_host, STAGING_FLOATS * sizeof(float),
                             cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&c->staging_dev, c->staging_host, 0));
    return TLOB_OK;
}

/* ---- the layer ------------------------------------------------------------- */

struct tlob_layer {
    tlob_config cfg;
    int D, E, F, O, T, nh, res; /* res: Dout == D, so both residuals exist */
    int Ep;                     /* E rounded up to ALIGN_FLOATS */
    float scale;                /* 1/sqrt(D), the attention score scale */
    attention_path forward_path; /* AUTO, or forced by the tests and the benchmark */
    int forward_rows;            /* fused forward tile rows: 0 picks (forward_fused_rows) */
    int forward_launches;        /* fused forward: 0 picks (forward_one_launch), 1 or 2 */
    int forward_one_fits[2];     /* tlob_forward_one_fits for 16- and 32-row tiles */
    attention_path mlp_path;     /* the MLP's products: AUTO, cuBLAS (GENERAL) or
                                  * layer/mlp_kernels.h (FUSED), forced by the tests */
    int dgrad_chunks[TLOB_DGRAD_COUNT]; /* data-gradient row chunks: 0 picks (data_grad_chunks) */
    int folded;                  /* the last forward computed the folded weights below */
    layer_context ctx;
    tlob_tensor_info tensors[TLOB_NUM_TENSORS];
    size_t nparams;
    float *own_params, *own_grads; /* allocated with the layer */
    float *params, *grads;         /* in use: the layer's own or the caller's (tlob_set_buffers) */
    float *io;                     /* x | y | att | dy | dx of the host-array calls, on first use */
    float *arena; /* every activation and scratch buffer below */
    /* forward activations, N = batch * T rows */
    float *qkv;   /* [3, N, E]  q | k | v */
    float *att;   /* [B, nh, T, T] attention probabilities */
    float *o;     /* [N, E] heads concatenated */
    float *r;     /* [N, D] o Wc^T: w0 of the out-projection, before the bias */
    float *h1;    /* [N, D] r + bc + x, LayerNorm 1 input */
    float *mean1, *rstd1; /* [N] */
    float *y1;    /* [N, D] */
    float *f;     /* [N, 4D] y1 Wf^T: the fc pre-activation without its bias */
    float *g;     /* [N, 4D] GELU(f) */
    float *z0;    /* [N, Dout] fc2 output before bias */
    float *z1;    /* [N, Dout] LayerNorm 2 input */
    float *mean2, *rstd2; /* [N] */
    /* the folded weights (fold_forward_jobs): q|k|v = x Wqkv_eff^T + bqkv_eff,
     * r = o Wc^T + bc */
    float *wqkv_eff; /* [3, E, D] */
    float *bqkv_eff; /* [3, Ep]: rows padded to 64 floats (256 bytes, cuBLASLt's bias) */
    float *wc;       /* [D, E] */
    float *bc;       /* [D] */
    /* backward scratch */
    float *dz1;   /* [N, Dout] */
    float *dg;    /* [N, 4D] */
    float *df;    /* [N, 4D] */
    float *dy1;   /* [N, D] */
    float *dr;    /* [N, D] */
    float *dout;  /* [N, E] gradient of the concatenated heads */
    float *datt;  /* [B, nh, T, T] */
    float *dqkv;  /* [N, 3E]: row n is dq_n | dk_n | dv_n (attention.h) */
    /* this call's gradients of the folded weights, contiguous (one memset):
     * dWqkv_eff [3, E, D], dbqkv_eff [3, E], dWc [D, E], dbc [D] */
    float *gwqkv_eff, *gbqkv_eff, *gwc, *gbc;
    float *wpart; /* split-K partial weight gradients: the folded projection's */
    float *wpart_fc2, *wpart_fc, *wpart_wc; /* ... and fc2's, fc's, the folded w0's */
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
    L->Ep = (L->E + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
    L->res = L->O == L->D;
    L->scale = (float)(1.0 / sqrt((double)L->D));
    st = context_init(&L->ctx);
    if (st != TLOB_OK) {
        tlob_destroy(L);
        return st;
    }
    for (int i = 0; i < 2; i++)
        L->forward_one_fits[i] =
            tlob_forward_one_fits(L->T, L->D, L->nh, L->O, 16 << i, config->math == TLOB_MATH_TF32,
                                  L->ctx.attention.smem_limit);

    const size_t N = (size_t)config->max_batch * L->T, E = (size_t)L->E, D = (size_t)L->D,
                 F = (size_t)L->F, O = (size_t)L->O;
    const size_t PT = (size_t)config->max_batch * L->nh * L->T * L->T;
    struct { float **ptr; size_t count; } bufs[] = {
        {&L->qkv, 3 * N * E}, {&L->att, PT},     {&L->o, N * E},
        {&L->r, N * D},       {&L->h1, N * D},   {&L->mean1, N},
        {&L->rstd1, N},        {&L->y1, N * D},      {&L->f, N * F},    {&L->g, N * F},
        {&L->z0, N * O},       {&L->z1, N * O},      {&L->mean2, N},    {&L->rstd2, N},
        {&L->wqkv_eff, 3 * E * D}, {&L->bqkv_eff, 3 * (size_t)L->Ep}, {&L->wc, D * E}, {&L->bc, D},
        {&L->dz1, N * O},      {&L->dg, N * F},      {&L->df, N * F},   {&L->dy1, N * D},
        {&L->dr, N * D},       {&L->dout, N * E}, {&L->datt, PT},
        {&L->dqkv, 3 * N * E},
        {&L->wpart, linear_weight_grad_partial_floats(L->D, 3 * L->E)},
        {&L->wpart_fc2, linear_weight_grad_partial_floats(L->F, L->O)},
        {&L->wpart_fc, linear_weight_grad_partial_floats(L->D, L->F)},
        {&L->wpart_wc, linear_weight_grad_partial_floats(L->E, L->D)},
        {&L->gwqkv_eff, 3 * E * D}, {&L->gbqkv_eff, 3 * E}, {&L->gwc, D * E}, {&L->gbc, D},
    };
    const size_t nbufs = sizeof bufs / sizeof bufs[0];
    size_t total = 0;
    for (size_t i = 0; i < nbufs; i++)
        total += (bufs[i].count + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
    if (cudaMalloc((void **)&L->own_params, L->nparams * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&L->own_grads, L->nparams * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&L->arena, total * sizeof(float)) != cudaSuccess) {
        st = TLOB_FAIL(TLOB_ERR_CUDA, "cudaMalloc of %zu parameter and %zu activation floats failed",
                       2 * L->nparams, total);
        tlob_destroy(L);
        return st;
    }
    L->params = L->own_params, L->grads = L->own_grads;
    float *p = L->arena;
    for (size_t i = 0; i < nbufs; i++) {
        *bufs[i].ptr = p;
        p += (bufs[i].count + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
    }
    if (cudaMemsetAsync(L->params, 0, L->nparams * sizeof(float), L->ctx.compute.stream) != cudaSuccess ||
        cudaMemsetAsync(L->grads, 0, L->nparams * sizeof(float), L->ctx.compute.stream) != cudaSuccess ||
        cudaStreamSynchronize(L->ctx.compute.stream) != cudaSuccess) {
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
    if (layer->ctx.compute.cublas) (void)cudaStreamSynchronize(layer->ctx.compute.stream);
    if (layer->own_params) (void)cudaFree(layer->own_params);
    if (layer->own_grads) (void)cudaFree(layer->own_grads);
    if (layer->arena) (void)cudaFree(layer->arena);
    if (layer->io) (void)cudaFree(layer->io);
    context_free(&layer->ctx);
    free(layer);
}

const tlob_config *tlob_get_config(const tlob_layer *layer) { return layer ? &layer->cfg : NULL; }
const tlob_tensor_info *tlob_tensors(const tlob_layer *layer) { return layer ? layer->tensors : NULL; }
size_t tlob_num_params(const tlob_layer *layer) { return layer ? layer->nparams : 0; }
float *tlob_params(tlob_layer *layer) { return layer ? layer->params : NULL; }
float *tlob_grads(tlob_layer *layer) { return layer ? layer->grads : NULL; }
cudaStream_t tlob_stream(const tlob_layer *layer) { return layer ? layer->ctx.compute.stream : NULL; }

tlob_status tlob_set_stream(tlob_layer *layer, cudaStream_t stream) {
    if (!layer) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_set_stream: null layer");
    return compute_ctx_set_stream(&layer->ctx.compute, stream);
}

tlob_status tlob_set_buffers(tlob_layer *layer, float *params, float *grads) {
    if (!layer || (!params) != (!grads))
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT,
                         "tlob_set_buffers: null layer, or only one of params and grads");
    layer->params = params ? params : layer->own_params;
    layer->grads = grads ? grads : layer->own_grads;
    return TLOB_OK;
}

const float *tlob_internal_qkv(const tlob_layer *layer) { return layer ? layer->qkv : NULL; }

tlob_status tlob_set_math(tlob_layer *layer, tlob_math math) {
    if (!layer || (math != TLOB_MATH_TF32 && math != TLOB_MATH_FP32))
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_set_math: bad argument");
    layer->cfg.math = math;
    return TLOB_OK;
}

tlob_status tlob_sync(tlob_layer *layer) {
    if (!layer) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null layer");
    CUDA_CHECK(cudaStreamSynchronize(layer->ctx.compute.stream));
    return TLOB_OK;
}

tlob_status tlob_zero_grads(tlob_layer *layer) {
    if (!layer) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null layer");
    CUDA_CHECK(cudaMemsetAsync(layer->grads, 0, layer->nparams * sizeof(float), layer->ctx.compute.stream));
    return TLOB_OK;
}

/* ---- forward / backward dispatch ------------------------------------------ */

/* The parameters (or their gradients) of one flat buffer, by module. The
 * three qkv Linears' weights (then biases) are adjacent, so qkv_w is the
 * block Wq|Wk|Wv [3, E, D] and qkv_b the block bq|bk|bv [3, E]; likewise the
 * three row blocks of in_proj. */
typedef struct {
    float *norm_w, *norm_b;         /* LayerNorm 1 [D] */
    float *qkv_w, *qkv_b;           /* first projection [3, E, D], [3, E] */
    float *in_proj_w, *in_proj_b;   /* attention input projection [3, E, E], [3, E] */
    float *out_proj_w, *out_proj_b; /* attention output projection [E, E], [E] */
    float *mlp_ln_w, *mlp_ln_b;     /* LayerNorm 2 [Dout] */
    float *fc_w, *fc_b;             /* [4D, D], [4D] */
    float *fc2_w, *fc2_b;           /* [Dout, 4D], [Dout] */
    float *w0_w, *w0_b;             /* [D, E], [D] */
} layer_tensors;

static layer_tensors tensors_in(float *flat, const tlob_tensor_info *t) {
    return (layer_tensors){
        flat + t[TLOB_NORM_W].offset,     flat + t[TLOB_NORM_B].offset,
        flat + t[TLOB_QKV_Q_W].offset,    flat + t[TLOB_QKV_Q_B].offset,
        flat + t[TLOB_IN_PROJ_W].offset,  flat + t[TLOB_IN_PROJ_B].offset,
        flat + t[TLOB_OUT_PROJ_W].offset, flat + t[TLOB_OUT_PROJ_B].offset,
        flat + t[TLOB_MLP_LN_W].offset,   flat + t[TLOB_MLP_LN_B].offset,
        flat + t[TLOB_FC_W].offset,       flat + t[TLOB_FC_B].offset,
        flat + t[TLOB_FC2_W].offset,      flat + t[TLOB_FC2_B].offset,
        flat + t[TLOB_W0_W].offset,       flat + t[TLOB_W0_B].offset,
    };
}

static tlob_status check_call(const tlob_layer *L, int batch) {
    if (!L) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null layer");
    if (batch < 1 || batch > L->cfg.max_batch)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "batch %d outside [1, %d]", batch,
                         L->cfg.max_batch);
    return TLOB_OK;
}

/* ---- the folded projections ------------------------------------------------
 * Both projection stages are Linears with nothing between them, and so are
 * the out-projection and w0, so each pair composes into one Linear:
 *   q_i = (x Wqkv_i^T + bqkv_i) Win_i^T + bin_i = x (Win_i Wqkv_i)^T + (Win_i bqkv_i + bin_i)
 *   r   = (o Wout^T + bout) W0^T + b0        = o (W0 Wout)^T + (W0 bout + b0)
 * (i = q, k, v; TLOB.md's steps 1-2 and 4-5). The forward computes the
 * folded weights per call (E E D multiply-adds each, one launch), then runs
 * one projection GEMM instead of two and one instead of two after the
 * attention. Their gradients, from this call's dWqkv_eff = dq_i^T x,
 * dbqkv_eff = sum dq_i, dWc = dr^T o, dbc = sum dr (all rows, one GEMM each):
 *   dWin_i  += dWqkv_eff_i Wqkv_i^T + dbqkv_eff_i bqkv_i^T   dbin_i  += dbqkv_eff_i
 *   dWqkv_i += Win_i^T dWqkv_eff_i                          dbqkv_i += Win_i^T dbqkv_eff_i
 *   dW0     += dWc Wout^T + dbc bout^T                      db0     += dbc
 *   dWout   += W0^T dWc                                     dbout   += W0^T dbc
 * (the bias terms: q0 = x Wqkv^T + 1 bqkv^T, a = o Wout^T + 1 bout^T). */

/* A row-major [M, K] x [K, N] product of tlob_fold_job without extras;
 * transposes by strides: A^T of a row-major [K, M] is (a_sm, a_sk) = (1, M). */
static tlob_fold_job fold_product(float *C, const float *A, int a_sm, int a_sk, const float *B,
                                  int b_sk, int b_sn, int M, int N, int K, int accumulate) {
    return (tlob_fold_job){A, B, NULL, NULL, NULL, C, M, N, K, a_sm, a_sk, b_sk, b_sn, accumulate};
}

/* The forward's eight: Wqkv_eff_i, bqkv_eff_i (i = q, k, v), Wc, bc. */
static int fold_forward_jobs(const tlob_layer *L, const layer_tensors *w, tlob_fold_job *jobs) {
    const int D = L->D, E = L->E;
    int n = 0;
    for (int i = 0; i < 3; i++) {
        const float *win = w->in_proj_w + (size_t)i * E * E, *wq = w->qkv_w + (size_t)i * E * D;
        jobs[n++] = fold_product(L->wqkv_eff + (size_t)i * E * D, win, E, 1, wq, D, 1, E, D, E, 0);
        jobs[n] = fold_product(L->bqkv_eff + (size_t)i * L->Ep, win, E, 1, w->qkv_b + (size_t)i * E,
                               1, 0, E, 1, E, 0);
        jobs[n++].add = w->in_proj_b + (size_t)i * E;
    }
    jobs[n++] = fold_product(L->wc, w->w0_w, E, 1, w->out_proj_w, E, 1, D, E, E, 0);
    jobs[n] = fold_product(L->bc, w->w0_w, E, 1, w->out_proj_b, 1, 0, D, 1, E, 0);
    jobs[n++].add = w->w0_b;
    return n;
}

/* The backward's sixteen: the folded gradients into the eight parameter
 * gradients they come from (accumulated, as every gradient is). */
static int fold_backward_jobs(const tlob_layer *L, const layer_tensors *w, const layer_tensors *g,
                              tlob_fold_job *jobs) {
    const int D = L->D, E = L->E;
    int n = 0;
    for (int i = 0; i < 3; i++) {
        const float *win = w->in_proj_w + (size_t)i * E * E, *wq = w->qkv_w + (size_t)i * E * D,
                    *bq = w->qkv_b + (size_t)i * E;
        const float *gw = L->gwqkv_eff + (size_t)i * E * D, *gb = L->gbqkv_eff + (size_t)i * E;
        /* dWin_i [E, E] += dWqkv_eff_i [E, D] Wqkv_i^T + dbqkv_eff_i bqkv_i^T */
        jobs[n] = fold_product(g->in_proj_w + (size_t)i * E * E, gw, D, 1, wq, 1, D, E, E, D, 1);
        jobs[n].u = gb, jobs[n++].v = bq;
        /* dWqkv_i [E, D] += Win_i^T dWqkv_eff_i */
        jobs[n++] = fold_product(g->qkv_w + (size_t)i * E * D, win, 1, E, gw, D, 1, E, D, E, 1);
        /* dbqkv_i [E] += Win_i^T dbqkv_eff_i */
        jobs[n++] = fold_product(g->qkv_b + (size_t)i * E, win, 1, E, gb, 1, 0, E, 1, E, 1);
        /* dbin_i += dbqkv_eff_i */
        jobs[n] = fold_product(g->in_proj_b + (size_t)i * E, NULL, 0, 0, NULL, 0, 0, E, 1, 0, 1);
        jobs[n++].add = gb;
    }
    /* dW0 [D, E] += dWc [D, E] Wout^T + dbc bout^T */
    jobs[n] = fold_product(g->w0_w, L->gwc, E, 1, w->out_proj_w, 1, E, D, E, E, 1);
    jobs[n].u = L->gbc, jobs[n++].v = w->out_proj_b;
    /* dWout [E, E] += W0^T dWc */
    jobs[n++] = fold_product(g->out_proj_w, w->w0_w, 1, E, L->gwc, E, 1, E, E, D, 1);
    /* dbout [E] += W0^T dbc */
    jobs[n++] = fold_product(g->out_proj_b, w->w0_w, 1, E, L->gbc, 1, 0, E, 1, D, 1);
    /* db0 += dbc */
    jobs[n] = fold_product(g->w0_b, NULL, 0, 0, NULL, 0, 0, D, 1, 0, 1);
    jobs[n++].add = L->gbc;
    return n;
}

/* Tile rows of the fused forward (layer/forward_kernels.h) for `batch`
 * samples, or 0 when it does not run. It can run when both kernels' shared
 * memory fits the device's limit per block: the rest kernel holds the four
 * weights beside the attention, so D <= 48 or so at T = 128 (BTC temporal and
 * B = 1 inference; feature BTC and FI-2010 take the general path). By default
 * (AUTO) only while the rest kernel's grid of 16-row tiles has at most one
 * block per multiprocessor: at B = 1 it beats the general path (graphed
 * forward, H200: 29.4 against 43.0 us in TF32, 34.0 against 64.1 us in FP32:
 * docs/layer-results.md, tenth pass), at BTC temporal's 128 samples it was
 * 2.1x slower (200 against 96 us: sixth pass). 32 rows once the rest kernel
 * has a block per multiprocessor with them, else 16 (at B = 1, 32 rows
 * measured 43.1 against 34.0 us in FP32). Forcing: the tests and the benchmark. */
static int forward_fused_rows(const tlob_layer *L, int batch) {
    if (L->forward_path == ATTENTION_GENERAL) return 0;
    if (L->forward_path == ATTENTION_AUTO &&
        (long long)(L->T + 15) / 16 * batch > L->ctx.attention.multiprocessors)
        return 0;
    int rows = L->forward_rows;
    if (!rows)
        rows = (long long)(L->T + 31) / 32 * batch >= L->ctx.attention.multiprocessors ? 32 : 16;
    const size_t limit = (size_t)L->ctx.attention.smem_limit;
    const int tc = L->cfg.math == TLOB_MATH_TF32;
    return tlob_forward_proj_smem(L->D, L->nh, rows, tc) <= limit &&
                   tlob_forward_rest_smem(L->T, L->D, L->nh, L->O, rows, tc) <= limit
               ? rows
               : 0;
}

/* Whether the MLP's fc + bias + GELU (forward: K = D) or dg + GELU
 * backward (K = Dout) runs as one tensor-core kernel (layer/mlp_kernels.h)
 * instead of a cuBLAS product and a row kernel. TF32 mode only: FP32 mode
 * stays strict FP32 on cuBLAS. */
static int mlp_fused(const tlob_layer *L, int backward) {
    if (L->cfg.math != TLOB_MATH_TF32 || L->mlp_path == ATTENTION_GENERAL) return 0;
    /* AUTO: only where one block's tile spans the whole hidden width (F <=
     * TLOB_MLP_CHUNK: D <= 40, BTC temporal); wider, every column chunk
     * reloads the A tile (docs/layer-results.md, ninth pass) */
    if (L->mlp_path == ATTENTION_AUTO && L->F > TLOB_MLP_CHUNK) return 0;
    const size_t smem =
        backward ? tlob_mlp_bwd_smem(L->O, L->D, L->F) : tlob_mlp_fwd_smem(L->O, L->D, L->F);
    return smem <= (size_t)L->ctx.attention.smem_limit;
}

tlob_status tlob_internal_force_mlp(tlob_layer *L, int path) {
    if (!L || path < ATTENTION_AUTO || path > ATTENTION_FUSED)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_internal_force_mlp: bad argument");
    L->mlp_path = (attention_path)path;
    return TLOB_OK;
}

int tlob_internal_mlp_fused(const tlob_layer *L) {
    return L ? mlp_fused(L, 0) + 2 * mlp_fused(L, 1) +
                   4 * (mlp_fused(L, 1) && tlob_mlp_dy1_fits(L->D, L->F)) +
                   8 * (mlp_fused(L, 1) && tlob_mlp_ln_fits(L->O, L->D, L->F)) +
                   16 * (mlp_fused(L, 0) && tlob_mlp_fc2_fits(L->O, L->D, L->F))
             : 0;
}

tlob_status tlob_internal_force_forward(tlob_layer *L, int path, int rows) {
    if (!L || path < ATTENTION_AUTO || path > ATTENTION_FUSED || (rows && rows != 16 && rows != 32))
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_internal_force_forward: bad argument");
    L->forward_path = (attention_path)path;
    L->forward_rows = rows;
    return TLOB_OK;
}

int tlob_internal_forward_fused_rows(const tlob_layer *L, int batch) {
    return L ? forward_fused_rows(L, batch) : 0;
}

/* Whether the fused forward of `rows`-row tiles runs as one launch (the
 * blocks of a sample one thread-block cluster: layer/forward_kernels.h)
 * instead of the projection and rest kernels. By default wherever it fits:
 * at B = 1 it measured faster (docs/layer-results.md, tenth pass). */
static int forward_one_launch(const tlob_layer *L, int rows) {
    return L->forward_launches != 2 && L->forward_one_fits[rows == 32];
}

tlob_status tlob_internal_force_forward_launches(tlob_layer *L, int launches) {
    if (!L || launches < 0 || launches > 2)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_internal_force_forward_launches: bad argument");
    L->forward_launches = launches;
    return TLOB_OK;
}

int tlob_internal_forward_launches(const tlob_layer *L, int batch) {
    const int rows = L ? forward_fused_rows(L, batch) : 0;
    return rows ? (forward_one_launch(L, rows) ? 1 : 2) : 0;
}

/* Row chunks of a backward data-gradient product (internal.h) over `rows`
 * rows: forced, or by default 8 for dx, 8 for dy1 where its output is at
 * most 64 wide (D), 8 for dout and dg over at most DGRAD_FEW_ROWS rows (one
 * sample: at B = 1, 128 rows, each alone in 2-64 chunks measured 1.8-3.0 us
 * faster, fourteenth pass, both together in the fifteenth), and the plain
 * call for the others. Measured on the H200
 * (docs/layer-results.md, thirteenth and fourteenth passes, `tlob bench`'s
 * sweep of 1-64 chunks): dx as one product cost 5.2 us of BTC temporal's
 * graphed TF32 fwd+bwd (FP32 FI-2010: 5.9); dy1 = df Wf, [16384, 160] x
 * [160, 40] there, 2.8 us, while at D = 128 (feature BTC, FP32) its chunks
 * lost 3.4-4.8 us (2-16 chunks); dout and dg in chunks gained nothing beyond noise at
 * B = 128. linear_data_grad takes one where the count does not divide. */
#define DGRAD_FEW_ROWS 512
static int data_grad_chunks(const tlob_layer *L, int product, int rows) {
    int chunks = L->dgrad_chunks[product];
    if (!chunks)
        chunks = product == TLOB_DGRAD_DX || (product == TLOB_DGRAD_DY1 && L->D <= 64) ||
                         (product >= TLOB_DGRAD_DOUT && rows <= DGRAD_FEW_ROWS)
                     ? 8
                     : 1;
    return rows % chunks ? 1 : chunks;
}

tlob_status tlob_internal_force_data_grad_chunks(tlob_layer *L, int product, int chunks) {
    if (!L || product < 0 || product >= TLOB_DGRAD_COUNT || chunks < 0 ||
        chunks > TLOB_DGRAD_MAX_CHUNKS)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT,
                         "tlob_internal_force_data_grad_chunks: bad argument");
    L->dgrad_chunks[product] = chunks;
    return TLOB_OK;
}

int tlob_internal_data_grad_chunks(const tlob_layer *L, int product, int batch) {
    if (!L || product < 0 || product >= TLOB_DGRAD_COUNT || batch < 1) return 0;
    return data_grad_chunks(L, product, batch * L->T);
}

TLOB_HOT tlob_status tlob_forward(tlob_layer *L, const float *x, int batch, float *y,
                                  float *att) {
    TLOB_CHECK(check_call(L, batch));
    if (!x || !y) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_forward: null x or y");
    const compute_ctx *c = &L->ctx.compute;
    const tlob_math math = L->cfg.math;
    const int D = L->D, E = L->E, F = L->F, O = L->O, N = batch * L->T;
    const layer_tensors w = tensors_in(L->params, L->tensors);
    const int rows = forward_fused_rows(L, batch);
    if (rows) {
        /* One or two kernels (TF32 tensor cores in TF32 mode, the CUDA
         * cores in FP32); they write every activation the backward below
         * reads. */
        const tlob_forward_weights fw = {w.qkv_w, w.qkv_b, w.in_proj_w, w.in_proj_b,
                                         w.out_proj_w, w.out_proj_b, w.w0_w, w.w0_b,
                                         w.norm_w, w.norm_b, w.fc_w, w.fc_b,
                                         w.fc2_w, w.fc2_b, w.mlp_ln_w, w.mlp_ln_b};
        const tlob_forward_outputs out = {L->qkv, L->att, att, L->o,
                                          L->h1, L->y1, L->mean1, L->rstd1, L->f, L->g,
                                          L->z1, L->mean2, L->rstd2, y};
        CUDA_CHECK(tlob_launch_forward_fused(x, &fw, &out, batch, L->T, D, L->nh, O, L->scale,
                                             rows, math == TLOB_MATH_TF32,
                                             forward_one_launch(L, rows), c->stream));
        L->folded = 0; /* the backward folds the weights itself */
        return TLOB_OK;
    }
    if (L->forward_path == ATTENTION_FUSED)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT,
                         "fused forward: T=%d D=%d nh=%d Dout=%d does not fit the device", L->T, D,
                         L->nh, O);
    const attention_shape heads = {batch, L->T, D, L->nh, L->scale, &L->ctx.attention,
                                   ATTENTION_AUTO, 0};

    /* The folded weights (above fold_forward_jobs) */
    tlob_fold_job jobs[TLOB_FOLD_MAX_JOBS];
    CUDA_CHECK(tlob_launch_fold(jobs, fold_forward_jobs(L, &w, jobs), c->stream));
    L->folded = 1;
    /* 1-2. q|k|v = x Wqkv_eff^T + bqkv_eff: one cuBLASLt call, x shared,
     * the bias added by its epilogue */
    CUBLAS_CHECK(compute_linear3_bias(&L->ctx.compute, math, L->qkv, x, 0, L->wqkv_eff,
                                      L->bqkv_eff, L->Ep, N, D, E, 3));
    /* 3. P = softmax(q k^T / sqrt(D)), o = P v, per head */
    TLOB_CHECK(attention_forward(c, math, &heads, L->qkv, L->att, att, L->o));
    /* 4-5. r = o Wc^T; y1 = LayerNorm(r + bc + x) (in the MLP kernel below
     * where it runs fc2) */
    TLOB_CHECK(linear_forward(c, math, L->r, L->o, L->wc, N, E, D, 0));
    const int fc2_fused = mlp_fused(L, 0) && tlob_mlp_fc2_fits(O, D, F);
    if (!fc2_fused)
        CUDA_CHECK(tlob_launch_ln_fwd(L->r, L->bc, x, w.norm_w, w.norm_b, 0, NULL, L->h1,
                                      L->mean1, L->rstd1, L->y1, N, D, c->stream));
    /* 6. f = y1 Wf^T, g = GELU(f + bf); z0 = g Wf2^T;
     * 7. y = GELU(LayerNorm(z0 + bf2 (+ y1))) (+ x): all in the MLP kernel
     * where fc2 fits it (tlob_mlp_fc2_fits; z0 is then not stored) */
    if (mlp_fused(L, 0)) {
        const tlob_mlp_fc2_ln fc2 = {
            w.fc2_w, w.fc2_b, w.mlp_ln_w, w.mlp_ln_b, L->res ? x : NULL, L->z1, L->mean2,
            L->rstd2, y, O, L->res,
            {L->r, L->bc, x, w.norm_w, w.norm_b, L->h1, L->mean1, L->rstd1, L->y1}};
        CUDA_CHECK(tlob_launch_mlp_fc_gelu(L->y1, w.fc_w, w.fc_b, L->f, L->g,
                                           fc2_fused ? &fc2 : NULL, N, D, F, c->stream));
        if (fc2_fused) return TLOB_OK;
    } else {
        TLOB_CHECK(linear_forward(c, math, L->f, L->y1, w.fc_w, N, D, F, 0));
        CUDA_CHECK(tlob_launch_bias_gelu_fwd(L->f, w.fc_b, L->g, N, F, c->stream));
    }
    TLOB_CHECK(linear_forward(c, math, L->z0, L->g, w.fc2_w, N, F, O, 0));
    CUDA_CHECK(tlob_launch_ln_fwd(L->z0, w.fc2_b, L->res ? L->y1 : NULL, w.mlp_ln_w, w.mlp_ln_b,
                                  1, L->res ? x : NULL, L->z1, L->mean2, L->rstd2, y, N, O,
                                  c->stream));
    return TLOB_OK;
}

TLOB_HOT tlob_status tlob_backward(tlob_layer *L, const float *x, const float *dy, int batch,
                                   float *dx) {
    TLOB_CHECK(check_call(L, batch));
    if (!x || !dy || !dx) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_backward: null x, dy or dx");
    const compute_ctx *c = &L->ctx.compute;
    const tlob_math math = L->cfg.math;
    const int D = L->D, E = L->E, F = L->F, O = L->O, N = batch * L->T;
    const layer_tensors w = tensors_in(L->params, L->tensors);
    const layer_tensors g = tensors_in(L->grads, L->tensors);
    const attention_shape heads = {batch, L->T, D, L->nh, L->scale, &L->ctx.attention,
                                   ATTENTION_AUTO, 0};

    /* Precision in TF32 mode. The data gradients that flow into the attention
     * (dout and dP) are computed in FP32 (`into_attention`); the rest in the
     * layer's mode. `qkv.q.bias`'s gradient is a sum over rows that largely
     * cancels, so it amplifies their rounding more than any other tensor:
     * over 30 fresh seeds on the H200 this cut its mean error from 0.48 to
     * 0.38 of the 2e-3 bound, for 3-18 us of graphed fwd+bwd. FP32 for the
     * MLP's data gradients as well cut it to 0.35 but cost up to 63 us
     * (docs/layer-results.md, "Precision of the backward's GEMMs"). */
    const tlob_math into_attention = TLOB_MATH_FP32;
    if (!L->folded) { /* the fused forward ran: the folded weights are not there yet */
        tlob_fold_job jobs[TLOB_FOLD_MAX_JOBS];
        CUDA_CHECK(tlob_launch_fold(jobs, fold_forward_jobs(L, &w, jobs), c->stream));
    }
    /* this call's folded gradients start at zero (they are summed into) */
    CUDA_CHECK(cudaMemsetAsync(L->gwqkv_eff, 0,
                               (size_t)((L->gbc + D) - L->gwqkv_eff) * sizeof(float), c->stream));
    /* 7-6. dz1 through GELU and LayerNorm 2; gamma2, beta2, bf2 grads. Where
     * it fits, the MLP's backward kernel below does this as well as dy1 =
     * df Wf (two graph nodes fewer: mlp_kernels.h) */
    const int dy1_folded = mlp_fused(L, 1) && tlob_mlp_dy1_fits(D, F);
    const int ln2_folded = mlp_fused(L, 1) && tlob_mlp_ln_fits(O, D, F);
    const tlob_mlp_ln_bwd ln2 = {dy,       L->z1,    L->mean2,  L->rstd2,   w.mlp_ln_w,
                                 w.mlp_ln_b, L->dz1, g.mlp_ln_w, g.mlp_ln_b, g.fc2_b};
    if (!ln2_folded)
        CUDA_CHECK(tlob_launch_ln_bwd(dy, NULL, 1, L->z1, L->mean2, L->rstd2, w.mlp_ln_w,
                                      w.mlp_ln_b, L->dz1, NULL, NULL, g.mlp_ln_w, g.mlp_ln_b,
                                      g.fc2_b, N, O, c->stream));
    /* One column-sum launch near the end does the split-K reductions of the
     * weight gradients below and the folded projection's bias gradient. */
    tlob_colsum_task sums[TLOB_COLSUM_MAX_JOBS];
    int nsums = 0;
    /* fc2: dWf2 += dz1^T g (after the kernel that computes dz1 where it
     * does); dg = dz1 Wf2; df = dg GELU'(f + bf); bf grad */
    if (!ln2_folded)
        TLOB_CHECK(linear_weight_grad(c, math, g.fc2_w, L->dz1, L->g, N, F, O, L->wpart_fc2,
                                      sums, &nsums, 0));
    if (mlp_fused(L, 1)) {
        CUDA_CHECK(tlob_launch_mlp_dg_gelu_bwd(L->dz1, w.fc2_w, L->f, w.fc_b, L->df, g.fc_b,
                                               dy1_folded ? w.fc_w : NULL,
                                               dy1_folded ? L->dy1 : NULL,
                                               ln2_folded ? &ln2 : NULL, N, O, F, D, c->stream));
        if (ln2_folded)
            TLOB_CHECK(linear_weight_grad(c, math, g.fc2_w, L->dz1, L->g, N, F, O, L->wpart_fc2,
                                          sums, &nsums, 0));
    } else {
        TLOB_CHECK(linear_data_grad(c, math, L->dg, L->dz1, w.fc2_w, N, F, O, 0,
                                    data_grad_chunks(L, TLOB_DGRAD_DG, N)));
        CUDA_CHECK(tlob_launch_gelu_bwd(L->dg, L->f, w.fc_b, L->df, g.fc_b, N, F, c->stream));
    }
    /* fc: dWf += df^T y1; dy1 = df Wf */
    TLOB_CHECK(linear_weight_grad(c, math, g.fc_w, L->df, L->y1, N, D, F, L->wpart_fc, sums,
                                  &nsums, 0));
    if (!dy1_folded)
        TLOB_CHECK(linear_data_grad(c, math, L->dy1, L->df, w.fc_w, N, D, F, 0,
                                    data_grad_chunks(L, TLOB_DGRAD_DY1, N)));
    /* 5. dr through LayerNorm 1 of (dy1 + dz1 when Dout == D); gamma1, beta1
     * grads and dbc = sum of dr; dx = dr (+ dy) starts the input gradient */
    CUDA_CHECK(tlob_launch_ln_bwd(L->dy1, L->res ? L->dz1 : NULL, 0, L->h1, L->mean1, L->rstd1,
                                  w.norm_w, w.norm_b, L->dr, L->res ? dy : NULL, dx, g.norm_w,
                                  g.norm_b, L->gbc, N, D, c->stream));
    /* 4-5. the folded out-projection and w0: dWc = dr^T o; dout = dr Wc */
    TLOB_CHECK(linear_weight_grad(c, math, L->gwc, L->dr, L->o, N, E, D, L->wpart_wc, sums,
                                  &nsums, 0));
    TLOB_CHECK(linear_data_grad(c, into_attention, L->dout, L->dr, L->wc, N, E, D, 0,
                                data_grad_chunks(L, TLOB_DGRAD_DOUT, N)));
    /* 3. dq|dk|dv through the attention */
    TLOB_CHECK(attention_backward(c, math, &heads, L->qkv, L->att, L->dout, L->datt, L->dqkv));
    /* 1-2. the folded projections as one Linear(D -> 3E): dqkv [N, 3E] is its
     * output gradient, Wqkv_eff [3, E, D] its [3E, D] weight. dWqkv_eff =
     * dqkv^T x and dbqkv_eff = the column sums of dqkv; then the column-sum
     * launch. (With dq|dk|dv as three [N, E] blocks this was a batch-3
     * product over three copies of x, and dx three products and a kernel
     * adding them: docs/layer-results.md, twelfth pass.) */
    sums[nsums++] = (tlob_colsum_task){L->dqkv, L->gbqkv_eff, 1, N, 3 * E};
    /* in FP32 mode always split (linear.c says why) */
    TLOB_CHECK(linear_weight_grad(c, math, L->gwqkv_eff, L->dqkv, x, N, D, 3 * E, L->wpart, sums,
                                  &nsums, math == TLOB_MATH_FP32));
    CUDA_CHECK(tlob_launch_colsums(sums, nsums, c->stream));
    /* the eight parameter gradients from the folded ones (above fold_backward_jobs) */
    tlob_fold_job jobs[TLOB_FOLD_MAX_JOBS];
    CUDA_CHECK(tlob_launch_fold(jobs, fold_backward_jobs(L, &w, &g, jobs), c->stream));
    /* dx += dqkv Wqkv_eff: the three projections' contributions in one
     * strided-batched product over row chunks (linear.h says why) */
    TLOB_CHECK(linear_data_grad(c, math, dx, L->dqkv, L->wqkv_eff, N, D, 3 * E, 1,
                                data_grad_chunks(L, TLOB_DGRAD_DX, N)));
    return TLOB_OK;
}

/* ---- host data ------------------------------------------------------------- */

tlob_status tlob_upload(tlob_layer *layer, float *dst, const float *src, size_t count) {
    if (!layer || (!dst && count) || (!src && count))
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_upload: null argument");
    const layer_context *c = &layer->ctx;
    for (size_t done = 0; done < count; done += STAGING_FLOATS) {
        const size_t n = count - done < STAGING_FLOATS ? count - done : STAGING_FLOATS;
        memcpy(c->staging_host, src + done, n * sizeof(float));
        CUDA_CHECK(cudaMemcpyAsync(dst + done, c->staging_dev, n * sizeof(float),
                                   cudaMemcpyDeviceToDevice, c->compute.stream));
        /* The next chunk overwrites the staging buffer: wait for this copy. */
        CUDA_CHECK(cudaStreamSynchronize(c->compute.stream));
    }
    return TLOB_OK;
}

tlob_status tlob_download(tlob_layer *layer, float *dst, const float *src, size_t count) {
    if (!layer || (!dst && count) || (!src && count))
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_download: null argument");
    CUDA_CHECK(cudaStreamSynchronize(layer->ctx.compute.stream));
    CUDA_CHECK(cudaMemcpy(dst, src, count * sizeof(float), cudaMemcpyDeviceToHost));
    return TLOB_OK;
}

/* The device buffers of the host-array calls, [max_batch] rows each, made
 * on first use so that device-pointer callers never pay for them. */
static tlob_status io_buffers(tlob_layer *L, float **x, float **y, float **att, float **dy,
                              float **dx) {
    const size_t rows = (size_t)L->cfg.max_batch * L->T, nx = rows * L->D, ny = rows * L->O,
                 na = (size_t)L->cfg.max_batch * L->nh * L->T * L->T;
    if (!L->io) CUDA_CHECK(cudaMalloc((void **)&L->io, (2 * nx + 2 * ny + na) * sizeof(float)));
    *x = L->io, *y = *x + nx, *att = *y + ny, *dy = *att + na, *dx = *dy + ny;
    return TLOB_OK;
}

tlob_status tlob_forward_host(tlob_layer *layer, const float *x, int batch, float *y,
                              float *att) {
    TLOB_CHECK(check_call(layer, batch));
    if (!x || !y) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_forward_host: null x or y");
    float *dx_, *dy_, *dev_x, *dev_y, *dev_att;
    TLOB_CHECK(io_buffers(layer, &dev_x, &dev_y, &dev_att, &dy_, &dx_));
    const size_t rows = (size_t)batch * layer->T;
    TLOB_CHECK(tlob_upload(layer, dev_x, x, rows * layer->D));
    TLOB_CHECK(tlob_forward(layer, dev_x, batch, dev_y, att ? dev_att : NULL));
    TLOB_CHECK(tlob_download(layer, y, dev_y, rows * layer->O));
    if (att) TLOB_CHECK(tlob_download(layer, att, dev_att, rows * layer->nh * layer->T));
    return TLOB_OK;
}

tlob_status tlob_backward_host(tlob_layer *layer, const float *dy, int batch, float *dx) {
    TLOB_CHECK(check_call(layer, batch));
    if (!dy || !dx) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "tlob_backward_host: null dy or dx");
    float *dev_x, *y_, *att_, *dev_dy, *dev_dx;
    TLOB_CHECK(io_buffers(layer, &dev_x, &y_, &att_, &dev_dy, &dev_dx));
    const size_t rows = (size_t)batch * layer->T;
    TLOB_CHECK(tlob_upload(layer, dev_dy, dy, rows * layer->O));
    TLOB_CHECK(tlob_backward(layer, dev_x, dev_dy, batch, dev_dx));
    TLOB_CHECK(tlob_download(layer, dx, dev_dx, rows * layer->D));
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
    tlob_status st = tlob_read_params_any(dir, layer->D, layer->nh, layer->O, host);
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
