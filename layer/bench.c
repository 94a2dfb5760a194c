/* `tlob bench`: validates, then times
 *  1. the QKV projection stage: three GEMMs (linear_forward) against one
 *     strided-batched GEMM of batch 3 (linear_forward3), TF32, at M=16 K=32 N=256 and at the
 *     first-stage sizes of TLOB's reference cases;
 *  2. the attention alone, forward and backward, fused kernels against the
 *     general (cuBLAS) path, TF32, with the bytes and FLOPs each must move and
 *     the fraction of the H200's bandwidth and TF32 rate reached;
 *  3. the whole layer, forward and forward+backward, eager and replayed from a
 *     CUDA graph, at the reference sizes and at B = 1 (one inference), in TF32
 *     and FP32 math; where the fused forward runs, the graphs once more with
 *     the general forward forced (an A/B of the two in one run); in TF32, the
 *     graphs with the MLP's products forced to cuBLAS and to the tensor-core
 *     kernels of layer/mlp_kernels.h (the A/B behind AUTO's choice); and
 *     the graphed forward+backward with each of the backward's data-gradient
 *     products forced to 1, 2, ..., 64 row chunks (layer/internal.h), the
 *     others left to choose (the sweep behind the chosen counts).
 * Times are medians of per-iteration CUDA-event intervals (throughput) or of
 * host-clocked call+synchronize intervals (latency of one call). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "attention.h"
#include "cli.h"
#include "compute.h"
#include "internal.h"
#include "linear.h"
#include "parity.h"
#include "status.h"
#include "tlob.h"

#define BENCH_CHECK_CUDA(call)                                                           \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "tlob bench: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                    cudaGetErrorString(e_));                                             \
            return 1;                                                                    \
        }                                                                                \
    } while (0)
#define BENCH_CHECK_TLOB(call)                                                           \
    do {                                                                                 \
        tlob_status t_ = (call);                                                         \
        if (t_ != TLOB_OK) {                                                             \
            fprintf(stderr, "tlob bench: %s\n  %s\n", tlob_status_string(t_),           \
                    tlob_last_error());                                                  \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

/* The reference sizes docs/layer-results.md reports: the temporal and feature
 * layers of TLOB on BTC and FI-2010 (nh = 1 as in the published model's defaults). */
