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
