/* The github and sarif reporters (analyzer/report/github.c, sarif.c)
 * over hand-made findings. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "util/xalloc.h"

/* A snapshot of one file, "src/a b.c", with `text`. */
static snapshot one_file(const char *text)
{
    snapshot snap = {.root = "/repo"};
    source_file f;
    source_file_init(&f, xstrdup("src/a b.c"), xstrdup("/repo/src/a b.c"), xstrdup(text),
                     strlen(text));
    snapshot_add(&snap, &f);
    return snap;
}

static diag_finding finding(const char *rule, unsigned line, unsigned col, const char *message,
                            severity sev)
{
    return (diag_finding){.rule = (char *)rule, .file = (char *)"src/a b.c",
                          .message = (char *)message, .line = line, .col = col, .sev = sev};
}

/* Run a reporter into a string (malloc'd). */
static char *render(int (*report)(FILE *, const report_input *), const report_input *in)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(report(out, in), 0);
    fclose(out);
    return buf;
}

static void github_escapes_message_and_properties(void **state)
{
    (void)state;
    snapshot snap = one_file("x;\n");
    gl_config cfg;
    config_init_defaults(&cfg);
    diag_finding fs[] = {
        finding("pattern:a,b", 3, 7, "100% bad:\r\nsee, here", SEV_ERROR),
        finding("doc-params", 1, 1, "w", SEV_WARNING),
    };
    fs[1].file = (char *)"dir:x/y,z.c";
    diag_finding hidden = finding("doc-params", 2, 1, "suppressed", SEV_ERROR);
    hidden.suppressed = true;
    diag_finding all[] = {fs[0], fs[1], hidden};
    report_input in = {.snap = &snap, .cfg = &cfg, .findings = all, .nfindings = 3};
    char *out = render(report_github, &in);
    assert_string_equal(out,
                        "::error file=src/a b.c,line=3,col=7,title=pattern%3Aa%2Cb::"
                        "100%25 bad:%0D%0Asee, here [pattern:a,b]\n"
                        "::warning file=dir%3Ax/y%2Cz.c,line=1,col=1,title=doc-params::w [doc-params]\n");
    free(out);
    snapshot_free(&snap);
    config_free(&cfg);
}

static json_t *sarif_doc(snapshot *snap, gl_config *cfg, diag_finding *fs, size_t n, int exit_code,
                         bool full)
{
    report_input in = {.snap = snap, .cfg = cfg, .findings = fs, .nfindings = n,
                       .files_analyzed = snap->nfiles, .exit_code = exit_code, .sarif_full = full};
    char *out = render(report_sarif, &in);
    json_error_t err;
    json_t *doc = json_loads(out, 0, &err);
    if (!doc)
        fail_msg("SARIF is not JSON: %s", err.text);
    free(out);
    return doc;
}

/* The full record (--sarif-full). */
static json_t *sarif_of(snapshot *snap, gl_config *cfg, diag_finding *fs, size_t n, int exit_code)
{
    return sarif_doc(snap, cfg, fs, n, exit_code, true);
}

static json_t *run_of(json_t *doc)
{
    return json_array_get(json_object_get(doc, "runs"), 0);
}

