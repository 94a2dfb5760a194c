/* Small libclang helpers the walk's files share: cursor kinds, children,
 * implicit conversions and casts, a call's callee, and the canonical type
 * spelling (type_spelling, extract/internal.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

bool is_function_kind(enum CXCursorKind k)
{
    return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod ||
           k == CXCursor_FunctionTemplate || k == CXCursor_Constructor ||
           k == CXCursor_Destructor || k == CXCursor_ConversionFunction;
}

bool is_loop_kind(enum CXCursorKind k)
{
    return k == CXCursor_ForStmt || k == CXCursor_WhileStmt ||
           k == CXCursor_DoStmt || k == CXCursor_CXXForRangeStmt;
}

bool name_starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

void strs_push(fact_strs *s, char *item)
{
    *XPUSH(s->items, s->n) = item;
}

static enum CXChildVisitResult collect_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    cursor_list *l = data;
    *XPUSH(l->items, l->n) = c;
    return CXChildVisit_Continue;
}

cursor_list children_of(CXCursor c)
{
    cursor_list l = { 0 };
    clang_visitChildren(c, collect_child, &l);
    return l;
}

bool is_cast_kind(enum CXCursorKind k)
{
    return k == CXCursor_CStyleCastExpr || k == CXCursor_CXXStaticCastExpr ||
           k == CXCursor_CXXReinterpretCastExpr || k == CXCursor_CXXConstCastExpr ||
           k == CXCursor_CXXFunctionalCastExpr;
}

/* The last expression child, or a null cursor. */
CXCursor last_expression_child(CXCursor c)
{
    cursor_list l = children_of(c);
    CXCursor r = clang_getNullCursor();
    for (size_t i = 0; i < l.n; i++)
        if (clang_isExpression(clang_getCursorKind(l.items[i])))
            r = l.items[i];
    free(l.items);
    return r;
}

bool same_extent(CXCursor a, CXCursor b)
{
    return clang_equalRanges(clang_getCursorExtent(a), clang_getCursorExtent(b));
}

/* Through implicit conversions only (libclang shows them as UnexposedExpr
 * spanning exactly their operand): the type the programmer wrote. */
CXCursor strip_implicit(CXCursor c)
{
    while (clang_getCursorKind(c) == CXCursor_UnexposedExpr) {
        CXCursor inner = last_expression_child(c);
        if (clang_Cursor_isNull(inner) || !same_extent(c, inner))
            break;
        c = inner;
    }
    return c;
}

/* Through implicit conversions, parentheses and explicit casts: the value. */
CXCursor strip_casts(CXCursor c)
{
    for (;;) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && !is_cast_kind(k))
            return c;
        CXCursor inner = last_expression_child(c);
        if (clang_Cursor_isNull(inner))
            return c;
        c = inner;
    }
}

static enum CXChildVisitResult find_overloaded_ref(CXCursor c, CXCursor parent,
                                                   CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) != CXCursor_OverloadedDeclRef)
        return CXChildVisit_Recurse;
    *(CXCursor *)data = c;
    return CXChildVisit_Break;
}

/* The unresolved set of candidates a call with dependent arguments names in
 * a template, or a null cursor. */
CXCursor overloaded_callee_ref(CXCursor call)
{
    cursor_list kids = children_of(call);
    CXCursor ref = clang_getNullCursor();
    if (kids.n > 0) {
        if (clang_getCursorKind(kids.items[0]) == CXCursor_OverloadedDeclRef)
            ref = kids.items[0];
        else
            clang_visitChildren(kids.items[0], find_overloaded_ref, &ref);
    }
    free(kids.items);
    return ref;
}

/* The function a call names. In a template, a call with dependent arguments
 * names an unresolved set of candidates: all of them share the name, so the
 * first stands for it; *unique tells whether it was the only one. */
