#define _GNU_SOURCE
#include "extract/preamble.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "extract/hoist.h"
#include "extract/libclang_api.h"
#include "input/directive.h"
#include "util/cpu_time.h"
#include "util/xalloc.h"

#define ENTRY_PREFIX "set-"
#define UNUSED_LIFETIME_S (7 * 24 * 3600)
#define DEFAULT_BUDGET_MB 1024

typedef enum { SET_UNTRIED, SET_BUILDING, SET_DONE } set_state;

typedef struct {
    unsigned long long key;
    unsigned uses;
    set_state state;
    char *pch;           /* when SET_DONE: its path (kept until cleanup: threads hold it) */
    bool usable;
    bool names;          /* a file hoists includes with it: hoist_names beside the PCH */
} set_entry;

static struct {
    char *dir;           /* <cache>/pch, or NULL */
    set_entry *sets;     /* in the order counted; looked up linearly (a few dozen) */
    size_t n;
    pthread_mutex_t lock;   /* sets[] */
    pthread_cond_t built;   /* a set left SET_BUILDING */
} p = {.lock = PTHREAD_MUTEX_INITIALIZER, .built = PTHREAD_COND_INITIALIZER};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

#define MAX_NESTING 8

/* Whether the directive at s (after its '#') is a one-line #define or
 * #undef: a line of preamble_leading_defines. */
static bool simple_define(const source_file *src, const char *s, const char *line_end)
{
    if (!word_is(s, line_end, "define") && !word_is(s, line_end, "undef"))
        return false;
    const char *t_end = src->text + (line_end - src->masked);
    while (t_end > src->text && is_directive_blank(t_end[-1]))
        t_end--;
    return t_end == src->text || t_end[-1] != '\\';
}

/* Whether the #if or #elif operand [p, end) (masked) is only `defined X`,
 * `defined(X)`, `!`, `&&`, `||`, parentheses and decimal numbers: its value
 * then expands no macro and depends only on which macros are defined, not
 * on the file's name, line or the counter (preamble.h, "blocks"). */
static bool definedness_only(const char *p, const char *end)
{
    bool any = false;
    while ((p = skip_directive_blanks(p, end)) < end) {
        any = true;
        if (word_is(p, end, "defined")) {
            p = skip_directive_blanks(p + 7, end);
            bool paren = p < end && *p == '(';
            if (paren)
                p = skip_directive_blanks(p + 1, end);
            size_t n = identifier_at(p, end);
            if (n == 0)
                return false;
            p = skip_directive_blanks(p + n, end);
            if (paren && (p >= end || *p++ != ')'))
                return false;
        } else if (*p >= '0' && *p <= '9') {
            while (p < end && *p >= '0' && *p <= '9')
                p++;
        } else if ((*p == '&' || *p == '|') && p + 1 < end && p[1] == *p) {
            p += 2;
        } else if (*p == '!' && !(p + 1 < end && p[1] == '=')) {
            p++;
        } else if (*p == '(' || *p == ')') {
            p++;
        } else {
            return false;   /* any other identifier is expanded, or an operator on values */
        }
    }
    return any;
}

/* Whether the directive at s (after its '#') is #ifdef/#ifndef/#elifdef/
 * #elifndef `word` followed by one identifier and nothing else. */
static bool tests_one_name(const char *s, const char *end, const char *word)
{
    const char *operand = operand_after(s, end, word);
    size_t n = operand ? identifier_at(operand, end) : 0;
    return n > 0 && skip_directive_blanks(operand + n, end) == end;
}

/* *line is at an #if or #ifdef: move it to the block's own #endif and say
 * whether each of the block's top-level conditions tests definedness only
 * (definedness_only); nested conditionals are the groups' content. */
