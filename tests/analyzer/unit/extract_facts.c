/* Extraction (analyzer/extract/): what facts_extract finds in one file,
 * parsed from memory (the path need not exist: every snapshot file is an
 * unsaved file to libclang). The fixtures check the rules end to end; these
 * check the facts they rest on, one construct at a time. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "extract/extract.h"
#include "facts/facts.h"
#include "util/xalloc.h"

static file_facts *extract_in(const char *root, const char *name, const char *text)
{
    /* The file need not exist: its text reaches libclang as an unsaved file. */
    snapshot snap = { .root = root };
    source_file f;
    source_file_init(&f, xstrdup(name), xasprintf("%s/%s", root, name), xstrdup(text),
                     strlen(text), NULL);
    snapshot_add(&snap, &f);
    file_facts *facts = facts_extract(&snap, 0, NULL);
    assert_non_null(facts);
    snapshot_free(&snap);
    return facts;
}

static file_facts *extract(const char *name, const char *text)
{
    return extract_in("/nonexistent-gpulint-unit", name, text);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static const fact_copy *copy_at(const file_facts *f, unsigned line)
{
    for (size_t i = 0; i < f->n_copies; i++)
        if (f->copies[i].loc.line == line)
            return &f->copies[i];
    return NULL;
}

static const fact_launch *launch_at(const file_facts *f, unsigned line)
{
    for (size_t i = 0; i < f->n_launches; i++)
        if (f->launches[i].loc.line == line)
            return &f->launches[i];
    return NULL;
}

static bool unchecked_at(const file_facts *f, unsigned line)
{
    for (size_t i = 0; i < f->n_unchecked; i++)
        if (f->unchecked[i].loc.line == line)
            return true;
    return false;
}

static void copy_kinds_resolve_through_constants_not_variables(void **state)
{
    (void)state;
    file_facts *f = extract("copies.cu",
        "#include <cuda_runtime.h>\n"
        "static const cudaMemcpyKind kUp = cudaMemcpyHostToDevice;\n"
        "void f(float *d, float *h, size_t n, cudaMemcpyKind param, cudaStream_t s) {\n"
        "    cudaMemcpyKind var = cudaMemcpyHostToDevice;\n"
        "    (void)cudaMemcpy(d, h, n, cudaMemcpyDeviceToHost);\n"       /* 5 */
        "    (void)cudaMemcpy(d, h, n, (cudaMemcpyKind)4);\n"             /* 6 */
        "    (void)cudaMemcpyAsync(d, h, n, kUp, s);\n"                   /* 7 */
        "    (void)cudaMemcpy(d, h, n, var);\n"                           /* 8 */
        "    (void)cudaMemcpy(d, h, n, param);\n"                         /* 9 */
        "    (void)cudaMemcpyToSymbol(d, h, n);\n"                        /* 10 */
        "    cudaMemcpy3DParms p = {};\n"
        "    p.kind = cudaMemcpyHostToHost;\n"
        "    (void)cudaMemcpy3D(&p);\n"                                   /* 13 */
        "    (void)cudaMemcpyPeer(d, 0, h, 1, n);\n"                      /* 14 */
        "}\n");
    assert_int_equal(copy_at(f, 5)->kind, COPY_KIND_RESOLVED);
    assert_int_equal(copy_at(f, 5)->kind_values, 1 << 2);
    assert_int_equal(copy_at(f, 6)->kind_values, 1 << 4);
    assert_int_equal(copy_at(f, 7)->kind_values, 1 << 1);
    assert_string_equal(copy_at(f, 7)->callee, "cudaMemcpyAsync");
    assert_int_equal(copy_at(f, 8)->kind, COPY_KIND_UNRESOLVED);
    assert_int_equal(copy_at(f, 9)->kind, COPY_KIND_UNRESOLVED);
    assert_int_equal(copy_at(f, 10)->kind, COPY_ALWAYS_UPLOAD);
    assert_int_equal(copy_at(f, 13)->kind, COPY_KIND_RESOLVED);
    assert_int_equal(copy_at(f, 13)->kind_values, 1 << 0);
    assert_null(copy_at(f, 14));
    facts_free(f);
}

static void launches_keep_the_written_argument_types(void **state)
{
    (void)state;
    file_facts *f = extract("launch.cu",
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float *x, float a, int n) {}\n"
        "#define LAUNCH(...) k<<<1, 32>>>(__VA_ARGS__)\n"
        "void host(float *d, int n, float a) {\n"
        "    k<<<1, 32>>>(d, n, a);\n"                                    /* 5 */
        "    LAUNCH(d, 0.5f, 7);\n"                                       /* 6 */
        "    void *args[] = {&d, &a};\n"
        "    (void)cudaLaunchKernel((const void *)k, dim3(1), dim3(32), args, 0, 0);\n" /* 8 */
        "}\n");
    const fact_launch *l = launch_at(f, 5);
    assert_non_null(l);
    assert_int_equal(l->kind, LAUNCH_CHEVRON);
    assert_string_equal(l->kernel_name, "k");
    assert_int_equal(l->arg_types.n, 3);
    assert_string_equal(l->arg_types.items[1], "int");    /* before conversion to float */
    assert_string_equal(l->arg_types.items[2], "float");
    assert_int_equal(l->constant_args, 0);
    l = launch_at(f, 6);   /* written inside a macro: found at the expansion */
    assert_non_null(l);
    assert_int_equal(l->constant_args, (1ULL << 1) | (1ULL << 2));
    l = launch_at(f, 8);
    assert_non_null(l);
    assert_int_equal(l->kind, LAUNCH_API);
    assert_true(l->args_known);
    assert_int_equal(l->arg_types.n, 2);
    assert_string_equal(l->arg_types.items[0], "float *");
    assert_string_equal(l->arg_types.items[1], "float");
    facts_free(f);
}

