/* The safetensors entry points of a build without jansson (`make layer` on a
 * machine that has only the CUDA toolkit and a C compiler: see
 * docs/dependencies.md). They say so instead of reading or writing. */
#include "status.h"
#include "tlob.h"

tlob_status tlob_read_safetensors_host(const char *path, int dim, int heads, int out_dim,
                                       float *host) {
    (void)dim, (void)heads, (void)out_dim, (void)host;
    return TLOB_FAIL(TLOB_ERR_UNSUPPORTED,
                     "%s: this libtlob was built without jansson, so it reads no safetensors "
                     "files (rebuild with jansson's headers installed, or use a .npy directory)",
                     path ? path : "(null)");
}

tlob_status tlob_write_safetensors_host(const char *path, int dim, int heads, int out_dim,
                                        const float *host) {
    (void)dim, (void)heads, (void)out_dim, (void)host;
    return TLOB_FAIL(TLOB_ERR_UNSUPPORTED,
                     "%s: this libtlob was built without jansson, so it writes no safetensors "
                     "files (rebuild with jansson's headers installed, or use a .npy directory)",
                     path ? path : "(null)");
}
