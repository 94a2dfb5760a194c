/* What bounds the layer on this GPU: the per-node cost of a CUDA graph, the
 * time of memory-bound kernels at the layer's tensor sizes, one cuBLAS GEMM
 * of the layer's shape, and the layer's own graph node by node.
 *
 *   build/tests/gpu/launch_floor [DOTFILE [B [T D]]]
 *
 * Every time is a median over repeated measurements with CUDA events around
 * many back-to-back graph replays (the GPU never waits for the host inside a
 * measured interval), except "single launch", which records an event, launches
 * one graph and waits, the way `tlob bench` times one layer call. The layer
 * part captures tlob_forward (+ tlob_backward) at BTC temporal (B=128, T=128,
 * D=40, TF32, AUTO paths; B given: that many samples, e.g. 1 for one
 * inference; T and D given: that shape, Dout = D, and only the layer's
 * graphs, e.g. 128 40 128 for feature BTC) and reports, per node of the captured chain, its
 * marginal time (graph of the first k nodes minus the first k-1) and its time
 * alone (the node repeated 16 times as child graphs). DOTFILE receives the
 * graph with kernel names (cudaGraphDebugDotPrint). */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "tlob.h"

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "launch_floor: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,   \
                    cudaGetErrorString(e_));                                              \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)
#define CKB(call)                                                                         \
    do {                                                                                  \
        cublasStatus_t s_ = (call);                                                       \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                \
            fprintf(stderr, "launch_floor: %s:%d: %s: cuBLAS status %d\n", __FILE__,      \
                    __LINE__, #call, (int)s_);                                            \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)
#define CKT(call)                                                                         \
    do {                                                                                  \
        tlob_status t_ = (call);                                                          \
        if (t_ != TLOB_OK) {                                                              \
            fprintf(stderr, "launch_floor: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,   \
                    tlob_last_error());                                                   \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

__global__ void empty_kernel() {}

/* y = a x + b over n floats, float4, grid-stride. */
__global__ void axpb_kernel(const float4 *x, float4 *y, int n4, float a, float b) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        float4 v = x[i];
        y[i] = make_float4(a * v.x + b, a * v.y + b, a * v.z + b, a * v.w + b);
    }
}

/* y = b (write only: a bias fill). */
__global__ void fill_kernel(float4 *y, int n4, float b) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x)
        y[i] = make_float4(b, b, b, b);
}

static cudaStream_t stream;

/* Median over `reps` intervals of `inner` back-to-back replays, per replay (us). */
static double replay_us(cudaGraphExec_t exec, int inner, int reps) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 3; i++) CK(cudaGraphLaunch(exec, stream));
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(e0, stream));
        for (int i = 0; i < inner; i++) CK(cudaGraphLaunch(exec, stream));
        CK(cudaEventRecord(e1, stream));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(1e3 * ms / inner);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/* Median of event-record, one launch, event-record, wait (bench's method). */
static double single_us(cudaGraphExec_t exec, int reps) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> t;
    for (int r = -10; r < reps; r++) {
        CK(cudaEventRecord(e0, stream));
        CK(cudaGraphLaunch(exec, stream));
        CK(cudaEventRecord(e1, stream));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) t.push_back(1e3 * ms);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <class F> static cudaGraphExec_t capture(F enqueue) {
    cudaGraph_t g;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    enqueue();
    CK(cudaStreamEndCapture(stream, &g));
    CK(cudaGraphInstantiate(&exec, g, 0));
    CK(cudaGraphDestroy(g));
    return exec;
}

static cudaGraphExec_t instantiate(cudaGraph_t g) {
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    return exec;
}

/* The nodes of a captured single-stream graph in chain order (exits when the
 * graph is not a chain). */
static std::vector<cudaGraphNode_t> chain_nodes(cudaGraph_t g) {
    size_t n = 0;
    CK(cudaGraphGetRootNodes(g, NULL, &n));
    if (n != 1) {
        fprintf(stderr, "launch_floor: graph has %zu roots, not a chain\n", n);
        exit(1);
    }
    std::vector<cudaGraphNode_t> out(1);
    CK(cudaGraphGetRootNodes(g, out.data(), &n));
    for (;;) {
        size_t d = 0;
        CK(cudaGraphNodeGetDependentNodes(out.back(), NULL, NULL, &d));
        if (d == 0) break;
        if (d != 1) {
            fprintf(stderr, "launch_floor: a node with %zu dependents, not a chain\n", d);
            exit(1);
        }
        cudaGraphNode_t next;
        CK(cudaGraphNodeGetDependentNodes(out.back(), &next, NULL, &d));
        out.push_back(next);
    }
    return out;
}

