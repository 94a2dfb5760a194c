/* CPU reference, double precision, deliberately plain loops: it is the
 * specification the GPU path is tested against, so it favours obviousness. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "tlob_ref.h"

/* Y [N, out] = X [N, in] W [out, in]^T + b */
static void linear_fwd(const double *X, int N, int in, const double *W, const double *b,
                       int out, double *Y) {
    for (int n = 0; n < N; n++)
        for (int o = 0; o < out; o++) {
            double s = b ? b[o] : 0.0;
            for (int i = 0; i < in; i++) s += X[(size_t)n * in + i] * W[(size_t)o * in + i];
            Y[(size_t)n * out + o] = s;
        }
}

/* dX (+)= dY W ; dW += dY^T X ; db += colsum(dY). dX is overwritten unless
 * accumulate_dx. */
static void linear_bwd(const double *X, int N, int in, const double *W, const double *dY,
                       int out, double *dX, int accumulate_dx, double *dW, double *db) {
    for (int n = 0; n < N; n++)
        for (int i = 0; i < in; i++) {
            double s = 0.0;
            for (int o = 0; o < out; o++) s += dY[(size_t)n * out + o] * W[(size_t)o * in + i];
            if (accumulate_dx) dX[(size_t)n * in + i] += s;
            else dX[(size_t)n * in + i] = s;
        }
    for (int o = 0; o < out; o++) {
        double sb = 0.0;
        for (int n = 0; n < N; n++) {
            const double g = dY[(size_t)n * out + o];
            sb += g;
            for (int i = 0; i < in; i++) dW[(size_t)o * in + i] += g * X[(size_t)n * in + i];
        }
        db[o] += sb;
    }
}

/* Per row of h [N, C]: xhat = (h - mean) * rstd (biased variance, eps 1e-5);
 * out = xhat * g + b. */
static void layernorm_fwd(const double *h, int N, int C, const double *g, const double *b,
                          double *xhat, double *rstd, double *out) {
    for (int n = 0; n < N; n++) {
        const double *r = h + (size_t)n * C;
        double m = 0.0, v = 0.0;
        for (int c = 0; c < C; c++) m += r[c];
        m /= C;
        for (int c = 0; c < C; c++) v += (r[c] - m) * (r[c] - m);
        v /= C;
        rstd[n] = 1.0 / sqrt(v + 1e-5);
        for (int c = 0; c < C; c++) {
            xhat[(size_t)n * C + c] = (r[c] - m) * rstd[n];
            out[(size_t)n * C + c] = xhat[(size_t)n * C + c] * g[c] + b[c];
        }
    }
}

/* dh = d LayerNorm / dh applied to dout; dg += dout*xhat; db += dout. */
static void layernorm_bwd(const double *dout, const double *xhat, const double *rstd, int N,
                          int C, const double *g, double *dh, double *dg, double *db) {
    for (int n = 0; n < N; n++) {
        const size_t o = (size_t)n * C;
        double mean_d = 0.0, mean_dx = 0.0;
        for (int c = 0; c < C; c++) {
            const double d = dout[o + c] * g[c];
            mean_d += d;
            mean_dx += d * xhat[o + c];
            dg[c] += dout[o + c] * xhat[o + c];
            db[c] += dout[o + c];
        }
        mean_d /= C;
        mean_dx /= C;
        for (int c = 0; c < C; c++)
            dh[o + c] = rstd[n] * (dout[o + c] * g[c] - mean_d - xhat[o + c] * mean_dx);
    }
}

static double gelu(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }
static double gelu_grad(double x) {
    return 0.5 * (1.0 + erf(x / sqrt(2.0))) + x * exp(-0.5 * x * x) * 0.39894228040143267794; /* 1/sqrt(2 pi) */
}

/* Every intermediate of one forward pass, kept for the backward pass. */
typedef struct {
    int B, T, D, nh, E, F, O, N, res;
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    double *qkv0, *qkv, *P, *o, *a, *h1, *xhat1, *rstd1, *y1, *f, *g, *z1, *xhat2, *rstd2,
        *zn, *y;
    double *mem;
} ref_state;

static const double *prm(const ref_state *s, const double *params, tlob_tensor_id id) {
    return params + s->t[id].offset;
}

