/* Finding compile_commands.json without -p, where clang-tidy looks: in the
 * directory of each file or a parent, or in a build/ below one of them.
 * Each database found is then used as one given with -p is, for the files
 * it is nearest to (input/db_units.h, db_units_use). */
#define _DEFAULT_SOURCE
#include "input/compile_db.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/db_units.h"
#include "util/paths.h"
#include "util/xalloc.h"

typedef struct {
    char *path;
    compile_db *db;
    size_t files, matched;   /* files it is nearest to; of those, listed in it */
} found_db;

/* The database nearest to abs_path, as a path, or NULL. A file in the
 * same directory as the one before it (the snapshot is sorted) gets the
 * same answer without looking again: a run over 2,000 files made 20,000
 * access() calls here. */
static char *nearest_database(const char *abs_path, char **last_dir, char **last_found)
{
    const char *name = strrchr(abs_path, '/');
    size_t dir_len = name ? (size_t)(name - abs_path) : 0;
    if (*last_dir && strlen(*last_dir) == dir_len && memcmp(*last_dir, abs_path, dir_len) == 0)
        return *last_found ? xstrdup(*last_found) : NULL;
    free(*last_dir);
    free(*last_found);
    *last_dir = xstrndup(abs_path, dir_len);
    *last_found = NULL;
    char *dir = xstrdup(abs_path);
    char *slash = strrchr(dir, '/');
    while (slash) {
        *slash = '\0';
        const char *base = *dir ? dir : "";
        char *here = xasprintf("%s/compile_commands.json", base);
        char *below = xasprintf("%s/build/compile_commands.json", base);
        char *found = access(here, R_OK) == 0 ? here : access(below, R_OK) == 0 ? below : NULL;
        if (found != here)
            free(here);
        if (found != below)
            free(below);
        if (found) {
            free(dir);
            *last_found = xstrdup(found);
            return found;
        }
        slash = strrchr(dir, '/');
    }
    free(dir);
    return NULL;
}

/* A database found is named as -p would name it from the working
 * directory (build/compile_commands.json) when it is below it, so that a
 * file it does not list is told the same either way (rules/not_checked.c). */
static char *as_shown(const char *cwd, char *abs)
{
    const char *below = cwd ? path_below(cwd, abs) : NULL;
    if (!below)
        return abs;
    char *shown = xstrdup(below);
    free(abs);
    return shown;
}

int compile_db_discover(snapshot *snap, const gl_config *cfg, bool staged, char **error)
{
    found_db *dbs = NULL;
    size_t ndbs = 0;
    int rc = 0;
    char *last_dir = NULL, *last_found = NULL;
    char cwd_buf[PATH_MAX];
    const char *cwd = getcwd(cwd_buf, sizeof cwd_buf);
    for (size_t i = 0; i < snap->nfiles && rc == 0; i++) {
        source_file *f = &snap->files[i];
        char *path = nearest_database(f->abs_path, &last_dir, &last_found);
        if (!path)
            continue;
        path = as_shown(cwd, path);
        size_t k = 0;
        while (k < ndbs && strcmp(dbs[k].path, path) != 0)
            k++;
        if (k == ndbs) {
            compile_db *db = compile_db_load(path, error);
            if (!db) {
                free(path);
                rc = -1;
                break;
            }
            *XPUSH(dbs, ndbs) = (found_db){ .path = path, .db = db };
        } else {
            free(path);
        }
        dbs[k].files++;
        if (compile_db_give(dbs[k].db, f, snap->root))
            dbs[k].matched++;
    }
    /* Every analysed file has its database's flags before any database's
     * units join the snapshot (which sorts it again). */
    for (size_t k = 0; k < ndbs; k++) {
        if (rc == 0)
            db_units_use(dbs[k].db, snap, cfg, staged, dbs[k].files, dbs[k].matched, true);
        free(dbs[k].path);
        compile_db_free(dbs[k].db);
    }
    free(dbs);
    free(last_dir);
    free(last_found);
    return rc;
}