/* A clone of g keeping only the chain nodes [lo, hi). */
static cudaGraph_t keep_range(cudaGraph_t g, const std::vector<cudaGraphNode_t> &nodes, size_t lo,
                              size_t hi) {
    cudaGraph_t c;
    CK(cudaGraphClone(&c, g));
    for (size_t i = 0; i < nodes.size(); i++) {
        if (i >= lo && i < hi) continue;
        cudaGraphNode_t cn;
        CK(cudaGraphNodeFindInClone(&cn, nodes[i], c));
        CK(cudaGraphDestroyNode(cn));
    }
    return c;
}

static const char *node_desc(cudaGraphNode_t n, char *buf, size_t len) {
    cudaGraphNodeType type;
    CK(cudaGraphNodeGetType(n, &type));
    if (type != cudaGraphNodeTypeKernel) {
        snprintf(buf, len, "(node type %d)", (int)type);
        return buf;
    }
    cudaKernelNodeParams p;
    /* cuBLAS's kernels are not runtime functions of this program: the
     * runtime cannot describe them (their names are in DOTFILE) */
    if (cudaGraphKernelNodeGetParams(n, &p) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(buf, len, "(a library kernel: see the dot file)");
        return buf;
    }
    const char *name = NULL;
    if (cudaFuncGetName(&name, p.func) != cudaSuccess || !name) {
        (void)cudaGetLastError();
        name = "?";
    }
    snprintf(buf, len, "grid %ux%ux%u block %ux%ux%u smem %u  %.70s", p.gridDim.x, p.gridDim.y,
             p.gridDim.z, p.blockDim.x, p.blockDim.y, p.blockDim.z, p.sharedMemBytes, name);
    return buf;
}

static void layer_graph(int with_bwd, const char *dot, int B, int T, int D) {
    tlob_config cfg = {D, 1, D, T, B, TLOB_MATH_TF32};
    tlob_layer *L;
    CKT(tlob_create(&cfg, &L));
    CKT(tlob_set_stream(L, stream));
    CKT(tlob_init_params(L, 1234));
    const size_t nx = (size_t)B * T * D, na = (size_t)B * T * T;
    std::vector<float> hx(nx);
    unsigned seed = 5;
    for (auto &v : hx) v = (float)rand_r(&seed) / RAND_MAX * 2.0f - 1.0f;
    float *x, *y, *att, *dy, *dx;
    CK(cudaMalloc(&x, nx * 4));
    CK(cudaMalloc(&y, nx * 4));
    CK(cudaMalloc(&att, na * 4));
    CK(cudaMalloc(&dy, nx * 4));
    CK(cudaMalloc(&dx, nx * 4));
    CKT(tlob_upload(L, x, hx.data(), nx));
    CKT(tlob_upload(L, dy, hx.data(), nx));
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    CKT(tlob_forward(L, x, B, y, att));
    if (with_bwd) CKT(tlob_backward(L, x, dy, B, dx));
    CK(cudaStreamEndCapture(stream, &g));
    if (dot) CK(cudaGraphDebugDotPrint(g, dot, cudaGraphDebugDotFlagsKernelNodeParams));
    cudaGraphExec_t whole = instantiate(g);
    printf("\n== layer B=%d T=%d D=%d tf32, %s\n", B, T, D,
           with_bwd ? "forward+backward" : "forward");
    printf("whole graph: back-to-back %.1f us, single launch %.1f us\n",
           replay_us(whole, 20, 25), single_us(whole, 200));
    CK(cudaGraphExecDestroy(whole));
    std::vector<cudaGraphNode_t> nodes = chain_nodes(g);
    printf("%zu nodes; per node: marginal (first k minus first k-1, back-to-back), alone "
           "(16 copies chained, per copy)\n",
           nodes.size());
    double prev = 0.0, sum_alone = 0.0;
    for (size_t k = 0; k < nodes.size(); k++) {
        cudaGraph_t pre = keep_range(g, nodes, 0, k + 1);
        cudaGraphExec_t pe = instantiate(pre);
        const double t = replay_us(pe, 20, 15);
        CK(cudaGraphExecDestroy(pe));
        CK(cudaGraphDestroy(pre));
        cudaGraph_t one = keep_range(g, nodes, k, k + 1), rep;
        CK(cudaGraphCreate(&rep, 0));
        cudaGraphNode_t last = NULL;
        for (int r = 0; r < 16; r++) {
            cudaGraphNode_t n;
            CK(cudaGraphAddChildGraphNode(&n, rep, last ? &last : NULL, last ? 1 : 0, one));
            last = n;
        }
        cudaGraphExec_t re = instantiate(rep);
        const double alone = replay_us(re, 5, 15) / 16;
        CK(cudaGraphExecDestroy(re));
        CK(cudaGraphDestroy(rep));
        CK(cudaGraphDestroy(one));
        sum_alone += alone;
        char buf[200];
        printf("%3zu  marginal %6.2f  alone %6.2f  %s\n", k, t - prev, alone,
               node_desc(nodes[k], buf, sizeof buf));
        prev = t;
    }
    printf("sum of alone: %.1f us\n", sum_alone);
    CK(cudaGraphDestroy(g));
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(att));
    CK(cudaFree(dy));
    CK(cudaFree(dx));
    tlob_destroy(L);
}

