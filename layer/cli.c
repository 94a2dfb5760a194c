/* build/tlob: the layer's command-line tool.
 *   tlob layer  run forward (and backward with --dy) on .npy inputs
 *   tlob init   write initialised parameters as .npy files
 *   tlob bench  QKV-stage microbenchmark and whole-layer timings
 * Exit codes: 0 success, 1 runtime or file error (the file is named),
 * 2 usage error (the option is named). Every input is checked and the
 * output directory made before the device is touched; outputs replace old
 * files only once written in full (layer/host_file.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cli.h"
#include "host_file.h"
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
    "Defaults: NH 1, DOUT = D, math tf32, seed 0. Limits: D, DOUT and E = D * NH\n"
    "at most 4096; y and att at most 2^30 floats each; seed 0 to 2^64-1.\n"
    "Exit 0 done, 1 a file or runtime error (named), 2 a usage error.\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tlob: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", usage_text);
    return EXIT_USAGE;
}

/* Largest --dim, --out-dim and layer width E = D * NH `tlob` takes. At the
 * limit the parameters are about 1 GiB of host memory (in_proj alone is
 * 3 E^2 floats); TLOB's widest layer is D = 144 (FI-2010, docs/layer.md). */
#define CLI_MAX_WIDTH 4096
/* Largest output array (y, att) in floats: 4 GiB on the host and as
 * much on the device, each. */
#define CLI_MAX_OUTPUT_FLOATS (1ull << 30)

/* Parses a size option's value: digits only, at least 1, at most max; a
 * larger value is reported as over `limit`, the bound the user must meet. */
static int parse_size(const char *option, const char *text, long long max, long long limit,
                      long long *out) {
    const char *p = text;
    if (*p == '-' && p[1] >= '0' && p[1] <= '9') p++;
    if (*p == '\0') return usage_error("bad %s '%s': not a whole number", option, text);
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9') return usage_error("bad %s '%s': not a whole number", option, text);
    if (p != text) return usage_error("bad %s '%s': must be at least 1", option, text);
    errno = 0;
    const unsigned long long v = strtoull(text, NULL, 10);
    if (v < 1) return usage_error("bad %s '%s': must be at least 1", option, text);
    if (errno == ERANGE || v > (unsigned long long)max)
        return usage_error("bad %s '%s': more than the limit of %lld", option, text, limit);
    *out = (long long)v;
    return 0;
}

/* A seed is any number from 0 to 2^64-1, in decimal digits: strtoull alone
 * would take "-1" as 2^64-1 and " 5" as 5. */
static int parse_seed(const char *text, unsigned long long *out) {
    int digits = *text != '\0';
    for (const char *q = text; *q; q++) digits &= *q >= '0' && *q <= '9';
    errno = 0;
    if (digits) *out = strtoull(text, NULL, 10);
    if (!digits || errno == ERANGE)
        return usage_error("bad --seed '%s': not a whole number from 0 to %llu", text, ULLONG_MAX);
    return 0;
}

/* The message for getopt_long's '?' and ':' (opterr is 0, so getopt prints
 * nothing). argv[optind - 1] is not the offending word while getopt is
 * inside a cluster of short options ("-xy"), so a short option is named from
 * optopt; glibc sets optopt to 0 for an unknown or ambiguous long option and
 * to its val for a long option given a value it does not take. */
void tlob_option_problem(int c, char **argv, const struct option *longopts, char *out,
                         size_t size) {
    const char *word = argv[optind - 1];
    if (c == ':') {
        snprintf(out, size, "option '%s' needs a value", word);
        return;
    }
    if (optopt && strncmp(word, "--", 2) == 0) {
        snprintf(out, size, "option '%.*s' takes no value", (int)strcspn(word, "="), word);
        return;
    }
    if (optopt) {
        snprintf(out, size, "unknown option '-%c'", optopt);
        return;
    }
    const char *name = word + 2;
    const size_t len = strcspn(name, "=");
    char matches[256] = "";
    int n = 0;
    for (const struct option *o = longopts; o->name; o++) {
        if (strncmp(o->name, name, len) != 0) continue;
        const size_t used = strlen(matches);
        snprintf(matches + used, sizeof matches - used, "%s--%s", n++ ? ", " : "", o->name);
    }
    if (n > 1)
        snprintf(out, size, "ambiguous option '--%.*s' (%s)", (int)len, name, matches);
    else
        snprintf(out, size, "unknown option '--%.*s'", (int)len, name);
}

