/* Facts as text (analyzer/facts/serialize.c), on facts built by hand: every
 * codec of analyzer/facts/fact_kinds.def reads back what it wrote, and text
 * that is not exactly facts of this description is refused, never read as
 * fewer facts. tests/analyzer/unit/extract_facts.c round-trips extracted
 * facts. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "facts/facts.h"
#include "util/xalloc.h"

static fact_strs strs2(const char *a, const char *b)
{
    fact_strs s = { .items = xcalloc(2, sizeof(char *)), .n = 2 };
    s.items[0] = xstrdup(a);
    s.items[1] = xstrdup(b);
    return s;
}

/* One fact of every kind, every field set to something other than zero. */
static file_facts *every_kind(void)
{
    file_facts *f = xcalloc(1, sizeof *f);
    f->functions = xcalloc(f->n_functions = 1, sizeof *f->functions);
    f->functions[0] = (fact_function){
        .name = xstrdup("ns::scale"), .usr = xstrdup("c:@N@ns@F@scale"),
        .params = strs2("float *", "int"), .type_param_spellings = strs2("type-parameter-0-0", "x"),
        .type_param_names = strs2("T", "U"), .result = xstrdup("void"), .loc = { 3, 17 },
        .exec = EXEC_KERNEL, .is_definition = true, .is_static = true, .is_template = true,
        .no_prototype = true, .is_c_linkage = true, .is_hot_annotated = true,
        .abi_types = strs2("void", "pointer float *"),
    };
    f->launches = xcalloc(f->n_launches = 1, sizeof *f->launches);
    f->launches[0] = (fact_launch){
        .kind = LAUNCH_EX_VARIADIC, .kernel_name = xstrdup("k"), .kernel_usr = xstrdup("c:@F@k"),
        .loc = { 9, 5 }, .arg_types = strs2("float *", "int"), .constant_args = ~0ULL,
        .args_known = true,
    };
    f->copies = xcalloc(f->n_copies = 1, sizeof *f->copies);
    f->copies[0] = (fact_copy){ .callee = xstrdup("cudaMemcpy"), .loc = { 11, 3 },
                                .kind = COPY_ALWAYS_UPLOAD, .kind_values = -4 };
    f->calls = xcalloc(f->n_calls = 1, sizeof *f->calls);
    f->calls[0] = (fact_call){ .caller_usr = xstrdup("c:@F@h"), .callee_usr = xstrdup("c:@F@g"),
                               .callee_name = xstrdup("g"), .loc = { 12, 7 },
                               .floating_template_args = 1ULL << 63, .floating_class_args = 5 };
    f->float_loops = xcalloc(f->n_float_loops = 2, sizeof *f->float_loops);
    f->float_loops[0] = (fact_float_loop){ .function_usr = xstrdup("c:@F@h"), .loc = { 13, 9 },
                                           .template_params = 2, .class_params = 1 << 30,
                                           .via = xstrdup("tanhf") };
    f->float_loops[1] = (fact_float_loop){ .function_usr = xstrdup("c:@F@i"), .loc = { 14, 1 } };
    f->doc_params = xcalloc(f->n_doc_params = 1, sizeof *f->doc_params);
    f->doc_params[0] = (fact_doc_param){ .function_name = xstrdup("pack"),
                                         .param_name = xstrdup("stride"), .loc = { 4, 4 } };
    f->unchecked = xcalloc(f->n_unchecked = 1, sizeof *f->unchecked);
    f->unchecked[0] = (fact_unchecked){ .callee = xstrdup("cudaFree"), .loc = { 15, 5 } };
    f->hidden_names = xcalloc(f->n_hidden_names = 1, sizeof *f->hidden_names);
    f->hidden_names[0] = (fact_hidden_name){ .name = xstrdup("via_pinned"), .loc = { 2, 6 } };
    f->parse_errors = xcalloc(f->n_parse_errors = 1, sizeof *f->parse_errors);
    f->parse_errors[0] = (fact_parse_error){ .message = xstrdup("use of undeclared identifier"),
                                             .loc = { 8, 12 } };
    return f;
}

