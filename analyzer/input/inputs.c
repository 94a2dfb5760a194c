#define _GNU_SOURCE
#include "input/inputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/gitcmd.h"
#include "input/walk_skip.h"
#include "util/exit_codes.h"
#include "util/paths.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include "util/glob.h"

char *inputs_repo_root(void)
{
    static const char *const argv[] = {"git", "rev-parse", "--show-toplevel", NULL};
    byte_buf out = {0};
    char *error = NULL;
    int rc = git_capture(argv, true, &out, &error);
    free(error);
    if (rc != 0 || out.len == 0) {
        buf_free(&out);
        return NULL;
    }
    out.data[strcspn(out.data, "\n")] = '\0';
    return out.data;
}

static bool excluded(const gl_config *cfg, const char *path)
{
    for (size_t i = 0; i < cfg->exclude.n; i++)
        if (path_glob_match(cfg->exclude.items[i], path))
            return true;
    return false;
}

/* Add a file whose content is in memory; binary content is not analysed. */
static void add_context(snapshot *snap, char *path, char *abs_path, char *text, size_t len)
{
    source_file f;
    source_file_init(&f, path, abs_path, text, len, NULL);
    snapshot_add_context(snap, &f);
}

/* Only one .gpulint.yaml applies to a run (the root's, or --config): one
 * in a subdirectory would look as if it configured that directory, so it is
 * said to be ignored rather than ignored silently, unless it is excluded or
 * --config named a file of another name. */
static void note_nested_config(const gl_config *cfg, const char *reported, const char *abs_path)
{
    const char *slash = strrchr(reported, '/');
    if (!slash || strcmp(slash + 1, ".gpulint.yaml") != 0)
        return;
    /* --config naming a file of another name: the choice is made, and said. */
    const char *cfg_name = cfg->path ? strrchr(cfg->path, '/') : NULL;
    cfg_name = cfg_name ? cfg_name + 1 : cfg->path;
    if (cfg_name && strcmp(cfg_name, ".gpulint.yaml") != 0)
        return;
    char used[PATH_MAX], this_one[PATH_MAX];
    if (cfg->path && realpath(cfg->path, used) && realpath(abs_path, this_one) &&
        strcmp(used, this_one) == 0)
        return;
    fprintf(stderr, "gpulint: note: '%s' is not read: only one .gpulint.yaml applies to a run "
                    "(the repository root's, or --config FILE); move its settings there, with "
                    "include/exclude globs for its directory\n", reported);
}

/* A file in the snapshot whose content is not analysed, and why: it stays
 * there so that extraction reports it as not checked. */
static void add_not_checked(snapshot *snap, char *path, char *abs_path, char *why)
{
    source_file f;
    source_file_init(&f, path, abs_path, xstrdup(""), 0, NULL);
    f.not_checked = why;
    snapshot_add(snap, &f);
}

static char *too_large(unsigned long long size, const gl_config *cfg)
{
    return xasprintf("it is %llu bytes, more than limits.file-bytes (%lu) in .gpulint.yaml allows",
                     size, cfg->limits.file_bytes);
}

/* Add a file whose content is in memory; binary content is not analysed. */
/* Binary content: more than one NUL byte. A stray NUL in a source gcc
 * still compiles (with a warning) does not make it binary. */
static bool is_binary(const char *text, size_t len)
{
    const char *nul = memchr(text, '\0', len);
    return nul && memchr(nul + 1, '\0', len - (size_t)(nul - text) - 1);
}

static void add_content(snapshot *snap, const gl_config *cfg, char *path, char *abs_path,
                        char *text, size_t len)
{
    if (len > cfg->limits.file_bytes) {
        free(text);
        add_not_checked(snap, path, abs_path, too_large(len, cfg));
        return;
    }
    if (is_binary(text, len)) {
        free(path);
        free(abs_path);
        free(text);
        return;
    }
    source_file f;
    source_file_init(&f, path, abs_path, text, len, cfg);
    snapshot_add(snap, &f);
}

