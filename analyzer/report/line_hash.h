/* GitHub code scanning's primaryLocationLineHash: the fingerprint its upload
 * action computes for each result whose SARIF lacks one, and the only one it
 * matches alerts by. Computed here the same way, so an upload through the
 * REST API (no action to add it) does not duplicate alerts: per line, a
 * rolling hash of the next 100 characters of the file from the line's start,
 * spaces and tabs left out, line ends read as \n, then ":<n>" for the n-th
 * line of the file with that hash. */
#ifndef GPULINT_LINE_HASH_H
#define GPULINT_LINE_HASH_H

#include <stddef.h>

/* The hash of every line of text (UTF-8; counted in UTF-16 units, as the
 * action reads the file): out[i] for line i + 1, *nlines of them (the line
 * after a final newline included). Each string and the array are malloc'd. */
char **line_hashes(const char *text, size_t len, size_t *nlines);

void line_hashes_free(char **hashes, size_t nlines);

#endif
