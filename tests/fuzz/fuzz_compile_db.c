/* Compilation databases (analyzer/input/compile_db.c): a database or an
 * error naming the file. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "input/compile_db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *error = NULL;
    compile_db *db = compile_db_load(fuzz_input_file(data, size), &error);
    if (!db && !error)
        abort();
    if (db)
        (void)compile_db_lookup(db, "/x/y.c");
    compile_db_free(db);
    free(error);
    return 0;
}
