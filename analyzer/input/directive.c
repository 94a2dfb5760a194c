#include "input/directive.h"

#include <ctype.h>
#include <string.h>

void text_lines_begin(text_line *line, const char *text, size_t len)
{
    memset(line, 0, sizeof *line);
    line->next_ = text;
    line->text_end_ = text + len;
}

bool text_lines_next(text_line *line)
{
    if (line->next_ >= line->text_end_)
        return false;
    const char *start = line->next_;
    const char *nl = memchr(start, '\n', (size_t)(line->text_end_ - start));
    const char *end = nl ? nl : line->text_end_;
    line->next_ = end + 1;
    if (end > start && end[-1] == '\r')
        end--;
    line->start = start;
    line->end = end;
    line->number++;
    const char *p = skip_directive_blanks(start, end);
    line->blank = p == end;
    line->directive = !line->blank && *p == '#' ? skip_directive_blanks(p + 1, end) : NULL;
    return true;
}

bool is_directive_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

const char *skip_directive_blanks(const char *p, const char *end)
{
    while (p < end && is_directive_blank(*p))
        p++;
    return p;
}

size_t identifier_at(const char *p, const char *end)
{
    if (p == end || isdigit((unsigned char)*p))
        return 0;
    size_t n = 0;
    while (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_'))
        n++;
    return n;
}

bool word_is(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    return identifier_at(p, end) == n && memcmp(p, word, n) == 0;
}

const char *operand_after(const char *p, const char *end, const char *word)
{
    return word_is(p, end, word) ? skip_directive_blanks(p + strlen(word), end) : NULL;
}

/* The identifier after `word` and blanks at p (its length, *name at it). */
static size_t ident_after(const char *p, const char *end, const char *word, const char **name)
{
    const char *at = operand_after(p, end, word);
    if (!at)
        return 0;
    *name = at;
    return identifier_at(at, end);
}

/* `#ifndef G`, `#if !defined(G)` or `#if !defined G` at p (past the #):
 * G's length (*name at it), else 0. */
static size_t if_not_defined(const char *p, const char *end, const char **name)
{
    size_t n = ident_after(p, end, "ifndef", name);
    p = operand_after(p, end, "if");
    if (n || !p || p == end || *p != '!')
        return n;
    p = operand_after(skip_directive_blanks(p + 1, end), end, "defined");
    if (p && p < end && *p == '(')
        p = skip_directive_blanks(p + 1, end);
    if (!p)
        return 0;
    *name = p;
    return identifier_at(p, end);
}

size_t include_guard(const char *masked, size_t len, bool whole_file, const char **name)
{
    const char *guard = NULL;
    size_t guard_len = 0;
    int depth = 0;      /* conditionals open, the guard's counted */
    bool defined = false, closed = false;
    text_line line;
    text_lines_begin(&line, masked, len);
    while (text_lines_next(&line)) {
        const char *p = line.directive, *def = NULL;
        if (!p)
            continue;
        if (!guard) {
            guard_len = if_not_defined(p, line.end, &guard);
            if (!guard_len)
                return 0;
            depth = 1;
            continue;
        }
        if (!defined) {
            size_t n = ident_after(p, line.end, "define", &def);
            if (n != guard_len || memcmp(def, guard, n) != 0)
                return 0;
            defined = true;
            if (!whole_file)
                break;
            continue;
        }
        if (closed)
            return 0;   /* a directive after the guard's #endif */
        if (word_is(p, line.end, "if") || word_is(p, line.end, "ifdef") || word_is(p, line.end, "ifndef"))
            depth++;
        else if (word_is(p, line.end, "endif") && --depth == 0)
            closed = true;
    }
    if (!defined || (whole_file && !closed))
        return 0;
    *name = guard;
    return guard_len;
}
