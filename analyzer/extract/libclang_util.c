/* libclang helpers that both the parse (extract/extract.c) and the AST walk
 * use: in a file of their own, so that the walk does not call back into the
 * parse that calls it. */
#include "extract/internal.h"

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
