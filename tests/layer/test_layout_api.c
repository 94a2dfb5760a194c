/* The flat parameter layout (offsets, contiguity of the fused blocks), the
 * host-side initialisation, parameter file I/O, and the API's error paths,
 * all without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tlob.h"

static void check_layout(void) {
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total = 0;
    /* D=3, nh=2 (E=6), Dout=5: every offset written out by hand */
    CHECK(tlob_param_layout(3, 2, 5, t, &total) == TLOB_OK, "layout");
    const struct { const char *name; size_t offset, numel; int d0, d1; } want[] = {
        {"norm.weight", 0, 3, 3, 0},
        {"norm.bias", 3, 3, 3, 0},
        {"qkv.q.weight", 6, 18, 6, 3},
        {"qkv.k.weight", 24, 18, 6, 3},
        {"qkv.v.weight", 42, 18, 6, 3},
        {"qkv.q.bias", 60, 6, 6, 0},
        {"qkv.k.bias", 66, 6, 6, 0},
        {"qkv.v.bias", 72, 6, 6, 0},
        {"attention.in_proj_weight", 78, 108, 18, 6},
        {"attention.in_proj_bias", 186, 18, 18, 0},
        {"attention.out_proj.weight", 204, 36, 6, 6},
        {"attention.out_proj.bias", 240, 6, 6, 0},
        {"mlp.layer_norm.weight", 246, 5, 5, 0},
        {"mlp.layer_norm.bias", 251, 5, 5, 0},
        {"mlp.fc.weight", 256, 36, 12, 3},
        {"mlp.fc.bias", 292, 12, 12, 0},
        {"mlp.fc2.weight", 304, 60, 5, 12},
        {"mlp.fc2.bias", 364, 5, 5, 0},
        {"w0.weight", 369, 18, 3, 6},
        {"w0.bias", 387, 3, 3, 0},
    };
    for (int i = 0; i < TLOB_NUM_TENSORS; i++) {
        CHECK(strcmp(t[i].name, want[i].name) == 0, "tensor %d is %s, want %s", i, t[i].name, want[i].name);
        CHECK(t[i].offset == want[i].offset && t[i].numel == want[i].numel, "%s at %zu (+%zu), want %zu (+%zu)",
              t[i].name, t[i].offset, t[i].numel, want[i].offset, want[i].numel);
        CHECK(t[i].shape[0] == want[i].d0 && t[i].shape[1] == want[i].d1 &&
                  t[i].ndim == (want[i].d1 ? 2 : 1), "%s shape", t[i].name);
    }
    CHECK(total == 390, "total %zu", total);
    /* the fused stages rely on these: one weight block apart, in q, k, v order */
    for (int d = 1; d <= 9; d += 4)
        for (int nh = 1; nh <= 3; nh++) {
            CHECK(tlob_param_layout(d, nh, d + 1, t, &total) == TLOB_OK, "layout");
            const size_t E = (size_t)d * nh;
            CHECK(t[TLOB_QKV_K_W].offset == t[TLOB_QKV_Q_W].offset + E * d &&
                      t[TLOB_QKV_V_W].offset == t[TLOB_QKV_K_W].offset + E * d,
                  "Wq|Wk|Wv contiguous, D=%d nh=%d", d, nh);
            CHECK(t[TLOB_QKV_K_B].offset == t[TLOB_QKV_Q_B].offset + E &&
                      t[TLOB_QKV_V_B].offset == t[TLOB_QKV_K_B].offset + E,
                  "bq|bk|bv contiguous");
            CHECK(t[TLOB_IN_PROJ_W].numel == 3 * E * E, "W_in is [3E, E]");
            size_t end = 0;
            for (int i = 0; i < TLOB_NUM_TENSORS; i++) {
                CHECK(t[i].offset == end, "%s packed without a gap", t[i].name);
                end = t[i].offset + t[i].numel;
            }
            CHECK(end == total, "total is the sum");
        }
    CHECK(tlob_param_layout(0, 1, 1, t, &total) == TLOB_ERR_INVALID_ARGUMENT, "dim 0");
    CHECK(tlob_param_layout(4, 0, 4, t, &total) == TLOB_ERR_INVALID_ARGUMENT, "heads 0");
    CHECK(tlob_param_layout(4, 1, -1, t, &total) == TLOB_ERR_INVALID_ARGUMENT, "out_dim -1");
    CHECK(tlob_param_layout(70000, 1, 4, t, &total) == TLOB_ERR_INVALID_ARGUMENT, "dim too big");
    CHECK(tlob_param_layout(4, 1, 4, NULL, &total) == TLOB_ERR_INVALID_ARGUMENT, "null tensors");
}

