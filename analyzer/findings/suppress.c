#define _GNU_SOURCE
#include "findings/suppress.h"

#include <stdlib.h>
#include <string.h>

#include "input/mask.h"
#include "rules/rule.h"
#include "rules/run_rules.h"
#include "util/xalloc.h"

static const char MARKER[] = "gpulint:";

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/* Offsets to lines without rescanning the text for each marker: markers come
 * in order, so a cursor only moves forward. */
typedef struct {
    const char *text;
    size_t off, line_start;
    unsigned line;
} line_cursor;

static void cursor_advance(line_cursor *c, size_t off)
{
    for (; c->off < off; c->off++)
        if (c->text[c->off] == '\n') {
            c->line++;
            c->line_start = c->off + 1;
        }
}

/* Rule ids: a letter, then letters, digits and - _ . : ("pattern:x"). */
static bool looks_like_rule_id(const char *a, const char *b)
{
    if (a == b || !((*a >= 'a' && *a <= 'z') || (*a >= 'A' && *a <= 'Z')))
        return false;
    for (; a < b; a++)
        if (!is_ident_char(*a) && *a != '.' && *a != ':')
            return false;
    return true;
}

/* The id list between the parentheses, "a, b": trimmed and split. */
static const char *parse_ids(suppression *s, const char *p, const char *close)
{
    while (p < close) {
        const char *comma = memchr(p, ',', (size_t)(close - p));
        const char *end = comma ? comma : close;
        const char *a = p, *b = end;
        while (a < b && is_space(*a))
            a++;
        while (b > a && is_space(b[-1]))
            b--;
        if (a == b)
            return "an empty rule id in allow(...)";
        *XPUSH(s->ids, s->nids) = xstrndup(a, (size_t)(b - a));
        p = comma ? comma + 1 : close;
    }
    return s->nids ? NULL : "no rule id in allow()";
}

/* The reason between `p` and `e`, which may span the lines of a block
 * comment: each line trimmed, a continuation line's leading ` * ` decoration
 * dropped, lines joined by one space. NULL when nothing is left. */
static char *join_reason(const char *p, const char *e)
{
    char *out = xmalloc((size_t)(e - p) + 1);
    size_t n = 0;
    for (bool first = true; p < e; first = false) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        const char *line_end = nl ? nl : e, *a = p, *b = line_end;
        while (a < b && is_space(*a))
            a++;
        if (!first && a < b && *a == '*')
            for (a++; a < b && is_space(*a);)
                a++;
        while (b > a && (is_space(b[-1]) || b[-1] == '\r'))
            b--;
        if (a < b) {
            if (n)
                out[n++] = ' ';
            memcpy(out + n, a, (size_t)(b - a));
            n += (size_t)(b - a);
        }
        p = nl ? nl + 1 : e;
    }
    if (!n) {
        free(out);
        return NULL;
    }
    out[n] = '\0';
    return out;
}

/* Read one suppression whose marker is at `p`, inside a comment ending at
 * `comment_end` (a block comment when `block`). Returns false when the text
 * after the marker is not a suppression at all (prose that mentions gpulint:). */
