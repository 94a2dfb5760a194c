/* Which files a run analyses and what their content is: the working tree
 * (files git tracks, or the paths given) or the index (--staged). */
#ifndef GPULINT_INPUTS_H
#define GPULINT_INPUTS_H

#include <stdbool.h>

#include "config/config.h"
#include "input/source.h"

/* The repository root (absolute, malloc'd) from `git rev-parse
 * --show-toplevel`, or NULL outside a git work tree. */
char *inputs_repo_root(void);

/* Read a whole file into *text (malloc'd, NUL-terminated) and *len. Returns
 * 0, or -1 with errno set. */
int inputs_read_file(const char *abs_path, char **text, size_t *len);

/* The staged content of `path` (relative to the repository root `root`) in
 * the index git uses (GIT_INDEX_FILE honoured), symlinks followed (inside
 * the repository through the index, outside it on disk): 1 with *data
 * (malloc'd, NUL-terminated) and *len, 0 when the index has no merged entry
 * for it, -1 with *error when git failed, -2 with *error when the entry is
 * a symlink whose target cannot be read (the user's to fix, not an internal
 * error). *data is set only when 1 is returned. */
int inputs_read_staged(const char *root, const char *path, char **data, size_t *len,
                       char **error);

/* From inputs_share_index to inputs_release, inputs_read_staged and
 * inputs_load read the index's listing once and share it (one git process
 * for the staged config, its baseline and the snapshot); the index must not
 * change in between. Without it, each call lists the index itself. */
void inputs_share_index(void);
void inputs_release(void);

typedef struct {
    char *const *paths;   /* files and directories given; none: what git tracks */
    int npaths;
    bool staged;          /* read the index snapshot instead of the working tree */
    const char *root;     /* repository root, NULL outside git */
} input_request;

/* Fill snap (sorted by path) with the analysable files of the request; the
 * config's top-level exclude applies to discovered files, not to a file
 * named on the command line. Binary files (with a NUL byte), symlinks and
 * submodules are skipped. Returns 0, or an exit status (util/exit_codes.h)
 * with *error set: EXIT_USAGE (a path missing or unreadable, no repository)
 * or EXIT_INTERNAL (git failed). */
int inputs_load(snapshot *snap, const input_request *req, const gl_config *cfg, char **error);

#endif
