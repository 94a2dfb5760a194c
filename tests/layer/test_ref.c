#define _POSIX_C_SOURCE 200809L
/* The CPU reference's gradients against central finite differences of its
 * own forward pass, in double precision, for every parameter and every input
 * element, on shapes covering nh > 1, Dout != D, odd T, B = 1 and T = 1.
 * Plus forward properties that follow from the maths alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tlob_ref.h"

static double urand(unsigned *s) { return (double)rand_r(s) / RAND_MAX * 2.0 - 1.0; }

/* loss = sum(y * dy) */
static double loss(const tlob_ref_shape *sh, const double *p, const double *x, const double *dy,
                   double *y) {
    if (tlob_ref_forward(sh, p, x, y, NULL) != TLOB_OK) return NAN;
    const size_t n = (size_t)sh->batch * sh->seq_len * sh->out_dim;
    double l = 0.0;
    for (size_t i = 0; i < n; i++) l += y[i] * dy[i];
    return l;
}

/* Worst |analytic - numeric| / max(1, |numeric|) over the n entries of v. */
static double fd_worst(const tlob_ref_shape *sh, double *p, double *x, const double *dy,
                       double *y, double *v, const double *analytic, size_t n) {
    const double eps = 1e-6;
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double keep = v[i];
        v[i] = keep + eps;
        const double lp = loss(sh, p, x, dy, y);
        v[i] = keep - eps;
        const double lm = loss(sh, p, x, dy, y);
        v[i] = keep;
        const double num = (lp - lm) / (2 * eps);
        const double err = fabs(analytic[i] - num) / fmax(1.0, fabs(num));
        if (!(err <= worst)) worst = err;
    }
    return worst;
}

static void check_shape(int B, int T, int D, int nh, int Dout, unsigned seed) {
    tlob_ref_shape sh = {D, nh, Dout, T, B};
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t np;
    CHECK(tlob_param_layout(D, nh, Dout, t, &np) == TLOB_OK, "layout");
    const size_t nx = (size_t)B * T * D, ny = (size_t)B * T * Dout;
    double *p = malloc(np * sizeof *p), *x = malloc(nx * sizeof *x), *dy = malloc(ny * sizeof *dy),
           *y = malloc(ny * sizeof *y), *dx = malloc(nx * sizeof *dx), *g = malloc(np * sizeof *g);
    /* Every parameter random and O(1)-ish, so that no path hides behind a zero
     * bias or a unit LayerNorm gain. */
    for (size_t i = 0; i < np; i++) p[i] = 0.5 * urand(&seed);
    for (size_t i = 0; i < nx; i++) x[i] = urand(&seed);
    for (size_t i = 0; i < ny; i++) dy[i] = urand(&seed);
    CHECK(tlob_ref_backward(&sh, p, x, dy, dx, g) == TLOB_OK, "backward");

    const double tol = 1e-6;
    for (int i = 0; i < TLOB_NUM_TENSORS; i++) {
        const double w = fd_worst(&sh, p, x, dy, y, p + t[i].offset, g + t[i].offset, t[i].numel);
        CHECK(w <= tol, "B=%d T=%d D=%d nh=%d Dout=%d: d %s worst err %.3g", B, T, D, nh, Dout,
              t[i].name, w);
    }
    const double w = fd_worst(&sh, p, x, dy, y, x, dx, nx);
    CHECK(w <= tol, "B=%d T=%d D=%d nh=%d Dout=%d: dx worst err %.3g", B, T, D, nh, Dout, w);
    printf("ok   finite differences B=%d T=%d D=%d nh=%d Dout=%d (%zu parameters)\n", B, T, D, nh,
           Dout, np);
    free(p), free(x), free(dy), free(y), free(dx), free(g);
}

/* With every weight and bias zero (LayerNorm gains 1): q = k = v = 0, so each
 * attention row is uniform, the attention path adds nothing, h1 = x and the
 * MLP adds nothing; y = GELU(LN(LN(x))) + x when Dout == D. */
