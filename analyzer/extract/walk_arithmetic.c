/* Arithmetic in loops: floating operators, operator calls and math library
 * calls, in the function's own loops or in a library template's that a call
 * instantiates with floats. */
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

/* CUDA's 16-bit floating types are classes on the host side. */
static bool is_half_precision(CXType t)
{
    char *s = type_spelling(t);
    bool half = strcmp(s, "__half") == 0 || strcmp(s, "__nv_bfloat16") == 0;
    free(s);
    return half;
}

typedef struct {
    template_lists lists;
    param_set params;
} operand_scan;

static enum CXChildVisitResult find_type_parameter_operands(CXCursor c, CXCursor parent,
                                                            CXClientData data)
{
    (void)parent;
    operand_scan *s = data;
    param_set p = type_parameters(clang_getCursorType(c), s->lists);
    s->params.own |= p.own;
    s->params.cls |= p.cls;
    return CXChildVisit_Continue;
}

/* Floating, or in a template: arithmetic whose operands are of template
 * parameters' types, *params getting which. */
static arithmetic_kind arithmetic_type(CXCursor op, template_lists lists, param_set *params)
{
    CXType t = clang_getCursorType(op);
    if (is_floating(t) || is_half_precision(t))
        return ARITH_FLOATING;
    if (t.kind != CXType_Dependent && t.kind != CXType_Unexposed &&
        !any_parameter(type_parameters(t, lists)))
        return ARITH_NONE;
    operand_scan s = { lists, { 0, 0 } };
    clang_visitChildren(op, find_type_parameter_operands, &s);
    *params = s.params;
    return any_parameter(s.params) ? ARITH_DEPENDENT : ARITH_NONE;
}

static bool is_arithmetic_operator(const char *op)
{
    static const char *const ops[] = { "+", "-", "*", "/", "+=", "-=", "*=", "/=", "++", "--" };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(op, ops[i]) == 0)
            return true;
    return false;
}

/* libclang has no operator kind for a type-dependent operator in a
 * template; its spelling is the operator. */
static bool is_arithmetic_spelling(CXCursor c)
{
    char *s = cx_take(clang_getCursorSpelling(c));
    bool arithmetic = is_arithmetic_operator(s);
    free(s);
    return arithmetic;
}

/* The unresolved operator an operator call in a template names: a child of
 * the call itself, listed between the operands as a DeclRefExpr holding the
 * OverloadedDeclRef. Not one found inside an operand: in `*it == v` the
 * operator* belongs to the left operand, and the call is a comparison. */
static CXCursor own_overloaded_operator(CXCursor call)
{
    cursor_list kids = children_of(call);
    CXCursor ref = clang_getNullCursor();
    for (size_t i = 0; i < kids.n && clang_Cursor_isNull(ref); i++) {
        CXCursor k = kids.items[i];
        if (clang_getCursorKind(k) == CXCursor_OverloadedDeclRef) {
            ref = k;
        } else if (clang_getCursorKind(k) == CXCursor_DeclRefExpr ||
                   clang_getCursorKind(k) == CXCursor_UnexposedExpr) {
            cursor_list inner = children_of(k);
            if (inner.n == 1 && clang_getCursorKind(inner.items[0]) == CXCursor_OverloadedDeclRef)
                ref = inner.items[0];
            free(inner.items);
        }
    }
    free(kids.items);
    return ref;
}

/* An operator call: `a - b` on a class type (__half), or on T in a template
 * where operator overloads are visible (an unresolved operator-). */
static bool is_arithmetic_operator_call(CXCursor call)
{
    CXCursor ref = clang_getNullCursor();
    CXCursor callee = clang_getCursorReferenced(call);
    if (!clang_Cursor_isNull(callee) && is_function_kind(clang_getCursorKind(callee)))
        ref = callee;
    else
        ref = own_overloaded_operator(call);
    if (clang_Cursor_isNull(ref))
        return false;
    char *name = cx_take(clang_getCursorSpelling(ref));
    const char *op = strncmp(name, "operator", 8) == 0 ? name + 8 : "";
    /* `*it` and `-x` are operator* and operator- with one operand (the
     * object counts as one): dereference and negation, not arithmetic. */
    bool increment = strcmp(op, "++") == 0 || strcmp(op, "--") == 0;
    bool arithmetic = is_arithmetic_operator(op) &&
                      (increment || clang_Cursor_getNumArguments(call) == 2);
    free(name);
    return arithmetic;
}

