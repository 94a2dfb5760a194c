/* Functions: their signature, CUDA execution space, hot annotation and
 * template type parameters, recorded as facts; and the call edges between
 * them. Their names and attributes are read in walk_symbols.c. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

/* A type as C linkage passes it (fact_function.abi_types): the symbol
 * carries no types, so what the two sides must agree on is the bits. An
 * enum is its underlying integer type, which the compiler picks; a pointer
 * (or an array parameter, one) is marked as one to an object, which
 * `void *` stands for. */
static char *abi_spelling(CXType t)
{
    if (t.kind == CXType_Invalid)
        return xstrdup("");
    CXType canonical = clang_getCanonicalType(t);
    if (canonical.kind == CXType_Enum) {
        CXType integer = clang_getEnumDeclIntegerType(clang_getTypeDeclaration(canonical));
        char *s = type_spelling(integer), *r = xasprintf("enum %s", s);
        free(s);
        return r;
    }
    char *s = parameter_spelling(t);
    bool array = canonical.kind == CXType_ConstantArray ||
                 canonical.kind == CXType_IncompleteArray ||
                 canonical.kind == CXType_VariableArray;
    if (array || canonical.kind == CXType_Pointer) {
        enum CXTypeKind pointee = clang_getCanonicalType(clang_getPointeeType(canonical)).kind;
        if (array || (pointee != CXType_FunctionProto && pointee != CXType_FunctionNoProto)) {
            char *r = xasprintf("pointer %s", s);
            free(s);
            return r;
        }
    }
    return s;
}

/* Whether a parameter declares a default argument: in its text, after its
 * name (and any array bounds), a lone `=` (`int passes = 8`). Read from the
 * file's text because libclang has no call for it; a parameter spelled by
 * a macro is taken to have none. */
static bool param_has_default(CXTranslationUnit tu, CXCursor parm)
{
    CXFile file, end_file;
    unsigned name_at, end_at;
    clang_getExpansionLocation(clang_getCursorLocation(parm), &file, NULL, NULL, &name_at);
    clang_getExpansionLocation(clang_getRangeEnd(clang_getCursorExtent(parm)), &end_file, NULL,
                               NULL, &end_at);
    size_t size = 0;
    const char *text = file && end_file && clang_File_isEqual(file, end_file)
                           ? clang_getFileContents(tu, file, &size)
                           : NULL;
    if (!text || end_at <= name_at || end_at > size)
        return false;
    const char *p = text + name_at, *end = text + end_at;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    for (int depth = 0; p < end; p++) {
        if (*p == '[' || *p == '(')
            depth++;
        else if (*p == ']' || *p == ')')
            depth--;
        else if (*p == '=' && depth == 0)
            return p + 1 >= end || p[1] != '=';
    }
    return false;
}

static void fill_params(walk_ctx *ctx, fact_function *f, CXCursor c, const function_parts *parts)
{
    /* Kernels only: what a launch may leave out (rules/kernel_signature.c). */
    if (f->exec == EXEC_KERNEL)
        for (size_t i = 0; i < parts->parms.n; i++)
            f->defaulted_params += param_has_default(ctx->tu, parts->parms.items[i]);
    CXType type = clang_getCursorType(c);
    int n = clang_getNumArgTypes(type);
    if (n >= 0 && !f->is_template) {
        strs_push(&f->abi_types, abi_spelling(clang_getCursorResultType(c)));
        for (int i = 0; i < n; i++) {
            CXType arg = clang_getArgType(type, (unsigned)i);
            strs_push(&f->params, parameter_spelling(arg));
            strs_push(&f->abi_types, abi_spelling(arg));
        }
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

/* Whether a compiler error lies in the function's signature: from the
 * start of its extent (the result type) to the end of its last parameter. */
static bool signature_has_error(const walk_ctx *ctx, CXCursor c, const function_parts *parts)
{
    unsigned start, end;
    clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(c)), NULL, NULL, NULL,
                               &start);
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, NULL, NULL, &end);
    for (size_t i = 0; i < parts->parms.n; i++) {
        unsigned e;
        clang_getExpansionLocation(clang_getRangeEnd(clang_getCursorExtent(parts->parms.items[i])),
                                   NULL, NULL, NULL, &e);
        if (e > end)
            end = e;
    }
    bool found = false;
    unsigned n = clang_getNumDiagnostics(ctx->tu);
    for (unsigned i = 0; i < n && !found; i++) {
        CXDiagnostic d = clang_getDiagnostic(ctx->tu, i);
        CXFile file;
        unsigned offset;
        clang_getExpansionLocation(clang_getDiagnosticLocation(d), &file, NULL, NULL, &offset);
        found = clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && file &&
                clang_File_isEqual(file, ctx->main_file) && offset >= start && offset <= end;
        clang_disposeDiagnostic(d);
    }
    return found;
}

fact_function *record_function(walk_ctx *ctx, CXCursor c, fact_loc loc)
{
    function_parts parts = { 0 };
    clang_visitChildren(c, collect_parts, &parts);
    fact_function *f = XPUSH(ctx->facts->functions, ctx->facts->n_functions);
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
    fill_params(ctx, f, c, &parts);
    f->unresolved_types = signature_has_error(ctx, c, &parts);
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
    fact_call *e = XPUSH(b->w->facts->calls, b->w->facts->n_calls);
    e->caller_usr = xstrdup(b->function_usr);
    e->callee_usr = cx_take(clang_getCursorUSR(primary_template(callee)));
    e->callee_name = name;
    e->loc = loc;
    e->floating_template_args = floating_template_args(callee);
    e->floating_class_args = floating_class_args(callee);
}
