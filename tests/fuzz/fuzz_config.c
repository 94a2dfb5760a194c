/* .gpulint.yaml (analyzer/config/config.c): any text is a config or an
 * error with a position, within the bounds of docs/gpulint.md's Limits. */
#include <stdint.h>
#include <stdlib.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gl_config cfg;
    config_init_defaults(&cfg);
    char *error = NULL;
    if (config_load_text(&cfg, (const char *)data, size, "fuzz.yaml", "/nonexistent", &error) != 0 &&
        !error)
        abort();   /* a failure must say why */
    free(error);
    config_free(&cfg);
    return 0;
}
