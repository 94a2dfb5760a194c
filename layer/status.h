/* Internal: recording why a call failed, and the check macros that report
 * the file and line of every failing CUDA and cuBLAS call. */
#ifndef TLOB_STATUS_H
#define TLOB_STATUS_H

#include "tlob.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records "file:line: message" as this thread's last error; returns status. */
tlob_status tlob_fail(tlob_status status, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif

#define TLOB_FAIL(status, ...) tlob_fail((status), __FILE__, __LINE__, __VA_ARGS__)

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t check_err_ = (call);                                              \
        if (check_err_ != cudaSuccess)                                                \
            return tlob_fail(TLOB_ERR_CUDA, __FILE__, __LINE__, "%s: %s", #call,      \
                             cudaGetErrorString(check_err_));                         \
    } while (0)

#define CUBLAS_CHECK(call)                                                            \
    do {                                                                              \
        cublasStatus_t check_st_ = (call);                                            \
        if (check_st_ != CUBLAS_STATUS_SUCCESS)                                       \
            return tlob_fail(TLOB_ERR_CUBLAS, __FILE__, __LINE__, "%s: %s", #call,    \
                             cublasGetStatusString(check_st_));                       \
    } while (0)

/* Propagates a failed tlob_status (the callee recorded the detail). */
#define TLOB_CHECK(call)                                                              \
    do {                                                                              \
        tlob_status check_ts_ = (call);                                               \
        if (check_ts_ != TLOB_OK) return check_ts_;                                   \
    } while (0)

#endif /* TLOB_STATUS_H */
