#define _GNU_SOURCE
#include "extract/hoist.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/directive.h"
#include "input/inputs.h"
#include "util/str_table.h"
#include "util/xalloc.h"

#define MAX_NESTING 8

static bool ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c)
{
    return ident_start(c) || (c >= '0' && c <= '9');
}

/* Call add(word) for each identifier of [p, end); the letters of a number
 * (1ULL, 0x1f) are not identifiers. */
static void each_word(const char *p, const char *end, void (*add)(void *, const char *, size_t),
                      void *ctx)
{
    while (p < end) {
        const char *s = p;
        if (ident_start(*p)) {
            while (p < end && ident_char(*p))
                p++;
            add(ctx, s, (size_t)(p - s));
        } else if (*p >= '0' && *p <= '9') {
            while (p < end && (ident_char(*p) || *p == '.'))
                p++;
        } else {
            p++;
        }
    }
}

static void add_word(void *ctx, const char *s, size_t n)
{
    hoist_info *info = ctx;
    *XPUSH(info->words, info->nwords) = xstrndup(s, n);
}

/* Record the macro a #define or #undef of P names (part 2 checks every
 * one) and give its name's length; 0 when the operand is no identifier. */
static size_t record_macro(hoist_info *info, const char *operand, const char *end)
{
    size_t n = identifier_at(operand, end);
    if (n > 0)
        *XPUSH(info->macros, info->nmacros) = xstrndup(operand, n);
    return n;
}

static bool crossed_already(const hoist_info *info, const source_file *header)
{
    for (size_t i = 0; i < info->nvisited; i++)
        if (info->visited[i] == header)
            return true;
    return false;
}

static bool cross(const source_file *h, const snapshot_reach *reach, hoist_info *info, int depth)
{
    if (crossed_already(info, h))
        return true;
    if (depth > MAX_NESTING)
        return false;
    *XPUSH(info->visited, info->nvisited) = h;
    const char *guard = NULL;
    size_t guard_len = 0;
    bool guard_open = false, guard_defined = false, ended = false, first = true;
    int nesting = 0;   /* conditionals open inside the guard */
    text_line line;
    text_lines_begin(&line, h->masked, h->len);
    while (text_lines_next(&line)) {
        if (line.blank)
            continue;
        if (ended)
            return false;   /* code after the guard's #endif */
        each_word(line.start, line.end, add_word, info);
        const char *s = line.directive, *operand;
        bool was_first = first;
        first = false;
        if (!s) {
            if (guard_open && !guard_defined)
                return false;
            continue;
        }
        if ((operand = operand_after(s, line.end, "pragma")) && word_is(operand, line.end, "once"))
            continue;
        if (was_first && (operand = operand_after(s, line.end, "ifndef"))) {
            guard = operand;
            guard_len = identifier_at(guard, line.end);
            guard_open = guard_len > 0;
            if (!guard_open)
                return false;
            continue;
        }
        if ((operand = operand_after(s, line.end, "define"))) {
            size_t n = record_macro(info, operand, line.end);
            if (n == 0)
                return false;
            if (guard_open && !guard_defined) {
                if (n != guard_len || memcmp(operand, guard, n) != 0)
                    return false;
                guard_defined = true;
            }
            continue;
        }
        if (guard_open && !guard_defined)
            return false;
        /* A conditional tests names that are P's words: part 3 checks that
         * no hoisted header changes them. */
        if (word_is(s, line.end, "if") || word_is(s, line.end, "ifdef") ||
            word_is(s, line.end, "ifndef")) {
            nesting++;
            continue;
        }
        if (word_is(s, line.end, "elif") || word_is(s, line.end, "else") ||
            word_is(s, line.end, "elifdef") || word_is(s, line.end, "elifndef")) {
            if (nesting == 0)
                return false;   /* the guard's own #else */
            continue;
        }
        if (word_is(s, line.end, "endif")) {
            if (nesting > 0)
                nesting--;
            else if (guard_open)
                ended = true;
            else
                return false;
            continue;
        }
        /* A macro P removes counts as one it defines (part 2). */
        if ((operand = operand_after(s, line.end, "undef"))) {
            if (record_macro(info, operand, line.end) == 0)
                return false;
            continue;
        }
        if (!(operand = operand_after(s, line.end, "include")))
            return false;   /* #error, #line, other pragmas */
        /* Quoted names are blanked in the masked text: read the text. */
        const char *t = h->text + (operand - h->masked);
        const char *t_end = h->text + (line.end - h->masked);
        char close_char = t < t_end && *t == '<' ? '>' : t < t_end && *t == '"' ? '"' : 0;
        const char *close = close_char ? memchr(t + 1, close_char, (size_t)(t_end - t - 1)) : NULL;
        if (!close)
            return false;   /* a macro names it */
        size_t len = (size_t)(close - t - 1);
        if (reach_may_name(reach, t + 1, len)) {
            const source_file *inner = reach_only_candidate(reach, t + 1, len);
            if (!inner || !cross(inner, reach, info, depth + 1))
                return false;
        } else if (close_char == '"') {
            return false;   /* a file outside the snapshot: not read here */
        }
    }
    return nesting == 0 && (!guard_open || ended);
}

