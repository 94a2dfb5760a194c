/* The AST walk: everything the semantic rules need, from the main file of one
 * translation unit. Only cursors whose *expansion* location is in the main
 * file count (clang_Location_isFromMainFile is false inside macro
 * expansions, and launches written in macros must be seen). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract/internal.h"

/* ---- small libclang helpers ------------------------------------------- */

static bool is_function_kind(enum CXCursorKind k)
{
    return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod ||
           k == CXCursor_FunctionTemplate || k == CXCursor_Constructor ||
           k == CXCursor_Destructor || k == CXCursor_ConversionFunction;
}

static bool is_loop_kind(enum CXCursorKind k)
{
    return k == CXCursor_ForStmt || k == CXCursor_WhileStmt ||
           k == CXCursor_DoStmt || k == CXCursor_CXXForRangeStmt;
}

static bool name_starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void strs_push(fact_strs *s, char *item)
{
    *FACT_PUSH(s->items, s->n) = item;
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

typedef struct {
    CXCursor *items;
    size_t n;
} cursor_list;

static enum CXChildVisitResult collect_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    cursor_list *l = data;
    *FACT_PUSH(l->items, l->n) = c;
    return CXChildVisit_Continue;
}

static cursor_list children_of(CXCursor c)
{
    cursor_list l = { 0 };
    clang_visitChildren(c, collect_child, &l);
    return l;
}

static bool is_cast_kind(enum CXCursorKind k)
{
    return k == CXCursor_CStyleCastExpr || k == CXCursor_CXXStaticCastExpr ||
           k == CXCursor_CXXReinterpretCastExpr || k == CXCursor_CXXConstCastExpr ||
           k == CXCursor_CXXFunctionalCastExpr;
}

/* The last expression child, or a null cursor. */
static CXCursor last_expression_child(CXCursor c)
{
    cursor_list l = children_of(c);
    CXCursor r = clang_getNullCursor();
    for (size_t i = 0; i < l.n; i++)
        if (clang_isExpression(clang_getCursorKind(l.items[i])))
            r = l.items[i];
    free(l.items);
    return r;
}

static bool same_extent(CXCursor a, CXCursor b)
{
    return clang_equalRanges(clang_getCursorExtent(a), clang_getCursorExtent(b));
}

/* Through implicit conversions only (libclang shows them as UnexposedExpr
 * spanning exactly their operand): the type the programmer wrote. */
static CXCursor strip_implicit(CXCursor c)
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
static CXCursor strip_casts(CXCursor c)
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

/* The template a specialization came from, so every use of one template
 * kernel or function maps to one USR. Blend<float>::mix<double> comes from
 * the member template of Blend<float>, which comes from the one of Blend<T>
 * that the snapshot defines: one step per enclosing class template. */
static CXCursor primary_template(CXCursor c)
{
    for (CXCursor t; !clang_Cursor_isNull(t = clang_getSpecializedCursorTemplate(c));)
        c = t;
    return c;
}

static bool in_system_header(CXCursor c)
{
    return clang_Location_isInSystemHeader(clang_getCursorLocation(c)) != 0;
}

/* Whether the main file's text spells `name` where the cursor's name comes
 * from: its file location is the token itself when the name was a macro
 * argument, and the macro's expansion when a macro body named or pasted it. */
static bool text_spells(const walk_ctx *ctx, CXCursor c, const char *name)
{
    CXFile file;
    unsigned off;
    clang_getFileLocation(clang_getCursorLocation(c), &file, NULL, NULL, &off);
    if (!file || !clang_File_isEqual(file, ctx->main_file))
        return false;
    size_t n = strlen(name);
    const source_file *src = ctx->src;
    if (off + n > src->len || memcmp(src->text + off, name, n) != 0)
        return false;
    char next = off + n < src->len ? src->text[off + n] : '\0';
    return !(isalnum((unsigned char)next) || next == '_');
}

static void note_hidden_name(walk_ctx *ctx, CXCursor at, const char *name, fact_loc loc)
{
    if (!*name || text_spells(ctx, at, name))
        return;
    for (size_t i = 0; i < ctx->facts->n_hidden_names; i++) {
        fact_hidden_name *h = &ctx->facts->hidden_names[i];
        if (h->loc.line == loc.line && h->loc.col == loc.col && !strcmp(h->name, name))
            return;
    }
    fact_hidden_name *h = FACT_PUSH(ctx->facts->hidden_names, ctx->facts->n_hidden_names);
    h->name = xstrdup(name);
    h->loc = loc;
}

