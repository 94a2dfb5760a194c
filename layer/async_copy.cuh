/* Asynchronous copies global -> shared (cp.async), shared by the MLP's
 * kernels (layer/mlp_kernels.cu) and the fold kernel (layer/kernels.cu).
 * Every load of a tile is issued before any is waited for: the MLP kernel's
 * first version stored each loaded value itself, one round trip at a time,
 * and took 14.7 us where cuBLAS and the GELU kernel together take 14.9
 * (docs/layer-results.md, ninth pass). Also the strip attention backward
 * (layer/attention_kernels.cu). */
#ifndef TLOB_ASYNC_COPY_CUH
#define TLOB_ASYNC_COPY_CUH

/* `bytes` (4 or 16) from src to dst, zeros where `valid` is false (src-size
 * 0: nothing is read from src, which must still be a valid address). */
__device__ __forceinline__ void copy4(float *dst, const float *src, bool valid) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(
                     (unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src), "r"(valid ? 4 : 0));
}
__device__ __forceinline__ void copy16(float *dst, const float *src, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(
                     (unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src), "r"(valid ? 16 : 0));
}

/* Closes this thread's copies issued so far into one group. */
__device__ __forceinline__ void copies_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

/* Waits for this thread's groups but the newest: a kernel computes on its
 * first operands while the next ones are still arriving. */
__device__ __forceinline__ void copies_wait_older() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }

/* Waits for this thread's copies; a barrier after it makes every thread's
 * visible to the block. */
__device__ __forceinline__ void copies_wait_all() {
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
}

#endif /* TLOB_ASYNC_COPY_CUH */
