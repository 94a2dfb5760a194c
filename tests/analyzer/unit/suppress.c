/* The suppression comment parser (analyzer/suppress.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "suppress.h"
#include "xalloc.h"

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

/* suppressions_apply over one file "k.cu" and the findings given. */
static diag_sink *apply(const char *text, const char *const *rules, const unsigned *lines, size_t n)
{
    snapshot snap = {0};
    source_file f;
    source_file_init(&f, xstrdup("k.cu"), xstrdup("/r/k.cu"), xstrdup(text), strlen(text));
    snapshot_add(&snap, &f);
    diag_sink *sink = diag_sink_new();
    for (size_t i = 0; i < n; i++)
        diag_report(sink, rules[i], "k.cu", lines[i], 1, "finding %zu", i);
    diag_sort_unique(sink);
    gl_config cfg;
    config_init_defaults(&cfg);
    suppressions_apply(&snap, &cfg, sink);
    diag_sort_unique(sink);
    config_free(&cfg);
    snapshot_free(&snap);
    return sink;
}

static void apply_marks_reports_invalid_and_unused(void **state)
{
    (void)state;
    const char *text = "// gpulint: allow(no-via-pinned) -- shim until TLOB-412\n"   /* 1 */
                       "upload_f32_via_pinned(d, h, n);\n"                           /* 2 */
                       "cudaFree(p); // gpulint: allow(unchecked-status)\n"          /* 3 */
                       "// gpulint: allow(doc-params, no-via-pinned) -- both\n"      /* 4 */
                       "x();\n"                                                      /* 5 */
                       "// gpulint: allow(no-such-rule) -- typo\n";                  /* 6 */
    const char *rules[] = {"no-via-pinned", "unchecked-status", "doc-params"};
    const unsigned lines[] = {2, 3, 5};
    diag_sink *sink = apply(text, rules, lines, 3);
    size_t n;
    diag_finding *fs = diag_findings(sink, &n);
    assert_int_equal(n, 6);
    /* line 2: suppressed, with the reason kept */
    assert_string_equal(fs[0].rule, "no-via-pinned");
    assert_true(fs[0].suppressed);
    assert_string_equal(fs[0].suppress_reason, "shim until TLOB-412");
    /* line 3: no reason, so not suppressed, and reported as invalid */
    assert_string_equal(fs[1].rule, "unchecked-status");
    assert_false(fs[1].suppressed);
    assert_string_equal(fs[2].rule, "invalid-suppression");
    assert_int_equal(fs[2].line, 3);
    /* line 4: doc-params used, no-via-pinned unused */
    assert_string_equal(fs[3].rule, "unused-suppression");
    assert_int_equal(fs[3].line, 4);
    assert_non_null(strstr(fs[3].message, "'no-via-pinned'"));
    assert_string_equal(fs[4].rule, "doc-params");
    assert_true(fs[4].suppressed);
    /* line 6: an unknown rule */
    assert_string_equal(fs[5].rule, "invalid-suppression");
    assert_non_null(strstr(fs[5].message, "unknown rule 'no-such-rule'"));
    diag_sink_free(sink);
}

static void invalid_suppression_cannot_be_suppressed_inline(void **state)
{
    (void)state;
    const char *text = "// gpulint: allow-file(invalid-suppression) -- quiet please\n"
                       "// gpulint: allow(doc-params)\n"
                       "f();\n";
    const char *rules[] = {"doc-params"};
    const unsigned lines[] = {3};
    diag_sink *sink = apply(text, rules, lines, 1);
    size_t n;
    diag_finding *fs = diag_findings(sink, &n);
    assert_int_equal(n, 3);
    assert_string_equal(fs[0].rule, "invalid-suppression");
    assert_non_null(strstr(fs[0].message, "cannot be suppressed inline"));
    assert_string_equal(fs[1].rule, "invalid-suppression");
    assert_int_equal(fs[1].line, 2);
    assert_false(fs[1].suppressed);
    assert_string_equal(fs[2].rule, "doc-params");
    assert_false(fs[2].suppressed);
    diag_sink_free(sink);
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
        cmocka_unit_test(apply_marks_reports_invalid_and_unused),
        cmocka_unit_test(invalid_suppression_cannot_be_suppressed_inline),
    };
    return cmocka_run_group_tests_name("suppress", tests, NULL, NULL);
}
