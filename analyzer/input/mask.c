#include "input/mask.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static bool is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Offset just past a // comment starting at i: the newline ends it unless a
 * backslash (maybe followed by CR) continues the line. */
static size_t line_comment_end(const char *t, size_t len, size_t i)
{
    for (i += 2; i < len; i++) {
        if (t[i] != '\n')
            continue;
        size_t k = i;
        if (k > 0 && t[k - 1] == '\r')
            k--;
        if (k > 0 && t[k - 1] == '\\')
            continue;
        return i;
    }
    return len;
}

static size_t block_comment_end(const char *t, size_t len, size_t i)
{
    for (i += 2; i + 1 < len; i++)
        if (t[i] == '*' && t[i + 1] == '/')
            return i + 2;
    return len;
}

/* Offset past a literal opened by quote q at i. An unterminated literal stops
 * at the end of its line, so one stray quote cannot swallow the file. */
static size_t quoted_end(const char *t, size_t len, size_t i, char q)
{
    for (i++; i < len; i++) {
        if (t[i] == '\\') {
            i++;   /* the escaped character, a backslash-newline included */
            continue;
        }
        if (t[i] == q)
            return i + 1;
        if (t[i] == '\n')
            return i;
    }
    return len;
}

/* Is the '"' at i the quote of a raw string (R, u8R, uR, UR, LR prefix)? */
static bool is_raw_string_quote(const char *t, size_t i)
{
    if (i == 0 || t[i - 1] != 'R')
        return false;
    size_t p = i - 1;   /* the R */
    size_t start = p;
    if (p >= 2 && t[p - 2] == 'u' && t[p - 1] == '8')
        start = p - 2;
    else if (p >= 1 && (t[p - 1] == 'u' || t[p - 1] == 'U' || t[p - 1] == 'L'))
        start = p - 1;
    return start == 0 || !is_ident_char(t[start - 1]);
}

/* Offset past the raw string whose quote is at i, or 0 when the delimiter is
 * malformed (then it is lexed as an ordinary string). */
static size_t raw_string_end(const char *t, size_t len, size_t i)
{
    size_t d = i + 1;
    while (d < len && d - (i + 1) <= 16 && t[d] != '(') {
        if (t[d] == ')' || t[d] == '\\' || t[d] == ' ' || t[d] == '\n' || t[d] == '"')
            return 0;
        d++;
    }
    if (d >= len || t[d] != '(')
        return 0;
    size_t dlen = d - (i + 1);
    for (size_t k = d + 1; k + dlen + 2 <= len; k++)
        if (t[k] == ')' && memcmp(t + k + 1, t + i + 1, dlen) == 0 && t[k + 1 + dlen] == '"')
            return k + dlen + 2;
    return len;
}

size_t scan_spans(const char *t, size_t len, source_span **spans)
{
    size_t n = 0, cap = 0;
    *spans = NULL;
    bool in_number = false;   /* inside a pp-number, where ' is a digit separator */
    size_t i = 0;
    while (i < len) {
        char c = t[i];
        span_kind kind;
        size_t end = 0;
        if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            kind = SPAN_COMMENT;
            end = line_comment_end(t, len, i);
        } else if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            kind = SPAN_COMMENT;
            end = block_comment_end(t, len, i);
        } else if (c == '"') {
            kind = SPAN_STRING;
            if (is_raw_string_quote(t, i))
                end = raw_string_end(t, len, i);
            if (end == 0)
                end = quoted_end(t, len, i, '"');
        } else if (c == '\'' && !in_number) {
            kind = SPAN_STRING;
            end = quoted_end(t, len, i, '\'');
        } else {
            if (is_ident_char(c)) {
                if (i == 0 || !(is_ident_char(t[i - 1]) || t[i - 1] == '\'' || t[i - 1] == '.'))
                    in_number = c >= '0' && c <= '9';
            } else if (c != '\'' && c != '.') {
                in_number = false;
            }
            i++;
            continue;
        }
        in_number = false;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            *spans = xrealloc(*spans, cap * sizeof **spans);
        }
        (*spans)[n++] = (source_span){kind, i, end};
        i = end;
    }
    return n;
}

static void blank(char *out, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++)
        if (out[k] != '\n' && out[k] != '\r')
            out[k] = ' ';
}

void mask_text(const char *text, size_t len, unsigned what, char *out)
{
    memcpy(out, text, len);
    out[len] = '\0';
    source_span *spans;
    size_t n = scan_spans(text, len, &spans);
    for (size_t k = 0; k < n; k++) {
        const source_span *s = &spans[k];
        if (s->kind == SPAN_COMMENT && (what & MASK_COMMENTS)) {
            blank(out, s->start, s->end);
        } else if (s->kind == SPAN_STRING && (what & MASK_STRINGS)) {
            /* Keep the quotes (and any prefix) so the code still reads as code:
             * blank from after the first quote to before the closing one. */
            size_t open = s->start;
            while (open < s->end && text[open] != '"' && text[open] != '\'')
                open++;
            size_t close = s->end;
            if (close > open + 1 && (text[close - 1] == '"' || text[close - 1] == '\''))
                close--;
            blank(out, open + 1, close);
        }
    }
    free(spans);
}
