/* host_file.h. */
#define _GNU_SOURCE
#include "host_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "status.h"

static const char *kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a plain file";
}

tlob_status host_file_open_read(const char *path, FILE **f, long long *size) {
    *f = NULL;
    /* O_NONBLOCK: opening a FIFO with no writer must not wait for one. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return TLOB_FAIL(TLOB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        const int err = errno;
        close(fd);
        return TLOB_FAIL(TLOB_ERR_IO, "%s: cannot open: %s", path, strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return TLOB_FAIL(TLOB_ERR_IO, "%s: is %s, not a regular file", path, kind_of(st.st_mode));
    }
    *f = fdopen(fd, "rb");
    if (!*f) {
        const int err = errno;
        close(fd);
        return TLOB_FAIL(TLOB_ERR_IO, "%s: cannot open: %s", path, strerror(err));
    }
    *size = (long long)st.st_size;
    return TLOB_OK;
}

/* Names of temporary files: the process and a counter, so that threads and
 * processes writing beside each other never share one. */
static atomic_uint tmp_counter;

tlob_status host_file_check_target(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return TLOB_FAIL(TLOB_ERR_IO, "%s: is %s; not replaced", path, kind_of(st.st_mode));
    return TLOB_OK;
}

tlob_status host_file_create(const char *path, host_file_out *out) {
    memset(out, 0, sizeof *out);
    out->path = path;
    TLOB_CHECK(host_file_check_target(path));
    const char *slash = strrchr(path, '/');
    const int dir_len = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    /* O_EXCL with mode 0666 lets the umask decide the permissions, as fopen
     * would have, without changing the process's umask. */
    for (int attempt = 0; attempt < 100; attempt++) {
        free(out->tmp);
        if (asprintf(&out->tmp, "%.*s.%s.tmp-%ld-%u", dir_len, path, base, (long)getpid(),
                     atomic_fetch_add(&tmp_counter, 1u)) < 0) {
            out->tmp = NULL;
            return TLOB_FAIL(TLOB_ERR_OUT_OF_MEMORY, "%s: no memory for a file name", path);
        }
        const int fd = open(out->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST) continue;
        if (fd < 0) {
            const int err = errno;
            free(out->tmp);
            out->tmp = NULL;
            return TLOB_FAIL(TLOB_ERR_IO, "%s: cannot create: %s", path, strerror(err));
        }
        out->f = fdopen(fd, "wb");
        if (!out->f) {
            const int err = errno;
            close(fd);
            unlink(out->tmp);
            free(out->tmp);
            out->tmp = NULL;
            return TLOB_FAIL(TLOB_ERR_IO, "%s: cannot create: %s", path, strerror(err));
        }
        return TLOB_OK;
    }
    free(out->tmp);
    out->tmp = NULL;
    return TLOB_FAIL(TLOB_ERR_IO, "%s: cannot create a temporary file beside it: 100 names taken",
                     path);
}

tlob_status host_file_finish(host_file_out *out, int ok) {
    if (!out->f) return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "%s: not open for writing", out->path);
    /* errno of the first failure: a short fwrite sets it (EFBIG, ENOSPC). */
    int err = ok ? 0 : errno;
    if (ok && fflush(out->f) != 0) ok = 0, err = errno;
    if (ok && fsync(fileno(out->f)) != 0) ok = 0, err = errno;
    if (fclose(out->f) != 0 && ok) ok = 0, err = errno;
    out->f = NULL;
    if (ok) return TLOB_OK;
    host_file_discard(out);
    return TLOB_FAIL(TLOB_ERR_IO, "%s: write failed: %s (the old file, if any, is unchanged)",
                     out->path, err ? strerror(err) : "short write");
}

void host_file_discard(host_file_out *out) {
    if (out->f) fclose(out->f);
    out->f = NULL;
    if (out->tmp) unlink(out->tmp);
    free(out->tmp);
    out->tmp = NULL;
}

tlob_status host_file_rename(host_file_out *out) {
    if (!out->tmp || out->f)
        return TLOB_FAIL(TLOB_ERR_INVALID_ARGUMENT, "%s: not finished for renaming", out->path);
    if (rename(out->tmp, out->path) != 0) {
        const int err = errno;
        host_file_discard(out);
        return TLOB_FAIL(TLOB_ERR_IO, "%s: cannot replace: %s (the old file, if any, is unchanged)",
                         out->path, strerror(err));
    }
    /* The rename is durable only once the directory is flushed too. Where
     * that fails (some file systems refuse fsync on a directory) the new
     * file is already complete and in place, so it is not an error. */
    char *slash = strrchr(out->tmp, '/');
    if (slash) slash[1] = '\0';
    const int dfd = open(slash ? out->tmp : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(out->tmp);
    out->tmp = NULL;
    return TLOB_OK;
}

tlob_status host_file_commit(host_file_out *out, int ok) {
    TLOB_CHECK(host_file_finish(out, ok));
    return host_file_rename(out);
}
