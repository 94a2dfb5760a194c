/* One input file of a snapshot, as the analyzer sees it.
 *
 * The driver (input/inputs.c) fills these from the working tree, the index
 * (--staged) or the paths given; extraction and rules only read them. Nothing
 * here refers to the working tree once loaded: staged content lives in `text`.
 */
#ifndef GPULINT_SOURCE_H
#define GPULINT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { LANG_C, LANG_CUDA } source_lang;

typedef struct {
    char *path;        /* as reported: relative to the repo root, or as given */
    char *abs_path;    /* absolute path libclang is told (may not exist on disk) */
    char *text;        /* whole content, NUL-terminated; may contain NULs for binary */
    size_t len;
    char *masked;      /* same length: comments and string/char literals blanked
                          (newlines kept) so offsets and line numbers match text */
    source_lang lang;  /* .c: C; .cu/.cuh: CUDA; .h: CUDA when a .cu/.cuh of the
                          snapshot includes it (directly or transitively), else C */
    bool is_header;    /* .h/.cuh/.hpp */
    char hash[65];     /* hex SHA-256 of text: key for cached facts */
    char **args;       /* extra compiler arguments for this file (-I, -D, -std, ...)
                          from a compilation database (-p); the config's
                          include-dirs and defines apply to every file and are
                          added by extraction itself */
    size_t nargs;
    size_t *line_starts;  /* offset of each line's first byte: line l (1-based)
                             starts at line_starts[l - 1] */
    size_t nlines;
} source_file;

typedef struct {
    source_file *files;   /* sorted by path: output order is deterministic */
    size_t nfiles;
    const char *root;     /* repository root (absolute), or the cwd outside git */
    /* Not analysed, only there to be #included (--staged: files of the index
     * that the config excludes, and .inc/.def/... fragments), so that every
     * file a translation unit includes from the repository is the staged one. */
    source_file *context;
    size_t ncontext;
} snapshot;

/* Index of the file with this path in the snapshot, or -1. */
long snapshot_find(const snapshot *snap, const char *path);

/* 1-based line and column of byte offset `off` in `f`. */
void source_line_col(const source_file *f, size_t off, unsigned *line, unsigned *col);

/* The line-th line (1-based) of f: its start and length without the line
 * ending. false when the file has fewer lines. */
bool source_line_text(const source_file *f, unsigned line, const char **start, size_t *len);

/* --- Building a snapshot (driver side: input/inputs.c, input/source.c, input/header_lang.c) --- */

/* Whether a path's extension is one gpulint analyses: .c .h (C, or CUDA for
 * headers a CUDA file includes), .cu .cuh (CUDA). */
bool source_is_analysable(const char *path);

/* Fill f from its content (takes ownership of path, abs_path and text, which
 * must have a NUL at text[len]): masked text, hash, is_header and the language
 * from the extension (headers start as C; input/header_lang.c decides later). */
void source_file_init(source_file *f, char *path, char *abs_path, char *text, size_t len);

/* Append a file (moved: *f's pointers now belong to the snapshot). */
void snapshot_add(snapshot *snap, source_file *f);

/* The same for a file that is only there to be included. */
void snapshot_add_context(snapshot *snap, source_file *f);

/* Whether a file that is not analysed may still be #included: C and C++
 * fragments and headers by their extension (.inc, .def, .inl, .hpp, ...). */
bool source_is_includable(const char *path);

/* Sort by path and keep one entry per path (a file given twice). */
void snapshot_sort(snapshot *snap);

void snapshot_free(snapshot *snap);

#endif
