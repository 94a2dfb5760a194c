/* Kernel launches: <<<>>> and the cudaLaunchKernel* APIs, with the kernel
 * launched and its argument types. */
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

static char *referenced_name(CXCursor c)
{
    CXCursor r = clang_getCursorReferenced(c);
    return clang_Cursor_isNull(r) ? xstrdup("") : cx_take(clang_getCursorSpelling(r));
}

/* The function a launch names: the first reference to a function inside. */
static enum CXChildVisitResult find_function_ref(CXCursor c, CXCursor parent,
                                                 CXClientData data)
{
    (void)parent;
    CXCursor *out = data;
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr ||
        clang_getCursorKind(c) == CXCursor_OverloadedDeclRef) {
        CXCursor r = clang_getCursorReferenced(c);
        if (is_function_kind(clang_getCursorKind(r))) {
            *out = r;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

/* A kernel template's specialisation: its parameter types, as clang
 * substituted them. Spelled parameters (Tag<N>) cannot be compared with
 * an argument (Tag<3>) by text; the specialisation's can. Nothing when a
 * type is not known here (a dependent launch inside a template). */
static void resolve_specialisation(fact_launch *l, CXCursor kernel)
{
    if (clang_getCursorKind(kernel) != CXCursor_FunctionDecl ||
        clang_Cursor_isNull(clang_getSpecializedCursorTemplate(kernel)))
        return;
    CXType type = clang_getCursorType(kernel);
    int n = clang_getNumArgTypes(type);
    if (type.kind != CXType_FunctionProto || n < 0)
        return;
    fact_strs params = { 0 };
    bool known = true;
    for (int i = 0; i < n && known; i++) {
        CXType t = clang_getArgType(type, (unsigned)i);
        char *s = parameter_spelling(t);
        known = t.kind != CXType_Invalid && !strstr(s, "type-parameter-") &&
                !strstr(s, "dependent");
        strs_push(&params, s);
    }
    if (known) {
        l->params_resolved = true;
        l->resolved_params = params;
        return;
    }
    for (size_t i = 0; i < params.n; i++)
        free(params.items[i]);
    free(params.items);
}

static void set_launch_kernel(fact_launch *l, CXCursor kernel)
{
    CXCursor primary = primary_template(kernel);
    bool c_linkage;
    l->kernel_name = function_name(primary, &c_linkage);
    l->kernel_usr = cx_take(clang_getCursorUSR(primary));
    resolve_specialisation(l, kernel);
}

/* An arithmetic compile-time constant: NULL, 0, 2, 0.5f, an enumerator. */
static bool is_arithmetic_constant(CXCursor arg)
{
    CXType t = clang_getCanonicalType(clang_getCursorType(arg));
    bool arithmetic = (t.kind >= CXType_Bool && t.kind <= CXType_Int128) || is_floating(t) ||
                      t.kind == CXType_Enum;
    if (!arithmetic)
        return false;
    CXEvalResult r = clang_Cursor_Evaluate(arg);
    if (!r)
        return false;
    bool constant = clang_EvalResult_getKind(r) == CXEval_Int ||
                    clang_EvalResult_getKind(r) == CXEval_Float;
    clang_EvalResult_dispose(r);
    return constant;
}

/* The kernel's arguments are the call's own from `first` on: a <<<>>>
 * launch (first 0) or the variadic cudaLaunchKernelEx (first 2). */
void record_direct_launch(body_ctx *b, CXCursor call, CXCursor kernel, int first,
                                 fact_launch_kind kind, fact_loc loc)
{
    fact_launch *l = XPUSH(b->w->facts->launches, b->w->facts->n_launches);
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->loc = loc;
    l->args_known = true;
    set_launch_kernel(l, kernel);
    int n = clang_Cursor_getNumArguments(call);
    for (int i = first; i < n; i++) {
        CXCursor arg = strip_implicit(clang_Cursor_getArgument(call, (unsigned)i));
        strs_push(&l->arg_types, type_spelling(clang_getCursorType(arg)));
        if (i - first < 64 && is_arithmetic_constant(arg))
            l->constant_args |= 1ULL << (i - first);
    }
}

/* The kernel a launch API call names in argument `index`: `k`,
 * `(const void *)k`, `(void *)&k`; null for a function pointer variable,
 * which leaves nothing to compare. */
static CXCursor launched_kernel(CXCursor call, unsigned index)
{
    CXCursor kernel = clang_getNullCursor();
    clang_visitChildren(clang_Cursor_getArgument(call, index), find_function_ref, &kernel);
    CXCursor fn_arg = strip_casts(clang_Cursor_getArgument(call, index));
    if (clang_Cursor_isNull(kernel) && clang_getCursorKind(fn_arg) == CXCursor_DeclRefExpr)
        kernel = clang_getCursorReferenced(fn_arg);
    if (clang_Cursor_isNull(kernel) || !is_function_kind(clang_getCursorKind(kernel)))
        return clang_getNullCursor();
    return kernel;
}

/* The initialiser list of the variable an expression names, if any. */
static CXCursor init_list_of(CXCursor expr)
{
    CXCursor e = strip_casts(expr);
    if (clang_getCursorKind(e) != CXCursor_DeclRefExpr)
        return clang_getNullCursor();
    CXCursor var = clang_getCursorReferenced(e);
    if (clang_getCursorKind(var) != CXCursor_VarDecl)
        return clang_getNullCursor();
    CXCursor init = last_expression_child(var);
    return clang_getCursorKind(init) == CXCursor_InitListExpr ? init
                                                             : clang_getNullCursor();
}

/* The type an args-array entry passes: `held`, the type of the variable
 * whose address it is, unless the entry casts that address so that a
 * pointer is read as another pointer type: `(int2 **)&p` with a pointer p
 * passes p's bits as an `int2 *` (a kernel specialised for a wider vector
 * type reads them so; every pointer has the same bits). The outermost such
 * cast counts; `(void *)&p` passes p's type, and so does a cast of an
 * address that holds no pointer (`(long *)&n` still passes n's bytes). */
static CXType entry_slot_type(CXCursor entry, CXType held)
{
    if (clang_getCanonicalType(held).kind != CXType_Pointer)
        return held;
    for (CXCursor c = entry;;) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && !is_cast_kind(k))
            break;
        if (is_cast_kind(k)) {
            CXType pointee = clang_getPointeeType(clang_getCursorType(c));
            if (pointee.kind != CXType_Invalid &&
                clang_getCanonicalType(pointee).kind != CXType_Void)
                return clang_getCanonicalType(pointee).kind == CXType_Pointer ? pointee : held;
        }
        CXCursor inner = last_expression_child(c);
        if (clang_Cursor_isNull(inner))
            break;
        c = inner;
    }
    return held;
}

