/* One TF32 tensor-core step through `mma.sync` m16n8k8 with FP32
 * accumulation, shared by the MLP's kernels (layer/mlp_kernels.cu) and the
 * strip attention backward (layer/attention_kernels.cu). */
#ifndef TLOB_MMA_TF32_CUH
#define TLOB_MMA_TF32_CUH

/* x rounded to TF32 (to nearest, ties away), as the mma's operand bits. */
__device__ __forceinline__ unsigned to_tf32(float x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

/* c += a b on one m16n8k8 tile (TF32 in, FP32 accumulate). Fragments, with
 * g = lane / 4, t = lane % 4: a = A(g, t), A(g+8, t), A(g, t+4), A(g+8, t+4);
 * b = B(t, g), B(t+4, g); c = C(g, 2t), C(g, 2t+1), C(g+8, 2t), C(g+8, 2t+1). */
__device__ __forceinline__ void mma_tf32(float c[4], const unsigned a[4], const unsigned b[2]) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

#endif /* TLOB_MMA_TF32_CUH */
