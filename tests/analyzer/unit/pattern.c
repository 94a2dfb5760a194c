/* pattern:<id> rules (analyzer/rules/pattern.c): matches over masked code,
 * their positions, the match-comments/match-strings switches, path globs,
 * and regexes that match the empty string. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rules/rule.h"
#include "util/xalloc.h"

extern const rule_def rule_pattern;

static pattern_rule *add_pattern(gl_config *cfg, const char *id, const char *regex)
{
    pattern_rule *p = XPUSH(cfg->patterns, cfg->npatterns);
    p->id = xstrdup(id);
    p->regex = xstrdup(regex);
    p->message = xasprintf("matched %s", id);
    return p;
}

static void add_file(snapshot *snap, const char *path, const char *text)
{
    source_file f;
    source_file_init(&f, xstrdup(path), xstrdup(path), xstrdup(text), strlen(text), NULL);
    snapshot_add(snap, &f);
}

/* Run the rule; returns its findings (sorted). */
static diag_list run(const snapshot *snap, const gl_config *cfg)
{
    struct file_facts *facts[8] = {0};   /* the pattern rule reads no facts */
    analysis a = {.snap = snap, .facts = facts, .cfg = cfg};
    diag_sink *sink = diag_sink_new();
    rule_pattern.check(&a, sink);
    diag_list found = diag_sink_take(sink);
    diag_sink_free(sink);
    return found;
}

static void matches_code_only_by_default(void **state)
{
    (void)state;
    snapshot snap = {0};
    add_file(&snap, "a.c", "int x;\n  printf(\"printf\"); // printf\n/* printf */ printf (1);\n");
    gl_config cfg;
    config_init_defaults(&cfg);
    add_pattern(&cfg, "no-printf", "\\bprintf\\s*\\(");
    diag_list found = run(&snap, &cfg);
    size_t n = found.n;
    diag_finding *fs = found.items;
    assert_int_equal(n, 2);
    assert_string_equal(fs[0].rule, "pattern:no-printf");
    assert_string_equal(fs[0].message, "matched no-printf");
    assert_int_equal(fs[0].line, 2);
    assert_int_equal(fs[0].col, 3);
    assert_int_equal(fs[1].line, 3);
    assert_int_equal(fs[1].col, 14);
    diag_list_free(&found);
    snapshot_free(&snap);
    config_free(&cfg);
}

static void comments_and_strings_when_asked(void **state)
{
    (void)state;
    snapshot snap = {0};
    add_file(&snap, "a.c", "f(\"TODO\"); // TODO\n");
    gl_config cfg;
    config_init_defaults(&cfg);
    add_pattern(&cfg, "c", "TODO")->match_comments = true;
    add_pattern(&cfg, "s", "TODO")->match_strings = true;
    diag_list found = run(&snap, &cfg);
    size_t n = found.n;
    diag_finding *fs = found.items;
    assert_int_equal(n, 2);
    assert_string_equal(fs[0].rule, "pattern:s");
    assert_int_equal(fs[0].col, 4);
    assert_string_equal(fs[1].rule, "pattern:c");
    assert_int_equal(fs[1].col, 15);
    diag_list_free(&found);
    snapshot_free(&snap);
    config_free(&cfg);
}

static void path_globs_and_empty_matches(void **state)
{
    (void)state;
    snapshot snap = {0};
    add_file(&snap, "layer/a.c", "x;\ny;\n");
    add_file(&snap, "tools/b.c", "z;\n");
    gl_config cfg;
    config_init_defaults(&cfg);
    /* "^" matches the empty string at each line start: one finding per line,
     * and the scan must still end. */
    str_list_push(&add_pattern(&cfg, "line", "^")->include, "layer/**");
    diag_list found = run(&snap, &cfg);
    size_t n = found.n;
    diag_finding *fs = found.items;
    assert_int_equal(n, 2);   /* lines 1 and 2: no line starts after the final newline */
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(fs[i].file, "layer/a.c");
        assert_int_equal(fs[i].line, i + 1);
        assert_int_equal(fs[i].col, 1);
    }
    diag_list_free(&found);
    snapshot_free(&snap);
    config_free(&cfg);
}

/* A regex that backtracks past the match limit: an error-free "no match"
 * would lose the finding, so the file is not-checked from where the search
 * stopped, whatever the pattern's own severity, naming the pattern. */
static void match_limit_is_not_checked_not_a_silent_no_match(void **state)
{
    (void)state;
    snapshot snap = {0};
    add_file(&snap, "slow.c", "int x;\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\n");
    gl_config cfg;
    config_init_defaults(&cfg);
    cfg.limits.regex_match_limit = 1000;
    add_pattern(&cfg, "slow", "^(a|aa)+$");
    diag_list found = run(&snap, &cfg);
    assert_int_equal(found.n, 1);
    assert_string_equal(found.items[0].rule, "not-checked");
    assert_string_equal(found.items[0].file, "slow.c");
    assert_int_equal(found.items[0].line, 1);   /* where the search started */
    assert_non_null(strstr(found.items[0].message, "not checked by pattern:slow from here on"));
    assert_non_null(strstr(found.items[0].message, "match limit"));
    assert_non_null(strstr(found.items[0].message, "regex-match-limit: 1000"));
    diag_list_free(&found);
    config_free(&cfg);
    snapshot_free(&snap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(match_limit_is_not_checked_not_a_silent_no_match),
        cmocka_unit_test(matches_code_only_by_default),
        cmocka_unit_test(comments_and_strings_when_asked),
        cmocka_unit_test(path_globs_and_empty_matches),
    };
    return cmocka_run_group_tests_name("pattern", tests, NULL, NULL);
}
