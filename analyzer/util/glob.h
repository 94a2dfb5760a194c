/* Globs, as .gpulint.yaml writes them (docs/gpulint.md, "Globs"): path
 * patterns with .gitignore's meaning, and name patterns for identifiers.
 * Both match in time linear in the pattern times the text (one backtrack
 * point per level, never a search tree): four stars, a slash and four more
 * against a deep path cost what a plain "*" does. */
#ifndef GPULINT_GLOB_H
#define GPULINT_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* A name glob over a whole identifier: '*' any run of characters, '?' one,
 * '[...]' one of a set. */
bool glob_match(const char *pattern, const char *name);

/* A path glob over a repository-relative file path, as .gitignore matches
 * it: a pattern with a '/' before its end is anchored at the root (a leading
 * '/' only anchors), one without matches any path component (`*.cu` at any
 * depth, `build` any file or directory so named); a trailing '/' matches
 * directories only; '*' '?' '[...]' stay within a component; a `**`
 * component matches any number of them, none included. A pattern matches a
 * file when it matches the file or one of the directories it is in. */
bool path_glob_match(const char *pattern, const char *path);

/* Whether a pattern is one gpulint can match: NULL, or the problem, with
 * *offset the byte of the pattern it is at. `!` (negation) is refused: in a
 * list that only adds, it would silently mean the opposite. */
const char *glob_problem(const char *pattern, bool is_path, size_t *offset);

#endif
