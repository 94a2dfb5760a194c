/* Hidden names: a function named or called where the main file's text does
 * not spell the name (a macro made it). */
#include <ctype.h>
#include <string.h>

#include "extract/walk.h"

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

void record_hidden_name(walk_ctx *ctx, CXCursor at, const char *name, fact_loc loc)
{
    if (!*name || text_spells(ctx, at, name))
        return;
    for (size_t i = 0; i < ctx->facts->n_hidden_names; i++) {
        fact_hidden_name *h = &ctx->facts->hidden_names[i];
        if (h->loc.line == loc.line && h->loc.col == loc.col && !strcmp(h->name, name))
            return;
    }
    fact_hidden_name *h = XPUSH(ctx->facts->hidden_names, ctx->facts->n_hidden_names);
    h->name = xstrdup(name);
    h->loc = loc;
}
