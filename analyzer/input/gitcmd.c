#define _GNU_SOURCE
#include "input/gitcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Spawn argv with stdin from *to_child (if to_child) and stdout to *from_child.
 * Returns the pid, or -1 with *error. */
static pid_t spawn_with_pipes(const char *const argv[], bool quiet, int *to_child,
                              int *from_child, char **error)
{
    int in_pipe[2] = {-1, -1}, out_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || (to_child && pipe2(in_pipe, O_CLOEXEC) != 0)) {
        *error = xasprintf("cannot create a pipe for %s: %s", argv[0], strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    if (to_child)
        posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
    else
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (quiet)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &actions, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out_pipe[1]);
    if (to_child)
        close(in_pipe[0]);
    if (rc != 0) {
        *error = xasprintf("cannot run %s: %s", argv[0], strerror(rc));
        close(out_pipe[0]);
        if (to_child)
            close(in_pipe[1]);
        return -1;
    }
    *from_child = out_pipe[0];
    if (to_child)
        *to_child = in_pipe[1];
    return pid;
}

static int reap(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int git_capture(const char *const argv[], bool quiet, byte_buf *out, char **error)
{
    int from_child;
    pid_t pid = spawn_with_pipes(argv, quiet, NULL, &from_child, error);
    if (pid < 0)
        return -1;
    char chunk[65536];
    for (;;) {
        ssize_t n = read(from_child, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        buf_append(out, chunk, (size_t)n);
    }
    close(from_child);
    if (!out->data)
        buf_append(out, "", 0);
    int status = reap(pid);
    if (status < 0)
        *error = xasprintf("%s %s was killed", argv[0], argv[1]);
    return status;
}

int git_present_objects(const char *oids, size_t len, byte_buf *out, char **error)
{
    /* rev-list with --missing=print never fetches (cat-file would, and in
     * git before 2.44 dies when the fetch fails); --ignore-missing drops
     * the named objects that are not here, --no-walk lists just the named
     * ones. It reads all of stdin before it writes, so writing everything
     * first cannot deadlock. */
    static const char *const argv[] = {"git", "rev-list", "--objects", "--missing=print",
                                       "--ignore-missing", "--no-walk", "--stdin", NULL};
    int to_child, from_child;
    pid_t pid = spawn_with_pipes(argv, false, &to_child, &from_child, error);
    if (pid < 0)
        return -1;
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(to_child, oids + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(to_child);
    char chunk[65536];
    ssize_t n;
    while ((n = read(from_child, chunk, sizeof chunk)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        buf_append(out, chunk, (size_t)n);
    }
    close(from_child);
    int status = reap(pid);
    if (off < len || status != 0) {
        *error = xasprintf("git rev-list could not tell which objects are here (exit %d)",
                           status);
        return -1;
    }
    return 0;
}

void git_forbid_lazy_fetch(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    /* git 2.44 and later honour GIT_NO_LAZY_FETCH; for older ones, no
     * transport is allowed, so the fetch fails at once and the object is
     * answered "missing". */
    setenv("GIT_NO_LAZY_FETCH", "1", 1);
    const char *count = getenv("GIT_CONFIG_COUNT");
    char *end = NULL;
    long n = count ? strtol(count, &end, 10) : 0;
    if (!count || !*count || *end || n < 0)
        n = 0;
    char name[64], value[32];
    snprintf(name, sizeof name, "GIT_CONFIG_KEY_%ld", n);
    setenv(name, "protocol.allow", 1);
    snprintf(name, sizeof name, "GIT_CONFIG_VALUE_%ld", n);
    setenv(name, "never", 1);
    snprintf(value, sizeof value, "%ld", n + 1);
    setenv("GIT_CONFIG_COUNT", value, 1);
}

int blob_reader_open(blob_reader *r, char **error)
{
    static const char *const argv[] = {"git", "cat-file", "--batch", NULL};
    int to_child, from_child;
    /* Quiet: in a partial clone, git's complaints about the fetch it may not
     * make (see inputs.c, load_index) would drown gpulint's own note; an
     * object git cannot give is answered "missing" on the pipe anyway. */
    r->pid = spawn_with_pipes(argv, true, &to_child, &from_child, error);
    if (r->pid < 0)
        return -1;
    r->requests = fdopen(to_child, "w");
    r->replies = fdopen(from_child, "r");
    if (!r->requests || !r->replies) {
        *error = xasprintf("cannot open the pipes to git cat-file: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int blob_reader_read(blob_reader *r, const char *oid, char **data, size_t *len, char **error)
{
    /* Without --buffer, git flushes each reply, so one request at a time
     * cannot deadlock on full pipes. */
    if (fprintf(r->requests, "%s\n", oid) < 0 || fflush(r->requests) != 0) {
        *error = xasprintf("git cat-file --batch stopped reading (object %s)", oid);
        return -1;
    }
    char header[256];
    if (!fgets(header, sizeof header, r->replies)) {
        *error = xasprintf("git cat-file --batch gave no reply for object %s", oid);
        return -1;
    }
    char type[32];
    unsigned long long size;
    if (sscanf(header, "%*s %31s", type) == 1 && strcmp(type, "missing") == 0)
        return 1;
    if (sscanf(header, "%*s %31s %llu", type, &size) != 2 || strcmp(type, "blob") != 0) {
        header[strcspn(header, "\n")] = '\0';
        *error = xasprintf("object %s is not a readable blob (git says: %s)", oid, header);
        return -1;
    }
    *data = xmalloc(size + 1);
    if (fread(*data, 1, size, r->replies) != size || fgetc(r->replies) != '\n') {
        free(*data);
        *error = xasprintf("short read of object %s from git cat-file", oid);
        return -1;
    }
    (*data)[size] = '\0';
    *len = size;
    return 0;
}

int blob_reader_close(blob_reader *r)
{
    if (r->requests)
        fclose(r->requests);
    if (r->replies)
        fclose(r->replies);
    return reap(r->pid) == 0 ? 0 : -1;
}
