/* NumPy .npy files of float32 in C order: the format `tlob layer` reads and
 * writes, and tlob_load_params/tlob_save_params use. Failures return a
 * tlob_status and record a message naming the file (tlob_last_error). */
#ifndef TLOB_NPY_H
#define TLOB_NPY_H

#include <stddef.h>

#include "host_file.h"
#include "tlob.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NPY_MAX_DIMS 8

typedef struct {
    int ndim;
    size_t shape[NPY_MAX_DIMS];
    size_t numel;
    float *data; /* malloc'd; npy_free releases it */
} npy_array;

/* Reads a little-endian float32 ('<f4'), C-order .npy file (format versions
 * 1, 2 and 3). Anything else (another dtype, Fortran order, a bad magic or
 * header, a truncated or over-long body) is TLOB_ERR_FORMAT; a missing file
 * TLOB_ERR_IO. */
tlob_status npy_read_f32(const char *path, npy_array *out);

/* Reads like npy_read_f32 and checks the shape; a mismatch is TLOB_ERR_SHAPE
 * with both shapes in the message. */
tlob_status npy_read_f32_shape(const char *path, int ndim, const size_t *shape,
                               npy_array *out);

/* Writes a version 1.0 .npy file: to a temporary file beside it, renamed
 * over path once complete (host_file.h), so a failed write leaves the old
 * file as it was. */
tlob_status npy_write_f32(const char *path, const float *data, int ndim, const size_t *shape);

/* Writes the file of npy_write_f32 and leaves it finished but not renamed,
 * for sets of files that replace their old versions only once every one is
 * written (host_file_rename each, or host_file_discard each). */
tlob_status npy_write_f32_pending(const char *path, const float *data, int ndim,
                                  const size_t *shape, host_file_out *out);

void npy_free(npy_array *array);

/* Formats a shape as "(2, 3)" into buf. */
void npy_format_shape(char *buf, size_t len, int ndim, const size_t *shape);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_NPY_H */
