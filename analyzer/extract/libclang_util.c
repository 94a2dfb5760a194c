/* libclang helpers that both the parse (extract/extract.c) and the AST walk
 * use: in a file of their own, so that the walk does not call back into the
 * parse that calls it. */
#include <ctype.h>
#include <stdlib.h>

#include "extract/internal.h"
#include "extract/reach.h"
#include "util/paths.h"

char *cx_take(CXString s)
{
    const char *c = clang_getCString(s);
    char *r = xstrdup(c ? c : "");
    clang_disposeString(s);
    return r;
}

bool cursor_in_main_file(const walk_ctx *ctx, CXCursor c, fact_loc *loc)
{
    CXFile file;
    unsigned line, col;
    clang_getExpansionLocation(clang_getCursorLocation(c), &file, &line, &col, NULL);
    if (!file || !clang_File_isEqual(file, ctx->main_file))
        return false;
    if (loc) {
        loc->line = line;
        loc->col = col;
    }
    return true;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static const char *skip_identifier(const char *p, const char *end)
{
    while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    return p;
}

/* Whether the line at `offset` is `#define NAME OTHER`: a macro that only
 * renames a function, whose call is written where the name is used. */
static bool renames_only(CXTranslationUnit tu, CXFile file, unsigned offset)
{
    size_t size;
    const char *text = clang_getFileContents(tu, file, &size);
    if (!text || offset >= size)
        return false;
    const char *line = text + offset, *end = text + offset;
    while (line > text && line[-1] != '\n')
        line--;
    while (end < text + size && *end != '\n' && *end != '\r')
        end++;
    const char *p = skip_blanks(line, end);
    if (p == end || *p != '#')
        return false;
    p = skip_blanks(p + 1, end);
    if ((size_t)(end - p) < 6 || strncmp(p, "define", 6) != 0)
        return false;
    const char *name = skip_blanks(p + 6, end);
    p = skip_identifier(name, end);
    if (p == name || p == end || (*p != ' ' && *p != '\t'))
        return false;
    const char *other = skip_blanks(p, end);
    p = skip_identifier(other, end);
    return p > other && skip_blanks(p, end) == end;
}

/* libclang 19's spelling location of a token from a macro's body is in the
 * #define (docs/libclang.md); that of an argument is at the use, after the
 * macro's name, where the body of a macro defined in the same file comes
 * before it. A body that only renames the callee names no place a change
 * could mend; whether the body's file is the repository's to change is the
 * rules' to say, which know its root (rules/rule.h, shown_path). */
char *macro_body_site(const walk_ctx *ctx, CXCursor c)
{
    CXSourceLocation at = clang_getCursorLocation(c);
    CXFile used, written;
    unsigned used_offset, line, written_offset;
    clang_getExpansionLocation(at, &used, NULL, NULL, &used_offset);
    clang_getSpellingLocation(at, &written, &line, NULL, &written_offset);
    if (!written || !used ||
        (clang_File_isEqual(written, used) && written_offset >= used_offset) ||
        renames_only(ctx->tu, written, written_offset))
        return NULL;
    char *name = cx_take(clang_getFileName(written));
    char *canon = path_canonical(name);
    const source_file *f = ctx->reach ? reach_find(ctx->reach, canon) : NULL;
    char *site = xasprintf("%s:%u", f ? f->abs_path : canon, line);
    free(canon);
    free(name);
    return site;
}
