/* Which build target a compilation database entry compiles its file for,
 * read from where the entry writes its object (docs/rules.md, "Programs").
 * The database format has no target field; two generators name the target
 * in the object's directory:
 *  - CMake (Unix Makefiles, Ninja): -o CMakeFiles/<target>.dir/src/x.cu.o,
 *    below the target's own build directory (sub/CMakeFiles/<t>.dir/...);
 *  - Meson: -o <target file>.p/x.c.o (src/prog.p/, libfoo.so.p/).
 * Other makers of databases (bear over a Makefile, `ninja -t compdb` of a
 * hand-written build.ninja) write objects wherever the build says, with no
 * target in the path: no target is read, and programs are told apart by
 * directory. */
#ifndef GPULINT_COMPILE_TARGET_H
#define GPULINT_COMPILE_TARGET_H

#include <stddef.h>

/* The target of an entry run in `directory` with compiler command argv (its
 * object: `output` when the entry has that field, else the command's -o,
 * -oFILE, nvcc's --output-file), as the absolute path of the target's
 * object directory (".../CMakeFiles/t.dir", ".../prog.p": unique across
 * databases and subprojects), malloc'd; NULL when the object path names
 * none or there is no object path. */
char *compile_target(const char *directory, char *const *argv, size_t argc,
                     const char *output);

#endif