static bool conditional_block(text_line *line)
{
    int depth = 0;
    do {
        const char *s = line->directive, *end = line->end, *operand;
        if (!s)
            continue;
        bool opens = word_is(s, end, "if") || word_is(s, end, "ifdef") || word_is(s, end, "ifndef");
        if (opens && depth++ > 0)
            continue;
        if (depth == 1) {
            if ((operand = operand_after(s, end, "if")) || (operand = operand_after(s, end, "elif"))) {
                if (!definedness_only(operand, end))
                    return false;
            } else if (word_is(s, end, "ifdef") || word_is(s, end, "elifdef") ||
                       word_is(s, end, "elifndef")) {
                if (!tests_one_name(s, end, "ifdef") && !tests_one_name(s, end, "elifdef") &&
                    !tests_one_name(s, end, "elifndef"))
                    return false;
            }
        }
        if (word_is(s, end, "endif") && --depth == 0)
            return true;
    } while (text_lines_next(line));
    return false;
}

bool preamble_blocks_skipped(const source_file *src, size_t blocks_end,
                             const unsigned (*skipped)[2], size_t nskipped)
{
    text_line line;
    text_lines_begin(&line, src->masked, blocks_end);
    int depth = 0;
    bool in_blocks = false;
    while (text_lines_next(&line)) {
        const char *s = line.directive, *end = line.end;
        bool opens = s && (word_is(s, end, "if") || word_is(s, end, "ifdef") ||
                           word_is(s, end, "ifndef"));
        bool top = s && (opens ? depth == 0 : depth == 1) &&
                   (opens || word_is(s, end, "elif") || word_is(s, end, "else") ||
                    word_is(s, end, "elifdef") || word_is(s, end, "elifndef") ||
                    word_is(s, end, "endif"));
        if (opens)
            depth++;
        if (s && word_is(s, end, "endif"))
            depth--;
        in_blocks = in_blocks || opens;
        if (!in_blocks || top || line.blank)
            continue;
        bool covered = false;
        for (size_t r = 0; r < nskipped && !covered; r++)
            covered = skipped[r][0] <= line.number && line.number <= skipped[r][1];
        if (!covered)
            return false;   /* a group the preprocessor took has content */
    }
    return true;
}

char *preamble_leading_defines(const source_file *src)
{
    byte_buf out = {0};
    buf_append(&out, "", 0);
    text_line line;
    text_lines_begin(&line, src->masked, src->len);
    while (text_lines_next(&line)) {
        if (line.blank)
            continue;
        if (!line.directive || !simple_define(src, line.directive, line.end))
            break;
        buf_append(&out, src->text + (line.start - src->masked), (size_t)(line.end - line.start));
        buf_append(&out, "\n", 1);
    }
    return out.data;
}

/* Append to names[] the system headers src includes first; an include of a
 * snapshot file is followed into that file's own leading system includes
 * (a project's "common.h"), after which nothing is hoisted: the rest of
 * that file runs before the includer's next line; unless `hoist` is given
 * and the file may be crossed (extract/hoist.h), then the includes after it
 * are collected too. Returns false when the set ended inside a followed
 * file. */
