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
    bool quoted;
    char **params;   /* DEF_FUNCTION: its parameters */
    size_t nparams;
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

/* Each `#define NAME` line of f outside comments: fn(name, len, value,
 * masked value, end of line, function_like, ctx); value NULL for a
 * continued line; a function-like macro's starts at its '('. false from fn
 * stops the scan, and is returned. */
typedef bool (*define_fn)(const char *name, size_t len, const char *value,
                          const char *masked_value, const char *line_end, bool function_like,
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
        const char *after = name + n, *line_end = line.end;
        /* A continued line: its value goes on, and names no file. */
        bool continued = line_end > after && f->text[line_end - m - 1] == '\\';
        bool function_like = after < line_end && *after == '(';
        const char *value = continued ? NULL : f->text + (after - m);
        if (!fn(name, n, value, after, f->text + (line_end - m), function_like, ctx))
            return false;
    }
    return true;
}

static bool add_source_def(const char *name, size_t len, const char *value,
                           const char *masked_value, const char *line_end, bool function_like,
                           void *ctx)
{
    macro_def d = {.name = xstrndup(name, len), .kind = DEF_OTHER};
    if (value && function_like &&
        macro_call_params(value, line_end, &d.params, &d.nparams, &d.value))
        d.kind = DEF_FUNCTION;
    else if (value && !function_like)
        classify(value, line_end, masked_value, &d);
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
    if (def[n] == '=')
        classify(def + n + 1, def + strlen(def), NULL, &d);
    else
        d.kind = DEF_OTHER;
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
        macro_call_strs_free(mn->defs[i].params, mn->defs[i].nparams);
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

/* Each file name the macro `name` comes down to in a unit with the flags of
 * flags_of (NULL: of any file), to fn; false when one of its definitions
 * names none, or it has none. */
static bool macro_files(const macro_names *mn, const source_file *flags_of, const char *name,
                        size_t len, unsigned depth, include_name_fn fn, void *ctx)
{
    if (depth > MAX_CHAIN)
        return false;
    size_t lo = first_def(mn, name, len);
    bool any = false, all = true;
    for (size_t k = lo; k < mn->n && key_cmp(mn->defs[k].name, name, len) == 0; k++) {
        const macro_def *d = &mn->defs[k];
        if (d->flag && flags_of && !has_define_flag(flags_of, d->flag))
            continue;   /* another unit's -D */
        any = true;
        if (d->kind == DEF_FILE)
            fn(d->value, strlen(d->value), d->quoted, ctx);
        else if (d->kind == DEF_MACRO)
            all = macro_files(mn, flags_of, d->value, strlen(d->value), depth + 1, fn, ctx) && all;
        else
            all = false;
    }
    return any && all;
}

static bool operand_names(const macro_names *mn, const source_file *flags_of, const char *p,
                          const char *end, unsigned depth, include_name_fn fn, void *ctx);

/* Whether an argument of a call has an identifier that is a macro: the
 * preprocessor expands it before the call's body takes it, which gpulint
 * does not. */
static bool names_a_macro(const macro_names *mn, const char *arg)
{
    for (const char *p = arg; *p;) {
        size_t n = 0;
        if (isalpha((unsigned char)*p) || *p == '_')
            while (is_ident(p[n]))
                n++;
        if (n == 0) {
            p++;
            continue;
        }
        size_t k = first_def(mn, p, n);
        if (k < mn->n && key_cmp(mn->defs[k].name, p, n) == 0)
            return true;
        p += n;
    }
    return false;
}

/* The file names a call of the function-like macro `name` with `args`
 * comes down to, to fn, through each of its definitions; false when one
 * names none, is not function-like, or an argument names a macro. */
static bool call_files(const macro_names *mn, const source_file *flags_of, const char *name,
                       size_t len, char *const *args, size_t nargs, unsigned depth,
                       include_name_fn fn, void *ctx)
{
    if (depth > MAX_CHAIN)
        return false;
    for (size_t a = 0; a < nargs; a++)
        if (names_a_macro(mn, args[a]))
            return false;
    bool any = false, all = true;
    for (size_t k = first_def(mn, name, len);
         k < mn->n && key_cmp(mn->defs[k].name, name, len) == 0; k++) {
        const macro_def *d = &mn->defs[k];
        any = true;
        char *expanded = d->kind == DEF_FUNCTION
                             ? macro_call_expand(d->params, d->nparams, d->value, args, nargs)
                             : NULL;
        all = expanded &&
              operand_names(mn, flags_of, expanded, expanded + strlen(expanded), depth + 1, fn,
                            ctx) &&
              all;
        free(expanded);
    }
    return any && all;
}

bool include_operand_names(const macro_names *mn, const source_file *flags_of, const char *p,
                           const char *end, include_name_fn fn, void *ctx)
{
    return operand_names(mn, flags_of, p, end, 0, fn, ctx);
}

static bool operand_names(const macro_names *mn, const source_file *flags_of, const char *p,
                          const char *end, unsigned depth, include_name_fn fn, void *ctx)
{
    p = skip_directive_blanks(p, end);
    if (p < end && (*p == '"' || *p == '<')) {
        const char *q = memchr(p + 1, *p == '"' ? '"' : '>', (size_t)(end - p - 1));
        if (!q)
            return false;
        fn(p + 1, (size_t)(q - p - 1), *p == '"', ctx);
        return true;
    }
    size_t n = 0;
    while (p + n < end && is_ident(p[n]))
        n++;
    /* After the name, only blanks or a comment; or a call's arguments
     * (`NAME(x)`), then the same. */
    const char *rest = skip_directive_blanks(p + n, end);
    char **args = NULL;
    size_t nargs = 0;
    if (n > 0 && rest < end && *rest == '(' &&
        (args = macro_call_args(rest, end, &nargs, &rest)) != NULL)
        rest = skip_directive_blanks(rest, end);
    bool alone = rest == end || (end - rest >= 2 && rest[0] == '/' && (rest[1] == '/' || rest[1] == '*'));
    bool named = false;
    if (n > 0 && !isdigit((unsigned char)*p) && alone && mn)
        named = args ? call_files(mn, flags_of, p, n, args, nargs, depth, fn, ctx)
                     : macro_files(mn, flags_of, p, n, depth, fn, ctx);
    macro_call_strs_free(args, nargs);
    return named;
}

typedef struct {
    bool (*is)(const char *name, size_t len, void *ctx);
    void *ctx;
    bool found;
} defines_any;

static bool test_define(const char *name, size_t len, const char *value,
                        const char *masked_value, const char *line_end, bool function_like,
                        void *ctx)
{
    (void)value;
    (void)masked_value;
    (void)line_end;
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
