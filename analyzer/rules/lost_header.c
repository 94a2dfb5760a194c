/* lost_header_find (rules/lost_header.h): from the not-checked facts of the
 * other files, each "'name' not found" matched against the header's path. */
#define _GNU_SOURCE
#include "rules/lost_header.h"

#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "util/xalloc.h"

/* An absolute path as gpulint prints paths: relative to the root inside it. */
static const char *shown(const snapshot *snap, const char *abs)
{
    size_t n = snap->root ? strlen(snap->root) : 0;
    if (n && strncmp(abs, snap->root, n) == 0 && abs[n] == '/')
        return abs + n + 1;
    return abs;
}

/* Whether abs_path is `spelling` below some directory: ".../host/x.h" for
 * "host/x.h". */
static bool names(const char *abs_path, const char *spelling)
{
    size_t n = strlen(abs_path), s = strlen(spelling);
    return s && s < n && abs_path[n - s - 1] == '/' && strcmp(abs_path + n - s, spelling) == 0;
}

/* The directory of `abs_path` that `spelling` is below, as printed. */
static char *dir_below(const snapshot *snap, const char *abs_path, const char *spelling)
{
    const char *abs_dir = shown(snap, abs_path);
    size_t n = strlen(abs_dir), s = strlen(spelling);
    return n > s ? xstrndup(abs_dir, n - s - 1) : xstrdup(".");
}

char *lost_header_dir(const snapshot *snap, const char *spelling)
{
    for (size_t i = 0; i < snap->nfiles; i++)
        if (names(snap->files[i].abs_path, spelling))
            return dir_below(snap, snap->files[i].abs_path, spelling);
    return NULL;
}

bool lost_header_find(const analysis *a, size_t fi, lost_header *out)
{
    const source_file *h = &a->snap->files[fi];
    const file_facts *hf = a->facts[fi];
    if (!h->is_header || h->context >= 0 || !hf->n_parse_errors || hf->n_not_checked)
        return false;
    for (size_t j = 0; j < a->snap->nfiles; j++) {
        const file_facts *f = a->facts[j];
        for (size_t k = 0; j != fi && k < f->n_not_checked; k++) {
            const fact_not_checked *u = &f->not_checked[k];
            if (u->cause != UNCHECKED_MISSING_INCLUDE || !names(h->abs_path, u->detail))
                continue;
            out->includer = u->via ? xstrdup(shown(a->snap, u->via))
                                   : xasprintf("%s:%u", a->snap->files[j].path, u->loc.line);
            out->spelling = xstrdup(u->detail);
            out->dir = dir_below(a->snap, h->abs_path, u->detail);
            return true;
        }
    }
    return false;
}

void lost_header_free(lost_header *h)
{
    free(h->includer);
    free(h->spelling);
    free(h->dir);
}