CXCursor callee_of(CXCursor call, bool *unique)
{
    CXCursor callee = clang_getCursorReferenced(call);
    *unique = true;
    if (!clang_Cursor_isNull(callee) && is_function_kind(clang_getCursorKind(callee)))
        return callee;
    CXCursor ref = overloaded_callee_ref(call);
    unsigned n = clang_Cursor_isNull(ref) ? 0 : clang_getNumOverloadedDecls(ref);
    if (n == 0)
        return clang_getNullCursor();
    *unique = n == 1;
    callee = clang_getOverloadedDecl(ref, 0);
    return is_function_kind(clang_getCursorKind(callee)) ? callee : clang_getNullCursor();
}

/* The template a specialization came from, so every use of one template
 * kernel or function maps to one USR. Blend<float>::mix<double> comes from
 * the member template of Blend<float>, which comes from the one of Blend<T>
 * that the snapshot defines: one step per enclosing class template. */
CXCursor primary_template(CXCursor c)
{
    for (CXCursor t; !clang_Cursor_isNull(t = clang_getSpecializedCursorTemplate(c));)
        c = t;
    return c;
}

bool in_system_header(CXCursor c)
{
    return clang_Location_isInSystemHeader(clang_getCursorLocation(c)) != 0;
}

/* Remove every whole-word occurrence of `word` (with its trailing space). */
static void remove_word(char *s, const char *word)
{
    size_t n = strlen(word);
    char *p = s;
    while ((p = strstr(p, word)) != NULL) {
        bool starts_word = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        if (starts_word)
            memmove(p, p + n, strlen(p + n) + 1);
        else
            p += n;
    }
}

char *type_spelling(CXType t)
{
    char *s = cx_take(clang_getTypeSpelling(clang_getCanonicalType(t)));
    /* Canonical spellings of unnamed types carry a file path; the written
     * spelling (a typedef name) is what C and C++ share. */
    if (strstr(s, "(unnamed") || strstr(s, "(anonymous")) {
        free(s);
        s = cx_take(clang_getTypeSpelling(t));
    }
    remove_word(s, "struct ");
    remove_word(s, "union ");
    remove_word(s, "enum ");
    remove_word(s, "class ");
    for (char *p = s; (p = strstr(p, "_Bool")) != NULL;) {
        memcpy(p, "bool", 4);
        memmove(p + 4, p + 5, strlen(p + 5) + 1);
    }
    return s;
}

/* A floating-point type, whatever its width. */
/* A parameter as the function's signature has it: `const int n` and
 * `int n`, `float x[]` and `float *x` declare the same function. An
 * invalid type (clang_getUnqualifiedType would dereference it) spells as
 * nothing. */
char *parameter_spelling(CXType t)
{
    if (t.kind == CXType_Invalid)
        return xstrdup("");
    char *s = type_spelling(clang_getUnqualifiedType(t));
    size_t n = strlen(s);
    char *open = strrchr(s, '[');
    if (n == 0 || s[n - 1] != ']' || !open)
        return s;
    while (open > s && open[-1] == ' ')
        open--;
    *open = '\0';
    char *decayed = xasprintf("%s *", s);
    free(s);
    return decayed;
}

bool is_floating(CXType t)
{
    switch (clang_getCanonicalType(t).kind) {
    case CXType_Float: case CXType_Double: case CXType_LongDouble:
    case CXType_Half: case CXType_Float16: case CXType_BFloat16:
    case CXType_Float128: case CXType_Ibm128:
        return true;
    default:
        return false;
    }
}

/* The name as the programmer writes it: cuda.h and cublas_v2.h turn
 * cuMemcpyHtoD into cuMemcpyHtoD_v2 and cublasCreate into cublasCreate_v2,
 * and a per-thread default stream build (nvcc --default-stream per-thread,
 * CUDA_API_PER_THREAD_DEFAULT_STREAM) turns cudaMemcpy into cudaMemcpy_ptds,
 * cudaMemcpyAsync into cudaMemcpyAsync_ptsz, cuMemcpyHtoDAsync into
 * cuMemcpyHtoDAsync_v2_ptsz. */
char *api_name(const char *name)
{
    static const char *const suffixes[] = {"_ptsz", "_ptds", "_v2"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strncmp(name + n - k, suffixes[i], k) == 0)
            n -= k;
    }
    return xstrndup(name, n);
}
