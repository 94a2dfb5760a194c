/* Template parameters and arguments: which parameter list a type's
 * type-parameter-D-I belongs to, and which template arguments of a call are
 * floating (bind_floating), so that arithmetic on T in a template counts
 * where a call makes T a float. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

/* Canonical spellings name a template type parameter type-parameter-D-I:
 * the I-th of the parameter list at nesting depth D; *length (if asked)
 * gets how many characters that took. */
static bool parse_type_parameter(const char *p, int *depth, unsigned *index, int *length)
{
    int end = 0;
    bool parsed = sscanf(p, "type-parameter-%d-%u%n", depth, index, &end) == 2;
    if (length)
        *length = end;
    return parsed;
}

static enum CXChildVisitResult find_own_depth(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    int *depth = data, d;
    unsigned index;
    if (clang_getCursorKind(c) == CXCursor_TemplateTypeParameter) {
        char *s = type_spelling(clang_getCursorType(c));
        if (parse_type_parameter(s, &d, &index, NULL) && d > *depth)
            *depth = d;
        free(s);
    }
    return CXChildVisit_Continue;
}

/* The depth of a template's own type parameters: 0, or one more per
 * enclosing class template (a member template's list is the innermost
 * one, the list a call's template arguments follow). -1 for a function or
 * class of no type parameters of its own. */
int template_depth(CXCursor template)
{
    int depth = -1;
    enum CXCursorKind k = clang_getCursorKind(template);
    if (k == CXCursor_FunctionTemplate || k == CXCursor_ClassTemplate)
        clang_visitChildren(template, find_own_depth, &depth);
    return depth;
}

/* The parameter lists a function's arithmetic can be bound through: its
 * own, and the innermost class template around it, whose specialisation
 * (Blend<float>) a call names. A partial specialisation's parameters do
 * not follow the argument list of the class it specialises: none. */
template_lists lists_of(CXCursor function)
{
    template_lists l = { template_depth(function), -1 };
    for (CXCursor p = clang_getCursorSemanticParent(function);
         !clang_Cursor_isNull(p) && clang_isDeclaration(clang_getCursorKind(p));
         p = clang_getCursorSemanticParent(p)) {
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_ClassTemplatePartialSpecialization)
            break;
        if (k == CXCursor_ClassTemplate) {
            l.cls = template_depth(p);
            break;
        }
    }
    return l;
}

/* Bit i for each type-parameter-D-i in a type's spelling (T, const T,
 * complex<T>, T::value_type), in the list of depth D. A parameter of
 * another depth (an outer class template's, a partial specialisation's, a
 * generic lambda's), or one past bit 63: UNKNOWN_PARAMETERS in `own`, as
 * no call's template arguments tell what it is. */
static param_set spelled_parameters(const char *s, template_lists lists)
{
    param_set params = { 0, 0 };
    for (const char *p = s; (p = strstr(p, "type-parameter-")) != NULL; p++) {
        int d;
        unsigned index;
        if (!parse_type_parameter(p, &d, &index, NULL) || index >= 64 ||
            (d != lists.own && d != lists.cls))
            return (param_set){ UNKNOWN_PARAMETERS, 0 };
        if (d == lists.own)
            params.own |= 1ULL << index;
        else
            params.cls |= 1ULL << index;
    }
    return params;
}

bool any_parameter(param_set p)
{
    return (p.own | p.cls) != 0;
}

/* The template parameters a type is made of, none for a type of no
 * template parameter; a pointer to or array of one is not (pointer
 * arithmetic on T * is not arithmetic on T). */
param_set type_parameters(CXType t, template_lists lists)
{
    char *s = type_spelling(t);
    param_set params = strchr(s, '*') || strchr(s, '[') ? (param_set){ 0, 0 }
                                                        : spelled_parameters(s, lists);
    free(s);
    return params;
}

/* One past bit 63 sets every bit, as any floating argument counted before
 * parameters were told apart. */
static void add_floating(unsigned long long *floating, unsigned index)
{
    *floating |= index < 64 ? 1ULL << index : UNKNOWN_PARAMETERS;
}

/* Bit i for each floating-point type argument i of a specialisation
 * (reduce<float>, Blend<float>), deduced or explicit. A pack's types are
 * not known to libclang: never floating. */