static void sarif_rules_results_and_suppressions(void **state)
{
    (void)state;
    snapshot snap = one_file("int a;\n  upload_f32_via_pinned(x);\n");
    gl_config cfg;
    config_init_defaults(&cfg);
    cfg.patterns = xcalloc(1, sizeof *cfg.patterns);
    cfg.npatterns = 1;
    cfg.patterns[0].id = xstrdup("no-printf");
    cfg.patterns[0].regex = xstrdup("printf");
    cfg.patterns[0].message = xstrdup("use the logger");
    diag_finding fs[] = {
        finding("no-via-pinned", 2, 3, "banned", SEV_ERROR),
        finding("pattern:no-printf", 1, 1, "use the logger", SEV_WARNING),
    };
    fs[1].suppressed = true;
    fs[1].suppress_reason = (char *)"startup banner";
    json_t *doc = sarif_of(&snap, &cfg, fs, 2, 1);
    assert_string_equal(json_string_value(json_object_get(doc, "version")), "2.1.0");
    json_t *run = run_of(doc);
    json_t *rules = json_object_get(json_object_get(json_object_get(run, "tool"), "driver"), "rules");
    /* The registry's rules (without the generic pattern row) plus the pattern. */
    assert_int_equal(json_array_size(rules), 11);
    const char *want_ids[] = {"no-via-pinned", "pattern:no-printf", "unused-suppression"};
    for (size_t w = 0; w < 3; w++) {
        bool found = false;
        for (size_t i = 0; i < json_array_size(rules); i++) {
            json_t *r = json_array_get(rules, i);
            if (strcmp(json_string_value(json_object_get(r, "id")), want_ids[w]) != 0)
                continue;
            found = true;
            assert_non_null(json_string_value(json_object_get(json_object_get(r, "shortDescription"), "text")));
            assert_non_null(json_string_value(json_object_get(json_object_get(r, "fullDescription"), "text")));
            assert_non_null(json_string_value(json_object_get(json_object_get(r, "help"), "text")));
            assert_non_null(strstr(json_string_value(json_object_get(json_object_get(r, "help"), "markdown")),
                                   "```text\n"));
            /* no docs/rules.md in the snapshot, not in Actions: no link to a page that is not there */
            assert_null(json_object_get(r, "helpUri"));
            assert_true(strlen(json_string_value(json_object_get(json_object_get(r, "fullDescription"), "text"))) <= 1024);
            assert_non_null(json_string_value(json_object_get(r, "name")));
            json_t *props = json_object_get(r, "properties");
            assert_true(json_array_size(json_object_get(props, "tags")) > 0);
            assert_non_null(json_string_value(json_object_get(props, "precision")));
        }
        if (!found)
            fail_msg("rule %s missing from tool.driver.rules", want_ids[w]);
    }
    json_t *results = json_object_get(run, "results");
    assert_int_equal(json_array_size(results), 2);
    json_t *r0 = json_array_get(results, 0);
    assert_string_equal(json_string_value(json_object_get(r0, "ruleId")), "no-via-pinned");
    size_t idx = (size_t)json_integer_value(json_object_get(r0, "ruleIndex"));
    assert_string_equal(json_string_value(json_object_get(json_array_get(rules, idx), "id")),
                        "no-via-pinned");
    assert_string_equal(json_string_value(json_object_get(r0, "level")), "error");
    json_t *phys = json_object_get(json_array_get(json_object_get(r0, "locations"), 0), "physicalLocation");
    assert_string_equal(json_string_value(json_object_get(json_object_get(phys, "artifactLocation"), "uri")),
                        "src/a%20b.c");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(phys, "region"), "startLine")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(phys, "region"), "startColumn")), 3);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(phys, "region"), "endLine")), 2);
    /* the word at the column: upload_f32_via_pinned, 21 characters */
    assert_int_equal(json_integer_value(json_object_get(json_object_get(phys, "region"), "endColumn")), 24);
    assert_true(json_is_array(json_object_get(r0, "suppressions")));
    assert_int_equal(json_array_size(json_object_get(r0, "suppressions")), 0);
    json_t *sup = json_array_get(json_object_get(json_array_get(results, 1), "suppressions"), 0);
    assert_string_equal(json_string_value(json_object_get(sup, "kind")), "inSource");
    assert_string_equal(json_string_value(json_object_get(sup, "justification")), "startup banner");
    json_t *inv = json_array_get(json_object_get(run, "invocations"), 0);
    assert_int_equal(json_integer_value(json_object_get(inv, "exitCode")), 1);
    assert_true(json_is_true(json_object_get(inv, "executionSuccessful")));
    json_t *driver = json_object_get(json_object_get(run, "tool"), "driver");
    assert_non_null(json_string_value(json_object_get(driver, "fullName")));
    assert_string_equal(json_string_value(json_object_get(driver, "semanticVersion")),
                        json_string_value(json_object_get(driver, "version")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(run, "automationDetails"), "id")),
                        "gpulint/");
    json_decref(doc);
    /* The upload file: the suppressed finding is no alert. */
    doc = sarif_doc(&snap, &cfg, fs, 2, 1, false);
    results = json_object_get(run_of(doc), "results");
    assert_int_equal(json_array_size(results), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(results, 0), "ruleId")),
                        "no-via-pinned");
    json_decref(doc);
    snapshot_free(&snap);
    config_free(&cfg);
}

static const char *line_hash_of_result(json_t *doc, size_t i)
{
    json_t *r = json_array_get(json_object_get(run_of(doc), "results"), i);
    return json_string_value(json_object_get(json_object_get(r, "partialFingerprints"),
                                             "primaryLocationLineHash"));
}

/* GitHub's primaryLocationLineHash hashes the 100 characters from the
 * line's start (spaces and tabs left out): 10 lines inserted above leave it
 * as it was; an edit of the line changes it; two identical lines far enough
 * apart are told apart by the ":<n>" count. */
