/* Unchecked statuses: a CUDA or cuBLAS call whose returned status is
 * dropped (the call is a statement of its own). */
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

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

void record_unchecked_status(body_ctx *b, CXCursor call, CXCursor parent,
                             CXCursor callee, const char *name, fact_loc loc)
{
    if (!name_starts(name, "cu") || !in_system_header(callee) ||
        !returns_cuda_status(callee) || !is_statement(call, parent))
        return;
    fact_unchecked *u = FACT_PUSH(b->w->facts->unchecked, b->w->facts->n_unchecked);
    u->callee = xstrdup(name);
    u->loc = loc;
}
