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

#include "config/config.h"

/* C++ is C++ with the CUDA runtime headers (a .cpp the host compiler builds
 * next to .cu files), not CUDA: no __CUDACC__, no <<<>>>. */
typedef enum { LANG_C, LANG_CUDA, LANG_CXX, LANG_COUNT } source_lang;

typedef struct {
    char *path;        /* as reported: relative to the repo root, or as given */
    char *abs_path;    /* absolute path libclang is told (may not exist on disk) */
    char *text;        /* whole content, NUL-terminated; may contain NULs for binary */
    size_t len;
    char *masked;      /* same length: comments and string/char literals blanked
                          (newlines kept) so offsets and line numbers match text */
    char *parse_text;  /* same length: the text libclang is handed, when it differs
                          from text (input/launch_brackets.h: `k << <g, b >> >`
                          launches closed up); NULL: text itself */
    source_lang lang;  /* by extension (source_classify), or the compile
                          database's -x for the file (compile_db_give); a
                          header takes the language of the files that
                          include it (input/header_lang.c) */
    bool is_header;    /* a header kind: .h .cuh .hpp .hh .hxx .inl .ipp .inc */
    long context;      /* a header, or a source file that another snapshot
                          file includes: the snapshot's source file (neither)
                          that includes it, directly or through other files,
                          whose translation unit it is analysed in (its flags,
                          macros and types); -1: parsed on its own */
    long *other_contexts;  /* a header: one includer (snapshot source file) of
                              each other program that includes it (programs
                              as the database's targets tell them apart, else
                              path_same_program: input/header_lang.c); it
                              is analysed in each of their units too, and
                              its facts are those of all its units */
    size_t nother_contexts;
    long *fallbacks;   /* a header: its other includers (snapshot source files
                          that reach it) of the programs of `context` and
                          `other_contexts`, in the order contexts are chosen:
                          the unit it is analysed in when that program's
                          unit stopped before it had read the header in full
                          (an #include not found), the first that reads it
                          cleanly (extract/extract.c) */
    size_t nfallbacks;
    bool unit_only;    /* a source file of the compilation database outside the
                          paths analysed (nccl's generated device sources, in
                          its build directory): not analysed nor reported, only
                          the unit of the snapshot's headers it includes that
                          no analysed file includes (input/db_units.h) */
    char hash[65];     /* hex SHA-256 of text: key for cached facts */
    char **args;       /* extra compiler arguments for this file (-I, -D, -std, ...)
                          from a compilation database (-p); the config's
                          include-dirs and defines apply to every file and are
                          added by extraction itself */
    size_t nargs;
    char **targets;       /* the build targets that compile it, sorted, each once (the
                             object directory input/compile_target.h reads from its
                             database entries); a part of other files' units (a
                             header): the targets of every source file that reaches
                             it (input/header_lang.c); none: no database, or one
                             whose entries name no target (docs/rules.md, "Programs") */
    size_t ntargets;
    char *unlisted_in;    /* a source file (not a header): the compilation database
                             (-p, or the one compile_db_discover found) that does not
                             list it, so it was parsed without its own flags (a file
                             this build configuration does not compile, or a stale
                             database): with a listed file's (flags_from) or the
                             config's alone; NULL when listed or none was used */
    char *flags_from;     /* an unlisted source file (unlisted_in): the listed file,
                             of its directory or the nearest one above it, whose
                             database flags it was given as its args
                             (input/compile_db.h), as the report
                             shows paths; NULL: no listed file there */
    size_t *line_starts;  /* offset of each line's first byte: line l (1-based)
                             starts at line_starts[l - 1] */
    size_t nlines;
    char *not_checked;    /* why its content cannot be analysed (over limits.file-bytes,
                             not a regular file, unreadable: text is then empty), or
                             NULL; extraction reports it as not checked */
} source_file;

typedef struct {
    source_file *files;   /* sorted by path: output order is deterministic */
    size_t nfiles;
    const char *root;     /* repository root (absolute); NULL outside git, where
                             paths are as given, from the current directory */
    /* Not analysed, only there to be #included (--staged: files of the index
     * that the config excludes, and .inc/.def/... fragments), so that every
     * file a translation unit includes from the repository is the staged one. */
    source_file *context;
    size_t ncontext;
} snapshot;

/* How many of the snapshot's files are analysed: all but the unit_only. */
size_t snapshot_analysed(const snapshot *snap);

/* Index of the file with this path in the snapshot, or -1. */
long snapshot_find(const snapshot *snap, const char *path);

/* 1-based line and column of byte offset `off` in `f`. */
void source_line_col(const source_file *f, size_t off, unsigned *line, unsigned *col);

/* The offset of the first whole-word `word` in f's code (comments and
 * literals left out), or -1. */
long source_find_word(const source_file *f, const char *word);

/* The line-th line (1-based) of f: its start and length without the line
 * ending. false when the file has fewer lines. */
bool source_line_text(const source_file *f, unsigned line, const char **start, size_t *len);

/* --- Building a snapshot (driver side: input/inputs.c, input/source.c, input/header_lang.c) --- */

/* The language and header-ness of a path by its extension: the config's
 * `languages:` mapping (cfg may be NULL) first, then the built-in one:
 * .c C; .cu CUDA; .cpp .cc .cxx C++; headers .h (C), .cuh (CUDA), .hpp .hh
 * .hxx .inl .ipp .inc (C++). false for a path of no source kind. */
bool source_classify(const char *path, const gl_config *cfg, source_lang *lang,
                     bool *is_header);

/* Whether gpulint analyses a path (source_classify knows its kind). */
bool source_is_analysable(const char *path, const gl_config *cfg);

/* Fill f from its content (takes ownership of path, abs_path and text, which
 * must have a NUL at text[len]): masked text, hash, is_header and the language
 * from the extension (source_classify; headers may change language later in
 * input/header_lang.c). */
void source_file_init(source_file *f, char *path, char *abs_path, char *text, size_t len,
                      const gl_config *cfg);

/* Add target t (copied) to f's targets unless it is there. */
void source_add_target(source_file *f, const char *t);

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
