/* Host-side parameter helpers: initialisation as the reference does it, and
 * reading/writing one .npy file per parameter by its published name. They
 * need no device, so `tlob init` and the CLI's file checks run anywhere. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy.h"
#include "status.h"
#include "tlob.h"

/* splitmix64: a small seedable generator. PyTorch's random stream cannot be
 * reproduced outside PyTorch; the distributions can. */
static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* U(-bound, bound) */
static void fill_uniform(float *dst, size_t n, double bound, uint64_t *state) {
    for (size_t i = 0; i < n; i++) {
        const double u = (double)(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
        dst[i] = (float)((2.0 * u - 1.0) * bound);
    }
}

tlob_status tlob_init_params_host(int dim, int heads, int out_dim, uint64_t seed, float *host) {
    if (!host) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total;
    TLOB_CHECK(tlob_param_layout(dim, heads, out_dim, t, &total));
    const double D = dim, E = (double)dim * heads, F = 4.0 * dim;
    uint64_t state = seed;
    for (int i = 0; i < TLOB_NUM_TENSORS; i++) {
        float *p = host + t[i].offset;
        double fan_in = 0.0; /* of the Linear this weight or bias belongs to */
        switch ((tlob_tensor_id)i) {
        case TLOB_NORM_W: case TLOB_MLP_LN_W:
            for (size_t j = 0; j < t[i].numel; j++) p[j] = 1.0f;
            continue;
        case TLOB_NORM_B: case TLOB_MLP_LN_B: case TLOB_IN_PROJ_B: case TLOB_OUT_PROJ_B:
            memset(p, 0, t[i].numel * sizeof(float));
            continue;
        case TLOB_IN_PROJ_W: /* Xavier-uniform over [3E, E]: fan_in E, fan_out 3E */
            fill_uniform(p, t[i].numel, sqrt(6.0 / (E + 3.0 * E)), &state);
            continue;
        case TLOB_QKV_Q_W: case TLOB_QKV_K_W: case TLOB_QKV_V_W:
        case TLOB_QKV_Q_B: case TLOB_QKV_K_B: case TLOB_QKV_V_B:
        case TLOB_FC_W: case TLOB_FC_B:
            fan_in = D;
            break;
        case TLOB_OUT_PROJ_W: case TLOB_W0_W: case TLOB_W0_B:
            fan_in = E;
            break;
        case TLOB_FC2_W: case TLOB_FC2_B:
            fan_in = F;
            break;
        }
        fill_uniform(p, t[i].numel, 1.0 / sqrt(fan_in), &state);
    }
    return TLOB_OK;
}

static tlob_status tensor_path(char *buf, size_t len, const char *dir, const char *name) {
    if ((size_t)snprintf(buf, len, "%s/%s.npy", dir, name) >= len)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "path too long: %s/%s.npy", dir, name);
    return TLOB_OK;
}

tlob_status tlob_read_params_host(const char *dir, int dim, int heads, int out_dim, float *host) {
    if (!dir || !host) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total;
    TLOB_CHECK(tlob_param_layout(dim, heads, out_dim, t, &total));
    for (int i = 0; i < TLOB_NUM_TENSORS; i++) {
        char path[4096];
        TLOB_CHECK(tensor_path(path, sizeof path, dir, t[i].name));
        const size_t shape[2] = {(size_t)t[i].shape[0], (size_t)t[i].shape[1]};
        npy_array a;
        TLOB_CHECK(npy_read_f32_shape(path, t[i].ndim, shape, &a));
        memcpy(host + t[i].offset, a.data, t[i].numel * sizeof(float));
        npy_free(&a);
    }
    return TLOB_OK;
}

/* The 20 files replace the old ones only once all are written: a full disk
 * halfway leaves the old set, not a mix of two. */
tlob_status tlob_write_params_host(const char *dir, int dim, int heads, int out_dim,
                                   const float *host) {
    if (!dir || !host) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total;
    TLOB_CHECK(tlob_param_layout(dim, heads, out_dim, t, &total));
    char paths[TLOB_NUM_TENSORS][4096];
    host_file_out files[TLOB_NUM_TENSORS];
    tlob_status st = TLOB_OK;
    int written = 0;
    for (; st == TLOB_OK && written < TLOB_NUM_TENSORS; written++) {
        const tlob_tensor_info *ti = &t[written];
        const size_t shape[2] = {(size_t)ti->shape[0], (size_t)ti->shape[1]};
        st = tensor_path(paths[written], sizeof paths[written], dir, ti->name);
        if (st == TLOB_OK)
            st = npy_write_f32_pending(paths[written], host + ti->offset, ti->ndim, shape,
                                       &files[written]);
    }
    if (st != TLOB_OK) written--; /* the failed one cleaned up after itself */
    for (int i = 0; i < written; i++) {
        if (st == TLOB_OK) st = host_file_rename(&files[i]);
        else host_file_discard(&files[i]);
    }
    return st;
}

tlob_status tlob_read_params_any(const char *path, int dim, int heads, int out_dim, float *host) {
    if (!path) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    struct stat sb;
    if (stat(path, &sb) != 0)
        return TLOB_FAIL(TLOB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return tlob_read_params_host(path, dim, heads, out_dim, host);
    return tlob_read_safetensors_host(path, dim, heads, out_dim, host);
}
