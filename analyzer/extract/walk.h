/* Shared by the walk's files (extract/walk.c, the visitor, and one
 * extract/walk_<subject>.c per kind of fact): the state of a function body's
 * visit and the helpers and recorders one file calls in another. A
 * record_* function records a fact; the others only compute. */
#ifndef GPULINT_EXTRACT_WALK_H
#define GPULINT_EXTRACT_WALK_H

#include <stdbool.h>

#include "extract/internal.h"

/* A cursor's children, or any cursors gathered in a visit (children_of). */
typedef struct {
    CXCursor *items;
    size_t n;
} cursor_list;

/* What a function's children tell (collect_parts): CUDA attributes, the
 * gpulint:hot annotation, and its parameters' cursors. */
typedef struct {
    bool global, device, host, hot;
    cursor_list parms;
} function_parts;

/* A template parameter whose index is not known (see spelled_parameters):
 * every bit, so that any floating template argument of a call counts. */
#define UNKNOWN_PARAMETERS (~0ULL)

/* The depths (type-parameter-D-I) of the two parameter lists whose
 * bindings a call tells: the function template's own, and the innermost
 * enclosing class template's. -1 for none. */
typedef struct {
    int own, cls;
} template_lists;

/* Template parameters by list: bit i for parameter i of the function
 * template's own list, of the enclosing class template's. */
typedef struct {
    unsigned long long own, cls;
} param_set;

/* The visit of one function's body (extract/walk.c's visit_body). */
typedef struct {
    walk_ctx *w;
    CXCursor function;
    const char *function_usr;
    template_lists lists;
    unsigned loop_depth;
    bool floating_seen;               /* one fact of floating arithmetic */
    param_set params_seen;            /* the dependent facts' parameters so far:
                                         one more only for a parameter not
                                         yet covered */
    /* The last unexposed expression visited and its parent: C++ wraps a
     * statement whose arguments make temporaries with destructors in one
     * (ExprWithCleanups), between the call and its statement. */
    CXCursor wrapper, wrapper_parent;
} body_ctx;

typedef enum { ARITH_NONE, ARITH_FLOATING, ARITH_DEPENDENT } arithmetic_kind;

/* extract/walk_cursors.c: small libclang helpers. */
bool is_function_kind(enum CXCursorKind k);
bool is_loop_kind(enum CXCursorKind k);
bool name_starts(const char *s, const char *prefix);
void strs_push(fact_strs *s, char *item);
cursor_list children_of(CXCursor c);
CXCursor last_expression_child(CXCursor c);
bool same_extent(CXCursor a, CXCursor b);
CXCursor strip_implicit(CXCursor c);
CXCursor strip_casts(CXCursor c);
/* A C-style, named or functional cast written in the source. */
bool is_cast_kind(enum CXCursorKind k);
CXCursor overloaded_callee_ref(CXCursor call);
CXCursor callee_of(CXCursor call, bool *unique);
CXCursor primary_template(CXCursor c);
bool in_system_header(CXCursor c);
bool is_floating(CXType t);
char *parameter_spelling(CXType t);
char *api_name(const char *name);

/* extract/walk_symbols.c: a function's name and the parts of its cursor. */
char *function_name(CXCursor c, bool *c_linkage);
enum CXChildVisitResult collect_parts(CXCursor c, CXCursor parent, CXClientData data);

/* extract/walk_names.c: hidden names. */
void record_hidden_name(walk_ctx *ctx, CXCursor at, const char *name, fact_loc loc);

/* extract/walk_functions.c: functions and call edges. */
fact_function *record_function(walk_ctx *ctx, CXCursor c, fact_loc loc);
void record_call(body_ctx *b, CXCursor callee, char *name, fact_loc loc);

/* extract/walk_docs.c: doc-comment @param. */
void record_doc_params(walk_ctx *ctx, CXCursor c, const char *fname, fact_loc fn_loc,
                       const function_parts *parts);

/* extract/walk_templates.c: template parameters and floating arguments. */
int template_depth(CXCursor template);
template_lists lists_of(CXCursor function);
bool any_parameter(param_set p);
param_set type_parameters(CXType t, template_lists lists);
unsigned long long floating_template_args(CXCursor callee);
unsigned long long floating_class_args(CXCursor callee);

/* extract/walk_arithmetic.c: arithmetic in loops. */
void record_float_loop(body_ctx *b, CXCursor c, fact_loc loc);
void record_library_float_loop(body_ctx *b, CXCursor callee, fact_loc loc);

/* extract/walk_launches.c: kernel launches. */
void record_direct_launch(body_ctx *b, CXCursor call, CXCursor kernel, int first,
                          fact_launch_kind kind, fact_loc loc);
bool is_launch_configuration(CXCursor c);
void record_launch_api_call(body_ctx *b, CXCursor call, const char *name, fact_loc loc);

/* extract/walk_copies.c: copies and their kinds. `ftype`: the called
 * function's type (its parameters say where the kind is); NULL when `name`
 * is no copy API. */
fact_copy *record_copy(body_ctx *b, CXCursor call, CXType ftype, const char *name,
                       fact_loc loc);
void record_copy_through_pointer(body_ctx *b, CXCursor call, CXCursor holder, fact_loc loc);

/* extract/walk_pointers.c: function-pointer variables. */
typedef struct pointer_binding pointer_binding;
bool is_function_pointer(CXCursor decl);
/* The function-pointer variable, parameter or field a call goes through
 * (`fp(...)`, `(*fp)(...)`, `api.copy(...)`), or null. */
CXCursor called_pointer(CXCursor call);
/* An API a function-pointer variable holds (api_name): `toolkit` when it
 * is the CUDA toolkit's (a function a system header declares, an entry
 * point looked up by name, a cudaTypedefs.h PFN_ type). */
typedef struct {
    char *api;
    bool toolkit;
} held_api;
typedef struct {
    held_api *items;
    size_t n;
} held_apis;
/* What `holder` holds: the functions the unit sets it to, the entry points
 * it looks up into it by name, then the API its declared type is made for
 * (free with free_held_apis). */
held_apis apis_held(walk_ctx *ctx, CXCursor holder);
void free_held_apis(held_apis *held);
void free_pointer_bindings(walk_ctx *ctx);

/* extract/walk_statuses.c: unchecked statuses. */
void record_unchecked_status(body_ctx *b, CXCursor call, CXCursor parent,
                             CXCursor callee, const char *name, fact_loc loc);
void record_unchecked_status_through_pointer(body_ctx *b, CXCursor call, CXCursor parent,
                                             CXCursor holder, fact_loc loc);

#endif
