/* Comment and literal masking (analyzer/input/mask.c): what the pattern rules and
 * the token scans see must be code only, at the same offsets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "input/mask.h"

/* Mask `src` with `what` and compare with `want` (same length by design). */
static void expect_masked(const char *src, unsigned what, const char *want)
{
    size_t len = strlen(src);
    char *out = malloc(len + 1);
    mask_text(src, len, what, out);
    assert_int_equal(strlen(want), len);
    assert_string_equal(out, want);
    free(out);
}

static const unsigned ALL = MASK_COMMENTS | MASK_STRINGS;

static void line_comment(void **state)
{
    (void)state;
    expect_masked("a = 1; // x = y\nb;", ALL, "a = 1;         \nb;");
}

static void block_comment_keeps_newlines(void **state)
{
    (void)state;
    expect_masked("a /* one\ntwo */ b", ALL, "a       \n       b");
}

static void line_comment_continued_by_backslash(void **state)
{
    (void)state;
    expect_masked("// a \\\ncall();\nx;", ALL, "      \n       \nx;");
}

static void line_comment_continued_with_crlf(void **state)
{
    (void)state;
    expect_masked("// a \\\r\ncall();\r\nx;", ALL, "      \r\n       \r\nx;");
}

static void string_with_escaped_quote(void **state)
{
    (void)state;
    expect_masked("f(\"a\\\"b // c\"); g();", ALL, "f(\"         \"); g();");
}

static void comment_markers_inside_a_string_are_text(void **state)
{
    (void)state;
    expect_masked("s = \"/* no */\"; t;", ALL, "s = \"        \"; t;");
}

static void quote_inside_a_comment_is_comment(void **state)
{
    (void)state;
    expect_masked("/* don't */ x = 'a';", ALL, "            x = ' ';");
}

static void char_literals_with_escapes(void **state)
{
    (void)state;
    expect_masked("c = '\\''; d = '\"'; e;", ALL, "c = '  '; d = ' '; e;");
}

static void digit_separator_is_not_a_char_literal(void **state)
{
    (void)state;
    expect_masked("n = 1'000'000; s = \"x\";", ALL, "n = 1'000'000; s = \" \";");
}

static void raw_string_with_delimiter(void **state)
{
    (void)state;
    expect_masked("r = R\"xy(a \" )\" b)xy\"; z;", ALL, "r = R\"              \"; z;");
}

static void raw_string_with_encoding_prefix(void **state)
{
    (void)state;
    expect_masked("r = u8R\"(// x)\"; z;", ALL, "r = u8R\"      \"; z;");
}

static void identifier_ending_in_R_is_not_raw(void **state)
{
    (void)state;
    /* FOR"..." : an ordinary string after an identifier that ends in R. */
    expect_masked("FOR\"(a\" b;", ALL, "FOR\"  \" b;");
}

static void unterminated_string_stops_at_the_line_end(void **state)
{
    (void)state;
    expect_masked("#error it\"s\nint x;", ALL, "#error it\" \nint x;");
}

static void keep_comments_when_asked(void **state)
{
    (void)state;
    expect_masked("a; // \"q\"\nb = \"s\";", MASK_STRINGS, "a; // \"q\"\nb = \" \";");
}

static void keep_strings_when_asked(void **state)
{
    (void)state;
    expect_masked("a; // c\nb = \"s\";", MASK_COMMENTS, "a;     \nb = \"s\";");
}

static void spans_report_kinds_and_offsets(void **state)
{
    (void)state;
    const char *src = "x /*c*/ \"s\" // d\n";
    source_span *spans;
    size_t n = scan_spans(src, strlen(src), &spans);
    assert_int_equal(n, 3);
    assert_int_equal(spans[0].kind, SPAN_COMMENT);
    assert_int_equal(spans[0].start, 2);
    assert_int_equal(spans[0].end, 7);
    assert_int_equal(spans[1].kind, SPAN_STRING);
    assert_int_equal(spans[1].start, 8);
    assert_int_equal(spans[1].end, 11);
    assert_int_equal(spans[2].kind, SPAN_COMMENT);
    assert_int_equal(spans[2].start, 12);
    assert_int_equal(spans[2].end, 16);
    free(spans);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(line_comment),
        cmocka_unit_test(block_comment_keeps_newlines),
        cmocka_unit_test(line_comment_continued_by_backslash),
        cmocka_unit_test(line_comment_continued_with_crlf),
        cmocka_unit_test(string_with_escaped_quote),
        cmocka_unit_test(comment_markers_inside_a_string_are_text),
        cmocka_unit_test(quote_inside_a_comment_is_comment),
        cmocka_unit_test(char_literals_with_escapes),
        cmocka_unit_test(digit_separator_is_not_a_char_literal),
        cmocka_unit_test(raw_string_with_delimiter),
        cmocka_unit_test(raw_string_with_encoding_prefix),
        cmocka_unit_test(identifier_ending_in_R_is_not_raw),
        cmocka_unit_test(unterminated_string_stops_at_the_line_end),
        cmocka_unit_test(keep_comments_when_asked),
        cmocka_unit_test(keep_strings_when_asked),
        cmocka_unit_test(spans_report_kinds_and_offsets),
    };
    return cmocka_run_group_tests_name("mask", tests, NULL, NULL);
}
