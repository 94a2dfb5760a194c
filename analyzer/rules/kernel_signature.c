/* kernel-signature: partial refactors across files.
 *
 *  - a __global__ declaration that matches none of the definitions of its
 *    name in the snapshot (when there is at least one);
 *  - a <<<>>> launch, a cudaLaunchKernel / cudaLaunchCooperativeKernel /
 *    cudaLaunchKernelExC args array, or the variadic cudaLaunchKernelEx's
 *    arguments that match none of those definitions in count and type;
 *  - an extern "C" function defined in a CUDA file whose C-linkage
 *    declaration in another file differs in what the ABI passes
 *    (same_c_signature; C linkage hides it from the compiler and the
 *    linker).
 * Same-named kernels *defined* in separate programs are not a refactor:
 * matching any one definition is enough. A static kernel matches within its
 * file only (the lookup by name of rules/symbol_index.h). Template parameters
 * that depend on the template match anything. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "rules/rule.h"
#include "rules/symbol_index.h"
#include "util/xalloc.h"

static bool is_dependent(const char *type)
{
    return strstr(type, "type-parameter-") != NULL || strstr(type, "dependent type") != NULL;
}

/* Remove every qualifier: a `void *args[]` entry is read through the
 * parameter's type, so qualifiers do not change what the kernel receives. */
static char *unqualified(const char *type)
{
    char *s = xstrdup(type);
    static const char *const words[] = { "const", "volatile", "__restrict", "restrict" };
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t n = strlen(words[w]);
        for (char *p = s; (p = strstr(p, words[w])) != NULL;) {
            bool word = (p == s || p[-1] == ' ' || p[-1] == '*') &&
                        (p[n] == '\0' || p[n] == ' ' || p[n] == '*');
            if (!word) {
                p += n;
                continue;
            }
            size_t skip = n + (p[n] == ' ');
            memmove(p, p + skip, strlen(p + skip) + 1);
        }
    }
    size_t len = strlen(s);
    while (len > 0 && s[len - 1] == ' ')
        s[--len] = '\0';
    return s;
}

/* An argument's type as passed by value: references and top-level const
 * do not change what the kernel parameter receives. */
static char *by_value(const char *type)
{
    char *s = xstrdup(type);
    size_t len = strlen(s);
    while (len > 0 && (s[len - 1] == '&' || s[len - 1] == ' '))
        s[--len] = '\0';
    if (len > 6 && strcmp(s + len - 6, " const") == 0)
        s[len - 6] = '\0';
    if (strncmp(s, "const ", 6) == 0 && !strchr(s, '*'))
        memmove(s, s + 6, strlen(s + 6) + 1);
    return s;
}

static bool same_signature(const fact_function *a, const fact_function *b)
{
    if (a->params.n != b->params.n || strcmp(a->result, b->result) != 0)
        return false;
    for (size_t i = 0; i < a->params.n; i++)
        if (strcmp(a->params.items[i], b->params.items[i]) != 0)
            return false;
    return true;
}

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *unsigned_stripped(const char *t);

/* Two fact_function.abi_types entries that pass the same bits: the same
 * type; an enum and an integer of its underlying type, in either
 * signedness (the compiler, not the code, picks an unscoped enum's); a
 * `void *` (of any qualifiers) and a pointer to any object. Another width
 * or kind (int for size_t, float * for double *, void * for a function
 * pointer) is not. */
static bool same_abi_type(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    if (starts(a, "enum ") || starts(b, "enum ")) {
        const char *ia = starts(a, "enum ") ? a + 5 : a, *ib = starts(b, "enum ") ? b + 5 : b;
        return strcmp(unsigned_stripped(ia), unsigned_stripped(ib)) == 0;
    }
    if (!starts(a, "pointer ") || !starts(b, "pointer "))
        return false;
    char *ua = unqualified(a + 8), *ub = unqualified(b + 8);
    bool same = strcmp(ua, "void *") == 0 || strcmp(ub, "void *") == 0;
    free(ua);
    free(ub);
    return same;
}

/* Two C-linkage signatures: their symbols carry no types, so what the ABI
 * tells apart is what must agree (same_abi_type); by spelling where a side
 * has no ABI types recorded. */
