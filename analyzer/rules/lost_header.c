/* lost_header_find (rules/lost_header.h): from the header's own facts (a
 * unit that did not include it), the #include and #define lines of the
 * other files, and their not-checked facts, each "'name' not found"
 * matched against the header's path; a header with no unit that none of
 * them names is one nothing analysed includes. */
#define _GNU_SOURCE
#include "rules/lost_header.h"

#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "input/directive.h"
#include "input/header_lang.h"
#include "util/xalloc.h"

/* An absolute path as gpulint prints paths (shown_path), absolute when
 * outside the repository. */
static const char *shown(const snapshot *snap, const char *abs)
{
    const char *p = shown_path(snap, abs);
    return p ? p : abs;
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

/* How many leading directories paths a and b share. */
static size_t shared_dirs(const char *a, const char *b)
{
    size_t dirs = 0;
    for (size_t i = 0; a[i] && a[i] == b[i]; i++)
        dirs += a[i] == '/';
    return dirs;
}

char *lost_header_dir(const snapshot *snap, const char *spelling, const char *near)
{
    /* Of same-named headers (nccl's src/include/net.h and its example
     * plugin's plugins/net/example/nccl/net.h), the one nearest the
     * #include: the first in path order sent src/transport/'s includer to
     * the plugin's directory. */
    long best = -1;
    size_t best_dirs = 0, best_depth = 0;
    for (size_t i = 0; i < snap->nfiles; i++) {
        if (!names(snap->files[i].abs_path, spelling))
            continue;
        /* Equally near: the shallower (src/include/utils.h, not
         * src/include/param/utils.h, for src/os/'s "utils.h"). */
        size_t dirs = shared_dirs(snap->files[i].abs_path, near);
        size_t depth = shared_dirs(snap->files[i].abs_path, snap->files[i].abs_path);
        if (best < 0 || dirs > best_dirs || (dirs == best_dirs && depth < best_depth)) {
            best = (long)i;
            best_dirs = dirs;
            best_depth = depth;
        }
    }
    return best < 0 ? NULL : dir_below(snap, snap->files[best].abs_path, spelling);
}

/* A spelling as the suffix of a path it names: without its leading "./"
 * and "../" parts, which point above any directory. */
static const char *spelling_tail(const char *spelling)
{
    while (strncmp(spelling, "./", 2) == 0 || strncmp(spelling, "../", 3) == 0)
        spelling += spelling[1] == '/' ? 2 : 3;
    return spelling;
}

/* Whether the #include of `spelled` in file j may open file fi: it opens
 * fi when searched for as the compiler searches (input/header_lang.h), or
 * (`unresolved_too`) it opens no snapshot file that way and names a
 * directory (<lib/ppc_fpu.h>), so an include directory gpulint was not
 * given may hold fi. An #include that opens another file does not name
 * fi, whatever its spelling ends with (warp's bvh.cu opens the "sort.h"
 * beside it, not cuBQL/builder/omp/sort.h), nor does a bare name that
 * opens none of them: the system's header of that name is far likelier
 * (warp's <omp.h>, not cuBQL/builder/omp.h). */
static bool opens(const analysis *a, size_t j, size_t fi, const char *spelled, bool quoted,
                  bool unresolved_too)
{
    const snapshot *snap = a->snap;
    const source_file *f = &snap->files[j];
    const source_file *flags_of = f->is_header && f->context >= 0 ? &snap->files[f->context] : f;
    long r = include_resolve(snap, a->cfg, f, flags_of, spelled, quoted);
    return r == (long)fi || (unresolved_too && r < 0 && strchr(spelled, '/'));
}

/* The first line of a snapshot file other than file fi that names fi's
 * path ("x/h.hpp" or <x/h.hpp>): an #include that opens fi, else one
 * that opens no snapshot file (opens()), or (macro not NULL) a
 * `#define NAME "x/h.hpp"`, whose NAME goes to *macro. "path:line" and
 * the spelling (malloc'd), or false. */
static bool naming_line(const analysis *a, size_t fi, char **macro, char **where,
                        char **spelling)
{
    const snapshot *snap = a->snap;
    const char *abs_path = snap->files[fi].abs_path;
    for (int pass = 0; pass < (macro ? 1 : 2); pass++) {
        for (size_t j = 0; j < snap->nfiles; j++) {
            const source_file *f = &snap->files[j];
            if (j == fi)
                continue;
            const char *m = f->masked;
            text_line line;
            text_lines_begin(&line, m, f->len);
            while (text_lines_next(&line)) {
                const char *p = line.directive, *line_end = line.end;
                if (!p)
                    continue;
                const char *name = NULL;
                size_t name_len = 0;
                if (macro && (name = operand_after(p, line_end, "define"))) {
                    name_len = identifier_at(name, line_end);
                    p = name + name_len;
                    if (!name_len || (p < line_end && *p == '('))
                        continue;   /* a function-like macro */
                    p = skip_directive_blanks(p, line_end);
                } else if (macro || !(p = operand_after(p, line_end, "include"))) {
                    continue;
                }
                /* The name is blanked in the masked text: read it from the text. */
                const char *t = f->text + (p - m), *t_end = f->text + (line_end - m);
                char close = t < t_end && *t == '"' ? '"' : t < t_end && *t == '<' ? '>' : 0;
                const char *q = close ? memchr(t + 1, close, (size_t)(t_end - t - 1)) : NULL;
                if (!q)
                    continue;
                char *spelled = xstrndup(t + 1, (size_t)(q - t - 1));
                if (names(abs_path, spelling_tail(spelled)) &&
                    (macro || opens(a, j, fi, spelled, close == '"', pass == 1))) {
                    if (macro)
                        *macro = xstrndup(name, name_len);
                    *where = xasprintf("%s:%u", f->path, line.number);
                    *spelling = spelled;
                    return true;
                }
                free(spelled);
            }
        }
    }
    return false;
}

bool lost_header_find(const analysis *a, size_t fi, lost_header *out)
{
    const source_file *h = &a->snap->files[fi];
    const file_facts *hf = a->facts[fi];
    *out = (lost_header){0};
    if (!hf->n_parse_errors || hf->n_not_checked)
        return false;
    if (hf->n_outside_unit && hf->outside_unit[0].copy) {
        out->reason = LOST_DIFFERING_COPY;
        out->unit = xstrdup(hf->outside_unit[0].unit);
        out->copy = xstrdup(hf->outside_unit[0].copy);
        return true;
    }
    if (hf->n_outside_unit) {
        out->reason = LOST_UNTAKEN_BRANCH;
        out->unit = xstrdup(hf->outside_unit[0].unit);
        if (!naming_line(a, fi, NULL, &out->includer, &out->spelling) &&
            !naming_line(a, fi, &out->macro, &out->includer, &out->spelling)) {
            out->includer = xstrdup(out->unit);   /* named through other files */
            out->spelling = xstrdup(h->path);
        }
        return true;
    }
    if (!h->is_header || h->context >= 0)
        return false;
    for (size_t j = 0; j < a->snap->nfiles; j++) {
        const file_facts *f = a->facts[j];
        for (size_t k = 0; j != fi && k < f->n_not_checked; k++) {
            const fact_not_checked *u = &f->not_checked[k];
            if (u->cause == UNCHECKED_MACRO_INCLUDE && strcmp(u->detail, h->path) == 0) {
                out->reason = LOST_UNFOLLOWED;
                out->includer = u->via ? xstrdup(shown(a->snap, u->via))
                                       : xasprintf("%s:%u", a->snap->files[j].path, u->loc.line);
                out->spelling = xstrdup(h->path);
                return true;
            }
            if (u->cause != UNCHECKED_MISSING_INCLUDE || !names(h->abs_path, u->detail))
                continue;
            out->reason = LOST_NOT_FOUND;
            out->includer = u->via ? xstrdup(shown(a->snap, u->via))
                                   : xasprintf("%s:%u", a->snap->files[j].path, u->loc.line);
            out->spelling = xstrdup(u->detail);
            out->dir = dir_below(a->snap, h->abs_path, u->detail);
            return true;
        }
    }
    if (naming_line(a, fi, NULL, &out->includer, &out->spelling)) {
        out->reason = LOST_NO_UNIT;
        return true;
    }
    if (naming_line(a, fi, &out->macro, &out->includer, &out->spelling)) {
        out->reason = LOST_MACRO;
        return true;
    }
    out->reason = LOST_NO_INCLUDER;
    return true;
}

void lost_header_free(lost_header *h)
{
    free(h->includer);
    free(h->spelling);
    free(h->dir);
    free(h->unit);
    free(h->copy);
    free(h->macro);
}
