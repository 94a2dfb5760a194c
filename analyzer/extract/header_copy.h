/* A header that a unit opens under another path. A build may copy the
 * tree's headers into its output directory and put that first on the
 * include path (nccl's -I<build>/include holds nccl_device.h and
 * nccl_device/ as src/include has them): gpulint resolves an #include among
 * the snapshot's files only (input/header_lang.c), so it takes the unit to
 * include the tree's header, while the compiler opens the copy. */
#ifndef GPULINT_EXTRACT_HEADER_COPY_H
#define GPULINT_EXTRACT_HEADER_COPY_H

#include "extract/libclang_api.h"
#include "extract/reach.h"
#include "input/source.h"

/* The file that unit `tu` opened for header `src`: src itself, or a file
 * outside the snapshot (its context files included), opened by an #include whose
 * name also names src, with src's content byte for byte (the same text at
 * the same lines: src's facts). NULL when the unit opened neither; then
 * *differing (when differing is not NULL) is such a file whose content is
 * not src's, as clang names it (malloc'd), or NULL. */
CXFile header_opened_by_unit(CXTranslationUnit tu, const source_file *src,
                             const snapshot_reach *reach, char **differing);

#endif
