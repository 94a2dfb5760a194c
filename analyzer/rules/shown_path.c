/* How a finding names a file that extraction recorded by its absolute path
 * (a macro's body, the header an #include failed to open): the snapshot's
 * name for it, else relative to the repository root, as every other path
 * gpulint prints (rules/rule.h). */
#define _GNU_SOURCE
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "rules/rule.h"
#include "util/paths.h"

static const char *listed_as(const source_file *files, size_t n, const char *abs)
{
    for (size_t i = 0; i < n; i++)
        if (files[i].abs_path && strcmp(files[i].abs_path, abs) == 0)
            return files[i].path;
    return NULL;
}

const char *shown_path(const snapshot *snap, const char *abs)
{
    const char *p = listed_as(snap->files, snap->nfiles, abs);
    if (!p)
        p = listed_as(snap->context, snap->ncontext, abs);
    if (p)
        return p;
    /* Outside git there is no root: paths are named as given, from the
     * current directory (input/inputs.c, reported_path). */
    char cwd[PATH_MAX];
    const char *root = snap->root ? snap->root : getcwd(cwd, sizeof cwd);
    return root ? path_below(root, abs) : NULL;
}
