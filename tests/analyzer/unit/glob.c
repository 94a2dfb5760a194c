/* Globs of the config (analyzer/util/glob.c): path globs with .gitignore's
 * meaning (git's gitignore documentation, "PATTERN FORMAT"), name globs for
 * identifiers, the patterns refused, and matching time on patterns of many
 * stars. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "util/glob.h"

static void literal_paths(void **state)
{
    (void)state;
    assert_true(path_glob_match("layer/tlob.h", "layer/tlob.h"));
    assert_false(path_glob_match("layer/tlob.h", "layer/tlob.hh"));
    assert_false(path_glob_match("layer/tlob.h", "layer/tlob."));
    assert_false(path_glob_match("layer/tlob.h", "x/layer/tlob.h"));   /* anchored */
}

static void star_stays_within_a_component(void **state)
{
    (void)state;
    assert_true(path_glob_match("layer/*.cu", "layer/attention.cu"));
    assert_false(path_glob_match("layer/*.cu", "layer/sub/attention.cu"));
    assert_true(path_glob_match("layer/*", "layer/sub/attention.cu"));   /* its directory */
}

static void no_slash_matches_at_any_depth(void **state)
{
    (void)state;
    assert_true(path_glob_match("*.cu", "a.cu"));
    assert_true(path_glob_match("*.cu", "layer/kernels/a.cu"));
    assert_false(path_glob_match("*.cu", "layer/a.cuh"));
    assert_true(path_glob_match("build", "build/x.c"));
    assert_true(path_glob_match("build", "sub/build/x.c"));
    assert_true(path_glob_match("build", "sub/build"));
    assert_false(path_glob_match("build", "builds/x.c"));
    assert_true(path_glob_match("*", "docs/index.md"));
}

static void trailing_slash_is_directories_only(void **state)
{
    (void)state;
    assert_true(path_glob_match("gen/", "gen/x.c"));
    assert_true(path_glob_match("gen/", "a/gen/x.c"));
    assert_false(path_glob_match("gen/", "gen"));       /* a file named gen */
    assert_false(path_glob_match("gen/", "a/gen"));
    assert_true(path_glob_match("a/gen/", "a/gen/x.c"));
    assert_false(path_glob_match("a/gen/", "b/a/gen/x.c"));
}

static void leading_slash_anchors(void **state)
{
    (void)state;
    assert_true(path_glob_match("/x.c", "x.c"));
    assert_false(path_glob_match("/x.c", "a/x.c"));
    assert_true(path_glob_match("/tests/**", "tests/a/b.c"));
    assert_false(path_glob_match("/tests/**", "layer/tests/b.c"));
}

static void double_star_components(void **state)
{
    (void)state;
    assert_true(path_glob_match("tests/**", "tests/analyzer/fixtures/a.cu"));
    assert_true(path_glob_match("**/*.cuh", "layer/kernels/x.cuh"));
    assert_true(path_glob_match("**/*.cuh", "x.cuh"));
    assert_true(path_glob_match("**", "a/b/c"));
    assert_false(path_glob_match("tests/**", "layer/tests/x.c"));
    assert_true(path_glob_match("tests/**/x.c", "tests/x.c"));
    assert_true(path_glob_match("tests/**/x.c", "tests/a/b/x.c"));
    assert_false(path_glob_match("tests/**/x.c", "tests/y.c"));
    assert_true(path_glob_match("a/**/b/**/c.c", "a/x/b/y/z/c.c"));
    assert_false(path_glob_match("a/**/b/**/c.c", "a/x/y/z/c.c"));
}

/* "****" is "*": four stars before a slash match one directory level, not
 * every path (issue 17). */
static void many_stars_are_one(void **state)
{
    (void)state;
    assert_false(path_glob_match("****/", "x.c"));
    assert_true(path_glob_match("****/", "a/x.c"));
    assert_false(path_glob_match("****/****", "x.c"));
    assert_true(path_glob_match("****/****", "a/x.c"));
    assert_false(path_glob_match("a***b/x.c", "a/b/x.c"));
}

static void sets_and_question_marks(void **state)
{
    (void)state;
    assert_true(path_glob_match("a?c", "abc"));
    assert_false(path_glob_match("a?c", "ac"));
    assert_false(path_glob_match("a?c", "a/c"));
    assert_true(path_glob_match("k[0-9].cu", "k7.cu"));
    assert_false(path_glob_match("k[0-9].cu", "kx.cu"));
    assert_true(path_glob_match("k[!0-9].cu", "kx.cu"));
    assert_true(path_glob_match("k[]x].cu", "k].cu"));
    assert_true(path_glob_match("a\\*b.c", "a*b.c"));
    assert_false(path_glob_match("a\\*b.c", "axb.c"));
}

static void name_globs(void **state)
{
    (void)state;
    assert_true(glob_match("clone_to_device_*_via_pinned", "clone_to_device_f32_via_pinned"));
    assert_false(glob_match("clone_to_device_*_via_pinned", "clone_to_device_f32_via_mapped"));
    assert_true(glob_match("tlob_*", "tlob_"));
    assert_true(glob_match("*", ""));
    assert_false(glob_match("?", ""));
}

static void unsupported_patterns_are_named(void **state)
{
    (void)state;
    size_t at;
    assert_non_null(strstr(glob_problem("!tests/**", true, &at), "negation"));
    assert_int_equal(at, 0);
    assert_non_null(strstr(glob_problem("a/[bc", true, &at), "'['"));
    assert_int_equal(at, 2);
    assert_non_null(strstr(glob_problem("a\\", true, &at), "'\\'"));
    assert_int_equal(at, 1);
    assert_non_null(strstr(glob_problem("a[/]b", true, &at), "'/'"));
    assert_null(glob_problem("a/**/[a-z]?.c", true, &at));
}

/* Time, not correctness: a recursive matcher takes exponential time here
 * (minutes); the two-pointer matcher takes microseconds. 10 s is a bound no
 * loaded machine reaches unless the matching is exponential. */
static void many_stars_take_linear_time(void **state)
{
    (void)state;
    char path[4096] = "", name[2048];
    for (int i = 0; i < 200; i++)
        strcat(path, "aaaaaaaaaa/");
    strcat(path, "x.c");
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    clock_t start = clock();
    assert_false(path_glob_match("****/****/****/****/****/****/****/****/y.c", path));
    assert_false(path_glob_match("**/a*a*a*a*a*a*a*a*a*a*a*b/**/x.c", path));
    assert_false(path_glob_match("**/**/**/**/**/**/**/**/**/y.c", path));
    assert_false(glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", name));
    assert_true((double)(clock() - start) / CLOCKS_PER_SEC < 10.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(literal_paths),
        cmocka_unit_test(star_stays_within_a_component),
        cmocka_unit_test(no_slash_matches_at_any_depth),
        cmocka_unit_test(trailing_slash_is_directories_only),
        cmocka_unit_test(leading_slash_anchors),
        cmocka_unit_test(double_star_components),
        cmocka_unit_test(many_stars_are_one),
        cmocka_unit_test(sets_and_question_marks),
        cmocka_unit_test(name_globs),
        cmocka_unit_test(unsupported_patterns_are_named),
        cmocka_unit_test(many_stars_take_linear_time),
    };
    return cmocka_run_group_tests_name("glob", tests, NULL, NULL);
}
