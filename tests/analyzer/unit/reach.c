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
    snapshot_reach *r = reach_build(&snap, NULL);
    expect(&snap, r, "src/main.cu",
           "include/common.h probe.h src/kernels/scale.cuh src/limits.h src/main.cu");
    expect(&snap, r, "unrelated.c", "unrelated.c unrelated.h");
    expect(&snap, r, "probe.h", "probe.h");
    assert_non_null(reach_find(r, "/repo/include/common.h"));
    assert_null(reach_find(r, "/repo/include/../include/common.h"));
    reach_free(r);
    snapshot_free(&snap);
}

/* An #include of a macro reaches what the macro's definitions name: in
 * any file, through a macro naming a macro, from a -D of a file's
 * arguments or of the config. */
static void a_macro_include_reaches_what_its_definitions_name(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "a.c", "#include \"b.h\"\n");
    add(&snap, "b.h", "#define CONFIG \"c.h\" /* the compiler's */\n#include CONFIG\n"
                      "#include CHAIN // through select.h\n");
    add(&snap, "select.h", "#if defined(OTHER)\n#define CHAIN_FILE <e.h>\n#else\n"
                           "#define CHAIN_FILE \"f.h\"\n#endif\n#define CHAIN CHAIN_FILE\n");
    add(&snap, "c.h", "\n");
    add(&snap, "d.h", "\n");
    add(&snap, "e.h", "\n");
    add(&snap, "f.h", "\n");
    add(&snap, "g.h", "\n");
    add(&snap, "h.h", "\n");
    add(&snap, "flags.c", "#include FROM_FLAG\n#include FROM_CONFIG\n");
    snap.files[snap.nfiles - 1].args = xcalloc(2, sizeof(char *));
    snap.files[snap.nfiles - 1].args[0] = xstrdup("-D");
    snap.files[snap.nfiles - 1].args[1] = xstrdup("FROM_FLAG=\"g.h\"");
    snap.files[snap.nfiles - 1].nargs = 2;
    snapshot_sort(&snap);
    gl_config cfg = {0};
    char *defines[] = {"FROM_CONFIG=<h.h>"};
    cfg.defines.items = defines;
    cfg.defines.n = 1;
    snapshot_reach *r = reach_build(&snap, &cfg);
    expect(&snap, r, "a.c", "a.c b.h c.h e.h f.h");
    expect(&snap, r, "flags.c", "flags.c g.h h.h");
    expect(&snap, r, "c.h", "c.h");
    assert_false(reach_unresolved(r, (size_t)snapshot_find(&snap, "a.c")));
    reach_free(r);
    snapshot_free(&snap);
}

/* One gpulint cannot follow (a function-like macro, a name defined
 * nowhere) may name any file: the parse is handed them all. */
static void a_function_like_macro_include_reaches_what_its_expansion_names(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "a.c", "#define STR(x) #x\n#define HDR(n) STR(n.h)\n#include HDR(c)\n");
    add(&snap, "c.h", "\n");
    add(&snap, "d.h", "\n");
    snapshot_sort(&snap);
    snapshot_reach *r = reach_build(&snap, NULL);
    expect(&snap, r, "a.c", "a.c c.h");
    assert_false(reach_unresolved(r, (size_t)snapshot_find(&snap, "a.c")));
    reach_free(r);
    snapshot_free(&snap);
}

/* As the preprocessor: an argument is macro-expanded before it replaces
 * its parameter, unless # or ## takes it (b.c: "C.h", which is no file
 * here); a definition goes on where its line ends in a backslash; an
 * object-like macro's expansion is rescanned with what follows it (d.c:
 * CALL becomes HDR, then called). */
static void an_argument_is_expanded_first_and_continued_definitions_count(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    const char *defs = "#define STR(x) #x\n#define HDR(n) \\\n  STR(n.h)\n#define C c\n"
                       "#define CALL HDR\n";
    add(&snap, "a.c", defs);
    add(&snap, "b.c", "#include STR(C.h)\n");
    add(&snap, "c.c", "#include HDR(C)\n");
    add(&snap, "d.c", "#include CALL(C)\n");
    add(&snap, "c.h", "\n");
    add(&snap, "C.h", "\n");
    snapshot_sort(&snap);
    snapshot_reach *r = reach_build(&snap, NULL);
    expect(&snap, r, "b.c", "C.h b.c");
    expect(&snap, r, "c.c", "c.c c.h");
    expect(&snap, r, "d.c", "c.h d.c");
    for (const char *const *f = (const char *const[]){"b.c", "c.c", "d.c", NULL}; *f; f++)
        assert_false(reach_unresolved(r, (size_t)snapshot_find(&snap, *f)));
    reach_free(r);
    snapshot_free(&snap);
}

/* A variadic macro's arguments, and a macro's name in its own expansion,
 * which the preprocessor leaves as it is (b.c: `table` stays table, and
 * STR's argument goes on to name table.h; c.c: each of A and B names the
 * other, and A stays A inside its own expansion; d.c: F stays F inside
 * its own call; `gcc -E` gives the same names). */
