/* Running git plumbing without a shell: posix_spawnp with pipes. git itself
 * reads GIT_INDEX_FILE, GIT_DIR, split and sparse indexes, so gpulint sees
 * exactly the snapshot `git commit` would record. */
#ifndef GPULINT_GITCMD_H
#define GPULINT_GITCMD_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/xalloc.h"

/* Run argv (NULL-terminated; argv[0] is "git", or gcc for extract.c) in
 * the current directory and collect its stdout. Its stderr goes to ours
 * unless quiet. Returns the program's exit status, or -1 when it could not
 * be started or was killed (*error set). */
int git_capture(const char *const argv[], bool quiet, byte_buf *out, char **error);

/* One `git cat-file --batch` process serving every blob of a run. */
typedef struct {
    pid_t pid;
    FILE *requests;   /* to git's stdin */
    FILE *replies;    /* from git's stdout */
} blob_reader;

int blob_reader_open(blob_reader *r, char **error);

/* Which of the objects named in oids (one hex id a line) this repository
 * has, without fetching any: their ids, one a line (each followed by a
 * space), appended to *out. Returns 0, or -1 with *error. */
int git_present_objects(const char *oids, size_t len, byte_buf *out, char **error);

/* Forbid lazy fetches to every git started from now on: in a partial clone
 * git would fetch each missing object from the promisor remote, one by
 * one, when asked for it. */
void git_forbid_lazy_fetch(void);

/* Read object `oid` into *data (malloc'd, NUL-terminated, *len bytes without
 * the NUL). Returns 0; 1 when the object is not in the repository (a
 * partial clone left it out); or -1 with *error (not a blob, git died). */
int blob_reader_read(blob_reader *r, const char *oid, char **data, size_t *len, char **error);

/* Close the pipes and reap git. Returns 0, or -1 when git failed. */
int blob_reader_close(blob_reader *r);

#endif
