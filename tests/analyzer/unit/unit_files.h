/* Helpers several unit tests share: writing a file below a directory
 * (stand_in.c, cmake_links.c, meson_links.c), and the programs a target is
 * linked into (input/build_links.h; cmake_links.c, meson_links.c). Include
 * after <cmocka.h>, with _GNU_SOURCE defined (asprintf). */
#ifndef GPULINT_TESTS_UNIT_FILES_H
#define GPULINT_TESTS_UNIT_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/build_links.h"

/* Writes `text` to dir/name (the directories exist). */
static inline void write_file(const char *dir, const char *name, const char *text)
{
    char *path;
    assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    free(path);
}

/* The programs of `member` (below `build`), joined by '|', are `want`. */
static inline void expect_programs(const char *build, const build_links *map,
                                   const char *member, const char *want)
{
    char *key, got[1024] = "";
    assert_true(asprintf(&key, "%s/%s", build, member) > 0);
    size_t n = 0;
    const build_link *l = build_links_of(map, key, &n);
    assert_true((l != NULL) == (n > 0));
    for (size_t i = 0; i < n; i++) {
        strcat(got, i ? "|" : "");
        strcat(got, l[i].program + strlen(build) + 1);
    }
    assert_string_equal(got, want);
    free(key);
}

#endif
