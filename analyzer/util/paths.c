#define _XOPEN_SOURCE 700
#include "util/paths.h"

#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/xalloc.h"

char *path_normalise(const char *path)
{
    char *copy = xstrdup(path);
    char **parts = xcalloc(strlen(path) + 1, sizeof *parts);
    size_t n = 0;
    bool absolute = path[0] == '/';
    char *save = NULL;
    for (char *tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (strcmp(tok, ".") == 0)
            continue;
        if (strcmp(tok, "..") == 0 && n > 0 && strcmp(parts[n - 1], "..") != 0) {
            n--;
            continue;
        }
        if (strcmp(tok, "..") == 0 && absolute)
            continue;   /* "/.." is "/" */
        parts[n++] = tok;
    }
    byte_buf out = {0};
    if (absolute)
        buf_append(&out, "/", 1);
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_append(&out, "/", 1);
        buf_append(&out, parts[i], strlen(parts[i]));
    }
    if (!out.data)
        buf_append(&out, "", 0);
    free(parts);
    free(copy);
    return out.data;
}

char *path_join(const char *dir, const char *name)
{
    if (name[0] == '/' || !dir || !*dir)
        return path_normalise(name);
    char *joined = xasprintf("%s/%s", dir, name);
    char *norm = path_normalise(joined);
    free(joined);
    return norm;
}

char *path_canonical(const char *path)
{
    char *lexical = path_normalise(path);
    struct stat given, normal;
    if (stat(path, &given) != 0)
        return lexical;
    if (strcmp(lexical, path) == 0 ||
        (stat(lexical, &normal) == 0 && normal.st_dev == given.st_dev &&
         normal.st_ino == given.st_ino))
        return lexical;
    char resolved[PATH_MAX];
    if (!realpath(path, resolved))
        return lexical;
    free(lexical);
    return xstrdup(resolved);
}

const char *path_below(const char *root, const char *abs)
{
    size_t n = root ? strlen(root) : 0;
    if (n && strncmp(abs, root, n) == 0 && abs[n] == '/')
        return abs + n + 1;
    return NULL;
}

bool path_same_program(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    size_t da = sa ? (size_t)(sa - a) + 1 : 0, db = sb ? (size_t)(sb - b) + 1 : 0;
    size_t shorter = da < db ? da : db;
    return strncmp(a, b, shorter) == 0;
}
