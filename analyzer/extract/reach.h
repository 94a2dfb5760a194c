/* Which files of a snapshot (its context files included) one parse can open, found once per snapshot, so
 * that each parse is handed its own file and the headers its include
 * directives can reach rather than every file of the snapshot (which made a
 * run grow with the square of the file count). Also the snapshot's files by
 * absolute path, for the facts cache. */
#ifndef GPULINT_EXTRACT_REACH_H
#define GPULINT_EXTRACT_REACH_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "input/include_names.h"
#include "input/source.h"

typedef struct snapshot_reach snapshot_reach;

/* Index snap (which must outlive it, unchanged): every file's include
 * directives, resolved to the snapshot files they can name (an #include of
 * a macro through its definitions in snap and the -D of the files'
 * arguments and cfg, which may be NULL). */
snapshot_reach *reach_build(const snapshot *snap, const gl_config *cfg);
void reach_free(snapshot_reach *reach);

/* The snapshot file with this absolute path, or NULL. */
const source_file *reach_find(const snapshot_reach *reach, const char *abs_path);

/* Whether an include of `spelling` (len bytes) may open a snapshot file. */
bool reach_may_name(const snapshot_reach *reach, const char *spelling, size_t len);

/* The one snapshot file an include of `spelling` can open, or NULL when
 * there is none or more than one. */
const source_file *reach_only_candidate(const snapshot_reach *reach, const char *spelling,
                                        size_t len);

/* The indices of the files a parse of file `index` may read (an index past
 * snap->nfiles is snap->context[index - snap->nfiles]): the file, and
 * every snapshot file that an include directive of a reached file (or an
 * -include of its arguments) can name, whatever the search path, an
 * #include of a macro through the file names its definitions give; every
 * file of the snapshot when a reached file includes a macro that names no
 * file gpulint can tell (input/include_names.h). *out is
 * malloc'd; returns the count. */
size_t reach_files(const snapshot_reach *reach, size_t index, size_t **out);

/* Whether file `index`, or a file it reaches, has an #include of a macro
 * that names no file gpulint can tell (reach_files then gives every file). */
bool reach_unresolved(const snapshot_reach *reach, size_t index);

/* The snapshot's macros that name files (input/include_names.h). */
const macro_names *reach_macros(const snapshot_reach *reach);

/* Whether a file that a parse of file `index` may read (reach_files) is
 * one for which holds(file, ctx) is true: a driver-API stand-in, for
 * extraction. holds must give the same answer for the life of `reach`,
 * which keeps each file's. */
bool reach_any_file(const snapshot_reach *reach, size_t index,
                    bool (*holds)(const source_file *f, void *ctx), void *ctx);

#endif
