#define _GNU_SOURCE   /* memmem */
#include "input/source.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "input/launch_brackets.h"
#include "input/mask.h"
#include "util/xalloc.h"

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    return dot ? dot : "";
}

/* DESIGN.md's file kinds. */
static const struct {
    const char *ext;
    source_lang lang;
    bool header;
} builtin_kinds[] = {
    { ".c", LANG_C, false },      { ".h", LANG_C, true },
    { ".cu", LANG_CUDA, false },  { ".cuh", LANG_CUDA, true },
    { ".cpp", LANG_CXX, false },  { ".cc", LANG_CXX, false },  { ".cxx", LANG_CXX, false },
    { ".hpp", LANG_CXX, true },   { ".hh", LANG_CXX, true },   { ".hxx", LANG_CXX, true },
    { ".inl", LANG_CXX, true },   { ".ipp", LANG_CXX, true },  { ".inc", LANG_CXX, true },
};

/* The config's kinds (config_language_kinds). */
static void kind_of(const char *kind, source_lang *lang, bool *is_header)
{
    size_t n = strcspn(kind, "-");
    *is_header = kind[n] == '-';
    *lang = strncmp(kind, "c++", n) == 0 && n == 3  ? LANG_CXX
            : strncmp(kind, "cuda", n) == 0 && n == 4 ? LANG_CUDA
                                                      : LANG_C;
}

bool source_classify(const char *path, const gl_config *cfg, source_lang *lang,
                     bool *is_header)
{
    const char *ext = extension(path);
    for (size_t i = 0; cfg && i < cfg->languages.n; i++)
        if (strcmp(cfg->languages.items[i].extension, ext) == 0) {
            kind_of(cfg->languages.items[i].kind, lang, is_header);
            return true;
        }
    for (size_t i = 0; i < sizeof builtin_kinds / sizeof builtin_kinds[0]; i++)
        if (strcmp(builtin_kinds[i].ext, ext) == 0) {
            *lang = builtin_kinds[i].lang;
            *is_header = builtin_kinds[i].header;
            return true;
        }
    return false;
}

bool source_is_analysable(const char *path, const gl_config *cfg)
{
    source_lang lang;
    bool header;
    return source_classify(path, cfg, &lang, &header);
}

bool source_is_includable(const char *path)
{
    static const char *const exts[] = {".inc", ".def", ".inl", ".ipp", ".hpp", ".hh",
                                       ".hxx", ".tcc", ".tpp"};
    const char *ext = extension(path);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (strcmp(ext, exts[i]) == 0)
            return true;
    return false;
}

void source_file_init(source_file *f, char *path, char *abs_path, char *text, size_t len,
                      const gl_config *cfg)
{
    memset(f, 0, sizeof *f);
    /* A lone CR ends a line for the compiler (old Mac line endings); as
     * '\n' in place, every offset stays and every line is a line here too:
     * the masking of a // comment ends where clang's does. CRLF is kept. */
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n'))
            text[i] = '\n';
    f->path = path;
    f->abs_path = abs_path;
    f->text = text;
    f->len = len;
    f->masked = xmalloc(len + 1);
    mask_text(text, len, MASK_COMMENTS | MASK_STRINGS, f->masked);
    f->parse_text = launch_syntax_for_clang(text, f->masked, len);
    sha256_hex(text, len, f->hash);
    f->context = -1;
    f->other_contexts = NULL;
    f->nother_contexts = 0;
    f->fallbacks = NULL;
    f->nfallbacks = 0;
    f->unit_only = false;
    if (!source_classify(path, cfg, &f->lang, &f->is_header)) {
        f->lang = LANG_C;
        f->is_header = false;
    }
    f->nlines = 1;
    for (size_t i = 0; i < len; i++)
        f->nlines += text[i] == '\n';
    f->line_starts = xmalloc(f->nlines * sizeof *f->line_starts);
    f->line_starts[0] = 0;
    for (size_t i = 0, l = 1; i < len; i++)
        if (text[i] == '\n')
            f->line_starts[l++] = i + 1;
}

void snapshot_add(snapshot *snap, source_file *f)
{
    *XPUSH(snap->files, snap->nfiles) = *f;
    memset(f, 0, sizeof *f);
}

