/* Calls of function-like macros read and expanded from text
 * (analyzer/input/macro_call.c), as the preprocessor expands an #include's
 * operand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "input/macro_call.h"
#include "util/xalloc.h"

/* The expansion of a call `args` (with its parentheses) of the macro whose
 * definition after its name is `definition`; NULL when none. */
static char *expand(const char *definition, const char *call)
{
    char **params, *body, **args;
    size_t nparams, nargs;
    bool variadic;
    const char *after;
    if (!macro_call_params(definition, definition + strlen(definition), &params, &nparams,
                           &variadic, &body))
        return NULL;
    args = macro_call_args(call, call + strlen(call), &nargs, &after);
    assert_non_null(args);
    char *out = macro_call_expand(params, nparams, variadic, body, args, NULL, nargs);
    str_array_free(params, nparams);
    str_array_free(args, nargs);
    free(body);
    return out;
}

static void expect_expansion(const char *definition, const char *call, const char *want)
{
    char *got = expand(definition, call);
    if (want) {
        assert_non_null(got);
        assert_string_equal(got, want);
    } else {
        assert_null(got);
    }
    free(got);
}

static void a_hash_makes_the_argument_a_string(void **state)
{
    (void)state;
    expect_expansion("(x) #x", "(table_upload.h)", "\"table_upload.h\"");
    expect_expansion("(x) # x", "(  a   b.h )", "\"a b.h\"");
}

static void a_parameter_is_replaced_where_it_is_a_whole_identifier(void **state)
{
    (void)state;
    expect_expansion("(name) STRINGIFY(name.h)", "(table)", "STRINGIFY(table.h)");
    expect_expansion("(n) <n/nname.h>", "(lib)", "<lib/nname.h>");
}

static void pasting_joins_the_neighbours(void **state)
{
    (void)state;
    expect_expansion("(a, b) <a ## _ ## b.h>", "(gin, proxy)", "<gin_proxy.h>");
}

static void nested_parentheses_stay_in_one_argument(void **state)
{
    (void)state;
    expect_expansion("(x, y) y", "(f(a, b), last.h)", "last.h");
}

static void a_comment_ends_the_body(void **state)
{
    (void)state;
    expect_expansion("(x) #x /* why */", "(a.h)", "\"a.h\"");
}

static void what_cannot_be_expanded_gives_nothing(void **state)
{
    (void)state;
    expect_expansion("(x) #x", "(a.h, b.h)", NULL);      /* one parameter, two arguments */
    expect_expansion("(x) #y", "(a.h)", NULL);            /* # before no parameter */
    expect_expansion("(x) #x", "(\"a.h\")", NULL);       /* a quote in the argument */
    expect_expansion("(x, y) x", "(a.h)", NULL);         /* too few arguments */
    expect_expansion("(x) __VA_OPT__(x)", "(a.h)", NULL);   /* __VA_OPT__, not variadic */
    expect_expansion("(...) #__VA_OPT__(x)", "(a.h)", NULL); /* # of __VA_OPT__ */
    expect_expansion("(...) <__VA_OPT__(x>", "(a.h)", NULL); /* unclosed */
}

/* The last parameter of a variadic macro takes the arguments from its
 * position on, as written between the commas (none: empty). */
static void a_variadic_parameter_takes_the_rest(void **state)
{
    (void)state;
    expect_expansion("(...) #__VA_ARGS__", "(c.h)", "\"c.h\"");
    expect_expansion("(dir, ...) <dir/__VA_ARGS__>", "(lib, a, b)", "<lib/a, b>");
    expect_expansion("(dir, ...) <dir ## __VA_ARGS__.h>", "(lib)", "<lib.h>");
    expect_expansion("(dir, rest...) <dir/rest.h>", "(lib, x)", "<lib/x.h>");
    expect_expansion("(dir, ...) dir", "(lib.h, a)", "lib.h");
}

/* C++20's __VA_OPT__(tokens): the tokens when the variable arguments have
 * any (as `g++ -std=c++20 -E` gives), nothing when they have none. */
static void va_opt_follows_the_variable_arguments(void **state)
{
    (void)state;
    expect_expansion("(name, ...) <name ## __VA_OPT__(_ ## __VA_ARGS__).h>", "(table, upload)",
                     "<table_upload.h>");
    expect_expansion("(name, ...) <name ## __VA_OPT__(_ ## __VA_ARGS__).h>", "(table)",
                     "<table.h>");
    expect_expansion("(dir, ...) <dir/__VA_OPT__(__VA_ARGS__/)x.h>", "(lib, sub)",
                     "<lib/sub/x.h>");
    expect_expansion("(dir, ...) <dir/__VA_OPT__(__VA_ARGS__/)x.h>", "(lib)", "<lib/x.h>");
    expect_expansion("(...) <a __VA_OPT__((b)) c>", "(1)", "<a (b) c>");
}

/* With expanded arguments: `TABLE` the argument as written, `table` as
 * the caller expanded it. */
static void an_operand_of_hash_or_paste_takes_the_argument_as_written(void **state)
{
    (void)state;
    char *params[] = {"n"}, *args[] = {"TABLE"}, *expanded[] = {"table"};
    const struct {
        const char *body, *want;
    } cases[] = {
        {"STRINGIFY(n.h)", "STRINGIFY(table.h)"},
        {"#n", "\"TABLE\""},
        {"<n ## _upload.h>", "<TABLE_upload.h>"},
        {"<dir_ ## n>", "<dir_TABLE>"},
        {"<n/n ## _x.h>", "<table/TABLE_x.h>"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = macro_call_expand(params, 1, false, cases[i].body, args, expanded, 1);
        assert_non_null(got);
        assert_string_equal(got, cases[i].want);
        free(got);
    }
}

static void unbalanced_arguments_are_no_call(void **state)
{
    (void)state;
    size_t n;
    const char *after;
    const char *call = "(a, (b)";
    assert_null(macro_call_args(call, call + strlen(call), &n, &after));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_hash_makes_the_argument_a_string),
        cmocka_unit_test(a_parameter_is_replaced_where_it_is_a_whole_identifier),
        cmocka_unit_test(pasting_joins_the_neighbours),
        cmocka_unit_test(nested_parentheses_stay_in_one_argument),
        cmocka_unit_test(a_comment_ends_the_body),
        cmocka_unit_test(what_cannot_be_expanded_gives_nothing),
        cmocka_unit_test(a_variadic_parameter_takes_the_rest),
        cmocka_unit_test(va_opt_follows_the_variable_arguments),
        cmocka_unit_test(an_operand_of_hash_or_paste_takes_the_argument_as_written),
        cmocka_unit_test(unbalanced_arguments_are_no_call),
    };
    return cmocka_run_group_tests_name("macro_call", tests, NULL, NULL);
}