static void extensible_launches_are_recorded_with_their_arguments(void **state)
{
    (void)state;
    file_facts *f = extract("launch_ex.cu",
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float *x, float a, int n) {}\n"
        "void host(float *d, int n, float a, cudaLaunchConfig_t *c) {\n"
        "    void *args[] = {&d, &n};\n"
        "    (void)cudaLaunchKernelExC(c, (const void *)k, args);\n"       /* 5 */
        "    (void)cudaLaunchKernelEx(c, k, d, n, 0.5f);\n"                 /* 6 */
        "    void (*fp)(float *, float, int) = k;\n"
        "    (void)cudaLaunchKernelEx(c, fp, d, a, n);\n"                   /* 8 */
        "}\n");
    const fact_launch *l = launch_at(f, 5);
    assert_non_null(l);
    assert_int_equal(l->kind, LAUNCH_API_EX);
    assert_string_equal(l->kernel_name, "k");
    assert_true(l->args_known);
    assert_int_equal(l->arg_types.n, 2);
    assert_string_equal(l->arg_types.items[1], "int");
    l = launch_at(f, 6);
    assert_non_null(l);
    assert_int_equal(l->kind, LAUNCH_EX_VARIADIC);
    assert_int_equal(l->arg_types.n, 3);
    assert_string_equal(l->arg_types.items[0], "float *");
    assert_string_equal(l->arg_types.items[1], "int");   /* before conversion to float */
    assert_int_equal(l->constant_args, 1ULL << 2);
    /* through a function pointer variable: no kernel to compare with */
    assert_null(launch_at(f, 8));
    facts_free(f);
}

static void only_statement_calls_drop_their_status(void **state)
{
    (void)state;
    file_facts *f = extract("status.cu",
        "#include <cuda_runtime.h>\n"
        "cudaError_t f(float *p, bool sync) {\n"
        "    cudaFree(p);\n"                                              /* 3 */
        "    (void)cudaFree(p);\n"                                        /* 4 */
        "    if (cudaDeviceSynchronize() != cudaSuccess) return cudaErrorUnknown;\n" /* 5 */
        "    if (sync)\n"
        "        cudaDeviceSynchronize();\n"                              /* 7 */
        "    cudaError_t e = cudaGetLastError();\n"                       /* 8 */
        "    return e;\n"
        "}\n");
    assert_true(unchecked_at(f, 3));
    assert_false(unchecked_at(f, 4));
    assert_false(unchecked_at(f, 5));
    assert_true(unchecked_at(f, 7));
    assert_false(unchecked_at(f, 8));
    assert_int_equal(f->n_unchecked, 2);
    facts_free(f);
}

static void float_arithmetic_counts_only_inside_loops(void **state)
{
    (void)state;
    file_facts *f = extract("loops.c",
        "float once(float a) { return a * 2.0f; }\n"
        "int ints(int *x, int n) { int s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }\n"
        "void scale(float *x, int n) {\n"
        "    for (int i = 0; i < n; i++)\n"
        "        x[i] *= 0.5f;\n"                                         /* 5 */
        "}\n");
    assert_int_equal(f->n_float_loops, 1);
    assert_int_equal(f->float_loops[0].loc.line, 5);
    assert_non_null(strstr(f->float_loops[0].function_usr, "scale"));
    facts_free(f);
}