/* The C math library's functions of a floating result (C11 7.12), each also
 * with its f and l suffix, and their C++ overloads (std::exp(float)).
 * Integer-valued ones (lround, ilogb, isnan) are not listed; abs is, for
 * std::abs(float), and the call's result type rules out abs on ints. nan
 * only makes a constant. */
static bool is_math_function_name(const char *name)
{
    static const char *const names[] = {
        "acos", "asin", "atan", "atan2", "cos", "sin", "tan",
        "acosh", "asinh", "atanh", "cosh", "sinh", "tanh",
        "exp", "exp2", "expm1", "frexp", "ldexp", "log", "log10", "log1p", "log2", "logb",
        "modf", "scalbn", "scalbln",
        "cbrt", "fabs", "abs", "hypot", "pow", "sqrt",
        "erf", "erfc", "lgamma", "tgamma",
        "ceil", "floor", "nearbyint", "rint", "round", "trunc",
        "fmod", "remainder", "remquo",
        "copysign", "nextafter", "nexttoward",
        "fdim", "fmax", "fmin", "fma",
    };
    if (strncmp(name, "__builtin_", 10) == 0)
        name += 10;
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t k = strlen(names[i]);
        if (strncmp(name, names[i], k) == 0 &&
            (n == k || (n == k + 1 && (name[k] == 'f' || name[k] == 'l'))))
            return true;
    }
    return false;
}

/* A call to the C math library (expf, sqrt, std::exp): its arithmetic is
 * the library's, the floats are the caller's. Only the system headers'
 * declarations (or the compiler's builtins) count: a project's own `exp`
 * is a call edge like any other. The callee's name, else NULL. */
static char *math_library_callee(CXCursor call)
{
    CXCursor callee = clang_getCursorReferenced(call);
    /* In a template, std::tanh(x[i]) names <cmath>'s overloads, the first
     * of them `using ::tanh`: the first function among them stands for all. */
    if (clang_Cursor_isNull(callee) || !is_function_kind(clang_getCursorKind(callee))) {
        CXCursor ref = overloaded_callee_ref(call);
        unsigned n = clang_Cursor_isNull(ref) ? 0 : clang_getNumOverloadedDecls(ref);
        callee = clang_getNullCursor();
        for (unsigned i = 0; i < n && clang_Cursor_isNull(callee); i++)
            if (is_function_kind(clang_getCursorKind(clang_getOverloadedDecl(ref, i))))
                callee = clang_getOverloadedDecl(ref, i);
    }
    enum CXCursorKind kind = clang_getCursorKind(callee);
    if (kind != CXCursor_FunctionDecl && kind != CXCursor_FunctionTemplate)
        return NULL;
    char *name = cx_take(clang_getCursorSpelling(callee));
    bool math = is_math_function_name(name) &&
                (strncmp(name, "__builtin_", 10) == 0 || in_system_header(callee));
    free(name);
    bool c_linkage;
    return math ? function_name(callee, &c_linkage) : NULL;
}

/* The arithmetic `c` does where it sits in a loop: floating, on template
 * parameters (*params: which, arithmetic_type), or none. *via, when asked for, gets the math library
 * function that does it for `c` (else NULL): the finding names it, the
 * line shows only a call. */
static arithmetic_kind loop_arithmetic(CXCursor c, template_lists lists, param_set *params,
                                       char **via)
{
    if (via)
        *via = NULL;
    switch (clang_getCursorKind(c)) {
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator:
        switch (clang_getCursorBinaryOperatorKind(c)) {
        case CXBinaryOperator_Invalid:
            return is_arithmetic_spelling(c) ? arithmetic_type(c, lists, params) : ARITH_NONE;
        case CXBinaryOperator_Mul: case CXBinaryOperator_Div:
        case CXBinaryOperator_Add: case CXBinaryOperator_Sub:
        case CXBinaryOperator_MulAssign: case CXBinaryOperator_DivAssign:
        case CXBinaryOperator_AddAssign: case CXBinaryOperator_SubAssign:
            return arithmetic_type(c, lists, params);
        default:
            return ARITH_NONE;
        }
    case CXCursor_CallExpr: {
        if (is_arithmetic_operator_call(c))
            return arithmetic_type(c, lists, params);
        char *math = math_library_callee(c);
        arithmetic_kind kind = math ? arithmetic_type(c, lists, params) : ARITH_NONE;
        if (via && kind != ARITH_NONE)
            *via = math;
        else
            free(math);
        return kind;
    }
    case CXCursor_UnaryOperator:
        switch (clang_getCursorUnaryOperatorKind(c)) {
        case CXUnaryOperator_PostInc: case CXUnaryOperator_PostDec:
        case CXUnaryOperator_PreInc: case CXUnaryOperator_PreDec:
            return arithmetic_type(c, lists, params);
        default:
            return ARITH_NONE;
        }
    default:
        return ARITH_NONE;
    }
}