static tlob_status ref_run_forward(ref_state *s, const tlob_ref_shape *sh, const double *params,
                                   const double *x) {
    memset(s, 0, sizeof *s);
    if (!sh || !params || !x) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    if (sh->batch < 1 || sh->seq_len < 1)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "batch %d, seq_len %d", sh->batch, sh->seq_len);
    size_t total;
    TLOB_CHECK(tlob_param_layout(sh->dim, sh->heads, sh->out_dim, s->t, &total));
    s->B = sh->batch, s->T = sh->seq_len, s->D = sh->dim, s->nh = sh->heads;
    s->E = s->D * s->nh, s->F = 4 * s->D, s->O = sh->out_dim, s->N = s->B * s->T;
    s->res = s->O == s->D;
    const size_t N = (size_t)s->N, E = (size_t)s->E, D = (size_t)s->D, F = (size_t)s->F,
                 O = (size_t)s->O, PT = (size_t)s->B * s->nh * s->T * s->T;
    const size_t sizes[] = {3 * N * E, 3 * N * E, PT, N * E, N * E, N * D, N * D, N, N * D,
                            N * F,     N * F,     N * O, N * O, N, N * O, N * O};
    size_t sum = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) sum += sizes[i];
    s->mem = calloc(sum, sizeof(double));
    if (!s->mem) return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "reference: %zu doubles", sum);
    double **ptrs[] = {&s->qkv0, &s->qkv, &s->P, &s->o, &s->a, &s->h1, &s->xhat1, &s->rstd1,
                       &s->y1,   &s->f,   &s->g, &s->z1, &s->xhat2, &s->rstd2, &s->zn, &s->y};
    double *p = s->mem;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        *ptrs[i] = p;
        p += sizes[i];
    }

    const int T = s->T, nh = s->nh, Di = s->D, Ei = s->E;
    /* 1. q0, k0, v0 */
    for (int i = 0; i < 3; i++)
        linear_fwd(x, s->N, Di, prm(s, params, TLOB_QKV_Q_W + i), prm(s, params, TLOB_QKV_Q_B + i),
                   Ei, s->qkv0 + i * N * E);
    /* 2. in-projection: row block i of W_in on activation block i */
    const double *win = prm(s, params, TLOB_IN_PROJ_W), *bin = prm(s, params, TLOB_IN_PROJ_B);
    for (int i = 0; i < 3; i++)
        linear_fwd(s->qkv0 + i * N * E, s->N, Ei, win + i * E * E, bin + i * E, Ei,
                   s->qkv + i * N * E);
    /* 3. attention per sample and head */
    const double scale = 1.0 / sqrt((double)Di);
    const double *q = s->qkv, *k = s->qkv + N * E, *v = s->qkv + 2 * N * E;
    for (int b = 0; b < s->B; b++)
        for (int h = 0; h < nh; h++)
            for (int t = 0; t < T; t++) {
                double *row = s->P + (((size_t)b * nh + h) * T + t) * T;
                double mx = -INFINITY;
                for (int u = 0; u < T; u++) {
                    double d = 0.0;
                    for (int j = 0; j < Di; j++)
                        d += q[((size_t)b * T + t) * E + h * D + j] *
                             k[((size_t)b * T + u) * E + h * D + j];
                    row[u] = d * scale;
                    if (row[u] > mx) mx = row[u];
                }
                double z = 0.0;
                for (int u = 0; u < T; u++) z += (row[u] = exp(row[u] - mx));
                for (int u = 0; u < T; u++) row[u] /= z;
                for (int j = 0; j < Di; j++) {
                    double acc = 0.0;
                    for (int u = 0; u < T; u++) acc += row[u] * v[((size_t)b * T + u) * E + h * D + j];
                    s->o[((size_t)b * T + t) * E + h * D + j] = acc;
                }
            }
    /* 4-5. out-projection, back to D, residual, LayerNorm */
    linear_fwd(s->o, s->N, Ei, prm(s, params, TLOB_OUT_PROJ_W), prm(s, params, TLOB_OUT_PROJ_B),
               Ei, s->a);
    linear_fwd(s->a, s->N, Ei, prm(s, params, TLOB_W0_W), prm(s, params, TLOB_W0_B), Di, s->h1);
    for (size_t i = 0; i < N * D; i++) s->h1[i] += x[i];
    layernorm_fwd(s->h1, s->N, Di, prm(s, params, TLOB_NORM_W), prm(s, params, TLOB_NORM_B),
                  s->xhat1, s->rstd1, s->y1);
    /* 6. MLP */
    linear_fwd(s->y1, s->N, Di, prm(s, params, TLOB_FC_W), prm(s, params, TLOB_FC_B), s->F, s->f);
    for (size_t i = 0; i < N * F; i++) s->g[i] = gelu(s->f[i]);
    linear_fwd(s->g, s->N, s->F, prm(s, params, TLOB_FC2_W), prm(s, params, TLOB_FC2_B), s->O,
               s->z1);
    if (s->res)
        for (size_t i = 0; i < N * O; i++) s->z1[i] += s->y1[i];
    layernorm_fwd(s->z1, s->N, s->O, prm(s, params, TLOB_MLP_LN_W), prm(s, params, TLOB_MLP_LN_B),
                  s->xhat2, s->rstd2, s->zn);
    /* 7. GELU and the outer residual */
    for (size_t i = 0; i < N * O; i++) s->y[i] = gelu(s->zn[i]) + (s->res ? x[i] : 0.0);
    return TLOB_OK;
}

