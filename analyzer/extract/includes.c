/* include_hazard (extract/includes.h): a scan of #include lines, resolved
 * the way clang's search order does for the directories given on the
 * command line. System directories clang adds itself hold the system's and
 * CUDA's headers and are not searched here, nor are the toolkit's that
 * gpulint adds to every parse (extract.c leaves its base flags out). */
#define _GNU_SOURCE
#include "extract/includes.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input/directive.h"
#include "input/inputs.h"
#include "input/mask.h"
#include "util/hash.h"
#include "util/str_table.h"
#include "util/xalloc.h"

#define MAX_SCAN_DEPTH 64

typedef struct {
    const snapshot *snap;
    const char *const *argv;
    size_t argc;
    unsigned long max_bytes;
    unsigned long long flags_key;   /* of argv and max_bytes (known_clean) */
    bool cut;            /* MAX_SCAN_DEPTH stopped a descent */
    bool disk_to_snapshot;   /* a header from disk included a snapshot file */
    bool *seen;          /* per snapshot file: scanned already */
    char **seen_disk;    /* headers read from disk and scanned already */
    size_t nseen_disk;
    const char *main_path;   /* the file being checked */
    unsigned main_line;      /* the line of its #include being followed */
} scan;

/* What scan_text reads of a file: its name in messages, where it lives (for
 * "..." includes) and its text. */
typedef struct {
    const char *path, *abs_path, *text, *masked;
    size_t len;
    bool from_disk;      /* not a snapshot file */
} scanned_text;

static const char *dir_flag_value(const char *const *argv, size_t argc, size_t *i, bool quoted)
{
    static const char *const flags[] = {"-iquote", "-I", "-isystem", "-idirafter"};
    for (size_t f = quoted ? 0 : 1; f < sizeof flags / sizeof flags[0]; f++) {
        size_t n = strlen(flags[f]);
        if (strncmp(argv[*i], flags[f], n) != 0)
            continue;
        if (argv[*i][n])
            return argv[*i] + n;
        if (*i + 1 < argc)
            return argv[++*i];
    }
    return NULL;
}

static char *check_file(scan *s, const char *path, const char *spelled, bool quoted,
                        const scanned_text *from, unsigned line, unsigned depth, bool *found);

/* The first existing candidate decides, as in clang. */
static char *resolve(scan *s, const scanned_text *from, const char *name, bool quoted,
                     unsigned line, unsigned depth)
{
    bool found = false;
    char *hazard = NULL;
    if (name[0] == '/')
        return check_file(s, name, name, quoted, from, line, depth, &found);
    if (quoted) {
        const char *slash = strrchr(from->abs_path, '/');
        char *candidate = xasprintf("%.*s/%s", slash ? (int)(slash - from->abs_path) : 1,
                                    slash ? from->abs_path : ".", name);
        hazard = check_file(s, candidate, name, quoted, from, line, depth, &found);
        free(candidate);
    }
    for (size_t i = 0; !found && !hazard && i < s->argc; i++) {
        const char *dir = dir_flag_value(s->argv, s->argc, &i, quoted);
        if (!dir)
            continue;
        char *candidate = xasprintf("%s/%s", dir, name);
        hazard = check_file(s, candidate, name, quoted, from, line, depth, &found);
        free(candidate);
    }
    return hazard;
}

static char *scan_file(scan *s, size_t index, unsigned depth);
static char *scan_text(scan *s, const scanned_text *f, unsigned depth);

/* Headers read from disk that a whole scan with the same flags and bound
 * followed to the end without a hazard: everything they include is
 * harmless too, so a later scan in this process skips reading them again.
 * A worker parses unit after unit, and each C file here that includes the
 * CUDA runtime, or libclang's Index.h, read and masked the same headers
 * again: 0.2 s of the CPU of a cold run over this repository
 * (docs/performance.md). */
static str_table known_clean = STR_TABLE_INIT;   /* tag: the scan's flags_key */

/* A header of the project that is not in the snapshot: read and scanned in
 * turn, once, so that a .c including a header including /dev/zero is
 * caught too. */
static char *scan_disk_header(scan *s, const char *path, unsigned depth)
{
    if (str_table_find(&known_clean, s->flags_key, path))
        return NULL;
    for (size_t i = 0; i < s->nseen_disk; i++)
        if (strcmp(s->seen_disk[i], path) == 0)
            return NULL;
    *XPUSH(s->seen_disk, s->nseen_disk) = xstrdup(path);
    char *text;
    size_t len;
    if (inputs_read_file(path, &text, &len) != 0)
        return NULL;   /* unreadable: clang says so in its own words */
    char *masked = xmalloc(len + 1);
    mask_text(text, len, MASK_COMMENTS | MASK_STRINGS, masked);
    masked[len] = '\0';
    scanned_text f = {path, path, text, masked, len, true};
    char *hazard = scan_text(s, &f, depth);
    free(masked);
    free(text);
    return hazard;
}

