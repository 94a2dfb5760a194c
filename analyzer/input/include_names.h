/* What an #include names, read from the text without a preprocessor:
 * "x.h", <x.h>, or a macro (`#define HDR "x.h"` then `#include HDR`, as
 * boost's config.hpp picks its compiler's header with BOOST_COMPILER_CONFIG)
 * whose definitions name files. Every object-like definition of the macro
 * in the snapshot (any file, any branch: a superset, as the #include scan
 * of input/header_lang.c counts an #include under #if 0 too) and the
 * config's defines count, and the -D flags of the compilation database
 * where the unit's entry has them; a definition that is another macro's
 * name is followed. Used wherever gpulint decides
 * which files a unit includes: the header's unit (input/header_lang.c), the
 * files a parse is handed (extract/reach.c). */
#ifndef GPULINT_INCLUDE_NAMES_H
#define GPULINT_INCLUDE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "input/source.h"

typedef struct macro_names macro_names;

/* Index the object-like macros that snap's files (analysed and context
 * files) define, and the -D of their arguments and of cfg (may be NULL).
 * snap must outlive it, unchanged. */
macro_names *macro_names_build(const snapshot *snap, const gl_config *cfg);
void macro_names_free(macro_names *m);

/* Called with each file name an #include can open: its spelling (len
 * bytes, without the quotes or brackets) and whether it is quoted. */
typedef void (*include_name_fn)(const char *name, size_t len, bool quoted, void *ctx);

/* The operand of an #include at `p` (after the directive and its blanks;
 * `end` ends the line) in the text of a file of a unit with the flags of
 * flags_of (NULL: of any unit, a superset): each file name it can open to
 * fn, the written one or those a macro's definitions come down to. false
 * when it may name a file gpulint cannot tell: an expansion that is no file
 * name (an expression, a name that is not defined anywhere gpulint sees),
 * a macro whose body stringifies __VA_OPT__, more expansions than the bounds of
 * include_names.c, or no operand. The operand is expanded as the
 * preprocessor does, with each definition of each macro (a definition's
 * lines joined at backslashes): object-like macros replaced, calls of
 * function-like ones expanded (input/macro_call.h; a variadic one's
 * __VA_ARGS__ too) with their arguments macro-expanded first where # and
 * ## do not take them, and the result rescanned, a macro's name inside
 * its own expansion left as it is. */
bool include_operand_names(const macro_names *m, const source_file *flags_of, const char *p,
                           const char *end, include_name_fn fn, void *ctx);

/* Whether f's text has a `#define NAME` (outside comments) for which
 * is(name, len, ctx) holds. */
bool source_defines_any(const source_file *f, bool (*is)(const char *name, size_t len, void *ctx),
                        void *ctx);

#endif