static bool collect_leading(const source_file *src, const snapshot_reach *reach, char ***names,
                            size_t *n, int depth, bool past_defines, hoist_info *hoist,
                            size_t *blocks_end)
{
    const char *m = src->masked;
    const char *guard = NULL;   /* after "#ifndef X": the name X */
    size_t guard_len = 0;
    bool first = true, after_block = false;
    text_line line;
    text_lines_begin(&line, m, src->len);
    while (text_lines_next(&line)) {
        const char *s = line.directive, *line_end = line.end, *operand;
        if (line.blank)
            continue;
        if (!s)
            return true;
        if ((operand = operand_after(s, line_end, "pragma")) && word_is(operand, line_end, "once"))
            continue;
        if (first && !guard && !after_block && (operand = operand_after(s, line_end, "ifndef"))) {
            guard = operand;
            guard_len = identifier_at(guard, line_end);
            continue;
        }
        if (guard && guard_len && (operand = operand_after(s, line_end, "define"))) {
            if (identifier_at(operand, line_end) == guard_len &&
                memcmp(operand, guard, guard_len) == 0 &&
                skip_directive_blanks(operand + guard_len, line_end) == line_end) {
                guard_len = 0;   /* the guard is complete: includes may follow */
                continue;
            }
            return true;
        }
        /* The lines preamble_leading_defines gives the set. */
        if (past_defines && first && !guard && !after_block && simple_define(src, s, line_end))
            continue;
        /* Leading conditional blocks (preamble_blocks_end): the set holds
         * what follows them; the parse checks that they take no group. */
        if (blocks_end && first && !guard &&
            (word_is(s, line_end, "if") || word_is(s, line_end, "ifdef"))) {
            if (!conditional_block(&line))
                return true;
            after_block = true;
            *blocks_end = (size_t)(line.end - m);
            continue;
        }
        if (!(operand = operand_after(s, line_end, "include")))
            return true;
        first = false;
        /* Quoted names are blanked in the masked text: read the text. */
        const char *t = src->text + (operand - m);
        const char *t_end = src->text + (line_end - m);
        char close_char = t < t_end && *t == '<' ? '>' : t < t_end && *t == '"' ? '"' : 0;
        const char *close = close_char ? memchr(t + 1, close_char, (size_t)(t_end - t - 1)) : NULL;
        if (!close)
            return true;
        size_t len = (size_t)(close - t - 1);
        if (reach_may_name(reach, t + 1, len)) {
            const source_file *inner = reach_only_candidate(reach, t + 1, len);
            if (inner && depth < MAX_NESTING)
                collect_leading(inner, reach, names, n, depth + 1, false, NULL, NULL);
            if (inner && hoist && depth == 0 && hoist_cross(inner, reach, hoist))
                continue;
            return false;
        }
        if (close_char == '"')
            return true;   /* a file outside the snapshot, found beside this one */
        *XPUSH(*names, *n) = xstrndup(t + 1, len);
    }
    return true;
}

static char *leading_includes(const source_file *src, const snapshot_reach *reach,
                              bool past_defines, hoist_info *hoist, size_t *blocks_end)
{
    char **names = NULL;
    size_t n = 0;
    if (blocks_end)
        *blocks_end = 0;
    collect_leading(src, reach, &names, &n, 0, past_defines, hoist, blocks_end);
    if (n > 1)   /* names is NULL when there are none: qsort's array must not be */
        qsort(names, n, sizeof *names, cmp_str);
    byte_buf out = {0};
    buf_append(&out, "", 0);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(names[i], names[i - 1]) != 0) {
            char *line = xasprintf("#include <%s>\n", names[i]);
            buf_append(&out, line, strlen(line));
            free(line);
        }
    /* Freed only now: each name is compared with the one before it. */
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return out.data;
}

char *preamble_leading_includes(const source_file *src, const snapshot_reach *reach,
                                bool past_defines, size_t *blocks_end)
{
    return leading_includes(src, reach, past_defines, NULL, blocks_end);
}

char *preamble_hoisted_includes(const source_file *src, const snapshot_reach *reach,
                                hoist_info *hoist, size_t *blocks_end)
{
    char *set = leading_includes(src, reach, true, hoist, blocks_end);
    hoist_info_finish(hoist);
    return set;
}

/* One include set while the sets are chosen: its headers (sorted, once
 * each), their weight, how many files use it. */
typedef struct {
    char **names;
    size_t n;
    unsigned weight;
    size_t users;
    int group;
    size_t merged_into;   /* SIZE_MAX: still a set of its own */
} chosen_set;

static void split_lines(const char *text, chosen_set *set)
{
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        *XPUSH(set->names, set->n) = xstrndup(line, len);
        line += len + (nl != NULL);
    }
}

typedef struct {
    char **names;
    unsigned *weights;
    size_t n;
} weight_table;

static unsigned weight_of(weight_table *t, const char *line, unsigned (*weight)(const char *))
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->names[i], line) == 0)
            return t->weights[i];
    t->names = xrealloc(t->names, (t->n + 1) * sizeof *t->names);
    t->weights = xrealloc(t->weights, (t->n + 1) * sizeof *t->weights);
    t->names[t->n] = xstrdup(line);
    return t->weights[t->n++] = weight(line);
}

/* The weight of the headers both sets hold (both sorted); `keep` (may be
 * NULL) gets which of a's they are. */
