/* compile_commands.json (-p DIR, --compile-commands FILE): per-file include
 * paths, defines and language standard, so gpulint parses each file the way
 * the build compiles it. Only what changes the parse is kept (-I, -isystem,
 * -iquote, -idirafter, -D, -U, -include, -imacros, -std); code generation
 * flags are dropped, nvcc's included (-gencode, --generate-code, -arch,
 * -code, -rdc, -forward-unknown-to-host-compiler, ...), and nvcc's
 * -Xcompiler lists are unpacked into host flags; response files (@file,
 * nvcc's --options-file) are read in place. Headers the database does not
 * list keep the config's flags alone (their includer's unit gives theirs);
 * a source file it does not list borrows those of a listed file above it. */
#ifndef GPULINT_COMPILE_DB_H
#define GPULINT_COMPILE_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "input/source.h"

typedef struct compile_db compile_db;

/* Returns the database, or NULL with *error (unreadable, not a JSON array of
 * entries with directory, file and command or arguments). */
compile_db *compile_db_load(const char *path, char **error);
void compile_db_free(compile_db *db);

/* The translated flags of the file at abs_path, or NULL when not listed. */
const str_list *compile_db_lookup(const compile_db *db, const char *abs_path);

/* Give f the database's flags for it (source_file.args) and, when its
 * command says `-x` (`nvcc -x cu` on a .cpp file, clang's -x cuda), that
 * language: the build compiles it so, whatever its extension or the
 * config's languages: say. False when the database does not list f; a
 * source file (not a header) then records the database's path in
 * source_file.unlisted_in, which not-checked names, and is given the flags
 * of a listed file of its directory or the nearest one above it under root
 * (NULL: the working directory; source_file.flags_from; -std only from a
 * file of its language family), when there is one. */
bool compile_db_give(const compile_db *db, source_file *f, const char *root);

/* Give every snapshot file that has none yet the database's flags for it
 * (source_file.args); returns how many the database listed. Paths are
 * compared as the file system resolves them (symlinks followed). */
size_t compile_db_apply(const compile_db *db, snapshot *snap);

/* How many of snap's source files db does not list were given the flags of
 * a listed file (compile_db_give). */
size_t compile_db_borrowers(const compile_db *db, const snapshot *snap);

/* Say on stderr, once a database, how many source files it does not list
 * were given the flags of a listed file (compile_db_give), naming the
 * first: a file parsed with inferred flags is not passed silently. */
void compile_db_note_borrowed(const snapshot *snap);

/* The database's entries, sorted by file: the file of entry k (k <
 * compile_db_nentries), absolute and resolved as compile_db_give compares
 * them, or NULL when an earlier entry names the same file. */
size_t compile_db_nentries(const compile_db *db);
const char *compile_db_entry_file(const compile_db *db, size_t k);

/* Without -p: the databases clang-tidy would find, each file's nearest:
 * compile_commands.json in the file's directory or a parent, or in a build/
 * below one of them. Each is used for the files it is nearest to as one
 * given with -p is for all (input/db_units.h, db_units_use: its flags, its
 * sources outside the paths analysed as units unless `staged`, the note
 * for one that lists none of them), and named as -p would name it from the
 * working directory when below it. Returns 0, or -1 with *error for a
 * database that cannot be read. */
int compile_db_discover(snapshot *snap, const gl_config *cfg, bool staged, char **error);

/* The database's path, as given or as compile_db_discover names it. */
const char *compile_db_path(const compile_db *db);

/* Split a shell command line (quotes, backslashes) into words. Returns 0, or
 * -1 for an unterminated quote. */
int shell_split(const char *command, str_list *words);

/* The flags of one compiler command (argv[0] is the compiler) that matter to
 * the parse, paths made absolute against `directory`, appended to out, and
 * the language its last -x names (LANG_COUNT: none, or one gpulint does not
 * parse) into *lang. Returns 0, or -1 with *error (to free) for a response file that is not a
 * regular file or is over 1 MiB (it is not read), or for more than 256
 * response files read for the command (files that name each other). */
int compile_args_translate(char *const *argv, size_t argc, const char *directory, str_list *out,
                           source_lang *lang, char **error);

#endif
