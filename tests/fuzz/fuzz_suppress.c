/* Suppression comments (analyzer/findings/suppress.c) in any text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "findings/suppress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    suppression *s = NULL;
    size_t n = suppressions_parse(text, size, &s);
    for (size_t i = 0; i < n; i++)
        (void)suppression_covers(&s[i], "no-via-pinned", 1);
    suppressions_free(s, n);
    free(text);
    return 0;
}
