/* Path strings, without touching the file system (a staged file may not
 * exist on disk). */
#ifndef GPULINT_PATHS_H
#define GPULINT_PATHS_H

/* "a/./b/../c.h" -> "a/c.h" (malloc'd); leading ".." that cannot be resolved
 * is kept, an absolute path stays absolute. */
char *path_normalise(const char *path);

/* dir/name normalised; name as is when absolute or dir is empty (malloc'd). */
char *path_join(const char *dir, const char *name);

#endif
