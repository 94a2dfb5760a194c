/* Copies: every runtime and driver API call that can copy from host memory
 * (docs/rules.md lists them) and, where visible, its direction as a
 * cudaMemcpyKind: the kind argument, the kind of a cudaMemcpy3DParms, or
 * the src/dst memory types of a driver CUDA_MEMCPY2D/3D. */
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

typedef struct {
    CXCursor var;          /* the params struct variable */
    const char *member;    /* "kind", "srcMemoryType", ... */
    unsigned before;       /* only assignments before the copy call */
    CXCursor value;        /* the last `var.member = value` found */
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
        if (strcmp(member, s->member) == 0 && !clang_Cursor_isNull(base) &&
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

/* A constant's value through casts, enumerators and const variables. A
 * non-const variable is not resolved: its value at the call is not proven
 * by its initialiser. */
static bool resolve_constant(CXCursor expr, long *value)
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

/* The values a kind expression can take, bit k for value k: one constant
 * (resolve_constant), or a conditional expression whose arms are such
 * (`dev < 0 ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice`), nested. */
static bool resolve_kinds(CXCursor expr, unsigned long *kinds)
{
    long v;
    if (resolve_constant(expr, &v)) {
        if (v < 0 || v >= (long)(8 * sizeof *kinds))
            return false;
        *kinds = 1UL << v;
        return true;
    }
    CXCursor e = strip_casts(expr);
    if (clang_getCursorKind(e) != CXCursor_ConditionalOperator)
        return false;
    cursor_list parts = children_of(e);
    unsigned long when_true = 0, when_false = 0;
    bool known = parts.n == 3 && resolve_kinds(parts.items[1], &when_true) &&
                 resolve_kinds(parts.items[2], &when_false);
    free(parts.items);
    *kinds = when_true | when_false;
    return known;
}

/* `.member = value` in the variable's initialiser (C designated
 * initialisers): libclang shows each designator as an UnexposedExpr holding
 * a MemberRef and the value. */
static CXCursor designated_member(CXCursor var, const char *wanted)
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
            if (strcmp(member, wanted) == 0)
                value = parts.items[1];
            free(member);
        }
        free(parts.items);
    }
    free(entries.items);
    return value;
}

/* A params struct member's value at a call given `&p`: set by an
 * assignment before the call in the same function, or in p's initialiser
 * ("where visible"). */
static bool resolve_member(body_ctx *b, CXCursor call, CXCursor params_arg,
                           const char *member, unsigned long *kinds)
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
        .member = member,
        .before = cursor_offset(call),
        .value = clang_getNullCursor(),
    };
    clang_visitChildren(b->function, find_kind_assignment, &s);
    if (clang_Cursor_isNull(s.value))
        s.value = designated_member(s.var, member);
    return !clang_Cursor_isNull(s.value) && resolve_kinds(s.value, kinds);
}

/* cudaMemcpy3D*(&p), cudaGraphAddMemcpyNode(..., &p): the kind is p.kind. */
static bool resolve_params_kind(body_ctx *b, CXCursor call, CXCursor params_arg,
                                unsigned long *kinds)
{
    return resolve_member(b, call, params_arg, "kind", kinds);
}

/* A member that must have one known value (a memory type). */
static bool resolve_single_member(body_ctx *b, CXCursor call, CXCursor params_arg,
                                  const char *member, long *value)
{
    unsigned long kinds;
    if (!resolve_member(b, call, params_arg, member, &kinds) || kinds == 0 ||
        (kinds & (kinds - 1)) != 0)
        return false;
    *value = __builtin_ctzl(kinds);
    return true;
}

/* CUmemorytype (cuda.h) and cudaMemcpyKind (driver_types.h) values. */
enum { MEM_HOST = 1, MEM_DEVICE = 2, MEM_ARRAY = 3, MEM_UNIFIED = 4 };
enum { KIND_H2H = 0, KIND_H2D = 1, KIND_D2D = 3, KIND_DEFAULT = 4 };

/* cuMemcpy2D/3D(&p), cuGraphAddMemcpyNode(..., &p, ctx): the direction from
 * p.srcMemoryType and p.dstMemoryType, as the cudaMemcpyKind it amounts
 * to. A unified source is resolved by the pointer at run time: Default. */
static bool resolve_driver_direction(body_ctx *b, CXCursor call, CXCursor params_arg,
                                     unsigned long *kinds)
{
    long src, dst;
    if (!resolve_single_member(b, call, params_arg, "srcMemoryType", &src))
        return false;
    if (src == MEM_DEVICE || src == MEM_ARRAY) {
        *kinds = 1UL << KIND_D2D;   /* from the device: allowed whatever the destination */
        return true;
    }
    if (src == MEM_UNIFIED) {
        *kinds = 1UL << KIND_DEFAULT;
        return true;
    }
    if (src != MEM_HOST || !resolve_single_member(b, call, params_arg, "dstMemoryType", &dst))
        return false;
    *kinds = 1UL << (dst == MEM_HOST ? KIND_H2H : dst == MEM_UNIFIED ? KIND_DEFAULT : KIND_H2D);
    return true;
}

static bool is_one_of(const char *name, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(name, *names) == 0)
            return true;
    return false;
}

