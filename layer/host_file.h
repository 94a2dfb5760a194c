/* Internal: how libtlob opens the files it reads and replaces the files it
 * writes. Reads take only regular files (a FIFO would block, a device never
 * end); writes go to a temporary file in the target's directory, are flushed
 * to the disk and renamed over the target, so a failure (a full disk, a
 * read-only directory) leaves the old file as it was. Every failure returns
 * TLOB_ERR_IO with a message naming the file (tlob_last_error). */
#ifndef TLOB_HOST_FILE_H
#define TLOB_HOST_FILE_H

#include <stdio.h>

#include "tlob.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens path for reading ("rb") if it is a regular file; *size is its size.
 * Anything else is refused with what it is ("is a FIFO, not a regular file"). */
tlob_status host_file_open_read(const char *path, FILE **f, long long *size);

/* TLOB_OK if path is missing or a regular file, which host_file_create may
 * replace; what it is otherwise ("is a directory; not replaced"). */
tlob_status host_file_check_target(const char *path);

typedef struct {
    FILE *f;         /* write the contents here */
    char *tmp;       /* the temporary file beside the target */
    const char *path; /* the target, as the caller named it */
} host_file_out;

/* Creates the temporary file for a later replace of path, after
 * host_file_check_target: a directory, a FIFO or a device is never
 * replaced. */
tlob_status host_file_create(const char *path, host_file_out *out);

/* Flushes out->f, fsyncs and closes it, leaving the temporary file ready
 * for host_file_rename. On any failure (ok == 0: the caller's writes
 * failed) the temporary file is removed and the target is untouched. */
tlob_status host_file_finish(host_file_out *out, int ok);

/* Renames a finished temporary file over its target. */
tlob_status host_file_rename(host_file_out *out);

/* Removes a finished temporary file that will not be renamed (another file
 * of the same set failed). */
void host_file_discard(host_file_out *out);

/* host_file_finish, then host_file_rename: one file replaced. */
tlob_status host_file_commit(host_file_out *out, int ok);

#ifdef __cplusplus
}
#endif
#endif /* TLOB_HOST_FILE_H */
