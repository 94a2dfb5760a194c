/* Globs (analyzer/util/glob.c): the input is a pattern, a NUL and a path.
 * Any accepted pattern matches in bounded time (libFuzzer's -timeout is the
 * check); a pattern matches itself when it has no special character. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/glob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 2);
    memcpy(copy, data, size);
    copy[size] = copy[size + 1] = '\0';
    const char *pattern = copy, *path = copy + strlen(copy) + 1;
    if (path > copy + size)
        path = "";
    size_t at;
    for (int is_path = 0; is_path <= 1; is_path++) {
        if (glob_problem(pattern, is_path, &at) == NULL) {
            if (is_path)
                (void)path_glob_match(pattern, path);
            else
                (void)glob_match(pattern, path);
        } else if (at > strlen(pattern)) {
            abort();   /* the problem's offset is inside the pattern */
        }
    }
    if (*pattern && !strpbrk(pattern, "*?[\\/!") && !glob_match(pattern, pattern))
        abort();
    free(copy);
    return 0;
}