static bool parse_one(suppression *s, const char *p, const char *comment_end, bool block)
{
    const char *end = comment_end;
    const char *line_end = memchr(p, '\n', (size_t)(end - p));
    if (line_end)
        end = line_end;
    p += sizeof MARKER - 1;
    while (p < end && is_space(*p))
        p++;
    if ((size_t)(end - p) < 5 || memcmp(p, "allow", 5) != 0)
        return false;
    p += 5;
    if ((size_t)(end - p) >= 5 && memcmp(p, "-file", 5) == 0) {
        s->file_wide = true;
        p += 5;
    }
    if (p < end && is_ident_char(*p))
        return false;   /* "allowed", "allow-files": a word, not the directive */
    while (p < end && is_space(*p))
        p++;
    if (p >= end || *p != '(') {
        /* "allow no-via-pinned" is a mistyped directive; "allow..." or
         * "allow`" in a sentence is prose about it. */
        if (p >= end || !is_ident_char(*p))
            return false;
        s->malformed = xstrdup("expected '(' after allow");
        return true;
    }
    const char *close = memchr(p, ')', (size_t)(end - p));
    if (!close) {
        s->malformed = xstrdup("no ')' closes the rule list");
        return true;
    }
    /* Prose that shows the syntax, "allow(...)" or "allow(rule-id[, ...])",
     * is not a suppression: every id must look like a rule id. */
    for (const char *a = p + 1; a < close;) {
        const char *comma = memchr(a, ',', (size_t)(close - a));
        const char *b = comma ? comma : close;
        while (a < b && is_space(*a))
            a++;
        const char *e = b;
        while (e > a && is_space(e[-1]))
            e--;
        if (a < e && !looks_like_rule_id(a, e))
            return false;
        a = comma ? comma + 1 : close;
    }
    const char *why = parse_ids(s, p + 1, close);
    if (why) {
        s->malformed = xstrdup(why);
        return true;
    }
    p = close + 1;
    while (p < end && is_space(*p))
        p++;
    if ((size_t)(end - p) < 2 || memcmp(p, "--", 2) != 0)
        return true;   /* no reason */
    p += 2;
    /* A line comment's reason ends with the line; a block comment's runs to
     * its closing delimiter, over as many lines as it takes. */
    const char *r_end = end;
    if (block) {
        r_end = comment_end;
        for (const char *q = p; q + 1 < comment_end; q++)
            if (q[0] == '*' && q[1] == '/') {
                r_end = q;
                break;
            }
    }
    s->reason = join_reason(p, r_end);
    return true;
}

size_t suppressions_parse(const char *text, size_t len, suppression **out)
{
    source_span *spans;
    size_t nspans = scan_spans(text, len, &spans);
    size_t n = 0;
    *out = NULL;
    line_cursor cur = {.text = text, .line = 1};
    for (size_t k = 0; k < nspans; k++) {
        if (spans[k].kind != SPAN_COMMENT)
            continue;
        const char *comment = text + spans[k].start, *comment_end = text + spans[k].end;
        const char *p = comment;
        while ((p = memmem(p, (size_t)(comment_end - p), MARKER, sizeof MARKER - 1))) {
            suppression s = {0};
            if (parse_one(&s, p, comment_end, comment[1] == '*')) {
                size_t offset = (size_t)(p - text);
                cursor_advance(&cur, offset);
                s.line = cur.line;
                s.col = (unsigned)(offset - cur.line_start) + 1;
                line_cursor at_end = cur;
                cursor_advance(&at_end, spans[k].end > 0 ? spans[k].end - 1 : 0);
                /* The comment's own lines and the line below it. */
                s.last_line = at_end.line + 1;
                *XPUSH(*out, n) = s;
            }
            p += sizeof MARKER - 1;
        }
    }
    free(spans);
    return n;
}

void suppressions_free(suppression *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < s[i].nids; k++)
            free(s[i].ids[k]);
        free(s[i].ids);
        free(s[i].reason);
        free(s[i].malformed);
    }
    free(s);
}

static long id_index(const suppression *s, const char *rule)
{
    for (size_t k = 0; k < s->nids; k++)
        if (strcmp(s->ids[k], rule) == 0)
            return (long)k;
    return -1;
}

bool suppression_covers(const suppression *s, const char *rule, unsigned line)
{
    if (id_index(s, rule) < 0)
        return false;
    return s->file_wide || (line >= s->line && line <= s->last_line);
}

static bool is_suppression_meta_rule(const char *id)
{
    return strcmp(id, "invalid-suppression") == 0 || strcmp(id, "unused-suppression") == 0;
}

/* Whether s is valid; when sink is not NULL, report what is wrong with it
 * (invalid-suppression) where the config applies that rule to the file. */
