/* build/tlob: the layer's command-line tool.
 *   tlob layer  run forward (and backward with --dy) on .npy inputs
 *   tlob init   write initialised parameters as .npy files
 *   tlob bench  QKV-stage microbenchmark and whole-layer timings
 * Exit codes: 0 success, 1 runtime or file error (the file is named),
 * 2 usage error. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cuda_runtime_api.h>

#include "cli.h"
#include "npy.h"
#include "tlob.h"

#define EXIT_USAGE 2

static const char usage_text[] =
    "usage: tlob layer --dim D [--heads NH] [--out-dim DOUT] --params DIR|FILE --x X.npy\n"
    "                  [--dy DY.npy] --out DIR [--math tf32|fp32]\n"
    "       tlob init --dim D [--heads NH] [--out-dim DOUT] [--seed N] --out DIR|FILE\n"
    "       tlob bench [--json] [--iters N]\n"
    "       tlob --help\n"
    "\n"
    "layer  runs TransformerLayer(D, NH, DOUT) on x [B, T, D] with the parameters\n"
    "       DIR/<name>.npy (published names, float32, C order) or those of the\n"
    "       safetensors FILE (published names, F32), and writes\n"
    "       OUT/y.npy [B, T, DOUT] and OUT/att.npy [B, NH, T, T]; with --dy\n"
    "       [B, T, DOUT] also OUT/dx.npy and OUT/grad/<name>.npy.\n"
    "init   writes the reference's default initialisation (seeded) to OUT/, or\n"
    "       to the safetensors file OUT when OUT ends in .safetensors.\n"
    "bench  times the QKV projection stage (3 cublasSgemm vs 1 strided-batched)\n"
    "       and the whole layer at TLOB's reference sizes, after validating both.\n"
    "Defaults: NH 1, DOUT = D, math tf32, seed 0.\n";

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "tlob: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    return EXIT_USAGE;
}

static int parse_int(const char *text, int lo, int hi, int *out) {
    char *end;
    errno = 0;
    const long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) return 0;
    *out = (int)v;
    return 1;
}

static int fail(tlob_status st) {
    fprintf(stderr, "tlob: %s\n  %s\n", tlob_status_string(st), tlob_last_error());
    return 1;
}

static int make_dir(const char *path) {
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tlob: %s: cannot create directory: %s\n", path, strerror(errno));
        return 0;
    }
    return 1;
}

typedef struct {
    int dim, heads, out_dim;
    unsigned long long seed;
    const char *params, *x, *dy, *out;
    tlob_math math;
} options;

/* Parses the options shared by `layer` and `init`; returns 0 or an exit code. */
static int parse_options(int argc, char **argv, options *o) {
    static const struct option longopts[] = {
        {"dim", required_argument, 0, 'd'},     {"heads", required_argument, 0, 'n'},
        {"out-dim", required_argument, 0, 'o'}, {"params", required_argument, 0, 'p'},
        {"x", required_argument, 0, 'x'},       {"dy", required_argument, 0, 'g'},
        {"out", required_argument, 0, 'O'},     {"math", required_argument, 0, 'm'},
        {"seed", required_argument, 0, 's'},    {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->heads = 1;
    o->math = TLOB_MATH_TF32;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (!parse_int(optarg, 1, 65536, &o->dim)) return usage_error("bad --dim '%s'", optarg);
            break;
        case 'n':
            if (!parse_int(optarg, 1, 65536, &o->heads))
                return usage_error("bad --heads '%s'", optarg);
            break;
        case 'o':
            if (!parse_int(optarg, 1, 65536, &o->out_dim))
                return usage_error("bad --out-dim '%s'", optarg);
            break;
        case 'p': o->params = optarg; break;
        case 'x': o->x = optarg; break;
        case 'g': o->dy = optarg; break;
        case 'O': o->out = optarg; break;
        case 'm':
            if (tlob_math_parse(optarg, &o->math) != TLOB_OK)
                return usage_error("bad --math '%s' (tf32 or fp32)", optarg);
            break;
        case 's': {
            char *end;
            errno = 0;
            o->seed = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end) return usage_error("bad --seed '%s'", optarg);
            break;
        }
        case 'h':
            fputs(usage_text, stdout);
            exit(0);
        case ':': return usage_error("option %s needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return usage_error("unexpected argument '%s'", argv[optind]);
    if (!o->dim) return usage_error("%s", "--dim is required");
    if (!o->out_dim) o->out_dim = o->dim;
    if (!o->out) return usage_error("%s", "--out is required");
    return 0;
}

static int cmd_init(int argc, char **argv) {
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc;
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total;
    tlob_status st = tlob_param_layout(o.dim, o.heads, o.out_dim, t, &total);
    if (st != TLOB_OK) return fail(st);
    float *host = malloc(total * sizeof(float));
    if (!host) return fail(TLOB_ERR_OUT_OF_MEMORY);
    st = tlob_init_params_host(o.dim, o.heads, o.out_dim, o.seed, host);
    const size_t len = strlen(o.out), ext = strlen(".safetensors");
    if (st == TLOB_OK && len > ext && strcmp(o.out + len - ext, ".safetensors") == 0) {
        st = tlob_write_safetensors_host(o.out, o.dim, o.heads, o.out_dim, host);
        free(host);
        return st == TLOB_OK ? 0 : fail(st);
    }
    if (st == TLOB_OK && !make_dir(o.out)) {
        free(host);
        return 1;
    }
    if (st == TLOB_OK) st = tlob_write_params_host(o.out, o.dim, o.heads, o.out_dim, host);
    free(host);
    return st == TLOB_OK ? 0 : fail(st);
}

/* Device buffers of one `tlob layer` run. */
typedef struct {
    float *x, *y, *att, *dy, *dx;
} run_buffers;

static void free_buffers(run_buffers *b) {
    /* Teardown: nothing useful to do with a failed free. */
    (void)cudaFree(b->x);
    (void)cudaFree(b->y);
    (void)cudaFree(b->att);
    (void)cudaFree(b->dy);
    (void)cudaFree(b->dx);
}

static int write_output(const char *dir, const char *name, const float *data, int ndim,
                        const size_t *shape) {
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
        fprintf(stderr, "tlob: %s/%s: path too long\n", dir, name);
        return 0;
    }
    const tlob_status st = npy_write_f32(path, data, ndim, shape);
    if (st != TLOB_OK) {
        fail(st);
        return 0;
    }
    return 1;
}

static int run_layer(const options *o, const npy_array *x, const npy_array *dy,
                     const float *params) {
    const int B = (int)x->shape[0], T = (int)x->shape[1];
    const tlob_config cfg = {o->dim, o->heads, o->out_dim, T, B, o->math};
    tlob_layer *L;
    tlob_status st = tlob_create(&cfg, &L);
    if (st != TLOB_OK) return fail(st);
    run_buffers b = {0};
    const size_t nx = x->numel, ny = (size_t)B * T * o->out_dim,
                 natt = (size_t)B * o->heads * T * T;
    int ok = 0;
    float *host_y = malloc(ny * sizeof(float)), *host_att = malloc(natt * sizeof(float)),
          *host_dx = malloc(nx * sizeof(float));
    if (!host_y || !host_att || !host_dx) {
        st = TLOB_ERR_OUT_OF_MEMORY;
        goto done;
    }
    if (cudaMalloc((void **)&b.x, nx * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&b.y, ny * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&b.att, natt * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&b.dy, ny * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&b.dx, nx * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "tlob: cudaMalloc of the input/output buffers failed\n");
        goto done;
    }
    if ((st = tlob_upload(L, tlob_params(L), params, tlob_num_params(L))) != TLOB_OK ||
        (st = tlob_upload(L, b.x, x->data, nx)) != TLOB_OK ||
        (st = tlob_forward(L, b.x, B, b.y, b.att)) != TLOB_OK ||
        (st = tlob_download(L, host_y, b.y, ny)) != TLOB_OK ||
        (st = tlob_download(L, host_att, b.att, natt)) != TLOB_OK)
        goto done;
    const size_t yshape[3] = {(size_t)B, (size_t)T, (size_t)o->out_dim};
    const size_t ashape[4] = {(size_t)B, (size_t)o->heads, (size_t)T, (size_t)T};
    if (!make_dir(o->out) || !write_output(o->out, "y.npy", host_y, 3, yshape) ||
        !write_output(o->out, "att.npy", host_att, 4, ashape))
        goto done;
    if (dy) {
        if ((st = tlob_upload(L, b.dy, dy->data, ny)) != TLOB_OK ||
            (st = tlob_zero_grads(L)) != TLOB_OK ||
            (st = tlob_backward(L, b.x, b.dy, B, b.dx)) != TLOB_OK ||
            (st = tlob_download(L, host_dx, b.dx, nx)) != TLOB_OK)
            goto done;
        char grad_dir[PATH_MAX];
        if ((size_t)snprintf(grad_dir, sizeof grad_dir, "%s/grad", o->out) >= sizeof grad_dir) {
            fprintf(stderr, "tlob: %s/grad: path too long\n", o->out);
            goto done;
        }
        if (!write_output(o->out, "dx.npy", host_dx, 3, x->shape) || !make_dir(grad_dir))
            goto done;
        if ((st = tlob_save_grads(L, grad_dir)) != TLOB_OK) goto done;
    }
    ok = 1;
done:
    free(host_y);
    free(host_att);
    free(host_dx);
    free_buffers(&b);
    tlob_destroy(L);
    if (!ok && st != TLOB_OK) return fail(st);
    return ok ? 0 : 1;
}

static int cmd_layer(int argc, char **argv) {
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc;
    if (!o.params) return usage_error("%s", "--params is required");
    if (!o.x) return usage_error("%s", "--x is required");

    /* Every file is checked on the host before the device is touched. */
    npy_array x = {0}, dy = {0};
    tlob_status st = npy_read_f32(o.x, &x);
    if (st != TLOB_OK) return fail(st);
    if (x.ndim != 3 || x.shape[2] != (size_t)o.dim || x.shape[0] < 1 || x.shape[1] < 1 ||
        x.shape[0] > INT_MAX || x.shape[1] > 65536) {
        char got[128];
        npy_format_shape(got, sizeof got, x.ndim, x.shape);
        fprintf(stderr, "tlob: %s: shape %s, expected (B, T, %d) with B, T >= 1\n", o.x, got,
                o.dim);
        npy_free(&x);
        return 1;
    }
    if (o.dy) {
        const size_t want[3] = {x.shape[0], x.shape[1], (size_t)o.out_dim};
        st = npy_read_f32_shape(o.dy, 3, want, &dy);
        if (st != TLOB_OK) {
            npy_free(&x);
            return fail(st);
        }
    }
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total;
    float *params = NULL;
    st = tlob_param_layout(o.dim, o.heads, o.out_dim, t, &total);
    if (st == TLOB_OK && !(params = malloc(total * sizeof(float)))) st = TLOB_ERR_OUT_OF_MEMORY;
    if (st == TLOB_OK) st = tlob_read_params_any(o.params, o.dim, o.heads, o.out_dim, params);
    rc = st == TLOB_OK ? run_layer(&o, &x, o.dy ? &dy : NULL, params) : fail(st);
    free(params);
    npy_free(&x);
    npy_free(&dy);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "tlob: a command is required\n%s", usage_text);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "layer") == 0) return cmd_layer(argc - 1, argv + 1);
    if (strcmp(cmd, "init") == 0) return cmd_init(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) return tlob_bench_main(argc - 1, argv + 1);
    fprintf(stderr, "tlob: unknown command '%s'\n%s", cmd, usage_text);
    return EXIT_USAGE;
}