/* A launch through a `void *args[]` array: the kernel in argument
 * `kernel_index`, the array in `args_index`. */
static void record_api_launch(body_ctx *b, CXCursor call, fact_launch_kind kind,
                              unsigned kernel_index, unsigned args_index, fact_loc loc)
{
    if (clang_Cursor_getNumArguments(call) <= (int)args_index)
        return;
    CXCursor kernel = launched_kernel(call, kernel_index);
    if (clang_Cursor_isNull(kernel))
        return;
    fact_launch *l = XPUSH(b->w->facts->launches, b->w->facts->n_launches);
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->loc = loc;
    set_launch_kernel(l, kernel);
    CXCursor init = init_list_of(clang_Cursor_getArgument(call, args_index));
    if (clang_Cursor_isNull(init))
        return;
    cursor_list entries = children_of(init);
    l->args_known = true;
    for (size_t i = 0; i < entries.n && l->args_known; i++) {
        CXCursor e = strip_casts(entries.items[i]);
        if (clang_getCursorKind(e) != CXCursor_UnaryOperator ||
            clang_getCursorUnaryOperatorKind(e) != CXUnaryOperator_AddrOf) {
            l->args_known = false;
            break;
        }
        CXType held = clang_getCursorType(last_expression_child(e));
        strs_push(&l->arg_types, type_spelling(entry_slot_type(entries.items[i], held)));
    }
    free(entries.items);
}

bool is_launch_configuration(CXCursor c)
{
    if (clang_getCursorKind(c) != CXCursor_CallExpr)
        return false;
    char *name = referenced_name(c);
    bool is = strcmp(name, "__cudaPushCallConfiguration") == 0 ||
              strcmp(name, "cudaConfigureCall") == 0;
    free(name);
    return is;
}

/* The launch APIs, by the name written (api_name). */
void record_launch_api_call(body_ctx *b, CXCursor call, const char *name, fact_loc loc)
{
    if (strcmp(name, "cudaLaunchKernel") == 0) {
        record_api_launch(b, call, LAUNCH_API, 0, 3, loc);
    } else if (strcmp(name, "cudaLaunchCooperativeKernel") == 0) {
        record_api_launch(b, call, LAUNCH_API_COOPERATIVE, 0, 3, loc);
    } else if (strcmp(name, "cudaLaunchKernelExC") == 0) {
        record_api_launch(b, call, LAUNCH_API_EX, 1, 2, loc);
    } else if (strcmp(name, "cudaLaunchKernelEx") == 0 &&
               clang_Cursor_getNumArguments(call) >= 2) {
        CXCursor kernel = launched_kernel(call, 1);
        if (!clang_Cursor_isNull(kernel))
            record_direct_launch(b, call, kernel, 2, LAUNCH_EX_VARIADIC, loc);
    }
}
