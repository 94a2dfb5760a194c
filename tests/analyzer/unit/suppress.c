/* The suppression comment parser (analyzer/suppress.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "suppress.h"

static size_t parse(const char *text, suppression **out)
{
    return suppressions_parse(text, strlen(text), out);
}

static void line_comment_with_reason(void **state)
{
    (void)state;
    suppression *s;
    assert_int_equal(parse("x();\ny(); // gpulint: allow(no-via-pinned) -- legacy shim\n", &s), 1);
    assert_int_equal(s[0].nids, 1);
    assert_string_equal(s[0].ids[0], "no-via-pinned");
    assert_string_equal(s[0].reason, "legacy shim");
    assert_false(s[0].file_wide);
    assert_null(s[0].malformed);
    assert_int_equal(s[0].line, 2);
    assert_int_equal(s[0].col, 9);
    assert_int_equal(s[0].last_line, 3);
    suppressions_free(s, 1);
}

static void covers_its_line_and_the_next_only(void **state)
{
    (void)state;
    suppression *s;
    assert_int_equal(parse("\n\n// gpulint: allow(doc-params) -- generated\n", &s), 1);
    assert_false(suppression_covers(&s[0], "doc-params", 2));
    assert_true(suppression_covers(&s[0], "doc-params", 3));
    assert_true(suppression_covers(&s[0], "doc-params", 4));
    assert_false(suppression_covers(&s[0], "doc-params", 5));
    assert_false(suppression_covers(&s[0], "no-via-pinned", 3));
    suppressions_free(s, 1);
}

static void block_comment_several_ids(void **state)
{
    (void)state;
    suppression *s;
    assert_int_equal(parse("/* gpulint: allow( a-rule ,pattern:no-printf) -- two at once */ x;", &s),
                     1);
    assert_int_equal(s[0].nids, 2);
    assert_string_equal(s[0].ids[0], "a-rule");
    assert_string_equal(s[0].ids[1], "pattern:no-printf");
    assert_string_equal(s[0].reason, "two at once");
    suppressions_free(s, 1);
}

static void multi_line_block_covers_the_line_after_its_end(void **state)
{
    (void)state;
    suppression *s;
    assert_int_equal(parse("/* gpulint: allow(doc-params) -- why\n   more words\n */\nf();\n", &s), 1);
    assert_int_equal(s[0].line, 1);
    assert_int_equal(s[0].last_line, 4);
    assert_string_equal(s[0].reason, "why");
    suppressions_free(s, 1);
}

static void allow_file(void **state)
{
    (void)state;
    suppression *s;
    assert_int_equal(parse("// gpulint: allow-file(no-cpu-compute) -- CPU reference\n", &s), 1);
    assert_true(s[0].file_wide);
    assert_true(suppression_covers(&s[0], "no-cpu-compute", 999));
    suppressions_free(s, 1);
}

static void missing_reason(void **state)
{
    (void)state;
    suppression *s;
    assert_int_equal(parse("// gpulint: allow(no-via-pinned)\n", &s), 1);
    assert_null(s[0].reason);
    assert_null(s[0].malformed);
    suppressions_free(s, 1);
    assert_int_equal(parse("// gpulint: allow(no-via-pinned) --   \n", &s), 1);
    assert_null(s[0].reason);
    suppressions_free(s, 1);
    assert_int_equal(parse("/* gpulint: allow(no-via-pinned) -- */\n", &s), 1);
    assert_null(s[0].reason);
    suppressions_free(s, 1);
}

static void malformed(void **state)
{
    (void)state;
    suppression *s;
    assert_int_equal(parse("// gpulint: allow no-via-pinned -- x\n", &s), 1);
    assert_non_null(s[0].malformed);
    suppressions_free(s, 1);
    assert_int_equal(parse("// gpulint: allow(no-via-pinned -- x\n", &s), 1);
    assert_non_null(s[0].malformed);
    suppressions_free(s, 1);
    assert_int_equal(parse("// gpulint: allow() -- x\n", &s), 1);
    assert_non_null(s[0].malformed);
    suppressions_free(s, 1);
    assert_int_equal(parse("// gpulint: allow(a,,b) -- x\n", &s), 1);
    assert_non_null(s[0].malformed);
    suppressions_free(s, 1);
}

static void prose_is_not_a_suppression(void **state)
{
    (void)state;
    suppression *s;
    assert_int_equal(parse("// gpulint: the analyzer. gpulint: allowed values are...\n", &s), 0);
    assert_int_equal(parse("/* write `gpulint: allow(...)` with a reason */\n", &s), 0);
    assert_int_equal(parse("// gpulint: allow(rule-id[, rule-id...]) -- reason\n", &s), 0);
    assert_int_equal(parse("/* every `gpulint: allow...` in a comment */\n", &s), 0);
}

static void only_in_comments(void **state)
{
    (void)state;
    suppression *s;
    assert_int_equal(parse("puts(\"// gpulint: allow(no-via-pinned) -- x\");\n", &s), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(line_comment_with_reason),
        cmocka_unit_test(covers_its_line_and_the_next_only),
        cmocka_unit_test(block_comment_several_ids),
        cmocka_unit_test(multi_line_block_covers_the_line_after_its_end),
        cmocka_unit_test(allow_file),
        cmocka_unit_test(missing_reason),
        cmocka_unit_test(malformed),
        cmocka_unit_test(prose_is_not_a_suppression),
        cmocka_unit_test(only_in_comments),
    };
    return cmocka_run_group_tests_name("suppress", tests, NULL, NULL);
}