static void math_library_calls_in_loops_are_float_loops(void **state)
{
    (void)state;
    file_facts *f = extract("math.c",
        "#include <math.h>\n"
        "#include <stdlib.h>\n"
        "float once(float a) { return expf(a); }\n"
        "int ints(const int *x, int n) { int s = 0; for (int i = 0; i < n; i++) s += abs(x[i]); return s; }\n"
        "long rounded(const float *x, int n) { long s = 0; for (int i = 0; i < n; i++) s += lroundf(x[i]); return s; }\n"
        "void act(float *y, int n) {\n"
        "    for (int i = 0; i < n; i++)\n"
        "        y[i] = tanhf(y[i]);\n"                                 /* 8 */
        "}\n");
    assert_int_equal(f->n_float_loops, 1);
    assert_int_equal(f->float_loops[0].loc.line, 8);
    assert_non_null(strstr(f->float_loops[0].function_usr, "act"));
    assert_string_equal(f->float_loops[0].via, "tanhf");
    facts_free(f);
}

/* A template's loop sites say which of its parameters they compute on, a
 * call which of its template arguments are floats: the rule intersects
 * them. */
static void template_sites_and_calls_name_parameters(void **state)
{
    (void)state;
    file_facts *f = extract("params.cu",
        "template <class It, class T> T weighted(It f, It l, const T &o, T w) {\n"
        "    T total = T();\n"
        "    for (; f != l; ++f)\n"                                      /* 3 */
        "        if (*f == o) total += w;\n"                             /* 4 */
        "    for (; f != l; ++f) total = total + w;\n"                  /* 5: nothing new */
        "    return total;\n"
        "}\n"
        "template <class T> T *step(T *p, int n) { for (int i = 0; i < n; i++) p = p + 1; return p; }\n"
        "template <class T> struct Outer {\n"
        "    template <class U> static T mix(const T *x, int n, U u) {\n"
        "        T s = T(); for (int i = 0; i < n; i++) s += x[i]; return s; }\n"   /* 11 */
        "};\n"
        "float use(float *b, float *e, int *c) {\n"
        "    return weighted(b, e, 1.0f, 0.5f) + (float)weighted(c, c, 1, 2) + *step(b, 1);\n"   /* 14 */
        "}\n");
    assert_int_equal(f->n_float_loops, 3);
    assert_int_equal(f->float_loops[0].loc.line, 3);
    assert_int_equal(f->float_loops[0].template_params, 1);   /* It */
    assert_int_equal(f->float_loops[1].loc.line, 4);
    assert_int_equal(f->float_loops[1].template_params, 2);   /* T */
    /* Outer's T: the class's parameter 0, not mix's own. */
    assert_int_equal(f->float_loops[2].loc.line, 11);
    assert_int_equal(f->float_loops[2].template_params, 0);
    assert_int_equal(f->float_loops[2].class_params, 1);
    assert_int_equal(f->n_calls, 3);
    assert_int_equal(f->calls[0].floating_template_args, 2);   /* It = float *, T = float */
    assert_int_equal(f->calls[1].floating_template_args, 0);
    assert_int_equal(f->calls[2].floating_template_args, 1);   /* T = float, pointer steps only */
    facts_free(f);
}

/* Methods: libclang tells no template arguments of a member template, so
 * its signature does; a member of a class template computes on the
 * class's parameters, which the specialisation a call names binds. */
