/* The language of headers: a .h is CUDA when a CUDA file of the snapshot
 * includes it, directly or through other headers. A header no file of the
 * snapshot includes (analysed on its own) is CUDA when its code uses syntax C
 * does not have (__global__/__device__/..., template, namespace, <<<, a C++
 * standard header like <string>). C otherwise. Found from the #include lines
 * of the text (no preprocessor: an #include under #if 0 still counts, which
 * errs towards parsing a header as CUDA). */
#ifndef GPULINT_HEADER_LANG_H
#define GPULINT_HEADER_LANG_H

#include "config/config.h"
#include "input/source.h"

/* Also sets the context (source_file.context) of each included header and
 * of each source file (.c, .cpp, ...) that another snapshot file includes:
 * both are analysed in their includer's translation unit. */
void header_langs_resolve(snapshot *snap, const gl_config *cfg);

/* The snapshot file that an #include of `name` (quoted or not) in
 * `includer` opens, searched for as the compiler searches: the includer's
 * directory (quoted form only), the compilation database's include
 * directories of flags_of (the includer's own, or for a header those of a
 * unit that includes it), the config's include-dirs, the repository root,
 * then (<...> form) the includer's directory, which extraction gives every
 * parse as an -I. -1 when none of them holds a snapshot file of that name. */
long include_resolve(const snapshot *snap, const gl_config *cfg, const source_file *includer,
                     const source_file *flags_of, const char *name, bool quoted);

#endif