static void check_zero_weights(void) {
    const int B = 2, T = 3, D = 4;
    tlob_ref_shape sh = {D, 2, D, T, B};
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t np;
    CHECK(tlob_param_layout(D, 2, D, t, &np) == TLOB_OK, "layout");
    double *p = calloc(np, sizeof *p), x[2 * 3 * 4], y[2 * 3 * 4], att[2 * 2 * 3 * 3];
    for (int i = 0; i < D; i++) p[t[TLOB_NORM_W].offset + i] = p[t[TLOB_MLP_LN_W].offset + i] = 1.0;
    unsigned seed = 3;
    for (int i = 0; i < B * T * D; i++) x[i] = urand(&seed);
    CHECK(tlob_ref_forward(&sh, p, x, y, att) == TLOB_OK, "forward");
    double worst_att = 0.0, worst_y = 0.0;
    for (int i = 0; i < 2 * 2 * 3 * 3; i++) worst_att = fmax(worst_att, fabs(att[i] - 1.0 / T));
    for (int r = 0; r < B * T; r++) {
        double v[4];
        memcpy(v, x + r * D, sizeof v);
        for (int pass = 0; pass < 2; pass++) {
            double m = 0, var = 0;
            for (int c = 0; c < D; c++) m += v[c] / D;
            for (int c = 0; c < D; c++) var += (v[c] - m) * (v[c] - m) / D;
            for (int c = 0; c < D; c++) v[c] = (v[c] - m) / sqrt(var + 1e-5);
        }
        for (int c = 0; c < D; c++) {
            const double want = 0.5 * v[c] * (1 + erf(v[c] / sqrt(2.0))) + x[r * D + c];
            worst_y = fmax(worst_y, fabs(y[r * D + c] - want));
        }
    }
    CHECK(worst_att < 1e-15, "uniform attention, worst %.3g", worst_att);
    CHECK(worst_y < 1e-12, "y = GELU(LN(LN(x))) + x, worst %.3g", worst_y);
    free(p);
}

/* Rows of P are probability distributions for random parameters. */
static void check_attention_rows(void) {
    const int B = 2, T = 5, D = 3, nh = 2;
    tlob_ref_shape sh = {D, nh, 7, T, B};
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t np;
    CHECK(tlob_param_layout(D, nh, 7, t, &np) == TLOB_OK, "layout");
    double *p = malloc(np * sizeof *p), x[2 * 5 * 3], y[2 * 5 * 7], att[2 * 2 * 5 * 5];
    unsigned seed = 9;
    for (size_t i = 0; i < np; i++) p[i] = urand(&seed);
    for (int i = 0; i < B * T * D; i++) x[i] = urand(&seed);
    CHECK(tlob_ref_forward(&sh, p, x, y, att) == TLOB_OK, "forward");
    double worst = 0.0;
    int negative = 0;
    for (int r = 0; r < B * nh * T; r++) {
        double s = 0.0;
        for (int c = 0; c < T; c++) {
            s += att[r * T + c];
            negative += att[r * T + c] < 0.0;
        }
        worst = fmax(worst, fabs(s - 1.0));
    }
    CHECK(worst < 1e-14 && negative == 0, "rows sum to 1: worst %.3g, %d negative", worst, negative);
    free(p);
}

static void check_errors(void) {
    tlob_ref_shape sh = {4, 1, 4, 3, 0};
    double v[64] = {0};
    CHECK(tlob_ref_forward(&sh, v, v, v, NULL) == TLOB_ERR_INVALID_ARGUMENT, "batch 0");
    sh.batch = 1;
    CHECK(tlob_ref_forward(&sh, NULL, v, v, NULL) == TLOB_ERR_INVALID_ARGUMENT, "null params");
    CHECK(tlob_ref_backward(&sh, v, v, NULL, v, v) == TLOB_ERR_INVALID_ARGUMENT, "null dy");
    sh.dim = 0;
    CHECK(tlob_ref_forward(&sh, v, v, v, NULL) == TLOB_ERR_INVALID_ARGUMENT, "dim 0");
}

int main(void) {
    check_shape(2, 3, 4, 1, 4, 1);  /* Dout == D: both residuals */
    check_shape(2, 5, 3, 2, 5, 2);  /* nh > 1, Dout != D, odd T */
    check_shape(1, 7, 5, 2, 5, 3);  /* B = 1, odd T and D, nh > 1 */
    check_shape(2, 1, 2, 3, 3, 4);  /* T = 1, nh = 3, Dout != D */
    check_shape(1, 4, 6, 1, 2, 5);  /* Dout < D */
    check_zero_weights();
    check_attention_rows();
    check_errors();
    return test_summary();
}