static unsigned long long floating_arguments(CXCursor specialization)
{
    unsigned long long floating = 0;
    int n = clang_Cursor_getNumTemplateArguments(specialization);
    for (int i = 0; i < n; i++)
        if (clang_Cursor_getTemplateArgumentKind(specialization, (unsigned)i) ==
                CXTemplateArgumentKind_Type &&
            is_floating(clang_Cursor_getTemplateArgumentType(specialization, (unsigned)i)))
            add_floating(&floating, (unsigned)i);
    return floating;
}

/* The parameters of the list at `depth` that `pattern`, a template's type,
 * spells where `concrete`, its specialisation's, has a float: const T *
 * against const float * binds T, std::vector<T> & against
 * std::vector<float> & too. */
static void bind_floating(CXType pattern, CXType concrete, int depth,
                          unsigned long long *floating)
{
    pattern = clang_getCanonicalType(pattern);
    concrete = clang_getCanonicalType(concrete);
    char *s = type_spelling(clang_getUnqualifiedType(pattern));
    int d, end = 0;
    unsigned index;
    bool parameter = parse_type_parameter(s, &d, &index, &end) && !s[end];
    free(s);
    if (parameter) {
        if (d == depth && is_floating(concrete))
            add_floating(floating, index);
        return;
    }
    switch (pattern.kind) {
    case CXType_Pointer: case CXType_LValueReference: case CXType_RValueReference:
        if (concrete.kind == pattern.kind)
            bind_floating(clang_getPointeeType(pattern), clang_getPointeeType(concrete), depth,
                          floating);
        return;
    default:
        break;
    }
    int n = clang_Type_getNumTemplateArguments(pattern);
    if (n <= 0 || clang_Type_getNumTemplateArguments(concrete) != n)
        return;
    for (int i = 0; i < n; i++)
        bind_floating(clang_Type_getTemplateArgumentAsType(pattern, (unsigned)i),
                      clang_Type_getTemplateArgumentAsType(concrete, (unsigned)i), depth,
                      floating);
}

/* libclang gives the template arguments of a function template's
 * specialisations only, not a member template's (Summer::sum_all<float>,
 * a method): those are read off its signature, against the template's
 * parameter and result types. A parameter that neither spells (given
 * only explicitly: c.make<float>(n)) is not known: never floating. After
 * a function parameter pack the parameters no longer line up: the result
 * type only. */
static unsigned long long floating_signature_args(CXCursor callee)
{
    CXCursor tmpl = clang_getSpecializedCursorTemplate(callee);
    if (clang_getCursorKind(tmpl) != CXCursor_FunctionTemplate)
        return 0;
    int depth = template_depth(tmpl);
    CXType type = clang_getCursorType(callee);
    unsigned long long floating = 0;
    bind_floating(clang_getCursorResultType(tmpl), clang_getResultType(type), depth, &floating);
    function_parts parts = { 0 };
    clang_visitChildren(tmpl, collect_parts, &parts);
    if ((int)parts.parms.n == clang_getNumArgTypes(type))
        for (size_t i = 0; i < parts.parms.n; i++)
            bind_floating(clang_getCursorType(parts.parms.items[i]),
                          clang_getArgType(type, (unsigned)i), depth, &floating);
    free(parts.parms.items);
    return floating;
}

/* reduce<float>, Summer::sum_all<float>: the floating template arguments
 * of the call's own specialisation, which the template's parameter
 * indices follow. */
unsigned long long floating_template_args(CXCursor callee)
{
    return clang_Cursor_getNumTemplateArguments(callee) >= 0 ? floating_arguments(callee)
                                                             : floating_signature_args(callee);
}

/* Blend<float>::mix_rows: the floating template arguments of the innermost
 * class template specialisation around the callee, the list lists_of
 * binds a member's class parameters to. */
unsigned long long floating_class_args(CXCursor callee)
{
    for (CXCursor p = clang_getCursorSemanticParent(callee);
         !clang_Cursor_isNull(p) && clang_isDeclaration(clang_getCursorKind(p));
         p = clang_getCursorSemanticParent(p))
        if (clang_Cursor_getNumTemplateArguments(p) >= 0)
            return floating_arguments(p);
    return 0;
}
