/* Copies: the cudaMemcpy* and cuMemcpyHtoD* calls and, where visible,
 * their cudaMemcpyKind. */
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

typedef struct {
    CXCursor var;          /* the cudaMemcpy3DParms variable */
    unsigned before;       /* only assignments before the copy call */
    CXCursor value;        /* the last `var.kind = value` found */
} kind_assignment_search;

static bool refers_to(CXCursor expr, CXCursor var)
{
    CXCursor e = strip_casts(expr);
    return clang_getCursorKind(e) == CXCursor_DeclRefExpr &&
           clang_equalCursors(clang_getCursorReferenced(e), var);
}

static unsigned cursor_offset(CXCursor c)
{
    unsigned off;
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, NULL, NULL, &off);
    return off;
}

static enum CXChildVisitResult find_kind_assignment(CXCursor c, CXCursor parent,
                                                    CXClientData data)
{
    (void)parent;
    kind_assignment_search *s = data;
    if (clang_getCursorKind(c) != CXCursor_BinaryOperator ||
        clang_getCursorBinaryOperatorKind(c) != CXBinaryOperator_Assign ||
        cursor_offset(c) >= s->before)
        return CXChildVisit_Recurse;
    cursor_list sides = children_of(c);
    if (sides.n == 2 && clang_getCursorKind(sides.items[0]) == CXCursor_MemberRefExpr) {
        char *member = cx_take(clang_getCursorSpelling(sides.items[0]));
        CXCursor base = last_expression_child(sides.items[0]);
        if (strcmp(member, "kind") == 0 && !clang_Cursor_isNull(base) &&
            refers_to(base, s->var))
            s->value = sides.items[1];
        free(member);
    }
    free(sides.items);
    return CXChildVisit_Continue;
}

static bool evaluate_int(CXCursor c, long *value)
{
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (!r)
        return false;
    bool ok = clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok)
        *value = (long)clang_EvalResult_getAsLongLong(r);
    clang_EvalResult_dispose(r);
    return ok;
}

/* A kind expression's value through constants, casts, enumerators and const
 * variables. A non-const variable is not resolved: its value at the call is
 * not proven by its initialiser. */
static bool resolve_kind(CXCursor expr, long *value)
{
    if (evaluate_int(expr, value))
        return true;
    CXCursor e = strip_casts(expr);
    if (clang_getCursorKind(e) != CXCursor_DeclRefExpr)
        return false;
    CXCursor target = clang_getCursorReferenced(e);
    switch (clang_getCursorKind(target)) {
    case CXCursor_EnumConstantDecl:
        *value = (long)clang_getEnumConstantDeclValue(target);
        return true;
    case CXCursor_VarDecl:
        return clang_isConstQualifiedType(clang_getCursorType(target)) &&
               evaluate_int(target, value);
    default:
        return false;
    }
}

/* `.kind = value` in the variable's initialiser (C designated
 * initialisers): libclang shows each designator as an UnexposedExpr holding
 * a MemberRef and the value. */
static CXCursor designated_kind(CXCursor var)
{
    CXCursor value = clang_getNullCursor();
    CXCursor init = last_expression_child(var);
    if (clang_getCursorKind(init) != CXCursor_InitListExpr)
        return value;
    cursor_list entries = children_of(init);
    for (size_t i = 0; i < entries.n; i++) {
        cursor_list parts = children_of(entries.items[i]);
        if (parts.n == 2 && clang_getCursorKind(parts.items[0]) == CXCursor_MemberRef) {
            char *member = cx_take(clang_getCursorSpelling(parts.items[0]));
            if (strcmp(member, "kind") == 0)
                value = parts.items[1];
            free(member);
        }
        free(parts.items);
    }
    free(entries.items);
    return value;
}

/* cudaMemcpy3D*(&p): the kind is p.kind, set by an assignment before the call
 * in the same function ("where visible"). */
static bool resolve_params_kind(body_ctx *b, CXCursor call, CXCursor params_arg, long *value)
{
    CXCursor e = strip_casts(params_arg);
    if (clang_getCursorKind(e) != CXCursor_UnaryOperator ||
        clang_getCursorUnaryOperatorKind(e) != CXUnaryOperator_AddrOf)
        return false;
    CXCursor operand = strip_casts(last_expression_child(e));
    if (clang_getCursorKind(operand) != CXCursor_DeclRefExpr)
        return false;
    kind_assignment_search s = {
        .var = clang_getCursorReferenced(operand),
        .before = cursor_offset(call),
        .value = clang_getNullCursor(),
    };
    clang_visitChildren(b->function, find_kind_assignment, &s);
    if (clang_Cursor_isNull(s.value))
        s.value = designated_kind(s.var);
    return !clang_Cursor_isNull(s.value) && resolve_kind(s.value, value);
}

void record_copy(body_ctx *b, CXCursor call, CXCursor callee, const char *name,
                        fact_loc loc)
{
    bool always = name_starts(name, "cudaMemcpyToSymbol") || name_starts(name, "cuMemcpyHtoD");
    bool by_kind = strcmp(name, "cudaMemcpy") == 0 || strcmp(name, "cudaMemcpyAsync") == 0 ||
                   ((name_starts(name, "cudaMemcpy2D") || name_starts(name, "cudaMemcpy3D")) &&
                    !strstr(name, "Peer"));
    if (!always && !by_kind)
        return;
    fact_copy *copy = FACT_PUSH(b->w->facts->copies, b->w->facts->n_copies);
    copy->callee = xstrdup(name);
    copy->loc = loc;
    copy->kind_value = -1;
    if (always) {
        copy->kind = COPY_ALWAYS_UPLOAD;
        return;
    }
    copy->kind = COPY_KIND_UNRESOLVED;
    CXType ftype = clang_getCursorType(callee);
    int np = clang_getNumArgTypes(ftype), na = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < np && i < na; i++) {
        char *t = type_spelling(clang_getArgType(ftype, (unsigned)i));
        bool is_kind = strcmp(t, "cudaMemcpyKind") == 0;
        bool is_params = strstr(t, "cudaMemcpy3D") && strstr(t, "Parms");
        free(t);
        long v;
        CXCursor arg = clang_Cursor_getArgument(call, (unsigned)i);
        if ((is_kind && resolve_kind(arg, &v)) ||
            (is_params && resolve_params_kind(b, call, arg, &v))) {
            copy->kind = COPY_KIND_RESOLVED;
            copy->kind_value = v;
        }
        if (is_kind || is_params)
            return;
    }
}