static int option_error(int c, char **argv, const struct option *longopts) {
    char problem[512];
    tlob_option_problem(c, argv, longopts, problem, sizeof problem);
    return usage_error("%s", problem);
}

static int fail(tlob_status st) {
    fprintf(stderr, "tlob: %s\n  %s\n", tlob_status_string(st), tlob_last_error());
    return 1;
}

static void *alloc_or_say(size_t bytes, const char *what) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) fprintf(stderr, "tlob: cannot allocate %zu bytes of host memory for %s\n", bytes, what);
    return p;
}

/* Makes sure path is a directory this process can create files in, making
 * it (not its parents) if it is missing: the output goes there only after
 * the work is done, and a mistake in the path must not cost that work. */
static int ensure_output_dir(const char *path) {
    struct stat sb;
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tlob: %s: cannot create the output directory: %s\n", path, strerror(errno));
        return 0;
    }
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "tlob: %s: cannot use the output directory: %s\n", path, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "tlob: %s: the output directory is %s\n", path,
                S_ISREG(sb.st_mode) ? "a regular file" : "not a directory");
        return 0;
    }
    /* A probe file, not access(2): access() judges by the real user and the
     * mode bits, and only creating a file shows that the writes will work. */
    char probe[PATH_MAX];
    if ((size_t)snprintf(probe, sizeof probe, "%s/.tlob-probe-XXXXXX", path) >= sizeof probe) {
        fprintf(stderr, "tlob: %s: path too long\n", path);
        return 0;
    }
    const int fd = mkstemp(probe);
    if (fd < 0) {
        fprintf(stderr, "tlob: %s: cannot create files in the output directory: %s\n", path,
                strerror(errno));
        return 0;
    }
    close(fd);
    unlink(probe);
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
    int c, rc = 0;
    long long dim = 0, heads = 1, out_dim = 0;
    while (!rc && (c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': rc = parse_size("--dim", optarg, CLI_MAX_WIDTH, CLI_MAX_WIDTH, &dim); break;
        /* The bound on the heads is the width's, E = D * NH (below): 20000
         * heads are too many because of D, not in themselves. */
        case 'n': rc = parse_size("--heads", optarg, LLONG_MAX, CLI_MAX_WIDTH, &heads); break;
        case 'o': rc = parse_size("--out-dim", optarg, CLI_MAX_WIDTH, CLI_MAX_WIDTH, &out_dim); break;
        case 'p': o->params = optarg; break;
        case 'x': o->x = optarg; break;
        case 'g': o->dy = optarg; break;
        case 'O': o->out = optarg; break;
        case 'm':
            if (tlob_math_parse(optarg, &o->math) != TLOB_OK)
                rc = usage_error("bad --math '%s' (tf32 or fp32)", optarg);
            break;
        case 's': rc = parse_seed(optarg, &o->seed); break;
        case 'h':
            fputs(usage_text, stdout);
            exit(0);
        default: rc = option_error(c, argv, longopts);
        }
    }
    if (rc) return rc;
    if (optind < argc) return usage_error("unexpected argument '%s'", argv[optind]);
    const struct { const char *name, *value; } paths[] = {
        {"--params", o->params}, {"--x", o->x}, {"--dy", o->dy}, {"--out", o->out}};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (paths[i].value && !*paths[i].value)
            return usage_error("option '%s' needs a value (it is empty)", paths[i].name);
    if (!dim) return usage_error("--dim is required");
    if (heads > CLI_MAX_WIDTH / dim) {
        if (heads > LLONG_MAX / dim)
            return usage_error("the layer width E = --dim * --heads = %lld * %lld is more than the "
                               "limit of %d", dim, heads, CLI_MAX_WIDTH);
        return usage_error("the layer width E = --dim * --heads = %lld * %lld = %lld is more than "
                           "the limit of %d", dim, heads, dim * heads, CLI_MAX_WIDTH);
    }
    o->dim = (int)dim;
    o->heads = (int)heads;
    o->out_dim = out_dim ? (int)out_dim : o->dim;
    if (!o->out) return usage_error("--out is required");
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
    const size_t len = strlen(o.out), ext = strlen(".safetensors");
    const int safetensors = len > ext && strcmp(o.out + len - ext, ".safetensors") == 0;
    if (!safetensors && !ensure_output_dir(o.out)) return 1;
    float *host = alloc_or_say(total * sizeof(float), "the parameters");
    if (!host) return 1;
    st = tlob_init_params_host(o.dim, o.heads, o.out_dim, o.seed, host);
    if (st == TLOB_OK)
        st = safetensors ? tlob_write_safetensors_host(o.out, o.dim, o.heads, o.out_dim, host)
                         : tlob_write_params_host(o.out, o.dim, o.heads, o.out_dim, host);
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

