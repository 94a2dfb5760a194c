/* Shared by the harnesses of tests/fuzz/ whose parser reads a file: the
 * input is written to one temporary file per process, named once. */
#ifndef GPULINT_FUZZ_INPUT_H
#define GPULINT_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *fuzz_input_file(const uint8_t *data, size_t size)
{
    static char path[256];
    if (!path[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/gpulint-fuzz-%ld.input", dir && *dir ? dir : "/tmp",
                 (long)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();   /* not the parser's fault: stop loudly */
    return path;
}

#endif
