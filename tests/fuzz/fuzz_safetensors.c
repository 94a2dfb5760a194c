/* safetensors parameter files (layer/safetensors.c) for a TransformerLayer(2,
 * 1, 1): every tensor read, or an error naming the file; never a read outside
 * the file or an allocation of what the header claims before it is checked. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "tlob.h"

enum { DIM = 2, HEADS = 1, OUT_DIM = 1 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static float *host;
    static size_t total;
    if (!host) {
        tlob_tensor_info t[TLOB_NUM_TENSORS];
        if (tlob_param_layout(DIM, HEADS, OUT_DIM, t, &total) != TLOB_OK)
            abort();
        host = malloc(total * sizeof *host);
    }
    const char *path = fuzz_input_file(data, size);
    if (tlob_read_safetensors_host(path, DIM, HEADS, OUT_DIM, host) != TLOB_OK &&
        !strstr(tlob_last_error(), path))
        abort();   /* an error that does not name the file */
    return 0;
}