static bool same_c_signature(const fact_function *a, const fact_function *b)
{
    if (a->abi_types.n != a->params.n + 1 || b->abi_types.n != b->params.n + 1)
        return same_signature(a, b);
    if (a->abi_types.n != b->abi_types.n)
        return false;
    for (size_t i = 0; i < a->abi_types.n; i++)
        if (!same_abi_type(a->abi_types.items[i], b->abi_types.items[i]))
            return false;
    return true;
}

/* Appends `type` with a template's type parameters by their names
 * (`const T *`, not clang's canonical `const type-parameter-0-0 *`). */
static void append_type(byte_buf *out, const char *type, const fact_function *owner)
{
    for (const char *p = type; *p;) {
        const char *name = NULL;
        size_t n = 0;
        for (size_t k = 0; owner && !name && k < owner->type_param_spellings.n; k++) {
            const char *spelling = owner->type_param_spellings.items[k];
            n = strlen(spelling);
            if (strncmp(p, spelling, n) == 0 && !isdigit((unsigned char)p[n]) &&
                owner->type_param_names.items[k][0])
                name = owner->type_param_names.items[k];
        }
        if (name) {
            buf_append(out, name, strlen(name));
            p += n;
        } else {
            buf_append(out, p++, 1);
        }
    }
}

/* "(float *, int)", cut to `size`. `owner`: the function whose template
 * parameters the types may name (NULL: a launch's argument types). */
static void format_params(char *buf, size_t size, const fact_strs *params,
                          const fact_function *owner)
{
    byte_buf out = { 0 };
    buf_append(&out, "(", 1);
    for (size_t i = 0; i < params->n; i++) {
        if (i)
            buf_append(&out, ", ", 2);
        append_type(&out, params->items[i], owner);
    }
    buf_append(&out, ")", 1);
    snprintf(buf, size, "%s", out.data);
    buf_free(&out);
}

/* What an argument or parameter type is, from its spelling: what an
 * implicit conversion at a launch may change without changing meaning. */
typedef enum { TYPE_POINTER, TYPE_INTEGER, TYPE_FLOATING, TYPE_OTHER } type_class;

static type_class classify(const char *t)
{
    static const char *const integers[] = {
        "bool", "char", "signed char", "unsigned char", "short", "unsigned short",
        "int", "unsigned int", "long", "unsigned long", "long long",
        "unsigned long long", "char16_t", "char32_t", "wchar_t",
    };
    /* CUDA's 16-bit types are classes on the host side, floats to a kernel. */
    static const char *const floatings[] = { "float", "double", "long double", "_Float16",
                                             "__bf16", "half", "__half", "__nv_bfloat16" };
    size_t n = strlen(t);
    if (strchr(t, '*') || (n > 0 && t[n - 1] == ']') || strstr(t, "nullptr_t"))
        return TYPE_POINTER;
    for (size_t i = 0; i < sizeof integers / sizeof integers[0]; i++)
        if (strcmp(t, integers[i]) == 0)
            return TYPE_INTEGER;
    for (size_t i = 0; i < sizeof floatings / sizeof floatings[0]; i++)
        if (strcmp(t, floatings[i]) == 0)
            return TYPE_FLOATING;
    return TYPE_OTHER;
}

/* An array argument decays: "float [16]" is passed as "float *". */
static char *decayed(char *t)
{
    size_t n = strlen(t);
    char *open = strrchr(t, '[');
    if (n > 0 && t[n - 1] == ']' && open) {
        while (open > t && open[-1] == ' ')
            open--;
        *open = '\0';
        char *r = xasprintf("%s *", t);
        free(t);
        return r;
    }
    return t;
}

/* A <<<>>> argument fits its parameter when the types agree up to
 * references, qualifiers, array decay and void *, or both are integers or
 * both floating: a conversion between those keeps the meaning. A constant
 * (NULL, 0, 2, 0.5f) converts by intent. A variable integer passed as a
 * float (or the reverse), or a pointer to something else, is the partial
 * refactor the rule exists for: it compiles. */
