#define _GNU_SOURCE
#include "input/include_names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "input/directive.h"
#include "input/macro_call.h"
#include "util/xalloc.h"

/* A chain of macros naming macros longer than this is taken as one that
 * names no file (clang has no such bound; real code uses one or two). */
#define MAX_CHAIN 16

typedef enum {
    DEF_FILE,      /* "x.h" or <x.h> */
    DEF_MACRO,     /* another macro's name */
    DEF_FUNCTION,  /* a function-like macro of one line (input/macro_call.h) */
    DEF_OTHER,     /* anything else: no file name gpulint can tell */
} def_kind;

typedef struct {
    char *name;
    def_kind kind;
    char *value;   /* DEF_FILE: the spelling; DEF_MACRO: the name;
                      DEF_FUNCTION: the body; else NULL */
    char *text;    /* an object-like macro: its replacement text, as the
                      expansion of an operand (below) takes it; NULL for a
                      function-like one */
    bool quoted;
    char **params;   /* DEF_FUNCTION: its parameters */
    size_t nparams;
    bool variadic;   /* DEF_FUNCTION: its last parameter takes the rest */
    const char *flag;   /* a -D of a file's compile-database entry: its text
                           after the -D (that file's string), which counts for
                           the units with that -D only; NULL for a #define or
                           the config's defines, which count for every unit */
} macro_def;

struct macro_names {
    macro_def *defs;   /* sorted by name */
    size_t n, cap;
};

static bool is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether [p, end) of the masked text is blank (a comment is blanked). */
static bool rest_blank(const char *p, const char *end)
{
    return skip_directive_blanks(p, end) == end;
}

/* A value [p, end): a file name, a macro name or neither. `masked` is the
 * same span with comments blanked (NULL: the value has no comments, a -D). */
static void classify(const char *p, const char *end, const char *masked, macro_def *d)
{
    const char *m = masked ? masked : p;
    const char *start = skip_directive_blanks(p, end);
    size_t off = (size_t)(start - p);
    d->kind = DEF_OTHER;
    d->value = NULL;
    if (start < end && (*start == '"' || *start == '<')) {
        char close = *start == '"' ? '"' : '>';
        const char *q = memchr(start + 1, close, (size_t)(end - start - 1));
        if (q && q > start + 1 && rest_blank(m + (q + 1 - p), m + (end - p))) {
            d->kind = DEF_FILE;
            d->quoted = close == '"';
            d->value = xstrndup(start + 1, (size_t)(q - start - 1));
        }
    } else if (start < end && (isalpha((unsigned char)*start) || *start == '_')) {
        size_t n = 0;
        while (start + n < end && is_ident(start[n]))
            n++;
        if (rest_blank(m + off + n, m + (end - p))) {
            d->kind = DEF_MACRO;
            d->value = xstrndup(start, n);
        }
    }
}

static void add_def(macro_names *mn, macro_def d)
{
    if (mn->n == mn->cap) {
        mn->cap = mn->cap ? 2 * mn->cap : 64;
        mn->defs = xrealloc(mn->defs, mn->cap * sizeof *mn->defs);
    }
    mn->defs[mn->n++] = d;
}

/* s without its comments, each one blank (string and character literals
 * kept whole), trimmed; malloc'd. */
static char *strip_comments(const char *s)
{
    byte_buf b = {0};
    buf_append(&b, "", 0);
    for (const char *p = s; *p;) {
        if (*p == '"' || *p == '\'') {
            const char *start = p;
            p = macro_literal_end(p);
            buf_append(&b, start, (size_t)(p - start));
        } else if (p[0] == '/' && p[1] == '/') {
            break;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *close = strstr(p + 2, "*/");
            if (!close)
                break;
            buf_append(&b, " ", 1);
            p = close + 2;
        } else {
            buf_append(&b, p++, 1);
        }
    }
    const char *start = b.data;
    while (isspace((unsigned char)*start))
        start++;
    size_t n = strlen(start);
    while (n > 0 && isspace((unsigned char)start[n - 1]))
        n--;
    char *out = xstrndup(start, n);
    buf_free(&b);
    return out;
}

/* The text of a definition from `at` (an offset in f's text) to the end
 * of its logical line: lines joined where they end in a backslash, then
 * comments left out (a comment is a blank), as the preprocessor's phases
 * do; trimmed, malloc'd. */
