/* libclang helpers that both the parse (extract/extract.c) and the AST walk
 * use: in a file of their own, so that the walk does not call back into the
 * parse that calls it. */
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

/* A file outside the snapshot as findings name paths: relative to the
 * directory the unit's own file is named relative to (the repository
 * root), when it is inside it; else absolute. */
static char *reported_path(const source_file *src, const char *abs)
{
    size_t la = strlen(src->abs_path), lp = strlen(src->path);
    if (src->path[0] != '/' && la > lp && src->abs_path[la - lp - 1] == '/' &&
        strcmp(src->abs_path + la - lp, src->path) == 0 &&
        strncmp(abs, src->abs_path, la - lp) == 0)
        return xstrdup(abs + la - lp);
    return xstrdup(abs);
}

/* libclang 19's spelling location of a token from a macro's body is in the
 * #define (docs/libclang.md); that of an argument is at the use, after the
 * macro's name, where the body of a macro defined in the same file comes
 * before it. */
char *macro_body_site(const walk_ctx *ctx, CXCursor c)
{
    CXSourceLocation at = clang_getCursorLocation(c);
    CXFile used, written;
    unsigned used_offset, line, written_offset;
    clang_getExpansionLocation(at, &used, NULL, NULL, &used_offset);
    clang_getSpellingLocation(at, &written, &line, NULL, &written_offset);
    if (!written || !used ||
        (clang_File_isEqual(written, used) && written_offset >= used_offset))
        return NULL;
    char *name = cx_take(clang_getFileName(written));
    char *canon = path_canonical(name);
    const source_file *f = ctx->reach ? reach_find(ctx->reach, canon) : NULL;
    char *path = f ? xstrdup(f->path) : reported_path(ctx->src, canon);
    char *site = xasprintf("%s:%u", path, line);
    free(path);
    free(canon);
    free(name);
    return site;
}