static unsigned common_weight(const chosen_set *a, const chosen_set *b, weight_table *t,
                              unsigned (*weight)(const char *), bool *keep)
{
    unsigned w = 0;
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        while (j < b->n && strcmp(b->names[j], a->names[i]) < 0)
            j++;
        bool both = j < b->n && strcmp(b->names[j], a->names[i]) == 0;
        if (both)
            w += weight_of(t, a->names[i], weight);
        if (keep)
            keep[i] = both;
    }
    return w;
}

typedef struct {
    const char *text;
    int group;
    size_t index;
} file_set;

static int by_group_text(const void *a, const void *b)
{
    const file_set *x = a, *y = b;
    return x->group != y->group ? (x->group < y->group ? -1 : 1) : strcmp(x->text, y->text);
}

static int by_weight_desc(const void *a, const void *b)
{
    const chosen_set *x = *(chosen_set *const *)a, *y = *(chosen_set *const *)b;
    return x->weight > y->weight ? -1 : x->weight < y->weight;
}

/* More sets than this are left as they are: merging compares every set
 * with every other. */
#define MAX_CHOSEN_SETS 4096

char **preamble_choose(char *const *leading, const int *group, size_t n,
                       unsigned (*weight)(const char *))
{
    chosen_set *sets = NULL;
    size_t nsets = 0;
    size_t *set_of = xcalloc(n ? n : 1, sizeof *set_of);
    weight_table table = {0};
    /* Same group and text: one set (sorted, so that this is linear). */
    file_set *files = xcalloc(n ? n : 1, sizeof *files);
    size_t nfiles = 0;
    for (size_t i = 0; i < n; i++) {
        set_of[i] = SIZE_MAX;
        if (leading[i] && *leading[i])
            files[nfiles++] = (file_set){leading[i], group[i], i};
    }
    if (nfiles > 1)
        qsort(files, nfiles, sizeof *files, by_group_text);
    for (size_t f = 0; f < nfiles; f++) {
        if (f == 0 || by_group_text(&files[f - 1], &files[f]) != 0) {
            chosen_set *set = XPUSH(sets, nsets);
            *set = (chosen_set){.group = files[f].group, .merged_into = SIZE_MAX};
            split_lines(files[f].text, set);
        }
        sets[nsets - 1].users++;
        set_of[files[f].index] = nsets - 1;
    }
    free(files);
    for (size_t k = 0; k < nsets; k++)
        for (size_t i = 0; i < sets[k].n; i++)
            sets[k].weight += weight_of(&table, sets[k].names[i], weight);
    /* A set of one file gets no PCH (building one costs more than the
     * parse it saves): such a file shares what it has in common with the
     * set of others that has the most weight in common, when that keeps at
     * least half of the other set's weight. Heaviest first, so that the
     * costly headers (cooperative_groups, in 9 of llm.c's 23 files, each
     * with other small headers of its own) decide. */
    chosen_set **order = xcalloc(nsets ? nsets : 1, sizeof *order);
    for (size_t k = 0; k < nsets; k++)
        order[k] = &sets[k];
    if (nsets > 1)
        qsort(order, nsets, sizeof *order, by_weight_desc);
    for (size_t o = 0; nsets <= MAX_CHOSEN_SETS && o < nsets; o++) {
        chosen_set *one = order[o];
        if (one->users != 1)
            continue;
        /* A set already shared first: joining it costs no PCH of its own
         * (llm.c's matmul_backward_bias.cu paired with another file alone
         * gave two PCHs of cooperative_groups where one serves both); a
         * file alone, only when it has twice as much in common: the
         * Thrust files of cuda-samples (radixSortThrust.cu, lineOfSight.cu)
         * each joined a shared set of <helper_cuda.h> and the like, and
         * parsed Thrust's core (4 s of CPU each) on their own
         * (docs/performance.md, "Branch s8-speed"). */
        chosen_set *best_of[2] = {NULL, NULL};   /* [shared] */
        unsigned w_of[2] = {0, 0};
        for (size_t k = 0; k < nsets; k++) {
            chosen_set *other = &sets[k];
            if (other == one || other->merged_into != SIZE_MAX || other->group != one->group)
                continue;
            int shared = other->users > 1;
            unsigned w = common_weight(one, other, &table, weight, NULL);
            if (2 * w < other->weight || w == 0)
                continue;
            if (w > w_of[shared] ||
                (w == w_of[shared] && other->users > best_of[shared]->users)) {
                best_of[shared] = other;
                w_of[shared] = w;
            }
        }
        int pick = best_of[1] && !(best_of[0] && w_of[0] >= 2 * w_of[1]);
        chosen_set *best = best_of[pick];
        unsigned best_w = w_of[pick];
        if (!best)
            continue;
        /* best keeps the headers both have. */
        bool *keep = xcalloc(best->n ? best->n : 1, sizeof *keep);
        common_weight(best, one, &table, weight, keep);
        size_t kept = 0;
        for (size_t i = 0; i < best->n; i++) {
            if (keep[i])
                best->names[kept++] = best->names[i];
            else
                free(best->names[i]);
        }
        best->n = kept;
        best->weight = best_w;
        best->users += one->users;
        one->merged_into = (size_t)(best - sets);
        free(keep);
    }
    free(order);
    char **chosen = xcalloc(n ? n : 1, sizeof *chosen);
    for (size_t i = 0; i < n; i++) {
        if (set_of[i] == SIZE_MAX)
            continue;
        size_t k = set_of[i];
        while (sets[k].merged_into != SIZE_MAX)
            k = sets[k].merged_into;
        if (sets[k].users < 2)
            continue;
        byte_buf out = {0};
        buf_append(&out, "", 0);
        for (size_t h = 0; h < sets[k].n; h++) {
            buf_append(&out, sets[k].names[h], strlen(sets[k].names[h]));
            buf_append(&out, "\n", 1);
        }
        chosen[i] = out.data;
    }
    for (size_t k = 0; k < nsets; k++) {
        for (size_t h = 0; h < sets[k].n; h++)
            free(sets[k].names[h]);
        free(sets[k].names);
    }
    for (size_t i = 0; i < table.n; i++)
        free(table.names[i]);
    free(table.names);
    free(table.weights);
    free(sets);
    free(set_of);
    return chosen;
}

