/* .gpulint.yaml loading (analyzer/config/config.c): the schema, and errors that name
 * the line and column. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "rules/run_rules.h"

static char dir_template[] = "/tmp/gpulint-unit-config-XXXXXX";
static const char *dir;

static int make_dir(void **state)
{
    (void)state;
    dir = mkdtemp(dir_template);
    return dir ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char *path;
    if (asprintf(&path, "%s/.gpulint.yaml", dir) >= 0) {
        unlink(path);
        free(path);
    }
    return rmdir(dir);
}

/* Load `yaml` from a file as gpulint does (config_load, then the check of
 * the rule ids); returns 0 or -1, the error in *error. */
static int load(const char *yaml, gl_config *cfg, char **error)
{
    char *path;
    assert_true(asprintf(&path, "%s/.gpulint.yaml", dir) >= 0);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(yaml, fp);
    fclose(fp);
    config_init_defaults(cfg);
    *error = NULL;
    int rc = config_load(cfg, path, ".gpulint.yaml", error);
    if (rc == 0)
        rc = rules_check_config(cfg, error);
    free(path);
    return rc;
}

/* The load fails with exactly this message. */
static void expect_error(const char *yaml, const char *message)
{
    gl_config cfg;
    char *error;
    assert_int_equal(load(yaml, &cfg, &error), -1);
    assert_non_null(error);
    assert_string_equal(error, message);
    free(error);
    config_free(&cfg);
}

static void full_schema(void **state)
{
    (void)state;
    gl_config cfg;
    char *error;
    int rc = load("rules:\n"
                  "  no-cpu-compute:\n"
                  "    enabled: true\n"
                  "    severity: warning\n"
                  "    include: [\"layer/**\"]\n"
                  "    exclude: [\"layer/ref/**\"]\n"
                  "  doc-params:\n"
                  "    enabled: false\n"
                  "hot: [\"tlob_*_forward\"]\n"
                  "banned-names: [\"old_upload_*\"]\n"
                  "patterns:\n"
                  "  - id: no-printf\n"
                  "    regex: 'printf\\s*\\('\n"
                  "    message: use the logger\n"
                  "    severity: warning\n"
                  "    match-comments: true\n"
                  "include-dirs: [layer, /abs/inc]\n"
                  "defines: [\"TLOB_X=1\"]\n"
                  "exclude: [\"tests/analyzer/fixtures/**\"]\n",
                  &cfg, &error);
    assert_int_equal(rc, 0);
    assert_int_equal(cfg.nrules, 2);
    const rule_config *r = config_find_rule(&cfg, "no-cpu-compute");
    assert_non_null(r);
    assert_true(r->enabled);
    assert_int_equal(r->sev, SEV_WARNING);
    assert_int_equal(config_severity(&cfg, "no-cpu-compute", SEV_ERROR), SEV_WARNING);
    assert_int_equal(config_severity(&cfg, "no-via-pinned", SEV_ERROR), SEV_ERROR);
    assert_true(config_rule_applies(&cfg, "no-cpu-compute", "layer/attention.cu"));
    assert_false(config_rule_applies(&cfg, "no-cpu-compute", "layer/ref/cpu.c"));
    assert_false(config_rule_applies(&cfg, "no-cpu-compute", "tools/x.c"));
    assert_false(config_rule_applies(&cfg, "doc-params", "layer/attention.cu"));
    assert_true(config_rule_applies(&cfg, "no-via-pinned", "anything.c"));

    assert_int_equal(cfg.npatterns, 1);
    const pattern_rule *p = config_find_pattern(&cfg, "pattern:no-printf");
    assert_non_null(p);
    assert_string_equal(p->regex, "printf\\s*\\(");
    assert_string_equal(p->message, "use the logger");
    assert_true(p->match_comments);
    assert_false(p->match_strings);
    assert_int_equal(config_severity(&cfg, "pattern:no-printf", SEV_ERROR), SEV_WARNING);

    assert_int_equal(cfg.hot.n, 1);
    /* banned-names adds to the names docs/rules.md bans. */
    assert_int_equal(cfg.banned_names.n, 3);
    assert_string_equal(cfg.banned_names.items[2], "old_upload_*");
    assert_int_equal(cfg.include_dirs.n, 2);
    /* Relative to the config file's directory (resolved: /tmp may be a link). */
    char resolved[4096], *want;
    assert_non_null(realpath(dir, resolved));
    assert_true(asprintf(&want, "%s/layer", resolved) >= 0);
    assert_string_equal(cfg.include_dirs.items[0], want);
    free(want);
    assert_string_equal(cfg.include_dirs.items[1], "/abs/inc");
    assert_string_equal(cfg.defines.items[0], "TLOB_X=1");
    assert_string_equal(cfg.exclude.items[0], "tests/analyzer/fixtures/**");
    config_free(&cfg);
}