typedef struct {
    template_lists lists;
    unsigned loop_depth;
    unsigned long long floating_params;   /* floating_template_args of the call */
    bool found;
} template_scan;

/* Arithmetic in a loop on a template parameter bound to a float at this
 * call: `init + *first` in accumulate<It, float> is (init is parameter 1),
 * `++first` is not (the iterator). */
static enum CXChildVisitResult scan_template_body(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    template_scan *t = data;
    if (is_loop_kind(clang_getCursorKind(c))) {
        t->loop_depth++;
        clang_visitChildren(c, scan_template_body, t);
        t->loop_depth--;
        return t->found ? CXChildVisit_Break : CXChildVisit_Continue;
    }
    param_set params = { 0, 0 };
    arithmetic_kind arith =
        t->loop_depth > 0 ? loop_arithmetic(c, t->lists, &params, NULL) : ARITH_NONE;
    if (arith == ARITH_FLOATING || (arith == ARITH_DEPENDENT && (params.own & t->floating_params)))
        t->found = true;
    return t->found ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* A library function template (not in the snapshot) whose own body loops
 * with arithmetic on what is a float at this call (`floating`:
 * floating_template_args): std::accumulate, std::inner_product. Its calls
 * are not followed: a loop one call deeper is not seen. */
static bool template_loops_with_arithmetic(CXCursor callee, unsigned long long floating)
{
    CXCursor primary = clang_getSpecializedCursorTemplate(callee);
    if (clang_Cursor_isNull(primary))
        return false;
    CXCursor def = clang_getCursorDefinition(primary);
    if (clang_Cursor_isNull(def))
        return false;
    template_scan t = { { template_depth(def), -1 }, 0, floating, false };
    clang_visitChildren(def, scan_template_body, &t);
    return t.found;
}

/* Arithmetic in a loop: floating, or on template parameters not yet
 * covered by this function's earlier facts. */
void record_float_loop(body_ctx *b, CXCursor c, fact_loc loc)
{
    char *via = NULL;
    param_set params = { 0, 0 };
    arithmetic_kind arith =
        b->loop_depth > 0 ? loop_arithmetic(c, b->lists, &params, &via) : ARITH_NONE;
    /* A template's first arithmetic need not be on what a call makes a
     * float: `++it` on the iterator comes before `sum += *it` on T, and a
     * call binding only T to a float must find the second. */
    if ((arith == ARITH_FLOATING && !b->floating_seen) ||
        (arith == ARITH_DEPENDENT &&
         ((params.own & ~b->params_seen.own) | (params.cls & ~b->params_seen.cls)))) {
        b->floating_seen |= arith == ARITH_FLOATING;
        b->params_seen.own |= params.own;
        b->params_seen.cls |= params.cls;
        fact_float_loop *f = XPUSH(b->w->facts->float_loops, b->w->facts->n_float_loops);
        f->function_usr = xstrdup(b->function_usr);
        f->loc = loc;
        f->template_params = params.own;
        f->class_params = params.cls;
        f->via = via;
    } else {
        free(via);
    }
}

/* std::accumulate(v.begin(), v.end(), 0.0f): the loop is the library's,
 * the floats are this function's. */
void record_library_float_loop(body_ctx *b, CXCursor callee, fact_loc loc)
{
    unsigned long long floating = floating_template_args(callee);
    if (!b->floating_seen && floating && template_loops_with_arithmetic(callee, floating)) {
        b->floating_seen = true;
        fact_float_loop *f =
            XPUSH(b->w->facts->float_loops, b->w->facts->n_float_loops);
        bool c_linkage;
        f->function_usr = xstrdup(b->function_usr);
        f->loc = loc;
        f->template_params = 0;
        f->class_params = 0;
        f->via = function_name(primary_template(callee), &c_linkage);
    }
}
