/* Baselines (analyzer/findings/baseline.c): findings match by rule, file and source
 * line text, not line numbers; repeats are counted; gone ones are "fixed". */
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

#include "findings/baseline.h"
#include "util/xalloc.h"

static char path[] = "/tmp/gpulint-unit-baseline-XXXXXX";

static int make_path(void **state)
{
    (void)state;
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int remove_path(void **state)
{
    (void)state;
    return unlink(path);
}

static snapshot one_file(const char *text)
{
    snapshot snap = {.root = "/repo"};
    source_file f;
    source_file_init(&f, xstrdup("k.cu"), xstrdup("/repo/k.cu"), xstrdup(text), strlen(text));
    snapshot_add(&snap, &f);
    return snap;
}

static void write_from(const char *text, const unsigned *lines, size_t n)
{
    snapshot snap = one_file(text);
    diag_sink *sink = diag_sink_new();
    for (size_t i = 0; i < n; i++)
        diag_report(sink, "unchecked-status", "k.cu", lines[i], 5, "status dropped");
    diag_list found = diag_sink_take(sink);
    diag_sink_free(sink);
    char *error = NULL;
    assert_int_equal(baseline_write(path, &snap, found.items, found.n, &error), 0);
    diag_list_free(&found);
    snapshot_free(&snap);
}

static void moved_findings_are_known_new_and_gone_ones_are_told_apart(void **state)
{
    (void)state;
    const unsigned before_lines[] = {2, 3};
    write_from("int f(void);\n  cudaFree(p);\n  cudaDeviceSynchronize();\n", before_lines, 2);

    /* Two lines inserted above; cudaFree's line moved and is indented
     * differently (whitespace is normalised); the sync is gone; a second
     * cudaFree is new. */
    snapshot snap = one_file("// a\n// b\nint f(void);\ncudaFree(p);\n   cudaFree(p);\n");
    diag_sink *sink = diag_sink_new();
    diag_report(sink, "unchecked-status", "k.cu", 4, 1, "status dropped");
    diag_report(sink, "unchecked-status", "k.cu", 5, 4, "status dropped");
    diag_list found = diag_sink_take(sink);
    diag_sink_free(sink);
    baseline_fixed *fixed;
    size_t nfixed;
    char *error = NULL;
    diag_list marked;
    assert_int_equal(baseline_apply(path, &snap, &found, &marked, &fixed, &nfixed, &error), 0);
    size_t n = marked.n;
    diag_finding *fs = marked.items;
    assert_int_equal(n, 2);
    assert_true(fs[0].in_baseline);
    assert_false(fs[1].in_baseline);   /* the second identical line is new */
    assert_int_equal(nfixed, 1);
    assert_string_equal(fixed[0].rule, "unchecked-status");
    assert_string_equal(fixed[0].file, "k.cu");
    assert_int_equal(fixed[0].line, 3);
    baseline_fixed_free(fixed, nfixed);
    diag_list_free(&marked);
    diag_list_free(&found);
    snapshot_free(&snap);
}

static void a_different_rule_on_the_same_line_is_new(void **state)
{
    (void)state;
    const unsigned lines[] = {1};
    write_from("cudaFree(p);\n", lines, 1);
    snapshot snap = one_file("cudaFree(p);\n");
    diag_sink *sink = diag_sink_new();
    diag_report(sink, "mapped-pinned-only", "k.cu", 1, 1, "upload");
    diag_list found = diag_sink_take(sink);
    diag_sink_free(sink);
    baseline_fixed *fixed;
    size_t nfixed;
    char *error = NULL;
    diag_list marked;
    assert_int_equal(baseline_apply(path, &snap, &found, &marked, &fixed, &nfixed, &error), 0);
    assert_false(marked.items[0].in_baseline);
    assert_int_equal(nfixed, 1);
    baseline_fixed_free(fixed, nfixed);
    diag_list_free(&marked);
    diag_list_free(&found);
    snapshot_free(&snap);
}

static void a_file_that_is_not_a_baseline_is_an_error(void **state)
{
    (void)state;
    FILE *fp = fopen(path, "w");
    fputs("{\"findings\": []}\n", fp);
    fclose(fp);
    snapshot snap = one_file("x;\n");
    diag_list found = {0};
    diag_list marked;
    baseline_fixed *fixed;
    size_t nfixed;
    char *error = NULL;
    assert_int_equal(baseline_apply(path, &snap, &found, &marked, &fixed, &nfixed, &error), -1);
    assert_non_null(strstr(error, "not a gpulint baseline"));
    free(error);
    fp = fopen(path, "w");
    fputs("{\"findings\": [\n", fp);
    fclose(fp);
    error = NULL;
    assert_int_equal(baseline_apply(path, &snap, &found, &marked, &fixed, &nfixed, &error), -1);
    assert_non_null(strstr(error, ":2:"));
    free(error);
    snapshot_free(&snap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(moved_findings_are_known_new_and_gone_ones_are_told_apart),
        cmocka_unit_test(a_different_rule_on_the_same_line_is_new),
        cmocka_unit_test(a_file_that_is_not_a_baseline_is_an_error),
    };
    return cmocka_run_group_tests_name("baseline", tests, make_path, remove_path);
}
