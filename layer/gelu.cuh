/* GELU, exact erf form (PyTorch's nn.GELU() default), and its derivative:
 * shared by the row kernels (layer/kernels.cu) and the MLP's tensor-core
 * kernels (layer/mlp_kernels.cu), so that both paths compute the same
 * function. */
#ifndef TLOB_GELU_CUH
#define TLOB_GELU_CUH

__device__ __forceinline__ float gelu(float x) {
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
}

__device__ __forceinline__ float gelu_grad(float x) {
    const float cdf = 0.5f * (1.0f + erff(x * 0.70710678118654752f));
    const float pdf = 0.39894228040143268f * expf(-0.5f * x * x);
    return cdf + x * pdf;
}

#endif /* TLOB_GELU_CUH */
