/* Where two points of a translation unit lie in the order clang reads it,
 * for a header analysed in a unit that includes it (its context, or
 * another program's: input/header_lang.c): an #include that fails after
 * that unit has read the header leaves the header's view in that unit
 * checked in full; one that fails before it, or inside it, does not
 * (rules/not_checked.c). */
#ifndef GPULINT_EXTRACT_INCLUDE_ORDER_H
#define GPULINT_EXTRACT_INCLUDE_ORDER_H

#include <stdbool.h>

#include "extract/libclang_api.h"

/* Whether the point at byte `offset` of `file` (a failed #include) comes
 * after the whole of `header` in `tu`: each is placed by the chain of
 * #include lines that first opened it, from the unit's main file inward.
 * false when either chain is not known (a file read from a PCH), which
 * counts the point as one that concerns the header. */
bool include_order_after(CXTranslationUnit tu, CXFile header, CXFile file, unsigned offset);

/* Whether a point of `file` (a failed #include) is inside `header`: the
 * file is the header, or the chain of #include lines that first opened it
 * passes through the header. false when the file's chain is not known. */
bool include_order_inside(CXTranslationUnit tu, CXFile header, CXFile file);

#endif
