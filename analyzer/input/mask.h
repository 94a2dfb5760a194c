/* Comments and string/char literals of C, C++ and CUDA source, found by a
 * small lexer (not libclang: it must be fast and work on any text, even code
 * that does not compile). Handles // and block comments, line continuations
 * (a // comment continued by a trailing backslash), escapes in literals,
 * encoding prefixes (u8, u, U, L), C++11 raw strings R"delim(...)delim" and
 * C++14 digit separators (1'000), which are not char literals. */
#ifndef GPULINT_MASK_H
#define GPULINT_MASK_H

#include <stddef.h>

typedef enum { SPAN_COMMENT, SPAN_STRING } span_kind;  /* SPAN_STRING: char literals too */

typedef struct {
    span_kind kind;
    size_t start, end;   /* byte offsets, [start, end): the whole comment, or
                            the literal from its opening to its closing quote */
} source_span;

/* All comment and literal spans of text, in order. Returns the count; *spans
 * is malloc'd (NULL when there are none). */
size_t scan_spans(const char *text, size_t len, source_span **spans);

enum { MASK_COMMENTS = 1, MASK_STRINGS = 2 };

/* Copy text to out (len bytes, plus a NUL) with the kinds in `what` blanked:
 * comments entirely, literals between their quotes. Newlines are kept, so
 * offsets, lines and columns are the same as in text. */
void mask_text(const char *text, size_t len, unsigned what, char *out);

#endif
