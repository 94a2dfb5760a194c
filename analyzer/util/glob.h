/* Path and name globs, as .gpulint.yaml writes them (docs/gpulint.md). */
#ifndef GPULINT_GLOB_H
#define GPULINT_GLOB_H

#include <stdbool.h>

/* Glob match of a whole string ('*' no '/', '**' any, '?' one char). */
bool glob_match(const char *pattern, const char *s);

#endif
