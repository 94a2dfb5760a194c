#define _DEFAULT_SOURCE
#include "input/compile_db.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/cmake_links.h"
#include "input/compile_target.h"
#include "input/meson_links.h"
#include "util/paths.h"
#include "util/files.h"
#include "util/xalloc.h"

typedef struct {
    char *file;      /* absolute, normalised */
    size_t order;    /* position in the file: the first entry of a file wins */
    str_list args;
    source_lang lang;   /* its -x, else LANG_COUNT: its extension's */
    char *target;       /* compile_target: the build target it compiles for, or NULL */
} db_entry;

struct compile_db {
    db_entry *entries;   /* sorted by file, then order */
    size_t n;
    char *path;          /* as given or found: what a file it does not list is told */
    build_links links;   /* CMake's reply or Meson's build beside it: the programs each target is linked into */
};

int shell_split(const char *s, str_list *words)
{
    byte_buf word = {0};
    bool in_word = false;
    for (;; s++) {
        char c = *s;
        if (c == '\0' || c == ' ' || c == '\t' || c == '\n') {
            if (in_word) {
                str_list_push(words, word.data ? word.data : "");
                buf_free(&word);
                in_word = false;
            }
            if (c == '\0')
                return 0;
            continue;
        }
        in_word = true;
        if (c == '\\' && s[1]) {
            buf_append(&word, ++s, 1);
        } else if (c == '\'') {
            const char *end = strchr(s + 1, '\'');
            if (!end)
                goto unterminated;
            buf_append(&word, s + 1, (size_t)(end - s - 1));
            s = end;
        } else if (c == '"') {
            for (s++; *s && *s != '"'; s++) {
                if (*s == '\\' && (s[1] == '"' || s[1] == '\\' || s[1] == '$' || s[1] == '`'))
                    s++;
                buf_append(&word, s, 1);
            }
            if (!*s)
                goto unterminated;
        } else {
            buf_append(&word, s, 1);
        }
    }
unterminated:
    buf_free(&word);
    return -1;
}

/* Flags kept, with their value; `is_path`: resolved against the directory. */
typedef struct {
    const char *name;      /* as clang spells it */
    const char *alias;     /* nvcc's long spelling, or NULL */
    bool is_path;
} kept_flag;

static const kept_flag KEPT[] = {
    {"-I", "--include-path", true},
    {"-isystem", "--system-include", true},
    {"-iquote", NULL, true},
    {"-idirafter", NULL, true},
    {"-include", "--pre-include", true},
    {"-imacros", NULL, true},
    {"-D", "--define-macro", false},
    {"-U", "--undefine-macro", false},
};

/* Flags whose value is a separate word that must be skipped with them. */
static const char *const DROPPED_WITH_VALUE[] = {
    "-o", "--output-file", "-gencode", "--generate-code", "-arch",
    "--gpu-architecture", "-code", "--gpu-code", "-rdc", "--relocatable-device-code",
    "-ccbin", "--compiler-bindir", "-MF", "-MT", "-MQ", "-Xlinker", "--linker-options",
    "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xarchive",
    "--archive-options", "-Xcudafe", "-maxrregcount", "--maxrregcount", "-L", "-l",
    "--library-path", "--library", "-t", "--threads", "-odir", "--output-directory",
    "-target", "--target", "-arch-as", "-Xclang", "-Xassembler", "-Xpreprocessor",
};

static bool drops_value(const char *arg)
{
    for (size_t i = 0; i < sizeof DROPPED_WITH_VALUE / sizeof *DROPPED_WITH_VALUE; i++)
        if (strcmp(arg, DROPPED_WITH_VALUE[i]) == 0)
            return true;
    return false;
}

/* Whether argv[*i] (a, then `next`) turns nvcc's relocatable device code
 * on: -dc, --device-c, -rdc true, -rdc=true, --relocatable-device-code
 * true or =true; clang's own -fgpu-rdc. A separate value is consumed. */