static bool argument_fits(const char *arg_type, const char *param_type, bool constant)
{
    char *arg = decayed(by_value(arg_type)), *param = by_value(param_type);
    type_class ca = classify(arg), cp = classify(param);
    bool arithmetic = ca == TYPE_INTEGER || ca == TYPE_FLOATING;
    /* An argument of another type reaching an integer parameter is an enum
     * (a class would need a conversion operator): it converts by value. */
    bool fits = strcmp(arg, param) == 0 ||
                (ca == TYPE_INTEGER && cp == TYPE_INTEGER) ||
                (ca == TYPE_FLOATING && cp == TYPE_FLOATING) ||
                (ca == TYPE_OTHER && cp == TYPE_INTEGER) ||
                (constant && arithmetic && cp != TYPE_OTHER);
    if (!fits && ca == TYPE_POINTER && cp == TYPE_POINTER) {
        char *ua = unqualified(arg), *up = unqualified(param);
        fits = strcmp(ua, up) == 0 || strcmp(up, "void *") == 0 ||
               strstr(arg, "nullptr_t") != NULL;
        free(ua);
        free(up);
    }
    free(arg);
    free(param);
    return fits;
}

/* An integer type without its signedness: int and unsigned int have one
 * width. */
static const char *unsigned_stripped(const char *t)
{
    if (strncmp(t, "unsigned ", 9) == 0)
        return t + 9;
    if (strncmp(t, "signed ", 7) == 0)
        return t + 7;
    return t;
}

/* A `void *args[]` entry is read as the parameter's type: the same type,
 * the same integer with the other signedness (an int slot for an unsigned
 * parameter), or for a pointer parameter a `void *` slot (nccl's
 * `void *arg4 = ptr; ... &arg4`): the same bits. A slot of another width
 * or kind (int for size_t, float for double, float * for int *) is not. */
static bool slot_fits(const char *arg_type, const char *param_type)
{
    char *arg = unqualified(arg_type), *param = unqualified(param_type);
    bool fits = strcmp(arg, param) == 0 ||
                (strcmp(arg, "void *") == 0 && classify(param) == TYPE_POINTER) ||
                (classify(arg) == TYPE_INTEGER && classify(param) == TYPE_INTEGER &&
                 strcmp(unsigned_stripped(arg), unsigned_stripped(param)) == 0);
    free(arg);
    free(param);
    return fits;
}

/* The launch against `params`: its specialisation's, as clang resolved it
 * in the launch's own translation unit, when it names one; else the
 * definition's. */
static bool launch_matches(const fact_launch *l, const fact_function *def)
{
    const fact_strs *params = l->params_resolved ? &l->resolved_params : &def->params;
    /* A launch clang did not resolve (in a template's body) lists only the
     * arguments written; those left out must have defaults. An args array
     * has a slot for every parameter. */
    bool converted = l->kind == LAUNCH_CHEVRON || l->kind == LAUNCH_EX_VARIADIC;
    size_t omitted = params->n > l->arg_types.n ? params->n - l->arg_types.n : 0;
    if (l->arg_types.n > params->n || (omitted > 0 && (!converted || l->params_resolved ||
                                                       omitted > def->defaulted_params)))
        return false;
    /* A kernel template launched where no specialisation is resolved (in a
     * template launcher's body): a class template argument may spell a
     * non-type parameter (Stage<N>, std::bool_constant<B>), which no
     * spelling marks as dependent. */
    bool unresolved_template = def->is_template && !l->params_resolved;
    for (size_t i = 0; i < l->arg_types.n; i++) {
        const char *param = params->items[i], *arg = l->arg_types.items[i];
        /* A template's parameter, or an argument in a template's body: its
         * type is known per instantiation only. */
        if (is_dependent(param) || is_dependent(arg) ||
            (unresolved_template && (strchr(param, '<') || strchr(arg, '<'))))
            continue;
        bool constant = i < 64 && (l->constant_args >> i) & 1;
        if (converted ? !argument_fits(l->arg_types.items[i], param, constant)
                      : !slot_fits(l->arg_types.items[i], param))
            return false;
    }
    return true;
}

static const char *launch_form(fact_launch_kind k)
{
    switch (k) {
    case LAUNCH_CHEVRON: return "<<<>>> launch";
    case LAUNCH_API: return "cudaLaunchKernel";
    case LAUNCH_API_COOPERATIVE: return "cudaLaunchCooperativeKernel";
    case LAUNCH_API_EX: return "cudaLaunchKernelExC";
    default: return "cudaLaunchKernelEx";
    }
}

