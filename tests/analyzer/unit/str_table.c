/* The string table (analyzer/util/str_table.c) that the include-hazard
 * scan's known-clean headers and the run's stat memo keep their entries in:
 * a (tag, key) pair is found again after any number of growths, the same key
 * under two tags is two entries, and clearing frees every value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/str_table.h"

static void every_entry_is_found_after_the_table_grew(void **state)
{
    (void)state;
    str_table t = STR_TABLE_INIT;
    char key[32];
    bool added;
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "/usr/include/h%d.h", i);
        str_table_entry *e = str_table_add(&t, (unsigned long long)(i % 3), key, &added);
        assert_true(added);
        e->value = (void *)(intptr_t)(i + 1);
    }
    assert_int_equal(t.n, 5000);
    assert_true(2 * t.n <= t.cap);
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "/usr/include/h%d.h", i);
        str_table_entry *e = str_table_find(&t, (unsigned long long)(i % 3), key);
        assert_non_null(e);
        assert_string_equal(e->key, key);
        assert_int_equal((intptr_t)e->value, i + 1);
        assert_null(str_table_find(&t, (unsigned long long)(i % 3) + 1, key));
    }
    assert_null(str_table_find(&t, 0, "/usr/include/h5000.h"));
    str_table_clear(&t, NULL);
}

static void a_key_added_again_is_the_same_entry(void **state)
{
    (void)state;
    str_table t = STR_TABLE_INIT;
    bool added;
    str_table_entry *e = str_table_add(&t, 7, "a.h", &added);
    assert_true(added);
    e->value = (void *)"first";
    e = str_table_add(&t, 7, "a.h", &added);
    assert_false(added);
    assert_string_equal((const char *)e->value, "first");
    e = str_table_add(&t, 8, "a.h", &added);
    assert_true(added);
    assert_null(e->value);
    assert_int_equal(t.n, 2);
    str_table_clear(&t, NULL);
}

static int freed;
static void count_free(void *value)
{
    freed++;
    free(value);
}

static void clearing_frees_every_value_and_empties_the_table(void **state)
{
    (void)state;
    str_table t = STR_TABLE_INIT;
    bool added;
    assert_null(str_table_find(&t, 0, "x"));
    str_table_add(&t, 0, "x", &added)->value = malloc(4);
    str_table_add(&t, 0, "y", &added)->value = malloc(4);
    freed = 0;
    str_table_clear(&t, count_free);
    assert_int_equal(freed, 2);
    assert_int_equal(t.n, 0);
    assert_null(str_table_find(&t, 0, "x"));
    str_table_add(&t, 0, "x", &added);
    assert_true(added);
    str_table_clear(&t, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_entry_is_found_after_the_table_grew),
        cmocka_unit_test(a_key_added_again_is_the_same_entry),
        cmocka_unit_test(clearing_frees_every_value_and_empties_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