static bool check_valid(const suppression *s, const char *path, const gl_config *cfg,
                        diag_sink *sink)
{
    if (sink && !config_rule_applies(cfg, "invalid-suppression", path))
        sink = NULL;
    const char *kind = s->file_wide ? "allow-file" : "allow";
    if (s->malformed) {
        if (sink)
            diag_report(sink, "invalid-suppression", path, s->line, s->col,
                    "malformed suppression: %s; write `gpulint: %s(rule-id) -- reason`",
                    s->malformed, kind);
        return false;
    }
    bool valid = true;
    for (size_t k = 0; k < s->nids; k++) {
        if (is_suppression_meta_rule(s->ids[k])) {
            if (sink)
                diag_report(sink, "invalid-suppression", path, s->line, s->col,
                        "'%s' cannot be suppressed inline; disable it in the config instead",
                        s->ids[k]);
            valid = false;
        } else if (!rule_is_known(cfg, s->ids[k])) {
            if (sink)
                diag_report(sink, "invalid-suppression", path, s->line, s->col,
                        "unknown rule '%s' in suppression (gpulint --list-rules lists them)",
                        s->ids[k]);
            valid = false;
        }
    }
    if (valid && !s->reason) {
        if (sink)
            diag_report(sink, "invalid-suppression", path, s->line, s->col,
                    "suppression without a reason suppresses nothing; write `gpulint: %s(%s) "
                    "-- why this is safe`",
                    kind, s->ids[0]);
        valid = false;
    }
    return valid;
}

/* The findings fs[0..n) of file f, passed on to `out` marked by f's
 * suppressions, and what is wrong with those suppressions. */
static void judge_file(const source_file *f, const gl_config *cfg, const diag_finding *fs,
                       size_t n, diag_sink *out)
{
    suppression *sups;
    size_t nsups = suppressions_parse(f->text, f->len, &sups);
    bool *valid = xcalloc(nsups ? nsups : 1, sizeof *valid);
    bool **used = xcalloc(nsups ? nsups : 1, sizeof *used);
    for (size_t i = 0; i < nsups; i++) {
        used[i] = xcalloc(sups[i].nids ? sups[i].nids : 1, sizeof **used);
        valid[i] = check_valid(&sups[i], f->path, cfg, out);
    }

    for (size_t j = 0; j < n; j++) {
        diag_finding judged = fs[j];
        for (size_t i = 0; i < nsups && !is_suppression_meta_rule(fs[j].rule); i++) {
            if (!valid[i] || !suppression_covers(&sups[i], fs[j].rule, fs[j].line))
                continue;
            used[i][id_index(&sups[i], fs[j].rule)] = true;
            if (!judged.suppressed) {
                judged.suppressed = true;
                judged.suppress_reason = sups[i].reason;
            }
        }
        diag_add_copy(out, &judged);
    }

    bool report_unused = config_rule_applies(cfg, "unused-suppression", f->path);
    for (size_t i = 0; i < nsups && report_unused; i++) {
        if (!valid[i])
            continue;
        for (size_t k = 0; k < sups[i].nids; k++)
            if (!used[i][k])
                diag_report(out, "unused-suppression", f->path, sups[i].line, sups[i].col,
                            "suppression of '%s' suppressed nothing%s; remove it", sups[i].ids[k],
                            sups[i].file_wide ? " in this file" : " on this line or the next");
    }
    for (size_t i = 0; i < nsups; i++)
        free(used[i]);
    free(used);
    free(valid);
    suppressions_free(sups, nsups);
}

diag_list suppressions_apply(const snapshot *snap, const gl_config *cfg, const diag_list *found)
{
    diag_sink *out = diag_sink_new();
    /* Findings are sorted by file and so is the snapshot: walk both at once. */
    size_t j = 0;
    for (size_t i = 0; i < snap->nfiles; i++) {
        const source_file *f = &snap->files[i];
        while (j < found->n && strcmp(found->items[j].file, f->path) < 0)
            diag_add_copy(out, &found->items[j++]);
        size_t first = j;
        while (j < found->n && strcmp(found->items[j].file, f->path) == 0)
            j++;
        /* No findings at all: items is NULL, and NULL + 0 is undefined (UBSan). */
        judge_file(f, cfg, found->n ? found->items + first : NULL, j - first, out);
    }
    while (j < found->n)
        diag_add_copy(out, &found->items[j++]);
    diag_list judged = diag_sink_take(out);
    diag_sink_free(out);
    return judged;
}
