/* The TLOB TransformerLayer(D, nh, Dout) on one CUDA device: forward and
 * backward over x [B, T, D] with cuBLAS and our own kernels.
 * The maths, shapes and parameter names are those of the published PyTorch
 * layer (docs/layer.md); parameters load and save by their published names.
 *
 * Usable from C and from CUDA C++. Every function returns a tlob_status; the
 * library never exits. tlob_status_string() names a status and
 * tlob_last_error() gives the detail (file and line of the failing call) of the
 * most recent failure in the calling thread.
 *
 * Device pointers: x, y, att, dy, dx passed to tlob_forward/tlob_backward are
 * device memory (cudaMalloc) holding row-major float32 tensors. Host data
 * reaches the device only through tlob_upload (a mapped pinned buffer and a
 * device-to-device copy).
 *
 * Streams and threads. Every layer owns its cuBLAS handle, workspace, staging
 * buffer and a stream of its own; tlob_set_stream moves its work to the
 * caller's stream (e.g. the one PyTorch is using). Layers share no state, so:
 *  - different layers may be used at the same time from different threads,
 *    on the same or different streams;
 *  - one layer is used by one thread at a time: calls on the same layer must
 *    not overlap (the caller serialises them; PyTorch's forward on the main
 *    thread and backward on its autograd thread follow one another, which is
 *    fine);
 *  - the host-only functions (layout, status, .npy and safetensors files) are
 *    safe from any thread, and tlob_last_error() is per thread.
 * The layer runs on the CUDA device current when tlob_create was called. */
#ifndef TLOB_H
#define TLOB_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the forward/backward dispatch functions: gpulint's no-cpu-compute rule
 * checks that they (and everything they call on the host) do no floating-point
 * work in loops. Only clang (and libclang, which gpulint uses) knows the
 * annotate attribute; GCC would warn about it. */
#if defined(__clang__)
#define TLOB_HOT __attribute__((annotate("gpulint:hot")))
#else
#define TLOB_HOT
#endif

/* The library's API: the only symbols libtlob.so exports (it is built with
 * hidden visibility by default). */
#define TLOB_API __attribute__((visibility("default")))

typedef enum {
    TLOB_OK = 0,
    TLOB_ERR_INVALID_ARGUMENT, /* a null pointer, a size out of range */
    TLOB_ERR_NO_DEVICE,        /* no CUDA driver or device, or cuBLAS cannot start */
    TLOB_ERR_CUDA,             /* a CUDA runtime call failed */
    TLOB_ERR_CUBLAS,           /* a cuBLAS call failed */
    TLOB_ERR_OUT_OF_MEMORY,    /* host allocation failed */
    TLOB_ERR_IO,               /* a file could not be opened, read or written */
    TLOB_ERR_FORMAT,           /* a file is not a float32 C-order .npy file */
    TLOB_ERR_SHAPE,            /* a tensor has the wrong shape */
    TLOB_ERR_UNSUPPORTED       /* this build lacks the feature (see tlob_last_error) */
} tlob_status;

/* The name of a status, e.g. "TLOB_ERR_SHAPE: tensor has the wrong shape". */
TLOB_API const char *tlob_status_string(tlob_status status);

/* Detail of the last failure in this thread ("" if none): what failed, where. */
TLOB_API const char *tlob_last_error(void);

typedef enum {
    TLOB_MATH_TF32 = 0, /* cuBLAS TF32 tensor-op math for the GEMMs, except the
                           backward's data gradients into the attention (FP32:
                           docs/layer.md, Numerics) */
    TLOB_MATH_FP32 = 1  /* strict FP32 GEMMs */
} tlob_math;

/* Parses "tf32" or "fp32". */
TLOB_API tlob_status tlob_math_parse(const char *text, tlob_math *math);

typedef struct {
    int dim;       /* D: features per token, and each head's width */
    int heads;     /* nh: E = D * nh */
    int out_dim;   /* Dout */
    int seq_len;   /* T: tokens per sample */
    int max_batch; /* the largest B forward/backward will be called with */
    tlob_math math;
} tlob_config;