bool hoist_cross(const source_file *header, const snapshot_reach *reach, hoist_info *info)
{
    if (header->lang != LANG_C || !cross(header, reach, info, 0))
        return false;
    /* Each use counts the uses before it, the hoisted headers' among them. */
    for (size_t i = 0; i < info->nwords; i++)
        if (strcmp(info->words[i], "__COUNTER__") == 0)
            return false;
    info->crossed = true;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_unique(char **items, size_t *n)
{
    if (*n > 1)
        qsort(items, *n, sizeof *items, cmp_str);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        if (kept && strcmp(items[kept - 1], items[i]) == 0) {
            free(items[i]);
            continue;
        }
        items[kept++] = items[i];
    }
    *n = kept;
}

void hoist_info_finish(hoist_info *info)
{
    sort_unique(info->macros, &info->nmacros);
    sort_unique(info->words, &info->nwords);
}

void hoist_info_free(hoist_info *info)
{
    str_array_free(info->macros, info->nmacros);
    str_array_free(info->words, info->nwords);
    free(info->visited);
    *info = (hoist_info){0};
}

/* One file entered by the set's build: its path and the chain of angled
 * names whose includes reached it ("<a.h> <b.h>", the prelude's first). */
typedef struct {
    char *path;
    char *chain;
    size_t next;   /* 1 + the index of the next entry of the same file, 0: none */
} entered;

typedef struct {
    CXTranslationUnit tu;
    char **words;
    size_t nwords;
    /* hoist_names' words and files by name: the words of a set's headers
     * (clang-c/Index.h, glibc's) are hundreds of thousands, a few thousand
     * of them distinct; sorting them all with their repeats was 5 % of a
     * cold run's perf samples here (docs/performance.md, "Branch s12-speed"). The
     * table owns the words; a file's value is 1 + its first entry's index. */
    str_table word_set, file_set;
    entered *files;
    size_t nfiles;
    char **defs;   /* "name path" */
    size_t ndefs;
    char **bodies;   /* "name word word...": the words of each definition */
    size_t nbodies;
} names_scan;

static void scan_word(void *ctx, const char *s, size_t n)
{
    names_scan *scan = ctx;
    *XPUSH(scan->words, scan->nwords) = xstrndup(s, n);
}

/* scan_word for hoist_names: each word once, owned by word_set. */
static void scan_distinct_word(void *ctx, const char *s, size_t n)
{
    names_scan *scan = ctx;
    char word[256];
    char *key = n < sizeof word ? word : xmalloc(n + 1);
    memcpy(key, s, n);
    key[n] = '\0';
    bool added;
    str_table_entry *e = str_table_add(&scan->word_set, 0, key, &added);
    if (added)
        *XPUSH(scan->words, scan->nwords) = e->key;
    if (key != word)
        free(key);
}

static char *file_path(CXFile file)
{
    CXString name = clang_getFileName(file);
    char *path = xstrdup(clang_getCString(name) ? clang_getCString(name) : "");
    clang_disposeString(name);
    return path;
}

/* The name the include directive at `loc` spells ("<a.h>", "\"a.h\""), or
 * "?" when its line cannot be read. */