/* A regular file's bytes, NUL-terminated, read straight into one buffer of
 * its size (stdio's buffer and 64 KB chunks appended to a growing one cost
 * a copy and several allocations per file: 10 % of a run over 10,000 small
 * files went to fread, docs/performance.md). Only regular files: a FIFO
 * would block the open or the read, a device such as /dev/zero never ends
 * (EINVAL then). Returns 0 with *text (malloc'd) and *len; 0 with *text
 * NULL and *len past max_bytes when the file is larger; -1 with errno set. */
static int read_regular(const char *abs_path, size_t max_bytes, char **text, size_t *len)
{
    *text = NULL;
    int fd = open(abs_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    *len = (size_t)st.st_size;
    if (*len > max_bytes) {
        close(fd);
        return 0;
    }
    /* One byte more than fstat said: a file that grew since is seen to. */
    size_t cap = *len + 1, n = 0;
    char *data = xmalloc(cap + 1);
    for (;;) {
        ssize_t r = read(fd, data + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int saved = errno;
            free(data);
            close(fd);
            errno = saved;
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n > max_bytes)
            break;
        /* A regular file's read is short only at its end: no second read
         * to be told so (one syscall per file fewer). */
        if (n < cap)
            break;
        data = xrealloc(data, (cap *= 2) + 1);
    }
    close(fd);
    *len = n;
    if (n > max_bytes) {
        free(data);
        return 0;
    }
    data[n] = '\0';
    *text = data;
    return 0;
}

int inputs_read_file(const char *abs_path, char **text, size_t *len)
{
    return read_regular(abs_path, SIZE_MAX - 1, text, len);
}

/* The reported path of an absolute path: relative to the repository root
 * when inside it, else the path as given. */
static char *reported_path(const char *root, const char *abs_path, const char *given)
{
    const char *below = path_below(root, abs_path);
    if (below)
        return xstrdup(below);
    while (given[0] == '.' && given[1] == '/')
        given += 2;
    return xstrdup(given);
}

/* A file of the working tree: over the size bound, it is not read at all. */
static void add_tree_file(snapshot *snap, const gl_config *cfg, char *path, char *abs_path)
{
    char *text;
    size_t len = 0;
    if (read_regular(abs_path, cfg->limits.file_bytes, &text, &len) != 0)
        add_not_checked(snap, path, abs_path,
                        errno == EINVAL ? xstrdup("it is not a regular file")
                                        : xasprintf("it cannot be read: %s", strerror(errno)));
    else if (!text)
        add_not_checked(snap, path, abs_path, too_large((unsigned long long)len, cfg));
    else
        add_content(snap, cfg, path, abs_path, text, len);
}

static int add_disk_file(snapshot *snap, const gl_config *cfg, const char *root,
                         const char *abs_path, const char *given)
{
    add_tree_file(snap, cfg, reported_path(root, abs_path, given), xstrdup(abs_path));
    return 0;
}

/* Recursive walk; symlinks are not followed (no cycles, and a link's target
 * is analysed where it lives); .git directories and what `skip` names are
 * left out. */
static int walk_directory(snapshot *snap, const input_request *req, const gl_config *cfg,
                          walk_skip *skip, const char *abs_dir, const char *given_dir,
                          char **error)
{
    DIR *dir = opendir(abs_dir);
    if (!dir) {
        *error = xasprintf("cannot read directory '%s': %s", given_dir, strerror(errno));
        return EXIT_USAGE;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(dir))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, ".git") == 0)
            continue;
        char *abs_path = xasprintf("%s/%s", abs_dir, e->d_name);
        char *given = xasprintf("%s/%s", given_dir, e->d_name);
        char *reported = reported_path(req->root, abs_path, given);
        /* The entry's type as the directory gives it (no lstat per file:
         * 10,000 calls in a run over 10,000 files), else lstat's. */
        struct stat st = {.st_mode = e->d_type == DT_DIR   ? S_IFDIR
                                     : e->d_type == DT_REG ? S_IFREG
                                     : e->d_type == DT_LNK ? S_IFLNK
                                                           : 0};
        bool typed = e->d_type != DT_UNKNOWN;
        if (!typed && lstat(abs_path, &st) != 0) {
            *error = xasprintf("cannot stat '%s': %s", given, strerror(errno));
            rc = EXIT_USAGE;
        } else if (excluded(cfg, reported) ||
                   walk_skip_entry(skip, abs_path, S_ISDIR(st.st_mode), reported)) {
            /* not analysed, and neither is anything below it */
        } else if (S_ISDIR(st.st_mode)) {
            rc = walk_directory(snap, req, cfg, skip, abs_path, given, error);
        } else if (S_ISREG(st.st_mode) && strcmp(e->d_name, ".gpulint.yaml") == 0) {
            note_nested_config(cfg, reported, abs_path);
        } else if (S_ISREG(st.st_mode) && source_is_analysable(abs_path, cfg)) {
            rc = add_disk_file(snap, cfg, req->root, abs_path, given);
        }
        free(reported);
        free(given);
        free(abs_path);
    }
    closedir(dir);
    return rc;
}

