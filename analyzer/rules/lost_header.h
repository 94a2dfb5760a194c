/* A header of the snapshot that no unit of this build includes, parsed on
 * its own without the types and macros its includer would give it, for
 * one of these reasons:
 *  - a file does #include it but could not find it (its directory is on
 *    none of the includer's search paths): a header that uses uint8_t and
 *    relies on its includer for <stdint.h>;
 *  - a file includes it only in a preprocessor branch that this build does
 *    not take (`#elif defined(_MSC_VER)`): the header of another compiler
 *    or platform; or a file's #include names it, but not on a search path
 *    gpulint has, from a file no unit reaches (boost's
 *    `#include <boost/numeric/interval/detail/msvc_rounding_control.hpp>`
 *    without the sample's own include directory);
 *  - it is named only by a macro that an `#include MACRO` expands (boost's
 *    `#define BOOST_COMPILER_CONFIG "boost/config/compiler/gcc.hpp"`), and
 *    no unit reaches that #include (input/include_names.h follows it to
 *    the units that do; a `#define` in a branch not taken is the second
 *    case).
 *  - a unit opens it through an #include of a macro that gpulint cannot
 *    follow (`#include HEADER_OF(x)` with #__VA_OPT__ in its body): the
 *    unit says so at its #include, and the header is reported once too;
 *  - its unit's #include opens a copy of it outside the snapshot whose
 *    content differs (a build's output directory first on the include
 *    path, holding an older copy: extract/header_copy.h);
 *  - nothing analysed includes it, nor names it: its includer is outside
 *    the paths given, or the build generates it (nccl's NVTX semantic
 *    headers need nvToolsExtPayload.h included before them; boost's
 *    abi_suffix.hpp #errors unless abi_prefix.hpp came first). Without an
 *    includer nothing tells a missing context from an error of the
 *    header's own, and neither was checked.
 * The errors of that parse follow from the missing context, one cause:
 * rules/parse_error.c leaves them to rules/not_checked.c, which reports the
 * header once, naming the cause and its fix. */
#ifndef GPULINT_LOST_HEADER_H
#define GPULINT_LOST_HEADER_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/rule.h"

typedef enum {
    LOST_NOT_FOUND,       /* its includer could not find it */
    LOST_UNTAKEN_BRANCH,  /* included only where this build does not go */
    LOST_NO_UNIT,         /* an #include names it, but no unit reaches that
                             #include and finds it: a branch not taken, or a
                             search path gpulint does not have */
    LOST_MACRO,           /* named only by a macro an #include expands */
    LOST_UNFOLLOWED,      /* opened by an #include of a macro gpulint cannot
                             follow (UNCHECKED_MACRO_INCLUDE of its unit) */
    LOST_DIFFERING_COPY,  /* its unit opens a copy of it that differs */
    LOST_NO_INCLUDER,     /* no analysed file includes it or names it */
} lost_reason;

typedef struct {
    lost_reason reason;
    char *includer;    /* "path:line": the #include that failed or that
                          sits in the branch not taken, or the #define;
                          NULL for LOST_NO_INCLUDER */
    char *spelling;    /* the header as that line writes it (NULL for
                          LOST_NO_INCLUDER) */
    char *dir;         /* LOST_NOT_FOUND: the directory that would have
                          found it; else NULL */
    char *unit;        /* LOST_UNTAKEN_BRANCH, LOST_DIFFERING_COPY: the
                          unit that does not include it; else NULL */
    char *copy;        /* LOST_DIFFERING_COPY: the file that unit opens in
                          its place; else NULL */
    char *macro;       /* LOST_MACRO, and LOST_UNTAKEN_BRANCH when a
                          `#define` (includer) names it: the macro's name;
                          else NULL */
} lost_header;

/* Whether snapshot file fi is such a header and its parse on its own had
 * errors; *out (malloc'd strings, freed with lost_header_free) when so. */
bool lost_header_find(const analysis *a, size_t fi, lost_header *out);

/* The directory below which a snapshot file is `spelling` (of several, the
 * one sharing the most directories with `near`, the absolute path of the
 * file with the #include; then the first in snapshot order; malloc'd, as
 * gpulint prints paths), or NULL: where an #include that was not found
 * would have found it. */
char *lost_header_dir(const snapshot *snap, const char *spelling, const char *near);
void lost_header_free(lost_header *h);

#endif