/* Always from host memory to the device (a symbol or an array). */
static bool always_uploads(const char *name)
{
    static const char *const graph_to_symbol[] = {
        "cudaGraphAddMemcpyNodeToSymbol", "cudaGraphMemcpyNodeSetParamsToSymbol",
        "cudaGraphExecMemcpyNodeSetParamsToSymbol", NULL
    };
    return name_starts(name, "cudaMemcpyToSymbol") || name_starts(name, "cuMemcpyHtoD") ||
           name_starts(name, "cuMemcpyHtoA") || is_one_of(name, graph_to_symbol);
}

/* A cudaMemcpyKind argument or a cudaMemcpy3DParms says the direction. */
static bool copies_by_kind(const char *name)
{
    static const char *const named[] = {
        "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpyToArray", "cudaMemcpyToArrayAsync",
        "cudaGraphAddMemcpyNode", "cudaGraphAddMemcpyNode1D",
        "cudaGraphMemcpyNodeSetParams", "cudaGraphMemcpyNodeSetParams1D",
        "cudaGraphExecMemcpyNodeSetParams", "cudaGraphExecMemcpyNodeSetParams1D", NULL
    };
    return is_one_of(name, named) ||
           ((name_starts(name, "cudaMemcpy2D") || name_starts(name, "cudaMemcpy3D")) &&
            !strstr(name, "Peer") && !strstr(name, "Batch"));
}

/* Direction from the pointers at run time (unified addressing), as for
 * cudaMemcpyDefault: batches and the driver's cuMemcpy. */
static bool copies_by_pointer(const char *name)
{
    static const char *const named[] = { "cuMemcpy", "cuMemcpyAsync", NULL };
    return is_one_of(name, named) || name_starts(name, "cudaMemcpyBatchAsync") ||
           name_starts(name, "cudaMemcpy3DBatchAsync") ||
           name_starts(name, "cuMemcpyBatchAsync") || name_starts(name, "cuMemcpy3DBatchAsync");
}

/* A driver CUDA_MEMCPY2D/3D says the direction by memory types. */
static bool copies_by_memory_type(const char *name)
{
    static const char *const named[] = { "cuGraphAddMemcpyNode", "cuGraphMemcpyNodeSetParams",
                                         "cuGraphExecMemcpyNodeSetParams", NULL };
    return is_one_of(name, named) ||
           ((name_starts(name, "cuMemcpy2D") || name_starts(name, "cuMemcpy3D")) &&
            !strstr(name, "Peer") && !strstr(name, "Batch"));
}

fact_copy *record_copy(body_ctx *b, CXCursor call, CXType ftype, const char *name,
                       fact_loc loc)
{
    bool always = always_uploads(name), by_kind = copies_by_kind(name),
         by_pointer = copies_by_pointer(name), by_memory_type = copies_by_memory_type(name);
    if (!always && !by_kind && !by_pointer && !by_memory_type)
        return NULL;
    fact_copy *copy = XPUSH(b->w->facts->copies, b->w->facts->n_copies);
    copy->callee = xstrdup(name);
    copy->loc = loc;
    copy->macro_site = macro_body_site(b->w, call);
    copy->kind_values = 0;
    if (always) {
        copy->kind = COPY_ALWAYS_UPLOAD;
        return copy;
    }
    if (by_pointer) {
        copy->kind = COPY_BY_POINTERS;
        return copy;
    }
    copy->kind = COPY_KIND_UNRESOLVED;
    int np = clang_getNumArgTypes(ftype), na = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < np && i < na; i++) {
        char *t = type_spelling(clang_getArgType(ftype, (unsigned)i));
        bool is_kind = strcmp(t, "cudaMemcpyKind") == 0;
        bool is_params = strstr(t, "cudaMemcpy3D") && strstr(t, "Parms");
        bool is_driver_params = by_memory_type && strstr(t, "CUDA_MEMCPY") && !strstr(t, "PEER");
        free(t);
        unsigned long kinds;
        CXCursor arg = clang_Cursor_getArgument(call, (unsigned)i);
        if ((is_kind && resolve_kinds(arg, &kinds)) ||
            (is_params && resolve_params_kind(b, call, arg, &kinds)) ||
            (is_driver_params && resolve_driver_direction(b, call, arg, &kinds))) {
            copy->kind = COPY_KIND_RESOLVED;
            copy->kind_values = (long)kinds;
        }
        if (is_kind || is_params || is_driver_params)
            return copy;
    }
    return copy;
}

/* A call through a function-pointer variable: a copy when the variable
 * holds a copy API (what the unit sets it to or looks up into it by name,
 * what its type is made for), or is named after one (a loader's
 * `cuMemcpyHtoD = dlsym(...)`). Its own type says where the kind is; the
 * finding names both. */
void record_copy_through_pointer(body_ctx *b, CXCursor call, CXCursor holder, fact_loc loc)
{
    CXType ftype = clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(holder)));
    char *holder_name = cx_take(clang_getCursorSpelling(holder));
    held_apis held = apis_held(b->w, holder);
    fact_copy *copy = NULL;
    for (size_t i = 0; i < held.n && !copy; i++) {
        copy = record_copy(b, call, ftype, held.items[i].api, loc);
        if (copy) {
            free(copy->callee);
            copy->callee = xasprintf("%s (called through %s)", held.items[i].api, holder_name);
        }
    }
    free_held_apis(&held);
    if (!copy) {
        char *api = api_name(holder_name);
        record_copy(b, call, ftype, api, loc);
        free(api);
    }
    free(holder_name);
}