static bool relocatable_device_code(const char *a, const char *next, size_t *i)
{
    if (strcmp(a, "-dc") == 0 || strcmp(a, "--device-c") == 0 || strcmp(a, "-fgpu-rdc") == 0)
        return true;
    if (strcmp(a, "-rdc=true") == 0 || strcmp(a, "--relocatable-device-code=true") == 0)
        return true;
    if ((strcmp(a, "-rdc") == 0 || strcmp(a, "--relocatable-device-code") == 0) && next &&
        strcmp(next, "true") == 0) {
        (*i)++;
        return true;
    }
    return false;
}

static void push_flag(str_list *out, const kept_flag *f, const char *value, const char *directory)
{
    char *v = f->is_path ? path_join(directory, value) : xstrdup(value);
    /* -I and -D join their value; the others take it as the next word. */
    if (strcmp(f->name, "-I") == 0 || strcmp(f->name, "-D") == 0 || strcmp(f->name, "-U") == 0) {
        char *joined = xasprintf("%s%s", f->name, v);
        str_list_push(out, joined);
        free(joined);
    } else {
        str_list_push(out, f->name);
        str_list_push(out, v);
    }
    free(v);
}

/* Response files nest at most this deep (one that includes itself ends). */
#define MAX_RESPONSE_DEPTH 8
/* A response file holds flags; more than this is not one (and a bound keeps
 * a response file named /dev/zero from eating memory). */
#define MAX_RESPONSE_BYTES ((off_t)1 << 20)
/* Response files read for one command at most: a file naming itself ten
 * times (-optf r,r,r,...) would otherwise be read 10^8 times. */
#define MAX_RESPONSE_FILES 256

/* One command's translation: the response files read so far, and the first
 * problem with one (NULL while there is none). */
typedef struct {
    unsigned files_read;
    char *problem;
    source_lang lang;    /* the last -x, LANG_COUNT while there is none */
} translation;

/* A -x value as gcc, clang and nvcc spell the languages gpulint parses;
 * any other (assembler, none) leaves the file to its extension. */
static source_lang language_named(const char *name)
{
    static const struct {
        const char *name;
        source_lang lang;
    } names[] = {
        {"cu", LANG_CUDA},   {"cuda", LANG_CUDA},   {"c++", LANG_CXX},
        {"c++-header", LANG_CXX}, {"c", LANG_C}, {"c-header", LANG_C},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i].name) == 0)
            return names[i].lang;
    return LANG_COUNT;
}

/* The language value of argv[*i] when it is -x (-x LANG, -xLANG, nvcc's
 * --x LANG and --x=LANG), consuming a separate value; NULL otherwise. */
static const char *language_flag(const char *a, const char *next, size_t *i)
{
    if ((strcmp(a, "-x") == 0 || strcmp(a, "--x") == 0) && next) {
        (*i)++;
        return next;
    }
    if (strncmp(a, "--x=", 4) == 0)
        return a + 4;
    if (strncmp(a, "-x", 2) == 0 && a[2] && a[2] != '=')
        return a + 2;
    return NULL;
}

static void translate_one(char *const *argv, size_t argc, size_t *i, const char *directory,
                          str_list *out, int depth, translation *tr);

/* A response file's words, translated in place of its name: `@file` (gcc,
 * clang) or nvcc's --options-file / -optf (CMake's default generator puts
 * the -I and -D of a CUDA target in one). A missing one contributes
 * nothing: the build that wrote the database had it. Only a regular file
 * under MAX_RESPONSE_BYTES is read: a FIFO would block the open and the read
 * forever, /dev/zero would fill memory; either sets tr->problem (the first
 * one found) naming the file, and so does going past MAX_RESPONSE_FILES. */
static void translate_response_file(const char *name, const char *directory, str_list *out,
                                    int depth, translation *tr)
{
    if (depth >= MAX_RESPONSE_DEPTH || tr->problem)
        return;
    if (++tr->files_read > MAX_RESPONSE_FILES) {
        tr->problem = xasprintf("more than %d response files in one command (at %s: do they "
                                "name each other?)", MAX_RESPONSE_FILES, name);
        return;
    }
    char *path = path_join(directory, name);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        free(path);
        return;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > MAX_RESPONSE_BYTES) {
        tr->problem = S_ISREG(st.st_mode)
                          ? xasprintf("response file %s is %lld bytes, more than the %lld "
                                      "gpulint reads", path, (long long)st.st_size,
                                      (long long)MAX_RESPONSE_BYTES)
                          : xasprintf("response file %s is not a regular file", path);
        close(fd);
        free(path);
        return;
    }
    free(path);
    byte_buf text = { 0 };
    char chunk[4096];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) != 0) {
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0 || text.len + (size_t)n > (size_t)MAX_RESPONSE_BYTES)
            break;   /* a file that grew while read: what was read, bounded */
        buf_append(&text, chunk, (size_t)n);
    }
    close(fd);
    buf_append(&text, "", 1);
    str_list words = { 0 };
    if (shell_split(text.data, &words) == 0)
        for (size_t j = 0; j < words.n; j++)
            translate_one(words.items, words.n, &j, directory, out, depth + 1, tr);
    str_array_free(words.items, words.n);
    buf_free(&text);
}

