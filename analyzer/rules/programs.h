/* Which files of a snapshot can be linked into one program (docs/rules.md,
 * "Programs"), for the rules that match a use in one file with a
 * definition in another (kernel-signature, no-cpu-compute's calls).
 *
 * By the compilation database's targets where it names them
 * (source_file.targets): files that share a target link together; files
 * whose targets share none and are all executables (a target that defines
 * `main`) never do, for executables do not link with each other. A library
 * target (no `main`) may be linked into any other target, which the
 * database does not say; CMake's file API reply does, and then a library's
 * files carry the targets of the programs that link it in place of its own
 * (input/cmake_links.h, input/compile_db.c). A library without a reply or
 * that no program links, and files with no target (no database, one that
 * names no target, a header no listed unit reaches), are told apart by
 * directory (path_same_program). */
#ifndef GPULINT_PROGRAMS_H
#define GPULINT_PROGRAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/rule.h"

typedef struct {
    const snapshot *snap;
    char **executables;   /* the targets that define main, sorted (not owned) */
    size_t nexecutables;
} program_map;

void programs_build(program_map *pm, const analysis *a);
void programs_free(program_map *pm);

typedef enum {
    PROGRAMS_SEPARATE,   /* executables of different targets */
    PROGRAMS_UNKNOWN,    /* by directory: path_same_program may say either */
    PROGRAMS_SHARED,     /* a target builds both */
} program_relation;

/* How snapshot files a and b relate. */
program_relation programs_relate(const program_map *pm, size_t a, size_t b);

/* Whether files a and b can be linked together: a shared target, or by
 * directory when the targets do not tell. */
bool programs_same(const program_map *pm, size_t a, size_t b);

#endif
