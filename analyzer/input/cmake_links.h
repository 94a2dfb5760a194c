/* Which CMake targets are linked into which programs, from CMake's file API
 * (cmake-file-api(7)): the "codemodel" version 2 reply that CMake writes in
 * the build directory's .cmake/api/v1/reply/ when a client asked for it
 * before configuring (an empty file .cmake/api/v1/query/codemodel-v2). The
 * compilation database says which target compiles each file
 * (input/compile_target.h), not which targets link a library; the reply
 * does (docs/rules.md, "Programs").
 *
 * A program is a target with a link step (EXECUTABLE, SHARED_LIBRARY). Its
 * members are itself and every library target it depends on, directly or
 * through other library targets (STATIC_LIBRARY, SHARED_LIBRARY,
 * OBJECT_LIBRARY). A dependency added by add_dependencies() (build order
 * only) reads as a link too: the reply's `dependencies` does not tell them
 * apart, and comparing more files errs the way directories did. */
#ifndef GPULINT_CMAKE_LINKS_H
#define GPULINT_CMAKE_LINKS_H

#include <stddef.h>

typedef struct {
    char *member;    /* a target's object directory, as compile_target names it */
    char *program;   /* a program it is linked into, named so too */
} cmake_link;

typedef struct {
    cmake_link *links;   /* sorted by member, then program */
    size_t n;
} cmake_links;

/* Read the reply below build_dir (the directory of compile_commands.json,
 * CMake's top build directory). Returns 1 and an empty map when there is
 * no reply or it has no codemodel (nobody asked), 0 when read, -1 with
 * *error naming the file for a reply that cannot be read. */
int cmake_links_load(const char *build_dir, cmake_links *map, char **error);
void cmake_links_free(cmake_links *map);

/* The programs `member` is linked into: *n of them from the returned entry
 * on; NULL when the reply does not name it as linked into any (no reply, a
 * library no program links, a target the reply does not list). */
const cmake_link *cmake_links_of(const cmake_links *map, const char *member, size_t *n);

#endif
