/* Offsets to lines and columns, and line texts (analyzer/input/source.c): every
 * reporter and rule counts on them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "input/source.h"
#include "util/xalloc.h"

static source_file make(const char *path, const char *text)
{
    source_file f;
    source_file_init(&f, xstrdup(path), xstrdup(path), xstrdup(text), strlen(text));
    return f;
}

static void expect_pos(const source_file *f, size_t off, unsigned line, unsigned col)
{
    unsigned l, c;
    source_line_col(f, off, &l, &c);
    assert_int_equal(l, line);
    assert_int_equal(c, col);
}

static void offsets_to_lines_and_columns(void **state)
{
    (void)state;
    source_file f = make("a.c", "ab\n\ncd\r\nef");
    snapshot snap = {0};
    snapshot_add(&snap, &f);
    const source_file *g = &snap.files[0];
    expect_pos(g, 0, 1, 1);
    expect_pos(g, 1, 1, 2);
    expect_pos(g, 2, 1, 3);    /* the newline itself: end of line 1 */
    expect_pos(g, 3, 2, 1);
    expect_pos(g, 4, 3, 1);
    expect_pos(g, 9, 4, 2);
    expect_pos(g, 10, 4, 3);   /* one past the end */
    expect_pos(g, 99, 4, 3);   /* clamped */
    snapshot_free(&snap);
}

static void line_texts(void **state)
{
    (void)state;
    source_file f = make("a.c", "ab\n\ncd\r\nef");
    const char *s;
    size_t n;
    assert_true(source_line_text(&f, 1, &s, &n));
    assert_int_equal(n, 2);
    assert_memory_equal(s, "ab", 2);
    assert_true(source_line_text(&f, 2, &s, &n));
    assert_int_equal(n, 0);
    assert_true(source_line_text(&f, 3, &s, &n));
    assert_int_equal(n, 2);   /* without the CR */
    assert_memory_equal(s, "cd", 2);
    assert_true(source_line_text(&f, 4, &s, &n));
    assert_memory_equal(s, "ef", 2);
    assert_false(source_line_text(&f, 5, &s, &n));
    assert_false(source_line_text(&f, 0, &s, &n));
    snapshot snap = {0};
    snapshot_add(&snap, &f);
    snapshot_free(&snap);
}

static void kinds_from_extensions(void **state)
{
    (void)state;
    assert_true(source_is_analysable("x/a.c"));
    assert_true(source_is_analysable("a.h"));
    assert_true(source_is_analysable("k.cu"));
    assert_true(source_is_analysable("k.cuh"));
    assert_false(source_is_analysable("a.cpp"));
    assert_false(source_is_analysable("a.c.orig"));
    assert_false(source_is_analysable("dir.c/README"));
    snapshot snap = {0};
    source_file f = make("k.cuh", "x\n");
    snapshot_add(&snap, &f);
    f = make("a.h", "y\n");
    snapshot_add(&snap, &f);
    f = make("a.h", "y\n");   /* the same path given twice */
    snapshot_add(&snap, &f);
    snapshot_sort(&snap);
    assert_int_equal(snap.nfiles, 2);
    assert_string_equal(snap.files[0].path, "a.h");
    assert_true(snap.files[0].is_header);
    assert_int_equal(snap.files[0].lang, LANG_C);
    assert_int_equal(snap.files[1].lang, LANG_CUDA);
    assert_int_equal(snapshot_find(&snap, "k.cuh"), 1);
    assert_int_equal(snapshot_find(&snap, "b.h"), -1);
    /* The SHA-256 of "y\n". */
    assert_string_equal(snap.files[0].hash,
                        "3bb2abb69ebb27fbfe63c7639624c6ec5e331b841a5bc8c3ebc10b9285e90877");
    snapshot_free(&snap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offsets_to_lines_and_columns),
        cmocka_unit_test(line_texts),
        cmocka_unit_test(kinds_from_extensions),
    };
    return cmocka_run_group_tests_name("source", tests, NULL, NULL);
}
