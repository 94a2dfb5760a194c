/* include_order_after (extract/include_order.h): the #include chains of
 * clang_getInclusions, compared level by level from the main file. */
#include "extract/include_order.h"

#include <stdlib.h>

#include "util/xalloc.h"

/* The offsets of the #include lines that first opened `target`, outermost
 * first (the main file's own line, then the line in the file it opened,
 * ...); found is false until the target is met. */
typedef struct {
    CXFile target;
    unsigned *offsets;
    unsigned depth;
    bool found;
} include_chain;

static void find_chain(CXFile included, CXSourceLocation *stack, unsigned depth,
                       CXClientData data)
{
    include_chain *chain = data;
    if (chain->found || !clang_File_isEqual(included, chain->target))
        return;
    chain->found = true;
    chain->depth = depth;
    chain->offsets = xcalloc(depth ? depth : 1, sizeof *chain->offsets);
    for (unsigned k = 0; k < depth; k++) {
        CXFile f;
        unsigned line, col, offset;
        clang_getExpansionLocation(stack[depth - 1 - k], &f, &line, &col, &offset);
        chain->offsets[k] = offset;
    }
}

bool include_order_after(CXTranslationUnit tu, CXFile header, CXFile file, unsigned offset)
{
    include_chain h = {.target = header}, f = {.target = file};
    clang_getInclusions(tu, find_chain, &h);
    clang_getInclusions(tu, find_chain, &f);
    bool after = false;
    if (h.found && f.found) {
        /* The failed #include is one level below its file's chain. Where
         * both chains pass the same lines, the first line where they part
         * decides; a point inside the header's chain is inside it. */
        unsigned n = f.depth + 1;
        f.offsets = xrealloc(f.offsets, n * sizeof *f.offsets);
        f.offsets[f.depth] = offset;
        unsigned k = 0;
        while (k < n && k < h.depth && f.offsets[k] == h.offsets[k])
            k++;
        after = k < n && k < h.depth && f.offsets[k] > h.offsets[k];
    }
    free(h.offsets);
    free(f.offsets);
    return after;
}

typedef struct {
    CXFile target, header;
    bool found, through;
} include_passage;

static void find_passage(CXFile included, CXSourceLocation *stack, unsigned depth,
                         CXClientData data)
{
    include_passage *p = data;
    if (p->found || !clang_File_isEqual(included, p->target))
        return;
    p->found = true;
    for (unsigned k = 0; k < depth && !p->through; k++) {
        CXFile f;
        clang_getExpansionLocation(stack[k], &f, NULL, NULL, NULL);
        p->through = f && clang_File_isEqual(f, p->header);
    }
}

bool include_order_inside(CXTranslationUnit tu, CXFile header, CXFile file)
{
    if (clang_File_isEqual(file, header))
        return true;
    include_passage p = {.target = file, .header = header};
    clang_getInclusions(tu, find_passage, &p);
    return p.through;
}