/* The absolute path of a file with its directory resolved but not its own
 * name (a symlink stays a symlink), or NULL when the directory cannot be
 * resolved. */
static char *absolute_without_resolving_name(const char *given)
{
    const char *slash = strrchr(given, '/');
    char *dir = slash ? xstrndup(given, slash == given ? 1 : (size_t)(slash - given)) : xstrdup(".");
    char resolved[PATH_MAX];
    char *abs_path = realpath(dir, resolved)
                         ? xasprintf("%s/%s", strcmp(resolved, "/") == 0 ? "" : resolved,
                                     slash ? slash + 1 : given)
                         : NULL;
    free(dir);
    return abs_path;
}

static int load_given_paths(snapshot *snap, const input_request *req, const gl_config *cfg,
                            char **error)
{
    for (int i = 0; i < req->npaths; i++) {
        const char *given = req->paths[i];
        struct stat st;
        char abs_path[PATH_MAX];
        if (stat(given, &st) != 0 || !realpath(given, abs_path)) {
            *error = xasprintf("cannot open '%s': %s", given, strerror(errno));
            return EXIT_USAGE;
        }
        int rc = 0;
        if (S_ISDIR(st.st_mode)) {
            char *dir = xstrdup(given);
            size_t n = strlen(dir);
            while (n > 1 && dir[n - 1] == '/')
                dir[--n] = '\0';
            walk_skip skip;
            walk_skip_load(&skip, abs_path);
            size_t before = snap->nfiles;
            rc = walk_directory(snap, req, cfg, &skip, abs_path, dir, error);
            if (rc == 0)
                walk_skip_report(&skip, dir);
            /* Said, so that a directory the config excludes (or one with no
             * source in it) does not read as a clean result. */
            if (rc == 0 && snap->nfiles == before)
                fprintf(stderr,
                        "gpulint: note: no file to analyse under '%s' (none of a C, C++ or CUDA "
                        "kind, or all left out by the config's exclude: or git's ignore "
                        "rules); name a file to analyse it whatever they say\n",
                        dir);
            walk_skip_free(&skip);
            free(dir);
        } else if (!S_ISREG(st.st_mode)) {
            /* A FIFO or a device would block or never end. */
            *error = xasprintf("'%s' is neither a regular file nor a directory", given);
            rc = EXIT_USAGE;
        } else if (source_is_analysable(given, cfg)) {
            /* Named explicitly: analysed even when the config excludes it,
             * and reported under the name given, not a symlink's target. */
            char *file_abs = absolute_without_resolving_name(given);
            rc = add_disk_file(snap, cfg, req->root, file_abs ? file_abs : abs_path, given);
            free(file_abs);
        } else {
            /* Said, so that naming a .cpp file does not read as a clean result. */
            fprintf(stderr, "gpulint: note: '%s' is not a C, C++ or CUDA source (.c .cu .cpp "
                            ".cc .cxx .h .cuh .hpp .hh .hxx .inl .ipp .inc, or the config's "
                            "languages:); not analysed\n", given);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* One entry of `git ls-files --stage -z`: "<mode> <oid> <stage>\t<path>". */
typedef struct {
    unsigned mode;
    char oid[72];
    int stage;
    const char *path;
} index_entry;

static bool parse_index_entry(const char *rec, index_entry *e)
{
    const char *tab = strchr(rec, '\t');
    if (!tab || sscanf(rec, "%o %71s %d", &e->mode, e->oid, &e->stage) != 3)
        return false;
    e->path = tab + 1;
    return true;
}

/* Regular files only: 100644 and 100755. Symlinks (120000), submodules
 * (160000) and sparse-directory entries (040000) are not file content. */
static bool is_regular_blob(unsigned mode)
{
    return (mode & 0170000) == 0100000;
}

/* One merged index entry's blob, whatever its mode (a symlink's blob is its
 * target): as inputs_read_staged, and *mode. */
static bool read_worktree_copy(const char *abs_path, const char *oid, unsigned long max_bytes,
                               char **text, size_t *len);

/* The largest staged file read_staged_entry takes from the working tree
 * (a config, a baseline); a larger one comes from git. */
#define STAGED_COPY_MAX_BYTES ((unsigned long)1 << 30)

/* The index's whole listing, `git ls-files --stage -z --full-name -- :/`,
 * taken once per run (main.c shares it for the run): the staged
 * .gpulint.yaml, the baseline it names and the snapshot itself (load_index,
 * when no path is given) are all looked up in it. Each used to start its
 * own git; a commit's run started four git processes, at 5-15 ms each on
 * this project's 2-core machine (docs/performance.md). Unshared, each use
 * takes its own (a caller that loads several snapshots, or changes the
 * index between them). Run in the current directory (not `git -C root`)
 * so a relative GIT_INDEX_FILE means what it means to the git that set it. */
static struct {
    bool shared;         /* between inputs_share_index and inputs_release */
    bool taken;
    byte_buf listing;
} whole_index;

void inputs_share_index(void)
{
    whole_index.shared = true;
}

void inputs_release(void)
{
    buf_free(&whole_index.listing);
    whole_index.listing = (byte_buf){0};
    whole_index.taken = whole_index.shared = false;
}

/* The listing: the shared one, else a new one in *own (the caller's to
 * free); NULL with *error when git failed. */
static const byte_buf *index_listing(byte_buf *own, char **error)
{
    if (whole_index.shared && whole_index.taken)
        return &whole_index.listing;
    byte_buf *into = whole_index.shared ? &whole_index.listing : own;
    static const char *const argv[] = {"git", "ls-files", "--stage", "-z", "--full-name",
                                       "--", ":/", NULL};
    int status = git_capture(argv, false, into, error);
    if (status != 0) {
        if (status > 0)
            *error = xasprintf("git ls-files failed (exit %d)", status);
        buf_free(into);
        *into = (byte_buf){0};
        return NULL;
    }
    whole_index.taken = whole_index.shared;
    return into;
}

static int read_staged_entry(const char *root, const char *path, unsigned *mode, char **data,
                             size_t *len, char **error)
{
    byte_buf own = {0};
    const byte_buf *listing = index_listing(&own, error);
    if (!listing)
        return -1;
    /* Only a merged (stage 0) entry counts. The path is compared before
     * the entry is parsed: the listing holds every file of the index. */
    index_entry e = {.oid = ""};
    for (size_t off = 0; off < listing->len; off += strlen(listing->data + off) + 1) {
        const char *tab = strchr(listing->data + off, '\t');
        if (tab && strcmp(tab + 1, path) == 0 && parse_index_entry(listing->data + off, &e) &&
            e.stage == 0)
            break;
        e.oid[0] = '\0';
    }
    buf_free(&own);
    if (!e.oid[0])
        return 0;
    /* A regular file whose working tree copy is the staged blob is read
     * from there: one process fewer per --staged run (the commit hook's
     * .gpulint.yaml), as for the analysed files (read_worktree_copy). */
    if ((e.mode & 0170000) == 0100000) {
        char *abs = path_join(root, path);
        bool copied = read_worktree_copy(abs, e.oid, STAGED_COPY_MAX_BYTES, data, len);
        free(abs);
        if (copied) {
            *mode = e.mode;
            return 1;
        }
    }
    git_forbid_lazy_fetch();
    const char *const cat[] = {"git", "cat-file", "blob", e.oid, NULL};
    byte_buf blob = {0};
    int status = git_capture(cat, false, &blob, error);
    if (status != 0) {
        if (status > 0)
            *error = xasprintf("git cat-file blob %s failed (exit %d)", e.oid, status);
        buf_free(&blob);
        return -1;
    }
    *data = blob.data ? blob.data : xstrdup("");
    *len = blob.len;
    *mode = e.mode;
    return 1;
}

/* Symlinks are followed as git would check them out (a shared config is
 * often a link): a target inside the repository is read from the index
 * too, one outside it is not part of any commit and is read from disk,
 * as plain gpulint reads it. */
#define MAX_STAGED_LINKS 8

int inputs_read_staged(const char *root, const char *path, char **data, size_t *len,
                       char **error)
{
    char *current = xstrdup(path);
    for (int hop = 0; hop <= MAX_STAGED_LINKS; hop++) {
        unsigned mode = 0;
        int found = read_staged_entry(root, current, &mode, data, len, error);
        if (found <= 0 || (mode & 0170000) != 0120000) {
            free(current);
            return found;
        }
        char *target = *data;
        char *slash = strrchr(current, '/');
        char *dir = slash ? xstrndup(current, (size_t)(slash - current)) : xstrdup("");
        char *joined = target[0] == '/' ? path_normalise(target) : path_join(dir, target);
        free(dir);
        size_t rl = strlen(root);
        char *next = NULL;
        if (joined[0] == '/' && strncmp(joined, root, rl) == 0 && joined[rl] == '/')
            next = xstrdup(joined + rl + 1);
        else if (joined[0] != '/' && strcmp(joined, "..") != 0 && strncmp(joined, "../", 3) != 0)
            next = xstrdup(joined);
        if (!next) {
            /* Outside the repository. */
            char *abs = joined[0] == '/' ? xstrdup(joined) : path_join(root, joined);
            int rc = inputs_read_file(abs, data, len);
            if (rc != 0) {
                *error = xasprintf("'%s' is a symlink to '%s', which cannot be read: %s",
                                   path, target, strerror(errno));
                /* *data still points at the link's text, freed below. */
                *data = NULL;
                *len = 0;
            }
            free(abs);
            free(joined);
            free(target);
            free(current);
            return rc == 0 ? 1 : -2;
        }
        free(joined);
        free(target);
        free(current);
        current = next;
    }
    *error = xasprintf("'%s': more than %d symlinks in a row in the index", path,
                       MAX_STAGED_LINKS);
    free(current);
    return -1;
}

/* Whether a path of the index (root-relative) is one of the PATHs given,
 * which are relative to the current directory: then the config's exclude
 * does not apply to it, as for a file named outside --staged. */
static bool named_explicitly(const input_request *req, const char *index_path)
{
    char cwd[PATH_MAX];
    if (req->npaths == 0 || !getcwd(cwd, sizeof cwd))
        return false;
    size_t rl = strlen(req->root);
    const char *prefix = strncmp(cwd, req->root, rl) == 0 && cwd[rl] == '/' ? cwd + rl + 1 : "";
    bool found = false;
    for (int i = 0; i < req->npaths && !found; i++) {
        char *given = path_join(prefix, req->paths[i]);
        found = strcmp(given, index_path) == 0;
        free(given);
    }
    return found;
}

/* Whether this repository is a partial clone (objects may be missing and
 * would be fetched on demand). */
static bool is_partial_clone(void)
{
    const char *const argv[] = {"git", "config", "--get-regexp",
                                "^(extensions\\.partialclone|remote\\..*\\.promisor)$", NULL};
    byte_buf out = {0};
    char *error = NULL;
    bool partial = git_capture(argv, true, &out, &error) == 0 && out.len > 0;
    free(error);
    buf_free(&out);
    return partial;
}

static int compare_oid(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* In a partial clone, the sorted ids of the listing's stage-0 blobs that
 * are here (*present, *npresent); elsewhere *present stays NULL: every
 * object is. Returns 0, or 3 with *error. */
static int find_present_blobs(const byte_buf *listing, char ***present, size_t *npresent,
                              char **error)
{
    *present = NULL;
    *npresent = 0;
    if (!is_partial_clone())
        return 0;
    byte_buf oids = {0}, here = {0};
    for (size_t off = 0; off < listing->len; off += strlen(listing->data + off) + 1) {
        index_entry e;
        if (parse_index_entry(listing->data + off, &e) && e.stage == 0 &&
            is_regular_blob(e.mode)) {
            buf_append(&oids, e.oid, strlen(e.oid));
            buf_append(&oids, "\n", 1);
        }
    }
    int rc = git_present_objects(oids.data ? oids.data : "", oids.len, &here, error);
    buf_free(&oids);
    if (rc != 0) {
        buf_free(&here);
        return 3;
    }
    size_t cap = 0;
    for (char *line = here.data, *next; line && line < here.data + here.len; line = next) {
        next = memchr(line, '\n', (size_t)(here.data + here.len - line));
        if (next)
            *next++ = '\0';
        else
            next = here.data + here.len;
        line[strcspn(line, " ")] = '\0';
        if (!*line)
            continue;
        if (*npresent == cap)
            *present = xrealloc(*present, (cap = cap ? 2 * cap : 64) * sizeof **present);
        (*present)[(*npresent)++] = xstrdup(line);
    }
    buf_free(&here);
    if (!*present)
        *present = xmalloc(sizeof **present);   /* partial, and nothing here */
    qsort(*present, *npresent, sizeof **present, compare_oid);
    return 0;
}

/* The working tree's copy of a staged file when its content is the staged
 * blob (its git object id is the index entry's): reading it costs a read,
 * where `git cat-file` inflates a loose object (a commit in a fresh
 * repository of 2,000 files spent most of its time there). The id makes it
 * exact: a file edited after `git add`, a clean filter or line-ending
 * conversion gives another id, and the blob is read from git. */
static bool read_worktree_copy(const char *abs_path, const char *oid, unsigned long max_bytes,
                               char **text, size_t *len)
{
    char *data;
    size_t n = 0;
    if (read_regular(abs_path, max_bytes, &data, &n) != 0 || !data)
        return false;
    char id[72];
    if (!git_blob_id_hex(data, n, strlen(oid), id) || strcmp(id, oid) != 0) {
        free(data);
        return false;
    }
    *text = data;
    *len = n;
    return true;
}

static int load_index(snapshot *snap, const input_request *req, const gl_config *cfg,
                      char **error)
{
    /* Run in the current directory (not `git -C root`) so a relative
     * GIT_INDEX_FILE means what it means to the git that set it. */
    byte_buf own = {0};
    const byte_buf *listing = &own;
    if (req->npaths == 0) {
        listing = index_listing(&own, error);
        if (!listing)
            return EXIT_INTERNAL;
    } else {
        size_t argc = 0;
        const char **argv = xcalloc((size_t)req->npaths + 8, sizeof *argv);
        argv[argc++] = "git";
        argv[argc++] = "ls-files";
        argv[argc++] = "--stage";
        argv[argc++] = "-z";
        argv[argc++] = "--full-name";
        argv[argc++] = "--";
        for (int i = 0; i < req->npaths; i++)
            argv[argc++] = req->paths[i];
        int status = git_capture(argv, false, &own, error);
        free(argv);
        if (status != 0) {
            if (status > 0)
                *error = xasprintf("git ls-files failed (exit %d)", status);
            buf_free(&own);
            return EXIT_INTERNAL;
        }
    }

    blob_reader reader = {0};
    bool reader_open = false;
    int rc = 0;
    size_t nmissing = 0;
    /* Which blobs a partial clone lacks is asked (a `git config` and a `git
     * rev-list`) only when some staged file is not its working tree copy:
     * in a commit of files as they are on disk, never. */
    bool presence_known = false;
    char **present = NULL;
    size_t npresent = 0;
    if (req->staged)
        git_forbid_lazy_fetch();
    const char *last_unmerged = "";
    for (size_t off = 0; rc == 0 && off < listing->len; off += strlen(listing->data + off) + 1) {
        index_entry e;
        if (!parse_index_entry(listing->data + off, &e)) {
            *error = xasprintf("unexpected line from git ls-files: %s", listing->data + off);
            rc = EXIT_INTERNAL;
            break;
        }
        if (is_regular_blob(e.mode) && e.stage == 0 && req->npaths == 0 && !excluded(cfg, e.path)) {
            char *abs_path = xasprintf("%s/%s", req->root, e.path);
            note_nested_config(cfg, e.path, abs_path);
            free(abs_path);
        }
        if (!is_regular_blob(e.mode))
            continue;
        bool analysed = source_is_analysable(e.path, cfg) &&
                        (!excluded(cfg, e.path) || named_explicitly(req, e.path));
        /* With --staged, what is not analysed but may be included is read
         * from the index too: else a translation unit would see the working
         * tree's copy, not the one being committed. */
        bool context = !analysed && req->staged && e.stage == 0 &&
                       (source_is_analysable(e.path, cfg) || source_is_includable(e.path));
        if (!analysed && !context)
            continue;
        if (e.stage != 0) {
            /* A commit cannot be made with unmerged paths: say so once per path. */
            if (strcmp(last_unmerged, e.path) != 0 && req->staged)
                fprintf(stderr, "gpulint: note: '%s' is unmerged in the index; not analysed\n",
                        e.path);
            last_unmerged = e.path;
            continue;
        }
        char *abs_path = xasprintf("%s/%s", req->root, e.path);
        if (!req->staged) {
            struct stat st;
            if (lstat(abs_path, &st) != 0 && errno == ENOENT)
                free(abs_path);   /* deleted from the working tree, not yet staged */
            else
                add_tree_file(snap, cfg, xstrdup(e.path), abs_path);
            continue;
        }
        char *text;
        size_t len;
        const char *oid = e.oid;
        int got = read_worktree_copy(abs_path, e.oid, cfg->limits.file_bytes, &text, &len) ? 0
                                                                                           : -2;
        if (got == -2 && !presence_known) {
            presence_known = true;
            if (find_present_blobs(listing, &present, &npresent, error) != 0) {
                free(abs_path);
                rc = EXIT_INTERNAL;
                break;
            }
        }
        if (got == -2 && present && !bsearch(&oid, present, npresent, sizeof *present, compare_oid))
            got = 1;
        if (got == -2 && !reader_open) {
            if (blob_reader_open(&reader, error) != 0) {
                free(abs_path);
                rc = EXIT_INTERNAL;
                break;
            }
            reader_open = true;
        }
        if (got == -2)
            got = blob_reader_read(&reader, e.oid, &text, &len, error);
        if (got < 0) {
            free(abs_path);
            rc = EXIT_INTERNAL;
            break;
        }
        free(abs_path);
        if (got == 1 && context)
            continue;   /* not analysed: a translation unit including it says so */
        if (got == 1) {
            /* A partial clone without this blob: every blob a commit
             * changes is local (git add wrote it), so this file is as the
             * remote has it. Named, not fetched. */
            if (nmissing++ < 20)
                fprintf(stderr, "gpulint: note: '%s' not checked: its content is not in this "
                                "partial clone (not fetched: gpulint never fetches)\n",
                        e.path);
            continue;
        }
        char *abs = xasprintf("%s/%s", req->root, e.path);
        if (context)
            add_context(snap, xstrdup(e.path), abs, text, len);
        else
            add_content(snap, cfg, xstrdup(e.path), abs, text, len);
    }
    if (nmissing > 20)
        fprintf(stderr, "gpulint: note: ... and %zu more files not checked, not in this partial "
                        "clone\n", nmissing - 20);
    if (nmissing)
        fprintf(stderr, "gpulint: note: %zu file%s not checked (not in this partial clone): "
                        "`git fetch` them or widen the sparse checkout to check them\n",
                nmissing, nmissing == 1 ? "" : "s");
    for (size_t i = 0; i < npresent; i++)
        free(present[i]);
    free(present);
    if (reader_open && blob_reader_close(&reader) != 0 && rc == 0) {
        *error = xstrdup("git cat-file --batch failed");
        rc = EXIT_INTERNAL;
    }
    buf_free(&own);
    return rc;
}

int inputs_load(snapshot *snap, const input_request *req, const gl_config *cfg, char **error)
{
    int rc;
    if (req->staged || req->npaths == 0) {
        if (!req->root) {
            *error = xstrdup(req->staged
                                 ? "--staged needs a git repository (this is not inside one)"
                                 : "not inside a git repository: name the files or "
                                   "directories to analyse");
            return EXIT_USAGE;
        }
        rc = load_index(snap, req, cfg, error);
    } else {
        rc = load_given_paths(snap, req, cfg, error);
    }
    snapshot_sort(snap);
    return rc;
}
