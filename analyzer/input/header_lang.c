#define _GNU_SOURCE
#include "input/header_lang.h"

#include <ctype.h>
#include <limits.h>
#include <unistd.h>

#include <stdlib.h>
#include <string.h>

#include "input/directive.h"
#include "input/include_names.h"
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

/* Config include dirs and a compilation database's are absolute; snapshot
 * paths are relative to the repository root, and outside a repository
 * (no root) as given, relative to the directory gpulint runs in
 * (input/inputs.c): without that, no header found through an -I or
 * include-dirs had a unit outside git (nccl's DOCA headers through its
 * database's -I, cuda-samples' Common/ through include-dirs). */
static char *reported_dir(const snapshot *snap, const char *abs_dir)
{
    char cwd[PATH_MAX];
    const char *base = snap->root ? snap->root : getcwd(cwd, sizeof cwd);
    size_t rl = base ? strlen(base) : 0;
    if (rl && strncmp(abs_dir, base, rl) == 0 && (abs_dir[rl] == '/' || !abs_dir[rl]))
        return xstrdup(abs_dir[rl] ? abs_dir + rl + 1 : "");
    return xstrdup(abs_dir);
}

/* The directory of an -I/-isystem/-iquote/-idirafter of a compilation
 * database's flags (extract/extract.c passes them in this order), or NULL. */
static const char *include_dir_flag(char *const *args, size_t n, size_t *k)
{
    const char *a = args[*k];
    if (strncmp(a, "-I", 2) == 0 && a[2])
        return a + 2;
    if ((strcmp(a, "-isystem") == 0 || strcmp(a, "-iquote") == 0 ||
         strcmp(a, "-idirafter") == 0 || strcmp(a, "-I") == 0) && *k + 1 < n)
        return args[++*k];
    return NULL;
}