/* The files of one run (y, att, dx) are written in full before any of them
 * replaces an old one, so a failure leaves the old outputs as a set. */
typedef struct {
    host_file_out files[3];
    char paths[3][PATH_MAX]; /* files[i] refers to paths[i] */
    int n;
} output_set;

static int stage_output(output_set *set, const char *dir, const char *name, const float *data,
                        int ndim, const size_t *shape) {
    char *path = set->paths[set->n];
    if ((size_t)snprintf(path, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX) {
        fprintf(stderr, "tlob: %s/%s: path too long\n", dir, name);
        return 0;
    }
    const tlob_status st = npy_write_f32_pending(path, data, ndim, shape, &set->files[set->n]);
    if (st != TLOB_OK) {
        fail(st);
        return 0;
    }
    set->n++;
    return 1;
}

/* Renames every staged file (ok) or removes them all. */
static int finish_outputs(output_set *set, int ok) {
    for (int i = 0; i < set->n; i++) {
        if (!ok) {
            host_file_discard(&set->files[i]);
            continue;
        }
        const tlob_status st = host_file_rename(&set->files[i]);
        if (st != TLOB_OK) ok = !fail(st);
    }
    set->n = 0;
    return ok;
}

/* Whether dir/name.npy may be replaced (missing or a regular file). */
static int target_ok(const char *dir, const char *name) {
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s.npy", dir, name) >= sizeof path) {
        fprintf(stderr, "tlob: %s/%s.npy: path too long\n", dir, name);
        return 0;
    }
    const tlob_status st = host_file_check_target(path);
    return st == TLOB_OK || fail(st) == 0;
}

/* The output directory and, with --dy, its grad/ (created by
 * ensure_output_dir; grad_dir receives the path), and no output file in the
 * way, all before the device work whose results they will hold. */
static int prepare_outputs(const options *o, char *grad_dir, size_t len) {
    if (!ensure_output_dir(o->out) || !target_ok(o->out, "y") ||
        !target_ok(o->out, "att"))
        return 0;
    if (!o->dy) return 1;
    if ((size_t)snprintf(grad_dir, len, "%s/grad", o->out) >= len) {
        fprintf(stderr, "tlob: %s/grad: path too long\n", o->out);
        return 0;
    }
    if (!target_ok(o->out, "dx") || !ensure_output_dir(grad_dir)) return 0;
    tlob_tensor_info t[TLOB_NUM_TENSORS];
    size_t total;
    const tlob_status st = tlob_param_layout(o->dim, o->heads, o->out_dim, t, &total);
    if (st != TLOB_OK) return !fail(st);
    for (int i = 0; i < TLOB_NUM_TENSORS; i++)
        if (!target_ok(grad_dir, t[i].name)) return 0;
    return 1;
}

