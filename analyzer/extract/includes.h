/* What a parse would read besides the file itself, checked before libclang
 * reads it: clang reads an included FIFO until a writer comes (forever) and
 * /dev/zero until memory runs out, so an #include that names something
 * other than a regular file, or a file over the size bound, makes the
 * including file not checked instead of a hang. */
#ifndef GPULINT_INCLUDES_H
#define GPULINT_INCLUDES_H

#include <stddef.h>

#include "input/source.h"

/* NULL, or why snap->files[index] must not be parsed (malloc'd), with
 * *line the line of its #include that leads there: the first #include of
 * it, or of a header it includes (from the snapshot, else from disk), that
 * resolves (the including file's directory for "...", then the -iquote, -I,
 * -isystem and -idirafter directories of argv) to something other than a
 * regular file or to a file of more than max_bytes. */
char *include_hazard(const snapshot *snap, size_t index, const char *const *argv, size_t argc,
                     unsigned long max_bytes, unsigned *line);

#endif
