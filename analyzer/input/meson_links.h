/* Which Meson targets are linked into which programs (input/build_links.h),
 * from the build directory Meson configured: meson-info/meson-info.json
 * (the build directory as Meson names it), meson-info/intro-targets.json
 * (each target's id, type and file; its objects are in <file>.p/, as
 * compile_target names them) and build.ninja, whose link step of each
 * target lists the libraries it links. intro-targets.json says nothing of
 * links before Meson 1.13 (Debian bookworm has 1.0.1; 1.13 adds a
 * `depends` list that mixes links with build order), and
 * intro-dependencies.json lists only dependencies found outside the
 * project (pkg-config's, CUDA's), so the link steps are read from the
 * manifest Meson's Ninja backend writes.
 *
 * A program is an "executable", "shared library" or "shared module"; a
 * library a "static library" or "shared library". A target links the
 * targets whose file, or a file in whose object directory (a shared
 * library's symbols file, libx.so.p/libx.so.symbols, through which Meson
 * makes its users relink), its link step names as an input. */
#ifndef GPULINT_MESON_LINKS_H
#define GPULINT_MESON_LINKS_H

#include "input/build_links.h"

/* Read Meson's build below build_dir (the directory of
 * compile_commands.json, Meson's build directory). Returns 1 and an empty
 * map when it has no meson-info/meson-info.json (not a Meson build), 0
 * when read, -1 with *error naming the file that cannot be read or is not
 * what Meson writes (a missing intro-targets.json or build.ninja
 * included). */
int meson_links_load(const char *build_dir, build_links *map, char **error);

#endif