/* ns::Class::name: kernels of the same name in two namespaces are two
 * kernels. Anonymous namespaces add nothing (linkage says file-local). */
static char *qualified_name(CXCursor c)
{
    char *name = cx_take(clang_getCursorSpelling(c));
    for (CXCursor p = clang_getCursorSemanticParent(c); !clang_Cursor_isNull(p) &&
                                                         !clang_isTranslationUnit(clang_getCursorKind(p));
         p = clang_getCursorSemanticParent(p)) {
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k != CXCursor_Namespace && k != CXCursor_StructDecl && k != CXCursor_ClassDecl &&
            k != CXCursor_ClassTemplate && k != CXCursor_UnionDecl)
            continue;
        char *scope = cx_take(clang_getCursorSpelling(p));
        if (*scope) {
            char *q = xasprintf("%s::%s", scope, name);
            free(name);
            name = q;
        }
        free(scope);
    }
    return name;
}

/* C linkage: the symbol is the bare name (extern "C", or C itself). */
static bool has_c_linkage(CXCursor c, const char *bare)
{
    enum CXLinkageKind linkage = clang_getCursorLinkage(c);
    if (linkage == CXLinkage_Internal || linkage == CXLinkage_UniqueExternal ||
        clang_getCursorKind(c) == CXCursor_FunctionTemplate)
        return false;
    char *mangled = cx_take(clang_Cursor_getMangling(c));
    bool c_linkage = strcmp(mangled, bare) == 0;
    free(mangled);
    return c_linkage;
}

/* The name functions are matched by across files (facts/facts.h). */
static char *function_name(CXCursor c, bool *c_linkage)
{
    char *bare = cx_take(clang_getCursorSpelling(c));
    *c_linkage = has_c_linkage(c, bare);
    if (*c_linkage)
        return bare;
    free(bare);
    return qualified_name(c);
}

/* ---- functions: signature, attributes, doc comment --------------------- */

typedef struct {
    bool global, device, host, hot;
    cursor_list parms;
} function_parts;

static enum CXChildVisitResult collect_parts(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    function_parts *p = data;
    switch (clang_getCursorKind(c)) {
    case CXCursor_CUDAGlobalAttr: p->global = true; break;
    case CXCursor_CUDADeviceAttr: p->device = true; break;
    case CXCursor_CUDAHostAttr: p->host = true; break;
    case CXCursor_AnnotateAttr: {
        char *s = cx_take(clang_getCursorSpelling(c));
        if (strcmp(s, "gpulint:hot") == 0)
            p->hot = true;
        free(s);
        break;
    }
    case CXCursor_ParmDecl: *FACT_PUSH(p->parms.items, p->parms.n) = c; break;
    default: break;
    }
    return CXChildVisit_Continue;
}

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

/* Find `@param name` / `\param name` in the comment's text, for the line. */
static bool find_param_command(const walk_ctx *ctx, CXSourceRange range,
                               const char *name, fact_loc *loc)
{
    unsigned start, end;
    CXFile file;
    clang_getExpansionLocation(clang_getRangeStart(range), &file, NULL, NULL, &start);
    clang_getExpansionLocation(clang_getRangeEnd(range), NULL, NULL, NULL, &end);
    const source_file *src = ctx->src;
    if (!file || !clang_File_isEqual(file, ctx->main_file) || end > src->len)
        return false;
    size_t n = strlen(name);
    for (unsigned i = start; i + 6 < end; i++) {
        if ((src->text[i] != '@' && src->text[i] != '\\') ||
            strncmp(src->text + i + 1, "param", 5) != 0)
            continue;
        unsigned p = i + 6;
        if (p < end && src->text[p] == '[')   /* @param[in] */
            while (p < end && src->text[p] != ']')
                p++;
        if (p < end && src->text[p] == ']')
            p++;
        while (p < end && isspace((unsigned char)src->text[p]))
            p++;
        if (p + n <= end && memcmp(src->text + p, name, n) == 0 &&
            !(isalnum((unsigned char)src->text[p + n]) || src->text[p + n] == '_')) {
            source_line_col(src, i, &loc->line, &loc->col);
            return true;
        }
    }
    return false;
}

