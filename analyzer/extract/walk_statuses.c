/* Unchecked statuses: a CUDA or cuBLAS call whose returned status is
 * dropped (the call is a statement of its own). */
#include <stdlib.h>
#include <string.h>

#include "extract/stand_in.h"
#include "extract/walk.h"
#include "util/paths.h"

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
        /* Cursors from two visits do not compare equal: compare spans (the
         * child may be the call's ExprWithCleanups, walk.c). */
        if (same_extent(kids.items[i], call))
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

/* cudaError_t, CUresult (enum cudaError_enum) or cublasStatus_t. */
static bool is_cuda_status(CXType t)
{
    char *s = type_spelling(t);
    bool status = strcmp(s, "cudaError") == 0 || strcmp(s, "cudaError_enum") == 0 ||
                  strcmp(s, "cublasStatus_t") == 0;
    free(s);
    return status;
}

/* A function of the toolkit: declared in a system header, or by a
 * driver-API stand-in of the snapshot, which declares the toolkit's
 * functions itself in place of its headers (cuda-samples'
 * cuda_drvapi_dynlink_cuda.h: `CUresult cuInit(unsigned, int)`). */
static bool declared_by_toolkit(const walk_ctx *w, CXCursor callee)
{
    if (in_system_header(callee))
        return true;
    if (!w->reach || !w->cuda_include)
        return false;
    CXFile file;
    clang_getFileLocation(clang_getCursorLocation(callee), &file, NULL, NULL, NULL);
    if (!file)
        return false;
    char *name = cx_take(clang_getFileName(file));
    char *canon = path_canonical(name);
    free(name);
    const source_file *f = reach_find(w->reach, canon);
    free(canon);
    return f && stands_in_for_toolkit(f, w->cuda_include);
}

void record_unchecked_status(body_ctx *b, CXCursor call, CXCursor parent,
                             CXCursor callee, const char *name, fact_loc loc)
{
    if (!name_starts(name, "cu") || !declared_by_toolkit(b->w, callee) ||
        !is_cuda_status(clang_getCursorResultType(callee)) || !is_statement(call, parent))
        return;
    fact_unchecked *u = XPUSH(b->w->facts->unchecked, b->w->facts->n_unchecked);
    u->callee = xstrdup(name);
    u->loc = loc;
    u->macro_site = macro_body_site(b->w, call);
}

/* A program that loads the driver calls it through function-pointer
 * variables: a call through one is a CUDA call when the variable holds a
 * CUDA API (what the unit sets it to or looks up into it, what its type is
 * made for: extract/walk_pointers.c) or is named
 * after one (a loader's `cuCtxDestroy = dlsym(...)`, whose declarations are
 * the program's own, not the toolkit's), and its type returns a CUDA status. */
void record_unchecked_status_through_pointer(body_ctx *b, CXCursor call, CXCursor parent,
                                             CXCursor holder, fact_loc loc)
{
    CXType ftype = clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(holder)));
    if (!is_cuda_status(clang_getResultType(ftype)) || !is_statement(call, parent))
        return;
    char *holder_name = cx_take(clang_getCursorSpelling(holder));
    char *callee = NULL;
    held_apis held = apis_held(b->w, holder);
    for (size_t i = 0; i < held.n && !callee; i++)
        if (name_starts(held.items[i].api, "cu") && held.items[i].toolkit)
            callee = xasprintf("%s (called through %s)", held.items[i].api, holder_name);
    free_held_apis(&held);
    if (!callee) {
        char *api = api_name(holder_name);
        if (name_starts(api, "cu"))
            callee = xstrdup(api);
        free(api);
    }
    free(holder_name);
    if (!callee)
        return;
    fact_unchecked *u = XPUSH(b->w->facts->unchecked, b->w->facts->n_unchecked);
    u->callee = callee;
    u->loc = loc;
    u->macro_site = macro_body_site(b->w, call);
}