/* Kernels: the definitions their declarations and launches must match. */
static bool is_kernel(const fact_function *f)
{
    return f->exec == EXEC_KERNEL;
}

/* The other functions with C linkage: their declarations must match. */
static bool is_c_function(const fact_function *f)
{
    return f->exec != EXEC_KERNEL && f->is_c_linkage;
}

static void check_declarations(const analysis *a, const symbol_index *kernels,
                               const symbol_index *c_functions, diag_sink *sink)
{
    char have[1024], want[1024];
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        const file_facts *facts = a->facts[fi];
        for (size_t k = 0; k < facts->n_functions; k++) {
            const fact_function *decl = &facts->functions[k];
            bool kernel = decl->exec == EXEC_KERNEL;
            /* Types clang could not resolve (a header parsed on its own,
             * missing its includer's types) are not what the code says. */
            if (decl->is_definition || decl->no_prototype || decl->unresolved_types ||
                (!kernel && !decl->is_c_linkage))
                continue;
            const symbol_index *idx = kernel ? kernels : c_functions;
            symbol_list c = symbol_index_candidates(idx, decl->name, fi);
            bool matched = false;
            const symbol_def *shown = NULL;
            for (size_t i = 0; i < c.n && !matched; i++) {
                const symbol_def *d = c.items[i];
                /* extern "C": only definitions in CUDA files, declared elsewhere. */
                if (!kernel && (d->file == fi || !d->fn->is_c_linkage ||
                                a->snap->files[d->file].lang != LANG_CUDA ||
                                a->snap->files[d->file].is_header))
                    continue;
                if (d->fn->is_template != decl->is_template || d->fn->unresolved_types ||
                    !programs_same(&idx->programs, fi, d->file))
                    continue;
                shown = d;
                matched = decl->is_c_linkage && d->fn->is_c_linkage
                              ? same_c_signature(decl, d->fn)
                              : same_signature(decl, d->fn);
            }
            if (shown && !matched) {
                format_params(have, sizeof have, &decl->params, decl);
                format_params(want, sizeof want, &shown->fn->params, shown->fn);
                if (kernel)
                    diag_report(sink, "kernel-signature", a->snap->files[fi].path,
                                decl->loc.line, decl->loc.col,
                                "declaration of kernel '%s%s' does not match its "
                                "definition '%s %s%s' at %s:%u",
                                decl->name, have, shown->fn->result, decl->name, want,
                                a->snap->files[shown->file].path, shown->fn->loc.line);
                else
                    diag_report(sink, "kernel-signature", a->snap->files[fi].path,
                                decl->loc.line, decl->loc.col,
                                "declaration '%s %s%s' differs from the extern \"C\" "
                                "definition '%s %s%s' at %s:%u (C linkage hides this "
                                "from the compiler and the linker)",
                                decl->result, decl->name, have, shown->fn->result,
                                decl->name, want, a->snap->files[shown->file].path,
                                shown->fn->loc.line);
            }
            free(c.items);
        }
    }
}

static void check_launches(const analysis *a, const symbol_index *kernels, diag_sink *sink)
{
    char have[1024], want[1024];
    for (size_t fi = 0; fi < a->snap->nfiles; fi++) {
        const file_facts *facts = a->facts[fi];
        for (size_t k = 0; k < facts->n_launches; k++) {
            const fact_launch *l = &facts->launches[k];
            if (!l->args_known)
                continue;
            symbol_list c = symbol_index_candidates(kernels, l->kernel_name, fi);
            bool matched = false;
            const symbol_def *shown = NULL;
            for (size_t i = 0; i < c.n && !matched; i++) {
                /* A definition whose signature did not parse (a kernel file
                 * parsed without the types its includer gives it) says
                 * nothing about what the launch should pass. */
                const symbol_def *d = c.items[i];
                if (d->fn->unresolved_types)
                    continue;
                /* The message names a definition of the launch's own
                 * program where there is one (rodinia-style suites hold a
                 * `kernel` in each program). */
                if (!shown || (!programs_same(&kernels->programs, fi, shown->file) &&
                               programs_same(&kernels->programs, fi, d->file)))
                    shown = d;
                matched = launch_matches(l, d->fn);
            }
            if (shown && !matched) {
                const symbol_def *d = shown;
                format_params(have, sizeof have, &l->arg_types, NULL);
                format_params(want, sizeof want, &d->fn->params, d->fn);
                diag_report(sink, "kernel-signature", a->snap->files[fi].path, l->loc.line,
                            l->loc.col,
                            "%s of '%s' passes %zu argument%s %s but its definition at "
                            "%s:%u takes %zu %s",
                            launch_form(l->kind), l->kernel_name, l->arg_types.n,
                            l->arg_types.n == 1 ? "" : "s", have,
                            a->snap->files[d->file].path, d->fn->loc.line,
                            d->fn->params.n, want);
            }
            free(c.items);
        }
    }
}