static bool has_unnamed_parameter(const function_parts *parts)
{
    for (size_t i = 0; i < parts->parms.n; i++) {
        char *name = cx_take(clang_getCursorSpelling(parts->parms.items[i]));
        bool unnamed = *name == '\0';
        free(name);
        if (unnamed)
            return true;
    }
    return false;
}

static bool is_parameter_name(const function_parts *parts, const char *name)
{
    for (size_t i = 0; i < parts->parms.n; i++) {
        char *p = cx_take(clang_getCursorSpelling(parts->parms.items[i]));
        bool same = strcmp(p, name) == 0;
        free(p);
        if (same)
            return true;
    }
    return false;
}

/* Once per comment line and name: a prototype and its definition share a
 * comment. */
static void note_stale_param(walk_ctx *ctx, const char *fname, const char *name, fact_loc loc)
{
    for (size_t j = 0; j < ctx->facts->n_doc_params; j++) {
        fact_doc_param *d = &ctx->facts->doc_params[j];
        if (d->loc.line == loc.line && d->loc.col == loc.col && !strcmp(d->param_name, name))
            return;
    }
    fact_doc_param *d = FACT_PUSH(ctx->facts->doc_params, ctx->facts->n_doc_params);
    d->function_name = xstrdup(fname);
    d->param_name = xstrdup(name);
    d->loc = loc;
}

static void check_doc_params(walk_ctx *ctx, CXCursor c, const char *fname, fact_loc fn_loc,
                             const function_parts *parts)
{
    /* A parameter left unnamed (its name in a comment, as CUB does for tag
     * types): the documented parameter exists, but clang cannot match the
     * name to it, so nothing can be told about this comment. */
    if (has_unnamed_parameter(parts))
        return;
    CXComment comment = clang_Cursor_getParsedComment(c);
    if (clang_Comment_getKind(comment) == CXComment_Null)
        return;
    CXSourceRange range = clang_Cursor_getCommentRange(c);
    CXFile file;
    clang_getExpansionLocation(clang_getRangeStart(range), &file, NULL, NULL, NULL);
    /* A comment on a prototype in a header: that header's own extraction
     * reports it (once), not every file that includes it. */
    if (!file || !clang_File_isEqual(file, ctx->main_file))
        return;
    unsigned n = clang_Comment_getNumChildren(comment);
    for (unsigned i = 0; i < n; i++) {
        CXComment child = clang_Comment_getChild(comment, i);
        if (clang_Comment_getKind(child) != CXComment_ParamCommand ||
            clang_ParamCommandComment_isParamIndexValid(child))
            continue;
        char *names = cx_take(clang_ParamCommandComment_getParamName(child));
        fact_loc loc = fn_loc;
        find_param_command(ctx, range, names, &loc);
        /* Doxygen's "@param a,b": each name of the list on its own. */
        bool listed = strchr(names, ',') != NULL;
        for (char *save = NULL, *name = strtok_r(names, ", \t", &save); name;
             name = strtok_r(NULL, ", \t", &save)) {
            if (listed && is_parameter_name(parts, name))
                continue;
            note_stale_param(ctx, fname, name, loc);
        }
        free(names);
    }
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

static fact_function *record_function(walk_ctx *ctx, CXCursor c, fact_loc loc)
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
    note_hidden_name(ctx, c, spelled, loc);
    check_doc_params(ctx, c, spelled, loc, &parts);
    free(spelled);
    free(parts.parms.items);
    return f;
}

/* ---- function bodies ---------------------------------------------------- */

/* A template parameter whose index is not known (see spelled_parameters):
 * every bit, so that any floating template argument of a call counts. */
#define UNKNOWN_PARAMETERS (~0ULL)

/* The depths (type-parameter-D-I) of the two parameter lists whose
 * bindings a call tells: the function template's own, and the innermost
 * enclosing class template's. -1 for none. */
typedef struct {
    int own, cls;
} template_lists;

/* Template parameters by list: bit i for parameter i of the function
 * template's own list, of the enclosing class template's. */
typedef struct {
    unsigned long long own, cls;
} param_set;