static char *logical_value(const source_file *f, size_t at)
{
    byte_buf out = {0};
    const char *t = f->text, *end = f->text + f->len;
    const char *p = t + at;
    while (p < end && *p != '\n') {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *stop = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
        bool continued = stop > p && stop[-1] == '\\';
        buf_append(&out, p, (size_t)(stop - p - (continued ? 1 : 0)));
        p = continued && eol < end ? eol + 1 : eol;
        if (!continued)
            break;
    }
    char *value = strip_comments(out.data ? out.data : "");
    buf_free(&out);
    return value;
}

/* Each `#define NAME` line of f outside comments: fn(name, len, value,
 * function_like, ctx), value its logical line after the name
 * (logical_value), a function-like macro's from its '('. false from fn
 * stops the scan, and is returned. */
typedef bool (*define_fn)(const char *name, size_t len, const char *value, bool function_like,
                          void *ctx);

static bool each_define(const source_file *f, define_fn fn, void *ctx)
{
    const char *m = f->masked ? f->masked : f->text;
    text_line line;
    text_lines_begin(&line, m, f->len);
    while (text_lines_next(&line)) {
        const char *name = line.directive ? operand_after(line.directive, line.end, "define") : NULL;
        size_t n = name ? identifier_at(name, line.end) : 0;
        if (n == 0)
            continue;
        const char *after = name + n;
        bool function_like = after < line.end && *after == '(';
        char *value = logical_value(f, (size_t)(after - m));
        bool go_on = fn(f->text + (name - m), n, value, function_like, ctx);
        free(value);
        if (!go_on)
            return false;
    }
    return true;
}

static bool add_source_def(const char *name, size_t len, const char *value, bool function_like,
                           void *ctx)
{
    macro_def d = {.name = xstrndup(name, len), .kind = DEF_OTHER};
    const char *end = value + strlen(value);
    if (function_like && macro_call_params(value, end, &d.params, &d.nparams, &d.variadic,
                                           &d.value)) {
        d.kind = DEF_FUNCTION;
    } else if (!function_like) {
        classify(value, end, NULL, &d);
        d.text = xstrdup(value);
    }
    add_def(ctx, d);
    return true;
}

/* "-DNAME=VALUE", "-DNAME" (its value is 1) of a file's entry (from_entry),
 * or the config's "NAME=VALUE". */
static void add_flag_def(macro_names *mn, const char *def, bool from_entry)
{
    size_t n = 0;
    while (is_ident(def[n]))
        n++;
    if (n == 0)
        return;
    macro_def d = {.name = xstrndup(def, n), .flag = from_entry ? def : NULL};
    if (def[n] == '=') {
        classify(def + n + 1, def + strlen(def), NULL, &d);
        d.text = xstrdup(def + n + 1);
    } else {
        d.kind = DEF_OTHER;
        d.text = xstrdup("1");   /* -DNAME is NAME defined as 1 */
    }
    add_def(mn, d);
}

static void add_args(macro_names *mn, char *const *args, size_t nargs)
{
    for (size_t a = 0; a < nargs; a++) {
        if (strcmp(args[a], "-D") == 0 && a + 1 < nargs)
            add_flag_def(mn, args[++a], true);
        else if (strncmp(args[a], "-D", 2) == 0)
            add_flag_def(mn, args[a] + 2, true);
    }
}

/* Whether f's arguments have the -D whose text after the -D is `def`. */
static bool has_define_flag(const source_file *f, const char *def)
{
    for (size_t a = 0; a < f->nargs; a++) {
        const char *text = NULL;
        if (strcmp(f->args[a], "-D") == 0 && a + 1 < f->nargs)
            text = f->args[++a];
        else if (strncmp(f->args[a], "-D", 2) == 0)
            text = f->args[a] + 2;
        if (text && strcmp(text, def) == 0)
            return true;
    }
    return false;
}

static int def_cmp(const void *a, const void *b)
{
    return strcmp(((const macro_def *)a)->name, ((const macro_def *)b)->name);
}

macro_names *macro_names_build(const snapshot *snap, const gl_config *cfg)
{
    macro_names *mn = xcalloc(1, sizeof *mn);
    for (size_t i = 0; i < snap->nfiles + snap->ncontext; i++) {
        const source_file *f = i < snap->nfiles ? &snap->files[i]
                                                : &snap->context[i - snap->nfiles];
        each_define(f, add_source_def, mn);
        add_args(mn, f->args, f->nargs);
    }
    for (size_t i = 0; cfg && i < cfg->defines.n; i++)
        add_flag_def(mn, cfg->defines.items[i], false);
    if (mn->n)
        qsort(mn->defs, mn->n, sizeof *mn->defs, def_cmp);
    return mn;
}