static char *check_file(scan *s, const char *path, const char *spelled, bool quoted,
                        const scanned_text *from, unsigned line, unsigned depth, bool *found)
{
    long k = -1;
    for (size_t i = 0; i < s->snap->nfiles && k < 0; i++)
        if (strcmp(s->snap->files[i].abs_path, path) == 0)
            k = (long)i;
    if (k >= 0) {   /* its text is the snapshot's: scan that instead */
        *found = true;
        s->cut |= depth >= MAX_SCAN_DEPTH;
        s->disk_to_snapshot |= from->from_disk;
        return depth < MAX_SCAN_DEPTH ? scan_file(s, (size_t)k, depth + 1) : NULL;
    }
    struct stat st;
    if (stat(path, &st) != 0 || S_ISDIR(st.st_mode))
        return NULL;
    *found = true;
    char open_c = quoted ? '"' : '<', close_c = quoted ? '"' : '>';
    char *where = from->path == s->main_path ? xstrdup("")
                                             : xasprintf(" (in %s:%u)", from->path, line);
    char *hazard = NULL;
    if (!S_ISREG(st.st_mode))
        hazard = xasprintf("#include %c%s%c%s names %s, not a regular file", open_c, spelled,
                           close_c, where,
                           S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                           : S_ISBLK(st.st_mode) ? "a block device" : "a special file");
    else if ((unsigned long long)st.st_size > s->max_bytes)
        hazard = xasprintf("#include %c%s%c%s is %lld bytes, more than limits.file-bytes (%lu) "
                           "allows", open_c, spelled, close_c, where, (long long)st.st_size,
                           s->max_bytes);
    free(where);
    if (hazard)
        return hazard;
    s->cut |= depth >= MAX_SCAN_DEPTH;
    return depth < MAX_SCAN_DEPTH ? scan_disk_header(s, path, depth + 1) : NULL;
}

/* Directives only where the masked text still has them (not in a comment);
 * the name is read from the text, since the masker blanks "...". */
static char *scan_file(scan *s, size_t index, unsigned depth)
{
    if (s->seen[index])
        return NULL;
    s->seen[index] = true;
    const source_file *src = &s->snap->files[index];
    scanned_text f = {src->path, src->abs_path, src->text,
                      src->masked ? src->masked : src->text, src->len, false};
    return scan_text(s, &f, depth);
}

static char *scan_text(scan *s, const scanned_text *f, unsigned depth)
{
    const char *m = f->masked;
    char *hazard = NULL;
    static const char *const keywords[] = {"include", "include_next", "import"};
    text_line line;
    text_lines_begin(&line, m, f->len);
    while (!hazard && text_lines_next(&line)) {
        const char *operand = NULL;
        for (size_t k = 0; line.directive && !operand && k < sizeof keywords / sizeof keywords[0]; k++)
            operand = operand_after(line.directive, line.end, keywords[k]);
        if (!operand)
            continue;
        size_t p = (size_t)(operand - m), end = (size_t)(line.end - m);
        char open_c = p < end ? f->text[p] : 0;
        char close_c = open_c == '"' ? '"' : open_c == '<' ? '>' : 0;
        const char *q = close_c ? memchr(f->text + p + 1, close_c, end - p - 1) : NULL;
        if (q && q > f->text + p + 1) {
            if (f->path == s->main_path)
                s->main_line = line.number;
            char *name = xstrndup(f->text + p + 1, (size_t)(q - f->text - p - 1));
            hazard = resolve(s, f, name, open_c == '"', line.number, depth);
            free(name);
        }
    }
    return hazard;
}

char *include_hazard(const snapshot *snap, size_t index, const char *const *argv, size_t argc,
                     unsigned long max_bytes, unsigned *line)
{
    char bound[32];
    snprintf(bound, sizeof bound, "%lu", max_bytes);
    unsigned long long flags_key = fnv1a(FNV1A_SEED, bound, strlen(bound) + 1);
    for (size_t i = 0; i < argc; i++)
        flags_key = fnv1a(flags_key, argv[i], strlen(argv[i]) + 1);
    scan s = {snap, argv, argc, max_bytes, flags_key, false, false,
              xcalloc(snap->nfiles ? snap->nfiles : 1, sizeof(bool)), NULL, 0,
              snap->files[index].path, 1};
    char *hazard = scan_file(&s, index, 0);
    /* Every header this scan read was followed as far as it includes
     * anything (a header already being scanned is followed by the scan
     * that is), unless the depth bound stopped it. One that includes a
     * snapshot file is not remembered: the process may see another
     * snapshot (tests/analyzer/unit/extract_facts.c). */
    for (size_t i = 0; i < s.nseen_disk; i++) {
        bool added;
        if (!hazard && !s.cut && !s.disk_to_snapshot)
            str_table_add(&known_clean, flags_key, s.seen_disk[i], &added);
        free(s.seen_disk[i]);
    }
    free(s.seen_disk);
    free(s.seen);
    *line = s.main_line;
    return hazard;
}
