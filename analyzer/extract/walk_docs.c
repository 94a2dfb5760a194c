/* Doc comments: an @param naming no parameter of the function. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

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
        unsigned direction = p;   /* @param[in], @param [in] */
        while (direction < end && (src->text[direction] == ' ' || src->text[direction] == '\t'))
            direction++;
        if (direction < end && src->text[direction] == '[')
            p = direction;
        if (p < end && src->text[p] == '[')
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

typedef struct {
    const char *name;
    bool found;
} template_parameter_search;

static enum CXChildVisitResult find_template_parameter(CXCursor c, CXCursor parent,
                                                       CXClientData data)
{
    (void)parent;
    template_parameter_search *s = data;
    enum CXCursorKind kind = clang_getCursorKind(c);
    if (kind == CXCursor_TemplateTypeParameter || kind == CXCursor_NonTypeTemplateParameter ||
        kind == CXCursor_TemplateTemplateParameter) {
        char *p = cx_take(clang_getCursorSpelling(c));
        s->found = strcmp(p, s->name) == 0;
        free(p);
    }
    return s->found ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* A template parameter of the function that `c` declares, documented with
 * @param instead of @tparam (nccl's DOCA headers: `@param num_qps` of
 * `template <unsigned int num_qps, ...>`): named, not drifted. */
static bool is_template_parameter_name(CXCursor c, const char *name)
{
    if (clang_getCursorKind(c) != CXCursor_FunctionTemplate)
        return false;
    template_parameter_search s = {name, false};
    clang_visitChildren(c, find_template_parameter, &s);
    return s.found;
}

/* Once per comment line and name: a prototype and its definition share a
 * comment. */
static void record_doc_param(walk_ctx *ctx, const char *fname, const char *name, fact_loc loc)
{
    for (size_t j = 0; j < ctx->facts->n_doc_params; j++) {
        fact_doc_param *d = &ctx->facts->doc_params[j];
        if (d->loc.line == loc.line && d->loc.col == loc.col && !strcmp(d->param_name, name))
            return;
    }
    fact_doc_param *d = XPUSH(ctx->facts->doc_params, ctx->facts->n_doc_params);
    d->function_name = xstrdup(fname);
    d->param_name = xstrdup(name);
    d->loc = loc;
}

void record_doc_params(walk_ctx *ctx, CXCursor c, const char *fname, fact_loc fn_loc,
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
        /* A //! block closed by a ////// rule line: clang runs the rule
         * into a last name written alone (`@param count`). A name ends where
         * identifier characters (and a Doxygen list's commas) do. */
        names[strspn(names, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_, \t")] =
            '\0';
        if (!*names) {
            free(names);
            continue;
        }
        fact_loc loc = fn_loc;
        find_param_command(ctx, range, names, &loc);
        /* Doxygen's "@param a,b": each name of the list on its own; so is
         * a name clang read with a rule line run into it. */
        for (char *save = NULL, *name = strtok_r(names, ", \t", &save); name;
             name = strtok_r(NULL, ", \t", &save)) {
            if (is_parameter_name(parts, name) || is_template_parameter_name(c, name))
                continue;
            record_doc_param(ctx, fname, name, loc);
        }
        free(names);
    }
}
