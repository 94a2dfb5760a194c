#define _GNU_SOURCE
#include "input/db_units.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/inputs.h"
#include "util/paths.h"
#include "util/xalloc.h"

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The snapshot's files as the file system resolves them (symlinks
 * followed), sorted: the database's paths are resolved so. */
static char **resolved_paths(const snapshot *snap)
{
    char **paths = xcalloc(snap->nfiles + 1, sizeof *paths);
    for (size_t i = 0; i < snap->nfiles; i++) {
        char resolved[PATH_MAX];
        paths[i] = xstrdup(realpath(snap->files[i].abs_path, resolved) ? resolved
                                                                       : snap->files[i].abs_path);
    }
    qsort(paths, snap->nfiles, sizeof *paths, by_text);
    return paths;
}

/* Reported as any file outside the analysed paths is: relative to the
 * repository root (the working directory outside git) when inside it. */
static char *reported(const snapshot *snap, const char *abs)
{
    char cwd[PATH_MAX];
    const char *base = snap->root ? snap->root : getcwd(cwd, sizeof cwd);
    size_t bl = base ? strlen(base) : 0;
    if (bl && strncmp(abs, base, bl) == 0 && abs[bl] == '/')
        return xstrdup(abs + bl + 1);
    return xstrdup(abs);
}

size_t db_units_add(const compile_db *db, snapshot *snap, const gl_config *cfg)
{
    size_t n = compile_db_nentries(db), added = 0, nknown = snap->nfiles;
    char **known = resolved_paths(snap);
    for (size_t i = 0; i < n; i++) {
        const char *abs = compile_db_entry_file(db, i);
        source_lang lang;
        bool is_header;
        if (!abs || !source_classify(abs, cfg, &lang, &is_header) || is_header ||
            bsearch(&abs, known, nknown, sizeof *known, by_text))
            continue;
        char *text = NULL;
        size_t len = 0;
        if (inputs_read_file(abs, &text, &len) != 0 || !text)
            continue;
        if (len > cfg->limits.file_bytes || memchr(text, '\0', len)) {
            free(text);
            continue;
        }
        source_file f;
        source_file_init(&f, reported(snap, abs), xstrdup(abs), text, len, cfg);
        f.unit_only = true;
        compile_db_give(db, &f, snap->root);
        snapshot_add(snap, &f);
        added++;
    }
    for (size_t i = 0; i < nknown; i++)
        free(known[i]);
    free(known);
    if (added)
        snapshot_sort(snap);
    return added;
}

void db_units_use(const compile_db *db, snapshot *snap, const gl_config *cfg, bool staged,
                  size_t served, size_t listed, bool found)
{
    size_t lent = compile_db_borrowers(db, snap);
    size_t units = staged ? 0 : db_units_add(db, snap, cfg);
    if (listed == 0 && served > 0 && lent == 0)
        fprintf(stderr,
                "gpulint: note: the compilation database %s lists none of the %zu analysed "
                "files%s; they are parsed with the config's flags alone%s (regenerate it, or "
                "name another with -p)\n",
                compile_db_path(db), served, found ? " below it" : "",
                units ? ", but for headers that its files outside the paths given include, "
                        "parsed in those files' units" : "");
}
