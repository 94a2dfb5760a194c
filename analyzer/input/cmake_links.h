/* Which CMake targets are linked into which programs, from CMake's file API
 * (cmake-file-api(7)): the "codemodel" version 2 reply that CMake writes in
 * the build directory's .cmake/api/v1/reply/ when a client asked for it
 * before configuring (an empty file .cmake/api/v1/query/codemodel-v2). The
 * compilation database says which target compiles each file
 * (input/compile_target.h), not which targets link a library; the reply
 * does (docs/rules.md, "Programs").
 *
 * A program is a target with a link step (EXECUTABLE, SHARED_LIBRARY,
 * MODULE_LIBRARY); a library is a STATIC_LIBRARY, SHARED_LIBRARY or
 * OBJECT_LIBRARY (input/build_links.h). A dependency added by add_dependencies() (build order
 * only) reads as a link too: the reply's `dependencies` does not tell them
 * apart, and comparing more files errs the way directories did. */
#ifndef GPULINT_CMAKE_LINKS_H
#define GPULINT_CMAKE_LINKS_H

#include "input/build_links.h"

/* Read the reply below build_dir (the directory of compile_commands.json,
 * CMake's top build directory). Returns 1 and an empty map when there is
 * no reply or it has no codemodel (nobody asked), 0 when read, -1 with
 * *error naming the file for a reply that cannot be read. */
int cmake_links_load(const char *build_dir, build_links *map, char **error);

#endif
