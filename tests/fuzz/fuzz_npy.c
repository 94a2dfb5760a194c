/* .npy files (layer/npy.c): a float32 array, or an error naming the file,
 * never an allocation of what the header claims before it is checked. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npy_array a;
    if (npy_read_f32(fuzz_input_file(data, size), &a) == TLOB_OK)
        npy_free(&a);
    return 0;
}