void macro_names_free(macro_names *mn)
{
    if (!mn)
        return;
    for (size_t i = 0; i < mn->n; i++) {
        free(mn->defs[i].name);
        free(mn->defs[i].value);
        free(mn->defs[i].text);
        str_array_free(mn->defs[i].params, mn->defs[i].nparams);
    }
    free(mn->defs);
    free(mn);
}

/* strcmp(def_name, the first len bytes of name), in the order the
 * definitions are sorted in. */
static int key_cmp(const char *def_name, const char *name, size_t len)
{
    int c = strncmp(def_name, name, len);
    return c ? c : def_name[len] != '\0';
}

/* The index of the first definition of `name` (len bytes), or where it
 * would be. */
static size_t first_def(const macro_names *mn, const char *name, size_t len)
{
    size_t lo = 0, hi = mn->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(mn->defs[mid].name, name, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The expansion of an #include's operand: identifiers that name macros
 * replaced as the preprocessor does (an object-like macro by its text, a
 * call of a function-like one by its body with the arguments, each
 * macro-expanded first where the body does not take it with # or ##), and
 * the result rescanned with what follows it. A macro's name met while its
 * own replacement is rescanned (directly, or through the macros it
 * expands to) is left as it is, for good, as the preprocessor leaves it
 * (`#define table table`). A macro with several definitions (any file, any
 * branch: a superset) gives one expansion per definition. Bounded: a tree
 * of alternatives too large is one gpulint cannot follow.
 *
 * In the text being rescanned, a replacement is marked as a region:
 * REGION_OPEN, the macro's name, REGION_OPEN, the replacement,
 * REGION_CLOSE; the macros of the regions open at a point are the ones
 * not expanded there. A name left alone is marked with KEPT before it, so
 * that no later rescan expands it either. Neither byte can be in an
 * operand's text (a control character, outside a literal); both are
 * taken out of each expansion. */
#define MAX_EXPANSIONS 4096    /* macros replaced, for one operand */
#define MAX_ALTERNATIVES 256   /* different expansions of one text */
#define REGION_OPEN '\x01'
#define REGION_CLOSE '\x02'
#define KEPT '\x03'

typedef struct {
    const macro_names *mn;
    const source_file *flags_of;
    unsigned budget;   /* expansions left */
} expander;

static bool def_applies(const expander *x, const macro_def *d)
{
    return !(d->flag && x->flags_of && !has_define_flag(x->flags_of, d->flag));
}

/* s without the marks of the rescan (malloc'd). */
static char *unmarked(const char *s)
{
    char *out = xstrdup(s), *o = out;
    for (const char *p = s; *p; p++)
        if (*p == REGION_OPEN) {
            const char *close = strchr(p + 1, REGION_OPEN);
            p = close ? close : p + strlen(p) - 1;
        } else if (*p != REGION_CLOSE && *p != KEPT) {
            *o++ = *p;
        }
    *o = '\0';
    return out;
}

static bool push_alternative(str_list *out, const char *marked)
{
    char *s = unmarked(marked);
    bool ok = true, known = false;
    for (size_t i = 0; i < out->n && !known; i++)
        known = strcmp(out->items[i], s) == 0;
    if (!known && out->n >= MAX_ALTERNATIVES)
        ok = false;
    else if (!known)
        str_list_push(out, s);
    free(s);
    return ok;
}

static void str_list_clear(str_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    *l = (str_list){0};
}

/* Whether the macro `name` (len bytes) is one whose replacement is being
 * rescanned: `open` holds REGION_OPEN name REGION_OPEN for each. */
static bool is_open(const char *open, const char *name, size_t len)
{
    for (const char *p = open; (p = strchr(p, REGION_OPEN)); p++) {
        const char *close = strchr(p + 1, REGION_OPEN);
        if (!close)
            return false;
        if ((size_t)(close - p - 1) == len && strncmp(p + 1, name, len) == 0)
            return true;
        p = close;
    }
    return false;
}

static bool expand_text(expander *x, const char *open, const char *done, const char *rest,
                        str_list *out);

/* done followed by the expansion of `replacement`, the replacement of the
 * macro `name` (len bytes), and then rest; `closes` regions end before it
 * (those a call's '(' was found behind). */
static bool expand_after(expander *x, const char *open, const char *done, const char *name,
                         size_t len, const char *replacement, size_t closes, const char *rest,
                         str_list *out)
{
    if (x->budget == 0)
        return false;
    x->budget--;
    char *ends = xcalloc(closes + 1, 1);
    memset(ends, REGION_CLOSE, closes);
    char *joined = xasprintf("%s%c%.*s%c%s%c%s", ends, REGION_OPEN, (int)len, name, REGION_OPEN,
                             replacement, REGION_CLOSE, rest);
    free(ends);
    bool ok = expand_text(x, open, done, joined, out);
    free(joined);
    return ok;
}

/* The call of d whose arguments are args (after them: rest), each
 * combination of its arguments' expansions in turn (from argument `a` on:
 * expanded[0..a) chosen). */
static bool expand_call(expander *x, const char *open, const char *done, const macro_def *d,
                        char **args, str_list *arg_alts, char **expanded, size_t nargs, size_t a,
                        size_t closes, const char *rest, str_list *out)
{
    if (a < nargs) {
        for (size_t k = 0; k < arg_alts[a].n; k++) {
            expanded[a] = arg_alts[a].items[k];
            if (!expand_call(x, open, done, d, args, arg_alts, expanded, nargs, a + 1, closes,
                             rest, out))
                return false;
        }
        return true;
    }
    char *body = macro_call_expand(d->params, d->nparams, d->variadic, d->value, args, expanded,
                                   nargs);
    bool ok = body && expand_after(x, open, done, d->name, strlen(d->name), body, closes, rest,
                                   out);
    free(body);
    return ok;
}

/* One definition d of the identifier that starts `at` (len bytes; done
 * holds what came before it). */
static bool expand_def(expander *x, const char *open, const char *done, const macro_def *d,
                       const char *at, size_t len, str_list *out)
{
    const char *after = at + len;
    if (d->kind != DEF_FUNCTION)
        return d->text && expand_after(x, open, done, d->name, len, d->text, 0, after, out);
    /* The '(' may come after the end of replacements that the name ended
     * (`#define CALL HEADER_OF` then `CALL(x)`): those end before the call. */
    const char *paren = after;
    size_t closes = 0;
    while (isspace((unsigned char)*paren) || *paren == REGION_CLOSE)
        closes += *paren++ == REGION_CLOSE;
    if (*paren != '(') {
        /* A function-like macro's name without a call stays itself. */
        char *kept = xasprintf("%s%.*s", done, (int)len, at);
        bool ok = expand_text(x, open, kept, after, out);
        free(kept);
        return ok;
    }
    size_t nargs = 0;
    const char *past = NULL;
    char **args = macro_call_args(paren, paren + strlen(paren), &nargs, &past);
    if (!args)
        return false;
    str_list *arg_alts = xcalloc(nargs + 1, sizeof *arg_alts);
    bool ok = true;
    for (size_t a = 0; a < nargs && ok; a++)
        ok = expand_text(x, open, "", args[a], &arg_alts[a]);
    char **expanded = xcalloc(nargs + 1, sizeof *expanded);
    ok = ok && expand_call(x, open, done, d, args, arg_alts, expanded, nargs, 0, closes, past, out);
    free(expanded);
    for (size_t a = 0; a < nargs; a++)
        str_list_clear(&arg_alts[a]);
    free(arg_alts);
    str_array_free(args, nargs);
    return ok;
}

/* Each expansion of done (already expanded) followed by rest, to out;
 * false when one cannot be told. `open`: the regions open where rest
 * starts (is_open). */
static bool expand_text(expander *x, const char *open, const char *done, const char *rest,
                        str_list *out)
{
    byte_buf b = {0}, regions = {0};
    buf_append(&b, done, strlen(done));
    buf_append(&regions, open, strlen(open));
    const char *p = rest;
    bool ok = true, expanded = false;
    while (*p && !expanded) {
        if (*p == REGION_OPEN) {
            /* A region's mark is whole: an argument split at a comma or
             * parenthesis keeps it, as a macro's name has neither. */
            const char *close = strchr(p + 1, REGION_OPEN);
            if (!close)
                break;
            buf_append(&regions, p, (size_t)(close - p + 1));
            p = close + 1;
            continue;
        }
        if (*p == REGION_CLOSE) {
            /* The innermost region ends: its name leaves `regions`. */
            size_t n = regions.len;
            if (n > 0) {
                size_t start = n - 1;
                while (start > 0 && regions.data[start - 1] != REGION_OPEN)
                    start--;
                regions.len = start > 0 ? start - 1 : 0;
                regions.data[regions.len] = '\0';
            }
            p++;
            continue;
        }
        if (*p == '"' || *p == '\'') {
            const char *start = p;
            p = macro_literal_end(p);
            buf_append(&b, start, (size_t)(p - start));
            continue;
        }
        bool kept = *p == KEPT;
        if (kept || (!isalpha((unsigned char)*p) && *p != '_')) {
            /* A number's letters (1e5, 0x1f) are no identifier; a name
             * left alone stays so. */
            size_t n = 1;
            if (isdigit((unsigned char)*p) || kept)
                while (is_ident(p[n]) || (!kept && p[n] == '.'))
                    n++;
            buf_append(&b, p, n);
            p += n;
            continue;
        }
        size_t n = 0;
        while (is_ident(p[n]))
            n++;
        if (regions.len && is_open(regions.data, p, n)) {
            buf_append(&b, (char[]){KEPT}, 1);
            buf_append(&b, p, n);
            p += n;
            continue;
        }
        size_t lo = first_def(x->mn, p, n);
        for (size_t k = lo; k < x->mn->n && key_cmp(x->mn->defs[k].name, p, n) == 0 && ok; k++) {
            const macro_def *d = &x->mn->defs[k];
            if (!def_applies(x, d))
                continue;   /* another unit's -D */
            expanded = true;
            ok = expand_def(x, regions.data ? regions.data : "", b.data ? b.data : "", d, p, n,
                            out);
        }
        if (!expanded) {
            buf_append(&b, p, n);
            p += n;
        }
    }
    if (!expanded)
        ok = push_alternative(out, b.data ? b.data : "");
    buf_free(&b);
    buf_free(&regions);
    return ok;
}

/* The file name an expansion is ("x.h" or <x.h>, between blanks), to fn;
 * false for anything else. */
static bool expansion_names(const char *s, include_name_fn fn, void *ctx)
{
    const char *end = s + strlen(s);
    while (s < end && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    if (end - s < 3)
        return false;
    if (!((s[0] == '"' && end[-1] == '"') || (s[0] == '<' && end[-1] == '>')))
        return false;
    if (memchr(s + 1, s[0] == '"' ? '"' : '>', (size_t)(end - s - 2)))
        return false;
    fn(s + 1, (size_t)(end - s - 2), s[0] == '"', ctx);
    return true;
}

bool include_operand_names(const macro_names *mn, const source_file *flags_of, const char *p,
                           const char *end, include_name_fn fn, void *ctx)
{
    p = skip_directive_blanks(p, end);
    if (p < end && (*p == '"' || *p == '<')) {
        const char *q = memchr(p + 1, *p == '"' ? '"' : '>', (size_t)(end - p - 1));
        if (!q)
            return false;
        fn(p + 1, (size_t)(q - p - 1), *p == '"', ctx);
        return true;
    }
    if (!mn || p == end || isdigit((unsigned char)*p))
        return false;
    char *raw = xstrndup(p, (size_t)(end - p));
    char *operand = strip_comments(raw);
    free(raw);
    expander x = {.mn = mn, .flags_of = flags_of, .budget = MAX_EXPANSIONS};
    str_list alts = {0};
    bool ok = *operand && expand_text(&x, "", "", operand, &alts) && alts.n > 0;
    for (size_t i = 0; i < alts.n; i++)
        ok = expansion_names(alts.items[i], fn, ctx) && ok;
    str_list_clear(&alts);
    free(operand);
    return ok;
}
typedef struct {
    bool (*is)(const char *name, size_t len, void *ctx);
    void *ctx;
    bool found;
} defines_any;

static bool test_define(const char *name, size_t len, const char *value, bool function_like,
                        void *ctx)
{
    (void)value;
    (void)function_like;
    defines_any *d = ctx;
    d->found = d->is(name, len, d->ctx);
    return !d->found;
}

bool source_defines_any(const source_file *f, bool (*is)(const char *name, size_t len, void *ctx),
                        void *ctx)
{
    defines_any d = {is, ctx, false};
    each_define(f, test_define, &d);
    return d.found;
}
