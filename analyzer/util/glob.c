/* The matchers of util/glob.h. Each level (characters within a component,
 * components within a path) is the two-pointer wildcard match: on a
 * mismatch, go back to just after the last star and let it eat one more
 * element. That is exact for stars that match any run, and never revisits a
 * state twice, so patterns with many stars cannot blow up (issue 17: the
 * recursive matcher took exponential time on patterns of many stars, and
 * four stars before a slash matched every path). */
#include "util/glob.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Length of the one-character token at p ('?', a class, an escape or a
 * literal); 0 for a malformed class or a trailing backslash. */
static size_t token_length(const char *p, const char *end)
{
    if (*p == '\\')
        return p + 1 < end ? 2 : 0;
    if (*p != '[')
        return 1;
    const char *q = p + 1;
    if (q < end && (*q == '!' || *q == '^'))
        q++;
    if (q < end && *q == ']')
        q++;   /* a ']' first in the set is one of its members */
    while (q < end && *q != ']')
        q++;
    return q < end ? (size_t)(q - p) + 1 : 0;
}

static bool class_matches(const char *p, size_t n, char c)
{
    const char *q = p + 1, *end = p + n - 1;   /* between '[' and ']' */
    bool negated = q < end && (*q == '!' || *q == '^');
    if (negated)
        q++;
    bool in = false;
    for (; q < end; q++) {
        if (q + 2 < end && q[1] == '-') {
            if ((unsigned char)c >= (unsigned char)q[0] && (unsigned char)c <= (unsigned char)q[2])
                in = true;
            q += 2;
        } else if (*q == c) {
            in = true;
        }
    }
    return in != negated;
}

static bool token_matches(const char *p, size_t n, char c, bool in_path)
{
    if (in_path && c == '/')
        return false;
    if (*p == '\\')
        return p[1] == c;
    if (*p == '?')
        return true;
    if (*p == '[')
        return class_matches(p, n, c);
    return *p == c;
}

/* The pattern [p, pe) over the whole of [s, se). */
static bool match_chars(const char *p, const char *pe, const char *s, const char *se,
                        bool in_path)
{
    const char *star = NULL, *resume = NULL;
    while (s < se) {
        if (p < pe && *p == '*') {
            while (p < pe && *p == '*')
                p++;   /* consecutive stars are one */
            star = p;
            resume = s;
            continue;
        }
        size_t n = p < pe ? token_length(p, pe) : 0;
        if (n && token_matches(p, n, *s, in_path)) {
            p += n;
            s++;
            continue;
        }
        if (!star)
            return false;
        p = star;
        s = ++resume;
    }
    while (p < pe && *p == '*')
        p++;
    return p == pe;
}

bool glob_match(const char *pattern, const char *name)
{
    return match_chars(pattern, pattern + strlen(pattern), name, name + strlen(name), false);
}

/* Components of a pattern or path: [start, end) pairs into the string,
 * in arrays of count_components() elements. */
static size_t count_components(const char *s, const char *end)
{
    size_t n = 1;
    for (; s < end; s++)
        n += *s == '/';
    return n;
}

static size_t split(const char *s, const char *end, const char **starts, const char **ends)
{
    size_t n = 0;
    while (s < end) {
        const char *slash = memchr(s, '/', (size_t)(end - s));
        const char *e = slash ? slash : end;
        if (e > s) {   /* "a//b" is "a/b" */
            starts[n] = s;
            ends[n++] = e;
        }
        s = slash ? slash + 1 : end;
    }
    return n;
}

static bool is_globstar(const char *s, const char *e)
{
    return e - s == 2 && s[0] == '*' && s[1] == '*';
}

/* Pattern components over path components, `**` the star of this level. */
static bool match_components(const char **ps, const char **pe, size_t np, const char **ss,
                             const char **se, size_t ns)
{
    size_t pi = 0, si = 0, star = (size_t)-1, resume = 0;
    while (si < ns) {
        if (pi < np && is_globstar(ps[pi], pe[pi])) {
            while (pi < np && is_globstar(ps[pi], pe[pi]))
                pi++;
            star = pi;
            resume = si;
            continue;
        }
        if (pi < np && match_chars(ps[pi], pe[pi], ss[si], se[si], true)) {
            pi++;
            si++;
            continue;
        }
        if (star == (size_t)-1)
            return false;
        pi = star;
        si = ++resume;
    }
    while (pi < np && is_globstar(ps[pi], pe[pi]))
        pi++;
    return pi == np;
}

bool path_glob_match(const char *pattern, const char *path)
{
    const char *pend = pattern + strlen(pattern);
    bool dir_only = pend > pattern && pend[-1] == '/';
    while (pend > pattern && pend[-1] == '/')
        pend--;
    bool anchored = memchr(pattern, '/', (size_t)(pend - pattern)) != NULL;
    while (*pattern == '/')
        pattern++;
    const char *path_end = path + strlen(path);
    size_t cp = count_components(pattern, pend), cs = count_components(path, path_end);
    const char **ps = xcalloc(2 * (cp + cs), sizeof *ps);
    const char **pe = ps + cp, **ss = pe + cp, **se = ss + cs;
    size_t np = split(pattern, pend, ps, pe);
    size_t ns = split(path, path_end, ss, se);
    bool hit = false;
    /* The file itself (k == ns) and each directory above it. */
    for (size_t k = dir_only && ns > 0 ? ns - 1 : ns; np > 0 && k >= 1 && !hit; k--)
        hit = anchored ? match_components(ps, pe, np, ss, se, k)
                       : match_chars(ps[0], pe[0], ss[k - 1], se[k - 1], true);
    free(ps);
    return hit;
}

const char *glob_problem(const char *pattern, bool is_path, size_t *offset)
{
    const char *end = pattern + strlen(pattern);
    *offset = 0;
    if (*pattern == '!')
        return "negation ('!') is not supported: list only what the key should match";
    for (const char *p = pattern; p < end;) {
        *offset = (size_t)(p - pattern);
        if (*p == '*' || *p == '/') {
            p++;
            continue;
        }
        size_t n = token_length(p, end);
        if (n == 0)
            return *p == '\\' ? "a trailing '\\' escapes nothing" : "'[' without its closing ']'";
        if (is_path && *p == '[' && memchr(p, '/', n))
            return "a '[...]' set cannot hold '/'";
        p += n;
    }
    return NULL;
}
