/* The compilation database's source files outside the paths analysed, as
 * units of the snapshot's headers. A header that only such a file includes
 * (nccl's collective headers, which only the sources its build generates
 * in the build directory include) was parsed on its own, without the flags
 * and the declarations its build compiles it with, and failed there. Each
 * such file is added to the snapshot as source_file.unit_only: header_lang.c
 * makes it the context of the headers it reaches that no analysed file
 * reaches; it is never analysed or reported itself. */
#ifndef GPULINT_DB_UNITS_H
#define GPULINT_DB_UNITS_H

#include "config/config.h"
#include "input/compile_db.h"
#include "input/source.h"

/* Add every source file the database lists that is not in the snapshot,
 * can be read and is of a source kind, with its flags; the snapshot is
 * sorted again. Returns how many were added. */
size_t db_units_add(const compile_db *db, snapshot *snap, const gl_config *cfg);

/* What every database does once it was given (compile_db_give) to the
 * `served` analysed files it is for, `listed` of them listed in it: given
 * with -p, every file; found (compile_db_discover), those it is nearest
 * to. Its units are added (db_units_add; none when `staged`: the index's
 * files are analysed, and these would be read from the disk), and when it
 * lists none of the files served and lent none its flags, that is said on
 * stderr, naming it (`found`: "below it"). */
void db_units_use(const compile_db *db, snapshot *snap, const gl_config *cfg, bool staged,
                  size_t served, size_t listed, bool found);

#endif
