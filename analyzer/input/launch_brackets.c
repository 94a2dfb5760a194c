#include "input/launch_brackets.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "util/xalloc.h"

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Where the spaced triple at m[i] (`<<` blanks `<`, or `>>` blanks `>`) ends
 * (the offset of its third bracket), or 0 when m[i] is not one. */
static size_t spaced_third(const char *m, size_t len, size_t i, char b)
{
    if (i + 2 >= len || m[i] != b || m[i + 1] != b || !is_blank(m[i + 2]))
        return 0;
    size_t j = i + 2;
    while (j < len && is_blank(m[j]))
        j++;
    return j < len && m[j] == b ? j : 0;
}

/* Whether the token before offset i is the keyword `operator`. */
static bool after_operator(const char *m, size_t i)
{
    while (i > 0 && isspace((unsigned char)m[i - 1]))
        i--;
    static const char kw[] = "operator";
    size_t n = sizeof kw - 1;
    if (i < n || memcmp(m + i - n, kw, n) != 0)
        return false;
    return i == n || !(isalnum((unsigned char)m[i - n - 1]) || m[i - n - 1] == '_');
}

/* The close of the launch whose configuration starts at `from`: the offset
 * of its first `>`, with *third the offset of its third (0: none). */
static size_t launch_close(const char *m, size_t len, size_t from, size_t *third)
{
    int depth = 0;
    for (size_t k = from; k < len; k++) {
        char c = m[k];
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == ']' || c == '}') && --depth < 0)
            return 0;
        else if (c == ';')
            return 0;
        else if (depth == 0 && c == '>') {
            if (k + 2 < len && m[k + 1] == '>' && m[k + 2] == '>') {
                *third = k + 2;
                return k;
            }
            size_t j = spaced_third(m, len, k, '>');
            if (j) {
                *third = j;
                return k;
            }
        }
    }
    return 0;
}

/* The offset of the bracket that closes the one at m[open], or 0. */
static size_t matching_close(const char *m, size_t open, size_t end)
{
    int depth = 0;
    for (size_t k = open; k < end; k++) {
        if (m[k] == '(' || m[k] == '[' || m[k] == '{')
            depth++;
        else if ((m[k] == ')' || m[k] == ']' || m[k] == '}') && --depth == 0)
            return k;
    }
    return 0;
}

/* The configuration's arguments written as braced lists (`{16, 16, 1}` for
 * a dim3), from `from` to the first closing bracket at `end`, become
 * parenthesised in out: an argument clang parses (to a value the rules do
 * not read), where the braces stop clang's parse. A brace after a type
 * (`dim3{16, 16}`) is clang's too and stays; so does `{}`. Whether there is
 * one; out NULL only tells. */
static bool unbrace_configuration(const char *m, char *out, size_t from, size_t end)
{
    bool argument_start = true, any = false;
    for (size_t k = from; k < end; k++) {
        char c = m[k];
        if (isspace((unsigned char)c))
            continue;
        if (c == '{' && argument_start) {
            size_t close = matching_close(m, k, end);
            size_t inner = k + 1;
            while (inner < close && isspace((unsigned char)m[inner]))
                inner++;
            if (close && inner < close) {
                any = true;
                if (out) {
                    out[k] = '(';
                    out[close] = ')';
                }
            }
        }
        if (c == '(' || c == '[' || c == '{') {
            size_t close = matching_close(m, k, end);
            if (!close)
                return any;
            k = close;
            argument_start = false;
            continue;
        }
        argument_start = c == ',';
    }
    return any;
}

/* `bb...b` from i to third (inclusive) becomes `bbb` then blanks. */
static void close_up(char *out, size_t i, size_t third, char b)
{
    out[i + 2] = b;
    for (size_t k = i + 3; k <= third; k++)
        out[k] = ' ';
}

char *launch_syntax_for_clang(const char *text, const char *masked, size_t len)
{
    char *out = NULL;
    for (size_t i = 0; i + 2 < len; i++) {
        if (masked[i] != '<' || masked[i + 1] != '<' || (i > 0 && masked[i - 1] == '<'))
            continue;
        size_t open_third = masked[i + 2] == '<' ? i + 2 : spaced_third(masked, len, i, '<');
        if (!open_third || after_operator(masked, i) ||
            (open_third + 1 < len && (masked[open_third + 1] == '<' || masked[open_third + 1] == '=')))
            continue;
        size_t close_third = 0;
        size_t close = launch_close(masked, len, open_third + 1, &close_third);
        if (!close) {
            i = open_third;
            continue;   /* not a launch */
        }
        bool spaced = open_third != i + 2 || close_third != close + 2;
        bool braced = unbrace_configuration(masked, NULL, open_third + 1, close);
        if (!spaced && !braced) {
            i = close_third;
            continue;
        }
        if (!out) {
            out = xmalloc(len + 1);
            memcpy(out, text, len);
            out[len] = '\0';
        }
        close_up(out, i, open_third, '<');
        close_up(out, close, close_third, '>');
        unbrace_configuration(masked, out, open_third + 1, close);
        i = close_third;
    }
    return out;
}
