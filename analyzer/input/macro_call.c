#include "input/macro_call.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static bool is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static char *trimmed(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    return xstrndup(p, (size_t)(end - p));
}

const char *macro_literal_end(const char *p)
{
    char quote = *p++;
    while (*p && *p != quote)
        p += p[0] == '\\' && p[1] ? 2 : 1;
    return *p ? p + 1 : p;
}

static void push(char ***strs, size_t *n, char *s)
{
    *strs = xrealloc(*strs, (*n + 1) * sizeof **strs);
    (*strs)[(*n)++] = s;
}

/* Whether `word` occurs in s as a whole identifier. */
static bool has_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = s; (p = strstr(p, word)); p += n)
        if ((p == s || !is_ident(p[-1])) && !is_ident(p[n]))
            return true;
    return false;
}

bool macro_call_params(const char *p, const char *end, char ***params, size_t *nparams,
                       bool *variadic, char **body)
{
    *params = NULL;
    *nparams = 0;
    *variadic = false;
    if (p >= end || *p != '(')
        return false;
    const char *close = memchr(p, ')', (size_t)(end - p));
    if (!close)
        return false;
    for (const char *q = p + 1; q < close;) {
        const char *comma = memchr(q, ',', (size_t)(close - q));
        const char *stop = comma ? comma : close;
        char *name = trimmed(q, stop);
        size_t len = strlen(name);
        /* `...` or GNU's `rest...`, the last parameter. */
        if (!comma && len >= 3 && strcmp(name + len - 3, "...") == 0) {
            *variadic = true;
            len -= 3;
            while (len > 0 && isspace((unsigned char)name[len - 1]))
                len--;
            name[len] = '\0';
            if (len == 0) {
                free(name);
                name = xstrdup("__VA_ARGS__");
                len = strlen(name);
            }
        }
        bool ident = len > 0 && is_ident_start(name[0]);
        for (size_t i = 1; ident && i < len; i++)
            ident = is_ident(name[i]);
        if (!ident && !(len == 0 && !comma && *nparams == 0)) {
            free(name);
            str_array_free(*params, *nparams);
            *params = NULL;
            *nparams = 0;
            return false;   /* no name */
        }
        if (ident)
            push(params, nparams, name);
        else
            free(name);   /* "()": no parameter */
        q = comma ? comma + 1 : close;
    }
    const char *body_end = end;
    for (const char *q = close + 1; q + 1 < end; q++)
        if (q[0] == '/' && (q[1] == '/' || q[1] == '*')) {
            body_end = q;
            break;
        }
    *body = trimmed(close + 1, body_end);
    if (!*variadic && has_word(*body, "__VA_OPT__")) {
        /* C++20's conditional tokens belong to variadic macros only. */
        free(*body);
        *body = NULL;
        str_array_free(*params, *nparams);
        *params = NULL;
        *nparams = 0;
        return false;
    }
    return true;
}

char **macro_call_args(const char *p, const char *end, size_t *nargs, const char **after)
{
    char **args = NULL;
    *nargs = 0;
    int depth = 0;
    const char *start = p + 1;
    for (const char *q = p; q < end; q++) {
        if (*q == '(') {
            depth++;
        } else if (*q == ')' || (*q == ',' && depth == 1)) {
            if (*q == ')' && --depth > 0)
                continue;
            push(&args, nargs, trimmed(start, q));
            start = q + 1;
            if (*q == ')') {
                *after = q + 1;
                return args;
            }
        }
    }
    str_array_free(args, *nargs);
    *nargs = 0;
    return NULL;
}

typedef struct {
    char *text;
    size_t len, cap;
} out_text;

static void append(out_text *o, const char *s, size_t n)
{
    if (o->len + n + 1 > o->cap) {
        o->cap = 2 * (o->len + n + 1);
        o->text = xrealloc(o->text, o->cap);
    }
    memcpy(o->text + o->len, s, n);
    o->len += n;
    o->text[o->len] = '\0';
}

/* The argument as a string literal: "x.h" for x.h; NULL for one with a
 * quote or a backslash, which a file name gpulint follows does not have. */
static char *stringified(const char *arg)
{
    if (strpbrk(arg, "\"\\"))
        return NULL;
    out_text o = {0};
    append(&o, "\"", 1);
    for (const char *p = arg; *p;) {
        if (isspace((unsigned char)*p)) {
            while (isspace((unsigned char)*p))
                p++;
            append(&o, " ", 1);   /* a run of blanks is one space */
        } else {
            append(&o, p++, 1);
        }
    }
    append(&o, "\"", 1);
    return o.text;
}

static long param_index(char *const *params, size_t nparams, const char *name, size_t len)
{
    for (size_t i = 0; i < nparams; i++)
        if (strlen(params[i]) == len && strncmp(params[i], name, len) == 0)
            return (long)i;
    return -1;
}

/* Whether `##` comes next after p, past blanks. */
static bool paste_follows(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p[0] == '#' && p[1] == '#';
}

