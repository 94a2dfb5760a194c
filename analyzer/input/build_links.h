/* Which build targets are linked into which programs, as a build system's
 * own description of its build says (docs/rules.md, "Programs"): CMake's
 * file API reply (input/cmake_links.h) or Meson's introspection and link
 * steps (input/meson_links.h). The compilation database says which target
 * compiles each file (input/compile_target.h), not which targets link a
 * library; these do.
 *
 * A program is a target with a link step (an executable, a shared library
 * or module). Its members are itself and every library target it depends
 * on, directly or through other library targets (static, shared, object
 * libraries). */
#ifndef GPULINT_BUILD_LINKS_H
#define GPULINT_BUILD_LINKS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *member;    /* a target's object directory, as compile_target names it */
    char *program;   /* a program it is linked into, named so too */
} build_link;

typedef struct {
    build_link *links;   /* sorted by member, then program */
    size_t n;
} build_links;

/* A target as a reader found it, all its strings owned. */
typedef struct {
    char *id;        /* unique among the targets */
    char *key;       /* its object directory, as compile_target names it */
    bool program, library;
    char **deps;     /* the ids of the targets it depends on */
    size_t ndeps;
} link_target;

/* The map of targets ts[0..n) (reordered: sorted by id), whose deps name
 * ids among them (others are ignored). */
void build_links_from(link_target *ts, size_t n, build_links *map);
void link_targets_free(link_target *ts, size_t n);

void build_links_free(build_links *map);

/* The programs `member` is linked into: *n of them from the returned entry
 * on; NULL when the map does not name it as linked into any (no reply, a
 * library no program links, a target the reply does not list). */
const build_link *build_links_of(const build_links *map, const char *member, size_t *n);

#endif