static void check_init(void) {
    const int D = 8, nh = 2, O = 6, E = 16;
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t n;
    CHECK(tlob_param_layout(D, nh, O, t, &n) == TLOB_OK, "layout");
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float)), *c = malloc(n * sizeof(float));
    CHECK(tlob_init_params_host(D, nh, O, 42, a) == TLOB_OK, "init");
    CHECK(tlob_init_params_host(D, nh, O, 42, b) == TLOB_OK, "init");
    CHECK(tlob_init_params_host(D, nh, O, 43, c) == TLOB_OK, "init");
    CHECK(memcmp(a, b, n * sizeof(float)) == 0, "same seed, same parameters");
    CHECK(memcmp(a, c, n * sizeof(float)) != 0, "another seed, other parameters");
    const double bound[TLOB_NUM_TENSORS] = {
        [TLOB_QKV_Q_W] = 1 / sqrt(D), [TLOB_QKV_K_W] = 1 / sqrt(D), [TLOB_QKV_V_W] = 1 / sqrt(D),
        [TLOB_QKV_Q_B] = 1 / sqrt(D), [TLOB_QKV_K_B] = 1 / sqrt(D), [TLOB_QKV_V_B] = 1 / sqrt(D),
        [TLOB_IN_PROJ_W] = sqrt(6.0 / (4 * E)), [TLOB_OUT_PROJ_W] = 1 / sqrt(E),
        [TLOB_FC_W] = 1 / sqrt(D), [TLOB_FC_B] = 1 / sqrt(D),
        [TLOB_FC2_W] = 1 / sqrt(4 * D), [TLOB_FC2_B] = 1 / sqrt(4 * D),
        [TLOB_W0_W] = 1 / sqrt(E), [TLOB_W0_B] = 1 / sqrt(E)};
    for (int i = 0; i < TLOB_NUM_TENSORS; i++) {
        const float *p = a + t[i].offset;
        double lo = INFINITY, hi = -INFINITY;
        for (size_t j = 0; j < t[i].numel; j++) lo = fmin(lo, p[j]), hi = fmax(hi, p[j]);
        if (i == TLOB_NORM_W || i == TLOB_MLP_LN_W)
            CHECK(lo == 1.0 && hi == 1.0, "%s all ones", t[i].name);
        else if (i == TLOB_NORM_B || i == TLOB_MLP_LN_B || i == TLOB_IN_PROJ_B || i == TLOB_OUT_PROJ_B)
            CHECK(lo == 0.0 && hi == 0.0, "%s all zero", t[i].name);
        else /* inside the bound, and spread over most of it */
            CHECK(lo >= -bound[i] && hi <= bound[i] && hi - lo > bound[i], "%s in [%g, %g], bound %g",
                  t[i].name, lo, hi, bound[i]);
    }
    free(a), free(b), free(c);
}

static void check_param_files(void) {
    char dir[] = "/tmp/tlob-test-params-XXXXXX";
    if (!mkdtemp(dir)) return;
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t n;
    CHECK(tlob_param_layout(4, 2, 3, t, &n) == TLOB_OK, "layout");
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
    CHECK(tlob_init_params_host(4, 2, 3, 7, a) == TLOB_OK, "init");
    CHECK(tlob_write_params_host(dir, 4, 2, 3, a) == TLOB_OK, "write: %s", tlob_last_error());
    CHECK(tlob_read_params_host(dir, 4, 2, 3, b) == TLOB_OK, "read: %s", tlob_last_error());
    CHECK(memcmp(a, b, n * sizeof(float)) == 0, "round trip by name");
    /* a layer of other sizes must not load them: the error names the file */
    CHECK(tlob_read_params_host(dir, 4, 1, 3, b) == TLOB_ERR_SHAPE, "nh mismatch");
    CHECK(strstr(tlob_last_error(), "qkv.q.weight.npy") != NULL, "names: %s", tlob_last_error());
    char path[256];
    snprintf(path, sizeof path, "%s/mlp.fc2.bias.npy", dir);
    unlink(path);
    CHECK(tlob_read_params_host(dir, 4, 2, 3, b) == TLOB_ERR_IO, "missing file");
    CHECK(strstr(tlob_last_error(), "mlp.fc2.bias.npy") != NULL, "names: %s", tlob_last_error());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
    free(a), free(b);
}

