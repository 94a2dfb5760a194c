#include "input/compile_target.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/paths.h"
#include "util/xalloc.h"

/* The object file a command writes: the last -o (as compilers take it). */
static const char *object_of(char *const *argv, size_t argc)
{
    const char *out = NULL;
    for (size_t i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--output-file") == 0) && i + 1 < argc)
            out = argv[++i];
        else if (strncmp(a, "--output-file=", 14) == 0)
            out = a + 14;
        else if (strncmp(a, "-o", 2) == 0 && a[2] && a[2] != '-')
            out = a + 2;   /* -oFILE; not a long option such as -objc-... */
    }
    return out;
}

static bool ends_with(const char *s, size_t len, const char *tail)
{
    size_t n = strlen(tail);
    return len > n && memcmp(s + len - n, tail, n) == 0;
}

char *compile_target(const char *directory, char *const *argv, size_t argc,
                     const char *output)
{
    const char *object = output ? output : object_of(argv, argc);
    if (!object || !*object)
        return NULL;
    char *path = path_join(directory, object);
    /* Only directories count: the object's own name (x.cu.o) is no target. */
    char *last = strrchr(path, '/');
    char *cmake_end = NULL, *meson_end = NULL;
    const char *prev = NULL;   /* the component before this one */
    size_t prev_len = 0;
    for (char *c = path; last && c < last;) {
        char *slash = strchr(c, '/');
        size_t len = (size_t)(slash - c);
        bool cmake = ends_with(c, len, ".dir") && prev && prev_len == 10 &&
                     memcmp(prev, "CMakeFiles", 10) == 0;
        bool meson = ends_with(c, len, ".p");
        /* CMake's outermost (a source directory below it may be named
         * x.p), else Meson's innermost (its objects' names are flat). */
        if (cmake && !cmake_end)
            cmake_end = slash;
        if (meson)
            meson_end = slash;
        prev = c;
        prev_len = len;
        c = slash + 1;
    }
    char *found_end = cmake_end ? cmake_end : meson_end;
    if (!found_end) {
        free(path);
        return NULL;
    }
    *found_end = '\0';
    return path;
}
