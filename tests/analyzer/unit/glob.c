/* Path globs of the config (glob_match in analyzer/util/glob.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "util/glob.h"

static void literal_paths(void **state)
{
    (void)state;
    assert_true(glob_match("layer/tlob.h", "layer/tlob.h"));
    assert_false(glob_match("layer/tlob.h", "layer/tlob.hh"));
    assert_false(glob_match("layer/tlob.h", "layer/tlob."));
}

static void star_stays_within_a_segment(void **state)
{
    (void)state;
    assert_true(glob_match("layer/*.cu", "layer/attention.cu"));
    assert_false(glob_match("layer/*.cu", "layer/sub/attention.cu"));
    assert_true(glob_match("*", "README.md"));
    assert_false(glob_match("*", "docs/index.md"));
    assert_true(glob_match("clone_to_device_*_via_pinned", "clone_to_device_f32_via_pinned"));
}

static void double_star_crosses_segments(void **state)
{
    (void)state;
    assert_true(glob_match("tests/**", "tests/analyzer/fixtures/a.cu"));
    assert_true(glob_match("**/*.cuh", "layer/kernels/x.cuh"));
    assert_true(glob_match("**", "a/b/c"));
    assert_false(glob_match("tests/**", "layer/tests/x.c"));
}

static void double_star_slash_matches_no_directory(void **state)
{
    (void)state;
    assert_true(glob_match("tests/**/x.c", "tests/x.c"));
    assert_true(glob_match("tests/**/x.c", "tests/a/b/x.c"));
    assert_true(glob_match("**/x.c", "x.c"));
    assert_false(glob_match("tests/**/x.c", "tests/y.c"));
}

static void question_mark_is_one_character_but_not_a_slash(void **state)
{
    (void)state;
    assert_true(glob_match("a?c", "abc"));
    assert_false(glob_match("a?c", "ac"));
    assert_false(glob_match("a?c", "a/c"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(literal_paths),
        cmocka_unit_test(star_stays_within_a_segment),
        cmocka_unit_test(double_star_crosses_segments),
        cmocka_unit_test(double_star_slash_matches_no_directory),
        cmocka_unit_test(question_mark_is_one_character_but_not_a_slash),
    };
    return cmocka_run_group_tests_name("glob", tests, NULL, NULL);
}