/* strs[from..n) joined with ", " (malloc'd). */
static char *joined(char *const *strs, size_t from, size_t n)
{
    out_text o = {0};
    append(&o, "", 0);
    for (size_t i = from; i < n; i++) {
        if (i > from)
            append(&o, ", ", 2);
        append(&o, strs[i], strlen(strs[i]));
    }
    return o.text;
}

static char *substitute(char *const *params, size_t nparams, const char *body,
                        char *const *args, char *const *expanded, long va);

char *macro_call_expand(char *const *params, size_t nparams, bool variadic, const char *body,
                        char *const *args, char *const *expanded, size_t nargs)
{
    bool no_args = nparams == 0 && nargs == 1 && !args[0][0];
    if (variadic && nparams > 0 && nargs + 1 >= nparams) {
        /* The arguments from the last parameter's position on are one. */
        size_t last = nparams - 1;
        char **raw = xcalloc(nparams, sizeof *raw), **exp = xcalloc(nparams, sizeof *exp);
        for (size_t i = 0; i < last; i++) {
            raw[i] = xstrdup(args[i]);
            exp[i] = xstrdup(expanded ? expanded[i] : args[i]);
        }
        raw[last] = joined(args, last, nargs);
        exp[last] = joined(expanded ? expanded : args, last, nargs);
        char *out = substitute(params, nparams, body, raw, expanded ? exp : NULL, (long)last);
        str_array_free(raw, nparams);
        str_array_free(exp, nparams);
        return out;
    }
    if (nargs != nparams && !no_args)
        return NULL;
    return substitute(params, nparams, body, args, expanded, -1);
}

/* The ')' that closes the '(' at p, past nested parentheses and literals,
 * or NULL. */
static const char *closing_paren(const char *p)
{
    int depth = 0;
    for (; *p; p++) {
        if (*p == '"' || *p == '\'') {
            p = macro_literal_end(p) - 1;
        } else if (*p == '(') {
            depth++;
        } else if (*p == ')' && --depth == 0) {
            return p;
        }
    }
    return NULL;
}

/* body with one argument (and its expansion) per parameter in place; va:
 * the variadic parameter's index (-1: none), whose argument decides each
 * `__VA_OPT__(tokens)` (C++20): its tokens, substituted, when the
 * variable arguments have any, else nothing. */
static char *substitute(char *const *params, size_t nparams, const char *body,
                        char *const *args, char *const *expanded, long va)
{
    out_text o = {0};
    append(&o, "", 0);
    bool space = false, paste = false;
    for (const char *p = body; *p;) {
        if (isspace((unsigned char)*p)) {
            p++;
            space = true;
            continue;
        }
        if (p[0] == '#' && p[1] == '#') {
            p += 2;
            space = false;
            paste = true;
            continue;
        }
        char *piece = NULL;
        const char *start = p;
        if (*p == '#') {
            p++;
            while (isspace((unsigned char)*p))
                p++;
            const char *name = p;
            while (is_ident(*p))
                p++;
            long k = param_index(params, nparams, name, (size_t)(p - name));
            if (k < 0 || !(piece = stringified(args[k]))) {
                free(o.text);
                return NULL;
            }
        } else if (is_ident_start(*p)) {
            while (is_ident(*p))
                p++;
            if (va >= 0 && p - start == 10 && strncmp(start, "__VA_OPT__", 10) == 0) {
                while (isspace((unsigned char)*p))
                    p++;
                const char *close = *p == '(' ? closing_paren(p) : NULL;
                if (!close) {
                    free(o.text);
                    return NULL;
                }
                char *inner = xstrndup(p + 1, (size_t)(close - p - 1));
                p = close + 1;
                piece = args[va][0] ? substitute(params, nparams, inner, args, expanded, va)
                                    : xstrdup("");
                free(inner);
                if (!piece) {
                    free(o.text);
                    return NULL;
                }
                if (!*piece) {
                    /* A placemarker: `x ## __VA_OPT__(...)` is x, with
                     * what follows the ')' as it is spaced from it. */
                    free(piece);
                    if (paste)
                        space = paste = false;
                    continue;
                }
                if (space && !paste && o.len > 0)
                    append(&o, " ", 1);
                append(&o, piece, strlen(piece));
                free(piece);
                space = paste = false;
                continue;
            }
            long k = param_index(params, nparams, start, (size_t)(p - start));
            /* An operand of ## takes the argument as written; elsewhere
             * the preprocessor has expanded it first. */
            bool raw = !expanded || paste || paste_follows(p);
            piece = k < 0    ? xstrndup(start, (size_t)(p - start))
                    : raw    ? xstrdup(args[k])
                             : xstrdup(expanded[k]);
        } else if (*p == '"' || *p == '\'') {
            p = macro_literal_end(p);
            piece = xstrndup(start, (size_t)(p - start));
        } else {
            piece = xstrndup(p++, 1);
        }
        if (space && !paste && o.len > 0)
            append(&o, " ", 1);
        append(&o, piece, strlen(piece));
        free(piece);
        space = paste = false;
    }
    return o.text;
}
