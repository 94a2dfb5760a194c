/* Meson's build directory (analyzer/input/meson_links.c): which programs
 * each target is linked into, from intro-targets.json's types and files and
 * build.ninja's link steps as Meson 1.0.1 writes them (a shared library
 * linked through its symbols file, targets in a subdirectory, Ninja's
 * escapes and continuations, order-only inputs left out); no Meson build;
 * a manifest or an introspection file that is not Meson's. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/meson_links.h"
#include "unit_files.h"

static char build[] = "/tmp/gpulint-unit-meson-XXXXXX";

static char *target(const char *id, const char *type, const char *file)
{
    char *t;
    assert_true(asprintf(&t,
                         "{\"name\": \"%s\", \"id\": \"%s\", \"type\": \"%s\", "
                         "\"filename\": [\"%s/%s\"], \"target_sources\": []}",
                         id, id, type, build, file) > 0);
    return t;
}

static void programs_of_targets(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(build));
    char *cmd;
    assert_true(asprintf(&cmd, "mkdir -p %s/meson-info", build) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    build_links map;
    char *error = NULL;
    /* No meson-info.json: not a Meson build. */
    assert_int_equal(meson_links_load(build, &map, &error), 1);
    assert_null(error);
    assert_int_equal(map.n, 0);

    char *info;
    assert_true(asprintf(&info, "{\"directories\": {\"source\": \"/s\", \"build\": \"%s\"}}",
                         build) > 0);
    write_file(build, "meson-info/meson-info.json", info);
    free(info);
    /* app links the static sub/libfast.a and the shared libshr.so (through
     * its symbols file), libshr.so links libfast.a; libslow.a and the
     * generated header are only order-only inputs of app; "my lib" has a
     * space in its file name; gen is a custom target. */
    char *app = target("app@exe", "executable", "app");
    char *fast = target("fast@sta", "static library", "sub/libfast.a");
    char *shr = target("shr@sha", "shared library", "libshr.so");
    char *slow = target("slow@sta", "static library", "libslow.a");
    char *spaced = target("my@sta", "static library", "libmy lib.a");
    char *tool = target("tool@exe", "executable", "tool");
    char *targets;
    assert_true(asprintf(&targets,
                         "[%s, %s, %s, %s, %s, %s, {\"name\": \"gen\", \"id\": \"gen@cus\", "
                         "\"type\": \"custom\", \"filename\": []}]",
                         app, fast, shr, slow, spaced, tool) > 0);
    write_file(build, "meson-info/intro-targets.json", targets);
    free(targets);
    free(app);
    free(fast);
    free(shr);
    free(slow);
    free(spaced);
    free(tool);
    write_file(build, "build.ninja",
               "# This is the build file for project \"p\"\n"
               "ninja_required_version = 1.8.2\n\n"
               "rule c_LINKER\n command = cc $ARGS -o $out $in $LINK_ARGS\n\n"
               "build sub/libfast.a: STATIC_LINKER sub/libfast.a.p/fast.c.o\n"
               " LINK_ARGS = csrD\n\n"
               "build libshr.so.p/libshr.so.symbols: SHSYM libshr.so\n\n"
               "build libshr.so: c_LINKER libshr.so.p/shr.c.o | sub/libfast.a\n"
               " LINK_ARGS = -shared sub/libfast.a\n\n"
               "build app: c_LINKER app.p/main.c.o $\n"
               "    app.p/more.c.o | libshr.so.p/libshr.so.symbols || libslow.a gen.h\n"
               " LINK_ARGS = libshr.so\n\n"
               "build tool: c_LINKER tool.p/t.c.o | libmy$ lib.a\n\n"
               "build libmy$ lib.a: STATIC_LINKER libmy$ lib.a.p/m.c.o\n");
    assert_int_equal(meson_links_load(build, &map, &error), 0);
    assert_null(error);
    expect_programs(build, &map, "app.p", "app.p");
    expect_programs(build, &map, "libshr.so.p", "app.p|libshr.so.p");
    expect_programs(build, &map, "sub/libfast.a.p", "app.p|libshr.so.p");
    expect_programs(build, &map, "libslow.a.p", "");
    expect_programs(build, &map, "libmy lib.a.p", "tool.p");
    build_links_free(&map);

    /* A build statement cut short: an error naming the manifest's line. */
    write_file(build, "build.ninja", "rule c_LINKER\n command = cc\n\nbuild app app.p/main.c.o\n");
    assert_int_equal(meson_links_load(build, &map, &error), -1);
    assert_non_null(strstr(error, "/build.ninja:4: error: the Ninja build manifest has a build "
                                  "statement with no outputs, no ':' or no rule"));
    free(error);
    error = NULL;
    /* A target without its type: an error naming intro-targets.json. */
    write_file(build, "meson-info/intro-targets.json", "[{\"id\": \"app@exe\", \"filename\": []}]");
    assert_int_equal(meson_links_load(build, &map, &error), -1);
    assert_non_null(strstr(error, "intro-targets.json: error: Meson target 0 needs \"id\", "
                                  "\"type\" (strings) and \"filename\" (an array)"));
    free(error);
    assert_int_equal(map.n, 0);
    assert_true(asprintf(&cmd, "rm -rf %s", build) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(programs_of_targets),
    };
    return cmocka_run_group_tests_name("meson_links", tests, NULL, NULL);
}