/* Translate argv[*i] (consuming its value word when it has one). */
static void translate_one(char *const *argv, size_t argc, size_t *i, const char *directory,
                          str_list *out, int depth, translation *tr)
{
    const char *a = argv[*i];
    const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (a[0] == '@' && a[1]) {
        translate_response_file(a + 1, directory, out, depth, tr);
        return;
    }
    if ((strcmp(a, "--options-file") == 0 || strcmp(a, "-optf") == 0) && next) {
        /* nvcc: a comma-separated list of files. */
        char *files = xstrdup(next);
        char *save = NULL;
        for (char *f = strtok_r(files, ",", &save); f; f = strtok_r(NULL, ",", &save))
            translate_response_file(f, directory, out, depth, tr);
        free(files);
        (*i)++;
        return;
    }
    if (strncmp(a, "--options-file=", 15) == 0) {
        translate_response_file(a + 15, directory, out, depth, tr);
        return;
    }
    for (size_t k = 0; k < sizeof KEPT / sizeof *KEPT; k++) {
        const kept_flag *f = &KEPT[k];
        const char *spellings[] = {f->name, f->alias};
        for (size_t s = 0; s < 2 && spellings[s]; s++) {
            size_t len = strlen(spellings[s]);
            if (strcmp(a, spellings[s]) == 0) {
                if (next) {
                    push_flag(out, f, next, directory);
                    (*i)++;
                }
                return;
            }
            if (strncmp(a, spellings[s], len) == 0) {
                /* Joined: -Idir, -DX=1, --include-path=dir; but -include is
                 * not -I "nclude". */
                const char *v = a + len;
                if (*v == '=' && s == 1)
                    v++;
                else if (s == 1 || f->name[2] != '\0')
                    continue;
                push_flag(out, f, v, directory);
                return;
            }
        }
    }
    if (strncmp(a, "-std=", 5) == 0 || strncmp(a, "--std=", 6) == 0) {
        char *std = xasprintf("-std=%s", strchr(a, '=') + 1);
        str_list_push(out, std);
        free(std);
        return;
    }
    if ((strcmp(a, "-std") == 0 || strcmp(a, "--std") == 0) && next) {
        char *std = xasprintf("-std=%s", next);
        str_list_push(out, std);
        free(std);
        (*i)++;
        return;
    }
    /* nvcc passes host compiler flags as comma-separated lists. */
    const char *host = NULL;
    if ((strcmp(a, "-Xcompiler") == 0 || strcmp(a, "--compiler-options") == 0) && next) {
        host = next;
        (*i)++;
    } else if (strncmp(a, "-Xcompiler=", 11) == 0 || strncmp(a, "--compiler-options=", 19) == 0) {
        host = strchr(a, '=') + 1;
    }
    if (host) {
        str_list words = {0};
        char *copy = xstrdup(host);
        char *save = NULL;
        for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
            str_list_push(&words, w);
        free(copy);
        for (size_t j = 0; j < words.n; j++)
            translate_one(words.items, words.n, &j, directory, out, depth, tr);
        str_array_free(words.items, words.n);
        return;
    }
    /* nvcc's relocatable device code (-dc is -rdc=true -c): a file may then
     * declare `extern __shared__` variables and use device code defined in
     * other files; clang rejects both unless told -fgpu-rdc, its spelling
     * (nccl's src/device/common.h: two false parse errors). */
    if (relocatable_device_code(a, next, i)) {
        str_list_push(out, "-fgpu-rdc");
        return;
    }
    /* The language the build compiles the file as (`nvcc -x cu file.cpp`):
     * not a flag for the parse, which gpulint gives by language itself. */
    const char *language = language_flag(a, next, i);
    if (language) {
        tr->lang = language_named(language);
        return;
    }
    if (drops_value(a) && next)
        (*i)++;
    /* Anything else (warnings, optimisation, -c, the source file, -gencode=...,
     * -forward-unknown-to-host-compiler) does not change what is parsed. */
}

