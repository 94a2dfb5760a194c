/* The build statements of a Ninja manifest (build.ninja): Meson's link
 * steps there say which libraries each program links, which its
 * introspection files do not before Meson 1.13 (input/meson_links.h).
 * Only what that needs is read (ninja_build_format(7), "Lexical syntax"):
 * each `build` statement's outputs, explicit and implicit, and its inputs,
 * explicit and implicit (order-only inputs after `||` and validations
 * after `|@` are no part of the step). Paths are unescaped ("$ ", "$:",
 * "$$", "$" before a newline continues the line); a variable in a path is
 * kept as written, not expanded (Meson writes none in paths), and
 * `include` and `subninja` are not followed (Meson writes neither). */
#ifndef GPULINT_NINJA_EDGES_H
#define GPULINT_NINJA_EDGES_H

#include <stddef.h>

typedef struct {
    char **outputs;
    size_t noutputs;
    char **inputs;
    size_t ninputs;
} ninja_edge;

typedef struct {
    ninja_edge *edges;
    size_t n;
} ninja_edges;

/* Read the manifest at path. Returns 0, or -1 with *error naming the file
 * (and the line of a `build` statement with no ':' or no rule). */
int ninja_edges_load(const char *path, ninja_edges *out, char **error);
void ninja_edges_free(ninja_edges *edges);

#endif
