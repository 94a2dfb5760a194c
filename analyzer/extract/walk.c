/* The AST walk: everything the semantic rules need, from the main file of one
 * translation unit. Only cursors whose *expansion* location is in the main
 * file count (clang_Location_isFromMainFile is false inside macro
 * expansions, and launches written in macros must be seen). This file is
 * the visitor: declarations, function bodies and calls, each handed to the
 * recorder of its subject (extract/walk.h lists them). */
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

/* The parent of a call as its statement sees it: past an unexposed
 * expression of the call's own extent (ExprWithCleanups: `f(make().get());`
 * with a temporary that has a destructor). */
static CXCursor statement_parent(const body_ctx *b, CXCursor call, CXCursor parent)
{
    if (clang_getCursorKind(parent) == CXCursor_UnexposedExpr &&
        !clang_Cursor_isNull(b->wrapper) && same_extent(parent, b->wrapper) &&
        same_extent(parent, call))
        return b->wrapper_parent;
    return parent;
}

static void visit_call(body_ctx *b, CXCursor call, CXCursor parent, fact_loc loc)
{
    bool unique;
    CXCursor callee = callee_of(call, &unique);
    if (clang_Cursor_isNull(callee)) {
        CXCursor holder = called_pointer(call);
        if (!clang_Cursor_isNull(holder)) {
            record_copy_through_pointer(b, call, holder, loc);
            record_unchecked_status_through_pointer(b, call, statement_parent(b, call, parent),
                                                    holder, loc);
        }
        return;
    }
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
    record_copy(b, call, clang_getCursorType(callee), api, loc);
    record_unchecked_status(b, call, statement_parent(b, call, parent), callee, api, loc);
    free(api);
    /* An edge to the wrong overload could invent a chain: only certain ones. */
    if (unique && !in_system_header(callee)) {
        record_call(b, callee, name, loc);
    } else {
        record_library_float_loop(b, callee, loc);
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
    record_float_loop(b, c, loc);
    if (kind == CXCursor_UnexposedExpr) {
        b->wrapper = c;
        b->wrapper_parent = parent;
    }
    if (kind == CXCursor_CallExpr)
        visit_call(b, c, parent, loc);
    if (kind == CXCursor_DeclRefExpr || kind == CXCursor_MemberRefExpr) {
        CXCursor r = clang_getCursorReferenced(c);
        /* CUDA's own API names (cublasCreate -> cublasCreate_v2) are
         * substituted by its headers' macros: never the banned names. */
        if (is_function_kind(clang_getCursorKind(r)) && !in_system_header(r)) {
            char *name = cx_take(clang_getCursorSpelling(r));
            record_hidden_name(b->w, c, name, loc);
            free(name);
        }
    }
    return CXChildVisit_Recurse;
}

/* A __global__ or __device__-only definition: its extent, whose errors are
 * not the file's (internal.h, device_bodies), except inside a parameter
 * clang could not read (an unknown type name, which it reads as int). The
 * host declares and launches a kernel through those types, and a .cu that
 * needs its includer's types for them is its includer's part
 * (extract/extract.c, parses_clean). */
static void push_extent(offset_range **ranges, size_t *n, CXCursor c)
{
    CXSourceRange extent = clang_getCursorExtent(c);
    offset_range *r = XPUSH(*ranges, *n);
    clang_getExpansionLocation(clang_getRangeStart(extent), NULL, NULL, NULL, &r->start);
    clang_getExpansionLocation(clang_getRangeEnd(extent), NULL, NULL, NULL, &r->end);
}

static void record_device_body(walk_ctx *ctx, CXCursor function)
{
    push_extent(&ctx->device_bodies, &ctx->n_device_bodies, function);
    cursor_list kids = children_of(function);
    for (size_t i = 0; i < kids.n; i++)
        if (clang_getCursorKind(kids.items[i]) == CXCursor_ParmDecl &&
            clang_isInvalidDeclaration(kids.items[i]))
            push_extent(&ctx->invalid_device_params, &ctx->n_invalid_device_params,
                        kids.items[i]);
    free(kids.items);
}

static enum CXChildVisitResult visit_decl(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    walk_ctx *ctx = data;
    fact_loc loc;
    enum CXCursorKind kind = clang_getCursorKind(c);
    if (!cursor_in_main_file(ctx, c, &loc)) {
        /* A header analysed in its includer's unit may be included inside
         * a namespace, extern "C" block or class of the includer. */
        bool container = kind == CXCursor_Namespace || kind == CXCursor_LinkageSpec ||
                         kind == CXCursor_StructDecl || kind == CXCursor_ClassDecl;
        return ctx->header_in_unit && container && !in_system_header(c)
                   ? CXChildVisit_Recurse : CXChildVisit_Continue;
    }
    /* Instantiations of a template (tk<float> from a launch) repeat the
     * template's location: the template itself stands for them. */
    if (is_function_kind(kind) && kind != CXCursor_FunctionTemplate &&
        !clang_Cursor_isNull(clang_getSpecializedCursorTemplate(c)))
        return CXChildVisit_Continue;
    if (is_function_kind(kind)) {
        fact_function *f = record_function(ctx, c, loc);
        if (f->is_definition && (f->exec == EXEC_KERNEL || f->exec == EXEC_DEVICE))
            record_device_body(ctx, c);
        if (f->is_definition) {
            char *usr = xstrdup(f->usr);   /* f may move as facts grow */
            body_ctx b = { .w = ctx, .function = c, .function_usr = usr,
                           .wrapper = clang_getNullCursor(),
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
    free_pointer_bindings(ctx);
}