static void sarif_line_hash_survives_lines_inserted_above(void **state)
{
    (void)state;
    const char *body = "void f(float *d)\n{\n    upload_f32_via_pinned(d);\n}\n";
    gl_config cfg;
    config_init_defaults(&cfg);
    snapshot snap = one_file(body);
    diag_finding fs[] = {finding("no-via-pinned", 3, 5, "banned", SEV_ERROR)};
    json_t *doc = sarif_doc(&snap, &cfg, fs, 1, 1, false);
    char *before = xstrdup(line_hash_of_result(doc, 0));
    json_decref(doc);
    snapshot_free(&snap);
    assert_non_null(strstr(before, ":1"));

    char *moved = xasprintf("%s%s", "#include <stddef.h>\n/* 1 */\n/* 2 */\n/* 3 */\n\n/* 5 */\n"
                                    "int a;\nint b;\n\t\nint c;\n", body);
    snap = one_file(moved);
    fs[0].line = 13;
    doc = sarif_doc(&snap, &cfg, fs, 1, 1, false);
    assert_string_equal(line_hash_of_result(doc, 0), before);
    json_decref(doc);
    snapshot_free(&snap);
    free(moved);

    /* indentation is not part of it; the code is */
    snap = one_file("void f(float *d)\n{\n\t\tupload_f32_via_pinned(d);\n}\n");
    fs[0].line = 3;
    doc = sarif_doc(&snap, &cfg, fs, 1, 1, false);
    assert_string_equal(line_hash_of_result(doc, 0), before);
    json_decref(doc);
    snapshot_free(&snap);
    snap = one_file("void f(float *d)\n{\n    upload_f32_via_pinned(d + 1);\n}\n");
    doc = sarif_doc(&snap, &cfg, fs, 1, 1, false);
    assert_string_not_equal(line_hash_of_result(doc, 0), before);
    json_decref(doc);
    snapshot_free(&snap);
    free(before);
    config_free(&cfg);
}

static const char *fingerprint_of(json_t *doc, size_t i)
{
    json_t *r = json_array_get(json_object_get(run_of(doc), "results"), i);
    return json_string_value(json_object_get(json_object_get(r, "partialFingerprints"), "gpulint/v1"));
}

static void sarif_fingerprints_ignore_line_numbers_and_count_repeats(void **state)
{
    (void)state;
    gl_config cfg;
    config_init_defaults(&cfg);
    snapshot before = one_file("f();\ncall(x);\ncall(x);\n");
    snapshot after = one_file("// a new comment\n\nf();\n  call(x);\ncall( x );\n");
    diag_finding fb[] = {finding("unchecked-status", 2, 1, "m", SEV_ERROR),
                         finding("unchecked-status", 3, 1, "m", SEV_ERROR)};
    diag_finding fa[] = {finding("unchecked-status", 4, 3, "m", SEV_ERROR),
                         finding("unchecked-status", 5, 1, "m", SEV_ERROR)};
    json_t *db = sarif_of(&before, &cfg, fb, 2, 1), *da = sarif_of(&after, &cfg, fa, 2, 1);
    assert_string_equal(fingerprint_of(db, 0), fingerprint_of(da, 0));
    assert_string_not_equal(fingerprint_of(db, 0), fingerprint_of(db, 1));
    assert_non_null(strstr(fingerprint_of(db, 1), ":1"));
    /* "call( x );" normalises differently from "call(x);": a new fingerprint. */
    assert_string_not_equal(fingerprint_of(db, 1), fingerprint_of(da, 1));
    json_decref(db);
    json_decref(da);
    snapshot_free(&before);
    snapshot_free(&after);
    config_free(&cfg);
}

static void sarif_columns_are_utf16_units(void **state)
{
    (void)state;
    /* "é" is 2 bytes and 1 UTF-16 unit; "😀" 4 bytes and 2 units. */
    snapshot snap = one_file("/* \xc3\xa9 \xf0\x9f\x98\x80 */ bad();\n");
    gl_config cfg;
    config_init_defaults(&cfg);
    diag_finding fs[] = {finding("pattern:x", 1, 15, "m", SEV_ERROR)};
    json_t *doc = sarif_of(&snap, &cfg, fs, 1, 1);
    json_t *r = json_array_get(json_object_get(run_of(doc), "results"), 0);
    json_t *region = json_object_get(
        json_object_get(json_array_get(json_object_get(r, "locations"), 0), "physicalLocation"),
        "region");
    assert_int_equal(json_integer_value(json_object_get(region, "startColumn")), 12);
    json_decref(doc);
    snapshot_free(&snap);
    config_free(&cfg);
}

