/* Function-pointer variables: what each one holds, as far as its
 * translation unit shows (its initialiser and every assignment to it, in
 * any function; the entry point a lookup by name fetched into it; the CUDA
 * API its declared type is made for), so that a call through one is a call
 * of what it holds (walk_copies.c's record_copy_through_pointer). Gathered
 * once per unit, on the first call through a variable. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

struct pointer_binding {
    CXCursor holder;   /* the variable, parameter or field */
    CXCursor value;    /* a function it is set to, or another such variable */
    char *entry;       /* or, with a null value: the entry point a lookup
                          asked for by name (api_name of the string) */
};

bool is_function_pointer(CXCursor decl)
{
    enum CXCursorKind k = clang_getCursorKind(decl);
    if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl && k != CXCursor_FieldDecl)
        return false;
    CXType t = clang_getCanonicalType(clang_getCursorType(decl));
    if (t.kind != CXType_Pointer)
        return false;
    enum CXTypeKind pointee = clang_getCanonicalType(clang_getPointeeType(t)).kind;
    return pointee == CXType_FunctionProto || pointee == CXType_FunctionNoProto;
}

/* The declaration an expression names, through casts, parentheses and `*`
 * (`(*fp)(...)`); null for anything else. */
static CXCursor named_declaration(CXCursor e)
{
    for (;;) {
        e = strip_casts(e);
        if (clang_getCursorKind(e) != CXCursor_UnaryOperator ||
            clang_getCursorUnaryOperatorKind(e) != CXUnaryOperator_Deref)
            break;
        e = last_expression_child(e);
    }
    enum CXCursorKind k = clang_getCursorKind(e);
    return k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr ? clang_getCursorReferenced(e)
                                                                   : clang_getNullCursor();
}

CXCursor called_pointer(CXCursor call)
{
    cursor_list kids = children_of(call);
    CXCursor holder = kids.n > 0 ? named_declaration(kids.items[0]) : clang_getNullCursor();
    free(kids.items);
    return !clang_Cursor_isNull(holder) && is_function_pointer(holder) ? holder
                                                                       : clang_getNullCursor();
}

typedef struct {
    walk_ctx *ctx;
    CXCursor holder;
} binding_search;

static void bind(walk_ctx *ctx, CXCursor holder, CXCursor value)
{
    pointer_binding *p = XPUSH(ctx->pointer_bindings, ctx->n_pointer_bindings);
    p->holder = holder;
    p->value = value;
    p->entry = NULL;
}

static void bind_entry(walk_ctx *ctx, CXCursor holder, char *entry)
{
    pointer_binding *p = XPUSH(ctx->pointer_bindings, ctx->n_pointer_bindings);
    p->holder = holder;
    p->value = clang_getNullCursor();
    p->entry = entry;
}

/* A plain string literal's text (through casts and decay), or NULL. Its
 * spelling, since libclang does not evaluate a literal array: the names
 * asked of a lookup have no escapes, and one with a prefix or an escape is
 * no name of an entry point. */
static char *string_literal(CXCursor e)
{
    e = strip_casts(e);
    if (clang_getCursorKind(e) != CXCursor_StringLiteral)
        return NULL;
    char *spelling = cx_take(clang_getCursorSpelling(e));
    size_t n = strlen(spelling);
    char *text = n >= 2 && spelling[0] == '"' && spelling[n - 1] == '"' &&
                         !memchr(spelling, '\\', n)
                     ? xstrndup(spelling + 1, n - 2) : NULL;
    free(spelling);
    return text;
}

/* The call's argument `i` as the entry point's name (api_name), or NULL. */
static char *entry_name_argument(CXCursor call, unsigned i)
{
    if ((unsigned)clang_Cursor_getNumArguments(call) <= i)
        return NULL;
    char *text = string_literal(clang_Cursor_getArgument(call, i));
    if (!text)
        return NULL;
    char *api = api_name(text);
    free(text);
    return api;
}

/* The API a call names, as api_name gives it (cuGetProcAddress_v2 is
 * cuGetProcAddress), or NULL when the callee is not one declaration. */
static char *callee_api(CXCursor call)
{
    bool unique;
    CXCursor callee = callee_of(call, &unique);
    if (clang_Cursor_isNull(callee))
        return NULL;
    char *name = cx_take(clang_getCursorSpelling(callee));
    char *api = api_name(name);
    free(name);
    return api;
}

