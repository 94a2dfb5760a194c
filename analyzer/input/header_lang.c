#define _GNU_SOURCE
#include "input/header_lang.h"

#include <ctype.h>

#include <stdlib.h>
#include <string.h>

#include "util/paths.h"
#include "util/xalloc.h"

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

/* Syntax that C does not have: CUDA's execution-space qualifiers, templates,
 * namespaces, <<< launches, and C++ standard headers (<string>: no dot). */
static bool has_cuda_or_cpp_syntax(const source_file *f)
{
    static const char *const words[] = {"__global__", "__device__", "__host__", "__shared__",
                                        "__constant__", "__managed__", "template", "namespace"};
    const char *m = f->masked, *end = f->masked + f->len;
    if (memmem(m, f->len, "<<<", 3))
        return true;
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
        size_t wl = strlen(words[w]);
        for (const char *p = m; (p = memmem(p, (size_t)(end - p), words[w], wl)); p += wl) {
            bool starts = p == m || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
            bool ends = p + wl == end || !(isalnum((unsigned char)p[wl]) || p[wl] == '_');
            if (starts && ends)
                return true;
        }
    }
    for (const char *p = m; (p = memmem(p, (size_t)(end - p), "include", 7)); p += 7) {
        const char *q = p + 7;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (q < end && *q == '<') {
            const char *close = memchr(q, '>', (size_t)(end - q));
            const char *nl = memchr(q, '\n', (size_t)(end - q));
            if (close && (!nl || close < nl) && !memchr(q, '.', (size_t)(close - q)))
                return true;
        }
    }
    return false;
}

void header_langs_resolve(snapshot *snap, const gl_config *cfg)
{
    size_t n = snap->nfiles;
    /* Who includes whom, for every file (one include per line at most). */
    long **includes = xcalloc(n, sizeof *includes);
    size_t *nincludes = xcalloc(n, sizeof *nincludes);
    bool *included = xcalloc(n, sizeof *included);
    for (size_t i = 0; i < n; i++) {
        includes[i] = xmalloc(snap->files[i].nlines * sizeof **includes);
        for_each_include(snap, cfg, i, includes[i], &nincludes[i]);
        for (size_t k = 0; k < nincludes[i]; k++)
            included[includes[i][k]] = true;
    }
    /* CUDA spreads from the CUDA files, and from headers nothing includes
     * (analysed on their own) whose syntax is CUDA or C++, not C. */
    size_t *queue = xcalloc(n, sizeof *queue);
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++) {
        source_file *f = &snap->files[i];
        if (f->lang != LANG_CUDA && f->is_header && !included[i] && has_cuda_or_cpp_syntax(f))
            f->lang = LANG_CUDA;
        if (f->lang == LANG_CUDA)
            queue[tail++] = i;
    }
    while (head < tail) {
        size_t i = queue[head++];
        for (size_t k = 0; k < nincludes[i]; k++) {
            source_file *h = &snap->files[includes[i][k]];
            if (h->is_header && h->lang != LANG_CUDA) {
                h->lang = LANG_CUDA;
                queue[tail++] = (size_t)includes[i][k];
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        free(includes[i]);
    free(includes);
    free(nincludes);
    free(included);
    free(queue);
}