static char *spelled_at(CXTranslationUnit tu, CXSourceLocation loc)
{
    CXFile file = NULL;
    unsigned line_no = 0;
    clang_getFileLocation(loc, &file, &line_no, NULL, NULL);
    size_t size = 0;
    const char *text = file ? clang_getFileContents(tu, file, &size) : NULL;
    text_line line;
    text_lines_begin(&line, text ? text : "", text ? size : 0);
    while (text_lines_next(&line)) {
        const char *operand;
        if (line.number != line_no)
            continue;
        if (!line.directive || !(operand = operand_after(line.directive, line.end, "include")))
            break;
        char close = *operand == '<' ? '>' : *operand == '"' ? '"' : 0;
        const char *end = close ? memchr(operand + 1, close, (size_t)(line.end - operand - 1)) : NULL;
        if (end)
            return xstrndup(operand, (size_t)(end - operand + 1));
        break;
    }
    return xstrdup("?");
}

static void on_inclusion(CXFile file, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
    names_scan *scan = data;
    if (depth == 0)
        return;   /* the prelude itself */
    byte_buf chain = {0};
    buf_append(&chain, "", 0);
    for (unsigned k = depth; k-- > 0;) {
        char *name = spelled_at(scan->tu, stack[k]);
        if (chain.len)
            buf_append(&chain, " ", 1);
        buf_append(&chain, name, strlen(name));
        free(name);
    }
    char *path = file_path(file);
    bool added;
    str_table_entry *first = str_table_add(&scan->file_set, 0, path, &added);
    size_t index = scan->nfiles;
    if (added) {
        first->value = (void *)(uintptr_t)(index + 1);
    } else {
        size_t last = (size_t)(uintptr_t)first->value - 1;
        while (scan->files[last].next)
            last = scan->files[last].next - 1;
        scan->files[last].next = index + 1;
    }
    *XPUSH(scan->files, scan->nfiles) = (entered){path, chain.data, 0};
    if (!added)
        return;   /* its words and #undefs are in already */
    size_t size = 0;
    const char *text = clang_getFileContents(scan->tu, file, &size);
    if (!text)
        return;
    each_word(text, text + size, scan_distinct_word, scan);
    /* An #undef leaves no cursor: every one of the text counts, taken or not. */
    text_line line;
    text_lines_begin(&line, text, size);
    while (text_lines_next(&line)) {
        const char *operand;
        if (line.directive && (operand = operand_after(line.directive, line.end, "undef"))) {
            size_t n = identifier_at(operand, line.end);
            if (n)
                *XPUSH(scan->defs, scan->ndefs) = xasprintf("%.*s %s", (int)n, operand, path);
        }
    }
}

/* The macros the build defined (a definition in a branch not taken is no
 * cursor), with their files. */
static enum CXChildVisitResult on_cursor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    names_scan *scan = data;
    if (clang_getCursorKind(c) != CXCursor_MacroDefinition)
        return CXChildVisit_Continue;
    CXFile file = NULL;
    clang_getFileLocation(clang_getCursorLocation(c), &file, NULL, NULL, NULL);
    if (!file)
        return CXChildVisit_Continue;   /* built in */
    unsigned offset = 0;
    clang_getFileLocation(clang_getCursorLocation(c), NULL, NULL, NULL, &offset);
    char *path = file_path(file);
    CXString name = clang_getCursorSpelling(c);
    *XPUSH(scan->defs, scan->ndefs) = xasprintf("%s %s", clang_getCString(name), path);
    /* Its body's words (to the end of the line, continuation lines too): a
     * name P uses may expand into them (part 3). */
    size_t size = 0;
    const char *text = clang_getFileContents(scan->tu, file, &size);
    byte_buf body = {0};
    buf_append(&body, clang_getCString(name), strlen(clang_getCString(name)));
    if (text && offset < size) {
        const char *end = text + offset;
        while (end < text + size && *end != '\n')
            end += end[0] == '\\' && end + 1 < text + size && end[1] == '\n' ? 2 : 1;
        names_scan words = {0};
        each_word(text + offset, end, scan_word, &words);
        for (size_t w = 1; w < words.nwords; w++) {   /* [0] is the name */
            buf_append(&body, " ", 1);
            buf_append(&body, words.words[w], strlen(words.words[w]));
        }
        str_array_free(words.words, words.nwords);
    }
    *XPUSH(scan->bodies, scan->nbodies) = body.data;
    clang_disposeString(name);
    free(path);
    return CXChildVisit_Continue;
}

