#include "input/source.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "input/mask.h"
#include "util/xalloc.h"

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    return dot ? dot : "";
}

bool source_is_analysable(const char *path)
{
    const char *ext = extension(path);
    return strcmp(ext, ".c") == 0 || strcmp(ext, ".h") == 0 || strcmp(ext, ".cu") == 0 ||
           strcmp(ext, ".cuh") == 0;
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

void source_file_init(source_file *f, char *path, char *abs_path, char *text, size_t len)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    f->abs_path = abs_path;
    f->text = text;
    f->len = len;
    f->masked = xmalloc(len + 1);
    mask_text(text, len, MASK_COMMENTS | MASK_STRINGS, f->masked);
    sha256_hex(text, len, f->hash);
    const char *ext = extension(path);
    f->is_header = strcmp(ext, ".h") == 0 || strcmp(ext, ".cuh") == 0;
    f->nlines = 1;
    for (size_t i = 0; i < len; i++)
        f->nlines += text[i] == '\n';
    f->line_starts = xmalloc(f->nlines * sizeof *f->line_starts);
    f->line_starts[0] = 0;
    for (size_t i = 0, l = 1; i < len; i++)
        if (text[i] == '\n')
            f->line_starts[l++] = i + 1;
    f->lang = (strcmp(ext, ".cu") == 0 || strcmp(ext, ".cuh") == 0) ? LANG_CUDA : LANG_C;
}

void snapshot_add(snapshot *snap, source_file *f)
{
    /* Grow in powers of two: nfiles is the only size kept. */
    size_t n = snap->nfiles;
    if ((n & (n - 1)) == 0)
        snap->files = xrealloc(snap->files, (n ? 2 * n : 1) * sizeof *snap->files);
    snap->files[snap->nfiles++] = *f;
    memset(f, 0, sizeof *f);
}

void snapshot_add_context(snapshot *snap, source_file *f)
{
    size_t n = snap->ncontext;
    if ((n & (n - 1)) == 0)
        snap->context = xrealloc(snap->context, (n ? 2 * n : 1) * sizeof *snap->context);
    snap->context[snap->ncontext++] = *f;
    memset(f, 0, sizeof *f);
}

static void source_file_free(source_file *f)
{
    free(f->path);
    free(f->abs_path);
    free(f->text);
    free(f->masked);
    free(f->line_starts);
    for (size_t i = 0; i < f->nargs; i++)
        free(f->args[i]);
    free(f->args);
}

static int compare_paths(const void *a, const void *b)
{
    const source_file *fa = a, *fb = b;
    return strcmp(fa->path, fb->path);
}

/* A path given twice names the same file with the same content: keep one. */
void snapshot_sort(snapshot *snap)
{
    if (snap->nfiles == 0)
        return;
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
