#include "header_lang.h"

#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "xalloc.h"

/* The snapshot file `dir/name` names, or -1. dir is in reported form. */
static long find_in(const snapshot *snap, const char *dir, const char *name)
{
    char *norm = path_join(dir, name);
    long idx = snapshot_find(snap, norm);
    free(norm);
    return idx;
}

/* Config include dirs are absolute; snapshot paths are root-relative. */
static char *reported_dir(const snapshot *snap, const char *abs_dir)
{
    size_t rl = snap->root ? strlen(snap->root) : 0;
    if (rl && strncmp(abs_dir, snap->root, rl) == 0 && (abs_dir[rl] == '/' || !abs_dir[rl]))
        return xstrdup(abs_dir[rl] ? abs_dir + rl + 1 : "");
    return xstrdup(abs_dir);
}

/* Resolve an include as the compiler would search: the includer's directory
 * (quoted form only), the config's include-dirs, then the repository root. */
static long resolve_include(const snapshot *snap, const gl_config *cfg, const char *includer,
                            const char *name, bool quoted)
{
    long idx = -1;
    if (quoted) {
        const char *slash = strrchr(includer, '/');
        char *dir = slash ? xstrndup(includer, (size_t)(slash - includer)) : xstrdup("");
        idx = find_in(snap, dir, name);
        free(dir);
    }
    for (size_t i = 0; idx < 0 && i < cfg->include_dirs.n; i++) {
        char *dir = reported_dir(snap, cfg->include_dirs.items[i]);
        idx = find_in(snap, dir, name);
        free(dir);
    }
    if (idx < 0)
        idx = find_in(snap, "", name);
    return idx;
}

/* The snapshot files that file i includes, into targets (one per line at most). */
static void for_each_include(const snapshot *snap, const gl_config *cfg, size_t i,
                             long *targets, size_t *ntargets)
{
    const source_file *f = &snap->files[i];
    const char *m = f->masked, *end = f->masked + f->len;
    *ntargets = 0;
    for (const char *line = m; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *line_end = nl ? nl : end;
        const char *p = line;
        while (p < line_end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < line_end && *p == '#') {
            p++;
            while (p < line_end && (*p == ' ' || *p == '\t'))
                p++;
            if ((size_t)(line_end - p) > 7 && memcmp(p, "include", 7) == 0) {
                p += 7;
                while (p < line_end && (*p == ' ' || *p == '\t'))
                    p++;
                /* The name is blanked in the masked text: read it from the text. */
                const char *t = f->text + (p - m), *t_end = f->text + (line_end - m);
                char close = *t == '"' ? '"' : *t == '<' ? '>' : 0;
                const char *q = close ? memchr(t + 1, close, (size_t)(t_end - t - 1)) : NULL;
                if (q) {
                    char *name = xstrndup(t + 1, (size_t)(q - t - 1));
                    long j = resolve_include(snap, cfg, f->path, name, close == '"');
                    if (j >= 0)
                        targets[(*ntargets)++] = j;
                    free(name);
                }
            }
        }
        line = line_end + 1;
    }
}

void header_langs_resolve(snapshot *snap, const gl_config *cfg)
{
    size_t n = snap->nfiles;
    size_t *queue = xcalloc(n, sizeof *queue);
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (snap->files[i].lang == LANG_CUDA)
            queue[tail++] = i;
    long *targets = NULL;
    size_t cap = 0;
    while (head < tail) {
        size_t i = queue[head++];
        /* At most one include per line: the file's line count bounds them. */
        size_t lines = 1;
        for (size_t k = 0; k < snap->files[i].len; k++)
            lines += snap->files[i].text[k] == '\n';
        if (lines > cap) {
            cap = lines;
            targets = xrealloc(targets, cap * sizeof *targets);
        }
        size_t nt;
        for_each_include(snap, cfg, i, targets, &nt);
        for (size_t k = 0; k < nt; k++) {
            source_file *h = &snap->files[targets[k]];
            if (h->is_header && h->lang != LANG_CUDA) {
                h->lang = LANG_CUDA;
                queue[tail++] = (size_t)targets[k];
            }
        }
    }
    free(targets);
    free(queue);
}