char *hoist_names(CXTranslationUnit tu)
{
    names_scan scan = {.tu = tu};
    clang_getInclusions(tu, on_inclusion, &scan);
    clang_visitChildren(clang_getTranslationUnitCursor(tu), on_cursor, &scan);
    if (scan.nwords > 1)   /* distinct already */
        qsort(scan.words, scan.nwords, sizeof *scan.words, cmp_str);
    sort_unique(scan.defs, &scan.ndefs);
    sort_unique(scan.bodies, &scan.nbodies);
    byte_buf out = {0};
    buf_append(&out, "", 0);
    for (size_t i = 0; i < scan.nbodies; i++) {
        buf_append(&out, "M ", 2);
        buf_append(&out, scan.bodies[i], strlen(scan.bodies[i]));
        buf_append(&out, "\n", 1);
        free(scan.bodies[i]);
    }
    free(scan.bodies);
    for (size_t i = 0; i < scan.nwords; i++) {
        buf_append(&out, "W ", 2);
        buf_append(&out, scan.words[i], strlen(scan.words[i]));
        buf_append(&out, "\n", 1);
    }
    /* A macro of the prelude itself (the file's own leading #define lines)
     * comes before P in both orders: only those of entered files. */
    for (size_t i = 0; i < scan.ndefs; i++) {
        const char *path = strchr(scan.defs[i], ' ') + 1;
        str_table_entry *first = str_table_find(&scan.file_set, 0, path);
        for (size_t f = first ? (size_t)(uintptr_t)first->value : 0; f; f = scan.files[f - 1].next) {
            char *line = xasprintf("D %.*s %s\n", (int)(path - 1 - scan.defs[i]), scan.defs[i],
                                   scan.files[f - 1].chain);
            buf_append(&out, line, strlen(line));
            free(line);
        }
        free(scan.defs[i]);
    }
    for (size_t f = 0; f < scan.nfiles; f++) {
        free(scan.files[f].path);
        free(scan.files[f].chain);
    }
    free(scan.files);
    free(scan.words);
    str_table_clear(&scan.word_set, NULL);
    str_table_clear(&scan.file_set, NULL);
    free(scan.defs);
    return out.data;
}

char *hoist_names_path(const char *pch_path)
{
    size_t n = strlen(pch_path);
    if (n > 4 && strcmp(pch_path + n - 4, ".pch") == 0)
        n -= 4;
    return xasprintf("%.*s.names", (int)n, pch_path);
}

/* A set's names, read once per process: its words, and each macro with a
 * chain of includes that reached a file defining or removing it. */
typedef struct {
    char *pch;
    char **words;          /* sorted */
    size_t nwords;
    char **def_names;      /* sorted by name */
    char **def_chains;
    size_t ndefs;
    char **bodies;         /* "name word...", sorted: each definition's words */
    size_t nbodies;
    bool loaded;
} set_names;

static struct {
    set_names *sets;
    size_t n;
    pthread_mutex_t lock;
} memo = {.lock = PTHREAD_MUTEX_INITIALIZER};

typedef struct {
    char *name;
    char *chain;
} def_entry;

static int by_def_name(const void *a, const void *b)
{
    return strcmp(((const def_entry *)a)->name, ((const def_entry *)b)->name);
}

