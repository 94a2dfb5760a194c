/* Functions: their signature, CUDA execution space, hot annotation and
 * template type parameters, recorded as facts; and the call edges between
 * them. Their names and attributes are read in walk_symbols.c. */
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

/* A parameter as the function's signature has it: `const int n` and
 * `int n`, `float x[]` and `float *x` declare the same function. */
static char *parameter_spelling(CXType t)
{
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

static void fill_params(fact_function *f, CXCursor c, const function_parts *parts)
{
    CXType type = clang_getCursorType(c);
    int n = clang_getNumArgTypes(type);
    if (n >= 0 && !f->is_template) {
        for (int i = 0; i < n; i++)
            strs_push(&f->params, parameter_spelling(clang_getArgType(type, (unsigned)i)));
        return;
    }
    /* Templates (and K&R declarations) have no prototype type to ask:
     * the ParmDecl children carry the (possibly dependent) types. */
    f->no_prototype = !f->is_template && parts->parms.n == 0;
    for (size_t i = 0; i < parts->parms.n; i++)
        strs_push(&f->params, parameter_spelling(clang_getCursorType(parts->parms.items[i])));
}

/* A template's type parameter, by its canonical spelling and its name. */
static enum CXChildVisitResult collect_type_parameter(CXCursor c, CXCursor parent,
                                                      CXClientData data)
{
    (void)parent;
    fact_function *f = data;
    if (clang_getCursorKind(c) == CXCursor_TemplateTypeParameter) {
        strs_push(&f->type_param_spellings, type_spelling(clang_getCursorType(c)));
        strs_push(&f->type_param_names, cx_take(clang_getCursorSpelling(c)));
    }
    return CXChildVisit_Continue;
}

fact_function *record_function(walk_ctx *ctx, CXCursor c, fact_loc loc)
{
    function_parts parts = { 0 };
    clang_visitChildren(c, collect_parts, &parts);
    fact_function *f = FACT_PUSH(ctx->facts->functions, ctx->facts->n_functions);
    memset(f, 0, sizeof *f);
    f->usr = cx_take(clang_getCursorUSR(c));
    f->loc = loc;
    f->exec = parts.global                ? EXEC_KERNEL
              : parts.device && parts.host ? EXEC_HOST_DEVICE
              : parts.device               ? EXEC_DEVICE
                                           : EXEC_HOST;
    f->is_definition = clang_isCursorDefinition(c) != 0;
    enum CXLinkageKind linkage = clang_getCursorLinkage(c);
    f->is_static = linkage == CXLinkage_Internal || linkage == CXLinkage_UniqueExternal;
    f->is_template = clang_getCursorKind(c) == CXCursor_FunctionTemplate;
    f->is_hot_annotated = parts.hot;
    f->name = function_name(c, &f->is_c_linkage);
    f->result = type_spelling(clang_getCursorResultType(c));
    fill_params(f, c, &parts);
    if (f->is_template)
        clang_visitChildren(c, collect_type_parameter, f);
    char *spelled = cx_take(clang_getCursorSpelling(c));
    record_hidden_name(ctx, c, spelled, loc);
    record_doc_params(ctx, c, spelled, loc, &parts);
    free(spelled);
    free(parts.parms.items);
    return f;
}

/* A call edge; it takes `name` (the callee's own spelling). */
void record_call(body_ctx *b, CXCursor callee, char *name, fact_loc loc)
{
    fact_call *e = FACT_PUSH(b->w->facts->calls, b->w->facts->n_calls);
    e->caller_usr = xstrdup(b->function_usr);
    e->callee_usr = cx_take(clang_getCursorUSR(primary_template(callee)));
    e->callee_name = name;
    e->loc = loc;
    e->floating_template_args = floating_template_args(callee);
    e->floating_class_args = floating_class_args(callee);
}