/* ---- Flat parameter layout (host-only, needs no device) ---------------- */

#define TLOB_NUM_TENSORS 20
#define TLOB_MAX_NAME 32

typedef enum {
    TLOB_NORM_W = 0, TLOB_NORM_B,
    TLOB_QKV_Q_W, TLOB_QKV_K_W, TLOB_QKV_V_W,
    TLOB_QKV_Q_B, TLOB_QKV_K_B, TLOB_QKV_V_B,
    TLOB_IN_PROJ_W, TLOB_IN_PROJ_B,
    TLOB_OUT_PROJ_W, TLOB_OUT_PROJ_B,
    TLOB_MLP_LN_W, TLOB_MLP_LN_B,
    TLOB_FC_W, TLOB_FC_B,
    TLOB_FC2_W, TLOB_FC2_B,
    TLOB_W0_W, TLOB_W0_B
} tlob_tensor_id;

typedef struct {
    char name[TLOB_MAX_NAME]; /* published state_dict name, e.g. "qkv.q.weight" */
    size_t offset;            /* in floats, from the start of the flat buffer */
    size_t numel;
    int ndim;                 /* 1 or 2 */
    int shape[2];
} tlob_tensor_info;

/* Fills the TLOB_NUM_TENSORS entries of `tensors` (in tlob_tensor_id order,
 * packed without gaps) and the total float count for TransformerLayer(dim,
 * heads, out_dim). Gradients use the same layout. */
TLOB_API tlob_status tlob_param_layout(int dim, int heads, int out_dim,
                              tlob_tensor_info tensors[TLOB_NUM_TENSORS],
                              size_t *total);

/* Host-only parameter helpers, on a flat host buffer of the layout above. */

/* The reference's default initialisation from a seed (see tlob_init_params). */
TLOB_API tlob_status tlob_init_params_host(int dim, int heads, int out_dim, uint64_t seed, float *host);
/* Reads DIR/<name>.npy for every parameter, checking dtype and shape; the
 * error names the file. */
TLOB_API tlob_status tlob_read_params_host(const char *dir, int dim, int heads, int out_dim, float *host);
/* Writes DIR/<name>.npy for every tensor of `host`; DIR must exist. */
TLOB_API tlob_status tlob_write_params_host(const char *dir, int dim, int heads, int out_dim,
                                   const float *host);
/* Reads every parameter by its published name from a safetensors file (the
 * format PyTorch users exchange weights in): dtype F32, the published shape;
 * other tensors in the file are ignored. The error names the file and the
 * tensor. TLOB_ERR_UNSUPPORTED when the library was built without jansson. */
TLOB_API tlob_status tlob_read_safetensors_host(const char *path, int dim, int heads, int out_dim,
                                       float *host);
/* Writes every tensor of `host` to a safetensors file, by published name. */
TLOB_API tlob_status tlob_write_safetensors_host(const char *path, int dim, int heads, int out_dim,
                                        const float *host);
/* tlob_read_params_host when `path` is a directory, else
 * tlob_read_safetensors_host. */
TLOB_API tlob_status tlob_read_params_any(const char *path, int dim, int heads, int out_dim,
                                 float *host);

/* ---- Layer lifetime ----------------------------------------------------- */

typedef struct tlob_layer tlob_layer;

/* Creates a layer (parameters zero; call tlob_init_params or
 * tlob_load_params). Returns TLOB_ERR_NO_DEVICE when CUDA or cuBLAS is
 * unavailable. */
TLOB_API tlob_status tlob_create(const tlob_config *config, tlob_layer **layer);
TLOB_API void tlob_destroy(tlob_layer *layer);

TLOB_API const tlob_config *tlob_get_config(const tlob_layer *layer);
TLOB_API const tlob_tensor_info *tlob_tensors(const tlob_layer *layer);
TLOB_API size_t tlob_num_params(const tlob_layer *layer);
/* Device pointers to the flat parameter and gradient buffers. */
TLOB_API float *tlob_params(tlob_layer *layer);
TLOB_API float *tlob_grads(tlob_layer *layer);
/* The stream the layer runs on: its own until tlob_set_stream. */
TLOB_API cudaStream_t tlob_stream(const tlob_layer *layer);
/* Runs the layer's later work on `stream` (0: the legacy default stream).
 * Host state only: work already enqueued on the old stream is not waited for,
 * so order the two streams yourself when they differ (PyTorch callers pass
 * torch's current stream before every call). */
