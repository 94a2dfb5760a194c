/* The comment and string masker (analyzer/input/mask.c): the masked text
 * keeps the length and every newline of the input, whatever it is. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/mask.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    char *out = malloc(size + 1);
    for (unsigned what = 1; what <= 3; what++) {
        mask_text(text, size, what, out);
        for (size_t i = 0; i < size; i++)
            if ((text[i] == '\n') != (out[i] == '\n'))
                abort();
    }
    source_span *spans = NULL;
    size_t n = scan_spans(text, size, &spans);
    (void)n;
    free(spans);
    free(out);
    return 0;
}
