/* A function's name (qualified, or bare with C linkage) and the parts the
 * walk files read off its cursor (CUDA attributes, hot annotation,
 * parameters). Below every walk_* file that records facts, so that none of
 * them calls another in a circle (tests/analyzer/run-layering). */
#include <stdlib.h>
#include <string.h>

#include "extract/walk.h"

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
char *function_name(CXCursor c, bool *c_linkage)
{
    char *bare = cx_take(clang_getCursorSpelling(c));
    *c_linkage = has_c_linkage(c, bare);
    if (*c_linkage)
        return bare;
    free(bare);
    return qualified_name(c);
}

enum CXChildVisitResult collect_parts(CXCursor c, CXCursor parent, CXClientData data)
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
    case CXCursor_ParmDecl: *XPUSH(p->parms.items, p->parms.n) = c; break;
    default: break;
    }
    return CXChildVisit_Continue;
}