/* Lookups that return the entry point (`fp = (T)dlsym(lib, "cuMemcpyHtoD_v2")`):
 * the name is their second argument. */
static bool returns_entry_point(const char *api)
{
    return strcmp(api, "dlsym") == 0 || strcmp(api, "dlvsym") == 0 ||
           strcmp(api, "GetProcAddress") == 0;
}

/* Lookups that store it through their second argument
 * (`cuGetProcAddress("cuMemcpyHtoD", (void **)&fp, ...)`): the name is their
 * first (cuda.h, cuda_runtime_api.h). */
static bool stores_entry_point(const char *api)
{
    return strcmp(api, "cuGetProcAddress") == 0 || strcmp(api, "cudaGetDriverEntryPoint") == 0 ||
           strcmp(api, "cudaGetDriverEntryPointByVersion") == 0;
}

/* The variable `&v` (through casts: `(void **)&v`, `&(void *&)v`) names. */
static CXCursor addressed_declaration(CXCursor e)
{
    e = strip_casts(e);
    if (clang_getCursorKind(e) != CXCursor_UnaryOperator ||
        clang_getCursorUnaryOperatorKind(e) != CXUnaryOperator_AddrOf)
        return clang_getNullCursor();
    return named_declaration(last_expression_child(e));
}

static void bind_stored_entry_point(walk_ctx *ctx, CXCursor call)
{
    char *api = callee_api(call);
    if (!api || !stores_entry_point(api)) {
        free(api);
        return;
    }
    free(api);
    if (clang_Cursor_getNumArguments(call) < 2)
        return;
    CXCursor holder = addressed_declaration(clang_Cursor_getArgument(call, 1));
    if (clang_Cursor_isNull(holder) || !is_function_pointer(holder))
        return;
    char *entry = entry_name_argument(call, 0);
    if (entry)
        bind_entry(ctx, holder, entry);
}

/* A value's functions and function-pointer variables, and the entry point
 * a lookup by a literal name returns; nothing else under a call: what a
 * getter returns is not known here. */
static enum CXChildVisitResult collect_values(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    binding_search *s = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr) {
        char *api = callee_api(c);
        char *entry = api && returns_entry_point(api) ? entry_name_argument(c, 1) : NULL;
        if (entry)
            bind_entry(s->ctx, s->holder, entry);
        free(api);
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_DeclRefExpr) {
        CXCursor r = clang_getCursorReferenced(c);
        if (is_function_kind(clang_getCursorKind(r)) || is_function_pointer(r))
            bind(s->ctx, s->holder, r);
    }
    return CXChildVisit_Recurse;
}

static void bind_values(walk_ctx *ctx, CXCursor holder, CXCursor value)
{
    binding_search s = { .ctx = ctx, .holder = holder };
    if (collect_values(value, clang_getNullCursor(), &s) == CXChildVisit_Recurse)
        clang_visitChildren(value, collect_values, &s);
}

static enum CXChildVisitResult gather(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    walk_ctx *ctx = data;
    if (in_system_header(c))
        return CXChildVisit_Continue;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_VarDecl && is_function_pointer(c)) {
        CXCursor init = last_expression_child(c);
        if (!clang_Cursor_isNull(init))
            bind_values(ctx, c, init);
    } else if (k == CXCursor_BinaryOperator &&
               clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign) {
        cursor_list sides = children_of(c);
        CXCursor holder = sides.n == 2 ? named_declaration(sides.items[0]) : clang_getNullCursor();
        if (!clang_Cursor_isNull(holder) && is_function_pointer(holder))
            bind_values(ctx, holder, sides.items[1]);
        free(sides.items);
    } else if (k == CXCursor_CallExpr) {
        bind_stored_entry_point(ctx, c);
    }
    return CXChildVisit_Recurse;
}

/* Set from other variables at most this deep: a cycle (a = b; b = a;) ends. */
enum { HOLD_DEPTH = 4 };

static void add_api(held_apis *out, char *api, bool toolkit)
{
    held_api *h = XPUSH(out->items, out->n);
    h->api = api;
    h->toolkit = toolkit;
}