static void member_sites_and_calls_name_parameters(void **state)
{
    (void)state;
    file_facts *f = extract("members.cu",
        "struct S { template <class T> T sum(const T *x, int n) const {\n"
        "    T s = T(); for (int i = 0; i < n; i++) s += x[i]; return s; } };\n"   /* 2 */
        "template <class T> struct B {\n"
        "    static void mix(T *x, int n) { for (int i = 0; i < n; i++) x[i] = x[i] * x[0]; }\n"   /* 4 */
        "    template <class U> static U both(const T *x, const U *y, int n) {\n"
        "        U s = U(); for (int i = 0; i < n; i++) s += y[i] + x[i]; return s; } };\n"   /* 6 */
        "template <class T, class U> struct P {};\n"
        "template <class T> struct P<T, int> {\n"
        "    static void go(T *x, int n) { for (int i = 0; i < n; i++) x[i] += x[0]; } };\n"   /* 9 */
        "template <class T> struct O { template <class U> struct I {\n"
        "    static void go(T *x, int n) { for (int i = 0; i < n; i++) x[i] += x[0]; } }; };\n"   /* 11 */
        "double use(const S &s, const double *d, float *x, int *k, int n) {\n"
        "    B<float>::mix(x, n);\n"
        "    B<int>::mix(k, n);\n"
        "    P<float, int>::go(x, n);\n"
        "    O<float>::I<int>::go(x, n);\n"
        "    return s.sum(d, n) + B<int>::both(k, d, n);\n"
        "}\n");
    assert_int_equal(f->n_float_loops, 6);
    assert_int_equal(f->float_loops[0].loc.line, 2);
    assert_int_equal(f->float_loops[0].template_params, 1);
    assert_int_equal(f->float_loops[0].class_params, 0);
    assert_int_equal(f->float_loops[1].loc.line, 4);
    assert_int_equal(f->float_loops[1].template_params, 0);
    assert_int_equal(f->float_loops[1].class_params, 1);
    /* `s += ...` on U, then `y[i] + x[i]` adds the class's T. */
    assert_int_equal(f->float_loops[2].loc.line, 6);
    assert_int_equal(f->float_loops[2].template_params, 1);
    assert_int_equal(f->float_loops[2].class_params, 0);
    assert_int_equal(f->float_loops[3].loc.line, 6);
    assert_int_equal(f->float_loops[3].template_params, 1);
    assert_int_equal(f->float_loops[3].class_params, 1);
    /* A partial specialisation's T, an outer class's T: not known. */
    assert_int_equal(f->float_loops[4].loc.line, 9);
    assert_true(f->float_loops[4].template_params == ~0ULL);
    assert_int_equal(f->float_loops[4].class_params, 0);
    assert_int_equal(f->float_loops[5].loc.line, 11);
    assert_true(f->float_loops[5].template_params == ~0ULL);
    assert_int_equal(f->float_loops[5].class_params, 0);
    assert_int_equal(f->n_calls, 6);
    assert_int_equal(f->calls[0].floating_class_args, 1);      /* B<float> */
    assert_int_equal(f->calls[1].floating_class_args, 0);      /* B<int> */
    assert_int_equal(f->calls[2].floating_class_args, 1);      /* P<float, int> */
    assert_int_equal(f->calls[3].floating_class_args, 0);      /* I<int> */
    assert_int_equal(f->calls[4].floating_template_args, 1);   /* sum: const double * */
    assert_int_equal(f->calls[4].floating_class_args, 0);
    assert_int_equal(f->calls[5].floating_template_args, 1);   /* both: U = double */
    assert_int_equal(f->calls[5].floating_class_args, 0);      /* T = int */
    /* B<int>::both is the member template of B<T>, the one with the loop. */
    assert_string_equal(f->calls[5].callee_usr, f->float_loops[2].function_usr);
    facts_free(f);
}

static void stale_doc_params_are_found_at_their_line(void **state)
{
    (void)state;
    file_facts *f = extract("doc.c",
        "/**\n"
        " * Pack rows.\n"
        " * @param dst  where to\n"
        " * @param stride  gone\n"                                        /* 4 */
        " */\n"
        "void pack(float *dst, int ld);\n");
    assert_int_equal(f->n_doc_params, 1);
    assert_string_equal(f->doc_params[0].param_name, "stride");
    assert_string_equal(f->doc_params[0].function_name, "pack");
    assert_int_equal(f->doc_params[0].loc.line, 4);
    facts_free(f);
}

static void names_pasted_by_macros_are_hidden_names(void **state)
{
    (void)state;
    file_facts *f = extract("paste.c",
        "#define VIA(kind) clone_to_device_##kind##_via_pinned\n"
        "void VIA(f32)(float *d);\n"                                      /* 2 */
        "void use(float *d) { VIA(f32)(d); }\n"                           /* 3 */
        "#define CALL(x) (void)(x)\n"
        "void spelled(float *d) { CALL(clone_to_device_f32_via_pinned(d)); }\n");
    /* A name written as a macro argument is in the text: not hidden. */
    assert_int_equal(f->n_hidden_names, 2);
    assert_string_equal(f->hidden_names[0].name, "clone_to_device_f32_via_pinned");
    assert_int_equal(f->hidden_names[0].loc.line, 2);
    assert_int_equal(f->hidden_names[1].loc.line, 3);
    facts_free(f);
}