typedef struct {
    const char *name;
    int B, T, D, Dout;
} bench_case;
static const bench_case cases[] = {
    {"temporal BTC", 128, 128, 40, 40},
    {"feature BTC", 128, 40, 128, 128},
    {"temporal FI-2010", 32, 128, 144, 144},
    {"inference B=1", 1, 128, 40, 40},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* The batch the CPU reference validates the layer on (samples are
 * independent, so a small batch exercises every code path; a case of one
 * sample validates on one). */
#define VALIDATE_BATCH 2

static float *random_host(size_t n, unsigned *seed) {
    float *p = malloc(n * sizeof(float));
    if (p)
        for (size_t i = 0; i < n; i++) p[i] = (float)((double)rand_r(seed) / RAND_MAX * 2.0 - 1.0);
    return p;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* The end of every event-timed interval: records `stop` on `stream`, waits
 * for it and gives the microseconds since `start` was recorded. */
static int timer_stop_us(cudaEvent_t start, cudaEvent_t stop, cudaStream_t stream, double *us) {
    BENCH_CHECK_CUDA(cudaEventRecord(stop, stream));
    BENCH_CHECK_CUDA(cudaEventSynchronize(stop));
    float ms;
    BENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    *us = 1e3 * ms;
    return 0;
}

/* ---- 1. the QKV projection stage ------------------------------------------ */

typedef struct {
    const char *name;
    int M, K, N;
    double three_us, fused_us, three_sync_us, fused_sync_us, max_abs_diff, rel_err;
} qkv_result;

/* Y [3, N, M] = X [N, K] W [3, M, K]^T, as three calls or as one. */
static tlob_status qkv_three(const compute_ctx *c, const float *W, const float *X, float *Y,
                             int M, int K, int N) {
    for (int i = 0; i < 3; i++)
        TLOB_CHECK(linear_forward(c, TLOB_MATH_TF32, Y + (size_t)i * N * M, X,
                                  W + (size_t)i * M * K, N, K, M, 0));
    return TLOB_OK;
}

static tlob_status qkv_fused(const compute_ctx *c, const float *W, const float *X, float *Y,
                             int M, int K, int N) {
    return linear_forward3(c, TLOB_MATH_TF32, Y, X, 1, W, N, K, M, 0);
}

static int bench_qkv(tlob_layer *uploader, const compute_ctx *h, int iters,
                     qkv_result *r) {
    const int M = r->M, K = r->K, N = r->N;
    cudaStream_t s = h->stream;
    const size_t nw = (size_t)3 * M * K, nx = (size_t)N * K, ny = (size_t)3 * N * M;
    unsigned seed = 7;
    float *hw = random_host(nw, &seed), *hx = random_host(nx, &seed);
    float *y3 = malloc(ny * sizeof(float)), *y1 = malloc(ny * sizeof(float));
    double *times = malloc((size_t)iters * sizeof(double));
    if (!hw || !hx || !y3 || !y1 || !times) {
        fprintf(stderr, "tlob bench: out of host memory\n");
        return 1;
    }
    float *W, *X, *Y3, *Y1;
    BENCH_CHECK_CUDA(cudaMalloc((void **)&W, nw * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&X, nx * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&Y3, ny * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&Y1, ny * sizeof(float)));
    BENCH_CHECK_TLOB(tlob_upload(uploader, W, hw, nw));
    BENCH_CHECK_TLOB(tlob_upload(uploader, X, hx, nx));

    /* validate: both against a double-precision CPU product, and each other */
    BENCH_CHECK_TLOB(qkv_three(h, W, X, Y3, M, K, N));
    BENCH_CHECK_TLOB(qkv_fused(h, W, X, Y1, M, K, N));
    BENCH_CHECK_TLOB(tlob_download(uploader, y3, Y3, ny));
    BENCH_CHECK_TLOB(tlob_download(uploader, y1, Y1, ny));
    double num = 0.0, den = 0.0, maxdiff = 0.0;
    for (int i = 0; i < 3; i++)
        for (int n = 0; n < N; n++)
            for (int m = 0; m < M; m++) {
                double ref = 0.0;
                for (int k = 0; k < K; k++)
                    ref += (double)hx[(size_t)n * K + k] * hw[((size_t)i * M + m) * K + k];
                const size_t o = ((size_t)i * N + n) * M + m;
                num += (y1[o] - ref) * (y1[o] - ref);
                den += ref * ref;
                const double d = fabs((double)y1[o] - y3[o]);
                if (d > maxdiff) maxdiff = d;
            }
    r->rel_err = sqrt(num / den);
    r->max_abs_diff = maxdiff;
    if (!(r->rel_err < 2e-3) || !(maxdiff < 2e-3)) {
        fprintf(stderr, "tlob bench: QKV %s failed validation: rel err %.3g, fused vs three %.3g\n",
                r->name, r->rel_err, maxdiff);
        return 1;
    }

    cudaEvent_t e0, e1;
    BENCH_CHECK_CUDA(cudaEventCreate(&e0));
    BENCH_CHECK_CUDA(cudaEventCreate(&e1));
    for (int variant = 0; variant < 2; variant++) {
        for (int i = 0; i < 20; i++) /* warm-up */
            BENCH_CHECK_TLOB(variant ? qkv_fused(h, W, X, Y1, M, K, N) : qkv_three(h, W, X, Y3, M, K, N));
        /* back-to-back: events around the whole run, divided by the count */
        BENCH_CHECK_CUDA(cudaEventRecord(e0, s));
        for (int i = 0; i < iters; i++)
            BENCH_CHECK_TLOB(variant ? qkv_fused(h, W, X, Y1, M, K, N) : qkv_three(h, W, X, Y3, M, K, N));
        double run_us;
        if (timer_stop_us(e0, e1, s, &run_us)) return 1;
        /* one call followed by a synchronize, as a latency-bound caller sees it */
        for (int i = 0; i < iters; i++) {
            const double t0 = now_us();
            BENCH_CHECK_TLOB(variant ? qkv_fused(h, W, X, Y1, M, K, N) : qkv_three(h, W, X, Y3, M, K, N));
            BENCH_CHECK_CUDA(cudaStreamSynchronize(s));
            times[i] = now_us() - t0;
        }
        if (variant) {
            r->fused_us = run_us / iters;
            r->fused_sync_us = median(times, iters);
        } else {
            r->three_us = run_us / iters;
            r->three_sync_us = median(times, iters);
        }
    }
    BENCH_CHECK_CUDA(cudaEventDestroy(e0));
    BENCH_CHECK_CUDA(cudaEventDestroy(e1));
    BENCH_CHECK_CUDA(cudaFree(W));
    BENCH_CHECK_CUDA(cudaFree(X));
    BENCH_CHECK_CUDA(cudaFree(Y3));
    BENCH_CHECK_CUDA(cudaFree(Y1));
    free(hw), free(hx), free(y3), free(y1), free(times);
    return 0;
}

/* ---- 2. the attention alone -------------------------------------------------- */

/* Ceilings the fractions are taken of: the H200's device-to-device copy rate
 * measured on this workplace's machines (KINDS.md: about 4.3 TB/s, bytes read
 * plus written) and the datasheet's dense TF32 tensor-core rate (H100/H200
 * SXM, 495 TFLOP/s). */
#define BENCH_BYTES_PER_S 4.3e12
#define BENCH_TF32_FLOP_PER_S 495e12

typedef struct {
    const bench_case *c;
    double fwd_us[3]; /* [general, fused row blocks, fused strip]; < 0: does not fit */
    /* [general, fused one block, fused split of 16, 32, 64-row blocks, fused
     * strip]; < 0: does not fit */
    double bwd_us[6];
    double fwd_bytes, bwd_bytes, fwd_flop, bwd_flop;
} attention_result;

static int time_attention(const compute_ctx *h, const attention_shape *s, int backward,
                          const float *qkv, float *P, float *o, const float *dout, float *dP,
                          float *dqkv, int iters, double *out_us) {
    cudaEvent_t e0, e1;
    BENCH_CHECK_CUDA(cudaEventCreate(&e0));
    BENCH_CHECK_CUDA(cudaEventCreate(&e1));
    double *times = malloc((size_t)iters * sizeof(double));
    if (!times) return 1;
    for (int i = -10; i < iters; i++) {
        BENCH_CHECK_CUDA(cudaEventRecord(e0, h->stream));
        if (backward)
            BENCH_CHECK_TLOB(attention_backward(h, TLOB_MATH_TF32, s, qkv, P, dout, dP, dqkv));
        else
            BENCH_CHECK_TLOB(attention_forward(h, TLOB_MATH_TF32, s, qkv, P, NULL, o));
        double us;
        if (timer_stop_us(e0, e1, h->stream, &us)) return 1;
        if (i >= 0) times[i] = us;
    }
    *out_us = median(times, iters);
    free(times);
    BENCH_CHECK_CUDA(cudaEventDestroy(e0));
    BENCH_CHECK_CUDA(cudaEventDestroy(e1));
    return 0;
}

static int bench_attention(tlob_layer *uploader, const compute_ctx *h,
                           const attention_device *dev, int iters, attention_result *r) {
    const int B = r->c->B, T = r->c->T, D = r->c->D;
    const size_t NE = (size_t)B * T * D, NP = (size_t)B * T * T;
    unsigned seed = 13;
    float *hqkv = random_host(3 * NE, &seed), *hdo = random_host(NE, &seed);
    if (!hqkv || !hdo) return 1;
    float *qkv, *P, *o, *dout, *dP, *dqkv;
    BENCH_CHECK_CUDA(cudaMalloc((void **)&qkv, 3 * NE * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&P, NP * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&o, NE * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&dout, NE * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&dP, NP * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&dqkv, 3 * NE * sizeof(float)));
    BENCH_CHECK_TLOB(tlob_upload(uploader, qkv, hqkv, 3 * NE));
    BENCH_CHECK_TLOB(tlob_upload(uploader, dout, hdo, NE));
    free(hqkv), free(hdo);
    /* the fewest bytes: forward reads q|k|v, writes P and o; backward reads
     * q|k|v, P and dO, writes dq|dk|dv. FLOPs: two (four) T x T x D products
     * per head, two FLOPs a multiply-add. */
    r->fwd_bytes = 4.0 * (3 * NE + NP + NE);
    r->bwd_bytes = 4.0 * (3 * NE + NP + NE + 3 * NE);
    r->fwd_flop = 2.0 * 2 * NP * D;
    r->bwd_flop = 2.0 * 4 * NP * D;
    for (int f = 0; f < 6; f++) {
        const attention_shape s = {B, T, D, 1, (float)(1.0 / sqrt((double)D)), dev,
                                   f == 0   ? ATTENTION_GENERAL
                                   : f == 1 ? ATTENTION_FUSED_ONE
                                   : f == 5 ? ATTENTION_FUSED_STRIP
                                            : ATTENTION_FUSED_SPLIT,
                                   f >= 2 && f <= 4 ? 4 << f : 0};
        if (f < 2 && time_attention(h, &s, 0, qkv, P, o, dout, dP, dqkv, iters, &r->fwd_us[f]))
            return 1;
        if (f == 5) {
            r->fwd_us[2] = -1.0;
            if (attention_forward_fused(&s, TLOB_MATH_TF32) == ATTENTION_FWD_STRIP &&
                time_attention(h, &s, 0, qkv, P, o, dout, dP, dqkv, iters, &r->fwd_us[2]))
                return 1;
        }
        r->bwd_us[f] = -1.0;
        if ((!f || attention_backward_fused(&s, TLOB_MATH_TF32)) &&
            time_attention(h, &s, 1, qkv, P, o, dout, dP, dqkv, iters, &r->bwd_us[f]))
            return 1;
    }
    BENCH_CHECK_CUDA(cudaFree(qkv));
    BENCH_CHECK_CUDA(cudaFree(P));
    BENCH_CHECK_CUDA(cudaFree(o));
    BENCH_CHECK_CUDA(cudaFree(dout));
    BENCH_CHECK_CUDA(cudaFree(dP));
    BENCH_CHECK_CUDA(cudaFree(dqkv));
    return 0;
}

static void print_attention_row(FILE *f, const char *name, const char *pass, double general,
                                double fused, double bytes, double flop) {
    if (fused < 0) {
        fprintf(f, "%-18s %-5s | %8.1f %8s %7s | %7.1f MB %5.2f GF | (fused does not fit)\n", name,
                pass, general, "-", "-", bytes / 1e6, flop / 1e9);
        return;
    }
    fprintf(f, "%-18s %-5s | %8.1f %8.1f %6.2fx | %7.1f MB %5.2f GF | %6.0f GB/s %4.0f %% | "
               "%6.1f TF/s %4.1f %%\n",
            name, pass, general, fused, general / fused, bytes / 1e6, flop / 1e9,
            bytes / (fused * 1e-6) / 1e9, 100.0 * bytes / (fused * 1e-6) / BENCH_BYTES_PER_S,
            flop / (fused * 1e-6) / 1e12, 100.0 * flop / (fused * 1e-6) / BENCH_TF32_FLOP_PER_S);
}

/* ---- 3. the whole layer ----------------------------------------------------- */

/* Row chunks tried for each data-gradient product (every reference size's
 * B * T rows divide by all of them) and the products' names. */
enum { DGRAD_SWEEP = 7 };
static const int dgrad_sweep[DGRAD_SWEEP] = {1, 2, 4, 8, 16, 32, 64};
static const char *const dgrad_name[TLOB_DGRAD_COUNT] = {"dx", "dy1", "dout", "dg"};

typedef struct {
    const bench_case *c;
    tlob_math math;
    double err_y, err_att, err_dx, err_grad; /* validation: relative L2, worst tensor */
    double fwd_us, fwdbwd_us, fwd_graph_us, fwdbwd_graph_us;
    int fused_rows; /* the fused forward's tile rows at this batch, 0: general forward */
    int mlp_fused;  /* the MLP's kernels AUTO runs: tlob_internal_mlp_fused */
    /* the same graphs with the general forward forced (an A/B in one run),
     * when the fused one runs; else -1 */
    double general_fwd_graph_us, general_fwdbwd_graph_us;
    int fused_launches; /* the fused forward's launches, 1 or 2; 0: general forward */
    /* the same graphs with the fused forward forced to two launches, when it
     * runs as one; else -1 */
    double two_fwd_graph_us, two_fwdbwd_graph_us;
    /* TF32: the same graphs with the MLP's products forced to cuBLAS
     * ([0]) and to the tensor-core kernels ([1], where they fit); else -1 */
    double mlp_fwd_graph_us[2], mlp_fwdbwd_graph_us[2];
    /* graphed fwd+bwd with data-gradient product p forced to
     * dgrad_sweep[k] row chunks ([p][k]; -1 where p does not run: dg, and
     * dy1 where it fits, inside the MLP's backward kernel), and the chunks p
     * takes by default */
    double dgrad_fwdbwd_graph_us[TLOB_DGRAD_COUNT][DGRAD_SWEEP];
    int dgrad_auto[TLOB_DGRAD_COUNT];
} layer_result;

static int validate_layer(tlob_layer *L, const bench_case *c, layer_result *r) {
    const int vb = c->B < VALIDATE_BATCH ? c->B : VALIDATE_BATCH;
    const size_t nx = (size_t)vb * c->T * c->D, ny = (size_t)vb * c->T * c->Dout;
    unsigned seed = 11;
    float *hx = random_host(nx, &seed), *hdy = random_host(ny, &seed);
    if (!hx || !hdy) {
        fprintf(stderr, "tlob bench: out of host memory\n");
        return 1;
    }
    parity_result p;
    BENCH_CHECK_TLOB(tlob_zero_grads(L));
    BENCH_CHECK_TLOB(parity_run(L, vb, hx, hdy, &p));
    free(hx), free(hdy);
    r->err_y = p.y;
    r->err_att = p.att;
    r->err_dx = p.dx;
    r->err_grad = p.grad[p.worst_grad];
    const double tol = parity_tolerance(r->math);
    if (!(parity_worst(&p) <= tol)) {
        fprintf(stderr,
                "tlob bench: %s (%s) failed validation: rel L2 y %.3g att %.3g dx %.3g "
                "worst grad %.3g (tolerance %.0e)\n",
                c->name, r->math == TLOB_MATH_FP32 ? "fp32" : "tf32", r->err_y, r->err_att,
                r->err_dx, r->err_grad, tol);
        return 1;
    }
    return 0;
}

/* Median of per-iteration event intervals; with_bwd adds the backward pass;
 * graph replays `exec` instead of calling the dispatch functions. */
static int time_layer(tlob_layer *L, int B, const float *x, float *y, float *att,
                      const float *dy, float *dx, int with_bwd, cudaGraphExec_t exec,
                      int iters, double *out_us) {
    cudaStream_t s = tlob_stream(L);
    cudaEvent_t e0, e1;
    BENCH_CHECK_CUDA(cudaEventCreate(&e0));
    BENCH_CHECK_CUDA(cudaEventCreate(&e1));
    double *times = malloc((size_t)iters * sizeof(double));
    if (!times) return 1;
    for (int i = -10; i < iters; i++) { /* the first ten are warm-up */
        BENCH_CHECK_CUDA(cudaEventRecord(e0, s));
        if (exec) {
            BENCH_CHECK_CUDA(cudaGraphLaunch(exec, s));
        } else {
            BENCH_CHECK_TLOB(tlob_forward(L, x, B, y, att));
            if (with_bwd) BENCH_CHECK_TLOB(tlob_backward(L, x, dy, B, dx));
        }
        double us;
        if (timer_stop_us(e0, e1, s, &us)) return 1;
        if (i >= 0) times[i] = us;
    }
    *out_us = median(times, iters);
    free(times);
    BENCH_CHECK_CUDA(cudaEventDestroy(e0));
    BENCH_CHECK_CUDA(cudaEventDestroy(e1));
    return 0;
}

static int capture(tlob_layer *L, int B, const float *x, float *y, float *att, const float *dy,
                   float *dx, int with_bwd, cudaGraphExec_t *exec) {
    cudaStream_t s = tlob_stream(L);
    cudaGraph_t graph;
    BENCH_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    tlob_status st = tlob_forward(L, x, B, y, att);
    if (st == TLOB_OK && with_bwd) st = tlob_backward(L, x, dy, B, dx);
    BENCH_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
    BENCH_CHECK_TLOB(st);
    BENCH_CHECK_CUDA(cudaGraphInstantiate(exec, graph, 0));
    BENCH_CHECK_CUDA(cudaGraphDestroy(graph));
    return 0;
}

static int bench_layer(layer_result *r, int iters) {
    const bench_case *c = r->c;
    const int B = c->B, T = c->T, D = c->D, O = c->Dout;
    const tlob_config cfg = {D, 1, O, T, B, r->math};
    tlob_layer *L;
    BENCH_CHECK_TLOB(tlob_create(&cfg, &L));
    BENCH_CHECK_TLOB(tlob_init_params(L, 1234));
    const size_t nx = (size_t)B * T * D, ny = (size_t)B * T * O, na = (size_t)B * T * T;
    float *x, *y, *att, *dy, *dx;
    BENCH_CHECK_CUDA(cudaMalloc((void **)&x, nx * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&y, ny * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&att, na * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&dy, ny * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc((void **)&dx, nx * sizeof(float)));
    if (validate_layer(L, c, r)) return 1;

    unsigned seed = 5;
    float *hx = random_host(nx, &seed), *hdy = random_host(ny, &seed);
    if (!hx || !hdy) return 1;
    BENCH_CHECK_TLOB(tlob_upload(L, x, hx, nx));
    BENCH_CHECK_TLOB(tlob_upload(L, dy, hdy, ny));
    free(hx), free(hdy);

    if (time_layer(L, B, x, y, att, dy, dx, 0, NULL, iters, &r->fwd_us) ||
        time_layer(L, B, x, y, att, dy, dx, 1, NULL, iters, &r->fwdbwd_us))
        return 1;
    cudaGraphExec_t fwd, fwdbwd;
    if (capture(L, B, x, y, att, dy, dx, 0, &fwd) || capture(L, B, x, y, att, dy, dx, 1, &fwdbwd) ||
        time_layer(L, B, x, y, att, dy, dx, 0, fwd, iters, &r->fwd_graph_us) ||
        time_layer(L, B, x, y, att, dy, dx, 1, fwdbwd, iters, &r->fwdbwd_graph_us))
        return 1;
    BENCH_CHECK_CUDA(cudaGraphExecDestroy(fwd));
    BENCH_CHECK_CUDA(cudaGraphExecDestroy(fwdbwd));
    r->fused_rows = tlob_internal_forward_fused_rows(L, B);
    r->mlp_fused = tlob_internal_mlp_fused(L);
    r->general_fwd_graph_us = r->general_fwdbwd_graph_us = -1.0;
    if (r->fused_rows) {
        BENCH_CHECK_TLOB(tlob_internal_force_forward(L, 1, 0));
        if (capture(L, B, x, y, att, dy, dx, 0, &fwd) ||
            capture(L, B, x, y, att, dy, dx, 1, &fwdbwd) ||
            time_layer(L, B, x, y, att, dy, dx, 0, fwd, iters, &r->general_fwd_graph_us) ||
            time_layer(L, B, x, y, att, dy, dx, 1, fwdbwd, iters, &r->general_fwdbwd_graph_us))
            return 1;
        BENCH_CHECK_CUDA(cudaGraphExecDestroy(fwd));
        BENCH_CHECK_CUDA(cudaGraphExecDestroy(fwdbwd));
        BENCH_CHECK_TLOB(tlob_internal_force_forward(L, 0, 0));
    }
    r->fused_launches = tlob_internal_forward_launches(L, B);
    r->two_fwd_graph_us = r->two_fwdbwd_graph_us = -1.0;
    if (r->fused_launches == 1) {
        BENCH_CHECK_TLOB(tlob_internal_force_forward_launches(L, 2));
        if (capture(L, B, x, y, att, dy, dx, 0, &fwd) ||
            capture(L, B, x, y, att, dy, dx, 1, &fwdbwd) ||
            time_layer(L, B, x, y, att, dy, dx, 0, fwd, iters, &r->two_fwd_graph_us) ||
            time_layer(L, B, x, y, att, dy, dx, 1, fwdbwd, iters, &r->two_fwdbwd_graph_us))
            return 1;
        BENCH_CHECK_CUDA(cudaGraphExecDestroy(fwd));
        BENCH_CHECK_CUDA(cudaGraphExecDestroy(fwdbwd));
        BENCH_CHECK_TLOB(tlob_internal_force_forward_launches(L, 0));
    }
    for (int v = 0; v < 2; v++) {
        r->mlp_fwd_graph_us[v] = r->mlp_fwdbwd_graph_us[v] = -1.0;
        BENCH_CHECK_TLOB(tlob_internal_force_mlp(L, v + 1));
        if (r->math != TLOB_MATH_TF32 || (v && !tlob_internal_mlp_fused(L))) continue;
        if (capture(L, B, x, y, att, dy, dx, 0, &fwd) ||
            capture(L, B, x, y, att, dy, dx, 1, &fwdbwd) ||
            time_layer(L, B, x, y, att, dy, dx, 0, fwd, iters, &r->mlp_fwd_graph_us[v]) ||
            time_layer(L, B, x, y, att, dy, dx, 1, fwdbwd, iters, &r->mlp_fwdbwd_graph_us[v]))
            return 1;
        BENCH_CHECK_CUDA(cudaGraphExecDestroy(fwd));
        BENCH_CHECK_CUDA(cudaGraphExecDestroy(fwdbwd));
    }
    BENCH_CHECK_TLOB(tlob_internal_force_mlp(L, 0));
    for (int p = 0; p < TLOB_DGRAD_COUNT; p++) {
        r->dgrad_auto[p] = tlob_internal_data_grad_chunks(L, p, B);
        const int fused = tlob_internal_mlp_fused(L);
        const int runs =
            !(p == TLOB_DGRAD_DG && (fused & 2)) && !(p == TLOB_DGRAD_DY1 && (fused & 4));
        for (int k = 0; k < DGRAD_SWEEP; k++) {
            r->dgrad_fwdbwd_graph_us[p][k] = -1.0;
            if (!runs) continue;
            BENCH_CHECK_TLOB(tlob_internal_force_data_grad_chunks(L, p, dgrad_sweep[k]));
            if (capture(L, B, x, y, att, dy, dx, 1, &fwdbwd) ||
                time_layer(L, B, x, y, att, dy, dx, 1, fwdbwd, iters,
                           &r->dgrad_fwdbwd_graph_us[p][k]))
                return 1;
            BENCH_CHECK_CUDA(cudaGraphExecDestroy(fwdbwd));
        }
        BENCH_CHECK_TLOB(tlob_internal_force_data_grad_chunks(L, p, 0));
    }
    BENCH_CHECK_CUDA(cudaFree(x));
    BENCH_CHECK_CUDA(cudaFree(y));
    BENCH_CHECK_CUDA(cudaFree(att));
    BENCH_CHECK_CUDA(cudaFree(dy));
    BENCH_CHECK_CUDA(cudaFree(dx));
    tlob_destroy(L);
    return 0;
}

/* ---- driver ----------------------------------------------------------------- */

static const char bench_usage[] = "usage: tlob bench [--json] [--json-file FILE] [--iters N]\n"
                                  "  --json            print JSON instead of the tables\n"
                                  "  --json-file FILE  print the tables and write the JSON to FILE\n";

static void print_json(FILE *f, const char *device, int iters, const qkv_result *q,
                       const attention_result *ar, const layer_result *lr);

int tlob_bench_main(int argc, char **argv) {
    static const struct option longopts[] = {{"json", no_argument, 0, 'j'},
                                             {"iters", required_argument, 0, 'i'},
                                             {"json-file", required_argument, 0, 'f'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    int json = 0, iters = 200, c;
    const char *json_file = NULL;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == 'j') json = 1;
        else if (c == 'f') json_file = optarg;
        else if (c == 'i') {
            char *end;
            errno = 0;
            const long v = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || v < 1 || v > 1000000) {
                fprintf(stderr, "tlob bench: bad --iters '%s'\n%s", optarg, bench_usage);
                return 2;
            }
            iters = (int)v;
        } else if (c == 'h') {
            fputs(bench_usage, stdout);
            return 0;
        } else {
            char problem[512];
            tlob_option_problem(c, argv, longopts, problem, sizeof problem);
            fprintf(stderr, "tlob bench: %s\n%s", problem, bench_usage);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "tlob bench: unexpected argument '%s'\n%s", argv[optind], bench_usage);
        return 2;
    }

    /* A small layer owns the device context: its stream and upload path. */
    const tlob_config small = {16, 1, 16, 4, 1, TLOB_MATH_TF32};
    tlob_layer *ctx_layer;
    tlob_status st = tlob_create(&small, &ctx_layer);
    if (st == TLOB_ERR_NO_DEVICE) {
        printf("SKIP tlob bench: no CUDA device (%s)\n", tlob_last_error());
        return 0;
    }
    BENCH_CHECK_TLOB(st);
    FILE *jf = NULL;
    if (json_file && !(jf = fopen(json_file, "w"))) {
        fprintf(stderr, "tlob bench: cannot write '%s': %s\n", json_file, strerror(errno));
        return 1;
    }
    struct cudaDeviceProp prop;
    BENCH_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));

    /* The QKV microbenchmark has its own handle, on the layers' stream. */
    compute_ctx h;
    BENCH_CHECK_TLOB(compute_ctx_create(&h, tlob_stream(ctx_layer)));
    qkv_result q[1 + NCASES] = {{"small (origin)", 16, 32, 256, 0, 0, 0, 0, 0, 0}};
    for (int i = 0; i < NCASES; i++) {
        q[1 + i].name = cases[i].name;
        q[1 + i].M = cases[i].D; /* E = D with nh = 1 */
        q[1 + i].K = cases[i].D;
        q[1 + i].N = cases[i].B * cases[i].T;
    }
    for (int i = 0; i < 1 + NCASES; i++)
        if (bench_qkv(ctx_layer, &h, iters, &q[i])) return 1;
    attention_device dev;
    BENCH_CHECK_TLOB(attention_device_query(&dev));
    attention_result ar[NCASES];
    for (int i = 0; i < NCASES; i++) {
        memset(&ar[i], 0, sizeof ar[i]);
        ar[i].c = &cases[i];
        if (bench_attention(ctx_layer, &h, &dev, iters, &ar[i])) return 1;
    }
    compute_ctx_destroy(&h);

    layer_result lr[2 * NCASES];
    for (int m = 0; m < 2; m++)
        for (int i = 0; i < NCASES; i++) {
            layer_result *r = &lr[m * NCASES + i];
            memset(r, 0, sizeof *r);
            r->c = &cases[i];
            r->math = m ? TLOB_MATH_FP32 : TLOB_MATH_TF32;
            if (bench_layer(r, iters)) return 1;
        }
    tlob_destroy(ctx_layer);

    if (jf) {
        print_json(jf, prop.name, iters, q, ar, lr);
        if (fclose(jf) != 0) {
            fprintf(stderr, "tlob bench: writing '%s' failed\n", json_file);
            return 1;
        }
    }
    if (json) {
        print_json(stdout, prop.name, iters, q, ar, lr);
        return 0;
    }
    printf("device: %s, %d iterations, medians\n\n", prop.name, iters);
    printf("QKV projection stage, TF32: 3x GEMM vs 1x strided-batched GEMM (batch=3)\n");
    printf("%-18s %5s %5s %6s | %12s %12s %7s | %12s %12s %7s | %10s\n", "case", "M", "K", "N",
           "3x (us/call)", "1x (us/call)", "speedup", "3x+sync (us)", "1x+sync (us)", "speedup",
           "max|3x-1x|");
    for (int i = 0; i < 1 + NCASES; i++)
        printf("%-18s %5d %5d %6d | %12.2f %12.2f %6.2fx | %12.2f %12.2f %6.2fx | %10.2e\n",
               q[i].name, q[i].M, q[i].K, q[i].N, q[i].three_us, q[i].fused_us,
               q[i].three_us / q[i].fused_us, q[i].three_sync_us, q[i].fused_sync_us,
               q[i].three_sync_us / q[i].fused_sync_us, q[i].max_abs_diff);
    printf("\nAttention alone, nh = 1, TF32, us: general path (cuBLAS + softmax kernels) vs "
           "the fused kernel (bwd: one block per head, bwC16/32/64: a cluster per head of "
           "16, 32 or 64-row blocks, fwS and bwS: a warp per 16-row strip); the fewest bytes and FLOPs the pass needs, and the fused "
           "kernel's rate against 4.3 TB/s and 495 TF32 TFLOP/s\n");
    printf("%-18s %-5s | %8s %8s %7s | %10s %8s | %14s | %16s\n", "case", "pass", "general",
           "fused", "speedup", "bytes", "FLOPs", "bandwidth", "TF32 rate");
    for (int i = 0; i < NCASES; i++) {
        print_attention_row(stdout, cases[i].name, "fwd", ar[i].fwd_us[0], ar[i].fwd_us[1],
                            ar[i].fwd_bytes, ar[i].fwd_flop);
        print_attention_row(stdout, cases[i].name, "fwS", ar[i].fwd_us[0], ar[i].fwd_us[2],
                            ar[i].fwd_bytes, ar[i].fwd_flop);
        print_attention_row(stdout, cases[i].name, "bwd", ar[i].bwd_us[0], ar[i].bwd_us[1],
                            ar[i].bwd_bytes, ar[i].bwd_flop);
        for (int f = 2; f < 6; f++)
            print_attention_row(stdout, cases[i].name,
                                f == 2   ? "bwC16"
                                : f == 3 ? "bwC32"
                                : f == 4 ? "bwC64"
                                         : "bwS",
                                ar[i].bwd_us[0], ar[i].bwd_us[f], ar[i].bwd_bytes, ar[i].bwd_flop);
    }
    printf("\nTransformerLayer, nh = 1 (us; validated at B=%d against the CPU reference, "
           "worst relative L2 shown)\n", VALIDATE_BATCH);
    printf("(forward: fused N xL = N-row tiles in L launches, or general; the last four columns:\n"
           " the same graphs with the general forward, when the fused one runs, and with the\n"
           " fused one forced to two launches, when it runs as one)\n");
    printf("%-18s %4s %4s %4s %4s %4s %-11s | %9s %9s | %9s %9s | %9s | %9s %9s | %9s %9s\n",
           "case", "B", "T", "D", "Dout", "math", "forward", "fwd", "fwd+bwd", "fwd graph",
           "f+b graph", "max err", "gen fwd g", "gen f+b g", "two fwd g", "two f+b g");
    for (int i = 0; i < 2 * NCASES; i++) {
        double e = lr[i].err_y;
        if (lr[i].err_att > e) e = lr[i].err_att;
        if (lr[i].err_dx > e) e = lr[i].err_dx;
        if (lr[i].err_grad > e) e = lr[i].err_grad;
        char path[16];
        if (lr[i].fused_rows)
            snprintf(path, sizeof path, "fused %d x%d", lr[i].fused_rows, lr[i].fused_launches);
        else snprintf(path, sizeof path, "general");
        printf("%-18s %4d %4d %4d %4d %4s %-11s | %9.1f %9.1f | %9.1f %9.1f | %9.2e", lr[i].c->name,
               lr[i].c->B, lr[i].c->T, lr[i].c->D, lr[i].c->Dout,
               lr[i].math == TLOB_MATH_FP32 ? "fp32" : "tf32", path, lr[i].fwd_us,
               lr[i].fwdbwd_us, lr[i].fwd_graph_us, lr[i].fwdbwd_graph_us, e);
        if (lr[i].fused_rows)
            printf(" | %9.1f %9.1f", lr[i].general_fwd_graph_us, lr[i].general_fwdbwd_graph_us);
        else
            printf(" | %9s %9s", "-", "-");
        if (lr[i].fused_launches == 1)
            printf(" | %9.1f %9.1f\n", lr[i].two_fwd_graph_us, lr[i].two_fwdbwd_graph_us);
        else
            printf(" | %9s %9s\n", "-", "-");
    }
    printf("\nThe MLP's products (fc + bias + GELU, dg + GELU backward), TF32, graphs, us: "
           "cuBLAS and the row kernels vs the tensor-core kernels (layer/mlp_kernels.h); "
           "'AUTO': the kernels AUTO runs (1 forward, 2 backward, 3 both; +4 dy1 = df Wf and +8 "
           "LayerNorm 2's backward in the backward's)\n");
    printf("%-18s %4s | %9s %9s | %9s %9s | %5s\n", "case", "B", "cuBLAS f", "cuBLAS fb",
           "kernel f", "kernel fb", "AUTO");
    for (int i = 0; i < 2 * NCASES; i++) {
        if (lr[i].math != TLOB_MATH_TF32) continue;
        printf("%-18s %4d | %9.1f %9.1f | %9.1f %9.1f | %5d\n", lr[i].c->name, lr[i].c->B,
               lr[i].mlp_fwd_graph_us[0], lr[i].mlp_fwdbwd_graph_us[0], lr[i].mlp_fwd_graph_us[1],
               lr[i].mlp_fwdbwd_graph_us[1], lr[i].mlp_fused);
    }
    printf("\nThe backward's data-gradient products (dx += dqkv Wqkv_eff, dy1 = df Wf, dout = "
           "dr Wc, dg = dz1 Wf2), each forced to N row chunks of one cuBLAS call (1: the plain "
           "call), the others as chosen: graphed fwd+bwd, us; 'auto': the chunks chosen\n");
    printf("%-18s %4s %4s %-4s |", "case", "B", "math", "prod");
    for (int k = 0; k < DGRAD_SWEEP; k++) printf(" %7d", dgrad_sweep[k]);
    printf(" | %4s\n", "auto");
    for (int i = 0; i < 2 * NCASES; i++)
        for (int p = 0; p < TLOB_DGRAD_COUNT; p++) {
            if (lr[i].dgrad_fwdbwd_graph_us[p][0] < 0) continue;
            printf("%-18s %4d %4s %-4s |", lr[i].c->name, lr[i].c->B,
                   lr[i].math == TLOB_MATH_FP32 ? "fp32" : "tf32", dgrad_name[p]);
            for (int k = 0; k < DGRAD_SWEEP; k++) printf(" %7.1f", lr[i].dgrad_fwdbwd_graph_us[p][k]);
            printf(" | %4d\n", lr[i].dgrad_auto[p]);
        }
    return 0;
}

