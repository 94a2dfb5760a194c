/* extract/reach.c: the snapshot files one parse is handed (its own, and what
 * its include directives can reach), so a parse costs what it includes, not
 * what the snapshot holds. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "extract/reach.h"
#include "util/xalloc.h"

static void add(snapshot *snap, const char *path, const char *text)
{
    source_file f;
    source_file_init(&f, xstrdup(path), xasprintf("/repo/%s", path), xstrdup(text), strlen(text),
                     NULL);
    snapshot_add(snap, &f);
}

/* The reached files' paths, sorted and joined by spaces. */
static char *reached(const snapshot *snap, const snapshot_reach *r, const char *path)
{
    long index = snapshot_find(snap, path);
    assert_true(index >= 0);
    size_t *files;
    size_t n = reach_files(r, (size_t)index, &files);
    assert_int_equal(files[0], (size_t)index);   /* the file itself, first */
    const char **names = xcalloc(n, sizeof *names);
    for (size_t i = 0; i < n; i++)
        names[i] = snap->files[files[i]].path;
    for (size_t i = 1; i < n; i++)   /* insertion sort: a handful of names */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    byte_buf out = {0};
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_append(&out, " ", 1);
        buf_append(&out, names[i], strlen(names[i]));
    }
    free(names);
    free(files);
    return out.data;
}

static void expect(const snapshot *snap, const snapshot_reach *r, const char *path,
                   const char *want)
{
    char *got = reached(snap, r, path);
    assert_string_equal(got, want);
    free(got);
}

static void parses_get_what_their_includes_reach(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "src/main.cu", "#include <stdio.h>\n#include \"kernels/scale.cuh\"\n"
                              "// #include \"commented.h\" is not an include\n"
                              "#if __has_include(<probe.h>)\n#endif\n");
    add(&snap, "src/kernels/scale.cuh", "#  include \"../../include/common.h\"\n");
    add(&snap, "include/common.h", "#include_next<limits.h>\n");
    add(&snap, "commented.h", "\n");
    add(&snap, "probe.h", "\n");
    add(&snap, "other/scale.cuh", "\n");   /* same tail as the include: may be searched */
    add(&snap, "unrelated.c", "#include \"unrelated.h\"\n");
    add(&snap, "unrelated.h", "\n");
    add(&snap, "src/limits.h", "\n");
    snapshot_sort(&snap);
    snapshot_reach *r = reach_build(&snap);
    expect(&snap, r, "src/main.cu",
           "include/common.h probe.h src/kernels/scale.cuh src/limits.h src/main.cu");
    expect(&snap, r, "unrelated.c", "unrelated.c unrelated.h");
    expect(&snap, r, "probe.h", "probe.h");
    assert_non_null(reach_find(r, "/repo/include/common.h"));
    assert_null(reach_find(r, "/repo/include/../include/common.h"));
    reach_free(r);
    snapshot_free(&snap);
}

static void a_computed_include_reaches_every_file(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "a.c", "#include \"b.h\"\n");
    add(&snap, "b.h", "#define CONFIG \"c.h\"\n#include CONFIG\n");
    add(&snap, "c.h", "\n");
    add(&snap, "d.h", "\n");
    snapshot_sort(&snap);
    snapshot_reach *r = reach_build(&snap);
    expect(&snap, r, "a.c", "a.c b.h c.h d.h");
    expect(&snap, r, "c.h", "c.h");
    reach_free(r);
    snapshot_free(&snap);
}

static void forced_includes_among_the_arguments_count(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "a.c", "int x;\n");
    add(&snap, "cfg/prelude.h", "\n");
    add(&snap, "cfg/other.h", "\n");
    snap.files[0].args = xcalloc(2, sizeof(char *));
    snap.files[0].args[0] = xstrdup("-include");
    snap.files[0].args[1] = xstrdup("/repo/cfg/prelude.h");
    snap.files[0].nargs = 2;
    snapshot_sort(&snap);
    snapshot_reach *r = reach_build(&snap);
    expect(&snap, r, "a.c", "a.c cfg/prelude.h");
    reach_free(r);
    snapshot_free(&snap);
}

static bool names_cuda_header(const char *spelling, size_t len, void *ctx)
{
    (*(int *)ctx)++;
    return len == 14 && memcmp(spelling, "cuda_runtime.h", 14) == 0;
}

/* Whether a parse of a file reads an include of some name, through any file
 * it reaches: extract/extract.c asks it of the CUDA toolkit's headers. */
static void includes_named_through_reached_files(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "app/main.cpp", "#include \"util.h\"\n");
    add(&snap, "app/util.h", "#include <stdio.h>\n#include <cuda_runtime.h>\n");
    add(&snap, "loader/load.cpp", "#include \"drv.h\"\n// #include <cuda_runtime.h>\n");
    add(&snap, "loader/drv.h", "#include <stdlib.h>\n");
    snapshot_sort(&snap);
    snapshot_reach *r = reach_build(&snap);
    int asked = 0;
    assert_true(reach_includes_named(r, (size_t)snapshot_find(&snap, "app/main.cpp"),
                                     names_cuda_header, &asked));
    assert_false(reach_includes_named(r, (size_t)snapshot_find(&snap, "loader/load.cpp"),
                                      names_cuda_header, &asked));
    assert_true(reach_includes_named(r, (size_t)snapshot_find(&snap, "app/util.h"),
                                     names_cuda_header, &asked));
    /* Each name of each file once (a comment holds none): util.h's answer
     * is kept for the third question. */
    assert_int_equal(asked, 5);
    reach_free(r);
    snapshot_free(&snap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_get_what_their_includes_reach),
        cmocka_unit_test(a_computed_include_reaches_every_file),
        cmocka_unit_test(forced_includes_among_the_arguments_count),
        cmocka_unit_test(includes_named_through_reached_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