static void compiler_errors_become_facts(void **state)
{
    (void)state;
    file_facts *f = extract("broken.c", "int f(void) { return undeclared_name; }\n");
    assert_int_equal(f->n_parse_errors, 1);
    assert_non_null(strstr(f->parse_errors[0].message, "undeclared_name"));
    assert_int_equal(f->parse_errors[0].loc.line, 1);
    facts_free(f);
}

/* A missing #include is not a parse error: the file was not checked in
 * full, and the fact names the header as written, at its #include. */
static void missing_includes_are_not_checked_facts(void **state)
{
    (void)state;
    file_facts *f = extract("gen.c",
        "#include <stddef.h>\n"
        "  #include \"tlob_no_such_header.h\"\n"
        "size_t n(void) { return TLOB_NO_SUCH_SIZE; }\n");
    assert_int_equal(f->n_not_checked, 1);
    assert_int_equal(f->not_checked[0].cause, UNCHECKED_MISSING_INCLUDE);
    assert_string_equal(f->not_checked[0].detail, "tlob_no_such_header.h");
    assert_null(f->not_checked[0].via);
    assert_int_equal(f->not_checked[0].loc.line, 2);
    assert_int_equal(f->not_checked[0].loc.col, 12);
    /* the undeclared name that follows is still a parse error fact (the
     * rule drops it for a file not checked) */
    assert_int_equal(f->n_parse_errors, 1);
    facts_free(f);
}

/* A header on disk whose own #include fails: reported at the main file's
 * #include of it, naming the header and its line. */
static void missing_includes_in_headers_name_the_header(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpulint-unit-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *header = xasprintf("%s/outer.h", dir);
    write_text(header, "#pragma once\n\n#include \"tlob_absent.h\"\n");
    file_facts *f = extract_in(dir, "use.c", "int a;\n#include \"outer.h\"\n");
    assert_int_equal(f->n_not_checked, 1);
    assert_int_equal(f->not_checked[0].cause, UNCHECKED_MISSING_INCLUDE);
    assert_string_equal(f->not_checked[0].detail, "tlob_absent.h");
    char *via = xasprintf("%s:3", header);
    assert_string_equal(f->not_checked[0].via, via);
    assert_int_equal(f->not_checked[0].loc.line, 2);
    facts_free(f);
    free(via);
    unlink(header);
    rmdir(dir);
    free(header);
}

static void feature_macros_before_includes_are_honoured(void **state)
{
    (void)state;
    /* The C PCH holds cuda_runtime_api.h, which includes <string.h>: a file
     * that asks for _GNU_SOURCE first must still see memmem. */
    file_facts *f = extract("gnu.c",
        "#define _GNU_SOURCE\n"
        "#include <string.h>\n"
        "#include <cuda_runtime_api.h>\n"
        "int has(const char *s, size_t n) { return memmem(s, n, \"x\", 1) != 0; }\n");
    assert_int_equal(f->n_parse_errors, 0);
    facts_free(f);
}

/* Facts come from the cache only while every file the parse read is
 * unchanged: here a header on disk, outside the snapshot. */
static void cached_facts_follow_the_headers_they_read(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpulint-unit-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *header = xasprintf("%s/loader.h", dir);
    const char *source = "#include \"loader.h\"\nvoid f(float *d) { LOAD(d); }\n";
    write_text(header, "void upload_f32_via_pinned(float *);\nvoid load_mapped(float *);\n"
                       "#define LOAD(p) upload_f32_via_pinned(p)\n");
    for (int run = 0; run < 2; run++) {   /* the second run may come from the cache */
        file_facts *f = extract_in(dir, "user.c", source);
        assert_int_equal(f->n_hidden_names, 1);
        facts_free(f);
    }
    write_text(header, "void upload_f32_via_pinned(float *);\nvoid load_mapped(float *);\n"
                       "#define LOAD(p) load_mapped(p)\n");
    file_facts *f = extract_in(dir, "user.c", source);
    assert_int_equal(f->n_hidden_names, 1);
    assert_string_equal(f->hidden_names[0].name, "load_mapped");
    facts_free(f);
    unlink(header);
    rmdir(dir);
    free(header);
}