static void check_api_errors(void) {
    tlob_layer *L = (tlob_layer *)&L; /* must be overwritten with NULL on failure */
    tlob_config cfg = {8, 2, 8, 5, 4, TLOB_MATH_TF32};
    CHECK(tlob_create(NULL, &L) == TLOB_ERR_INVALID_ARGUMENT, "null config");
    CHECK(tlob_create(&cfg, NULL) == TLOB_ERR_INVALID_ARGUMENT, "null out");
    const tlob_config bad[] = {
        {0, 1, 8, 5, 4, TLOB_MATH_TF32}, {8, 0, 8, 5, 4, TLOB_MATH_TF32},
        {8, 1, 0, 5, 4, TLOB_MATH_TF32}, {8, 1, 8, 0, 4, TLOB_MATH_TF32},
        {8, 1, 8, 5, 0, TLOB_MATH_TF32}, {8, 1, 8, 5, 4, (tlob_math)7},
        {8, 1, 8, 65536, 65536, TLOB_MATH_TF32},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        L = (tlob_layer *)&L;
        CHECK(tlob_create(&bad[i], &L) == TLOB_ERR_INVALID_ARGUMENT && L == NULL, "bad config %zu", i);
        CHECK(strstr(tlob_last_error(), "tlob.c:") != NULL, "error says where: %s", tlob_last_error());
    }
    const tlob_status st = tlob_create(&cfg, &L);
    CHECK(st == TLOB_OK || st == TLOB_ERR_NO_DEVICE, "valid config: %s", tlob_status_string(st));
    if (st == TLOB_ERR_NO_DEVICE) {
        CHECK(L == NULL, "no layer without a device");
        printf("note: no CUDA device here (%s); device paths are covered by tests/gpu\n",
               tlob_last_error());
    } else {
        float *dummy = tlob_params(L);
        CHECK(tlob_forward(L, dummy, 0, dummy, NULL) == TLOB_ERR_INVALID_ARGUMENT, "batch 0");
        CHECK(tlob_forward(L, dummy, 5, dummy, NULL) == TLOB_ERR_INVALID_ARGUMENT, "batch > max");
        CHECK(tlob_forward(L, NULL, 1, dummy, NULL) == TLOB_ERR_INVALID_ARGUMENT, "null x");
        CHECK(tlob_backward(L, dummy, NULL, 1, dummy) == TLOB_ERR_INVALID_ARGUMENT, "null dy");
        CHECK(tlob_load_params(L, "/nonexistent") == TLOB_ERR_IO, "missing dir");
        tlob_destroy(L);
    }
    CHECK(tlob_forward(NULL, NULL, 1, NULL, NULL) == TLOB_ERR_INVALID_ARGUMENT, "null layer");
    CHECK(tlob_backward(NULL, NULL, NULL, 1, NULL) == TLOB_ERR_INVALID_ARGUMENT, "null layer");
    CHECK(tlob_zero_grads(NULL) == TLOB_ERR_INVALID_ARGUMENT, "null layer");
    CHECK(tlob_upload(NULL, NULL, NULL, 0) == TLOB_ERR_INVALID_ARGUMENT, "null layer");
    CHECK(tlob_init_params(NULL, 1) == TLOB_ERR_INVALID_ARGUMENT, "null layer");
    CHECK(tlob_save_params(NULL, "/tmp") == TLOB_ERR_INVALID_ARGUMENT, "null layer");
    CHECK(tlob_params(NULL) == NULL && tlob_grads(NULL) == NULL && tlob_num_params(NULL) == 0, "accessors");
    tlob_destroy(NULL); /* allowed, does nothing */

    tlob_math m = TLOB_MATH_FP32;
    CHECK(tlob_math_parse("tf32", &m) == TLOB_OK && m == TLOB_MATH_TF32, "tf32");
    CHECK(tlob_math_parse("fp32", &m) == TLOB_OK && m == TLOB_MATH_FP32, "fp32");
    CHECK(tlob_math_parse("fp16", &m) == TLOB_ERR_INVALID_ARGUMENT, "fp16 rejected");
    CHECK(strstr(tlob_last_error(), "fp16") != NULL, "names the value");
    for (int s = TLOB_OK; s <= TLOB_ERR_SHAPE; s++) {
        const char *name = tlob_status_string((tlob_status)s);
        CHECK(strncmp(name, "TLOB_", 5) == 0, "status %d named: %s", s, name);
    }
    CHECK(strstr(tlob_status_string(TLOB_ERR_SHAPE), "SHAPE") != NULL, "shape");
    CHECK(strcmp(tlob_status_string((tlob_status)99), "unknown tlob_status") == 0, "unknown");
}

int main(void) {
    check_layout();
    check_init();
    check_param_files();
    check_api_errors();
    return test_summary();
}