static void add_held(walk_ctx *ctx, CXCursor holder, int depth, held_apis *out)
{
    for (size_t i = 0; i < ctx->n_pointer_bindings; i++) {
        const pointer_binding *p = &ctx->pointer_bindings[i];
        if (!clang_equalCursors(p->holder, holder))
            continue;
        if (p->entry) {
            add_api(out, xstrdup(p->entry), true);
        } else if (is_function_kind(clang_getCursorKind(p->value))) {
            char *name = cx_take(clang_getCursorSpelling(p->value));
            add_api(out, api_name(name), in_system_header(p->value));
            free(name);
        } else if (depth < HOLD_DEPTH) {
            add_held(ctx, p->value, depth + 1, out);
        }
    }
}

/* cudaTypedefs.h names the pointer type of every driver entry point
 * PFN_<api>_v<version>, with _ptsz or _ptds for the per-thread-stream ones:
 * <api>, or NULL for another name. */
static char *api_of_pfn_typedef(const char *name)
{
    if (!name_starts(name, "PFN_"))
        return NULL;
    const char *api = name + 4;
    size_t n = strlen(api);
    if (n > 5 && (strcmp(api + n - 5, "_ptsz") == 0 || strcmp(api + n - 5, "_ptds") == 0))
        n -= 5;
    size_t digits = 0;
    while (digits < n && isdigit((unsigned char)api[n - 1 - digits]))
        digits++;
    if (digits == 0 || n < digits + 3 || api[n - digits - 1] != 'v' || api[n - digits - 2] != '_')
        return NULL;
    return xstrndup(api, n - digits - 2);
}

/* `decltype(&api)` or `decltype(api)`, as clang spells the type: <api>
 * through api_name, or NULL. */
static char *api_of_decltype(const char *spelling)
{
    if (!name_starts(spelling, "decltype("))
        return NULL;
    const char *p = spelling + strlen("decltype(");
    while (*p == ' ' || *p == '&' || *p == ':')
        p++;
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    if (n == 0 || strcmp(p + n, ")") != 0)
        return NULL;
    char *name = xstrndup(p, n);
    char *api = api_name(name);
    free(name);
    return api;
}

/* The CUDA API the holder's declared type is made for: a PFN_ typedef
 * anywhere in its typedef chain, or a decltype of the API; the pointee's
 * too (`decltype(api) *fp`). NULL when the type says nothing. */
static char *api_of_holder_type(CXCursor holder)
{
    CXType t = clang_getCursorType(holder);
    bool pointee_seen = false;
    for (int steps = 0; steps < 16; steps++) {
        char *spelling = cx_take(clang_getTypeSpelling(t));
        char *api = api_of_decltype(spelling);
        free(spelling);
        if (api)
            return api;
        if (t.kind == CXType_Elaborated) {
            t = clang_Type_getNamedType(t);
        } else if (t.kind == CXType_Typedef) {
            CXCursor decl = clang_getTypeDeclaration(t);
            char *name = cx_take(clang_getCursorSpelling(decl));
            api = api_of_pfn_typedef(name);
            free(name);
            if (api)
                return api;
            t = clang_getTypedefDeclUnderlyingType(decl);
        } else if (t.kind == CXType_Pointer && !pointee_seen) {
            pointee_seen = true;
            t = clang_getPointeeType(t);
        } else {
            return NULL;
        }
    }
    return NULL;
}

held_apis apis_held(walk_ctx *ctx, CXCursor holder)
{
    if (!ctx->pointer_bindings_known) {
        clang_visitChildren(clang_getTranslationUnitCursor(ctx->tu), gather, ctx);
        ctx->pointer_bindings_known = true;
    }
    held_apis out = { 0 };
    add_held(ctx, holder, 0, &out);
    char *typed = api_of_holder_type(holder);
    if (typed)
        add_api(&out, typed, true);
    return out;
}

void free_held_apis(held_apis *held)
{
    for (size_t i = 0; i < held->n; i++)
        free(held->items[i].api);
    free(held->items);
    held->items = NULL;
    held->n = 0;
}

void free_pointer_bindings(walk_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n_pointer_bindings; i++)
        free(ctx->pointer_bindings[i].entry);
    free(ctx->pointer_bindings);
    ctx->pointer_bindings = NULL;
    ctx->n_pointer_bindings = 0;
    ctx->pointer_bindings_known = false;
}
