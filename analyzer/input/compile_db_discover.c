/* Finding compile_commands.json without -p, where clang-tidy looks: in the
 * directory of each file or a parent, or in a build/ below one of them. */
#define _DEFAULT_SOURCE
#include "input/compile_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int compile_db_discover(snapshot *snap, char **error)
{
    found_db *dbs = NULL;
    size_t ndbs = 0;
    int rc = 0;
    char *last_dir = NULL, *last_found = NULL;
    for (size_t i = 0; i < snap->nfiles && rc == 0; i++) {
        source_file *f = &snap->files[i];
        char *path = nearest_database(f->abs_path, &last_dir, &last_found);
        if (!path)
            continue;
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
    for (size_t k = 0; k < ndbs; k++) {
        if (rc == 0 && dbs[k].matched == 0 && compile_db_borrowers(dbs[k].db, snap) == 0)
            fprintf(stderr,
                    "gpulint: note: the compilation database %s lists none of the %zu "
                    "analysed files below it; they are parsed with the config's flags "
                    "alone (regenerate it, or name another with -p)\n",
                    dbs[k].path, dbs[k].files);
        free(dbs[k].path);
        compile_db_free(dbs[k].db);
    }
    free(dbs);
    free(last_dir);
    free(last_found);
    return rc;
}
