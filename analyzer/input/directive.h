/* Preprocessor directive lines of a masked text (comments blanked), read
 * without libclang: which files a file may include, its leading includes
 * and defines, a header's include guard. One scanner, so that every such
 * reader agrees on what a blank is and where a line ends.
 *
 * A line ends at '\n'; the '\r' of a CRLF ending belongs to the line break
 * (source_file_init has already made a lone CR a '\n', as clang treats it).
 * Blanks are the preprocessor's horizontal white space: space, tab, vertical
 * tab and form feed. */
#ifndef GPULINT_DIRECTIVE_H
#define GPULINT_DIRECTIVE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *start;      /* the line's first byte */
    const char *end;        /* past its last byte, before "\n" or "\r\n" */
    const char *directive;  /* a directive line: past its '#' and blanks; else NULL */
    bool blank;             /* only blanks */
    unsigned number;        /* 1-based */
    const char *next_, *text_end_;
} text_line;

/* Start reading the lines of [text, text + len). */
void text_lines_begin(text_line *line, const char *text, size_t len);

/* The next line into *line; false past the last one. */
bool text_lines_next(text_line *line);

bool is_directive_blank(char c);

/* p moved past blanks, up to end. */
const char *skip_directive_blanks(const char *p, const char *end);

/* The identifier at p and its length (0: none there). */
size_t identifier_at(const char *p, const char *end);

/* Whether the identifier at p is `word` (so "include" is not "include_next"
 * and "define" is not "defined"). */
bool word_is(const char *p, const char *end, const char *word);

/* After the identifier `word` at p and the blanks after it: where the
 * directive's operand starts; NULL when the identifier at p is not word. */
const char *operand_after(const char *p, const char *end, const char *word);

/* The include guard of a masked text: its first directive tests that G is
 * not defined (`#ifndef G`, `#if !defined(G)`, `#if !defined G`) and its
 * second is `#define G`. With whole_file, the conditional the first
 * directive opens must also end at the text's last directive: a file that
 * opens with `#ifndef _GNU_SOURCE`, `#define _GNU_SOURCE`, `#endif` sets a
 * feature-test macro and is not guarded by it. G's length (*name at it),
 * else 0. */
size_t include_guard(const char *masked, size_t len, bool whole_file, const char **name);

#endif