typedef struct {
    walk_ctx *w;
    CXCursor function;
    const char *function_usr;
    template_lists lists;
    unsigned loop_depth;
    bool floating_seen;               /* one fact of floating arithmetic */
    param_set params_seen;            /* the dependent facts' parameters so far:
                                         one more only for a parameter not
                                         yet covered */
} body_ctx;

static bool is_floating(CXType t)
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

typedef enum { ARITH_NONE, ARITH_FLOATING, ARITH_DEPENDENT } arithmetic_kind;

/* CUDA's 16-bit floating types are classes on the host side. */
static bool is_half_precision(CXType t)
{
    char *s = type_spelling(t);
    bool half = strcmp(s, "__half") == 0 || strcmp(s, "__nv_bfloat16") == 0;
    free(s);
    return half;
}

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
static int template_depth(CXCursor template)
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
static template_lists lists_of(CXCursor function)
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

static bool any_parameter(param_set p)
{
    return (p.own | p.cls) != 0;
}

/* The template parameters a type is made of, none for a type of no
 * template parameter; a pointer to or array of one is not (pointer
 * arithmetic on T * is not arithmetic on T). */
static param_set type_parameters(CXType t, template_lists lists)
{
    char *s = type_spelling(t);
    param_set params = strchr(s, '*') || strchr(s, '[') ? (param_set){ 0, 0 }
                                                        : spelled_parameters(s, lists);
    free(s);
    return params;
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

/* The unresolved set of candidates a call with dependent arguments names in
 * a template, or a null cursor. */
static CXCursor overloaded_callee_ref(CXCursor call)
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
static CXCursor callee_of(CXCursor call, bool *unique)
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

static void set_launch_kernel(fact_launch *l, CXCursor kernel)
{
    CXCursor primary = primary_template(kernel);
    bool c_linkage;
    l->kernel_name = function_name(primary, &c_linkage);
    l->kernel_usr = cx_take(clang_getCursorUSR(primary));
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
static void record_direct_launch(body_ctx *b, CXCursor call, CXCursor kernel, int first,
                                 fact_launch_kind kind, fact_loc loc)
{
    fact_launch *l = FACT_PUSH(b->w->facts->launches, b->w->facts->n_launches);
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
    fact_launch *l = FACT_PUSH(b->w->facts->launches, b->w->facts->n_launches);
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
        CXCursor operand = last_expression_child(e);
        strs_push(&l->arg_types, type_spelling(clang_getCursorType(operand)));
    }
    free(entries.items);
}

/* The name as the programmer writes it: cuda.h and cublas_v2.h turn
 * cuMemcpyHtoD into cuMemcpyHtoD_v2 and cublasCreate into cublasCreate_v2,
 * and a per-thread default stream build (nvcc --default-stream per-thread,
 * CUDA_API_PER_THREAD_DEFAULT_STREAM) turns cudaMemcpy into cudaMemcpy_ptds,
 * cudaMemcpyAsync into cudaMemcpyAsync_ptsz, cuMemcpyHtoDAsync into
 * cuMemcpyHtoDAsync_v2_ptsz. */
static char *api_name(const char *name)
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

/* ---- copy kinds ---------------------------------------------------------- */

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

static void record_copy(body_ctx *b, CXCursor call, CXCursor callee, const char *name,
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

/* ---- dropped statuses ---------------------------------------------------- */

/* Whether the call is a statement of its own (its value unused). */
static bool is_statement(CXCursor call, CXCursor parent)
{
    switch (clang_getCursorKind(parent)) {
    case CXCursor_CompoundStmt:
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt:
    case CXCursor_LabelStmt:
        return true;
    case CXCursor_IfStmt:
    case CXCursor_WhileStmt:
    case CXCursor_ForStmt:
    case CXCursor_DoStmt:
        break;
    default:
        return false;
    }
    /* A brace-less body: the condition comes first in an if, and a while's
     * or for's body is its last child; a do's body is its first. */
    cursor_list kids = children_of(parent);
    size_t index = kids.n;
    size_t first_expr = kids.n;
    for (size_t i = 0; i < kids.n; i++) {
        if (first_expr == kids.n && clang_isExpression(clang_getCursorKind(kids.items[i])))
            first_expr = i;
        /* Cursors from two visits do not compare equal: compare spans. */
        if (clang_getCursorKind(kids.items[i]) == CXCursor_CallExpr &&
            same_extent(kids.items[i], call))
            index = i;
    }
    bool body;
    switch (clang_getCursorKind(parent)) {
    case CXCursor_IfStmt: body = index < kids.n && index != first_expr; break;
    case CXCursor_DoStmt: body = index == 0; break;
    default: body = index + 1 == kids.n; break;
    }
    free(kids.items);
    return body;
}

static bool returns_cuda_status(CXCursor callee)
{
    char *t = type_spelling(clang_getCursorResultType(callee));
    bool status = strcmp(t, "cudaError") == 0 || strcmp(t, "cudaError_enum") == 0 ||
                  strcmp(t, "cublasStatus_t") == 0;
    free(t);
    return status;
}

static void check_dropped_status(body_ctx *b, CXCursor call, CXCursor parent,
                                 CXCursor callee, const char *name, fact_loc loc)
{
    if (!name_starts(name, "cu") || !in_system_header(callee) ||
        !returns_cuda_status(callee) || !is_statement(call, parent))
        return;
    fact_unchecked *u = FACT_PUSH(b->w->facts->unchecked, b->w->facts->n_unchecked);
    u->callee = xstrdup(name);
    u->loc = loc;
}

/* ---- the body visitor ---------------------------------------------------- */

static bool is_launch_configuration(CXCursor c)
{
    if (clang_getCursorKind(c) != CXCursor_CallExpr)
        return false;
    char *name = referenced_name(c);
    bool is = strcmp(name, "__cudaPushCallConfiguration") == 0 ||
              strcmp(name, "cudaConfigureCall") == 0;
    free(name);
    return is;
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
static unsigned long long floating_template_args(CXCursor callee)
{
    return clang_Cursor_getNumTemplateArguments(callee) >= 0 ? floating_arguments(callee)
                                                             : floating_signature_args(callee);
}

/* Blend<float>::mix_rows: the floating template arguments of the innermost
 * class template specialisation around the callee, the list lists_of
 * binds a member's class parameters to. */
static unsigned long long floating_class_args(CXCursor callee)
{
    for (CXCursor p = clang_getCursorSemanticParent(callee);
         !clang_Cursor_isNull(p) && clang_isDeclaration(clang_getCursorKind(p));
         p = clang_getCursorSemanticParent(p))
        if (clang_Cursor_getNumTemplateArguments(p) >= 0)
            return floating_arguments(p);
    return 0;
}

/* The launch APIs, by the name written (api_name). */
static void record_launch_api_call(body_ctx *b, CXCursor call, const char *name, fact_loc loc)
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

static void visit_call(body_ctx *b, CXCursor call, CXCursor parent, fact_loc loc)
{
    bool unique;
    CXCursor callee = callee_of(call, &unique);
    if (clang_Cursor_isNull(callee))
        return;
    cursor_list kids = children_of(call);
    bool chevron = kids.n >= 2 && is_launch_configuration(kids.items[1]);
    free(kids.items);
    if (chevron) {
        record_direct_launch(b, call, callee, 0, LAUNCH_CHEVRON, loc);
        return;
    }
    char *name = cx_take(clang_getCursorSpelling(callee));
    /* The recorders below look for CUDA APIs, by the name written whatever
     * their headers renamed them to; call edges keep the callee's own name. */
    char *api = api_name(name);
    record_launch_api_call(b, call, api, loc);
    record_copy(b, call, callee, api, loc);
    check_dropped_status(b, call, parent, callee, api, loc);
    free(api);
    /* An edge to the wrong overload could invent a chain: only certain ones. */
    if (unique && !in_system_header(callee)) {
        fact_call *e = FACT_PUSH(b->w->facts->calls, b->w->facts->n_calls);
        e->caller_usr = xstrdup(b->function_usr);
        e->callee_usr = cx_take(clang_getCursorUSR(primary_template(callee)));
        e->callee_name = name;
        e->loc = loc;
        e->floating_template_args = floating_template_args(callee);
        e->floating_class_args = floating_class_args(callee);
    } else {
        /* std::accumulate(v.begin(), v.end(), 0.0f): the loop is the
         * library's, the floats are this function's. */
        unsigned long long floating = floating_template_args(callee);
        if (!b->floating_seen && floating && template_loops_with_arithmetic(callee, floating)) {
            b->floating_seen = true;
            fact_float_loop *f =
                FACT_PUSH(b->w->facts->float_loops, b->w->facts->n_float_loops);
            bool c_linkage;
            f->function_usr = xstrdup(b->function_usr);
            f->loc = loc;
            f->template_params = 0;
            f->class_params = 0;
            f->via = function_name(primary_template(callee), &c_linkage);
        }
        free(name);
    }
}

static enum CXChildVisitResult visit_body(CXCursor c, CXCursor parent, CXClientData data)
{
    body_ctx *b = data;
    enum CXCursorKind kind = clang_getCursorKind(c);
    fact_loc loc;
    if (!cursor_in_main_file(b->w, c, &loc))
        return CXChildVisit_Continue;
    if (is_loop_kind(kind)) {
        b->loop_depth++;
        clang_visitChildren(c, visit_body, b);
        b->loop_depth--;
        return CXChildVisit_Continue;
    }
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
        fact_float_loop *f = FACT_PUSH(b->w->facts->float_loops, b->w->facts->n_float_loops);
        f->function_usr = xstrdup(b->function_usr);
        f->loc = loc;
        f->template_params = params.own;
        f->class_params = params.cls;
        f->via = via;
    } else {
        free(via);
    }
    if (kind == CXCursor_CallExpr)
        visit_call(b, c, parent, loc);
    if (kind == CXCursor_DeclRefExpr || kind == CXCursor_MemberRefExpr) {
        CXCursor r = clang_getCursorReferenced(c);
        /* CUDA's own API names (cublasCreate -> cublasCreate_v2) are
         * substituted by its headers' macros: never the banned names. */
        if (is_function_kind(clang_getCursorKind(r)) && !in_system_header(r)) {
            char *name = cx_take(clang_getCursorSpelling(r));
            note_hidden_name(b->w, c, name, loc);
            free(name);
        }
    }
    return CXChildVisit_Recurse;
}

/* ---- declarations -------------------------------------------------------- */

static enum CXChildVisitResult visit_decl(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    walk_ctx *ctx = data;
    fact_loc loc;
    if (!cursor_in_main_file(ctx, c, &loc))
        return CXChildVisit_Continue;
    enum CXCursorKind kind = clang_getCursorKind(c);
    /* Instantiations of a template (tk<float> from a launch) repeat the
     * template's location: the template itself stands for them. */
    if (is_function_kind(kind) && kind != CXCursor_FunctionTemplate &&
        !clang_Cursor_isNull(clang_getSpecializedCursorTemplate(c)))
        return CXChildVisit_Continue;
    if (is_function_kind(kind)) {
        fact_function *f = record_function(ctx, c, loc);
        if (f->is_definition && (f->exec == EXEC_KERNEL || f->exec == EXEC_DEVICE)) {
            CXSourceRange extent = clang_getCursorExtent(c);
            offset_range *r = FACT_PUSH(ctx->device_bodies, ctx->n_device_bodies);
            clang_getExpansionLocation(clang_getRangeStart(extent), NULL, NULL, NULL, &r->start);
            clang_getExpansionLocation(clang_getRangeEnd(extent), NULL, NULL, NULL, &r->end);
        }
        if (f->is_definition) {
            char *usr = xstrdup(f->usr);   /* f may move as facts grow */
            body_ctx b = { .w = ctx, .function = c, .function_usr = usr,
                           .lists = lists_of(c) };
            clang_visitChildren(c, visit_body, &b);
            free(usr);
        }
        return CXChildVisit_Continue;
    }
    switch (kind) {
    case CXCursor_Namespace:
    case CXCursor_LinkageSpec:
    case CXCursor_StructDecl:
    case CXCursor_ClassDecl:
    case CXCursor_UnionDecl:
    case CXCursor_ClassTemplate:
    case CXCursor_ClassTemplatePartialSpecialization:
    case CXCursor_UnexposedDecl:
        return CXChildVisit_Recurse;
    default:
        return CXChildVisit_Continue;
    }
}

void extract_walk(walk_ctx *ctx)
{
    clang_visitChildren(clang_getTranslationUnitCursor(ctx->tu), visit_decl, ctx);
}
