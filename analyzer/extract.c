/* Extraction with libclang: skeleton (returns empty facts until the real
 * walker lands). */
#include <stdlib.h>

#include "extract.h"

file_facts *facts_extract(const snapshot *snap, size_t index, const gl_config *cfg,
                          diag_sink *sink, char **error)
{
    (void)snap; (void)index; (void)cfg; (void)sink; (void)error;
    return calloc(1, sizeof(file_facts));
}

void facts_free(file_facts *facts)
{
    free(facts);
}

int facts_global_init(const gl_config *cfg, char **error)
{
    (void)cfg; (void)error;
    return 0;
}

void facts_global_cleanup(void)
{
}
