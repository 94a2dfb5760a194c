/* extract/stand_in.c: a driver-API stand-in is told by what it defines (the
 * include guard of a header of the toolkit, as the toolkit's own headers
 * write it), not by its name. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "extract/stand_in.h"
#include "unit_files.h"
#include "util/xalloc.h"

static bool stands_in(const char *dir, const char *text)
{
    snapshot snap = {0};
    source_file f;
    source_file_init(&f, xstrdup("x.h"), xstrdup("/repo/x.h"), xstrdup(text), strlen(text),
                     NULL);
    snapshot_add(&snap, &f);
    bool yes = stands_in_for_toolkit(&snap.files[0], dir);
    snapshot_free(&snap);
    return yes;
}

static void guards_of_the_toolkit_headers(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpulint-stand-in-XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* The forms the toolkit's headers use, after a licence comment. */
    write_file(dir, "cuda.h", "/* licence\n#ifndef NOT_THIS\n */\n#ifndef __cuda_cuda_h__\n"
                              "#define __cuda_cuda_h__\n#endif\n");
    write_file(dir, "driver_types.h", "#if !defined(__DRIVER_TYPES_H__)\n"
                                      "#define __DRIVER_TYPES_H__\n#endif\n");
    write_file(dir, "spaced.h", "#  if ! defined SPACED_H\n#  define SPACED_H\n#endif\n");
    /* No guard: a first test of something else, a define of another name. */
    write_file(dir, "config.h", "#if defined(_WIN32)\n#define CONFIG_H\n#endif\n");
    write_file(dir, "mismatch.h", "#ifndef MISMATCH_H\n#define MISMATCH_H_\n#endif\n");
    write_file(dir, "notes.txt", "#ifndef TEXT_GUARD\n#define TEXT_GUARD\n");

    assert_true(stands_in(dir, "#define __cuda_cuda_h__ 1\ntypedef int CUresult;\n"));
    assert_true(stands_in(dir, "  #  define __DRIVER_TYPES_H__\n"));
    assert_true(stands_in(dir, "#define SPACED_H\n"));
    /* Guards of our own headers, names in comments and strings, and the
     * names that are no guard of the toolkit's do not count. */
    assert_false(stands_in(dir, "#ifndef DRVAPI_H\n#define DRVAPI_H\n#endif\n"));
    assert_false(stands_in(dir, "// #define __cuda_cuda_h__\nconst char *s = \"#define "
                                "__cuda_cuda_h__\";\n"));
    assert_false(stands_in(dir, "#define NOT_THIS\n#define CONFIG_H\n#define MISMATCH_H\n"
                                "#define MISMATCH_H_\n#define TEXT_GUARD\n"));
    assert_false(stands_in(dir, "#ifdef __cuda_cuda_h__\n#endif\n"));

    char *cmd = xasprintf("rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(guards_of_the_toolkit_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