static bool ours(const char *name)
{
    return strncmp(name, ENTRY_PREFIX, strlen(ENTRY_PREFIX)) == 0;
}

typedef struct {
    char *path;
    time_t used;
    off_t size;
} pch_file;

static int by_use(const void *a, const void *b)
{
    const pch_file *x = a, *y = b;
    return x->used < y->used ? -1 : x->used > y->used;
}

/* Remove a PCH (or failure marker) and the prelude it was built from, and
 * its names (extract/hoist.h). */
static int remove_entry(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && strcmp(dot, ".pch") == 0) {
        char *prelude = xasprintf("%.*s.prelude.h", (int)(dot - path), path);
        char *names = hoist_names_path(path);
        unlink(prelude);
        unlink(names);
        free(prelude);
        free(names);
    }
    return unlink(path);
}

/* When a PCH or failure marker was last used: its access time, which each
 * use sets (obtain), or its build when later. */
static time_t last_use(const struct stat *st)
{
    return st->st_atime > st->st_mtime ? st->st_atime : st->st_mtime;
}

/* Only our own entries (set-*) in our own directory are ever removed; a
 * concurrent run that loses one falls back to the full parse. */
static void evict(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    const char *budget_env = getenv("GPULINT_PCH_BUDGET_MB");
    long long budget = (budget_env && *budget_env ? atoll(budget_env) : DEFAULT_BUDGET_MB) << 20;
    pch_file *files = NULL;
    size_t n = 0;
    long long total = 0;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!ours(e->d_name))
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        /* A prelude goes with its PCH (its mtime must stay the PCH's
         * build time, so it says nothing of use), or an hour after its
         * build left none. */
        const char *dot = strstr(e->d_name, ".prelude.");
        if (!dot)
            dot = strstr(e->d_name, ".names");
        if (dot) {
            char *pch = xasprintf("%s/%.*s.pch", dir, (int)(dot - e->d_name), e->d_name);
            if (access(pch, F_OK) != 0 && now - st.st_mtime > 3600)
                unlink(path);
            free(pch);
            free(path);
            continue;
        }
        time_t used = last_use(&st);
        if (now - used > UNUSED_LIFETIME_S) {
            remove_entry(path);
            free(path);
            continue;
        }
        *XPUSH(files, n) = (pch_file){path, used, st.st_size};
        total += st.st_size;
    }
    closedir(d);
    if (n > 1)   /* files is NULL when the directory holds none */
        qsort(files, n, sizeof *files, by_use);
    for (size_t i = 0; i < n; i++) {
        if (total > budget && remove_entry(files[i].path) == 0)
            total -= files[i].size;
        free(files[i].path);
    }
    free(files);
}