TLOB_API tlob_status tlob_set_stream(tlob_layer *layer, cudaStream_t stream);
/* Uses the caller's device buffers (tlob_num_params floats each, the flat
 * layout) as the parameters and the gradient buffer from now on, so that a
 * framework's tensors are read and updated in place; NULL for both goes back
 * to the layer's own. The caller keeps them alive while the layer uses them. */
TLOB_API tlob_status tlob_set_buffers(tlob_layer *layer, float *params, float *grads);
/* Changes the GEMM math mode of this layer. */
TLOB_API tlob_status tlob_set_math(tlob_layer *layer, tlob_math math);

/* ---- Compute ------------------------------------------------------------ */

/* y [batch, T, Dout] and, when att is not NULL, att [batch, nh, T, T] from
 * x [batch, T, D]. Asynchronous on tlob_stream; capturable in a CUDA graph.
 * The layer keeps the activations backward needs. */
TLOB_API TLOB_HOT tlob_status tlob_forward(tlob_layer *layer, const float *x, int batch,
                                  float *y, float *att);

/* From dy [batch, T, Dout] after tlob_forward on the same x and batch:
 * writes dx [batch, T, D] and ADDS every parameter's gradient into the flat
 * gradient buffer (tlob_zero_grads clears it). Asynchronous on tlob_stream. */
TLOB_API TLOB_HOT tlob_status tlob_backward(tlob_layer *layer, const float *x,
                                   const float *dy, int batch, float *dx);

TLOB_API tlob_status tlob_zero_grads(tlob_layer *layer);

/* The same on host arrays, for callers without CUDA memory of their own: x,
 * y, att (may be NULL) and dy, dx are host arrays of the shapes above. They
 * go through device buffers the layer makes on first use, and return when the
 * results are on the host. tlob_backward_host uses the x of the last
 * tlob_forward_host. */
TLOB_API tlob_status tlob_forward_host(tlob_layer *layer, const float *x, int batch, float *y,
                                       float *att);
TLOB_API tlob_status tlob_backward_host(tlob_layer *layer, const float *dy, int batch,
                                        float *dx);

/* Blocks until the layer's stream is idle. */
TLOB_API tlob_status tlob_sync(tlob_layer *layer);

/* ---- Parameters and host data ------------------------------------------ */

/* The reference's default initialisation from a seed: Linear weights and
 * biases U(-1/sqrt(fan_in), 1/sqrt(fan_in)); in_proj_weight Xavier-uniform;
 * in_proj_bias, out_proj.bias zero; LayerNorm weight 1, bias 0. */
TLOB_API tlob_status tlob_init_params(tlob_layer *layer, uint64_t seed);

/* Host -> device through the device's mapped pinned staging buffer
 * (host writes, device-to-device async copy, sync). */
TLOB_API tlob_status tlob_upload(tlob_layer *layer, float *dst, const float *src, size_t count);
/* Device -> host (synchronous). */
TLOB_API tlob_status tlob_download(tlob_layer *layer, float *dst, const float *src, size_t count);

/* Loads every parameter from DIR/<name>.npy (float32, C order, the published
 * shape) or, when `dir` is a file, from that safetensors file. On failure
 * nothing on the device changes and tlob_last_error() names the file. */
TLOB_API tlob_status tlob_load_params(tlob_layer *layer, const char *dir);
/* Writes DIR/<name>.npy for every parameter; DIR must exist. */
TLOB_API tlob_status tlob_save_params(tlob_layer *layer, const char *dir);
/* Writes DIR/<name>.npy for every parameter's gradient; DIR must exist. */
TLOB_API tlob_status tlob_save_grads(tlob_layer *layer, const char *dir);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_H */
