/* CMake's file API reply (analyzer/input/cmake_links.c): which programs
 * each target is linked into, through library dependencies only; the
 * newest reply index; no reply, or one nobody asked a codemodel of. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/cmake_links.h"
#include "unit_files.h"

static char build[] = "/tmp/gpulint-unit-cmake-XXXXXX";

static void write_reply(const char *name, const char *text)
{
    char *reply;
    assert_true(asprintf(&reply, "%s/.cmake/api/v1/reply", build) > 0);
    write_file(reply, name, text);
    free(reply);
}

static void write_target(const char *name, const char *type, const char *dir, const char *deps)
{
    char *file, *text;
    assert_true(asprintf(&file, "target-%s.json", name) > 0);
    assert_true(asprintf(&text,
                         "{\"id\": \"%s::@1\", \"name\": \"%s\", \"type\": \"%s\", "
                         "\"paths\": {\"build\": \"%s\", \"source\": \"%s\"}, "
                         "\"dependencies\": [%s]}",
                         name, name, type, dir, dir, deps) > 0);
    write_reply(file, text);
    free(file);
    free(text);
}

static void programs_of_targets(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(build));
    char *dir;
    assert_true(asprintf(&dir, "mkdir -p %s/.cmake/api/v1/reply", build) > 0);
    assert_int_equal(system(dir), 0);
    free(dir);
    build_links map;
    char *error = NULL;
    /* No reply yet: nobody asked. */
    assert_int_equal(cmake_links_load(build, &map, &error), 1);
    assert_null(error);
    assert_int_equal(map.n, 0);

    /* app links liba, which links the object library libb; plug (a shared
     * library) links libb too; gen is a utility app depends on (build order
     * only), libc a library nobody links. */
    write_target("app", "EXECUTABLE", ".", "{\"id\": \"liba::@1\"}, {\"id\": \"gen::@1\"}");
    write_target("liba", "STATIC_LIBRARY", ".", "{\"id\": \"libb::@1\"}");
    write_target("libb", "OBJECT_LIBRARY", "sub", "");
    write_target("libc", "STATIC_LIBRARY", "sub", "");
    write_target("gen", "UTILITY", ".", "");
    write_target("plug", "SHARED_LIBRARY", "sub", "{\"id\": \"libb::@1\"}");
    char *model;
    assert_true(asprintf(&model,
                         "{\"paths\": {\"build\": \"%s\", \"source\": \"/s\"}, "
                         "\"configurations\": [{\"targets\": ["
                         "{\"name\": \"app\", \"jsonFile\": \"target-app.json\"},"
                         "{\"name\": \"liba\", \"jsonFile\": \"target-liba.json\"},"
                         "{\"name\": \"libb\", \"jsonFile\": \"target-libb.json\"},"
                         "{\"name\": \"libc\", \"jsonFile\": \"target-libc.json\"},"
                         "{\"name\": \"gen\", \"jsonFile\": \"target-gen.json\"},"
                         "{\"name\": \"plug\", \"jsonFile\": \"target-plug.json\"}]}]}",
                         build) > 0);
    write_reply("codemodel-v2-1.json", model);
    free(model);
    /* An index that asked no codemodel: still no reply. */
    write_reply("index-2026-01-01T00-00-00-0000.json", "{\"reply\": {}}");
    assert_int_equal(cmake_links_load(build, &map, &error), 1);
    /* The newest index names it. */
    write_reply("index-2026-01-02T00-00-00-0000.json",
                "{\"reply\": {\"codemodel-v2\": {\"jsonFile\": \"codemodel-v2-1.json\"}}}");
    assert_int_equal(cmake_links_load(build, &map, &error), 0);
    assert_null(error);
    expect_programs(build, &map, "CMakeFiles/app.dir", "CMakeFiles/app.dir");
    expect_programs(build, &map, "CMakeFiles/liba.dir", "CMakeFiles/app.dir");
    expect_programs(build, &map, "sub/CMakeFiles/libb.dir", "CMakeFiles/app.dir|sub/CMakeFiles/plug.dir");
    expect_programs(build, &map, "sub/CMakeFiles/plug.dir", "sub/CMakeFiles/plug.dir");
    expect_programs(build, &map, "sub/CMakeFiles/libc.dir", "");
    expect_programs(build, &map, "CMakeFiles/gen.dir", "");
    build_links_free(&map);

    /* A target file without its name: an error naming the file. */
    write_reply("target-libc.json", "{\"id\": \"libc::@1\", \"type\": \"STATIC_LIBRARY\"}");
    assert_int_equal(cmake_links_load(build, &map, &error), -1);
    assert_non_null(strstr(error, "target-libc.json: error: CMake file API reply"));
    free(error);
    assert_int_equal(map.n, 0);
    char *rm;
    assert_true(asprintf(&rm, "rm -rf %s", build) > 0);
    assert_int_equal(system(rm), 0);
    free(rm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(programs_of_targets),
    };
    return cmocka_run_group_tests_name("cmake_links", tests, NULL, NULL);
}