static void load_names(set_names *s)
{
    char *text = NULL;
    size_t len = 0;
    char *path = hoist_names_path(s->pch);
    s->loaded = inputs_read_file(path, &text, &len) == 0 && text;
    free(path);
    if (!s->loaded)
        return;
    def_entry *defs = NULL;
    size_t ndefs = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        if (n > 2 && line[0] == 'W') {
            *XPUSH(s->words, s->nwords) = xstrndup(line + 2, n - 2);
        } else if (n > 2 && line[0] == 'M') {
            *XPUSH(s->bodies, s->nbodies) = xstrndup(line + 2, n - 2);
        } else if (n > 2 && line[0] == 'D') {
            const char *name = line + 2;
            const char *sp = memchr(name, ' ', n - 2);
            if (sp)
                *XPUSH(defs, ndefs) = (def_entry){xstrndup(name, (size_t)(sp - name)),
                                                  xstrndup(sp + 1, (size_t)(line + n - sp - 1))};
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    if (ndefs > 1)
        qsort(defs, ndefs, sizeof *defs, by_def_name);
    s->def_names = xcalloc(ndefs ? ndefs : 1, sizeof *s->def_names);
    s->def_chains = xcalloc(ndefs ? ndefs : 1, sizeof *s->def_chains);
    for (size_t i = 0; i < ndefs; i++) {
        s->def_names[i] = defs[i].name;
        s->def_chains[i] = defs[i].chain;
    }
    s->ndefs = ndefs;
    free(defs);
}

static set_names *names_of(const char *pch_path)
{
    for (size_t i = 0; i < memo.n; i++)
        if (strcmp(memo.sets[i].pch, pch_path) == 0)
            return &memo.sets[i];
    set_names *s = XPUSH(memo.sets, memo.n);
    *s = (set_names){.pch = xstrdup(pch_path)};
    load_names(s);
    return s;
}

static bool sorted_has(char *const *items, size_t n, const char *key, size_t *at)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(items[mid], key);
        if (c == 0) {
            if (at)
                *at = mid;
            return true;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Whether a chain of includes passes through a header of `unhoisted` (its
 * "#include <h>" lines): that header comes before P in the file too, and
 * an angled include of the same name opens the same file. */
static bool chain_unhoisted(const char *chain, const char *unhoisted)
{
    for (const char *c = chain; *c;) {
        size_t n = strcspn(c, " ");
        for (const char *u = unhoisted; *u;) {
            size_t ulen = strcspn(u, "\n");
            if (c[0] == '<' && ulen == n + 9 && memcmp(u, "#include ", 9) == 0 &&
                memcmp(u + 9, c, n) == 0)
                return true;
            u += ulen + (u[ulen] == '\n');
        }
        c += n + (c[n] == ' ');
    }
    return false;
}

/* The names a word may expand into: the words of every definition of it
 * in the set (s->bodies, sorted by name), added to *names. */
static void add_expansions(const set_names *s, const char *word, char ***names, size_t *n)
{
    size_t wl = strlen(word), lo = 0, hi = s->nbodies;
    while (lo < hi) {   /* the first body whose name is not below word */
        size_t mid = lo + (hi - lo) / 2;
        const char *b = s->bodies[mid];
        size_t bl = strcspn(b, " ");
        int c = strncmp(b, word, bl < wl ? bl : wl);
        if (c < 0 || (c == 0 && bl < wl))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < s->nbodies; i++) {
        const char *b = s->bodies[i];
        if (strncmp(b, word, wl) != 0 || (b[wl] != ' ' && b[wl] != '\0'))
            break;
        for (const char *w = b + wl; *w;) {
            w += *w == ' ';
            size_t len = strcspn(w, " ");
            if (len)
                *XPUSH(*names, *n) = xstrndup(w, len);
            w += len;
        }
    }
}

bool hoist_safe(const char *pch_path, const char *unhoisted, const hoist_info *info)
{
    pthread_mutex_lock(&memo.lock);
    const set_names *s = names_of(pch_path);
    bool safe = s->loaded;
    /* Part 2: the set's headers name no macro of P. */
    for (size_t i = 0; safe && i < info->nmacros; i++)
        safe = !sorted_has(s->words, s->nwords, info->macros[i], NULL);
    /* Part 3: no word of P, nor any word a macro it names expands into
     * (through the set's definitions, all of them), is a macro that a
     * hoisted header brings. */
    char **seen = NULL;
    size_t nseen = 0;
    for (size_t i = 0; i < info->nwords; i++)
        *XPUSH(seen, nseen) = xstrdup(info->words[i]);
    sort_unique(seen, &nseen);
    char **todo = NULL;
    size_t ntodo = 0;
    for (size_t i = 0; i < nseen; i++)
        *XPUSH(todo, ntodo) = xstrdup(seen[i]);
    while (safe && ntodo > 0) {
        char *word = todo[--ntodo];
        size_t at;
        if (sorted_has(s->def_names, s->ndefs, word, &at)) {
            while (at > 0 && strcmp(s->def_names[at - 1], word) == 0)
                at--;
            for (; safe && at < s->ndefs && strcmp(s->def_names[at], word) == 0; at++)
                safe = chain_unhoisted(s->def_chains[at], unhoisted);
        }
        char **more = NULL;
        size_t nmore = 0;
        add_expansions(s, word, &more, &nmore);
        for (size_t m = 0; m < nmore; m++) {
            if (sorted_has(seen, nseen, more[m], NULL)) {
                free(more[m]);
                continue;
            }
            *XPUSH(todo, ntodo) = xstrdup(more[m]);
            *XPUSH(seen, nseen) = more[m];
            sort_unique(seen, &nseen);   /* few: a macro's body names a handful */
        }
        free(more);
        free(word);
    }
    str_array_free(todo, ntodo);
    str_array_free(seen, nseen);
    pthread_mutex_unlock(&memo.lock);
    return safe;
}
