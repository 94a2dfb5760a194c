/* Path strings, without touching the file system (a staged file may not
 * exist on disk), apart from path_canonical. */
#ifndef GPULINT_PATHS_H
#define GPULINT_PATHS_H

#include <stdbool.h>

/* "a/./b/../c.h" -> "a/c.h" (malloc'd); leading ".." that cannot be resolved
 * is kept, an absolute path stays absolute. */
char *path_normalise(const char *path);

/* dir/name normalised; name as is when absolute or dir is empty (malloc'd). */
char *path_join(const char *dir, const char *name);

/* The name under which a path that a compiler opened is looked up again:
 * path_normalise(path) when that names the same file as path or when path
 * does not exist (a staged file), else what the file system resolves path to
 * (realpath). Lexical ".." is wrong after a symbolic link: on a merged-/usr
 * system "/lib/gcc/x/12/../../../../include/stdlib.h" is
 * "/usr/include/stdlib.h", not "/include/stdlib.h" (malloc'd). */
char *path_canonical(const char *path);

/* `abs` below directory `root`, relative to it (a pointer into abs); NULL
 * when abs is not below root or root is NULL. */
const char *path_below(const char *root, const char *abs);

/* Whether the files at paths `a` and `b` can be linked into one program, as
 * gpulint tells programs apart (docs/rules.md): the same directory, or one's
 * directory inside the other's (src/ and the root's main.cu). Sibling
 * directories (cuda-samples' smokeParticles/ and volumeRender/, one sample
 * each) are separate programs. */
bool path_same_program(const char *a, const char *b);

#endif