static void empty_file_gives_defaults(void **state)
{
    (void)state;
    gl_config cfg;
    char *error;
    assert_int_equal(load("", &cfg, &error), 0);
    assert_int_equal(cfg.nrules, 0);
    assert_int_equal(cfg.banned_names.n, 2);
    assert_true(config_rule_applies(&cfg, "doc-params", "x.c"));
    config_free(&cfg);
}

static void unknown_key_in_a_rule(void **state)
{
    (void)state;
    expect_error("rules:\n"
                 "  no-cpu-compute:\n"
                 "    enabled: true\n"
                 "    severty: error\n",
                 ".gpulint.yaml:4:5: error: unknown key 'severty' in rules.no-cpu-compute");
}

static void unknown_top_level_key(void **state)
{
    (void)state;
    expect_error("exclude: []\nexcludes: [x]\n",
                 ".gpulint.yaml:2:1: error: unknown key 'excludes' at the top level");
}

static void unknown_rule(void **state)
{
    (void)state;
    expect_error("rules:\n  no-cpu-compue:\n    enabled: false\n",
                 ".gpulint.yaml:2:3: error: unknown rule 'no-cpu-compue' in rules "
                 "(gpulint --list-rules lists them)");
}

static void pattern_rule_configured_before_its_pattern(void **state)
{
    (void)state;
    gl_config cfg;
    char *error;
    assert_int_equal(load("rules:\n  pattern:p:\n    severity: warning\n"
                          "patterns:\n  - id: p\n    regex: x\n",
                          &cfg, &error),
                     0);
    assert_int_equal(config_severity(&cfg, "pattern:p", SEV_ERROR), SEV_WARNING);
    config_free(&cfg);
    expect_error("rules:\n  pattern:q:\n    severity: warning\n",
                 ".gpulint.yaml:2:3: error: unknown rule 'pattern:q' in rules "
                 "(no pattern with that id under patterns:)");
}

static void bad_values(void **state)
{
    (void)state;
    expect_error("rules:\n  doc-params:\n    severity: fatal\n",
                 ".gpulint.yaml:3:15: error: severity must be 'error' or 'warning', not 'fatal'");
    expect_error("rules:\n  doc-params:\n    enabled: maybe\n",
                 ".gpulint.yaml:3:14: error: enabled must be true or false");
    expect_error("exclude: tests\n",
                 ".gpulint.yaml:1:10: error: exclude must be a list of strings");
    expect_error("rules: [a]\n", ".gpulint.yaml:1:8: error: rules must be a mapping (key: value)");
}

static void bad_patterns(void **state)
{
    (void)state;
    expect_error("patterns:\n  - id: p\n    regex: 'a(b'\n",
                 ".gpulint.yaml:3:12: error: invalid regex in patterns[0] at offset 3: "
                 "missing closing parenthesis");
    expect_error("patterns:\n  - regex: x\n",
                 ".gpulint.yaml:2:5: error: patterns[0] has no 'id'");
    expect_error("patterns:\n  - id: p\n",
                 ".gpulint.yaml:2:5: error: patterns[0] ('p') has no 'regex'");
    expect_error("patterns:\n  - id: p\n    regex: x\n  - id: p\n    regex: y\n",
                 ".gpulint.yaml:4:5: error: duplicate pattern id 'p'");
    expect_error("patterns:\n  - id: p q\n    regex: x\n",
                 ".gpulint.yaml:2:9: error: pattern id 'p q' may only use letters, digits, "
                 "'-', '_' and '.'");
    expect_error("patterns:\n  - id: p\n    regex: x\n    colour: red\n",
                 ".gpulint.yaml:4:5: error: unknown key 'colour' in patterns[0]");
}

static void duplicate_key(void **state)
{
    (void)state;
    expect_error("hot: [a]\nhot: [b]\n", ".gpulint.yaml:2:1: error: duplicate key 'hot' in the top level");
}

static void yaml_syntax_error(void **state)
{
    (void)state;
    gl_config cfg;
    char *error;
    assert_int_equal(load("rules: [this is not\n  valid: yaml\n", &cfg, &error), -1);
    assert_non_null(strstr(error, ".gpulint.yaml:2:"));
    assert_non_null(strstr(error, "error: invalid YAML"));
    free(error);
    config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(full_schema),
        cmocka_unit_test(empty_file_gives_defaults),
        cmocka_unit_test(unknown_key_in_a_rule),
        cmocka_unit_test(unknown_top_level_key),
        cmocka_unit_test(unknown_rule),
        cmocka_unit_test(pattern_rule_configured_before_its_pattern),
        cmocka_unit_test(bad_values),
        cmocka_unit_test(bad_patterns),
        cmocka_unit_test(duplicate_key),
        cmocka_unit_test(yaml_syntax_error),
    };
    return cmocka_run_group_tests_name("config", tests, make_dir, remove_dir);
}
