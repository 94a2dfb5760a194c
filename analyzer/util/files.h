/* Reading and writing the files gpulint is handed or writes itself
 * (baselines, compilation databases): only regular files are read, with a
 * size bound, and every write goes to a temporary file in the same directory
 * that is flushed to disk and renamed over the old one, so a full disk or a
 * crash leaves the old file whole, never a truncated one. */
#ifndef GPULINT_FILES_H
#define GPULINT_FILES_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* The JSON document in `path` ("what" names it in errors), or NULL with
 * *error = "PATH:LINE:COL: error: WHAT: ..." (a truncated, nested too deeply
 * or malformed document) or "PATH: error: ..." (not a regular file, over
 * max_bytes, unreadable). */
json_t *files_load_json(const char *path, const char *what, size_t max_bytes, char **error);

/* The bytes of `path`, NUL-terminated, their count in *len (the same
 * checks and errors as files_load_json, but for the JSON). */
char *files_load_text(const char *path, const char *what, size_t max_bytes, size_t *len,
                      char **error);

/* Replace `path` by `len` bytes of `data` atomically (same-directory temp
 * file, fsync, rename). Returns 0, or -1 with *error naming the file and
 * the cause; the old file is then untouched. */
int files_write_atomically(const char *path, const char *data, size_t len, char **error);

/* `s` with every control character (and DEL) written as \xNN, so a file
 * name, a message or a baseline field cannot move the cursor, colour the
 * terminal or forge a line of output; tabs kept when keep_tabs. */
void files_put_visible(FILE *out, const char *s, size_t len, int keep_tabs);

#endif