void preamble_init(const char *cache_dir)
{
    p.dir = xasprintf("%s/pch", cache_dir);
    if (mkdir(p.dir, 0755) != 0 && errno != EEXIST) {
        free(p.dir);
        p.dir = NULL;
        return;
    }
    evict(p.dir);
}

static set_entry *find_set(unsigned long long key)
{
    for (size_t i = 0; i < p.n; i++)
        if (p.sets[i].key == key)
            return &p.sets[i];
    return NULL;
}

void preamble_count(unsigned long long key, bool hoisted)
{
    set_entry *s = find_set(key);
    if (!s) {
        s = XPUSH(p.sets, p.n);
        s->key = key;
    }
    s->uses++;
    s->names |= hoisted;
}

static int write_new(const char *path, const char *text)
{
    char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    size_t n = strlen(text);
    int rc = f && fwrite(text, 1, n, f) == n ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* Build the PCH at `path` from the prelude file; false when a header of the
 * set does not compile on its own (then it is of no use to any file). */
static bool build(const char *path, const char *prelude_path, const char **argv, size_t argc,
                  bool names)
{
    char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
    CXIndex index = clang_createIndex(1, 0);
    CXTranslationUnit tu = NULL;
    bool ok = clang_parseTranslationUnit2(
                  index, prelude_path, argv, (int)argc, NULL, 0,
                  CXTranslationUnit_Incomplete | CXTranslationUnit_ForSerialization |
                      (names ? CXTranslationUnit_DetailedPreprocessingRecord : 0),
                  &tu) == CXError_Success;
    for (unsigned i = 0; ok && i < clang_getNumDiagnostics(tu); i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        ok = clang_getDiagnosticSeverity(d) < CXDiagnostic_Error;
        clang_disposeDiagnostic(d);
    }
    if (ok && names) {
        char *text = hoist_names(tu);
        char *names_at = hoist_names_path(path);
        ok = write_new(names_at, text) == 0;
        free(names_at);
        free(text);
    }
    ok = ok && clang_saveTranslationUnit(tu, tmp, clang_defaultSaveOptions(tu)) ==
                   CXSaveError_None &&
         rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(index);
    free(tmp);
    return ok;
}

/* What this thread's builds took (preamble_build_cpu). */
static __thread double build_cpu;

double preamble_build_cpu(void)
{
    return build_cpu;
}

/* Find or build the PCH of a key (without the lock: parses of other sets
 * go on meanwhile); false when it cannot be had. */
static bool obtain(const char *pch, unsigned long long key, const char *prelude,
                   const char **argv, size_t argc, bool names)
{
    char *prelude_path = xasprintf("%s/" ENTRY_PREFIX "%016llx.prelude.h", p.dir, key);
    char *failed = xasprintf("%s/" ENTRY_PREFIX "%016llx.failed", p.dir, key);
    /* clang checks a PCH against each file it was built from, the prelude
     * included: an existing prelude (same key, same text) is never
     * rewritten. A set that failed is not tried again until evicted. */
    /* A set built before a file hoisted with it has no names: built again. */
    char *names_at = hoist_names_path(pch);
    bool have = access(pch, R_OK) == 0 && access(prelude_path, R_OK) == 0 &&
                (!names || access(names_at, R_OK) == 0);
    bool failed_before = !have && access(failed, F_OK) == 0;
    if (!have && !failed_before) {
        /* One process builds a set, the others (the run's other workers,
         * another gpulint) wait for it and use what it built: both workers
         * of a cold run start on files of the same set. Without the lock
         * (it cannot be made) each builds its own, as before. */
        char *lock_path = xasprintf("%s/" ENTRY_PREFIX "%016llx.lock", p.dir, key);
        int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        while (lock >= 0 && flock(lock, LOCK_EX) != 0 && errno == EINTR)
            ;
        have = access(pch, R_OK) == 0 && access(prelude_path, R_OK) == 0 &&
               (!names || access(names_at, R_OK) == 0);
        failed_before = !have && access(failed, F_OK) == 0;
        if (!have && !failed_before) {
            double cpu_start = thread_cpu_seconds();
            have = (access(prelude_path, R_OK) == 0 || write_new(prelude_path, prelude) == 0) &&
                   build(pch, prelude_path, argv, argc, names);
            if (!have)
                write_new(failed, "");
            double cpu = thread_cpu_seconds() - cpu_start;
            build_cpu += cpu;
            if (getenv("GPULINT_TRACE"))
                fprintf(stderr, "gpulint: trace: build %s (process %d, %s, %.3f s CPU)\n", pch,
                        (int)getpid(), have ? "built" : "failed", cpu);
        }
        /* Gone before it is let go: whoever opens it later finds the PCH
         * (or the failure) once it holds a lock, on this file or a new one. */
        if (lock >= 0) {
            unlink(lock_path);
            close(lock);
        }
        free(lock_path);
    }
    /* The PCH's access time is the last use: eviction goes by it (last_use).
     * Not its mtime: a set chained on this one (extract.c,
     * chain_include_sets) records it, and clang refuses the chained set
     * once it changes. Never the prelude's times: clang would take the PCH
     * for stale. */
    const struct timespec used_now[2] = {{.tv_nsec = UTIME_NOW}, {.tv_nsec = UTIME_OMIT}};
    utimensat(AT_FDCWD, have ? pch : failed, used_now, 0);
    free(prelude_path);
    free(failed);
    free(names_at);
    return have;
}

const char *preamble_pch(unsigned long long key, const char *prelude, const char **argv,
                         size_t argc)
{
    pthread_mutex_lock(&p.lock);
    set_entry *s = p.dir ? find_set(key) : NULL;
    if (!s || s->uses < 2) {
        pthread_mutex_unlock(&p.lock);
        return NULL;
    }
    if (s->state == SET_UNTRIED) {
        s->state = SET_BUILDING;
        char *pch = preamble_pch_path(key);
        pthread_mutex_unlock(&p.lock);
        bool usable = obtain(pch, key, prelude, argv, argc, s->names);
        pthread_mutex_lock(&p.lock);
        s = find_set(key);   /* sets[] does not move once the workers run */
        s->pch = pch;
        s->usable = usable;
        s->state = SET_DONE;
        pthread_cond_broadcast(&p.built);
    }
    while (s->state != SET_DONE)
        pthread_cond_wait(&p.built, &p.lock);
    const char *pch = s->usable ? s->pch : NULL;
    pthread_mutex_unlock(&p.lock);
    return pch;
}

char *preamble_pch_path(unsigned long long key)
{
    return p.dir ? xasprintf("%s/" ENTRY_PREFIX "%016llx.pch", p.dir, key) : NULL;
}

void preamble_discard(unsigned long long key)
{
    pthread_mutex_lock(&p.lock);
    set_entry *s = find_set(key);
    if (s && s->state == SET_DONE && s->usable) {
        unlink(s->pch);
        s->usable = false;
    }
    pthread_mutex_unlock(&p.lock);
}

void preamble_cleanup(void)
{
    for (size_t i = 0; i < p.n; i++)
        free(p.sets[i].pch);
    free(p.sets);
    free(p.dir);
    p.sets = NULL;
    p.n = 0;
    p.dir = NULL;
}