void snapshot_add_context(snapshot *snap, source_file *f)
{
    *XPUSH(snap->context, snap->ncontext) = *f;
    memset(f, 0, sizeof *f);
}

void source_add_target(source_file *f, const char *t)
{
    size_t at = 0;
    while (at < f->ntargets && strcmp(f->targets[at], t) < 0)
        at++;
    if (at < f->ntargets && strcmp(f->targets[at], t) == 0)
        return;
    *XPUSH(f->targets, f->ntargets) = NULL;
    memmove(f->targets + at + 1, f->targets + at, (f->ntargets - 1 - at) * sizeof *f->targets);
    f->targets[at] = xstrdup(t);
}

static void source_file_free(source_file *f)
{
    free(f->path);
    free(f->abs_path);
    free(f->text);
    free(f->masked);
    free(f->parse_text);
    free(f->line_starts);
    free(f->not_checked);
    free(f->other_contexts);
    free(f->fallbacks);
    free(f->unlisted_in);
    free(f->flags_from);
    for (size_t i = 0; i < f->ntargets; i++)
        free(f->targets[i]);
    free(f->targets);
    for (size_t i = 0; i < f->nargs; i++)
        free(f->args[i]);
    free(f->args);
}

static int compare_paths(const void *a, const void *b)
{
    const source_file *fa = a, *fb = b;
    return strcmp(fa->path, fb->path);
}

size_t snapshot_analysed(const snapshot *snap)
{
    size_t n = 0;
    for (size_t i = 0; i < snap->nfiles; i++)
        n += !snap->files[i].unit_only;
    return n;
}

/* A path given twice names the same file with the same content: keep one. */
void snapshot_sort(snapshot *snap)
{
    if (snap->nfiles == 0)
        return;
    if (snap->nfiles)   /* qsort's array may not be NULL, even empty (UBSan) */
        qsort(snap->files, snap->nfiles, sizeof *snap->files, compare_paths);
    size_t out = 1;
    for (size_t i = 1; i < snap->nfiles; i++) {
        if (strcmp(snap->files[out - 1].path, snap->files[i].path) == 0)
            source_file_free(&snap->files[i]);
        else
            snap->files[out++] = snap->files[i];
    }
    snap->nfiles = out;
}

void snapshot_free(snapshot *snap)
{
    for (size_t i = 0; i < snap->nfiles; i++)
        source_file_free(&snap->files[i]);
    free(snap->files);
    snap->files = NULL;
    snap->nfiles = 0;
    for (size_t i = 0; i < snap->ncontext; i++)
        source_file_free(&snap->context[i]);
    free(snap->context);
    snap->context = NULL;
    snap->ncontext = 0;
}

long snapshot_find(const snapshot *snap, const char *path)
{
    size_t lo = 0, hi = snap->nfiles;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(snap->files[mid].path, path);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

long source_find_word(const source_file *f, const char *word)
{
    const char *m = f->masked, *end = f->masked + f->len;
    size_t wl = strlen(word);
    for (const char *p = m; (p = memmem(p, (size_t)(end - p), word, wl)); p += wl) {
        bool starts = p == m || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool ends = p + wl == end || !(isalnum((unsigned char)p[wl]) || p[wl] == '_');
        if (starts && ends)
            return p - m;
    }
    return -1;
}

void source_line_col(const source_file *f, size_t off, unsigned *line, unsigned *col)
{
    if (off > f->len)
        off = f->len;
    /* The last line start <= off. */
    size_t lo = 0, hi = f->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->line_starts[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    *line = (unsigned)lo + 1;
    *col = (unsigned)(off - f->line_starts[lo]) + 1;
}

bool source_line_text(const source_file *f, unsigned line, const char **start, size_t *len)
{
    if (line == 0 || line > f->nlines)
        return false;
    size_t from = f->line_starts[line - 1];
    size_t to = line < f->nlines ? f->line_starts[line] - 1 : f->len;
    *start = f->text + from;
    *len = to - from;
    if (*len && (*start)[*len - 1] == '\r')
        (*len)--;
    return true;
}
