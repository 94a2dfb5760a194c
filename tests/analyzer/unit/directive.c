/* Directive lines (analyzer/input/directive.c): every reader of #include,
 * #define and guard lines without libclang sees the same lines, blanks and
 * words, in LF and CRLF files alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "input/directive.h"

/* The lines of text: each one's content, or "#word" for a directive (its
 * word as identifier_at reads it), joined by '|'; blank lines as "". */
static void expect_lines(const char *text, const char *want)
{
    char got[256] = "";
    text_line line;
    unsigned count = 0;
    text_lines_begin(&line, text, strlen(text));
    while (text_lines_next(&line)) {
        assert_int_equal(line.number, ++count);
        if (count > 1)
            strcat(got, "|");
        if (line.directive) {
            strcat(got, "#");
            strncat(got, line.directive, identifier_at(line.directive, line.end));
        } else if (!line.blank) {
            strncat(got, line.start, (size_t)(line.end - line.start));
        }
    }
    assert_string_equal(got, want);
}

static void lf_and_crlf_files_give_the_same_lines(void **state)
{
    (void)state;
    expect_lines("#include <a.h>\nint x;\n\n  #  define Y 1\n", "#include|int x;||#define");
    expect_lines("#include <a.h>\r\nint x;\r\n\r\n  #  define Y 1\r\n", "#include|int x;||#define");
}

static void the_last_line_needs_no_newline(void **state)
{
    (void)state;
    expect_lines("a\n#endif", "a|#endif");
    expect_lines("a\r\n#endif", "a|#endif");
    expect_lines("", "");
}

static void vertical_tab_and_form_feed_are_blanks(void **state)
{
    (void)state;
    expect_lines("\v\f#\tifndef G\n \f\n", "#ifndef|");
}

static void a_crlf_line_ends_before_its_cr(void **state)
{
    (void)state;
    const char *text = "#ifndef GUARD_H\r\n#define GUARD_H \r\n";
    text_line line;
    text_lines_begin(&line, text, strlen(text));
    assert_true(text_lines_next(&line));
    const char *guard = operand_after(line.directive, line.end, "ifndef");
    assert_non_null(guard);
    assert_int_equal(identifier_at(guard, line.end), 7);
    assert_ptr_equal(guard + 7, line.end);
    assert_true(text_lines_next(&line));
    const char *name = operand_after(line.directive, line.end, "define");
    assert_ptr_equal(skip_directive_blanks(name + 7, line.end), line.end);
    assert_false(text_lines_next(&line));
}

static void a_word_is_a_whole_identifier(void **state)
{
    (void)state;
    const char *next = "include_next <a.h>";
    assert_false(word_is(next, next + strlen(next), "include"));
    assert_true(word_is(next, next + strlen(next), "include_next"));
    const char *defined = "defined(X)";
    assert_false(word_is(defined, defined + strlen(defined), "define"));
    const char *tight = "include<a.h>";
    const char *operand = operand_after(tight, tight + strlen(tight), "include");
    assert_non_null(operand);
    assert_int_equal(*operand, '<');
    const char *bang = "if!defined G";
    assert_string_equal(operand_after(bang, bang + strlen(bang), "if"), "!defined G");
    assert_null(operand_after(bang, bang + strlen(bang), "ifndef"));
}

static void identifiers_do_not_start_with_a_digit(void **state)
{
    (void)state;
    const char *s = "9abc";
    assert_int_equal(identifier_at(s, s + 4), 0);
    assert_int_equal(identifier_at(s + 1, s + 4), 3);
    assert_int_equal(identifier_at(s, s), 0);
}

/* The guard's name, or "" when include_guard finds none. */
static void expect_guard(const char *text, bool whole_file, const char *want)
{
    const char *name = NULL;
    size_t n = include_guard(text, strlen(text), whole_file, &name);
    char got[64] = "";
    memcpy(got, name ? name : "", n);
    assert_string_equal(got, want);
}

static void an_include_guard_is_read_by_its_directives_not_its_name(void **state)
{
    (void)state;
    expect_guard("#ifndef __REDUCTION_H__\n#define __REDUCTION_H__\nint f(void);\n#endif\n", true,
                 "__REDUCTION_H__");
    expect_guard("// c\n#if !defined(RED)\n# define RED\n#if X\n#endif\n#endif\n", true, "RED");
    expect_guard("#if !defined RED\n#define RED 1\n#endif\n", true, "RED");
    /* A feature-test macro set at the top is no guard of the whole file. */
    expect_guard("#ifndef _GNU_SOURCE\n#define _GNU_SOURCE\n#endif\n#include <string.h>\n", true, "");
    expect_guard("#ifndef _GNU_SOURCE\n#define _GNU_SOURCE\n#endif\n#include <string.h>\n", false,
                 "_GNU_SOURCE");
    expect_guard("#ifndef A_H\n#define B_H\n#endif\n", false, "");
    expect_guard("#ifndef A_H\n#define A_H\nint x;\n", true, "");
    expect_guard("#include <x.h>\n#ifndef A_H\n#define A_H\n#endif\n", false, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lf_and_crlf_files_give_the_same_lines),
        cmocka_unit_test(the_last_line_needs_no_newline),
        cmocka_unit_test(vertical_tab_and_form_feed_are_blanks),
        cmocka_unit_test(a_crlf_line_ends_before_its_cr),
        cmocka_unit_test(a_word_is_a_whole_identifier),
        cmocka_unit_test(identifiers_do_not_start_with_a_digit),
        cmocka_unit_test(an_include_guard_is_read_by_its_directives_not_its_name),
    };
    return cmocka_run_group_tests_name("directive", tests, NULL, NULL);
}