static void variadic_and_self_naming_macros_are_followed(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "a.c", "#define STR(x) #x\n#define XSTR(...) STR(__VA_ARGS__)\n"
                      "#define HDR(dir, ...) <dir/__VA_ARGS__.h>\n#define table table\n"
                      "#define A B\n#define B A\n#define F(x) XSTR(F x.h)\n");
    add(&snap, "b.c", "#include XSTR(table.h)\n#include HDR(lib, up)\n");
    add(&snap, "c.c", "#include XSTR(A.h)\n");
    add(&snap, "d.c", "#include F(up)\n");
    add(&snap, "table.h", "\n");
    add(&snap, "lib/up.h", "\n");
    add(&snap, "A.h", "\n");
    add(&snap, "B.h", "\n");
    add(&snap, "F up.h", "\n");
    snapshot_sort(&snap);
    snapshot_reach *r = reach_build(&snap, NULL);
    expect(&snap, r, "b.c", "b.c lib/up.h table.h");
    expect(&snap, r, "c.c", "A.h c.c");
    expect(&snap, r, "d.c", "F up.h d.c");
    for (const char *const *f = (const char *const[]){"b.c", "c.c", "d.c", NULL}; *f; f++)
        assert_false(reach_unresolved(r, (size_t)snapshot_find(&snap, *f)));
    reach_free(r);
    snapshot_free(&snap);
}

static void an_unfollowable_macro_include_reaches_every_file(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "a.c", "#include \"b.h\"\n");
    /* C++20's __VA_OPT__, which gpulint does not expand. */
    add(&snap, "b.h", "#define HDR(...) #__VA_OPT__(__VA_ARGS__)\n#include HDR(c.h)\n");
    add(&snap, "c.h", "\n");
    add(&snap, "d.h", "\n");
    add(&snap, "e.c", "#include NOWHERE\n");
    add(&snap, "f.c", "#define PASTED(a, b) a##b\n#define NAME \"c.h\" PASTED(x, y)\n"
                      "#include NAME\n");
    snapshot_sort(&snap);
    snapshot_reach *r = reach_build(&snap, NULL);
    expect(&snap, r, "a.c", "a.c b.h c.h d.h e.c f.c");
    expect(&snap, r, "e.c", "a.c b.h c.h d.h e.c f.c");
    expect(&snap, r, "f.c", "a.c b.h c.h d.h e.c f.c");
    expect(&snap, r, "c.h", "c.h");
    assert_true(reach_unresolved(r, (size_t)snapshot_find(&snap, "a.c")));
    assert_false(reach_unresolved(r, (size_t)snapshot_find(&snap, "c.h")));
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
    snapshot_reach *r = reach_build(&snap, NULL);
    expect(&snap, r, "a.c", "a.c cfg/prelude.h");
    reach_free(r);
    snapshot_free(&snap);
}

static bool defines_guard(const source_file *f, void *ctx)
{
    (*(int *)ctx)++;
    return strstr(f->text, "#define __cuda_cuda_h__") != NULL;
}

/* Whether a parse of a file reads a file of some kind, through any file it
 * reaches: extract/extract.c asks it of driver-API stand-ins. */
static void any_reached_file(void **state)
{
    (void)state;
    snapshot snap = {.root = "/repo"};
    add(&snap, "app/main.cpp", "#include \"util.h\"\n");
    add(&snap, "app/util.h", "#include <stdio.h>\n#include <npp.h>\n");
    add(&snap, "loader/load.cpp", "#include \"drv.h\"\n");
    add(&snap, "loader/drv.h", "#define __cuda_cuda_h__ 1\n");
    snapshot_sort(&snap);
    snapshot_reach *r = reach_build(&snap, NULL);
    int asked = 0;
    assert_false(reach_any_file(r, (size_t)snapshot_find(&snap, "app/main.cpp"),
                                defines_guard, &asked));
    assert_true(reach_any_file(r, (size_t)snapshot_find(&snap, "loader/load.cpp"),
                               defines_guard, &asked));
    assert_false(reach_any_file(r, (size_t)snapshot_find(&snap, "app/util.h"),
                                defines_guard, &asked));
    /* Each file once: util.h's answer is kept for the third question. */
    assert_int_equal(asked, 4);
    reach_free(r);
    snapshot_free(&snap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_get_what_their_includes_reach),
        cmocka_unit_test(a_macro_include_reaches_what_its_definitions_name),
        cmocka_unit_test(a_function_like_macro_include_reaches_what_its_expansion_names),
        cmocka_unit_test(an_argument_is_expanded_first_and_continued_definitions_count),
        cmocka_unit_test(variadic_and_self_naming_macros_are_followed),
        cmocka_unit_test(an_unfollowable_macro_include_reaches_every_file),
        cmocka_unit_test(forced_includes_among_the_arguments_count),
        cmocka_unit_test(any_reached_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
