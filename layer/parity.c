/* The device-against-reference check of parity.h. */
#include <math.h>
#include <stdlib.h>

#include "parity.h"
#include "status.h"
#include "tlob_ref.h"

double parity_tolerance(tlob_math math) {
    return math == TLOB_MATH_FP32 ? PARITY_TOL_FP32 : PARITY_TOL_TF32;
}

double parity_worst(const parity_result *r) {
    double worst = r->y;
    if (!(r->att <= worst)) worst = r->att;
    if (!(r->dx <= worst)) worst = r->dx;
    if (!(r->grad[r->worst_grad] <= worst)) worst = r->grad[r->worst_grad];
    return worst;
}

static int all_finite(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* Device buffers of one run, poisoned with NaN so that an element the layer
 * does not write fails the comparison. */
typedef struct {
    float *x, *dy, *y, *att, *dx;
} device_io;

static void io_free(device_io *d) {
    /* Teardown: nothing useful to do with a failed free. */
    (void)cudaFree(d->x), (void)cudaFree(d->dy), (void)cudaFree(d->y);
    (void)cudaFree(d->att), (void)cudaFree(d->dx);
}

static tlob_status io_alloc(device_io *d, size_t nx, size_t ny, size_t na) {
    struct { float **p; size_t n; } b[] = {{&d->x, nx}, {&d->dy, ny}, {&d->y, ny},
                                           {&d->att, na}, {&d->dx, nx}};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        CUDA_CHECK(cudaMalloc((void **)b[i].p, b[i].n * sizeof(float)));
        CUDA_CHECK(cudaMemset(*b[i].p, 0xff, b[i].n * sizeof(float))); /* all-ones bits: NaN */
    }
    /* cudaMemset may return before it is done, on the legacy default stream,
     * which the layer's own non-blocking stream (tlob.c) does not wait for:
     * unordered, the NaN could land after the upload of x and dy or after
     * the layer's outputs (seen in tests/gpu/test_layer_gpu.c's same poison
     * with another process on the GPU). */
    CUDA_CHECK(cudaDeviceSynchronize());
    return TLOB_OK;
}

/* Host buffers of one run. */
typedef struct {
    float *p, *g0, *y, *att, *dx, *g;
    double *dp, *dxin, *ddy, *ry, *ra, *rdx, *rg;
} host_io;

static void host_free(host_io *h) {
    free(h->p), free(h->g0), free(h->y), free(h->att), free(h->dx), free(h->g);
    free(h->dp), free(h->dxin), free(h->ddy), free(h->ry), free(h->ra), free(h->rdx), free(h->rg);
}

static tlob_status run(tlob_layer *L, int B, const float *x, const float *dy, device_io *d,
                       host_io *h, parity_result *r) {
    const tlob_config *cfg = tlob_get_config(L);
    const size_t np = tlob_num_params(L), nx = (size_t)B * cfg->seq_len * cfg->dim,
                 ny = (size_t)B * cfg->seq_len * cfg->out_dim,
                 na = (size_t)B * cfg->heads * cfg->seq_len * cfg->seq_len;
    h->p = malloc(np * sizeof(float)), h->g0 = malloc(np * sizeof(float));
    h->y = malloc(ny * sizeof(float)), h->att = malloc(na * sizeof(float));
    h->dx = malloc(nx * sizeof(float)), h->g = malloc(np * sizeof(float));
    h->dp = malloc(np * sizeof(double)), h->dxin = malloc(nx * sizeof(double));
    h->ddy = malloc(ny * sizeof(double)), h->ry = malloc(ny * sizeof(double));
    h->ra = malloc(na * sizeof(double)), h->rdx = malloc(nx * sizeof(double));
    h->rg = malloc(np * sizeof(double));
    if (!h->p || !h->g0 || !h->y || !h->att || !h->dx || !h->g || !h->dp || !h->dxin || !h->ddy ||
        !h->ry || !h->ra || !h->rdx || !h->rg)
        return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "parity_run: host buffers");
    TLOB_CHECK(io_alloc(d, nx, ny, na));
    TLOB_CHECK(tlob_download(L, h->p, tlob_params(L), np));
    TLOB_CHECK(tlob_download(L, h->g0, tlob_grads(L), np));
    TLOB_CHECK(tlob_upload(L, d->x, x, nx));
    TLOB_CHECK(tlob_upload(L, d->dy, dy, ny));
    TLOB_CHECK(tlob_forward(L, d->x, B, d->y, d->att));
    TLOB_CHECK(tlob_backward(L, d->x, d->dy, B, d->dx));
    TLOB_CHECK(tlob_sync(L));
    CUDA_CHECK(cudaGetLastError());
    TLOB_CHECK(tlob_download(L, h->y, d->y, ny));
    TLOB_CHECK(tlob_download(L, h->att, d->att, na));
    TLOB_CHECK(tlob_download(L, h->dx, d->dx, nx));
    TLOB_CHECK(tlob_download(L, h->g, tlob_grads(L), np));

    for (size_t i = 0; i < np; i++) h->dp[i] = h->p[i];
    for (size_t i = 0; i < nx; i++) h->dxin[i] = x[i];
    for (size_t i = 0; i < ny; i++) h->ddy[i] = dy[i];
    const tlob_ref_shape rs = {cfg->dim, cfg->heads, cfg->out_dim, cfg->seq_len, B};
    TLOB_CHECK(tlob_ref_forward(&rs, h->dp, h->dxin, h->ry, h->ra));
    TLOB_CHECK(tlob_ref_backward(&rs, h->dp, h->dxin, h->ddy, h->rdx, h->rg));
    /* the layer accumulated into g0: its contribution is g - g0 */
    for (size_t i = 0; i < np; i++) h->g[i] -= h->g0[i];

    r->y_written = all_finite(h->y, ny);
    r->att_written = all_finite(h->att, na);
    r->dx_written = all_finite(h->dx, nx);
    r->y = tlob_rel_l2(h->y, h->ry, ny);
    r->att = tlob_rel_l2(h->att, h->ra, na);
    r->dx = tlob_rel_l2(h->dx, h->rdx, nx);
    r->worst_grad = 0;
    const tlob_tensor_info *t = tlob_tensors(L);
    for (int i = 0; i < TLOB_NUM_TENSORS; i++) {
        r->grad[i] = tlob_grad_rel_l2(t, i, h->g, h->rg);
        if (!(r->grad[i] <= r->grad[r->worst_grad])) r->worst_grad = i;
    }
    return TLOB_OK;
}

tlob_status parity_run(tlob_layer *layer, int batch, const float *x, const float *dy,
                       parity_result *result) {
    if (!layer || !x || !dy || !result)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "parity_run: null argument");
    if (batch < 1 || batch > tlob_get_config(layer)->max_batch)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "parity_run: batch %d out of range", batch);
    device_io d = {0};
    host_io h = {0};
    const tlob_status st = run(layer, batch, x, dy, &d, &h, result);
    io_free(&d);
    host_free(&h);
    return st;
}