static void facts_survive_a_round_trip_through_text(void **state)
{
    (void)state;
    file_facts *f = extract("round.cu",
        "#include <cuda_runtime.h>\n"
        "/** @param gone x */\n"
        "__global__ void k(float *x, int n) {}\n"
        "void h(float *d, float *hst, int n) {\n"
        "    k<<<1, 1>>>(d, n);\n"
        "    cudaMemcpy(d, hst, n, cudaMemcpyHostToDevice);\n"
        "    for (int i = 0; i < n; i++) hst[i] *= 2.0f;\n"
        "    undeclared();\n"
        "}\n"
        "template <class T> struct O {\n"
        "    template <class U> static void m(T *x, int n, U) { for (int i = 0; i < n; i++) x[i] += x[0]; }\n"
        "};\n");
    char *text = facts_save(f);
    char *error = NULL;
    file_facts *g = facts_load(text, &error);
    assert_non_null(g);
    char *again = facts_save(g);
    assert_string_equal(text, again);
    assert_int_equal(g->n_launches, 1);
    assert_int_equal(g->n_copies, 1);
    assert_int_equal(g->n_unchecked, 1);
    assert_int_equal(g->n_float_loops, 2);
    assert_int_equal(g->float_loops[1].class_params, 1);
    /* the member template's own parameter, by spelling and by name */
    const fact_function *m = NULL;
    for (size_t i = 0; i < g->n_functions; i++)
        if (g->functions[i].is_template)
            m = &g->functions[i];
    assert_non_null(m);
    assert_int_equal(m->type_param_names.n, 1);
    assert_string_equal(m->type_param_names.items[0], "U");
    assert_string_equal(m->type_param_spellings.items[0], "type-parameter-1-0");
    assert_int_equal(g->n_doc_params, 1);
    assert_int_equal(g->n_parse_errors, 1);
    assert_null(facts_load("{\"format\": 0}", &error));
    free(error);
    free(text);
    free(again);
    facts_free(f);
    facts_free(g);
}

static void kernels_and_c_linkage_are_told_apart(void **state)
{
    (void)state;
    file_facts *f = extract("kinds.cu",
        "extern \"C\" int entry(const float *x, size_t n);\n"
        "static __global__ void local_kernel(int *x) {}\n"
        "__host__ __device__ float both(float x) { return x; }\n"
        "template <typename T> __global__ void tk(T *x, int n) {}\n");
    assert_int_equal(f->n_functions, 4);
    assert_true(f->functions[0].is_c_linkage);
    assert_false(f->functions[0].is_definition);
    assert_string_equal(f->functions[0].params.items[1], "unsigned long");
    assert_int_equal(f->functions[1].exec, EXEC_KERNEL);
    assert_true(f->functions[1].is_static);
    assert_int_equal(f->functions[2].exec, EXEC_HOST_DEVICE);
    assert_true(f->functions[3].is_template);
    assert_string_equal(f->functions[3].params.items[0], "type-parameter-0-0 *");
    facts_free(f);
}

static int init(void **state)
{
    (void)state;
    char *error = NULL;
    return facts_global_init(NULL, NULL, &error);
}

static int cleanup(void **state)
{
    (void)state;
    facts_global_cleanup();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_kinds_resolve_through_constants_not_variables),
        cmocka_unit_test(launches_keep_the_written_argument_types),
        cmocka_unit_test(extensible_launches_are_recorded_with_their_arguments),
        cmocka_unit_test(only_statement_calls_drop_their_status),
        cmocka_unit_test(float_arithmetic_counts_only_inside_loops),
        cmocka_unit_test(math_library_calls_in_loops_are_float_loops),
        cmocka_unit_test(template_sites_and_calls_name_parameters),
        cmocka_unit_test(member_sites_and_calls_name_parameters),
        cmocka_unit_test(stale_doc_params_are_found_at_their_line),
        cmocka_unit_test(names_pasted_by_macros_are_hidden_names),
        cmocka_unit_test(compiler_errors_become_facts),
        cmocka_unit_test(missing_includes_are_not_checked_facts),
        cmocka_unit_test(missing_includes_in_headers_name_the_header),
        cmocka_unit_test(feature_macros_before_includes_are_honoured),
        cmocka_unit_test(cached_facts_follow_the_headers_they_read),
        cmocka_unit_test(facts_survive_a_round_trip_through_text),
        cmocka_unit_test(kernels_and_c_linkage_are_told_apart),
    };
    return cmocka_run_group_tests(tests, init, cleanup);
}