static void sarif_records_failures_as_notifications(void **state)
{
    (void)state;
    snapshot snap = one_file("x;\n");
    gl_config cfg;
    config_init_defaults(&cfg);
    str_list failures = {0};
    str_list_push(&failures, "k.cu: libclang could not parse it: AST read error");
    report_input in = {.snap = &snap, .cfg = &cfg, .exit_code = 3, .failures = &failures};
    char *out = render(report_sarif, &in);
    json_t *doc = json_loads(out, 0, NULL);
    free(out);
    json_t *inv = json_array_get(json_object_get(run_of(doc), "invocations"), 0);
    assert_true(json_is_false(json_object_get(inv, "executionSuccessful")));
    assert_int_equal(json_integer_value(json_object_get(inv, "exitCode")), 3);
    json_t *note = json_array_get(json_object_get(inv, "toolExecutionNotifications"), 0);
    assert_string_equal(json_string_value(json_object_get(note, "level")), "error");
    assert_string_equal(json_string_value(json_object_get(json_object_get(note, "message"), "text")),
                        "k.cu: libclang could not parse it: AST read error");
    json_decref(doc);
    free(failures.items[0]);
    free(failures.items);
    snapshot_free(&snap);
    config_free(&cfg);
}

/* Above GitHub's 25,000 results the run is cut, errors kept first: here
 * the one error comes last in output order and is still in. */
static void sarif_truncates_above_25000_results(void **state)
{
    (void)state;
    snapshot snap = one_file("x;\n");
    gl_config cfg;
    config_init_defaults(&cfg);
    size_t n = 25002;
    diag_finding *fs = xcalloc(n, sizeof *fs);
    for (size_t i = 0; i + 1 < n; i++)
        fs[i] = finding("doc-params", 1, 1, "m", SEV_WARNING);
    fs[n - 1] = finding("no-via-pinned", 1, 1, "banned", SEV_ERROR);
    json_t *doc = sarif_of(&snap, &cfg, fs, n, 1);
    json_t *run = run_of(doc);
    json_t *results = json_object_get(run, "results");
    assert_int_equal(json_array_size(results), 25000);
    assert_string_equal(json_string_value(json_object_get(json_array_get(results, 0), "ruleId")),
                        "no-via-pinned");
    json_t *inv = json_array_get(json_object_get(run, "invocations"), 0);
    json_t *note = json_array_get(json_object_get(inv, "toolExecutionNotifications"), 0);
    assert_non_null(note);
    const char *text = json_string_value(json_object_get(json_object_get(note, "message"), "text"));
    assert_non_null(strstr(text, "25002 results, cut to the first 25000"));
    assert_non_null(strstr(text, "left out 0 errors, 2 warnings and 0 fixed baseline entries, of the rules doc-params;"));
    json_decref(doc);
    free(fs);
    snapshot_free(&snap);
    config_free(&cfg);
}

/* Microsoft's validator (tests/sarif/validate, installed by make deps). */
static void sarif_passes_the_validator(void **state)
{
    (void)state;
    if (access("tests/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool", X_OK) != 0)
        skip();
    snapshot snap = one_file("int a;\nb;\n");
    gl_config cfg;
    config_init_defaults(&cfg);
    diag_finding fs[] = {finding("no-via-pinned", 2, 1, "banned", SEV_ERROR),
                         finding("doc-params", 1, 1, "stale", SEV_WARNING)};
    fs[1].suppressed = true;
    fs[1].suppress_reason = (char *)"generated";
    report_input in = {.snap = &snap, .cfg = &cfg, .findings = fs, .nfindings = 2, .exit_code = 1};
    char path[] = "/tmp/gpulint-unit-XXXXXX.sarif";
    int fd = mkstemps(path, 6);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "w");
    assert_int_equal(report_sarif(out, &in), 0);
    fclose(out);
    char *cmd = xasprintf("tests/sarif/validate %s", path);
    int rc = system(cmd);
    free(cmd);
    unlink(path);
    assert_int_equal(rc, 0);
    snapshot_free(&snap);
    config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(github_escapes_message_and_properties),
        cmocka_unit_test(sarif_rules_results_and_suppressions),
        cmocka_unit_test(sarif_fingerprints_ignore_line_numbers_and_count_repeats),
        cmocka_unit_test(sarif_columns_are_utf16_units),
        cmocka_unit_test(sarif_records_failures_as_notifications),
        cmocka_unit_test(sarif_line_hash_survives_lines_inserted_above),
        cmocka_unit_test(sarif_truncates_above_25000_results),
        cmocka_unit_test(sarif_passes_the_validator),
    };
    return cmocka_run_group_tests_name("reporters", tests, NULL, NULL);
}
