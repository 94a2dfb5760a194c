/* What a directory walk leaves out, beside the config's exclude: the paths
 * git ignores (.gitignore files, .git/info/exclude, core.excludesFile, as
 * git itself decides), and CMake build trees (a directory that holds a
 * CMakeCache.txt), whose CMakeFiles/ hold compiler-identification sources
 * and nvcc's preprocessed output. A directory named on the command line is
 * walked whatever git says of it: naming it is the user's choice. */
#ifndef GPULINT_WALK_SKIP_H
#define GPULINT_WALK_SKIP_H

#include <stdbool.h>
#include <stddef.h>

#include "util/str_table.h"

typedef struct {
    str_table ignored;     /* absolute paths git ignores under the walked directory */
    char **skipped;        /* the entries left out, as reported, with why */
    size_t nskipped;
} walk_skip;

/* Ask git which untracked paths under abs_dir it ignores. Outside a git
 * work tree, or when git cannot be run, nothing is ignored (every file is
 * analysed: more, never less). */
void walk_skip_load(walk_skip *w, const char *abs_dir);

/* Whether the walk leaves out the entry at abs_path (reported as
 * `reported`); counted when it does. */
bool walk_skip_entry(walk_skip *w, const char *abs_path, bool is_dir, const char *reported);

/* One note on stderr when the walk of given_dir left anything out. */
void walk_skip_report(walk_skip *w, const char *given_dir);

void walk_skip_free(walk_skip *w);

#endif