long include_resolve(const snapshot *snap, const gl_config *cfg, const source_file *includer,
                     const source_file *flags_of, const char *name, bool quoted)
{
    long idx = -1;
    if (quoted) {
        const char *slash = strrchr(includer->path, '/');
        char *dir = slash ? xstrndup(includer->path, (size_t)(slash - includer->path))
                          : xstrdup("");
        idx = find_in(snap, dir, name);
        free(dir);
    }
    for (size_t k = 0; idx < 0 && k < flags_of->nargs; k++) {
        const char *flag_dir = include_dir_flag(flags_of->args, flags_of->nargs, &k);
        if (!flag_dir)
            continue;
        char *dir = reported_dir(snap, flag_dir);
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
    /* Extraction gives a parse -I<its file's directory>: an <...> include
     * of a header beside its includer resolves there when the unit's file
     * sits in that directory too (cuda-samples' nvMath.h: <nvQuaternion.h>). */
    if (idx < 0 && !quoted) {
        const char *slash = strrchr(includer->path, '/');
        char *dir = slash ? xstrndup(includer->path, (size_t)(slash - includer->path))
                          : xstrdup("");
        idx = find_in(snap, dir, name);
        free(dir);
    }
    return idx;
}

typedef struct {
    const snapshot *snap;
    const gl_config *cfg;
    const source_file *includer;
    const source_file *flags_of;
    long **targets;
    size_t *ntargets;
} include_targets;

/* An #include's file name, resolved from its includer: one more target. */
static void add_target(const char *name, size_t len, bool quoted, void *ctx)
{
    include_targets *t = ctx;
    char *spelled = xstrndup(name, len);
    long j = include_resolve(t->snap, t->cfg, t->includer, t->flags_of, spelled, quoted);
    free(spelled);
    if (j < 0)
        return;
    for (size_t k = 0; k < *t->ntargets; k++)
        if ((*t->targets)[k] == j)
            return;
    *XPUSH(*t->targets, *t->ntargets) = j;
}

/* The snapshot files that file i includes (malloc'd into *targets): each
 * #include's file name, or what its macro's definitions name, searched for
 * with the flags of flags_of. */
static void for_each_include(const snapshot *snap, const gl_config *cfg,
                             const macro_names *macros, size_t i, const source_file *flags_of,
                             long **targets, size_t *ntargets)
{
    const source_file *f = &snap->files[i];
    const char *m = f->masked;
    include_targets t = {snap, cfg, f, flags_of, targets, ntargets};
    *targets = NULL;
    *ntargets = 0;
    text_line line;
    text_lines_begin(&line, m, f->len);
    while (text_lines_next(&line)) {
        const char *operand = line.directive ? operand_after(line.directive, line.end, "include") : NULL;
        /* The name is blanked in the masked text: read it from the text. */
        if (operand)
            include_operand_names(macros, flags_of, f->text + (operand - m),
                                  f->text + (line.end - m), add_target, &t);
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

/* Whether file i, or a file its includes reach, is not C: CUDA or C++ by
 * its extension or its syntax. `queue` has room for every file. */
static bool reaches_cuda_or_cpp(const snapshot *snap, long *const *includes,
                                const size_t *nincludes, size_t i, size_t *queue)
{
    bool *seen = xcalloc(snap->nfiles, sizeof *seen);
    size_t head = 0, tail = 0;
    bool found = false;
    queue[tail++] = i;
    seen[i] = true;
    while (head < tail && !found) {
        const source_file *f = &snap->files[queue[head]];
        found = f->lang != LANG_C || has_cuda_or_cpp_syntax(f);
        for (size_t k = 0; k < nincludes[queue[head]]; k++)
            if (!seen[includes[queue[head]][k]]) {
                seen[includes[queue[head]][k]] = true;
                queue[tail++] = (size_t)includes[queue[head]][k];
            }
        head++;
    }
    free(seen);
    return found;
}

/* Whether file i is analysed in another file's translation unit: a header,
 * or a source file (.c, .cpp, ...) that another file of the snapshot
 * includes (cuda-samples' simpleGLES.cu includes graphics_interface.c after
 * the X11 headers it needs): both are parts of their includer's unit. */
static bool part_of_unit(const snapshot *snap, const bool *included, size_t i)
{
    return snap->files[i].is_header || included[i];
}

/* Whether source files a and b are of one program for their headers'
 * units: they share a build target of the compile database; where either
 * has none, by directory (docs/rules.md, "Programs"). Two targets in one
 * directory (two executables) are two programs: each target's flags and
 * macros may give a header it shares other code. */
static bool same_unit_program(const source_file *a, const source_file *b)
{
    if (a->ntargets == 0 || b->ntargets == 0)
        return path_same_program(a->path, b->path);
    for (size_t i = 0, j = 0; i < a->ntargets && j < b->ntargets;) {
        int c = strcmp(a->targets[i], b->targets[j]);   /* both sorted */
        if (c == 0)
            return true;
        c < 0 ? i++ : j++;
    }
    return false;
}

/* Whether snap->files[s] is of the program of the header's context or of
 * one of its other contexts. */
static bool program_has_context(const snapshot *snap, const source_file *h, size_t s)
{
    const source_file *f = &snap->files[s];
    if (same_unit_program(f, &snap->files[h->context]))
        return true;
    for (size_t k = 0; k < h->nother_contexts; k++)
        if (same_unit_program(f, &snap->files[h->other_contexts[k]]))
            return true;
    return false;
}

static bool is_other_context(const source_file *h, size_t s)
{
    for (size_t k = 0; k < h->nother_contexts; k++)
        if ((size_t)h->other_contexts[k] == s)
            return true;
    return false;
}

/* Whether a unit whose flags are of group `group` (-1: none) takes an
 * include found by the flags of `found_by` (-1: by the includer's own
 * search, which every unit takes): an #include of a macro that one
 * database entry's -D names (input/include_names.h), or a header that only
 * one entry's -I finds, is that entry's units' only. */
static bool unit_follows(int found_by, int group)
{
    return found_by < 0 || found_by == group;
}

/* Whether snap->files[s] starts a unit of its own in phase `phase` of
 * assign_contexts: an analysed source file nothing includes, then a
 * compilation database's source file outside the paths analysed
 * (source_file.unit_only), then a header nothing includes (a library's
 * public header, analysed on its own). */
static bool unit_root(const snapshot *snap, const bool *included, size_t s, int phase)
{
    if (phase < 2)
        return !part_of_unit(snap, included, s) && snap->files[s].unit_only == (phase == 1);
    return snap->files[s].is_header && !included[s];
}

/* Each part's (part_of_unit) context: the first other source file (in
 * snapshot order) that reaches it through its includes, a CUDA one first,
 * then C++, then C: the language the header was given is its unit's. A
 * header with a context already is walked through too: what it includes in
 * this unit may be another unit's only (unit_follows).
 *
 * A header that several programs include is analysed in one unit of each
 * (an #ifdef, a typedef or a macro of the includer may give it other code
 * in each): every later source file that reaches it and is of none of the
 * programs already covered adds its own unit, in the same order. The other
 * source files that reach it are its fallbacks, in the same order: a unit
 * that stops before it has read the header (cuCollections' benchmarks,
 * whose nvbench is absent) gives way to the next of its program.
 *
 * Then a header that no analysed source file reaches but a source file of
 * the compilation database outside the paths does (nccl's collective
 * headers, which only its generated sources include) is analysed in that
 * file's unit, its flags and its includes, as its build compiles it.
 *
 * Then a header that no source file reaches but a header nothing includes
 * does (a header-only library's detail .inl files, which its public header
 * includes at its end, needing that header's declarations) is analysed in
 * that header's unit, as its includers compile it.
 * `queue` has room for every file. */
static void assign_contexts(snapshot *snap, long *const *includes, int *const *found_by,
                            const size_t *nincludes, const int *group_of, const bool *included,
                            size_t *queue)
{
    static const source_lang by_preference[] = { LANG_CUDA, LANG_CXX, LANG_C };
    size_t n = snap->nfiles;
    size_t *seen = xcalloc(n ? n : 1, sizeof *seen);   /* visit + 1 of the last visit */
    size_t visit = 0;
    for (int phase = 0; phase < 3; phase++) {
        for (size_t step = 0; step < 3 * n; step++) {
            size_t s = step % n;
            if (!unit_root(snap, included, s, phase) ||
                snap->files[s].lang != by_preference[step / n])
                continue;
            visit++;
            size_t head = 0, tail = 0;
            queue[tail++] = s;
            seen[s] = visit;
            while (head < tail) {
                size_t i = queue[head++];
                for (size_t k = 0; k < nincludes[i]; k++) {
                    size_t h = (size_t)includes[i][k];
                    source_file *hf = &snap->files[h];
                    if (!part_of_unit(snap, included, h) || seen[h] == visit ||
                        !unit_follows(found_by[i][k], group_of[s]))
                        continue;
                    seen[h] = visit;
                    queue[tail++] = h;
                    /* It is part of every target that compiles a unit that
                     * reaches it (a header of two targets is of both). */
                    for (size_t t = 0; phase == 0 && t < snap->files[s].ntargets; t++)
                        source_add_target(hf, snap->files[s].targets[t]);
                    if (hf->context < 0)
                        hf->context = (long)s;
                    else if (phase == 0 && (size_t)hf->context != s &&
                             !program_has_context(snap, hf, s))
                        *XPUSH(hf->other_contexts, hf->nother_contexts) = (long)s;
                    else if (phase == 0 && (size_t)hf->context != s &&
                             !is_other_context(hf, s))
                        *XPUSH(hf->fallbacks, hf->nfallbacks) = (long)s;
                }
            }
        }
    }
    free(seen);
}

/* The include directories and the -D of a file's compile-database flags,
 * one a line: all that searching for its headers' #includes depends on
 * (a -D names the file of an #include of that macro in the units with
 * that -D only, input/include_names.h). */
static char *search_key(const source_file *f)
{
    char *key = xstrdup("");
    for (size_t k = 0; k < f->nargs; k++) {
        const char *a = f->args[k], *kind = "I", *part = include_dir_flag(f->args, f->nargs, &k);
        if (!part && strcmp(a, "-D") == 0 && k + 1 < f->nargs) {
            kind = "D";
            part = f->args[++k];
        } else if (!part && strncmp(a, "-D", 2) == 0) {
            kind = "D";
            part = a + 2;
        }
        if (!part)
            continue;
        char *longer = xasprintf("%s%s %s\n", key, kind, part);
        free(key);
        key = longer;
    }
    return key;
}

typedef struct {
    char *key;
    size_t file;
} keyed_file;

static int by_key_then_file(const void *a, const void *b)
{
    const keyed_file *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->file > y->file) - (x->file < y->file);
}

/* Add to header i's includes what they name when searched with the flags
 * of `flags`, those of the units of `group`; whether any was new. */
static bool add_found_with(const snapshot *snap, const gl_config *cfg, const macro_names *macros,
                           size_t i, const source_file *flags, int group, long **includes,
                           int **found_by, size_t *nincludes, bool *included)
{
    long *found;
    size_t nfound;
    bool added = false;
    for_each_include(snap, cfg, macros, i, flags, &found, &nfound);
    for (size_t k = 0; k < nfound; k++) {
        bool known = (size_t)found[k] == i;
        for (size_t j = 0; !known && j < nincludes[i]; j++)
            known = includes[i][j] == found[k] && unit_follows(found_by[i][j], group);
        if (known)
            continue;
        includes[i] = xrealloc(includes[i], (nincludes[i] + 1) * sizeof **includes);
        found_by[i] = xrealloc(found_by[i], (nincludes[i] + 1) * sizeof **found_by);
        found_by[i][nincludes[i]] = group;
        includes[i][nincludes[i]++] = found[k];
        included[found[k]] = true;
        added = true;
    }
    free(found);
    return added;
}

/* A header's #includes are searched for as its unit's compiler searches:
 * with the unit's -I (nccl's src/include/param/parsers.h includes
 * "param/parser_bitset.h", which only its includers' -Iinclude finds; the
 * header was parsed on its own, and not found). The source files are
 * grouped by their include directories; the headers each group reaches add
 * what their includes name with those directories, until nothing more is
 * added. */
static void add_includes_found_with_unit_flags(const snapshot *snap, const gl_config *cfg,
                                               const macro_names *macros, long **includes,
                                               int **found_by, size_t *nincludes,
                                               int *group_of, bool *included, size_t *queue)
{
    size_t n = snap->nfiles, nkeyed = 0;
    keyed_file *keyed = xcalloc(n ? n : 1, sizeof *keyed);
    for (size_t i = 0; i < n; i++) {
        if (snap->files[i].is_header || snap->files[i].nargs == 0)
            continue;
        char *key = search_key(&snap->files[i]);
        if (*key)
            keyed[nkeyed++] = (keyed_file){key, i};
        else
            free(key);
    }
    qsort(keyed, nkeyed, sizeof *keyed, by_key_then_file);
    for (size_t k = 0, g = 0; k < nkeyed; k++) {
        if (k > 0 && strcmp(keyed[k].key, keyed[k - 1].key) != 0)
            g = k;
        group_of[keyed[k].file] = (int)g;
    }
    size_t *scanned = xcalloc(n ? n : 1, sizeof *scanned);   /* 1 + the group's first */
    for (bool more = nkeyed > 0; more;) {
        more = false;
        memset(scanned, 0, (n ? n : 1) * sizeof *scanned);
        for (size_t g = 0; g < nkeyed;) {
            size_t end = g + 1;
            while (end < nkeyed && strcmp(keyed[end].key, keyed[g].key) == 0)
                end++;
            size_t head = 0, tail = 0;
            for (size_t k = g; k < end; k++) {
                scanned[keyed[k].file] = g + 1;
                queue[tail++] = keyed[k].file;
            }
            const source_file *flags = &snap->files[keyed[g].file];
            while (head < tail) {
                size_t i = queue[head++];
                if (snap->files[i].is_header &&
                    add_found_with(snap, cfg, macros, i, flags, (int)g, includes, found_by,
                                   nincludes, included))
                    more = true;
                for (size_t k = 0; k < nincludes[i]; k++) {
                    size_t h = (size_t)includes[i][k];
                    if (scanned[h] != g + 1 && unit_follows(found_by[i][k], (int)g)) {
                        scanned[h] = g + 1;
                        queue[tail++] = h;
                    }
                }
            }
            g = end;
        }
    }
    for (size_t k = 0; k < nkeyed; k++)
        free(keyed[k].key);
    free(keyed);
    free(scanned);
}

void header_langs_resolve(snapshot *snap, const gl_config *cfg)
{
    size_t n = snap->nfiles;
    /* Who includes whom, for every file (one include per line at most). */
    long **includes = xcalloc(n, sizeof *includes);
    int **found_by = xcalloc(n, sizeof *found_by);   /* per include: unit_follows */
    size_t *nincludes = xcalloc(n, sizeof *nincludes);
    int *group_of = xcalloc(n, sizeof *group_of);
    bool *included = xcalloc(n, sizeof *included);
    macro_names *macros = macro_names_build(snap, cfg);
    for (size_t i = 0; i < n; i++) {
        group_of[i] = -1;
        for_each_include(snap, cfg, macros, i, &snap->files[i], &includes[i], &nincludes[i]);
        found_by[i] = xcalloc(nincludes[i] ? nincludes[i] : 1, sizeof **found_by);
        for (size_t k = 0; k < nincludes[i]; k++) {
            /* A source file's own flags: its unit's, which is all that
             * reaches them (its context's, when it is included). */
            found_by[i][k] = -1;
            if ((size_t)includes[i][k] != i)
                included[includes[i][k]] = true;
        }
    }
    size_t *queue = xcalloc(n, sizeof *queue);
    add_includes_found_with_unit_flags(snap, cfg, macros, includes, found_by, nincludes, group_of,
                                       included, queue);
    macro_names_free(macros);
    /* A C header nothing includes (analysed on its own) whose syntax is
     * CUDA or C++, not C, or that reaches a header of either (an umbrella
     * .h of .cuh files, whose <cuda/atomic> C cannot find), is parsed as
     * CUDA (which has C++). */
    for (size_t i = 0; i < n; i++) {
        source_file *f = &snap->files[i];
        if (f->lang == LANG_C && f->is_header && !included[i] &&
            reaches_cuda_or_cpp(snap, includes, nincludes, i, queue))
            f->lang = LANG_CUDA;
    }
    /* C++ spreads from the C++ files to the C headers they include, then
     * CUDA from the CUDA files to every header they include: a header a .cu
     * and a .cpp share is parsed as the .cu sees it. An included source
     * file keeps its own: it is parsed on its own first
     * (extract/extract.c), as its build may compile it too. */
    for (int pass = 0; pass < 2; pass++) {
        source_lang lang = pass == 0 ? LANG_CXX : LANG_CUDA;
        size_t head = 0, tail = 0;
        for (size_t i = 0; i < n; i++)
            if (snap->files[i].lang == lang)
                queue[tail++] = i;
        while (head < tail) {
            size_t i = queue[head++];
            for (size_t k = 0; k < nincludes[i]; k++) {
                source_file *h = &snap->files[includes[i][k]];
                bool takes = lang == LANG_CUDA ? h->lang != LANG_CUDA : h->lang == LANG_C;
                if (h->is_header && takes) {
                    h->lang = lang;
                    queue[tail++] = (size_t)includes[i][k];
                }
            }
        }
    }
    assign_contexts(snap, includes, found_by, nincludes, group_of, included, queue);
    for (size_t i = 0; i < n; i++) {
        free(includes[i]);
        free(found_by[i]);
    }
    free(includes);
    free(found_by);
    free(group_of);
    free(nincludes);
    free(included);
    free(queue);
}