static void every_field_reads_back_as_written(void **state)
{
    (void)state;
    file_facts *f = every_kind();
    char *text = facts_save(f);
    char *error = NULL;
    file_facts *g = facts_load(text, &error);
    assert_non_null(g);
    const fact_function *fn = &g->functions[0];
    assert_int_equal(g->n_functions, 1);
    assert_string_equal(fn->name, "ns::scale");
    assert_string_equal(fn->usr, "c:@N@ns@F@scale");
    assert_int_equal(fn->params.n, 2);
    assert_string_equal(fn->params.items[1], "int");
    assert_string_equal(fn->type_param_spellings.items[1], "x");
    assert_string_equal(fn->type_param_names.items[0], "T");
    assert_string_equal(fn->result, "void");
    assert_int_equal(fn->loc.line, 3);
    assert_int_equal(fn->loc.col, 17);
    assert_int_equal(fn->exec, EXEC_KERNEL);
    assert_true(fn->is_definition && fn->is_static && fn->is_template && fn->no_prototype &&
                fn->is_c_linkage && fn->is_hot_annotated);
    assert_int_equal(g->launches[0].kind, LAUNCH_EX_VARIADIC);
    assert_true(g->launches[0].constant_args == ~0ULL);
    assert_true(g->launches[0].args_known);
    assert_int_equal(g->copies[0].kind, COPY_ALWAYS_UPLOAD);
    assert_int_equal(g->copies[0].kind_values, -4);
    assert_true(g->calls[0].floating_template_args == 1ULL << 63);
    assert_int_equal(g->calls[0].floating_class_args, 5);
    assert_string_equal(g->calls[0].callee_name, "g");
    assert_int_equal(g->n_float_loops, 2);
    assert_int_equal(g->float_loops[0].class_params, 1 << 30);
    assert_string_equal(g->float_loops[0].via, "tanhf");
    assert_null(g->float_loops[1].via);
    assert_string_equal(g->doc_params[0].param_name, "stride");
    assert_int_equal(g->unchecked[0].loc.col, 5);
    assert_string_equal(g->hidden_names[0].name, "via_pinned");
    assert_string_equal(g->parse_errors[0].message, "use of undeclared identifier");
    assert_int_equal(g->parse_errors[0].loc.line, 8);
    char *again = facts_save(g);
    assert_string_equal(text, again);
    free(again);
    free(text);
    facts_free(f);
    facts_free(g);
}

/* Saved facts with the first `"key":` renamed, so that its field is missing. */
static char *without_key(const char *text, const char *key)
{
    char *quoted = xasprintf("\"%s\":", key);
    const char *at = strstr(text, quoted);
    assert_non_null(at);
    char *cut = xasprintf("%.*s\"%s_\":%s", (int)(at - text), text, key, at + strlen(quoted));
    free(quoted);
    return cut;
}

static void a_missing_field_refuses_the_text(void **state)
{
    (void)state;
    file_facts *f = every_kind();
    char *text = facts_save(f);
    /* one of each codec but TEXT_OR_NULL, which may be missing */
    static const char *const keys[] = { "usr", "tparams", "loc", "exec", "static", "kinds" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char *cut = without_key(text, keys[i]);
        char *error = NULL;
        assert_null(facts_load(cut, &error));
        assert_string_equal(error, "facts: a field is missing or has the wrong type");
        free(error);
        free(cut);
    }
    char *cut = without_key(text, "via");
    char *error = NULL;
    file_facts *g = facts_load(cut, &error);
    assert_non_null(g);
    assert_null(g->float_loops[0].via);
    facts_free(g);
    free(cut);
    /* A kind absent altogether is a kind with no facts. */
    cut = without_key(text, "unchecked");
    g = facts_load(cut, &error);
    assert_non_null(g);
    assert_int_equal(g->n_unchecked, 0);
    assert_int_equal(g->n_copies, 1);
    assert_int_equal(g->n_hidden_names, 1);
    facts_free(g);
    free(cut);
    free(text);
    facts_free(f);
}

/* jansson refuses strings that are not UTF-8: such facts must not come back
 * shorter (a fact or a parameter type missing) from the text. */
static void strings_that_are_not_utf8_refuse_the_text(void **state)
{
    (void)state;
    for (int where = 0; where < 2; where++) {
        file_facts *f = every_kind();
        if (where == 0) {
            free(f->hidden_names[0].name);
            f->hidden_names[0].name = xstrdup("bad\xff");
        } else {
            free(f->functions[0].params.items[0]);
            f->functions[0].params.items[0] = xstrdup("\xc3(");
        }
        char *text = facts_save(f);
        char *error = NULL;
        assert_null(facts_load(text, &error));
        assert_string_equal(error, "facts: a field is missing or has the wrong type");
        free(error);
        free(text);
        facts_free(f);
    }
}

static void text_of_another_format_is_refused(void **state)
{
    (void)state;
    file_facts *f = every_kind();
    char *text = facts_save(f);
    /* the format is the description's SHA-256 in lower-case hex */
    const char *format = strstr(text, "\"format\":\"");
    assert_non_null(format);
    format += strlen("\"format\":\"");
    assert_int_equal(strspn(format, "0123456789abcdef"), 64);
    assert_int_equal(format[64], '"');
    char *other = xstrdup(text);
    other[format - text] = format[0] == '0' ? '1' : '0';
    char *error = NULL;
    assert_null(facts_load(other, &error));
    assert_string_equal(error, "facts: unknown format");
    free(error);
    /* gpulint's earlier facts numbered their format by hand */
    assert_null(facts_load("{\"format\":6,\"functions\":[]}", &error));
    assert_string_equal(error, "facts: unknown format");
    free(error);
    assert_null(facts_load("{\"format\":", &error));
    assert_non_null(strstr(error, "facts: "));
    free(error);
    free(other);
    free(text);
    facts_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_field_reads_back_as_written),
        cmocka_unit_test(a_missing_field_refuses_the_text),
        cmocka_unit_test(strings_that_are_not_utf8_refuse_the_text),
        cmocka_unit_test(text_of_another_format_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
