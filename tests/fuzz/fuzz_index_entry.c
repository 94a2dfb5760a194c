/* The git index entry reader of analyzer/input/inputs.c (static there, so
 * the unit is compiled into the harness): "<mode> <oid> <stage>\t<path>". */
#include "../../analyzer/input/inputs.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *rec = malloc(size + 1);
    memcpy(rec, data, size);
    rec[size] = '\0';
    index_entry e;
    if (parse_index_entry(rec, &e) && (e.path < rec || e.path > rec + strlen(rec)))
        abort();
    free(rec);
    return 0;
}