int compile_args_translate(char *const *argv, size_t argc, const char *directory, str_list *out,
                           source_lang *lang, char **error)
{
    translation tr = {.lang = LANG_COUNT};
    for (size_t i = 1; i < argc; i++)
        translate_one(argv, argc, &i, directory, out, 0, &tr);
    *lang = tr.lang;
    *error = tr.problem;
    return tr.problem ? -1 : 0;
}

static int compare_files(const void *a, const void *b)
{
    return strcmp(((const db_entry *)a)->file, ((const db_entry *)b)->file);
}

static int compare_entries(const void *pa, const void *pb)
{
    const db_entry *a = pa, *b = pb;
    int c = compare_files(a, b);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* A path as the file system resolves it (symlinks followed), so that a
 * file reached through a symlink matches its entry; normalised text when it
 * does not exist. */
static char *real_or_normalised(const char *dir, const char *file)
{
    char *joined = path_join(dir, file);
    char resolved[PATH_MAX];
    if (realpath(joined, resolved)) {
        free(joined);
        return xstrdup(resolved);
    }
    return joined;
}

compile_db *compile_db_load(const char *path, char **error)
{
    *error = NULL;
    json_t *doc = files_load_json(path, "compilation database", (size_t)1 << 30, error);
    if (!doc)
        return NULL;
    if (!json_is_array(doc)) {
        *error = xasprintf("%s: error: a compilation database is a JSON array of entries", path);
        json_decref(doc);
        return NULL;
    }
    compile_db *db = xcalloc(1, sizeof *db);
    db->path = xstrdup(path);
    db->entries = xcalloc(json_array_size(doc) + 1, sizeof *db->entries);
    size_t i;
    json_t *e;
    json_array_foreach(doc, i, e) {
        const char *dir = json_string_value(json_object_get(e, "directory"));
        const char *file = json_string_value(json_object_get(e, "file"));
        const char *command = json_string_value(json_object_get(e, "command"));
        json_t *arguments = json_object_get(e, "arguments");
        str_list argv = {0};
        bool ok = dir && file;
        if (ok && json_is_array(arguments)) {
            size_t k;
            json_t *a;
            json_array_foreach(arguments, k, a) {
                if (json_is_string(a))
                    str_list_push(&argv, json_string_value(a));
                else
                    ok = false;
            }
        } else if (ok && command) {
            if (shell_split(command, &argv) != 0) {
                *error = xasprintf("%s: error: entry %zu: its \"command\" has an unterminated "
                                   "quote", path, i);
                ok = false;
            }
        } else {
            ok = false;
        }
        if (!ok && !*error)
            *error = xasprintf("%s: error: entry %zu needs \"directory\", \"file\" and \"command\" "
                               "or \"arguments\" (strings)", path, i);
        if (!ok) {
            str_array_free(argv.items, argv.n);
            json_decref(doc);
            compile_db_free(db);
            return NULL;
        }
        db_entry *entry = &db->entries[db->n];
        entry->order = db->n++;
        entry->file = real_or_normalised(dir, file);
        entry->target = compile_target(dir, argv.items, argv.n,
                                       json_string_value(json_object_get(e, "output")));
        char *problem;
        int translated = compile_args_translate(argv.items, argv.n, dir, &entry->args,
                                                &entry->lang, &problem);
        str_array_free(argv.items, argv.n);
        if (translated != 0) {
            *error = xasprintf("%s: error: entry %zu: %s", path, i, problem);
            free(problem);
            json_decref(doc);
            compile_db_free(db);
            return NULL;
        }
    }
    json_decref(doc);
    qsort(db->entries, db->n, sizeof *db->entries, compare_entries);
    /* CMake writes compile_commands.json in its top build directory, where
     * its file API reply is too (input/cmake_links.h); Meson in its build
     * directory, with its introspection and build.ninja
     * (input/meson_links.h). */
    const char *slash = strrchr(path, '/');
    char *build_dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
    const char *dir = build_dir[0] ? build_dir : "/";
    int read = cmake_links_load(dir, &db->links, error);
    if (read == 1)
        read = meson_links_load(dir, &db->links, error);
    free(build_dir);
    if (read < 0) {
        compile_db_free(db);
        return NULL;
    }
    return db;
}

void compile_db_free(compile_db *db)
{
    if (!db)
        return;
    for (size_t i = 0; i < db->n; i++) {
        free(db->entries[i].file);
        free(db->entries[i].target);
        str_array_free(db->entries[i].args.items, db->entries[i].args.n);
    }
    free(db->entries);
    free(db->path);
    build_links_free(&db->links);
    free(db);
}

static const db_entry *entry_of(const compile_db *db, const char *abs_path)
{
    char *norm = real_or_normalised("/", abs_path);
    db_entry key = {.file = norm};
    const db_entry *hit = bsearch(&key, db->entries, db->n, sizeof *db->entries, compare_files);
    free(norm);
    if (!hit)
        return NULL;
    while (hit > db->entries && compare_files(hit - 1, hit) == 0)
        hit--;
    return hit;
}

const str_list *compile_db_lookup(const compile_db *db, const char *abs_path)
{
    const db_entry *e = entry_of(db, abs_path);
    return e ? &e->args : NULL;
}

static void copy_args(source_file *f, const db_entry *e, bool keep_std)
{
    f->args = xcalloc(e->args.n + 1, sizeof *f->args);
    f->nargs = 0;
    for (size_t k = 0; k < e->args.n; k++)
        if (keep_std || strncmp(e->args.items[k], "-std=", 5) != 0)
            f->args[f->nargs++] = xstrdup(e->args.items[k]);
}

/* The length of path's directory, its last '/' included. */
static size_t dir_length(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* C and C++ take different -std values; C++ and CUDA the same ones. */
static bool same_std_family(source_lang a, source_lang b)
{
    return a != LANG_COUNT && b != LANG_COUNT && (a == LANG_C) == (b == LANG_C);
}

static source_lang entry_lang(const db_entry *e)
{
    source_lang lang = e->lang;
    bool is_header;
    if (lang == LANG_COUNT && !source_classify(e->file, NULL, &lang, &is_header))
        lang = LANG_COUNT;
    return lang;
}

/* The entry whose flags a source file the database does not list is
 * parsed with: a listed file of its own directory, else of the nearest
 * directory above it, as a build's per-directory flags reach the
 * directories below (CMake's include_directories); among those of one
 * directory, one whose language takes the same -std, then the first in the
 * database. Never a file of a sibling directory: nccl's docs/examples,
 * given the flags of its library in src/, found the library's own
 * "utils.h" in place of the examples' and 146 parse errors followed
 * (docs/realcode.md). It gives the -I and -D of a build that lists only
 * some of its sources (CMake's FindCUDA compiles .cu files by custom
 * commands, which its database leaves out). NULL when no listed file's
 * directory is the file's or above it under the repository's root
 * (outside git, the working directory): a database of another tree says
 * nothing of this one. */
static const db_entry *nearest_entry(const compile_db *db, const char *file, source_lang lang,
                                     const char *root)
{
    const db_entry *best = NULL;
    size_t best_dir = 0;
    bool best_family = false;
    for (size_t i = 0; i < db->n; i++) {
        const db_entry *e = &db->entries[i];
        if (i > 0 && compare_files(e - 1, e) == 0)
            continue;   /* the first entry of a file counts */
        size_t dir = dir_length(e->file);
        if (strncmp(e->file, file, dir) != 0 || (strcmp(root, "/") != 0 && !path_below(root, e->file)))
            continue;   /* in a directory that is not above the file, or outside the root */
        bool family = same_std_family(entry_lang(e), lang);
        int by = !best ? 1
                 : dir != best_dir ? (dir > best_dir ? 1 : -1)
                 : family != best_family ? (family ? 1 : -1)
                 : (e->order < best->order ? 1 : -1);
        if (by > 0) {
            best = e;
            best_dir = dir;
            best_family = family;
        }
    }
    return best;
}

bool compile_db_give(const compile_db *db, source_file *f, const char *root)
{
    const db_entry *e = entry_of(db, f->abs_path);
    if (!e && !f->is_header && !f->unlisted_in) {
        f->unlisted_in = xstrdup(db->path);
        char *file = real_or_normalised("/", f->abs_path);
        char cwd[PATH_MAX];
        if (!root)   /* outside git: paths are shown from the working directory */
            root = getcwd(cwd, sizeof cwd) ? cwd : "/";
        char *real_root = real_or_normalised("/", root);
        const db_entry *near = nearest_entry(db, file, f->lang, real_root);
        if (near) {
            copy_args(f, near, same_std_family(entry_lang(near), f->lang));
            const char *below = path_below(real_root, near->file);   /* as paths are shown */
            f->flags_from = xstrdup(below ? below : near->file);
        }
        free(file);
        free(real_root);
    }
    if (!e)
        return false;
    copy_args(f, e, true);
    if (e->lang != LANG_COUNT)
        f->lang = e->lang;
    /* Every entry of the file: one source may be built into several
     * targets. A target that CMake's reply says is linked into programs
     * (a library, an executable itself) is in their targets in its place:
     * a library's files then link with the programs that link it, and with
     * no other (docs/rules.md, "Programs"). */
    for (const db_entry *t = e; t < db->entries + db->n && compare_files(t, e) == 0; t++) {
        size_t n = 0;
        const build_link *in = t->target ? build_links_of(&db->links, t->target, &n) : NULL;
        if (t->target && !in)
            source_add_target(f, t->target);
        for (size_t k = 0; k < n; k++)
            source_add_target(f, in[k].program);
    }
    return true;
}

const char *compile_db_path(const compile_db *db)
{
    return db->path;
}

size_t compile_db_nentries(const compile_db *db)
{
    return db->n;
}

const char *compile_db_entry_file(const compile_db *db, size_t k)
{
    if (k > 0 && compare_files(&db->entries[k - 1], &db->entries[k]) == 0)
        return NULL;
    return db->entries[k].file;
}

size_t compile_db_apply(const compile_db *db, snapshot *snap)
{
    size_t matched = 0;
    for (size_t i = 0; i < snap->nfiles; i++) {
        source_file *f = &snap->files[i];
        if (!f->args && compile_db_give(db, f, snap->root))
            matched++;
    }
    return matched;
}

size_t compile_db_borrowers(const compile_db *db, const snapshot *snap)
{
    size_t n = 0;
    for (size_t i = 0; i < snap->nfiles; i++)
        n += snap->files[i].flags_from && strcmp(snap->files[i].unlisted_in, db->path) == 0;
    return n;
}

/* One note per database, naming its first borrower. Databases are few
 * (one per build directory), so each borrower looks its database up in a
 * short list: linear in the files. */
void compile_db_note_borrowed(const snapshot *snap)
{
    typedef struct {
        const source_file *first;
        size_t n;
    } lender_db;
    lender_db *dbs = NULL;
    size_t ndbs = 0;
    for (size_t i = 0; i < snap->nfiles; i++) {
        const source_file *f = &snap->files[i];
        if (!f->flags_from)
            continue;
        size_t d = 0;
        while (d < ndbs && strcmp(dbs[d].first->unlisted_in, f->unlisted_in) != 0)
            d++;
        if (d == ndbs) {
            dbs = xrealloc(dbs, (ndbs + 1) * sizeof *dbs);
            dbs[ndbs++] = (lender_db){.first = f, .n = 0};
        }
        dbs[d].n++;
    }
    for (size_t d = 0; d < ndbs; d++)
        fprintf(stderr,
                "gpulint: note: the compilation database %s does not list %zu of the analysed "
                "source files; each was parsed with the flags of a listed file of its directory "
                "or the nearest one above it (%s with %s's%s)\n",
                dbs[d].first->unlisted_in, dbs[d].n, dbs[d].first->path, dbs[d].first->flags_from,
                dbs[d].n > 1 ? ", ..." : "");
    free(dbs);
}