int main(int argc, char **argv) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIP launch_floor: no CUDA device\n");
        return 0;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20);
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const int B = argc > 2 ? atoi(argv[2]) : 128;
    const int T = argc > 4 ? atoi(argv[3]) : 128, D = argc > 4 ? atoi(argv[4]) : 40;
    if (B < 1 || T < 1 || D < 1 || argc == 4 || argc > 5) {
        fprintf(stderr, "launch_floor: usage: launch_floor [DOTFILE [B [T D]]] (B, T, D >= 1)\n");
        return 2;
    }
    const char *dot = argc > 1 && argv[1][0] ? argv[1] : NULL;
    if (argc > 4) { /* the layer's graphs of this shape alone */
        layer_graph(0, NULL, B, T, D);
        layer_graph(1, dot, B, T, D);
        return 0;
    }

    printf("\n== empty kernels (1 block of 32 threads), a chain of n graph nodes\n");
    double t_empty[3];
    const int ns[3] = {1, 16, 64};
    for (int i = 0; i < 3; i++) {
        cudaGraphExec_t e = capture([&] {
            for (int k = 0; k < ns[i]; k++) empty_kernel<<<1, 32, 0, stream>>>();
            CK(cudaGetLastError());
        });
        t_empty[i] = replay_us(e, 50, 21);
        printf("n=%2d: %.2f us a replay back-to-back, single launch %.2f us\n", ns[i], t_empty[i],
               single_us(e, 200));
        CK(cudaGraphExecDestroy(e));
    }
    printf("per node in a chain: %.2f us\n", (t_empty[2] - t_empty[1]) / 48);
    {
        cudaGraphExec_t e = capture([&] {
            for (int k = 0; k < 64; k++) empty_kernel<<<132 * 8, 256, 0, stream>>>();
            CK(cudaGetLastError());
        });
        printf("64 empty kernels of 1056 blocks x 256: %.2f us a node\n", replay_us(e, 20, 21) / 64);
        CK(cudaGraphExecDestroy(e));
    }

    printf("\n== elementwise kernels, 16 chained graph nodes, float4 grid-stride\n");
    const size_t sizes[2] = {655360, 2097152}; /* 2.6 MB ([16384, 40]), 8.4 MB ([128,128,128]) */
    float *a, *b;
    CK(cudaMalloc(&a, 2097152 * 4));
    CK(cudaMalloc(&b, 2097152 * 4));
    CK(cudaMemset(a, 0, 2097152 * 4));
    CK(cudaMemset(b, 0, 2097152 * 4));
    for (int s = 0; s < 2; s++) {
        const int n4 = (int)(sizes[s] / 4);
        const int blocks_opts[3] = {132, 132 * 4, std::min(132 * 16, (n4 + 255) / 256)};
        for (int bo = 0; bo < 3; bo++) {
            const int blocks = blocks_opts[bo];
            cudaGraphExec_t e = capture([&] {
                for (int k = 0; k < 16; k++)
                    axpb_kernel<<<blocks, 256, 0, stream>>>((const float4 *)(k % 2 ? b : a),
                                                            (float4 *)(k % 2 ? a : b), n4, 0.5f,
                                                            1.0f);
                CK(cudaGetLastError());
            });
            const double t = replay_us(e, 10, 21) / 16;
            printf("axpb %.1f MB in + out, %4d blocks: %.2f us a node (%.0f GB/s)\n",
                   sizes[s] * 4e-6, blocks, t, 2 * sizes[s] * 4 / (t * 1e3));
            CK(cudaGraphExecDestroy(e));
            e = capture([&] {
                for (int k = 0; k < 16; k++)
                    fill_kernel<<<blocks, 256, 0, stream>>>((float4 *)(k % 2 ? b : a), n4, 1.0f);
                CK(cudaGetLastError());
            });
            const double tf = replay_us(e, 10, 21) / 16;
            printf("fill %.1f MB out,      %4d blocks: %.2f us a node (%.0f GB/s)\n",
                   sizes[s] * 4e-6, blocks, tf, sizes[s] * 4 / (tf * 1e3));
            CK(cudaGraphExecDestroy(e));
        }
    }

    printf("\n== cuBLAS TF32 GEMMs, 16 chained graph nodes\n");
    cublasHandle_t h;
    CKB(cublasCreate(&h));
    void *ws;
    CK(cudaMalloc(&ws, 32 << 20));
    CKB(cublasSetStream(h, stream));
    CKB(cublasSetWorkspace(h, ws, 32 << 20));
    CKB(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    float *X, *W, *Y;
    const int N = 16384;
    CK(cudaMalloc(&X, (size_t)N * 160 * 4));
    CK(cudaMalloc(&W, 160 * 160 * 4));
    CK(cudaMalloc(&Y, (size_t)N * 160 * 4));
    CK(cudaMemset(X, 0, (size_t)N * 160 * 4));
    CK(cudaMemset(W, 0, 160 * 160 * 4));
    const float one = 1.0f, zero = 0.0f;
    struct { const char *what; int in, out, batch; } gemms[] = {
        {"y[16384,120] = x[16384,40] W[120,40]^T", 40, 120, 1},
        {"y[3][16384,40] = x[16384,40] W[3][40,40]^T (strided batch 3)", 40, 40, 3},
        {"y[16384,40] = x[16384,40] W[40,40]^T", 40, 40, 1},
        {"y[16384,160] = x[16384,40] W[160,40]^T", 40, 160, 1},
        {"y[16384,40] = x[16384,160] W[40,160]^T", 160, 40, 1},
    };
    for (auto &gm : gemms) {
        cudaGraphExec_t e = capture([&] {
            for (int k = 0; k < 16; k++) {
                if (gm.batch == 1)
                    CKB(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, gm.out, N, gm.in, &one, W, gm.in,
                                    X, gm.in, &zero, Y, gm.out));
                else
                    CKB(cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, gm.out, N, gm.in,
                                                  &one, W, gm.in, (long long)gm.out * gm.in, X,
                                                  gm.in, 0, &zero, Y, gm.out,
                                                  (long long)N * gm.out, gm.batch));
            }
        });
        const double t = replay_us(e, 10, 21) / 16;
        const double bytes = 4.0 * N * (gm.in + gm.out * gm.batch);
        printf("%-62s %.2f us a node (%.0f GB/s over x and y)\n", gm.what, t, bytes / (t * 1e3));
        CK(cudaGraphExecDestroy(e));
    }
    CKB(cublasDestroy(h));
    CK(cudaFree(ws));
    CK(cudaFree(X));
    CK(cudaFree(W));
    CK(cudaFree(Y));
    CK(cudaFree(a));
    CK(cudaFree(b));

    /* DOTFILE gets the forward+backward graph (the forward is its first part) */
    layer_graph(0, NULL, B, T, D);
    layer_graph(1, dot, B, T, D);
    return 0;
}