static int run_layer(const options *o, const npy_array *x, const npy_array *dy,
                     const float *params, const char *grad_dir) {
    const int B = (int)x->shape[0], T = (int)x->shape[1];
    const tlob_config cfg = {o->dim, o->heads, o->out_dim, T, B, o->math};
    tlob_layer *L;
    tlob_status st = tlob_create(&cfg, &L);
    if (st != TLOB_OK) return fail(st);
    run_buffers b = {0};
    const size_t nx = x->numel, ny = (size_t)B * T * o->out_dim,
                 natt = (size_t)B * o->heads * T * T;
    int ok = 0;
    float *host_y = alloc_or_say(ny * sizeof(float), "y"),
          *host_att = host_y ? alloc_or_say(natt * sizeof(float), "att") : NULL,
          *host_dx = host_att ? alloc_or_say(nx * sizeof(float), "dx") : NULL;
    if (!host_dx) goto done;
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
    if (dy && ((st = tlob_upload(L, b.dy, dy->data, ny)) != TLOB_OK ||
               (st = tlob_zero_grads(L)) != TLOB_OK ||
               (st = tlob_backward(L, b.x, b.dy, B, b.dx)) != TLOB_OK ||
               (st = tlob_download(L, host_dx, b.dx, nx)) != TLOB_OK))
        goto done;
    const size_t yshape[3] = {(size_t)B, (size_t)T, (size_t)o->out_dim};
    const size_t ashape[4] = {(size_t)B, (size_t)o->heads, (size_t)T, (size_t)T};
    static output_set outputs; /* 12 KiB of paths: not on the stack */
    const int staged = stage_output(&outputs, o->out, "y.npy", host_y, 3, yshape) &&
                 stage_output(&outputs, o->out, "att.npy", host_att, 4, ashape) &&
                 (!dy || stage_output(&outputs, o->out, "dx.npy", host_dx, 3, x->shape));
    if (staged && dy) st = tlob_save_grads(L, grad_dir);
    if (!finish_outputs(&outputs, staged && st == TLOB_OK)) goto done;
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

/* Refuses an output of more than CLI_MAX_OUTPUT_FLOATS before it is
 * allocated: a T of 40000 in a 640 KB x asks for a 6.4 GB attention map.
 * The count is a double: B * NH * T * T can exceed 2^64. */
static int output_fits(const options *o, const npy_array *x, const char *what, const char *by,
                       int by_value, double floats) {
    if (floats <= (double)CLI_MAX_OUTPUT_FLOATS) return 1;
    char got[128];
    npy_format_shape(got, sizeof got, x->ndim, x->shape);
    fprintf(stderr, "tlob: %s: shape %s with %s %d makes %s of %.0f floats, more than the limit "
            "of %llu\n", o->x, got, by, by_value, what, floats, CLI_MAX_OUTPUT_FLOATS);
    return 0;
}

static int cmd_layer(int argc, char **argv) {
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc;
    if (!o.params) return usage_error("--params is required");
    if (!o.x) return usage_error("--x is required");

    /* Every file is checked on the host, and the output directory made,
     * before the device is touched. */
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
    const double B = (double)x.shape[0], T = (double)x.shape[1];
    if (!output_fits(&o, &x, "y [B, T, DOUT]", "--out-dim", o.out_dim, B * T * o.out_dim) ||
        !output_fits(&o, &x, "att [B, NH, T, T]", "--heads", o.heads, B * o.heads * T * T)) {
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
    char grad_dir[PATH_MAX];
    st = tlob_param_layout(o.dim, o.heads, o.out_dim, t, &total);
    if (st != TLOB_OK) rc = fail(st);
    else if (!(params = alloc_or_say(total * sizeof(float), "the parameters"))) rc = 1;
    else if ((st = tlob_read_params_any(o.params, o.dim, o.heads, o.out_dim, params)) != TLOB_OK)
        rc = fail(st);
    else if (!prepare_outputs(&o, grad_dir, sizeof grad_dir)) rc = 1;
    else rc = run_layer(&o, &x, o.dy ? &dy : NULL, params, grad_dir);
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
