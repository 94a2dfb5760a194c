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
 * All layers on one device share one cuBLAS handle, its workspace and one
 * stream (tlob_stream). The library is not thread-safe: drive the layers of a
 * process from one thread. */
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

typedef enum {
    TLOB_OK = 0,
    TLOB_ERR_INVALID_ARGUMENT, /* a null pointer, a size out of range */
    TLOB_ERR_NO_DEVICE,        /* no CUDA driver or device, or cuBLAS cannot start */
    TLOB_ERR_CUDA,             /* a CUDA runtime call failed */
    TLOB_ERR_CUBLAS,           /* a cuBLAS call failed */
    TLOB_ERR_OUT_OF_MEMORY,    /* host allocation failed */
    TLOB_ERR_IO,               /* a file could not be opened, read or written */
    TLOB_ERR_FORMAT,           /* a file is not a float32 C-order .npy file */
    TLOB_ERR_SHAPE             /* a tensor has the wrong shape */
} tlob_status;

/* The name of a status, e.g. "TLOB_ERR_SHAPE: tensor has the wrong shape". */
const char *tlob_status_string(tlob_status status);

/* Detail of the last failure in this thread ("" if none): what failed, where. */
const char *tlob_last_error(void);

typedef enum {
    TLOB_MATH_TF32 = 0, /* cuBLAS TF32 tensor-op math for the GEMMs, except the
                           backward's data gradients into the attention (FP32:
                           docs/layer.md, Numerics) */
    TLOB_MATH_FP32 = 1  /* strict FP32 GEMMs */
} tlob_math;

/* Parses "tf32" or "fp32". */
tlob_status tlob_math_parse(const char *text, tlob_math *math);

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
tlob_status tlob_param_layout(int dim, int heads, int out_dim,
                              tlob_tensor_info tensors[TLOB_NUM_TENSORS],
                              size_t *total);

/* Host-only parameter helpers, on a flat host buffer of the layout above. */

/* The reference's default initialisation from a seed (see tlob_init_params). */
tlob_status tlob_init_params_host(int dim, int heads, int out_dim, uint64_t seed, float *host);
/* Reads DIR/<name>.npy for every parameter, checking dtype and shape; the
 * error names the file. */
tlob_status tlob_read_params_host(const char *dir, int dim, int heads, int out_dim, float *host);
/* Writes DIR/<name>.npy for every tensor of `host`; DIR must exist. */
tlob_status tlob_write_params_host(const char *dir, int dim, int heads, int out_dim,
                                   const float *host);

/* ---- Layer lifetime ----------------------------------------------------- */

typedef struct tlob_layer tlob_layer;

/* Creates a layer (parameters zero; call tlob_init_params or
 * tlob_load_params). Returns TLOB_ERR_NO_DEVICE when CUDA or cuBLAS is
 * unavailable. */
tlob_status tlob_create(const tlob_config *config, tlob_layer **layer);
void tlob_destroy(tlob_layer *layer);

const tlob_config *tlob_get_config(const tlob_layer *layer);
const tlob_tensor_info *tlob_tensors(const tlob_layer *layer);
size_t tlob_num_params(const tlob_layer *layer);
/* Device pointers to the flat parameter and gradient buffers. */
float *tlob_params(tlob_layer *layer);
float *tlob_grads(tlob_layer *layer);
/* The stream every layer on this device runs on. */
cudaStream_t tlob_stream(const tlob_layer *layer);
/* Changes the GEMM math mode of this layer. */
tlob_status tlob_set_math(tlob_layer *layer, tlob_math math);

/* ---- Compute ------------------------------------------------------------ */

/* y [batch, T, Dout] and, when att is not NULL, att [batch, nh, T, T] from
 * x [batch, T, D]. Asynchronous on tlob_stream; capturable in a CUDA graph.
 * The layer keeps the activations backward needs. */
TLOB_HOT tlob_status tlob_forward(tlob_layer *layer, const float *x, int batch,
                                  float *y, float *att);

/* From dy [batch, T, Dout] after tlob_forward on the same x and batch:
 * writes dx [batch, T, D] and ADDS every parameter's gradient into the flat
 * gradient buffer (tlob_zero_grads clears it). Asynchronous on tlob_stream. */
TLOB_HOT tlob_status tlob_backward(tlob_layer *layer, const float *x,
                                   const float *dy, int batch, float *dx);

tlob_status tlob_zero_grads(tlob_layer *layer);

/* Blocks until the layer's stream is idle. */
tlob_status tlob_sync(tlob_layer *layer);

/* ---- Parameters and host data ------------------------------------------ */

/* The reference's default initialisation from a seed: Linear weights and
 * biases U(-1/sqrt(fan_in), 1/sqrt(fan_in)); in_proj_weight Xavier-uniform;
 * in_proj_bias, out_proj.bias zero; LayerNorm weight 1, bias 0. */
tlob_status tlob_init_params(tlob_layer *layer, uint64_t seed);

/* Host -> device through the device's mapped pinned staging buffer
 * (host writes, device-to-device async copy, sync). */
tlob_status tlob_upload(tlob_layer *layer, float *dst, const float *src, size_t count);
/* Device -> host (synchronous). */
tlob_status tlob_download(tlob_layer *layer, float *dst, const float *src, size_t count);

/* Loads every parameter from DIR/<name>.npy (float32, C order, the published
 * shape). On failure nothing on the device changes and tlob_last_error() names
 * the file. */
tlob_status tlob_load_params(tlob_layer *layer, const char *dir);
/* Writes DIR/<name>.npy for every parameter; DIR must exist. */
tlob_status tlob_save_params(tlob_layer *layer, const char *dir);
/* Writes DIR/<name>.npy for every parameter's gradient; DIR must exist. */
tlob_status tlob_save_grads(tlob_layer *layer, const char *dir);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_H */
