/* Extraction: per file, in parallel, with libclang. The facts of one file are
 * everything the rules need to know about it, so rules never touch libclang
 * and facts can be cached by content hash. */
#ifndef GPULINT_EXTRACT_H
#define GPULINT_EXTRACT_H

#include "config/config.h"
#include "diag/diag.h"
#include "input/source.h"

typedef struct file_facts file_facts;   /* defined in facts/facts.h */

/* Parse snap->files[index] (its text, handed to libclang as an unsaved file,
 * with every other snapshot file also unsaved so staged headers are seen)
 * and collect its facts. Compiler errors are reported as parse-error
 * warnings through the sink; the AST libclang still builds is used.
 * Returns NULL only when libclang could not produce a translation unit at
 * all (exit 3), with the reason in *error (malloc'd). Thread-safe: each call
 * uses its own CXIndex. */
file_facts *facts_extract(const snapshot *snap, size_t index, const gl_config *cfg,
                          diag_sink *sink, char **error);

void facts_free(file_facts *facts);

/* Facts as text (JSON, malloc'd) and back; facts_load returns NULL with
 * *error set for text that is not facts of this gpulint's format.
 * facts_extract already caches facts on disk (extract/cache.c: keyed by the
 * file's text, path, arguments and gpulint's identity, and checked against
 * every file the parse read); these are for callers that keep facts
 * elsewhere. */
char *facts_save(const file_facts *facts);
file_facts *facts_load(const char *text, char **error);

/* One-time setup (CUDA shim dir, precompiled headers); call before the
 * worker threads start. Returns 0, or -1 with *error set. */
int facts_global_init(const gl_config *cfg, char **error);
void facts_global_cleanup(void);

#endif
