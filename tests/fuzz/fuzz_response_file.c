/* Response files (analyzer/input/compile_db.c): a compile command's @file
 * and nvcc's --options-file / -optf, read in place of their name, nested
 * (the input may name itself: "@rsp"). The flags come out as words, or an
 * error naming the file; never a read past a bound or a loop. */
#define _DEFAULT_SOURCE   /* mkdtemp */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "input/compile_db.h"

static char dir[256], path[300];

static void remove_input(void)
{
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The input is the file "rsp" of a directory of its own. */
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gpulint-fuzz-rsp-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir))
            abort();
        snprintf(path, sizeof path, "%s/rsp", dir);
        atexit(remove_input);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    char *const spellings[][3] = {
        {"cc", "@rsp", NULL},
        {"nvcc", "--options-file", "rsp,rsp"},
        {"nvcc", "--options-file=rsp", NULL},
    };
    for (size_t k = 0; k < sizeof spellings / sizeof *spellings; k++) {
        size_t argc = spellings[k][2] ? 3 : 2;
        str_list out = {0};
        char *error = NULL;
        source_lang lang;
        int rc = compile_args_translate(spellings[k], argc, dir, &out, &lang, &error);
        if ((rc == 0) != (error == NULL))
            abort();
        for (size_t i = 0; i < out.n; i++) {
            if (!out.items[i])
                abort();
            free(out.items[i]);
        }
        free(out.items);
        free(error);
    }
    return 0;
}
