#define _GNU_SOURCE
#include "input/walk_skip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/gitcmd.h"
#include "util/xalloc.h"

/* A directory git ignores but that holds a tracked file is not listed as
 * "./" itself, only its untracked entries are: ask for the directory. */
static bool named_directory_ignored(const char *abs_dir)
{
    const char *const argv[] = {"git", "-C", abs_dir, "check-ignore", "-q", "--no-index", ".",
                                NULL};
    byte_buf out = {0};
    char *error = NULL;
    int rc = git_capture(argv, true, &out, &error);
    free(error);
    buf_free(&out);
    return rc == 0;
}

void walk_skip_load(walk_skip *w, const char *abs_dir)
{
    *w = (walk_skip){.ignored = STR_TABLE_INIT};
    /* --directory: an ignored directory is one entry ("build/"), not its
     * thousands of files; tracked files are never listed (git does not
     * ignore what it tracks, and neither does gpulint). */
    const char *const argv[] = {"git", "-C", abs_dir, "ls-files", "-z", "--others", "--ignored",
                                "--exclude-standard", "--directory", NULL};
    byte_buf out = {0};
    char *error = NULL;
    int rc = git_capture(argv, true, &out, &error);
    free(error);
    if (rc == 0 && out.len > 0 && named_directory_ignored(abs_dir))
        rc = -1;
    for (size_t off = 0; rc == 0 && off < out.len;) {
        const char *rel = out.data + off;
        size_t n = strlen(rel);
        off += n + 1;
        while (n > 0 && rel[n - 1] == '/')
            n--;
        /* "./": the walked directory itself is ignored, and was named. */
        if (n == 0 || (n == 1 && rel[0] == '.')) {
            str_table_clear(&w->ignored, NULL);
            break;
        }
        char *abs_path = xasprintf("%s/%.*s", abs_dir, (int)n, rel);
        bool added;
        str_table_add(&w->ignored, 0, abs_path, &added);
        free(abs_path);
    }
    buf_free(&out);
}

static bool is_cmake_build_tree(const char *abs_dir)
{
    char *cache = xasprintf("%s/CMakeCache.txt", abs_dir);
    bool found = access(cache, F_OK) == 0;
    free(cache);
    return found;
}

bool walk_skip_entry(walk_skip *w, const char *abs_path, bool is_dir, const char *reported)
{
    const char *why = str_table_find(&w->ignored, 0, abs_path) ? "git ignores it"
                      : is_dir && is_cmake_build_tree(abs_path) ? "a CMake build tree"
                                                                : NULL;
    if (!why)
        return false;
    *XPUSH(w->skipped, w->nskipped) = xasprintf("%s%s (%s)", reported, is_dir ? "/" : "", why);
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, so that the note does not depend on the order readdir gives. */
void walk_skip_report(walk_skip *w, const char *given_dir)
{
    if (w->nskipped == 0)
        return;
    qsort(w->skipped, w->nskipped, sizeof *w->skipped, by_name);
    size_t shown = w->nskipped < 3 ? w->nskipped : 3;
    fprintf(stderr, "gpulint: note: not analysed under '%s': ", given_dir);
    for (size_t i = 0; i < shown; i++)
        fprintf(stderr, "%s%s", i ? ", " : "", w->skipped[i]);
    if (w->nskipped > shown)
        fprintf(stderr, " and %zu more", w->nskipped - shown);
    fprintf(stderr, "; name a path to analyse it\n");
}

void walk_skip_free(walk_skip *w)
{
    str_table_clear(&w->ignored, NULL);
    for (size_t i = 0; i < w->nskipped; i++)
        free(w->skipped[i]);
    free(w->skipped);
}
