/* Streams and threads: layers share no state, so two layers driven from two
 * threads at once, each on a stream of its caller's (tlob_set_stream) and
 * with caller-owned parameter and gradient buffers (tlob_set_buffers), give
 * the CPU reference's results (layer/parity.c) as they do alone. Each thread
 * runs several passes so that the two overlap. Without a device: SKIP. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../layer/check.h" /* tests/layer/check.h */
#include "parity.h"
#include "tlob.h"

#define PASSES 4

typedef struct {
    int B, T, D, nh, O;
    unsigned seed;
    tlob_status st;
    char error[1024];
    parity_result r[PASSES];
} job;

static float *random_host(size_t n, unsigned *seed) {
    float *p = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) p[i] = (float)rand_r(seed) / RAND_MAX * 2.0f - 1.0f;
    return p;
}

#define TRY(call)                                                                      \
    do {                                                                               \
        if ((j->st = (call)) != TLOB_OK) {                                             \
            snprintf(j->error, sizeof j->error, "%s: %s", #call, tlob_last_error());   \
            return NULL;                                                               \
        }                                                                              \
    } while (0)

static void *run(void *arg) {
    job *j = arg;
    const tlob_config cfg = {j->D, j->nh, j->O, j->T, j->B, TLOB_MATH_FP32};
    tlob_layer *L;
    TRY(tlob_create(&cfg, &L));
    cudaStream_t s;
    float *params, *grads;
    const size_t np = tlob_num_params(L);
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc((void **)&params, np * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&grads, np * sizeof(float)) != cudaSuccess) {
        j->st = TLOB_ERR_CUDA;
        snprintf(j->error, sizeof j->error, "stream or buffers");
        return NULL;
    }
    TRY(tlob_set_stream(L, s));
    TRY(tlob_set_buffers(L, params, grads));
    float *hp = malloc(np * sizeof(float));
    TRY(tlob_init_params_host(j->D, j->nh, j->O, j->seed, hp));
    TRY(tlob_upload(L, tlob_params(L), hp, np));
    const size_t nx = (size_t)j->B * j->T * j->D, ny = (size_t)j->B * j->T * j->O;
    for (int p = 0; p < PASSES; p++) {
        float *x = random_host(nx, &j->seed), *dy = random_host(ny, &j->seed);
        TRY(tlob_zero_grads(L));
        TRY(parity_run(L, j->B, x, dy, &j->r[p]));
        free(x), free(dy);
    }
    j->st = tlob_params(L) == params && tlob_grads(L) == grads && tlob_stream(L) == s
                ? TLOB_OK : TLOB_ERR_INVALID_ARGUMENT;
    if (j->st != TLOB_OK) snprintf(j->error, sizeof j->error, "buffers or stream not the caller's");
    tlob_destroy(L);
    (void)cudaFree(params), (void)cudaFree(grads), (void)cudaStreamDestroy(s);
    free(hp);
    return NULL;
}

int main(void) {
    const tlob_config probe = {4, 1, 4, 2, 1, TLOB_MATH_FP32};
    tlob_layer *L;
    const tlob_status st = tlob_create(&probe, &L);
    if (st == TLOB_ERR_NO_DEVICE) {
        printf("SKIP stream/thread tests: no CUDA device (%s)\n", tlob_last_error());
        printf("0 passed, 0 failed, 1 skipped\n");
        return 0;
    }
    tlob_destroy(L);
    job jobs[2] = {{16, 128, 40, 1, 40, 101, 0, "", {{0}}}, {6, 40, 48, 2, 64, 202, 0, "", {{0}}}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, run, &jobs[i]) == 0, "thread %d", i);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        const job *j = &jobs[i];
        CHECK(j->st == TLOB_OK, "thread %d: %s", i, j->error);
        if (j->st != TLOB_OK) continue;
        for (int p = 0; p < PASSES; p++) {
            const double worst = parity_worst(&j->r[p]);
            CHECK(j->r[p].y_written && j->r[p].att_written && j->r[p].dx_written,
                  "thread %d pass %d: every output written", i, p);
            CHECK(worst <= PARITY_TOL_FP32, "thread %d pass %d: worst rel L2 %.3g", i, p, worst);
            printf("%s thread %d (B=%d T=%d D=%d nh=%d Dout=%d, own stream and buffers) pass %d: "
                   "worst rel L2 %.2e\n", worst <= PARITY_TOL_FP32 ? "ok  " : "FAIL", i, j->B,
                   j->T, j->D, j->nh, j->O, p, worst);
        }
    }
    return test_summary();
}
