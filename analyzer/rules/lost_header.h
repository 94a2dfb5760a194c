/* A header of the snapshot that a file does #include but could not find
 * (its directory is on none of the includer's search paths): no unit
 * reaches it, so it is parsed on its own, without the types and macros its
 * includer gives it (a header that uses uint8_t and relies on its includer
 * for <stdint.h>). The errors of that parse follow from the missing context,
 * one cause: rules/parse_error.c leaves them to rules/not_checked.c, which
 * reports the header once, naming the includer and the directory to add. */
#ifndef GPULINT_LOST_HEADER_H
#define GPULINT_LOST_HEADER_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/rule.h"

typedef struct {
    char *includer;    /* "path:line" of the #include that failed */
    char *spelling;    /* the header as that #include writes it */
    char *dir;         /* the directory that would have found it */
} lost_header;

/* Whether snapshot file fi is such a header and its parse on its own had
 * errors; *out (malloc'd strings, freed with lost_header_free) when so. */
bool lost_header_find(const analysis *a, size_t fi, lost_header *out);

/* The directory below which a snapshot file is `spelling` (the first in
 * snapshot order; malloc'd, as gpulint prints paths), or NULL: where an
 * #include that was not found would have found it. */
char *lost_header_dir(const snapshot *snap, const char *spelling);
void lost_header_free(lost_header *h);

#endif