static void check(const analysis *a, diag_sink *sink)
{
    symbol_index kernels, c_functions;
    symbol_index_build(&kernels, a, is_kernel);
    symbol_index_build(&c_functions, a, is_c_function);
    check_declarations(a, &kernels, &c_functions, sink);
    check_launches(a, &kernels, sink);
    symbol_index_free(&kernels);
    symbol_index_free(&c_functions);
}

const rule_def rule_kernel_signature = {
    .id = "kernel-signature",
    .default_severity = SEV_ERROR,
    .summary = "kernel declarations, launches and extern \"C\" declarations that no "
               "longer match their definitions (partial refactors)",
    .explain =
        "Forbids, across all the files analysed together:\n"
        "  - a __global__ kernel declaration whose parameter types differ from every\n"
        "    definition of that kernel;\n"
        "  - a kernel<<<...>>>(args) launch or cudaLaunchKernelEx(&config, kernel,\n"
        "    args...), or cudaLaunchKernel / cudaLaunchCooperativeKernel /\n"
        "    cudaLaunchKernelExC with a `void *args[] = {&a, &b}` array, whose\n"
        "    arguments differ in count or type from the kernel's definition;\n"
        "  - an extern \"C\" function defined in a .cu file whose declaration in a C\n"
        "    header or another file has a different signature. C linkage puts no\n"
        "    types in the symbol, so the two are compared as the ABI passes them:\n"
        "    an enum is an integer of its underlying type (either signedness),\n"
        "    and `void *` stands for a pointer to any object; another width or\n"
        "    kind (int for size_t, float * for double *, void * for a function\n"
        "    pointer) is a finding.\n"
        "A launch or declaration is checked against the definition in its own file\n"
        "when there is one, else against every definition of that (namespace-\n"
        "qualified) name: kernels defined in two separate programs are fine as long\n"
        "as it matches one. Static kernels match within their own file. A\n"
        "declaration is compared only with definitions it can link with: of a\n"
        "compile database target that builds it too, never of another executable\n"
        "target; without targets, in its own directory or one above or below it\n"
        "(sibling directories, one sample each, are separate programs: docs/\n"
        "rules.md, Programs). A launch of a kernel template's\n"
        "specialisation is compared with the parameter types the compiler\n"
        "resolved for it (Tag<N> is Tag<3> there), and a `void *` slot of an args\n"
        "array fits a pointer parameter. A <<<>>>\n"
        "or cudaLaunchKernelEx argument may convert between integers or between\n"
        "floating types, and a\n"
        "constant (NULL, 0, 0.5f) converts to its parameter; an integer variable\n"
        "passed as a float (or the reverse) is a finding, because it compiles.\n"
        "A definition whose signature has a compiler error (a type its file does\n"
        "not declare, which clang reads as int) is compared with nothing; a .cu\n"
        "file that another file includes for such types is analysed in that\n"
        "file's unit, as a header is. The message names a definition of the\n"
        "launch's own program where there is one.\n"
        "\n"
        "Why: a signature changed in one place only compiles (overloads, stale\n"
        "headers, C linkage, void* argument arrays) and fails at run time.\n"
        "\n"
        "Bad:\n"
        "    // kernels.h\n"
        "    __global__ void attn(const float *qkv, int m);\n"
        "    // kernels.cu\n"
        "    __global__ void attn(const float *qkv, int m, int ld) { ... }\n"
        "Good: change the declaration, the definition and every launch together.\n"
        "\n"
        "Suppress (a reason is required):\n"
        "    // gpulint: allow(kernel-signature) -- overload kept for the old ABI\n",
    .check = check,
};
