/* Extraction: per file, in parallel, with libclang. The facts of one file are
 * everything the rules need to know about it, so rules never touch libclang
 * and facts can be cached by content hash. */
#ifndef GPULINT_EXTRACT_H
#define GPULINT_EXTRACT_H

#include "config/config.h"
#include "facts/facts.h"
#include "input/source.h"

/* Parse snap->files[index] (its text, handed to libclang as an unsaved file,
 * with the snapshot files its includes can reach also unsaved so staged
 * headers are seen; extract/reach.h)
 * and collect its facts, compiler errors in the file among them (facts only:
 * rules/parse_error.c reports them); the AST libclang still builds is used.
 * What kept the file from being checked in full (an #include not found,
 * another fatal error, no CUDA toolkit for a CUDA file, no translation unit
 * at all) is a not-checked fact (rules/not_checked.c). Never NULL.
 * One thread of a process may call it at a time (extract/contain.c's
 * workers are processes): the translation units it keeps are the
 * process's. */
file_facts *facts_extract(const snapshot *snap, size_t index, const gl_config *cfg);

/* The file whose translation unit file `index` is analysed in: its context
 * (an includer, for a header: input/source.h), else itself. */
size_t facts_unit_of(const snapshot *snap, size_t index);

/* Which include-set PCH (extract/preamble.h) the parse of unit `unit`
 * (facts_unit_of) starts from: a key, or 0 for none. The first parse of a
 * set builds its PCH and any other parse of it waits meanwhile. */
unsigned long long facts_unit_set(size_t unit);

/* The unit whose include set unit `unit`'s set is chained on (built on top
 * of its PCH, extract.c chain_include_sets), or SIZE_MAX: a parse of it
 * builds that set first when it is not built yet. */
size_t facts_unit_set_parent(size_t unit);

/* Whether unit `unit` parses with an include set chained on its language's
 * base PCH (a CUDA or C++ unit's set, such as this repository's
 * cooperative_groups set): its build comes after the base PCH's and is the
 * longest piece of work a cold run can start early (contain.c hands such
 * units out first). */
bool facts_unit_set_on_base(size_t unit);

/* Whether the parse of unit `unit` waits for its language's PCH, which a
 * process of its own is building (extract.c, build_needed_pchs): such a
 * unit is handed out after the others, as one whose set is being built. */
bool facts_unit_waits(size_t unit);

/* What facts_extract gives for each of files[0..n), the files of one unit
 * (facts_unit_of) together, with that unit parsed once for all of them
 * rather than once per header: done(file, facts, arg) as each file's facts
 * are found (they are the caller's), in order. A job may hold several
 * units' files, one unit after another: a unit whose files come first is
 * walked, before it goes, for the later files it is another program's
 * context of (source_file.other_contexts), and not parsed again for them. */
typedef void (*facts_done)(size_t file, file_facts *facts, void *arg);
void facts_extract_group(const snapshot *snap, const size_t *files, size_t n,
                         const gl_config *cfg, facts_done done, void *arg);

/* The file's facts from the facts cache, or NULL when they are not there
 * (no libclang involved: extract/contain.c calls it before deciding to
 * start a parse). */
file_facts *facts_extract_cached(const snapshot *snap, size_t index, const gl_config *cfg);

/* The facts cache's key of snap->files[index] when the cache holds facts
 * for it that facts_extract_cached would give (every file its parse read
 * is as it was), else NULL (malloc'd). A key covers the file, its flags,
 * its units and gpulint's identity (extract/cache.c). After
 * facts_global_init with this snapshot. */
char *facts_cached_key(const snapshot *snap, size_t index, const gl_config *cfg);

/* The facts cache's key of snap->files[index] (NULL without a cache), and
 * the directory whole runs' results are kept in beside the facts cache
 * (NULL without one: GPULINT_NO_FACTS_CACHE, or a cache that cannot be
 * written). After facts_global_init. */
char *facts_cache_key_of(const snapshot *snap, size_t index, const gl_config *cfg);
const char *facts_results_dir(void);

/* One-time setup (CUDA shim dir, precompiled headers, the index of snap's
 * includes); call before the worker threads start, with the snapshot
 * facts_extract will be given (unchanged until facts_global_cleanup), or
 * NULL: each facts_extract then indexes its own. Returns 0, or -1 with
 * *error set. */
int facts_global_init(const gl_config *cfg, const snapshot *snap, char **error);
void facts_global_cleanup(void);

#endif