static void print_json(FILE *f, const char *device, int iters, const qkv_result *q,
                       const attention_result *ar, const layer_result *lr) {
    fprintf(f, "{\"device\":\"%s\",\"iters\":%d,\"qkv\":[", device, iters);
    for (int i = 0; i < 1 + NCASES; i++)
        fprintf(f, "%s{\"case\":\"%s\",\"M\":%d,\"K\":%d,\"N\":%d,\"three_sgemm_us\":%.3f,"
                   "\"strided_batched_us\":%.3f,\"three_sgemm_sync_us\":%.3f,"
                   "\"strided_batched_sync_us\":%.3f,\"max_abs_diff\":%.3g,\"rel_err\":%.3g}",
                i ? "," : "", q[i].name, q[i].M, q[i].K, q[i].N, q[i].three_us, q[i].fused_us,
                q[i].three_sync_us, q[i].fused_sync_us, q[i].max_abs_diff, q[i].rel_err);
    fprintf(f, "],\"attention\":[");
    for (int i = 0; i < NCASES; i++)
        fprintf(f, "%s{\"case\":\"%s\",\"B\":%d,\"T\":%d,\"D\":%d,\"fwd_general_us\":%.2f,"
                   "\"fwd_fused_us\":%.2f,\"fwd_strip_us\":%.2f,\"bwd_general_us\":%.2f,\"bwd_fused_us\":%.2f,"
                   "\"bwd_split16_us\":%.2f,\"bwd_split32_us\":%.2f,\"bwd_split64_us\":%.2f,"
                   "\"bwd_strip_us\":%.2f,"
                   "\"fwd_bytes\":%.0f,\"bwd_bytes\":%.0f,\"fwd_flop\":%.0f,\"bwd_flop\":%.0f}",
                i ? "," : "", ar[i].c->name, ar[i].c->B, ar[i].c->T, ar[i].c->D, ar[i].fwd_us[0],
                ar[i].fwd_us[1], ar[i].fwd_us[2], ar[i].bwd_us[0], ar[i].bwd_us[1], ar[i].bwd_us[2],
                ar[i].bwd_us[3], ar[i].bwd_us[4], ar[i].bwd_us[5], ar[i].fwd_bytes,
                ar[i].bwd_bytes, ar[i].fwd_flop, ar[i].bwd_flop);
    fprintf(f, "],\"layer\":[");
    for (int i = 0; i < 2 * NCASES; i++) {
        fprintf(f, "%s{\"case\":\"%s\",\"B\":%d,\"T\":%d,\"D\":%d,\"Dout\":%d,\"heads\":1,"
                   "\"math\":\"%s\",\"fwd_us\":%.2f,\"fwd_bwd_us\":%.2f,\"fwd_graph_us\":%.2f,"
                   "\"fwd_bwd_graph_us\":%.2f,\"err_y\":%.3g,\"err_att\":%.3g,\"err_dx\":%.3g,"
                   "\"err_grad_worst\":%.3g,\"fused_forward_rows\":%d,\"fused_forward_launches\":%d,"
                   "\"general_forward_fwd_graph_us\":%.2f,\"general_forward_fwd_bwd_graph_us\":%.2f,"
                   "\"two_launch_fwd_graph_us\":%.2f,\"two_launch_fwd_bwd_graph_us\":%.2f,"
                   "\"mlp_kernels_auto\":%d,\"mlp_cublas_fwd_graph_us\":%.2f,"
                   "\"mlp_cublas_fwd_bwd_graph_us\":%.2f,\"mlp_kernels_fwd_graph_us\":%.2f,"
                   "\"mlp_kernels_fwd_bwd_graph_us\":%.2f",
                i ? "," : "", lr[i].c->name, lr[i].c->B, lr[i].c->T, lr[i].c->D, lr[i].c->Dout,
                lr[i].math == TLOB_MATH_FP32 ? "fp32" : "tf32", lr[i].fwd_us, lr[i].fwdbwd_us,
                lr[i].fwd_graph_us, lr[i].fwdbwd_graph_us, lr[i].err_y, lr[i].err_att,
                lr[i].err_dx, lr[i].err_grad, lr[i].fused_rows, lr[i].fused_launches,
                lr[i].general_fwd_graph_us, lr[i].general_fwdbwd_graph_us,
                lr[i].two_fwd_graph_us, lr[i].two_fwdbwd_graph_us, lr[i].mlp_fused, lr[i].mlp_fwd_graph_us[0],
                lr[i].mlp_fwdbwd_graph_us[0], lr[i].mlp_fwd_graph_us[1],
                lr[i].mlp_fwdbwd_graph_us[1]);
        fprintf(f, ",\"data_grad_chunks\":[");
        for (int k = 0; k < DGRAD_SWEEP; k++) fprintf(f, "%s%d", k ? "," : "", dgrad_sweep[k]);
        fprintf(f, "]");
        for (int p = 0; p < TLOB_DGRAD_COUNT; p++) {
            fprintf(f, ",\"%s_chunks_auto\":%d,\"%s_chunks_fwd_bwd_graph_us\":[", dgrad_name[p],
                    lr[i].dgrad_auto[p], dgrad_name[p]);
            for (int k = 0; k < DGRAD_SWEEP; k++)
                fprintf(f, "%s%.2f", k ? "," : "", lr[i].dgrad_fwdbwd_graph_us[p][k]);
            fprintf(f, "]");
        }
        fprintf(f, "}");
    }
    fprintf(f, "]}\n");
}
