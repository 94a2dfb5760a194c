#define _GNU_SOURCE
#include "extract/stand_in.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/directive.h"
#include "input/include_names.h"
#include "input/mask.h"
#include "util/xalloc.h"

/* A toolkit header's guard comes before its first declaration, after its
 * licence comment (cuda.h's at byte 2,600): a prefix of this many bytes
 * holds it. */
#define GUARD_WITHIN 16384

static struct {
    pthread_mutex_t lock;
    bool loaded;
    char **names;   /* sorted */
    size_t n;
} guards = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The guard of a header's text (include_guard, its #endif not asked for:
 * a toolkit header may have directives after it); else NULL. */
static char *guard_of(const char *masked, size_t len)
{
    const char *guard = NULL;
    size_t n = include_guard(masked, len, false, &guard);
    return n ? xstrndup(guard, n) : NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The guards of the headers directly in dir. */
static void load_guards(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char *buf = xmalloc(GUARD_WITHIN), *masked = xmalloc(GUARD_WITHIN + 1);
    while (d && (e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        if (nl < 3 || strcmp(e->d_name + nl - 2, ".h") != 0)
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        free(path);
        if (fd < 0)
            continue;
        ssize_t got = read(fd, buf, GUARD_WITHIN);
        close(fd);
        if (got <= 0)
            continue;
        mask_text(buf, (size_t)got, MASK_COMMENTS, masked);
        char *g = guard_of(masked, (size_t)got);
        if (g) {
            *XPUSH(guards.names, guards.n) = g;
        }
    }
    if (d)
        closedir(d);
    free(buf);
    free(masked);
    if (guards.n)
        qsort(guards.names, guards.n, sizeof *guards.names, cmp_str);
}

static bool is_guard(const char *name, size_t len, void *ctx)
{
    (void)ctx;
    char *key = xstrndup(name, len);
    bool found = guards.n && bsearch(&key, guards.names, guards.n, sizeof *guards.names,
                                     cmp_str) != NULL;
    free(key);
    return found;
}

bool stands_in_for_toolkit(const source_file *f, const char *cuda_include)
{
    pthread_mutex_lock(&guards.lock);
    if (!guards.loaded) {
        load_guards(cuda_include);
        guards.loaded = true;
    }
    pthread_mutex_unlock(&guards.lock);
    return source_defines_any(f, is_guard, NULL);
}
