/* Function-pointer variables: what each one holds, as far as its
 * translation unit shows (its initialiser and every assignment to it, in
 * any function), so that a call through one is a call of what it holds
 * (walk_copies.c's record_copy_through_pointer). Gathered once per unit, on
 * the first call through a variable. */
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

struct pointer_binding {
    CXCursor holder;   /* the variable, parameter or field */
    CXCursor value;    /* a function it is set to, or another such variable */
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
}

/* A value's functions and function-pointer variables, except under a call:
 * what a call returns (dlsym, a getter) is not known here. */
static enum CXChildVisitResult collect_values(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    binding_search *s = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr)
        return CXChildVisit_Continue;
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
    }
    return CXChildVisit_Recurse;
}

/* Set from other variables at most this deep: a cycle (a = b; b = a;) ends. */
enum { HOLD_DEPTH = 4 };

static void add_held(walk_ctx *ctx, CXCursor holder, int depth, cursor_list *out)
{
    for (size_t i = 0; i < ctx->n_pointer_bindings; i++) {
        const pointer_binding *p = &ctx->pointer_bindings[i];
        if (!clang_equalCursors(p->holder, holder))
            continue;
        if (is_function_kind(clang_getCursorKind(p->value))) {
            CXCursor *slot = XPUSH(out->items, out->n);
            *slot = p->value;
        } else if (depth < HOLD_DEPTH) {
            add_held(ctx, p->value, depth + 1, out);
        }
    }
}

cursor_list functions_held(walk_ctx *ctx, CXCursor holder)
{
    if (!ctx->pointer_bindings_known) {
        clang_visitChildren(clang_getTranslationUnitCursor(ctx->tu), gather, ctx);
        ctx->pointer_bindings_known = true;
    }
    cursor_list out = { 0 };
    add_held(ctx, holder, 0, &out);
    return out;
}

void free_pointer_bindings(walk_ctx *ctx)
{
    free(ctx->pointer_bindings);
    ctx->pointer_bindings = NULL;
    ctx->n_pointer_bindings = 0;
    ctx->pointer_bindings_known = false;
}
