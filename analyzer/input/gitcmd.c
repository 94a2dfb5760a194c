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

int blob_reader_open(blob_reader *r, char **error)
{
    static const char *const argv[] = {"git", "cat-file", "--batch", NULL};
    int to_child, from_child;
    r->pid = spawn_with_pipes(argv, false, &to_child, &from_child, error);
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
