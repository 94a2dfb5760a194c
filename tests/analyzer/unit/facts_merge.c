/* The union of one file's facts from several translation units
 * (analyzer/facts/merge.c): each fact once, two facts the same only when
 * every field is, whatever its codec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "facts/facts.h"
#include "util/xalloc.h"

static fact_copy copy_of(const char *callee, unsigned line, long value)
{
    return (fact_copy){ .callee = xstrdup(callee), .loc = { line, 5 },
                        .kind = COPY_KIND_RESOLVED, .kind_values = value };
}

static fact_function function_of(const char *param)
{
    fact_strs params = { .items = xcalloc(1, sizeof(char *)), .n = 1 };
    params.items[0] = xstrdup(param);
    return (fact_function){ .name = xstrdup("scale"), .usr = xstrdup("c:@F@scale"),
                            .params = params, .result = xstrdup("void"), .loc = { 7, 13 },
                            .exec = EXEC_KERNEL };
}

static fact_not_checked missing(const char *via)
{
    return (fact_not_checked){ .cause = UNCHECKED_MISSING_INCLUDE, .detail = xstrdup("cfg.h"),
                               .via = via ? xstrdup(via) : NULL, .loc = { 1, 1 } };
}

static void union_keeps_each_fact_once(void **state)
{
    (void)state;
    file_facts *into = xcalloc(1, sizeof *into);
    into->copies = xcalloc(into->n_copies = 1, sizeof *into->copies);
    into->copies[0] = copy_of("cudaMemcpy", 14, 3);
    into->functions = xcalloc(into->n_functions = 1, sizeof *into->functions);
    into->functions[0] = function_of("float *");
    into->not_checked = xcalloc(into->n_not_checked = 1, sizeof *into->not_checked);
    into->not_checked[0] = missing(NULL);

    file_facts *from = xcalloc(1, sizeof *from);
    from->copies = xcalloc(from->n_copies = 3, sizeof *from->copies);
    from->copies[0] = copy_of("cudaMemcpy", 14, 3);   /* the same */
    from->copies[1] = copy_of("cudaMemcpy", 14, 1);   /* another kind there */
    from->copies[2] = copy_of("cudaMemcpy", 14, 1);   /* twice in `from` */
    from->functions = xcalloc(from->n_functions = 2, sizeof *from->functions);
    from->functions[0] = function_of("float *");
    from->functions[1] = function_of("double *");     /* one string of a list differs */
    from->not_checked = xcalloc(from->n_not_checked = 2, sizeof *from->not_checked);
    from->not_checked[0] = missing(NULL);
    from->not_checked[1] = missing("main.cu:3");      /* NULL and a text differ */
    from->parse_errors = xcalloc(from->n_parse_errors = 1, sizeof *from->parse_errors);
    from->parse_errors[0] = (fact_parse_error){ .message = xstrdup("unknown type name 'real'"),
                                                .loc = { 9, 1 } };

    facts_merge(into, from);

    assert_int_equal(into->n_copies, 2);
    assert_int_equal(into->copies[0].kind_values, 3);
    assert_int_equal(into->copies[1].kind_values, 1);
    assert_int_equal(into->n_functions, 2);
    assert_string_equal(into->functions[0].params.items[0], "float *");
    assert_string_equal(into->functions[1].params.items[0], "double *");
    assert_int_equal(into->n_not_checked, 2);
    assert_null(into->not_checked[0].via);
    assert_string_equal(into->not_checked[1].via, "main.cu:3");
    assert_int_equal(into->n_parse_errors, 1);
    assert_string_equal(into->parse_errors[0].message, "unknown type name 'real'");
    assert_int_equal(into->n_launches, 0);
    facts_free(into);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(union_keeps_each_fact_once),
    };
    return cmocka_run_group_tests_name("facts_merge", tests, NULL, NULL);
}