tlob_status tlob_ref_forward(const tlob_ref_shape *shape, const double *params,
                             const double *x, double *y, double *att) {
    if (!y) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    ref_state s;
    tlob_status st = ref_run_forward(&s, shape, params, x);
    if (st == TLOB_OK) {
        memcpy(y, s.y, (size_t)s.N * s.O * sizeof(double));
        if (att) memcpy(att, s.P, (size_t)s.B * s.nh * s.T * s.T * sizeof(double));
    }
    free(s.mem);
    return st;
}

tlob_status tlob_ref_backward(const tlob_ref_shape *shape, const double *params,
                              const double *x, const double *dy, double *dx, double *grads) {
    if (!dy || !dx || !grads) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "null argument");
    ref_state s;
    TLOB_CHECK(ref_run_forward(&s, shape, params, x));
    const size_t N = (size_t)s.N, E = (size_t)s.E, D = (size_t)s.D, F = (size_t)s.F,
                 O = (size_t)s.O;
    const int T = s.T, nh = s.nh, Di = s.D, Ei = s.E;
    size_t total = s.t[TLOB_NUM_TENSORS - 1].offset + s.t[TLOB_NUM_TENSORS - 1].numel;
    memset(grads, 0, total * sizeof(double));
    double *gr[TLOB_NUM_TENSORS];
    for (int i = 0; i < TLOB_NUM_TENSORS; i++) gr[i] = grads + s.t[i].offset;

    const size_t scratch = N * O + N * F + N * F + N * D + N * D + N * E + N * E +
                           (size_t)T * T + 3 * N * E + 3 * N * E;
    double *mem = calloc(scratch, sizeof(double));
    if (!mem) {
        free(s.mem);
        return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "reference: %zu doubles", scratch);
    }
    double *dz1 = mem, *dg = dz1 + N * O, *df = dg + N * F, *dy1 = df + N * F, *dh1 = dy1 + N * D,
           *da = dh1 + N * D, *dout = da + N * E, *dP = dout + N * E, *dqkv = dP + (size_t)T * T,
           *dqkv0 = dqkv + 3 * N * E;

    /* 7-6 backwards: y = GELU(LN2(z1)) (+ x) */
    double *dzn = malloc(N * O * sizeof(double));
    if (!dzn) {
        free(mem);
        free(s.mem);
        return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "reference: %zu doubles", N * O);
    }
    for (size_t i = 0; i < N * O; i++) dzn[i] = dy[i] * gelu_grad(s.zn[i]);
    layernorm_bwd(dzn, s.xhat2, s.rstd2, s.N, s.O, prm(&s, params, TLOB_MLP_LN_W), dz1,
                  gr[TLOB_MLP_LN_W], gr[TLOB_MLP_LN_B]);
    free(dzn);
    linear_bwd(s.g, s.N, s.F, prm(&s, params, TLOB_FC2_W), dz1, s.O, dg, 0, gr[TLOB_FC2_W],
               gr[TLOB_FC2_B]);
    for (size_t i = 0; i < N * F; i++) df[i] = dg[i] * gelu_grad(s.f[i]);
    linear_bwd(s.y1, s.N, Di, prm(&s, params, TLOB_FC_W), df, s.F, dy1, 0, gr[TLOB_FC_W],
               gr[TLOB_FC_B]);
    if (s.res)
        for (size_t i = 0; i < N * D; i++) dy1[i] += dz1[i];
    /* 5: y1 = LN1(h1), h1 = w0(a) + x */
    layernorm_bwd(dy1, s.xhat1, s.rstd1, s.N, Di, prm(&s, params, TLOB_NORM_W), dh1,
                  gr[TLOB_NORM_W], gr[TLOB_NORM_B]);
    for (size_t i = 0; i < N * D; i++) dx[i] = dh1[i] + (s.res ? dy[i] : 0.0);
    linear_bwd(s.a, s.N, Ei, prm(&s, params, TLOB_W0_W), dh1, Di, da, 0, gr[TLOB_W0_W],
               gr[TLOB_W0_B]);
    /* 4 */
    linear_bwd(s.o, s.N, Ei, prm(&s, params, TLOB_OUT_PROJ_W), da, Ei, dout, 0,
               gr[TLOB_OUT_PROJ_W], gr[TLOB_OUT_PROJ_B]);
    /* 3: attention, per sample and head */
    const double scale = 1.0 / sqrt((double)Di);
    const double *q = s.qkv, *k = s.qkv + N * E, *v = s.qkv + 2 * N * E;
    double *dq = dqkv, *dk = dqkv + N * E, *dv = dqkv + 2 * N * E;
    for (int b = 0; b < s.B; b++)
        for (int h = 0; h < nh; h++) {
            const double *P = s.P + ((size_t)b * nh + h) * T * T;
            for (int t = 0; t < T; t++)
                for (int u = 0; u < T; u++) {
                    double d = 0.0;
                    for (int j = 0; j < Di; j++)
                        d += dout[((size_t)b * T + t) * E + h * D + j] *
                             v[((size_t)b * T + u) * E + h * D + j];
                    dP[(size_t)t * T + u] = d;
                }
            for (int u = 0; u < T; u++)
                for (int j = 0; j < Di; j++) {
                    double acc = 0.0;
                    for (int t = 0; t < T; t++)
                        acc += P[(size_t)t * T + u] * dout[((size_t)b * T + t) * E + h * D + j];
                    dv[((size_t)b * T + u) * E + h * D + j] = acc;
                }
            for (int t = 0; t < T; t++) { /* softmax backward with the score scale */
                double dot = 0.0;
                for (int u = 0; u < T; u++) dot += P[(size_t)t * T + u] * dP[(size_t)t * T + u];
                for (int u = 0; u < T; u++)
                    dP[(size_t)t * T + u] = scale * P[(size_t)t * T + u] * (dP[(size_t)t * T + u] - dot);
            }
            for (int t = 0; t < T; t++)
                for (int j = 0; j < Di; j++) {
                    double acc = 0.0;
                    for (int u = 0; u < T; u++)
                        acc += dP[(size_t)t * T + u] * k[((size_t)b * T + u) * E + h * D + j];
                    dq[((size_t)b * T + t) * E + h * D + j] = acc;
                }
            for (int u = 0; u < T; u++)
                for (int j = 0; j < Di; j++) {
                    double acc = 0.0;
                    for (int t = 0; t < T; t++)
                        acc += dP[(size_t)t * T + u] * q[((size_t)b * T + t) * E + h * D + j];
                    dk[((size_t)b * T + u) * E + h * D + j] = acc;
                }
        }
    /* 2: in-projection blocks */
    const double *win = prm(&s, params, TLOB_IN_PROJ_W);
    for (int i = 0; i < 3; i++)
        linear_bwd(s.qkv0 + i * N * E, s.N, Ei, win + i * E * E, dqkv + i * N * E, Ei,
                   dqkv0 + i * N * E, 0, gr[TLOB_IN_PROJ_W] + i * E * E,
                   gr[TLOB_IN_PROJ_B] + i * E);
    /* 1: q0, k0, v0 all read x */
    for (int i = 0; i < 3; i++)
        linear_bwd(x, s.N, Di, prm(&s, params, TLOB_QKV_Q_W + i), dqkv0 + i * N * E, Ei, dx, 1,
                   gr[TLOB_QKV_Q_W + i], gr[TLOB_QKV_Q_B + i]);
    free(mem);
    free(s.mem);
    return TLOB_OK;
}

double tlob_rel_l2(const float *got, const double *want, size_t n) {
    return tlob_rel_l2_floor(got, want, n, 0.0);
}

double tlob_rel_l2_floor(const float *got, const double *want, size_t n, double floor) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double d = (double)got[i] - want[i];
        num += d * d;
        den += want[i] * want[i];
    }
    if (num != num) return INFINITY; /* a NaN anywhere fails every tolerance */
    den = sqrt(den);
    if (den < floor) den = floor;
    return den > 0.0 ? sqrt(num) / den : sqrt(num);
}

double tlob_grad_rel_l2(const tlob_tensor_info *tensors, int id, const float *got,
                        const double *want) {
    double floor = 0.0;
    if (id == TLOB_QKV_K_B) {
        const tlob_tensor_info *w = &tensors[TLOB_QKV_K_W];
        for (size_t i = 0; i < w->numel; i++) floor += want[w->offset + i] * want[w->offset + i];
        floor = sqrt(floor);
    }
    const tlob_tensor_info *t = &tensors[id];
    return tlob_rel_l2_floor(got + t->offset, want + t->offset, t->numel, floor);
}
