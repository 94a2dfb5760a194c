/* Shared between extract/extract.c (parsing, the PCH, diagnostics) and
 * extract/walk.c (the AST walk that fills the facts). Not for rules. */
#ifndef GPULINT_EXTRACT_INTERNAL_H
#define GPULINT_EXTRACT_INTERNAL_H

#include <string.h>


#include "config/config.h"
#include "extract/libclang_api.h"
#include "extract/reach.h"
#include "facts/facts.h"
#include "input/source.h"
#include "util/xalloc.h"

typedef struct {
    unsigned start, end;   /* byte offsets in the main file */
} offset_range;

typedef struct {
    CXTranslationUnit tu;
    CXFile main_file;      /* the file facts are for: the unit's main file, or a
                              header analysed inside an includer's unit */
    bool header_in_unit;   /* main_file is such a header */
    /* Such a header's not_checked facts whose cause is outside it and
     * before it (the unit stopped before it had read the header in full):
     * their positions in facts->not_checked. */
    size_t *failed_before;
    size_t n_failed_before;
    const source_file *src;
    file_facts *facts;
    /* Bodies of __global__ and __device__-only functions: clang's host-only
     * pass lacks device intrinsics there, so its errors inside them are not
     * errors of the file. */
    offset_range *device_bodies;
    size_t n_device_bodies;
    /* Their parameters whose type clang could not read: errors there are
     * the file's (extract/walk.c, record_device_body). */
    offset_range *invalid_device_params;
    size_t n_invalid_device_params;
    /* Function-pointer variables and what they are set to
     * (extract/walk_pointers.c), gathered on the first call through one. */
    struct pointer_binding *pointer_bindings;
    size_t n_pointer_bindings;
    bool pointer_bindings_known;
    /* The snapshot's files, and the toolkit's include directory: a function
     * a driver-API stand-in declares (extract/stand_in.h) is the toolkit's
     * API as that program builds it. NULL: none counts. */
    const snapshot_reach *reach;
    const char *cuda_include;
} walk_ctx;

/* Fill ctx->facts from the translation unit's main file. */
void extract_walk(walk_ctx *ctx);

/* Whether the cursor's expansion location is in the main file; *loc gets it. */
bool cursor_in_main_file(const walk_ctx *ctx, CXCursor c, fact_loc *loc);

/* Where a cursor that a macro's body supplies is written: "PATH:LINE" of
 * that body (the snapshot's path for one of its files), or NULL when it is
 * written where it is used, a macro argument included. */
char *macro_body_site(const walk_ctx *ctx, CXCursor c);

/* clang's CXString as a malloc'd C string. */
char *cx_take(CXString s);

/* Canonical, C/C++-neutral spelling of a type (see facts/facts.h). */
char *type_spelling(CXType t);

/* The facts cache (extract/cache.c). The key covers what is known before
 * parsing; `identity` is gpulint's own (binary, libclang, flags, CUDA). */
char *facts_cache_key(const char *identity, const snapshot *snap, const source_file *src,
                      const gl_config *cfg);
/* The cached facts, or NULL when there are none, a file the parse read
 * (`included` when stored) has changed since, or one of the `absent` paths
 * (where a header not found would have been found) exists now. */
file_facts *facts_cache_load(const char *dir, const char *key, const snapshot_reach *snap);
/* Whether facts_cache_load would find the entry (without reading its facts). */
bool facts_cache_fresh(const char *dir, const char *key, const snapshot_reach *snap);
void facts_cache_store(const char *dir, const char *key, const file_facts *facts,
                       const snapshot_reach *snap, const fact_strs *included,
                       const fact_strs *absent);
/* Between these, a file outside the snapshot is stat'ed once (the first
 * look is what every entry is checked against), a header's name resolved
 * once (facts_cache_canonical) and a cache directory made once; call them
 * around a run over one snapshot, before the worker processes start. */
void facts_cache_run_begin(void);
void facts_cache_run_end(void);
/* path_canonical of a file name libclang reports, malloc'd. */
char *facts_cache_canonical(const char *name);

#endif
